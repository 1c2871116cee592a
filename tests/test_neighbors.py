"""Round trips of ``neighbors`` and ``query`` on both backends, against brute force, and the
number of Solr requests they take."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from neardup import Match, NearDupIndex, Params
from neardup.backends.solr import SolrBackend
from neardup.candidates.verify import verified_jaccard
from neardup.keys import id_key
from neardup.read.items import Record
from neardup.sign.banding import band_keys_batch
from neardup.sign.text import normalize, word_edit_distance
from neardup.solr.client import Solr

from .conftest import counted, run_cli

BASE = "the quick brown fox jumps over the lazy dog near the river bank today"
PARAMS = Params(threshold=0.3)


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


def keys(text: str) -> set[str]:
    sig = PARAMS.processor().signatures_batch([text])
    return set(band_keys_batch(sig, PARAMS.bands, PARAMS.rows)[0])


def brute_force(text: str, k: int, exclude: str | None = None) -> tuple[list[Match], int]:
    """The matches of ``text`` computed from the records alone, and its number of candidates."""
    proc = PARAMS.processor()
    mine_keys, mine = keys(text), proc.shingle_set(text)
    words = normalize(text).split()
    matches, candidates = [], 0
    for r in family():
        shared = len(mine_keys & keys(r.text))
        if not shared:
            continue
        candidates += 1
        jac = verified_jaccard(mine, proc.shingle_set(r.text))
        if r.id == exclude or jac is None:
            continue
        ed = word_edit_distance(words, normalize(r.text).split())
        matches.append(Match(r.id, r.text, round(jac, 6), ed, shared))
    matches.sort(key=lambda m: (-m.jaccard, m.edit_distance, id_key(m.id)))
    return matches[:k], candidates


def test_neighbors_and_query_equal_brute_force(make_index: Callable[..., NearDupIndex]) -> None:
    index = make_index(PARAMS)
    assert index.add_many(family()).indexed == len(family())
    expected, candidates = brute_force(BASE, 30, exclude="0")
    assert candidates > 30
    assert index.neighbors("0", k=30) == expected
    text = BASE.replace("lazy", "sleepy")
    assert index.query(text, k=50) == brute_force(text, 50)[0]
    assert index.query("nothing like any record at all", k=5) == []


@pytest.fixture
def indexed(collection: Solr) -> NearDupIndex:
    index = NearDupIndex(PARAMS, backend=SolrBackend(collection))
    assert index.add_many(family()).indexed == len(family())
    return index


def test_neighbors_is_two_requests_and_query_one(indexed: NearDupIndex) -> None:
    solr = indexed.backend.solr
    with counted(solr) as paths:
        found = indexed.neighbors("0", k=30)
    assert paths == ["get", "select"]  # the record, then all its candidates at once
    assert found == brute_force(BASE, 30, exclude="0")[0]
    with counted(solr) as paths:
        indexed.query(BASE.replace("lazy", "sleepy"), k=50)
    assert paths == ["select"]
    with counted(solr) as paths:
        assert indexed.query("nothing like any record at all", k=5) == []
    assert paths == ["select"]


@pytest.mark.parametrize("rows", [1, 7, 41])
def test_more_candidates_than_rows_are_paged_with_the_same_results(
    indexed: NearDupIndex, rows: int
) -> None:
    expected, candidates = brute_force(BASE, 30, exclude="0")
    index = NearDupIndex(backend=SolrBackend(indexed.backend.solr, candidate_rows=rows))
    with counted(index.backend.solr) as paths:
        assert index.backend.numeric  # the band fields' type: read once, when first needed
    assert len(paths) == 1 and paths[0].startswith("schema/dynamicfields/")
    # an index opened on stored records asks once whether they are of one source (then the
    # primary's records go unnamed, as in a report): counted apart, with the primary
    with counted(index.backend.solr) as paths:
        assert not index._holds_another_source(index.primary_source or "")
    assert 1 <= len(paths) <= 4
    with counted(index.backend.solr) as paths:
        found = index.neighbors("0", k=30)
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


# -- a record is its source and its id (issue 38, case 4) -------------------------------------


@pytest.mark.solr
def test_cli_neighbors_and_delete_reach_every_source(solr_base: str, tmp_path: Path) -> None:
    """Two files numbering their rows from 1: ``--source`` names the second one's records,
    and an id only another source holds is an error that names it, never '0 removed'."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,name\n1,cafe roma springfield\n2,blue door books shelbyville\n"
                 "3,golden dragon noodle house\n", encoding="utf-8")  # fmt: skip
    b.write_text("id,title\n1,golden dragon noodle house downtown\n2,caffe roma springfield\n"
                 "7,blue door bookshop shelbyville\n", encoding="utf-8")  # fmt: skip
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_sources_{random.randrange(10**9)}"
    flags = ["--collection", name, "--shingle-kind", "char", "--threshold", "0.3"]
    for path in (a, b):
        done = run_cli("index", str(path), *flags, env=env)
        assert done.returncode == 0, done.stderr
    near = run_cli("neighbors", "1", "--source", str(b), "--collection", name, "--json", env=env)
    assert near.returncode == 0, near.stderr
    found = json.loads(near.stdout)["matches"]
    assert found and found[0]["id"] == "3" and "golden dragon" in found[0]["text"]
    assert found[0]["source"] == str(a)  # the match is a.csv's 3, not b.csv's
    text = run_cli("neighbors", "1", "--source", str(b), "--collection", name, env=env).stdout
    assert f"3 ({a}): golden dragon" in text
    plain = run_cli("neighbors", "1", "--collection", name, "--json", env=env)
    assert json.loads(plain.stdout)["matches"][0]["id"] == "2"  # a.csv's 1 is cafe roma
    # --json names every match's source, the primary's too (null could be either file's)
    assert {m["source"] for m in json.loads(plain.stdout)["matches"]} <= {str(a), str(b)}
    # in words too: a.csv's 1 and its matches said with their file, the collection holding two
    said = run_cli("neighbors", "1", "--collection", name, env=env).stdout
    assert f"most similar to 1 of {a} " in said, said
    assert f"2 ({b}): caffe roma" in said, said
    first = run_cli("neighbors", "2", "--collection", name, "--json", "-k", "1", env=env)
    assert json.loads(first.stdout)["matches"] and all(
        m["source"] in (str(a), str(b)) for m in json.loads(first.stdout)["matches"]
    )
    none = run_cli("neighbors", "7", "--collection", name, env=env)
    assert none.returncode == 2 and f"(--source {b} names those)" in none.stderr, none.stderr
    assert none.stderr.count("names those") == 1  # the library's hint is not said twice
    # a bad --source is said alone: not followed by "--source <another file> names those"
    empty = run_cli("neighbors", "1", "--source", "", "--collection", name, env=env)
    assert empty.returncode == 2 and "names those" not in empty.stderr, empty.stderr
    gone = run_cli("delete", "7", "--collection", name, "--json", env=env)
    assert gone.returncode == 1 and json.loads(gone.stdout)["not_found"] == ["7"]
    assert f"--source {b}" in gone.stderr or f"--source {b}" in gone.stdout
    done = run_cli("delete", "7", "1", "--source", str(b), "--collection", name, "--json", env=env)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert (counts["removed"], counts["records"]) == (2, 4)
    left = run_cli("neighbors", "1", "--collection", name, "--json", env=env)
    assert left.returncode == 0  # a.csv's record 1 stays


def test_neighbors_and_remove_take_a_source() -> None:
    idx = NearDupIndex(PARAMS)
    idx.add_many([("1", BASE), ("2", "an unrelated sentence about else")], source_name="a")
    idx.add_many([("1", BASE.replace("fox", "cat")), ("2", "other")], source_name="b")
    # the record asked about is of b: every match names its source, the primary's too (it
    # was None there, and "a" in a report's pairs)
    assert [(m.id, m.source) for m in idx.neighbors("1", source="b")][:1] == [("1", "a")]
    assert [(m.id, m.source) for m in idx.neighbors("1")][:1] == [("1", "b")]
    assert idx.clusters(mode="link") == [[("a", "1"), ("b", "1")]]
    assert idx.remove(["1", "9"], source="b") == 1
    assert len(idx) == 3 and idx.neighbors("1") == []


def test_query_and_search_name_the_primary_source_wherever_another_is_held() -> None:
    """query() and search() named a match's source only where another match of the same
    answer was of another source: with two sources both holding an id 1, one record came back
    as ('1', None) or ('1', 'a') by what else was found. Named wherever the index holds
    another source; an index of one source names none, as its report does."""
    idx = NearDupIndex()
    idx.add_many([("1", "Bosch cordless drill RL-1299 18V"), ("2", "Philips shaver S5000")],
                 source_name="a")  # fmt: skip
    idx.add_many([("1", "Dell XPS 13 notebook"), ("2", "Philips S5000 shaver")], source_name="b")
    assert [(m.id, m.source) for m in idx.query("bosch cordless drill RL-1299")] == [("1", "a")]
    assert [(m.id, m.source) for m in idx.search("bosch cordless drill RL-1299")] == [("1", "a")]
    assert {(m.id, m.source) for m in idx.search("philips shaver")} == {("2", "a"), ("2", "b")}
    assert [(m.id, m.source) for m in idx.neighbors("2", source="b")] == [("2", "a")]
    one = NearDupIndex()
    one.add_many([("1", "Philips shaver S5000"), ("2", "Philips S5000 shaver")])
    assert {m.source for m in one.query("philips shaver")} == {None}


def test_one_id_given_alone_is_one_record() -> None:
    """``remove("12")`` removes the record 12, not the records 1 and 2."""
    index = NearDupIndex()
    index.add_many([("1", "alpha beta gamma"), ("2", "delta epsilon"), ("12", "zeta eta theta")])
    assert index.remove("12") == 1
    assert sorted(index.backend.sources([index.key(i) for i in ("1", "2", "12")])) == [
        index.key("1"), index.key("2"),
    ]
    assert index.remove(2) == 1 and len(index) == 1


def test_search_in_words_names_the_source_in_an_index_file_of_two(tmp_path: Path) -> None:
    """Two files both holding a record 3 in one index file: a lone match of the first
    file's was printed '3:', which names a record of either."""
    a, b = tmp_path / "sa.csv", tmp_path / "sb.csv"
    a.write_text("id,text\n3,Hotel Bel Air Stone Canyon\n4,Arts Deli Ventura\n", encoding="utf-8")
    b.write_text("id,text\n3,Philips shaver S5000 series\n", encoding="utf-8")
    index = tmp_path / "two.duckdb"
    for path in (a, b):
        done = run_cli("index", str(path), "--index-file", str(index))
        assert done.returncode == 0, done.stderr
    found = run_cli("search", "hotel bel air stone canyon", "--index-file", str(index))
    assert found.returncode == 0 and f"3 ({a}): Hotel Bel Air" in found.stdout, found.stdout


def test_the_memory_backend_counts_each_source_as_records_come_and_go() -> None:
    """MemoryBackend.source_records is kept as records are written, rewritten and deleted (a
    search asks it each time, and counting every record's source was a scan a search)."""
    idx = NearDupIndex()
    idx.add_many([("1", "red wool scarf"), ("2", "blue cotton shirt"), ("3", "green hat")],
                 source_name="a", progress=False)  # fmt: skip
    idx.add_many([("1", "red wool scarf"), ("2", "grey socks")], source_name="b", progress=False)
    idx.add_many([("1", "red wool scarf knitted")], source_name="a", progress=False)  # again
    backend = idx.backend
    assert (backend.source_records("a"), backend.source_records("b")) == (3, 2)
    idx.remove(["3"], source="a")
    assert (backend.source_records("a"), backend.source_records("b")) == (2, 2)
    assert backend.source_records("c") == 0
