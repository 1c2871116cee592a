"""The evidence of a candidate pair: a comparison vector, not one number.

A pair of records from two sources is more than its cosine. Splink and Magellan compare a pair
several ways and let a model weigh the comparisons; these are neardup's, each cheap to compute
for every candidate and each telling something the cosine alone hides:

* ``cosine``: the TF-IDF cosine of the records as the weighted link sees them (columns weighed
  by the data, :mod:`neardup.decision.link`), and ``cosine_joined``: of their joined texts alone;
* ``rank_first`` / ``rank_second``: where the pair stands among each record's candidates (a
  true partner is usually its record's best), and ``lead_first`` / ``lead_second``: how far it
  is ahead of that record's best other candidate (negative when behind);
* ``numbers_shared`` / ``numbers_differ``: identifiers (house numbers, years, model codes) the
  records share, and whether both hold some but share none
  (:func:`neardup.decision.identifiers.identifiers`);
* ``words_jaccard``: the share of words in common, and ``length_ratio``: the shorter text's
  length over the longer's;
* ``shared_rarity``: the mean inverse document frequency of the grams the records share, over
  the largest there is: two records that share only common grams look alike by chance;
* ``column <name>``: the cosine of each pair of columns the two sources match (by name or by
  content, :mod:`neardup.decision.column_map`): a title against a title, a birth date against a
  date.

A comparison that cannot be made (no numbers on one side) is :data:`MISSING`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from ..sign.minhash import ShingleProcessor
from .column_map import match_columns
from .identifiers import identifiers, identifiers_differ
from .link import _pass, column_weights, groups_of
from .topk import purged, top_k
from .weights import TfidfSpace, cosine

#: The comparisons of a pair, in the order of :attr:`Evidence.values`' columns.
FEATURES = (
    "cosine", "cosine_joined", "rank_first", "rank_second", "lead_first", "lead_second",
    "numbers_shared", "numbers_differ", "words_jaccard", "length_ratio", "shared_rarity",
)  # fmt: skip
#: A comparison that cannot be made.
MISSING = -1.0


@dataclass
class Evidence:
    """The candidate pairs of a link (rows of the records given) and their comparisons."""

    first: NDArray[np.int64]
    second: NDArray[np.int64]
    #: One row a pair, one column a comparison (:data:`FEATURES`).
    values: NDArray[np.float64]
    names: tuple[str, ...] = FEATURES

    def __len__(self) -> int:
        return len(self.first)

    @property
    def similarity(self) -> NDArray[np.float64]:
        """The weighted cosine: what the unsupervised rule decides by."""
        return self.values[:, 0]

    def index(self) -> dict[tuple[int, int], int]:
        """Each pair's row, by its records' rows."""
        return {(a, b): n for n, (a, b) in enumerate(zip(self.first.tolist(),
                                                        self.second.tolist(), strict=True))}


@dataclass
class Space:
    """The records as the weighted link sees them: joined-text and column-weighed vectors."""

    space: TfidfSpace
    joined: Any
    weighed: Any
    normalized: list[str]
    groups: list[tuple[NDArray[np.int64], NDArray[np.int64]]]
    #: Each matched column's vectors (under the primary source's name) and which records hold it.
    columns: dict[str, tuple[Any, NDArray[np.bool_]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Records:
    """The records of a link, row by row: texts as written, sources, columns (or None), and
    the sources' order (the primary first)."""

    texts: Sequence[str]
    sources: Sequence[str]
    columns: Sequence[Mapping[str, str] | None] | None = None
    order: Sequence[str] | None = None


def space_of(records: Records, processor: ShingleProcessor, k: int = DEFAULTS.link_top_k) -> Space:
    """Fit the TF-IDF space and weigh the columns as the weighted link does."""
    texts, sources, columns, order = records.texts, records.sources, records.columns, records.order
    from sklearn.preprocessing import normalize

    normalized = [processor.normalize(t) for t in texts]
    groups = groups_of(sources, order)
    space = TfidfSpace.fit(normalized)
    joined = space.vectors(normalized)
    weighed = joined
    compared: dict[str, tuple[Any, NDArray[np.bool_]]] = {}
    if columns is not None:
        first = _pass(joined, groups, k, DEFAULTS.link_margin)
        if len(first.stood_out) >= DEFAULTS.columns_min_pairs:
            by_columns, _ = column_weights(space, joined, columns, sources, processor,
                                           first.stood_out)  # fmt: skip
            if by_columns is not None:
                share = DEFAULTS.joined_share
                weighed = normalize((joined * share + by_columns * (1 - share)).tocsr())
            compared = _columns(space, columns, sources, processor, first.stood_out, order)
    return Space(space, joined, weighed, normalized, groups, compared)


def _columns(
    space: TfidfSpace,
    columns: Sequence[Mapping[str, str] | None],
    sources: Sequence[str],
    processor: ShingleProcessor,
    anchors: Sequence[tuple[float, int, int, Any, Any]],
    order: Sequence[str] | None,
) -> dict[str, tuple[Any, NDArray[np.bool_]]]:
    """The vectors of each column the sources match, read off the pairs that stood out."""
    found = match_columns(
        [(sources[a], columns[a], sources[b], columns[b])
         for _, a, b, _, _ in anchors if columns[a] and columns[b]],  # type: ignore[misc]
        None, order[0] if order else None,
    )  # fmt: skip
    names = [a for a, _, _, _ in found.matched]
    renamed = [found.rename(s, c) if c else {} for s, c in zip(sources, columns, strict=True)]
    out: dict[str, tuple[Any, NDArray[np.bool_]]] = {}
    for name in names:
        values = [processor.normalize(r.get(name, "")) for r in renamed]
        held = np.fromiter((bool(v) for v in values), bool, len(values))
        if held.any():
            out[name] = (space.vectors(values), held)
    return out


def candidate_rows(space: Space, k: int = DEFAULTS.link_top_k) -> set[tuple[int, int]]:
    """Each record's top ``k`` in every other source, by both views of the records."""
    found: set[tuple[int, int]] = set()
    for vectors in (space.weighed, space.joined):
        for ia, ib in space.groups:
            va, vb = purged(vectors[ia], vectors[ib])
            r, c, _ = top_k(va, vb, k)
            found.update(zip(ia[r].tolist(), ib[c].tolist(), strict=True))
            r, c, _ = top_k(vb, va, k)
            found.update(zip(ia[c].tolist(), ib[r].tolist(), strict=True))
    return found


def gather(
    space: Space,
    k: int = DEFAULTS.link_top_k,
    extra: Sequence[tuple[int, int]] = (),
) -> Evidence:
    """The evidence of every candidate, and of the ``extra`` pairs (labelled ones that are no
    candidate), first rows of the earlier source."""
    rows = sorted(candidate_rows(space, k) | set(extra))
    first = np.fromiter((p[0] for p in rows), np.int64, len(rows))
    second = np.fromiter((p[1] for p in rows), np.int64, len(rows))
    sim = cosine(space.weighed, first, second)
    joined = cosine(space.joined, first, second)
    rank_a, lead_a = _standing(sim, first)
    rank_b, lead_b = _standing(sim, second)
    values = [
        sim, joined, np.minimum(rank_a, k), np.minimum(rank_b, k), lead_a, lead_b,
        *_pairwise(space.normalized, first, second), _rarity(space, first, second),
    ]  # fmt: skip
    names = list(FEATURES)
    for name, (vectors, held) in space.columns.items():
        both = held[first] & held[second]
        values.append(np.where(both, cosine(vectors, first, second), MISSING))
        names.append(f"column {_short(name)}")
    return Evidence(first, second, np.column_stack(values).astype(np.float64), tuple(names))


def _short(column: str) -> str:
    """A column's name without an ontology's URI (``http://...#name`` -> ``name``)."""
    return column.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1] or column


def _standing(sim: NDArray[np.float64], own: NDArray[np.int64]) -> tuple[
    NDArray[np.float64], NDArray[np.float64]
]:  # fmt: skip
    """Each pair's rank among its record's candidates (0: the best) and its lead over the
    record's best other candidate (that record's best, or its second when this pair is it)."""
    if not len(sim):
        return np.zeros(0), np.zeros(0)
    order = np.lexsort((-sim, own))
    ranked_own, ranked = own[order], sim[order]
    starts = np.flatnonzero(np.r_[True, ranked_own[1:] != ranked_own[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    start_of = np.repeat(starts, sizes)
    rank = np.arange(len(order)) - start_of
    best = ranked[start_of]
    second = np.where(sizes > 1, ranked[np.minimum(starts + 1, len(order) - 1)], 0.0)
    second_of = np.repeat(second, sizes)
    lead = ranked - np.where(rank == 0, second_of, best)
    out_rank, out_lead = np.empty(len(order)), np.empty(len(order))
    out_rank[order], out_lead[order] = rank, lead
    return out_rank, out_lead


def _pairwise(texts: Sequence[str], first: NDArray[np.int64], second: NDArray[np.int64]) -> list[
    NDArray[np.float64]
]:  # fmt: skip
    """The comparisons made pair by pair: identifiers shared and differing
    (:func:`~neardup.decision.identifiers.identifiers_differ`: none shared, or codes on both
    sides and none shared; each number as written, not the groups joined), words in common,
    length ratio."""
    used = np.unique(np.r_[first, second]).tolist()
    held = {i: identifiers(texts[i].split()) for i in used}
    words = {i: frozenset(texts[i].split()) for i in used}
    shared, differ = np.full(len(first), MISSING), np.full(len(first), MISSING)
    jac, length = np.zeros(len(first)), np.zeros(len(first))
    for n, (a, b) in enumerate(zip(first.tolist(), second.tolist(), strict=True)):
        na, nb = held[a], held[b]
        if na and nb:
            common = len(na & nb)
            shared[n] = common / min(len(na), len(nb))
            # as the numbers check's verdict reads them: word by word, as the data writes
            # them (read joined, as the pairs a check drops are, D1's link with 100 labels
            # went from 0.937 to 0.927: P 0.881 -> 0.864)
            differ[n] = float(identifiers_differ(frozenset(na), frozenset(nb)))
        wa, wb = words[a], words[b]
        union = len(wa | wb)
        jac[n] = len(wa & wb) / union if union else 0.0
        la, lb = len(texts[a]), len(texts[b])
        length[n] = min(la, lb) / max(la, lb) if max(la, lb) else 0.0
    return [shared, differ, jac, length]


def _rarity(space: Space, first: NDArray[np.int64], second: NDArray[np.int64]) -> NDArray[
    np.float64
]:  # fmt: skip
    """The mean inverse document frequency of the grams two records share, over the largest."""
    idf = np.asarray(space.space.vectorizer.idf_, dtype=np.float64)
    held = space.joined.copy()
    held.data[:] = 1.0
    both = held[first].multiply(held[second]).tocsr()
    count = np.asarray(both.sum(axis=1)).ravel()
    total = np.asarray(both @ idf).ravel()
    top = float(idf.max()) if len(idf) else 1.0
    return np.where(count > 0, total / np.maximum(count, 1) / top, 0.0)
