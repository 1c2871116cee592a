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

Its own precision and recall are estimated over every candidate, not over the labels alone.
Why: the pairs a reviewer is asked about (:mod:`.ask`) sit near the rule's boundary, where it
errs most, so the share of them it gets right says little of the thousands of plain pairs it
keeps (on the development tasks that share was half the true precision). Instead each labelled
and drawn pair is predicted by a rule that did not see it (k-fold), those held-out
probabilities are mapped to match rates (Platt scaling: a logistic curve on their log-odds, which
assumes only that within one probability the pairs asked are like the others), and the rates
are summed: over the pairs kept for precision, over all candidates for recall among the
candidates (a match that is no record's candidate is out of any estimate's sight). The
intervals come from refitting the curve on resamples of the labels (bootstrap).

Where the curve's assumption fails (the rule was asked about exactly its rare mistakes, so at one
probability the pairs asked are worse than the others), pairs drawn at random from those kept
(:mod:`.ask` draws a share of each round so) correct it: the mean gap between their labels and
the curve's rates is added to every kept pair's rate, as prediction-powered inference does. The
draw is random, so the correction is unbiased whatever the curve; the curve only makes it
precise.
"""

from __future__ import annotations

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
#: Resamples of the calibration for the estimates' intervals.
RESAMPLES = 200
#: Pairs drawn at random from those kept, at least, before they correct the estimates.
AUDIT_MIN = 8
#: Labels of each kind, at least, before the labels estimate precision and recall: a curve
#: read off fewer said "precision 0.00 (0.00-1.00)" of a report whose pairs were all right.
ESTIMATE_MIN = 5


@dataclass(frozen=True)
class Interval:
    """A share estimated from ``n`` held-out pairs, with its 95% interval."""

    value: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"value": round(self.value, 3), "low": round(self.low, 3),
                "high": round(self.high, 3), "of": self.n}  # fmt: skip


@dataclass(frozen=True)
class Calibration:
    """Held-out probabilities of the labelled and drawn pairs, with what each is: the
    sample a probability's match rate is read from (Platt scaling)."""

    scores: NDArray[np.float64]
    said: NDArray[np.bool_]

    def rate(self, probability: NDArray[np.float64]) -> NDArray[np.float64]:
        """The share of matches among pairs of each ``probability``."""
        return _platt(self.scores, self.said)(probability)

    def estimate(
        self,
        probability: NDArray[np.float64],
        kept: NDArray[np.int64],
        audit: Audit | None = None,
        known: tuple[NDArray[np.int64], NDArray[np.float64]] | None = None,
        final: NDArray[np.int64] | None = None,
    ) -> tuple[Interval, Interval]:
        """Precision of the candidates ``kept`` and recall among all candidates, given every
        candidate's ``probability``, each with its bootstrap 95% interval; corrected by the
        ``audit`` (pairs drawn at random from those kept) where it holds :data:`AUDIT_MIN`.
        With ``final`` (the pairs reported, the ``known`` labelled ones decided as labelled):
        the estimates are of those, each labelled pair counted as its label."""
        n = len(self.scores)
        if len(kept) == 0 or self.said.all() or not self.said.any():
            return Interval(0.0, 0.0, 1.0, n), Interval(0.0, 0.0, 1.0, n)
        sample = audit.within(kept) if audit is not None else None
        if sample is not None and len(sample.rows) < AUDIT_MIN:
            sample = None
        if final is not None and len(final):
            kept = final
        value = _shares(self.rate(probability), kept, sample, known)
        rng = np.random.default_rng(SEED)
        drawn = []
        for _ in range(RESAMPLES):
            pick = rng.integers(0, n, n)
            said = self.said[pick]
            if said.all() or not said.any():
                continue
            again = sample.resampled(rng) if sample is not None else None
            drawn.append(_shares(_platt(self.scores[pick], said)(probability), kept, again,
                                 known))  # fmt: skip
        if not drawn:
            return Interval(value[0], 0.0, 1.0, n), Interval(value[1], 0.0, 1.0, n)
        low, high = np.percentile(np.asarray(drawn), [2.5, 97.5], axis=0)
        if sample is not None:  # a resample of 20 matches out of 20 never varies: Wilson's
            share = self.rate(probability)  # interval of the draw's own hit rate too
            rest = float(share.sum() - share[kept].sum())
            for p in sample.hit_rate_interval():
                low[0], high[0] = min(low[0], p), max(high[0], p)
                r = p * len(kept) / (p * len(kept) + rest) if p > 0 else 0.0
                low[1], high[1] = min(low[1], r), max(high[1], r)
        return (Interval(value[0], float(low[0]), float(high[0]), n),
                Interval(value[1], float(low[1]), float(high[1]), n))  # fmt: skip


@dataclass(frozen=True)
class Audit:
    """Labelled candidates (``rows``, ``said``) drawn at random from the pairs a rule kept, not
    chosen for what they would teach: a sample of the kept pairs as they are."""

    rows: NDArray[np.int64]
    said: NDArray[np.bool_]

    def within(self, kept: NDArray[np.int64]) -> Audit:
        """Those among the pairs ``kept`` now (a pair an earlier round's rule kept may be left
        out by the last one)."""
        inside = np.isin(self.rows, kept)
        return Audit(self.rows[inside], self.said[inside])

    def hit_rate_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the share of matches among the pairs drawn."""
        return wilson(int(self.said.sum()), len(self.said))

    def resampled(self, rng: np.random.Generator) -> Audit:
        pick = rng.integers(0, len(self.rows), len(self.rows))
        return Audit(self.rows[pick], self.said[pick])


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a share of ``hits`` out of ``n`` random draws (scipy's):
    unlike a resample, it does not shrink to a point at 30 out of 30."""
    from scipy.stats import binomtest

    ci = binomtest(hits, n).proportion_ci(method="wilson")
    return float(ci.low), float(ci.high)


def _log_odds(p: NDArray[np.float64]) -> NDArray[np.float64]:
    q = np.clip(p, 1e-6, 1.0 - 1e-6)
    return np.log(q / (1.0 - q))[:, None]


def _platt(scores: NDArray[np.float64], said: NDArray[np.bool_]) -> Any:
    """The match rate as a logistic curve of a probability's log-odds, fitted to ``scores``
    labelled ``said`` (scikit-learn's, as its ``CalibratedClassifierCV(method="sigmoid")``
    fits it, here on our own held-out sample)."""
    from sklearn.linear_model import LogisticRegression

    curve = LogisticRegression(C=1e6, max_iter=1000).fit(_log_odds(scores), said)

    def rate(p: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(curve.predict_proba(_log_odds(p))[:, 1], dtype=np.float64)

    return rate


def _shares(
    rate: NDArray[np.float64],
    kept: NDArray[np.int64],
    audit: Audit | None = None,
    known: tuple[NDArray[np.int64], NDArray[np.float64]] | None = None,
) -> tuple[float, float]:
    """Precision of ``kept`` and recall among all, from every candidate's match ``rate``, the
    kept pairs' rates moved by the ``audit``'s mean gap between label and rate. ``known``:
    the labelled pairs (rows, 1 or 0), whose rate is their label, moved by nothing."""
    gap = 0.0
    if audit is not None and len(audit.rows):
        gap = float(np.mean(audit.said.astype(np.float64) - rate[audit.rows]))
    fixed = np.zeros(len(kept), dtype=bool)
    if known is not None and len(known[0]):
        rate = rate.copy()
        rate[known[0]] = known[1]
        fixed = np.isin(kept, known[0])
    free = kept[~fixed]
    found = float(rate[free].sum())
    if gap:
        found = min(max(found + gap * len(free), 0.0), float(len(free)))
    found += float(rate[kept[fixed]].sum())
    rest = float(rate.sum()) - float(rate[kept].sum())
    total = found + rest
    return found / len(kept), (found / total if total > 0 else 0.0)


@dataclass
class Taught:
    """The rule learned from labels: a match is a pair of probability 0.5 or more."""

    model: Any
    names: tuple[str, ...]
    matches: int
    non_matches: int
    calibration: Calibration
    weights: dict[str, float] = field(default_factory=dict)

    def probability(self, evidence: Evidence) -> NDArray[np.float64]:
        """Each candidate's probability of being a match."""
        return np.asarray(self.model.predict_proba(evidence.values)[:, 1], dtype=np.float64)

    def as_dict(self) -> dict[str, Any]:
        return {
            "labels": {"match": self.matches, "non-match": self.non_matches},
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
            f"both; label a pair that is a {missing} (neardup review --ask shows pairs to label; "
            "in Python, index.ask(n) lists them)"
        )
    x = evidence.values[rows]
    extra = _non_matches(evidence, rows)
    model = _model().fit(np.vstack([x, evidence.values[extra]]),
                         np.r_[said, np.zeros(len(extra), dtype=bool)])  # fmt: skip
    calibration = _held_out(x, said, evidence.values[extra])
    size = np.abs(model[-1].coef_[0])
    share = size / size.sum() if size.sum() > 0 else size
    weights = {n: round(float(w), 3) for n, w in zip(evidence.names, share, strict=True)}
    return Taught(model, evidence.names, matches, non, calibration,
                  dict(sorted(weights.items(), key=lambda kv: -kv[1])))  # fmt: skip


def _held_out(
    x: NDArray[np.float64], said: NDArray[np.bool_], others: NDArray[np.float64]
) -> Calibration:
    """Each labelled and drawn pair's probability from a rule that did not learn from it
    (stratified folds over both), with what it is."""
    from sklearn.model_selection import StratifiedKFold

    values = np.vstack([x, others])
    truth = np.r_[said, np.zeros(len(others), dtype=bool)]
    scores = np.zeros(len(truth), dtype=np.float64)
    folds = min(FOLDS, int(truth.sum()), int((~truth).sum()))
    if folds < 2:  # too few of a kind to hold any out: the sample says nothing yet
        return Calibration(scores, np.zeros(len(truth), dtype=bool))
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=SEED).split(values, truth):
        model = _model().fit(values[train], truth[train])
        scores[test] = model.predict_proba(values[test])[:, 1]
    return Calibration(scores, truth)
