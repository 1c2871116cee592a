"""Parameters chosen from the data when the user gives none: records or documents.

A user does not know which shingles fit their data, and the development suite
(``benchmarks/accuracy``) says one setting does not fit all:

* **Records** (names, addresses, listings, person records: a few words each) carry typos,
  abbreviations and swapped fields. One changed letter changes a whole word but only a few
  character 3-grams, so records get character 3-grams, banded low (a floor of
  ``DEFAULTS.record_floor``), and the threshold is read off the data at report time by the
  ``valley`` rule (:mod:`neardup.decision.valley`). On the suite's person records this took F1 from
  poor (word 1-grams at 0.65) to nearly perfect.
* **Documents** (articles, posts: many words each) differ by inserted, deleted and replaced
  words; word 1-grams at 0.65 found nearly all their near copies and character 3-grams of
  long texts cost many times more for nothing, so documents keep them (the figures:
  docs/accuracy.md, "What each step for records did when it was added").

The line between the two is the median number of words of a sample of the first records
(``DEFAULTS.record_words``). What the user gives always wins: a given threshold means a fixed
threshold, a given shingle kind gets that kind's usual floor.

>>> c = choose(["Cafe Muller 12 Main St Springfield", "J. Smith, 1 High Street, Leeds"])
>>> c.params.shingle_kind, c.params.shingle_size, c.params.rule
('char', 3, 'valley')
>>> choose(["word " * 300], {"threshold": 0.8}).params.rule
'threshold'
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from .defaults import DEFAULTS
from .errors import ArgumentError
from .params import Params

# Tuned: the values and the reasons for them are in neardup.defaults.
SAMPLE = DEFAULTS.choose_sample


@dataclass
class Choice:
    """The parameters chosen, and why (printed by ``neardup index``)."""

    params: Params
    reasons: list[str] = field(default_factory=list)
    sampled: int = 0
    median_words: float = 0.0
    given: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "params": self.params.describe(),
            "reasons": self.reasons,
            "sampled": self.sampled,
            "median_words": self.median_words,
            "given": self.given,
        }


def choose(
    texts: Iterable[str], given: Mapping[str, Any] | None = None, expected: int | None = None
) -> Choice:
    """Parameters for records like ``texts`` (a sample is enough); ``given`` ones win.
    ``expected``: how many records the collection is about to receive, when known; past
    ``DEFAULTS.large_records`` short records are banded from a higher floor, and documents
    with longer bands.

    >>> choose(["Cafe Muller 12 Main St"], expected=2_000_000).params.threshold
    0.4
    """
    given = dict(given or {})
    names = set(Params.__dataclass_fields__)
    unknown = sorted(set(given) - names)
    if unknown:
        raise ArgumentError(f"unknown parameters: {', '.join(unknown)}")
    processor = Params().processor()
    words = [len(processor.normalize(t).split()) for t in islice(texts, SAMPLE)]
    median = float(statistics.median(words)) if words else 0.0
    reasons: list[str] = []
    if not words:
        kind, size = "word", 1
        reasons.append("no records to measure: word 1-grams")
    elif median <= DEFAULTS.record_words:
        kind, size = "char", 3
        reasons.append(
            f"records: median {median:g} words over the first {len(words)} records "
            f"(<= {DEFAULTS.record_words}), so character 3-grams, which a typo barely changes"
        )
    else:
        kind, size = "word", 1
        reasons.append(
            f"documents: median {median:g} words over the first {len(words)} records "
            f"(> {DEFAULTS.record_words}), so word 1-grams"
        )
    kind = given.get("shingle_kind", kind)
    if "shingle_kind" in given and "shingle_size" not in given:
        size = 3 if kind == "char" else 1
    size = given.get("shingle_size", size)
    if words and ("shingle_kind" in given or "shingle_size" in given):  # not the data's choice
        measured = reasons[-1].split(", so ")[0]
        reasons[-1] = f"{measured}; shingles as given: {kind} {size}-grams"
    chosen: dict[str, Any] = {"shingle_kind": kind, "shingle_size": size}
    if "threshold" in given:
        chosen["rule"] = given.get("rule", "threshold")
    elif kind == "char":
        large = expected is not None and expected > DEFAULTS.large_records
        floor = DEFAULTS.large_record_floor if large else DEFAULTS.record_floor
        chosen["threshold"], chosen["rule"] = floor, "valley"
        if "num_perm" not in given:
            chosen["bands"], chosen["rows"] = (
                DEFAULTS.large_record_bands if large else DEFAULTS.record_bands
            )
        reasons.append(
            f"threshold: read off the data at report time (the valley of nearest-neighbour "
            f"similarities), banded from a floor of {floor}"
        )
        if large:
            reasons.append(
                f"size: {expected:,d} records expected (> {DEFAULTS.large_records:,d}), so the "
                f"floor is {floor} instead of {DEFAULTS.record_floor}: unrelated short records "
                "alike at 0.15-0.3 would otherwise make candidates grow with the square of "
                "the records"
            )
    else:
        _documents(chosen, reasons, given, expected)
    chosen.update(given)
    if given:
        reasons.append("given: " + ", ".join(f"{k}={v!r}" for k, v in sorted(given.items())))
    return Choice(Params(**chosen), reasons, len(words), median, given)


def _documents(
    chosen: dict[str, Any], reasons: list[str], given: Mapping[str, Any], expected: int | None
) -> None:
    """Documents' rule and bands, and why, into ``chosen`` and ``reasons``."""
    chosen["threshold"], chosen["rule"] = DEFAULTS.document_threshold, "documents"
    reasons.append(
        f"threshold: Jaccard >= {DEFAULTS.document_threshold}, less pairs that share little "
        "but words many records hold (a template or boilerplate)"
    )
    if expected is not None and expected > DEFAULTS.large_records and "num_perm" not in given:
        chosen["bands"], chosen["rows"] = DEFAULTS.large_document_bands
        reasons.append(
            f"size: {expected:,d} records expected (> {DEFAULTS.large_records:,d}), so "
            f"{chosen['bands']} bands x {chosen['rows']} rows: unrelated documents share "
            "their common words, and the pairs alike at 0.2-0.3 would otherwise make "
            "candidates grow with the square of the records (a pair at the threshold is "
            "found with chance 0.95, at 0.75 with 0.999)"
        )
