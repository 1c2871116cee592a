"""The threshold of an index read off its own data: the valley between two kinds of records.

Which Jaccard makes two records "the same" depends on the data (low for typo'd person
records, high for German names with birth dates, where unrelated people share a name). No one
threshold fits, but every record answers the question for its own collection: its *nearest
neighbour's* similarity. Records without a duplicate have a nearest neighbour that is merely
alike (one mode, low); records with a duplicate have one that is the same entity (a second
mode, high). The threshold sits in the valley between the two modes.

Why nearest neighbours and not all pairs: each record counts once, so the millions of weak
non-matching pairs do not drown the few thousand matches, and a mixture of two bumps stays
visible on data where a model of pairs (or EM over one similarity) cannot tell them apart.

How, on the verified pairs at the index's floor (the lowest similarity banding finds):

* every record's best similarity; records with no pair at the floor are counted below it;
* a histogram of bins ``DEFAULTS.valley_width`` wide from ``floor + DEFAULTS.valley_gap``
  (banding's recall is still rising just above the floor), smoothed over three bins (the
  tuned values and their reasons: :mod:`neardup.defaults`);
* a valley at bin ``k`` is as deep as the lower of the highest bin on its left (or the records
  below the floor, spread over the bins there) and the highest on its right, divided by its
  own height; the first valley at least ``DEFAULTS.valley_depth`` deep is taken (the one nearest
  the non-matches: a second dip among the matches, between near copies and exact ones, is not a
  boundary between matches and non-matches);
* a valley at ``DEFAULTS.valley_top`` or above is passed over: it parts near copies from
  exact ones, wherever no valley lies between matches and non-matches below it;
* the threshold is the lower edge of the valley's bin;
* no valley that deep (one bump, or matches spread everywhere): ``DEFAULTS.valley_fallback``.

The valley is read on two similarities, and the data chooses (:func:`read_valley`): plain
Jaccard, and Jaccard with each shingle weighted by its rarity among the paired records
(:func:`weighted_jaccards`). Where records are short and made mostly of stop words, two
unrelated records share "the", "and", "of" and reach the plain valley's cut on those alone;
weighted, the grams every record holds count for little and such pairs fall back among the
non-matches. Where the records' words are rare or the data tell matches apart by frequent
values (a common surname with another birth date), the plain valley is the clearer one. The
one taken is weighted Jaccard's unless plain Jaccard's is more than
``DEFAULTS.valley_plain_margin`` times deeper at its cut, where each would part records (its
depth there says how few records sit where it cuts against both bumps): rarity is evidence plain
Jaccard lacks, and a depth is read off a noisy histogram. The report prints both depths.

A second check, for records: two records that both hold numbers (house numbers, dates, phone
numbers, years) and share none are different entities unless they are alike overall (Jaccard
``DEFAULTS.numbers_waived_jaccard`` or more). Restaurants on one street, people of one name
born on other days: similar words, other numbers. On the development suite it gained on the
restaurants and hardly changed the others (:func:`numbers_disagree`; the figures and those of
the valley: docs/accuracy.md, "What each step for records did when it was added"). It is made
only where the data's numbers are identifiers: where
the pairs alike enough to waive it share no number often, the numbers are written in many forms
and the check is left out (:func:`numbers_identify`). Two records that hold different numbers
after the same word naming a sibling's place (``unit 305``, ``unit 306``) are dropped wherever
and however alike (:func:`roles_disagree`).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> alike = rng.normal(0.45, 0.05, 900).clip(0, 1)   # best neighbour of a record without a copy
>>> same = rng.normal(0.85, 0.06, 300).clip(0, 1)    # of a record with one
>>> v = valley_threshold(np.concatenate([alike, same]), records=1200, floor=0.3)
>>> 0.55 <= v.threshold <= 0.7, v.found
(True, True)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from ..results import Pair
from ..sign import kernel
from ..sign.minhash import ShingleProcessor
from .assign import best_of_each
from .identifiers import (
    Numbers,
    count_unshared,
    identifiers,
    identifiers_differ,
    marked,
    roles_differ,
    siblings_said,
)


@dataclass
class Valley:
    """The threshold found, and what it was read from (shown by reports and the review page)."""

    threshold: float
    found: bool
    depth: float
    floor: float
    records: int
    below_floor: int
    edges: list[float]
    counts: list[int]
    reason: str
    #: The similarity the valley was read on and its threshold applies to: :data:`PLAIN` or
    #: :data:`WEIGHTED` (:func:`read_valley`).
    similarity: str = "jaccard"
    #: Why that similarity, in words (both valleys' depths); empty where no choice was made.
    choice: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": "valley of nearest-neighbour similarities",
            "similarity": self.similarity,
            "choice": self.choice,
            "threshold": self.threshold,
            "found": self.found,
            "depth": round(self.depth, 3),
            "floor": self.floor,
            "records": self.records,
            "below_floor": self.below_floor,
            "histogram": {"edges": self.edges, "counts": self.counts},
            "reason": self.reason,
        }


def best_similarities(pairs: Iterable[Pair]) -> dict[str, float]:
    """Every paired record's highest Jaccard."""
    return best_of_each((p.id1, p.id2, p.jaccard) for p in pairs)


def valley_threshold(
    best: NDArray[np.float64] | Iterable[float], records: int, floor: float
) -> Valley:
    """The threshold at the valley of the records' best similarities (see the module)."""
    values = np.asarray(list(best) if not isinstance(best, np.ndarray) else best, dtype=float)
    below = max(0, records - int(np.count_nonzero(values >= floor)))
    width, fallback, deep = DEFAULTS.valley_width, DEFAULTS.valley_fallback, DEFAULTS.valley_depth
    lo = floor + DEFAULTS.valley_gap
    edges = np.arange(lo, 1.0 + width / 2, width)
    if len(edges) < 3:
        return Valley(floor, False, 0.0, floor, records, below, [], [], "floor too high to look")
    edges[-1] = 1.0 + 1e-9
    counts = np.histogram(values[values >= lo], bins=edges)[0]
    smooth = np.convolve(np.pad(counts.astype(float), 1, mode="edge"), [1 / 3] * 3, "valid")
    below_density = below * width / lo  # the records under the floor, spread over its width
    found_k, depth, deepest, passed, thin = None, 0.0, 0.0, "", 0.0
    for k in range(len(smooth) - 1):
        left = max([below_density, *smooth[:k].tolist()])
        right = float(smooth[k + 1 :].max())
        d = min(left, right) / max(float(smooth[k]), 0.5)
        if min(left, right) < DEFAULTS.valley_min_side:  # a dip among a few records is noise
            thin = max(thin, d) if edges[k] < DEFAULTS.valley_top else thin
            continue
        if d >= deep and edges[k] >= DEFAULTS.valley_top and not passed:
            passed = (f"; the dip at {edges[k]:.3f} ({d:.1f}x) parts near copies from exact "
                      "ones, not matches from non-matches")  # fmt: skip
        if edges[k] >= DEFAULTS.valley_top:
            continue
        deepest = max(deepest, d)
        if d >= deep:
            found_k, depth = k, d
            break
    shown_edges = [round(float(e), 4) for e in np.minimum(edges, 1.0)]
    if found_k is None:
        few = (f"; a dip of {thin:.1f}x among fewer than {DEFAULTS.valley_min_side:g} records "
               "a bin is not read as one" if thin >= deep else "")  # fmt: skip
        return Valley(
            fallback, False, deepest, floor, records, below, shown_edges, counts.tolist(),
            f"no valley at least {deep}x deep (deepest {deepest:.1f}x){passed}{few}: the "
            f"fallback {fallback}",
        )  # fmt: skip
    threshold = round(float(edges[found_k]), 4)
    # what was measured, not what it means: siblings too may stand above the valley (colour
    # variants of one model), and copies below it (tracks of one album: neardup.decision.families)
    above = int(np.count_nonzero(values >= threshold))
    return Valley(
        threshold, True, depth, floor, records, below, shown_edges, counts.tolist(),
        f"valley at {edges[found_k]:.3f} ({depth:.1f}x deep) in the records' best-match "
        f"similarities: {above} records have a match above it, read as their duplicates; "
        f"{records - above} do not ({below} below the floor {floor})",
    )  # fmt: skip


#: The two similarities a valley is read on (:attr:`Valley.similarity`).
PLAIN, WEIGHTED = "jaccard", "weighted jaccard"
#: How the report names them.
SIMILARITY_WORDS = {PLAIN: "Jaccard", WEIGHTED: "weighted Jaccard"}


#: What a report of new records says of a bar read off the data: it is read off their pairs.
NEW_RECORDS = (
    "the bar is read off the new records' pairs, their shingles weighed over those pairs; a "
    "full report reads it off every record's, so pairs near it may differ from the full "
    "report's; a bar given (report --threshold T, to both) makes them the same"
)


def weighted_jaccards(
    pairs: Sequence[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    hashes: Callable[[Sequence[str]], tuple[Any, Any] | None] | None = None,
) -> list[float]:
    """Each pair's Jaccard with every shingle weighted by its rarity, ``log((n + 1) / df)``
    over the ``n`` records of the pairs (``df``: how many of them hold it): the shared weight
    over the weight of the union. A gram every record holds ("the ") weighs little, a rare
    one much.

    Why the records of the pairs and not the whole index: they are the records the rule
    decides about and their texts are at hand; a gram frequent among them is frequent in the
    data. Why ``log`` of the inverse frequency: the rarity of a gram as the information it
    carries (IDF); squared, it cut more true pairs of short records at the same precision.

    >>> from neardup import Params
    >>> proc = Params().processor()
    >>> texts = {"a": "the cat of the house", "b": "the cat of the house!",
    ...          "c": "the dog of the house", "d": "a bird on a tree"}
    >>> pairs = [Pair("a", "b", 1.0, 0), Pair("a", "c", 0.6, 1), Pair("c", "d", 0.0, 5)]
    >>> w = weighted_jaccards(pairs, texts, proc)
    >>> w[0], w[1] < 0.6, w[2]
    (1.0, True, 0.0)
    """
    if kernel.active() == "c" and pairs:
        return _weighted_hashed(pairs, texts, processor, hashes)
    return weighted_jaccards_of_sets(pairs, texts, processor)


#: Pairs whose shingles are matched at a time (:func:`_weighted_hashed`).
PAIR_CHUNK = 100_000


def _weighted_hashed(
    pairs: Sequence[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    hashes: Callable[[Sequence[str]], tuple[Any, Any] | None] | None = None,
) -> list[float]:
    """:func:`weighted_jaccards` on the C kernel's sorted shingle hashes, as arrays: a gram is
    its 32-bit hash here, as in the screen (two grams of one hash, a chance of one in four
    billion a pair of distinct grams, weigh as one). Each record's weight and each pair's
    shared weight are summed in the same order (ascending hash), so that two records of the
    same grams give exactly 1. Why: the per-gram sets took most of a large report's decision
    (docs/scale.md)."""
    ids: dict[str, int] = {}
    for p in pairs:
        ids.setdefault(p.id1, len(ids))
        ids.setdefault(p.id2, len(ids))
    kept = hashes(list(ids)) if hashes is not None else None  # those the backend kept
    values, offsets = (
        kept if kept is not None else processor.shingle_hashes([texts.get(i, "") for i in ids])
    )
    ordered = np.sort(values)  # a sort, not np.unique's argsort: its inverse is not needed
    first = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    uniq = ordered[first]
    df = np.diff(np.append(first, ordered.size))
    weight = np.log((len(ids) + 1) / df.astype(np.float64))
    lengths = np.diff(offsets)
    owner = np.repeat(np.arange(len(ids), dtype=np.int64), lengths)
    # each hash as its gram's place in uniq, once: the pairs below match places, not hashes
    places = np.searchsorted(uniq, values).astype(np.uint32)
    total = np.bincount(owner, weights=weight[places], minlength=len(ids))
    del owner
    a = np.fromiter((ids[p.id1] for p in pairs), np.int64, len(pairs))
    b = np.fromiter((ids[p.id2] for p in pairs), np.int64, len(pairs))
    shared = np.zeros(len(pairs))
    # two records of one set share all they hold: not sorted pair by pair (10,000 records of
    # 100 texts, 495,000 pairs: 13 s of a 36 s report)
    kind = _same_sets(places, offsets)
    alike = kind[a] == kind[b]
    shared[alike] = total[a[alike]]
    rest = np.flatnonzero(~alike)
    for start in range(0, rest.size, PAIR_CHUNK):
        at = rest[start : start + PAIR_CHUNK]
        ca, cb = a[at], b[at]
        local = np.arange(ca.size, dtype=np.uint64)
        keys = np.concatenate([
            _entries(local, offsets[ca], lengths[ca], places),
            _entries(local, offsets[cb], lengths[cb], places),
        ])  # fmt: skip
        keys.sort()
        both = keys[1:][keys[1:] == keys[:-1]]  # a record's hashes are distinct: held by both
        of = (both >> np.uint64(32)).astype(np.int64)
        gram = (both & np.uint64(0xFFFF_FFFF)).astype(np.int64)
        shared[at] = np.bincount(of, weights=weight[gram], minlength=ca.size)
    union = total[a] + total[b] - shared
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(union > 0, np.minimum(1.0, shared / union), 0.0)
    out[alike & (total[a] > 0)] = 1.0  # one set twice (or one record with itself)
    return [float(x) for x in out]


def _same_sets(places: NDArray[np.uint32], offsets: NDArray[np.int64]) -> NDArray[np.int64]:
    """A class for each record (its run of ``places`` between ``offsets``, ascending): two
    records are of one class exactly when their runs are equal. Grouped by a fingerprint of
    the run, then each record checked value by value against its group's first, so that a
    collision of fingerprints costs a record its group, never a wrong class."""
    n = offsets.size - 1
    lengths = np.diff(offsets)
    kind = np.arange(n, dtype=np.int64)
    if not places.size or n < 2:
        return kind
    mixed = (places.astype(np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= mixed >> np.uint64(29)
    full = lengths > 0
    fp = np.zeros(n, dtype=np.uint64)
    fp[full] = np.add.reduceat(mixed, offsets[:-1][full])
    order = np.lexsort((np.arange(n), fp, lengths))
    key_fp, key_len = fp[order], lengths[order]
    new = np.r_[True, (key_fp[1:] != key_fp[:-1]) | (key_len[1:] != key_len[:-1])]
    head = order[np.flatnonzero(new)[np.cumsum(new) - 1]]  # each record's group's first
    check = np.flatnonzero((head != order) & full[order])
    if not check.size:
        return kind
    rec, first = order[check], head[check]
    size = lengths[rec]
    step = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    mine = places[np.repeat(offsets[rec], size) + step]
    equal = mine == places[np.repeat(offsets[first], size) + step]
    same = np.logical_and.reduceat(equal, np.cumsum(size) - size)
    kind[rec[same]] = first[same]
    return kind


def _entries(
    pair: NDArray[np.uint64], starts: NDArray[np.int64], lengths: NDArray[np.int64],
    hashes: NDArray[np.uint32],
) -> NDArray[np.uint64]:  # fmt: skip
    """``pair << 32 | hash`` for every shingle hash of each pair's record (its run of
    ``hashes`` from ``starts``, ``lengths`` long; any 32-bit values: the grams' places)."""
    n = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    at = np.repeat(starts - before, lengths) + np.arange(n, dtype=np.int64)
    return (np.repeat(pair, lengths) << np.uint64(32)) | hashes[at].astype(np.uint64)


def weighted_jaccards_of_sets(
    pairs: Sequence[Pair], texts: Mapping[str, str], processor: ShingleProcessor
) -> list[float]:
    """:func:`weighted_jaccards` on the shingles themselves, one set a record: where there is
    no C kernel, and the reference the arrays' version is tested against."""
    code: dict[str, int] = {}
    grams: dict[str, frozenset[int]] = {}
    for p in pairs:
        for i in (p.id1, p.id2):
            if i not in grams:
                shingles = processor.shingle_set(texts.get(i, ""))
                grams[i] = frozenset([code.setdefault(g, len(code)) for g in shingles])
    held = Counter(g for s in grams.values() for g in s)
    n = len(grams) + 1
    weight = [0.0] * len(code)
    for g, df in held.items():
        weight[g] = math.log(n / df)
    of = weight.__getitem__
    total = {i: math.fsum(map(of, s)) for i, s in grams.items()}
    out: list[float] = []
    for p in pairs:
        shared = math.fsum(map(of, grams[p.id1] & grams[p.id2]))
        union = total[p.id1] + total[p.id2] - shared
        out.append(min(1.0, shared / union) if union > 0 else 0.0)
    return out


def read_valley(
    pairs: Sequence[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    records: int,
    floor: float,
    fresh: set[str] | None = None,
    hashes: Callable[[Sequence[str]], tuple[Any, Any] | None] | None = None,
) -> tuple[Valley, list[float] | None]:
    """The valley read on plain Jaccard and on :func:`weighted_jaccards`, and the one the data
    chose: the weighted one where it shows a valley deeper at its cut than the plain one's
    (see the module), with each pair's weighted Jaccard; else the plain one and None.

    ``records``: how many records the best similarities are of (those without a pair count
    below the floor); ``fresh``: a report of new records reads their best similarities only.
    """
    plain = valley_threshold(_best(pairs, (p.jaccard for p in pairs), fresh), records, floor)
    weights = weighted_jaccards(pairs, texts, processor, hashes) if pairs else []
    weighted = valley_threshold(_best(pairs, weights, fresh), records, floor)
    weighed = "weighted Jaccard (shingles weighted by rarity)"
    margin = DEFAULTS.valley_plain_margin
    if weighted.found and weighted.depth * margin > plain.depth:
        against = f"{plain.depth:.1f}x" + ("" if plain.found else " (no valley)")
        how = (
            "deeper at its cut than plain Jaccard's"
            if weighted.depth > plain.depth
            else f"within {margin:g}x of plain Jaccard's at its cut, and rarity is more evidence"
        )
        why = f"read on {weighed}, whose valley is {how}: {weighted.depth:.1f}x against {against}"
        return replace(weighted, similarity=WEIGHTED, choice=why), weights
    if not weighted.found:
        either = "" if plain.found else " either"
        why = (
            f"read on plain Jaccard: {weighed} shows no valley{either} (deepest "
            f"{weighted.depth:.1f}x)"
        )
    else:
        why = (
            f"read on plain Jaccard, whose valley is more than {margin:g}x as deep at its cut "
            f"as that of {weighed}: {plain.depth:.1f}x against {weighted.depth:.1f}x"
        )
    return replace(plain, similarity=PLAIN, choice=why), None


def _best(pairs: Sequence[Pair], values: Iterable[float], fresh: set[str] | None) -> list[float]:
    """Every paired record's highest similarity (of the new records only, given ``fresh``)."""
    best = best_of_each((p.id1, p.id2, v) for p, v in zip(pairs, values, strict=True))
    if fresh is not None:  # the new records' best matches: the old ones' may be older
        return [v for i, v in best.items() if i in fresh]
    return list(best.values())


class RecordNumbers:
    """Each record's numbers (:func:`~neardup.decision.identifiers.identifiers` of its
    normalized words), computed once: one reader can serve every step of the check."""

    def __init__(self, texts: Mapping[str, str], processor: ShingleProcessor) -> None:
        self.texts, self.processor = texts, processor
        self.cache: dict[str, Numbers] = {}
        #: Whether every word of the record is digits alone (:meth:`alone`).
        self.bare: dict[str, bool] = {}

    def __call__(self, i: str) -> Numbers:
        got = self.cache.get(i)
        if got is None:
            words = self.processor.normalize(marked(self.texts.get(i, ""))).split()
            got = identifiers(words)
            self.cache[i] = got
            # digits alone: words that merely hold one are codes (lo35, x1), which differ
            # between matches no more than other words do (a file of such codes lost 298 of
            # its 301 pairs when a digit was enough)
            self.bare[i] = bool(got) and all(w.isdecimal() for w in words)
        return got

    def alone(self, i: str) -> bool:
        """Whether the record is numbers alone: every word of it is digits alone."""
        self(i)
        return self.bare[i]


def numbers_identify(
    pairs: list[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    numbers: RecordNumbers | None = None,
) -> tuple[bool, str]:
    """Whether the numbers of these records tell entities apart, read off the pairs alike
    enough that their numbers are waived (Jaccard ``DEFAULTS.numbers_waived_jaccard`` or more:
    nearly all matches): among those whose records both hold numbers, how many share none.

    Where numbers are identifiers (house numbers, birth dates) matches share them: on the
    development suite at most 2.2% of such pairs shared none. Where they are written in several
    forms (a track's length as 4:32, 272 or 04m32s; prices; counts) matches often share none,
    and the numbers check would drop them: above ``DEFAULTS.numbers_noisy`` it is not made.
    Numbers are read here word by word, as the data writes them
    (:func:`~neardup.decision.identifiers.count_unshared` says why). A pair that holds another
    number of one kind in the same place (``kills at least 72``, ``kills at least 15``) shows
    no number written two ways: such siblings are the pairs the check parts
    (:func:`~neardup.decision.identifiers.siblings`).
    """
    numbers = numbers or RecordNumbers(texts, processor)
    waived, noisy = DEFAULTS.numbers_waived_jaccard, DEFAULTS.numbers_noisy
    triples = ((p.jaccard, p.id1, p.id2) for p in pairs)
    both, differing, other = count_unshared(triples, numbers, waived)
    if both < DEFAULTS.numbers_min_pairs:
        return True, f"made ({both} pairs alike enough to tell are too few to judge by)"
    share = differing / both
    besides = siblings_said(other)
    if share > noisy:
        return False, (
            f"not made: {differing} of {both} pairs at Jaccard >= {waived} share no "
            f"number ({share:.0%}, more than {noisy:.0%}{besides}), so numbers here do not "
            "tell entities apart"
        )
    return True, (
        f"made: {differing} of {both} pairs at Jaccard >= {waived} share no number{besides}"
    )


def numbers_disagree(
    pairs: list[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    numbers: RecordNumbers | None = None,
) -> tuple[list[Pair], int]:
    """The pairs without those below ``DEFAULTS.numbers_waived_jaccard`` whose records both
    hold numbers and share none (words with a digit, after normalization), and how many were
    dropped.

    >>> from neardup import Params
    >>> proc = Params().processor()
    >>> texts = {"a": "Roma 12 Main St", "b": "Rome 12 Main St", "c": "Roma 40 Main St"}
    >>> pairs = [Pair("a", "b", 0.6, 1), Pair("a", "c", 0.6, 1)]
    >>> kept, dropped = numbers_disagree(pairs, texts, proc)
    >>> [(p.id1, p.id2) for p in kept], dropped
    ([('a', 'b')], 1)
    """
    numbers = numbers or RecordNumbers(texts, processor)
    waived = DEFAULTS.numbers_waived_jaccard
    kept = [
        p
        for p in pairs
        if p.jaccard >= waived or not identifiers_differ(numbers(p.id1), numbers(p.id2))
    ]
    return kept, len(pairs) - len(kept)


def numbers_spared(
    pairs: list[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    numbers: RecordNumbers | None = None,
) -> int:
    """How many pairs :func:`numbers_disagree` keeps for being alike (Jaccard
    ``DEFAULTS.numbers_waived_jaccard`` or more) though their numbers differ as it reads them:
    said beside the pairs it drops, which would otherwise read as every pair whose numbers
    differ (two phones, S21 and S22, kept at 0.8 while the line said 1 pair dropped)."""
    numbers = numbers or RecordNumbers(texts, processor)
    waived = DEFAULTS.numbers_waived_jaccard
    return sum(
        1 for p in pairs
        if p.jaccard >= waived and identifiers_differ(numbers(p.id1), numbers(p.id2))
    )  # fmt: skip


def numbers_alone_differ(
    pairs: list[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    numbers: RecordNumbers | None = None,
) -> tuple[list[Pair], int]:
    """The pairs without those whose records are numbers alone (every word digits alone)
    and hold different numbers (neither's numbers all among the other's), however alike, and
    how many were dropped. Why: ``10000`` and ``10001`` share two of their three character
    3-grams, and nothing else in them says they are one entity; :func:`numbers_disagree`
    spared them, since where numbers are all a record holds, pairs alike enough to waive the
    check share none and so the check was not made (20k such records: 667 pairs). Records of
    the same numbers (``12345`` twice; ``RL-1299`` and ``RL 1299``) still pair.

    >>> from neardup import Params
    >>> proc = Params().processor()
    >>> texts = {"a": "10000", "b": "10001", "c": "10000", "d": "2024 12 05", "e": "2024 12"}
    >>> pairs = [Pair("a", "b", 0.67, 1), Pair("a", "c", 1.0, 0), Pair("d", "e", 0.7, 1)]
    >>> kept, dropped = numbers_alone_differ(pairs, texts, proc)
    >>> [(p.id1, p.id2) for p in kept], dropped
    ([('a', 'c'), ('d', 'e')], 1)
    """
    numbers = numbers or RecordNumbers(texts, processor)

    def differ(a: str, b: str) -> bool:
        if not (numbers.alone(a) and numbers.alone(b)):
            return False
        x, y = numbers(a), numbers(b)  # one's numbers all the other's, or its groups joined
        return not (x <= y | y.joined or y <= x | x.joined)

    kept = [p for p in pairs if not differ(p.id1, p.id2)]
    return kept, len(pairs) - len(kept)


def roles_disagree(
    pairs: list[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    numbers: RecordNumbers | None = None,
) -> tuple[list[Pair], int]:
    """The pairs without those whose records hold different numbers after the same word naming
    a sibling's place (:func:`neardup.decision.identifiers.roles_differ`: ``unit 305`` and
    ``unit 306``, ``no 5`` and ``no 6``), however alike, and how many were dropped. Made
    whatever the data's numbers say (:func:`numbers_identify` reads all of them; such words
    are few) and never waived: two units of one building share all but that number, at a
    Jaccard of 0.9.

    >>> from neardup import Params
    >>> proc = Params().processor()
    >>> texts = {"a": "loft 1200 main st unit 305", "b": "loft 1200 main st unit 306",
    ...          "c": "loft 1200 main street unit 305"}
    >>> pairs = [Pair("a", "b", 0.9, 1), Pair("a", "c", 0.8, 1)]
    >>> kept, dropped = roles_disagree(pairs, texts, proc)
    >>> [(p.id1, p.id2) for p in kept], dropped
    ([('a', 'c')], 1)
    """
    numbers = numbers or RecordNumbers(texts, processor)
    kept = [p for p in pairs if not roles_differ(numbers(p.id1), numbers(p.id2))]
    return kept, len(pairs) - len(kept)
