"""Normalization, shingling, MinHash signatures and LSH banding helpers.

This reproduces the client-side ``ShingleProcessor`` of the "Near Duplicate Detection using
MinHashing and Solr" design: the indexer and the searcher must turn text into *exactly* the same
shingles and signatures, so every step here is deterministic across machines, processes and
library versions (no ``hash()``, no numpy ``Generator``).

Deliberate differences from the seed's Scala code:

* ``signatures`` takes the MINIMUM of the permuted hashes (the Scala code sorted descending and
  took the head, i.e. the maximum, by accident).
* shingle hashes are MurmurHash3 x86 32-bit of the UTF-8 bytes (via ``mmh3``), unsigned; Scala's
  ``MurmurHash3.stringHash`` hashes UTF-16 code units, so the numbers differ from the seed's.
* ``normalize`` also strips leading/trailing whitespace, so ``words("")`` is ``[]``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import lru_cache

import mmh3
import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import InvalidText

try:  # the optional C kernel (setup.py); the numpy path below gives the same values
    from . import _kernel
except ImportError:  # pragma: no cover - only without a C compiler at install time
    _kernel = None

__all__ = [
    "BAND_HASH_SEED",
    "EMPTY_SIGNATURE_VALUE",
    "HASH_FAMILIES",
    "KINDS",
    "NORMALIZATION_VERSION",
    "SHINGLE_HASH_SEED",
    "UNIVERSAL_PRIME",
    "ShingleProcessor",
    "band_keys",
    "WordCodes",
    "band_keys_batch",
    "check_text",
    "encoded_distance",
    "kernel",
    "normalize",
    "optimal_bands",
    "s_curve",
    "splitmix64",
    "word_edit_distance",
]

#: Bump whenever ``normalize`` changes: signatures stored in an index are only comparable with
#: signatures computed under the same normalization.
NORMALIZATION_VERSION = "v1"

#: Seed of the MurmurHash3 shingle hash (the seed design uses 42).
SHINGLE_HASH_SEED = 42

#: Seed of the 64-bit band hash used in :func:`band_keys`.
BAND_HASH_SEED = 0x5EED

#: Value of every position of the signature of a text without shingles (empty text). It is the
#: largest uint32, i.e. "no minimum was found". A non-empty text reaches it at a position only
#: when all its permuted hashes are 0xFFFFFFFF (probability ~2**-32 for a one-shingle text), so
#: in practice an all-sentinel signature means "empty". Two empty texts therefore get identical
#: signatures (estimate 1.0), consistent with ``jaccard(set(), set()) == 1.0``.
EMPTY_SIGNATURE_VALUE = 0xFFFFFFFF

#: Modulus of the universal family: the smallest prime above 2**32, so ``x -> (a*x + b) mod p``
#: is injective on all 32-bit shingle hashes (a prime below 2**32 would fold some together).
#: Overflow bound for uint64 arithmetic: x < 2**32 and a < 2**31 give a*x < 2**63, and
#: b < p < 2**32 + 16, so a*x + b < 2**63 + 2**33 < 2**64 -- no wrap-around before ``% p``.
UNIVERSAL_PRIME = 4294967311
_UNIVERSAL_A_MAX = 1 << 31  # a is drawn from [1, 2**31)

KINDS = ("word", "char")
HASH_FAMILIES = ("xor", "universal")

_MASK64 = (1 << 64) - 1
_UINT32_MAX = 0xFFFFFFFF
# Everything in ASCII punctuation except "-" (kept so "bel-air" stays one word), as in the seed.
_PUNCT = "!\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~"
_PUNCT_TABLE = str.maketrans(_PUNCT, " " * len(_PUNCT))
# Upper bound on the number of elements of a temporary (shingles x num_perm) matrix, to keep the
# memory of one vectorized step bounded (512 KB of uint64: cache-friendly, measured fastest).
_CHUNK_ELEMENTS = 1 << 16


def normalize(text: str) -> str:
    """Lower-case, turn ASCII punctuation except '-' into spaces, collapse whitespace, strip.

    Indexer and searcher both call this so that "Art's Deli" and "art s deli" shingle alike.
    Non-ASCII letters are kept (``"Café"`` -> ``"café"``).
    """
    if _kernel is not None and text.isascii():  # the same rules in C, 10x faster
        return _kernel.normalize(text)
    return " ".join(text.lower().translate(_PUNCT_TABLE).split())


def kernel() -> str:
    """Which implementation computes signatures: ``"c"`` or ``"numpy"``.

    ``"c"`` when the compiled kernel was built at install time, unless the environment variable
    ``NEARDUP_KERNEL=numpy`` asks for the reference path (both give identical signatures).
    """
    if _kernel is None or os.environ.get("NEARDUP_KERNEL", "").lower() == "numpy":
        return "numpy"
    return "c"


def check_text(text: str, where: str = "text") -> str:
    """``text`` itself if it has a UTF-8 form, else :class:`InvalidText` saying where.

    Lone surrogates (``"\\ud800"``) are legal in a Python ``str`` but have no UTF-8 form, and
    ``mmh3`` 5.x crashes the interpreter on them instead of raising, so every text is checked
    before it is hashed.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise InvalidText(
            f"{where} is not valid Unicode: lone surrogate U+{ord(bad):04X} at character "
            f"{exc.start + 1}"
        ) from None
    return text


class WordCodes:
    """Words -> one code point each, so that an edit distance in words is one between strings.

    One instance can serve many comparisons (``allpairs.verify`` encodes each record once).
    ``generation`` grows when the table is full and starts again (past 1,112,064 distinct
    words, the number of Unicode scalar values), so cached encodings of an older generation
    must not be compared with newer ones.
    """

    LIMIT = 0x110000 - 0x800  # scalar values: every code point but the surrogate block

    def __init__(self) -> None:
        self.codes: dict[str, str] = {}
        self.generation = 0

    def encode(self, words: Sequence[str]) -> str:
        codes = self.codes
        out = [codes.get(w) for w in words]
        if None in out:
            if len(codes) + len(out) > self.LIMIT:
                if len(out) > self.LIMIT:
                    raise ValueError(f"a text of {len(out):,d} words is too long to compare")
                self.restart()
                out = [None] * len(out)
            for k, w in enumerate(words):
                c = codes.get(w)
                if c is None:
                    i = len(codes)
                    c = codes[w] = chr(i if i < 0xD800 else i + 0x800)  # skip surrogates
                out[k] = c
        return "".join(out)  # type: ignore[arg-type]

    def restart(self) -> None:
        """Forget every code: a new generation begins."""
        self.codes.clear()
        self.generation += 1


def word_edit_distance(a: Sequence[str], b: Sequence[str], max_dist: int | None = None) -> int:
    """Levenshtein distance counted in WORDS (insert/delete/substitute whole words).

    Words are first mapped to unique code points (:class:`WordCodes`) and the resulting strings
    are compared with ``Levenshtein.distance``. We do not pass the word lists directly:
    python-Levenshtein accepts sequences of hashables but compares them by ``hash()`` only
    (verified: objects with equal hashes but unequal values compare as equal), so a hash
    collision would silently be counted as a match. The code-point mapping is exact.

    If ``max_dist`` is given and the distance exceeds it, ``max_dist + 1`` is returned (cheaper:
    the library can stop early), which is all a "within k edits?" filter needs.
    """
    if max_dist is not None and max_dist < 0:
        raise ValueError(f"max_dist must be >= 0 or None, got {max_dist}")
    codes = WordCodes()
    return encoded_distance(codes.encode(a), codes.encode(b), max_dist)


def encoded_distance(sa: str, sb: str, max_dist: int | None = None) -> int:
    """Edit distance of two :class:`WordCodes` encodings of the same generation."""
    import Levenshtein  # local import: only the searchers and the verifier need it

    if max_dist is None:
        return int(Levenshtein.distance(sa, sb))
    return int(Levenshtein.distance(sa, sb, score_cutoff=max_dist))


def splitmix64(seed: int, n: int) -> list[int]:
    """First ``n`` outputs of SplitMix64 (Steele, Lea, Flood 2014) seeded with ``seed``.

    Used for the permutation parameters because it is a fixed, 10-line algorithm with published
    reference outputs (seed 1234567 -> 6457827717110365317, ...): unlike numpy's Generator or
    Python's ``random``/``hash`` it can never change under us, so stored signatures stay valid.
    """
    state = seed & _MASK64
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        out.append(z ^ (z >> 31))
    return out


@lru_cache(maxsize=64)
def _perm_params(family: str, seed: int, n: int) -> tuple[NDArray[np.uint64], ...]:
    """Permutation parameters for the first ``n`` permutations (prefix-stable in ``n``).

    xor: one SplitMix64 draw per permutation, its high 32 bits are the mask.
    universal: two draws per permutation, ``a = 1 + z1 % (2**31 - 1)`` in [1, 2**31) and
    ``b = z2 % p`` in [0, p). The modulo bias from reducing 64-bit draws is < 2**-31: negligible.
    Because permutation i only depends on draws of index <= i, ``signatures(20, t)`` is a prefix
    of ``signatures(128, t)``.
    """
    if family == "xor":
        masks = np.array([z >> 32 for z in splitmix64(seed, n)], dtype=np.uint32)
        masks.setflags(write=False)
        return (masks,)
    draws = splitmix64(seed, 2 * n)
    a = np.array([1 + z % (_UNIVERSAL_A_MAX - 1) for z in draws[0::2]], dtype=np.uint64)
    b = np.array([z % UNIVERSAL_PRIME for z in draws[1::2]], dtype=np.uint64)
    a.setflags(write=False)
    b.setflags(write=False)
    return (a, b)


class ShingleProcessor:
    """Turns text into shingles, shingle hashes and MinHash signatures, identically everywhere.

    ``kind="word"`` makes word n-grams of ``size`` words (seed 003); ``kind="char"`` makes
    character k-grams of the normalized text. ``hash_family`` picks how the ``num_perm`` random
    permutations are simulated: ``"xor"`` (hash XOR mask, as in the seed) or ``"universal"``
    (``(a*x + b) mod p``). Both are parameterised by a SplitMix64 stream seeded with ``seed``.
    """

    def __init__(
        self,
        size: int = 3,
        *,
        kind: str = "word",
        num_perm: int = 20,
        hash_family: str = "xor",
        seed: int = 42,
    ) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be an integer >= 1, got {size!r}")
        if isinstance(num_perm, bool) or not isinstance(num_perm, int) or num_perm < 1:
            raise ValueError(f"num_perm must be an integer >= 1, got {num_perm!r}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if hash_family not in HASH_FAMILIES:
            raise ValueError(f"hash_family must be one of {HASH_FAMILIES}, got {hash_family!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.size = size
        self.kind = kind
        self.num_perm = num_perm
        self.hash_family = hash_family
        self.seed = seed

    def __repr__(self) -> str:
        return (
            f"ShingleProcessor(size={self.size}, kind={self.kind!r}, num_perm={self.num_perm}, "
            f"hash_family={self.hash_family!r}, seed={self.seed})"
        )

    # -- text ----------------------------------------------------------------------------------

    @staticmethod
    def normalize(text: str) -> str:
        """See module-level :func:`normalize`."""
        return normalize(text)

    def words(self, text: str) -> list[str]:
        """Words of the normalized text ([] for empty/blank text)."""
        return normalize(text).split()

    def first_word(self, text: str) -> str:
        """First normalized word, "" for empty text; used to narrow the Solr search scope."""
        words = self.words(text)
        return words[0] if words else ""

    def num_words(self, text: str) -> int:
        """Number of normalized words; another cheap filter for candidate search."""
        return len(self.words(text))

    def ngrams(self, text: str, *, normalized: bool = False) -> list[str]:
        """Shingles in document order, duplicates kept (they become Solr field values).

        Word kind: n-grams of ``size`` words joined by single spaces. Char kind: k-grams of
        ``size`` characters of the normalized text (spaces included). A text shorter than
        ``size`` is one shingle (itself, normalized) so short texts still match; empty -> [].
        ``normalized=True`` promises that ``text == normalize(text)`` and skips that step.
        """
        if self.kind == "word":
            words = text.split() if normalized else self.words(text)
            if not words:
                return []
            if len(words) < self.size:
                return [" ".join(words)]
            if self.size == 1:
                return words
            # zip of shifted views (it stops at the shortest): 2x faster than slice-and-join
            shifted = (words[i:] for i in range(self.size))
            return list(map(" ".join, zip(*shifted, strict=False)))
        norm = text if normalized else normalize(text)
        if not norm:
            return []
        if len(norm) < self.size:
            return [norm]
        k = self.size
        return [norm[i : i + k] for i in range(len(norm) - k + 1)]

    def shingle_set(self, text: str) -> set[str]:
        """Distinct shingles: the set whose Jaccard similarity MinHash estimates."""
        return set(self.ngrams(text))

    # -- hashing -------------------------------------------------------------------------------

    @staticmethod
    def hash(shingle: str) -> int:
        """Unsigned MurmurHash3 x86 32-bit of the UTF-8 shingle, seed 42 (fixed forever)."""
        return mmh3.hash(check_text(shingle, "shingle"), SHINGLE_HASH_SEED, signed=False)

    def hashes(self, text: str) -> NDArray[np.uint32]:
        """Sorted unique shingle hashes of ``text`` (empty array for empty text)."""
        return _hash_shingles(self.shingle_set(check_text(text)))

    def permutation_params(self, n: int | None = None) -> dict[str, NDArray[np.uint64]]:
        """Parameters of the first ``n`` (default ``num_perm``) permutations, read-only.

        ``{"mask": uint32[n]}`` for xor, ``{"a": uint64[n], "b": uint64[n]}`` for universal.
        Exposed so tests and other implementations can check them against SplitMix64.
        """
        n = self.num_perm if n is None else _check_n(n)
        params = _perm_params(self.hash_family, self.seed, n)
        if self.hash_family == "xor":
            return {"mask": params[0]}
        return {"a": params[0], "b": params[1]}

    def signatures_from_hashes(self, n: int, hashes: ArrayLike) -> NDArray[np.uint32]:
        """MinHash signature of a set given by its 32-bit shingle hashes (see ``signatures``)."""
        n = _check_n(n)
        h = np.unique(np.asarray(hashes, dtype=np.uint32))
        if h.size == 0:
            return np.full(n, EMPTY_SIGNATURE_VALUE, dtype=np.uint32)
        params = _perm_params(self.hash_family, self.seed, n)
        out = np.full(n, _UINT32_MAX, dtype=np.uint64)
        step = max(1, _CHUNK_ELEMENTS // n)
        for start in range(0, h.size, step):  # running min over row chunks bounds memory
            block = _permute(self.hash_family, params, h[start : start + step])
            np.minimum(out, block.min(axis=0), out=out)
        return out.astype(np.uint32)

    def signatures(self, n: int, text: str) -> NDArray[np.uint32]:
        """``n`` MinHash values (uint32) of the text's shingle set.

        Value i is the MINIMUM over shingles of permutation i applied to the shingle hash. (The
        seed's Scala ``sortWith(_ > _).head`` took the maximum by accident; we take the min.)
        For "universal" the permuted values live in [0, p) with p slightly above 2**32; the min
        is clamped to 0xFFFFFFFF, which is order-preserving and only merges the top 16 values.
        A text without shingles gets ``n`` copies of ``EMPTY_SIGNATURE_VALUE`` (0xFFFFFFFF).
        """
        n = _check_n(n)
        if kernel() == "c":
            return self._kernel_signatures(n, [text])[0]
        return self.signatures_from_hashes(n, self.hashes(text))

    def signature(self, text: str) -> NDArray[np.uint32]:
        """The ``num_perm``-long signature stored in the index."""
        return self.signatures(self.num_perm, text)

    def signatures_batch(self, texts: Iterable[str]) -> NDArray[np.uint32]:
        """Signatures of many texts, shape (len(texts), num_perm); equal to ``signature`` each.

        With the C kernel (see :func:`kernel`) the texts never become shingle strings: it
        shingles, hashes and permutes the normalized bytes in one call, without the GIL.
        """
        if kernel() == "c":
            return self._kernel_signatures(self.num_perm, list(texts))
        return self.signatures_batch_numpy(texts)

    def _kernel_signatures(self, n: int, texts: list[str]) -> NDArray[np.uint32]:
        out = np.empty((len(texts), n), dtype=np.uint32)
        params = _perm_params(self.hash_family, self.seed, n)
        kind = KINDS.index(self.kind)
        family = HASH_FAMILIES.index(self.hash_family)
        p2 = params[1] if family == 1 else None
        try:
            _kernel.signatures(texts, normalize, kind, self.size, family, params[0], p2, out)
        except UnicodeEncodeError:
            for i, t in enumerate(texts):
                check_text(t, f"text {i}")
            raise
        return out

    def signatures_batch_numpy(self, texts: Iterable[str]) -> NDArray[np.uint32]:
        """The reference path of :meth:`signatures_batch` in Python and numpy.

        All shingle hashes are computed in one pass into one flat array, the permutations are
        applied to it in cache-sized blocks of whole documents, and per-document minima come
        from ``np.minimum.reduceat``. (Deliberately a different code path from ``signature``, so
        the equality test between the two checks something.)
        """
        n = self.num_perm
        params = _perm_params(self.hash_family, self.seed, n)
        sets = [self.shingle_set(check_text(t, f"text {i}")) for i, t in enumerate(texts)]
        sizes = np.fromiter((len(x) for x in sets), dtype=np.int64, count=len(sets))
        seed = SHINGLE_HASH_SEED
        flat = np.fromiter(
            (mmh3.hash(g, seed, signed=False) for x in sets for g in x),
            dtype=np.uint32,
            count=int(sizes.sum()),
        )
        out = np.full((len(sets), n), EMPTY_SIGNATURE_VALUE, dtype=np.uint32)
        # Empty documents keep the sentinel: reduceat cannot express an empty segment. They hold
        # no hashes, so the hashes of the remaining documents are still contiguous in `flat`.
        docs = np.flatnonzero(sizes)
        ends = np.cumsum(sizes)[docs]
        starts = ends - sizes[docs]
        step = max(1, _CHUNK_ELEMENTS // n)
        lo = 0
        while lo < docs.size:
            # Next block: as many whole documents as fit in `step` hashes (at least one).
            hi = max(lo + 1, int(np.searchsorted(ends, starts[lo] + step, side="right")))
            block = flat[starts[lo] : ends[hi - 1]]
            permuted = _permute(self.hash_family, params, block)  # (hashes, n)
            mins = np.minimum.reduceat(permuted, starts[lo:hi] - starts[lo], axis=0)
            out[docs[lo:hi]] = np.minimum(mins, _UINT32_MAX).astype(np.uint32)
            lo = hi
        return out

    # -- similarity ----------------------------------------------------------------------------

    @staticmethod
    def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
        """|a & b| / |a | b|; two empty sets are identical, so their similarity is 1.0."""
        union = len(a | b)
        if union == 0:
            return 1.0
        return len(a & b) / union

    @staticmethod
    def estimate_jaccard(sig1: ArrayLike, sig2: ArrayLike) -> float:
        """Fraction of equal positions of two signatures: an unbiased Jaccard estimate."""
        s1, s2 = np.asarray(sig1), np.asarray(sig2)
        if s1.shape != s2.shape or s1.ndim != 1 or s1.size == 0:
            raise ValueError(
                f"signatures must be non-empty and equal length: {s1.shape} {s2.shape}"
            )
        return float(np.count_nonzero(s1 == s2)) / s1.size

    def params(self) -> dict[str, str | int]:
        """Everything that determines a signature, for storing with an index and checking later."""
        return {
            "kind": self.kind,
            "size": self.size,
            "num_perm": self.num_perm,
            "hash_family": self.hash_family,
            "seed": self.seed,
            "normalization": NORMALIZATION_VERSION,
            "shingle_hash": f"mmh3_x86_32_seed{SHINGLE_HASH_SEED}",
            "perm_rng": "splitmix64",
        }


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"number of permutations must be an integer >= 1, got {n!r}")
    return int(n)


def _hash_shingles(shingles: Iterable[str]) -> NDArray[np.uint32]:
    """Sorted unique unsigned mmh3 hashes (two shingles may collide; the set dedups them)."""
    seed = SHINGLE_HASH_SEED
    hashed = np.fromiter((mmh3.hash(s, seed, signed=False) for s in shingles), dtype=np.uint32)
    return np.unique(hashed)


def _permute(
    family: str, params: tuple[NDArray[np.uint64], ...], h: NDArray[np.uint32]
) -> NDArray[np.uint32] | NDArray[np.uint64]:
    """Apply all permutations to hashes ``h``: a (len(h), n_perm) matrix.

    Hash-major layout so each per-document min reduces over contiguous rows (about 2x faster
    than reducing along the last axis). XOR stays in uint32; universal needs uint64 (values < p).
    """
    if family == "xor":
        return h[:, None] ^ params[0][None, :]
    a, b = params
    x = h.astype(np.uint64)[:, None]
    # No overflow: a < 2**31, x < 2**32, b < p (see UNIVERSAL_PRIME).
    return (x * a[None, :] + b[None, :]) % np.uint64(UNIVERSAL_PRIME)


# -- LSH banding -------------------------------------------------------------------------------


def s_curve(s: float | ArrayLike, b: int, r: int) -> float | NDArray[np.float64]:
    """Probability that two sets with Jaccard ``s`` share at least one of ``b`` bands of ``r``.

    ``1 - (1 - s**r)**b``; works on scalars and numpy arrays.
    """
    if b < 1 or r < 1:
        raise ValueError(f"bands and rows must be >= 1, got b={b}, r={r}")
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
        raise ValueError(f"num_perm must be >= 1, got {num_perm}")
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    if fp_weight < 0 or fn_weight < 0 or fp_weight + fn_weight == 0:
        raise ValueError("weights must be >= 0 and not both 0")
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
        raise ValueError(f"bands and rows must be >= 1, got {bands}, {rows}")
    arr = np.asarray(signatures)
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-D array of signatures, got shape {arr.shape}")
    if arr.shape[1] < bands * rows:
        raise ValueError(f"signature length {arr.shape[1]} < bands*rows = {bands * rows}")
    if arr.size and (arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() > _UINT32_MAX):
        raise ValueError("signature values must be integers in [0, 2**32)")
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
        raise ValueError(f"expected a 1-D signature, got shape {sig.shape}")
    return band_keys_batch(sig[None, :], bands, rows)[0]


def band_keys_batch(signatures_2d: ArrayLike, bands: int, rows: int) -> list[list[str]]:
    """``band_keys`` for every row of a (docs, num_perm) matrix.

    Validation, dtype conversion and serialization happen once for the whole matrix; only the
    mmh3 call per band remains per item (a C call on a small bytes slice).
    """
    mat = _band_matrix(signatures_2d, bands, rows)
    if _kernel is not None:  # same keys (tested), 8x faster
        return _kernel.band_keys(mat, mat.shape[0], bands, rows, BAND_HASH_SEED)
    return band_keys_batch_python(mat, bands, rows)


def band_keys_batch_python(mat: NDArray[np.uint32], bands: int, rows: int) -> list[list[str]]:
    """The reference implementation of :func:`band_keys_batch` (``mmh3.hash64`` per band)."""
    mat = _band_matrix(mat, bands, rows)
    width = rows * 4
    hash64 = mmh3.hash64
    seed = BAND_HASH_SEED
    buf = mat.tobytes()
    row_bytes = bands * width
    out: list[list[str]] = []
    for d in range(mat.shape[0]):
        keys = []
        for i in range(bands):
            start = d * row_bytes + i * width
            h = hash64(buf[start : start + width], seed, signed=False)[0]
            keys.append(f"b{i:02d}_{h:016x}")
        out.append(keys)
    return out
