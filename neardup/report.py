"""All near-duplicate pairs of a collection, written as TSV, with the seed's console lines."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from .allpairs import Pair
from .searcher import SeedSearcher, id_key


def seed_report(
    searcher: SeedSearcher,
    method: str,
    max_dist: int,
    out: Path | None = None,
    console: TextIO | None = None,
    progress: bool = True,
) -> list[tuple[str, str, int]]:
    """The seed's ``reportNearDups``: one query per record, pairs as ``docId neighborId dist``.

    ``out`` receives the seed's TSV; ``console`` the seed's lines (source, neighbours with their
    distance, ``==``).
    """
    pairs: list[tuple[str, str, int]] = []
    sources = list(searcher.sources())
    writer = open(out, "w", encoding="utf-8", newline="\n") if out else None
    say: Callable[[str], None] = (lambda s: print(s, file=console)) if console else (lambda s: None)
    try:
        for source in tqdm(
            sources,
            desc=f"{method} report",
            unit="rec",
            disable=None if progress else True,
            leave=False,
        ):
            neighbours = searcher.near_dups(source, method, max_dist)
            if not neighbours:
                continue
            say(f"{source['id']}: {source['content']}")
            for nb in neighbours:
                pairs.append((source["id"], nb.id, nb.edit_distance))
                if writer:
                    writer.write(f"{source['id']}\t{nb.id}\t{nb.edit_distance}\n")
                say(f"{nb.id}: {nb.content} ({nb.edit_distance})")
            say("==")
    finally:
        if writer:
            writer.close()
    return pairs


def write_pairs(pairs: Iterable[Pair], out: Path) -> int:
    """The LSH report: TSV with the header ``id1 id2 jaccard edit_distance``."""
    n = 0
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("id1\tid2\tjaccard\tedit_distance\n")
        for p in pairs:
            fh.write(f"{p.id1}\t{p.id2}\t{p.jaccard:.4f}\t{p.edit_distance}\n")
            n += 1
    return n


def clusters(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Connected components of the pair graph, largest first, ids in order within each."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb, key=id_key)] = min(ra, rb, key=id_key)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(find(x), []).append(x)
    out = [sorted(g, key=id_key) for g in groups.values()]
    out.sort(key=lambda g: (-len(g), id_key(g[0])))
    return out


def write_clusters(groups: list[list[str]], out: Path) -> None:
    """One cluster a line, its ids separated by tabs."""
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for g in groups:
            fh.write("\t".join(g) + "\n")
