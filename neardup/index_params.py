"""The parameters an index was built with, stored in the index itself and checked on use.

Signatures made with other parameters (shingle size, permutations, seed, bands) are not
comparable: querying with them would return plausible-looking garbage. So the indexer stores its
parameters in one metadata document and every reader compares before it queries.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import ParameterMismatch
from .solr import Solr

META_ID = "_neardup_meta_"
#: Filter that keeps records and leaves out the metadata document.
RECORDS_FQ = f"-id:{META_ID}"


def load(solr: Solr) -> dict[str, Any] | None:
    docs = solr.get([META_ID], fields="id,nd_params")
    if not docs or not docs[0].get("nd_params"):
        return None
    return dict(json.loads(docs[0]["nd_params"]))


def store(solr: Solr, params: dict[str, Any]) -> None:
    solr.add(
        [{"id": META_ID, "nd_meta": "params", "nd_params": json.dumps(params, sort_keys=True)}]
    )


def check(stored: dict[str, Any] | None, wanted: dict[str, Any], where: str) -> None:
    """Raise if ``wanted`` disagrees with what the index holds.

    A key the index lacks is a mismatch too (an index built without LSH bands cannot answer an
    LSH query); a key the caller does not ask about is not.
    """
    if stored is None:
        return
    diffs = [
        f"{key}: index has {stored.get(key, 'none')!r}, asked for {wanted[key]!r}"
        for key in sorted(wanted)
        if stored.get(key) != wanted[key]
    ]
    if diffs:
        if len(diffs) > 3:
            diffs = diffs[:3] + [f"and {len(diffs) - 3} more"]
        raise ParameterMismatch(
            f"the index at {where} was built with other parameters ({'; '.join(diffs)}); "
            "use the index's parameters, or re-index into a new collection"
        )


def ensure(solr: Solr, params: dict[str, Any]) -> None:
    """Check ``params`` against the index, and store them if the index has none yet."""
    stored = load(solr)
    check(stored, params, solr.url)
    if stored is None:
        store(solr, params)
