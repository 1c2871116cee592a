"""How the suite scores a matcher: neardup's own pairwise and B-cubed scores
(:mod:`neardup.evaluate.scores`), exact, on the pairs that count in a dataset's mode.

Pairs are unordered. In link mode only pairs with one record from each source count, in what
is predicted as in the gold (a matcher that also pairs records within one source is neither
rewarded nor punished for it). B-cubed compares, record by record, the cluster a matcher puts
the record in (connected components of its pairs) with the record's gold cluster; records
without any pair are clusters of one. Pairwise F1 weighs big clusters quadratically; B-cubed
weighs every record once, and it punishes chaining (one bad pair joining two big clusters).
"""

from __future__ import annotations

from collections.abc import Iterable

from neardup.evaluate.scores import ClusterScores, Scores, score
from neardup.evaluate.scores import bcubed as _bcubed

from .datasets import LINK, Dataset, Pair, pair


def pairwise(predicted: Iterable[Pair], gold: Iterable[Pair]) -> Scores:
    """Precision, recall and F1 of ``predicted`` against ``gold`` (unordered pairs), not
    rounded: the suite rounds its figures once, where it shows them."""
    return score(predicted, gold, digits=None)


def counted(ds: Dataset, pairs: Iterable[Pair]) -> set[Pair]:
    """The pairs that count in ``ds``'s mode: in link mode, only cross-source pairs."""
    out = {pair(a, b) for a, b in pairs if a != b}
    if ds.mode == LINK:
        src = ds.sources()
        out = {(a, b) for a, b in out if src.get(a) != src.get(b)}
    return out


def bcubed(ids: Iterable[str], predicted: Iterable[Pair], gold: Iterable[Pair]) -> ClusterScores:
    """B-cubed precision, recall and F1 of the clusters of ``predicted`` against those of
    ``gold``, averaged over every record of ``ids`` (and of the pairs), not rounded."""
    return _bcubed(predicted, gold, ids, digits=None)
