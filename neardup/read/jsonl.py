"""JSON Lines: one object a line, read strictly (a key named twice, ``NaN`` and
``Infinity`` are errors; a number too large for a float is kept as it is written).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import MissingColumn
from .items import Item, Record, Rejection
from .lines import Lines, text_lines
from .rows import (
    BigNumber,
    default_text_fields,
    field_value,
    holds_field,
    nested_texts,
    record_from_mapping,
)


def read_jsonl(
    lines: Lines,
    source: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None = None,
) -> Iterator[Item]:
    """The objects of JSON Lines as records. A text key named that no object holds is an
    error (:class:`_KeysHeld`) before any record is yielded: the first objects are held back
    until each key named is seen, at most :data:`HELD_BACK` (or :data:`HELD_BACK_CHARS` of
    text); a key none of them holds is refused then (a key held by later records only is
    refused too, with how to have it read), not at the file's end, once its records are in a
    persistent index."""
    keys = _KeysHeld(text_fields or ())
    items = _read_objects(lines, source, id_field, text_fields, source_field, keys)
    held: list[Item] = []
    size = 0
    for item in items:
        held.append(item)
        size += len(item.text) if isinstance(item, Record) else 0
        if not keys.pending or len(held) >= HELD_BACK or size >= HELD_BACK_CHARS:
            break
    if keys.pending:  # (at the file's end, _read_objects has refused it already)
        keys.check(source, first=len(held))
    yield from held
    yield from items


#: How many of a file's first items :func:`read_jsonl` holds back while a text key named is
#: not yet seen, and how many characters of text at most.
HELD_BACK = 1000
HELD_BACK_CHARS = 1 << 24


def _read_objects(
    lines: Lines,
    source: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None,
    keys: _KeysHeld,
) -> Iterator[Item]:
    for item in text_lines(lines, source):
        if not isinstance(item, tuple):
            yield item
            continue
        number, text = item
        try:
            obj = decode_json(text)
        except json.JSONDecodeError as exc:
            yield Rejection(source, number, f"invalid JSON: {exc.msg} at column {exc.colno}")
            continue
        except DuplicateKey as exc:
            reason = f"duplicate key {exc.args[0]!r} in a JSON object (one value would be lost)"
            yield Rejection(source, number, reason)
            continue
        except ValueError as exc:  # NaN, or an integer of more than 4,300 digits
            yield Rejection(source, number, f"invalid JSON: {exc}")
            continue
        except RecursionError:  # Python's parser recurses once a level
            yield Rejection(source, number, "invalid JSON: nested too deep to be read")
            continue
        if not isinstance(obj, dict):
            yield Rejection(source, number, "a JSON object was expected")
            continue
        if text_fields is None:
            names = default_text_fields(obj, id_field, source_field)
            # a nested object or list: its strings and numbers; one with none (null, true or
            # false) left out of the text, but not out of the object: a nested id or source
            # (--id-field item.id) is read from them, and was "missing" on every line
            flat, kinds = nested_texts(obj, names, (id_field, source_field))
            kinds.update((k, "null") for k in names if k in obj and obj[k] is None)
            names = [n for n in names if n not in kinds]
            yield record_from_mapping(
                obj, source, number, id_field, names, source_field, kinds, flat
            )
            continue
        if keys.pending:
            keys.see(obj)
        yield record_from_mapping(obj, source, number, id_field, text_fields, source_field)
    if text_fields is not None:
        keys.check(source)


#: How many of the keys the records hold :class:`_KeysHeld` keeps to name (the first found).
KEYS_KEPT = 200


class _KeysHeld:
    """The text fields named that no object read so far holds, and the keys the objects do
    hold (for the message): a key named with --text-field that no record holds (a typo, a
    path into a list) is an error, as a CSV header without the column is, not a text that is
    empty in every record; a key some records lack is their missing value."""

    def __init__(self, names: Sequence[str]) -> None:
        self.pending = dict.fromkeys(names)
        self.objects = 0
        self.keys: dict[str, None] = {}
        #: Of a dotted path not held, what the deepest key on it that is held holds.
        self.along: dict[str, str] = {}

    def see(self, obj: dict[str, Any]) -> None:
        self.objects += 1
        if len(self.keys) < KEYS_KEPT:
            self.keys.update(dict.fromkeys(obj))
        for name in list(self.pending):
            if holds_field(obj, name):
                del self.pending[name]
            elif "." in name and name not in self.along:
                self._along(obj, name)

    def _along(self, obj: dict[str, Any], name: str) -> None:
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:end])
            if holds_field(obj, prefix):
                value = field_value(obj, prefix)
                if not isinstance(value, dict):
                    what = "a list" if isinstance(value, list) else "no object"
                    self.along[name] = f"{prefix!r} holds {what}, read whole by naming {prefix!r}"
                return

    def check(self, source: str, first: int = 0) -> None:
        """An error naming the keys named that none of the objects read holds (none: no
        object was read, or each one named is held). ``first``: the objects read are the
        first ``first`` lines of the file, not all of it."""
        if not self.pending or not self.objects:
            return
        missing = list(self.pending)
        keys = list(self.keys)
        shown = ", ".join(keys[:12]) + (f" and {len(keys) - 12} more" if len(keys) > 12 else "")
        hints = "".join(f"; {self.along[n]}" for n in missing if n in self.along)
        later = (
            f"; a key that only records further on hold is read when one of the first {first} "
            "lines holds it (move such a record up)" if first else ""
        )
        raise MissingColumn(
            f"{source}: none of its {'first ' if first else ''}{self.objects} records holds the "
            f"key{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} (their keys: "
            f"{shown}{hints}): name the text keys they have (a nested key by its path, e.g. "
            f"item.title){later}"
        )


def _not_json(constant: str) -> None:
    """``NaN`` and ``Infinity`` are not JSON (Python's reader takes them): a text of "nan"."""
    raise ValueError(f"{constant} is not a JSON value")


class DuplicateKey(ValueError):
    """A JSON object that names a key twice: Python's reader keeps the last value, silently."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def _json_float(text: str) -> float | str:
    value = float(text)
    return value if -math.inf < value < math.inf else BigNumber(text)


#: The one JSON reader of lines (made once: ``json.loads`` with hooks makes one a call): a key
#: named twice, ``NaN`` and ``Infinity`` are errors, a number too large for a float is kept as
#: it is written (:class:`BigNumber`).
_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_float=_json_float, parse_constant=_not_json
)


def decode_json(text: str) -> Any:
    """A JSON line read as :data:`_DECODER` reads it; ``RecursionError`` when it is nested too
    deep for Python's parser."""
    return _DECODER.decode(text)
