"""The Spark engine: runs the plan's steps (:mod:`neardup.plan.steps`, the same SQL text as
DuckDB's) through Spark SQL, and their functions over Arrow batches on Spark's executors
(``mapInArrow`` for the screen and verification, an Arrow UDF for the cap's tie-break), so that
a report can use a cluster's cores, memory and disks.

Each table of the plan is a Parquet table of a database of its own (under ``temp_directory``;
on a cluster a path every executor reaches, such as ``hdfs://...``), dropped when the plan is
done: every step is written out, which cuts the lineage of the cap's levels and lets Spark
spill its sorts and joins. Two things are Spark's own, not the steps': a table declared with
columns gets Spark's names for DuckDB's types (it has no unsigned ones; band keys and shingle
hashes are only compared, so their bits are kept as signed integers), and the batches this
process loads are given those types.

Why pyspark and not a scheduler of our own: it is the engine the field runs LSH on at scale
(text-dedup, Splink), and it spills, retries and spreads the group-bys and joins of banding.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..constraints import check_all
from ..errors import ArgumentError
from .duck import EngineFailed

if TYPE_CHECKING:
    import pyarrow as pa

#: DuckDB's type names in the steps' table declarations, as Spark spells them.
_TYPES = (
    (re.compile(r"\bUBIGINT\b"), "BIGINT"),
    (re.compile(r"\bUINTEGER\[\]"), "ARRAY<BIGINT>"),
    (re.compile(r"\bVARCHAR\b"), "STRING"),
    (re.compile(r"\bBLOB\b"), "BINARY"),
)
_DECLARED = re.compile(r"^\s*CREATE\s+TABLE\s+\w+\s*\(", re.IGNORECASE)


def spark_statement(statement: str) -> str:
    """A step's statement as Spark SQL takes it: a table declared with its columns gets Spark's
    type names and is stored as Parquet; any other statement is run as written."""
    if not _DECLARED.match(statement):
        return statement
    for pattern, name in _TYPES:
        statement = pattern.sub(name, statement)
    return f"{statement} USING parquet"


@dataclass(frozen=True)
class Spark:
    """How the Spark engine runs: ``master`` as Spark takes it (``local[*]``: every core of
    this machine; ``local[2]``; ``spark://host:7077``, ``yarn``, ``k8s://...``), ``memory``
    (Spark's spelling, ``"4g"``: the driver's and each executor's heap; None: Spark's default),
    ``temp_directory`` (where the plan's tables and, in local mode, Spark's spill files go; on
    a cluster a path every executor reaches; None: the system's temporary directory) and
    ``conf``: any other Spark settings. The settings of the JVM (memory, spill directory)
    apply when this process starts Spark, not to a Spark session it already runs."""

    master: str = "local[*]"
    memory: str | None = None
    temp_directory: str | Path | None = None
    conf: Mapping[str, str] | tuple[tuple[str, str], ...] = field(default=())

    name = "spark"

    def __post_init__(self) -> None:
        check_all("Spark", {f.name: getattr(self, f.name) for f in fields(self)})
        conf = dict(self.conf)
        for key, value in conf.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ArgumentError(f"conf holds Spark settings as strings, got {key!r}: {value!r}")
        object.__setattr__(self, "conf", tuple(sorted(conf.items())))

    def open(self) -> SparkPlanSession:
        """A Spark session of its own with a fresh database (close it:
        :meth:`SparkPlanSession.close`)."""
        return SparkPlanSession(self)

    def settings(self, local_dir: str | None) -> dict[str, str]:
        """The Spark settings this engine starts Spark with."""
        settings = {
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.execution.arrow.pyspark.enabled": "true",
            "spark.sql.legacy.createHiveTableByDefault": "false",
            "spark.sql.sources.default": "parquet",
        }
        if self.master.startswith("local"):
            # one machine: a few shuffle partitions a core, not Spark's 200 (each a task and a
            # file of every table the plan writes)
            settings["spark.sql.shuffle.partitions"] = str(2 * local_threads(self.master))
            # the plan's tables have a location of their own; Spark's default warehouse would
            # otherwise be an empty spark-warehouse/ left in the user's working directory
            settings["spark.sql.warehouse.dir"] = os.path.join(
                local_dir or tempfile.gettempdir(), "neardup-spark-warehouse"
            )
            if local_dir is not None:
                settings["spark.local.dir"] = local_dir
        if self.memory is not None:
            settings["spark.driver.memory"] = self.memory
            settings["spark.executor.memory"] = self.memory
        settings.update(dict(self.conf))
        return settings


def local_threads(master: str) -> int:
    """The task threads of a local master: ``local`` 1, ``local[4]`` 4, ``local[*]`` every
    core, ``local[4,2]`` (with retries) 4, ``local-cluster[2,1,1024]`` (two worker processes of
    one core each, what Spark's own tests run on) 2."""
    inside = master[master.find("[") + 1 : master.rfind("]")] if "[" in master else ""
    parts = [p.strip() for p in inside.split(",")]
    if master.startswith("local-cluster"):
        return max(int(parts[0]) * int(parts[1]), 1) if len(parts) >= 2 else 1
    if parts[0] in ("", "*"):
        return 1 if not inside else os.cpu_count() or 1
    return max(int(parts[0]), 1)


def _is_uri(path: str) -> bool:
    return "://" in path


class SparkPlanSession:
    """One plan's Spark session and database: statements, Arrow tables in, Arrow batches out,
    functions over Arrow batches run on the executors."""

    def __init__(self, engine: Spark) -> None:
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise ArgumentError(
                "the spark engine needs the pyspark package: pip install 'neardup[spark]'"
            ) from None
        self.engine = engine
        parent = None if engine.temp_directory is None else str(engine.temp_directory)
        self.directory: Path | None = None
        if parent is not None and _is_uri(parent):
            location = f"{parent.rstrip('/')}/neardup-plan-{uuid.uuid4().hex}"
        else:
            if parent is not None and not Path(parent).is_dir():
                raise ArgumentError(f"temp_directory {parent!r} is not a directory")
            self.directory = Path(tempfile.mkdtemp(prefix="neardup-plan-", dir=parent))
            location = str(self.directory / "tables")
        self.database = f"neardup_plan_{uuid.uuid4().hex}"
        builder = SparkSession.builder.master(engine.master).appName("neardup report")
        # Spark's own scratch files outlive this plan (Spark runs on): in temp_directory itself
        spill = None if parent is None or _is_uri(parent) else parent
        for key, value in engine.settings(spill).items():
            builder = builder.config(key, value)
        try:
            with self._failures():
                running = SparkSession.getActiveSession()
                root = builder.getOrCreate()
                master = root.sparkContext.master
                if master != engine.master:
                    raise ArgumentError(
                        f"this process already runs Spark with master {master!r}, not "
                        f"{engine.master!r}: use Spark(master={master!r}) or a new process"
                    )
                if running is None:
                    root.sparkContext.setLogLevel("ERROR")
                    if engine.master.startswith("local"):
                        # the executors' Python workers run this Python (and its neardup),
                        # not the first python3 on the PATH
                        root.sparkContext.pythonExec = sys.executable
                self.spark = root.newSession()
                self.spark.sql(f"CREATE DATABASE {self.database} LOCATION '{location}'")
                self.spark.sql(f"USE {self.database}")
        except Exception:
            self._remove()
            raise

    def function(self, name: str, fn: Callable[[pa.Array], pa.Array], _arg: str, out: str) -> None:
        """``fn`` over Arrow batches, callable from the SQL as ``name`` (run by the executors;
        the argument's type, which DuckDB needs, is Spark's to infer)."""
        from pyspark.sql.functions import arrow_udf

        self.spark.udf.register(name, arrow_udf(lambda values: fn(values), out.lower()))

    def run(self, statements: list[str]) -> None:
        with self._failures():
            for statement in statements:
                self.spark.sql(spark_statement(statement))

    def load(self, table: str, data: pa.Table) -> None:
        """Append an Arrow table's rows to ``table``: a Parquet file of the table's types
        (unsigned integers as :func:`spark_statement` declares them) written into its folder.
        Why not ``createDataFrame``: it ships the rows inside Spark's tasks, whose
        deserialization ran the JVM out of its default heap at 50k records a batch."""
        import pyarrow.fs as pafs
        import pyarrow.parquet as pq
        from pyspark.sql.pandas.types import to_arrow_schema

        with self._failures():
            found = self.spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()
            location = next(r.data_type for r in found if r.col_name == "Location")
            schema = to_arrow_schema(self.spark.table(table).schema)
            rows = _signed(data).select(schema.names).cast(schema)
            filesystem, folder = pafs.FileSystem.from_uri(location)
            filesystem.create_dir(folder, recursive=True)
            name = f"{folder}/part-{uuid.uuid4().hex}.parquet"
            pq.write_table(rows, name, filesystem=filesystem)
            self.spark.catalog.refreshTable(table)

    def map_into(
        self, table: str, query: str, fn: Callable[[pa.RecordBatch], pa.Table], size: int
    ) -> None:
        """``fn`` over the query's rows in batches of at most ``size``, run by the executors
        (``mapInArrow``), its rows appended to ``table``."""
        with self._failures():
            schema = self.spark.table(table).schema
            self.spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(size))

            def mapped(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                for batch in batches:
                    yield from fn(batch).to_batches()

            self.spark.sql(query).mapInArrow(mapped, schema).write.insertInto(table)

    def scalar(self, query: str) -> Any:
        with self._failures():
            rows = self.spark.sql(query).collect()
        return rows[0][0] if rows else None

    def column(self, query: str) -> list[Any]:
        with self._failures():
            return [r[0] for r in self.spark.sql(query).collect()]

    def batches(self, query: str, size: int) -> Iterator[pa.RecordBatch]:
        """The query's rows, ``size`` at a time, in this process (the plan reads its result
        so: the verified pairs, which the report holds anyway)."""
        with self._failures():
            table = self.spark.sql(query).toArrow()
        yield from table.to_batches(size)

    @contextmanager
    def _failures(self) -> Iterator[None]:
        """Spark's failures (a job that ran out of memory or disk, Java missing) said with the
        engine's settings and how to raise them, without Spark's stack traces."""
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        try:
            yield
        except (PySparkException, Py4JError) as e:
            message = str(e).strip().splitlines()
            first = next((line for line in message if line.strip()), type(e).__name__)
            if "JAVA_GATEWAY_EXITED" in first or "Java gateway" in first:
                raise ArgumentError(
                    "the spark engine could not start Spark: it needs Java 17 or later "
                    f"(java on the PATH or JAVA_HOME) ({first})"
                ) from None
            memory = self.engine.memory or "Spark's default (1g)"
            where = self.directory or self.engine.temp_directory
            raise EngineFailed(
                f"the spark engine failed (master {self.engine.master}, memory {memory}, "
                f"tables and spill in {where}): if it ran out of memory or disk, raise memory "
                f"or give a temp_directory with more room; nothing was written ({first[:500]})"
            ) from None

    def _remove(self) -> None:
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def close(self) -> None:
        """The plan's database dropped with its tables (Spark itself keeps running for the
        next plan of this process)."""
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        try:
            self.spark.sql(f"DROP DATABASE IF EXISTS {self.database} CASCADE")
        except (PySparkException, Py4JError):
            pass  # Spark is gone (its JVM out of memory): the failure that ended it is raised
        finally:
            self._remove()


def _signed_type(kind: pa.DataType) -> pa.DataType:
    import pyarrow as pa

    if pa.types.is_list(kind):
        return pa.list_(_signed_type(kind.value_type))
    if pa.types.is_unsigned_integer(kind):
        return pa.int64()
    return kind


def _signed(data: pa.Table) -> pa.Table:
    """``data`` with unsigned integers as int64: 64-bit ones keep their bits (wrapping past
    2**63), narrower ones their values."""
    import pyarrow as pa

    schema = pa.schema([f.with_type(_signed_type(f.type)) for f in data.schema])
    return data if schema == data.schema else data.cast(schema, safe=False)
