"""The report as one plan run by DuckDB (neardup.plan): the same pairs and counts as the
in-process report, with the cap and large buckets (coherent ones too) at work, under a memory
limit that makes DuckDB spill."""

from __future__ import annotations

import pytest

from benchmarks import corpus as C
from benchmarks.scale import stream_short_records
from neardup import NearDupIndex
from neardup.errors import ArgumentError
from neardup.options import ReportOptions
from neardup.plan import DuckDB, EngineFailed
from neardup.plan.steps import id_sort_key
from neardup.results import Report
from neardup.text import sort_ids

pytest.importorskip("duckdb")


def _same(a: Report, b: Report) -> None:
    """Two reports agree on every pair (ids, Jaccard, edit distance, in order) and count."""
    assert [p.as_dict() for p in a.pairs] == [p.as_dict() for p in b.pairs]
    for count in ("buckets", "large_buckets", "candidates", "capped", "cap", "verified"):
        assert getattr(a, count) == getattr(b, count), count
    assert a.threshold == b.threshold


@pytest.fixture(scope="module")
def short_index() -> NearDupIndex:
    """20k short records with a tenth near-copies, plus one cluster of 40 near-copies (its
    buckets are large and coherent at max_bucket 8: every pair shares most bands)."""
    idx = NearDupIndex()
    idx.add_many(stream_short_records(20_000), progress=False)
    base = "north harbour trading company 1187 west lakeshore boulevard suite"
    idx.add_many([(f"c{k}", f"{base} {k}") for k in range(40)], progress=False)
    return idx


def test_short_records_same_pairs_as_in_process(short_index: NearDupIndex) -> None:
    mem, duck = short_index.report(), short_index.report(engine="duckdb")
    _same(mem, duck)
    assert mem.large_buckets > 0 and len(mem.pairs) > 1_000


def test_small_cap_and_buckets_same_pairs(short_index: NearDupIndex) -> None:
    """A cap of 3 and buckets of more than 8 large: most of the cap's levels and ties are
    drawn, and the coherent cluster's pairs are found once, where they share another band."""
    options = {"cap": 3, "max_bucket": 8, "threshold": 0.3}
    mem = short_index.report(**options)
    duck = short_index.report(**options, engine="duckdb")
    _same(mem, duck)
    assert mem.capped > 1_000 and mem.large_buckets > 100
    assert sum(p.id1.startswith("c") for p in duck.pairs) > 100  # the coherent cluster's


def test_no_bound_and_no_cap_same_pairs(short_index: NearDupIndex) -> None:
    options = {"cap": None, "max_bucket": None, "threshold": 0.5}
    _same(short_index.report(**options), short_index.report(**options, engine="duckdb"))


def test_documents_same_pairs() -> None:
    corpus = C.generate(1_500, seed=3, min_words=60, max_words=200, truth="none")
    idx = NearDupIndex()
    idx.add_many(corpus.records, progress=False)
    mem, duck = idx.report(), idx.report(engine="duckdb")
    _same(mem, duck)
    assert len(mem.pairs) > 50


def test_link_mode_same_pairs() -> None:
    idx = NearDupIndex()
    records = stream_short_records(6_000)
    idx.add_many(((r.id, r.text) for r in records), source_name="left", progress=False)
    idx.add_many(
        ((r.id, r.text + " again") for r in stream_short_records(3_000, seed=0)),
        source_name="right",
        progress=False,
    )
    options = {"mode": "link", "similarity": "jaccard", "threshold": 0.6}
    mem, duck = idx.report(**options), idx.report(**options, engine="duckdb")
    _same(mem, duck)
    assert len(mem.pairs) > 100


def test_memory_limit_spills_to_the_same_pairs(short_index: NearDupIndex) -> None:
    """40 MB is less than the plan's tables need: with no room to spill the engine fails (and
    says what to raise), with the disk it gives the in-process pairs."""
    small = DuckDB(memory_limit="40MB", threads=1)
    _same(short_index.report(), short_index.report(engine=small))
    with pytest.raises(EngineFailed, match="memory_limit 40MB, disk_limit 0KB"):
        short_index.report(engine=DuckDB(memory_limit="40MB", threads=1, disk_limit="0KB"))


def test_engine_options_are_checked() -> None:
    with pytest.raises(ArgumentError, match="unknown engine 'hadoop'"):
        ReportOptions(engine="hadoop")
    with pytest.raises(ArgumentError, match="full report"):
        ReportOptions(engine="duckdb", since=3)
    with pytest.raises(ArgumentError, match="memory_limit"):
        DuckDB(memory_limit="")
    with pytest.raises(ArgumentError, match="threads"):
        DuckDB(threads=0)


def test_id_sort_key_orders_as_the_report() -> None:
    ids = ["10", "9", "0", "007a", "b", "B", "٣", "12345678901234567890123", "99", "a10", "00"]
    ids += ["é", "z", "2", "1" * 30]
    distinct = [i for i in ids if i != "00"]  # "0" and "00" are one number: any order
    assert sorted(distinct, key=id_sort_key) == sort_ids(distinct)
