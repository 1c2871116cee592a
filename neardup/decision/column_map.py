"""Which column of one source is which column of another: by name, by content, or as given.

Two catalogues seldom name their columns alike (``title``/``product_name``,
``price``/``cost_eur``), and a check that compares columns by name alone compares nothing
across them. A :class:`ColumnMap` renames every source's columns into the names of the first
source (the index's primary one), so that the columns check (:mod:`neardup.decision.columns`) and
the
review page compare them column to column. Columns are matched, in this order:

1. as the user maps them (``title=product_name``);
2. by name, written one way (case, punctuation, an ontology URI's prefix left out);
3. by content, read off pairs that are nearly all matches (the pairs a rule kept): for two
   columns of text, how much more alike their values are within those pairs than across
   shuffled ones (character 3-grams); for two columns of numbers, the rank correlation of
   their values over those pairs. Best first, each column at most once.

Why from pairs and not from the columns' values alone: two columns of brand names and of
colours both hold short words; only the pairs say which one the other source calls ``maker``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ArgumentError
from ..sign.text import char_grams, jaccard, normalize

#: Pairs needed before columns are matched by content; fewer say nothing reliable.
MIN_ANCHORS = 8
#: At most this many pairs are read to match columns by content.
MAX_ANCHORS = 500
#: Two text columns are one when their values within pairs are at least this much more alike
#: (mean Jaccard of character 3-grams) than across shuffled pairs.
TEXT_LIFT = 0.25
#: Two number columns are one when their values' rank correlation over the pairs reaches this,
#: and across shuffled pairs stays under half of it.
NUMBER_CORRELATION = 0.8
#: A column is numbers when this share of its values (among the pairs) reads as a number.
NUMERIC_SHARE = 0.8

Row = Mapping[str, str]
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def name_key(column: str) -> str:
    """A column's name written one way: an ontology URI's prefix left out, case folded,
    letters and digits only (``http://x.org/onto#Product_Name`` -> ``productname``)."""
    tail = column.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1] or column
    return "".join(c for c in tail.casefold() if c.isalnum())


def parse_given(spec: str | Iterable[str] | Mapping[str, str] | None) -> dict[str, str]:
    """Column pairs as the user gives them: ``"title=product_name,price=cost_eur"``, a list of
    ``"a=b"``, or a mapping; each name once."""
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        items = list(spec.items())
    else:
        parts = spec.split(",") if isinstance(spec, str) else list(spec)
        items = []
        for part in parts:
            left, sep, right = str(part).partition("=")
            if not sep or not left.strip() or not right.strip():
                raise ArgumentError(
                    f"a column pair is written NAME=NAME (title=product_name), got {part!r}"
                )
            items.append((left.strip(), right.strip()))
    given: dict[str, str] = {}
    for left, right in items:
        if left in given or right in given.values():
            raise ArgumentError(f"the column {left!r} or {right!r} is mapped twice")
        given[str(left)] = str(right)
    return given


@dataclass(frozen=True)
class ColumnMap:
    """Every source's columns renamed into the primary source's names."""

    #: (source, column) -> the name it is compared under; columns not here keep their names.
    alias: dict[tuple[str, str], str] = field(default_factory=dict)
    #: What was matched and how: (first source's column, other's column, how, score).
    matched: list[tuple[str, str, str, float]] = field(default_factory=list)

    def rename(self, source: str | None, row: Row) -> dict[str, str]:
        """``row`` (a record's columns) with its columns under their compared names."""
        if not self.alias or source is None:
            return dict(row)
        return {self.alias.get((source, k), k): v for k, v in row.items()}

    def pairs(self) -> list[str]:
        """The column pairs, as ``a=b (how)``, for a report's words."""
        return [f"{a}={b} ({how})" for a, b, how, _ in self.matched]

    def as_dict(self) -> dict[str, Any]:
        return {
            "matched": [
                {"column": a, "other": b, "by": how, "score": round(score, 3)}
                for a, b, how, score in self.matched
            ]
        }


def match_columns(
    anchors: Sequence[tuple[str, Row, str, Row]],
    given: Mapping[str, str] | None = None,
    primary: str | None = None,
) -> ColumnMap:
    """The columns of the two sources of ``anchors`` (pairs ``(source, row, source, row)``
    that are nearly all matches) matched one to one: as ``given``, by name, then by content.
    The first source is ``primary`` where it is one of them, else the first anchor's."""
    anchors = [a for a in anchors if a[0] != a[2]]
    if not anchors:
        return ColumnMap()
    sources = {s for a in anchors for s in (a[0], a[2])}
    first = primary if primary in sources else anchors[0][0]
    others = sorted(sources - {first})
    if len(others) != 1:  # three sources and more: each against the first, in turn
        alias: dict[tuple[str, str], str] = {}
        matched: list[tuple[str, str, str, float]] = []
        for other in others:
            part = [a for a in anchors if {a[0], a[2]} == {first, other}]
            found = match_columns(part, given, first)
            alias.update(found.alias)
            matched += found.matched
        return ColumnMap(alias, matched)
    other = others[0]
    rows = [(r1, r2) if s1 == first else (r2, r1) for s1, r1, _, r2 in anchors]
    left = list(dict.fromkeys(c for r, _ in rows for c in r))
    right = list(dict.fromkeys(c for _, r in rows for c in r))
    out: dict[str, tuple[str, str, float]] = {}  # other's column -> (first's column, how, score)
    taken: set[str] = set()
    for a, b in (given or {}).items():
        a, b = (a, b) if a in left or b in right else (b, a)
        if a in left and b in right:
            out[b] = (a, "given", 1.0)
            taken.add(a)
    by_name = {name_key(c): c for c in left if c not in taken}
    for b in right:
        a = by_name.get(name_key(b))
        if b not in out and a is not None and a not in taken:
            out[b] = (a, "name", 1.0)
            taken.add(a)
    free_left = [c for c in left if c not in taken]
    free_right = [c for c in right if c not in out]
    if len(rows) >= MIN_ANCHORS and free_left and free_right:
        for a, b, how, score in _by_content(rows[:MAX_ANCHORS], free_left, free_right):
            out[b] = (a, how, score)
    alias = {(other, b): a for b, (a, _, _) in out.items() if a != b}
    matched = sorted(((a, b, how, score) for b, (a, how, score) in out.items()),
                     key=lambda m: left.index(m[0]))  # fmt: skip
    return ColumnMap(alias, matched)


def _by_content(
    rows: Sequence[tuple[Row, Row]], left: Sequence[str], right: Sequence[str]
) -> list[tuple[str, str, str, float]]:
    """Column pairs whose values agree within the pairs far more than across them, best
    first, each column once."""
    shuffled = [(rows[i][0], rows[(i + 1) % len(rows)][1]) for i in range(len(rows))]
    scored = []
    for a in left:
        for b in right:
            found = _agreement(rows, a, b)
            if found is None:
                continue
            how, within = found
            across = _agreement(shuffled, a, b)
            base = across[1] if across is not None else 0.0
            if how == "text" and within - base >= TEXT_LIFT:
                scored.append((within - base, a, b, "content"))
            elif how == "numbers" and within >= NUMBER_CORRELATION and base < within / 2:
                scored.append((within, a, b, "numbers"))
    scored.sort(key=lambda s: -s[0])
    used_a: set[str] = set()
    used_b: set[str] = set()
    out = []
    for score, a, b, how in scored:
        if a not in used_a and b not in used_b:
            used_a.add(a)
            used_b.add(b)
            out.append((a, b, how, score))
    return out


def _agreement(rows: Sequence[tuple[Row, Row]], a: str, b: str) -> tuple[str, float] | None:
    """How the values of column ``a`` of the first records and ``b`` of the second agree:
    the rank correlation where both are numbers, else the mean Jaccard of character 3-grams;
    None where too few pairs hold both."""
    values = [(r1.get(a) or "", r2.get(b) or "") for r1, r2 in rows]
    values = [(x, y) for x, y in values if x.strip() and y.strip()]
    if len(values) < MIN_ANCHORS:
        return None
    xs, ys = [_number(x) for x, _ in values], [_number(y) for _, y in values]
    numeric = [(x, y) for x, y in zip(xs, ys, strict=True) if x is not None and y is not None]
    if len(numeric) >= NUMERIC_SHARE * len(values):
        return "numbers", _rank_correlation(numeric)
    sims = [
        jaccard(set(char_grams(normalize(x), 3)), set(char_grams(normalize(y), 3)))
        for x, y in values
    ]
    return "text", float(np.mean(sims))


def _number(value: str) -> float | None:
    """The one number a cell holds (``"591.37"``, ``"EUR 544,06"``), else None."""
    found = _NUMBER.findall(value)
    if len(found) != 1:
        return None
    return float(found[0].replace(",", "."))


def _rank_correlation(values: Sequence[tuple[float, float]]) -> float:
    """Spearman's rank correlation (scipy's), 0 where either side is constant."""
    from scipy.stats import spearmanr  # scipy is a dependency; imported where it is used

    x = np.asarray([v[0] for v in values], dtype=np.float64)
    y = np.asarray([v[1] for v in values], dtype=np.float64)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return float(spearmanr(x, y).statistic)
