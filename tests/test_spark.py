"""The report as one plan run by Spark (neardup.plan.spark) in local mode with two executor
threads: the same pairs and counts as DuckDB and the in-process report, with the cap, the
large buckets (a coherent one too), the screen and link mode at work. Skipped without Java,
and without pyspark except with CI=true (make test installs it: a skip would hide it)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.scale import stream_short_records
from neardup import NearDupIndex
from neardup.errors import ArgumentError
from neardup.options import ReportOptions
from neardup.plan import Spark, steps
from neardup.plan.spark import spark_statement

from .conftest import IN_CI, run_cli
from .test_plan import _same

pytest.importorskip("duckdb")


def _needs_spark() -> None:
    """Skip (fail in CI) without pyspark or Java."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        message = "the spark engine needs pyspark: pip install 'neardup[spark]'"
        if IN_CI:  # make test installs it
            pytest.fail(f"CI=true: {message}", pytrace=False)
        pytest.skip(message)
    if shutil.which("java") is None:
        pytest.skip("the spark engine needs Java 17 or later")


@pytest.fixture(scope="module")
def spark() -> Iterator[Spark]:
    _needs_spark()
    yield Spark(master="local[2]")


@pytest.fixture(scope="module")
def short_index() -> NearDupIndex:
    """4k short records with a tenth near-copies, plus one cluster of 40 near-copies (its
    buckets are large and coherent at max_bucket 8: every pair shares most bands)."""
    idx = NearDupIndex()
    idx.add_many(stream_short_records(4_000), progress=False)
    base = "north harbour trading company 1187 west lakeshore boulevard suite"
    idx.add_many([(f"c{k}", f"{base} {k}") for k in range(40)], progress=False)
    return idx


def test_spark_gives_the_pairs_of_duckdb_and_memory(
    short_index: NearDupIndex, spark: Spark
) -> None:
    """A cap of 3 and buckets of more than 8 large: the cap's levels and ties are drawn, the
    coherent cluster's pairs found once; a low threshold makes the screen run."""
    options = {"cap": 3, "max_bucket": 8, "threshold": 0.3}
    mem = short_index.report(**options)
    duck = short_index.report(**options, engine="duckdb")
    on_spark = short_index.report(**options, engine=spark)
    _same(mem, duck)
    _same(mem, on_spark)
    assert mem.capped > 100 and mem.large_buckets > 10 and len(mem.pairs) > 300
    assert sum(p.id1.startswith("c") for p in on_spark.pairs) > 100  # the coherent cluster's


def test_spark_link_mode_same_pairs(spark: Spark) -> None:
    idx = NearDupIndex()
    idx.add_many(((r.id, r.text) for r in stream_short_records(2_000)), source_name="left",
                 progress=False)  # fmt: skip
    idx.add_many(
        ((r.id, r.text + " again") for r in stream_short_records(1_000, seed=0)),
        source_name="right",
        progress=False,
    )
    options = {"mode": "link", "similarity": "jaccard", "threshold": 0.6}
    mem, on_spark = idx.report(**options), idx.report(**options, engine=spark)
    _same(mem, on_spark)
    assert len(mem.pairs) > 100


def test_declared_tables_get_spark_types() -> None:
    statements = [spark_statement(s) for s in steps.sql(steps.CREATE_INPUT)]
    assert statements[0].endswith("USING parquet") and "hashes ARRAY<BIGINT>" in statements[0]
    assert "key BIGINT" in statements[1] and "UBIGINT" not in statements[1]
    query = "CREATE TABLE x AS SELECT a FROM y"
    assert spark_statement(query) == query


def test_spark_options_are_checked() -> None:
    assert ReportOptions(engine="spark").engine == "spark"
    with pytest.raises(ArgumentError, match="spark engine makes the full report"):
        ReportOptions(engine=Spark(), since=3)
    with pytest.raises(ArgumentError, match="master"):
        Spark(master="")
    with pytest.raises(ArgumentError, match="memory"):
        Spark(memory="")
    with pytest.raises(ArgumentError, match="conf"):
        Spark(conf={"spark.executor.cores": 2})  # type: ignore[dict-item]


def test_spark_master_needs_the_spark_engine() -> None:
    done = run_cli("report", "--out", "-", "--spark-master", "local[2]")
    assert done.returncode == 2
    assert "--spark-master says where Spark runs: use it with --engine spark" in done.stderr


def test_spark_leaves_no_warehouse_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spark's default warehouse is ./spark-warehouse: a local engine points it at a temporary
    folder, so a report leaves nothing where the user runs it."""
    monkeypatch.chdir(tmp_path)
    for local_dir in (None, str(tmp_path / "scratch")):
        where = Spark(master="local[2]").settings(local_dir)["spark.sql.warehouse.dir"]
        assert not where.startswith(str(tmp_path) + "/spark-warehouse")
        assert where.endswith("neardup-spark-warehouse")


def test_spark_stars_a_repeated_text_as_duckdb(spark: Spark) -> None:
    """The repeated-group step's SQL (steps.REPEATS, UNREPEAT) runs on Spark too: 1,100 copies
    of one text, each paired with the first copy only, the pairs of DuckDB."""
    text = "usb charging cable one metre white"
    idx = NearDupIndex()
    idx.add_many([(f"c{i:04d}", text) for i in range(1100)], progress=False)
    idx.add_many([("variant", text + " x")], progress=False)
    on_spark, on_duckdb = idx.report(engine=spark), idx.report(engine="duckdb")
    _same(on_spark, on_duckdb)
    assert on_spark.identical == on_duckdb.identical == 1099


def test_spark_windows_a_bucket_of_thousands_as_duckdb(spark: Spark) -> None:
    """The windowed step's SQL (steps.WINDOWED_PAIRS: next members joined by rank through the
    ``offsets`` table, another shared band by a join) runs on Spark too: 3,000 records that
    differ in one number, the pairs of DuckDB and of the in-process report."""
    idx = NearDupIndex()
    idx.add_many([(str(i), f"replacement filter cartridge model {i}") for i in range(3000)],
                 progress=False)  # fmt: skip
    on_spark, on_duckdb = idx.report(engine=spark), idx.report(engine="duckdb")
    _same(on_spark, on_duckdb)
    _same(on_spark, idx.report(engine="memory"))
    assert len(on_spark.pairs) > 1_000


def test_local_threads_read_every_local_master() -> None:
    """The shuffle partitions of a local engine follow its task threads, read off the master
    in each of Spark's spellings (a local cluster's were refused as a number before)."""
    from neardup.plan.spark import local_threads

    assert [local_threads(m) for m in ("local", "local[3]", "local[3,2]")] == [1, 3, 3]
    assert local_threads("local-cluster[2,1,1024]") == 2
    assert local_threads("local-cluster[3,2,512]") == 6
    assert local_threads("local[*]") == local_threads("local[*,4]") >= 1
    settings = Spark(master="local-cluster[2,1,1024]").settings(None)
    assert settings["spark.sql.shuffle.partitions"] == "4"


#: A child process: 3k short records reported by DuckDB and by Spark on a local cluster of two
#: worker processes (one executor JVM each), and how many executors Spark had.
TWO_EXECUTORS = """
import json, sys
from benchmarks.scale import stream_short_records
from neardup import NearDupIndex
from neardup.plan import Spark
idx = NearDupIndex()
idx.add_many(stream_short_records(3_000), progress=False)
duck = idx.report(engine="duckdb", cap=3, threshold=0.3)
spark = idx.report(engine=Spark(master="local-cluster[2,1,1024]"), cap=3, threshold=0.3)
from pyspark.sql import SparkSession
sc = SparkSession.getActiveSession().sparkContext
ids = sc._jsc.sc().getExecutorIds()  # the executors', the driver apart
print(json.dumps({
    "executors": sorted(ids.apply(k) for k in range(ids.size())),
    "same": [(p.id1, p.id2, p.jaccard) for p in duck.pairs]
            == [(p.id1, p.id2, p.jaccard) for p in spark.pairs],
    "pairs": len(spark.pairs), "candidates": [duck.candidates, spark.candidates],
}))
"""


def test_spark_on_two_executor_processes_gives_duckdbs_pairs() -> None:
    """``local-cluster[2,1,1024]``: two workers, each starting an executor JVM of its own
    (with the pip package's Spark), the plan's tasks and the Python functions run there; the
    pairs are DuckDB's. A process of its own: one process runs one Spark master."""
    import json
    import subprocess
    import sys

    _needs_spark()
    from .conftest import REPO

    done = subprocess.run([sys.executable, "-c", TWO_EXECUTORS], capture_output=True,
                          text=True, cwd=str(REPO), timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["same"] and got["pairs"] > 100
    assert got["candidates"][0] == got["candidates"][1]
    assert len(got["executors"]) == 2, got
