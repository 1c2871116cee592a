"""The graph of pairs: its connected components (clusters), found by union-find.

One place for the clusters every output uses (``--clusters``, dedupe, the review page) and for
the completion of nearly complete ones (:mod:`neardup.completion`).

>>> clusters([("3", "1"), ("1", "2"), ("7", "8")])
[['1', '2', '3'], ['7', '8']]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .text import id_key


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


def components(pairs: Iterable[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The pairs grouped by connected component of the graph they form, in first-seen order."""
    pairs = list(pairs)
    root = union_find(pairs)
    groups: dict[str, list[tuple[str, str]]] = {}
    for a, b in pairs:
        groups.setdefault(root(a), []).append((a, b))
    return list(groups.values())


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
