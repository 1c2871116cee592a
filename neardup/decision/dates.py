"""The dates check: two records that each hold a full date (day, month and year) and share no
date are two entities, where the data's dates identify records.

Members of one household share a surname, an address and a phone; what tells them apart is a
given name and a date of birth. The numbers check (:mod:`neardup.decision.identifiers`) lets
them through: they share the house number and the phone. Read as dates, whatever way each
record writes them (``1974-06-03``, ``06/03/1974``, ``3 Jun 1974``, ``June 3, 1974``,
``19740603``), a person's two records hold one date and two people's hold two.

A date of one record is the other's within one keying error (:func:`dates_close`): a digit
substituted, two adjacent digits swapped, day and month swapped (``03/06`` read the other way
round). Person records corrupt dates of birth so.

Not every date identifies: a news story's copy and its original are published on other days,
a citation's year is not a date at all. Nor every record's dates: a person's
two records may hold two dates of birth where one was typed in wrong. So the dates of long
records (documents) are not read, and the check is made only where the pairs kept say the dates
are copied as they are (:func:`dates_identify`): those that agree on a date agree exactly.

>>> sorted(record_dates("Richard Ramirez, 1974-06-03, 12 Main St"))
[(1974, 6, 3)]
>>> sorted(record_dates("Betty, 3 Jun 1974")) == sorted(record_dates("June 3, 1974 Betty"))
True
>>> dates_close(record_dates("1974-06-03"), record_dates("06/03/1974"))
True
>>> dates_close(record_dates("1974-06-03"), record_dates("1993-02-19"))
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..defaults import DEFAULTS
from ..results import Pair

#: A date as (year, month, day).
Date = tuple[int, int, int]

_MONTHS = {
    name: n
    for n, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        1,
    )
    for name in names
}  # fmt: skip
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
#: 1974-06-03, 1974/6/3, 1974.06.03: year first, then month and day.
_ISO = re.compile(rf"(?<![\d.]){_YEAR}([-/.])(\d{{1,2}})\2(\d{{1,2}})(?![\d.])")
#: 03/06/1974, 6-3-1974, 03.06.1974: day and month in either order, then the year.
_NUMERIC = re.compile(r"(?<![\d.])(\d{1,2})([-/.])(\d{1,2})\2(\d{4})(?![\d.])")
#: 3 June 1974, 3rd Jun. 1974, 3-Jun-1974.
_DAY_MONTH = re.compile(rf"(?<!\w){_DAY}[\s\-/]*{_MONTH}[\s,\-/]*{_YEAR}(?!\d)", re.I)
#: June 3, 1974; Jun 3 1974.
_MONTH_DAY = re.compile(rf"(?<!\w){_MONTH}\s*{_DAY},?\s*{_YEAR}(?!\d)", re.I)
#: 19740603: eight digits alone, year first.
_COMPACT = re.compile(r"(?<![\d.\-/])(\d{4})(\d{2})(\d{2})(?![\d.\-/])")
#: The years a date may be in: wider, and an eight-digit number is a phone or a code.
_YEARS = range(1800, 2100)


def _valid(y: int, m: int, d: int) -> bool:
    return y in _YEARS and 1 <= m <= 12 and 1 <= d <= 31


def record_dates(text: str) -> frozenset[Date]:
    """The full dates a record's text holds, each as (year, month, day); a date written with
    day and month that could be either way round (``03/06/1974``) is both.

    >>> sorted(record_dates("born 03/06/1974"))
    [(1974, 3, 6), (1974, 6, 3)]
    >>> record_dates("Casablanca (1942)"), record_dates("call 617-555-0101")
    (frozenset(), frozenset())
    """
    if not any(c.isdigit() for c in text):
        return frozenset()
    out: set[Date] = set()
    for m in _ISO.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if _valid(y, mo, d):
            out.add((y, mo, d))
    for m in _NUMERIC.finditer(text):
        a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
        out.update((y, mo, d) for mo, d in ((a, b), (b, a)) if _valid(y, mo, d))
    for m in _DAY_MONTH.finditer(text):
        d, mo, y = int(m.group(1)), _MONTHS[m.group(2).lower()], int(m.group(3))
        if _valid(y, mo, d):
            out.add((y, mo, d))
    for m in _MONTH_DAY.finditer(text):
        mo, d, y = _MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3))
        if _valid(y, mo, d):
            out.add((y, mo, d))
    for m in _COMPACT.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if _valid(y, mo, d):
            out.add((y, mo, d))
    return frozenset(out)


def _digits(date: Date) -> str:
    return f"{date[0]:04d}{date[1]:02d}{date[2]:02d}"


def _one_error(a: Date, b: Date) -> bool:
    """Whether ``b`` is ``a`` after one keying error: a digit substituted, two adjacent digits
    swapped, or day and month swapped."""
    if a == b or (a[0], a[2], a[1]) == b:
        return True
    x, y = _digits(a), _digits(b)
    differ = [n for n in range(8) if x[n] != y[n]]
    if len(differ) == 1:
        return True
    n = differ[0] if len(differ) == 2 else -1
    return differ == [n, n + 1] and x[n] == y[n + 1] and x[n + 1] == y[n]


def dates_close(a: Iterable[Date], b: Iterable[Date]) -> bool:
    """Whether some date of ``a`` is a date of ``b``, within one keying error.

    >>> dates_close({(1974, 6, 3)}, {(1974, 6, 8)}), dates_close({(1974, 6, 3)}, {(1947, 6, 3)})
    (True, True)
    >>> dates_close({(1974, 6, 3)}, {(1975, 6, 4)})
    False
    """
    b = list(b)
    return any(_one_error(x, y) for x in a for y in b)


class RecordDates:
    """Each record's dates (:func:`record_dates` of its text), read once; none of a record of
    more than ``DEFAULTS.dates_max_words`` words: a document's dates are the days it was
    published or tells of, which a copy may change."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = texts
        self.cache: dict[str, frozenset[Date]] = {}

    def __call__(self, i: str) -> frozenset[Date]:
        got = self.cache.get(i)
        if got is None:
            text = self.texts.get(i, "")
            long = len(text.split()) > DEFAULTS.dates_max_words
            got = self.cache[i] = frozenset() if long else record_dates(text)
        return got

    def differ(self, a: str, b: str) -> bool:
        """Whether both records hold a date and none of one is close to one of the other."""
        x, y = self(a), self(b)
        return bool(x) and bool(y) and not dates_close(x, y)


def dates_identify(kept: Iterable[Pair], dates: RecordDates) -> tuple[bool, str]:
    """Whether the records' dates tell entities apart here, read off the kept pairs whose
    records both hold a date and agree on one (within one keying error): at least
    ``DEFAULTS.dates_min_pairs`` of them, and at most ``DEFAULTS.dates_noisy`` agreeing only
    within an error.

    Why keying errors say so: where dates are typed in with errors they are typed in wholly
    wrong too (a person's two records, one with another's date of birth), and two dates that
    differ say nothing. Where the pairs that agree always agree exactly, the dates were
    copied as they are, and two dates are two entities."""
    close = [p for p in kept if dates(p.id1) and dates(p.id2) and not dates.differ(p.id1, p.id2)]
    least = DEFAULTS.dates_min_pairs
    if len(close) < least:
        return False, (
            f"not made: {len(close)} pairs whose records agree on a date (fewer than {least})"
        )
    typos = sum(1 for p in close if dates(p.id1).isdisjoint(dates(p.id2)))
    share = typos / len(close)
    if share > DEFAULTS.dates_noisy:
        return False, (
            f"not made: {typos} of the {len(close)} pairs whose records agree on a date agree "
            f"but for a keying error ({share:.1%}, more than {DEFAULTS.dates_noisy:.1%}), so "
            "dates here are typed in with errors and two dates do not tell entities apart"
        )
    return True, (
        f"made: {typos} of the {len(close)} pairs whose records agree on a date agree but for "
        "a keying error"
    )


def dates_disagree(kept: list[Pair], texts: Mapping[str, str]) -> tuple[list[Pair], dict[str, Any]]:
    """The kept pairs without those whose records both hold a date and share none (within one
    keying error), where the kept pairs say dates identify records here
    (:func:`dates_identify`); and what was found."""
    dates = RecordDates(texts)
    identify, why = dates_identify(kept, dates)
    if not identify:
        return kept, {"dates_check": why, "dates_disagree": 0}
    out = [p for p in kept if not dates.differ(p.id1, p.id2)]
    return out, {"dates_check": why, "dates_disagree": len(kept) - len(out)}

def dates_differ(pairs: list[Pair], texts: Mapping[str, str]) -> tuple[list[Pair], list[Pair]]:
    """The pairs whose records do not both hold a date and share none, and those that do: for
    pairs added after the check was made (:class:`neardup.decision.decide.StandingOut`)."""
    dates = RecordDates(texts)
    differ = [dates.differ(p.id1, p.id2) for p in pairs]
    return (
        [p for p, d in zip(pairs, differ, strict=True) if not d],
        [p for p, d in zip(pairs, differ, strict=True) if d],
    )
