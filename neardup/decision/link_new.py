"""A weighted link of new records: the pairs a full link would give them, without the rest.

``report(mode="link", since=batch)`` (``neardup report --new --mode link``) gives the pairs of
the full weighted link (:func:`neardup.decision.link.link` over every record, the new ones included)
that hold a record of ``batch`` or later, and only those. What each step of the full link
needs, and where it comes from here:

1. **Weights.** Each gram's document frequency counts every record, so a new record changes
   every vector a little. The last full link kept every record's gram counts
   (:class:`~neardup.decision.link.LinkState`); the new records' counts are added to them and the
   vectors made again from the counts, exactly those of a fit on all texts, without reading
   and cutting the old texts into grams again (which is most of a full link's time).
2. **Candidates**: each record's top-k of the other source, in both directions, over the two
   sources that hold new records (a sparse product, in C++): an old record may take a new
   one among its top-k, and what an old partner's runner-up is depends on its own list.
3. **Unique mapping** is global (best pairs first, one partner each): whether a new record's
   pair is mapped depends on the better pairs that touch either record, on whether those
   were mapped, and so on down chains of near siblings that can cross the whole catalogue
   (following them from the new records alone read most of it on shop catalogues). So the
   two sources' candidates are mapped whole, in one loop over arrays (:func:`_decided`).
4. **The relative rule** needs each record's runner-up: the best of its other candidates.

What is **not** learned again: the columns' weights and the numbers check's verdict, both
read off all the pairs that stood out. Learning them again is a full link; they are the last
full link's, and the explanation says so. The pairs then equal a full link's wherever the new
records do not move those weights (``benchmarks/incremental.py --link`` measures it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from ..sign.minhash import ShingleProcessor
from ..sign.text import sort_ids
from .identifiers import identifiers, identifiers_differ
from .link import (
    NUMBERS_OFF,
    Grams,
    Linked,
    LinkState,
    _pairs,
    groups_of,
    similarity_line,
    vectors_of,
    weighed,
)  # fmt: skip
from .topk import purged, top_k
from .weights import cosine

#: A record written since the state: (key, text as written, source, columns or None).
Later = tuple[str, str, str, Mapping[str, str] | None]


def updated(
    state: LinkState, later: Sequence[Later], processor: ShingleProcessor, batch: int | None
) -> LinkState:
    """``state`` with the records written since it was made (new ones, or old keys written
    again: their counts replaced), in the rows a full link of them all would give them."""
    if not later:
        return replace(state, batch=batch if batch is not None else state.batch)
    again = {rec[0] for rec in later}
    kept = [n for n, key in enumerate(state.keys) if key not in again]
    names = [state.keys[n] for n in kept] + [rec[0] for rec in later]
    sources = [state.sources[n] for n in kept] + [rec[2] for rec in later]
    pos = {key: n for n, key in enumerate(names)}
    rows = np.fromiter((pos[key] for key in sort_ids(names)), np.int64, len(names))
    fresh = Grams.of([processor.normalize(rec[1]) for rec in later])
    old = state.joined
    if len(kept) < len(state.keys):
        old = Grams(old.vocab, old.counts[kept])
    columns: dict[tuple[str, str], tuple[list[str], Grams]] = {}
    added: dict[tuple[str, str], list[int]] = {}
    for n, (_, _, src, cols) in enumerate(later):
        for col in cols or ():
            added.setdefault((src, col), []).append(n)
    for name in sorted(set(state.columns) | set(added)):
        keys, grams = state.columns.get(name, ([], Grams.of([])))
        stay = [n for n, key in enumerate(keys) if key not in again]
        new_rows = added.get(name, [])
        texts = [processor.normalize(later[n][3][name[1]]) for n in new_rows]  # type: ignore[index]
        held = [keys[n] for n in stay] + [later[n][0] for n in new_rows]
        at = {key: n for n, key in enumerate(held)}
        order = np.fromiter((at[key] for key in sort_ids(held)), np.int64, len(held))
        parts = [Grams(grams.vocab, grams.counts[stay]), Grams.of(texts)]
        columns[name] = ([held[n] for n in order], Grams.stacked(parts, order))
    return replace(
        state,
        keys=[names[n] for n in rows],
        sources=[sources[n] for n in rows],
        joined=Grams.stacked([old, fresh], rows),
        columns=columns,
        batch=batch,
    )


def link_new(
    state: LinkState,
    fresh: set[str],
    texts_of: Any,
    processor: ShingleProcessor,
    *,
    k: int = DEFAULTS.link_top_k,
    margin: float = DEFAULTS.link_margin,
    check_numbers: bool = True,
) -> Linked:
    """The pairs of a full weighted link of ``state``'s records that hold a record of
    ``fresh`` (keys), and the counts of their candidates. ``texts_of(keys)`` gives the texts
    as written of the pairs' records (``{key: text}``), read only for those."""
    made = vectors_of(state)
    vectors = weighed(made, state.learned)
    if vectors is None:
        vectors = made.joined
    new = np.zeros(len(state.keys), dtype=bool)
    new[[n for n, key in enumerate(state.keys) if key in fresh]] = True
    found: list[tuple[float, int, int]] = []
    candidates = mapped = 0
    for ia, ib in groups_of(state.sources, state.order):
        if not (new[ia].any() or new[ib].any()):
            continue
        va, vb = purged(vectors[ia], vectors[ib])
        r1, c1, _ = top_k(va, vb, k)
        r2, c2, _ = top_k(vb, va, k)
        first = np.concatenate([ia[r1], ia[c2]])
        second = np.concatenate([ib[c1], ib[r2]])
        pairs = np.unique(np.stack([first, second], axis=1), axis=0)
        got, cands, maps = _decided(vectors, pairs[:, 0], pairs[:, 1], new, margin)
        found += got
        candidates += cands
        mapped += maps
    rows = sorted({r for _, a, b in found for r in (a, b)})
    keys = state.keys
    texts = texts_of([keys[r] for r in rows])
    written = {r: texts[keys[r]] for r in rows}
    dropped: list[tuple[float, int, int]] = []
    identify = state.identify and check_numbers
    if identify:
        numbers = {r: identifiers(processor.normalize(written[r]).split()) for r in rows}
        waived = DEFAULTS.numbers_waived_cosine
        veto = [s < waived and identifiers_differ(numbers[a], numbers[b]) for s, a, b in found]
        dropped = [t for t, v in zip(found, veto, strict=True) if v]
        found = [t for t, v in zip(found, veto, strict=True) if not v]
    explain = dict(state.explain)
    explain.update(
        similarity=similarity_line(made.grams, len(keys)),
        mapped=mapped,
        stood_out=len(found) + len(dropped),
        numbers_check=state.numbers_why if check_numbers else NUMBERS_OFF,
        numbers_disagree=len(dropped),
        threshold=round(min((s for s, _, _ in found), default=1.0), 6),
        new=f"the pairs of {len(fresh)} new records, as a full link of all {len(keys)} gives "
        "them; the columns' weights and the numbers check's verdict are those of the last "
        "full link",
    )
    return Linked(_pairs(found, keys, written, processor), candidates, mapped, explain,
                  _pairs(dropped, keys, written, processor), state)  # fmt: skip


def _decided(
    vectors: Any, first: NDArray[np.int64], second: NDArray[np.int64], new: NDArray[np.bool_],
    margin: float,
) -> tuple[list[tuple[float, int, int]], int, int]:  # fmt: skip
    """The candidate pairs of two sources (rows ``first[e]``, ``second[e]``) decided as the
    full link decides them (unique mapping best first, ties by the rows as text; ahead of both
    records' runner-ups by ``margin``): the kept pairs that hold a new record, and how many
    candidates and mapped pairs hold one."""
    sims = cosine(vectors, first, second)
    keep = sims > 0.0
    first, second, sims = first[keep], second[keep], sims[keep]
    if not len(sims):
        return [], 0, 0
    order = np.lexsort((second.astype(str), first.astype(str), -sims))  # the last key first
    fl, sl, vl = first.tolist(), second.tolist(), sims.tolist()
    # The mapping up to the last pair of a new record (the pairs after it decide none of them).
    touches = new[first[order]] | new[second[order]]
    last = int(np.flatnonzero(touches)[-1]) + 1 if touches.any() else 0
    taken = bytearray(len(new))
    mapped = []
    for e, a, b in zip(order[:last].tolist(), first[order[:last]].tolist(),
                       second[order[:last]].tolist(), strict=True):  # fmt: skip
        if taken[a] or taken[b]:
            continue
        taken[a] = taken[b] = 1
        mapped.append(e)
    # Each record's best pair and the similarity of its second best (assign.second: the best
    # pair other than a given one).
    ends = np.concatenate([first, second])
    vals = np.concatenate([sims, sims])
    edge = np.concatenate([np.arange(len(sims)), np.arange(len(sims))])
    by = np.lexsort((-vals, ends))
    ends, vals, edge = ends[by], vals[by], edge[by]
    head = np.flatnonzero(np.r_[True, ends[1:] != ends[:-1]])
    best_edge = dict(zip(ends[head].tolist(), edge[head].tolist(), strict=True))
    best = dict(zip(ends[head].tolist(), vals[head].tolist(), strict=True))
    nxt = head + 1
    has = (nxt < len(ends)) & (ends[np.minimum(nxt, len(ends) - 1)] == ends[head])
    runner_up = dict(zip(ends[head].tolist(), np.where(has, vals[np.minimum(nxt, len(ends) - 1)],
                                                      0.0).tolist(), strict=True))  # fmt: skip

    def other(me: int, e: int) -> float:
        return runner_up[me] if best_edge[me] == e else best[me]

    found, count = [], 0
    for e in mapped:
        a, b, s = fl[e], sl[e], vl[e]
        if not (new[a] or new[b]):
            continue
        count += 1
        if max(other(a, e), other(b, e)) <= s * (1.0 - margin):
            found.append((s, a, b))
    return found, int((new[first] | new[second]).sum()), count
