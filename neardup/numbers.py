"""The numbers check's two questions, one answer each for every rule that makes the check.

Two records that both hold numbers (house and phone numbers, birth dates, model numbers: the
words of :func:`neardup.text.number_words`) and share none are different entities unless they
are alike overall. The valley rule (:mod:`neardup.valley`, by Jaccard) and the weighted link
(:mod:`neardup.link`, by cosine) both ask the same two things: do a pair's numbers differ
(:func:`differ`), and do the data's numbers identify records at all (:func:`apart`: among the
pairs alike enough to waive the check, how many share no number).

>>> differ(frozenset({"12"}), frozenset({"14"})), differ(frozenset({"12"}), frozenset())
(True, False)
>>> nums = {"a": frozenset({"12"}), "b": frozenset({"12"}), "c": frozenset({"40"})}
>>> apart([(0.9, "a", "b"), (0.8, "a", "c"), (0.2, "b", "c")], nums.__getitem__, 0.7)
(2, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def differ(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two records' numbers tell them apart: both hold some and they share none."""
    return bool(a) and bool(b) and not a & b


def apart(
    pairs: Iterable[tuple[float, K, K]], numbers: Callable[[K], frozenset[str]], waived: float
) -> tuple[int, int]:
    """Of the pairs ``(similarity, a, b)`` at least ``waived`` similar whose records both hold
    numbers: how many there are, and how many of them share no number. Where numbers are
    identifiers, nearly none of such pairs (nearly all matches) share none."""
    both = [(a, b) for s, a, b in pairs if s >= waived and numbers(a) and numbers(b)]
    return len(both), sum(1 for a, b in both if not numbers(a) & numbers(b))
