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
2. **Candidates, mapping, the relative rule**: every pair of sources, all of their records,
   as the full link makes them. Unique mapping is global (best pairs first, one partner
   each): whether a new record's pair is mapped depends on the better pairs that touch either
   record, on whether those were mapped, and so on down chains of near siblings that can cross
   the whole catalogue; and each record's runner-up depends on its own candidates.

The columns' weights and the numbers check's verdict are learned again, from all the pairs
that stand out (:func:`~neardup.decision.link.decide`, the full link's own steps on the counts
kept): a full link of all the records learns them with the new records, so the pairs at the
margin move with them. What is saved is reading every text and cutting it into grams.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..defaults import DEFAULTS
from ..sign.minhash import ShingleProcessor
from ..sign.text import sort_ids
from .date_forms import in_one_form, one_form
from .held_values import Value, value_of
from .link import Grams, Linked, LinkState, _numbers, _pairs, decide
from .names import words

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
    dated, orders = in_one_form([rec[1] for rec in later], [rec[2] for rec in later],
                                state.date_orders)  # fmt: skip
    normalized = [processor.normalize(t) for t in dated]
    fresh = Grams.of(normalized)
    numbers = [state.numbers[n] for n in kept] + _numbers(normalized, dated, processor)
    said = [state.words[n] for n in kept] + [words(t) for t in normalized]
    old = state.joined
    if len(kept) < len(state.keys):
        old = Grams(old.vocab, old.counts[kept])
    columns: dict[tuple[str, str], tuple[list[str], Grams]] = {}
    fresh_values: list[list[Value]] = [[] for _ in later]
    added: dict[tuple[str, str], list[int]] = {}
    for n, (_, _, src, cols) in enumerate(later):
        for col in cols or ():
            added.setdefault((src, col), []).append(n)
    for name in sorted(set(state.columns) | set(added)):
        keys, grams = state.columns.get(name, ([], Grams.of([])))
        stay = [n for n, key in enumerate(keys) if key not in again]
        new_rows = added.get(name, [])
        texts = [processor.normalize(one_form(later[n][3][name[1]], orders.get(name[0])))  # type: ignore[index]
                 for n in new_rows]  # fmt: skip
        for n, text in zip(new_rows, texts, strict=True):
            value = value_of(name[1], text)
            if value is not None:
                fresh_values[n].append(value)
        held = [keys[n] for n in stay] + [later[n][0] for n in new_rows]
        at = {key: n for n, key in enumerate(held)}
        order = np.fromiter((at[key] for key in sort_ids(held)), np.int64, len(held))
        parts = [Grams(grams.vocab, grams.counts[stay]), Grams.of(texts)]
        columns[name] = ([held[n] for n in order], Grams.stacked(parts, order))
    values = [state.values[n] for n in kept] + [tuple(v) for v in fresh_values]
    return replace(
        state,
        keys=[names[n] for n in rows],
        sources=[sources[n] for n in rows],
        joined=Grams.stacked([old, fresh], rows),
        columns=columns,
        batch=batch,
        numbers=[numbers[n] for n in rows],
        words=[said[n] for n in rows],
        date_orders=orders,
        values=[values[n] for n in rows],
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
    check_names: bool = True,
) -> Linked:
    """The pairs of a full weighted link of ``state``'s records that hold a record of
    ``fresh`` (keys), decided as a full link decides (:func:`~neardup.decision.link.decide`)
    from the counts kept. ``texts_of(keys)`` gives the texts as written of the pairs' records
    (``{key: text}``), read only for those."""
    decided = decide(state, k=k, margin=margin, check_numbers=check_numbers,
                     check_names=check_names)  # fmt: skip
    keys = state.keys
    new = {n for n, key in enumerate(keys) if key in fresh}

    def holds_new(pairs: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
        return [t for t in pairs if t[1] in new or t[2] in new]

    found, dropped = holds_new(decided.found), holds_new(decided.dropped)
    named = holds_new(decided.dropped_names)
    rows = sorted({r for _, a, b in found + dropped + named for r in (a, b)})
    texts = texts_of([keys[r] for r in rows])
    written = {r: texts[keys[r]] for r in rows}
    explain = {**state.explain, **decided.explain}
    explain["new"] = (
        f"the pairs of {len(fresh)} new records, as a full link of all {len(keys)} gives them: "
        "the columns' weights and the numbers check learned again from every record's counts, "
        "kept since the last full link"
    )
    state.explain = {k: v for k, v in explain.items() if k != "new"}
    return Linked(_pairs(found, keys, written, processor), decided.final.candidates,
                  len(decided.final.mapped), explain, _pairs(dropped, keys, written, processor),
                  state, _pairs(named, keys, written, processor))  # fmt: skip
