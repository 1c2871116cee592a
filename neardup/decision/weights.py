"""Weighted similarity: TF-IDF vectors of character 4-grams, compared by cosine.

Jaccard over shingles counts every shingle the same: in two product catalogues the 3-grams of
"black" or "with" weigh as much as those of the model number "KDL-46V3000", and in two movie
catalogues a shared genre as much as a shared title. TF-IDF weighs a gram by how rare it is in
the collection (its inverse document frequency), so that rare tokens (identifiers, model
numbers, names) decide and common ones barely count.

Why character 4-grams within words (scikit-learn's ``char_wb`` analyzer): they survive typos,
abbreviations and re-ordered words ("Reluctant Dragon, The" / "The Reluctant Dragon"), and on
the development tasks (``../shared/datasets/er``) they were the representation whose best
threshold was highest on average. Term frequencies are sublinear (1 + log tf), so a long
description does not drown its title; the document frequencies are counted over every record
of the index (both catalogues), read back from the backend.

Why scikit-learn's ``TfidfVectorizer`` and not our own: it is the maintained, tested
implementation of exactly this (analyzer, smoothing, normalisation), and its sparse output is
what :mod:`neardup.decision.topk` multiplies. The text is first normalized by the index's own
:class:`~neardup.sign.minhash.ShingleProcessor` (lower case, accents, canonical forms), so that the
weighted path sees the same words as the MinHash path.

>>> space = TfidfSpace.fit(["sony kdl-46v3000 black tv", "black usb cable", "sony kdl46v3000 tv"])
>>> v = space.vectors(["sony kdl-46v3000 black tv", "black usb cable", "sony kdl46v3000 tv"])
>>> bool(cosine(v, [0], [2])[0] > cosine(v, [0], [1])[0])
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS


@dataclass
class TfidfSpace:
    """A fitted TF-IDF vocabulary: grams and their inverse document frequencies."""

    vectorizer: Any

    @classmethod
    def fit(cls, texts: Sequence[str]) -> TfidfSpace:
        """Count document frequencies over ``texts`` (normalized texts of every record)."""
        vec = _vectorizer()
        vec.fit(texts)
        return cls(vec)

    @classmethod
    def fit_vectors(cls, texts: Sequence[str]) -> tuple[TfidfSpace, Any]:
        """:meth:`fit` and :meth:`vectors` of the same ``texts``, cutting each text into grams
        once instead of twice."""
        vec = _vectorizer()
        vectors = vec.fit_transform(texts).tocsr()
        return cls(vec), vectors

    def vectors(self, texts: Sequence[str]) -> Any:
        """L2-normalized TF-IDF rows (a ``scipy.sparse.csr_matrix``), one per text."""
        return self.vectorizer.transform(texts).tocsr()

    def grams(self) -> int:
        return len(self.vectorizer.vocabulary_)


def _vectorizer() -> Any:
    """The one TF-IDF vectorizer: character n-grams within words, sublinear term frequencies."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(
        analyzer="char_wb",
        ngram_range=(DEFAULTS.weighted_gram, DEFAULTS.weighted_gram),
        lowercase=False,  # the processor has normalized the text
        sublinear_tf=True,
        dtype=np.float32,
    )


def cosine(matrix: Any, rows_a: Sequence[int] | NDArray[np.int64],
           rows_b: Sequence[int] | NDArray[np.int64]) -> NDArray[np.float64]:
    """The cosine similarity of row pairs of one L2-normalized sparse matrix."""
    a = matrix[np.asarray(rows_a, dtype=np.int64)]
    b = matrix[np.asarray(rows_b, dtype=np.int64)]
    return np.asarray(a.multiply(b).sum(axis=1), dtype=np.float64).ravel()


def source_idf(
    idf: NDArray[np.float64], counts: Any, sources: Sequence[str]
) -> tuple[NDArray[np.float64], int]:
    """``idf`` (of the grams ``counts`` columns) with the grams that say which source a record
    is of weighed as a gram every record holds (idf 1), and how many there are.

    Such a gram is held by at least ``DEFAULTS.source_gram_share`` of one source's records
    (and ``DEFAULTS.source_gram_least`` of them), and by less than ``DEFAULTS.source_gram_ratio``
    times that share of another's. It tells a catalogue, not an entity: a decoration one
    catalogue writes on many records ("- Remastered 2011", "(feat. X)", a length written
    ``3:13``) lowered a true pair's cosine toward the runner-up's, which lacks it too, so that
    the pair no longer stood out. For linking only: the sources of one collection
    deduplicated are no catalogues."""
    names = sorted(set(sources))
    if len(names) < 2 or not counts.shape[1]:
        return idf, 0
    held = (counts > 0).astype(np.float32).tocsr()
    index = {name: n for n, name in enumerate(names)}
    of = np.fromiter((index[s] for s in sources), np.int64, len(sources))
    shares = np.zeros((len(names), counts.shape[1]))
    many = np.zeros(counts.shape[1], dtype=bool)
    for n in range(len(names)):
        rows = np.flatnonzero(of == n)
        df = np.asarray(held[rows].sum(axis=0)).ravel()
        shares[n] = df / len(rows)
        many |= df >= DEFAULTS.source_gram_least
    hi, lo = shares.max(axis=0), shares.min(axis=0)
    told = many & (hi >= DEFAULTS.source_gram_share) & (lo < DEFAULTS.source_gram_ratio * hi)
    out = np.array(idf, dtype=np.float64)
    out[told] = 1.0
    return out, int(told.sum())
