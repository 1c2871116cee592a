"""JSON Lines: one object a line, read strictly (a key named twice, ``NaN`` and
``Infinity`` are errors; a number too large for a float is kept as it is written).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

from .items import Item, Rejection
from .lines import Lines, text_lines
from .rows import BigNumber, default_text_fields, nested_texts, record_from_mapping


def read_jsonl(
    lines: Lines,
    source: str,
    id_field: str,
    text_fields: Sequence[str] | None,
    source_field: str | None = None,
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
        yield record_from_mapping(obj, source, number, id_field, text_fields, source_field)


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
