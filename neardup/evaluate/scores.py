"""Found pairs against gold pairs: recall, precision, F1 (pairs are unordered), and B-cubed
scores of the clusters they make."""

from __future__ import annotations

from collections import Counter
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
    found: Iterable[tuple[str, str]],
    gold: Iterable[tuple[str, str]],
    ids: Iterable[str] | None = None,
) -> ClusterScores:
    """B-cubed scores: pairwise counts punish a wrong merge of two big clusters quadratically,
    and a user who deduplicates keeps clusters, not pairs. For every record, precision is the
    share of its found cluster that is in its true cluster, recall the share of its true
    cluster that is in its found one; both are averaged over the records. Clusters are the
    connected components of the pairs; a record in no pair is a cluster of its own.

    ``ids``: every record of the data (default: those in some pair; records in no pair of
    either side would score 1 and 1, so the default leaves them out).

    >>> s = bcubed([("a", "b"), ("b", "c")], [("a", "b")], ids="abcd")
    >>> s.records, round(s.precision, 3), s.recall
    (4, 0.667, 1.0)
    """
    from ..graph import clusters

    f, g = list(found), list(gold)
    where_f = {i: n for n, group in enumerate(clusters(f)) for i in group}
    where_g = {i: n for n, group in enumerate(clusters(g)) for i in group}
    every = set(where_f) | set(where_g)
    if ids is not None:
        every |= set(ids)
    if not every:
        return ClusterScores(0, 0.0, 0.0, 0.0)
    # A record in no pair is its own cluster: key it by itself.
    key_f = {i: where_f.get(i, i) for i in every}
    key_g = {i: where_g.get(i, i) for i in every}
    size_f = Counter(key_f.values())
    size_g = Counter(key_g.values())
    both = Counter((key_f[i], key_g[i]) for i in every)
    precision = sum(both[key_f[i], key_g[i]] / size_f[key_f[i]] for i in every) / len(every)
    recall = sum(both[key_f[i], key_g[i]] / size_g[key_g[i]] for i in every) / len(every)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return ClusterScores(len(every), round(precision, 4), round(recall, 4), round(f1, 4))
