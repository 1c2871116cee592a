"""Found pairs against gold pairs: recall, precision, F1 (pairs are unordered), and B-cubed
scores of the clusters they make.

A record may be any hashable key: an id, or where two sources may both hold an id 7, its
``(source, id)`` (:mod:`neardup.read.pair_files` reads files into such keys), so that a pair
(a's 7, b's 9) is never taken for (b's 7, a's 9) and two records 7 never share a cluster.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import asdict, dataclass
from typing import TypeVar

from ..graph import union_find

#: A record's key: an id, or a ``(source, id)`` tuple.
K = TypeVar("K", bound=Hashable)


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

    def as_reported(self) -> dict[str, float | int | None]:
        """:meth:`as_dict` as ``evaluate`` reports it: the precision of no pair found is
        undefined (None, null in JSON), not 0, which reads as every pair found being wrong;
        likewise the recall of an empty gold."""
        said: dict[str, float | int | None] = dict(self.as_dict())
        if not self.pairs:
            said["precision"] = None
        if not self.gold:
            said["recall"] = None
        return said


def unordered(pairs: Iterable[tuple[K, K]]) -> set[frozenset[K]]:
    return {frozenset(p) for p in pairs if p[0] != p[1]}


def f1(precision: float, recall: float) -> float:
    """The harmonic mean of precision and recall; 0 where both are 0."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _rounded(x: float, digits: int | None) -> float:
    return x if digits is None else round(x, digits)


def score(
    found: Iterable[tuple[K, K]], gold: Iterable[tuple[K, K]], digits: int | None = 4
) -> Scores:
    """Scores of ``found`` against ``gold``; a pair counts once whatever its order.

    ``digits``: the scores' rounding; ``None`` keeps them exact, for a caller that rounds
    them itself (a figure rounded twice may differ in its last digit).

    >>> score([(("b", "9"), ("a", "7"))], [(("a", "7"), ("b", "9")), (("a", "9"), ("b", "7"))])
    Scores(pairs=1, true_pairs=1, gold=2, recall=0.5, precision=1.0, f1=0.6667)
    >>> score([("a", "b")], [("a", "b"), ("a", "c"), ("b", "c")], digits=None).recall
    0.3333333333333333
    """
    f, g = unordered(found), unordered(gold)
    tp = len(f & g)
    recall = tp / len(g) if g else 0.0
    precision = tp / len(f) if f else 0.0
    rounded = (_rounded(x, digits) for x in (recall, precision, f1(precision, recall)))
    return Scores(len(f), tp, len(g), *rounded)


@dataclass(frozen=True)
class ClusterScores:
    """B-cubed precision, recall and F1 of the clusters the pairs make."""

    records: int
    precision: float
    recall: float
    f1: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def bcubed(
    found: Iterable[tuple[K, K]],
    gold: Iterable[tuple[K, K]],
    ids: Iterable[K] | None = None,
    digits: int | None = 4,
) -> ClusterScores:
    """B-cubed scores: pairwise counts punish a wrong merge of two big clusters quadratically,
    and a user who deduplicates keeps clusters, not pairs. For every record, precision is the
    share of its found cluster that is in its true cluster, recall the share of its true
    cluster that is in its found one; both are averaged over the records. Clusters are the
    connected components of the pairs; a record in no pair is a cluster of its own.

    ``ids``: every record of the data (default: those in some pair; records in no pair of
    either side would score 1 and 1, so the default leaves them out). ``digits``: as for
    :func:`score`.

    >>> s = bcubed([("a", "b"), ("b", "c")], [("a", "b")], ids="abcd")
    >>> s.records, round(s.precision, 3), s.recall
    (4, 0.667, 1.0)

    Records keyed by source and id: the two records 7 stay in two clusters.

    >>> a7, b9, b7, a1 = ("a", "7"), ("b", "9"), ("b", "7"), ("a", "1")
    >>> bcubed([(a7, b9), (b7, a1)], [(b9, a7), (a1, b7)])
    ClusterScores(records=4, precision=1.0, recall=1.0, f1=1.0)
    >>> bcubed([(a7, b9), (b7, a1)], [(b9, a7)]).precision  # b7-a1 is a wrong pair
    0.75
    """
    where_f, where_g = _components(found), _components(gold)
    every = set(where_f) | set(where_g)
    if ids is not None:
        every |= set(ids)
    if not every:
        return ClusterScores(0, 0.0, 0.0, 0.0)
    # A record in no pair is its own cluster: key it by itself (tagged apart from the
    # components' numbers, which a record's own key may equal).
    key_f = {i: ("in", where_f[i]) if i in where_f else ("alone", i) for i in every}
    key_g = {i: ("in", where_g[i]) if i in where_g else ("alone", i) for i in every}
    size_f = Counter(key_f.values())
    size_g = Counter(key_g.values())
    both = Counter((key_f[i], key_g[i]) for i in every)
    precision = sum(both[key_f[i], key_g[i]] / size_f[key_f[i]] for i in every) / len(every)
    recall = sum(both[key_f[i], key_g[i]] / size_g[key_g[i]] for i in every) / len(every)
    rounded = (_rounded(x, digits) for x in (precision, recall, f1(precision, recall)))
    return ClusterScores(len(every), *rounded)


def _components(pairs: Iterable[tuple[K, K]]) -> dict[K, str]:
    """Each record of ``pairs`` -> its connected component. Keys of any kind are numbered
    first, for :func:`neardup.graph.union_find` orders ids as strings."""
    edges = list(pairs)
    number: dict[K, str] = {}
    for a, b in edges:
        number.setdefault(a, str(len(number)))
        number.setdefault(b, str(len(number)))
    root = union_find((number[a], number[b]) for a, b in edges)
    return {record: root(n) for record, n in number.items()}
