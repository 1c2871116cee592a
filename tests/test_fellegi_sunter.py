"""The rule learned without labels (neardup.decision.fellegi_sunter): its comparisons (which
columns, and their values), its estimate of m and u, and how it weighs pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from neardup.decision.fellegi_sunter import LEVELS, MISSING, MatchRule, estimate, features, levels
from neardup.defaults import DEFAULTS
from neardup.params import Params
from neardup.results import Pair


def test_features_are_the_jaccard_the_numbers_and_the_best_match() -> None:
    texts = {"a": "12 main st", "b": "12 main street", "c": "14 main st", "d": "main st"}
    pairs = [Pair("a", "b", 0.8, 1), Pair("a", "c", 0.5, 1), Pair("c", "d", 0.4, 1)]
    values, names = features(pairs, texts, Params().processor())
    assert names == ["jaccard", "numbers", "best"]
    assert values.tolist() == [
        [0.8, 1.0, 1.0],  # the same number; the best pair of both a and b
        [0.5, 0.0, 0.5],  # 12 against 14; the best of c only
        [0.4, MISSING, 0.5],  # d holds no number; the best of d only
    ]


def test_estimate_pools_smooths_and_makes_missing_neutral() -> None:
    """The one Fellegi-Sunter estimate, EM's M-step and the columns check's only one."""
    cm = np.array([[2.0, 6.0, 1.0, 9.0]])  # missing, then low, mid, high similarity
    cu = np.array([[4.0, 2.0, 9.0, 1.0]])  # low has a higher share of matches than mid
    m, u = estimate(cm, cu)
    # low and mid pooled: share of matches (6 + 1) / (8 + 10) = 7/18 for both
    fm = np.array([2.0, 7 / 18 * 8, 7 / 18 * 10, 9.0]) + DEFAULTS.em_smoothing
    fu = np.array([4.0, 11 / 18 * 8, 11 / 18 * 10, 1.0]) + DEFAULTS.em_smoothing
    fm, fu = fm / fm.sum(), fu / fu.sum()
    missing = (fm[0] + fu[0]) / 2
    assert m[0].tolist() == pytest.approx([missing, *fm[1:]])
    assert u[0].tolist() == pytest.approx([missing, *fu[1:]])
    assert m[0, 0] == u[0, 0]  # a missing value weighs neither way


def test_a_rule_weighs_and_judges_pairs_from_its_m_u_and_prior() -> None:
    """weights, chance and posterior: what the learned rule and the columns check apply."""
    rng = np.random.default_rng(1)
    m, u = rng.dirichlet(np.ones(LEVELS), 2), rng.dirichlet(np.ones(LEVELS), 2)
    rule = MatchRule(["a", "b"], m, u, prior=0.2)
    assert np.allclose(rule.ratios(), np.log2(m) - np.log2(u))
    values = np.array([[0.95, 1.0], [0.05, MISSING], [0.55, 0.25]])
    lv = levels(values)
    expected = [sum(math.log2(m[k, lv[r, k]] / u[k, lv[r, k]]) for k in range(2)) for r in range(3)]
    w = rule.weights(values)
    assert w.tolist() == pytest.approx(expected)
    odds = 2.0 ** (w + math.log2(0.2 / 0.8))
    assert rule.chance(w).tolist() == pytest.approx((odds / (1 + odds)).tolist())
    assert rule.posterior(values).tolist() == rule.chance(w).tolist()
