"""neardup.decision.assign: the one best-match-per-record, and the steps that read it."""

from __future__ import annotations

import random

import numpy as np

from neardup import Params
from neardup.decision.assign import (
    BestFirst,
    best_candidates,
    best_of_each,
    best_other,
    mapped_rows,
    one_partner_each,
    unique_mapping,
)
from neardup.decision.columns import far_below_best, mutual_best
from neardup.decision.fellegi_sunter import features
from neardup.decision.prune import prune
from neardup.decision.valley import best_similarities
from neardup.results import Pair


def test_best_of_each_is_every_records_highest_similarity() -> None:
    pairs = [("a", "b", 0.5), ("b", "c", 0.7), ("a", "c", 0.2), ("d", "e", 0.0)]
    assert best_of_each(pairs) == {"a": 0.5, "b": 0.7, "c": 0.7, "d": 0.0, "e": 0.0}
    assert best_of_each([]) == {}


def test_best_of_each_takes_negative_weights() -> None:
    """The columns' weights (log2 m/u) are below 0 for most non-matches: no floor at -1."""
    assert best_of_each([("a", "b", -30.0), ("a", "c", -12.5)]) == {
        "a": -12.5, "b": -30.0, "c": -12.5,
    }  # fmt: skip


def test_best_of_each_against_brute_force() -> None:
    rng = random.Random(5)
    ids = [str(i) for i in range(30)]
    pairs = [(a, b, rng.uniform(-1, 1)) for a, b in (rng.sample(ids, 2) for _ in range(200))]
    nodes = {x for p in pairs for x in p[:2]}
    expected = {i: max(s for a, b, s in pairs if i in (a, b)) for i in nodes}
    assert best_of_each(pairs) == expected


def test_the_steps_read_one_best_per_record() -> None:
    """The valley's best similarities, the learned rule's "best" feature and the columns'
    mutual best and margin all agree with best_of_each."""
    pairs = [Pair("1", "2", 0.9, 0), Pair("2", "3", 0.6, 1), Pair("3", "4", 0.6, 1),
             Pair("1", "4", 0.3, 2)]  # fmt: skip
    best = best_of_each((p.id1, p.id2, p.jaccard) for p in pairs)
    assert best_similarities(pairs) == best == {"1": 0.9, "2": 0.9, "3": 0.6, "4": 0.6}
    values, names = features(pairs, {}, Params().processor())
    # best of both (1-2), of one (2-3: 3's best, not 2's), of both (3-4), of neither (1-4)
    assert values[:, names.index("best")].tolist() == [1.0, 0.5, 1.0, 0.0]
    assert mutual_best(pairs).tolist() == [True, False, True, False]
    weight = np.array([5.0, -20.0, 4.0, -1.0])
    # 2-3 is more than DEFAULTS.columns_margin_bits (10) below both 2's best (5) and 3's best (4)
    assert far_below_best(pairs, weight).tolist() == [False, True, False, False]


def test_one_partner_each_keeps_a_pair_while_neither_end_is_taken() -> None:
    """The one greedy one-partner matching (#42): its ends say who takes a single partner, so
    the same ranked pairs give one partner a record, or one a record and other source."""
    ranked = [("a1", "b1"), ("a1", "c1"), ("b1", "c1"), ("a2", "b1")]
    source = {"a1": "a", "a2": "a", "b1": "b", "c1": "c"}
    assert one_partner_each(ranked, lambda p: p) == [("a1", "b1")]
    by_source = one_partner_each(ranked, lambda p: ((p[0], source[p[1]]), (p[1], source[p[0]])))
    assert by_source == [("a1", "b1"), ("a1", "c1"), ("b1", "c1")]  # a2-b1: b1 has an a


def test_unique_mapping_and_one_to_one_pruning_take_the_same_partners() -> None:
    """Both are the greedy matching: on two sources, best first, they keep the same pairs. In
    unique mapping a record's two sides are apart: "x" of one source and "x" of the other are
    two records, each with a partner."""
    rng = random.Random(3)
    left, right = [f"a{i}" for i in range(30)], [f"b{i}" for i in range(30)]
    sims = rng.sample(range(1, 10_000), 200)  # distinct: one order for both
    scored = [(s / 10_000, rng.choice(left), rng.choice(right)) for s in sims]
    mapped = {(a, b) for _, a, b in unique_mapping(scored)}
    pairs = [Pair(a, b, s, 0) for s, a, b in scored]
    sources = {i: i[0] for i in left + right}
    assert {(p.id1, p.id2) for p in prune(pairs, "one-to-one", sources=sources)} == mapped
    assert len(mapped) > 10
    assert unique_mapping([(0.9, "x", "y"), (0.8, "y", "x")]) == [(0.9, "x", "y"), (0.8, "y", "x")]


def test_the_array_steps_give_what_the_pair_by_pair_ones_give() -> None:
    """mapped_rows is one_partner_each, and BestFirst.runner_up is best_other, on random
    candidates of two sides (the link's passes) with tied similarities among them."""
    rng = random.Random(7)
    for _ in range(200):
        n_a, n_b = rng.randint(1, 12), rng.randint(1, 12)
        ends = {(rng.randrange(n_a), n_a + rng.randrange(n_b)) for _ in range(rng.randint(1, 40))}
        scored = sorted(((rng.choice([0.2, 0.5, 0.5, 0.9, rng.random()]), a, b) for a, b in ends),
                        key=lambda p: (-p[0], str(p[1]), str(p[2])))  # fmt: skip
        first, second = [p[1] for p in scored], [p[2] for p in scored]
        kept = mapped_rows(first, second, n_a + n_b)
        assert [scored[e] for e in kept] == one_partner_each(scored, lambda p: (p[1], p[2]))
        x, y = np.array(first), np.array(second)
        s = np.array([p[0] for p in scored])
        runner = best_candidates(scored)
        seen = BestFirst(x, y, s)
        for me, partner in ((x, y), (y, x)):
            rows, sims = seen.runner_up(me, partner)
            for m, p, r, v in zip(me.tolist(), partner.tolist(), rows.tolist(), sims.tolist(),
                                  strict=True):  # fmt: skip
                want_row, want = best_other(m, p, runner)
                assert v == want and (r == -1) == (want_row is None)
