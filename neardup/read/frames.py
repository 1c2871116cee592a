"""Records from pandas and polars DataFrames (``NearDupIndex.add_frame``).

Why a module of its own: pandas and polars are optional (the ``data`` extra) and neither is
imported here: a frame is recognised by its type's module and read column by column. Every row
goes through the same checks as a row of a CSV file
(:func:`neardup.read.rows.record_from_mapping`, :func:`neardup.read.checks.checked_spans`): the
same rejections, identical rows, the same ``fields`` a report compares one by one. A record's
ids come from ``id``, else from the pandas index, else from its position (from 0, polars). Ids
come back as text, as every record's do (a record is its source and its id, across files and
frames): :func:`frame_labels` maps them back to the frame's own labels, for ``df.loc``.
"""

from __future__ import annotations

import datetime
import decimal
import math
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from ..errors import ArgumentError, MissingColumn
from .checks import Checked, checked_spans
from .items import Item, Rejection
from .rows import (
    ROW_ID,
    default_text_fields,
    inexact_id,
    nested_texts,
    record_from_mapping,
    say_text_only,
    whole_id,
)
from .rows import id_column as find_id_column

#: The key a DataFrame row's index label is read under (no column can have this name).
INDEX = "\0index"


# -- DataFrames ---------------------------------------------------------------------------------


def is_frame(obj: object) -> bool:
    """Whether ``obj`` is a pandas or polars DataFrame (by its type's module: neither is
    imported to find out)."""
    module = type(obj).__module__.split(".")[0]
    if module == "polars" and type(obj).__name__ == "LazyFrame":
        return True  # refused by frame_records with what to do (its columns cost a plan)
    return module in ("pandas", "polars") and hasattr(obj, "columns")


#: Values of dates and times (pandas' Timestamp and Timedelta are of these too).
DATED = (datetime.date, datetime.time, datetime.timedelta)


def _label_given(given: Any) -> str:
    """A column named in Python, as the frame's columns are named here (by their text): ``0``
    for a column labelled ``0``, ``"0"`` for one labelled ``"0"``."""
    return given if isinstance(given, str) else str(given)


def _labels_given(text: Any, labels: Mapping[str, Any]) -> list[str] | None:
    """The text columns named in Python: one label (a string, a number, a MultiIndex's
    tuple that is a column) or a list of them."""
    if text is None:
        return None
    one = isinstance(text, str) or not isinstance(text, Iterable)
    if one or (isinstance(text, Hashable) and str(text) in labels):
        return [_label_given(text)]  # a label no column has: MissingColumn names the columns
    return [_label_given(c) for c in text]


def frame_records(
    frame: Any,
    id: str | None = None,  # noqa: A002 - the keyword the docs promise: add_frame(df, id=...)
    text: str | Sequence[str] | None = None,
    source: str | None = None,
    name: str = "<frame>",
) -> Checked:
    """The rows of a pandas or polars DataFrame as records, in order.

    ``id`` names the id column; without one, a column ``id`` if there is one, else the
    pandas index (its labels, as text: :func:`frame_labels` maps them back), else the row's
    position from 0 (polars). ``text`` names the text column or columns (default: ``text``, or
    every column but the id and the source, each compared on its own too). ``source`` names
    the column of each record's source (link mode); a record's ``line`` is its position + 1.
    The frame's columns are checked now, its rows as they are read
    (:class:`~neardup.read.checks.Checked`).
    """
    if type(frame).__name__ == "LazyFrame":  # a query, not rows: its columns cost a plan
        raise ArgumentError("a polars LazyFrame is a query, not rows: give frame.collect()")
    if not is_frame(frame):
        raise ArgumentError(f"expected a pandas or polars DataFrame, got {type(frame).__name__}")
    # Columns by name: a label that is not a string (0, a MultiIndex's tuple) is named by its
    # text, and read by the label itself (``frame["0"]`` would be a KeyError).
    labels = {str(c): c for c in frame.columns}
    columns = list(labels)
    if len(columns) != len(frame.columns):
        raise ArgumentError(f"{name}: the DataFrame has two columns of the same name")
    texts = _labels_given(text, labels)
    id = None if id is None else _label_given(id)  # noqa: A001 - the column it names
    source = None if source is None else _label_given(source)
    id_column = id if id is not None else find_id_column(columns)
    default = texts is None
    if texts is None:  # dates, times, true or false are no text, as in a Parquet file's default
        held = {c: _not_text(_column(frame, labels[c])) for c in columns}
        plain = [c for c in columns if held[c] is None]
        texts = default_text_fields(plain, id_column or ROW_ID, source)
        say_text_only(name, columns, id_column or ROW_ID, source, "text=[...]")
        left = {c: k for c, k in held.items() if k is not None and c not in (id_column, source)}
        if left and "text" not in columns:
            shown = ", ".join(f"{c!r} ({k})" for c, k in left.items())
            warnings.warn(
                f"neardup: {name}: not compared, for what they hold: {shown} (name them in "
                "text=[...] to compare them)",
                stacklevel=3,
            )
    wanted = [c for c in (id_column, *texts, source) if c is not None]
    missing = [c for c in wanted if c not in columns]
    if missing:
        raise MissingColumn(
            f"{name}: the DataFrame has no column {', '.join(map(repr, missing))} "
            f"(columns: {', '.join(columns)})"
        )
    values = {c: _column(frame, labels[c]) for c in dict.fromkeys(wanted)}
    if id_column is not None:
        values[id_column] = [whole_id(v) for v in values[id_column]]
    rows = len(frame)
    if id_column is None:  # the labels are read like a column of their own
        labels = list(frame.index) if hasattr(frame, "index") else range(rows)
        values[INDEX] = [_label(v) for v in labels]
        _labels_unique(values[INDEX], values.get(source) if source else None, name)
    key = id_column or INDEX
    rows_read = (
        Rejection(name, k + 1, "missing id: the row's index label is missing (NaN)")
        if key == INDEX and values[INDEX][k] is None
        else Rejection(name, k + 1, why)
        if (why := inexact_id(values[key][k]))
        else _record({c: _cell(v[k]) for c, v in values.items()}, name, k + 1, key, texts,
                     source, default)
        for k in range(rows)
    )  # fmt: skip
    spans = checked_spans(((r, r.line) for r in rows_read), name)
    return Checked((item for item, _line in spans), frame=True)


def _labels_unique(ids: Sequence[Any], sources: Sequence[Any] | None, name: str) -> None:
    """Refuse a pandas index that repeats a label (of one source, where a column names the
    sources) when its labels are the ids, before anything is written. Why an error and not a
    row rejected for each: ``pd.concat([a, b])`` numbers each part from 0, so half the frame
    was rejected as duplicate ids, and its pairs across the parts were never sought."""
    seen: set[tuple[str, str]] = set()
    again: dict[Any, None] = {}
    for k, label in enumerate(ids):
        if label is None:  # rejected with its row
            continue
        origin = "" if sources is None else str(_cell(sources[k]) or "").strip()
        key = (origin, str(label).strip())
        if key in seen:
            again[label] = None
        seen.add(key)
    if not again:
        return
    shown = ", ".join(map(repr, list(again)[:5])) + (" ..." if len(again) > 5 else "")
    raise ArgumentError(
        f"{name}: the DataFrame's index repeats labels ({shown}), and with no id column its "
        "labels are the records' ids: the rows after the first of a label would be rejected "
        "as duplicate ids. pd.concat([...], ignore_index=True) or df.reset_index(drop=True) "
        "numbers the rows anew; or name an id column (id='...')"
    )


def frame_labels(
    frame: Any,
    ids: Iterable[Any],
    id: str | None = None,  # noqa: A002 - as add_frame names it
    source: str | None = None,
    sources: Iterable[Any] | None = None,
) -> list[Any]:
    """The pandas index labels (polars: the positions) of the rows whose ids ``ids`` are, as
    ``add_frame`` read them with the same ``id``: ``df.loc[frame_labels(df, pairs.id1)]``.
    Why: ids come back as text, so ``df.loc[pairs.id1]`` found no row of an integer index.
    With a ``source`` column an id is one per source: ``sources`` names each id's
    (``pairs.source1``). An id that is no row of the frame is an :class:`ArgumentError`."""
    if not is_frame(frame) or type(frame).__name__ == "LazyFrame":
        raise ArgumentError(f"expected a pandas or polars DataFrame, got {type(frame).__name__}")
    columns = {str(c): c for c in frame.columns}
    column = _label_given(id) if id is not None else find_id_column(list(columns))
    pandas = hasattr(frame, "index")
    rows = list(frame.index) if pandas else list(range(len(frame)))
    if column is not None and column not in columns:
        raise MissingColumn(f"the DataFrame has no column {column!r}")
    keys = (
        [_cell(whole_id(v)) for v in _column(frame, columns[column])]
        if column is not None
        else [_label(v) for v in rows] if pandas else rows
    )  # fmt: skip
    origin = [""] * len(rows) if source is None else [
        str(_cell(v) or "").strip() for v in _column(frame, columns[_label_given(source)])]
    where: dict[tuple[str, str], Any] = {}
    for key, of, row in zip(keys, origin, rows, strict=True):
        if key is not None:
            where.setdefault((of, str(key).strip()), row)
    wanted = list(ids)
    if source is not None and sources is None:
        raise ArgumentError("a frame of several sources needs each id's source: sources=...")
    named = [""] * len(wanted) if source is None else [str(s).strip() for s in sources or ()]
    out = []
    for rid, of in zip(wanted, named, strict=True):
        row = where.get((of, str(rid).strip()), where)
        if row is where:
            raise ArgumentError(f"id {rid!r}{f' of {of}' if of else ''} is no row of the frame")
        out.append(row)
    return out


def _record(
    row: dict[str, Any], name: str, line: int, key: str, texts: Sequence[str],
    source: str | None, default: bool,
) -> Item:  # fmt: skip
    """A row as a record; in the default text, a list or a struct holds its leaves' text."""
    if not default:
        return record_from_mapping(row, name, line, key, texts, source)
    flat, nested = nested_texts(row, texts, (key, source))
    names = [t for t in texts if t not in nested]
    return record_from_mapping(row, name, line, key, names, source, nested, flat)


def _column(frame: Any, label: Any) -> list[Any]:
    return list(frame[label].to_list())


def _not_text(values: list[Any]) -> str | None:
    """What a column holds when the default text leaves it out, read off its first values
    that are not missing: dates or times, true or false, bytes; None for text, numbers,
    lists and structs (whose leaves are text)."""
    held = [v for v in values[:100] if _cell(v) is not None]
    if not held:
        return None
    if all(isinstance(v, DATED) for v in held):
        return "dates or times"
    if all(type(v).__name__ in ("bool", "bool_") for v in held):
        return "true or false"
    if all(isinstance(v, bytes | bytearray) for v in held):
        return "bytes"
    return None


def _label(value: Any) -> Any:
    """An index label as an id: integers and strings as they are, a whole float as its integer
    (:func:`~neardup.read.rows.whole_id`, as an id column's: an index made float by a merge
    gave the ids ``'1e+17'`` and ``'3.0'``), a missing one (NaN, NA, NaT) None, the rest as
    text (not the id ``"nan"``). A whole float from 2**53 up stays a float, rejected with its
    row (:func:`~neardup.read.rows.inexact_id`)."""
    if _cell(value) is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | str):
        return value
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    value = whole_id(value)
    if isinstance(value, int | str) or inexact_id(value):
        return value
    return str(value)


def _cell(value: Any) -> Any:
    """A cell as the readers take it: NaN and pandas' NA are missing (None); numpy scalars are
    Python numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (TypeError, ValueError):
            return value
        if isinstance(value, float) and math.isnan(value):
            return None
    if isinstance(value, DATED):  # named as a text column: read as it is written
        return str(value)
    if isinstance(value, decimal.Decimal):
        return None if value.is_nan() else str(value)
    return value
