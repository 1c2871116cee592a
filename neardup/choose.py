"""Parameters chosen from the data when the user gives none: records or documents.

A user does not know which shingles fit their data, and the development suite
(``benchmarks/accuracy``) says one setting does not fit all:

* **Records** (names, addresses, listings, person records: a few words each) carry typos,
  abbreviations and swapped fields. One changed letter changes a whole word but only a few
  character 3-grams, so records get character 3-grams, banded low (a floor of
  :data:`RECORD_FLOOR`), and the threshold is read off the data at report time by the
  ``valley`` rule (:mod:`neardup.valley`). On the suite's person records this took F1 from 0.59
  (word 1-grams at 0.65) to 0.99.
* **Documents** (articles, posts: many words each) differ by inserted, deleted and replaced
  words; word 1-grams at 0.65 found their near copies with F1 0.98 and character 3-grams of
  long texts cost ten times more for nothing, so documents keep them.

The line between the two is the median number of words of a sample of the first records
(:data:`RECORD_WORDS`). What the user gives always wins: a given threshold means a fixed
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

from .errors import ArgumentError
from .params import Params

#: Records whose median length is at most this many words are records, not documents.
RECORD_WORDS = 40
#: How many of the first records are measured.
SAMPLE = 1000
#: The floor of the valley rule for character 3-grams: low enough that the valley between
#: records without and with a duplicate lies above it on every dataset of the suite.
RECORD_FLOOR = 0.3
#: Bands x rows for the floor: 3-row bands keep the candidates bounded (a pair at Jaccard 0.2
#: is a candidate with chance 0.27, at 0.1 with 0.04; 2-row bands, which banding alone would
#: choose for 0.3, made 790 candidates per record on the suite's German person records) while
#: a pair at 0.4 is found with chance 0.93, at 0.5 with 0.995.
RECORD_BANDS = (40, 3)
#: Documents: word 1-grams at this fixed threshold.
DOCUMENT_THRESHOLD = 0.65


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


def choose(texts: Iterable[str], given: Mapping[str, Any] | None = None) -> Choice:
    """Parameters for records like ``texts`` (a sample is enough); ``given`` ones win."""
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
    elif median <= RECORD_WORDS:
        kind, size = "char", 3
        reasons.append(
            f"records: median {median:g} words over the first {len(words)} records "
            f"(<= {RECORD_WORDS}), so character 3-grams, which a typo barely changes"
        )
    else:
        kind, size = "word", 1
        reasons.append(
            f"documents: median {median:g} words over the first {len(words)} records "
            f"(> {RECORD_WORDS}), so word 1-grams"
        )
    kind = given.get("shingle_kind", kind)
    if "shingle_kind" in given and "shingle_size" not in given:
        size = 3 if kind == "char" else 1
    size = given.get("shingle_size", size)
    chosen: dict[str, Any] = {"shingle_kind": kind, "shingle_size": size}
    if "threshold" in given:
        chosen["rule"] = given.get("rule", "threshold")
    elif kind == "char":
        chosen["threshold"], chosen["rule"] = RECORD_FLOOR, "valley"
        if "num_perm" not in given:
            chosen["bands"], chosen["rows"] = RECORD_BANDS
        reasons.append(
            f"threshold: read off the data at report time (the valley of nearest-neighbour "
            f"similarities), banded from a floor of {RECORD_FLOOR}"
        )
    else:
        chosen["threshold"], chosen["rule"] = DOCUMENT_THRESHOLD, "threshold"
        reasons.append(f"threshold: Jaccard >= {DOCUMENT_THRESHOLD}")
    chosen.update(given)
    if given:
        reasons.append("given: " + ", ".join(f"{k}={v!r}" for k, v in sorted(given.items())))
    return Choice(Params(**chosen), reasons, len(words), median, given)
