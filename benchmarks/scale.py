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

``--cli`` is issue #40's measure: ``neardup index FILE`` then ``neardup report`` with the
defaults, each a process of its own, at each size (then ``report --new`` of a batch of
``--new`` records), scored against the planted copies; ``--datasketch`` runs datasketch's
README recipe on the same corpus in memory, under an address-space cap::

    .venv/bin/python -m benchmarks.scale --cli 1000000 10000000 --work /big/disk --json out.json
    .venv/bin/python -m benchmarks.scale --datasketch 10000000 --cap-gb 16
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
    for record, _ in planted_short_records(n, seed):
        yield record


def planted_short_records(n: int, seed: int = 0) -> Iterator[tuple[Record, int | None]]:
    """:func:`stream_short_records`' records, each with the number of the record it is a
    near-copy of (None: not a copy): the truth a run is scored against."""
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
            origin = None
            if copy[k] and texts:
                origin = int(rng.integers(len(texts)))
                text = f"{texts[origin]} {vocab[extra[k]]}"
                origin += start
            else:
                text = " ".join(vocab[j] for j in flat[pos : pos + length])
            pos += length
            texts.append(text)
            yield Record(str(start + k), text), origin


#: ``--kind documents``: words a document (issue #40's "documents of about 200 words"), and
#: the edit rate of a copy (each word deleted, substituted or followed by a new one with this
#: chance), drawn per copy, as :func:`benchmarks.corpus.generate` edits its copies.
DOC_WORDS = (100, 300)
DOC_RATE = (0.01, 0.10)
KINDS = ("short", "documents")


def planted_documents(n: int, seed: int = 0) -> Iterator[tuple[Record, int | None]]:
    """``n`` documents of 100-300 Zipf words, :data:`COPIES` of them an edited copy of an
    earlier document of their chunk, with the number of the document each copies (None: not a
    copy); made ``CHUNK`` at a time, so that 10M documents are never all held."""
    rng = np.random.default_rng([seed, 0xD0C5, 0x5CA1E])
    zipf = C.ZipfWords(C.vocabulary(50_000, seed), 1.1, rng)
    vocab = zipf.words
    for start in range(0, n, CHUNK):
        size = min(CHUNK, n - start)
        lengths = rng.integers(DOC_WORDS[0], DOC_WORDS[1] + 1, size=size)
        flat = zipf.indices(int(lengths.sum())).tolist()
        copy = rng.random(size) < COPIES
        words: list[list[str]] = []
        pos = 0
        for k, length in enumerate(lengths.tolist()):
            origin = None
            if copy[k] and words:
                origin = int(rng.integers(len(words)))
                rate = float(rng.uniform(*DOC_RATE))
                ws = C.edit_words(words[origin], rate, zipf, rng)[0] or list(words[origin])
                origin += start
            else:
                ws = [vocab[j] for j in flat[pos : pos + length]]
            pos += length
            words.append(ws)
            yield Record(str(start + k), " ".join(ws)), origin


def planted_records(kind: str, n: int, seed: int = 0) -> Iterator[tuple[Record, int | None]]:
    """The planted corpus of ``kind`` (:data:`KINDS`)."""
    if kind == "documents":
        return planted_documents(n, seed)
    return planted_short_records(n, seed)


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


def engine_report(
    size: int, engine: str, seed: int = 0, master: str = "local[2]"
) -> dict[str, Any]:
    """One engine's report of ``size`` short records indexed in memory with the defaults: its
    time, the peak RSS while it ran (of the process tree, sampled every 20 ms; every 200 ms
    for Spark, whose JVM and workers are other processes), and a digest of its pairs.
    ``master``: Spark's (``local[2]``: one JVM, two task threads; ``local-cluster[2,1,4096]``:
    two worker processes, each with an executor JVM of its own)."""
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
    report = index.report(engine=Spark(master=master) if engine == "spark" else engine)
    took = time.perf_counter() - start
    done.set()
    watcher.join()
    digest = hashlib.sha256()
    for p in report.pairs:
        digest.update(f"{p.id1}\t{p.id2}\t{p.jaccard}\t{p.edit_distance}\n".encode())
    return {
        "engine": engine,
        **({"master": master} if engine == "spark" else {}),
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


def compare_engines(
    size: int, seed: int, out: Path | None, engines: list[str], master: str = "local[2]"
) -> int:
    """Each engine's report in a process of its own (one after the other: one benchmark at a
    time), then one line each and whether their pairs agree."""
    rows = []
    for engine in engines:
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.scale", "--engine-child", engine,
             "--size", str(size), "--seed", str(seed), "--spark-master", master],
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


def write_planted(size: int, seed: int, path: Path, kind: str = "short") -> np.ndarray:
    """The corpus of ``kind`` as ``ID TEXT`` lines at ``path``; returns each record's origin
    (the record it is a near-copy of; -1: none), streamed: the texts are never all held."""
    origin = np.full(size, -1, dtype=np.int64)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for record, of in planted_records(kind, size, seed):
            fh.write(f"{record.id} {record.text}\n")
            if of is not None:
                origin[int(record.id)] = of
    return origin


def planted_score(pairs: Path, origin: np.ndarray) -> dict[str, Any]:
    """Recall of the planted pairs (each copy with the record it copies) and precision (a
    reported pair is right where both records are of one family: a copy of a copy is one
    too), from the pairs TSV of ``neardup report``."""
    a: list[int] = []
    b: list[int] = []
    with open(pairs, encoding="utf-8") as fh:
        fh.readline()
        for line in fh:
            x, y = line.split("\t", 2)[:2]
            a.append(int(x))
            b.append(int(y))
    lo = np.minimum(a, b).astype(np.int64)
    hi = np.maximum(a, b).astype(np.int64)
    family = np.arange(origin.size, dtype=np.int64)
    for copy in np.flatnonzero(origin >= 0).tolist():  # an origin comes before its copies
        family[copy] = family[origin[copy]]
    right = family[lo] == family[hi]
    copies = np.flatnonzero(origin >= 0)
    planted = (origin[copies] << 32) | copies
    found = np.isin(planted, (lo << 32) | hi)
    return {
        "planted_pairs": int(planted.size),
        "reported_pairs": int(lo.size),
        "recall": round(float(found.mean()), 5) if planted.size else None,
        "precision": round(float(right.mean()), 5) if lo.size else None,
    }


def cli_run(
    size: int, seed: int, work_parent: Path | None, new: int = 0, kind: str = "short"
) -> dict[str, Any]:
    """``neardup index FILE`` and ``neardup report --out pairs.tsv`` with the defaults (only
    the Solr and collection given), each measured as its own process (wall, peak RSS of the
    process, DuckDB's memory included; Solr's apart), scored against the planted copies. Then,
    with ``new``, that many more records indexed as a batch of their own and ``neardup report
    --new`` (:func:`new_batch_run`). ``kind``: short records or documents (:data:`KINDS`);
    the disk the run took (corpus, Solr's index of the collection, pairs) is measured too."""
    import shutil
    import tempfile

    from .end_to_end import drop_collection, run_neardup_solr

    work = Path(tempfile.mkdtemp(prefix="neardup-scale-", dir=work_parent))
    node = SolrNode(os.environ.get("NEARDUP_SOLR_URL"), os.environ.get("NEARDUP_SOLR_HEAP"))
    try:
        start = time.perf_counter()
        path = work / "records.txt"
        origin = write_planted(size, seed, path, kind)
        say(f"{size:,d} {kind} records written in {time.perf_counter() - start:.1f} s "
            f"({path.stat().st_size >> 20} MB)")  # fmt: skip
        name = f"bench_scale_cli_{kind}_{size}"
        try:
            res, out = run_neardup_solr(path, None, node.base, name, node.pid, work, flags=[],
                                        keep=True)  # fmt: skip
            res.update(planted_score(out, origin))
            res["records"] = size
            res["kind"] = kind
            res["disk_mb"] = {"corpus": path.stat().st_size >> 20,
                              "solr_index": index_mb(node, name),
                              "pairs": out.stat().st_size >> 20}  # fmt: skip
            if new:
                res["new"] = new_batch_run(path, size, new, seed, node, name, work, kind)
        finally:
            drop_collection(node.base, name)
        return res
    finally:
        node.stop()
        shutil.rmtree(work, ignore_errors=True)


def new_batch_run(
    path: Path, size: int, n: int, seed: int, node: SolrNode, name: str, work: Path,
    kind: str = "short",
) -> dict[str, Any]:  # fmt: skip
    """``n`` new records (:data:`COPIES` of them a near-copy of an indexed record, one word
    more; the rest new texts of the corpus's words) indexed into the collection as a batch of
    their own, then ``neardup report --new``: each measured, and the new copies' recall."""
    from neardup.solr.client import credentials

    from .end_to_end import measure, neardup_command

    rng = np.random.default_rng([seed, 0xB47C4])
    copies = rng.random(n) < COPIES
    of = rng.integers(0, size, size=n)
    wanted = {int(o) for o, c in zip(of.tolist(), copies.tolist(), strict=True) if c}
    texts: dict[int, str] = {}
    with open(path, encoding="utf-8") as fh:
        for k, line in enumerate(fh):
            if k in wanted:
                texts[k] = line.rstrip("\n").split(" ", 1)[1]
    fresh = (r.text for r, _ in planted_records(kind, n, seed + 1))
    batch = work / "new.txt"
    planted = set()
    with open(batch, "w", encoding="utf-8", newline="\n") as fh:
        for i, (o, c, text) in enumerate(zip(of.tolist(), copies.tolist(), fresh, strict=False)):
            rid = size + i
            if c:
                text = f"{texts[o]} {text.split()[0]}"
                planted.add((o, rid))
            fh.write(f"{rid} {text}\n")
    plain, auth = credentials(node.base)
    env = None
    if auth is not None:
        env = {**os.environ, "NEARDUP_SOLR_USER": auth.user, "NEARDUP_SOLR_PASSWORD": auth.password}
    where = ["--solr-url", plain, "--collection", name]
    out = work / "new_pairs.tsv"
    cli = neardup_command()
    index = measure([*cli, "index", str(batch), "--format", "lines", *where],
                    work / "new_index.log", None, env)  # fmt: skip
    report = measure([*cli, "report", "--new", *where, "--out", str(out)],
                     work / "new_report.log", None, env)  # fmt: skip
    found = set()
    with open(out, encoding="utf-8") as fh:
        fh.readline()
        for line in fh:
            x, y = (int(v) for v in line.split("\t", 2)[:2])
            found.add((min(x, y), max(x, y)))
    return {
        "records": n,
        "index_s": index["wall_s"],
        "report_new_s": report["wall_s"],
        "report_new_peak_rss_mb": report["peak_rss_mb"],
        "planted_pairs": len(planted),
        "recall": round(len(planted & found) / len(planted), 5) if planted else None,
        "reported_pairs": len(found),
    }


def datasketch_run(size: int, seed: int, work_parent: Path | None, cap_gb: float) -> dict[str, Any]:
    """datasketch at ``size`` records the way its README does it, in memory (word sets,
    ``MinHashLSH(threshold=0.5)``, :func:`benchmarks.end_to_end._peer`), on the corpus of
    :func:`cli_run`, in a process whose address space is capped at ``cap_gb`` (``prlimit``:
    failing there rather than taking the machine from the rest): its time and peak, or how
    long it ran before it failed and why."""
    import shutil
    import tempfile

    from .end_to_end import measure

    work = Path(tempfile.mkdtemp(prefix="neardup-scale-ds-", dir=work_parent))
    try:
        path = work / "records.txt"
        origin = write_planted(size, seed, path)
        out = work / "datasketch.tsv"
        cmd = ["prlimit", f"--as={int(cap_gb * (1 << 30))}", sys.executable, "-m",
               "benchmarks.end_to_end", "peer", "datasketch", str(path), str(out),
               "--threshold", "0.5", "--kind", "word", "--size", "1"]  # fmt: skip
        start = time.perf_counter()
        try:
            res: dict[str, Any] = measure(cmd, work / "datasketch.log")
        except RuntimeError as exc:
            tail = [ln for ln in str(exc).splitlines() if ln.strip()]
            return {"records": size, "finished": False, "cap_gb": cap_gb,
                    "ran_s": round(time.perf_counter() - start, 1),
                    "why": tail[-1][-300:] if tail else str(exc)[:300]}  # fmt: skip
        res.update(planted_score(out, origin))
        res.update(records=size, finished=True, cap_gb=cap_gb)
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)


def index_mb(node: SolrNode, name: str) -> int | None:
    """The size of the collection's index on disk (Solr's core status), in MB; None where
    Solr does not say."""
    from neardup.solr.client import Solr

    from .node import index_size_bytes

    got = index_size_bytes(Solr(node.base, name))
    return got >> 20 if got else None


def compare_sizes(
    sizes: list[int], seed: int, work: Path | None, out: Path | None, new: int = 0,
    kind: str = "short",
) -> int:  # fmt: skip
    """:func:`cli_run` at each size, one after the other, and each time over the smallest's."""
    rows = []
    for size in sizes:
        row = cli_run(size, seed, work, new, kind)
        rows.append(row)
        say(
            f"{size:,d} records: index {row['steps']['index']['wall_s']:.1f} s + report "
            f"{row['steps']['report']['wall_s']:.1f} s = {row['wall_s']:.1f} s, peak RSS "
            f"{row['peak_rss_mb']:,.0f} MB (Solr apart), recall {row['recall']}, precision "
            f"{row['precision']} ({row['reported_pairs']:,d} pairs), disk "
            f"{row.get('disk_mb')} MB"
        )
        if "new" in row:
            got = row["new"]
            say(f"  {got['records']:,d} new records: index {got['index_s']:.1f} s, report --new "
                f"{got['report_new_s']:.1f} s, recall {got['recall']} of "
                f"{got['planted_pairs']:,d} planted")  # fmt: skip
        if out:
            out.write_text(json.dumps({"sizes": rows}, indent=1) + "\n", encoding="utf-8")
    for row in rows[1:]:
        say(f"time({row['records']:,d}) / time({rows[0]['records']:,d}) = "
            f"{row['wall_s'] / rows[0]['wall_s']:.2f}")  # fmt: skip
    return 0


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
    ap.add_argument("--spark-master", default="local[2]",
                    help="--engines: Spark's master (local-cluster[2,1,4096]: two executor "
                         "processes)")  # fmt: skip
    ap.add_argument("--engine-child", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--cli", type=int, nargs="+", metavar="SIZE",
                    help="neardup index + neardup report with the defaults, through the CLI, "
                         "at these sizes, scored against the planted copies")  # fmt: skip
    ap.add_argument("--kind", choices=KINDS, default="short",
                    help="--cli: short records (8-15 words) or documents (100-300 words)")
    ap.add_argument("--work", type=Path, help="--cli: the corpus and pairs go under this folder")
    ap.add_argument("--datasketch", type=int, metavar="SIZE",
                    help="datasketch's README recipe on the --cli corpus of SIZE")  # fmt: skip
    ap.add_argument("--cap-gb", type=float, default=16.0,
                    help="--datasketch: its address space cap (prlimit --as)")  # fmt: skip
    ap.add_argument("--new", type=int, default=10_000,
                    help="--cli: then this many new records and report --new (0: not)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.engine_child:
        print(json.dumps(engine_report(args.size, args.engine_child, args.seed,
                                       args.spark_master)))  # fmt: skip
        return 0
    if args.engines:
        return compare_engines(args.size, args.seed, args.json, args.only, args.spark_master)
    if args.cli:
        return compare_sizes(args.cli, args.seed, args.work, args.json, args.new, args.kind)
    if args.datasketch:
        got = datasketch_run(args.datasketch, args.seed, args.work, args.cap_gb)
        say(json.dumps(got))
        if args.json:
            args.json.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
        return 0
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
