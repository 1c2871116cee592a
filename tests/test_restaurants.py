"""The restaurant experiment of seed 003, reproduced against a real Solr."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from neardup import datasets, evaluate
from neardup.experiment import SEED_PAIRS, run_restaurants
from neardup.indexer import Indexer
from neardup.report import seed_report
from neardup.searcher import MAX_SCORED_TERMS, SeedSearcher
from neardup.shingles import ShingleProcessor, normalize
from neardup.solr import Solr, connect

from .conftest import run_cli

RECORDS, GOLD = datasets.restaurants()


@pytest.fixture(scope="module")
def restaurants(solr_base: str) -> Solr:
    from neardup.solr import connect

    solr = connect(solr_base, "test_restaurants_seed")
    solr.delete_query("*:*")
    solr.commit()
    stats = Indexer(solr, ShingleProcessor(3, num_perm=20), progress=False).index_file(RECORDS)
    assert (stats.read, stats.indexed, stats.rejected) == (864, 864, 0)
    return solr


def test_index_counts_and_fields(restaurants: Solr) -> None:
    assert restaurants.count(fq=["-id:_neardup_meta_"]) == 864
    proc = ShingleProcessor(3, num_perm=20)
    line = RECORDS.read_text(encoding="utf-8").splitlines()[1]  # id 2
    rid, text = line.split(" ", 1)
    doc = restaurants.get([rid])[0]
    content = normalize(text)
    assert doc["content"] == content
    assert doc["md5_hash"] == hashlib.md5(content.encode()).hexdigest()
    assert doc["num_words"] == len(content.split())
    assert doc["first_word"] == content.split()[0]
    assert doc["content_ng"] == proc.ngrams(content)
    assert doc["content_sg"] == [str(int(v)) for v in proc.signature(content)]
    assert len(doc["content_sg"]) == 20


def test_indexing_twice_leaves_the_same_index(restaurants: Solr) -> None:
    before = {d["id"]: d for d in restaurants.iter_docs("id,content,content_sg,md5_hash")}
    stats = Indexer(restaurants, ShingleProcessor(3, num_perm=20), progress=False).index_file(
        RECORDS
    )
    assert stats.indexed == 864
    after = {d["id"]: d for d in restaurants.iter_docs("id,content,content_sg,md5_hash")}
    assert after == before


def test_arts_delicatessen_finds_arts_deli(restaurants: Solr) -> None:
    searcher = SeedSearcher(restaurants, ShingleProcessor(3, num_perm=20))
    for method in ("shingles", "minhash"):
        found = searcher.near_dups_of("2", method, 2)
        deli = [n for n in found if n.content.startswith("arts deli ")]
        assert deli and deli[0].edit_distance == 1, (method, found)
        assert all(int(n.id) > 2 for n in found)


def test_a_mismatched_processor_is_refused(restaurants: Solr) -> None:
    from neardup.errors import ParameterMismatch

    with pytest.raises(ParameterMismatch, match="num_perm"):
        SeedSearcher(restaurants, ShingleProcessor(3, num_perm=32))


def test_report_writes_the_seed_tsv(restaurants: Solr, tmp_path: Path) -> None:
    out = tmp_path / "pairs.tsv"
    searcher = SeedSearcher(restaurants, ShingleProcessor(3, num_perm=20))
    pairs = seed_report(searcher, "minhash", 2, out, progress=False)
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert len(rows) == len(pairs) > 0
    assert all(len(r) == 3 and int(r[0]) < int(r[1]) and 0 <= int(r[2]) <= 2 for r in rows)


def test_the_experiment_reproduces_the_seed(solr_base: str, tmp_path: Path) -> None:
    from neardup.solr import connect

    result = run_restaurants(connect(solr_base, "test_restaurants_exp"), tmp_path, progress=False)
    for method in SEED_PAIRS:
        entry = result["scores"][method]
        assert entry["recall"] >= 0.55, (method, entry)
        assert entry["precision"] >= 0.90, (method, entry)
        assert abs(entry["pairs"] - SEED_PAIRS[method]) <= 0.15 * SEED_PAIRS[method]
        # The TSV report scores the same as the in-memory pairs.
        again = evaluate.score(
            datasets.read_pairs(tmp_path / f"{method}.tsv"), datasets.read_pairs(GOLD)
        )
        assert again.true_pairs == entry["true_pairs"]


def test_any_text_is_safe_to_search(collection: Solr) -> None:
    proc = ShingleProcessor(3, num_perm=20)
    nasty = [
        'he said "stop" \\ now: (a) [b] {c} * ? + - ! ^ ~ && || / AND OR NOT',
        'he said "stop" \\ now: (a) [b] {c} * ? + - ! ^ ~ && || / AND OR',
        "AND OR NOT",
        "a",
    ]
    items = [datasets.Record(str(i + 1), t) for i, t in enumerate(nasty)]
    stats = Indexer(collection, proc, progress=False).index(items)
    assert stats.indexed == 4
    searcher = SeedSearcher(collection, proc)
    for method in ("shingles", "minhash"):
        found = searcher.near_dups_of("1", method, 2)
        assert [n.id for n in found] == ["2"], method
        assert searcher.near_dups_of("3", method, 2) == []


def test_more_shingles_than_a_boolean_query_allows(collection: Solr) -> None:
    proc = ShingleProcessor(3, num_perm=20)
    words = [f"w{i}" for i in range(MAX_SCORED_TERMS + 500)]
    near = words[:700] + ["changed"] + words[701:]
    items = [datasets.Record("1", " ".join(words)), datasets.Record("2", " ".join(near))]
    Indexer(collection, proc, progress=False).index(items)
    searcher = SeedSearcher(collection, proc)
    found = searcher.near_dups_of("1", "shingles", 2)
    assert [(n.id, n.edit_distance) for n in found] == [("2", 1)]


def test_cli_index_report_evaluate(solr_base: str, tmp_path: Path) -> None:
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/test_restaurants_cli"}
    connect(solr_base, "test_restaurants_cli").delete_collection()  # a fresh collection
    idx = run_cli("index", str(RECORDS), "--json", env=env)
    assert idx.returncode == 0, idx.stderr
    assert json.loads(idx.stdout)["indexed"] == 864
    out = tmp_path / "p.tsv"
    rep = run_cli("report", "--method", "shingles", "--max-dist", "2", "--out", str(out), env=env)
    assert rep.returncode == 0, rep.stderr
    assert "==" in rep.stdout and "arts deli" in rep.stdout
    ev = run_cli("evaluate", str(out), "--gold", str(GOLD), "--json")
    assert ev.returncode == 0
    scores = json.loads(ev.stdout)
    assert scores["recall"] >= 0.55 and scores["precision"] >= 0.9
    bad = run_cli("evaluate", str(tmp_path / "missing.tsv"), "--gold", str(GOLD))
    assert bad.returncode == 2 and "no such file" in bad.stderr


def test_cli_experiment_json(solr_base: str, tmp_path: Path) -> None:
    env = {"NEARDUP_SOLR_URL": solr_base}
    proc = run_cli("experiment", "restaurants", "--json", "--out-dir", str(tmp_path), env=env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"shingles", "minhash", "lsh"}
    assert data["lsh"]["f1"] >= 0.90  # neardup's LSH with its documented defaults
    assert data["lsh"]["true_pairs"] > data["shingles"]["true_pairs"]
    for entry in data.values():
        assert set(entry) == {"pairs", "true_pairs", "recall", "precision", "f1"}
    assert (tmp_path / "shingles.tsv").exists() and (tmp_path / "minhash.tsv").exists()
