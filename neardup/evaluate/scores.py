"""Found pairs against gold pairs: recall, precision, F1 (pairs are unordered)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Scores:
    pairs: int
    true_pairs: int
    gold: int
    recall: float
    precision: float
    f1: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def unordered(pairs: Iterable[tuple[str, str]]) -> set[frozenset[str]]:
    return {frozenset(p) for p in pairs if p[0] != p[1]}


def score(found: Iterable[tuple[str, str]], gold: Iterable[tuple[str, str]]) -> Scores:
    """Scores of ``found`` against ``gold``; a pair counts once whatever its order."""
    f, g = unordered(found), unordered(gold)
    tp = len(f & g)
    recall = tp / len(g) if g else 0.0
    precision = tp / len(f) if f else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return Scores(len(f), tp, len(g), round(recall, 4), round(precision, 4), round(f1, 4))
