"""LSH bands in Solr, all pairs, verification, neighbours and search, against a real Solr."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neardup import datasets
from neardup.allpairs import Pair, lsh_pairs, prune
from neardup.bruteforce import all_pairs
from neardup.datasets import Record
from neardup.errors import InputError, ParameterMismatch
from neardup.indexer import Indexer
from neardup.lsh import LshConfig, choose_bands, key_field
from neardup.report import clusters
from neardup.searcher import LshSearcher
from neardup.shingles import ShingleProcessor, s_curve
from neardup.solr import Solr, connect

from .conftest import counted, run_cli

RECORDS, GOLD = datasets.restaurants()


def _corpus(n_docs: int = 200, families: int = 20, seed: int = 7) -> list[Record]:
    """Random word documents, some of them edited copies of others (seeded)."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(3000)]
    docs = [" ".join(rng.choices(vocab, k=rng.randint(40, 80))) for _ in range(n_docs)]
    for f in range(families):
        words = docs[f].split()
        for _ in range(2):
            copy = list(words)
            for _ in range(max(1, len(copy) // 25)):
                copy[rng.randrange(len(copy))] = rng.choice(vocab)
            docs.append(" ".join(copy))
    return [Record(str(i + 1), d) for i, d in enumerate(docs)]


def _index(solr: Solr, records: list[Record], cfg: LshConfig | None = None) -> LshConfig:
    cfg = cfg or LshConfig()
    stats = Indexer(solr, ShingleProcessor(3), lsh=cfg, progress=False).index(records)
    assert stats.indexed == len(records)
    return cfg


def test_band_keys_are_stored_and_follow_the_s_curve(collection: Solr) -> None:
    cfg = _index(collection, _corpus(20, 2))
    b, r = choose_bands(cfg.num_perm, cfg.threshold)
    assert (cfg.bands, cfg.rows) == (b, r)
    assert s_curve(cfg.threshold, b, r) >= 0.99
    doc = collection.get(["1"])[0]
    keys = doc["content_lsh"]
    assert len(keys) == cfg.bands
    assert [k.split("_")[0] for k in keys] == [f"b{i:02d}" for i in range(cfg.bands)]
    assert keys == cfg.keys(doc["content"])
    # each band's key also in a single-valued field of its own (docValues, not stored)
    fl = ",".join(f"lsh_b{i:02d}" for i in range(cfg.bands))
    own = collection.select({"q": "id:1", "fl": fl})["response"]["docs"][0]
    assert [own[f"lsh_b{i:02d}"] for i in range(cfg.bands)] == keys


def test_a_band_key_names_its_band_field() -> None:
    keys = LshConfig().keys("12 main st springfield")
    assert [key_field(k) for k in keys] == [f"lsh_b{b:02d}" for b in range(len(keys))]
    assert key_field("b123_ff") == "lsh_b123"
    for bad in ("07_3f", "bx_3f", "b07", "content"):
        with pytest.raises(ValueError, match="not a band key"):
            key_field(bad)


def test_an_index_in_an_older_layout_is_refused_with_what_to_do() -> None:
    params = LshConfig().params()
    assert LshConfig.from_params(params) == LshConfig()
    del params["lsh.layout"]  # written before the per-band fields existed
    with pytest.raises(InputError, match="without one field per LSH band.*re-index"):
        LshConfig.from_params(params)


def test_index_parameters_are_checked(collection: Solr) -> None:
    _index(collection, _corpus(5, 1), LshConfig(threshold=0.5))
    with pytest.raises(ParameterMismatch, match="lsh.threshold"):
        _index(collection, _corpus(5, 1), LshConfig(threshold=0.8))
    with pytest.raises(ParameterMismatch, match="lsh.kind"):
        _index(collection, _corpus(5, 1), LshConfig(kind="char", size=3))


def test_all_pairs_are_verified_and_match_brute_force(collection: Solr) -> None:
    records = _corpus()
    cfg = _index(collection, records)
    with counted(collection) as requests:
        result = lsh_pairs(collection, progress=False, prune_mode="none")
    # Per band one facet request and one members query, plus a few batched fetches; never one
    # per record.
    assert len(requests) <= 2 * cfg.bands + 10 < len(records)
    sets = {r.id: cfg.shingles(r.text) for r in records}
    exact = {(a, b): j for a, b, j in all_pairs(sets, cfg.threshold)}
    found = {(p.id1, p.id2): p for p in result.pairs}
    assert len(exact) >= 40
    assert set(found) <= set(exact)  # every reported pair is a true pair
    assert len(set(found) & set(exact)) / len(exact) >= 0.99
    for key, pair in found.items():
        assert pair.jaccard == pytest.approx(exact[key], abs=1e-6)
        assert pair.jaccard >= cfg.threshold
        assert pair.edit_distance >= 0
    assert result.candidates >= len(found) and result.buckets > 0


def test_neighbors_and_search_rank_by_verified_similarity(collection: Solr) -> None:
    base = "the quick brown fox jumps over the lazy dog near the river bank today"
    words = base.split()
    records = [Record("0", base)]
    for i in range(1, 31):  # 30 variants, more than the seed's top 10
        w = list(words)
        w[i % len(w)] = f"x{i}"
        if i > 15:
            w[(i * 7) % len(w)] = f"y{i}"
        records.append(Record(str(i), " ".join(w)))
    records.append(Record("99", "an unrelated sentence about something else entirely"))
    cfg = _index(collection, records, LshConfig(threshold=0.3))
    searcher = LshSearcher(collection)
    found = searcher.neighbors("0", k=25)
    assert len(found) == 25  # no truncation at 10
    sims = [m.jaccard for m in found]
    assert sims == sorted(sims, reverse=True)
    mine = cfg.shingles(base)
    for m in found:
        theirs = cfg.shingles(m.content)
        assert m.jaccard == pytest.approx(len(mine & theirs) / len(mine | theirs), abs=1e-6)
    assert "0" not in {m.id for m in found} and "99" not in {m.id for m in found}
    text = base.replace("lazy", "sleepy")
    top = searcher.search(text, k=3)
    assert top[0].jaccard == max(m.jaccard for m in searcher.search(text, k=40))
    assert searcher.search(base, k=1)[0].id == "0"
    assert searcher.search(base, k=1)[0].jaccard == 1.0


def test_pruning_keeps_best_matches() -> None:
    pairs = [
        Pair("1", "2", 0.80, 1),  # best for both
        Pair("1", "3", 0.70, 2),  # best for 3 only
        Pair("4", "5", 0.95, 0),  # a copy: always kept
        Pair("4", "6", 0.70, 3),  # best for 6 only
        Pair("2", "7", 0.66, 4),  # best for nobody
        Pair("7", "8", 0.90, 0),
    ]
    keep = {m: {(p.id1, p.id2) for p in prune(pairs, m)} for m in ("none", "best", "mutual")}
    assert keep["none"] == {(p.id1, p.id2) for p in pairs}
    assert keep["best"] == {("1", "2"), ("1", "3"), ("4", "5"), ("4", "6"), ("7", "8")}
    assert keep["mutual"] == {("1", "2"), ("4", "5"), ("7", "8")}
    # "best" never leaves a record that had a verified match without one
    ids = lambda ps: {i for p in ps for i in p}  # noqa: E731
    assert ids(keep["best"]) == ids(keep["none"])


def test_clusters_are_connected_components() -> None:
    groups = clusters([("1", "2"), ("3", "2"), ("10", "11"), ("5", "4"), ("4", "6")])
    assert groups == [["1", "2", "3"], ["4", "5", "6"], ["10", "11"]]


def test_cli_lsh_report_clusters_and_evaluate(solr_base: str, tmp_path: Path) -> None:
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/test_lsh_cli"}
    connect(solr_base, "test_lsh_cli").delete_collection()  # a fresh collection
    assert run_cli("index", str(RECORDS), env=env).returncode == 0
    out, cl = tmp_path / "p.tsv", tmp_path / "c.txt"
    rep = run_cli(
        "report", "--method", "lsh", "--out", str(out), "--clusters", str(cl), "--json", env=env
    )
    assert rep.returncode == 0, rep.stderr
    counts = json.loads(rep.stdout)
    lines = out.read_text().splitlines()
    assert lines[0] == "id1\tid2\tjaccard\tedit_distance"
    assert len(lines) - 1 == counts["confirmed"] > 0
    assert counts["candidates"] >= counts["confirmed"] and counts["buckets"] > 0
    in_clusters = {i for line in cl.read_text().splitlines() for i in line.split("\t")}
    in_pairs = {i for line in lines[1:] for i in line.split("\t")[:2]}
    assert in_clusters == in_pairs
    ev = run_cli("evaluate", str(out), "--gold", str(GOLD), "--json")
    assert ev.returncode == 0 and json.loads(ev.stdout)["true_pairs"] > 90
    nb = run_cli("neighbors", "2", "-k", "3", "--json", env=env)
    assert nb.returncode == 0, nb.stderr
    assert json.loads(nb.stdout)["matches"][0]["id"] == "753"
    se = run_cli("search", "arts deli 12224 ventura blvd studio city", "-k", "2", "--json", env=env)
    assert json.loads(se.stdout)["matches"][0]["id"] in {"2", "753"}
    cmp = run_cli("compare", "--json", env=env)
    assert cmp.returncode == 0, cmp.stderr
    c = json.loads(cmp.stdout)
    assert c["brute_force"]["pairs"] > 0
    assert c["lsh_recall"] >= 0.99 and c["lsh_precision"] == 1.0
    missing = run_cli("neighbors", "no-such-id", env=env)
    assert missing.returncode == 2 and "no record with id" in missing.stderr
