"""LSH banding: a signature cut into b bands of r rows, each band one key.

Two records share a band's key only if they agree on all r values of that band, which happens
with probability ``1 - (1 - s**r)**b`` for Jaccard similarity s (the S-curve). neardup picks
(b, r) so that a pair right at the threshold becomes a candidate with probability >= 0.99 and
leaves precision to exact verification.

>>> choose_bands(128, 0.65)
(32, 4)
>>> round(s_curve(0.65, 32, 4), 3)
0.998
"""

from __future__ import annotations

import mmh3
import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..defaults import DEFAULTS
from ..errors import ArgumentError
from . import kernel

#: Seed of the 64-bit band hash used in :func:`band_keys`.
BAND_HASH_SEED = 0x5EED
_UINT32_MAX = 0xFFFFFFFF

#: Solr's default maxBooleanClauses: a neighbors query has one clause per band.
MAX_BANDS = 1024


def choose_bands(
    num_perm: int, threshold: float, recall: float = DEFAULTS.target_recall
) -> tuple[int, int]:
    """(bands, rows) for a near-complete report: the longest bands whose S-curve still gives
    ``recall`` at ``threshold``.

    Longer bands mean fewer false candidates, so this is the cheapest choice that keeps recall.
    datasketch-style :func:`~neardup.sign.banding.optimal_bands` balances false positives against
    false negatives instead, which loses about half the pairs right at the threshold; here
    false positives cost only verification, never a wrong answer.
    """
    best = (num_perm, 1)
    for r in range(1, num_perm + 1):
        b = num_perm // r
        if s_curve(min(threshold, 1.0), b, r) >= recall:
            best = (b, r)
    return best


def band_field(band: int) -> str:
    """The single-valued field that holds band ``band``'s key of every record."""
    return f"lsh_b{band:02d}"


def key_field(key: str) -> str:
    """The band field of a band key (``b07_3f9c...`` is in ``lsh_b07``)."""
    head, sep, _ = key.partition("_")
    if not sep or head[:1] != "b" or not head[1:].isdigit():
        raise ValueError(f"not a band key: {key!r}")
    return band_field(int(head[1:]))



def s_curve(s: float | ArrayLike, b: int, r: int) -> float | NDArray[np.float64]:
    """Probability that two sets with Jaccard ``s`` share at least one of ``b`` bands of ``r``.

    ``1 - (1 - s**r)**b``; works on scalars and numpy arrays.
    """
    if b < 1 or r < 1:
        raise ArgumentError(f"bands and rows must be >= 1, got b={b}, r={r}")
    val = 1.0 - (1.0 - np.asarray(s, dtype=np.float64) ** r) ** b
    return float(val) if np.ndim(val) == 0 else val


def optimal_bands(
    num_perm: int,
    threshold: float,
    fp_weight: float = 0.5,
    fn_weight: float = 0.5,
) -> tuple[int, int]:
    """(bands, rows) with bands*rows <= num_perm minimizing weighted FP + FN areas.

    FP area = integral over [0, threshold] of the S-curve (dissimilar pairs that become
    candidates); FN area = integral over [threshold, 1] of 1 - S (similar pairs that are missed).
    Integrated with the trapezoidal rule on a fine grid; ties go to the fewest bands.
    """
    if num_perm < 1:
        raise ArgumentError(f"num_perm must be >= 1, got {num_perm}")
    if not 0.0 < threshold < 1.0:
        raise ArgumentError(f"threshold must be in (0, 1), got {threshold}")
    if fp_weight < 0 or fn_weight < 0 or fp_weight + fn_weight == 0:
        raise ArgumentError("weights must be >= 0 and not both 0")
    grid = 1001
    s_lo = np.linspace(0.0, threshold, grid)
    s_hi = np.linspace(threshold, 1.0, grid)

    def trapezoid(y: NDArray[np.float64], x: NDArray[np.float64]) -> float:
        return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2.0)

    best: tuple[float, int, int] | None = None
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = trapezoid(1.0 - (1.0 - s_lo**r) ** b, s_lo)
            fn = trapezoid((1.0 - s_hi**r) ** b, s_hi)
            err = fp_weight * fp + fn_weight * fn
            if best is None or err < best[0] - 1e-15:
                best = (err, b, r)
    assert best is not None
    return best[1], best[2]


def _band_matrix(signatures: ArrayLike, bands: int, rows: int) -> NDArray[np.uint32]:
    """Validate and return a C-contiguous little-endian uint32 (docs, bands*rows) matrix."""
    if bands < 1 or rows < 1:
        raise ArgumentError(f"bands and rows must be >= 1, got {bands}, {rows}")
    arr = np.asarray(signatures)
    if arr.ndim != 2:
        raise ArgumentError(f"expected a 2-D array of signatures, got shape {arr.shape}")
    if arr.shape[1] < bands * rows:
        raise ArgumentError(f"signature length {arr.shape[1]} < bands*rows = {bands * rows}")
    fits = arr.dtype.kind == "u" and arr.dtype.itemsize <= 4  # as signatures are: no scan
    if (
        arr.size
        and not fits
        and (arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() > _UINT32_MAX)
    ):
        raise ArgumentError("signature values must be integers in [0, 2**32)")
    return np.ascontiguousarray(arr[:, : bands * rows], dtype="<u4")


def band_keys(signature: ArrayLike, bands: int, rows: int) -> list[str]:
    """One string key per band: ``"b{band:02d}_{hash:016x}"``.

    The hash is the first 64 bits of MurmurHash3 x64-128 of the band's ``rows`` uint32 values
    as little-endian bytes (fixed seed), so two documents share a key iff their band values are
    equal (up to a ~2**-64 collision). The band number is part of the key so equal values in
    different bands never meet. Positions beyond ``bands*rows`` are ignored.
    """
    sig = np.asarray(signature)
    if sig.ndim != 1:
        raise ArgumentError(f"expected a 1-D signature, got shape {sig.shape}")
    return band_keys_batch(sig[None, :], bands, rows)[0]


def band_keys_batch(signatures_2d: ArrayLike, bands: int, rows: int) -> list[list[str]]:
    """``band_keys`` for every row of a (docs, num_perm) matrix.

    Validation, dtype conversion and serialization happen once for the whole matrix; only the
    mmh3 call per band remains per item (a C call on a small bytes slice).
    """
    mat = _band_matrix(signatures_2d, bands, rows)
    c = kernel.get()
    if c is not None:  # same keys (tested), 8x faster
        return c.band_keys(mat, mat.shape[0], bands, rows, BAND_HASH_SEED)
    return band_keys_batch_python(mat, bands, rows)


def band_hashes_batch(signatures_2d: ArrayLike, bands: int, rows: int) -> NDArray[np.uint64]:
    """The 64-bit hashes that :func:`band_keys_batch` writes in hex, as a (docs, bands) matrix:
    what a Solr index's band fields hold (as signed longs), made without a string a key.

    >>> import numpy as np
    >>> sig = np.arange(12, dtype=np.uint32)
    >>> [f"b{i:02d}_{h:016x}" for i, h in enumerate(band_hashes_batch(sig[None], 4, 3)[0])] == (
    ...     band_keys(sig, 4, 3))
    True
    """
    mat = _band_matrix(signatures_2d, bands, rows)
    c = kernel.get()
    if c is None:
        return _band_hashes_python(mat, bands, rows)
    out = np.empty((mat.shape[0], bands), dtype=np.uint64)
    c.band_hashes(mat, mat.shape[0], bands, rows, BAND_HASH_SEED, out)
    return out


def _band_hashes_python(mat: NDArray[np.uint32], bands: int, rows: int) -> NDArray[np.uint64]:
    """The reference band hash: ``mmh3.hash64`` of each band's little-endian bytes."""
    width = rows * 4
    buf = mat.tobytes()
    out = np.empty((mat.shape[0], bands), dtype=np.uint64)
    for d in range(mat.shape[0]):
        for i in range(bands):
            start = (d * bands + i) * width
            out[d, i] = mmh3.hash64(buf[start : start + width], BAND_HASH_SEED, signed=False)[0]
    return out


def band_keys_batch_python(mat: NDArray[np.uint32], bands: int, rows: int) -> list[list[str]]:
    """The reference implementation of :func:`band_keys_batch` (``mmh3.hash64`` per band)."""
    hashes = _band_hashes_python(_band_matrix(mat, bands, rows), bands, rows).tolist()
    return [[f"b{i:02d}_{h:016x}" for i, h in enumerate(row)] for row in hashes]


def key_value(key: str) -> int:
    """A band key's hash as the signed 64-bit value a backend stores instead of the string
    (a Solr ``plong`` band field, a DuckDB ``BIGINT``)."""
    h = int(key.partition("_")[2], 16)
    return h - (1 << 64) if h >= 1 << 63 else h


def value_key(band: int, value: int) -> str:
    """The band key of a band's stored 64-bit value (the inverse of :func:`key_value`)."""
    return f"b{band:02d}_{int(value) & 0xFFFF_FFFF_FFFF_FFFF:016x}"
