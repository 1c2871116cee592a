"""Files neardup ships inside the package: Solr's configset, the launcher of the local node,
the pinned Solr version, and the restaurant data set. Found relative to this package, so they
are there after any install, not only in a clone of the repository.

The Solr files have their home at the checkout's top level, ``solr_config/``: that is what
``docker-compose.yml`` mounts and what a SolrCloud admin uploads. The build (setup.py) copies
them into the wheel as ``neardup/resources/solr``; a clone or an editable install reads
``solr_config/`` itself, so there is one copy to edit."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def _solr_folder() -> Path:
    """The wheel's copy of the Solr files when the package carries one (its marker, the pinned
    version, is there), else the checkout's ``solr_config/``: a leftover ``solr/`` folder of an
    older layout (a launcher's ``target/``, say) has no version file and is passed over."""
    packaged = HERE / "solr"
    return packaged if (packaged / "version.txt").is_file() else HERE.parents[1] / "solr_config"


SOLR = _solr_folder()
#: The name of this version of the configset in Solr. A core or collection refers to its
#: configset by name, so a change that an existing index cannot be read with (the band fields
#: became longs) takes a new name, and the indexes made before keep the one they were made
#: with (:data:`LEGACY_CONFIGSET`).
CONFIGSET_NAME = "neardup_v3"
#: The configset of the indexes made before records carried what a short search looks up
#: (long band fields, no ``nd_words``): reloaded with those fields, their records, written
#: without them, would be missed by a search that looks terms up.
V2_CONFIGSET = "neardup_v2"
#: The configset of the indexes made before the band fields became longs (string band fields).
LEGACY_CONFIGSET = "neardup"


def configset_dir() -> Path:
    """neardup's Solr configset (``conf/schema.xml``, ``conf/solrconfig.xml``)."""
    return SOLR / "configsets" / "neardup"


def launcher_dir() -> Path:
    """The Maven project of the local node's launcher (``pom.xml``, ``src/``)."""
    return SOLR / "launcher"


def solr_xml() -> Path:
    return SOLR / "solr.xml"


def solr_version() -> str:
    """The pinned Solr version (the repository's ``.env`` says the same; a test checks)."""
    return (SOLR / "version.txt").read_text(encoding="utf-8").strip()


def restaurants() -> tuple[Path, Path]:
    """The Fodor's/Zagat's records (``ID TEXT`` lines) and their 112 gold pairs."""
    folder = HERE / "restaurants"
    return folder / "addresses.txt", folder / "gold.txt"


def review_page() -> tuple[Path, Path, Path]:
    """The review page's template, style and script (neardup.out.review fills and inlines them)."""
    folder = HERE / "review"
    return folder / "page.html", folder / "page.css", folder / "page.js"
