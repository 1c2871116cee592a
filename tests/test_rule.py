"""The learned rule's comparisons (neardup.rule.features): which columns, and their values."""

from __future__ import annotations

from neardup.params import Params
from neardup.results import Pair
from neardup.rule import MISSING, features


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
