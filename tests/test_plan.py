"""The report as one plan run by DuckDB (neardup.plan): the same pairs and counts as the
in-process report, with the cap and large buckets (coherent ones too) at work, under a memory
limit that makes DuckDB spill."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks import corpus as C
from benchmarks.scale import stream_short_records
from neardup import NearDupIndex
from neardup.errors import ArgumentError
from neardup.options import ReportOptions
from neardup.plan import DuckDB, EngineFailed
from neardup.plan.steps import id_sort_key
from neardup.resources import restaurants
from neardup.results import Report
from neardup.sign.text import sort_ids

from .conftest import run_cli

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



def test_a_repeated_text_is_starred_as_in_process() -> None:
    """1,100 copies of one text: the plan pairs each with the first copy only, as the
    in-process step does (DEFAULTS.repeated_group), with the same pairs and counts."""
    text = "usb charging cable one metre white"
    idx = NearDupIndex()
    idx.add_many([(f"c{i:04d}", text) for i in range(1100)], progress=False)
    idx.add_many([("variant", text + " x"), ("other", "red wool scarf knitted by hand")],
                 progress=False)  # fmt: skip
    planned, held = idx.report(engine=DuckDB()), idx.report(engine="memory")
    _same(planned, held)
    assert planned.identical == held.identical == 1099
    assert ("c0000", "variant") in {(p.id1, p.id2) for p in planned.pairs}


def test_a_bucket_of_thousands_is_windowed_as_in_process() -> None:
    """3,000 records that differ in one number: their buckets of more than
    DEFAULTS.repeated_group are windowed by the plan (steps.WINDOWED_PAIRS) as in process."""
    idx = NearDupIndex()
    idx.add_many([(str(i), f"replacement filter cartridge model {i}") for i in range(3000)],
                 progress=False)  # fmt: skip
    planned, held = idx.report(engine=DuckDB()), idx.report(engine="memory")
    _same(planned, held)
    assert held.candidates + held.capped < 3000 * 300  # not every pair: windowed

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


def test_link_mode_dropped_pairs_name_both_records_as_in_process() -> None:
    """The pairs the numbers check drops are written with their two records' sources: on the
    engine as in this process (hx25 finding 2: the engine named the primary's record second)."""
    lines = restaurants()[0].read_text(encoding="utf-8").splitlines()
    rows = [line.split(" ", 1) for line in lines]
    fodors = [(str(k + 1), t) for k, (i, t) in enumerate(r for r in rows if int(r[0]) <= 533)]
    zagats = [(str(k + 1), t) for k, (i, t) in enumerate(r for r in rows if int(r[0]) > 533)]
    idx = NearDupIndex()
    idx.add_many(fodors, source_name="fodors.csv", progress=False)
    idx.add_many(zagats, source_name="zagats.csv", progress=False)
    options = {"mode": "link", "similarity": "jaccard"}
    mem, duck = idx.report(**options), idx.report(**options, engine="duckdb")
    _same(mem, duck)
    dropped = [p.as_dict() for p in mem.dropped["numbers"]]
    assert len(dropped) > 10
    assert [p.as_dict() for p in duck.dropped["numbers"]] == dropped
    assert {(p["source1"], p["source2"]) for p in dropped} == {("fodors.csv", "zagats.csv")}


def test_memory_limit_spills_to_the_same_pairs(short_index: NearDupIndex) -> None:
    """40 MB is less than the plan's tables need: with no room to spill the engine fails (and
    says what to raise), with the disk it gives the in-process pairs."""
    small = DuckDB(memory_limit="40MB", threads=1)
    _same(short_index.report(), short_index.report(engine=small))
    with pytest.raises(EngineFailed, match="memory_limit 40MB, disk_limit 0KB"):
        short_index.report(engine=DuckDB(memory_limit="40MB", threads=1, disk_limit="0KB"))


def test_the_engine_gives_back_its_memory_before_the_pairs_are_read_out(
    short_index: NearDupIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verified pairs and their records' texts come into this process at the end: by then
    DuckDB holds the verified pairs only, under a limit of READ_OUT_LIMIT (at 10M documents
    the engine's share of the budget and the texts together went past the budget)."""
    from neardup.plan import duck

    said: list[tuple[str, Any]] = []
    release, batches = duck.DuckDBSession.release, duck.DuckDBSession.batches

    def spy_release(self: duck.DuckDBSession, keep: Any) -> None:
        release(self, keep)
        tables = self.column("SELECT table_name FROM information_schema.tables")
        limit = self.scalar("SELECT value FROM duckdb_settings() WHERE name = 'memory_limit'")
        said.append(("released", (sorted(tables), duck._bytes(limit))))

    def spy_batches(self: duck.DuckDBSession, query: str, size: int) -> Any:
        said.append(("read", query))
        yield from batches(self, query, size)

    monkeypatch.setattr(duck.DuckDBSession, "release", spy_release)
    monkeypatch.setattr(duck.DuckDBSession, "batches", spy_batches)
    _same(short_index.report(), short_index.report(engine=DuckDB(memory_limit="2GB")))
    steps = [what for what, _ in said]
    assert steps.count("released") == 1
    out = steps.index("released")
    assert said[out][1][0] == ["verified"] and 0 < said[out][1][1] <= duck.READ_OUT_LIMIT
    assert said[out + 1] == ("read", "SELECT * FROM verified")


def test_engine_options_are_checked() -> None:
    with pytest.raises(ArgumentError, match="engine must be one of auto, memory, duckdb, spark or"):
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
    ids += ["01", "1", "٣", "3", "03"]  # one number written several ways: ordered as text
    assert sorted(ids, key=id_sort_key) == sort_ids(ids) == sort_ids(ids[::-1])


# -- the memory budget and the engine it chooses ------------------------------------------------


def test_sizes_are_read_as_people_write_them() -> None:
    from neardup.plan.budget import parse_size

    assert parse_size("8GB") == 8 << 30 and parse_size("500mb") == 500 << 20
    assert parse_size("1.5g") == int(1.5 * (1 << 30)) and parse_size(1 << 30) == 1 << 30
    for bad in ("lots", "8 parsecs", "", True, -1):
        with pytest.raises(ArgumentError, match="memory budget"):
            parse_size(bad)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="too small: give at least 256 MB"):
        parse_size("1KB")
    with pytest.raises(ArgumentError, match="memory budget"):
        ReportOptions(memory="lots")


def test_auto_runs_in_process_while_the_budget_holds_the_estimate() -> None:
    from neardup.plan.budget import in_process_peak, place

    small = place("auto", 10_000, 60.0, "1GB")
    assert small.engine == "memory" and "within the memory budget of 1.0 GB" in small.why
    large = place("auto", 10_000_000, 60.0, "8GB")
    assert in_process_peak(10_000_000, 60.0) > 8 << 30
    assert isinstance(large.engine, DuckDB) and large.engine.memory_limit == "6144MB"
    assert "over the memory budget of 8.0 GB" in large.why and "DuckDB" in large.why
    asked = place("duckdb", 10, 60.0, "1GB")
    assert isinstance(asked.engine, DuckDB) and asked.engine.memory_limit == "768MB"
    with pytest.raises(ArgumentError, match=r"over the memory budget of 8.0 GB \(--memory\)"):
        place("memory", 10_000_000, 60.0, "8GB")
    assert place("memory", 10_000_000, 60.0, None).engine == "memory"  # no budget given


def test_a_report_past_its_budget_runs_on_duckdb_with_the_same_pairs(
    short_index: NearDupIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimate made large (as a collection past the budget has it): auto runs the plan on
    DuckDB under the budget and says why; the pairs are the in-process report's."""
    from neardup.plan import budget

    mem = short_index.report()
    assert mem.engine == "memory" and "within" in (mem.engine_why or "")
    monkeypatch.setattr(budget, "PER_RECORD", 1 << 20)
    placed = short_index.report(memory="2GB")
    assert placed.engine == "duckdb" and "over the memory budget of 2.0 GB" in placed.engine_why
    _same(mem, placed)
    with pytest.raises(ArgumentError, match="raise the budget, or let the report run on DuckDB"):
        short_index.report(memory="2GB", engine="memory")


@pytest.mark.solr
def test_cli_report_says_where_it_ran_and_refuses_a_bad_budget(
    solr_base: str, tmp_path: Path
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("1 the quick brown fox jumps over the lazy dog\n"
                   "2 the quick brown fox jumps over the lazy cat\n", encoding="utf-8")  # fmt: skip
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_budget_{random.randrange(10**9)}"
    assert run_cli("index", str(src), "--collection", name, env=env).returncode == 0
    out = tmp_path / "pairs.tsv"
    bad = run_cli("report", "--collection", name, "--out", str(out), "--memory", "lots", env=env)
    assert bad.returncode == 2 and "a memory budget is a size such as '8GB'" in bad.stderr
    assert "Traceback" not in bad.stderr and not out.exists()
    done = run_cli("report", "--collection", name, "--out", str(out), "--memory", "1GB", "-v",
                   "--json", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert counts["engine"] == "memory" and "within the memory budget of 1.0 GB" in (
        counts["engine_why"]
    )
    text = run_cli("report", "--collection", name, "--out", str(out), "-v", env=env)
    assert "engine: memory; the in-process report of 2 records needs about" in text.stderr + (
        text.stdout
    )


def test_each_stage_of_the_plan_shows_its_rows_and_what_spilled() -> None:
    from neardup.plan.driver import _Stage

    class Spilling:
        def spilled(self) -> int:
            return 3 << 20

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    with _Stage(Spilling(), "screen", 250_000, "pair", True, out) as stage:  # type: ignore[arg-type]
        stage.advance(100_000)
        stage.advance(50_000)
        assert stage.bar.n == 150_000 and stage.bar.total == 250_000
        stage.bar.refresh()
    assert "plan: screen" in out.getvalue() and "spilled 3 MB" in out.getvalue()
    hidden = Terminal()
    with _Stage(Spilling(), "screen", 10, "pair", False, hidden) as stage:  # type: ignore[arg-type]
        stage.advance(5)
    assert hidden.getvalue() == ""


def test_a_plan_with_progress_gives_the_same_pairs(short_index: NearDupIndex) -> None:
    _same(short_index.report(), short_index.report(engine="duckdb", progress=True))


def test_a_budget_of_bytes_alone_or_past_the_machine_is_said_as_such() -> None:
    """``--memory 1`` said "0 MB is too small" (a number alone is bytes); ``999TB`` was taken,
    a budget no spill can keep within."""
    from neardup.plan.budget import machine_memory, parse_size

    with pytest.raises(ArgumentError, match=r"'1' \(0 MB\) is too small.*a number alone is bytes"):
        parse_size("1")
    if machine_memory() is not None:
        with pytest.raises(ArgumentError, match=r"999\.0 TB is more than this machine's"):
            parse_size("999TB")
    assert parse_size("1GB") == 1 << 30


def _all_alike(n: int) -> list[tuple[str, str]]:
    """Records of 8-15 words from a 10-word vocabulary: every record is like every other."""
    rng = random.Random(2)
    words = "red green blue cyan black white pink gray brown gold".split()
    return [(str(i), " ".join(rng.choices(words, k=rng.randint(8, 15)))) for i in range(n)]


#: What the data choose for short records (character 3-grams, 40 bands of 3, valley above 0.3).
_CHOSEN = {"shingle_kind": "char", "shingle_size": 3, "rule": "valley", "threshold": 0.3,
           "bands": 40, "rows": 3}  # fmt: skip


def test_auto_moves_a_report_whose_candidates_overflow_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """hx20 finding 5: 5k records all alike make about 8M candidate pairs before the cap (0.5
    GB), where 4 KB a record estimated 20 MB, so auto kept them in process past a 256 MB
    budget. The band buckets, known before any pair is formed, now move the report to DuckDB;
    as many ordinary records stay in process."""
    from neardup import Params
    from neardup import index as index_module

    moved: list[Any] = []

    def planned(*args: Any, **kwargs: Any) -> Any:
        moved.append(args[-1])  # the engine
        raise RuntimeError("moved")

    monkeypatch.setattr(index_module, "decided", planned)
    alike = NearDupIndex(Params(**_CHOSEN))
    alike.add_many(_all_alike(5_000))
    with pytest.raises(RuntimeError, match="moved"):
        alike.report(memory="256MB")
    assert isinstance(moved[0], DuckDB) and moved[0].memory_limit == "256MB"
    rng = random.Random(3)
    ordinary = NearDupIndex(Params(**_CHOSEN))
    ordinary.add_many((str(i), " ".join("".join(rng.choices("abcdefghij", k=6))
                                        for _ in range(10))) for i in range(5_000))  # fmt: skip
    done = ordinary.report(memory="256MB")
    assert done.engine == "memory" and len(moved) == 1


def test_the_candidates_are_estimated_from_the_band_buckets() -> None:
    """The estimate (:mod:`neardup.candidates.estimate`) is near the pairs the buckets make
    before the cap, and the bound never below them."""
    from neardup import Params
    from neardup.candidates.buckets import band_buckets, signature_candidates
    from neardup.candidates.estimate import bound, estimated

    records = _all_alike(1_500)
    params = Params(**_CHOSEN)
    processor = params.processor()
    sigs = np.stack([processor.signature(t) for _, t in records]).astype(np.uint32)
    ids = sort_ids([i for i, _ in records])
    order = {i: n for n, (i, _) in enumerate(records)}
    sigs = sigs[[order[i] for i in ids]]
    found = signature_candidates(ids, sigs, 40, 3, 20, 100, 2)
    made = len(found) + found.capped
    buckets = band_buckets(sigs, 40, 3)
    assert bound([s for _, s in buckets]) >= made
    assert abs(estimated(buckets, len(ids), 20) - made) < 0.1 * made
