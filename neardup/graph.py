"""The graph of pairs: its connected components (clusters), found by union-find.

One place for the clusters every output uses (``--clusters``, dedupe, the review page) and for
the completion of nearly complete ones (:mod:`neardup.decision.completion`).

>>> clusters([("3", "1"), ("1", "2"), ("7", "8")])
[['1', '2', '3'], ['7', '8']]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numpy.typing import NDArray

from .keys import id_key


def union_find(pairs: Iterable[tuple[str, str]]) -> Callable[[str], str]:
    """The root finder of the graph of ``pairs``; the root of a component is its smallest id."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # path halving
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            lo, hi = (ra, rb) if id_key(ra) <= id_key(rb) else (rb, ra)
            parent[hi] = lo
    return root


def clusters(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Connected components of the pair graph, largest first, ids in order within each."""
    pairs = list(pairs)
    root = union_find(pairs)
    groups: dict[str, set[str]] = {}
    for a, b in pairs:
        groups.setdefault(root(a), set()).update((a, b))
    out = [sorted(g, key=id_key) for g in groups.values()]
    out.sort(key=lambda g: (-len(g), id_key(g[0])))
    return out


def component_labels(
    first: NDArray[np.int64], second: NDArray[np.int64], n: int
) -> NDArray[np.int64]:
    """Every node's component of the graph of edges ``first[i] - second[i]`` over nodes
    ``0..n-1``, as its smallest node: whole arrays at a time (hook each edge's two roots to
    the smaller, then compress every path), so that millions of edges cost a few passes of
    numpy instead of a dict of strings.

    >>> component_labels(np.array([3, 1, 7]), np.array([1, 2, 8]), 9).tolist()
    [0, 1, 1, 1, 4, 5, 6, 7, 7]
    """
    label = np.arange(n, dtype=np.int64)
    if not first.size:
        return label
    while True:
        la, lb = label[first], label[second]
        if np.array_equal(la, lb):
            return label
        low = np.minimum(la, lb)
        np.minimum.at(label, la, low)  # each root hooked under the smaller root of its edges
        np.minimum.at(label, lb, low)
        while True:  # every node straight to its root
            up = label[label]
            if np.array_equal(up, label):
                break
            label = up
