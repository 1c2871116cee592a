"""The swaps check: two records whose values sit in each other's columns, where those columns
hold one kind of value, are two entities, not a record and its copy.

A transfer from Alice to Robert and the one back from Robert to Alice, a match of Ajax at home
to PSV and the return match, a flight from Oslo to Rome and the one home: the two records hold
the same words, so their whole-record shingles are alike to the last one, and the Jaccard rules
pair them. Which column a value sits in is what tells them apart, and the columns check cannot
say so where there are too few pairs to learn from (a table of a few rows) or where such pairs
are rare among the kept ones.

A swap is not always a second entity: a form filled in with the given name and the surname
the wrong way round is the same person, and person records hold such copies (the FEBRL sets do).
What tells the two apart is what the columns hold: senders and receivers, home and away teams,
origins and destinations are one kind of value, written in both columns; given names and
surnames, or a street and a locality, are two kinds, which few values cross. So a swap counts
only between two columns whose values, over the records read (the kept pairs' and a sample of
the candidates below the bar), are to a large part the same (``DEFAULTS.swaps_shared``, of the
column with fewer distinct values). Where the records read are too few to tell, a swap counts:
two rows kept apart lose nothing, two rows made one lose a row.

>>> rows = {
...     "1": {"sender": "alice johnson", "receiver": "robert miller", "amount": "500"},
...     "2": {"sender": "robert miller", "receiver": "alice johnson", "amount": "500"},
... }
>>> one_kind(rows)
[('receiver', 'sender')]
>>> swapped_in(rows["1"], rows["2"], kinds_of(one_kind(rows)))
('receiver', 'sender')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from ..defaults import DEFAULTS
from ..results import Pair

Row = Mapping[str, str]


def _values(rows: Mapping[str, Row]) -> dict[str, set[str]]:
    """Each column's distinct non-empty values, as written (after the index's normalization)."""
    out: dict[str, set[str]] = {}
    for row in rows.values():
        for column, value in row.items():
            if value:
                out.setdefault(column, set()).add(value)
    return out


def one_kind(rows: Mapping[str, Row]) -> list[tuple[str, str]]:
    """The column pairs (names sorted) whose distinct values over ``rows`` are at least
    ``DEFAULTS.swaps_shared`` the same, of the column with fewer of them: columns that hold
    one kind of value, where a value moved to the other column says another entity."""
    values = _values(rows)
    out = []
    for x, y in combinations(sorted(values), 2):
        vx, vy = values[x], values[y]
        fewer = min(len(vx), len(vy))
        if fewer >= 2 and len(vx & vy) >= DEFAULTS.swaps_shared * fewer:
            out.append((x, y))
    return out


def kinds_of(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The groups of columns of one kind: each column with every column it is one kind with,
    through any chain of :func:`one_kind` pairs (home, work and birth city), names sorted."""
    group: dict[str, set[str]] = {}
    for x, y in pairs:
        joined = group.get(x, {x}) | group.get(y, {y})
        for c in joined:
            group[c] = joined
    return sorted({tuple(sorted(g)) for g in group.values()})


def swapped_in(a: Row, b: Row, kinds: Sequence[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The columns of the first group of ``kinds`` in which ``a`` and ``b`` hold the same values
    in other places (a swap, or a rotation of three), or None. Only the group's columns both
    records fill are read; a value that moved while another changed (a person who left their
    birth city) is no swap."""
    for kind in kinds:
        both = [c for c in kind if a.get(c) and b.get(c)]
        moved = tuple(c for c in both if a[c] != b[c])
        if len(moved) >= 2 and sorted(a[c] for c in both) == sorted(b[c] for c in both):
            return moved
    return None


def swaps_disagree(
    kept: list[Pair], rows: Mapping[str, Row]
) -> tuple[list[Pair], list[Pair], dict[str, Any]]:
    """The kept pairs without those whose records hold the same values in other columns of
    one kind (:func:`kinds_of`, read over ``rows``, normalized), those dropped, and what was
    found: the column groups read as one kind, and those a swap was seen in."""
    kinds = kinds_of(one_kind(rows))
    if not kinds:
        return kept, [], {"one_kind": [], "dropped": 0}
    out: list[Pair] = []
    gone: list[Pair] = []
    seen: set[tuple[str, ...]] = set()
    for p in kept:
        swap = swapped_in(rows.get(p.id1, {}), rows.get(p.id2, {}), kinds)
        if swap is None:
            out.append(p)
        else:
            gone.append(p)
            seen.add(swap)
    found = {"one_kind": [list(k) for k in kinds], "dropped": len(gone),
             "swapped": [list(k) for k in sorted(seen)]}  # fmt: skip
    return out, gone, found
