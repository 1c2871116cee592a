"""Dedup and link modes, Unicode folding end to end, and the match rule learned without labels:
on the memory backend and on a real Solr."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations

import numpy as np
import pytest

from neardup import NearDupIndex, Params
from neardup.decision.fellegi_sunter import learn_rule, levels
from neardup.decision.prune import prune
from neardup.errors import InputError
from neardup.read.pairs import read_pairs
from neardup.resources import restaurants
from neardup.results import Pair

MakeIndex = Callable[..., NearDupIndex]


def _restaurants() -> tuple[list[tuple[str, str, str]], set[tuple[str, str]]]:
    records_file, gold_file = restaurants()
    records = []
    for line in records_file.read_text(encoding="utf-8").splitlines():
        rid, text = line.split(" ", 1)
        records.append((rid, text, "fodors" if int(rid) <= 533 else "zagats"))
    return records, read_pairs(gold_file)


def test_link_mode_pairs_only_records_of_different_sources(make_index: MakeIndex) -> None:
    records, gold = _restaurants()
    source = {r[0]: r[2] for r in records}
    index = make_index(Params())
    index.add_many(records)
    dedup = index.report(mode="dedup")
    link = index.report(mode="link")
    assert link.mode == "link" and link.prune == "one-to-one" and dedup.prune == "none"
    assert all(source[p.id1] != source[p.id2] for p in link.pairs)
    assert any(source[p.id1] == source[p.id2] for p in dedup.pairs)  # the guides' own copies
    partners = [i for p in link.pairs for i in (p.id1, p.id2)]
    assert len(partners) == len(set(partners))  # one-to-one
    # Without pruning, link mode is exactly dedup mode's cross-source pairs.
    unpruned = {(p.id1, p.id2) for p in index.report(mode="link", prune="none").pairs}
    assert unpruned == {(p.id1, p.id2) for p in dedup.pairs if source[p.id1] != source[p.id2]}
    found = {(p.id1, p.id2) for p in link.pairs}
    precision = len(found & gold) / len(found)
    assert precision > len({(p.id1, p.id2) for p in dedup.pairs} & gold) / len(dedup.pairs)


def test_link_mode_needs_sources_to_differ(make_index: MakeIndex) -> None:
    index = make_index(Params(threshold=0.5))
    index.add_many([("1", "same words here"), ("2", "same words here")])
    assert len(index.report(mode="dedup").pairs) == 1
    # one source: nothing to link, refused whatever the rule (an empty report read as "no
    # duplicates across the files")
    with pytest.raises(InputError, match="all 2 records are of one source"):
        index.report(mode="link")
    with pytest.raises(Exception, match="mode must be one of dedup, link, got 'merge'"):
        index.report(mode="merge")


def test_one_to_one_prefers_the_most_similar_partner() -> None:
    pairs = [Pair("1", "2", 0.7, 1), Pair("1", "3", 0.9, 0), Pair("2", "4", 0.6, 2)]
    kept = prune(pairs, "one-to-one")
    assert [(p.id1, p.id2) for p in kept] == [("1", "3"), ("2", "4")]
    learned = [Pair("1", "2", 0.7, 1, 0.99), Pair("1", "3", 0.9, 0, 0.6)]
    assert [(p.id1, p.id2) for p in prune(learned, "one-to-one")] == [("1", "2")]


def test_folded_spellings_are_duplicates(make_index: MakeIndex) -> None:
    index = make_index(Params(threshold=0.9))
    index.add_many(
        [
            ("1", "Café Müller, Straße 5"),
            ("2", "CAFE MULLER strasse 5"),
            ("3", "Ｓｔａｒｂｕｃｋｓ Ｃｏｆｆｅｅ"),
            ("4", "Starbucks coffee"),
            ("5", "東京都港区六本木"),
            ("6", "東京都 港区 六本木"),
        ]
    )
    assert {(p.id1, p.id2) for p in index.pairs()} == {("1", "2"), ("3", "4"), ("5", "6")}
    unfolded = make_index(Params(threshold=0.9, fold_accents=False))
    unfolded.add_many([("1", "Café Müller"), ("2", "Cafe Muller")])
    assert unfolded.pairs() == []


def test_levels_bin_similarities() -> None:
    got = levels(np.array([-1.0, 0.0, 0.05, 0.1, 0.35, 0.95, 0.999, 1.0]))
    assert got.tolist() == [0, 1, 1, 1, 4, 9, 9, 10]  # missing, bins of 0.1, exactly 1.0


def test_em_recovers_a_planted_mixture() -> None:
    rng = np.random.default_rng(3)
    for share in (0.1, 0.3):
        n = 4000
        matches = int(n * share)
        values = np.vstack(
            [rng.beta(12, 2, size=(matches, 3)), rng.beta(2, 6, size=(n - matches, 3))]
        )
        truth = np.r_[np.ones(matches, bool), np.zeros(n - matches, bool)]
        rule = learn_rule(values, ["a", "b", "c"])
        assert rule.prior == pytest.approx(share, abs=0.03)
        predicted = rule.posterior(values) >= 0.5
        assert (predicted == truth).mean() > 0.97


def _typo(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 2)):
        i = rng.randrange(len(chars))
        chars[i] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(chars)


def test_learned_rule_separates_typo_copies_from_neighbours() -> None:
    rng = random.Random(11)
    first = ["anna", "peter", "maria", "john", "lena", "omar", "sofia", "ivan", "mei", "ravi"]
    last = ["smith", "garcia", "muller", "rossi", "kowalski", "tanaka", "novak", "silva"]
    streets = ["oak", "elm", "main", "park", "hill", "lake", "river", "pine"]
    records, truth = [], set()
    for e in range(300):
        base = (
            f"{rng.choice(first)} {rng.choice(last)} {rng.randint(1, 999)} "
            f"{rng.choice(streets)} street {rng.randint(10000, 99999)}"
        )
        ids = [f"{e}-{k}" for k in range(rng.randint(1, 3))]
        for k, rid in enumerate(ids):
            records.append((rid, base if k == 0 else _typo(rng, base)))
        truth |= {tuple(sorted(p)) for p in combinations(ids, 2)}
    index = NearDupIndex(Params(shingle_kind="char", shingle_size=3, threshold=0.3, rule="learned"))
    index.add_many(records)
    report = index.report()
    found = {tuple(sorted((p.id1, p.id2))) for p in report.pairs}
    precision = len(found & truth) / max(1, len(found))
    recall = len(found & truth) / len(truth)
    assert report.rule is not None and report.rule["accepted"] == len(found)
    assert all(p.probability is not None and p.probability >= 0.5 for p in report.pairs)
    assert precision > 0.9 and recall > 0.9, (precision, recall, report.rule["threshold"])
    # Its own estimates are close to the truth it never saw.
    assert report.rule["estimated_precision"] == pytest.approx(precision, abs=0.1)
    assert report.rule["estimated_recall"] == pytest.approx(recall, abs=0.1)


def test_one_to_one_is_per_source_when_sources_are_given() -> None:
    """An entity listed by three sources keeps its three pairs; a rival in a source where the
    record already has its partner is dropped, and without sources every record keeps one."""
    pairs = [
        Pair("a1", "b1", 0.9, 0), Pair("a1", "c1", 0.8, 1), Pair("b1", "c1", 0.85, 1),
        Pair("a1", "b2", 0.6, 2),  # a rival of b1 for a1, in source b
        Pair("b2", "c2", 0.7, 1),
    ]  # fmt: skip
    sources = {i: i[0] for p in pairs for i in (p.id1, p.id2)}
    kept = {(p.id1, p.id2) for p in prune(pairs, "one-to-one", sources=sources)}
    assert kept == {("a1", "b1"), ("a1", "c1"), ("b1", "c1"), ("b2", "c2")}
    alone = {(p.id1, p.id2) for p in prune(pairs, "one-to-one")}
    assert alone == {("a1", "b1"), ("b2", "c2")}


def test_link_mode_with_three_sources_keeps_a_pair_per_source() -> None:
    index = NearDupIndex(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    base = ["Cafe Roma 12 Main Street Springfield", "Blue Door Books 7 Elm Road Shelbyville"]
    records = [
        (f"{s}{k}", text if s == "a" else text.replace("Street", "St").replace("Road", "Rd"), s)
        for k, text in enumerate(base) for s in "abc"
    ]  # fmt: skip
    index.add_many(records)
    report = index.report(mode="link")
    got = {(p.id1, p.id2) for p in report.pairs}
    assert got == {(f"{x}{k}", f"{y}{k}") for k in (0, 1) for x, y in (("a", "b"), ("a", "c"),
                                                                        ("b", "c"))}  # fmt: skip
