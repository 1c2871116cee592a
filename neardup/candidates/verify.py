"""Verification: a candidate becomes a pair only if the exact Jaccard similarity of the two
shingle sets, recomputed from the stored text, reaches the threshold.

LSH band keys only propose candidates (records that share a band); the screen
(:func:`screen_keep`, the C kernel's hashed Jaccard) drops the candidates that cannot reach the
threshold, and :func:`verify_codes` measures the rest exactly, with their word edit distance.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from math import nan

import numpy as np
from numpy.typing import NDArray
from tqdm import tqdm

from ..defaults import DEFAULTS
from ..errors import InputError
from ..graph import component_labels
from ..results import Pair
from ..sign import kernel
from ..sign.minhash import ShingleProcessor, hashed_jaccard
from ..sign.text import WordCodes, encoded_distance
from .buckets import Candidates
from .text_table import TextTable


def verified_jaccard(a: frozenset[str], b: frozenset[str]) -> float | None:
    """Exact Jaccard, or None for a record without shingles (it duplicates nothing)."""
    if not a or not b:
        return None
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


#: Candidates below this many are verified one by one without the screen.
SCREEN_MIN = 5_000
#: The screen passes pairs down to this much under the threshold: hash collisions move a
#: similarity by about 1/(shingles of a record), and a pair that passes is verified exactly.
SCREEN_MARGIN = 0.02
#: Bytes of text hashed per kernel call (its hash arrays take four times as much): 64 MB of
#: screen at a time, which kernel calls this size run as fast as larger ones.
SCREEN_BYTES = 16 << 20
#: At most this many bytes of shingle hashes are held for the screen at once (see
#: :func:`_hashed`): 100k documents of 200 words take about 80 MB. Past it the screen works in
#: chunks of text, shingling them again for every chunk: with 256 MB, 1M documents (their
#: hashes about 800 MB) took a 91 s report in memory, 77 s of it verifying; with 1 GB, 25 s.
SCREEN_HASH_BYTES = 1 << 30


def screen(
    candidates: Iterable[tuple[str, str]],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    threshold: float,
) -> list[tuple[str, str]]:
    """The candidate pairs that can reach ``threshold`` (see :func:`screen_codes`)."""
    pairs = candidates if isinstance(candidates, list) else list(candidates)
    if kernel.active() != "c" or len(pairs) < SCREEN_MIN:
        return pairs
    found = Candidates()
    found.set_pairs(pairs)
    return screen_codes(found, texts, processor, threshold)


def used_codes(cands: Candidates) -> NDArray[np.int64]:
    """The codes of the records in some candidate pair, ascending (so in id order).

    By a mask over the codes, not ``np.unique``: at 66M candidates (100k records of common
    short tokens) numpy's hashing unique took 87 s, the mask under one.
    """
    seen = np.zeros(len(cands.ids), dtype=bool)
    seen[cands.first] = True
    seen[cands.second] = True
    return np.flatnonzero(seen).astype(np.int64)


def screen_keep(
    cands: Candidates, texts: TextTable, processor: ShingleProcessor, threshold: float
) -> NDArray[np.bool_]:
    """Which candidates can reach ``threshold``, by the Jaccard of their shingle hashes in
    the C kernel (:meth:`ShingleProcessor.pair_jaccard`), in chunks of at most
    :data:`SCREEN_BYTES` of text.

    Why: at a low floor nearly every candidate is a stranger (on 100k random short records,
    1,797 of 1.75M candidates reach 0.3), and one candidate costs 17 us in Python (two shingle
    sets, their intersection, a union-find) but under 1 us here. Without the kernel, or for
    a few candidates, they are all passed on.
    """
    a, b = cands.first, cands.second
    keep = np.ones(a.size, dtype=bool)
    if kernel.active() != "c" or a.size < SCREEN_MIN:
        return keep
    if cands.hashes is not None:  # made from the texts as they were signed, code by code
        floor = threshold - SCREEN_MARGIN
        return hashed_jaccard(*cands.hashes, a, b, floor) >= floor
    used = used_codes(cands)
    hashed = _hashed(used, texts, processor)
    if hashed is not None:
        where = np.empty(len(cands.ids), dtype=np.int64)  # code -> its run in `hashed`
        where[used] = np.arange(used.size)
        floor = threshold - SCREEN_MARGIN
        return hashed_jaccard(*hashed, where[a], where[b], floor) >= floor
    per_pair = 2 * max(1.0, float(texts.sizes(used).mean()))
    step = max(1_000, int(SCREEN_BYTES / per_pair))
    for lo in range(0, a.size, step):
        ca, cb = a[lo : lo + step], b[lo : lo + step]
        chunk, inverse = np.unique(np.concatenate([ca, cb]), return_inverse=True)
        chunk_texts = [texts.text(k) for k in chunk.tolist()]
        sims = processor.pair_jaccard(chunk_texts, inverse[: ca.size], inverse[ca.size :])
        keep[lo : lo + step] = sims >= threshold - SCREEN_MARGIN
    return keep


def _hashed(
    used: NDArray[np.int64], texts: TextTable, processor: ShingleProcessor
) -> tuple[NDArray[np.uint32], NDArray[np.int64]] | None:
    """The shingle hashes of every record in ``used`` (in that order), made once each, or None
    when they would take more than :data:`SCREEN_HASH_BYTES`.

    Why: a record is in many candidate pairs (100k documents at the defaults: 1M candidates,
    each record in about 20), and shingling it again for every chunk of pairs was 45 of the
    report's 55 s. Held at once, the screen costs one merge a pair. Past the budget (millions
    of short records), pairs are screened in chunks of text instead, as before.
    """
    codes = used.tolist()
    return held_hashes(lambda j: texts.text(codes[j]), texts.sizes(used), processor)


def held_hashes(
    text: Callable[[int], str], sizes: NDArray[np.int64], processor: ShingleProcessor
) -> tuple[NDArray[np.uint32], NDArray[np.int64]] | None:
    """The shingle hashes of texts ``text(0)``, ``text(1)``, ... (``sizes`` long), in kernel
    calls of :data:`SCREEN_BYTES` of text, or None past :data:`SCREEN_HASH_BYTES`."""
    runs: list[NDArray[np.uint32]] = []
    offsets = [np.zeros(1, dtype=np.int64)]
    held = at = lo = 0
    ends = np.cumsum(sizes)
    while lo < len(sizes):  # SCREEN_BYTES of text a kernel call
        start = int(ends[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, start + SCREEN_BYTES, side="right")))
        values, offs = processor.shingle_hashes([text(j) for j in range(lo, hi)])
        held += values.nbytes + offs.nbytes
        if held > SCREEN_HASH_BYTES:
            return None
        runs.append(values)
        offsets.append(offs[1:] + at)
        at += int(offs[-1])
        lo = hi
    values = np.concatenate(runs) if runs else np.empty(0, dtype=np.uint32)
    return values, np.concatenate(offsets)


def signed_for_screen(
    texts: Iterable[str], processor: ShingleProcessor, total: int = 0, threads: int = 1
) -> tuple[NDArray[np.uint32], tuple[NDArray[np.uint32], NDArray[np.int64]] | None]:
    """The signatures of ``texts`` (``total`` of them expected) and, within
    :data:`SCREEN_HASH_BYTES`, the shingle hashes the screen compares
    (:meth:`~neardup.sign.minhash.ShingleProcessor.signed_and_hashed`)."""
    return processor.signed_and_hashed(texts, SCREEN_HASH_BYTES, total=total, threads=threads)


def runs_of(
    values: NDArray[np.uint32], offsets: NDArray[np.int64], rows: list[int]
) -> tuple[NDArray[np.uint32], NDArray[np.int64]]:
    """The runs ``rows`` of ``values`` (run ``r`` is ``values[offsets[r]:offsets[r + 1]]``),
    in that order, as values and offsets of their own.

    >>> v, o = runs_of(np.array([1, 2, 3, 4, 5], np.uint32), np.array([0, 2, 3, 5]), [2, 0])
    >>> v.tolist(), o.tolist()
    ([4, 5, 1, 2], [0, 2, 4])
    """
    at = np.asarray(rows, dtype=np.int64)
    if at.size == offsets.size - 1 and bool((at == np.arange(at.size)).all()):
        return values, offsets  # every run, in order: nothing to copy
    out = np.zeros(at.size + 1, dtype=np.int64)
    np.cumsum(offsets[at + 1] - offsets[at], out=out[1:])
    # Slices, not an index array: gathering by indices would hold 8 bytes a value more.
    starts, ends = offsets[at].tolist(), offsets[at + 1].tolist()
    parts = [values[s:e] for s, e in zip(starts, ends, strict=True)]
    return (np.concatenate(parts) if parts else values[:0]), out


def screen_codes(
    cands: Candidates, texts: Mapping[str, str], processor: ShingleProcessor, threshold: float
) -> list[tuple[str, str]]:
    """The candidates that can reach ``threshold`` (:func:`screen_keep`), as pairs of ids
    (smaller first)."""
    if not (isinstance(texts, TextTable) and texts.ids is cands.ids):
        texts = TextTable(cands.ids, (texts.get(i, "") for i in cands.ids))
    keep = screen_keep(cands, texts, processor, threshold)
    ids = cands.ids
    a, b = cands.first[keep].tolist(), cands.second[keep].tolist()
    return [(ids[x], ids[y]) for x, y in zip(a, b, strict=True)]


def verify(
    candidates: Iterable[tuple[str, str]],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    threshold: float,
    progress: bool = False,
    screened: bool = False,
    max_dist: int | None = None,
) -> list[Pair]:
    """Keep the candidates whose exact shingle Jaccard is at least ``threshold`` (screened
    first by :func:`screen`, unless ``screened`` says they were; the progress bar counts the
    candidates that pass the screen). :func:`verify_codes` does the work.
    """
    if not screened:
        candidates = screen(candidates, texts, processor, threshold)
    found = Candidates()
    found.set_pairs(candidates if isinstance(candidates, list) else list(candidates))
    table = TextTable(found.ids, (texts.get(i, "") for i in found.ids))
    return verify_codes(found.first, found.second, table, processor, threshold, progress,
                        max_dist)  # fmt: skip


#: Pairs measured by the kernel's exact character-gram Jaccard at a time (memory: the grams
#: of their texts, 8 bytes each).
EXACT_PAIRS = 1 << 18


def _char_jaccards(
    first: NDArray[np.int64],
    second: NDArray[np.int64],
    text: Callable[[int], str],
    processor: ShingleProcessor,
) -> NDArray[np.float64] | None:
    """The exact Jaccard of each pair's character grams, made in the kernel (NaN where a text
    is not ASCII, -1 where it has no grams), or None where the kernel does not make them
    (word shingles, grams of more than 7 characters, no kernel). Why: making a Python set of
    strings for both records of every pair that passed the screen was most of verifying them.
    :data:`EXACT_PAIRS` pairs at a time, for bounded memory."""
    c = kernel.get()
    if c is None or processor.kind != "char" or processor.size > 7 or not first.size:
        return None
    out = np.empty(first.size, dtype=np.float64)
    for lo in range(0, first.size, EXACT_PAIRS):
        a, b = first[lo : lo + EXACT_PAIRS], second[lo : lo + EXACT_PAIRS]
        used, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
        ready = processor.prepared([text(k) for k in used.tolist()])
        where = inverse.astype(np.int64)
        c.char_jaccard(ready, processor.size, where[: a.size], where[a.size :],
                       out[lo : lo + a.size])  # fmt: skip
    return out


def verify_codes(
    first: NDArray[np.int64],
    second: NDArray[np.int64],
    texts: TextTable,
    processor: ShingleProcessor,
    threshold: float,
    progress: bool = False,
    max_dist: int | None = None,
) -> list[Pair]:
    """The pairs of codes (into ``texts.ids``, ``first < second``) whose exact shingle Jaccard
    is at least ``threshold``, with their word edit distance, sorted by id.

    The distance is exact up to ``max_dist`` when given (a pair past it gets ``max_dist + 1``,
    which the report's cap then drops), else up to ``DEFAULTS.edit_distance_cap`` words
    (``cap + 1`` says "more"): the exact distance of two long documents costs the product of
    their lengths. Two documents verified on word 1-grams are kept only if they also share
    ``DEFAULTS.document_order_floor`` of their word 2-grams (:meth:`_ComponentRecords.distance`).

    One connected component of candidates at a time: a record's shingle set is made once and
    dropped once its component is done, so memory holds the largest component's sets, not
    every candidate's (at 1M documents that is 30 MB instead of gigabytes, and each set is
    looked up while it is still in the CPU's caches). Components and order are found on the
    codes with numpy, so that millions of candidates hold no per-record Python objects but
    their texts.
    """
    ids, text = texts.ids, texts.text
    label = component_labels(first, second, len(ids))[first]
    order = np.lexsort((second, first, label))
    label, first, second = label[order], first[order], second[order]
    ends = np.flatnonzero(np.r_[label[1:] != label[:-1], True]) + 1
    exact = _char_jaccards(first, second, text, processor)
    records = _ComponentRecords(processor, text)
    cutoff = DEFAULTS.edit_distance_cap if max_dist is None else max_dist

    # The pairs kept, as arrays until the end (a tuple of four numbers costs 124 bytes).
    kept_a, kept_b, kept_dist = array("q"), array("q"), array("q")
    kept_jac = array("d")
    bar = tqdm(
        total=int(first.size),
        desc="verifying",
        unit="pair",
        disable=None if progress else True,
        leave=False,
    )
    try:
        start = 0
        for end in ends.tolist():
            records.clear()
            pairs = zip(first[start:end].tolist(), second[start:end].tolist(), strict=True)
            known = exact[start:end].tolist() if exact is not None else None
            for p, (a, b) in enumerate(pairs):
                jac = known[p] if known is not None else nan
                if jac != jac:  # NaN: not measured in C, so by the sets of shingles
                    jac = verified_jaccard(records.shingle_set(a), records.shingle_set(b))
                elif jac < 0:  # a record without shingles duplicates nothing
                    continue
                if jac is None or jac < threshold:
                    continue
                dist = records.distance(a, b, ids, cutoff)
                if dist is None:  # documents alike in their words, not in their text
                    continue
                kept_a.append(a)
                kept_b.append(b)
                kept_jac.append(round(jac, 6))
                kept_dist.append(dist)
            bar.update(end - start)
            start = end
    finally:
        bar.close()
    return _in_id_order(ids, kept_a, kept_b, kept_jac, kept_dist)


class _ComponentRecords:
    """The shingle sets and encoded words of one component's records, each made once and
    all dropped with the component (:meth:`clear`), so that memory holds the largest
    component's, not every candidate's."""

    def __init__(self, processor: ShingleProcessor, text: Callable[[int], str]) -> None:
        self.processor = processor
        self.text = text
        self.codes = WordCodes()
        self.shingles: dict[int, frozenset[str]] = {}
        #: code -> (generation of :attr:`codes`, encoded words)
        self.encoded: dict[int, tuple[int, str]] = {}
        #: code -> (generation of :attr:`codes`, its distinct word 2-grams as sorted numbers)
        self.bigrams: dict[int, tuple[int, NDArray[np.int64]]] = {}
        #: Word 1-grams say nothing of order: documents' word 2-grams are checked too.
        self.order_checked = processor.kind == "word" and processor.size == 1

    def clear(self) -> None:
        self.shingles.clear()
        self.encoded.clear()
        self.bigrams.clear()

    def shingle_set(self, i: int) -> frozenset[str]:
        s = self.shingles.get(i)
        if s is None:
            s = self.shingles[i] = self.processor.shingle_set(self.text(i))
        return s

    def _encoded(self, i: int) -> str:
        got = self.encoded.get(i)
        if got is None or got[0] != self.codes.generation:
            words = self.codes.encode(self.processor.normalize(self.text(i)).split())
            got = self.encoded[i] = (self.codes.generation, words)
        return got[1]

    def words(self, a: int, b: int, ids: Sequence[str]) -> tuple[str, str]:
        """The words of records ``a`` and ``b`` in one generation of codes, for their edit
        distance; an error names the two records if even fresh codes cannot hold both."""
        ea, eb = self._encoded(a), self._encoded(b)
        if self.encoded[a][0] != self.codes.generation:  # encoding b filled the table: afresh
            self.codes.restart()
            ea, eb = self._encoded(a), self._encoded(b)
            if self.encoded[a][0] != self.codes.generation:
                raise InputError(
                    f"records {ids[a]!r} and {ids[b]!r} are too long to compare word by word"
                )
        return ea, eb

    def _bigrams(self, i: int) -> NDArray[np.int64]:
        """The distinct word 2-grams of record ``i``, numbers made of its two words' codes in
        the current generation (exact: a code is below 2**21), sorted."""
        got = self.bigrams.get(i)
        if got is None or got[0] != self.codes.generation:
            codes = np.frombuffer(self._encoded(i).encode("utf-32-le"), dtype=np.uint32)
            codes = codes.astype(np.int64)
            pairs = np.unique((codes[:-1] << 21) | codes[1:])
            got = self.bigrams[i] = (self.codes.generation, pairs)
        return got[1]

    def distance(self, a: int, b: int, ids: Sequence[str], cutoff: int) -> int | None:
        """The word edit distance of records ``a`` and ``b``, exact up to ``cutoff`` (past it,
        ``cutoff + 1``); None for two documents (more than ``DEFAULTS.record_words`` words each)
        verified on word 1-grams whose word 2-grams have a Jaccard below
        ``DEFAULTS.document_order_floor``: their word sets are alike (long texts over one
        vocabulary cover it), their texts are not. Such documents' shared 2-grams also give the
        distance's search a first guess ("score_hint": the bit-parallel band starts there)."""
        ea, eb = self.words(a, b, ids)
        hint = None
        if self.order_checked and min(len(ea), len(eb)) > DEFAULTS.record_words:
            pa, pb = self._bigrams(a), self._bigrams(b)
            shared = _shared(pa, pb)
            if shared < DEFAULTS.document_order_floor * (pa.size + pb.size - shared):
                return None
            hint = max(1, abs(len(ea) - len(eb)), (max(pa.size, pb.size) - shared) // 2)
        return encoded_distance(ea, eb, cutoff, hint)


def _shared(a: NDArray[np.int64], b: NDArray[np.int64]) -> int:
    """How many numbers two sorted arrays of distinct numbers share (the shorter looked up in
    the longer: a tenth of the time of ``np.intersect1d``'s sort of both, at 75,000)."""
    if a.size > b.size:
        a, b = b, a
    if not a.size:
        return 0
    at = np.minimum(np.searchsorted(b, a), b.size - 1)
    return int(np.count_nonzero(b[at] == a))


def _in_id_order(
    ids: Sequence[str], kept_a: array, kept_b: array, kept_jac: array, kept_dist: array
) -> list[Pair]:
    """The kept pairs as :class:`Pair`, sorted by id (codes are in id order)."""
    ka, kb = np.frombuffer(kept_a, dtype=np.int64), np.frombuffer(kept_b, dtype=np.int64)
    order = np.lexsort((kb, ka))
    columns = (
        ka[order].tolist(),
        kb[order].tolist(),
        np.frombuffer(kept_jac)[order].tolist(),
        np.frombuffer(kept_dist, dtype=np.int64)[order].tolist(),
    )
    return [Pair(ids[a], ids[b], j, d) for a, b, j, d in zip(*columns, strict=True)]
