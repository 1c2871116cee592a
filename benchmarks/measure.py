"""Every measurement of ``python -m benchmarks.run`` at one corpus size (:func:`run_size`):
signatures, indexing, all pairs against the seed's loop and datasketch, neighbors, stages.

See :mod:`benchmarks.run` for what each letter (a)-(g) measures."""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import corpus as C
from benchmarks import end_to_end as E
from benchmarks.corpus import bench_params, score
from benchmarks.node import SolrNode, index_size_bytes, phase, rss_mb, say, solr_of
from neardup.backends.solr import SolrBackend
from neardup.candidates.verify import verify
from neardup.index import NearDupIndex
from neardup.keys import id_key
from neardup.params import Params
from neardup.read.items import Record
from neardup.seed2014 import SeedSearcher, processor_2014
from neardup.sign import kernel
from neardup.sign.banding import band_keys_batch
from neardup.sign.minhash import ShingleProcessor
from neardup.sign.text import normalize
from neardup.solr.admin import delete_collection
from neardup.solr.client import Solr

NUM_PERM = 128
#: ``max_dist`` for the seed loop: no edit-distance cut, every top-10 hit goes to verification.
NO_CUT = 1_000_000
SEED_MAX_DIST = 2  # the seed's own acceptance rule, reported alongside
#: Signature throughput is measured on at most this many documents (it is a per-document rate).
SIG_CAP = 100_000


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
    """What ``neardup.candidates.verify.verify`` reads for each id (the text as written), as
    ``SolrBackend.texts`` returns it."""
    return {r.id: r.text for r in records}


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
    client = solr.clone()  # its credentials too (the bench node has a password)
    client.timeout, client.retries = 3600, 0
    slow = SolrBackend(client)
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
    seed_proc = processor_2014(cfg)
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
