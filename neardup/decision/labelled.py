"""The link decided by a reviewer's labels, and the pairs to ask a reviewer about.

The records go in as the weighted link takes them (rows of keys, texts, sources, columns); the
labels as pairs of rows with True (match) or False. Every candidate gets its evidence
(:mod:`.evidence`), the labels teach a rule (:mod:`.learned`), and the pairs it gives a
probability of 0.5 or more are mapped one partner each
(:func:`neardup.decision.assign.unique_mapping`), most probable first, as the weighted link maps its
pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..defaults import DEFAULTS
from ..read.pair_files import ASKED_AT_RANDOM, ASKED_UNCERTAIN
from ..results import Decision, Pair
from ..sign.minhash import ShingleProcessor
from .ask import ask
from .assign import unique_mapping
from .decide import ThresholdWords
from .evidence import Evidence, Records, gather, space_of
from .learned import AUDIT_MIN, ESTIMATE_MIN, Audit, Interval, Taught, teach
from .link import source_rank

#: A labelled pair: the rows of its two records, whether it is a match, and (optional) whether
#: it was drawn at random from the pairs a rule kept (``review --ask`` says so).
Label = tuple[int, int, bool] | tuple[int, int, bool, bool]


@dataclass
class Labelled:
    """What the labels decided: the pairs kept ``(probability, row, row)``, the rule taught,
    the evidence it was taught on, and the precision and recall it estimates of itself
    (:class:`neardup.decision.learned.Calibration`)."""

    found: list[tuple[float, int, int]]
    taught: Taught
    evidence: Evidence
    #: None where the labels are too few to estimate them (:data:`.learned.ESTIMATE_MIN`).
    precision: Interval | None
    recall: Interval | None
    #: Pairs drawn at random among those kept, too few to correct the estimates (0: none).
    audit_left: int = 0
    #: Labelled pairs the rule judged the other way, decided as labelled (a non-match never
    #: kept, a match kept first).
    overruled: int = 0
    #: Labelled pairs drawn at random among those kept (the estimates' check).
    audited: int = 0

    def scored(self) -> list[tuple[float, float, int, int]]:
        """The pairs kept as ``(weighted cosine, probability, row, row)``."""
        where, cos = self.evidence.index(), self.evidence.similarity
        return [(float(cos[where[(a, b)]]), p, a, b) for p, a, b in self.found]

    def estimate(self) -> str:
        """The estimates in words, or why there are none."""
        p, r = self.precision, self.recall
        if p is None or r is None:
            t = self.taught
            return (f"too few labels to estimate precision and recall ({t.matches} match and "
                    f"{t.non_matches} non-match; {ESTIMATE_MIN} of each are needed)")  # fmt: skip
        said = (f"estimated from the labels over every candidate: precision {p.value:.2f} "
                f"({p.low:.2f}-{p.high:.2f}), recall among the candidates {r.value:.2f} "
                f"({r.low:.2f}-{r.high:.2f}), 95% intervals")  # fmt: skip
        if self.audit_left:
            said += (f"; the {self.audit_left} pairs drawn at random among those kept are "
                     f"too few to correct it ({AUDIT_MIN} are needed)")  # fmt: skip
        elif not self.audited:  # labels chosen by hand, far from the boundary, mislead it
            said += ("; no labelled pair was drawn at random among those kept (review --check "
                     "N draws them), so it assumes that at each probability the labelled pairs "
                     "are like the others, as pairs asked by review --ask are")  # fmt: skip
        return said

    def explain(self, labels_name: str) -> dict[str, Any]:
        weights = ", ".join(f"{n} {w:.2f}" for n, w in self.taught.weights.items() if w >= 0.01)
        p, r = self.precision, self.recall
        return {
            "kind": "labelled",
            "labels": labels_name,
            "similarity": "a logistic regression over each candidate's evidence, taught by "
            f"{self.taught.matches} match and {self.taught.non_matches} non-match labels",
            "evidence": weights,
            "candidates": f"each record's top {DEFAULTS.link_top_k} in every other source",
            "assignment": "unique mapping: most probable pairs first, each record at most one "
            "partner in each other source",
            "decision": "a mapped pair is kept at probability 0.5 or more; a labelled pair as "
            "labelled",
            "overruled": self.overruled,
            "estimated_precision": None if p is None else round(p.value, 3),
            "estimated_recall": None if r is None else round(r.value, 3),
            "estimate": self.estimate(),
            "taught": {**self.taught.as_dict(), "precision": p and p.as_dict(),
                       "recall": r and r.as_dict()},  # fmt: skip
            "candidates_scored": len(self.evidence),
            "threshold": round(min((s for s, _, _ in self.found), default=1.0), 6),
            "found": True,
        }


def _evidence(
    texts: Sequence[str],
    sources: Sequence[str],
    processor: ShingleProcessor,
    order: Sequence[str] | None,
    columns: Sequence[Mapping[str, str] | None] | None,
    extra: Sequence[tuple[int, int]] = (),
) -> Evidence:
    # as the candidates are: a rank that let a later name overwrite the order's (the first
    # source ranked after the other whenever its name sorts after it) put a labelled pair the
    # other way round, a row of its own whose evidence read its records' roles swapped
    rank = source_rank(sources, order)
    # each pair as the evidence holds it: the record of the earlier source first
    placed = [(a, b) if (rank[sources[a]], a) <= (rank[sources[b]], b) else (b, a)
              for a, b in extra]  # fmt: skip
    return gather(space_of(Records(texts, sources, columns, order), processor), extra=placed)


def _rows(evidence: Evidence, labels: Sequence[Label]) -> tuple[np.ndarray, np.ndarray]:
    where = evidence.index()
    rows, said = [], []
    for a, b, match, *_ in labels:
        n = where.get((a, b), where.get((b, a)))
        if n is not None:
            rows.append(n)
            said.append(match)
    # in the candidates' order, whatever the labels' (a file groups its matches first): the
    # same labels teach the same rule to the last digit
    order = np.argsort(np.asarray(rows, dtype=np.int64), kind="stable")
    return np.asarray(rows, dtype=np.int64)[order], np.asarray(said, dtype=bool)[order]


def link_by_labels(
    texts: Sequence[str],
    sources: Sequence[str],
    processor: ShingleProcessor,
    labels: Sequence[Label],
    order: Sequence[str] | None = None,
    columns: Sequence[Mapping[str, str] | None] | None = None,
) -> Labelled:
    """Link the records across sources by the rule the ``labels`` teach. Those drawn at random
    from the pairs it keeps (``NearDupIndex.check``) teach nothing: they are its test, and
    correct its estimates of itself (:class:`.learned.Audit`)."""
    evidence = _evidence(texts, sources, processor, order, columns,
                         [(a, b) for a, b, *_ in labels])  # fmt: skip
    rows, said = _rows(evidence, [lab for lab in labels if not _drawn(lab)])
    taught = teach(evidence, rows, said)
    chance = taught.probability(evidence)
    found = _found(evidence, chance)  # the rule's own pairs: what its estimates are of
    # A reviewer's word on a pair stands, whatever the rule makes of it: a pair labelled
    # non-match is never kept, one labelled match is mapped first (at probability 1).
    every, word = _rows(evidence, list(labels))
    overruled = int(np.count_nonzero((chance[every] >= 0.5) != word))
    final = chance.copy()
    final[every] = word.astype(float)
    kept_final = _found(evidence, final)
    where = evidence.index()
    kept = np.asarray([where[(a, b)] for _, a, b in found], dtype=np.int64)
    drawn = _rows(evidence, [lab for lab in labels if _drawn(lab)])
    audit = Audit(*drawn)
    if min(taught.matches, taught.non_matches) < ESTIMATE_MIN:
        return Labelled(kept_final, taught, evidence, None, None, overruled=overruled)
    reported = np.asarray([where[(a, b)] for _, a, b in kept_final], dtype=np.int64)
    precision, recall = taught.calibration.estimate(
        chance, kept, audit, known=(every, word.astype(float)), final=reported
    )
    inside = len(audit.within(kept).rows)
    left = inside if 0 < inside < AUDIT_MIN else 0
    return Labelled(kept_final, taught, evidence, precision, recall, left, overruled, inside)


def _drawn(label: Label) -> bool:
    return len(label) > 3 and bool(label[3])


def _found(evidence: Evidence, chance: np.ndarray) -> list[tuple[float, int, int]]:
    """The pairs of probability 0.5 or more, one partner each, most probable first."""
    scored = [
        (p, a, b)
        for p, a, b in zip(chance.tolist(), evidence.first.tolist(), evidence.second.tolist(),
                           strict=True)  # fmt: skip
        if p >= 0.5
    ]
    return unique_mapping(scored)


def _kept(evidence: Evidence, chance: np.ndarray) -> np.ndarray:
    where = evidence.index()
    return np.asarray([where[(a, b)] for _, a, b in _found(evidence, chance)], dtype=np.int64)


def pairs_to_ask(
    texts: Sequence[str],
    sources: Sequence[str],
    processor: ShingleProcessor,
    n: int,
    labels: Sequence[Label] = (),
    order: Sequence[str] | None = None,
    columns: Sequence[Mapping[str, str] | None] | None = None,
) -> list[tuple[float, float | None, int, int]]:
    """The ``n`` pairs to label next ``(weighted cosine, probability or None, row, row)``:
    uncertain and diverse under the rule the ``labels`` teach, or spread over the weighted
    link's mapping while they cannot teach one yet."""
    evidence = _evidence(texts, sources, processor, order, columns,
                         [(a, b) for a, b, *_ in labels])  # fmt: skip
    rows, said = _rows(evidence, [lab for lab in labels if not _drawn(lab)])
    chance = None
    if said.any() and not said.all():
        chance = teach(evidence, rows, said).probability(evidence)
    done = set(rows.tolist()) | set(_rows(evidence, labels)[0].tolist())
    picked = ask(evidence, n, done, chance)
    cos = evidence.similarity
    return [
        (float(cos[r]), None if chance is None else float(chance[r]), int(evidence.first[r]),
         int(evidence.second[r]))
        for r in picked
    ]  # fmt: skip


def asked_explain(pairs: int, labels: str | None, taught: bool) -> dict[str, Any]:
    """The explanation of a report of pairs to label (:func:`pairs_to_ask`): how many, from
    which labels, and how they were picked (``taught``: the labels so far taught a rule)."""
    how = (
        "those the labels' rule is least sure of, spread over the kinds of pairs"
        if taught
        else "spread over the weighted link's mapping, most from its top"
    )
    return {
        "kind": "asked",
        "decision": f"the {pairs} pairs whose labels would teach the most: {how}",
        "labels": labels,
        "threshold": 0.0,
    }


def checked_explain(pairs: int, labels: str | None, taught: bool = True) -> dict[str, Any]:
    """The explanation of a report of pairs drawn at random to check a report
    (``NearDupIndex.check``): how many, from which report (``taught``: whether the labels
    teach a rule; labels all drawn at random check the default report, and teach nothing)."""
    whose = f"the rule the labels of {labels} teach" if labels and taught else "the report"
    return {
        "kind": "checked",
        "decision": f"the {pairs} pairs drawn at random from those {whose} keeps: their labels, "
        "given back with --labels, say its precision (the share of them that are matches)",
        "labels": labels,
        "threshold": 0.0,
    }


class LabelledWords(ThresholdWords):
    """What the rule taught by labels says, with the precision and recall the labels
    estimate; a pair stands by its probability, as under a threshold's words."""

    def short(self, decision: Decision) -> str:
        return f"rule taught by labels, kept from probability {round(decision.threshold, 3):g}"

    def line(self, decision: Decision) -> str:
        rule = decision.explain or {}
        said = rule.get("overruled")
        return (
            f"decided: pairs the rule taught by {rule['labels']} gives a probability of 0.5 "
            "or more, one partner each"
            + (f" ({said} labelled pairs the rule judged the other way decided as labelled)"
               if said else "")  # fmt: skip
            + f"; {rule['estimate']}"
        )

    def detail(self, decision: Decision) -> str:
        rule = decision.explain or {}
        return (
            f"\nlabelled rule: {rule['similarity']}; candidates: {rule['candidates']} "
            f"({rule['candidates_scored']} pairs); {rule['assignment']}; {rule['decision']}"
            f"\nwhat each piece of evidence weighed: {rule['evidence']}"
        )


class AskedWords(LabelledWords):
    """Pairs to label: no decision yet, only how they were picked."""

    def short(self, decision: Decision) -> str:
        labels = (decision.explain or {}).get("labels")
        return "pairs to label" + (f" after the labels of {labels}" if labels else "")

    def line(self, decision: Decision) -> str:
        return str((decision.explain or {})["decision"])

    def detail(self, decision: Decision) -> str:
        labels = (decision.explain or {}).get("labels")
        return f"\nlabels so far: {labels}" if labels else "\nlabels so far: none"

    def reason(self, decision: Decision, pair: Pair, threshold: float) -> str:
        """Why the pair is on the page: how it was picked, and the probability the labels'
        rule gives it (no threshold kept it: "Jaccard 1.000 >= 0" was said)."""
        del decision, threshold  # no rule decided the pair: how it was picked says why
        how = {ASKED_AT_RANDOM: "drawn at random from the pairs kept",
               ASKED_UNCERTAIN: "asked: its label would teach the rule"}.get(
                   pair.asked or "", "picked")  # fmt: skip
        if pair.probability is None:
            return how
        return f"{how}; probability {pair.probability:.2f} under the labels' rule"


class CheckedWords(AskedWords):
    """Pairs drawn to check a report: no decision, only where they were drawn from."""

    def short(self, decision: Decision) -> str:
        labels = (decision.explain or {}).get("labels")
        return "pairs drawn at random to check the report" + (
            f" decided with the labels of {labels}" if labels else "")  # fmt: skip
