"""A match rule learned from the candidates themselves, without labels (Fellegi-Sunter, EM).

Which Jaccard similarity makes two records "the same" depends on the data: 0.8 for copied
articles, 0.4 for typo'd person records. The candidates of an index hold the answer: they are a
mixture of matches and non-matches, and several similarities of a pair (character and word
shingles, the numbers it holds, each field) agree more often among matches than among
non-matches. Fellegi and Sunter's model with conditionally independent comparisons, fitted by
expectation-maximisation as Splink does, separates the two without a single label:

* each comparison of a pair falls into a level (a bin of a similarity, or agree / disagree /
  missing for numbers);
* ``m[k][level]`` is the chance of that level among matches, ``u[k][level]`` among non-matches,
  ``prior`` the share of matches among the candidates;
* EM alternates the posterior of every pair with the m, u and prior those posteriors imply.

A pair is a match when its posterior is at least 0.5. The fitted rule reports the Jaccard at
which it starts to accept pairs and estimates its own precision (mean posterior of the accepted
pairs) and recall (their share of the summed posteriors of all candidates).

>>> rng = np.random.default_rng(0)
>>> matches = rng.beta(9, 2, size=(200, 3)); others = rng.beta(2, 9, size=(800, 3))
>>> rule = learn_rule(np.vstack([matches, others]), ["a", "b", "c"])
>>> round(rule.prior, 2)
0.2
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from ..results import Pair
from ..sign.minhash import ShingleProcessor
from ..sign.text import jaccard
from .assign import best_of_each
from .identifiers import identifiers

#: Upper edges of the similarity levels: ten bins of width 0.1; a similarity of exactly 1.0
#: (a copy) has a level of its own.
EDGES = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
LEVELS = len(EDGES) + 1
#: A feature value below 0 means "missing" (one side has no value): a level of its own whose
#: m and u are equal, so it weighs neither way.
MISSING = -1.0


@dataclass
class MatchRule:
    """A fitted Fellegi-Sunter rule: per-feature m and u over levels, and the match prior."""

    features: list[str]
    m: NDArray[np.float64]
    u: NDArray[np.float64]
    prior: float
    iterations: int = 0
    converged: bool = False
    #: Filled by :func:`summarize`: the Jaccard from which pairs are accepted, and estimates.
    threshold: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    accepted: int = 0
    candidates: int = 0
    notes: list[str] = field(default_factory=list)

    def ratios(self) -> NDArray[np.float64]:
        """Log2 m/u of every feature (rows) and level (columns): what each level weighs."""
        return np.asarray(np.log2(self.m) - np.log2(self.u), dtype=np.float64)

    def weights(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """Log2 Bayes factor of every pair (rows of ``values``): the sum over its features."""
        lv = levels(values)
        cols = np.arange(len(self.features))
        out = self.ratios()[cols[None, :], lv].sum(axis=1)
        return np.asarray(out, dtype=np.float64)

    def chance(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """The chance that a pair of these :meth:`weights` is a match, given the prior."""
        w = weights + np.log2(self.prior / (1.0 - self.prior))
        return np.asarray(1.0 / (1.0 + np.exp2(-np.clip(w, -60, 60))), dtype=np.float64)

    def posterior(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """The chance that each pair is a match."""
        return self.chance(self.weights(values))

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": "learned (Fellegi-Sunter, EM)",
            "features": self.features,
            "prior": round(self.prior, 6),
            "threshold": round(self.threshold, 6),
            "estimated_precision": round(self.precision, 4),
            "estimated_recall": round(self.recall, 4),
            "accepted": self.accepted,
            "candidates": self.candidates,
            "iterations": self.iterations,
            "converged": self.converged,
            "notes": self.notes,
            "m": np.round(self.m, 5).tolist(),
            "u": np.round(self.u, 5).tolist(),
        }


def levels(values: NDArray[np.float64]) -> NDArray[np.intp]:
    """The level of every similarity: 0 for missing, then one per bin of :data:`EDGES`."""
    v = np.asarray(values, dtype=np.float64)
    lv = np.searchsorted(EDGES, np.round(v, 9), side="left") + 1
    lv = np.minimum(lv, LEVELS - 1)
    lv[v >= 1.0] = LEVELS - 1
    lv[(v < 1.0) & (lv == LEVELS - 1)] = LEVELS - 2
    lv[v < 0] = 0
    return np.asarray(lv, dtype=np.intp)


def learn_rule(values: NDArray[np.float64], features: Sequence[str]) -> MatchRule:
    """Fit m, u and the prior to the candidates' feature values (one row per pair).

    Started from "matches are the pairs whose mean similarity is above the median of the
    candidates", which puts the components on the right sides; every M-step keeps the share of
    matches non-decreasing in each similarity (:func:`monotone`), without which EM splits the
    non-matches into two components instead.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(features):
        raise ValueError(f"expected a (pairs, {len(features)}) array, got {x.shape}")
    n, k = x.shape
    lv = levels(x)
    onehot = np.zeros((n, k, LEVELS))
    onehot[np.arange(n)[:, None], np.arange(k)[None, :], lv] = 1.0
    present = np.where(x >= 0, x, np.nan)
    with np.errstate(invalid="ignore"):
        score = np.nanmean(present, axis=1) if n else np.zeros(0)
    score = np.nan_to_num(score, nan=0.0)
    if n == 0:
        flat = np.full((k, LEVELS), 1.0 / LEVELS)
        return MatchRule(list(features), flat.copy(), flat.copy(), 0.5)
    post = (score > np.median(score)).astype(np.float64)
    if post.sum() == 0 or post.sum() == n:
        post = np.clip(score, 0.01, 0.99)
    prior = float(np.clip(post.mean(), 1e-4, 1 - 1e-4))
    m = u = np.zeros((k, LEVELS))
    converged = False
    it = 0
    while it < DEFAULTS.em_iterations:
        it += 1
        cm = np.einsum("n,nkl->kl", post, onehot)
        cu = np.einsum("n,nkl->kl", 1.0 - post, onehot)
        m, u = estimate(cm, cu)
        prior = float(np.clip(post.mean(), 1e-4, 1 - 1e-4))
        log_m = np.log(m)[np.arange(k)[None, :], lv].sum(axis=1) + np.log(prior)
        log_u = np.log(u)[np.arange(k)[None, :], lv].sum(axis=1) + np.log(1 - prior)
        new = 1.0 / (1.0 + np.exp(np.clip(log_u - log_m, -700, 700)))
        delta = float(np.abs(new - post).max())
        post = new
        if delta < DEFAULTS.em_tolerance:
            converged = True
            break
    rule = MatchRule(list(features), m, u, prior, it, converged)
    # The component that agrees more is the match component; EM may have swapped them.
    top = LEVELS - 1
    if (m[:, top - 2 :].sum() < u[:, top - 2 :].sum()) and n > 1:
        rule = MatchRule(list(features), u, m, 1.0 - prior, it, converged)
    return rule


def estimate(
    cm: NDArray[np.float64], cu: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``m`` and ``u`` (per feature, the chance of each level) from the expected counts of
    matches ``cm`` and non-matches ``cu``: the share of matches made :func:`monotone`, every
    level smoothed by ``DEFAULTS.em_smoothing``, and the missing level (0) weighing neither way.
    The M-step of :func:`learn_rule`, and the one estimate of :mod:`neardup.decision.columns`.

    >>> m, u = estimate(np.array([[2.0, 0.0, 8.0]]), np.array([[4.0, 8.0, 2.0]]))
    >>> m.round(3).tolist(), u.round(3).tolist()
    ([[0.254, 0.043, 0.739]], [[0.254, 0.548, 0.161]])
    """
    cm, cu = monotone(cm, cu)
    m = cm + DEFAULTS.em_smoothing
    u = cu + DEFAULTS.em_smoothing
    m /= m.sum(axis=1, keepdims=True)
    u /= u.sum(axis=1, keepdims=True)
    # Missing says nothing about matching: its level weighs neither way.
    both = (m[:, 0] + u[:, 0]) / 2
    m[:, 0] = u[:, 0] = both
    return m, u


def monotone(
    cm: NDArray[np.float64], cu: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Expected counts whose share of matches never falls as a similarity rises.

    A more similar pair is never less likely a match: without that constraint EM happily
    splits the bulk of the non-matches into two components. The share of matches per level is
    made non-decreasing by pooling adjacent violators (isotonic regression), weighted by the
    pairs in each level; the missing level is left alone.
    """
    cm, cu = cm.copy(), cu.copy()
    for k in range(cm.shape[0]):
        total = cm[k, 1:] + cu[k, 1:]
        share = np.divide(cm[k, 1:], total, out=np.zeros_like(total), where=total > 0)
        fitted = _pava(share, total)
        cm[k, 1:] = fitted * total
        cu[k, 1:] = (1.0 - fitted) * total
    return cm, cu


def _pava(y: NDArray[np.float64], w: NDArray[np.float64]) -> NDArray[np.float64]:
    """Non-decreasing least-squares fit of ``y`` with weights ``w`` (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [value, weight, length]
    for yi, wi in zip(y.tolist(), w.tolist(), strict=True):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, n2 = blocks.pop()
            v1, w1, n1 = blocks.pop()
            wt = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / wt if wt > 0 else (v1 + v2) / 2, wt, n1 + n2])
    return np.array([b[0] for b in blocks for _ in range(int(b[2]))], dtype=np.float64)


def summarize(rule: MatchRule, values: NDArray[np.float64], primary: NDArray[np.float64]) -> None:
    """Fill the rule's threshold (lowest primary Jaccard it accepts) and its own estimates."""
    post = rule.posterior(values)
    accept = post >= 0.5
    rule.candidates = int(post.size)
    rule.accepted = int(accept.sum())
    total = float(post.sum())
    rule.precision = float(post[accept].mean()) if accept.any() else 1.0
    rule.recall = float(post[accept].sum() / total) if total > 0 else 1.0
    rule.threshold = float(primary[accept].min()) if accept.any() else 1.0


def features(
    pairs: Sequence[Pair], texts: Mapping[str, str], processor: ShingleProcessor
) -> tuple[NDArray[np.float64], list[str]]:
    """Comparisons of every pair, as independent of each other as they come: the index's
    Jaccard; the Jaccard of the numbers the two texts hold (house numbers, years, pages;
    missing when either side has none); and whether the pair is the best match of both, one
    or neither of its records."""
    # Only the index's own similarity: a second shingling of the same text (word 1-grams
    # beside character 3-grams) agrees with it among non-matches too, and EM, which assumes
    # the comparisons independent, would count that agreement twice (measured: precision 0.79
    # instead of 0.97 on typo'd person records).
    names = ["jaccard", "numbers", "best"]
    prepared: dict[str, str] = {}

    def prep(i: str) -> str:
        got = prepared.get(i)
        if got is None:
            got = prepared[i] = processor.prepare(texts.get(i, ""))
        return got

    best = best_of_each((p.id1, p.id2, p.jaccard) for p in pairs)
    out = np.empty((len(pairs), len(names)), dtype=np.float64)
    for row, p in enumerate(pairs):
        out[row, 0] = p.jaccard
        na = identifiers(prep(p.id1).split())
        nb = identifiers(prep(p.id2).split())
        out[row, 1] = jaccard(na, nb) if na and nb else MISSING
        tops = (p.jaccard >= best[p.id1] - 1e-9) + (p.jaccard >= best[p.id2] - 1e-9)
        out[row, 2] = tops / 2
    return out, names


def apply_rule(
    pairs: list[Pair], texts: Mapping[str, str], processor: ShingleProcessor
) -> tuple[list[Pair], MatchRule]:
    """Learn the rule on the verified candidates and keep the pairs it accepts, each with its
    probability."""
    values, names = features(pairs, texts, processor)
    rule = learn_rule(values, names)
    primary = values[:, 0] if len(pairs) else np.zeros(0)
    summarize(rule, values, primary)
    post = rule.posterior(values) if len(pairs) else np.zeros(0)
    kept = [
        Pair(p.id1, p.id2, p.jaccard, p.edit_distance, round(float(q), 6))
        for p, q in zip(pairs, post, strict=True)
        if q >= 0.5
    ]
    return kept, rule
