"""A row of a table, an object of JSON Lines or a row of a Parquet or Arrow file, as a
record: its id, its text from the fields named (by default :func:`default_text_fields`), its
source, or a rejection that says which field is wrong.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import InputError, InvalidText, NeardupWarning
from ..sign.text import check_text
from .items import EmptyText, Record, Rejection

#: The id "field" that numbers records by their line in the file (their row in Parquet and
#: Arrow files, from 1): for data without an id column (``--id-field @row``).
ROW_ID = "@row"


class BigNumber(str):
    """A JSON number beyond a float's range (``1e400``), kept as it is written: as a float it
    would be ``inf``, a text that every such record shares. Text, but not an id."""


def default_text_fields(
    columns: Iterable[str], id_field: str, source_field: str | None = None
) -> list[str]:
    """The text of a record when no text field is named: the column ``text`` if there is one,
    else every column but the id (and the source), joined in their order (and kept apart as the
    record's ``fields``, which a report compares one by one: :mod:`neardup.decision.columns`).
    With line numbers for ids (:data:`ROW_ID`), columns whose names read as ids
    (:func:`id_like`: ``Id`` and ``ID``, ``order_id`` and ``customer_id``) are left out too,
    unless they are all there is: as text, an id is a word or number no other record holds."""
    names = list(columns)
    if source_field is not None and source_field in ("text", id_field) and source_field in names:
        # the source says which catalogue a row is of: compared as text, or as the id, every
        # record of one source would be alike, or one source a record
        raise InputError(
            f"the source column {source_field!r} is the records' "
            f"{'id' if source_field == id_field else 'text'} column: name the source column "
            "(--source-field) apart from the id and text columns (--id-field, --text-field)"
        )
    if "text" in names:
        return ["text"]
    rest = [n for n in names if n not in (id_field, source_field)]
    if id_field == ROW_ID:  # numbered by line: a column named as an id is no text (id_like)
        return [n for n in rest if not id_like(n)] or rest
    return rest


def say_text_only(
    source: str, columns: Iterable[str], id_field: str, source_field: str | None, flag: str
) -> None:
    """Where a column named ``text`` is the records' text (:func:`default_text_fields`) and
    others are there, say which are not compared and how to name them (``flag``): a table of
    ``id, text, title, author`` compared its texts alone, without a word."""
    names = list(columns)
    left = [n for n in names if n not in ("text", id_field, source_field) and str(n).strip()]
    if "text" not in names or not left:
        return
    shown = ", ".join(map(repr, left[:6])) + (f" and {len(left) - 6} more" if len(left) > 6 else "")
    warnings.warn(NeardupWarning(
        f"{source}: its column 'text' is the records' text; not compared: {shown} ({flag} "
        "names the columns to compare)"
    ), stacklevel=2)  # fmt: skip


#: The words of a column's name: runs of letters split where the case turns (``CustomerID``:
#: Customer, ID; ``userId``: user, Id), and runs of digits.
_NAME_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def id_like(name: object) -> bool:
    """Whether a column's name reads as an id's: ``id`` as its first or last word, the words
    split at anything not a letter or digit and where the case turns (``customer_id``,
    ``CustomerID``, ``product id``, ``ID``, ``record_id``, ``id_number``; not ``Idaho``,
    ``valid``, ``PID``, ``uuid``). Why: with ``customer_id`` read as text, every record held a
    number no other holds, the numbers check dropped every true duplicate, and the ids were
    line numbers.

    >>> [id_like(n) for n in ("CustomerID", "product id", "userId", "Idaho", "paid", "uuid")]
    [True, True, True, False, False, False]
    """
    if not isinstance(name, str):
        return False
    words = _NAME_WORDS.findall(name)
    return bool(words) and "id" in (words[0].casefold(), words[-1].casefold())


def id_column(columns: Iterable[str]) -> str | None:
    """The id column of a table when none is named: ``id``, else the one column whose name is
    ``id`` in other letters or with spaces around (``ID``, ``Id``: a spreadsheet's header),
    else None. Why: with ``ID`` read as text, every record held a word no other has and the
    ids were line numbers.

    >>> id_column(["ID", "name"]), id_column(["name"]), id_column(["id ", "Id"])
    ('ID', None, None)
    """
    names = list(columns)
    if "id" in names:
        return "id"
    alike = [n for n in names if isinstance(n, str) and n.strip().casefold() == "id"]
    return alike[0] if len(alike) == 1 else None


def field_value(obj: Mapping[str, Any], name: str) -> Any:
    """The value of key ``name`` of ``obj``, or, if it has no such key, of the nested key its
    dotted path names (``item.title``: ``obj["item"]["title"]``); None if there is none."""
    return _found(obj, name)[1]


def holds_field(obj: Mapping[str, Any], name: str) -> bool:
    """Whether ``obj`` has the key ``name``, or the nested key its dotted path names, whatever
    its value (null too): a key a record holds, as :func:`field_value` finds it."""
    return _found(obj, name)[0]


def _found(obj: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    """Whether ``obj`` holds key ``name`` (or its dotted path), and its value (None if not)."""
    if name in obj:
        return True, obj[name]
    if "." not in name:
        return False, None
    value: Any = obj
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return False, None
        value = value[part]
    return True, value


def whole_id(value: object) -> object:
    """An id read from a typed column (a DataFrame, Parquet, Arrow): a float that is a whole
    number as the integer it stands for, since pandas stores an integer column with one
    missing cell as floats (``[1, 2, None]`` is ``[1.0, 2.0, nan]``, in a frame and in the
    Parquet file it writes), which would reject every row for the one hole. A float from
    2**53 up is left a float (:func:`inexact_id` says why its row is rejected): floats cannot
    hold every whole number there, so ``123456789012345679`` was read as ``...680`` and two
    orders were one id."""
    if isinstance(value, float) and value.is_integer() and abs(value) < EXACT_FLOAT:
        return int(value)
    return value


#: Whole numbers from here up are not all floats: one may stand for another (2**53 + 1 is
#: read as 2**53).
EXACT_FLOAT = 2**53


def inexact_id(value: object) -> str | None:
    """Why an id read from a typed column is refused, where it is a whole float from 2**53 up
    (:func:`whole_id`); None for any other value."""
    if not (isinstance(value, float) and value.is_integer() and abs(value) >= EXACT_FLOAT):
        return None
    return (
        f"id is a float at or above 2**53, so not exact: {value:.0f} may have been another id "
        "(pandas makes an integer column float when a cell is missing: read the id column as "
        "'Int64' or as text)"
    )


def scalar(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


#: How deep a nested value's leaves are read into a record's default text.
LEAF_DEPTH = 8


def leaves_text(value: object, path: str = "", skip: frozenset[str] = frozenset()) -> str | None:
    """The text of a nested value (a JSON object or list, a Parquet struct or list) in a
    record's default text: its strings and numbers in order, joined by spaces; None where it
    holds none (nulls, true or false). Why: an export that nests a product's title and brand
    under ``item`` was compared on its price alone, and three different products were one.

    ``path``: the value's own dotted path; the leaves at the paths ``skip`` names (a nested id
    or source: ``meta.id``) are left out.

    >>> leaves_text({"title": "Blue cafe", "tags": ["paris", 12], "open": True, "x": None})
    'Blue cafe paris 12'
    >>> leaves_text({"id": "a7", "name": "Blue cafe"}, "meta", frozenset({"meta.id"}))
    'Blue cafe'
    """
    out: list[str] = []

    def walk(v: object, at: str, depth: int) -> None:
        if depth > LEAF_DEPTH or at in skip:
            return
        if isinstance(v, Mapping):
            for key, item in v.items():
                walk(item, f"{at}.{key}", depth + 1)
        elif isinstance(v, list | tuple):
            for item in v:
                walk(item, at, depth + 1)
        elif scalar(v) and str(v).strip():
            out.append(str(v).strip())

    walk(value, path, 0)
    return " ".join(out) or None


def nested_texts(
    obj: Mapping[str, object], names: Sequence[str], skip: Iterable[str | None] = ()
) -> tuple[dict[str, str], dict[str, str]]:
    """Of a record's default text fields ``names``, those that hold a nested value: the text
    of each that has leaves (:func:`leaves_text`; not those at the paths ``skip`` names: the
    id and source fields), and what the others hold (for a message)."""
    skipped = frozenset(p for p in skip if p)
    flat: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for name in names:
        value = obj.get(name)
        if value is None or scalar(value):
            continue
        text = (
            leaves_text(value, name, skipped) if isinstance(value, Mapping | list | tuple) else None
        )
        if text is None:
            kinds[name] = _kind(value)
        else:
            flat[name] = text
    return flat, kinds


def _kind(value: object) -> str:
    """What a value that is not text is, for a message."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def record_from_mapping(
    obj: dict[str, object],
    source: str,
    number: int,
    id_field: str,
    text_fields: Sequence[str],
    source_field: str | None = None,
    kinds: Mapping[str, str] | None = None,
    flat: Mapping[str, str] | None = None,
) -> Record | Rejection:
    """The record of a row or object; ``kinds``: the fields left out of the text for what
    they hold (a list, a struct), named with it where the record has no text; ``flat``: the
    text of text fields that hold nested values (:func:`nested_texts`)."""
    raw_id = number if id_field == ROW_ID else field_value(obj, id_field)
    if raw_id is None:
        return Rejection(source, number, f"missing id field {id_field!r}")
    if isinstance(raw_id, str) and not raw_id.strip():
        return Rejection(source, number, f"empty id (field {id_field!r})")
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool | BigNumber):
        shown = f"{type(raw_id).__name__} {str(raw_id)[:40]}"
        reason = f"id field {id_field!r} is not a string or an integer: {shown}"
        return Rejection(source, number, reason)
    parts: dict[str, str] = {}
    for name in text_fields:
        value = flat[name] if flat and name in flat else field_value(obj, name)
        if isinstance(value, Mapping | list | tuple):  # named, read as the default text reads it
            leaves = leaves_text(value, name, frozenset(p for p in (id_field, source_field) if p))
            if leaves is None:  # nulls, true or false only: named so where there is no text
                kinds = {**(kinds or {}), name: _kind(value)}
            value = leaves
        if value is None:
            continue
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            return Rejection(source, number, f"field {name!r} is not text", str(raw_id))
        parts[name] = str(value)
    for name, value in [(id_field, str(raw_id)), *parts.items()]:
        try:
            check_text(value, f"field {name!r}")
        except InvalidText as exc:  # only JSON escapes can make one: files are decoded UTF-8
            shown = str(raw_id)[:80].encode("utf-8", "replace").decode("utf-8")
            return Rejection(source, number, str(exc), shown)
    text = " ".join(v.strip() for v in parts.values() if v.strip())
    if not text:
        kinds = kinds or {}
        named = [*text_fields, *(k for k in kinds if k not in text_fields)]
        names = ", ".join(f"{n!r} ({kinds[n]})" if n in kinds else repr(n) for n in named)
        reason = f"no text in {names or 'any field but the id'}"
        return EmptyText(source, number, reason, str(raw_id).strip())
    if source_field is None:
        return Record(str(raw_id).strip(), text, source, number, parts, raw_id=raw_id)
    origin = field_value(obj, source_field)
    if not scalar(origin) or not str(origin).strip():
        reason = f"no source in field {source_field!r}"
        return Rejection(source, number, reason, str(raw_id).strip())
    return Record(
        str(raw_id).strip(), text, str(origin).strip(), number, parts, file=source, raw_id=raw_id
    )
