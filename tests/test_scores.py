"""neardup.evaluate.scores: pairs and clusters of records keyed by their source and id."""

from __future__ import annotations

import random

import pytest

from neardup.evaluate import bcubed, score
from neardup.evaluate.scores import f1

A7, B9, B7, A1 = ("a.csv", "7"), ("b.csv", "9"), ("b.csv", "7"), ("a.csv", "1")


def test_bcubed_keeps_two_records_of_one_id_apart() -> None:
    """The records 7 of a.csv and b.csv are two records: b.csv's 7 belongs with a.csv's 1 and
    was not found (recall 3/4); keyed by the id alone, all three ids would be one cluster."""
    s = bcubed([(A7, B9)], [(B9, A7), (A1, B7)])
    assert (s.records, s.precision, s.recall) == (4, 1.0, 0.75)


def _brute_bcubed(
    found: list[tuple[str, str]], gold: list[tuple[str, str]], ids: list[str]
) -> tuple[float, float]:
    """B-cubed by its definition: every record's found and true clusters, grown pair by pair."""

    def cluster(pairs: list[tuple[str, str]], i: str) -> set[str]:
        out, grew = {i}, True
        while grew:
            grew = False
            for a, b in pairs:
                if (a in out) != (b in out):
                    out |= {a, b}
                    grew = True
        return out

    every = sorted(set(ids) | {x for p in found + gold for x in p})
    prec = rec = 0.0
    for i in every:
        f, g = cluster(found, i), cluster(gold, i)
        prec += len(f & g) / len(f)
        rec += len(f & g) / len(g)
    return prec / len(every), rec / len(every)


def test_bcubed_exact_matches_the_definition_on_random_clusterings() -> None:
    """``digits=None`` (the accuracy suite's figures): the exact averages, not rounded."""
    rng = random.Random(3)
    ids = [str(i) for i in range(40)]
    for _ in range(20):
        found = [(rng.choice(ids), rng.choice(ids)) for _ in range(rng.randint(0, 30))]
        gold = [(rng.choice(ids), rng.choice(ids)) for _ in range(rng.randint(1, 30))]
        found = [p for p in found if p[0] != p[1]]
        gold = [p for p in gold if p[0] != p[1]]
        got = bcubed(found, gold, ids, digits=None)
        want = _brute_bcubed(found, gold, ids)
        assert (got.precision, got.recall) == (pytest.approx(want[0]), pytest.approx(want[1]))
        assert got.f1 == pytest.approx(f1(*want))


def test_score_exact_and_rounded() -> None:
    s = score([("a", "b"), ("a", "c"), ("a", "d")], [("b", "a"), ("c", "d")], digits=None)
    assert (s.pairs, s.true_pairs, s.gold) == (3, 1, 2)
    assert (s.precision, s.recall) == (1 / 3, 1 / 2) and s.f1 == pytest.approx(0.4)
    assert score([("a", "b"), ("a", "c"), ("a", "d")], [("b", "a"), ("c", "d")]).precision == 0.3333
    assert f1(0.0, 0.0) == 0.0
