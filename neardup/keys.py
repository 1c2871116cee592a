"""Record keys: a record is its source and its id, so two files may both number from 0; and
the order of ids that every output shares (:func:`id_key`).

A backend keys documents by one string. Two catalogues indexed into one collection often share
ids (each numbers its rows from 0): keyed by id alone, the second file would silently replace
the first one's records. So a record's key is its id *and* its source, written as

* ``id`` for the records of the index's **primary source** (the source of the first record ever
  written to it), so that an index of one file keys every record by its id as it always did
  (``neighbors 42``, ``delete 42`` and every output read the same);
* ``id`` + :data:`SEP` + ``source`` for the records of any other source.

:data:`SEP` is a control character, which no id may hold (the readers refuse such ids), so a key
never collides with another record's and :func:`record_id` always gives the id back.

>>> key_of("7", "b.csv", primary="a.csv"), key_of("7", "a.csv", primary="a.csv")
('7\\x1fb.csv', '7')
>>> record_id("7\\x1fb.csv"), source_of_key("7\\x1fb.csv"), source_of_key("7")
('7', 'b.csv', None)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

#: Between a record's id and its source in the key of a record of a secondary source.
SEP = "\x1f"


def key_of(record_id: str, source: str, primary: str | None) -> str:
    """The storage key of a record of ``source`` in an index whose primary source is
    ``primary`` (None: no record written yet, so this record's source becomes the primary)."""
    if primary is None or source == primary:
        return record_id
    return f"{record_id}{SEP}{source}"


def record_id(key: str) -> str:
    """The id a record was given, from its storage key."""
    return key.partition(SEP)[0]


def source_of_key(key: str) -> str | None:
    """The source written into a key (None for a record of the primary source)."""
    rid, sep, source = key.partition(SEP)
    return source if sep else None


def qualified(key: str) -> bool:
    """Whether a key is that of a record of a secondary source."""
    return SEP in key


def id_key(record_id: str) -> tuple[int, int, str]:
    """Sort key of an id: numeric ids as numbers (``"9" < "10"``, the seed's ``toInt``), then
    the others as text. Pairs, clusters and reports all order ids by it. (Decimal digits
    only: ``"²"`` is a digit that ``int`` cannot read, so it is text.) Ids of one value
    written two ways (``1``, ``01``, ``001``) are ordered as text, so the order is total:
    no tie is left to the order a backend stores or returns the records in.

    >>> sorted(["10", "01", "9", "1", "a"], key=id_key)
    ['01', '1', '9', '10', 'a']
    """
    if not record_id.isdecimal():
        return (1, 0, record_id)
    if len(record_id) <= _INT_DIGITS:
        return (0, int(record_id), record_id)
    value = 0  # Python reads at most 4,300 digits at once
    for lo in range(0, len(record_id), _INT_DIGITS):
        chunk = record_id[lo : lo + _INT_DIGITS]
        value = value * 10 ** len(chunk) + int(chunk)
    return (0, value, record_id)


#: Digits ``int`` reads at once (Python's limit is 4,300).
_INT_DIGITS = 4000


def source_like(name: str, sources: Sequence[str]) -> str | None:
    """The source among ``sources`` that a file named ``name`` elsewhere is: that file however
    spelled (:func:`source_named`), else the one source of that file name (a labels or gold
    file written in another folder, ``a.csv`` of ``/data/a.csv``); None if none or several."""
    named = source_named(name, sources)
    if named is not None or not name:
        return named
    base = [s for s in sources if Path(s).name == Path(name).name]
    return base[0] if len(base) == 1 else None


def source_named(name: str | Path, sources: Iterable[str]) -> str | None:
    """The name among ``sources`` that is the file ``name``, whatever the spelling of either
    (``index`` names a file by its absolute path; a flag, a labels file or a review page gives
    it as typed); None where none is that file."""
    names = list(sources)
    if str(name) in names:
        return str(name)
    try:
        real = Path(name).resolve()
    except (OSError, RuntimeError, ValueError):  # no path
        return None
    for known in names:
        try:
            if known == str(real) or Path(known).resolve() == real:
                return known
        except (OSError, RuntimeError, ValueError):  # a source that is no path
            continue
    return None
