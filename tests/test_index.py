"""LSH bands, all pairs, verification, neighbours and search: on the memory backend and on a
real Solr, through the one front door."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from neardup import NearDupIndex, ParameterMismatch, Params, RejectedRows
from neardup import index as index_mod
from neardup.backends.base import Capability
from neardup.backends.memory import MemoryBackend
from neardup.backends.solr import SolrBackend, key_value, keys_of, value_key
from neardup.candidates.bruteforce import all_pairs
from neardup.decision.prune import prune
from neardup.errors import ArgumentError, InputError
from neardup.graph import clusters
from neardup.read.items import Record, Rejection
from neardup.resources import restaurants
from neardup.results import Pair
from neardup.sign.banding import band_keys_batch, choose_bands, key_field, s_curve
from neardup.solr import admin
from neardup.solr.client import Auth, Solr

from .conftest import counted, run_cli

RECORDS, GOLD = restaurants()
MakeIndex = Callable[..., NearDupIndex]


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


def _filled(make_index: MakeIndex, records: list[Record], params: Params | None = None):
    index = make_index(params)
    stats = index.add_many(records)
    assert stats.indexed == len(records)
    return index


def _keys(params: Params, text: str) -> list[str]:
    sig = params.processor().signatures_batch([text])
    return band_keys_batch(sig, params.bands, params.rows)[0]


def test_band_keys_are_stored_and_follow_the_s_curve(collection: Solr) -> None:
    index = NearDupIndex(backend=SolrBackend(collection))
    index.add_many(_corpus(20, 2))
    p = index.params
    b, r = choose_bands(p.num_perm, p.threshold)
    assert (p.bands, p.rows) == (b, r)
    assert s_curve(p.threshold, b, r) >= 0.99
    doc = collection.get(["1"])[0]
    assert "content_lsh" not in doc  # format 3: the keys live in the band fields alone
    keys = keys_of(doc)
    assert len(keys) == p.bands
    assert [k.split("_")[0] for k in keys] == [f"b{i:02d}" for i in range(p.bands)]
    assert keys == _keys(p, doc["raw"])
    # each band's key also in a single-valued field of its own (its hash as a long, docValues)
    fl = ",".join(f"lsh_b{i:02d}" for i in range(p.bands))
    own = collection.select({"q": "id:1", "fl": fl})["response"]["docs"][0]
    assert [own[f"lsh_b{i:02d}"] for i in range(p.bands)] == [key_value(k) for k in keys]
    assert [value_key(i, own[f"lsh_b{i:02d}"]) for i in range(p.bands)] == keys
    # the 2014 fields are only written when the parameters ask for them
    assert "content_ng" not in doc and "md5_hash" not in doc


def test_a_band_key_names_its_band_field() -> None:
    keys = _keys(Params(), "12 main st springfield")
    assert [key_field(k) for k in keys] == [f"lsh_b{b:02d}" for b in range(len(keys))]
    assert key_field("b123_ff") == "lsh_b123"
    for bad in ("07_3f", "bx_3f", "b07", "content"):
        with pytest.raises(ValueError, match="not a band key"):
            key_field(bad)


def test_a_band_key_becomes_a_long_and_back() -> None:
    keys = [k for text in ("12 main st", "a b c d e f", "") for k in _keys(Params(), text)]
    edges = ["b00_0000000000000000", "b01_7fffffffffffffff", "b02_8000000000000000",
             "b63_ffffffffffffffff", "b05_0123456789abcdef"]  # fmt: skip
    for key in keys + edges:
        value = key_value(key)
        assert -(2**63) <= value < 2**63
        assert value_key(int(key[1:3]), value) == key
        assert value_key(int(key[1:3]), str(value)) == key  # as Solr's JSON or a query gives it
    assert key_value("b02_8000000000000000") == -(2**63)
    assert key_value("b01_7fffffffffffffff") == 2**63 - 1


@pytest.mark.solr
def test_a_collection_with_string_band_fields_still_works(
    solr_base: str, new_collection: Callable[[str], Solr]
) -> None:
    """Collections made before the band fields became longs keep their string fields: the
    backend reads the schema and speaks to them as they are, with the same answers."""
    from neardup.resources import LEGACY_CONFIGSET
    from neardup.solr.local import LocalSolr

    from .conftest import IN_CI, TEST_HOME

    legacy = LocalSolr(TEST_HOME).home / "standalone" / "configsets" / LEGACY_CONFIGSET
    if not legacy.is_dir():  # a Solr given by URL or a container: not the node that keeps it
        if IN_CI:
            pytest.fail(f"CI=true: the tests' own node should serve them, not {solr_base}")
        pytest.skip("needs neardup's own test node, which keeps the configset of older cores")
    schema = (legacy / "conf" / "schema.xml").read_text(encoding="utf-8")
    assert 'name="lsh_b*" type="string"' in schema
    made = new_collection("num")
    auth = Auth(*made.session.auth) if made.session.auth else None  # the node's password
    old = Solr(made.base_url, made.collection.replace("num", "str"), auth=auth)
    old.request(
        "GET", "admin/cores", core=False, idempotent=False,
        params={"action": "CREATE", "name": old.collection, "configSet": LEGACY_CONFIGSET},
    )  # fmt: skip
    try:
        records = _corpus(120, 8)
        answers = []
        for solr in (made, old):
            backend = SolrBackend(solr)
            index = NearDupIndex(Params(threshold=0.5), backend=backend)
            index.add_many(records)
            rep = index.report()
            first = rep.pairs[0].id1
            answers.append(
                (
                    backend.numeric,
                    [(p.id1, p.id2, p.jaccard) for p in rep.pairs],
                    rep.candidates,
                    [m.id for m in index.neighbors(first, k=3)],
                    [(p.id1, p.id2) for p in index.report(since=index.batch_written).pairs],
                )
            )
        assert answers[0][0] is True and answers[1][0] is False
        assert answers[0][1:] == answers[1][1:]
        assert len(answers[0][1]) > 10
    finally:
        admin.delete_collection(old)


def test_an_index_of_another_format_is_refused_with_what_to_do() -> None:
    stored = Params().to_dict()
    assert stored["format"] == 3
    assert Params.from_dict(stored) == Params()
    assert Params.from_dict({**stored, "format": 2}) == Params()  # read as it is
    old = {k: v for k, v in stored.items() if k != "format"}  # written by neardup 0.1
    with pytest.raises(ParameterMismatch, match="another version of neardup.*re-index"):
        Params.from_dict(old)
    with pytest.raises(ParameterMismatch, match="format 4, this version reads 2 or 3"):
        Params.from_dict({**stored, "format": 4})
    stale = {**stored, "processor": {**stored["processor"], "normalization": "v0"}}
    with pytest.raises(ParameterMismatch, match="processor.normalization.*re-index"):
        Params.from_dict(stale)


@pytest.mark.solr
def test_an_index_of_format_2_keeps_its_key_strings_and_reads_both(collection: Solr) -> None:
    """An index written by the neardup before format 3 stores every record's keys as strings
    too; records added to it now are written the same way, so that neardup can still read it,
    and this one reads its records either way."""
    stored = {**Params(threshold=0.5).to_dict(), "format": 2, "chosen_from_data": False}
    backend = SolrBackend(collection)
    backend.store_params(stored)
    index = NearDupIndex(backend=backend)
    assert backend.strings
    index.add_many(_corpus(10, 2))
    doc = collection.get(["1"])[0]
    assert doc["content_lsh"] == keys_of({k: v for k, v in doc.items() if k != "content_lsh"})
    fresh = NearDupIndex(Params(threshold=0.5), backend=MemoryBackend())
    fresh.add_many(_corpus(10, 2))
    assert index.report().pairs == fresh.report().pairs
    assert backend.get("1") is not None and backend.get("1").keys == fresh.backend.get("1").keys
    assert [m.id for m in index.neighbors("1")] == [m.id for m in fresh.neighbors("1")]


@pytest.mark.solr
def test_keys_read_back_from_the_band_fields_alone(collection: Solr) -> None:
    """Format 3: no key strings are stored; every read of a record's keys (real-time get of
    an uncommitted record, a cursor over records, an incremental report) finds them in the
    band fields' docValues, the same keys as the memory backend holds."""
    backend = SolrBackend(collection)
    index = NearDupIndex(Params(threshold=0.5), backend=backend)
    memory = NearDupIndex(Params(threshold=0.5))
    assert not backend.strings
    corpus = _corpus(10, 2)
    backend.add([d for d in index.documents(corpus[:5]) if not isinstance(d, Rejection)])
    got = backend.get(corpus[0].id)  # added, not committed
    assert got is not None and got.keys == _keys(index.params, corpus[0].text)
    backend.commit()
    memory.add_many(corpus[:5])
    index.add_many(corpus[5:])
    memory.add_many(corpus[5:])
    assert "content_lsh" not in collection.get([corpus[0].id])[0]
    assert {r.id: r.keys for r in backend.records()} == {
        r.id: r.keys for r in memory.backend.records()
    }
    since = index.report(since=index.batch_written).pairs
    assert since == memory.report(since=memory.batch_written).pairs and since


def test_index_parameters_are_stored_and_checked(make_index: MakeIndex) -> None:
    index = _filled(make_index, _corpus(5, 1), Params(threshold=0.5))
    # opened again without parameters, the index brings its own
    again = NearDupIndex(backend=index.backend)
    assert again.params == Params(threshold=0.5)
    with pytest.raises(ParameterMismatch, match="threshold: index has 0.5, asked for 0.8"):
        NearDupIndex(Params(threshold=0.8), backend=index.backend)
    with pytest.raises(ParameterMismatch, match="shingle_kind"):
        NearDupIndex(
            Params(shingle_kind="char", shingle_size=3, threshold=0.5), backend=index.backend
        )
    # Some parameters given (the rest to choose): the same check, never silently dropped.
    assert NearDupIndex(backend=index.backend, given={"threshold": 0.5}).params == again.params
    with pytest.raises(ParameterMismatch, match="threshold: index has 0.5, asked for 0.8"):
        NearDupIndex(backend=index.backend, given={"threshold": 0.8})
    with pytest.raises(ArgumentError, match="not both"):
        NearDupIndex(Params(threshold=0.5), backend=index.backend, given={"threshold": 0.5})


def test_some_parameters_given_are_compared_alone_with_an_index_chosen_from_its_data() -> None:
    index = NearDupIndex()  # shingles, threshold and bands chosen from the records
    index.add_many([("1", "hello world foo bar"), ("2", "hello world foo baz")])
    stored = index.params
    # what the index has, given again: the same index (the bands are not chosen again)
    for given in ({"num_perm": stored.num_perm}, {"threshold": stored.threshold}):
        assert NearDupIndex(backend=index.backend, given=given).params == stored
    # only what was given is named, not the fields left out
    with pytest.raises(ParameterMismatch) as caught:
        NearDupIndex(backend=index.backend, given={"num_perm": 64})
    assert "num_perm: index has 128, asked for 64" in str(caught.value)
    assert "shingle_kind" not in str(caught.value) and "bands" not in str(caught.value)
    with pytest.raises(ArgumentError, match="unknown parameters: bogus"):
        NearDupIndex(backend=index.backend, given={"bogus": 1})
    # a whole Params names the defaults it asked for, and how to ask for some only
    with pytest.raises(ParameterMismatch, match=r"defaults too \(shingle_kind.*given=\{"):
        NearDupIndex(Params(num_perm=stored.num_perm), backend=index.backend)


def _levenshtein(a: list[str], b: list[str]) -> int:
    """Word insertions, deletions and substitutions from ``a`` to ``b`` (the textbook table)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def test_all_pairs_are_verified_and_match_brute_force(make_index: MakeIndex) -> None:
    records = _corpus()
    index = _filled(make_index, records)
    result = index.report(prune="none")
    p = index.params
    sets = {r.id: index.processor.shingle_set(r.text) for r in records}
    exact = {(a, b): j for a, b, j in all_pairs(sets, p.threshold)}
    found = {(q.id1, q.id2): q for q in result.pairs}
    assert len(exact) >= 40
    assert set(found) <= set(exact)  # every reported pair is a true pair
    assert len(set(found) & set(exact)) / len(exact) >= 0.99
    words = {r.id: index.processor.normalize(r.text).split() for r in records}
    for key, pair in found.items():
        assert pair.jaccard == pytest.approx(exact[key], abs=1e-6)
        assert pair.jaccard >= p.threshold
        assert pair.edit_distance == _levenshtein(words[pair.id1], words[pair.id2]), key
    assert any(pair.edit_distance > 0 for pair in found.values())
    assert result.candidates >= len(found) and result.buckets > 0
    assert result.records == len(records) == len(index)


def test_all_pairs_take_two_requests_per_band_not_one_per_record(collection: Solr) -> None:
    records = _corpus()
    index = NearDupIndex(backend=SolrBackend(collection))
    index.add_many(records)
    with counted(collection) as requests:
        index.report(prune="none")
    # Per band one facet request and one members query, plus a few batched fetches.
    assert len(requests) <= 2 * index.params.bands + 10 < len(records)


def test_neighbors_and_search_rank_by_verified_similarity(make_index: MakeIndex) -> None:
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
    index = _filled(make_index, records, Params(threshold=0.3))
    found = index.neighbors("0", k=25)
    assert len(found) == 25  # no truncation at 10
    sims = [m.jaccard for m in found]
    assert sims == sorted(sims, reverse=True)
    mine = index.processor.shingle_set(base)
    for m in found:
        theirs = index.processor.shingle_set(m.text)
        assert m.jaccard == pytest.approx(len(mine & theirs) / len(mine | theirs), abs=1e-6)
    assert "0" not in {m.id for m in found} and "99" not in {m.id for m in found}
    text = base.replace("lazy", "sleepy")
    top = index.query(text, k=3)
    assert top[0].jaccard == max(m.jaccard for m in index.query(text, k=40))
    assert index.query(base, k=1)[0].id == "0"
    assert index.query(base, k=1)[0].jaccard == 1.0
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        index.query(base, k=0)


def test_remove_leaves_no_stale_band_keys(make_index: MakeIndex) -> None:
    records = _corpus(40, 5)
    index = _filled(make_index, records)
    before = index.pairs(prune="none")
    gone = {before[0].id1, before[1].id2}
    index.remove(sorted(gone) + ["no-such-id"])
    assert len(index) == len(records) - 2
    after = index.pairs(prune="none")
    assert after == [q for q in before if not {q.id1, q.id2} & gone]
    for record_id in gone:
        assert record_id not in {
            m.id for m in index.query(next(r.text for r in records if r.id == record_id), k=50)
        }


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
    with pytest.raises(ValueError, match="unknown pruning"):
        prune(pairs, "some")


def test_clusters_are_connected_components() -> None:
    groups = clusters([("1", "2"), ("3", "2"), ("10", "11"), ("5", "4"), ("4", "6")])
    assert groups == [["1", "2", "3"], ["4", "5", "6"], ["10", "11"]]


def test_cli_lsh_report_clusters_delete_and_evaluate(solr_base: str, tmp_path: Path) -> None:
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/test_lsh_cli"}
    admin.delete_collection(admin.connect(solr_base, "test_lsh_cli"))  # a fresh collection
    assert run_cli("index", str(RECORDS), env=env).returncode == 0
    out, cl = tmp_path / "p.tsv", tmp_path / "c.txt"
    rep = run_cli(
        "report", "--method", "lsh", "--out", str(out), "--clusters", str(cl), "--json", env=env
    )
    assert rep.returncode == 0, rep.stderr
    counts = json.loads(rep.stdout)
    lines = out.read_text().splitlines()
    assert lines[0] in ("id1\tid2\tjaccard\tedit_distance",
                        "id1\tid2\tjaccard\tedit_distance\tsimilarity")  # fmt: skip
    assert len(lines) - 1 == counts["confirmed"] > 0
    assert counts["candidates"] >= counts["confirmed"] and counts["buckets"] > 0
    # Center clusters: every member is a reported pair of its cluster's center, and the
    # second column is the smallest similarity of a member to it.
    head, *rows = [line.split("\t") for line in cl.read_text().splitlines()]
    assert head == ["center", "least_similarity", "members"] and len(rows) == counts["clusters"]
    # the similarity that decided: the weighted one where the valley was read on it
    sims = {frozenset(r[:2]): float(r[4] if len(r) > 4 and r[4] else r[2])
            for r in (x.split("\t") for x in lines[1:])}  # fmt: skip
    for center, least, *members in rows:
        assert members and float(least) == min(sims[frozenset((center, m))] for m in members)
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
    # the index keeps its parameters: a flag that disagrees is an error, not garbage
    clash = run_cli("index", str(RECORDS), "--threshold", "0.8", env=env)
    assert clash.returncode == 2 and "--threshold: the index has 0.3, given 0.8" in clash.stderr
    ids = tmp_path / "ids.txt"
    ids.write_text("753\n# a comment\n\n2\n")
    de = run_cli("delete", "1", "--ids-file", str(ids), "--json", env=env)
    assert de.returncode == 0, de.stderr
    done = json.loads(de.stdout)
    assert {k: done[k] for k in ("asked", "removed", "records", "not_found")} == {
        "asked": 3, "removed": 3, "records": 861, "not_found": []}  # fmt: skip
    gone = run_cli("neighbors", "753", env=env)
    assert gone.returncode == 2


def test_delete_ids_file_that_cannot_be_read_says_why(tmp_path: Path) -> None:
    """An ids file of bytes that are not UTF-8 ended in a traceback; a directory was "no such
    file"; a pipe (<(...), /dev/stdin) was refused as "no such file" though it can be read."""
    nowhere = ("--solr-url", "http://127.0.0.1:1/solr", "--collection", "sweep_ids")
    bad = tmp_path / "ids.txt"
    bad.write_bytes(b"1\n\xff\xfe2\n")
    got = run_cli("delete", "--ids-file", str(bad), *nowhere)
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert f"{bad}:2: invalid UTF-8" in got.stderr
    got = run_cli("delete", "--ids-file", str(tmp_path), *nowhere)
    assert got.returncode == 2 and "is a directory" in got.stderr
    piped = subprocess.run(
        [sys.executable, "-m", "neardup", "delete", "--ids-file", "/dev/stdin", *nowhere],
        input="1\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "no such file" not in piped.stderr and "Traceback" not in piped.stderr
    assert "127.0.0.1:1" in piped.stderr  # read, then on to Solr (which is not there)


# -- a record is its source and its id, in Python too (issue 38, case 2) -----------------------


def _shops() -> tuple[object, object]:
    pd = pytest.importorskip("pandas")
    a = pd.DataFrame({"id": range(1, 41), "name": [f"bosch camera model {i} black" for i in
                                                   range(1, 41)]})  # fmt: skip
    b = pd.DataFrame({"sku": range(1, 41), "title": [f"bosch camera model {i} black edition"
                                                     for i in range(1, 41)]})  # fmt: skip
    return a, b


def test_two_frames_with_the_same_ids_and_no_source_are_refused(make_index: MakeIndex) -> None:
    """The second frame would replace the first row by row: refused, with the fix, and
    nothing of it stored."""
    a, b = _shops()
    idx = make_index()
    assert idx.add_frame(a, id="id").indexed == 40
    with pytest.raises(ArgumentError, match=r"already in the index.*source_name.*replace=True"):
        idx.add_frame(b, id="sku")
    assert len(idx) == 40
    assert sorted(t for _, t in idx.backend.all_texts())[0].startswith("bosch camera model 1 ")
    idx.add_frame(b, id="sku", source_name="shop2")
    assert len(idx) == 80
    pairs = idx.report(mode="link").pairs
    assert pairs and all(p.id1 == p.id2 for p in pairs)
    assert {(p.source1, p.source2) for p in pairs} == {("<frame>", "shop2")}


def test_an_id_holding_the_key_separator_or_neardups_prefix_reaches_no_record(
    make_index: MakeIndex,
) -> None:
    """``neighbors '1<U+001F>b.csv'`` (default source a.csv) answered for record 1 of b.csv, and
    ``delete`` of it removed that record; ``delete _neardup_meta_`` said "1 removed". Such ids
    are refused: no record can have them."""
    idx = make_index(Params(threshold=0.5))
    idx.add_many([("1", "hotel bel air 701 stone canyon road", "a.csv"),
                  ("2", "hotel bel-air 701 stone canyon rd", "a.csv")])  # fmt: skip
    idx.add_many([("1", "hotel bel air 701 stone canyon road la", "b.csv")])
    for bad in ("1\x1fb.csv", "_neardup_meta_"):
        with pytest.raises(ArgumentError, match="not a record's id"):
            idx.neighbors(bad)
        with pytest.raises(ArgumentError, match="not a record's id"):
            idx.remove([bad])
    assert len(idx) == 3 and idx.neighbors("1", source="b.csv")


def test_a_bad_record_after_the_first_is_rejected_not_raised() -> None:
    """One record with no text among good ones raised after the records before it were
    stored: a failed call, half written, whose fixed retry was then refused as a second
    source. It is rejected now, with its place and why, as a file's row is."""
    idx = NearDupIndex(Params(threshold=0.5))
    stats = idx.add_many([("1", "jon smith 12 main st boston"), ("2", None), (None, "x"),
                          ("3", b"bytes"), {"id": "4"}, ("5", "john smith 12 main street boston")])
    assert (stats.read, stats.indexed, stats.rejected) == (6, 2, 4)
    assert [(r.line, r.reason.split(", got")[0]) for r in stats.rejections] == [
        (2, "the text must be a string"), (3, "the id must be a string or an integer"),
        (4, "the text must be a string"),
        (5, "expected an (id, text) pair, an (id, text, source) triple or a Record"),
    ]  # fmt: skip
    assert len(idx) == 2 and idx.add_many([("2", "mary jones")]).indexed == 1


def test_dicts_strings_and_sets_are_not_unpacked_as_records() -> None:
    """A 2-key dict unpacks to its keys and a 2-character string to its letters: each would
    be a record ("id", "text") or ("a", "b"), the data lost without a word."""
    for item in ({"id": "a", "text": "hello there"}, "ab", {"a", "b"}, b"ab"):
        idx = NearDupIndex()
        with pytest.raises(ArgumentError, match="record 1: expected an"):
            idx.add_many([item])
        assert len(idx) == 0


def test_a_triple_whose_source_is_none_is_of_the_default_source() -> None:
    """``(id, text, None)`` made a record of the source "None", paired across with the
    records given as pairs, which are of the same (default) source."""
    idx = NearDupIndex(Params(threshold=0.5))
    idx.add_many([("a", "hotel bel air 701 stone canyon road"), ("b", "arts deli ventura")])
    idx.add_many([("c", "hotel bel-air 701 stone canyon rd", None)])
    assert [(p.id1, p.source1, p.id2, p.source2) for p in idx.pairs()] == [
        ("a", None, "c", None)
    ]  # fmt: skip


def test_a_triple_whose_source_is_not_a_name_is_rejected() -> None:
    """``(id, text, "")`` was stored under the default source and ``(id, text, 5)`` under the
    source "5", where ``source_name=""`` and ``source_name=5`` are refused: such rows are
    rejected with their place, as a file's bad row is."""
    idx = NearDupIndex(Params(threshold=0.5))
    stats = idx.add_many([("1", "hotel bel air 701 stone canyon road", "a.csv"),
                          ("2", "hotel bel-air 701 stone canyon rd", ""),
                          ("3", "arts deli ventura blvd", 5), ("4", "arts deli", "b\x00"),
                          ("5", "arts delicatessen ventura", " ")])  # fmt: skip
    assert (stats.read, stats.indexed, stats.rejected) == (5, 1, 4)
    assert [r.line for r in stats.rejections] == [2, 3, 4, 5]
    assert all("the source must be a non-empty string" in r.reason for r in stats.rejections)
    assert len(idx) == 1


def test_two_frames_with_their_default_index_are_refused() -> None:
    pd = pytest.importorskip("pandas")
    idx = NearDupIndex()
    idx.add_frame(pd.DataFrame({"name": ["cafe roma springfield", "blue door books"]}))
    with pytest.raises(ArgumentError, match="ids '0', '1' are"):
        idx.add_frame(pd.DataFrame({"title": ["caffe roma springfield", "blue door bookshop"]}))
    assert len(idx) == 2


def test_a_changed_record_of_the_same_source_replaces_it(make_index: MakeIndex) -> None:
    """Same source and id: the same record, never two; an unnamed source says so first."""
    idx = make_index(Params(threshold=0.5))
    idx.add_many([("2", "hotel bel air 701 stone canyon road"), ("3", "arts deli ventura")])
    with pytest.raises(ArgumentError, match="id '2' is already"):
        idx.add("2", "hotel bel-air 701 stone canyon rd")
    idx.add("2", "hotel bel-air 701 stone canyon rd", replace=True)
    idx.add_many([("2", "shop two's record")], source_name="shop2")
    idx.add_many([("2", "shop two's record, changed")], source_name="shop2")
    assert len(idx) == 3
    texts = sorted(t for _, t in idx.backend.all_texts())
    assert texts == ["arts deli ventura", "hotel bel-air 701 stone canyon rd",
                     "shop two's record, changed"]  # fmt: skip
    assert not [p for p in idx.pairs() if p.id1 == p.id2]


def test_one_call_in_many_batches_is_not_refused_its_own_records() -> None:
    idx = NearDupIndex()
    stats = idx.add_many([(str(i), f"record number {i} of many") for i in range(50)], batch_size=7)
    assert stats.indexed == 50 and len(idx) == 50
    with idx.batch(batch_size=3) as b:
        for i in range(50, 60):
            b.add(str(i), f"record number {i} of many")
    assert len(idx) == 60
    with pytest.raises(ArgumentError, match="already in the index"), idx.batch() as b:
        b.add("5", "a new text for five")
    with pytest.raises(ArgumentError, match="source_name"):
        idx.add_many([("1", "x")], source_name="")


def test_rows_a_batch_rejects_are_said_once_when_it_closes() -> None:
    """``add_many`` and ``add_frame`` say the records they reject in a :class:`RejectedRows`
    warning, but ``batch()`` said nothing: its rejections were in ``b.stats`` alone, which a
    notebook never reads (wtlib2, finding 1). Closed, it says them once, whatever number of
    batches it wrote, in add_many's words, on the caller's line; a batch that rejects nothing
    says nothing."""
    records = [("1", "acme drill rx 101"), ("2", "..."), (1, "another text"),
               ("3", "bosch saw gst 90"), ("3", "makita jigsaw 4350")]  # fmt: skip
    with pytest.warns(RejectedRows) as said_by_many:
        NearDupIndex().add_many(records)
    with pytest.warns(RejectedRows) as said:
        with NearDupIndex().batch(batch_size=1) as b:
            for record_id, text in records:
                b.add(record_id, text)  # type: ignore[arg-type]
    assert (b.stats.read, b.stats.indexed, b.stats.rejected) == (5, 2, 3)
    assert [str(w.message) for w in said] == [str(w.message) for w in said_by_many]
    assert str(said[0].message).startswith("3 of the 5 records read were rejected, not indexed")
    assert said[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", RejectedRows)
        with NearDupIndex().batch() as b:
            b.add("1", "acme drill rx 101")
        with pytest.raises(KeyError), NearDupIndex().batch() as b:  # raised: not said
            b.add("1", "...")
            raise KeyError("the caller's own error")


def test_ids_of_different_types_in_one_call_are_one_id_seen_twice() -> None:
    """``1`` and ``"1"`` are one id once made a string: in one call, the second is rejected as
    a file's repeated id is (a copy if its text is the same), so the counts add up to what the
    index holds; ``"01"`` is another id. A 100 KB id is rejected on every backend, with where."""
    idx = NearDupIndex()
    stats = idx.add_many([(1, "alpha beta gamma delta"), ("1", "epsilon zeta eta theta"),
                          ("01", "iota kappa lambda mu"), (2, "nu xi omicron pi"),
                          ("2", "nu xi omicron pi"), ("x" * 100_000, "rho sigma tau")])  # fmt: skip
    assert (stats.read, stats.indexed, stats.rejected, stats.identical) == (6, 3, 2, 1)
    assert stats.read == stats.indexed + stats.rejected + stats.identical
    assert len(idx) == stats.indexed == 3
    assert [str(r)[:50] for r in stats.rejections] == [
        "<records>:2: duplicate id, first seen at line 1 (i",
        "<records>:6: id longer than 512 bytes (id 'xxxxxxx",
    ]
    assert sorted(t for _, t in idx.backend.all_texts())[0] == "alpha beta gamma delta"
    with pytest.warns(RejectedRows, match="duplicate id"), idx.batch(source_name="b") as b:
        b.add("5", "first text of five")
        b.add(5, "second text of five")  # type: ignore[arg-type]
    assert (b.stats.indexed, b.stats.rejected) == (1, 1)


def test_signing_uses_threads_only_where_the_backend_declares_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Records are signed on every core only for a backend that declares
    ``Capability.THREADS`` (#42); else on one thread, the others left to the backend."""
    seen: list[int] = []
    real = index_mod.documents

    def spy(*args: Any) -> Any:
        seen.append(args[-1])  # the threads it signs on
        return real(*args)

    monkeypatch.setattr(index_mod, "documents", spy)
    monkeypatch.setattr(index_mod.kernel, "threads", lambda: 3)
    index = NearDupIndex(Params(threshold=0.5))
    texts = [(str(i), f"record {i} of a dozen words, {i % 7} alike") for i in range(100)]
    index.add_many(texts[:50])
    declared, seen[:] = list(seen), []
    without = index.backend.capabilities - {Capability.THREADS}
    monkeypatch.setattr(index.backend, "capabilities", without)
    index.add_many(texts[50:])
    assert set(declared) == {3} and set(seen) == {1}


def test_some_texts_reads_a_few_records_in_one_request(
    make_index: Callable[..., NearDupIndex]
) -> None:
    """What the memory budget's estimate reads: a few records' texts, not every record."""
    idx = make_index(Params(threshold=0.5))
    texts = {f"r{k}": f"record number {k} of a few words" for k in range(50)}
    idx.add_many(list(texts.items()))
    got = idx.backend.some_texts(20)
    assert len(got) == 20 and set(got) <= set(texts.values())
    assert sorted(idx.backend.some_texts(500)) == sorted(texts.values())
    solr = getattr(idx.backend, "solr", None)
    if solr is not None:
        with counted(solr) as requests:
            idx.backend.some_texts(20)
        assert requests == ["select"]


def test_the_front_door_refuses_what_it_cannot_read() -> None:
    """Values of the wrong kind are an ArgumentError naming what was given, not a TypeError or
    AttributeError from inside (found by trying the library as a new user would)."""
    with pytest.raises(ArgumentError, match="params must be a neardup.Params, got str"):
        NearDupIndex(params="word 3-grams")  # type: ignore[arg-type]
    index = NearDupIndex()
    for given in (None, 5, "1 alpha beta", b"1 alpha"):
        with pytest.raises(ArgumentError, match="records must be an iterable"):
            index.add_many(given)  # type: ignore[arg-type]
    index.add_many([("1", "alpha beta gamma")])
    with pytest.raises(ArgumentError, match="ids must be an id or an iterable of ids"):
        index.remove(None)  # type: ignore[arg-type]
    assert len(index) == 1


def test_a_closed_index_refuses_every_read_and_write_on_every_backend() -> None:
    """The memory backend kept working after ``close()`` while a DuckDB file's index failed:
    code tried in memory broke on a file. Every backend now says it was closed."""
    from neardup.errors import NeardupError

    index = NearDupIndex()
    index.add_many([("1", "blue cafe paris"), ("2", "blue cafe paris!")])
    assert len(index) == 2
    index.close()
    for use in (
        lambda: len(index),
        lambda: index.add_many([("9", "x y z")]),
        lambda: index.report(),
        lambda: index.neighbors("1"),
        lambda: index.search("blue cafe"),
        lambda: index.remove(["1"]),
    ):
        with pytest.raises(NeardupError, match="memory: this index was closed"):
            use()
    # its storage opened again by a new index is whole
    assert len(NearDupIndex(backend=index.backend)) == 2


def test_an_id_of_another_source_is_named_with_its_source_by_the_library() -> None:
    """``remove(["9"])`` returned 0 without a word and ``neighbors("9")`` said no such record,
    where "9" is a record of the second source: the command line named that source, the
    library did not."""
    index = NearDupIndex()
    index.add_many([("1", "blue cafe paris")], source_name="A")
    index.add_many([("9", "yellow submarine rome")], source_name="B")
    assert index.sources_holding(["9"]) == ["B"] and index.sources_holding(["1"]) == []
    with pytest.raises(InputError, match=r"the source B holds records with such ids \(source="):
        index.neighbors("9")
    with pytest.warns(UserWarning, match="1 of the ids are not records of 'A'; the source B"):
        assert index.remove(["9"]) == 0
    assert len(index) == 2
    assert index.remove(["9"], source="B") == 1 and len(index) == 1


def test_compare_keys_both_methods_by_source_and_id() -> None:
    """On an index of two sources, ``compare`` keyed LSH's pairs by their ids and the brute
    force's by the index's keys: 86 pairs each and "1 common", recall 0.0116."""
    from neardup.evaluate.compare import compare

    index = NearDupIndex(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    texts = [f"golden dragon {k} canal street new york {k * 7}" for k in range(30)]
    index.add_many([(str(k), t) for k, t in enumerate(texts)], source_name="a.csv")
    index.add_many([(str(k), t + " ny") for k, t in enumerate(texts)], source_name="b.csv")
    got = compare(index, threshold=0.5)
    assert got["lsh"]["pairs"] == got["brute_force"]["pairs"] > 30
    assert got["lsh_recall"] == got["lsh_precision"] == 1.0


def test_an_id_written_in_another_unicode_form_is_said_to_be_held_so() -> None:
    """``café`` typed with a combining accent found no record, and the message showed an id
    that looked like the one indexed."""
    import unicodedata

    index = NearDupIndex()
    index.add_many([("café 1", "blue cafe paris"), ("2", "blue cafe paris!")])
    typed = unicodedata.normalize("NFD", "café 1")
    with pytest.raises(InputError, match="written in another Unicode form, NFC"):
        index.neighbors(typed)
    assert [m.id for m in index.neighbors("café 1")] == ["2"]


def test_the_primary_source_is_stored_with_the_parameters_it_was_chosen_with() -> None:
    """Two first writers of one new index each took their own file for the primary source
    (records keyed by id alone) and overwrote each other's records, exit 0; once every record
    of the primary was deleted, the primary was read off another source's records, whose keys
    said otherwise: its records were unreachable and indexed again, doubled."""
    backend = MemoryBackend()
    rows = [(str(i), f"person {i} lives at {7 * i} main street") for i in range(20)]
    first, second = NearDupIndex(backend=backend), NearDupIndex(backend=backend)  # both fresh
    first.add_many(rows, source_name="a.csv")
    second.add_many([(i, t + " ny") for i, t in rows], source_name="b.csv")
    assert len(first) == 40 and second.primary_source == "a.csv"
    index = NearDupIndex(backend=backend)
    assert index.remove([i for i, _ in rows], source="a.csv") == 20 and len(index) == 20
    again = NearDupIndex(backend=backend)
    assert again.primary_source == "a.csv"
    assert again.neighbors("3", source="b.csv") is not None
    again.add_many([(i, t + " ny") for i, t in rows], source_name="b.csv", replace=True)
    assert len(again) == 20  # replaced, not doubled: no record paired with its own copy
    assert not [p for p in again.report().pairs if p.id1 == p.id2]


def test_ids_from_numpy_and_pandas_are_read_as_add_frame_reads_them() -> None:
    """From the library sweep: numpy integers were refused by add_many and neighbors ("not a
    string or an integer"); remove() of a pandas id column made float by a missing value
    looked up '1.0' and removed nothing, silently, and remove([None]) looked up 'None'."""
    import numpy as np

    index = NearDupIndex()
    ids = np.array([1, 2, 3], dtype=np.int64)
    index.add_many(zip(ids, ["alpha beta gamma delta", "alpha beta gamma delta!", "other"],
                       strict=True))  # fmt: skip
    assert sorted(r.id for r in index.backend.records()) == ["1", "2", "3"]
    assert [m.id for m in index.neighbors(np.int64(1))] == ["2"]
    assert index.remove(np.array([1.0, 2.0])) == 2 and len(index) == 1
    for bad in (None, 1.5, float("nan"), True):
        with pytest.raises(ArgumentError, match="an id is a string or an integer"):
            index.remove([bad])
    assert len(index) == 1


def test_a_closed_index_refuses_a_batch_and_a_misspelt_parameter_is_named() -> None:
    index = NearDupIndex()
    index.close()
    with pytest.raises(Exception, match="this index was closed"):
        with index.batch() as b:
            b.add("1", "a record written after close")
    with pytest.raises(Exception, match="this index was closed"):
        index.last_batch()
    with pytest.raises(ArgumentError, match="unknown parameters: treshold"):
        NearDupIndex(given={"treshold": 0.5})
    with pytest.raises(ArgumentError, match="as a dict"):
        NearDupIndex(given="threshold")  # type: ignore[arg-type]


def test_wrong_types_of_backend_and_options_are_argument_errors() -> None:
    """``NearDupIndex(backend="memory")`` and ``report(options={...})`` were AttributeErrors
    from deep inside."""
    from neardup.options import ReportOptions

    with pytest.raises(ArgumentError, match="backend must be a storage"):
        NearDupIndex(backend="memory")  # type: ignore[arg-type]
    idx = NearDupIndex()
    idx.add_many([("1", "hotel bel air"), ("2", "hotel bel air!")])
    with pytest.raises(ArgumentError, match="options must be a ReportOptions"):
        idx.report(options={"mode": "dedup"})  # type: ignore[arg-type]
    assert idx.report(options=ReportOptions(mode="dedup")).pairs


def test_compare_of_an_index_without_pairs_scores_nothing() -> None:
    """Neither method finding a pair was 'LSH recall 1.0000, precision 1.0000'."""
    from neardup.evaluate.compare import compare, format_compare

    index = NearDupIndex(Params(threshold=0.9))
    index.add_many([("1", "golden dragon canal street"), ("2", "blue door books oak avenue")])
    got = compare(index, threshold=0.9)
    assert got["lsh_recall"] is None and got["lsh_precision"] is None
    assert "Neither finds a pair at this threshold" in format_compare(got)
