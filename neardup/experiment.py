"""The restaurant experiment of seed 003, end to end, beside the seed's published figures."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from . import datasets, evaluate
from .allpairs import lsh_pairs
from .indexer import Indexer
from .lsh import LshConfig
from .report import clusters, seed_report, write_clusters, write_pairs
from .searcher import SeedSearcher
from .shingles import ShingleProcessor
from .solr import Solr

#: What the 2014 article reports for 3-gram shingles and 20 MinHash values, max distance 2.
SEED_PAIRS = {"shingles": 65, "minhash": 64}
NGRAM, NUM_PERM, MAX_DIST = 3, 20, 2
#: Fodor's and Zagat's are two guides that each list a restaurant once: linking them is
#: one-to-one, so a pair is kept when each record is the other's best match (see
#: neardup.allpairs.prune). Within one collection, ``neardup report`` defaults to "best".
LINKAGE_PRUNE = "mutual"


def run_restaurants(solr: Solr, out_dir: Path, progress: bool = True) -> dict[str, Any]:
    """Index the 864 records afresh, run both seed methods, and score them against the gold."""
    records, gold_file = datasets.restaurants()
    gold = datasets.read_pairs(gold_file)
    solr.delete_query("*:*")
    solr.commit()
    proc = ShingleProcessor(NGRAM, num_perm=NUM_PERM)
    lsh = LshConfig()
    stats = Indexer(solr, proc, lsh=lsh, progress=progress).index(datasets.read_records(records))
    out_dir.mkdir(parents=True, exist_ok=True)
    searcher = SeedSearcher(solr, proc)
    scores: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for method in ("shingles", "minhash"):
        start = time.perf_counter()
        pairs = seed_report(
            searcher, method, MAX_DIST, out_dir / f"{method}.tsv", progress=progress
        )
        timings[method] = time.perf_counter() - start
        scores[method] = _entry(evaluate.score([(a, b) for a, b, _ in pairs], gold))
    start = time.perf_counter()
    result = lsh_pairs(solr, progress=progress, prune_mode=LINKAGE_PRUNE)
    timings["lsh"] = time.perf_counter() - start
    write_pairs(result.pairs, out_dir / "lsh.tsv")
    groups = clusters((p.id1, p.id2) for p in result.pairs)
    write_clusters(groups, out_dir / "lsh_clusters.txt")
    scores["lsh"] = _entry(evaluate.score([(p.id1, p.id2) for p in result.pairs], gold))
    return {
        "scores": scores,
        "index": stats.as_dict(),
        "seconds": timings,
        "gold": len(gold),
        "out_dir": str(out_dir),
        "lsh": lsh,
        "lsh_counts": result.counts(),
    }


def _entry(s: evaluate.Scores) -> dict[str, Any]:
    return {
        "pairs": s.pairs,
        "true_pairs": s.true_pairs,
        "recall": s.recall,
        "precision": s.precision,
        "f1": s.f1,
    }


def format_table(result: dict[str, Any]) -> str:
    idx = result["index"]
    lines = [
        f"Restaurant experiment: {idx['indexed']} records indexed ({idx['rejected']} rejected), "
        f"{result['gold']} gold pairs",
        f"seed 003 setup: word {NGRAM}-gram shingles / {NUM_PERM} MinHash values, first-word "
        f"filter, top 10, max word edit distance {MAX_DIST}",
        "",
        f"{'method':<10}{'pairs':>7}{'seed':>7}{'true':>7}{'recall':>9}{'precision':>11}"
        f"{'F1':>7}{'seconds':>9}",
    ]
    for method, s in result["scores"].items():
        seed = SEED_PAIRS.get(method)
        lines.append(
            f"{method:<10}{s['pairs']:>7}{seed if seed is not None else '-':>7}"
            f"{s['true_pairs']:>7}{s['recall']:>9.3f}{s['precision']:>11.3f}{s['f1']:>7.3f}"
            f"{result['seconds'].get(method, 0.0):>9.1f}"
        )
    cfg, c = result["lsh"], result["lsh_counts"]
    lines += [
        "",
        f"lsh: {cfg.kind} {cfg.size}-grams of the canonical text, {cfg.num_perm} MinHash values "
        f"in {cfg.bands} bands x {cfg.rows} rows;",
        f"     {c['buckets']} shared buckets -> {c['candidates']} candidate pairs -> "
        f"{c['verified']} with Jaccard >= {cfg.threshold} -> {c['confirmed']} {LINKAGE_PRUNE} "
        "best matches",
        f"pair reports: {result['out_dir']}/<method>.tsv, clusters: lsh_clusters.txt",
    ]
    return "\n".join(lines)
