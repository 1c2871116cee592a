"""The DuckDB engine: runs the plan's SQL (:mod:`neardup.plan.steps`) in process, on every
core, with its tables in memory, spilling to a private temporary directory past its memory
limit; the directory goes when the plan is done.

Why DuckDB and not a sort or a spill of our own: it turns the group-bys and joins of banding
into operators that spill when they do not fit (its ``memory_limit`` and ``temp_directory``
settings) and run on all cores, which is what a report past one process's memory needs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..constraints import check_all
from ..errors import ArgumentError, NeardupError

if TYPE_CHECKING:
    import pyarrow as pa


#: DuckDB's memory limit while the verified pairs are read out of it (or the limit it had, if
#: lower): the plan's other tables are gone by then and the rows stream a batch at a time,
#: while this process takes the pairs and their records' texts. Why: at 10M documents the
#: engine's share of the budget and those texts together went past the budget.
READ_OUT_LIMIT = 512 << 20


class EngineFailed(NeardupError):
    """The engine could not finish the plan (out of memory or disk): nothing was written."""


@dataclass(frozen=True)
class DuckDB:
    """How the DuckDB engine runs: ``memory_limit`` (DuckDB's spelling, ``"2GB"``; None:
    DuckDB's default, 80% of the machine), ``temp_directory`` (where its database and spill
    files go; None: the system's temporary directory), ``disk_limit`` (the most its spill
    files may take; None: DuckDB's default, 90% of the free disk) and ``threads`` (None: every
    core)."""

    memory_limit: str | None = None
    temp_directory: str | Path | None = None
    threads: int | None = None
    disk_limit: str | None = None

    name = "duckdb"

    def __post_init__(self) -> None:
        check_all("DuckDB", {f.name: getattr(self, f.name) for f in fields(self)})

    def open(self) -> DuckDBSession:
        """A connection to a fresh database (close it: :meth:`DuckDBSession.close`)."""
        return DuckDBSession(self)


class DuckDBSession:
    """One plan's database: statements, Arrow tables in, Arrow batches out."""

    def __init__(self, engine: DuckDB) -> None:
        try:
            import duckdb
        except ImportError:
            raise ArgumentError(
                "the duckdb engine needs the duckdb package: pip install 'neardup[scale]'"
            ) from None
        self.engine = engine
        parent = None if engine.temp_directory is None else str(engine.temp_directory)
        if parent is not None and not Path(parent).is_dir():
            raise ArgumentError(f"temp_directory {parent!r} is not a directory")
        self.directory = Path(tempfile.mkdtemp(prefix="neardup-plan-", dir=parent))
        config: dict[str, Any] = {
            "temp_directory": str(self.directory / "spill"),
            "threads": engine.threads or os.cpu_count() or 1,
            "preserve_insertion_order": False,
        }
        if engine.memory_limit is not None:
            config["memory_limit"] = engine.memory_limit
        if engine.disk_limit is not None:
            config["max_temp_directory_size"] = engine.disk_limit
        try:
            # In memory, spilling to the directory past memory_limit: a database file writes
            # every table out as it is made, whether it fits or not (loading the records was
            # the slower for it).
            self.con = duckdb.connect(":memory:", config=config)
        except duckdb.Error as e:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise ArgumentError(f"the duckdb engine's settings were refused: {e}") from None
        self._errors = (
            duckdb.OutOfMemoryException,
            duckdb.IOException,
            duckdb.TransactionException,
        )

    def function(self, name: str, fn: Callable[[pa.Array], pa.Array], arg: str, out: str) -> None:
        """``fn`` over Arrow batches, callable from the SQL as ``name``."""
        from duckdb import sqltype

        # a lambda: DuckDB reads a function's annotations, and fn's name pyarrow lazily
        self.con.create_function(
            name, lambda values: fn(values), [sqltype(arg)], sqltype(out), type="arrow"
        )

    def run(self, statements: list[str]) -> None:
        with self._failures():
            for statement in statements:
                self.con.execute(statement)

    def load(self, table: str, data: pa.Table) -> None:
        """Append an Arrow table's rows to ``table``."""
        with self._failures():
            self.con.register("_incoming", data)
            try:
                self.con.execute(f"INSERT INTO {table} SELECT * FROM _incoming")
            finally:
                self.con.unregister("_incoming")

    def scalar(self, query: str) -> Any:
        with self._failures():
            rows = self.con.execute(query).fetchall()
        return rows[0][0] if rows else None

    def column(self, query: str) -> list[Any]:
        with self._failures():
            return [r[0] for r in self.con.execute(query).fetchall()]

    def release(self, keep: Iterable[str]) -> None:
        """Drop every table and view but ``keep`` and lower the memory limit to
        :data:`READ_OUT_LIMIT` (where it is higher), so that DuckDB gives back what it
        holds before this process takes its share."""
        kept = set(keep)
        with self._failures():
            found = self.con.execute(
                "SELECT table_name, table_type FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            ).fetchall()
            for name, kind in found:
                if name not in kept:
                    self.con.execute(f"DROP {'VIEW' if kind == 'VIEW' else 'TABLE'} {name}")
            limit = self.con.execute(
                "SELECT value FROM duckdb_settings() WHERE name = 'memory_limit'"
            ).fetchall()
        if _bytes(limit[0][0] if limit else None) > READ_OUT_LIMIT:
            try:
                self.con.execute(f"SET memory_limit = '{READ_OUT_LIMIT >> 20}MB'")
            except duckdb_error():  # what it holds cannot go lower: it keeps its limit
                pass

    def spilled(self) -> int:
        """The bytes DuckDB holds in its spill files now."""
        with self._failures():
            rows = self.con.execute(
                "SELECT coalesce(sum(size), 0) FROM duckdb_temporary_files()"
            ).fetchall()
        return int(rows[0][0])

    def batches(self, query: str, size: int) -> Iterator[pa.RecordBatch]:
        """The query's rows, ``size`` at a time, read on a cursor of their own (the caller may
        write meanwhile)."""
        with self._failures():
            cursor = self.con.cursor()
            try:
                yield from cursor.sql(query).to_arrow_reader(size)
            finally:
                cursor.close()

    @contextmanager
    def _failures(self) -> Iterator[None]:
        """Out of memory or disk said with the budget and how to raise it."""
        try:
            yield
        except self._errors as e:
            memory = self.engine.memory_limit or "DuckDB's default (80% of the memory)"
            disk = self.engine.disk_limit or "DuckDB's default (90% of the free disk)"
            raise EngineFailed(
                f"the duckdb engine ran out of memory or disk (memory_limit {memory}, disk_limit "
                f"{disk}, spilling to {self.directory}): raise memory_limit (the memory budget: "
                f"--memory, memory=) or disk_limit, or give a temp_directory on a disk with "
                f"more room; nothing was written "
                f"({str(e).splitlines()[0]})"
            ) from None

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


_UNITS = {"bytes": 1, "b": 1, "kb": 1000, "kib": 1 << 10, "mb": 1000**2, "mib": 1 << 20,
          "gb": 1000**3, "gib": 1 << 30, "tb": 1000**4, "tib": 1 << 40}  # fmt: skip


def _bytes(setting: str | None) -> int:
    """Bytes of a DuckDB memory setting as it shows it (``"4.4 GiB"``); 0 where unreadable."""
    parts = str(setting or "").split()
    try:
        return int(float(parts[0]) * _UNITS[parts[1].lower()]) if len(parts) == 2 else 0
    except (KeyError, ValueError):
        return 0


def duckdb_error() -> type[Exception]:
    import duckdb

    return duckdb.Error
