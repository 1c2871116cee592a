"""Candidates by weight: each record's top-k most similar records of another source.

LSH bands find pairs whose shingle sets overlap a lot. Two catalogues of one product often
overlap little (a long description beside a short title) yet share a rare token or two (the
model number): their Jaccard is low, their weighted similarity is not. This candidate source
finds them: every record of source A keeps its ``k`` best records of source B by TF-IDF cosine,
and every record of B its ``k`` best of A (the Sparkly/JedAI idea of top-k candidates, here as
a sparse matrix product).

The cost stays near linear by design (the block purging of token blocking): a gram held by
more than ``DEFAULTS.link_purge`` records (:mod:`neardup.defaults`) names no record in
particular, so it is left out of the search for candidates (it still counts in their similarity,
:func:`neardup.decision.weights.cosine`). A record then meets at most ``grams x
DEFAULTS.link_purge`` others while its candidates are sought.

Why ``sparse_dot_topn``: it multiplies two sparse matrices keeping only each row's top-n, in
C++ on several threads, without ever holding the dense product (50,000 x 50,000 records would
be 10 GB); scipy's product alone would hold every non-zero of it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS


def purged(a: Any, b: Any, cap: int = DEFAULTS.link_purge) -> tuple[Any, Any]:
    """``a`` and ``b`` without the columns (grams) that more than ``cap`` rows of both hold."""
    from scipy import sparse

    width = a.shape[1]
    df = np.bincount(a.indices, minlength=width) + np.bincount(b.indices, minlength=width)
    if int(df.max(initial=0)) <= cap:
        return a, b
    keep = sparse.diags((df <= cap).astype(a.dtype))
    return (a @ keep).tocsr(), (b @ keep).tocsr()


def top_k(
    a: Any, b: Any, k: int = DEFAULTS.link_top_k, threads: int = 2
) -> tuple[NDArray[np.int64], ...]:
    """Each row of ``a``'s ``k`` best rows of ``b`` by dot product: ``(row, col, value)``
    arrays, best first within a row, rows with nothing in common left out."""
    from sparse_dot_topn import sp_matmul_topn

    if a.shape[0] == 0 or b.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    c = sp_matmul_topn(a, b.T.tocsr(), top_n=k, threshold=0.0, sort=True, n_threads=threads)
    c = c.tocoo()
    return (c.row.astype(np.int64), c.col.astype(np.int64), c.data.astype(np.float64))


def top_k_within(
    vectors: Any, k: int = DEFAULTS.link_top_k, cap: int = DEFAULTS.link_purge
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """One collection's candidates: each row's ``k`` best other rows by dot product, grams held
    by more than ``cap`` rows left out of the search (:func:`purged`); each pair once, as
    ``(first, second)`` rows with ``first < second``, in row order."""
    search, _ = purged(vectors, vectors[:0], cap)
    rows, cols, _ = top_k(search, search, k + 1)  # each row finds itself
    other = rows != cols
    if not other.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    ends = np.unique(np.stack([np.minimum(rows, cols)[other], np.maximum(rows, cols)[other]],
                              axis=1), axis=0)  # fmt: skip
    return ends[:, 0], ends[:, 1]
