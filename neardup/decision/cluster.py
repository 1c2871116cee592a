"""Clusters that do not chain: every member is a verified pair of its cluster's center.

Connected components join two records whenever a path of pairs links them: listings written
from one agency's template, each alike to the next, became one cluster of 45 records whose ends
had little in common. **Center clustering** (Haveliwala et al.; JedAI's CenterClustering) takes
the pairs best first: two records in no cluster yet start one, the more connected of the two its
center; a record in no cluster joins a center it is paired with; a pair between two members, or
between a member and a record of another cluster, joins nothing. So a member is always one pair
away from its center, and each cluster says how far its farthest member is
(:attr:`Cluster.least`).

Taken alone, the order of the pairs splits records that are all alike: four records each
paired with the other three, whose two best pairs are a-b and c-d, start two clusters, and the
four pairs between them join nothing (nine copies of one templated e-mail, every pair of the 36
kept, were four clusters, and dedupe kept four). A clique is no chain, so two clusters are then
merged where the pairs between them are dense: at least ``DEFAULTS.complete_density``
(:mod:`neardup.defaults`, the bar of :mod:`neardup.decision.completion`) of the pairs possible
between them, with one record of the two paired with every other one, which becomes the center
of the merged cluster, so that every member is still a pair of its center. The densest two
merge first, again while any two may. A chain stays apart: few of the pairs between its
clusters are there (a-b-c-d below: two of four).

A chain a-b-c-d (one component) is two clusters; a star is one, and so is a clique:

>>> chain = [("a", "b", 0.9), ("b", "c", 0.8), ("c", "d", 0.9), ("a", "c", 0.7)]
>>> [(c.center, c.members, c.least) for c in center_clusters(chain)]
[('b', ['b', 'a'], 0.9), ('c', ['c', 'd'], 0.9)]
>>> [(c.center, c.members) for c in center_clusters([("1", "2", 0.9), ("2", "3", 0.8)])]
[('2', ['2', '1', '3'])]
>>> clique = [("a", "b", 0.95), ("c", "d", 0.9), ("a", "c", 0.8), ("a", "d", 0.8),
...           ("b", "c", 0.8), ("b", "d", 0.8)]
>>> [(c.center, c.members, c.least) for c in center_clusters(clique)]
[('a', ['a', 'b', 'c', 'd'], 0.8)]
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..defaults import DEFAULTS
from ..keys import id_key, key_of
from ..results import Pair


@dataclass(frozen=True)
class Cluster:
    """A center (the record the others are each paired with), its members (the center first,
    then by id) and the smallest similarity of a member to the center."""

    center: str
    members: list[str]
    least: float


def center_clusters(
    pairs: Iterable[tuple[str, str, float]], density: float = DEFAULTS.complete_density
) -> list[Cluster]:
    """Center clustering of the weighted pairs ``(a, b, similarity)``, then two clusters merged
    wherever the pairs between them are dense (``density``: see the module): clusters of two or
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
            c, m = (a, b) if _rank(a, weight) <= _rank(b, weight) else (b, a)
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
    merged = _dense_merges(center_of, groups, edges, weight, density)
    for centers, _ in merged:
        for c in centers:
            del groups[c]
    out = [Cluster(c, [c, *sorted(ms, key=id_key)], round(least[c], 6)) for c, ms in groups.items()]
    out += [cluster for _, cluster in merged]
    out.sort(key=lambda g: (-len(g.members), id_key(g.center)))
    return out


def _rank(record: str, weight: dict[str, float]) -> tuple[float, tuple[Any, ...]]:
    """A center is the more connected record (its similarities summed); on a tie, the smaller
    id: the smaller rank."""
    return (-weight[record], id_key(record))


def _dense_merges(
    center_of: dict[str, str],
    groups: dict[str, list[str]],
    edges: list[tuple[str, str, float]],
    weight: dict[str, float],
    density: float,
) -> list[tuple[list[str], Cluster]]:
    """Center clusters (``center_of`` each record's center, ``groups`` each center's other
    members) merged where dense between them (see the module): each cluster merged, with the
    centers of the clusters it was made of."""
    between: dict[tuple[str, str], list[float]] = {}  # the pairs between two clusters, summed
    for a, b, s in edges:
        x, y = center_of.get(a), center_of.get(b)
        if x is not None and y is not None and x != y:
            found = between.setdefault((x, y) if x < y else (y, x), [0, 0.0])
            found[0] += 1
            found[1] += s
    # Only a cluster dense with another can ever merge (one dense with two clusters merged is
    # dense with one of them), so only those clusters' records are looked at again.
    dense = [
        (x, y)
        for (x, y), (count, _) in between.items()
        if count >= density * (len(groups[x]) + 1) * (len(groups[y]) + 1) - 1e-9
    ]
    if not dense:
        return []
    return _Merges(dense, groups, between, edges, weight, density).run()


class _Merges:
    """Clusters merged two at a time, the densest two first (then those whose pairs between
    them are the most similar), while two are dense between them and a record of the two is
    paired with every other: that record is the new center (the best ranked such one)."""

    def __init__(
        self,
        dense: list[tuple[str, str]],
        groups: dict[str, list[str]],
        between: dict[tuple[str, str], list[float]],
        edges: list[tuple[str, str, float]],
        weight: dict[str, float],
        density: float,
    ) -> None:
        number: dict[str, int] = {}  # the clusters that may merge, numbered
        for c in (c for xy in dense for c in xy):
            number.setdefault(c, len(number))
        self.members = {n: {c, *groups[c]} for c, n in number.items()}
        self.center = {n: c for c, n in number.items()}
        self.made_of = {n: [c] for c, n in number.items()}
        self.near: dict[str, dict[str, float]] = {r: {} for ms in self.members.values() for r in ms}
        for a, b, s in edges:
            if a in self.near and b in self.near:
                self.near[a][b] = self.near[b][a] = s
        self.rank = {r: _rank(r, weight) for r in self.near}
        self.links: dict[int, dict[int, list[float]]] = {n: {} for n in self.members}
        for (x, y), found in between.items():
            if x in number and y in number:
                self.links[number[x]][number[y]] = self.links[number[y]][number[x]] = found
        self.density = density
        self.heap: list[tuple[Any, ...]] = []

    def consider(self, x: int, y: int) -> None:
        """Queue clusters ``x`` and ``y`` if they may merge: dense between them, and a record
        of the two paired with every other one."""
        count, total = self.links[x][y]
        possible = len(self.members[x]) * len(self.members[y])
        if count < self.density * possible - 1e-9:
            return
        union = self.members[x] | self.members[y]
        ranked = sorted(union, key=self.rank.__getitem__)
        hub = next((r for r in ranked if _hub(r, union, self.near)), None)
        if hub is not None:
            ids = sorted((id_key(self.center[x]), id_key(self.center[y])))
            heapq.heappush(self.heap, (-count / possible, -total / count, ids, x, y, hub))

    def merge(self, x: int, y: int, hub: str) -> int:
        """Clusters ``x`` and ``y`` made one, centered on ``hub``: its number."""
        n = len(self.center)
        self.members[n] = self.members.pop(x) | self.members.pop(y)
        self.center[n] = hub
        self.made_of[n] = self.made_of.pop(x) + self.made_of.pop(y)
        linked = self.links.pop(x)
        for z, (count, total) in self.links.pop(y).items():
            was = linked.get(z, [0, 0.0])
            linked[z] = [was[0] + count, was[1] + total]
        for gone in (x, y):
            linked.pop(gone, None)
        self.links[n] = linked
        for z, found in linked.items():
            self.links[z].pop(x, None)
            self.links[z].pop(y, None)
            self.links[z][n] = found
        return n

    def run(self) -> list[tuple[list[str], Cluster]]:
        for x in list(self.links):
            for y in list(self.links[x]):
                if x < y:
                    self.consider(x, y)
        while self.heap:
            *_, x, y, hub = heapq.heappop(self.heap)
            if x in self.members and y in self.members:  # (else one merged already)
                n = self.merge(x, y, hub)
                for z in list(self.links[n]):
                    self.consider(n, z)
        out = []
        for n, ms in self.members.items():
            if len(self.made_of[n]) > 1:
                c = self.center[n]
                least = min(self.near[c][m] for m in ms if m != c)
                members = [c, *sorted(ms - {c}, key=id_key)]
                out.append((self.made_of[n], Cluster(c, members, round(least, 6))))
        return out


def _hub(record: str, union: set[str], near: dict[str, dict[str, float]]) -> bool:
    """Whether ``record`` is paired with every other record of ``union``."""
    paired = near[record]
    return len(paired) >= len(union) - 1 and all(m in paired for m in union if m != record)


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
