"""A rule taught by a reviewer's labels, on the evidence of every candidate.

A hundred labels say more about a pair of catalogues than any default: which comparisons tell
a match here (a shared year, a title's lead over its runner-up, a model code) and how far. The
rule is a logistic regression over the standardized comparison vectors (:mod:`.evidence`), fitted
on the labelled pairs together with pairs the unlabelled data call non-matches: candidates that
are neither record's best (each record has a better one), drawn at random, three for each
label. Why those: the pairs a reviewer is asked about sit near the boundary, so a rule taught on
them alone has never seen an ordinary non-match, and with many matches among the labels it
learned to refuse whatever was not like them (docs/linking.md has the figures). Why a logistic model
and not a forest: with a hundred labels it moves smoothly with each comparison, where a forest's cut
depended on which pairs happened to be asked. scikit-learn's, seeded, so that the same labels give
the same rule on any machine.

Its own precision and recall are estimated from the labels: each labelled pair is predicted
by a rule that did not see it (k-fold), and the shares come with Wilson 95% intervals. The
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

#: Pairs the unlabelled data call non-matches (neither record's best), per labelled pair.
NEGATIVES_PER_LABEL = 3
#: The seed of the draw of non-matches and of the folds.
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


def _model() -> Any:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        StandardScaler(), LogisticRegression(class_weight="balanced", max_iter=2000)
    )


def _non_matches(evidence: Evidence, rows: NDArray[np.int64]) -> NDArray[np.int64]:
    """Candidates neither of whose records ranks it first, not labelled: non-matches by the
    data's own word, :data:`NEGATIVES_PER_LABEL` a label, drawn with a fixed seed."""
    names = list(evidence.names)
    first, second = names.index("rank_first"), names.index("rank_second")
    values = evidence.values
    pool = np.setdiff1d(np.flatnonzero((values[:, first] >= 1) & (values[:, second] >= 1)), rows)
    want = min(len(pool), NEGATIVES_PER_LABEL * len(rows))
    return np.sort(np.random.default_rng(SEED).choice(pool, want, replace=False))


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
    extra = _non_matches(evidence, rows)
    model = _model().fit(np.vstack([x, evidence.values[extra]]),
                         np.r_[said, np.zeros(len(extra), dtype=bool)])  # fmt: skip
    precision, recall = _estimate(x, said, evidence.values[extra])
    size = np.abs(model[-1].coef_[0])
    share = size / size.sum() if size.sum() > 0 else size
    weights = {n: round(float(w), 3) for n, w in zip(evidence.names, share, strict=True)}
    return Taught(model, evidence.names, matches, non, precision, recall,
                  dict(sorted(weights.items(), key=lambda kv: -kv[1])))  # fmt: skip


def _estimate(
    x: NDArray[np.float64], said: NDArray[np.bool_], others: NDArray[np.float64]
) -> tuple[Interval, Interval]:
    """Precision and recall of the rule on labelled pairs it did not learn from (each fold's
    rule learns from the other folds' labels and all the drawn non-matches)."""
    from sklearn.model_selection import StratifiedKFold

    folds = min(FOLDS, int(said.sum()), int((~said).sum()))
    if folds < 2:
        return Interval(0.0, 0.0, 1.0, 0), Interval(0.0, 0.0, 1.0, 0)
    guess = np.zeros(len(said), dtype=bool)
    no = np.zeros(len(others), dtype=bool)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=SEED).split(x, said):
        model = _model().fit(np.vstack([x[train], others]), np.r_[said[train], no])
        guess[test] = model.predict_proba(x[test])[:, 1] >= 0.5
    hits = int((guess & said).sum())
    return wilson(hits, int(guess.sum())), wilson(hits, int(said.sum()))
