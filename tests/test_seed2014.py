"""The restaurant experiment of seed 003, reproduced against a real Solr."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from neardup import NearDupIndex, ParameterMismatch, Params
from neardup.backends.solr import SolrBackend
from neardup.candidates.documents import documents
from neardup.errors import InputError
from neardup.evaluate import score
from neardup.read.items import Record, Rejection
from neardup.read.pairs import read_pairs
from neardup.read.records import read_records
from neardup.resources import restaurants as bundled
from neardup.seed2014 import MAX_SCORED_TERMS, SeedSearcher, processor_2014, seed_report
from neardup.seed2014.experiment import PARAMS, SEED_PAIRS, check_collection, run_restaurants
from neardup.sign.text import normalize
from neardup.solr import admin
from neardup.solr.admin import connect
from neardup.solr.client import Solr

from .conftest import run_cli

RECORDS, GOLD = bundled()


def _fresh(solr: Solr, params: Params = PARAMS) -> NearDupIndex:
    solr.delete_query("*:*")
    solr.commit()
    return NearDupIndex(params, backend=SolrBackend(solr))


@pytest.fixture(scope="module")
def restaurants(solr_base: str) -> NearDupIndex:
    index = _fresh(connect(solr_base, "test_restaurants_seed"))
    stats = index.add_many(read_records(RECORDS))
    assert (stats.read, stats.indexed, stats.rejected) == (864, 864, 0)
    return index


def test_index_counts_and_fields(restaurants: NearDupIndex) -> None:
    solr = restaurants.backend.solr
    assert solr.count(fq=["-id:_neardup_meta_"]) == 864 == len(restaurants)
    proc = processor_2014(PARAMS)
    assert (proc.size, proc.num_perm, proc.hash_family, proc.canonical) == (3, 20, "xor", False)
    line = RECORDS.read_text(encoding="utf-8").splitlines()[1]  # id 2
    rid, text = line.split(" ", 1)
    doc = solr.get([rid])[0]
    content = normalize(text)
    assert doc["content"] == content
    assert doc["md5_hash"] == hashlib.md5(content.encode()).hexdigest()
    assert doc["num_words"] == len(content.split())
    assert doc["first_word"] == content.split()[0]
    assert doc["content_ng"] == proc.ngrams(content)
    assert doc["content_sg"] == [str(int(v)) for v in proc.signature(content)]
    assert len(doc["content_sg"]) == 20


def test_indexing_twice_leaves_the_same_index(restaurants: NearDupIndex) -> None:
    solr = restaurants.backend.solr
    fl = "id,content,content_sg,md5_hash,content_lsh"
    before = {d["id"]: d for d in solr.iter_docs(fl)}
    stats = restaurants.add_many(read_records(RECORDS))
    assert stats.indexed == 864
    after = {d["id"]: d for d in solr.iter_docs(fl)}
    assert after == before


def test_arts_delicatessen_finds_arts_deli(restaurants: NearDupIndex) -> None:
    searcher = SeedSearcher(restaurants)
    for method in ("shingles", "minhash"):
        found = searcher.near_dups_of("2", method, 2)
        deli = [n for n in found if n.content.startswith("arts deli ")]
        assert deli and deli[0].edit_distance == 1, (method, found)
        assert all(int(n.id) > 2 for n in found)


#: What an index with the 2014 fields has stored since they exist: the same keys, so that such
#: an index is read and reported as before.
STORED_2014 = {
    "fields_2014": True,
    "processor_2014": {
        "canonical": "off", "kind": "word", "size": 3, "num_perm": 20, "hash_family": "xor",
        "seed": 42, "normalization": "v3", "shingle_hash": "mmh3_x86_32_seed42",
        "perm_rng": "splitmix64",
    },
}  # fmt: skip


def test_the_2014_parameters_are_stored_under_their_names() -> None:
    stored = PARAMS.to_dict()
    assert {k: stored[k] for k in STORED_2014} == STORED_2014
    assert Params.from_dict({**Params().to_dict(), **STORED_2014}) == PARAMS
    changed = {**STORED_2014["processor_2014"], "hash_family": "universal"}
    with pytest.raises(ParameterMismatch, match="processor_2014.hash_family"):
        Params.from_dict({**stored, "processor_2014": changed})


def test_documents_carry_the_2014_fields() -> None:
    """Through the index's hook (neardup.extra_fields): the schema's fields, or a rejection."""
    text = "Arts Deli 12224 Ventura Blvd"
    long = Record("2", "a" * 40_000, "in.txt", 7)
    doc, rejected = documents(PARAMS, PARAMS.processor(), [Record("1", text), long])
    content = normalize(text)
    assert not isinstance(doc, Rejection) and doc.extra == {
        "md5_hash": hashlib.md5(content.encode()).hexdigest(),
        "num_words": 5, "first_word": "arts",
        "content_ng": processor_2014(PARAMS).ngrams(content),
        "content_sg": [str(int(v)) for v in processor_2014(PARAMS).signature(content)],
    }  # fmt: skip
    assert isinstance(rejected, Rejection) and (rejected.source, rejected.line) == ("in.txt", 7)
    assert "longer than Solr's limit" in rejected.reason
    plain = documents(Params(), Params().processor(), [Record("1", text), long])
    assert [d.extra for d in plain if not isinstance(d, Rejection)] == [{}, {}]


def test_the_core_asks_for_the_plugin_it_has_not_loaded() -> None:
    """The core imports nothing of the 2014 design: an index asked for its fields before the
    package is imported is refused with the import to add, never written without them."""
    code = (
        "import sys\n"
        "from neardup import NearDupIndex, Params\n"
        "assert 'neardup.seed2014' not in sys.modules\n"
        "NearDupIndex(Params(fields_2014=True))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1 and "import neardup.seed2014" in proc.stderr, proc.stderr


def test_the_2014_methods_need_their_fields(restaurants: NearDupIndex) -> None:
    with pytest.raises(ParameterMismatch, match="fields_2014"):
        NearDupIndex(Params(), backend=restaurants.backend)
    with pytest.raises(ValueError, match="Solr"):
        SeedSearcher(NearDupIndex())
    with pytest.raises(ValueError, match="Solr backend"):
        NearDupIndex(Params(fields_2014=True))


def test_report_writes_the_seed_tsv(restaurants: NearDupIndex, tmp_path: Path) -> None:
    out = tmp_path / "pairs.tsv"
    searcher = SeedSearcher(restaurants)
    pairs = seed_report(searcher, "minhash", 2, out, progress=False)
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert len(rows) == len(pairs) > 0
    assert all(len(r) == 3 and int(r[0]) < int(r[1]) and 0 <= int(r[2]) <= 2 for r in rows)
    assert [(p.id1, p.id2, str(p.edit_distance)) for p in pairs] == [tuple(r) for r in rows]
    assert all(0 < p.jaccard <= 1 for p in pairs)


def test_the_experiment_reproduces_the_seed(solr_base: str, tmp_path: Path) -> None:
    index = _fresh(connect(solr_base, "test_restaurants_exp"))
    result = run_restaurants(index, tmp_path)
    for method in SEED_PAIRS:
        entry = result["scores"][method]
        assert entry["recall"] >= 0.55, (method, entry)
        assert entry["precision"] >= 0.90, (method, entry)
        assert abs(entry["pairs"] - SEED_PAIRS[method]) <= 0.15 * SEED_PAIRS[method]
        # The TSV report scores the same as the in-memory pairs.
        again = score(read_pairs(tmp_path / f"{method}.tsv"), read_pairs(GOLD))
        assert again.true_pairs == entry["true_pairs"]
    # Its records are the two guides (the second keyed by id and source): a rerun may empty
    # the index the experiment filled.
    assert any("\x1f" in r.id for r in index.backend.records())
    check_collection(index.backend)
    # and it does: run again on the filled index (its records of the second guide could not be
    # removed by id alone, and a rerun failed on them), the same scores
    assert run_restaurants(index, tmp_path / "again")["scores"] == result["scores"]


def test_any_text_is_safe_to_search(collection: Solr) -> None:
    nasty = [
        'he said "stop" \\ now: (a) [b] {c} * ? + - ! ^ ~ && || / AND OR NOT',
        'he said "stop" \\ now: (a) [b] {c} * ? + - ! ^ ~ && || / AND OR',
        "AND OR NOT",
        "a",
    ]
    items = [Record(str(i + 1), t) for i, t in enumerate(nasty)]
    index = NearDupIndex(PARAMS, backend=SolrBackend(collection))
    assert index.add_many(items).indexed == 4
    searcher = SeedSearcher(index)
    for method in ("shingles", "minhash"):
        found = searcher.near_dups_of("1", method, 2)
        assert [n.id for n in found] == ["2"], method
        assert searcher.near_dups_of("3", method, 2) == []


def test_more_shingles_than_a_boolean_query_allows(collection: Solr) -> None:
    words = [f"w{i}" for i in range(MAX_SCORED_TERMS + 500)]
    near = words[:700] + ["changed"] + words[701:]
    items = [Record("1", " ".join(words)), Record("2", " ".join(near))]
    index = NearDupIndex(PARAMS, backend=SolrBackend(collection))
    index.add_many(items)
    searcher = SeedSearcher(index)
    found = searcher.near_dups_of("1", "shingles", 2)
    assert [(n.id, n.edit_distance) for n in found] == [("2", 1)]


def test_cli_index_report_evaluate(solr_base: str, tmp_path: Path) -> None:
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/test_restaurants_cli"}
    admin.delete_collection(connect(solr_base, "test_restaurants_cli"))  # a fresh collection
    plain = run_cli("index", str(RECORDS), "--json", env=env)
    assert plain.returncode == 0, plain.stderr
    no_fields = run_cli("report", "--method", "shingles", "--out", str(tmp_path / "x"), env=env)
    assert no_fields.returncode == 2 and "--fields-2014" not in no_fields.stderr
    assert "fields_2014=True" in no_fields.stderr
    admin.delete_collection(connect(solr_base, "test_restaurants_cli"))
    idx = run_cli("index", str(RECORDS), "--fields-2014", "--json", env=env)
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
    assert set(data) == {"shingles", "minhash", "lsh", "auto"}
    # no parameters at all, chosen from the data: more of the matches than the fixed defaults
    assert data["auto"]["true_pairs"] > data["lsh"]["true_pairs"]
    assert data["auto"]["f1"] > data["lsh"]["f1"]
    assert data["lsh"]["f1"] >= 0.90  # neardup's LSH with its documented defaults
    assert data["lsh"]["true_pairs"] > data["shingles"]["true_pairs"]
    for entry in data.values():
        assert set(entry) == {"pairs", "true_pairs", "recall", "precision", "f1"}
    assert (tmp_path / "shingles.tsv").exists() and (tmp_path / "minhash.tsv").exists()


def test_the_experiment_refuses_a_collection_it_did_not_fill(
    solr_base: str, new_collection: Callable[[str], Solr], tmp_path: Path
) -> None:
    """It empties its collection first: never one that holds someone else's documents."""
    theirs = new_collection("theirs")
    theirs.add([{"id": "precious", "content": "kept"}])
    theirs.commit()
    env = {"NEARDUP_SOLR_URL": solr_base}
    args = ("experiment", "restaurants", "--collection", theirs.collection)
    proc = run_cli(*args, "--out-dir", str(tmp_path), env=env)
    assert proc.returncode == 2, proc.stderr
    assert "will not empty" in proc.stderr and "not a neardup index" in proc.stderr
    assert [d["id"] for d in theirs.iter_docs("id")] == ["precious"]
    other = NearDupIndex(PARAMS, backend=SolrBackend(new_collection("other")))
    other.add_many([("1", "a record of someone else")])
    with pytest.raises(InputError, match="1 of its 1 records are not the experiment's"):
        check_collection(other.backend)
    tuned = NearDupIndex(Params(threshold=0.6), backend=SolrBackend(new_collection("tuned")))
    tuned.add_many([("1", "a record of someone else")])
    with pytest.raises(InputError, match="other parameters"):
        check_collection(tuned.backend)
    check_collection(SolrBackend(new_collection("empty")))  # nothing to lose


def test_the_experiment_may_empty_its_own_index(restaurants: NearDupIndex) -> None:
    check_collection(restaurants.backend)
