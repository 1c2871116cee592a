"""Clusters that do not chain: every member is a verified pair of its cluster's center.

Connected components join two records whenever a path of pairs links them: listings written
from one agency's template, each alike to the next, became one cluster of 45 records whose ends
had little in common. **Center clustering** (Haveliwala et al.; JedAI's CenterClustering) takes
the pairs best first: two records in no cluster yet start one, the more connected of the two its
center; a record in no cluster joins a center it is paired with; a pair between two members, or
between a member and a record of another cluster, joins nothing. So a member is always one pair
away from its center, and each cluster says how far its farthest member is
(:attr:`Cluster.least`).

A chain a-b-c-d (one component) is two clusters; a star is one:

>>> chain = [("a", "b", 0.9), ("b", "c", 0.8), ("c", "d", 0.9), ("a", "c", 0.7)]
>>> [(c.center, c.members, c.least) for c in center_clusters(chain)]
[('b', ['b', 'a'], 0.9), ('c', ['c', 'd'], 0.9)]
>>> [(c.center, c.members) for c in center_clusters([("1", "2", 0.9), ("2", "3", 0.8)])]
[('2', ['2', '1', '3'])]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..keys import id_key, key_of
from ..results import Pair


@dataclass(frozen=True)
class Cluster:
    """A center (the record the others are each paired with), its members (the center first,
    then by id) and the smallest similarity of a member to the center."""

    center: str
    members: list[str]
    least: float


def center_clusters(pairs: Iterable[tuple[str, str, float]]) -> list[Cluster]:
    """Center clustering of the weighted pairs ``(a, b, similarity)``: clusters of two or
    more records, largest first."""
    edges = [(a, b, float(s)) for a, b, s in pairs if a != b]
    weight: dict[str, float] = {}
    for a, b, s in edges:
        weight[a] = weight.get(a, 0.0) + s
        weight[b] = weight.get(b, 0.0) + s
    edges.sort(key=lambda e: (-e[2], id_key(e[0]), id_key(e[1])))
    center_of: dict[str, str] = {}
    least: dict[str, float] = {}
    for a, b, s in edges:
        ca, cb = center_of.get(a), center_of.get(b)
        if ca is None and cb is None:
            # The more connected record is the center; on a tie, the smaller id.
            c, m = (a, b) if (-weight[a], id_key(a)) <= (-weight[b], id_key(b)) else (b, a)
            center_of[c] = c
            center_of[m] = c
            least[c] = s
        elif ca is None and cb == b:  # b is a center: a joins it
            center_of[a] = b
            least[b] = min(least[b], s)
        elif cb is None and ca == a:  # a is a center: b joins it
            center_of[b] = a
            least[a] = min(least[a], s)
    groups: dict[str, list[str]] = {}
    for record, c in center_of.items():
        if record != c:
            groups.setdefault(c, []).append(record)
    out = [
        Cluster(c, [c, *sorted(ms, key=id_key)], round(least[c], 6)) for c, ms in groups.items()
    ]
    out.sort(key=lambda g: (-len(g.members), id_key(g.center)))
    return out


def pair_clusters(pairs: Iterable[Pair], primary: str | None = None) -> list[Cluster]:
    """Center clusters of a report's pairs, each weighed by the similarity that decided it
    (the weighted one where it did, else Jaccard). A record is its key (its id, and its source
    where that is not the index's ``primary`` one: :mod:`neardup.keys`), so that two files'
    records 7 are never one; :func:`neardup.keys.record_id` gives the ids back."""
    return center_clusters(
        (
            p.id1 if p.source1 is None else key_of(p.id1, p.source1, primary),
            p.id2 if p.source2 is None else key_of(p.id2, p.source2, primary),
            p.similarity if p.similarity is not None else p.jaccard,
        )
        for p in pairs
    )
