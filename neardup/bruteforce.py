"""Exact all-pairs Jaccard similarity join: the ground truth the LSH pipeline is measured against.

:func:`all_pairs` returns EVERY pair of records whose shingle sets have Jaccard similarity
``>= threshold``, exactly (no sampling, no MinHash). It is the AllPairs algorithm (Bayardo,
Ma, Srikant 2007) with the prefix and size filters that PPJoin (Xiao et al. 2008) also uses:

* tokens (shingles) are ranked by global frequency, rarest first, and every set is written as
  the sorted list of its token ranks;
* two sets with ``J(x, y) >= t`` share at least ``a = ceil(t * max(|x|, |y|))`` tokens (because
  ``|x & y| >= t * |x | y| >= t * max(|x|, |y|)``), so their *prefixes* of length
  ``|x| - ceil(t * |x|) + 1`` must share a token (prefix filter). Only prefixes are indexed and
  probed, and prefixes consist of rare tokens, so the candidate lists stay short;
* ``J(x, y) >= t`` also needs ``t * |x| <= |y| <= |x| / t`` (size filter). Records are processed
  in increasing size, so only the lower bound has to be checked against the index;
* every candidate is verified with the exact ``len(x & y) / len(x | y) >= threshold``, the same
  float comparison as the naive O(n^2) loop, so the output is identical to it.

The filters are made conservative by a tiny epsilon so that float rounding in ``t * n`` (for
example ``0.7 * 10 == 7.000000000000001``) can only let an extra candidate through, never drop a
true pair.

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

__all__ = ["all_pairs", "id_key", "jaccard"]

# Conservative slack for the float filters (see module docstring); far below 1/len(set).
_EPS = 1e-9


def jaccard(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """Exact Jaccard similarity ``|a & b| / |a | b|``; 1.0 when both are empty (equal sets).

    Same convention as ``ShingleProcessor.jaccard``; :func:`all_pairs` drops empty sets anyway.
    """
    sa = a if isinstance(a, set | frozenset) else set(a)
    sb = b if isinstance(b, set | frozenset) else set(b)
    if not sa and not sb:
        return 1.0
    inter = len(sa & sb)
    return inter / (len(sa) + len(sb) - inter)


def id_key(record_id: str) -> tuple[int, int | str]:
    """Sort key of an id: numeric ids as numbers (``"9" < "10"``), then others as text.

    The same order as :func:`neardup.datasets.read_pairs` uses for the gold pairs.
    """
    return (0, int(record_id)) if record_id.isdigit() else (1, record_id)


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
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    items = list(shingle_sets.items()) if isinstance(shingle_sets, Mapping) else list(shingle_sets)
    sets: dict[str, frozenset[Hashable]] = {}
    for rid, shingles in items:
        if not isinstance(rid, str):
            raise TypeError(f"record ids must be strings, got {rid!r}")
        if rid in sets:
            raise ValueError(f"duplicate record id {rid!r}")
        sets[rid] = frozenset(shingles)

    # Global token order: rarest first (ties by repr, so the order is deterministic).
    freq = Counter(tok for s in sets.values() for tok in s)
    rank = {
        tok: i
        for i, (tok, _) in enumerate(sorted(freq.items(), key=lambda kv: (kv[1], repr(kv[0]))))
    }

    records = [(rid, sorted(rank[t] for t in s)) for rid, s in sets.items() if s]
    records.sort(key=lambda r: (len(r[1]), id_key(r[0])))

    index: dict[int, list[int]] = {}  # token rank -> positions (in `records`) of indexed sets
    out: list[tuple[str, str, float]] = []
    for pos, (rid, toks) in enumerate(records):
        n = len(toks)
        prefix = toks[: n - _min_overlap(threshold, n) + 1]
        min_size = threshold * n - _EPS  # partners are no larger than n (processed by size)
        seen: set[int] = set()
        for tok in prefix:
            postings = index.get(tok)
            if postings is None:
                index[tok] = [pos]
                continue
            for other in postings:
                if other not in seen and len(records[other][1]) >= min_size:
                    seen.add(other)
            postings.append(pos)
        if not seen:
            continue
        mine = sets[rid]
        for other in seen:
            oid = records[other][0]
            theirs = sets[oid]
            inter = len(mine & theirs)
            sim = inter / (len(mine) + len(theirs) - inter)
            if sim >= threshold:
                a, b = (rid, oid) if id_key(rid) <= id_key(oid) else (oid, rid)
                out.append((a, b, sim))
    out.sort(key=lambda p: (id_key(p[0]), id_key(p[1])))
    return out
