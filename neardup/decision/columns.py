"""A second opinion from the columns: pairs whose fields look like the non-matches' are dropped.

The valley rule (:mod:`neardup.decision.valley`) judges a pair by the Jaccard of its whole text.
Records with columns say more than their joined text: two people of one family at one address share
most of their text but neither given name nor birth date; two shops in one building share the
address but not the name. Which columns decide depends on the data, and no labels say it, but
the valley's own split does:

* the pairs the valley keeps are mostly matches: per column, how similar the two values are
  among them (``m``, levels of :func:`neardup.decision.fellegi_sunter.levels`);
* the candidates it drops (verified at the floor, below the valley) are mostly non-matches: the
  same per column among them (``u``);
* each kept pair's columns then weigh for or against it (Fellegi-Sunter: the sum of
  ``log m/u`` over its columns, plus the kept share as the prior). A kept pair whose chance of
  being a match, so computed, is under ``DEFAULTS.columns_cut`` (:mod:`neardup.defaults`) is
  dropped: its columns agree the way the dropped candidates' do, and not the way the kept
  pairs' do.

Two refinements against hard negatives (relatives at one address, shops in one building),
which the valley keeps and which are many of its pairs on generated multilingual records:

* ``m`` is learned from the kept pairs that are the best match of both their records (mutual
  best): a relative is rarely both records' best match while a copy usually is, so ``m`` no
  longer learns that a birth date or given name may disagree;
* a kept pair whose columns' weight is ``DEFAULTS.columns_margin_bits`` bits (1024 times) below
  the best weight of each of its two records is dropped: both records have a far better
  match, and the one at hand shares the household's columns, not the person's. The
  below-valley candidates cannot teach this: they disagree on the address too, so agreeing on
  it weighs for a pair (the columns of a household agree together, which Fellegi-Sunter's
  independence does not see).

One step from the valley's split, not EM run to convergence: EM from scratch moved its
components onto the wrong groups on three of five development datasets; anchored to the valley
it only removes. Each column is compared by the Jaccard of its character 3-grams after the
index's normalization, so typos and scripts are treated as the text is. A column missing on
either side weighs neither way.

On the development suite the check gained most where people of one name differ by birth
date (German person records) and changed the others little; the refinements gained
on the hard negatives of the multilingual records and the music, and each alone gave only a
small part of that; a smaller margin starts to drop the citations' copies in other styles (the
figures: docs/accuracy.md, "What each step for records did when it was added").

>>> from neardup import Params
>>> from neardup.results import Pair
>>> proc = Params().processor()
>>> kept = [Pair(str(i), str(i + 100), 0.8, 1) for i in range(40)]
>>> dropped = [Pair(str(i), str(i + 200), 0.4, 3) for i in range(40)]
>>> rows = {str(i): {"name": f"name{i}", "city": "Rome"} for i in range(40)}
>>> rows |= {str(i + 100): {"name": f"name{i}", "city": "Rome"} for i in range(40)}
>>> rows |= {str(i + 200): {"name": f"other{i * 7}", "city": "Rome"} for i in range(40)}
>>> rows["39"] = {"name": "other273", "city": "Rome"}   # a kept pair whose names differ
>>> out, check = columns_disagree(kept, dropped, rows, proc)
>>> check.dropped, len(out)
(1, 39)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from ..graph import union_find
from ..results import Pair
from ..sign.minhash import ShingleProcessor
from ..sign.text import char_grams, jaccard
from .assign import best_of_each
from .fellegi_sunter import LEVELS, MISSING, MatchRule, estimate, levels

SEED = 0


@dataclass
class FieldCheck:
    """What the columns said: compared columns, the pairs dropped, and each column's weight."""

    columns: list[str]
    dropped: int = 0
    #: Of ``dropped``, those dropped for being far below both records' best match.
    far: int = 0
    #: Kept pairs that are the best match of both their records: what ``m`` is learned from.
    mutual: int = 0
    #: The pairs the check would have dropped where it was not applied (too many of the kept:
    #: ``DEFAULTS.columns_max_share``); 0 where it was.
    withheld: int = 0
    #: Where the check would drop more than ``DEFAULTS.columns_max_share``: the share of the
    #: candidates below the threshold that the kept pairs join (:func:`joined_below`).
    joined: float | None = None
    kept_pairs: int = 0
    other_pairs: int = 0
    reason: str = ""
    #: Per column, the log2 ratio m/u of each level (missing first, then low to high).
    weights: dict[str, list[float]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "columns": self.columns,
            "dropped": self.dropped,
            "far_below_best": self.far,
            "withheld": self.withheld,
            "joined_below": self.joined,
            "mutual_best": self.mutual,
            "margin_bits": DEFAULTS.columns_margin_bits,
            "kept_pairs": self.kept_pairs,
            "other_pairs": self.other_pairs,
            "cut": DEFAULTS.columns_cut,
            "reason": self.reason,
            "weights": self.weights,
        }


class _Columns:
    """Column values of records as sets of character grams, computed once per value."""

    def __init__(
        self, rows: dict[str, dict[str, str]], columns: list[str], proc: ShingleProcessor
    ) -> None:
        self.rows, self.columns, self.proc = rows, columns, proc
        self.cache: dict[tuple[str, str], frozenset[str] | None] = {}

    def grams(self, record: str, column: str) -> frozenset[str] | None:
        key = (record, column)
        if key not in self.cache:
            value = self.rows.get(record, {}).get(column, "")
            norm = self.proc.normalize(value) if value.strip() else ""
            self.cache[key] = frozenset(char_grams(norm, DEFAULTS.columns_gram)) if norm else None
        return self.cache[key]

    def similarities(self, pairs: Sequence[Pair]) -> NDArray[np.float64]:
        out = np.empty((len(pairs), len(self.columns)), dtype=np.float64)
        for row, p in enumerate(pairs):
            for col, name in enumerate(self.columns):
                a, b = self.grams(p.id1, name), self.grams(p.id2, name)
                out[row, col] = MISSING if a is None or b is None else jaccard(a, b)
        return out


def compared_columns(rows: dict[str, dict[str, str]]) -> list[str]:
    """The columns to compare: every column some record has (in first-seen order), or none
    when the records have fewer than two (one column is the text itself)."""
    seen: dict[str, None] = {}
    for values in rows.values():
        for name in values:
            seen.setdefault(name, None)
    return list(seen) if len(seen) >= 2 else []


def sample_pairs(pairs: list[Pair], n: int | None = None) -> list[Pair]:
    """At most ``n`` of ``pairs``, a seeded sample: the same pairs give the same answer."""
    n = DEFAULTS.columns_sample if n is None else n
    return pairs if len(pairs) <= n else random.Random(SEED).sample(pairs, n)


def _counts(lv: NDArray[np.intp]) -> NDArray[np.float64]:
    out = np.zeros((lv.shape[1], LEVELS))
    for col in range(lv.shape[1]):
        out[col] = np.bincount(lv[:, col], minlength=LEVELS)
    return out


def mutual_best(pairs: Sequence[Pair]) -> NDArray[np.bool_]:
    """Whether each pair is the best match (highest Jaccard, ties included) of both its
    records among ``pairs``: the pairs most likely matches, to learn ``m`` from."""
    best = best_of_each((p.id1, p.id2, p.jaccard) for p in pairs)
    return np.array(
        [p.jaccard >= best[p.id1] and p.jaccard >= best[p.id2] for p in pairs], dtype=bool
    )


def far_below_best(pairs: Sequence[Pair], weight: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each pair's ``weight`` is more than ``DEFAULTS.columns_margin_bits`` below the
    best weight of both its records: each record has a far better match than this one."""
    best = best_of_each((p.id1, p.id2, w) for p, w in zip(pairs, weight.tolist(), strict=True))
    margin = DEFAULTS.columns_margin_bits
    return np.array(
        [w < best[p.id1] - margin and w < best[p.id2] - margin
         for p, w in zip(pairs, weight.tolist(), strict=True)],
        dtype=bool,
    )  # fmt: skip


def columns_disagree(
    kept: list[Pair],
    others: list[Pair],
    rows: dict[str, dict[str, str]],
    processor: ShingleProcessor,
    others_total: int | None = None,
) -> tuple[list[Pair], FieldCheck]:
    """``kept`` without the pairs whose columns look like those of ``others`` (see the module),
    and what the columns said. ``rows``: each record's columns (records without are fine).
    ``others_total``: how many ``others`` are a sample of (the prior counts them all)."""
    columns = compared_columns(rows)
    total = len(others) if others_total is None else max(others_total, len(others))
    check = FieldCheck(columns, kept_pairs=len(kept), other_pairs=total)
    if not columns:
        check.reason = "records without two or more columns: nothing to compare"
        return kept, check
    least = DEFAULTS.columns_min_pairs
    if len(kept) < least or len(others) < least:
        few = ("pairs kept" if len(kept) < least else "candidates below the bar")
        fewer = len(kept) if len(kept) < least else len(others)
        check.reason = (
            f"{len(kept)} pairs kept and {len(others)} candidates below the bar: the columns "
            f"are learned from both, and {fewer} {few} are fewer than {least}"
        )
        return kept, check
    table = _Columns(rows, columns, processor)
    kept_values = table.similarities(kept)
    mutual = mutual_best(kept)
    check.mutual = int(mutual.sum())
    # m from the mutual best pairs (see the module); from all kept ones if they are too few.
    if check.mutual < least:
        mutual[:] = True
    learn = [p for p, b in zip(kept, mutual, strict=True) if b]
    learn_values = kept_values[mutual]
    if len(learn) > DEFAULTS.columns_sample:
        learn_values = table.similarities(sample_pairs(learn))
    cm = _counts(levels(learn_values))
    cu = _counts(levels(table.similarities(sample_pairs(others))))
    m, u = estimate(cm, cu)  # a missing value weighs neither way
    rule = MatchRule(columns, m, u, len(kept) / (len(kept) + total))
    ratio = rule.ratios()
    check.weights = {name: np.round(ratio[i], 3).tolist() for i, name in enumerate(columns)}
    weight = rule.weights(kept_values)
    chance = rule.chance(weight)
    far = far_below_best(kept, weight)
    unlike = chance < DEFAULTS.columns_cut
    out = [p for p, u, f in zip(kept, unlike, far, strict=True) if not (u or f)]
    would = len(kept) - len(out)
    if would > DEFAULTS.columns_max_share * len(kept):
        check.joined = joined_below(kept, others)
        if check.joined > DEFAULTS.columns_joined_below:
            check.withheld = would
            check.reason = _withheld(check, would)
            return kept, check
    check.dropped = would
    check.dropped = would
    check.far = int((far & ~unlike).sum())
    check.reason = (
        f"{len(columns)} columns compared; {check.dropped} of {len(kept)} pairs dropped: "
        f"{check.dropped - check.far} whose columns agree the way the {total} candidates below "
        f"the threshold do, {check.far} whose columns weigh {DEFAULTS.columns_margin_bits:g} bits "
        "below both records' best match"
    )
    if check.joined is not None:
        check.reason += (
            f"; more than {DEFAULTS.columns_max_share:.0%} of the pairs, applied as "
            f"{check.joined:.1%} of the candidates below the threshold, which it learns "
            "non-matches from, are joined by the kept pairs through other records (at most "
            f"{DEFAULTS.columns_joined_below:.0%})"
        )
    return out, check


def joined_below(kept: Sequence[Pair], others: Sequence[Pair]) -> float:
    """The share of ``others`` (candidates below the threshold) whose two records ``kept``
    joins through other records: matches by the threshold's own pairs, where copies of one
    entity are spread on both sides of it (citations written in many styles)."""
    if not others:
        return 0.0
    root = union_find((p.id1, p.id2) for p in kept)
    return sum(root(p.id1) == root(p.id2) for p in others) / len(others)


def _withheld(check: FieldCheck, would: int) -> str:
    """Why a check against many of the kept pairs was not applied: what was measured."""
    return (
        f"{len(check.columns)} columns compared; not applied: they would drop {would} of the "
        f"{check.kept_pairs} pairs, more than {DEFAULTS.columns_max_share:.0%}, and "
        f"{check.joined or 0.0:.0%} of the candidates below the threshold, which it learns "
        "non-matches from, are joined by the kept pairs through other records (more than "
        f"{DEFAULTS.columns_joined_below:.0%}): it may have learned what non-matches look like "
        "from matches (copies whose columns are filled differently)"
    )
