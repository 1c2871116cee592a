"""Build the optional C kernel and put ``solr_config/`` into the wheel; everything else is declared
in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and neardup falls back to its
numpy path, which gives the same signatures (tested), only slower.

``solr_config/`` (Solr's configset, solr.xml, the pinned version, the local node's launcher) lives
at the top level, where docker compose mounts it and a SolrCloud admin finds it; the wheel carries
the same files as ``neardup/resources/solr``. package-data cannot take files from outside the
package's folder, and a ``package-dir`` mapping would make ``solr_config`` a Python package of its
own (with an ``__init__.py``), so ``build_py`` copies them. An editable install builds nothing:
``neardup.resources`` reads ``solr_config/`` from the checkout itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

#: The Solr files' home in the checkout (and the sdist), relative to this file.
SOLR_CONFIG = "solr_config"
#: Where the wheel carries them, relative to the built package's root.
PACKAGED_SOLR = os.path.join("neardup", "resources", "solr")
#: Folders that are build output, not sources: Maven's (a launcher built in place), Python's.
NOT_SOURCES = {"target", "__pycache__"}


def solr_config_files(root: str | os.PathLike[str] = ".") -> list[str]:
    """Every file of ``solr_config/`` under ``root``, relative to ``solr_config/``, sorted."""
    base = Path(root, SOLR_CONFIG)
    return sorted(
        path.relative_to(base).as_posix()
        for path in base.rglob("*")
        if path.is_file() and not NOT_SOURCES & set(path.relative_to(base).parts)
    )


class BuildPyWithSolr(build_py):
    """build_py, then ``solr_config/`` copied to ``neardup/resources/solr`` in the build."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # build_py copies nothing then: the checkout is the package
            return
        names = solr_config_files()
        if not names:
            raise SystemExit(f"{os.path.abspath(SOLR_CONFIG)} holds no files: the wheel needs them")
        for name in names:
            target = os.path.join(self.build_lib, PACKAGED_SOLR, name)
            self.mkpath(os.path.dirname(target))
            self.copy_file(os.path.join(SOLR_CONFIG, name), target, preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        packaged = [
            os.path.join(self.build_lib, PACKAGED_SOLR, name) for name in solr_config_files()
        ]
        return [*super().get_outputs(include_bytecode), *packaged]


# The build backend runs this file as __main__; tests import it for solr_config_files and the
# command, without building anything.
if __name__ == "__main__":
    setup(
        cmdclass={"build_py": BuildPyWithSolr},
        ext_modules=[
            Extension(
                "neardup._kernel",
                ["neardup/_kernel.c"],
                extra_compile_args=["-O3", "-std=c11"],
                optional=True,
            )
        ],
    )
