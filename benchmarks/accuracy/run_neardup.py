"""neardup as a user runs it with its defaults: the one place the suite calls the library.

Kept in one function so that it can follow the API as it grows (modes, sources, fields)
without touching the rest of the suite. Today: an in-memory index with default ``Params``,
every record added, the default report; the pairs it returns are scored by the caller (in link
mode only the cross-source ones count).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator
from typing import Any

from .datasets import Dataset, Pair


def _record_fields() -> tuple[Any, set[str]] | None:
    """neardup's Record and its field names, if it carries ``source`` and ``fields`` (then
    add_many takes Records, and whatever neardup does with sources and columns is measured)."""
    try:
        from neardup.read.items import Record
    except ImportError:
        return None
    names = {f.name for f in dataclasses.fields(Record)}
    return (Record, names) if {"id", "text", "source", "fields"} <= names else None


def _items(ds: Dataset) -> Iterator[Any]:
    found = _record_fields()
    for n, r in enumerate(ds.records, start=1):
        if found is None:
            yield (r.id, r.text)
            continue
        record, names = found
        values = {"id": r.id, "text": r.text, "source": r.source, "line": n}
        kwargs = {k: v for k, v in values.items() if k in names}
        yield record(**kwargs, fields=dict(r.fields))


def _report(ds: Dataset, given: dict[str, Any] | None = None) -> Any:
    from neardup import NearDupIndex

    idx = NearDupIndex(given=given) if given else NearDupIndex()
    idx.add_many(_items(ds))
    # The dataset's mode is what a user knows and says (one list, or two sources to link),
    # not a tuned knob: pass it where report() takes it.
    takes_mode = "mode" in inspect.signature(idx.report).parameters
    return idx.report(mode=ds.mode) if takes_mode else idx.report()


def run_neardup(ds: Dataset) -> set[Pair]:
    """The pairs neardup reports for ``ds`` with its defaults (ids as in the dataset)."""
    return {(p.id1, p.id2) for p in _report(ds).pairs}


def run_learned(ds: Dataset) -> tuple[set[Pair], dict[str, Any]]:
    """The pairs of the opt-in learned rule (``rule="learned"``, everything else chosen as by
    default) and what the rule said of itself: its threshold and estimated precision and
    recall, which the suite sets beside the labels' (issue #13)."""
    rep = _report(ds, {"rule": "learned"})
    return {(p.id1, p.id2) for p in rep.pairs}, dict(rep.rule or {})
