"""neardup against its peers, on a synthetic corpus with exact ground truth.

    python -m benchmarks.run --mode quick [--out PATH]       # CI smoke test, < 3 minutes
    python -m benchmarks.run --mode full [--sizes 10000 100000] [--out benchmarks/results.json]

Solr: ``NEARDUP_SOLR_URL`` if set (collections ``bench_*`` are created there and deleted after),
else a private node in ``<repo>/.neardup/bench``, started here and stopped at the end if this run
started it.

What is measured at each corpus size (see ``benchmarks/corpus.py`` for the corpus):

(a) signature throughput, 128 permutations of the same shingle sets (neardup's LSH shingles,
    by default word 3-grams of the canonical text, ``--kind``/``--size`` to choose), from the
    same (canonical) texts: neardup's ``signatures_batch`` against datasketch's ``MinHash.bulk``
    (its default SHA-1 token hash, and the mmh3 token hash its docs recommend for speed) and
    rensa's ``RMinHash`` bulk constructors. The peers get their shingle sets from neardup's own
    shingler inside the timed region, because neardup's ``signatures_batch`` shingles too;
    the shingling alone is timed as well so its share is visible.
(b) indexing throughput into Solr with ``NearDupIndex.add_many`` over a ``SolrBackend`` (the
    2014 seed fields, ``Params(fields_2014=True)``, + LSH bands), for short records (8-15 words)
    and for the 100-300 word documents, and the Solr index size on disk.
(c) all near-duplicate pairs at Jaccard >= t: neardup's LSH report (``NearDupIndex.report``); the
    seed's one-query-per-document loop (``seed2014.SeedSearcher.near_dups`` with its 20 MinHash
    values, top 10, first-word filter), run on a sample of documents and extrapolated linearly;
    datasketch ``MinHashLSH`` in memory (insert all, query each). Every method's candidates are
    verified by the same exact Jaccard (``neardup.index.verify``), so (d) recall and precision
    against the ground truth compare candidate generation on equal terms.
(e) peak memory (VmHWM of this process, reset before each phase) and Solr's index size.
(f) growth between sizes, and ``NearDupIndex.neighbors`` latency.
(g) end to end, the headline: a text file in, verified pairs out, each library as a user runs
    it in its own process(es) (neardup's CLI into Solr, neardup's library in memory, datasketch,
    rensa): wall time, CPU time, peak RSS (and Solr's), recall and precision
    (``benchmarks/end_to_end.py``).

Quick mode writes only its JSON (``--out``); full mode also merges its sizes into the JSON
(other sizes already there are kept, so ``--sizes 1000000`` can run separately) and regenerates
``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import corpus as C
from benchmarks import end_to_end as E
from neardup import kernel
from neardup.backends.solr import SolrBackend
from neardup.banding import band_keys_batch
from neardup.index import NearDupIndex, verify
from neardup.io import Record
from neardup.minhash import ShingleProcessor
from neardup.params import Params
from neardup.seed2014 import SeedSearcher
from neardup.solr.admin import connect, delete_collection
from neardup.solr.admin import version as solr_version_of
from neardup.solr.client import Solr, split_url
from neardup.text import id_key, normalize

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
RESULTS_MD = BENCH / "RESULTS.md"
BENCH_HOME = REPO / ".neardup" / "bench"
DEFAULT_OUT = {"full": BENCH / "results.json", "quick": BENCH / "results-quick.json"}
NUM_PERM = 128
#: ``max_dist`` for the seed loop: no edit-distance cut, every top-10 hit goes to verification.
NO_CUT = 1_000_000
SEED_MAX_DIST = 2  # the seed's own acceptance rule, reported alongside

MODES: dict[str, dict[str, Any]] = {
    "quick": {
        "sizes": [2000], "short_cap": 5000, "seed_sample": 200, "sha1_cap": 2000,
        "warmup_short": 2000,
        "neighbors": 30, "exact_truth_max": 2000, "profile_docs": 0, "repeats_small": 1,
    },
    "full": {
        "sizes": [10_000, 100_000], "short_cap": 100_000, "seed_sample": 2000,
        "warmup_short": 60_000,
        "sha1_cap": 20_000, "neighbors": 200, "exact_truth_max": 10_000, "profile_docs": 2000,
        "repeats_small": 3,
    },
}  # fmt: skip
#: Signature throughput is measured on at most this many documents (it is a per-document rate).
SIG_CAP = 100_000
STAGE_ORDER = ("text_and_hashing", "permutations")
INDEX_PART_ORDER = ("documents_total", "lsh_keys_batch", "of_which_canonicalize",
                    "seed_signatures_20", "content_ng_ngrams")  # fmt: skip
SIG_ORDER = ("neardup", "neardup+canonical", "datasketch.mmh3", "datasketch.sha1", "rensa.digests",
             "rensa.matrix", "shingling only")  # fmt: skip

T0 = time.perf_counter()


def say(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f}s] {msg}", flush=True)


# -- memory ------------------------------------------------------------------------------------


def rss_mb() -> float:
    v = E.status_mb("VmRSS")
    return v if v is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


@contextmanager
def phase(out: dict[str, Any]) -> Iterator[None]:
    """Record wall time and the process's peak RSS (VmHWM) during the block into ``out``."""
    gc.collect()
    exact = _reset_peak()
    before = rss_mb()
    start = time.perf_counter()
    cpu0 = time.process_time()
    yield
    out.setdefault("seconds", round(time.perf_counter() - start, 3))
    out["cpu_seconds"] = round(time.process_time() - cpu0, 3)
    peak = E.status_mb("VmHWM") if exact else None
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    out["peak_rss_mb"] = round(peak, 1)
    out["rss_before_mb"] = round(before, 1)
    out["peak_is_per_phase"] = exact


# -- environment -------------------------------------------------------------------------------


def environment(solr: Solr | None, heap: str | None) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    def ver(pkg: str) -> str | None:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return None

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    solr_version = None
    if solr is not None:
        try:
            solr_version = solr_version_of(solr)
        except Exception:
            solr_version = None

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    dirty = [ln[3:] for ln in git("status", "--porcelain", "neardup").splitlines()]
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gib": ram,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "datasketch": ver("datasketch"),
        "rensa": ver("rensa"),
        "mmh3": ver("mmh3"),
        "neardup": ver("neardup"),
        "solr": solr_version,
        "solr_heap": heap or "1g (default)",
        "git_commit": git("rev-parse", "--short", "HEAD"),
        "neardup_uncommitted_files": dirty,
        "load_average_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


# -- Solr --------------------------------------------------------------------------------------


class SolrNode:
    """The Solr at ``url`` if given, else the private bench node (with ``heap``; stopped at the
    end if started here). ``main`` reads the environment; nothing below it does."""

    def __init__(self, url: str | None, heap: str | None) -> None:
        self.node: Any = None
        self.started = False
        if url:
            self.base = split_url(url)[0]
            self.external = True
            say(f"Solr: {self.base} (NEARDUP_SOLR_URL)")
            return
        from neardup.solr.local import LocalSolr

        self.external = False
        t = time.perf_counter()
        self.node = LocalSolr(home=BENCH_HOME, heap=heap)
        self.started = self.node.running() is None
        state = self.node.start()
        self.node.refresh_configset()  # a reused node may hold an older configset
        self.base = state.url
        self.start_seconds = round(time.perf_counter() - t, 1)
        say(
            f"Solr: {self.base} ({'started' if self.started else 'reused'} in "
            f"{self.start_seconds} s, home {BENCH_HOME})"
        )
        self._drop_stale()

    def _drop_stale(self) -> None:
        """Cores ``bench_*`` left behind by an interrupted run of the private node."""
        probe = Solr(self.base, "bench_probe")
        try:
            st = probe.request("GET", "admin/cores", params={"action": "STATUS"}, core=False)
        except Exception:
            return
        for name in st.get("status", {}):
            if name.startswith("bench_"):
                say(f"removing stale core {name}")
                delete_collection(Solr(self.base, name))

    def collection(self, name: str) -> Solr:
        solr = connect(self.base, name)
        if solr.count() > 0:  # a leftover of an interrupted run (its parameters document too)
            solr.delete_query("*:*")
            solr.commit()
        return solr

    def index(self, name: str, params: Params) -> NearDupIndex:
        """A new, empty index with ``params`` in the collection ``name``."""
        return NearDupIndex(params, backend=SolrBackend(self.collection(name)))

    @property
    def pid(self) -> int | None:
        """The local node's JVM (None for a Solr at ``NEARDUP_SOLR_URL``)."""
        state = self.node.state() if self.node is not None else None
        return state.pid if state is not None else None

    def stop(self) -> None:
        if self.node is not None and self.started:
            self.node.stop()
            say("Solr node stopped")


def index_size_bytes(solr: Solr) -> int | None:
    try:
        st = solr.request(
            "GET", "admin/cores", params={"action": "STATUS", "core": solr.collection}, core=False
        )
        return int(st["status"][solr.collection]["index"]["sizeInBytes"])
    except Exception:  # SolrCloud names cores differently
        return None


# -- (a) signatures ----------------------------------------------------------------------------


#: Signature runs go round-robin over chunks of this many documents, so that every library
#: meets the same load of a shared machine (the order rotates from chunk to chunk).
SIG_CHUNK = 5000


def bench_signatures(
    texts: list[str], cfg: Params, repeats: int, sha1_cap: int, raw: list[str]
) -> tuple[dict[str, Any], list[Any]]:
    """docs/s of each library on ``texts`` (canonical); returns the datasketch MinHashes too.

    Wall time and this process's CPU time are both recorded; every path measured is
    single-threaded, so CPU time is the figure least disturbed by other processes.
    """
    from datasketch import MinHash
    from rensa import RMinHash

    proc = prepared_processor(cfg)
    n = len(texts)

    def shingling(docs: list[str]) -> Any:
        return [proc.shingle_set(t) for t in docs]

    def neardup(docs: list[str]) -> Any:
        return proc.signatures_batch(docs)

    def rensa_list(docs: list[str]) -> Any:
        return RMinHash.digests_from_token_sets([proc.shingle_set(t) for t in docs], NUM_PERM, 42)

    def rensa_matrix(docs: list[str]) -> Any:
        return RMinHash.digest_matrix_from_token_sets(
            [proc.shingle_set(t) for t in docs], NUM_PERM, 42
        )

    def ds_mmh3(docs: list[str]) -> Any:
        return MinHash.bulk(
            [proc.shingle_set(t) for t in docs], num_perm=NUM_PERM, hashfunc=E.mmh3_32
        )

    def ds_sha1(docs: list[str]) -> Any:
        return MinHash.bulk(
            [[s.encode("utf-8") for s in proc.shingle_set(t)] for t in docs], num_perm=NUM_PERM
        )

    runs: dict[str, tuple[Callable[[list[str]], Any], int, str]] = {
        "neardup": (neardup, n, f"ShingleProcessor.signatures_batch ({kernel.active()} kernel)"),
        "rensa.digests": (rensa_list, n, "RMinHash.digests_from_token_sets"),
        "rensa.matrix": (rensa_matrix, n, "RMinHash.digest_matrix_from_token_sets"),
        "datasketch.mmh3": (ds_mmh3, n, "MinHash.bulk, hashfunc=mmh3 32-bit"),
        "datasketch.sha1": (ds_sha1, min(n, sha1_cap), "MinHash.bulk, default SHA-1 hash"),
        "shingling only": (shingling, n, "neardup's shingle sets, no hashing"),
    }
    chunks = [(lo, min(lo + SIG_CHUNK, n)) for lo in range(0, n, SIG_CHUNK)]
    names = list(runs)
    wall: dict[str, list[float]] = {k: [float("inf")] * len(chunks) for k in names}
    cpu: dict[str, list[float]] = {k: [float("inf")] * len(chunks) for k in names}
    minhashes: list[Any] = []
    for rep in range(repeats):
        for ci, (lo, hi) in enumerate(chunks):
            k = (ci + rep) % len(names)
            gc.collect()  # once per chunk: a full collection is slow with a large corpus alive
            for name in names[k:] + names[:k]:
                fn, limit, _ = runs[name]
                if lo >= limit:
                    continue
                docs = texts[lo : min(hi, limit)]
                gc.collect(0)
                w0, c0 = time.perf_counter(), time.process_time()
                res = fn(docs)
                w1, c1 = time.perf_counter(), time.process_time()
                wall[name][ci] = min(wall[name][ci], w1 - w0)
                cpu[name][ci] = min(cpu[name][ci], c1 - c0)
                if name == "datasketch.mmh3" and rep == repeats - 1:
                    minhashes.extend(res)
                del res
        for name in names:
            docs = runs[name][1]
            tw = sum(x for x in wall[name] if x != float("inf"))
            tc = sum(x for x in cpu[name] if x != float("inf"))
            say(
                f"  signatures {name:16s} {docs:>8,d} docs  best so far {tw:8.2f} s wall "
                f"{docs / tw:>9,.0f} docs/s, {tc:8.2f} s CPU {docs / tc:>9,.0f} docs/CPU-s"
            )
    e2e_docs = min(n, 20_000)
    e2e_proc = cfg.processor()
    w0, c0 = time.perf_counter(), time.process_time()
    e2e_proc.signatures_batch(raw[:e2e_docs])
    e2e_w, e2e_c = time.perf_counter() - w0, time.process_time() - c0
    out: dict[str, Any] = {
        "docs": n, "repeats": repeats, "num_perm": NUM_PERM, "chunk": SIG_CHUNK, "libs": {},
    }  # fmt: skip
    for name, (_, docs, how) in runs.items():
        tw = sum(x for x in wall[name] if x != float("inf"))
        tc = sum(x for x in cpu[name] if x != float("inf"))
        out["libs"][name] = {
            "docs": docs, "seconds": round(tw, 3), "docs_per_s": round(docs / tw, 1),
            "cpu_seconds": round(tc, 3), "docs_per_cpu_s": round(docs / tc, 1), "how": how,
        }  # fmt: skip
    out["libs"]["neardup+canonical"] = {
        "docs": e2e_docs, "seconds": round(e2e_w, 3), "docs_per_s": round(e2e_docs / e2e_w, 1),
        "cpu_seconds": round(e2e_c, 3), "docs_per_cpu_s": round(e2e_docs / e2e_c, 1),
        "how": "Params.processor().signatures_batch from raw text (canonicalization included), "
               "1 run",
    }  # fmt: skip
    out["ratios"] = signature_ratios(out["libs"], "docs_per_cpu_s")
    out["ratios_wall"] = signature_ratios(out["libs"], "docs_per_s")
    return out, minhashes


def signature_ratios(libs: dict[str, Any], key: str) -> dict[str, float]:
    rensa_best = max(libs["rensa.digests"][key], libs["rensa.matrix"][key])
    ds_best = max(libs["datasketch.mmh3"][key], libs["datasketch.sha1"][key])
    nd = libs["neardup"][key]
    return {
        "neardup/datasketch_fastest": round(nd / ds_best, 3),
        "neardup/datasketch_sha1": round(nd / libs["datasketch.sha1"][key], 3),
        "neardup/rensa_fastest": round(nd / rensa_best, 3),
    }


def prepared_processor(cfg: Params) -> ShingleProcessor:
    """``cfg``'s processor for texts that are canonical already: it shingles them as they are
    instead of canonicalizing them again inside the timed region."""
    return cfg.replace(canonical=False).processor()


def verify_content(records: list[Record]) -> dict[str, str]:
    """What ``neardup.index.verify`` reads for each id (the text as written), as
    ``SolrBackend.texts`` returns it."""
    return {r.id: r.text for r in records}


# -- (c, d) all pairs --------------------------------------------------------------------------


def score(found: set[tuple[str, str]], truth: set[tuple[str, str]]) -> dict[str, Any]:
    tp = len(found & truth)
    return {
        "reported": len(found),
        "true_positives": tp,
        "truth": len(truth),
        "recall": round(tp / len(truth), 5) if truth else None,
        "precision": round(tp / len(found), 5) if found else None,
    }


def bench_neardup_pairs(
    index: NearDupIndex, t: float, truth: set[tuple[str, str]]
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "method": "neardup NearDupIndex.report (Solr band facets and members + exact verify, "
        "no pruning)"
    }
    from neardup.errors import NeardupError

    start = time.perf_counter()
    try:
        with phase(out):
            res = index.report(t, prune="none", progress=False)
    except NeardupError as exc:  # e.g. a band's facet request outlives the client's timeout
        out.update({"error": str(exc), "completed": False,
                    "failed_after_s": round(time.perf_counter() - start, 1)})  # fmt: skip
        out["diagnosis"] = diagnose_band_facets(solr_of(index))
        return out
    out["completed"] = True
    found = {(p.id1, p.id2) for p in res.pairs}
    out.update(score(found, truth))
    out.update({"candidates": res.candidates, "buckets": res.buckets,
                "timings": {k: round(v, 3) for k, v in res.timings.items()},
                "outside_truth": len(found - truth)})  # fmt: skip
    return out


def diagnose_band_facets(solr: Solr, band: int = 0) -> dict[str, Any]:
    """Why the band requests are slow: one band as neardup asks for it, with a long timeout, and
    its two parts apart (the facet of shared keys; the members query)."""
    slow = SolrBackend(Solr(solr.base_url, solr.collection, timeout=3600, retries=0))
    out: dict[str, Any] = {"band": band}
    t = time.perf_counter()
    keys = slow.shared_keys(band)
    out["shared_keys"] = len(keys)
    out["keys_facet_s"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    out["buckets"] = sum(1 for _ in slow.buckets(band))
    out["keys_and_members_s"] = round(time.perf_counter() - t, 1)
    say(f"band request diagnosis: {out}")
    return out


def bench_seed_loop(
    index: NearDupIndex,
    t: float,
    truth: set[tuple[str, str]],
    sample: int,
    seed: int,
) -> dict[str, Any]:
    """The seed's report loop on ``sample`` source documents, extrapolated to all of them.

    ``index`` has the 2014 fields (``Params(fields_2014=True)``); its candidates are verified
    with the index's own processor, like every other method's.
    """
    out: dict[str, Any] = {"method": "seed loop: near_dups(minhash, 20 values, top 10) per doc"}
    with phase(out):
        searcher = SeedSearcher(index)
        t0 = time.perf_counter()
        sources = list(searcher.sources())  # what seed_report reads first
        t1 = time.perf_counter()
        rng = random.Random(seed)
        picked = sources if sample >= len(sources) else rng.sample(sources, sample)
        picked.sort(key=lambda d: id_key(d["id"]))
        cands: list[tuple[str, str, int]] = []
        for src in picked:
            for nb in searcher.near_dups(src, "minhash", NO_CUT):
                cands.append((src["id"], nb.id, nb.edit_distance))
        t2 = time.perf_counter()
        content = index.backend.texts(sorted({x for a, b, _ in cands for x in (a, b)}, key=id_key))
        pairs = verify(
            [(a, b) for a, b, _ in cands],
            content,
            index.processor,
            t,
            progress=False,
        )
        t3 = time.perf_counter()
    n, m = len(sources), len(picked)
    per_doc = (t3 - t1) / m
    out["seconds_measured"] = out.pop("seconds")
    out["seconds"] = round((t1 - t0) + per_doc * n, 3)
    out.update({"extrapolated": m < n, "sample_docs": m, "docs": n,
                "read_sources_s": round(t1 - t0, 3), "loop_s": round(t2 - t1, 3),
                "verify_s": round(t3 - t2, 3), "ms_per_doc": round(1000 * per_doc, 3),
                "candidates": len(cands)})  # fmt: skip
    ids = {d["id"] for d in picked}
    truth_s = {p for p in truth if p[0] in ids}  # near_dups only reports larger ids
    found = {(p.id1, p.id2) for p in pairs}
    out.update(score(found, truth_s))
    out["outside_truth"] = len(found - truth)
    own = {(a, b) for a, b, d in cands if d <= SEED_MAX_DIST}
    out["seed_rule"] = {"max_dist": SEED_MAX_DIST, **score(own, truth_s),
                        "note": "pairs the seed itself accepts (edit distance <= 2, no early "
                                "stop: an upper bound of its recall)"}  # fmt: skip
    return out


def bench_datasketch_lsh(
    ids: list[str],
    minhashes: list[Any],
    content: dict[str, str],
    cfg: Params,
    t: float,
    truth: set[tuple[str, str]],
    params: tuple[int, int] | None,
) -> dict[str, Any]:
    from datasketch import MinHashLSH

    label = "default (b, r)" if params is None else f"neardup's (b, r) = {params}"
    out: dict[str, Any] = {"method": f"datasketch MinHashLSH in memory, {label}"}
    with phase(out):
        t0 = time.perf_counter()
        kw = {} if params is None else {"params": params}
        lsh = MinHashLSH(threshold=t, num_perm=NUM_PERM, **kw)
        for i, m in zip(ids, minhashes, strict=True):
            lsh.insert(i, m)
        t1 = time.perf_counter()
        rss_index = rss_mb()
        cands: set[tuple[str, str]] = set()
        for i, m in zip(ids, minhashes, strict=True):
            ki = id_key(i)
            for o in lsh.query(m):
                if o != i:
                    cands.add((i, o) if ki < id_key(o) else (o, i))
        t2 = time.perf_counter()
        bands, rows = lsh.b, lsh.r
        del lsh
        pairs = verify(
            sorted(cands, key=lambda p: (id_key(p[0]), id_key(p[1]))),
            content,
            cfg.processor(),
            t,
            progress=False,
        )
        t3 = time.perf_counter()
    found = {(p.id1, p.id2) for p in pairs}
    out.update(score(found, truth))
    out.update({"candidates": len(cands), "bands": bands, "rows": rows,
                "timings": {"insert": round(t1 - t0, 3), "query": round(t2 - t1, 3),
                            "verify": round(t3 - t2, 3)},
                "index_rss_mb": round(rss_index - out["rss_before_mb"], 1),
                "outside_truth": len(found - truth)})  # fmt: skip
    return out


def timed_indexing(index: NearDupIndex, records: list[Record]) -> dict[str, Any]:
    """``add_many`` of ``records``: the rate, the index on disk, the client's memory and CPU."""
    ph: dict[str, Any] = {}
    with phase(ph):
        stats = index.add_many(records)
    return {
        "docs": stats.indexed,
        "seconds": round(stats.seconds, 3),
        "docs_per_s": round(stats.indexed / stats.seconds, 1),
        "index_bytes": index_size_bytes(solr_of(index)),
        "peak_rss_mb": ph["peak_rss_mb"],
        "client_cpu_s": ph["cpu_seconds"],
    }


#: New records of the incremental measurement (issue #14: 1,000 against a 1M collection).
INCREMENTAL_NEW = 1000


def bench_incremental(index: NearDupIndex, collection: int, seed: int) -> dict[str, Any]:
    """1,000 new records into an existing collection, then the report of only their pairs."""
    new = [
        Record(f"new-{r.id}", r.text)
        for r in C.short_records(INCREMENTAL_NEW, seed=seed + 7)
    ]
    start = time.perf_counter()
    stats = index.add_many(new)
    indexed = time.perf_counter() - start
    rep = index.report(since=index.batch_written)
    total = time.perf_counter() - start
    return {
        "collection": collection,
        "new": stats.indexed,
        "index_s": round(indexed, 3),
        "report_s": round(total - indexed, 3),
        "seconds": round(total, 3),
        "candidates": rep.candidates,
        "pairs": len(rep.pairs),
    }


def solr_of(index: NearDupIndex) -> Solr:
    """The Solr client under a Solr-backed index."""
    backend = index.backend
    assert isinstance(backend, SolrBackend)
    return backend.solr


def bench_neighbors(index: NearDupIndex, ids: list[str], k: int, seed: int) -> dict[str, Any]:
    """Latency of ``NearDupIndex.neighbors``, and how many Solr requests one lookup makes."""
    solr = solr_of(index)
    rng = random.Random(seed)
    picked = rng.sample(ids, min(k, len(ids)))
    for i in picked[:5]:  # warm-up
        index.neighbors(i, k=10)
    calls = {"n": 0, "s": 0.0}
    real = solr.request

    def counted(*a: Any, **kw: Any) -> dict[str, Any]:
        t = time.perf_counter()
        try:
            return real(*a, **kw)
        finally:
            calls["n"] += 1
            calls["s"] += time.perf_counter() - t

    solr.request = counted  # type: ignore[method-assign]
    lat = []
    try:
        for i in picked:
            t = time.perf_counter()
            index.neighbors(i, k=10)
            lat.append(1000 * (time.perf_counter() - t))
    finally:
        del solr.request  # back to the class's method
    lat.sort()
    return {
        "lookups": len(lat),
        "p50_ms": round(statistics.median(lat), 2),
        "p95_ms": round(lat[min(len(lat) - 1, int(0.95 * len(lat)))], 2),
        "max_ms": round(lat[-1], 2),
        "requests_per_lookup": round(calls["n"] / len(lat), 2),
        "request_ms": round(1000 * calls["s"] / max(1, calls["n"]), 2),
        "share_in_requests": round(calls["s"] / (sum(lat) / 1000), 3),
    }


def signature_stages(texts: list[str], cfg: Params) -> dict[str, float]:
    """Seconds of the stages of ``signatures_batch`` on ``texts``, from runs that differ in one.

    The C kernel runs as one call, so its stages are timed by difference: the same kernel with
    one permutation does all the per-text work (normalize, shingle, MurmurHash3 each shingle,
    drop repeated hashes); the remaining permutations are the difference to the full run. The
    numpy reference path (``signatures_batch_numpy``: shingle strings, one ``mmh3`` call each,
    uint64 arithmetic) runs on the same texts for comparison. Best of three, CPU seconds.
    """
    proc = prepared_processor(cfg)
    one = ShingleProcessor(proc.size, kind=proc.kind, num_perm=1, hash_family=proc.hash_family,
                           seed=proc.seed, canonical=False)  # fmt: skip

    def best(fn: Callable[[], Any], repeats: int = 3) -> float:
        times = []
        for _ in range(repeats):
            c0 = time.process_time()
            fn()
            times.append(time.process_time() - c0)
        return min(times)

    total = best(lambda: proc.signatures_batch(texts))
    text_part = best(lambda: one.signatures_batch(texts))
    numpy_total = best(lambda: proc.signatures_batch_numpy(texts), repeats=1)
    res = {
        "kernel": kernel.active(),
        "total": total,
        "replica_total": total,
        "text_and_hashing": text_part,
        "permutations": max(0.0, total - text_part),
        "numpy_reference": numpy_total,
    }
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in res.items()}


def indexing_stages(records: list[Record], index: NearDupIndex) -> dict[str, float]:
    """Client-side seconds of the work ``NearDupIndex.documents`` does, by part (no Solr
    involved: ``documents`` only computes what a batch sends)."""
    cfg = index.params
    proc = index.processor
    seed_proc = cfg.processor_2014()
    texts = [normalize(r.text) for r in records]
    parts: dict[str, float] = {}
    t = time.perf_counter()
    index.documents(records)
    parts["documents_total"] = time.perf_counter() - t
    t = time.perf_counter()
    band_keys_batch(proc.signatures_batch([r.text for r in records]), cfg.bands, cfg.rows)
    parts["lsh_keys_batch"] = time.perf_counter() - t
    t = time.perf_counter()
    [proc.prepare(x) for x in texts]
    parts["of_which_canonicalize"] = time.perf_counter() - t
    t = time.perf_counter()
    seed_proc.signatures_batch(texts)
    parts["seed_signatures_20"] = time.perf_counter() - t
    t = time.perf_counter()
    [seed_proc.ngrams(x) for x in texts]
    parts["content_ng_ngrams"] = time.perf_counter() - t
    return {k: round(v, 3) for k, v in parts.items()}


# -- profile (what bounds the throughput) --------------------------------------------------------


def profile_text(fn: Callable[[], Any]) -> str | None:
    try:
        from pyinstrument import Profiler
    except ImportError:
        return None
    prof = Profiler(interval=0.001)
    prof.start()
    try:
        fn()
    finally:
        prof.stop()
    text = prof.output_text(unicode=False, color=False, show_all=False)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    body = [ln for ln in lines if not ln.lstrip().startswith(("_", "/", "Recorded", "Program"))]
    return "\n".join(body[:60])


# -- one size ----------------------------------------------------------------------------------


def bench_params(args: Any) -> Params:
    """The parameter set of a run: the threshold and shingles asked for, neardup's defaults
    otherwise (bands and rows follow the threshold)."""
    shape = {k: v for k, v in (("shingle_kind", args.kind), ("shingle_size", args.size))
             if v is not None}  # fmt: skip
    return Params(threshold=args.threshold, **shape)


def run_size(
    n: int, mode: str, conf: dict[str, Any], node: SolrNode, args: Any, work: Path
) -> dict[str, Any]:
    """Every measurement at ``n`` documents; ``work`` is a scratch directory (the end-to-end
    corpus file and the pairs files go there)."""
    t = args.threshold
    cfg = bench_params(args)
    # What is indexed: the seed loop (c) queries the 2014 fields, so every collection has them,
    # as every neardup index had before they became optional.
    idx_params = cfg.replace(fields_2014=True)
    res: dict[str, Any] = {"n": n, "threshold": t, "mode": mode, "bands": cfg.bands,
                           "rows": cfg.rows,
                           "shingles": f"{cfg.shingle_kind} {cfg.shingle_size}-gram",
                           "canonical": cfg.canonical}  # fmt: skip
    say(f"== {n:,d} documents, threshold {t} ==")

    gen: dict[str, Any] = {}
    with phase(gen):
        corp = C.generate(n, seed=args.seed, threshold=t, config=cfg)
    sims = [s for _, _, s in corp.truth]
    gen.update({**corp.params, "truth_pairs": len(corp.truth),
                "exact_duplicates_in_truth": sum(1 for s in sims if s >= 1.0),
                "fingerprint": C.fingerprint(corp.records),
                "cross_family_max_jaccard": round(C.cross_family_similarity(corp, cfg=cfg), 4),
                "mean_words": round(float(np.mean([len(r.text.split()) for r in corp.records])), 1),
                })  # fmt: skip
    say(
        f"corpus: {n:,d} docs, {len(corp.families):,d} families, {len(corp.copies):,d} copies, "
        f"{len(corp.truth):,d} truth pairs at J >= {t} ({gen['seconds']:.1f} s); largest "
        f"cross-family J in 2,000 random pairs: {gen['cross_family_max_jaccard']}"
    )
    if n <= conf["exact_truth_max"]:
        check: dict[str, Any] = {}
        with phase(check):
            exact = C.exact_truth(corp.records, cfg, t)
        same = [(a, b) for a, b, _ in exact] == [(a, b) for a, b, _ in corp.truth]
        gen["exact_check"] = {"same_as_family_truth": same, **check}
        say(f"exact all_pairs over all {n:,d} docs == family truth: {same} ({check['seconds']} s)")
        if not same:
            raise SystemExit("family truth differs from brute force: the corpus assumption broke")
    res["corpus"] = gen
    truth = {(a, b) for a, b, _ in corp.truth}
    e2e_file = work / "corpus.txt"
    E.write_corpus(corp.records, e2e_file)  # (g) reads it at the end
    raw = [r.text for r in corp.records]
    proc = cfg.processor()
    texts = [proc.prepare(x) for x in raw]
    content = verify_content(corp.records)
    ids = [r.id for r in corp.records]

    # (a) signatures
    sig_n = min(n, SIG_CAP)
    repeats = conf["repeats_small"] if n <= 10_000 else 1
    sig: dict[str, Any] = {}
    with phase(sig):
        sig_res, minhashes = bench_signatures(texts[:sig_n], cfg, repeats, conf["sha1_cap"], raw)
    sig_res["peak_rss_mb"] = sig["peak_rss_mb"]
    res["signatures"] = sig_res
    say(
        f"signatures: neardup/datasketch {sig_res['ratios']['neardup/datasketch_fastest']}x, "
        f"neardup/rensa {sig_res['ratios']['neardup/rensa_fastest']}x"
    )

    # (c) datasketch in memory, while its MinHashes are at hand
    pairs: dict[str, Any] = {}
    if args.skip_datasketch_lsh:
        del minhashes
    else:
        if len(minhashes) < n:
            from datasketch import MinHash

            say(f"datasketch signatures for the remaining {n - len(minhashes):,d} docs")
            prep = prepared_processor(cfg)
            minhashes.extend(
                MinHash.bulk(
                    [prep.shingle_set(x) for x in texts[len(minhashes) :]],
                    num_perm=NUM_PERM,
                    hashfunc=E.mmh3_32,
                )
            )
        for params in (None, (cfg.bands, cfg.rows)):
            key = "datasketch" if params is None else "datasketch_same_bands"
            pairs[key] = bench_datasketch_lsh(ids, minhashes, content, cfg, t, truth, params)
            r = pairs[key]
            say(
                f"all pairs {key}: {r['seconds']:.1f} s, {r['candidates']:,d} candidates, "
                f"recall {r['recall']}, precision {r['precision']}, bands {r['bands']}x{r['rows']}"
            )
        del minhashes
    gc.collect()

    # (b) indexing. Solr's JVM compiles its indexing code during the first tens of thousands
    # of documents after a start; a throwaway collection takes that cost, so that the rates
    # below are steady-state rates at every size (at 10,000 short records the cold start
    # halved it, and after 5,000 records the rate was still climbing).
    warm = node.index(f"bench_warmup_{n}", idx_params)
    warm_records = C.short_records(conf["warmup_short"], seed=args.seed + 1) + corp.records[:3000]
    warm.add_many(warm_records)
    delete_collection(solr_of(warm))
    del warm_records
    idx: dict[str, Any] = {}
    short_n = min(n, conf["short_cap"])
    shorts = C.short_records(short_n, seed=args.seed)
    # A run of 10,000 short records takes about 2 s, in which a commit and the JVM's state
    # weigh: like the signatures, small sizes keep the best of `repeats_small` runs, each
    # into a new collection.
    rates: list[float] = []
    runs = conf["repeats_small"] if short_n <= 10_000 else 1
    for run in range(runs):
        # Short records carry only what the LSH report needs (no 2014 fields: issue #14).
        short_index = node.index(f"bench_short_{n}", cfg)
        solr = solr_of(short_index)
        st: dict[str, Any] = {}
        with phase(st):
            stats = short_index.add_many(shorts)
        rates.append(round(stats.indexed / stats.seconds, 1))
        if rates[-1] >= max(rates):
            idx["short"] = {
                "docs": stats.indexed,
                "seconds": round(stats.seconds, 3),
                "docs_per_s": rates[-1],
                "index_bytes": index_size_bytes(solr),
                "peak_rss_mb": st["peak_rss_mb"],
                "client_cpu_s": st["cpu_seconds"],
            }
        if run == runs - 1:
            idx["incremental"] = bench_incremental(short_index, short_n, args.seed)
        delete_collection(solr)
    idx["short"]["runs_per_s"] = rates
    inc = idx["incremental"]
    say(
        f"incremental: {inc['new']:,d} new records into {inc['collection']:,d}: index "
        f"{inc['index_s']:.2f} s + report of their pairs {inc['report_s']:.2f} s = "
        f"{inc['seconds']:.2f} s ({inc['candidates']:,d} candidates)"
    )
    say(
        f"index short records: {idx['short']['docs']:,d} in {idx['short']['seconds']:.1f} s = "
        f"{idx['short']['docs_per_s']:,.0f}/s (runs: {rates})"
    )
    del shorts
    if conf["profile_docs"]:
        m = conf["profile_docs"]
        res["profile_docs"] = m
        prof_index = node.index(f"bench_prof_{n}", idx_params)
        sample = corp.records[:m]
        res["stages_signatures"] = signature_stages(texts[:m], cfg)
        res["stages_indexing_client"] = indexing_stages(sample, prof_index)
        say(f"stages of signatures_batch on {m:,d} docs: {res['stages_signatures']}")
        say(f"client-side indexing work on {m:,d} docs: {res['stages_indexing_client']}")
        res["profile_indexing"] = profile_text(lambda: prof_index.add_many(sample))
        delete_collection(solr_of(prof_index))
        sample_texts = texts[:m]
        sig_proc = prepared_processor(cfg)
        res["profile_signatures"] = profile_text(lambda: sig_proc.signatures_batch(sample_texts))
    lsh_only = node.index(f"bench_docs_lsh_{n}", cfg)
    idx["docs_lsh_only"] = timed_indexing(lsh_only, corp.records)
    delete_collection(solr_of(lsh_only))
    say(
        f"index documents without the 2014 fields: {idx['docs_lsh_only']['docs']:,d} in "
        f"{idx['docs_lsh_only']['seconds']:.1f} s = {idx['docs_lsh_only']['docs_per_s']:,.0f}/s"
    )
    index = node.index(f"bench_docs_{n}", idx_params)
    solr = solr_of(index)
    d = idx["docs"] = timed_indexing(index, corp.records)
    say(
        f"index documents: {d['docs']:,d} in {d['seconds']:.1f} s = "
        f"{d['docs_per_s']:,.0f}/s, index {d['index_bytes'] or 0:,d} bytes"
    )
    res["indexing"] = idx

    try:
        del corp, raw, texts, content
        gc.collect()
        pairs["neardup"] = bench_neardup_pairs(index, t, truth)
        r = pairs["neardup"]
        if r["completed"]:
            say(
                f"all pairs neardup: {r['seconds']:.1f} s ({r['timings']}), "
                f"{r['candidates']:,d} candidates, recall {r['recall']}, "
                f"precision {r['precision']}"
            )
        else:
            say(f"all pairs neardup FAILED after {r['failed_after_s']} s: {r['error']}")
        pairs["seed"] = bench_seed_loop(index, t, truth, conf["seed_sample"], args.seed)
        r = pairs["seed"]
        say(
            f"all pairs seed loop: {r['seconds']:.1f} s (extrapolated from {r['sample_docs']:,d} "
            f"docs, {r['ms_per_doc']} ms/doc), recall {r['recall']} on {r['truth']} sampled "
            f"truth pairs"
        )
        res["neighbors"] = bench_neighbors(index, ids, conf["neighbors"], args.seed)
        say(f"neighbors: p50 {res['neighbors']['p50_ms']} ms, p95 {res['neighbors']['p95_ms']} ms")
        idx["docs"]["index_bytes"] = index_size_bytes(solr) or idx["docs"]["index_bytes"]
    finally:
        if not args.keep_collections:
            delete_collection(solr)
    res["pairs"] = pairs
    nd = pairs["neardup"].get("seconds") or float("nan")
    res["ratios"] = {
        "seed/neardup": round(pairs["seed"]["seconds"] / nd, 2) if nd == nd else None,
        **({"datasketch/neardup": round(pairs["datasketch"]["seconds"] / nd, 2)}
           if "datasketch" in pairs and nd == nd else {}),
    }  # fmt: skip

    # (g) end to end, on a JVM warmed by everything above
    if not args.skip_end_to_end:
        del pairs, index
        gc.collect()
        peers = [p for p in E.PEERS if not (p == "datasketch" and args.skip_datasketch_lsh)]
        res["end_to_end"] = E.run(e2e_file, truth, cfg, solr_base=node.base, solr_pid=node.pid,
                                  work=work, peers=peers, say=say)  # fmt: skip
    return res


# -- targets and the report --------------------------------------------------------------------


def _ratio_fmt(x: float | None) -> str:
    if x is None or x != x:
        return "n/a"
    return f"{x:.2f}x" if x < 10 else f"{x:.1f}x"


def targets(runs: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target of the issue, per size where it applies: measured, met, margin."""
    out: list[dict[str, Any]] = []
    failed = ""

    def add(
        name: str,
        size: int | str,
        value: float | None,
        goal: float,
        higher: bool,
        unit: str,
        bound: str = "",
    ) -> None:
        if value is None:
            out.append(
                {
                    "target": name,
                    "size": size,
                    "value": None,
                    "met": False if failed else None,
                    "margin": failed or "not measured",
                    "bound": bound,
                }
            )
            return
        met = value >= goal if higher else value <= goal
        factor = value / goal if higher else goal / value if value else float("inf")
        if met:
            margin = f"{factor:.2f}x the target"
        else:
            margin = f"by {1 - factor:.0%} ({factor:.2f} of the target; {1 / factor:.2f}x needed)"
        out.append(
            {
                "target": name,
                "size": size,
                "value": value,
                "unit": unit,
                "met": met,
                "margin": margin,
                "bound": bound,
            }
        )

    for key in sorted(runs, key=int):
        r = runs[key]
        n = int(key)
        ndp = r["pairs"]["neardup"]
        failed = "" if ndp.get("completed", True) else "all pairs did not complete (see below)"
        sr = r["signatures"]["ratios"]
        add(
            "signatures >= 10x datasketch (fastest variant, per CPU-second)",
            n,
            sr["neardup/datasketch_fastest"],
            10,
            True,
            "x",
            "signatures",
        )
        add(
            "signatures within 2x of rensa (>= 0.5x, per CPU-second)",
            n,
            sr["neardup/rensa_fastest"],
            0.5,
            True,
            "x",
            "signatures",
        )
        lsh_only = "docs_lsh_only" in r["indexing"]  # runs before #14 indexed 2014 fields too
        add(
            "indexing short records >= 15,000/s (no 2014 fields)"
            if lsh_only
            else "indexing short records >= 5,000/s (with the 2014 fields)",
            n,
            r["indexing"]["short"]["docs_per_s"],
            15000 if lsh_only else 5000,
            True,
            "/s",
            "indexing",
        )
        if lsh_only:
            add(
                "indexing 200-word docs >= 5,000/s (no 2014 fields)",
                n,
                r["indexing"]["docs_lsh_only"]["docs_per_s"],
                5000,
                True,
                "/s",
                "indexing",
            )
        inc = r["indexing"].get("incremental")
        if inc and inc["collection"] >= 100_000:
            add(
                f"1,000 new records into {inc['collection']:,d}: index + their pairs <= 5 s",
                n,
                inc["seconds"],
                5,
                False,
                "s",
                "incremental",
            )
        add(
            "indexing 200-word docs >= 1,000/s (with the 2014 fields)",
            n,
            r["indexing"]["docs"]["docs_per_s"],
            1000,
            True,
            "/s",
            "indexing",
        )
        for name, value, goal in E.target_values(n, r):
            add(name, n, value, goal, False, "x", "end to end")
        if n >= 100_000:
            add(
                "all pairs >= 10x faster than the seed loop",
                n,
                r["ratios"]["seed/neardup"],
                10,
                True,
                "x",
            )
            add(
                "all pairs recall >= 0.99 at J >= 0.8",
                n,
                ndp.get("recall"),
                0.99,
                True,
                "",
            )
        if n >= 1_000_000:
            out.append(
                {
                    "target": "1M: all pairs completes",
                    "size": n,
                    "value": None,
                    "met": not failed,
                    "margin": failed or f"in {ndp['seconds']:,.0f} s",
                    "bound": "",
                }
            )
            add("1M: neighbors p50 <= 20 ms", n, r["neighbors"]["p50_ms"], 20, False, "ms")
            lower = runs.get(str(n // 10))
            if lower:
                ratio = None
                if not failed:
                    ratio = round(ndp["seconds"] / lower["pairs"]["neardup"]["seconds"], 2)
                add("1M: all-pairs time(1M)/time(100k) <= 12", n, ratio, 12, False, "")
    return out


def _mb(b: int | None) -> str:
    return "n/a" if b is None else f"{b / 2**20:,.0f} MB"


def render(data: dict[str, Any]) -> str:
    runs = data["runs"]
    sizes = sorted(runs, key=int)
    envs = {k: runs[k]["env"] for k in sizes}
    env = envs[sizes[-1]]
    L: list[str] = []
    w = L.append
    w("# neardup benchmarks\n")
    w(
        "Generated by `python -m benchmarks.run --mode full` (do not edit by hand; "
        "`benchmarks/results.json` holds the raw numbers). Ratios between libraries measured in "
        "the same run are the headline; absolute seconds depend on the machine.\n"
    )
    w(
        "**Noise:** 2 cores, shared by the benchmark, Solr and anything else running; absolute "
        "timings move by tens of percent from run to run, ratios between libraries measured in "
        "interleaved chunks much less. The load average at the start of each size is listed "
        "below.\n"
    )
    w("## Machine and versions\n")
    w("| | |\n|---|---|")
    w(f"| CPU | {env['cpu']}, {env['cores']} cores |")
    w(f"| RAM | {env['ram_gib']} GiB |")
    w(f"| OS | {env['os']} |")
    w(f"| Python / numpy | {env['python']} / {env['numpy']} |")
    w(f"| datasketch / rensa / mmh3 | {env['datasketch']} / {env['rensa']} / {env['mmh3']} |")
    w(f"| Solr | {env['solr']} (heap {env['solr_heap']}) |")
    w(
        f"| neardup | {env['neardup']}, git {env['git_commit']}"
        + (
            f" + uncommitted changes in {len(env['neardup_uncommitted_files'])} files of neardup/"
            if env["neardup_uncommitted_files"]
            else ""
        )
        + " |"
    )
    for k in sizes:
        e = envs[k]
        la = e.get("load_average_at_start")
        w(
            f"| run of {int(k):,d} docs | {e['date']}, git {e.get('git_commit')}, load average "
            "at start "
            f"{', '.join(f'{x:.2f}' for x in la) if la else 'n/a'} |"
        )
    w("")

    r0 = runs[sizes[-1]]
    w(
        f"Configuration: neardup's LSH shingles = {r0.get('shingles', '?')} "
        f"({'canonical' if r0.get('canonical', True) else 'normalized'} text), {NUM_PERM} "
        f"permutations, b x r = {r0.get('bands')} x {r0.get('rows')}, threshold "
        f"{r0['threshold']}.\n"
    )
    L.extend(E.headline(runs))
    w("## The parts: ratios measured in the same run\n")
    w(
        "| documents | signatures per CPU-s: neardup / datasketch (fastest / SHA-1 default) | "
        "neardup / rensa | all pairs: seed loop / neardup | datasketch LSH / neardup | "
        "recall neardup / seed / datasketch |"
    )
    w("|---:|---:|---:|---:|---:|---|")
    for k in sizes:
        r = runs[k]
        sr = r["signatures"]["ratios"]
        p = r["pairs"]
        dsr = r["ratios"].get("datasketch/neardup")
        rec = " / ".join(
            "n/a" if p.get(m) is None or p[m].get("recall") is None else f"{p[m]['recall']:.4f}"
            for m in ("neardup", "seed", "datasketch")
        )
        w(
            f"| {int(k):,d} | {_ratio_fmt(sr['neardup/datasketch_fastest'])} / "
            f"{_ratio_fmt(sr['neardup/datasketch_sha1'])} | "
            f"{_ratio_fmt(sr['neardup/rensa_fastest'])} | "
            f"{_ratio_fmt(r['ratios'].get('seed/neardup'))} | "
            f"{'n/a' if dsr is None else _ratio_fmt(dsr)} | {rec} |"
        )
    w(
        "\nA ratio above 1 means neardup is faster. The seed loop's time is extrapolated from a "
        "sample (see below); its recall is measured on the truth pairs of the sampled documents.\n"
    )

    w("## Targets\n")
    w("| target | size | measured | result |")
    w("|---|---:|---:|---|")
    tg = targets(runs)
    for t in tg:
        val = "n/a" if t["value"] is None else f"{t['value']:,}{t.get('unit', '')}"
        res = "n/a" if t["met"] is None else ("**met**" if t["met"] else "**MISSED**")
        w(f"| {t['target']} | {int(t['size']):,d} | {val} | {res} {t['margin']} |")
    if not any(int(k) >= 1_000_000 for k in sizes):
        w(
            "| 1M targets (completes, time ratio <= 12, neighbors p50 <= 20 ms) | 1,000,000 | "
            "not run | see below |"
        )
    w("")
    missed = {t["bound"] for t in tg if t["met"] is False and t["bound"]}
    if missed or any(t["met"] is False for t in tg):
        w("### What bounds the missed targets\n")
        ref = runs[
            max((k for k in sizes if "stages_signatures" in runs[k]), key=int, default=sizes[-1])
        ]
        for key in ("signatures", "indexing"):
            if key in missed:
                w(bounds_text(key, ref))
        if "end to end" in missed:
            w(E.bounds(runs))
        for k in sizes:
            v = runs[k]["pairs"]["neardup"]
            if not v.get("completed", True):
                w(pairs_failure_text(int(k), v, runs))
        for t in tg:
            if t["met"] is False and not t["bound"] and "did not complete" not in t["margin"]:
                w(f"- {t['target']} at {int(t['size']):,d}: {t['margin']}.")
        w("")

    for k in sizes:
        r = runs[k]
        n = int(k)
        w(f"## {n:,d} documents\n")
        c = r["corpus"]
        w(
            f"Corpus: {n:,d} documents (mean {c['mean_words']} words), seed {c['seed']}, "
            f"{c['families']:,d} families holding {c['copies']:,d} edited copies "
            f"(edit rate {c['min_rate']:.0%}-{c['max_rate']:.0%} per word), vocabulary "
            f"{c['vocab_size']:,d} words, Zipf exponent {c['exponent']}; fingerprint "
            f"`{c['fingerprint']}` (numpy {c['numpy']}). Ground truth: {c['truth_pairs']:,d} pairs "
            f"with exact Jaccard >= {r['threshold']} over {r.get('shingles', '?')} shingles "
            f"({c['exact_duplicates_in_truth']} of them identical texts). Largest Jaccard among "
            f"2,000 random cross-family pairs: {c['cross_family_max_jaccard']}."
        )
        if "exact_check" in c:
            w(
                f" Brute-force `all_pairs` over all {n:,d} documents gives the same pairs: "
                f"{c['exact_check']['same_as_family_truth']}."
            )
        w(f" Generated in {c['seconds']:.1f} s.\n")
        L.extend(E.detail(r))
        s = r["signatures"]
        w(
            f"**(a) Signatures** ({NUM_PERM} permutations, best of {s['repeats']} "
            f"interleaved run(s))\n"
        )
        w(
            "| library | path | docs | wall s | docs/s (wall) | CPU s | docs per CPU-s | "
            "vs neardup (CPU) |"
        )
        w("|---|---|---:|---:|---:|---:|---:|---:|")
        nd = s["libs"]["neardup"].get("docs_per_cpu_s") or s["libs"]["neardup"]["docs_per_s"]
        order = [*SIG_ORDER, *(x for x in s["libs"] if x not in SIG_ORDER)]
        for name in order:
            v = s["libs"].get(name)
            if v is None:
                continue
            per_cpu = v.get("docs_per_cpu_s") or v["docs_per_s"]
            w(
                f"| {name} | {v['how']} | {v['docs']:,d} | {v['seconds']:.2f} | "
                f"{v['docs_per_s']:,.0f} | {v.get('cpu_seconds', 0):.2f} | {per_cpu:,.0f} | "
                f"{per_cpu / nd:.2f} |"
            )
        w(f"\nPeak RSS during the signature runs: {s['peak_rss_mb']:,.0f} MB.\n")
        ix = r["indexing"]
        w(
            "**(b) Indexing** (`NearDupIndex.add_many`, batches of 1,000, each sent as 2 "
            "concurrent requests, one commit; "
            f"{r.get('bands', '')} LSH band keys, in `content_lsh` and one field per band; "
            "short records and 'documents, LSH only' without the 2014 article's fields, "
            "'documents' with them, for the seed loop)\n"
        )
        w(
            "| records | count | seconds | records/s | client CPU s (share of wall) | "
            "Solr index on disk | peak RSS |"
        )
        w("|---|---:|---:|---:|---:|---:|---:|")
        for kind, label in (
            ("short", "short (8-15 words)"),
            ("docs_lsh_only", "documents (100-300 w), LSH only"),
            ("docs", "documents (100-300 w)"),
        ):
            v = ix.get(kind)
            if v is None:
                continue
            reps = v.get("runs_per_s") or []
            if len(reps) > 1:
                label += f", best of {len(reps)} runs ({', '.join(f'{x:,.0f}' for x in reps)}/s)"
            w(
                f"| {label} | {v['docs']:,d} | {v['seconds']:.1f} | {v['docs_per_s']:,.0f} | "
                f"{v.get('client_cpu_s', 0):.1f} ({v.get('client_cpu_s', 0) / v['seconds']:.0%}) | "
                f"{_mb(v['index_bytes'])} | {v['peak_rss_mb']:,.0f} MB |"
            )
        inc = ix.get("incremental")
        if inc:
            w(
                f"\nIncremental: {inc['new']:,d} new short records into a collection of "
                f"{inc['collection']:,d}, indexed in {inc['index_s']:.2f} s, and the report of "
                f"only their pairs (`report(since=batch)`) in {inc['report_s']:.2f} s "
                f"({inc['candidates']:,d} candidates): {inc['seconds']:.2f} s in all."
            )
        w("")
        w(f"**(c, d, e) All pairs at J >= {r['threshold']}**\n")
        w("| method | seconds | candidates | reported | recall | precision | peak RSS | details |")
        w("|---|---:|---:|---:|---:|---:|---:|---|")
        for m in ("neardup", "seed", "datasketch", "datasketch_same_bands"):
            v = r["pairs"].get(m)
            if v is None:
                continue
            if m == "seed":
                det = (
                    f"extrapolated from {v['sample_docs']:,d} of {v['docs']:,d} docs "
                    f"({v['ms_per_doc']} ms/doc, measured {v['seconds_measured']:.1f} s); "
                    f"the seed's own rule (edit distance <= 2) would keep recall <= "
                    f"{v['seed_rule']['recall']}, precision {v['seed_rule']['precision']}"
                )
                secs = (
                    f"{v['seconds']:,.1f} (extrapolated)"
                    if v["extrapolated"]
                    else f"{v['seconds']:,.1f}"
                )
            elif m == "neardup" and not v.get("completed", True):
                dg = v.get("diagnosis") or {}
                det = (
                    f"**did not complete**: {v['error']} (after {v['failed_after_s']} s). "
                    f"Band {dg.get('band')} alone, with no timeout: the facet of its "
                    f"{dg.get('shared_keys', 0):,d} shared keys {dg.get('keys_facet_s')} s, "
                    f"keys and members of {dg.get('buckets', 0):,d} buckets "
                    f"{dg.get('keys_and_members_s')} s (measured right after the timed-out "
                    "attempts, which Solr keeps computing: upper bounds)"
                )
                w(f"| {v['method']} | did not complete | | | | | | {det} |")
                continue
            elif m == "neardup":
                det = f"phases {v['timings']}, {v['buckets']:,d} buckets"
                secs = f"{v['seconds']:,.1f}"
            else:
                det = (
                    f"b x r = {v['bands']} x {v['rows']}; {v['timings']}; "
                    f"index ~{v['index_rss_mb']:,.0f} MB"
                )
                secs = f"{v['seconds']:,.1f}"
            w(
                f"| {v['method']} | {secs} | {v['candidates']:,d} | {v['reported']:,d} | "
                f"{v['recall']} | {v['precision']} | {v['peak_rss_mb']:,.0f} MB | {det} |"
            )
        nb = r.get("neighbors")
        if nb:
            w(
                f"\n`NearDupIndex.neighbors(id, k=10)`: p50 {nb['p50_ms']} ms, "
                f"p95 {nb['p95_ms']} ms, max {nb['max_ms']} ms over {nb['lookups']} random ids; "
                f"{nb.get('requests_per_lookup')} Solr requests per lookup at "
                f"{nb.get('request_ms')} ms each ({nb.get('share_in_requests', 0):.0%} of the "
                "lookup time)."
                + (
                    " The three requests are one real-time get and two cursor pages of "
                    "`Solr.iter_docs`, whose last page only learns that the cursor is exhausted "
                    "(a first page shorter than `rows` already says so)."
                    if nb.get("requests_per_lookup", 0) >= 3
                    else ""
                )
                + "\n"
            )
        st = r.get("stages_signatures")
        if st:
            tot = st["total"]
            w(
                f"Where `signatures_batch` spends its time ({r['profile_docs']:,d} documents, "
                f"implementation `{st.get('kernel', '?')}`; CPU seconds, best of 3; the kernel "
                "is one C call, so its stages are timed by difference: the same kernel with one "
                "permutation does all the per-text work):\n"
            )
            w("| stage | seconds | share |\n|---|---:|---:|")
            labels = {
                "text_and_hashing": "normalize, shingle, MurmurHash3, drop repeats (1 permutation)",
                "permutations": f"the other {NUM_PERM - 1} permutations and their minima",
            }
            for key in STAGE_ORDER:
                if key in st:
                    w(f"| {labels[key]} | {st[key]:.3f} | {st[key] / tot:.0%} |")
            w(f"| signatures_batch | {tot:.3f} | 100% |")
            if st.get("numpy_reference"):
                w(
                    f"| the numpy reference path (`signatures_batch_numpy`), same texts | "
                    f"{st['numpy_reference']:.3f} | {st['numpy_reference'] / tot:.1f}x |"
                )
            w("")
        st = r.get("stages_indexing_client")
        if st:
            per_doc = r["indexing"]["docs"]["seconds"] / r["indexing"]["docs"]["docs"]
            whole = per_doc * r["profile_docs"]
            w(
                f"Client-side work of `NearDupIndex.documents` on {r['profile_docs']:,d} "
                "documents, "
                f"against {whole:.2f} s of indexing wall time for as many documents:\n"
            )
            w("| part | seconds | share of indexing wall time |\n|---|---:|---:|")
            for key in INDEX_PART_ORDER:
                if key in st:
                    w(f"| {key.replace('_', ' ')} | {st[key]:.3f} | {st[key] / whole:.0%} |")
            w(
                f"| waiting for Solr (add + commit), by difference | "
                f"{max(0.0, whole - st['documents_total']):.3f} | "
                f"{max(0.0, whole - st['documents_total']) / whole:.0%} |\n"
            )
        for key, title in (
            ("profile_signatures", "signatures_batch"),
            ("profile_indexing", "NearDupIndex.add_many"),
        ):
            if r.get(key):
                w(
                    f"<details><summary>Profile of {title} on {r.get('profile_docs')} "
                    "documents (pyinstrument; its per-call hook inflates Python-call-heavy "
                    f"code)</summary>\n\n```\n{r[key]}\n```\n</details>\n"
                )

    if len(sizes) >= 2:
        w("## Growth between sizes\n")
        w(
            "| from -> to | size x | signatures (per doc) | indexing docs | all pairs neardup | "
            "datasketch LSH | neighbors p50 |"
        )
        w("|---|---:|---:|---:|---:|---:|---:|")
        for a, b in zip(sizes[:-1], sizes[1:], strict=True):
            ra, rb = runs[a], runs[b]

            def g(f: Callable[[dict[str, Any]], float | None], ra=ra, rb=rb) -> str:
                try:
                    x, y = f(ra), f(rb)
                    return "n/a" if not x or y is None else f"{y / x:.2f}x"
                except (KeyError, TypeError):
                    return "n/a"

            w(
                f"| {int(a):,d} -> {int(b):,d} | {int(b) / int(a):.0f}x | "
                f"{g(lambda r: 1 / r['signatures']['libs']['neardup']['docs_per_cpu_s'])} | "
                f"{g(lambda r: r['indexing']['docs']['seconds'])} | "
                f"{g(lambda r: r['pairs']['neardup']['seconds'])} | "
                f"{g(lambda r: r['pairs']['datasketch']['seconds'])} | "
                f"{g(lambda r: r['neighbors']['p50_ms'])} |"
            )
        w("")
    if not any(int(k) >= 1_000_000 for k in sizes):
        w("## 1,000,000 documents\n")
        w(MILLION_TEXT)
        w("")
    w("## How each number is measured\n")
    if any(runs[k].get("shingles") == "word 3-gram" for k in sizes):
        w(DOCUMENT_SHINGLES)
    w(METHOD_TEXT)
    w(E.METHOD_TEXT)
    return "\n".join(L) + "\n"


def bounds_text(key: str, r: dict[str, Any]) -> str:
    """What bounds a missed target, with the shares measured in run ``r``."""
    n = int(r["n"])
    if key == "signatures":
        st = r.get("stages_signatures") or {}
        tot = st.get("total") or 1.0
        return (
            f"- **Signatures** ({n:,d} run, implementation `{st.get('kernel', '?')}`): "
            f"{st.get('text_and_hashing', 0) / tot:.0%} of the time is the per-text work "
            "(normalize, shingle, hash) and "
            f"{st.get('permutations', 0) / tot:.0%} the {NUM_PERM} universal permutations "
            "(one 32x32-bit multiply, two folds of 2**32 = -15 (mod p) and a min per shingle "
            "and permutation, vectorized). Without the C kernel (no compiler at install time, "
            "or `NEARDUP_KERNEL=numpy`) neardup runs its numpy path, "
            f"{(st.get('numpy_reference') or 0) / tot:.0f}x slower."
        )
    if key == "indexing":
        ix = r["indexing"]
        parts = []
        for kind, label in (("short", "short records"), ("docs", "200-word documents")):
            v = ix[kind]
            if v.get("client_cpu_s"):
                parts.append(f"{v['client_cpu_s'] / v['seconds']:.0%} for {label}")
        return (
            f"- **Indexing** ({n:,d} run). The client's CPU time is "
            f"{' and '.join(parts) or 'n/a'} of the indexing wall time: `add_many` computes "
            "batch k+1 while two writer threads send batch k as two concurrent update requests, "
            "so the rate is Solr's, on the two cores it shares with the client: JSON parsing, "
            "Lucene indexing of about 200 `content_ng` values, 20 `content_sg` values and one "
            "key per band field per document, the stored `content`, `raw` and `content_lsh`, "
            "the transaction log, segment flushes and merges and the final commit."
        )
    return ""


def pairs_failure_text(n: int, v: dict[str, Any], runs: dict[str, Any]) -> str:
    dg = v.get("diagnosis") or {}
    lower = runs.get(str(n // 10), {}).get("pairs", {}).get("neardup", {})
    low_t = lower.get("timings", {}).get("buckets")
    low = (
        f" At {n // 10:,d} documents the whole buckets phase (all bands) took {low_t:.1f} s."
        if low_t
        else ""
    )
    return (
        f"- **All pairs at {n:,d} documents did not complete** ({v.get('error')}). "
        "`SolrBackend.buckets` asks Solr, per band, for a terms facet over the band's "
        "own field `lsh_bNN` (the keys that two or more records share), then for the members "
        f"of those buckets with a terms query. Band {dg.get('band')} has "
        f"{dg.get('shared_keys', 0):,d} shared keys; with no client timeout the facet took "
        f"{dg.get('keys_facet_s')} s and facet plus members {dg.get('keys_and_members_s')} s "
        "(upper bounds: Solr was still computing the abandoned attempts); "
        f"{runs.get(str(n), {}).get('bands', '')} bands of this kind take longer than the "
        f"client's 60 s timeout per request.{low} The client-side work (candidate pairs, "
        "verification) was not reached."
    )


MILLION_TEXT = (
    "Not in this file yet: run `python -m benchmarks.run --mode full --sizes 1000000 "
    "--skip-datasketch-lsh` (it merges into `results.json` and regenerates this file)."
)


DOCUMENT_SHINGLES = """\
- **Shingles: word 3-grams** (`--kind word --size 3`), the seed's document shingles, not
  `Params`'s record default (word 1-grams, tuned on the restaurant addresses). In 100-300
  word Zipf documents unrelated texts share their frequent words: with word 1-grams their
  Jaccard is 0.1-0.2, a pair collides in one of the 21 bands of 6 rows with probability about
  21 x 0.15^6 = 2.4e-4, and the false candidates grow with the square of the collection.
  Measured with word 1-grams on this corpus (the same code, outside this run): all pairs took
  13.1 s at 100,000 documents (82,062 candidates for 17,834 true pairs) and 494 s at 1,000,000
  (7,009,185 candidates for 180,733 true pairs: buckets 178 s, fetch 43 s, exact verification
  274 s), a 38x growth for 10x the documents. With word 3-grams unrelated documents share
  almost no shingle (largest cross-family Jaccard in the sample below) and candidates stay
  proportional to the true pairs. The README gives the same advice for long documents.
"""

METHOD_TEXT = """\
- **Corpus** (`benchmarks/corpus.py`): seeded; documents of 100-300 Zipf words; 10% of the
  documents are edited copies (per-word insertion/deletion/substitution at 1-10%) of a base in
  a family of 1-5 copies. Truth = all pairs with exact Jaccard >= t on neardup's own shingle
  sets (`Params(threshold=t).processor().shingle_set`), computed within families; that this is all
  pairs is checked by brute force at 10k documents and by the cross-family sample at each size.
- **(a)** Each library turns the same canonical texts into 128-value signatures of the same
  shingle sets; the peers receive Python sets from neardup's shingler inside the timed region
  (neardup's `signatures_batch` does that shingling itself); "shingling only" times that
  common part. datasketch's fastest documented path is `MinHash.bulk` with a fast `hashfunc`
  (its docs suggest farmhash; mmh3 is used here); rensa's bulk constructors return all
  signatures in one call. The libraries take turns on chunks of 5,000 documents (the order
  rotating per chunk), so all of them meet the same load of the shared machine; for each chunk
  the best of the repeats counts. Throughput per CPU-second of this process is the headline
  (every path measured is single-threaded, and CPU time is not inflated by other processes
  waiting for the same cores); wall-clock throughput is listed too.
- **(b)** `NearDupIndex(Params(threshold=t, fields_2014=True),
  backend=SolrBackend(solr)).add_many(records)` with its defaults (batches of 1,000, 2
  writers; the 2014 seed fields and the LSH band keys), timed by its writer (includes the final
  commit), into a new collection on a JVM that first indexed 60,000 short records and 3,000
  documents into a throwaway collection (its JIT-compiled code is then steady); short records
  at 10,000 or fewer are the best of 3 runs. Index size from Solr's core status.
- **(c)** neardup: `NearDupIndex.report(t, prune="none")` on the indexed collection,
  right after its commit (per band one terms facet on the band's field and one terms query for
  the members of its shared buckets, fetch of the candidates' content, exact verification;
  every verified pair is kept, no rival pruning). Seed loop: what
  `neardup report --method minhash` does (read all records by cursor, then
  `seed2014.SeedSearcher.near_dups` per record with 20 MinHash values, first-word filter,
  top 10), with no edit-distance cut so that its candidates are verified by exact Jaccard like
  the others;
  time = reading all records + (per-document time of the sample) x N. datasketch:
  `MinHashLSH(threshold=t, num_perm=128)` with its default (b, r) and again with neardup's
  (b, r), `insert` every MinHash (mmh3 variant), `query` every MinHash, then the same exact
  verification. Times exclude computing signatures (neardup's happen at indexing time).
- **(d)** recall = reported true pairs / truth pairs; precision = reported true pairs /
  reported pairs. Every method verifies exactly, so precision is 1 unless the truth missed a
  pair ("outside_truth" in the JSON counts verified pairs absent from the truth; it is 0).
- **(e)** Peak RSS is this Python process's VmHWM, reset before each phase
  (`/proc/self/clear_refs`); it includes the corpus held in memory (the same for every method
  of one size). Solr runs in its own JVM (heap as listed) and is not included.
- **(f)** growth = time at the larger size / time at the smaller size.
"""


# -- main --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--mode", choices=sorted(MODES), default="quick")
    ap.add_argument("--sizes", type=int, nargs="+", help="corpus sizes (default: by mode)")
    ap.add_argument(
        "--out",
        type=Path,
        help="results JSON (default: benchmarks/results.json "
        "for full, benchmarks/results-quick.json for quick)",
    )
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument(
        "--kind", choices=["word", "char"], default="word", help="shingle kind (default: word)"
    )
    ap.add_argument(
        "--size",
        type=int,
        default=3,
        help="shingle size (default: 3, the seed's document shingles; see DOCUMENT_SHINGLES)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seed-sample", type=int, help="documents of the seed loop sample")
    ap.add_argument(
        "--skip-datasketch-lsh",
        action="store_true",
        help="leave out datasketch's in-memory LSH (it needs every MinHash in RAM)",
    )
    ap.add_argument(
        "--skip-end-to-end",
        action="store_true",
        help="leave out (g), the end-to-end runs of every library from a text file",
    )
    ap.add_argument("--keep-collections", action="store_true")
    ap.add_argument(
        "--max-memory-gb",
        type=float,
        help="cap this process's address space (a MemoryError instead of the OOM killer)",
    )
    ap.add_argument(
        "--no-results-md",
        action="store_true",
        help="full mode: do not regenerate benchmarks/RESULTS.md",
    )
    args = ap.parse_args(argv)
    conf = dict(MODES[args.mode])
    if args.seed_sample:
        conf["seed_sample"] = args.seed_sample
    sizes = args.sizes or conf["sizes"]
    out_path: Path = args.out or DEFAULT_OUT[args.mode]
    # The environment is read here only, as the CLI does: the rest takes what it needs.
    url = os.environ.get("NEARDUP_SOLR_URL") or None
    heap = os.environ.get("NEARDUP_SOLR_HEAP") or None
    if args.mode == "full" and heap is None:
        heap = "2g" if max(sizes) < 1_000_000 else "4g"

    data: dict[str, Any] = {"schema": 1, "runs": {}}
    if args.mode == "full" and out_path.exists():
        try:
            data = json.loads(out_path.read_text(encoding="utf-8"))
            say(f"merging into {out_path} (sizes already there: {', '.join(data['runs'])})")
            probe = bench_params(args)
            want = (f"{probe.shingle_kind} {probe.shingle_size}-gram", args.threshold)
            for key in list(data["runs"]):
                got = (data["runs"][key].get("shingles"), data["runs"][key].get("threshold"))
                if got != want:
                    say(f"dropping the {key} run from {out_path}: it used {got}, now {want}")
                    del data["runs"][key]
        except (ValueError, KeyError):
            data = {"schema": 1, "runs": {}}
    node = SolrNode(url, heap)
    code = 0
    if args.max_memory_gb:  # after Solr started: the JVM must not inherit the limit
        limit = int(args.max_memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        say(f"address space of this process limited to {args.max_memory_gb} GiB")
    try:
        env = environment(Solr(node.base, "bench_probe"), heap)
        if not node.external:
            env["solr_start_s"] = node.start_seconds
        for n in sizes:
            env_n = dict(
                env,
                load_average_at_start=os.getloadavg(),
                date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            )
            with tempfile.TemporaryDirectory(prefix="neardup-bench-") as work:
                res = run_size(n, args.mode, conf, node, args, Path(work))
            res["env"] = env_n
            data["runs"][str(n)] = res
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            say(f"wrote {out_path}")
    except Exception:
        traceback.print_exc()
        code = 1
    finally:
        node.stop()
    if code == 0:
        for t in targets({k: v for k, v in data["runs"].items() if int(k) in sizes}):
            ok = "n/a" if t["met"] is None else ("met" if t["met"] else "MISSED")
            say(f"target {t['target']} @ {int(t['size']):,d}: {t['value']} -> {ok} ({t['margin']})")
        if args.mode == "full" and not args.no_results_md:
            RESULTS_MD.write_text(render(data), encoding="utf-8")
            say(f"wrote {RESULTS_MD}")
    say(f"done in {time.perf_counter() - T0:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
