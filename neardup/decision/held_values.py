"""A column value two records share and no other record of either source holds: the evidence
that tells a pair from a near twin when the whole records barely do.

The weighted link keeps a mapped pair when it is ahead of both records' runner-ups by a margin
(:func:`neardup.decision.assign.ahead_of`). A film listed as ``Renaissance Man`` in one
catalogue and ``Renaissance Man (1994)`` beside other actors in the other is ahead of
``Renaissance (2006)`` by less than that, and was left out, though no other record of either
catalogue is called so; a film known in one catalogue by its writer alone (``Larry
Blamire``) is behind a runner-up that shares a word of its other catalogue's title. Where a
mapped pair does not stand out, it is kept when its records hold the same value in a column
each, with the words written alike (numbers aside), and that value is held by no other record
of its column in either source: then no runner-up can hold it, and the mapping gave the pair
to these two records.

Numbers are read apart from the words: the numbers of one value must all be in the other, so
that a value with none (``Renaissance Man``) is the same value written without its year
(``Renaissance Man (1994)``), ``Part 3`` is ``Part 3 (1982)``, and not ``Part 2 (1981)``.
Dates and prices are only numbers and are never such a value. Within one collection (dedup)
no two records can share a value no other record holds, and nothing is kept so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

#: A record's value in one column: (column, its words that are not numbers, each once, sorted
#: and joined by spaces: a string is a fifth of a set's memory; its numbers).
Value = tuple[str, str, frozenset[str]]
_NONE: frozenset[str] = frozenset()
#: A mapped pair: (similarity, row a, row b, a's runner-up, b's runner-up).
Contested = tuple[float, int, int, int | None, int | None]


def value_of(column: str, normalized: str) -> Value | None:
    """The value of ``column`` written ``normalized``; None when it holds no word but numbers
    (a date, a price, a count: shared by chance too often to tell a pair). A word holds a
    letter; the other tokens are numbers, whatever their punctuation."""
    words: set[str] = set()
    numbers: set[str] = set()
    for token in normalized.split():  # a word holds a letter; 1998-11-27, 17.88 are numbers
        (words if any(ch.isalpha() for ch in token) else numbers).add(token)
    if not words:
        return None
    return column, " ".join(sorted(words)), frozenset(numbers) if numbers else _NONE


def by_value(
    contested: Sequence[Contested],
    values: Sequence[Sequence[Value]],
    sources: Sequence[str],
) -> list[tuple[float, int, int]]:
    """The mapped pairs ``contested`` (those that do not stand out) whose records share a value
    that no other record of its column holds in either source (``values[row]``: the record's
    values, ``sources[row]``: its source)."""
    if not contested or not values:
        return []
    held: Counter[tuple[str, str, str]] = Counter(
        (sources[row], column, words)
        for row, mine in enumerate(values)
        for column, words, _ in mine
    )

    def unique(row: int) -> dict[str, frozenset[str]]:
        return {words: numbers for column, words, numbers in values[row]
                if held[(sources[row], column, words)] == 1}  # fmt: skip

    out = []
    for s, a, b, _, _ in contested:
        if sources[a] == sources[b]:
            continue
        mine, theirs = unique(a), unique(b)
        for words in mine.keys() & theirs.keys():
            na, nb = mine[words], theirs[words]
            if na <= nb or nb <= na:
                out.append((s, a, b))
                break
    return out
