"""A rule taught by a reviewer's labels, on the evidence of every candidate.

A hundred labels say more about a pair of catalogues than any default: which comparisons tell
a match here (a shared year, a title's lead over its runner-up, a model code) and how far. The
rule is a random forest over the comparison vectors (:mod:`.evidence`), as Magellan learns
one; it is fitted on the labelled pairs, while the evidence itself comes from every record (the
grams' rarity, each record's candidates and the columns' weights are read off the unlabelled
data). Why a forest and not a logistic model: the comparisons interact (a low cosine is a match
when its lead is large, a high one is not when the numbers differ), and a forest learns that
from few labels without scaling or tuning. scikit-learn's, seeded, so that the same labels give
the same rule on any machine.

Its own precision and recall are estimated from the labels: each labelled pair is predicted
by a forest that did not see it (k-fold), and the shares come with Wilson 95% intervals. The
labels a reviewer is asked for (:mod:`.ask`) sit near the rule's boundary, where it errs most,
so these estimates lean low.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError
from .evidence import Evidence

#: Trees of the forest, and the fewest labelled pairs a leaf holds.
TREES = 200
LEAF = 2
#: The seed of the forest and of the folds.
SEED = 0
#: Folds of the estimate (fewer where a class has fewer labelled pairs).
FOLDS = 5


@dataclass(frozen=True)
class Interval:
    """A share estimated from ``n`` labelled pairs, with its Wilson 95% interval."""

    value: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"value": round(self.value, 3), "low": round(self.low, 3),
                "high": round(self.high, 3), "of": self.n}  # fmt: skip


def wilson(hits: int, n: int, z: float = 1.96) -> Interval:
    """The share ``hits / n`` and its Wilson score interval."""
    if n == 0:
        return Interval(0.0, 0.0, 1.0, 0)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n)


@dataclass
class Taught:
    """The rule learned from labels: a match is a pair of probability 0.5 or more."""

    model: Any
    names: tuple[str, ...]
    matches: int
    non_matches: int
    precision: Interval
    recall: Interval
    weights: dict[str, float] = field(default_factory=dict)

    def probability(self, evidence: Evidence) -> NDArray[np.float64]:
        """Each candidate's probability of being a match."""
        return np.asarray(self.model.predict_proba(evidence.values)[:, 1], dtype=np.float64)

    def as_dict(self) -> dict[str, Any]:
        return {
            "labels": {"match": self.matches, "non-match": self.non_matches},
            "precision": self.precision.as_dict(),
            "recall": self.recall.as_dict(),
            "weights": self.weights,
        }


def _forest() -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(
        n_estimators=TREES, min_samples_leaf=LEAF, class_weight="balanced",
        random_state=SEED, n_jobs=1,
    )  # fmt: skip


def teach(evidence: Evidence, rows: NDArray[np.int64], said: NDArray[np.bool_]) -> Taught:
    """The rule the labels ``said`` (True: match) of the candidates ``rows`` teach.

    Raises :class:`InputError` when the labels hold no match or no non-match: a rule needs
    both to tell them apart."""
    matches, non = int(said.sum()), int((~said).sum())
    if matches == 0 or non == 0:
        missing = "match" if matches == 0 else "non-match"
        raise InputError(
            f"the labels hold no {missing} ({matches} match, {non} non-match): a rule needs "
            f"both; label a pair that is a {missing} (neardup review --ask shows pairs to label)"
        )
    x = evidence.values[rows]
    model = _forest().fit(x, said)
    precision, recall = _estimate(x, said)
    weights = {n: round(float(w), 3) for n, w in zip(evidence.names,
                                                      model.feature_importances_, strict=True)}
    return Taught(model, evidence.names, matches, non, precision, recall,
                  dict(sorted(weights.items(), key=lambda kv: -kv[1])))  # fmt: skip


def _estimate(x: NDArray[np.float64], said: NDArray[np.bool_]) -> tuple[Interval, Interval]:
    """Precision and recall of the rule on labelled pairs it did not learn from."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = min(FOLDS, int(said.sum()), int((~said).sum()))
    if folds < 2:
        return Interval(0.0, 0.0, 1.0, 0), Interval(0.0, 0.0, 1.0, 0)
    split = StratifiedKFold(folds, shuffle=True, random_state=SEED)
    guess = cross_val_predict(_forest(), x, said, cv=split).astype(bool)
    hits = int((guess & said).sum())
    return wilson(hits, int(guess.sum())), wilson(hits, int(said.sum()))
