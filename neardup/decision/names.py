"""The names check: two short records that each hold a word the other has nothing of are two
entities, unless they are alike overall.

Records of a few words are names: of people, places, episodes. "Anna Mortimer" and "John
Mortimer" share a rare surname, whose weight carries their cosine past both records' runner-ups,
while their first names, common, weigh little: the weighted link keeps them. What tells them
apart is a word on each side that the other record lacks entirely. A word lacks a partner when
it shares no character 3-gram with any word of the other record (a typo, another spelling or
transliteration, a word cut short all share some), is not an initial of one of its words ("J"
of "John") nor the initials of a run of them ("IBM", "NYC"), is not a nickname of one of them
nor both nicknames of one name ("Dick" and "Richard", "Bob" and "Rob": English given names, from
the hand-curated table of the ``nicknames`` package), and is a word of letters (numbers are the
numbers check's, :mod:`neardup.decision.identifiers`).

Names share one word at most: a surname, a town. Two records that share more ("Nike Air Max
sneakers", "Nike Air Max shoes") are a product and its description, whose one word each is a
category written two ways, and are left alone. So are words of scripts written without spaces
(Chinese, Japanese, Thai...), where a "word" is a whole phrase and one character's variant
(simplified and traditional: 毛泽东, 毛澤東) shares no 3-gram.

Words common in their own source are left out: they are a column's values ("actor",
"guestStars"), which two catalogues write each their own way, not part of a name. A record is
short at :data:`~neardup.defaults.Defaults.names_max_words` words or fewer; longer records hold
descriptions, whose words differ between any two sources. The figures that chose the bounds are
in docs/linking.md ("Why the rule and the columns' weights are what they are").

>>> def differ(a: str, b: str) -> bool:
...     return names_differ(own(a, set()), words(a), own(b, set()), words(b))
>>> differ("anna mortimer", "john mortimer"), differ("j mortimer", "john mortimer")
(True, False)
>>> differ("ibm", "intl business machines"), differ("jon smith", "john smith")
(False, False)
>>> differ("dick smith", "richard smith"), differ("bob smith", "rob smith")
(False, False)
>>> differ("nike air max sneakers", "nike air max shoes"), differ("毛泽东", "毛澤東")
(False, False)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

from ..defaults import DEFAULTS

_WORD = re.compile(r"\w+")


def words(text: str) -> tuple[str, ...]:
    """The words of a normalized text."""
    return tuple(_WORD.findall(text))


def common_words(texts: Sequence[tuple[str, ...]], sources: Sequence[str]) -> dict[str, set[str]]:
    """Each source's common words: those held by at least
    :data:`~neardup.defaults.Defaults.names_common_share` of its records (and by
    :data:`~neardup.defaults.Defaults.names_common_min` of them)."""
    held: dict[str, Counter[str]] = {}
    count: Counter[str] = Counter()
    for ws, src in zip(texts, sources, strict=True):
        held.setdefault(src, Counter()).update(set(ws))
        count[src] += 1
    share, least = DEFAULTS.names_common_share, DEFAULTS.names_common_min
    return {
        src: {w for w, n in c.items() if n >= max(least, share * count[src])}
        for src, c in held.items()
    }


def own(text_or_words: str | tuple[str, ...], common: frozenset[str] | set[str]) -> frozenset[str]:
    """The words of a short record that may name it: its words of letters, not common in its
    source; empty for a record longer than a name."""
    ws = words(text_or_words) if isinstance(text_or_words, str) else text_or_words
    if len(ws) > DEFAULTS.names_max_words:
        return frozenset()
    return frozenset(w for w in ws if w.isalpha() and w not in common and _spaced(w))


def _spaced(word: str) -> bool:
    """Whether ``word`` is of a script written with spaces between words (not Thai, Lao,
    Tibetan, Myanmar, Khmer, nor CJK, kana or Hangul and what follows them)."""
    return not any(
        0x0E00 <= o <= 0x109F or 0x1780 <= o <= 0x17FF or o >= 0x2E80 for o in map(ord, word)
    )


def _grams(word: str) -> set[str]:
    """A word's character 3-grams, its start and end marked (" jo" of "jon" and "john"; "ng "
    of "zedong" and "tung", a transliteration)."""
    padded = f" {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


@cache
def _namer() -> Any:
    from nicknames import NickNamer

    return NickNamer()


@lru_cache(maxsize=1 << 16)
def _given_names(word: str) -> frozenset[str]:
    """The word and the given names it is a nickname of ("dick": richard, rich...)."""
    return frozenset({word} | _namer().canonicals_of(word))


def _partnered(word: str, other: tuple[str, ...], held: set[str]) -> bool:
    """Whether ``word`` has something of the words ``other`` (whose 3-grams are ``held``)."""
    if _grams(word) & held:
        return True
    names = _given_names(word)
    if any(names & _given_names(o) for o in other):  # a nickname: "dick", "richard"
        return True
    if len(word) <= 2 and any(o.startswith(word) for o in other):  # an initial
        return True
    initials = "".join(o[0] for o in other)
    return len(word) >= 2 and word in initials  # "ibm" of "intl business machines"


def _lacks(mine: frozenset[str], other: tuple[str, ...]) -> bool:
    """Whether one of ``mine`` has nothing of the words ``other``."""
    if not mine:
        return False
    held = set().union(*(_grams(o) for o in other)) if other else set()
    return any(not _partnered(w, other, held) for w in mine)


def names_differ(
    own_a: frozenset[str], words_a: tuple[str, ...], own_b: frozenset[str], words_b: tuple[str, ...]
) -> bool:
    """Whether two short records each hold a word the other has nothing of (``own_*``:
    :func:`own`; ``words_*``: all of a record's words), and share one word at most."""
    if not own_a or not own_b or len(set(words_a) & set(words_b)) > DEFAULTS.names_max_shared:
        return False
    return _lacks(own_a, words_b) and _lacks(own_b, words_a)
