"""Round trips of ``neighbors`` and ``search``, and their results against brute force."""

from __future__ import annotations

import pytest

from neardup.allpairs import verified_jaccard
from neardup.datasets import Record
from neardup.indexer import Indexer
from neardup.lsh import LshConfig
from neardup.searcher import LshSearcher, Match, id_key
from neardup.shingles import ShingleProcessor, normalize, word_edit_distance
from neardup.solr import Solr

from .conftest import counted

BASE = "the quick brown fox jumps over the lazy dog near the river bank today"


def family() -> list[Record]:
    """40 variants of one sentence (one or two words changed) and a few unrelated records."""
    words = BASE.split()
    records = [Record("0", BASE)]
    for i in range(1, 41):
        w = list(words)
        w[i % len(w)] = f"x{i}"
        if i > 20:
            w[(i * 7) % len(w)] = f"y{i}"
        records.append(Record(str(i), " ".join(w)))
    records += [Record(f"u{i}", f"an unrelated sentence number {i} about else") for i in range(5)]
    return records


@pytest.fixture
def indexed(collection: Solr) -> tuple[Solr, list[Record], LshConfig]:
    cfg = LshConfig(threshold=0.3)
    stats = Indexer(collection, ShingleProcessor(3), lsh=cfg, progress=False).index(family())
    assert stats.indexed == len(family())
    return collection, family(), cfg


def brute_force(
    records: list[Record], cfg: LshConfig, text: str, k: int, exclude: str | None = None
) -> tuple[list[Match], int]:
    """The matches of ``text`` computed from the records alone, and its number of candidates."""
    keys = set(cfg.keys(text))
    mine = cfg.shingles(text)
    words = normalize(text).split()
    matches, candidates = [], 0
    for r in records:
        shared = len(keys & set(cfg.keys(r.text)))
        if not shared:
            continue
        candidates += 1
        jac = verified_jaccard(mine, cfg.shingles(r.text))
        if r.id == exclude or jac is None:
            continue
        content = normalize(r.text)
        ed = word_edit_distance(words, content.split())
        matches.append(Match(r.id, content, round(jac, 6), ed, shared))
    matches.sort(key=lambda m: (-m.jaccard, m.edit_distance, id_key(m.id)))
    return matches[:k], candidates


def test_neighbors_is_two_requests_and_search_one(
    indexed: tuple[Solr, list[Record], LshConfig],
) -> None:
    solr, records, cfg = indexed
    searcher = LshSearcher(solr)
    with counted(solr) as paths:
        found = searcher.neighbors("0", k=30)
    assert paths == ["get", "select"]  # the record, then all its candidates at once
    expected, candidates = brute_force(records, cfg, BASE, 30, exclude="0")
    assert 30 < candidates < searcher.rows
    assert found == expected and len(found) == 30
    text = BASE.replace("lazy", "sleepy")
    with counted(solr) as paths:
        top = searcher.search(text, k=50)
    assert paths == ["select"]
    assert top == brute_force(records, cfg, text, 50)[0]
    with counted(solr) as paths:
        assert searcher.search("nothing like any record at all", k=5) == []
    assert paths == ["select"]


@pytest.mark.parametrize("rows", [1, 7, 41])
def test_more_candidates_than_rows_are_paged_with_the_same_results(
    indexed: tuple[Solr, list[Record], LshConfig], rows: int
) -> None:
    solr, records, cfg = indexed
    expected, candidates = brute_force(records, cfg, BASE, 30, exclude="0")
    searcher = LshSearcher(solr, rows=rows)
    with counted(solr) as paths:
        found = searcher.neighbors("0", k=30)
    assert found == expected
    # Full pages, then the first page shorter than rows (it may be empty) ends the cursor.
    assert paths == ["get"] + ["select"] * (candidates // rows + 1)


def test_iter_docs_stops_at_the_first_short_page(collection: Solr) -> None:
    ids = [f"d{i:02d}" for i in range(25)]
    collection.add([{"id": i} for i in ids])
    collection.commit()
    for rows, requests in [(5, 6), (10, 3), (24, 2), (25, 2), (26, 1), (1000, 1)]:
        with counted(collection) as paths:
            got = [d["id"] for d in collection.iter_docs("id", rows=rows)]
        assert got == ids
        assert len(paths) == requests, rows
