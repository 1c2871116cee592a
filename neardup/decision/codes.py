"""The codes check: a column of model numbers tells sibling models apart, where the data say the
pairs kept are siblings and not copies.

A product catalogue lists the models of one family under near-identical titles (``Crucial
CT2CP12872AV667 2 GB``, ``Crucial CT2CP51272AV667 8 GB``; ``Brother tape TZeS121``,
``TZeS221``): their whole texts are alike past any bar, and the numbers check is waived for
pairs that alike. Where most of the pairs kept are such siblings, the columns check learns from
them that a model number may differ, so it cannot see them either. What tells them apart is a
column of codes, read off the data (:func:`code_columns`): filled in most records, a digit in
nearly every value, one token, long enough to be a code, distinct from record to record, and
not a date.

Such a column does not always tell entities apart: a person's social security number or birth
date is kept by most copies and mistyped by some, and a listing number is changed by each
re-listing. So the check is made on a code column only where the kept pairs show siblings
(:func:`judge`): fewer than ``DEFAULTS.codes_agree`` of those that fill it agree on it (copies
with typos agree in most pairs), and the codes of those that disagree are alike beyond chance
(their median character 3-gram Jaccard at least ``DEFAULTS.codes_alike_ratio`` times, and
``DEFAULTS.codes_alike_margin`` above, that of records drawn at random): a family's codes
share most of their characters, unrelated listing numbers none. Where made, a kept pair whose
two records both fill the column and disagree on it is dropped. Two codes agree when equal
after the index's normalization and removing all but letters and digits, or when one holds
the other (``tlant2405c`` and ``tlant2405cl``, ``00346neat`` and ``346``).

>>> agree("TZe-S121", "tzes121"), agree("346", "00346neat"), agree("TZeS121", "TZeS221")
(True, True, False)
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..defaults import DEFAULTS
from ..keys import id_key
from ..results import Pair
from ..sign.text import char_grams, jaccard
from .dates import record_dates

SEED = 0
Rows = Mapping[str, Mapping[str, str]]
_NOT_CODE = re.compile(r"[\W_]+")


def code_of(value: str, normalize: Callable[[str], str] = str.lower) -> str:
    """``value`` after the index's normalization with all but letters and digits removed."""
    return _NOT_CODE.sub("", normalize(value)) if value and value.strip() else ""


def agree(a: str, b: str, normalize: Callable[[str], str] = str.lower) -> bool:
    """Whether two codes agree: equal as codes (:func:`code_of`), or one holds the other."""
    x, y = code_of(a, normalize), code_of(b, normalize)
    return x == y or x in y or y in x


def _share(hits: int, of: int) -> float:
    return hits / of if of else 0.0


def code_columns(rows: Rows, normalize: Callable[[str], str]) -> list[str]:
    """The columns of ``rows`` that hold codes (see the module): filled in at least
    ``DEFAULTS.codes_filled`` of the records; of those filled, a digit in at least
    ``DEFAULTS.codes_digits``, one token as written in at least ``DEFAULTS.codes_one_token``,
    at least ``DEFAULTS.codes_distinct`` distinct; codes of at least ``DEFAULTS.codes_length``
    characters (the median); fewer than ``DEFAULTS.codes_dates`` of them dates (a date written
    another way, ``1990-01-02`` and ``01/02/1990``, is the same date: the dates check,
    :mod:`neardup.decision.dates`, reads them)."""
    names = sorted({c for row in rows.values() for c in row})
    out = []
    for name in names:
        raw = [v.strip() for row in rows.values() if (v := row.get(name, "")) and v.strip()]
        codes = [c for c in (code_of(v, normalize) for v in raw) if c]
        filled = len(codes)
        if (
            filled < 2
            or filled < DEFAULTS.codes_filled * len(rows)
            or _share(sum(any(ch.isdigit() for ch in c) for c in codes), filled)
            < DEFAULTS.codes_digits
            or _share(sum(not any(ch.isspace() for ch in v) for v in raw), len(raw))
            < DEFAULTS.codes_one_token
            or statistics.median(len(c) for c in codes) < DEFAULTS.codes_length
            or _share(len(set(codes)), filled) < DEFAULTS.codes_distinct
            or _share(sum(bool(record_dates(v)) for v in raw), len(raw)) >= DEFAULTS.codes_dates
        ):
            continue
        out.append(name)
    return out


def _grams(code: str) -> frozenset[str]:
    return frozenset(char_grams(code, 3))


@dataclass(frozen=True)
class Judged:
    """What the kept pairs say of one code column: ``pairs`` fill it on both sides, ``agree``
    of them agree; the median 3-gram Jaccard of the codes of those that disagree (``alike``)
    and of records drawn at random (``chance``); whether the check is ``made`` on it."""

    column: str
    pairs: int
    agree: float
    alike: float
    chance: float
    made: bool

    def why(self) -> str:
        """Why the check is made on the column or not, in plain words."""
        if self.pairs < DEFAULTS.codes_min_pairs:
            return (f"not made: {self.pairs} kept pairs fill it on both sides (fewer than "
                    f"{DEFAULTS.codes_min_pairs})")  # fmt: skip
        if self.agree >= DEFAULTS.codes_agree:
            return (f"not made: the pairs kept agree on it in {self.agree:.0%} of cases, as "
                    "copies do")  # fmt: skip
        if not self.made:
            return (f"not made: the codes of the pairs kept that differ are no more alike than "
                    f"at random (median 3-gram Jaccard {self.alike:.2f} against "
                    f"{self.chance:.2f}): a number each listing has, not a model's")  # fmt: skip
        return (f"the pairs kept agree on it in {self.agree:.0%} of cases and their codes "
                f"differ as siblings' do (median 3-gram Jaccard {self.alike:.2f} against "
                f"{self.chance:.2f} at random)")  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        return {"column": self.column, "pairs": self.pairs, "agree": self.agree,
                "alike": self.alike, "chance": self.chance, "made": self.made,
                "reason": self.why()}  # fmt: skip


def judge(
    column: str, kept: Sequence[Pair], rows: Rows, normalize: Callable[[str], str]
) -> Judged:
    """Whether the kept pairs show siblings on ``column`` (see the module), read over ``rows``:
    the kept pairs' records and the records read for the column's kind."""
    code = {i: c for i, row in rows.items() if (c := code_of(row.get(column, ""), normalize))}
    both = [(code[p.id1], code[p.id2]) for p in kept if p.id1 in code and p.id2 in code]
    differ = [(a, b) for a, b in both if not (a == b or a in b or b in a)]
    agreed = _share(len(both) - len(differ), len(both))
    alike = statistics.median(jaccard(_grams(a), _grams(b)) for a, b in differ) if differ else 0.0
    filled = sorted(code, key=id_key)
    rng = random.Random(SEED)
    drawn = [rng.sample(filled, 2) for _ in range(DEFAULTS.codes_random_pairs)] if len(
        filled) >= 2 else []  # fmt: skip
    chance = statistics.median(jaccard(_grams(code[a]), _grams(code[b])) for a, b in drawn
                               ) if drawn else 0.0  # fmt: skip
    made = (
        len(both) >= DEFAULTS.codes_min_pairs
        and agreed < DEFAULTS.codes_agree
        and alike >= DEFAULTS.codes_alike_ratio * chance
        and alike >= chance + DEFAULTS.codes_alike_margin
    )
    return Judged(column, len(both), agreed, alike, chance, made)


def codes_differ(
    pairs: Sequence[Pair], rows: Rows, columns: Sequence[str], normalize: Callable[[str], str]
) -> tuple[list[Pair], list[Pair]]:
    """``pairs`` without those whose records both fill one of ``columns`` and disagree on it,
    and those dropped."""
    out: list[Pair] = []
    gone: list[Pair] = []
    for p in pairs:
        a, b = rows.get(p.id1, {}), rows.get(p.id2, {})
        differ = any(
            (x := code_of(a.get(c, ""), normalize)) and (y := code_of(b.get(c, ""), normalize))
            and not (x == y or x in y or y in x)
            for c in columns
        )
        (gone if differ else out).append(p)
    return out, gone


def read_ids(kept: Sequence[Pair], records: Iterable[str]) -> list[str]:
    """The records a code column is read over: a seeded sample of ``DEFAULTS.codes_sample``
    of ``records``, with every kept pair's."""
    every = sorted(set(records), key=id_key)
    if len(every) > DEFAULTS.codes_sample:
        every = random.Random(SEED).sample(every, DEFAULTS.codes_sample)
    return sorted({*every, *(i for p in kept for i in (p.id1, p.id2))}, key=id_key)


def codes_disagree(
    kept: list[Pair], records: Iterable[str], read: Callable[[list[str]], Rows],
    normalize: Callable[[str], str],
) -> tuple[list[Pair], dict[str, Any]]:
    """The kept pairs the codes check lets stand (see the module) and what it found: each code
    column judged, those it was made on, the pairs dropped. ``records``: the ids the code
    columns are read off (:func:`read_ids`); ``read``: the records' columns."""
    if not kept:
        return kept, {}
    ids = read_ids(kept, records)
    rows = read(ids)
    judged = [judge(c, kept, rows, normalize) for c in code_columns(rows, normalize)]
    made = [j.column for j in judged if j.made]
    out, gone = codes_differ(kept, rows, made, normalize) if made else (kept, [])
    return out, {"columns": [j.as_dict() for j in judged], "made": made, "dropped": len(gone)}
