"""Scale on one local node (issue #14): N short records indexed and reported, streamed, with the
Python process's peak memory.

Usage::

    .venv/bin/python -m benchmarks.scale --size 10000000 [--json OUT] [--keep]

One size a process, so that its peak RSS is that size's. The records (8-15 Zipf words, as
:func:`benchmarks.corpus.short_records` makes them) are generated in chunks and streamed into
``add_many``: the corpus is never held in memory. Then the full all-pairs report and
``neighbors`` latency, with the benchmark's parameters (word 3-grams at 0.8). Prints one JSON
line; the timings are one run on this machine, not a test. A tenth of the records are
near-copies (one word appended), so the report has pairs to find and verify.
``time(10M)/time(1M)`` is read off two runs (issue #14's target: <= 11).

``--engines`` compares where the report runs (issue #40) instead, with no Solr: for each
engine (``memory``, the in-process report; ``duckdb``, the plan of :mod:`neardup.plan`;
``spark``, the same plan on Spark in local mode with two executor threads, its start included)
a process of its own indexes the records in memory with the default parameters and reports
them; printed: the report's time, the peak RSS during the report of the process and the ones
it started (sampled from /proc: DuckDB's memory, Spark's JVM and Python workers included) and
before it, and whether the engines' pairs are the same::

    .venv/bin/python -m benchmarks.scale --engines --size 1000000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from neardup import NearDupIndex, Params
from neardup.backends.solr import SolrBackend
from neardup.plan import ENGINES, Spark
from neardup.read.items import Record
from neardup.solr.admin import delete_collection

from . import corpus as C
from .measure import bench_neighbors
from .node import SolrNode, say
from .proc import status_mb

#: Records generated at a time.
CHUNK = 100_000
#: Share of records that are a near-copy of a record of their chunk: the record with one more
#: word at its end (word 3-gram Jaccard 0.86-0.93), so that the report has pairs to find.
COPIES = 0.1


def stream_short_records(n: int, seed: int = 0) -> Iterator[Record]:
    """``n`` short records (8-15 Zipf words; :data:`COPIES` of them near-copies of an earlier
    record of their chunk), ids ``"0"``..., made ``CHUNK`` at a time."""
    rng = np.random.default_rng([seed, 0x5CA1E])
    zipf = C.ZipfWords(C.vocabulary(50_000, seed), 1.1, rng)
    vocab = zipf.words
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        lengths = rng.integers(8, 16, size=size)
        flat = zipf.indices(int(lengths.sum())).tolist()
        copy = rng.random(size) < COPIES
        extra = zipf.indices(size).tolist()
        texts: list[str] = []
        pos = 0
        for k, length in enumerate(lengths.tolist()):
            if copy[k] and texts:
                text = f"{texts[int(rng.integers(len(texts)))]} {vocab[extra[k]]}"
            else:
                text = " ".join(vocab[j] for j in flat[pos : pos + length])
            pos += length
            texts.append(text)
            yield Record(str(start + k), text)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def tree_rss_mb() -> float:
    """The RSS of this process and every process it started (Spark's JVM, its Python workers)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    mine, grown = {os.getpid()}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in mine} - mine
        mine |= more
        grown = bool(more)
    return sum(status_mb("VmRSS", pid) or 0.0 for pid in mine)


def engine_report(size: int, engine: str, seed: int = 0) -> dict[str, Any]:
    """One engine's report of ``size`` short records indexed in memory with the defaults: its
    time, the peak RSS while it ran (of the process tree, sampled every 20 ms; every 200 ms
    for Spark, whose JVM and workers are other processes), and a digest of its pairs."""
    index = NearDupIndex()
    index.add_many(stream_short_records(size, seed), progress=False)
    before = tree_rss_mb()
    peak = [before]
    done = threading.Event()
    every = 0.2 if engine == "spark" else 0.02

    def sample() -> None:
        while not done.wait(every):
            now = tree_rss_mb() if engine == "spark" else status_mb("VmRSS") or 0.0
            peak[0] = max(peak[0], now)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    start = time.perf_counter()
    report = index.report(engine=Spark(master="local[2]") if engine == "spark" else engine)
    took = time.perf_counter() - start
    done.set()
    watcher.join()
    digest = hashlib.sha256()
    for p in report.pairs:
        digest.update(f"{p.id1}\t{p.id2}\t{p.jaccard}\t{p.edit_distance}\n".encode())
    return {
        "engine": engine,
        "records": size,
        "report_s": round(took, 1),
        "rss_before_report_mb": round(before),
        "rss_peak_in_report_mb": round(peak[0]),
        "candidates": report.candidates,
        "capped": report.capped,
        "pairs": len(report.pairs),
        "pairs_sha256": digest.hexdigest()[:16],
        "params": index.params.describe(),
    }


def compare_engines(size: int, seed: int, out: Path | None, engines: list[str]) -> int:
    """Each engine's report in a process of its own (one after the other: one benchmark at a
    time), then one line each and whether their pairs agree."""
    rows = []
    for engine in engines:
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.scale", "--engine-child", engine,
             "--size", str(size), "--seed", str(seed)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        row = rows[-1]
        say(
            f"{engine:>7}: {size:,d} records, report {row['report_s']} s, peak RSS in the "
            f"report {row['rss_peak_in_report_mb']:,d} MB (before it "
            f"{row['rss_before_report_mb']:,d} MB), {row['candidates']:,d} candidates, "
            f"{row['pairs']:,d} pairs"
        )
    same = len({r["pairs_sha256"] for r in rows}) == 1
    say(f"same pairs: {same}")
    if out:
        out.write_text(json.dumps({"engines": rows, "same_pairs": same}, indent=1) + "\n")
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__)
    ap.add_argument("--size", type=int, default=10_000_000, help="records in the collection")
    ap.add_argument("--json", type=Path, help="also write the result here")
    ap.add_argument("--keep", action="store_true", help="keep the collection afterwards")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", action="store_true",
                    help="compare the report's engines in memory (no Solr)")  # fmt: skip
    ap.add_argument("--only", nargs="+", choices=ENGINES, default=list(ENGINES),
                    help="--engines: these engines only")  # fmt: skip
    ap.add_argument("--engine-child", choices=ENGINES, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.engine_child:
        print(json.dumps(engine_report(args.size, args.engine_child, args.seed)))
        return 0
    if args.engines:
        return compare_engines(args.size, args.seed, args.json, args.only)
    # The environment is read here only, as the CLI does (a Solr of the user's, its heap).
    node = SolrNode(os.environ.get("NEARDUP_SOLR_URL"), os.environ.get("NEARDUP_SOLR_HEAP"))
    name = f"bench_scale_{args.size}"
    solr = node.collection(name)
    try:
        index = NearDupIndex(Params(threshold=0.8, shingle_size=3), backend=SolrBackend(solr))
        start = time.perf_counter()
        stats = index.add_many(stream_short_records(args.size, args.seed), progress=False)
        build = time.perf_counter() - start
        rss_index = peak_rss_mb()
        say(f"indexed {stats.indexed:,d} records in {build:.1f} s ({stats.indexed / build:,.0f}/s)")
        start = time.perf_counter()
        report = index.report()
        took = time.perf_counter() - start
        say(
            f"report: {report.candidates:,d} candidates, {len(report.pairs):,d} pairs in "
            f"{took:.1f} s ({report.timings})"
        )
        ids = [str(i) for i in np.random.default_rng(args.seed).choice(args.size, 300, False)]
        nb = bench_neighbors(index, ids, 200, args.seed)
        result = {
            "records": stats.indexed,
            "index_s": round(build, 1),
            "index_per_s": round(stats.indexed / build),
            "report_s": round(took, 1),
            "report_timings": {k: round(v, 2) for k, v in report.timings.items()},
            "candidates": report.candidates,
            "pairs": len(report.pairs),
            "total_s": round(build + took, 1),
            "neighbors_p50_ms": nb["p50_ms"],
            "neighbors_p95_ms": nb["p95_ms"],
            "python_peak_rss_mb": round(peak_rss_mb()),
            "python_peak_rss_while_indexing_mb": round(rss_index),
            "params": index.params.describe(),
        }
        say(json.dumps(result))
        if args.json:
            args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    finally:
        if not args.keep:
            delete_collection(solr)
        node.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
