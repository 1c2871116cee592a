"""Short-query search at scale: two-word ``NearDupIndex.search`` latency (p50, p95) on short
records, in memory and in the local Solr node (issue 40: a two-word search at 1M records, p50
<= 50 ms).

The records are :func:`benchmarks.corpus.short_families` (8-15 real words, planted near
copies), indexed with the parameters chosen from the data. Each query is two neighbouring
words of a random record, as someone looking for a record they half remember would type. In
memory the first search builds the term lookup: that time is reported on its own, and left out
of the percentiles.

    python -m benchmarks.search --records 1000000
    python -m benchmarks.search --records 100000 --engines memory --json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

from neardup import NearDupIndex

from . import corpus as C
from .node import SolrNode, rss_mb, say

ENGINES = ("memory", "solr")


def queries(texts: list[str], n: int, seed: int) -> list[str]:
    """``n`` two-word queries: two neighbouring words of a random record each."""
    rng = np.random.default_rng([seed, 0x5EA])
    out = []
    for i in rng.integers(0, len(texts), size=n).tolist():
        words = texts[i].split()
        at = int(rng.integers(0, len(words) - 1))
        out.append(" ".join(words[at : at + 2]))
    return out


def timed(index: NearDupIndex, asked: list[str], k: int) -> dict[str, Any]:
    """Each query's search time (ms): p50, p95, max; and how many found a record holding
    both words."""
    took, full = [], 0
    for q in asked:
        t = time.perf_counter()
        found = index.search(q, k)
        took.append((time.perf_counter() - t) * 1000)
        full += bool(found) and found[0].containment == 1.0
    ms = np.array(took)
    return {
        "queries": len(asked),
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "max_ms": round(float(ms.max()), 2),
        "answered_whole": full,
    }


def run_engine(engine: str, records: list[C.Record], asked: list[str], k: int,
               node: SolrNode | None) -> dict[str, Any]:  # fmt: skip
    say(f"{engine}: indexing {len(records):,} records")
    if engine == "memory":
        index = NearDupIndex()
    else:
        assert node is not None
        from neardup.backends.solr import SolrBackend

        index = NearDupIndex(backend=SolrBackend(node.collection("bench_search")))
    t = time.perf_counter()
    index.add_many(records)
    out: dict[str, Any] = {"index_s": round(time.perf_counter() - t, 1)}
    t = time.perf_counter()
    index.search(asked[0], k)  # in memory: builds the lookup
    out["first_search_s"] = round(time.perf_counter() - t, 2)
    out.update(timed(index, asked[1:], k))
    out["rss_mb"] = round(rss_mb())
    say(f"{engine}: {out}")
    if engine == "solr":
        from neardup.solr.admin import delete_collection

        delete_collection(index.backend.solr)  # type: ignore[attr-defined]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.search", description=__doc__)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help="comma-separated: memory, solr")  # fmt: skip
    ap.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        ap.error(f"--engines: unknown {', '.join(unknown)} (choose from {', '.join(ENGINES)})")
    say(f"generating {args.records:,} short records")
    records = C.short_families(args.records, seed=args.seed).records
    asked = queries([r.text for r in records], args.queries + 1, args.seed)
    result: dict[str, Any] = {"records": args.records, "k": args.k, "engines": {}}
    node = None
    if "solr" in engines:
        node = SolrNode(os.environ.get("NEARDUP_SOLR_URL"), os.environ.get("NEARDUP_SOLR_HEAP"))
    try:
        for engine in engines:
            result["engines"][engine] = run_engine(engine, records, asked, args.k, node)
    finally:
        if node is not None:
            node.stop()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for engine, got in result["engines"].items():
            print(f"{engine:7s} {args.records:>10,} records: two-word search p50 "
                  f"{got['p50_ms']} ms, p95 {got['p95_ms']} ms (first {got['first_search_s']} s, "
                  f"index {got['index_s']} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
