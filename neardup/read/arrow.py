"""Parquet and Arrow files (pyarrow, imported only when one is read): their rows as
records, read a chunk at a time and only the columns they need.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError, MissingColumn
from .inputs import is_stream
from .items import Item, Rejection
from .rows import (
    ROW_ID,
    default_text_fields,
    inexact_id,
    nested_texts,
    record_from_mapping,
    whole_id,
)

#: Rows converted to Python objects at a time.
ARROW_CHUNK = 10_000
DATA_EXTRA = "pip install 'neardup[data]'"


def _pyarrow(what: str) -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise InputError(f"{what} needs pyarrow: {DATA_EXTRA}") from None
    return pa


def _open(path: Path, fmt: str) -> Any:
    """A reader with ``schema`` and ``batches()``, for a Parquet or Arrow (IPC, Feather 2) file."""
    pa = _pyarrow(f"reading {fmt} files ({path})")
    if is_stream(path):
        raise InputError(
            f"{path}: a {fmt} file is read from a file, not a pipe (its columns are found from "
            "its end): save it to a file first"
        )
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return _Parquet(pq.ParquetFile(path), path)
        source = pa.memory_map(str(path))
        try:
            return _Ipc(pa.ipc.open_file(source), path)
        except pa.ArrowInvalid:
            return _Ipc(pa.ipc.open_stream(pa.memory_map(str(path))), path)
    except (OSError, ValueError) as exc:  # pyarrow's errors are both
        raise InputError(f"{path}: not a readable {fmt} file: {exc}") from None


class _Parquet:
    """A Parquet file's batches, a row group at a time: a corrupt page is an error that names
    the file and its row group (pyarrow raises an ``OSError`` that names neither)."""

    def __init__(self, file: Any, path: Path) -> None:
        self.file, self.path = file, path
        self.schema = file.schema_arrow

    def batches(self, columns: list[str] | None) -> Iterator[Any]:
        groups = self.file.num_row_groups
        for group in range(groups):
            try:
                yield from self.file.iter_batches(
                    batch_size=ARROW_CHUNK, columns=columns, row_groups=[group]
                )
            except (OSError, ValueError) as exc:  # pyarrow's errors are both
                raise InputError(
                    f"{self.path}: row group {group + 1} of {groups} cannot be read (a corrupt "
                    f"page?): {' '.join(str(exc).split())}"
                ) from None


class _Ipc:
    def __init__(self, reader: Any, path: Path) -> None:
        self.reader, self.path = reader, path
        self.schema = reader.schema

    def batches(self, columns: list[str] | None) -> Iterator[Any]:
        if hasattr(self.reader, "num_record_batches"):
            got = (self.reader.get_batch(i) for i in range(self.reader.num_record_batches))
        else:
            got = iter(self.reader)
        number = 0
        try:
            for number, batch in enumerate(got, start=1):  # noqa: B007 - named in the error
                yield batch if columns is None else batch.select(columns)
        except (OSError, ValueError) as exc:
            raise InputError(
                f"{self.path}: record batch {number + 1} cannot be read: "
                f"{' '.join(str(exc).split())}"
            ) from None


def arrow_columns(path: Path, fmt: str) -> list[str]:
    """The top-level columns of a Parquet or Arrow file."""
    return list(_open(path, fmt).schema.names)


def column_head(path: Path, fmt: str, column: str, rows: int) -> list[Any]:
    """The values of ``column`` in the first ``rows`` rows of a Parquet or Arrow file."""
    values: list[Any] = []
    for batch in _open(path, fmt).batches([column]):
        values += batch.column(0).to_pylist()[: rows - len(values)]
        if len(values) >= rows:
            break
    return values


def _texty(kind: Any) -> bool:
    """Whether a column of this Arrow type is read into a record's default text: text and
    numbers, a dictionary of them (pandas' categorical columns), and structs and lists, whose
    strings and numbers are (:func:`~neardup.read.rows.leaves_text`)."""
    import pyarrow.types as t

    if t.is_dictionary(kind):
        return _texty(kind.value_type)
    if t.is_struct(kind) or t.is_list(kind) or t.is_large_list(kind) or t.is_fixed_size_list(kind):
        return True
    return (
        t.is_string(kind) or t.is_large_string(kind) or t.is_integer(kind)
        or t.is_floating(kind) or t.is_decimal(kind)
    )  # fmt: skip


def _text_columns(schema: Any, id_field: str, source_field: str | None) -> list[str]:
    """The default text of a columnar file: what :func:`default_text_fields` picks among its
    columns that :func:`_texty` reads (true or false, dates, times and bytes are left out,
    which :func:`left_out_columns` says)."""
    names = [f.name for f in schema if _texty(f.type)]
    return default_text_fields(names, id_field, source_field)


def left_out_columns(
    path: Path, fmt: str, id_field: str, source_field: str | None
) -> dict[str, str]:
    """The columns a record's default text leaves out for their type, with it (for a note):
    a file without a ``text`` column compares every other, and a user should know which are
    not."""
    schema = _open(path, fmt).schema
    names = list(schema.names)
    if "text" in names:
        return {}
    return {
        f.name: str(f.type)
        for f in schema
        if f.name not in (id_field, source_field) and not _texty(f.type)
    }


def read_arrow(
    path: Path,
    fmt: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None = None,
) -> Iterator[Item]:
    """The rows of a Parquet or Arrow file as records (numbered from 1), read a chunk at a
    time and only the columns they need."""
    reader = _open(path, fmt)
    names = list(reader.schema.names)
    twice = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if twice is not None:
        raise InputError(
            f"{path}: the column {twice!r} is named twice (columns {names.index(twice) + 1} and "
            f"{names.index(twice, names.index(twice) + 1) + 1}): one would be lost; rename one"
        )
    fields = (
        list(text_fields) if text_fields else _text_columns(reader.schema, id_field, source_field)
    )
    kinds = {  # a file with no column of text: what the others hold, for the message
        f.name: str(f.type) for f in reader.schema if f.name not in (id_field, source_field)
    } if not fields else {}  # fmt: skip
    wanted = [f for f in (id_field, *fields, source_field) if f and f != ROW_ID]
    missing = [f for f in wanted if f not in names and f.split(".")[0] not in names]
    if missing:
        raise MissingColumn(
            f"{path}: the file has no column {', '.join(map(repr, missing))} "
            f"(columns: {', '.join(names)}): name the id and text columns it has"
        )
    columns = [n for n in names if n in wanted or n in {f.split(".")[0] for f in wanted}]
    number = 0
    for batch in reader.batches(columns):
        for row in _rows(batch):
            number += 1
            if isinstance(row, str):
                yield Rejection(str(path), number, row)
                continue
            if id_field in row:
                row[id_field] = whole_id(row[id_field])
                if why := inexact_id(row[id_field]):  # (pandas wrote ids with a hole as floats)
                    yield Rejection(str(path), number, why)
                    continue
            row = _no_nan(row)
            flat, held, names = None, kinds, fields
            if not text_fields:  # the default text: a struct or a list holds its leaves' text
                flat, nested = nested_texts(row, fields, (id_field, source_field))
                held, names = {**kinds, **nested}, [f for f in fields if f not in nested]
            yield record_from_mapping(
                row, str(path), number, id_field, names, source_field, held, flat
            )


def _rows(batch: Any) -> list[dict[str, Any] | str]:
    """A batch's rows as dicts; a row with a string cell that is not UTF-8 (Parquet and Arrow
    writers do not all check) as the reason it is rejected, instead of an error ending the run."""
    try:
        return list(batch.to_pylist())
    except UnicodeDecodeError:
        pass
    rows: list[dict[str, Any] | str] = []
    for i in range(batch.num_rows):
        row: dict[str, Any] | str = {}
        for name, column in zip(batch.schema.names, batch.columns, strict=True):
            try:
                row[name] = column[i].as_py()
            except UnicodeDecodeError as exc:
                row = f"invalid UTF-8 in column {name!r} at byte {exc.start}"
                break
        rows.append(row)
    return rows


def _no_nan(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its float NaNs (pandas' missing values) as None: missing, not the text nan."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
