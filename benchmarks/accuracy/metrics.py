"""Pairwise precision/recall/F1 and B-cubed F1 of clusters: how the suite scores a matcher.

Pairs are unordered. In link mode only pairs with one record from each source count, in what
is predicted as in the gold (a matcher that also pairs records within one source is neither
rewarded nor punished for it). B-cubed compares, record by record, the cluster a matcher puts
the record in (connected components of its pairs) with the record's gold cluster; records
without any pair are clusters of one. Pairwise F1 weighs big clusters quadratically; B-cubed
weighs every record once, and it punishes chaining (one bad pair joining two big clusters).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from neardup.graph import union_find

from .datasets import LINK, Dataset, Pair, pair


@dataclass(frozen=True)
class PairScores:
    predicted: int
    gold: int
    true: int
    precision: float
    recall: float
    f1: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def pairwise(predicted: Iterable[Pair], gold: Iterable[Pair]) -> PairScores:
    """Precision, recall and F1 of ``predicted`` against ``gold`` (unordered pairs)."""
    p = {pair(a, b) for a, b in predicted if a != b}
    g = {pair(a, b) for a, b in gold if a != b}
    tp = len(p & g)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    return PairScores(len(p), len(g), tp, precision, recall, f1(precision, recall))


def counted(ds: Dataset, pairs: Iterable[Pair]) -> set[Pair]:
    """The pairs that count in ``ds``'s mode: in link mode, only cross-source pairs."""
    out = {pair(a, b) for a, b in pairs if a != b}
    if ds.mode == LINK:
        src = ds.sources()
        out = {(a, b) for a, b in out if src.get(a) != src.get(b)}
    return out


def components(ids: Iterable[str], pairs: Iterable[Pair]) -> dict[str, str]:
    """Record id -> its cluster's root id: connected components (neardup's own union-find),
    singletons included."""
    pairs = list(pairs)
    root = union_find(pairs)
    nodes = dict.fromkeys(ids)
    nodes.update(dict.fromkeys(x for p in pairs for x in p))
    return {i: root(i) for i in nodes}


@dataclass(frozen=True)
class BCubed:
    precision: float
    recall: float
    f1: float


def bcubed(ids: Iterable[str], predicted: Iterable[Pair], gold: Iterable[Pair]) -> BCubed:
    """B-cubed precision, recall and F1 of the clusters of ``predicted`` against those of
    ``gold``, averaged over every record of ``ids``."""
    ids = list(ids)
    pred, true = components(ids, predicted), components(ids, gold)
    # Size of each predicted cluster, gold cluster, and of each of their intersections.
    size_p: dict[str, int] = {}
    size_g: dict[str, int] = {}
    size_pg: dict[tuple[str, str], int] = {}
    for i in ids:
        cp, cg = pred[i], true[i]
        size_p[cp] = size_p.get(cp, 0) + 1
        size_g[cg] = size_g.get(cg, 0) + 1
        size_pg[(cp, cg)] = size_pg.get((cp, cg), 0) + 1
    if not ids:
        return BCubed(0.0, 0.0, 0.0)
    prec = rec = 0.0
    for i in ids:
        cp, cg = pred[i], true[i]
        both = size_pg[(cp, cg)]
        prec += both / size_p[cp]
        rec += both / size_g[cg]
    prec, rec = prec / len(ids), rec / len(ids)
    return BCubed(prec, rec, f1(prec, rec))
