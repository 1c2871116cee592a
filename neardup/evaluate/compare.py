"""LSH against exact brute force on one index (seed 000's benchmark report)."""

from __future__ import annotations

import time
from typing import Any

from ..candidates.bruteforce import all_pairs
from ..index import NearDupIndex


def compare(
    index: NearDupIndex, threshold: float | None = None, progress: bool = False
) -> dict[str, Any]:
    """Both methods at the same Jaccard threshold on the same shingle sets (by default the
    index's, or the one its rule reads off the data)."""
    params = index.params
    if threshold is None and params.rule not in ("threshold", "documents"):
        # The threshold the index's rule reads off the data, not the floor it bands from.
        threshold = index.report(prune="none", progress=progress).threshold
    threshold = params.threshold if threshold is None else threshold
    lsh = index.report(threshold, prune="none", progress=progress)
    # a record is its source and its id: both sides keyed as the index keys them (a pair's
    # ids alone never met the brute force's keys of a second source's records)
    lsh_set = {frozenset((index.key(p.id1, p.source1), index.key(p.id2, p.source2)))
               for p in lsh.pairs}  # fmt: skip

    start = time.perf_counter()
    records = list(index.backend.records())
    read = time.perf_counter() - start
    start = time.perf_counter()
    sets = {r.id: index.processor.shingle_set(r.text) for r in records}
    exact = all_pairs(sets, threshold)
    brute = time.perf_counter() - start
    exact_set = {frozenset((a, b)) for a, b, _ in exact}
    common = len(lsh_set & exact_set)
    return {
        "threshold": threshold,
        "records": len(records),
        "bands": params.bands,
        "rows": params.rows,
        "lsh": {
            "seconds": round(lsh.seconds, 3),
            "pairs": len(lsh_set),
            "candidates": lsh.candidates,
        },
        "brute_force": {
            "seconds": round(brute, 3),
            "pairs": len(exact_set),
            "read_seconds": round(read, 3),
        },
        "common": common,
        # no pair to find, or none found: a share of nothing is no score (it said 1.0, 1.0 of an
        # index where neither method found a pair)
        "lsh_recall": round(common / len(exact_set), 4) if exact_set else None,
        "lsh_precision": round(common / len(lsh_set), 4) if lsh_set else None,
    }


def format_compare(r: dict[str, Any]) -> str:
    return (
        f"{r['records']} records, Jaccard >= {r['threshold']} "
        f"({r['bands']} bands x {r['rows']} rows)\n\n"
        f"LSH\n{r['lsh']['seconds']:.2f} seconds to execute\n"
        f"{r['lsh']['pairs']} similar pairs found ({r['lsh']['candidates']} candidates)\n\n"
        f"Bruteforce search\n{r['brute_force']['seconds']:.2f} seconds to execute "
        f"(after {r['brute_force']['read_seconds']:.2f} s reading the records)\n"
        f"{r['brute_force']['pairs']} similar pairs found.\n\n"
        + _agreement(r)
    )


def _agreement(r: dict[str, Any]) -> str:
    """What the two methods' pairs say of LSH, where they say anything."""
    if r["lsh_recall"] is None and r["lsh_precision"] is None:
        return "Neither finds a pair at this threshold: no recall or precision to measure."
    said = [f"They find {r['common']} common similarities:"]
    said.append("LSH recall -- (brute force finds no pair)," if r["lsh_recall"] is None
                else f"LSH recall {r['lsh_recall']:.4f},")  # fmt: skip
    said.append("precision -- (LSH finds no pair)" if r["lsh_precision"] is None
                else f"precision {r['lsh_precision']:.4f}")  # fmt: skip
    return " ".join(said) + " against brute force."
