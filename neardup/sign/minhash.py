"""Shingles and seeded MinHash signatures: the ``ShingleProcessor`` every path shares.

The indexer, the queries, the verification of candidates and the 2014 design must all turn a
text into *exactly* the same shingles and signatures, so every step here is deterministic
across machines, processes and library versions (no ``hash()``, no numpy ``Generator``): shingle
hashes are MurmurHash3 x86 32-bit of the UTF-8 bytes, and the permutations are drawn from a
SplitMix64 stream seeded with ``seed``.

>>> p = ShingleProcessor(3, num_perm=20, hash_family="xor", canonical=False)
>>> p.ngrams("Art's Deli 12224 Ventura Blvd.")[:2]
['art s deli', 's deli 12224']
>>> len(p.signature("Art's Deli 12224 Ventura Blvd."))
20

Deliberate differences from the 2014 article's Scala code:

* ``signatures`` takes the MINIMUM of the permuted hashes (the Scala code sorted descending and
  took the head, i.e. the maximum, by accident).
* shingle hashes are MurmurHash3 of the UTF-8 bytes (via ``mmh3``), unsigned; Scala's
  ``MurmurHash3.stringHash`` hashes UTF-16 code units, so the numbers differ from the article's.
* ``normalize`` also strips leading/trailing whitespace, so ``words("")`` is ``[]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import islice
from typing import Any

import mmh3
import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..constraints import HASH_FAMILIES, KINDS, check_all
from ..errors import ArgumentError
from . import kernel
from .canonical import CANONICAL_VERSION, canonicalize, trigger_table
from .text import MARKS_KEPT, NORMALIZATION_VERSION, char_grams, check_text, jaccard, normalize

__all__ = [
    "CHAR_HYPHENS",
    "EMPTY_SIGNATURE_VALUE",
    "HASH_FAMILIES",
    "KINDS",
    "SHINGLE_HASH_SEED",
    "UNIVERSAL_PRIME",
    "ShingleProcessor",
    "splitmix64",
]

#: Seed of the MurmurHash3 shingle hash (the seed design uses 42).
SHINGLE_HASH_SEED = 42

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

#: Stored with an index of character shingles (so one shingled the older way is refused): the
#: hyphens of the prepared text are spaces. Normalization keeps ``-`` so that a *word* stays
#: one (``bel-air``), but to character k-grams a hyphen is only a separator that sources write
#: or not: ``bel-air``/``bel air``, ``003-Title``/``3 Title``, ``Artist - Album - Title``
#: beside the same fields in columns, ``555-1234``/``555 1234``. Kept, its k-grams (``l-a``,
#: ``-ai``, `` - ``) are shared only by the records of one writing style. On the development
#: suite (benchmarks/accuracy, defaults) F1: generated music 0.836 -> 0.880, affiliations
#: 0.377 -> 0.388, generated citations 0.943 -> 0.946, generated multilingual 0.858 -> 0.861,
#: the others unchanged.
CHAR_HYPHENS = "space-v1"

_MASK64 = (1 << 64) - 1
_UINT32_MAX = 0xFFFFFFFF
# Upper bound on the number of elements of a temporary (shingles x num_perm) matrix, to keep the
# memory of one vectorized step bounded (512 KB of uint64: cache-friendly, measured fastest).
_CHUNK_ELEMENTS = 1 << 16


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

    ``kind="word"`` makes word n-grams of ``size`` words (seeds 001, 003); ``kind="char"`` makes
    character k-grams of the prepared text (seeds 000, 002). ``canonical=True`` rewrites record
    forms first (``seventh ave`` -> ``7th ave``, see :mod:`neardup.sign.canonical`); otherwise the
    text is only normalized. ``hash_family`` picks how the ``num_perm`` random permutations are
    simulated: ``"xor"`` (hash XOR mask, as in the 2014 article) or ``"universal"``
    (``(a*x + b) mod p``). Both are drawn from a SplitMix64 stream seeded with ``seed``.

    The defaults are :class:`~neardup.params.Params`'s; ``Params.processor()`` builds the one
    an index uses.
    """

    def __init__(
        self,
        size: int = 1,
        *,
        kind: str = "word",
        num_perm: int = 128,
        hash_family: str = "universal",
        seed: int = 42,
        canonical: bool = True,
        fold_accents: bool = True,
        split_hyphens: bool = True,
        fix_text: bool = False,
        fold_marks: bool = True,
    ) -> None:
        check_all("ShingleProcessor", {
            "size": size, "kind": kind, "num_perm": num_perm, "hash_family": hash_family,
            "seed": seed, "canonical": canonical, "fold_accents": fold_accents,
            "split_hyphens": split_hyphens, "fix_text": fix_text, "fold_marks": fold_marks,
        })  # fmt: skip
        self.size = size
        self.kind = kind
        self.split_hyphens = bool(split_hyphens)
        self.num_perm = num_perm
        self.hash_family = hash_family
        self.seed = seed
        self.canonical = bool(canonical)
        self.fold_accents = bool(fold_accents)
        #: With ``fold_accents``, also fold the optional marks of Arabic and Hebrew (harakat,
        #: niqqud); off in an index stored before they were folded, which keeps its signatures.
        self.fold_marks = bool(fold_marks)
        #: Repair mojibake (``CafÃ©`` for ``Café``) with ftfy before normalizing: scraped text
        #: decoded with the wrong codec is otherwise compared as it is. Off by default (ftfy
        #: is an extra, and a text that is right must not be rewritten by a guess).
        self.fix_text = bool(fix_text)
        self._fixer: Any = _ftfy() if self.fix_text else None

    def __repr__(self) -> str:
        return (
            f"ShingleProcessor(size={self.size}, kind={self.kind!r}, num_perm={self.num_perm}, "
            f"hash_family={self.hash_family!r}, seed={self.seed}, canonical={self.canonical}, "
            f"fold_accents={self.fold_accents}, split_hyphens={self.split_hyphens}, "
            f"fold_marks={self.fold_marks})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShingleProcessor) and self.params() == other.params()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.params().items())))

    # -- text ----------------------------------------------------------------------------------

    def normalize(self, text: str) -> str:
        """See :func:`neardup.sign.text.normalize`; accents folded if this processor folds them,
        mojibake repaired first if it repairs it."""
        return normalize(self.repair(text), self.fold_accents, self.fold_marks)

    def repair(self, text: str) -> str:
        """The text with its mojibake repaired (ftfy), if this processor repairs it."""
        return self._fixer(text) if self._fixer is not None and not text.isascii() else text

    def words(self, text: str) -> list[str]:
        """Words of the normalized text ([] for empty/blank text)."""
        return self.normalize(text).split()

    def prepare(self, text: str) -> str:
        """The text that is shingled: normalized, and in canonical record forms if enabled;
        for character shingles, hyphens become spaces (:data:`CHAR_HYPHENS`).

        Give it the record as written: canonical forms read ``&``, which normalization deletes.
        """
        if self.canonical:
            text = canonicalize(self.repair(text), self.fold_accents, self.fold_marks)
        else:
            text = self.normalize(text)
        if self.kind == "char" and self.split_hyphens and "-" in text:
            text = " ".join(text.replace("-", " ").split())
        return text

    def storable(self, normalized: str) -> str:
        """``normalized`` (a text as :meth:`normalize` leaves it), or "" where it leaves
        nothing to shingle: for character shingles hyphens are spaces, so records of hyphens
        alone ("-") were stored without a shingle and no two of them ever paired, while other
        punctuation alone was refused (no words)."""
        if self.kind == "char" and self.split_hyphens and "-" in normalized:
            return normalized if normalized.replace("-", " ").strip() else ""
        return normalized

    def ngrams(self, text: str, *, prepared: bool = False) -> list[str]:
        """Shingles in document order, duplicates kept (they become Solr field values).

        Word kind: n-grams of ``size`` words joined by single spaces. Char kind: k-grams of
        ``size`` characters of the prepared text (spaces included). A text shorter than
        ``size`` is one shingle (itself, prepared) so short texts still match; empty -> [].
        ``prepared=True`` promises that ``text == prepare(text)`` and skips that step.
        """
        if not prepared:
            text = self.prepare(text)
        if self.kind == "word":
            words = text.split()
            if not words:
                return []
            if len(words) < self.size:
                return [" ".join(words)]
            if self.size == 1:
                return words
            # zip of shifted views (it stops at the shortest): 2x faster than slice-and-join
            shifted = (words[i:] for i in range(self.size))
            return list(map(" ".join, zip(*shifted, strict=False)))
        return char_grams(text, self.size)

    def shingle_set(self, text: str, *, prepared: bool = False) -> frozenset[str]:
        """Distinct shingles: the set whose Jaccard similarity MinHash estimates."""
        return frozenset(self.ngrams(text, prepared=prepared))

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
        if kernel.active() == "c":
            return self._kernel_signatures(n, [text])[0]
        return self.signatures_from_hashes(n, self.hashes(text))

    def signature(self, text: str) -> NDArray[np.uint32]:
        """The ``num_perm``-long signature stored in the index."""
        return self.signatures(self.num_perm, text)

    def signatures_batch(
        self, texts: Iterable[str], *, ready: bool = False, threads: int = 1
    ) -> NDArray[np.uint32]:
        """Signatures of many texts, shape (len(texts), num_perm); equal to ``signature`` each.

        With the C kernel (see :mod:`neardup.sign.kernel`) the texts never become shingle strings:
        it shingles, hashes and permutes the normalized bytes in one call, without the GIL.
        ``ready``: the texts are :meth:`kernel_ready`'s already (kernel only), so that a caller
        that also wants their :meth:`shingle_hashes` prepares them once. ``threads``: the
        kernel may sign slices of many texts on up to this many threads at once (a caller whose
        cores are not needed elsewhere: a Solr node on this machine indexes on the other one).
        """
        if kernel.active() == "c":
            return self._kernel_signatures(self.num_perm, list(texts), ready, threads)
        if ready:
            raise ArgumentError("ready texts are the C kernel's: it is not active")
        return self.signatures_batch_numpy(texts)

    def signed_and_hashed(
        self,
        texts: Iterable[str],
        budget: int,
        chunk: int = 10_000,
        total: int = 0,
        threads: int = 1,
    ) -> tuple[NDArray[np.uint32], tuple[NDArray[np.uint32], NDArray[np.int64]] | None]:
        """The signatures of ``texts`` (as :meth:`signatures_batch`) and their shingle hashes
        (as :meth:`shingle_hashes`; None past ``budget`` bytes, or without the C kernel), each
        text prepared once, ``chunk`` texts at a time: preparing 100k documents twice cost
        1.7 s of a 12 s report, and one chunk's prepared texts are all that is held.

        ``texts`` may be any iterable, read a chunk at a time, so that a report signs the
        texts while the backend reads the next ones; ``total`` (how many are expected, when
        they are not a list) sizes the signature matrix once instead of joining chunks;
        ``threads``: how many threads a chunk may be signed on (:func:`_by_text`).

        >>> p = ShingleProcessor(3, kind="char")
        >>> sigs, (values, offsets) = p.signed_and_hashed(["abcd", "abce"], budget=1 << 20)
        >>> bool((sigs == p.signatures_batch(["abcd", "abce"])).all()), offsets.tolist()
        (True, [0, 2, 4])
        >>> (p.signed_and_hashed(iter(["abcd", "abce"]), 1 << 20, chunk=1)[0] == sigs).all()
        np.True_
        """
        if isinstance(texts, list):
            total = len(texts)
        if kernel.active() != "c":
            listed = list(texts)
            empty = np.empty((0, self.num_perm), dtype=np.uint32)
            return (self.signatures_batch(listed) if listed else empty), None
        sigs = np.empty((total, self.num_perm), dtype=np.uint32)
        runs: list[NDArray[np.uint32]] | None = []
        ends = [np.zeros(1, dtype=np.int64)]
        held = at = done = 0
        source = iter(texts)
        while batch := list(islice(source, chunk)):
            ready = self._kernel_texts(batch)
            if done + len(ready) > len(sigs):  # more than ``total``: grow
                grown = np.empty((max(2 * len(sigs), done + len(ready)), self.num_perm), np.uint32)
                grown[:done] = sigs[:done]
                sigs = grown
            if runs is None:
                sigs[done : done + len(ready)] = self._kernel_signatures(
                    self.num_perm, ready, True, threads
                )
                done += len(ready)
                continue
            values, offsets = self._signed_hashes_into(
                ready, sigs[done : done + len(ready)], threads
            )
            done += len(ready)
            held += values.nbytes + offsets.nbytes
            if held > budget:
                runs = None
                continue
            runs.append(values)
            ends.append(offsets[1:] + at)
            at += int(offsets[-1])
        sigs = sigs[:done]
        if runs is None:
            return sigs, None
        values = np.concatenate(runs) if runs else np.empty(0, dtype=np.uint32)
        return sigs, (values, np.concatenate(ends))

    def signatures_with_hashes(
        self, texts: list[str], *, threads: int = 1
    ) -> tuple[NDArray[np.uint32], tuple[NDArray[np.uint32], NDArray[np.int64]] | None]:
        """:meth:`signatures_batch` and :meth:`shingle_hashes` of ``texts`` from one pass over
        each (in slices on up to ``threads`` threads), the hashes None without the C kernel.
        For a backend that keeps both: a report screens its candidates with the hashes and
        need not shingle every text again (0.5 s of a report of 100k short records).

        >>> p = ShingleProcessor(3, kind="char")
        >>> sigs, (values, offsets) = p.signatures_with_hashes(["abcd", "abce"])
        >>> bool((sigs == p.signatures_batch(["abcd", "abce"])).all()), offsets.tolist()
        (True, [0, 2, 4])
        """
        if kernel.active() != "c":
            return self.signatures_batch(texts), None
        ready = self._kernel_texts(list(texts))
        out = np.empty((len(ready), self.num_perm), dtype=np.uint32)
        return out, self._signed_hashes_into(ready, out, threads)

    def _signed_hashes_into(
        self, ready: list[str], out: NDArray[np.uint32], threads: int
    ) -> tuple[NDArray[np.uint32], NDArray[np.int64]]:
        """The signatures of kernel-ready texts into ``out`` and their shingle hashes, in
        slices on up to ``threads`` threads (:func:`_by_text`)."""
        parts: dict[int, tuple[NDArray[np.uint32], NDArray[np.int64]]] = {}

        def sign(lo: int, hi: int) -> None:
            parts[lo] = self._kernel_signed_hashes(ready[lo:hi], out[lo:hi])

        _by_text(ready, sign, threads)
        if len(parts) == 1:
            return parts[0]
        runs = [parts[lo] for lo in sorted(parts)]
        starts = np.cumsum([0] + [int(offs[-1]) for _, offs in runs])[:-1].tolist()
        shifted = [offs[1:] + at for (_, offs), at in zip(runs, starts, strict=True)]
        offsets = np.concatenate([np.zeros(1, dtype=np.int64), *shifted])
        return np.concatenate([values for values, _ in runs]), offsets

    @property
    def prepares(self) -> bool:
        """Whether texts are prepared in Python before the kernel shingles them (canonical
        forms, a character kind's hyphens, repairs): then :meth:`kernel_ready` gives the
        prepared texts; else the kernel normalizes the texts as given."""
        return self.canonical or (self.kind == "char" and self.split_hyphens) or self.fix_text

    def kernel_ready(self, texts: Iterable[str]) -> list[str]:
        """The texts as the C kernel shingles them (:meth:`prepare`d where this processor
        prepares them): prepared once, for both :meth:`signatures_batch` and
        :meth:`shingle_hashes` with ``ready=True``. Preparing 100k documents costs 1.7 s."""
        return self._kernel_texts(list(texts))

    def prepared(self, texts: list[str]) -> list[str]:
        """Every text as :meth:`prepare` makes it, most of them in one kernel call.

        >>> ShingleProcessor(3, kind="char").prepared(["Well-Known  CAFE!"])
        ['well known cafe']
        """
        if self.prepares:
            return self._kernel_texts(list(texts))  # prepared there: the kernel only normalizes
        return [self.normalize(check_text(t, f"text {i}")) for i, t in enumerate(texts)]

    def _kernel_texts(self, texts: list[str]) -> list[str]:
        """The texts as the kernel takes them: prepared (canonical forms, a character kind's
        hyphens as spaces), since it only normalizes."""
        if self.prepares:
            for i, t in enumerate(texts):
                if not isinstance(t, str):
                    raise TypeError(f"text {i} is {type(t).__name__}, not str")
            c = kernel.get()
            table = trigger_table() if self.canonical else None
            if c is None or (self.canonical and table is None):
                return [self.prepare(check_text(t, f"text {i}")) for i, t in enumerate(texts)]
            # Most texts need only normalizing (ASCII, no rule's word): all of those in one
            # kernel call, the rest through prepare() (None below).
            hyphens = self.kind == "char" and self.split_hyphens
            plain = c.prepare_plain(texts, table, hyphens)
            texts = [
                p if p is not None else self.prepare(check_text(t, f"text {i}"))
                for i, (t, p) in enumerate(zip(texts, plain, strict=True))
            ]
        return texts

    def shingle_hashes(
        self, texts: list[str], *, ready: bool = False
    ) -> tuple[NDArray[np.uint32], NDArray[np.int64]]:
        """Every text's sorted unique shingle hashes, end to end: text ``d``'s are
        ``values[offsets[d]:offsets[d + 1]]``. Made once per text, so that many pairs
        (:func:`hashed_jaccard`) cost a merge each instead of shingling the texts again.

        >>> values, offsets = ShingleProcessor(3, kind="char").shingle_hashes(["abcd", ""])
        >>> offsets.tolist()
        [0, 2, 2]
        """
        offsets = np.empty(len(texts) + 1, dtype=np.int64)
        if kernel.active() == "c":
            c = kernel.get()
            assert c is not None
            prepared = list(texts) if ready else self._kernel_texts(list(texts))
            raw = c.shingle_hashes(prepared, self.normalize, KINDS.index(self.kind), self.size,
                                   offsets)  # fmt: skip
            return np.frombuffer(raw, dtype=np.uint32), offsets
        if ready:
            raise ArgumentError("ready texts are the C kernel's: it is not active")
        runs = [self.hashes(t) for t in texts]
        offsets[0] = 0
        np.cumsum([r.size for r in runs], out=offsets[1:])
        values = np.concatenate(runs) if runs else np.empty(0, dtype=np.uint32)
        return values.astype(np.uint32, copy=False), offsets

    def pair_jaccard(self, texts: list[str], a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
        """The Jaccard similarity of the shingles of ``texts[a[i]]`` and ``texts[b[i]]`` for
        every ``i``, by their 32-bit hashes (-1 where a text has no shingles).

        A screen, not the verdict: two shingles whose hashes collide count as one, which moves
        a similarity by about 1/(shingles) in a pair in thousands, so callers keep a margin and
        verify what passes exactly. Each text is shingled once (:meth:`shingle_hashes`); a pair
        costs one merge of two sorted arrays (in C with the kernel).

        >>> p = ShingleProcessor(3, kind="char")
        >>> p.pair_jaccard(["abcd", "abce", ""], [0, 0], [1, 2]).round(3).tolist()
        [0.333, -1.0]
        """
        values, offsets = self.shingle_hashes(list(texts))
        return hashed_jaccard(values, offsets, a, b)

    def _kernel_signed_hashes(
        self, ready: list[str], out: NDArray[np.uint32]
    ) -> tuple[NDArray[np.uint32], NDArray[np.int64]]:
        """The signatures of kernel-ready texts into ``out`` and their :meth:`shingle_hashes`,
        each text shingled once for both (the two calls shingled it twice: 0.6 s of a report
        of 100k documents)."""
        params = _perm_params(self.hash_family, self.seed, self.num_perm)
        family = HASH_FAMILIES.index(self.hash_family)
        offsets = np.empty(len(ready) + 1, dtype=np.int64)
        c = kernel.get()
        assert c is not None  # only called when kernel.active() == "c"
        p2 = params[1] if family == 1 else None
        kind = KINDS.index(self.kind)
        raw = c.signed_hashes(ready, self.normalize, kind, self.size, family, params[0], p2, out,
                              offsets)  # fmt: skip
        return np.frombuffer(raw, dtype=np.uint32), offsets

    def _kernel_signatures(
        self, n: int, texts: list[str], ready: bool = False, threads: int = 1
    ) -> NDArray[np.uint32]:
        texts = texts if ready else self._kernel_texts(texts)
        out = np.empty((len(texts), n), dtype=np.uint32)
        params = _perm_params(self.hash_family, self.seed, n)
        kind = KINDS.index(self.kind)
        family = HASH_FAMILIES.index(self.hash_family)
        p2 = params[1] if family == 1 else None
        c = kernel.get()
        assert c is not None  # only called when kernel.active() == "c"

        def sign(lo: int, hi: int) -> None:
            c.signatures(texts[lo:hi], self.normalize, kind, self.size, family, params[0], p2,
                         out[lo:hi])  # fmt: skip

        _by_text(texts, sign, threads)
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
        return jaccard(a, b)

    @staticmethod
    def estimate_jaccard(sig1: ArrayLike, sig2: ArrayLike) -> float:
        """Fraction of equal positions of two signatures: an unbiased Jaccard estimate."""
        s1, s2 = np.asarray(sig1), np.asarray(sig2)
        if s1.shape != s2.shape or s1.ndim != 1 or s1.size == 0:
            raise ValueError(
                f"signatures must be non-empty and equal length: {s1.shape} {s2.shape}"
            )
        return float(np.count_nonzero(s1 == s2)) / s1.size

    def params(self) -> dict[str, Any]:
        """Everything that determines a signature, for storing with an index and checking later."""
        return {
            "canonical": CANONICAL_VERSION if self.canonical else "off",
            "kind": self.kind,
            "size": self.size,
            "num_perm": self.num_perm,
            "hash_family": self.hash_family,
            "seed": self.seed,
            "normalization": self._normalization(),
            "shingle_hash": f"mmh3_x86_32_seed{SHINGLE_HASH_SEED}",
            "perm_rng": "splitmix64",
            **({"hyphens": CHAR_HYPHENS} if self.kind == "char" and self.split_hyphens else {}),
            **({"repair": "ftfy.fix_text"} if self.fix_text else {}),
        }

    def _normalization(self) -> str:
        """The version of this processor's normalization: marks are only folded with the
        accents, so keeping the accents is v3's normalization whatever ``fold_marks`` says."""
        if not self.fold_accents:
            return MARKS_KEPT + "-accents"
        return NORMALIZATION_VERSION if self.fold_marks else MARKS_KEPT


def _ftfy() -> Any:
    """ftfy's repair, or an error that names the extra to install."""
    try:
        from ftfy import fix_text
    except ImportError:
        raise ArgumentError(
            "repairing mojibake (fix_text, --fix-text) needs ftfy: pip install 'neardup[repair]'"
        ) from None
    return fix_text


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


#: Pairs below which :func:`hashed_jaccard` stays on one thread.
PAIRS_A_THREAD = 100_000
#: Characters of text below which a signing call of the kernel stays on one thread: 1,000
#: documents of 200 words sign in two threads in 5 ms instead of 9, but 1,000 short records
#: (70 KB) took longer split than whole.
TEXT_BYTES_A_THREAD = 200_000


def _by_text(texts: list[str], call: Callable[[int, int], object], threads: int) -> None:
    """``call(lo, hi)`` over slices of ``texts``, a slice a thread (the kernel lets go of the
    GIL) when each slice holds :data:`TEXT_BYTES_A_THREAD` of text to pay for its thread; a
    text the kernel cannot encode is named."""
    size = sum(map(len, texts)) if threads > 1 else 0
    per_part = len(texts) * TEXT_BYTES_A_THREAD // size if size else len(texts)
    try:
        kernel.in_parts(len(texts), max(1, per_part), call, threads)
    except UnicodeEncodeError:
        for i, t in enumerate(texts):
            check_text(t, f"text {i}")
        raise


def hashed_jaccard(
    values: NDArray[np.uint32],
    offsets: NDArray[np.int64],
    a: ArrayLike,
    b: ArrayLike,
    floor: float = 0.0,
) -> NDArray[np.float64]:
    """The Jaccard similarity of the hash runs ``a[i]`` and ``b[i]`` of
    :meth:`ShingleProcessor.shingle_hashes` (-1 where either is empty): one merge of two sorted
    arrays a pair in the C kernel, Python sets without it.

    ``floor``: only whether a pair reaches it matters (a screen); a pair that cannot may get
    any value below it, as the kernel stops its merge once the rest cannot lift it there
    (most candidates are strangers: 3.9M pairs of short records, 1.9 -> 1.2 s on one core).

    >>> v, o = np.array([1, 2, 3, 4, 5, 6], np.uint32), np.array([0, 3, 6])
    >>> hashed_jaccard(v, o, [0], [1]).tolist(), bool(hashed_jaccard(v, o, [0], [1], 0.5)[0] < 0.5)
    ([0.0], True)
    """
    ia = np.ascontiguousarray(a, dtype=np.int64)
    ib = np.ascontiguousarray(b, dtype=np.int64)
    if ia.shape != ib.shape or ia.ndim != 1:
        raise ValueError(f"a and b must be 1-d and of one length: {ia.shape} {ib.shape}")
    runs = len(offsets) - 1
    if ia.size and (min(ia.min(), ib.min()) < 0 or max(ia.max(), ib.max()) >= runs):
        raise IndexError(f"a pair's index is out of range of {runs} texts")
    out = np.empty(len(ia), dtype=np.float64)
    c = kernel.get() if kernel.active() == "c" else None
    if c is not None:
        vals = np.ascontiguousarray(values, dtype=np.uint32)
        offs = np.ascontiguousarray(offsets, dtype=np.int64)
        # The kernel lets go of the GIL: one slice of the pairs a core (3.9M pairs of short
        # records took 2.3 s on one).
        kernel.in_parts(
            len(ia),
            PAIRS_A_THREAD,
            lambda lo, hi: c.jaccard_hashed(vals, offs, ia[lo:hi], ib[lo:hi], out[lo:hi], floor),
        )
        return out
    sets: dict[int, frozenset[int]] = {}

    def run(k: int) -> frozenset[int]:
        if k not in sets:
            sets[k] = frozenset(values[offsets[k] : offsets[k + 1]].tolist())
        return sets[k]

    for i, (x, y) in enumerate(zip(ia.tolist(), ib.tolist(), strict=True)):
        sx, sy = run(x), run(y)
        out[i] = len(sx & sy) / len(sx | sy) if sx and sy else -1.0
    return out
