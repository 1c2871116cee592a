"""Exact all-pairs Jaccard similarity join: the ground truth the LSH pipeline is measured against.

:func:`all_pairs` returns EVERY pair of records whose shingle sets have Jaccard similarity
``>= threshold``, exactly (no sampling, no MinHash). It is PPJoin (Xiao, Wang, Lin, Yu 2008),
i.e. AllPairs (Bayardo, Ma, Srikant 2007) plus the positional filter, in pure Python:

* tokens (shingles) are ranked by global frequency, rarest first, and every set is written as
  the sorted list of its token ranks; records are processed in increasing size;
* two sets with ``J(x, y) >= t`` share at least ``a = ceil(t/(1+t) * (|x| + |y|))`` tokens,
  which is ``>= ceil(t * max(|x|, |y|))``, so the *prefixes* of length
  ``|x| - ceil(t * |x|) + 1`` must share a token (prefix filter). A record probes the index
  with that prefix; it is indexed with the shorter prefix ``|x| - ceil(2t/(1+t) * |x|) + 1``,
  enough because every later probe is at least as large. Prefixes consist of rare tokens, so
  posting lists stay short;
* ``J(x, y) >= t`` needs ``|y| >= t * |x|`` (size filter): postings are in increasing size, so
  each list keeps a start pointer that only moves forward;
* positional filter: a candidate whose matches so far plus the tokens left after the current
  match (on the shorter side) cannot reach ``a`` is pruned;
* every remaining candidate is verified with the exact ``|x & y| / |x | y| >= threshold``, the
  same float comparison as a naive O(n^2) loop, so the output is identical to it.

The filters are made conservative by a tiny epsilon so that float rounding in ``t * n`` (for
example ``0.28 * 25 == 7.000000000000001``) can only let an extra candidate through, never drop
a true pair.

Speed (2 slow cores, 50,000 restaurant-like records with many planted near-copies): word
1-grams 2-5 s at t = 0.65-0.9; character 3-grams (about 40 per record) 7-55 s. The time grows
with the number of output pairs and as the threshold falls.

Empty sets: a record without shingles is NEVER reported, not even with another empty record
(an empty text carries no evidence that it duplicates anything; e.g. two records that are only
punctuation). :func:`jaccard` itself follows ``ShingleProcessor.jaccard`` and says 1.0 for two
empty sets (they are equal); the exclusion is a policy of :func:`all_pairs`. ``ShingleProcessor``
gives empty texts identical MinHash signatures, so an LSH pipeline must drop empty records too
if it wants to agree with this module.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping

from ..constraints import check_all
from ..errors import ArgumentError
from ..keys import id_key
from ..sign.text import jaccard

__all__ = ["all_pairs", "id_key", "jaccard"]

# Conservative slack for the float filters (see module docstring); far below 1/len(set).
_EPS = 1e-9


def _min_overlap(threshold: float, size: int) -> int:
    """Smallest overlap a set of ``size`` tokens needs with a partner at ``threshold`` (>= 1)."""
    return max(1, math.ceil(threshold * size - _EPS))


def all_pairs(
    shingle_sets: Mapping[str, Iterable[Hashable]] | Iterable[tuple[str, Iterable[Hashable]]],
    threshold: float,
) -> list[tuple[str, str, float]]:
    """All pairs ``(id_a, id_b, jaccard)`` with exact Jaccard ``>= threshold``.

    ``shingle_sets`` maps record ids to shingle sets (a dict, or a sequence of ``(id, set)``
    pairs; ids must be unique). ``threshold`` must be in ``(0, 1]`` (at 0 every pair qualifies:
    use a plain double loop for that). In each pair the smaller id comes first, numeric ids
    compared as numbers; pairs are sorted the same way. Records with empty sets are never
    reported. Exact: every candidate of the filters is verified.
    """
    sets = _checked_sets(shingle_sets, threshold)
    records = _ranked(sets)
    ids = [rid for rid, _ in records]
    fsets = [sets[rid] for rid in ids]

    # token rank -> [first live entry, record positions, record sizes, tokens after the match];
    # entries are appended in increasing record size, so the size filter only ever advances
    # "first live entry" (later probes are never smaller).
    index: dict[int, list] = {}
    ratio = threshold / (1.0 + threshold)
    hits: list[tuple[int, int, float]] = []
    for pos, (_, toks) in enumerate(records):
        n = len(toks)
        overlap = _probe(index, toks, threshold, ratio)
        _add_to_index(index, pos, toks, ratio)
        if not overlap:
            continue
        mine = fsets[pos]
        for other, seen in overlap.items():
            if seen > 0:
                theirs = fsets[other]
                inter = len(mine & theirs)
                sim = inter / (n + len(theirs) - inter)
                if sim >= threshold:
                    hits.append((pos, other, sim))
    out = []
    for p, q, sim in hits:
        a, b = ids[p], ids[q]
        out.append((a, b, sim) if id_key(a) <= id_key(b) else (b, a, sim))
    out.sort(key=lambda p: (id_key(p[0]), id_key(p[1])))
    return out


def _checked_sets(
    shingle_sets: Mapping[str, Iterable[Hashable]] | Iterable[tuple[str, Iterable[Hashable]]],
    threshold: float,
) -> dict[str, frozenset[Hashable]]:
    """The shingle sets by record id, once the threshold and the ids are checked: a
    duplicate id would otherwise silently lose one record's set."""
    check_all("all_pairs", {"threshold": threshold})
    items = list(shingle_sets.items()) if isinstance(shingle_sets, Mapping) else list(shingle_sets)
    sets: dict[str, frozenset[Hashable]] = {}
    for rid, shingles in items:
        if not isinstance(rid, str):
            raise ArgumentError(f"record ids must be strings, got {rid!r}")
        if rid in sets:
            raise ArgumentError(f"duplicate record id {rid!r}")
        sets[rid] = frozenset(shingles)
    return sets


def _ranked(sets: Mapping[str, frozenset[Hashable]]) -> list[tuple[str, list[int]]]:
    """The non-empty records as sorted token ranks, rarest token first, in increasing size:
    rare tokens keep the prefixes' posting lists short, and the size order lets the size
    filter only move forward."""
    # Global token order: rarest first (ties by repr, so the order is deterministic).
    freq = Counter(tok for s in sets.values() for tok in s)
    rank = {
        tok: i
        for i, (tok, _) in enumerate(sorted(freq.items(), key=lambda kv: (kv[1], repr(kv[0]))))
    }
    records = [(rid, sorted(rank[t] for t in s)) for rid, s in sets.items() if s]
    records.sort(key=lambda r: (len(r[1]), id_key(r[0])))
    return records


def _probe(
    index: dict[int, list], toks: list[int], threshold: float, ratio: float
) -> dict[int, int]:
    """The candidates of one record from its probe prefix: earlier record -> shared tokens
    seen, or -1 once the positional filter has ruled it out."""
    n = len(toks)
    probe_len = n - _min_overlap(threshold, n) + 1
    min_size = threshold * n - _EPS
    # Positional filter (PPJoin): a partner of size m needs an overlap of at least
    # t/(1+t) * (n + m); a candidate whose matches so far plus all the tokens left on the
    # shorter side cannot reach it is pruned (-1) for good.
    need = [max(1, math.ceil(ratio * (n + m) - _EPS)) for m in range(n + 1)]
    overlap: dict[int, int] = {}  # candidate -> shared tokens seen in the prefixes so far
    get = overlap.get
    for i in range(probe_len):
        entry = index.get(toks[i])
        if entry is None:
            continue
        first, docs, msizes, rests = entry
        end = len(docs)
        while first < end and msizes[first] < min_size:
            first += 1
        entry[0] = first
        rest_x = n - i - 1
        for other, m, rest in zip(docs[first:], msizes[first:], rests[first:], strict=True):
            seen = get(other, 0)
            if seen < 0:
                continue
            if rest > rest_x:
                rest = rest_x
            overlap[other] = seen + 1 if seen + 1 + rest >= need[m] else -1
    return overlap


def _add_to_index(index: dict[int, list], pos: int, toks: list[int], ratio: float) -> None:
    """Index only the shorter prefix that later (larger) records need to probe: with
    |y| >= |x| the overlap is at least 2t/(1+t) * |x| (Bayardo et al., "AllPairs")."""
    n = len(toks)
    index_len = n - max(1, math.ceil(2 * ratio * n - _EPS)) + 1
    for i in range(index_len):
        entry = index.get(toks[i])
        if entry is None:
            index[toks[i]] = [0, [pos], [n], [n - i - 1]]
        else:
            entry[1].append(pos)
            entry[2].append(n)
            entry[3].append(n - i - 1)
