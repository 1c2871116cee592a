"""All near-duplicate pairs of a collection, written as TSV, with the seed's console lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from .searcher import SeedSearcher


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
