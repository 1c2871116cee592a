"""neardup.decision.valley: the valley read on plain and on weighted Jaccard, the data choosing
which (issue #39 item 3: short records made mostly of stop words)."""

from __future__ import annotations

import dataclasses

import pytest

from neardup import NearDupIndex, Params
from neardup.decision.valley import (
    PLAIN,
    WEIGHTED,
    read_valley,
    valley_threshold,
    weighted_jaccards,
)
from neardup.defaults import DEFAULTS
from neardup.keys import id_key
from neardup.out.output import decided, reason, rule_line
from neardup.results import Pair, Report


def _stopword_report(seed: int) -> tuple[Report, set[tuple[str, str]]]:
    """3,000 short records whose words are drawn by a Zipf law of exponent 1.15 over English
    words by frequency (the ten most frequent are about 45% of the words: heavier with stop
    words than English, whose real frequencies give 23% and a clear plain valley at this size),
    10% planted copies, deduplicated with the defaults."""
    from benchmarks.corpus import short_families

    corp = short_families(3_000, seed=seed, words="real", exponent=1.15)
    index = NearDupIndex()
    index.add_many([(r.id, r.text) for r in corp.records])
    return index.report(), {(a, b) for a, b, _ in corp.truth}


@pytest.mark.parametrize("seed", [1, 3])
def test_stop_word_heavy_records_are_decided_on_weighted_jaccard(seed: int) -> None:
    """Unrelated records sharing "the", "of", "a" reach the plain valley's cut (there a
    precision of 0.94); weighted by rarity, those pairs fall among the non-matches."""
    report, truth = _stopword_report(seed)
    found = {(p.id1, p.id2) if id_key(p.id1) <= id_key(p.id2) else (p.id2, p.id1)
             for p in report.pairs}  # fmt: skip
    hit = len(found & truth)
    assert hit / len(found) >= 0.95 and hit / len(truth) >= 0.99
    assert report.rule is not None and report.rule["similarity"] == WEIGHTED
    # Each pair the rule kept carries the weighted similarity that decided it; the others
    # are the pairs completed clusters added.
    weighed = [p.similarity for p in report.pairs if p.similarity is not None]
    assert min(weighed) >= report.threshold
    assert report.completion is not None
    assert len(report.pairs) - len(weighed) == report.completion["added"]


def test_the_report_says_which_similarity_the_valley_was_read_on() -> None:
    report, _ = _stopword_report(1)
    assert decided(report).startswith("weighted Jaccard >= ")
    line = rule_line(report.decision)
    assert line.startswith("\nvalley rule: weighted Jaccard >= ")
    assert "read on weighted Jaccard (shingles weighted by rarity), whose valley is deeper" in line
    kept = next(p for p in report.pairs if p.similarity is not None)
    assert reason(report, kept).startswith(f"weighted Jaccard {kept.similarity:.3f} >= ")

    from benchmarks.corpus import short_families  # pseudo-words: rare grams, plain is clearer

    corp = short_families(3_000, seed=1, words="pseudo")
    index = NearDupIndex()
    index.add_many([(r.id, r.text) for r in corp.records])
    close = index.report()  # the plain valley a little deeper: within the margin
    assert close.rule is not None and close.rule["similarity"] == WEIGHTED
    assert "whose valley is within 1.5x of plain Jaccard's at its cut" in close.rule["choice"]
    from neardup.decision import valley

    try:  # no margin: the deeper valley is taken, the plain one here
        valley.DEFAULTS = dataclasses.replace(DEFAULTS, valley_plain_margin=1.0)  # type: ignore[misc]
        plain = index.report()
    finally:
        valley.DEFAULTS = DEFAULTS  # type: ignore[misc]
    assert plain.rule is not None and plain.rule["similarity"] == PLAIN
    assert decided(plain).startswith("Jaccard >= ")
    said = "; read on plain Jaccard, whose valley is more than 1x as deep at its cut as that of "
    assert said + "weighted Jaccard (shingles weighted by rarity): " in rule_line(plain.decision)
    assert all(p.similarity is None for p in plain.pairs)
    assert reason(plain, plain.pairs[0]).startswith("Jaccard ")


def test_weighted_jaccard_discounts_what_every_record_holds() -> None:
    proc = Params(shingle_kind="char", shingle_size=3).processor()  # short records' shingles
    texts = {
        "a": "the of and in a to", "b": "to a in the and of it",  # stop words only
        "c": "zephyr quixotic marmalade the", "d": "zephyr quixotic marmalade of",
        "e": "the of and a", "f": "of the in to", "g": "in the a of it",
    }  # fmt: skip
    pairs = [Pair("a", "b", 0.0, 0), Pair("c", "d", 0.0, 0), Pair("e", "f", 0.0, 0),
             Pair("f", "g", 0.0, 0)]  # fmt: skip
    sets = {i: proc.shingle_set(t) for i, t in texts.items()}
    plain = [proc.jaccard(sets[p.id1], sets[p.id2]) for p in pairs]
    weighted = weighted_jaccards(pairs, texts, proc)
    assert weighted[0] < plain[0]  # grams most records hold weigh little
    assert weighted[1] > plain[1]  # grams only these two hold weigh much
    assert all(0.0 <= w <= 1.0 for w in weighted)
    assert weighted_jaccards([Pair("a", "a", 1.0, 0)], texts, proc) == [1.0]


def test_no_pairs_reads_no_valley_on_either() -> None:
    found, weights = read_valley([], {}, Params().processor(), 100, 0.3)
    assert not found.found and weights is None and found.similarity == PLAIN
    assert "shows no valley either" in found.choice


def test_weighted_jaccards_on_arrays_are_those_of_the_sets() -> None:
    """The arrays' version (the C kernel's shingle hashes) gives each pair the weighted Jaccard
    of the per-record sets it replaced, on random records of a small vocabulary (many grams
    shared, pairs repeated, a record with itself, empty and one-letter texts)."""
    import random

    from neardup.decision.valley import _weighted_hashed, weighted_jaccards_of_sets
    from neardup.sign import kernel

    if kernel.active() != "c":
        pytest.skip("the arrays' version runs on the C kernel")
    rng = random.Random(7)
    words = ["the", "of", "cat", "house", "zephyr", "x", "qu", "marmalade", "12", "b"]
    texts = {str(i): " ".join(rng.choices(words, k=rng.randint(0, 9))) for i in range(300)}
    texts["short"] = "a"
    texts.update({f"copy{i}": texts[str(i)] for i in range(0, 300, 7)})
    texts["reordered"] = " ".join(reversed(texts["3"].split()))  # one word set, another text
    ids = list(texts)
    for kind, size in (("char", 3), ("word", 1), ("word", 2)):
        proc = Params(shingle_kind=kind, shingle_size=size).processor()
        pairs = [Pair(*rng.sample(ids, 2), 0.0, 0) for _ in range(2_000)]
        pairs += [Pair(str(i), f"copy{i}", 0.0, 0) for i in range(0, 300, 7)]
        pairs += [Pair("3", "reordered", 0.0, 0)]
        pairs += [Pair("5", "5", 1.0, 0), Pair("short", "7", 0.0, 0), pairs[0]]
        arrays = _weighted_hashed(pairs, texts, proc)
        sets = weighted_jaccards_of_sets(pairs, texts, proc)
        assert arrays == pytest.approx(sets, abs=1e-12), kind
        assert arrays[-3] == 1.0 and sum(0.0 < w < 1.0 for w in arrays) > 100


def test_same_sets_are_one_class_exactly_when_their_runs_are_equal() -> None:
    """_same_sets: records of equal runs of places share a class, any others do not, checked
    against every pair on random short runs (many equal, empty ones among them)."""
    import random

    import numpy as np

    from neardup.decision.valley import _same_sets

    rng = random.Random(3)
    runs = [sorted(rng.sample(range(6), rng.randint(0, 3))) for _ in range(400)]
    offsets = np.cumsum([0] + [len(r) for r in runs]).astype(np.int64)
    places = np.array([p for r in runs for p in r], dtype=np.uint32)
    kind = _same_sets(places, offsets)
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            assert (kind[i] == kind[j]) == (bool(runs[i]) and runs[i] == runs[j]), (i, j)


def test_a_pair_s_reason_names_the_fallback_where_no_valley_showed() -> None:
    """hx22: the README's people example shows no valley (the fallback 0.5 decides), yet every
    pair's reason said "valley read off the data"."""
    from neardup import NearDupIndex

    idx = NearDupIndex()
    idx.add_many([("1", "Jon Smith 12 Main St Boston"), ("2", "John Smith 12 Main Street Boston"),
                  ("3", "Mary Jones 4 Elm Rd Salem"), ("4", "Mary Jones 4 Elm Road Salem MA"),
                  ("5", "Peter Brown 77 Oak Ave Dover")], progress=False)  # fmt: skip
    report = idx.report()
    assert report.decision.explain["found"] is False and report.pairs
    reasons = report.to_pandas()["reason"].tolist()
    assert all(r.endswith(", the fallback") for r in reasons), reasons


def test_a_dip_among_a_few_records_is_no_valley() -> None:
    """hx22: on a 22-row file two records a bin made a 2.7x deep valley at 0.825 that cut 5 of
    7 true pairs; a side must hold DEFAULTS.valley_min_side records a bin (smoothed)."""
    best = [0.395, 0.395, 0.55, 0.55, 0.734, 0.734, 0.773, 0.773, 0.783, 0.783, 0.9, 0.9, 1.0, 1.0]
    found = valley_threshold(best, records=22, floor=0.3)
    assert not found.found and found.threshold == 0.5
    assert "among fewer than 2.5 records a bin is not read as one" in found.reason
    many = valley_threshold([b for b in best for _ in range(5)], records=110, floor=0.3)
    assert many.found  # the same shape, five times the records: a valley
