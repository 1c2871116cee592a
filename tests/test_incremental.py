"""Reports of only the pairs of new records: batches, report(since=...), report --new."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.backends.duckdb_file import DuckDBBackend
from neardup.backends.solr import SolrBackend
from neardup.errors import ArgumentError
from neardup.read.items import Record
from neardup.read.records import read_records
from neardup.resources import restaurants
from neardup.solr import admin

from .conftest import run_cli

PARAMS = Params(shingle_kind="char", shingle_size=3, threshold=0.5)


def _split(seed: int = 1) -> tuple[list[Record], list[Record]]:
    records = [r for r in read_records(restaurants()[0]) if isinstance(r, Record)]
    random.Random(seed).shuffle(records)
    return records[:700], records[700:]


def _two_batches(
    make_index: Callable[..., NearDupIndex],
) -> tuple[NearDupIndex, list[Record], int, int]:
    """An index of 700 records, then 164 more: the index, the 164, and the two batches."""
    old, new = _split()
    index = make_index(PARAMS)
    index.add_many(old)
    first = index.batch_written
    index.add_many(new)
    return index, new, first, index.batch_written


def test_a_report_since_a_batch_holds_exactly_the_new_records_pairs(
    make_index: Callable[..., NearDupIndex],
) -> None:
    index, new, first, batch = _two_batches(make_index)
    assert batch > first and index.last_batch() == batch
    full = index.report()
    fresh = {r.id for r in new}
    want = [p for p in full.pairs if p.id1 in fresh or p.id2 in fresh]
    since = index.report(since=batch)
    assert since.pairs == want and len(want) > 20
    assert since.new_records == len(new) and since.since == batch
    assert since.candidates < full.candidates / 2  # only the new records' buckets
    # from the first batch on: every pair again
    assert index.report(since=first).pairs == full.pairs
    assert index.report(since=batch + 1).pairs == []


def test_a_report_since_a_batch_of_most_records_is_the_full_reports_pairs_of_them(
    make_index: Callable[..., NearDupIndex],
) -> None:
    """Most of the index new (a file indexed again): the candidates of all at once, those of
    the new records kept, instead of each new record's buckets asked for (40x slower on 20k
    records). The pairs are the full report's that hold a new record, as for a small batch."""
    new, old = _split(seed=3)  # 700 new records on 164 old ones
    index = make_index(PARAMS)
    index.add_many(old)
    index.add_many(new)
    batch = index.batch_written
    full = index.report()
    fresh = {r.id for r in new}
    want = [p for p in full.pairs if p.id1 in fresh or p.id2 in fresh]
    since = index.report(since=batch)
    assert since.pairs == want and len(want) > 50 and len(want) < len(full.pairs)
    assert since.new_records == len(new)


def test_a_report_of_new_records_says_where_its_bar_is_read_off_them(tmp_path: Path) -> None:
    """With the bar read off the data, a report of new records reads it off their pairs, not
    every record's: pairs near it may differ from a full report's, which it said nowhere
    (the docs called it exact). It says so; a bar given makes the two the same."""
    old, new = _split()
    index = NearDupIndex()  # parameters chosen from the data: the valley rule
    index.add_many(old)
    index.add_many(new)
    since = index.report(since=index.batch_written)
    assert since.decision.rule == "valley"
    assert "read off the new records' pairs" in since.rule["new"]
    assert "new" not in (index.report().rule or {})  # a full report reads every record's
    given = index.report(since=index.batch_written, threshold=0.45)
    assert "new" not in (given.rule or {})
    fresh = {r.id for r in new}
    full = index.report(threshold=0.45).pairs
    assert given.pairs == [p for p in full if p.id1 in fresh or p.id2 in fresh]
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{r.id} {r.text}\n" for r in old), encoding="utf-8")
    b.write_text("".join(f"{r.id} {r.text}\n" for r in new), encoding="utf-8")
    file = str(tmp_path / "i.duckdb")
    for f in (a, b):
        assert run_cli("index", str(f), "--index-file", file).returncode == 0
    said = run_cli("report", "--index-file", file, "--new", "--out", str(tmp_path / "p.tsv"))
    assert said.returncode == 0 and "new records: the bar is read off" in said.stdout


def test_replacing_a_record_moves_it_to_the_new_batch(
    make_index: Callable[..., NearDupIndex],
) -> None:
    index = make_index(PARAMS)
    index.add_many([("1", "arts deli 12224 ventura blvd studio city"), ("2", "hotel bel air")])
    index.add_many([("3", "arts delicatessen 12224 ventura blvd studio city")])
    b3 = index.batch_written
    index.add_many([("2", "hotel bel-air 701 stone canyon rd")], replace=True)
    assert [(p.id1, p.id2) for p in index.report(since=b3).pairs] == [("1", "3")]
    assert index.report(since=index.batch_written).new_records == 1


def _another_handle(index: NearDupIndex) -> NearDupIndex | None:
    """A new index object on the same storage (None in memory: nothing outlives the object)."""
    backend = index.backend
    if isinstance(backend, DuckDBBackend):
        return NearDupIndex(backend=DuckDBBackend(backend.path))
    if isinstance(backend, SolrBackend):
        return NearDupIndex(backend=SolrBackend(backend.solr.clone()))
    return None


def test_after_the_newest_batch_is_deleted_a_report_of_new_records_has_none(
    make_index: Callable[..., NearDupIndex],
) -> None:
    """(hostile sweep hx25, finding 5) The newest batch's records all deleted, the newest
    batch was read off the records left: the one before it, whose pairs a report of new
    records gave again as new. The index remembers the newest batch it wrote, in its storage:
    a report since it has no pair and says why."""
    index, new, first, batch = _two_batches(make_index)
    assert index.remove([r.id for r in new]) == len(new)
    assert index.batch_records(batch) == 0 and index.last_batch() == batch
    since = index.report(since=index.last_batch())
    assert since.pairs == [] and since.new_records == 0 and since.since == batch
    assert since.nothing_new is not None
    assert f"batch {batch}, the newest written, holds no record now" in since.nothing_new
    assert since.counts()["nothing_new"] == since.nothing_new
    assert index.report(since=first).nothing_new is None and index.report().nothing_new is None
    other = _another_handle(index)
    if other is not None:  # kept with the records, not by the object that wrote them
        assert other.last_batch() == batch
    index.add_many([("x1", "arts deli 12224 ventura blvd studio city")])
    assert index.last_batch() == index.batch_written > batch


def test_since_must_be_a_batch_number() -> None:
    index = NearDupIndex(PARAMS)
    with pytest.raises(ArgumentError, match="since must be an integer >= 0"):
        index.report(since="yesterday")  # type: ignore[arg-type]
    assert index.last_batch() is None


@pytest.mark.solr
def test_cli_report_new(solr_base: str, tmp_path: Path) -> None:
    old, new = _split(2)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{r.id} {r.text}\n" for r in old), encoding="utf-8")
    b.write_text("".join(f"{r.id} {r.text}\n" for r in new), encoding="utf-8")
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_incremental_{random.randrange(10**9)}"
    flags = ["--collection", name, "--shingle-kind", "char", "--threshold", "0.5", "--json"]
    try:
        one = run_cli("index", str(a), *flags, env=env)
        assert one.returncode == 0, one.stderr
        two = run_cli("index", str(b), *flags, env=env)
        assert two.returncode == 0, two.stderr
        batch = json.loads(two.stdout)["batch"]
        assert batch > json.loads(one.stdout)["batch"]
        out_new, out_all = tmp_path / "new.tsv", tmp_path / "all.tsv"
        rep = run_cli("report", "--collection", name, "--new", "--out", str(out_new), "--json",
                      env=env)  # fmt: skip
        assert rep.returncode == 0, rep.stderr
        counts = json.loads(rep.stdout)
        assert counts["since"] == batch and counts["new_records"] == len(new)
        full = run_cli("report", "--collection", name, "--out", str(out_all), env=env)
        assert full.returncode == 0, full.stderr
        fresh = {r.id for r in new}
        every = out_all.read_text().splitlines()[1:]
        mine = out_new.read_text().splitlines()[1:]
        assert mine == [ln for ln in every if set(ln.split("\t")[:2]) & fresh] and mine
        since = run_cli("report", "--collection", name, "--since", str(batch), "--out",
                        str(tmp_path / "s.tsv"), env=env)  # fmt: skip
        assert since.returncode == 0 and (tmp_path / "s.tsv").read_text().splitlines()[1:] == mine
        # a batch no record is of (mistyped) was read as "since then": another set of records
        typo = run_cli("report", "--collection", name, "--since", str(batch - 1), "--out",
                       str(tmp_path / "t.tsv"), env=env)  # fmt: skip
        assert typo.returncode == 2 and not (tmp_path / "t.tsv").exists()
        assert f"--since {batch - 1}: no record of that batch is in" in typo.stderr
        assert f"the latest batch is {batch};" in typo.stderr
        bad = run_cli("report", "--collection", name, "--new", "--method", "shingles", "--out",
                      str(tmp_path / "x.tsv"), env=env)  # fmt: skip
        assert bad.returncode == 2 and "--method lsh" in bad.stderr
    finally:
        admin.delete_collection(admin.connect(solr_base, name))


@pytest.mark.parametrize("where", ["duckdb", pytest.param("solr", marks=pytest.mark.solr)])
def test_cli_report_new_after_the_newest_batch_was_deleted(
    where: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """(hostile sweep hx25, finding 5) 'report --new' after every record of the newest batch
    was deleted wrote the pairs of the batch before it again, as new, exit 0, with nothing
    said; '--since' that batch was refused as a batch never written."""
    old, new = _split()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(f"{r.id} {r.text}\n" for r in old), encoding="utf-8")
    b.write_text("".join(f"{r.id} {r.text}\n" for r in new), encoding="utf-8")
    env: dict[str, str] = {}
    flags = ["--index-file", str(tmp_path / "x.duckdb")]
    if where == "solr":
        base = request.getfixturevalue("solr_base")
        name = f"test_incremental_{random.randrange(10**9)}"
        env, flags = {"NEARDUP_SOLR_URL": base}, ["--collection", name]
        request.addfinalizer(lambda: admin.delete_collection(admin.connect(base, name)))
    made = ["--shingle-kind", "char", "--threshold", "0.5"]
    assert run_cli("index", str(a), *flags, *made, env=env).returncode == 0
    first = run_cli("report", *flags, "--new", "--out", str(tmp_path / "a.tsv"), env=env)
    assert first.returncode == 0 and len((tmp_path / "a.tsv").read_text().splitlines()) > 2
    two = run_cli("index", str(b), *flags, "--json", env=env)
    assert two.returncode == 0, two.stderr
    batch = json.loads(two.stdout)["batch"]
    gone = run_cli("delete", *(r.id for r in new), "--source", str(b), *flags, env=env)
    assert gone.returncode == 0, gone.stderr
    out = tmp_path / "new.tsv"
    rep = run_cli("report", *flags, "--new", "--out", str(out), env=env)
    assert rep.returncode == 0, rep.stderr
    assert len(out.read_text().splitlines()) == 1  # the header: no pair is new
    said = f"batch {batch}, the newest written, holds no record now"
    assert said in rep.stdout and "nothing new to report" in rep.stdout
    rep = run_cli("report", *flags, "--new", "--out", str(out), "--json", env=env)
    counts = json.loads(rep.stdout)
    assert counts["since"] == batch and counts["confirmed"] == counts["new_records"] == 0
    assert said in counts["nothing_new"]
    since = run_cli("report", *flags, "--since", str(batch), "--out", str(tmp_path / "s.tsv"),
                    env=env)  # fmt: skip
    assert since.returncode == 2 and not (tmp_path / "s.tsv").exists()
    assert f"--since {batch}: no record of that batch is in" in since.stderr
    assert "its records were deleted" in since.stderr
