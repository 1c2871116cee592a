"""The oracle: exact all-pairs similarity at the best threshold, chosen with the labels.

Why: it says how much a plain similarity could get on a dataset if someone knew the right
function and threshold. The gap between it and neardup's defaults is the headroom the defaults
leave; closing it without the labels is the job of the defaults and the learned rule.

Similarity functions, all on the text NFKC-normalized, case-folded, accents stripped, with
punctuation dropped (words are runs of letters and digits):

- ``word1``/``char2``/``char3``: Jaccard of the sets of words, of character 2-grams, of
  character 3-grams (of the words joined by single spaces);
- ``edit``: normalized edit similarity, 1 - Levenshtein distance / length of the longer text,
  only where every pair is affordable (short records).

Every pair is exact. Jaccard pairs are enumerated from a sparse records x shingles matrix
(the product of a block of rows with the transpose: an inverted index, in C), so pairs that
share no shingle (similarity 0) are never materialized, only counted; edit similarity is
computed for every pair by rapidfuzz in blocks. A sweep over thresholds t = k/200 (k = 1..200)
counts, for each t, the pairs with similarity >= t and the gold pairs among them; the best F1
over the sweep is the oracle.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

import numpy as np

from neardup.evaluate.scores import f1
from neardup.sign.text import char_grams

from .datasets import LINK, Dataset, Pair, pair

#: Thresholds are k / STEPS.
STEPS = 200
#: A pair's bucket: floor(sim * STEPS + EPS), so that 0.7 (= 7/10) lands in bucket 140.
EPS = 1e-9
JACCARD = ("word1", "char2", "char3")
FUNCTIONS = (*JACCARD, "edit")
#: Edit similarity is computed when pairs * len * ceil(len / 64) stays below this (rapidfuzz's
#: bit-parallel Levenshtein costs about len/64 words per character).
EDIT_BUDGET = 1.5e9
#: Target number of matrix entries per block (bounds memory).
BLOCK_ENTRIES = 8_000_000

_WORD = re.compile(r"\w+")


def normalize(text: str) -> str:
    """NFKC, case-folded, accents stripped, words joined by single spaces."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = "".join(c for c in unicodedata.normalize("NFD", t) if not unicodedata.combining(c))
    return " ".join(_WORD.findall(unicodedata.normalize("NFC", t)))


def shingles(norm: str, function: str) -> frozenset[str]:
    """The shingle set of a normalized text for one Jaccard function."""
    if function == "word1":
        return frozenset(norm.split())
    return frozenset(char_grams(norm, int(function[-1])))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def edit_similarity(a: str, b: str) -> float:
    from rapidfuzz.distance import Levenshtein

    m = max(len(a), len(b))
    return 1.0 - Levenshtein.distance(a, b) / m if m else 0.0


def bucket(sim: float) -> int:
    return int(np.floor(sim * STEPS + EPS))


@dataclass
class Sweep:
    """The best threshold of one function, with the whole curve's counts."""

    function: str
    f1: float
    threshold: float
    precision: float
    recall: float
    predicted: int
    true: int
    seconds: float = 0.0
    skipped: str = ""
    curve: list[tuple[float, float]] = field(default_factory=list)  # (threshold, F1)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class _Sides:
    """The two sides of the pairs to compare: the records with themselves (dedup), or one
    source against the other (link)."""

    def __init__(self, ds: Dataset) -> None:
        self.ids = [r.id for r in ds.records]
        self.norm = [normalize(r.text) for r in ds.records]
        if ds.mode == LINK:
            first = ds.records[0].source
            self.left = [i for i, r in enumerate(ds.records) if r.source == first]
            self.right = [i for i, r in enumerate(ds.records) if r.source != first]
            self.total = len(self.left) * len(self.right)
            self.same = False
        else:
            self.left = self.right = list(range(len(ds.records)))
            self.total = len(self.left) * (len(self.left) - 1) // 2
            self.same = True


def _rows(sets: list[frozenset[str]], vocab: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """CSR row pointers and column indices of shingle sets; ``vocab`` grows as it goes."""
    indptr = [0]
    indices: list[int] = []
    for s in sets:
        indices.extend(vocab.setdefault(x, len(vocab)) for x in s)
        indptr.append(len(indices))
    return np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int64)


def _csr(indptr: np.ndarray, indices: np.ndarray, width: int):  # noqa: ANN202 (scipy's type)
    from scipy import sparse

    data = np.ones(len(indices), dtype=np.int32)
    return sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, width))


def _jaccard_blocks(
    sides: _Sides, function: str
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(left index, right index, similarity) of every pair sharing a shingle, block by block."""
    sets = [shingles(t, function) for t in sides.norm]
    vocab: dict[str, int] = {}
    left_rows = _rows([sets[i] for i in sides.left], vocab)
    right_rows = _rows([sets[i] for i in sides.right], vocab)
    lm = _csr(*left_rows, len(vocab))
    rm = _csr(*right_rows, len(vocab))
    rt = rm.T.tocsr()
    lsize = np.diff(lm.indptr).astype(np.int64)
    rsize = np.diff(rm.indptr).astype(np.int64)
    left_idx, right_idx = np.asarray(sides.left), np.asarray(sides.right)
    step = max(1, BLOCK_ENTRIES // max(1, rm.shape[0]))
    for r0 in range(0, lm.shape[0], step):
        prod = (lm[r0 : r0 + step] @ rt).tocoo()
        a = prod.row.astype(np.int64) + r0
        b = prod.col.astype(np.int64)
        inter = prod.data.astype(np.int64)
        if sides.same:
            keep = b > a
            a, b, inter = a[keep], b[keep], inter[keep]
        sim = inter / (lsize[a] + rsize[b] - inter)
        yield left_idx[a], right_idx[b], sim


def _edit_blocks(sides: _Sides) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(left index, right index, similarity) of every pair, block by block."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    left = [sides.norm[i] for i in sides.left]
    right = [sides.norm[i] for i in sides.right]
    llen = np.array([len(t) for t in left], dtype=np.int64)
    rlen = np.array([len(t) for t in right], dtype=np.int64)
    left_idx, right_idx = np.asarray(sides.left), np.asarray(sides.right)
    step = max(1, BLOCK_ENTRIES // max(1, len(right)))
    for r0 in range(0, len(left), step):
        dist = process.cdist(
            left[r0 : r0 + step], right, scorer=Levenshtein.distance, dtype=np.int32, workers=-1
        )
        if sides.same:
            rows = np.arange(dist.shape[0])[:, None] + r0
            a, b = np.nonzero(np.arange(dist.shape[1])[None, :] > rows)
        else:
            a, b = (x.ravel() for x in np.indices(dist.shape))
        d = dist[a, b].astype(np.int64)
        a = a + r0
        longest = np.maximum(llen[a], rlen[b])
        with np.errstate(invalid="ignore", divide="ignore"):
            sim = np.where(longest > 0, 1.0 - d / np.maximum(longest, 1), 0.0)
        yield left_idx[a], right_idx[b], sim


def edit_affordable(sides: _Sides) -> tuple[bool, str]:
    """Whether all-pairs edit similarity fits the budget, and why not."""
    if not sides.norm:
        return False, "no records"
    mean = float(np.mean([len(t) for t in sides.norm]))
    cost = sides.total * mean * max(1.0, np.ceil(mean / 64))
    if cost > EDIT_BUDGET:
        return False, f"{sides.total} pairs of {mean:.0f} characters"
    return True, ""


def _blocks(sides: _Sides, function: str) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    return _edit_blocks(sides) if function == "edit" else _jaccard_blocks(sides, function)


def gold_similarities(ds: Dataset, sides: _Sides, function: str) -> list[float]:
    """The similarity of every gold pair, computed one pair at a time (the same arithmetic as
    the blocks, so each lands in the same bucket)."""
    at = {rid: i for i, rid in enumerate(sides.ids)}
    if function == "edit":
        return [edit_similarity(sides.norm[at[a]], sides.norm[at[b]]) for a, b in ds.gold]
    cache: dict[int, frozenset[str]] = {}

    def sh(i: int) -> frozenset[str]:
        s = cache.get(i)
        if s is None:
            s = cache[i] = shingles(sides.norm[i], function)
        return s

    return [jaccard(sh(at[a]), sh(at[b])) for a, b in ds.gold]


def sweep(ds: Dataset, function: str, sides: _Sides | None = None) -> Sweep:
    """The best F1 over the thresholds k/STEPS for one similarity function."""
    import time

    start = time.perf_counter()
    sides = sides or _Sides(ds)
    if function == "edit":
        ok, why = edit_affordable(sides)
        if not ok:
            return Sweep(function, 0.0, 0.0, 0.0, 0.0, 0, 0, skipped=why)
    hist = np.zeros(STEPS + 1, dtype=np.int64)
    seen = 0
    for _, _, sim in _blocks(sides, function):
        k = np.floor(sim * STEPS + EPS).astype(np.int64)
        hist += np.bincount(np.clip(k, 0, STEPS), minlength=STEPS + 1)
        seen += len(sim)
    hist[0] += sides.total - seen  # pairs that share nothing: similarity 0
    gold_hist = np.zeros(STEPS + 1, dtype=np.int64)
    for s in gold_similarities(ds, sides, function):
        gold_hist[min(bucket(s), STEPS)] += 1
    predicted = np.cumsum(hist[::-1])[::-1]  # pairs with sim >= k/STEPS
    true = np.cumsum(gold_hist[::-1])[::-1]
    g = len(ds.gold)
    best = (-1.0, 0)
    curve = []
    for k in range(1, STEPS + 1):
        p = true[k] / predicted[k] if predicted[k] else 0.0
        r = true[k] / g if g else 0.0
        score = f1(p, r)
        curve.append((k / STEPS, round(score, 4)))
        if score > best[0]:
            best = (score, k)
    score, k = best
    p = true[k] / predicted[k] if predicted[k] else 0.0
    r = true[k] / g if g else 0.0
    return Sweep(
        function, float(score), k / STEPS, float(p), float(r), int(predicted[k]), int(true[k]),
        seconds=time.perf_counter() - start, curve=curve,
    )  # fmt: skip


def pairs_at(ds: Dataset, function: str, threshold: float) -> set[Pair]:
    """Every pair with similarity >= ``threshold`` (its bucket or above), for the clusters."""
    sides = _Sides(ds)
    k0 = bucket(threshold)
    out: set[Pair] = set()
    ids = sides.ids
    for a, b, sim in _blocks(sides, function):
        keep = np.floor(sim * STEPS + EPS).astype(np.int64) >= k0
        for i, j in zip(a[keep].tolist(), b[keep].tolist(), strict=True):
            out.add(pair(ids[i], ids[j]))
    return out


@dataclass
class Oracle:
    """The best function and threshold, and every function's sweep."""

    best: Sweep
    sweeps: list[Sweep]
    pairs: set[Pair]


def oracle(ds: Dataset, functions: tuple[str, ...] = FUNCTIONS) -> Oracle:
    """Sweep every function, keep the best; its pairs at its threshold (for B-cubed)."""
    sides = _Sides(ds)
    sweeps = [sweep(ds, fn, sides) for fn in functions]
    best = max((s for s in sweeps if not s.skipped), key=lambda s: s.f1)
    return Oracle(best, sweeps, pairs_at(ds, best.function, best.threshold))
