"""Candidate pairs from the band buckets, at a cost that common features cannot blow up.

A bucket is one band key held by two or more records. Most are small: a few records that share
three MinHash values because they share most of their shingles. But some keys are common
features, a frequent character 3-gram or a city name that short records share by the thousand;
pairing all the members of such a bucket costs the square of its size and tells little,
since its members are mostly strangers. Buckets grow with the collection, so without a bound
the candidates of a low floor grow with the square of the records (measured before this bound:
RLdata 10k made 897k candidates, 90 per record, two thirds of them from the 356 buckets of
more than 30 records).

The rule, per pair: two records are a candidate if they share a bucket of at most
``max_bucket`` records, or two or more buckets of any size. Sharing two bands is the
evidence a large bucket lacks: a pair at Jaccard 0.5 shares 5 of 40 three-row bands on
average (two or more with probability 0.96), a pair at 0.1 shares one with probability 0.04
and two with 0.0008. Records in small buckets keep everything they had; only the pairs whose
one shared band is a common one are dropped, and those are what the floor would have let in
by chance.

One exception: a large group of records with the same key in every band (as a rule, one text
repeated) shares every band, so the rule would pair them all, a number of pairs that grows with
the square of the group. Past a bound (:func:`star_bound`: more than
``DEFAULTS.repeated_group``, or smaller once such pairs would outnumber the records many times)
each but the group's first (in id order) is paired with that first record only and takes no
other part: the group stays one cluster through it.

>>> found = all_candidates([[["a", "b"], ["c", "d", "e"]], [["a", "c"]]], max_bucket=2)
>>> sorted(found.pairs), found.large
([('a', 'b'), ('a', 'c')], 1)

(``c, d, e`` share one bucket of three records, more than 2; ``a`` and ``c`` share a bucket of
two in the second band.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..constraints import declared
from ..defaults import DEFAULTS
from ..sign import kernel
from ..sign.text import sort_ids

# Tuned: the values and the reasons for them are in neardup.defaults.
DEFAULT_MAX_BUCKET = DEFAULTS.max_bucket


@dataclass
class Candidates:
    """The candidate pairs and how they were found: ``buckets`` shared keys, ``large`` of them
    above ``max_bucket``, whose members paired only where they share another band.

    The pairs are kept as codes into ``ids`` (sorted by :func:`~neardup.keys.id_key`):
    ``first[i] < second[i]``, so that millions of them cost two int64 arrays, not tuples of
    strings; :attr:`pairs` spells them out (smaller id first).
    """

    buckets: int = 0
    large: int = 0
    max_bucket: int | None = None
    #: Candidates dropped by the per-record cap (:func:`cap_per_record`), and the cap.
    capped: int = 0
    cap: int | None = None
    #: Records of a group of more than ``repeated`` that shares every band key, paired with
    #: their group's first record only (:func:`_identical`, :func:`star_bound`).
    identical: int = 0
    repeated: int = DEFAULTS.repeated_group
    #: The texts of :attr:`ids` where they were read to find the candidates (a
    #: :class:`~neardup.candidates.text_table.TextTable`; None: read them from the index).
    texts: Any = None
    #: The shingle hashes ``(values, offsets)`` of every code of :attr:`ids`, where they were
    #: made while the texts were at hand (:func:`neardup.candidates.verify.held_hashes`); else None.
    hashes: Any = None
    ids: list[str] = field(default_factory=list)
    first: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    second: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.first.size)

    @property
    def pairs(self) -> set[tuple[str, str]]:
        ids, first, second = self.ids, self.first.tolist(), self.second.tolist()
        return {(ids[a], ids[b]) for a, b in zip(first, second, strict=True)}

    def set_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Take pairs of ids (either order) as the candidates."""
        pairs = list(pairs)
        self.ids = sort_ids({i for p in pairs for i in p})
        code = {i: k for k, i in enumerate(self.ids)}
        a = np.fromiter((code[x] for x, _ in pairs), dtype=np.int64, count=len(pairs))
        b = np.fromiter((code[y] for _, y in pairs), dtype=np.int64, count=len(pairs))
        self.set_keys(_unique([(np.minimum(a, b) << 32) | np.maximum(a, b)]))

    def set_keys(self, keys: NDArray[np.int64]) -> None:
        """Take ``lo << 32 | hi`` codes into :attr:`ids` as the candidates."""
        self.first, self.second = keys >> 32, keys & 0xFFFFFFFF

    def only(self, keep: NDArray[np.bool_]) -> None:
        """Keep the pairs where ``keep`` is true."""
        self.first, self.second = self.first[keep], self.second[keep]


def check_max_bucket(max_bucket: int | None) -> int | None:
    """``None`` (no bound) or an integer >= 2 (as :mod:`neardup.constraints` declares it)."""
    return declared("ReportOptions")["max_bucket"].check(max_bucket)


def _runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal values of a sorted array starts, and its length."""
    if not ordered.size:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return starts, np.diff(np.r_[starts, ordered.size])


def _unique(keys: list[np.ndarray]) -> np.ndarray:
    """The sorted distinct values of the arrays (by sorting: numpy's hash-based ``unique`` is
    many times slower on int64 keys)."""
    a = np.concatenate(keys) if len(keys) > 1 else keys[0].copy()
    kernel.sort_int64(a)
    return a[_runs(a)[0]]


#: Bits of a packed candidate that count its shared bands (:func:`_unique_counted`).
COUNT_BITS = 4
COUNT_MAX = (1 << COUNT_BITS) - 1


def _unique_counted(packed: list[np.ndarray]) -> np.ndarray:
    """The distinct candidates of ``key << COUNT_BITS | bands`` arrays, each with its bands
    summed (at most :data:`COUNT_MAX`): the evidence :func:`cap_per_record` ranks by.

    Packed into the key so that merging is one ``np.sort`` of int64, as without counts; an
    argsort with a separate count array took twice the memory and time. A key ``lo << 32 |
    hi`` has four spare bits while the codes stay under 2**27 (134M records).
    """
    a = np.concatenate(packed) if len(packed) > 1 else packed[0].copy()
    packed.clear()  # the caller's list: its arrays are freed as soon as they are merged
    kernel.sort_int64(a)
    if not a.size:
        return a
    c = kernel.get()
    if c is not None:  # one pass in C; numpy's six passes over 9M keys took 0.4 s
        return a[: c.fold_counted(a, COUNT_BITS)].copy()
    keys = a >> COUNT_BITS
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    a &= COUNT_MAX
    summed = np.add.reduceat(a, starts)
    del a
    keys = keys[starts]
    keys <<= COUNT_BITS
    keys |= np.minimum(summed, COUNT_MAX)
    return keys


#: A record with more candidates than this keeps its this-many best (by shared bands) and
#: whatever its partners keep of it (:func:`cap_per_record`); the value is tuned in
#: :mod:`neardup.defaults` (kept here for ``index.py``'s signatures).
DEFAULT_CAP = DEFAULTS.candidate_cap


def protected_bands(bands: int, rows: int) -> int:
    """The shared bands from which a pair is never capped: what a pair at
    ``DEFAULTS.cap_protect_jaccard`` (0.6) shares on average (``bands * J ** rows``), at
    least 2.

    >>> protected_bands(40, 3), protected_bands(32, 4), protected_bands(21, 6)
    (9, 5, 2)
    """
    return max(2, int(np.ceil(bands * DEFAULTS.cap_protect_jaccard**rows)))


def _uniform(keys: NDArray[np.int64]) -> NDArray[np.float32]:
    """A number in [0, 1) per key, the same on every run (a multiplicative hash): the
    tie-break among pairs of equal evidence (float32: 4 bytes a pair)."""
    mixed = keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= mixed >> np.uint64(29)
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    return ((mixed >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24)).astype(np.float32)


def cap_per_record(
    keys: NDArray[np.int64], shared: NDArray[np.uint16], n: int, cap: int, protect: int
) -> NDArray[np.bool_]:
    """Which candidates to keep so that each record's cost stays bounded.

    Why: on adversarial vocabularies (100k records of short tokens ``w0``..``w49999`` that
    share most character 3-grams) banding at a low floor gave 66M candidates, 660 a record,
    and the report took minutes. A record whose candidates number more than ``cap`` keeps the
    ``cap`` that share the most bands with it (ties broken by a fixed hash of the pair), plus
    every pair sharing ``protect`` bands or more; a pair is kept if either record keeps it.
    True near copies share many bands, strangers one or two, so the near copies survive
    (the recall this costs is measured by ``benchmarks/defaults.py`` and printed by the
    report as the candidates capped).

    Six records all paired, one pair sharing 5 bands, the others 1; a cap of 2:

    >>> from itertools import combinations
    >>> pairs = list(combinations(range(6), 2))
    >>> k = np.array([a << 32 | b for a, b in pairs])
    >>> sh = np.array([5 if p == (0, 1) else 1 for p in pairs], np.uint16)
    >>> keep = cap_per_record(k, sh, 6, cap=2, protect=9)
    >>> bool(keep[0]), int(keep.sum()) < len(pairs)
    (True, True)
    >>> ends = k[keep] >> 32, k[keep] & 0xFFFFFFFF
    >>> (np.bincount(np.concatenate(ends), minlength=6) >= 2).all()
    np.True_
    """
    first = (keys >> 32).astype(np.int32)  # codes < 2**31: half the memory of int64
    second = (keys & 0xFFFFFFFF).astype(np.int32)
    keep = np.ones(keys.size, dtype=bool)
    degree = np.bincount(first, minlength=n) + np.bincount(second, minlength=n)
    heavy = degree > cap
    weak = np.flatnonzero((heavy[first] | heavy[second]) & (shared < protect))
    if not weak.size:
        return keep
    fa, fb, level = first[weak], second[weak], shared[weak]
    del first, second
    kept = degree - np.bincount(fa, minlength=n) - np.bincount(fb, minlength=n)
    h = _uniform(keys[weak])
    chosen = np.zeros(weak.size, dtype=bool)
    for lvl in np.unique(level)[::-1].tolist():  # most shared bands first
        at = np.flatnonzero(level == lvl)
        a, b = fa[at], fb[at]
        ties = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
        room = np.maximum(cap - kept, 0)
        share = np.minimum(room / np.maximum(ties, 1), 1.0)
        took = (h[at] < share[a]) | (h[at] < share[b])
        # The draws give a record about its room; one that drew less than it is owed at this
        # level takes its next pairs by the hash, so each keeps min(cap, candidates) and
        # never drops a pair sharing more bands than one it keeps.
        got = np.bincount(a[took], minlength=n) + np.bincount(b[took], minlength=n)
        owed = np.minimum(room, ties) - got
        took |= _owed(at, a, b, took, owed, h)
        chosen[at] = took
        kept += np.bincount(a[took], minlength=n) + np.bincount(b[took], minlength=n)
    keep[weak] = chosen
    return keep


def _owed(
    at: NDArray[np.intp],
    a: NDArray[np.int32],
    b: NDArray[np.int32],
    took: NDArray[np.bool_],
    owed: NDArray[np.int64],
    h: NDArray[np.float32],
) -> NDArray[np.bool_]:
    """The pairs of one level (``at``; records ``a``, ``b``) not yet taken that the records
    still ``owed`` some take, each its next ones by the hash ``h``."""
    out = np.zeros(at.size, dtype=bool)
    left = np.flatnonzero(~took & ((owed[a] > 0) | (owed[b] > 0)))
    if not left.size:
        return out
    ends = np.concatenate([a[left], b[left]])
    pair = np.concatenate([left, left])
    mine = owed[ends] > 0
    ends, pair = ends[mine], pair[mine]
    order = np.lexsort((h[at[pair]], ends))
    ends, pair = ends[order], pair[order]
    starts = np.flatnonzero(np.r_[True, ends[1:] != ends[:-1]])
    rank = np.arange(ends.size) - np.repeat(starts, np.diff(np.r_[starts, ends.size]))
    out[pair[rank < owed[ends]]] = True
    return out


def _group_pairs(codes: np.ndarray, labels: np.ndarray, ordered: bool = False) -> np.ndarray:
    """Every pair of codes with the same label, as ``low << 32 | high`` (int64), unordered
    (``ordered``: the labels are sorted already)."""
    if codes.size < 2:
        return np.empty(0, dtype=np.int64)
    if not ordered:
        order = np.argsort(labels, kind="stable")
        codes, labels = codes[order], labels[order]
    starts, lengths = _runs(labels)
    out = []
    for length in np.unique(lengths[lengths >= 2]):
        first = starts[lengths == length]
        members = codes[first[:, None] + np.arange(length)]
        i, j = np.triu_indices(int(length), 1)
        a, b = members[:, i].ravel(), members[:, j].ravel()
        lo, hi = np.minimum(a, b).astype(np.int64), np.maximum(a, b).astype(np.int64)
        out.append((lo << 32) | hi)
    return np.concatenate(out) if out else np.empty(0, dtype=np.int64)


#: Pairs filtered at a time (memory: 8 bytes and a few flags per pair).
CHUNK = 1 << 21


#: Memberships regrouped at once (several later bands in one sort; 64 MB of int64 a step),
#: and at most this many kept from the buckets' cost for their pairs (else regrouped again).
REGROUP_STEP = 1 << 22
REGROUP_KEEP = 1 << 23


def _regroup(
    codes: np.ndarray, which: np.ndarray, theres: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, int]:
    """Members of large buckets (``which`` bucket each) that have a bucket in one of other
    bands (``theres[j]``: record -> bucket), labelled by both buckets and the band, sorted by
    label (then code): ``label // width`` is ``which``. One sort for several bands: 780
    regroupings of 100k short records' 40 bands were half of their cost in numpy calls."""
    labs = [there[codes].astype(np.int64) for there in theres]
    step = max(int(lab.max(initial=0)) for lab in labs) + 1
    width = step * len(theres)
    lab = np.concatenate([lab + j * step for j, lab in enumerate(labs)]) if labs else codes[:0]
    keep = np.concatenate([lab_j >= 0 for lab_j in labs]) if labs else codes[:0] > 0
    del labs
    codes = np.tile(codes, len(theres))[keep]
    labels = np.tile(which, len(theres))[keep] * width + lab[keep]
    del lab, keep
    bits = max(1, int(codes.max(initial=0)).bit_length())
    if labels.size and int(labels.max()) < 1 << (62 - bits):
        # One radix sort of label and code packed in an int64, not an argsort and two gathers.
        packed = labels << bits
        packed |= codes
        kernel.sort_int64(packed)
        return packed & ((1 << bits) - 1), packed >> bits, width
    order = np.argsort(labels, kind="stable")
    return codes[order], labels[order], width


def _large_bucket_pairs(
    large: list[np.ndarray], band: int, bucket_of: list[np.ndarray]
) -> list[np.ndarray]:
    """The pairs of the large buckets of ``band`` that share another band too.

    Two ways, chosen per bucket by what each costs. Most large buckets are strangers who share
    a common feature: regrouped by each later band ``j``, two members in one bucket of ``j``
    too are a pair (earlier bands are not needed: a pair whose shared bands are all large is
    found from the first of them, and one that shares a small bucket is found there). A
    cluster of near-copies shares most bands, and regrouping would give its pairs once per
    band; its pairs are enumerated once and kept if any other band matches. A bucket of more
    than ``DEFAULTS.repeated_group`` takes neither way: :func:`_windowed_pairs`.
    """
    giant = [p for a in large if a.size > DEFAULTS.repeated_group
             for p in _windowed_pairs(a, band, bucket_of)]  # fmt: skip
    large = [a for a in large if a.size <= DEFAULTS.repeated_group]
    if not large:
        return giant
    sizes = np.array([a.size for a in large], dtype=np.int64)
    codes = np.concatenate(large)
    later = bucket_of[band + 1 :]
    others = [w for b, w in enumerate(bucket_of) if b != band]
    c = kernel.get()
    if c is not None:  # in C, bucket by bucket: 0.48 -> 0.1 s of 100k short records' report
        pairs, flags = c.large_pairs(codes.astype(np.int32, copy=False), sizes, later,
                                     DEFAULTS.coherent)  # fmt: skip
        out = [np.frombuffer(pairs, dtype=np.int64)]
        for k in np.flatnonzero(np.frombuffer(flags, dtype=np.uint8)):
            out.extend(_filtered_pairs(large[k], others))
        return out + giant
    which = np.repeat(np.arange(len(large), dtype=np.int64), sizes)
    per = max(1, REGROUP_STEP // max(1, codes.size))
    steps = [later[k : k + per] for k in range(0, len(later), per)]
    kept_all = codes.size * len(later) <= REGROUP_KEEP
    cost = np.zeros(len(large))
    regrouped = []  # kept for the pairs where they fit (regrouping twice was 0.45 s)
    for theres in steps:
        kept, labels, width = _regroup(codes, which, theres)
        starts, counts = _runs(labels)
        np.add.at(cost, labels[starts] // width, counts * (counts - 1) / 2)
        if kept_all:
            regrouped.append((kept, labels, width))
    coherent = cost > DEFAULTS.coherent * sizes * (sizes - 1) / 2
    out: list[np.ndarray] = []
    if not coherent.all():
        if not kept_all:  # regrouped again, only the buckets that are not coherent
            mask = ~coherent[which]
            codes_r, which_r = codes[mask], which[mask]
            regrouped = (_regroup(codes_r, which_r, theres) for theres in steps)  # type: ignore[assignment]
        for kept, labels, width in regrouped:
            mask = ~coherent[labels // width]
            out.append(_group_pairs(kept[mask], labels[mask], ordered=True))
    del regrouped
    for k in np.flatnonzero(coherent):
        out.extend(_filtered_pairs(large[k], others))
    return out + giant


#: Neighbours each member of a bucket of more than ``DEFAULTS.repeated_group`` is paired with
#: (:func:`_windowed_pairs`).
WINDOW = 3
#: The next bands whose buckets order such a bucket's members.
ORDER_BANDS = 3


def _windowed_pairs(
    members: np.ndarray, band: int, bucket_of: list[np.ndarray]
) -> list[np.ndarray]:
    """A bucket of more than ``DEFAULTS.repeated_group`` members sorted by their buckets in the
    next bands, each paired with its next :data:`WINDOW` members where they share another band
    too.

    Why: its pairs nearly all share many bands (records that differ in one number, "model 17"
    and "model 18"), so the cap, which keeps such pairs, cannot bound them, and 5,000 such
    records made 12.5M candidates. Sorted so, records alike in those bands are neighbours (a
    sorted-neighbourhood join, one order a band of the bucket); a bucket is ordered by the
    smallest code of each of its members' buckets, the same on every engine
    (:data:`neardup.plan.steps.WINDOWED_PAIRS`).
    """
    n_bands = len(bucket_of)
    nxt = [(band + d) % n_bands for d in range(1, min(ORDER_BANDS, n_bands - 1) + 1)]
    keys = [_bucket_heads(bucket_of[j])[members] for j in nxt]
    order = np.lexsort([members, *reversed(keys)])
    ordered = members[order]
    others = [w for b, w in enumerate(bucket_of) if b != band]
    return [_sharing(ordered[:-w], ordered[w:], others) for w in range(1, WINDOW + 1)]


def _bucket_heads(where: np.ndarray) -> np.ndarray:
    """Each record's bucket in a band named by its smallest member's code (-1: alone)."""
    shared = np.flatnonzero(where >= 0)
    heads = np.full(int(where.max(initial=-1)) + 1, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(heads, where[shared], shared)
    out = np.full(where.size, -1, dtype=np.int64)
    out[shared] = heads[where[shared]]
    return out


def _filtered_pairs(members: np.ndarray, others: list[np.ndarray]) -> list[np.ndarray]:
    """Every pair of ``members`` that shares a bucket of one of the ``others`` bands."""
    i, j = np.triu_indices(members.size, 1)
    return [
        _sharing(members[i[start : start + CHUNK]], members[j[start : start + CHUNK]], others)
        for start in range(0, i.size, CHUNK)
    ]


def _sharing(a: np.ndarray, b: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    """The pairs ``(a[i], b[i])`` that share a bucket of one of the ``others`` bands, as keys
    ``low << 32 | high``."""
    keep = np.zeros(a.size, dtype=bool)
    for where in others:
        wa = where[a]
        keep |= (wa >= 0) & (wa == where[b])
        if keep.all():  # a cluster of copies: its pairs share the first band looked at
            break
    a, b = a[keep], b[keep]
    lo, hi = np.minimum(a, b).astype(np.int64), np.maximum(a, b).astype(np.int64)
    return (lo << 32) | hi


def all_candidates(
    bands: Iterable[Iterable[list[str]]],
    max_bucket: int | None = DEFAULT_MAX_BUCKET,
    cap: int | None = None,
    protect: int = 2,
) -> Candidates:
    """The candidates of every band's buckets (each band an iterable of member-id lists).

    Small buckets give all their pairs; large ones, the pairs that share another band
    (:func:`_large_bucket_pairs`). Memory is one code per membership (int32), and pairs are
    int64 keys until the end, not objects. With ``cap``, a record keeps at most that many
    candidates sharing fewer than ``protect`` bands (:func:`cap_per_record`).
    """
    max_bucket = check_max_bucket(max_bucket)
    # Each band's members become int32 codes as the band arrives (codes in first-seen order,
    # each id string held once): memory is 4 bytes a membership, not a string each, so that
    # tens of millions of memberships fit (10M records). Codes are renumbered in id order at
    # the end, so that a candidate's first record is its smaller id.
    seen: dict[str, int] = {}
    flats: list[np.ndarray] = []
    band_sizes: list[np.ndarray] = []
    for band in bands:
        members = list(band)
        sizes = np.fromiter(map(len, members), dtype=np.int32, count=len(members))
        flats.append(_codes(list(chain.from_iterable(members)), seen))
        band_sizes.append(sizes)
    ids = sort_ids(seen)
    rank = np.empty(len(ids), dtype=np.int32)  # first-seen code -> position in id order
    rank[np.fromiter((seen[i] for i in ids), dtype=np.int64, count=len(ids))] = np.arange(
        len(ids), dtype=np.int32
    )
    del seen
    flats = [rank[f] if f.size else f for f in flats]
    return coded_candidates(ids, flats, band_sizes, max_bucket, cap, protect)


def signature_candidates(
    ids: list[str],
    signatures: NDArray[np.uint32],
    bands: int,
    rows: int,
    max_bucket: int | None = DEFAULT_MAX_BUCKET,
    cap: int | None = None,
    protect: int = 2,
    buckets: list[tuple[NDArray[np.int32], NDArray[np.int32]]] | None = None,
) -> Candidates:
    """The candidates of records given by their signatures (``ids`` in id order, one row
    each), by the rule of :func:`all_candidates`: the same buckets, grouped here in numpy
    instead of read from the index (``buckets``: :func:`band_buckets` of them, where they were
    made already). Two records share a band's bucket when the band's
    ``rows`` values are equal (found by sorting a 64-bit fold of them, as the index's band
    keys are a 64-bit hash of them).

    Why: a Solr index answers the buckets of 40 bands with a facet and member queries each,
    most of a report's time on 100k records; signing the records again in the C kernel takes
    a second, and the report reads their texts anyway.
    """
    max_bucket = check_max_bucket(max_bucket)
    n = len(ids)
    if buckets is None:
        buckets = band_buckets(signatures, bands, rows)
    flats = [members for members, _ in buckets]
    band_sizes = [sizes for _, sizes in buckets]
    held = np.zeros(n, dtype=bool)
    for flat in flats:
        held[flat] = True
    # Only the records in some shared bucket are candidates' records (as read from an index).
    rank = np.cumsum(held, dtype=np.int64).astype(np.int32) - 1
    kept = [ids[k] for k in np.flatnonzero(held).tolist()]
    flats = [rank[f] for f in flats]
    return coded_candidates(kept, flats, band_sizes, max_bucket, cap, protect)


def band_buckets(
    signatures: NDArray[np.uint32], bands: int, rows: int
) -> list[tuple[NDArray[np.int32], NDArray[np.int32]]]:
    """Each band's shared buckets: the members (row numbers) one bucket after the other, and
    each bucket's size (two records or more). Two records share a band's bucket when the
    band's ``rows`` values are equal (found by sorting a 64-bit fold of them, as the index's
    band keys are a 64-bit hash of them)."""
    n = signatures.shape[0]
    c = kernel.get()
    if c is not None:  # in C: 40 bands of 100k records, 0.4 -> 0.1 s
        sigs = np.ascontiguousarray(signatures, dtype=np.uint32)
        return [(np.frombuffer(m, dtype=np.int32), np.frombuffer(z, dtype=np.int32))
                for m, z in c.band_buckets(sigs, n, sigs.shape[1], bands, rows)]  # fmt: skip
    out = []
    for b in range(bands):
        block = signatures[:, b * rows : (b + 1) * rows].astype(np.uint64)
        h = np.full(n, 0xCBF29CE484222325, dtype=np.uint64)
        for j in range(rows):
            h ^= block[:, j]
            h *= np.uint64(0x100000001B3)
            h ^= h >> np.uint64(29)
        order = np.argsort(h, kind="stable")
        starts, lengths = _runs(h[order])
        shared = lengths > 1
        member = np.repeat(shared, lengths)
        out.append((order[member].astype(np.int32), lengths[shared].astype(np.int32)))
    return out


def coded_candidates(
    ids: list[str],
    flats: list[np.ndarray],
    band_sizes: list[np.ndarray],
    max_bucket: int | None,
    cap: int | None,
    protect: int,
) -> Candidates:
    """The candidates of every band's buckets given as codes into ``ids`` (in id order):
    ``flats[b]`` the members of band ``b``'s shared buckets one after the other,
    ``band_sizes[b]`` each bucket's size."""
    found = Candidates(max_bucket=max_bucket)
    n = len(ids)
    # bucket_of[b][code] = the record's bucket number in band b, -1 if alone there. A band's
    # members stay one flat array with a bucket label each: one numpy array per bucket would
    # cost about 100 bytes a bucket, a gigabyte at ten million records.
    # Only large buckets are regrouped by the other bands: without any, no bucket_of (4 bytes
    # a record a band, 150 MB at 10M short records).
    regroup = max_bucket is not None and any(bool((z > max_bucket).any()) for z in band_sizes)
    bucket_of: list[np.ndarray] = []
    for flat_b, sizes_b in zip(flats, band_sizes, strict=True):
        found.buckets += len(sizes_b)
        if regroup:
            where = np.full(n, -1, dtype=np.int32)
            where[flat_b] = np.repeat(np.arange(len(sizes_b), dtype=np.int32), sizes_b)
            bucket_of.append(where)
    keys: list[np.ndarray] = []
    # With a cap, each pair carries the bands it was found in (packed: _unique_counted).
    counted = cap is not None and n < 1 << (31 - COUNT_BITS)
    if regroup:
        found.identical, star, found.repeated = _identical(
            bucket_of, flats, band_sizes, n, max_bucket  # type: ignore[arg-type]
        )
        if star.size:  # shares every band: never capped
            keys.append((star << COUNT_BITS) | COUNT_MAX if counted else star)
    for b, (flat_b, sizes_b) in enumerate(zip(flats, band_sizes, strict=True)):
        done = len(keys)
        big = sizes_b > max_bucket if max_bucket is not None else np.zeros(len(sizes_b), bool)
        in_big = np.repeat(big, sizes_b)
        labels = np.repeat(np.arange(len(sizes_b), dtype=np.int64), sizes_b)
        if (~big).any():
            keys.append(_group_pairs(flat_b[~in_big], labels[~in_big]))
        if big.any():
            found.large += int(big.sum())
            ends = np.cumsum(sizes_b)
            large = [flat_b[e - s : e] for s, e in zip(sizes_b[big], ends[big], strict=True)]
            keys.extend(_large_bucket_pairs(large, b, bucket_of))
        flats[b] = np.empty(0, dtype=np.int32)  # this band's members are done
        if counted:
            keys[done:] = [(k << COUNT_BITS) | 1 for k in keys[done:]]
        if len(keys) > 1 and sum(k.size for k in keys[1:]) > keys[0].size + 1_000_000:
            # bounded memory: duplicates do not pile up
            keys = [_unique_counted(keys) if counted else _unique(keys)]
    found.ids = ids
    if keys and not counted:
        found.set_keys(_unique(keys))
    elif keys:
        merged = _unique_counted(keys)  # empties `keys`
        shared = (merged & COUNT_MAX).astype(np.uint16)
        merged >>= COUNT_BITS
        keep = cap_per_record(merged, shared, n, cap, min(protect, COUNT_MAX))  # type: ignore[arg-type]
        found.cap, found.capped = cap, int(keep.size - keep.sum())
        found.set_keys(merged[keep] if found.capped else merged)
    return found


def star_bound(sizes: NDArray[np.int64], n: int, max_bucket: int) -> int:
    """The largest size of a group of records with the same band keys that keeps all its
    pairs; larger groups are starred (:func:`_identical`). ``sizes``: the groups' sizes,
    ``n``: the records in a shared bucket.

    Groups keep their pairs, smallest first, while those pairs fit in
    ``DEFAULTS.identical_pairs`` a record (``n`` counted as at least
    ``DEFAULTS.identical_records``), and never past ``DEFAULTS.repeated_group``. Groups of at
    most ``max_bucket`` are never starred: their buckets are small, their pairs at most
    ``max_bucket / 2`` a record. One definition for every engine, so that each stars the same
    groups.

    >>> star_bound(np.array([263, 106, 30]), 2379, 20)
    1000
    >>> star_bound(np.array([1000] * 20), 20000, 20)
    20
    """
    budget = DEFAULTS.identical_pairs * max(n, DEFAULTS.identical_records)
    s = np.sort(np.asarray(sizes, dtype=np.int64))
    s = s[s > max_bucket]
    if not s.size or int((s * (s - 1) // 2).sum()) <= budget:
        return DEFAULTS.repeated_group
    total = np.cumsum(s * (s - 1) // 2)
    last = np.append(s[1:] != s[:-1], True)  # a size's groups all keep their pairs or none
    fits = last & (total <= budget)
    return int(min(s[fits].max() if fits.any() else max_bucket, DEFAULTS.repeated_group))


def _identical(
    bucket_of: list[np.ndarray],
    flats: list[np.ndarray],
    band_sizes: list[np.ndarray],
    n: int,
    max_bucket: int,
) -> tuple[int, NDArray[np.int64], int]:
    """Groups of more than :func:`star_bound` records that share a bucket in every band (the
    same band keys: as a rule the same text): each record but the group's first leaves every
    bucket, and is paired with that first record only. Returns how many left, their pairs
    (``first << 32 | record``) and the bound; ``flats``, ``band_sizes`` and ``bucket_of`` are
    updated.

    Why: every pair of such a group shares every band, so neither the bound on buckets nor
    the cap cuts them, and their number is quadratic: a file that repeats one text 100,000
    times ran out of memory. The group still forms one cluster through its first record, and
    the pairs of its records with others are that record's.
    """
    none = np.empty(0, dtype=np.int64)
    everywhere = np.ones(n, dtype=bool)
    mixed = np.zeros(n, dtype=np.uint64)
    for where in bucket_of:
        everywhere &= where >= 0
        mixed ^= where.astype(np.uint64)
        mixed *= np.uint64(0x100000001B3)
    codes = np.flatnonzero(everywhere)
    if codes.size <= max_bucket:
        return 0, none, DEFAULTS.repeated_group
    codes = codes[np.argsort(mixed[codes], kind="stable")]  # ascending codes within a group
    starts, lengths = _runs(mixed[codes])
    bound = star_bound(lengths, n, max_bucket)
    big = lengths > bound
    if not big.any():
        return 0, none, bound
    at = np.repeat(starts[big], lengths[big])
    offset = np.arange(at.size) - np.repeat(np.cumsum(lengths[big]) - lengths[big], lengths[big])
    members, first = codes[at + offset], codes[at]
    same = members != first
    for where in bucket_of:  # the hash's word checked: the same bucket in every band
        same &= where[members] == where[first]
    gone, first = members[same], first[same]
    if not gone.size:
        return 0, none, bound
    removed = np.zeros(n, dtype=bool)
    removed[gone] = True
    for b, (flat_b, sizes_b) in enumerate(zip(flats, band_sizes, strict=True)):
        labels = np.repeat(np.arange(len(sizes_b)), sizes_b)
        keep = ~removed[flat_b]
        sizes = np.bincount(labels[keep], minlength=len(sizes_b))
        shared = sizes >= 2
        keep &= shared[labels]
        flats[b], band_sizes[b] = flat_b[keep], sizes[shared]
        where = np.full(n, -1, dtype=np.int32)
        where[flats[b]] = np.repeat(np.arange(int(shared.sum()), dtype=np.int32), band_sizes[b])
        bucket_of[b] = where
    return int(gone.size), (first.astype(np.int64) << 32) | gone.astype(np.int64), bound


def _codes(ids: list[str], seen: dict[str, int]) -> NDArray[np.int32]:
    """The code of each id, new ids numbered in first-seen order (added to ``seen``).

    Looked up in bulk (a list comprehension of ``dict.get``, then the new ids once each): a
    generator of ``setdefault`` calls cost 2 us a membership, 8 s of the candidates of 100k
    short records (4M memberships).
    """
    get = seen.get
    codes = [get(i, -1) for i in ids]
    if -1 in codes:
        for i in dict.fromkeys(i for i, c in zip(ids, codes, strict=True) if c < 0):
            seen[i] = len(seen)
        codes = [get(i, -1) for i in ids]
    return np.array(codes, dtype=np.int32)


def fresh_candidates(
    record_keys: Mapping[str, Iterable[str]],
    counts: Mapping[str, int],
    members: Mapping[str, list[str]],
    holders: Mapping[str, Iterable[str]],
    max_bucket: int | None = DEFAULT_MAX_BUCKET,
) -> Candidates:
    """The candidates that involve the records of ``record_keys`` (id -> its band keys), by
    the same rule as :func:`all_candidates`, without listing the members of large buckets.

    ``counts``: how many records hold each of their keys; ``members``: the ids that hold each
    small key (at most ``max_bucket`` records); ``holders``: id -> keys of every record that
    holds two or more of the large keys of one of them (see :func:`large_key_groups`). A
    bucket of 50,000 records costs its count, not its members.
    """
    max_bucket = check_max_bucket(max_bucket)
    found = Candidates(max_bucket=max_bucket)
    shared = {k for ks in record_keys.values() for k in ks if counts.get(k, 0) > 1}
    found.buckets = len(shared)
    found.large = sum(1 for k in shared if _large(counts[k], max_bucket))
    by_key: dict[str, list[str]] = {}
    for b, keys in holders.items():
        for k in keys:
            by_key.setdefault(k, []).append(b)
    pairs: list[tuple[str, str]] = []
    for a, own in record_keys.items():
        partners: set[str] = set()
        twice: dict[str, int] = {}
        for key in own:
            if key not in shared:
                continue
            if not _large(counts[key], max_bucket):
                partners.update(members.get(key, ()))
                continue
            for b in by_key.get(key, ()):
                twice[b] = twice.get(b, 0) + 1
        partners.update(b for b, n in twice.items() if n >= 2)
        partners.discard(a)
        pairs.extend((a, b) for b in partners)
    found.set_pairs(pairs)
    return found


def _large(count: int, max_bucket: int | None) -> bool:
    return max_bucket is not None and count > max_bucket


def large_key_groups(
    record_keys: Mapping[str, Iterable[str]], counts: Mapping[str, int], max_bucket: int | None
) -> tuple[list[str], list[list[str]]]:
    """The small shared keys (their members are needed), and per record its large keys when it
    has two or more (the records holding two of them are needed)."""
    small = sorted(
        {k for ks in record_keys.values() for k in ks if 1 < counts.get(k, 0)}
        - {k for k, c in counts.items() if _large(c, max_bucket)}
    )
    groups = []
    for keys in record_keys.values():
        group = sorted(k for k in keys if _large(counts.get(k, 0), max_bucket))
        if len(group) >= 2:
            groups.append(group)
    return small, groups
