"""Records and band keys in a DuckDB database on disk: an index larger than this process's
memory, with no server.

Why DuckDB and not a store of our own: it keeps the tables on disk and reads them in
vectorised scans, and the report's plan (:mod:`neardup.plan`) runs on it already. One table
holds the records, one row each: id, source, text, columns, batch and the band keys as the
64-bit values a Solr index's band fields hold (a list, in band order). A record written again
replaces the old one when the write is committed (:meth:`DuckDBBackend.commit`): appends stay
bulk, and a lookup by id before every batch would read the table once a batch.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import unicodedata
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ArgumentError, InputError, NeardupError
from ..keys import id_key
from ..sign.banding import key_value, value_key
from .base import Capability, Document, NewestBatch, StoredRecord

#: The folders of temporary files are named ``neardup-duckdb-<pid>-<random>`` in the system's
#: temporary folder: the pid tells a folder a killed run left (``neardup clean``) from the
#: folder of a run still going.
TEMP_PREFIX = "neardup-duckdb-"
#: Records appended in one statement: the index writes 1,000 a batch, and an append costs
#: DuckDB as much for a few rows as for many.
APPEND = 50_000
#: Rows a streaming read fetches at a time.
FETCH = 50_000
#: What the storage's own DuckDB may hold in memory: it streams and appends, the report's
#: plan has a DuckDB of its own under the memory budget.
STORAGE_MEMORY = "512MB"
#: An id's value as ASCII digits without leading zeros, where it is decimal (any script's
#: digits: ``str.isdecimal``), else NULL.
_DIGITS = (
    "CASE WHEN regexp_full_match(id, '[0-9]+') THEN ltrim(id, '0') "
    "WHEN regexp_full_match(id, '\\p{Nd}+') THEN ascii_digits(id) END"
)
#: Orders ids as :func:`neardup.keys.id_key` does: decimal ids by their value (shortest
#: digits first, then as text), then the others as text.
_ID_ORDER = f"{_DIGITS} IS NULL, length({_DIGITS}), {_DIGITS}, id"


def _ascii_digits(text: str) -> str:
    """The ASCII digits of a decimal id of another script, without leading zeros (what
    DuckDB cannot make in SQL)."""
    return "".join(str(unicodedata.decimal(c)) for c in text).lstrip("0")
#: The records table's columns and types, as an index made by this backend has them.
_COLUMNS = [("seq", "BIGINT"), ("id", "VARCHAR"), ("source", "VARCHAR"), ("text", "VARCHAR"),
            ("fields", "VARCHAR"), ("batch", "BIGINT"), ("vals", "BIGINT[]")]  # fmt: skip
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name VARCHAR, value VARCHAR)",
    "CREATE TABLE IF NOT EXISTS records (seq BIGINT, id VARCHAR, source VARCHAR, "
    "text VARCHAR, fields VARCHAR, batch BIGINT, vals BIGINT[])",
)


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError as exc:  # the 'scale' extra
        raise InputError(
            "the duckdb backend needs the duckdb package: pip install 'neardup[scale]'"
        ) from exc
    return duckdb


@contextmanager
def _failing(path: Path, what: str) -> Iterator[None]:
    """DuckDB's errors (a full disk above all) as neardup's, naming the file and what failed,
    instead of a traceback."""
    duckdb = _duckdb()
    try:
        yield
    except duckdb.ConnectionException as exc:  # not the disk: the handle was closed
        raise NeardupError(f"{path}: this index was closed (close()): open the file again with "
                           "a new DuckDBBackend to use it") from exc  # fmt: skip
    except duckdb.Error as exc:
        if "read-only" in str(exc).lower():
            raise NeardupError(f"{path}: opened read-only (read_only=True): it cannot be "
                               "written; open it without read_only to add or remove "
                               "records") from exc  # fmt: skip
        raise NeardupError(
            f"{path}: DuckDB could not {what}: {exc} (the records are kept in this file: "
            "free space where it is, or give a folder with room as TMPDIR)"
        ) from exc


def _value(key: str) -> tuple[int, int]:
    """The band and stored 64-bit value of a band key."""
    return int(key.partition("_")[0][1:]), key_value(key)


def _keys(vals: Sequence[int] | None) -> list[str]:
    return [value_key(b, v) for b, v in enumerate(vals or ())]


class DuckDBBackend:
    """An index in a DuckDB database file: ``path`` keeps it (a second handle on the same
    file sees its records), None makes a temporary one that :meth:`close` (or the end of the
    process) deletes.

    >>> from neardup import NearDupIndex
    >>> idx = NearDupIndex(backend=DuckDBBackend())
    >>> idx.add_many([("1", "the cat sat on the mat"), ("2", "the cat sat on a mat")])
    IndexStats(...)
    >>> idx.backend.count()
    2
    """

    #: Signed on every core: the writes are DuckDB's appends, in this thread. A file named
    #: by its path outlives the process (:attr:`Capability.PERSISTENT`).
    capabilities: frozenset[Capability] = frozenset({Capability.THREADS})
    max_writers = 1
    #: Band keys are stored as their 64-bit values.
    key_strings = False

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        """``read_only``: a file that is only read (a report, a search): opened so, any number
        of processes may read it at once, and nothing is ever written into it."""
        duckdb = _duckdb()
        self._temporary: Path | None = None
        if read_only and path is None:
            raise ArgumentError("a read-only index needs a file to read (a path)")
        if path is None:
            self._temporary = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
            path = self._temporary / "index.duckdb"
        else:
            self.capabilities = self.capabilities | {Capability.PERSISTENT}
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError(f"{self.path}: a folder, not a DuckDB database file")
        spill = self._temporary or (Path(tempfile.gettempdir()) if read_only else self.path.parent)
        if self.path.is_file() and self.path.stat().st_size and not _is_duckdb(self.path):
            raise InputError(f"{self.path}: not a DuckDB database file (a neardup index file is "
                             "one that 'neardup index FILE --index-file' made): give another "
                             "file")  # fmt: skip
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
            stored = self._con.execute(
                "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
            ).fetchall()
            if not stored or stored[0][0] is None:  # a CSV or Parquet file, read in memory
                self._con.close()
                raise InputError(f"{self.path}: not a DuckDB database file (DuckDB reads it as "
                                 "a table, and would keep nothing in it): give another file")
            self._con.execute(f"SET memory_limit = '{STORAGE_MEMORY}'")
            spill_dir = str(spill / (self.path.name + ".tmp")).replace("'", "''")
            self._con.execute(f"SET temp_directory = '{spill_dir}'")
            self._con.execute("SET preserve_insertion_order = false")
            try:
                self._con.create_function("ascii_digits", _ascii_digits, ["VARCHAR"], "VARCHAR")
            except duckdb.CatalogException:  # a second handle of this process on the file
                pass
            for statement in () if read_only else _SCHEMA:
                self._con.execute(statement)
            held = self._con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = 'records' ORDER BY ordinal_position"
            ).fetchall()
        except duckdb.Error as exc:
            if "lock" in str(exc).lower():  # another process writes it: a failure, not bad input
                raise NeardupError(f"{self.path}: in use by another process that writes it "
                                   f"(DuckDB: {exc}); try again once it is done") from exc
            raise InputError(f"{self.path}: cannot open it as a DuckDB database: {exc}") from exc
        if read_only and not held:
            self._con.close()
            raise InputError(f"{self.path}: holds no neardup index (index a file first)")
        if [tuple(c) for c in held] != _COLUMNS:
            self._con.close()
            raise InputError(
                f"{self.path}: its table 'records' is not a neardup index's (columns "
                f"{', '.join(c for c, _ in held)}): give another file"
            )
        self._lock = threading.RLock()
        #: The first ``seq`` of the records written since the last commit (None: none).
        self._since: int | None = None
        #: Records written and not yet appended (:meth:`_append`), and how many.
        self._pending: list[Any] = []
        self._held = 0
        self._next = int(self._one("SELECT coalesce(max(seq) + 1, 0) FROM records"))
        self._newest = NewestBatch()
        self._finalizer = weakref.finalize(self, DuckDBBackend._release, self._con,
                                           self._temporary)  # fmt: skip

    @staticmethod
    def _release(con: Any, temporary: Path | None) -> None:
        try:
            con.close()
        finally:
            if temporary is not None:
                shutil.rmtree(temporary, ignore_errors=True)

    def close(self) -> None:
        """Close the database (with the records written since the last commit, where it is
        kept); a temporary one is deleted."""
        if self._finalizer.alive and self._temporary is None:
            with self._lock, _failing(self.path, "write the records"):
                self._settle()
        self._finalizer()

    @property
    def location(self) -> str:
        return f"duckdb:{self.path}"

    def __repr__(self) -> str:
        return f"DuckDBBackend({str(self.path)!r})"

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self._lock, _failing(self.path, "read the records"):
            rows = self._con.execute(sql, list(params)).fetchall()
        return rows[0][0] if rows else None

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock, _failing(self.path, "read the records"):
            self._settle()
            return self._con.execute(sql, list(params)).fetchall()

    def _stream(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[Any, ...]]:
        """The query's rows, fetched in batches on a cursor of its own (other queries may run
        between two batches)."""
        with self._lock, _failing(self.path, "read the records"):
            self._settle()
            cursor = self._con.cursor()
            result = cursor.execute(sql, list(params))
        try:
            while True:
                with _failing(self.path, "read the records"):
                    rows = result.fetchmany(FETCH)
                if not rows:
                    break
                yield from rows
        finally:
            cursor.close()

    # -- parameters -------------------------------------------------------------------------
    def load_params(self) -> dict[str, Any] | None:
        value = self._one("SELECT value FROM meta WHERE name = 'params'")
        return None if value is None else dict(json.loads(value))

    def store_params(self, stored: dict[str, Any]) -> dict[str, Any]:
        with self._lock, _failing(self.path, "store the parameters"):
            held = self.load_params()
            if held is not None:
                return held
            self._con.execute("INSERT INTO meta VALUES ('params', ?)", [json.dumps(stored)])
        return json.loads(json.dumps(stored))

    # -- writes -----------------------------------------------------------------------------
    def add(self, docs: Sequence[Document]) -> None:
        if not docs:
            return
        import pyarrow as pa

        vals = _values_column(docs)
        with self._lock:  # the numbers of the records written, in order of writing
            first, self._next = self._next, self._next + len(docs)
        table = pa.table({
            "seq": pa.array(range(first, first + len(docs)), pa.int64()),
            "id": [d.id for d in docs],
            "source": [d.source for d in docs],
            "text": [d.text for d in docs],
            "fields": [json.dumps(d.fields) if d.fields else None for d in docs],
            "batch": pa.array([d.batch for d in docs], pa.int64()),
            "vals": vals,
        })  # fmt: skip
        with self._lock, _failing(self.path, "write the records"):
            self._pending.append(table)
            self._held += len(docs)
            self._newest.saw(docs)
            if self._since is None or first < self._since:
                self._since = first
            if self._held >= APPEND:
                self._append()

    def _append(self) -> None:
        """The records written since the last append, appended in one statement."""
        if not self._pending:
            return
        import pyarrow as pa

        table = pa.concat_tables(self._pending)
        self._pending, self._held = [], 0
        self._con.register("_added", table)
        try:
            self._con.execute("INSERT INTO records SELECT * FROM _added")
        finally:
            self._con.unregister("_added")

    def remove(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with self._lock, _failing(self.path, "remove the records"):
            self._settle()
            self._con.execute("DELETE FROM records WHERE id IN (SELECT unnest(?))", [list(ids)])

    def commit(self) -> None:
        """The records written since the last commit replace the older ones of their ids,
        and the meta table says the newest batch written (:meth:`written_batch`)."""
        with self._lock, _failing(self.path, "write the records"):
            self._settle()
            batch = self._newest.unnoted()
            if batch is not None:
                held = self.written_batch()
                if held is None:
                    self._con.execute("INSERT INTO meta VALUES ('batch', ?)", [str(batch)])
                elif held < batch:
                    self._con.execute("UPDATE meta SET value = ? WHERE name = 'batch'",
                                      [str(batch)])  # fmt: skip
                self._newest.noted(batch)
            self._con.execute("CHECKPOINT")

    def _settle(self) -> None:
        """Drop the records a later write of the same id replaced (one query over the new
        records, where nothing was replaced)."""
        self._append()
        since = self._since
        if since is None:
            return
        self._since = None
        replaced = (
            "SELECT seq FROM (SELECT seq, row_number() OVER (PARTITION BY id ORDER BY seq DESC)"
            " AS n FROM records WHERE id IN (SELECT id FROM records WHERE seq >= ?)) WHERE n > 1"
        )
        self._con.execute(f"DELETE FROM records WHERE seq IN ({replaced})", [since])

    def clone(self) -> DuckDBBackend:
        return self

    # -- records ----------------------------------------------------------------------------
    def count(self) -> int:
        with self._lock, _failing(self.path, "read the records"):
            self._settle()
            return int(self._one("SELECT count(*) FROM records"))

    def facets(self, listed: int) -> dict[str, Any]:
        """What ``neardup info`` says of the file: its records, their sources (most records
        first) and batches (newest first, each with up to five of its sources), ``listed`` of
        each, and how many there are."""
        with self._lock, _failing(self.path, "read the records"):
            self._settle()
            con = self._con
            sources = con.execute(
                "SELECT source, count(*) AS n FROM records GROUP BY source "
                "ORDER BY n DESC, source LIMIT ?", [listed]).fetchall()  # fmt: skip
            batches = con.execute(
                "SELECT batch, count(*), list(DISTINCT source ORDER BY source)[1:5] FROM records "
                "GROUP BY batch ORDER BY batch DESC LIMIT ?", [listed]).fetchall()  # fmt: skip
            # fetched to the end: a result left open (fetchone) stops the connection's writes
            counts = con.execute(
                "SELECT count(*), count(DISTINCT source), count(DISTINCT batch), "
                "count(*) FILTER (source IS NULL) FROM records").fetchall()  # fmt: skip
        total, n_sources, n_batches, unnamed = counts[0] if counts else (0, 0, 0, 0)
        return {
            "records": int(total),
            "sources": [(str(src), int(n)) for src, n in sources if src is not None],
            "unnamed": int(unnamed),
            "source_count": int(n_sources),
            "batches": [(int(b), int(n), [str(x) for x in srcs if x is not None])
                        for b, n, srcs in batches],  # fmt: skip
            "batch_count": int(n_batches),
        }

    def _by_id(self, columns: str, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        if not ids:
            return []
        return self._rows(
            f"SELECT id, {columns} FROM records WHERE id IN (SELECT unnest(?))", [list(ids)]
        )

    def get(self, record_id: str) -> StoredRecord | None:
        rows = self._by_id("text, vals", [record_id])
        return StoredRecord(record_id, rows[0][1], _keys(rows[0][2])) if rows else None

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        return {i: t for i, t in self._by_id("text", ids)}

    def sources(self, ids: Sequence[str]) -> dict[str, str]:
        return {i: s for i, s in self._by_id("source", ids)}

    def columns(self, ids: Sequence[str]) -> dict[str, dict[str, str]]:
        return {i: json.loads(f) for i, f in self._by_id("fields", ids) if f is not None}

    def records(self) -> Iterator[StoredRecord]:
        for rid, text, vals in self._stream(
            f"SELECT id, text, vals FROM records ORDER BY {_ID_ORDER}"
        ):
            yield StoredRecord(rid, text, _keys(vals))

    def all_texts(self) -> Iterator[tuple[str, str]]:
        rows: Iterator[Any] = self._stream("SELECT id, text FROM records")
        yield from rows

    def some_texts(self, n: int) -> list[str]:
        return [t for (t,) in self._rows("SELECT text FROM records LIMIT ?", [int(n)])]

    def records_since(self, batch: int) -> Iterator[StoredRecord]:
        for rid, text, vals in self._stream(
            f"SELECT id, text, vals FROM records WHERE batch >= ? ORDER BY {_ID_ORDER}",
            [int(batch)],
        ):
            yield StoredRecord(rid, text, _keys(vals))

    def last_batch(self) -> int | None:
        rows = self._rows("SELECT max(batch) FROM records")
        return None if rows[0][0] is None else int(rows[0][0])

    def batch_records(self, batch: int) -> int:
        return int(self._rows("SELECT count(*) FROM records WHERE batch = ?", [int(batch)])[0][0])

    def written_batch(self) -> int | None:
        value = self._one("SELECT value FROM meta WHERE name = 'batch'")
        return None if value is None else int(value)

    def source_records(self, source: str) -> int:
        return int(self._rows("SELECT count(*) FROM records WHERE source = ?", [source])[0][0])

    # -- band lookups -----------------------------------------------------------------------
    def buckets(self, band: int) -> Iterator[list[str]]:
        b = int(band) + 1
        for (members,) in self._stream(
            f"SELECT list(id) FROM records WHERE len(vals) >= {b} "
            f"GROUP BY vals[{b}] HAVING count(*) > 1"
        ):
            yield list(members)

    def _holders(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        """``(key, id)`` of every record that holds one of ``keys``: one scan, each band's
        values compared with the keys of that band."""
        wanted: dict[int, dict[int, str]] = {}
        for key in keys:
            band, value = _value(key)
            wanted.setdefault(band, {})[value] = key
        if not wanted:
            return []
        parts, params = [], []
        for band, values in sorted(wanted.items()):
            parts.append(
                f"SELECT {band} AS band, vals[{band + 1}] AS v, id FROM records "
                f"WHERE len(vals) > {band} AND vals[{band + 1}] IN (SELECT unnest(?))"
            )
            params.append(list(values))
        rows = self._rows(" UNION ALL ".join(parts), params)
        return [(wanted[band][v], rid) for band, v, rid in rows]

    def sharing(self, keys: Sequence[str]) -> Iterator[StoredRecord]:
        found = sorted({rid for _, rid in self._holders(keys)}, key=id_key)
        held = {i: (t, v) for i, t, v in self._by_id("text, vals", found)}
        for rid in found:
            text, vals = held[rid]
            yield StoredRecord(rid, text, _keys(vals))

    def members(self, keys: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for key, rid in self._holders(keys):
            out.setdefault(key, []).append(rid)
        return {k: sorted(ids, key=id_key) for k, ids in out.items()}

    def key_counts(self, keys: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for key, _ in self._holders(keys):
            out[key] = out.get(key, 0) + 1
        return {k: n for k, n in out.items() if n > 1}

    def holding_two(self, groups: Sequence[Sequence[str]]) -> dict[str, list[str]]:
        holders = self._holders([k for group in groups for k in group])
        held: dict[str, set[str]] = {}
        for key, rid in holders:
            held.setdefault(rid, set()).add(key)
        out: dict[str, set[str]] = {}
        for group in groups:
            mine = set(group)
            for rid, keys in held.items():
                common = keys & mine
                if len(common) >= 2:
                    out.setdefault(rid, set()).update(common)
        return {rid: sorted(keys) for rid, keys in out.items()}


def _values_column(docs: Sequence[Document]) -> Any:
    """The documents' band values as one Arrow list column: from one numpy matrix where every
    document came with a row of int64 of one width (the index's path: a list of 32 Python ints
    a record made writing 1M records half as slow again), else record by record."""
    import pyarrow as pa

    rows = [d.values for d in docs]
    width = rows[0].size if isinstance(rows[0], np.ndarray) else -1
    if width > 0 and all(isinstance(r, np.ndarray) and r.size == width for r in rows):
        flat = np.stack(rows).astype(np.int64, copy=False).ravel()
        offsets = np.arange(0, flat.size + 1, width, dtype=np.int32)
        return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))
    return pa.array([_doc_values(d) for d in docs], pa.list_(pa.int64()))


def _doc_values(doc: Document) -> list[int]:
    """A document's band keys as the int64 values stored (made from its key strings where it
    came with those)."""
    if isinstance(doc.values, np.ndarray):
        return [int(v) for v in doc.values.tolist()]
    if len(doc.values):
        return [int(v) for v in doc.values]
    return [_value(k)[1] for k in doc.keys]


def _is_duckdb(path: Path) -> bool:
    """Whether ``path`` starts as a DuckDB database file does (``DUCK`` at byte 8): DuckDB
    opens a CSV or Parquet file as a table, and read-only it says only that an in-memory
    database cannot be read-only."""
    try:
        with open(path, "rb") as fh:
            return fh.read(12)[8:12] == b"DUCK"
    except OSError:
        return True  # said by DuckDB's own error, which names the cause
