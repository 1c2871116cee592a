"""One partner each: unique mapping, and the relative rule that decides which mappings hold.

Two catalogues each list an entity at most once (clean-clean linkage), so a record has at most
one partner in the other source. **Unique mapping** (JedAI's UniqueMappingClustering) takes the
candidate pairs best first and keeps a pair when neither record has a partner yet.

Which mapped pairs are matches? One absolute threshold does not fit: on the development tasks
the best fixed cosine was low for movies against a catalogue of ``Title (year)`` records and
high for movie and episode catalogues, and a threshold read off the histogram (its valley,
Otsu, a two-Gaussian mixture) missed by far on half of them. What holds everywhere is
relative: a true partner stands out from the record's other candidates, a false one is merely
the least bad of several alike. So a mapped pair holds when its similarity is at least
``1 / (1 - margin)`` times the **runner-up** of both its records (each record's best candidate
other than this partner): with ``DEFAULTS.link_margin`` = 0.1, ahead by a tenth.

No one margin is the best on every development task; a tenth is the best or close to it on
most (the figures: docs/linking.md, "Why the rule and the columns' weights are what they are").
A record whose candidates tie (a city name listed alone in both catalogues a hundred times) is
never linked.

>>> pairs = [(0.9, "a1", "b1"), (0.8, "a1", "b2"), (0.7, "a2", "b2"), (0.2, "a3", "b3")]
>>> [(a, b) for _, a, b in unique_mapping(pairs)]
[('a1', 'b1'), ('a2', 'b2'), ('a3', 'b3')]
>>> runner = best_candidates(pairs)
>>> runner["a1"], runner["b2"]
([('b1', 0.9), ('b2', 0.8)], [('a1', 0.8), ('a2', 0.7)])
>>> stands_out(0.7, "a2", "b2", runner), stands_out(0.9, "a1", "b1", runner)
(False, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


def one_partner_each(
    ranked: Iterable[T], ends: Callable[[T], tuple[Hashable, Hashable]]
) -> list[T]:
    """The pairs in the order given (best first), each kept while neither of its two ``ends``
    has a partner yet: the one greedy one-partner matching, shared by :func:`unique_mapping`
    and the one-to-one pruning (:func:`neardup.decision.prune.prune`). The ends say who may
    take only one partner: a record of one side (unique mapping), or a record towards one
    other source (pruning, where an entity listed by several sources keeps a pair with each).

    >>> one_partner_each(["ab", "ac", "cd", "bd"], lambda p: (p[0], p[1]))
    ['ab', 'cd']
    """
    taken: set[Hashable] = set()
    kept: list[T] = []
    for pair in ranked:
        one, two = ends(pair)
        if one not in taken and two not in taken:
            taken.update((one, two))
            kept.append(pair)
    return kept


def mapped_rows(first: list[int], second: list[int], rows: int) -> list[int]:
    """:func:`one_partner_each` of pairs of rows below ``rows`` (``first[e]``, ``second[e]``,
    best first; the two sides' rows distinct, or one collection's): the positions ``e`` kept.
    A flag per row instead of a set of ends, for the hundreds of thousands of pairs of a link."""
    taken = bytearray(rows)
    kept = []
    for e, (a, b) in enumerate(zip(first, second, strict=True)):
        if not (taken[a] or taken[b]):
            taken[a] = taken[b] = 1
            kept.append(e)
    return kept


def unique_mapping(pairs: Iterable[tuple[float, K, K]]) -> list[tuple[float, K, K]]:
    """Pairs ``(similarity, a, b)`` best first (ties by ``a``, ``b``), each record at most once.

    The greedy best-first mapping, not the optimal assignment: both find the same pairs where
    a true partner stands out, and the greedy one is ``O(n log n)``. ``a`` and ``b`` are of two
    sides: a record of one side is never taken for the other's."""
    ranked = sorted(pairs, key=lambda p: (-p[0], str(p[1]), str(p[2])))
    return one_partner_each(ranked, lambda p: ((0, p[1]), (1, p[2])))


def best_of_each(pairs: Iterable[tuple[K, K, float]]) -> dict[K, float]:
    """Every paired record's highest similarity over the pairs ``(a, b, similarity)``: the one
    best-match-per-record behind the valley's histogram, the learned rule's "best" feature and
    the columns' mutual best and margin.

    >>> best_of_each([("a", "b", 0.9), ("a", "c", 0.4), ("c", "d", -2.0)])
    {'a': 0.9, 'b': 0.9, 'c': 0.4, 'd': -2.0}
    """
    best: dict[K, float] = {}
    for a, b, s in pairs:
        if s > best.get(a, -math.inf):
            best[a] = s
        if s > best.get(b, -math.inf):
            best[b] = s
    return best


def best_candidates(
    pairs: Iterable[tuple[float, K, K]], keep: int = 2
) -> dict[K, list[tuple[K, float]]]:
    """Each record's ``keep`` best candidates ``(other, similarity)``, best first."""
    best: dict[K, list[tuple[K, float]]] = {}
    for s, a, b in pairs:
        for me, other in ((a, b), (b, a)):
            mine = best.setdefault(me, [])
            mine.append((other, s))
            if len(mine) > 2 * keep:
                mine.sort(key=lambda x: -x[1])
                del mine[keep:]
    for mine in best.values():
        mine.sort(key=lambda x: -x[1])
        del mine[keep:]
    return best


def best_other(
    me: K, partner: K, runner: Mapping[K, Sequence[tuple[K, float]]]
) -> tuple[K | None, float]:
    """The best candidate of ``me`` other than ``partner`` and its similarity (None, 0 if
    none): what a non-match of ``me`` looks like."""
    for other, s in runner.get(me, ()):
        if other != partner:
            return other, s
    return None, 0.0


def stands_out(
    similarity: float,
    a: K,
    b: K,
    runner: Mapping[K, Sequence[tuple[K, float]]],
    margin: float = DEFAULTS.link_margin,
) -> bool:
    """Whether the pair ``a``-``b`` is ahead of both records' runner-ups by ``margin``, or is
    identical (:data:`IDENTICAL`) with every runner-up less so."""
    closest = max(best_other(a, b, runner)[1], best_other(b, a, runner)[1])
    return bool(ahead_of(np.array([similarity]), np.array([closest]), margin)[0])


#: A similarity this high is of two identical records (after normalization): float32 vectors
#: put an identical pair's cosine within about 1e-7 of 1, one gram of sixty apart near 0.99.
IDENTICAL = 1.0 - 1e-6


def ahead_of(
    similarity: NDArray[np.float64], closest: NDArray[np.float64],
    margin: float = DEFAULTS.link_margin,
) -> NDArray[np.bool_]:  # fmt: skip
    """Whether each pair stands out from its records' closest runner-up: ahead by ``margin``
    of its similarity, or identical where no runner-up is. A file linked to itself lost a
    quarter of its identical pairs to the file's own near duplicates within 10%."""
    ahead = closest <= similarity * (1.0 - margin)
    return ahead | ((similarity >= IDENTICAL) & (closest < IDENTICAL))


class BestFirst:
    """Candidate pairs ``(x, y, s)`` seen from both ends, each record's best first: sorted
    once, asked for many records' runner-ups."""

    def __init__(self, x: NDArray[np.int64], y: NDArray[np.int64], s: NDArray[np.float64]):
        who = np.concatenate([x, y])
        them = np.concatenate([y, x])
        sim = np.concatenate([s, s])
        order = np.lexsort((them, -sim, who))
        self.who, self.them, self.sim = who[order], them[order], sim[order]

    def runner_up(
        self, me: NDArray[np.int64], partner: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """For each record ``me[n]``, its best candidate other than ``partner[n]`` and their
        similarity (-1 and 0 if none): :func:`best_other` for every record at once, ties by
        the candidate's row."""
        who, them, sim = self.who, self.them, self.sim
        n = len(who)
        if n == 0:
            return np.full(len(me), -1, dtype=np.int64), np.zeros(len(me))
        first = np.searchsorted(who, me)  # each record's best candidate, then its second
        at = np.minimum(first, n - 1)
        pick = np.where((who[at] == me) & (them[at] == partner), first + 1, first)
        at = np.minimum(pick, n - 1)
        ok = (pick < n) & (who[at] == me)
        return np.where(ok, them[at], -1), np.where(ok, sim[at], 0.0)
