"""Incremental work at scale (issue #14): 1,000 new records into a large collection.

Usage::

    .venv/bin/python -m benchmarks.incremental --size 1000000 [--defaults] [--json OUT]

Indexes ``--size`` short records (8-15 Zipf words, :func:`benchmarks.corpus.short_records`)
into a new collection of the benchmark's local node, then adds 1,000 new ones and reports only
their pairs (``report(since=...)``), as :func:`benchmarks.measure.bench_incremental` does at the
sizes of the main benchmark. With the benchmark's parameters (word 3-grams, threshold 0.8) by
default, or with ``--defaults`` the parameters an index chooses from its first records
(character 3-grams, the valley rule from a floor of 0.3). Prints one JSON line; the timings
are of one run on this machine, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from neardup import NearDupIndex, Params
from neardup.backends.solr import SolrBackend
from neardup.solr.admin import delete_collection

from . import corpus as C
from .measure import bench_incremental
from .node import SolrNode, say, solr_of


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.incremental", description=__doc__)
    ap.add_argument("--size", type=int, default=1_000_000, help="records in the collection")
    ap.add_argument("--defaults", action="store_true", help="parameters chosen from the data")
    ap.add_argument("--json", type=Path, help="also write the result here")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    # The environment is read here only, as the CLI does (a Solr of the user's, its heap).
    node = SolrNode(os.environ.get("NEARDUP_SOLR_URL"), os.environ.get("NEARDUP_SOLR_HEAP"))
    try:
        name = f"bench_incremental_{args.size}"
        solr = node.collection(name)
        params = None if args.defaults else Params(threshold=0.8, shingle_size=3)
        index = NearDupIndex(params, backend=SolrBackend(solr))
        records = C.short_records(args.size, seed=args.seed)
        start = time.perf_counter()
        stats = index.add_many(records, progress=not args.json)
        build = time.perf_counter() - start
        say(f"collection: {stats.indexed:,d} records in {build:.1f} s ({index.params.describe()})")
        del records
        result = bench_incremental(index, stats.indexed, args.seed)
        start = time.perf_counter()  # once more: the first report after a commit warms Solr
        index.report(since=index.batch_written)
        again = time.perf_counter() - start
        result.update(
            params=index.params.describe(), build_s=round(build, 1), report_again_s=round(again, 3)
        )
        say(
            f"incremental: {result['new']:,d} new records into {result['collection']:,d}: index "
            f"{result['index_s']:.2f} s + report of their pairs {result['report_s']:.2f} s = "
            f"{result['seconds']:.2f} s ({result['candidates']:,d} candidates, "
            f"{result['pairs']:,d} pairs); the same report again {again:.2f} s"
        )
        print(json.dumps(result))
        if args.json:
            args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        delete_collection(solr_of(index))
    finally:
        node.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
