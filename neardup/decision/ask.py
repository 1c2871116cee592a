"""Which pairs a reviewer should label next: those whose labels teach the most.

As dedupe's active learning does: the pairs the current rule is least sure of (probability
nearest 0.5), spread over the kinds of pairs there are, so that twenty labels do not all say
the same thing. Before any rule can be taught (no labels, or labels of one kind only) the
pairs come from the whole range of the weighted link's one-partner mapping, most from its top,
where matches are: a first round then holds both matches and non-matches.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
from numpy.typing import NDArray

from .assign import unique_mapping
from .evidence import Evidence
from .learned import SEED

#: Uncertain pairs considered per pair asked: the pool the spread is chosen from.
POOL = 10


def ask(
    evidence: Evidence,
    n: int,
    labelled: Collection[int] = (),
    probability: NDArray[np.float64] | None = None,
) -> list[int]:
    """Rows of ``evidence`` to label next, at most ``n``, none of ``labelled``."""
    if probability is None:
        return _spread(evidence, n, set(labelled))
    return _uncertain(evidence, n, set(labelled), probability)


def _spread(evidence: Evidence, n: int, labelled: set[int]) -> list[int]:
    sim = evidence.similarity
    scored = [(float(s), a, b) for s, a, b in zip(
        sim.tolist(), evidence.first.tolist(), evidence.second.tolist(), strict=True)]
    row = evidence.index()
    mapped = [row[(a, b)] for _, a, b in unique_mapping(scored)]
    rest = [r for r in mapped if r not in labelled]
    # positions spaced by their square: most of the round from the top of the mapping (no
    # more of them than the mapping has: --ask 10**20 made numpy allocate for each)
    spaced = np.linspace(0.0, 1.0, min(n, len(rest)))
    at = np.unique((spaced**2 * max(len(rest) - 1, 0)).astype(np.int64))
    picked = [rest[i] for i in at.tolist()] if rest else []
    # where positions fell together, or the mapping is short: the next best pairs
    taken = set(picked) | labelled
    more = (r for r in [*rest, *np.argsort(-sim, kind="stable").tolist()] if r not in taken)
    for r in more:
        if len(picked) >= n:
            break
        picked.append(r)
        taken.add(r)
    return picked


def _uncertain(
    evidence: Evidence, n: int, labelled: set[int], probability: NDArray[np.float64]
) -> list[int]:
    from sklearn.cluster import KMeans

    order = np.lexsort((np.arange(len(probability)), np.abs(probability - 0.5)))
    pool = [r for r in order.tolist() if r not in labelled][: POOL * n]
    if len(pool) <= n:
        return pool
    x = evidence.values[pool]
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-9)
    groups = KMeans(n, n_init=3, random_state=SEED).fit(x).labels_
    # from each group its most uncertain pair (the pool is in order of uncertainty)
    first: dict[int, int] = {}
    for r, g in zip(pool, groups.tolist(), strict=True):
        first.setdefault(g, r)
    return sorted(first.values(), key=pool.index)
