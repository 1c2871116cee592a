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

With ``--link`` (issue #39): the weighted link of new records instead, in memory. Two shop
catalogues (:func:`benchmarks.shops.two_shops`): shop A's ``--size`` records and 5,000 of shop
B's, linked in full; then 1,000 more of B's, and ``report(mode="link", since=...)`` links only
them (timed); a full link of everything then says whether they got the same pairs.
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
    ap.add_argument("--link", action="store_true", help="the weighted link of new records")
    args = ap.parse_args(argv)
    if args.link:
        result = link_new_records(args.size, args.seed)
        print(json.dumps(result))
        if args.json:
            args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        return 0
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


def link_new_records(size: int, seed: int, old_b: int = 5_000, new: int = 1_000) -> dict:
    """The weighted link of ``new`` records of shop B against shop A's ``size`` (and
    ``old_b`` of B's linked before): its time, and its pairs against a full link's."""
    from neardup.read.items import Record

    from .shops import two_shops

    shop_a, shop_b, _ = two_shops(size * 3 // 4, seed=seed + 11)

    def records(rows: list[dict[str, str]], source: str) -> list[Record]:
        return [Record(r["id"], " ".join(v for c, v in r.items() if c != "id"), source, n,
                       {c: v for c, v in r.items() if c != "id"})
                for n, r in enumerate(rows, start=2)]  # fmt: skip

    ra, rb = records(shop_a, "a.csv"), records(shop_b[: old_b + new], "b.csv")
    index = NearDupIndex()
    index.add_many(ra)
    index.add_many(rb[:old_b])
    start = time.perf_counter()
    index.report(mode="link")
    first = time.perf_counter() - start
    index.add_many(rb[old_b:])
    start = time.perf_counter()
    report = index.report(mode="link", since=index.batch_written)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    full = index.report(mode="link")
    again = time.perf_counter() - start
    fresh = {r.id for r in rb[old_b:]}

    def held(pairs: list) -> set[tuple[str, str, float | None]]:
        return {(p.id1, p.id2, p.similarity) for p in pairs}

    def ids(pairs: set[tuple[str, str, float | None]]) -> set[tuple[str, str]]:
        return {(a, b) for a, b, _ in pairs}

    expected = held([p for p in full.pairs if p.id2 in fresh])
    got = held(report.pairs)
    result = {
        "records": len(ra) + len(rb), "source_a": len(ra), "new": len(fresh),
        "full_link_s": round(first, 2), "new_link_s": round(seconds, 2),
        "full_link_after_s": round(again, 2), "pairs": len(got), "full_pairs_of_new": len(expected),
        "same_pairs": ids(got) == ids(expected),
        "same_similarities": got == expected,
        "only_incremental": len(ids(got) - ids(expected)),
        "only_full": len(ids(expected) - ids(got)),
        "weights_before": report.rule.get("column_weights"),
        "weights_full": full.rule.get("column_weights"),
    }  # fmt: skip
    say(
        f"weighted link of {len(fresh):,d} new records against {len(ra):,d} of shop A (and "
        f"{old_b:,d} of B linked before): {seconds:.2f} s (full link before {first:.1f} s, after "
        f"{again:.1f} s); {len(got)} pairs, the full link's for them: {len(expected)}, the same: "
        f"{result['same_pairs']} (similarities too: {result['same_similarities']})"
    )
    return result


if __name__ == "__main__":
    raise SystemExit(main())
