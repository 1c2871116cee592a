"""The restaurant experiment of seed 003, end to end, beside the seed's published figures."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..backends.base import Backend
from ..errors import InputError, ParameterMismatch
from ..evaluate.scores import Scores, score
from ..index import NearDupIndex, clusters
from ..keys import record_id
from ..out.write import write_clusters, write_pairs
from ..params import Params
from ..read.items import Record
from ..read.pairs import read_pairs
from ..read.records import read_records
from ..resources import restaurants
from .schema import MAX_DIST, NGRAM, NUM_PERM
from .searcher import SeedSearcher, seed_report

#: What the 2014 article reports for 3-gram shingles and 20 MinHash values, max distance 2.
SEED_PAIRS = {"shingles": 65, "minhash": 64}
#: Fodor's and Zagat's are two guides that each list a restaurant once: the experiment links
#: them (link mode: only pairs across the guides, each record with at most one partner).
MODE = "link"
#: Ids 1-533 are Fodor's, 534-864 Zagat's (the bundled data's README).
LAST_FODORS_ID = 533


def guide(record: Record) -> Record:
    """The record with its guide as its source, for link mode."""
    name = "fodors" if int(record.id) <= LAST_FODORS_ID else "zagats"
    return Record(record.id, record.text, name, record.line, record.fields)


#: The experiment's parameters: neardup's defaults, plus the 2014 article's fields.
PARAMS = Params(fields_2014=True)


def check_collection(backend: Backend) -> None:
    """Raise :class:`~neardup.errors.InputError` unless ``backend`` may be emptied for the
    experiment: it must be empty, or hold the experiment's own index (its parameters, and only
    the bundled records, unchanged). A user's collection named by mistake is never cleared."""
    held = backend.count()
    if not held:
        return
    stored = backend.load_params()
    why = ""
    if stored is None:
        why = f"it holds {held} documents that are not a neardup index"
    else:
        try:
            same = Params.from_dict(stored) == PARAMS
        except ParameterMismatch:
            same = False
        if not same:
            why = "it holds a neardup index with other parameters than the experiment's"
        else:
            records, _ = restaurants()
            bundled = {r.id: r.text for r in read_records(records) if isinstance(r, Record)}
            # Keys of the second guide's records hold their source too (neardup.keys).
            foreign = sum(bundled.get(record_id(r.id)) != r.text for r in backend.records())
            if foreign:
                why = f"{foreign} of its {held} records are not the experiment's"
    if why:
        raise InputError(
            f"the experiment empties its collection first and will not empty {backend.location}"
            f": {why}. Name a new collection (--collection), or delete this one yourself"
        )


def run_restaurants(index: NearDupIndex, out_dir: Path, progress: bool = False) -> dict[str, Any]:
    """Index the 864 records afresh into an empty Solr index opened with :data:`PARAMS`, run
    both 2014 methods and neardup's own, and score them against the gold."""
    records, gold_file = restaurants()
    gold = read_pairs(gold_file)
    if len(index):  # every record as the backend keys it: a record of a second source too
        index.backend.remove([r.id for r in index.backend.records()])
        index.backend.commit()
    items = [guide(r) if isinstance(r, Record) else r for r in read_records(records)]
    stats = index.add_many(items, progress=progress)
    out_dir.mkdir(parents=True, exist_ok=True)
    searcher = SeedSearcher(index)
    scores: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for method in ("shingles", "minhash"):
        start = time.perf_counter()
        pairs = seed_report(
            searcher, method, MAX_DIST, out_dir / f"{method}.tsv", progress=progress
        )
        timings[method] = time.perf_counter() - start
        scores[method] = _entry(score([(p.id1, p.id2) for p in pairs], gold))
    start = time.perf_counter()
    result = index.report(mode=MODE, progress=progress)
    timings["lsh"] = time.perf_counter() - start
    write_pairs(result.pairs, out_dir / "lsh.tsv")
    groups = clusters((p.id1, p.id2) for p in result.pairs)
    write_clusters(groups, out_dir / "lsh_clusters.txt")
    scores["lsh"] = _entry(score([(p.id1, p.id2) for p in result.pairs], gold))
    # The same records in an index given no parameters: what a new user's first run gets.
    start = time.perf_counter()
    auto = NearDupIndex()
    auto.add_many(items)
    chosen = auto.report(mode=MODE)
    timings["auto"] = time.perf_counter() - start
    write_pairs(chosen.pairs, out_dir / "auto.tsv")
    scores["auto"] = _entry(score([(p.id1, p.id2) for p in chosen.pairs], gold))
    return {
        "scores": scores,
        "index": stats.as_dict(),
        "seconds": timings,
        "gold": len(gold),
        "out_dir": str(out_dir),
        "lsh": index.params,
        "lsh_counts": result.counts(),
        "auto": auto.params,
        "auto_counts": chosen.counts(),
    }


def _entry(s: Scores) -> dict[str, Any]:
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
        f"lsh: {cfg.shingle_kind} {cfg.shingle_size}-grams of the canonical text, "
        f"{cfg.num_perm} MinHash values in {cfg.bands} bands x {cfg.rows} rows;",
        f"     {c['buckets']} shared buckets -> {c['candidates']} candidate pairs -> "
        f"{c['verified']} across the guides with Jaccard >= {cfg.threshold} -> "
        f"{c['confirmed']} {c['prune']} matches ({c['mode']} mode)",
    ]
    if "auto" in result:
        a, ac = result["auto"], result["auto_counts"]
        rule = ac["rule"] or {}
        decided = (
            f"weighted similarity (TF-IDF cosine of character 4-grams), each record's top "
            f"candidates -> {rule['mapped']} one-to-one mappings -> {ac['confirmed']} ahead of "
            f"their runner-ups by {rule['margin']:.0%} (lowest cosine {ac['threshold']:.3f})"
            if rule.get("kind") == "weighted"
            else f"threshold {ac['threshold']:g} read off the data ({rule.get('kind')}), "
            f"{ac['confirmed']} {ac['prune']} matches"
        )
        lines += [
            f"auto: no parameters given, chosen from the data: {a.describe()};",
            f"     link mode: {decided} (in memory)",
        ]
    lines += [
        f"pair reports: {result['out_dir']}/<method>.tsv, clusters: lsh_clusters.txt",
    ]
    return "\n".join(lines)
