"""What a collection holds (``neardup info``), and what a file that joins it is signed with.

Why: a second file inherits the parameters chosen for the first one's data (records of one
collection are compared only when signed alike), and a user should know it.
:func:`describe` answers "what is in there" (records, sources, parameters, batches) in two
requests; :func:`joining_note` says, in one line, when a file joins with parameters its own
data would not get. Only parameters the user asks for and the collection does not have are
refused (:class:`~neardup.errors.ParameterMismatch`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from .backends.base import Capability, SolrStore
from .backends.solr import BATCH_FIELD, RECORDS_FQ, SOURCE_FIELD
from .choose import choose
from .params import Params

#: Sources and batches listed at most (the counts of the rest are summed).
LISTED = 50
#: Parameters that decide what a record's shingles and pairs are (bands and rows follow them).
DECIDING = ("shingle_kind", "shingle_size", "threshold", "rule", "canonical", "fold_accents",
            "fold_marks", "split_hyphens", "fix_text", "num_perm", "hash_family",
            "seed")  # fmt: skip


def describe(backend: SolrStore) -> dict[str, Any]:
    """Records, sources (most records first), parameters and batches (newest first) of a
    collection, each batch with its sources: of a backend that declares
    :attr:`~neardup.backends.base.Capability.COLLECTION_INFO`."""
    stored = backend.load_params()
    facet = {
        "sources": {"type": "terms", "field": SOURCE_FIELD, "limit": LISTED, "numBuckets": True,
                    "missing": True},
        "batches": {"type": "terms", "field": BATCH_FIELD, "limit": LISTED, "sort": "index desc",
                    "numBuckets": True,
                    "facet": {"sources": {"type": "terms", "field": SOURCE_FIELD, "limit": 5}}},
    }  # fmt: skip
    res = backend.solr.select({"q": "*:*", "fq": RECORDS_FQ, "rows": 0, "json.facet": _json(facet)})
    records = int(res["response"]["numFound"])
    facets = res.get("facets", {})
    by_source = facets.get("sources", {})
    sources = [(str(b["val"]), int(b["count"])) for b in by_source.get("buckets", [])]
    unnamed = int(by_source.get("missing", {}).get("count", 0))
    batches = [
        {
            "batch": int(b["val"]),
            "written": _when(int(b["val"])),
            "records": int(b["count"]),
            "sources": [str(s["val"]) for s in b.get("sources", {}).get("buckets", [])],
        }
        for b in facets.get("batches", {}).get("buckets", [])
    ]
    params = Params.from_dict(stored) if stored is not None else None
    return {
        "collection": backend.location,
        "records": records,
        "sources": dict(sources) | ({"(none)": unnamed} if unnamed else {}),
        "source_count": int(by_source.get("numBuckets", len(sources))),
        "params": params.to_dict() if params else None,
        "described": params.describe() if params else None,
        "batches": batches,
        "batch_count": int(facets.get("batches", {}).get("numBuckets", len(batches))),
    }


def describe_file(backend: Any) -> dict[str, Any]:
    """:func:`describe` of an index file (:class:`~neardup.backends.DuckDBBackend`): the same
    keys, read off its table."""
    stored = backend.load_params()
    facts = backend.facets(LISTED)
    params = Params.from_dict(stored) if stored is not None else None
    return {
        "collection": backend.location,
        "records": facts["records"],
        "sources": dict(facts["sources"])
        | ({"(none)": facts["unnamed"]} if facts["unnamed"] else {}),
        "source_count": facts["source_count"],
        "params": params.to_dict() if params else None,
        "described": params.describe() if params else None,
        "batches": [{"batch": b, "written": _when(b), "records": n, "sources": srcs}
                    for b, n, srcs in facts["batches"]],  # fmt: skip
        "batch_count": facts["batch_count"],
    }


def _records(n: int) -> str:
    return f"{n} record" if n == 1 else f"{n} records"


def format_info(info: Mapping[str, Any]) -> str:
    """:func:`describe`'s answer for a person."""
    lines = [f"{info['collection']}: {_records(info['records'])}"]
    if info["described"] is None:
        lines.append("  no neardup index yet (index a file first)")
        return "\n".join(lines)
    lines.append(f"  parameters: {info['described']}")
    more = info["source_count"] - len(info["sources"])
    lines.append(f"  sources ({info['source_count']}):")
    lines += [f"    {name}: {_records(count)}" for name, count in info["sources"].items()]
    if more > 0:
        lines.append(f"    ... and {more} more")
    lines.append(f"  batches ({info['batch_count']}, newest first):")
    for b in info["batches"]:
        lines.append(
            f"    {b['batch']} ({b['written']}): {_records(b['records'])} from "
            f"{', '.join(b['sources']) or '?'}"
        )
    return "\n".join(lines)


def joining_note(
    backend: Any, params: Params, source: str, texts: Iterable[str],
    given: Mapping[str, Any],
) -> str | None:  # fmt: skip
    """One line for a file that joins a collection of other sources' records whose parameters
    its own data would not get (chosen from ``texts``, its first records, with the ``given``
    ones): it is indexed with the collection's, since every record of a collection must be
    signed alike to be compared; None where nothing differs or the collection is new to it.
    ``backend``: a Solr collection (:func:`describe`) or an index file
    (:func:`describe_file`), which say it alike."""
    solr = Capability.COLLECTION_INFO in backend.capabilities
    info = describe(backend) if solr else describe_file(backend)
    others = {name: n for name, n in info["sources"].items() if name != source}
    if not others:
        return None
    # Chosen for the collection's size, not this file's: a size picks the floor, not the data.
    own = choose(texts, given, expected=info["records"]).params
    diffs = [
        f"{name} {getattr(own, name)!r}"
        for name in DECIDING
        if getattr(params, name) != getattr(own, name)
    ]
    if not diffs:
        return None
    held = ", ".join(f"{name} ({n} records)" for name, n in list(others.items())[:3])
    return (
        f"{source} joins {backend.location} with its parameters, those of {held}, so that its "
        f"records compare with theirs (its own data alone would get {', '.join(diffs)}; a "
        + ("collection of its own: --collection NAME)" if solr
           else "collection of its own: another --index-file)")  # fmt: skip
    )


def _when(batch: int) -> str:
    """A batch number (microseconds since the epoch) as a UTC time."""
    try:
        moment = dt.datetime.fromtimestamp(batch / 1e6, tz=dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return "?"
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
