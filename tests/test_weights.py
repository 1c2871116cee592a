"""neardup.decision.weights: the weighted link weighs down the grams that say which catalogue a
record is of (source_idf): a decoration one catalogue writes on many records."""

from __future__ import annotations

import random

import numpy as np
from scipy import sparse

from neardup import NearDupIndex
from neardup.decision.weights import source_idf
from neardup.keys import record_id
from neardup.read.items import Record

WORDS = ("love night heart fire dream rain city light dance summer river blue golden shadow "
         "ghost wild run home gone broken midnight forever sweet lonely electric").split()
NAMES = ("Anna Ben Chloe Dario Eva Finn Gina Hugo Ines Jack Kira Leo Mia Nico Olivia Pablo "
         "Rosa Sam Tara Viktor").split()


def catalogues(seed: int = 2, songs: int = 240) -> tuple[list[Record], list[Record], set[str]]:
    """Two music catalogues of the same tracks (title, artist, album, length: ``3:13`` in one,
    ``193`` in the other), few artists of many tracks each; the second writes 40% of them
    ``Title - Remastered 2011`` on ``Album (Remastered)``. The keys of the remastered pairs."""
    rng = random.Random(seed)
    artists = [f"{rng.choice(NAMES)} {rng.choice(NAMES)}son" for _ in range(25)]
    a: list[Record] = []
    b: list[Record] = []
    remastered: set[str] = set()
    seen: set[tuple[str, str]] = set()
    while len(a) < songs:
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))).title()
        artist = rng.choice(artists)
        if (title, artist) in seen:
            continue
        seen.add((title, artist))
        album = " ".join(rng.choice(WORDS) for _ in range(2)).title()
        secs = rng.randint(150, 330)
        n = len(a)
        a.append(_record(f"{n}", "a", n, {"track": title, "artists": artist, "album": album,
                                         "duration": f"{secs // 60}:{secs % 60:02d}"}))  # fmt: skip
        if rng.random() < 0.4:
            title += f" - Remastered {rng.choice([2009, 2011, 2015])}"
            album += " (Remastered)"
            remastered.add(f"{n}")
        b.append(_record(f"{n}", "b", n, {"title": title, "artist_name": artist,
                                         "album_title": album, "length": str(secs)}))  # fmt: skip
    return a, b, remastered


def _record(rid: str, source: str, n: int, fields: dict[str, str]) -> Record:
    return Record(rid, " ".join(fields.values()), source, n + 2, fields)


def test_a_decoration_one_catalogue_writes_does_not_hide_its_tracks() -> None:
    """The remastered track's own partner lost its lead over the artist's other tracks, which
    lack the decoration too: the old link found 30 of the 88 remastered pairs here (182 of
    the 240); with the decoration's grams weighed as common, 85 (237), and no false pair."""
    a, b, remastered = catalogues()
    index = NearDupIndex()
    index.add_many(a)
    index.add_many(b)
    report = index.report(mode="link")
    pairs = {(record_id(p.id1), record_id(p.id2)) for p in report.pairs}
    right = {x for x, y in pairs if x == y}
    found = len(right & remastered)
    assert found >= 0.9 * len(remastered), (found, len(remastered))
    assert len(pairs - {(x, x) for x in right}) <= 0.05 * len(pairs)
    assert "grams that one source's records hold far more often" in report.rule["similarity"]


def test_only_grams_one_source_holds_far_more_often_are_weighed_down() -> None:
    """Four grams over 40 records of two sources (20 each): held by every record of both; by
    half of ``a`` and none of ``b``; by half of ``a`` and a third as many of ``b``; by 5
    records of ``a`` only (too few to tell a source)."""
    held = np.zeros((40, 4), dtype=np.float32)
    held[:, 0] = 1
    held[:10, 1] = 1
    held[:10, 2] = 1
    held[20:24, 2] = 1
    held[:5, 3] = 1
    idf = np.full(4, 3.0)
    out, told = source_idf(idf, sparse.csr_matrix(held), ["a"] * 20 + ["b"] * 20)
    assert told == 1 and out.tolist() == [3.0, 1.0, 3.0, 3.0]
