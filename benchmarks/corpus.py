"""A seeded synthetic near-duplicate corpus with exact ground truth.

``generate(n, seed=...)`` makes ``n`` documents of 100-300 words drawn from a Zipf vocabulary of
pseudo-words (50,000 words, exponent 1.1 by default). A fraction of the documents (10% by
default) are edited copies of another document: each copy of a base document gets a per-word
edit rate drawn uniformly from [1%, 10%], and every word of the base is, with that probability,
deleted, substituted by another Zipf word, or followed by an inserted Zipf word (the three kinds
equally likely). A base with copies is a *family*; copies are grouped into families of 1-5 copies.
Document positions are shuffled, so ids (``"0"`` .. ``"n-1"``) say nothing about families.

The ground truth is the list of pairs ``(id_a, id_b, jaccard)`` whose EXACT Jaccard similarity is
at least ``threshold``, computed on the same shingle sets that neardup verifies
(``Params(threshold=t).processor().shingle_set(text)``, or the ``config`` given), in
:func:`neardup.candidates.bruteforce.all_pairs` format (smaller id first, sorted).

``truth="families"`` (the default) compares only the members of each family with each other.
That is exact for this generator, not an approximation, because two documents from different
families are independent draws from the vocabulary, and their Jaccard is far below any useful
threshold (measured: below 0.1 for character 4-grams, about 0.2 for word 1-grams, the most
sensitive kind to shared frequent words; see ``cross_family_similarity``; the
benchmark reports the largest value of a random sample of cross-family pairs for every corpus).
It is also checked: ``truth="exact"`` runs :func:`neardup.candidates.bruteforce.all_pairs` over the
whole corpus, and the benchmark compares the two at 10,000 documents; the tests do it on small
corpora. ``"exact"`` holds every shingle set in memory at once (up to about 85 KB per 200-word
document with character 4-grams), which is why it is not used at 100,000 documents and above.

Reproducibility: the corpus depends only on its parameters and the seed, through numpy's
``Generator`` (PCG64). numpy does not promise that ``Generator`` streams stay identical across
numpy versions, so the corpus is reproducible for one numpy version; :func:`fingerprint` (a
SHA-256 of every id and text) is recorded with each benchmark result to tell.

The vocabulary leaves out the words that neardup's record canonicalization would rewrite or that
trigger its address rules (street suffixes, directionals, ``between``/``at``/``near``/``off``,
ordinal words, ``new york city``), so every document is already in canonical form and the edit
rates are exactly what the shingles see.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from neardup.candidates.bruteforce import all_pairs
from neardup.keys import id_key
from neardup.params import Params
from neardup.read.items import Record
from neardup.sign.canonical import DIRECTIONALS, STREET_SUFFIXES, canonicalize

__all__ = [
    "Copy",
    "Corpus",
    "ZipfWords",
    "cross_family_similarity",
    "exact_truth",
    "family_truth",
    "fingerprint",
    "generate",
    "real_frequencies",
    "short_records",
    "vocabulary",
]

#: English letter frequencies (percent), so pseudo-words have English-like character n-grams.
_LETTER_FREQ = {
    "a": 8.2, "b": 1.5, "c": 2.8, "d": 4.3, "e": 12.7, "f": 2.2, "g": 2.0, "h": 6.1, "i": 7.0,
    "j": 0.15, "k": 0.77, "l": 4.0, "m": 2.4, "n": 6.7, "o": 7.5, "p": 1.9, "q": 0.095, "r": 6.0,
    "s": 6.3, "t": 9.1, "u": 2.8, "v": 0.98, "w": 2.4, "x": 0.15, "y": 2.0, "z": 0.074,
}  # fmt: skip
#: Words that would make neardup's canonicalization change a text (see the module docstring).
_TRIGGERS = frozenset(
    set(STREET_SUFFIXES) | set(STREET_SUFFIXES.values()) | set(DIRECTIONALS)
    | set(DIRECTIONALS.values()) | {"between", "and", "at", "near", "off", "new", "york", "city"}
    | {"sts", "aves", "avs", "rds", "blvds", "drs", "hwys", "pkwys", "streets", "avenues"}
    | {"roads", "boulevards", "drives", "highways", "parkways"}
)  # fmt: skip


def _word_ok(w: str) -> bool:
    return w not in _TRIGGERS and canonicalize(w) == w and canonicalize(f"{w} st") == f"{w} st"


def vocabulary(size: int = 50_000, seed: int = 0) -> list[str]:
    """``size`` distinct lower-case pseudo-words, shortest first (the frequent ranks are short).

    Lengths are ``1 + Poisson(5)`` letters drawn with English letter frequencies.
    """
    rng = np.random.default_rng([seed, 0x70CAB])
    letters = np.array(list(string.ascii_lowercase))
    p = np.array([_LETTER_FREQ[c] for c in string.ascii_lowercase])
    p /= p.sum()
    words: dict[str, None] = {}
    while len(words) < size:
        need = 2 * (size - len(words)) + 64
        lengths = 1 + rng.poisson(5, size=need)
        chars = letters[rng.choice(26, size=int(lengths.sum()), p=p)]
        pos = 0
        for n in lengths.tolist():
            w = "".join(chars[pos : pos + n])
            pos += n
            if w not in words and _word_ok(w):
                words[w] = None
                if len(words) == size:
                    break
    return sorted(words, key=len)  # stable: equal lengths keep their random order


class ZipfWords:
    """Draws words with probability proportional to ``rank ** -exponent``, or to the
    ``weights`` given (a word's own frequency)."""

    def __init__(
        self,
        words: list[str],
        exponent: float,
        rng: np.random.Generator,
        weights: np.ndarray | None = None,
    ) -> None:
        self.words = words
        if weights is None:
            weights = np.arange(1, len(words) + 1, dtype=np.float64) ** -exponent
        self.cdf = np.cumsum(weights / weights.sum())
        self.rng = rng
        self.top = len(words) - 1

    def indices(self, n: int) -> np.ndarray:
        idx = np.searchsorted(self.cdf, self.rng.random(n), side="right")
        return np.minimum(idx, self.top)

    def draw(self, n: int) -> list[str]:
        w = self.words
        return [w[i] for i in self.indices(n).tolist()]


@dataclass(frozen=True)
class Copy:
    """One edited copy: which base it came from, its nominal rate and the edits applied."""

    id: str
    base: str
    rate: float
    base_words: int
    insertions: int
    deletions: int
    substitutions: int

    @property
    def edits(self) -> int:
        return self.insertions + self.deletions + self.substitutions

    @property
    def realized_rate(self) -> float:
        return self.edits / self.base_words


@dataclass
class Corpus:
    records: list[Record]
    truth: list[tuple[str, str, float]]
    families: dict[str, list[str]]  # base id -> [base id, copy ids...]
    copies: list[Copy]
    threshold: float
    params: dict[str, Any] = field(default_factory=dict)

    def texts(self) -> dict[str, str]:
        return {r.id: r.text for r in self.records}

    def family_of(self) -> dict[str, str]:
        """Member id -> base id, for the members of families (singletons are absent)."""
        return {m: base for base, members in self.families.items() for m in members}


def _families(
    n: int, dup_fraction: float, max_copies: int, rng: np.random.Generator
) -> tuple[int, list[int], list[int]]:
    """How many bases, each family's number of copies (1 + Geometric(1/2), capped, until the
    copies are all assigned) and which bases have a family."""
    n_copies = int(round(dup_fraction * n))
    n_bases = n - n_copies
    sizes: list[int] = []
    left = n_copies
    while left > 0:
        s = min(int(rng.geometric(0.5)), max_copies, left)
        sizes.append(s)
        left -= s
    if len(sizes) > n_bases:
        raise ValueError("dup_fraction too large for the family sizes")
    return n_bases, sizes, rng.choice(n_bases, size=len(sizes), replace=False).tolist()


def edit_words(
    words: list[str], rate: float, zipf: ZipfWords, rng: np.random.Generator
) -> tuple[list[str], int, int, int]:
    """Each word is, with probability ``rate``, deleted, substituted or followed by a new word."""
    n = len(words)
    hit = np.flatnonzero(rng.random(n) < rate).tolist()
    kinds = rng.integers(0, 3, size=len(hit)).tolist()
    new = zipf.draw(2 * len(hit) + 8)  # spare draws for substitutions that repeat the word
    kind_at = dict(zip(hit, kinds, strict=True))
    out: list[str] = []
    ins = dels = subs = 0
    for i, w in enumerate(words):
        k = kind_at.get(i)
        if k is None:
            out.append(w)
        elif k == 0:  # insertion after the word
            out.append(w)
            out.append(new.pop() if new else zipf.draw(1)[0])
            ins += 1
        elif k == 1:  # deletion
            dels += 1
        else:  # substitution by a different word
            repl = new.pop() if new else zipf.draw(1)[0]
            while repl == w:
                repl = zipf.draw(1)[0]
            out.append(repl)
            subs += 1
    return out, ins, dels, subs


def generate(
    n: int,
    *,
    seed: int = 0,
    threshold: float = 0.8,
    dup_fraction: float = 0.1,
    min_rate: float = 0.01,
    max_rate: float = 0.10,
    min_words: int = 100,
    max_words: int = 300,
    max_copies: int = 5,
    vocab_size: int = 50_000,
    exponent: float = 1.1,
    truth: str = "families",
    config: Params | None = None,
) -> Corpus:
    """The corpus of ``n`` documents (see the module docstring); ``truth`` is one of
    ``"families"`` (exact for this generator), ``"exact"`` (brute force over everything) or
    ``"none"``."""
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    if not 0.0 <= dup_fraction < 1.0:
        raise ValueError(f"dup_fraction must be in [0, 1), got {dup_fraction}")
    if truth not in ("families", "exact", "none"):
        raise ValueError(f"truth must be families, exact or none, got {truth!r}")
    rng = np.random.default_rng([seed, 0xD0C5])
    zipf = ZipfWords(vocabulary(vocab_size, seed), exponent, rng)

    n_bases, sizes, family_bases = _families(n, dup_fraction, max_copies, rng)

    lengths = rng.integers(min_words, max_words + 1, size=n_bases)
    flat = zipf.indices(int(lengths.sum()))
    vocab = zipf.words
    texts: list[str] = []
    base_words: list[list[str]] = []
    pos = 0
    for length in lengths.tolist():
        ws = [vocab[i] for i in flat[pos : pos + length].tolist()]
        pos += length
        base_words.append(ws)
        texts.append(" ".join(ws))

    # Slots 0..n_bases-1 are bases, then the copies; slot -> id by a random permutation.
    ids = [str(i) for i in rng.permutation(n).tolist()]
    copies: list[Copy] = []
    families: dict[str, list[str]] = {}
    slot = n_bases
    for b, s in zip(family_bases, sizes, strict=True):
        members = [ids[b]]
        for _ in range(s):
            rate = float(rng.uniform(min_rate, max_rate))
            words, ins, dels, subs = edit_words(base_words[b], rate, zipf, rng)
            if not words:  # cannot happen with >= 100 words; keep the corpus well formed
                words = list(base_words[b])
            texts.append(" ".join(words))
            copies.append(Copy(ids[slot], ids[b], rate, len(base_words[b]), ins, dels, subs))
            members.append(ids[slot])
            slot += 1
        families[ids[b]] = members
    records = [Record(ids[i], texts[i]) for i in range(n)]
    records.sort(key=lambda r: id_key(r.id))

    cfg = config or Params(threshold=threshold)
    if truth == "exact":
        pairs = exact_truth(records, cfg, threshold)
    elif truth == "families":
        pairs = family_truth({r.id: r.text for r in records}, families, cfg, threshold)
    else:
        pairs = []
    params = {
        "n": n, "seed": seed, "threshold": threshold, "dup_fraction": dup_fraction,
        "min_rate": min_rate, "max_rate": max_rate, "min_words": min_words,
        "max_words": max_words, "max_copies": max_copies, "vocab_size": vocab_size,
        "exponent": exponent, "truth": truth, "families": len(families),
        "copies": len(copies), "numpy": np.__version__,
    }  # fmt: skip
    return Corpus(records, pairs, families, copies, threshold, params)


def family_truth(
    texts: dict[str, str],
    families: dict[str, list[str]],
    cfg: Params,
    threshold: float,
) -> list[tuple[str, str, float]]:
    """Exact pairs with Jaccard >= ``threshold`` among the members of each family."""
    proc = cfg.processor()
    out: list[tuple[str, str, float]] = []
    for members in families.values():
        sets = {m: proc.shingle_set(texts[m]) for m in members}
        for a, b in combinations(members, 2):
            sa, sb = sets[a], sets[b]
            inter = len(sa & sb)
            sim = inter / (len(sa) + len(sb) - inter)
            if sim >= threshold:
                x, y = (a, b) if id_key(a) <= id_key(b) else (b, a)
                out.append((x, y, sim))
    out.sort(key=lambda p: (id_key(p[0]), id_key(p[1])))
    return out


def exact_truth(
    records: Iterable[Record], cfg: Params, threshold: float
) -> list[tuple[str, str, float]]:
    """Brute-force ground truth over the whole corpus (every shingle set held in memory)."""
    proc = cfg.processor()
    return all_pairs([(r.id, proc.shingle_set(r.text)) for r in records], threshold)


def cross_family_similarity(
    corpus: Corpus, samples: int = 2000, seed: int = 1, cfg: Params | None = None
) -> float:
    """The largest exact Jaccard among ``samples`` random pairs of documents of different
    families (singletons count as families of one): the margin behind ``truth="families"``."""
    proc = (cfg or Params(threshold=corpus.threshold)).processor()
    fam = corpus.family_of()
    rng = np.random.default_rng(seed)
    recs = corpus.records
    best = 0.0
    done = 0
    while done < samples:
        i, j = rng.integers(0, len(recs), size=2).tolist()
        a, b = recs[i], recs[j]
        if i == j or fam.get(a.id, a.id) == fam.get(b.id, b.id):
            continue
        sa, sb = proc.shingle_set(a.text), proc.shingle_set(b.text)
        inter = len(sa & sb)
        best = max(best, inter / (len(sa) + len(sb) - inter))
        done += 1
    return best


def short_records(
    n: int,
    *,
    seed: int = 0,
    min_words: int = 8,
    max_words: int = 15,
    vocab_size: int = 50_000,
    exponent: float = 1.1,
) -> list[Record]:
    """``n`` short records (8-15 Zipf words each) for indexing throughput; ids ``"0"``..."""
    rng = np.random.default_rng([seed, 0x5407])
    zipf = ZipfWords(vocabulary(vocab_size, seed), exponent, rng)
    lengths = rng.integers(min_words, max_words + 1, size=n)
    flat = zipf.indices(int(lengths.sum())).tolist()
    vocab = zipf.words
    out: list[Record] = []
    pos = 0
    for i, length in enumerate(lengths.tolist()):
        out.append(Record(str(i), " ".join(vocab[k] for k in flat[pos : pos + length])))
        pos += length
    return out


#: The vocabularies of :func:`short_families`: real English words by frequency (the
#: ``wordfreq`` package, 50,000 most frequent), the pseudo-words of :func:`vocabulary`, or
#: the adversarial ``w0``..``w49999`` (short tokens sharing most character 3-grams).
SHORT_VOCABULARIES = ("real", "pseudo", "tokens")


def short_vocabulary(kind: str, size: int = 50_000, seed: int = 0) -> list[str]:
    """The words of a short-record corpus, most frequent first (see :data:`SHORT_VOCABULARIES`)."""
    if kind == "real":
        from wordfreq import top_n_list

        words = [w for w in top_n_list("en", size * 2) if w.isalpha() and _word_ok(w)]
        return words[:size]
    if kind == "pseudo":
        return vocabulary(size, seed)
    if kind == "tokens":
        return [f"w{i}" for i in range(size)]
    raise ValueError(f"vocabulary must be one of {SHORT_VOCABULARIES}, got {kind!r}")


def real_frequencies(size: int = 50_000) -> tuple[list[str], np.ndarray]:
    """The ``size`` most frequent English words as written (stop words included: "and", "at"
    too, which :func:`short_vocabulary` leaves out for the address rules) and each one's
    frequency in English text (``wordfreq``). Drawn by these, "the", "to", "and", "of" and "a"
    are a sixth of a record's words, as in real short texts; a Zipf law over the ranks gives
    the head less weight than it has."""
    from wordfreq import top_n_list, word_frequency

    words = [w for w in top_n_list("en", size * 2) if w.isalpha()][:size]
    return words, np.array([word_frequency(w, "en") for w in words], dtype=np.float64)


def _typo(word: str, rng: np.random.Generator) -> str:
    """One keyboard-style slip: a letter replaced, dropped, doubled or two swapped."""
    if len(word) < 2:
        return word + "s"
    i = int(rng.integers(0, len(word) - 1))
    kind = int(rng.integers(0, 4))
    letter = string.ascii_lowercase[int(rng.integers(0, 26))]
    if kind == 0:
        return word[:i] + letter + word[i + 1 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    if kind == 2:
        return word[: i + 1] + word[i:]
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def short_families(
    n: int,
    *,
    seed: int = 0,
    words: str = "real",
    dup_fraction: float = 0.1,
    min_words: int = 8,
    max_words: int = 15,
    max_edits: int = 3,
    max_copies: int = 5,
    exponent: float | None = 1.0,
) -> Corpus:
    """``n`` short records (8-15 Zipf words) of which ``dup_fraction`` are planted near copies.

    A copy of a base gets 1 to ``max_edits`` edits, each a typo in one word (half of them), a
    word dropped or two neighbouring words swapped: the slips of a catalogue or a customer
    list. Families of 1-5 copies, as :func:`generate`. The truth is every pair inside a family
    (``jaccard`` 1.0 in the list: it is planted, not measured), so a method is scored on the
    pairs a user wants found, whatever shingles it uses.

    Words are drawn with probability ``rank ** -exponent``; ``exponent=None`` draws English
    words by their own frequency in English, stop words included (:func:`real_frequencies`):
    records heavy with stop words, whose unrelated records share "the", "and" and "of".
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    if exponent is None and words != "real":
        raise ValueError(f"exponent=None (real frequencies) needs words='real', got {words!r}")
    rng = np.random.default_rng([seed, 0x5407, SHORT_VOCABULARIES.index(words)])
    if exponent is None:
        vocab_words, weights = real_frequencies()
    else:
        vocab_words, weights = short_vocabulary(words, seed=seed), None
    zipf = ZipfWords(vocab_words, exponent or 0.0, rng, weights)
    n_bases, sizes, family_bases = _families(n, dup_fraction, max_copies, rng)
    lengths = rng.integers(min_words, max_words + 1, size=n_bases)
    flat = zipf.indices(int(lengths.sum())).tolist()
    vocab = zipf.words
    base_words: list[list[str]] = []
    pos = 0
    for length in lengths.tolist():
        base_words.append([vocab[k] for k in flat[pos : pos + length]])
        pos += length
    texts = [" ".join(ws) for ws in base_words]
    ids = [str(i) for i in rng.permutation(n).tolist()]
    families: dict[str, list[str]] = {}
    copies: list[Copy] = []
    slot = n_bases
    for b, s in zip(family_bases, sizes, strict=True):
        members = [ids[b]]
        for _ in range(s):
            ws = list(base_words[b])
            edits = int(rng.integers(1, max_edits + 1))
            subs = dels = 0
            done = 0
            while done < edits or ws == base_words[b]:  # a slip may change nothing ("ll")
                done += 1
                k = int(rng.integers(0, 4))
                i = int(rng.integers(0, len(ws)))
                if k <= 1:
                    ws[i] = _typo(ws[i], rng)
                    subs += 1
                elif k == 2 and len(ws) > 2:
                    del ws[i]
                    dels += 1
                elif i + 1 < len(ws):
                    ws[i], ws[i + 1] = ws[i + 1], ws[i]
                    subs += 1
            texts.append(" ".join(ws))
            copies.append(Copy(ids[slot], ids[b], done / len(base_words[b]),
                               len(base_words[b]), 0, dels, subs))  # fmt: skip
            members.append(ids[slot])
            slot += 1
        families[ids[b]] = members
    records = [Record(ids[i], texts[i]) for i in range(n)]
    records.sort(key=lambda r: id_key(r.id))
    truth = sorted(
        ((a, b) if id_key(a) <= id_key(b) else (b, a))
        for members in families.values()
        for a, b in combinations(members, 2)
    )
    params = {
        "n": n, "seed": seed, "words": words, "dup_fraction": dup_fraction,
        "min_words": min_words, "max_words": max_words, "max_edits": max_edits,
        "exponent": exponent, "families": len(families), "copies": len(copies),
    }  # fmt: skip
    return Corpus(records, [(a, b, 1.0) for a, b in truth], families, copies, 0.0, params)


def fingerprint(records: Iterable[Record]) -> str:
    """SHA-256 over every id and text, in order: tells whether two runs had the same corpus."""
    h = hashlib.sha256()
    for r in records:
        h.update(r.id.encode())
        h.update(b"\t")
        h.update(r.text.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


# -- (c, d) all pairs --------------------------------------------------------------------------


def score(found: set[tuple[str, str]], truth: set[tuple[str, str]]) -> dict[str, Any]:
    tp = len(found & truth)
    return {
        "reported": len(found),
        "true_positives": tp,
        "truth": len(truth),
        "recall": round(tp / len(truth), 5) if truth else None,
        "precision": round(tp / len(found), 5) if found else None,
    }


# -- one size ----------------------------------------------------------------------------------


def bench_params(args: Any) -> Params:
    """The parameter set of a run: the threshold and shingles asked for, neardup's defaults
    otherwise (bands and rows follow the threshold)."""
    shape = {k: v for k, v in (("shingle_kind", args.kind), ("shingle_size", args.size))
             if v is not None}  # fmt: skip
    return Params(threshold=args.threshold, **shape)
