"""Dates written in one form for the weighted link: two registries that write a date of birth
``07/03/1980`` and ``1980-03-07`` hold one date, which TF-IDF character grams see as two.

Every full date that :func:`neardup.decision.dates.record_dates` reads is written year first
(``1980-03-07``, the form an ISO date keeps through normalization) in the texts the link cuts
into grams. Only those: the index's own texts, which sign its records, are left as written.

A date written with day and month that could be either way round (``07/03/1980``) is read the
way the same source's unambiguous dates say (``25/03/1980``: day first), where they all but
all say one way; else it is left as written, since guessing would make a wrong date of a right
one.

>>> one_form("born 7 March 1980 in Leeds", None)
'born 1980-03-07 in Leeds'
>>> one_form("07/03/1980", True), one_form("07/03/1980", False), one_form("07/03/1980", None)
('1980-03-07', '1980-07-03', '07/03/1980')
>>> day_first(["25/03/1980", "13/01/1975", "07/03/1980"] * 5), day_first(["07/03/1980"] * 15)
(True, None)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ..defaults import DEFAULTS
from .dates import _DAY_MONTH, _ISO, _MONTH_DAY, _MONTHS, _NUMERIC, _valid


def _iso(y: int, m: int, d: int) -> str:
    return f"{y:04d}-{m:02d}-{d:02d}"


def day_first(texts: Iterable[str]) -> bool | None:
    """Whether the numeric dates of ``texts`` put the day first (True), the month first
    (False), or neither is said: fewer than ``DEFAULTS.date_order_min`` of them tell (a day
    above 12), or more than ``DEFAULTS.date_order_noisy`` of those that tell say the other way.
    """
    days = months = 0
    for text in texts:
        if not any(c.isdigit() for c in text):
            continue
        for m in _NUMERIC.finditer(text):
            a, b = int(m.group(1)), int(m.group(3))
            days += a > 12 >= b
            months += b > 12 >= a
    told = days + months
    if told < DEFAULTS.date_order_min:
        return None
    if months <= DEFAULTS.date_order_noisy * told:
        return True
    if days <= DEFAULTS.date_order_noisy * told:
        return False
    return None


def source_orders(texts: Sequence[str], sources: Sequence[str]) -> dict[str, bool | None]:
    """Each source's order of day and month (:func:`day_first` of its records' texts)."""
    by_source: dict[str, list[str]] = {}
    for text, src in zip(texts, sources, strict=True):
        by_source.setdefault(src, []).append(text)
    return {src: day_first(held) for src, held in by_source.items()}


def one_form(text: str, first_day: bool | None) -> str:
    """``text`` with its full dates written year first; an ambiguous numeric date read day
    first (``first_day`` True), month first (False), or left as written (None)."""
    if not any(c.isdigit() for c in text):
        return text

    def iso(m: re.Match[str]) -> str:
        y, mo, d = int(m.group(1)), int(m.group(3)), int(m.group(4))
        return _iso(y, mo, d) if _valid(y, mo, d) else m.group(0)

    def numeric(m: re.Match[str]) -> str:
        a, b, y = int(m.group(1)), int(m.group(3)), int(m.group(4))
        ways = [(mo, d) for mo, d in ((a, b), (b, a)) if _valid(y, mo, d)]
        if len(ways) == 2 and a != b:
            if first_day is None:
                return m.group(0)
            ways = [(b, a)] if first_day else [(a, b)]
        return _iso(y, *ways[0]) if ways else m.group(0)

    def day_month(m: re.Match[str]) -> str:
        d, mo, y = int(m.group(1)), _MONTHS[m.group(2).lower()], int(m.group(3))
        return _iso(y, mo, d) if _valid(y, mo, d) else m.group(0)

    def month_day(m: re.Match[str]) -> str:
        mo, d, y = _MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3))
        return _iso(y, mo, d) if _valid(y, mo, d) else m.group(0)

    text = _ISO.sub(iso, text)
    text = _NUMERIC.sub(numeric, text)
    text = _DAY_MONTH.sub(day_month, text)
    return _MONTH_DAY.sub(month_day, text)


def in_one_form(
    texts: Sequence[str], sources: Sequence[str], orders: Mapping[str, bool | None] | None = None
) -> tuple[list[str], dict[str, bool | None]]:
    """``texts`` with their dates in one form (:func:`one_form`), each source's ambiguous dates
    read the way ``orders`` says, or its own unambiguous dates say where ``orders`` says
    nothing of it; and the orders read."""
    said = dict(orders or {})
    missing = [n for n, src in enumerate(sources) if src not in said]
    if missing:
        read = source_orders([texts[n] for n in missing], [sources[n] for n in missing])
        said.update(read)
    return [one_form(t, said[s]) for t, s in zip(texts, sources, strict=True)], said
