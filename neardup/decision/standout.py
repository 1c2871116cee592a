"""Pairs that stand out by weighted similarity, for a dedup report whose valley shows no clear
cut.

Where the records' best-match similarities show no valley, the Jaccard bar is a default
(``DEFAULTS.valley_fallback``), a guess. The link's relative rule
(:mod:`neardup.decision.assign`) needs no bar: within one collection, each record's nearest
records by TF-IDF cosine (:mod:`neardup.decision.weights`, :mod:`neardup.decision.topk`), one
partner each, and a pair holds when it is ahead of both records' runner-ups by
``DEFAULTS.link_margin`` and at least ``DEFAULTS.standout_floor`` similar. Such pairs are
added to the default bar's: two catalogues written in one file (a title beside a longer
description, a model number written twice) share rare grams but few shingles, and a duplicate
edited past the bar still stands out from its record's other neighbours. Only added, never
taken away: where a record has several duplicates (a cluster), one partner each finds one of
them, and the bar the others.

Not where the valley is clear: there the bar is read off the data, and pairs below it are
what the data call non-matches. Not past ``DEFAULTS.standout_records`` records: every record's
vector is held in this process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..defaults import DEFAULTS
from ..keys import id_key
from ..results import Pair
from ..sign.minhash import ShingleProcessor
from ..sign.text import word_edit_distance
from .assign import BestFirst, mapped_rows
from .topk import top_k_within
from .weights import TfidfSpace, cosine


@dataclass(frozen=True)
class StoodOut:
    """The pairs found ``(cosine, id1, id2)``, id1 before id2 as the ids sort, and how many
    candidate pairs they were chosen from."""

    pairs: list[tuple[float, str, str]]
    candidates: int


def stand_out(records: Iterable[tuple[str, str]], processor: ShingleProcessor) -> StoodOut:
    """The pairs of ``records`` (id, text) that stand out by weighted similarity: one partner
    each, best first, kept when ahead of both records' runner-ups and at least
    ``DEFAULTS.standout_floor`` similar. The rows are taken in id
    order, so that any backend's order gives the same pairs."""
    held = sorted(records, key=lambda r: id_key(r[0]))
    if len(held) < 2:
        return StoodOut([], 0)
    ids = [i for i, _ in held]
    texts = [processor.normalize(t) for _, t in held]
    try:
        vectors = TfidfSpace.fit_vectors(texts)[1]
    except ValueError:  # scikit-learn's "empty vocabulary": no text holds a gram
        return StoodOut([], 0)
    first, second = top_k_within(vectors)  # block purging, as the link's
    sims = cosine(vectors, first, second) if len(first) else np.zeros(0)
    live = sims > 0.0
    x, y, s = first[live], second[live], sims[live]
    order = np.lexsort((y, x, -s))  # best first, ties by the rows (id order)
    x, y, s = x[order], y[order], s[order]
    mapped = np.asarray(mapped_rows(x.tolist(), y.tolist(), len(ids)), dtype=np.int64)
    if not len(mapped):
        return StoodOut([], len(s))
    seen = BestFirst(x, y, s)
    closest = np.maximum(seen.runner_up(x[mapped], y[mapped])[1],
                         seen.runner_up(y[mapped], x[mapped])[1])  # fmt: skip
    held = mapped[(s[mapped] >= DEFAULTS.standout_floor)
                  & (closest <= s[mapped] * (1.0 - DEFAULTS.link_margin))]  # fmt: skip
    kept = [(float(s[n]), ids[int(x[n])], ids[int(y[n])]) for n in held.tolist()]
    return StoodOut(kept, len(s))


def measured(
    similarity: float, a: str, b: str, texts: Mapping[str, str], processor: ShingleProcessor
) -> Pair:
    """The pair ``a``, ``b`` with its Jaccard and word edit distance measured as verification
    measures them, and the weighted ``similarity`` that found it."""
    sa, sb = processor.shingle_set(texts[a]), processor.shingle_set(texts[b])
    union = len(sa | sb)
    jac = len(sa & sb) / union if union else 0.0
    dist = word_edit_distance(processor.words(texts[a]), processor.words(texts[b]))
    return Pair(a, b, round(jac, 6), dist, similarity=round(similarity, 6))
