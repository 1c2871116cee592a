"""The numbers check's two questions, one answer each for every rule that makes the check.

Two records that both hold numbers (house and phone numbers, birth dates, model numbers: the
words of :func:`neardup.sign.text.number_words`) and share none are different entities unless they
are alike overall. The valley rule (:mod:`neardup.decision.valley`, by Jaccard) and the weighted
link (:mod:`neardup.decision.link`, by cosine) both ask the same two things: do a pair's numbers
differ (:func:`identifiers_differ`), and do the data's numbers identify records at all
(:func:`count_unshared`: among the pairs alike enough to waive the check, how many share no
number).

>>> identifiers_differ(frozenset({"12"}), frozenset({"14"}))
True
>>> identifiers_differ(frozenset({"12"}), frozenset())
False
>>> nums = {"a": frozenset({"12"}), "b": frozenset({"12"}), "c": frozenset({"40"})}
>>> count_unshared([(0.9, "a", "b"), (0.8, "a", "c"), (0.2, "b", "c")], nums.__getitem__, 0.7)
(2, 1)

The numbers compared are :func:`identifiers`: one catalogue's "RL-1299" is the other's
"RL1299" or "RL 1299".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from ..defaults import DEFAULTS
from ..sign.text import number_words

K = TypeVar("K", bound=Hashable)

#: What an identifier is written with besides its letters and digits (hyphens, dots, slashes).
_PUNCTUATION = re.compile(r"[\W_]+")
#: A code of letters then digits ("rl1299"): its digits alone name it too, as a catalogue
#: that writes "RL 1299" holds the word "1299". Not digits then letters: "12b" is another
#: door than "12", and "27in" another size than "27cm".
_CODE = re.compile(r"([^\W\d_]+)(\d+)")
#: A number of four digits or more followed by a suffix after punctuation ("967685-0403"):
#: one catalogue writes the part number alone ("967685").
_BASE = re.compile(r"(\d{4,})[\W_]+\w")


def identifiers(words: Iterable[str]) -> frozenset[str]:
    """The numbers of a record's words as identifiers, written one way: case folded already
    (normalized words), the punctuation inside dropped ("rl-1299" -> "rl1299"), and a code of
    letters then digits known by its digits too ("rl1299" -> "1299"), so that "RL-1299",
    "RL1299" and "RL 1299" share a number while "KDL-46V3000" and "KDL-52V3000" do not.

    >>> sorted(identifiers("bosch rl-1299 camera".split()))
    ['1299', 'rl1299']
    >>> sorted(identifiers("rl 1299".split())), sorted(identifiers(["kdl-46v3000"]))
    (['1299'], ['kdl46v3000'])

    A part number with a suffix is known by the part number alone too, which one catalogue
    writes: ``967685-0403`` shares ``967685`` (a retailer's code against the maker's part
    number: 31 of the 32 pairs the check dropped on a held-out products task were matches).

    >>> sorted(identifiers(["967685-0403"]))
    ['967685', '9676850403']
    """
    out: set[str] = set()
    for word in number_words(words):
        key = _PUNCTUATION.sub("", word)
        if not key:
            continue
        out.add(key)
        code = _CODE.fullmatch(key)
        if code:
            out.add(code.group(2))
        head = _BASE.match(word)
        if head and head.end() < len(word):  # a part number and its suffix: the part alone too
            out.add(head.group(1))
    return frozenset(out)


#: A code: a letter somewhere before a digit ("k39359us", "pls14", "tsg6843r"). Not a size or
#: a count, whose digits come first ("32gb", "27inch", "180w"): two products share those.
_CODE_WORD = re.compile(r"[^\W\d_].*\d")
#: The shortest code one record's code may hold inside it and still name it ("sakm01727mb"
#: holds "m01727mb").
_CODE_INSIDE = 4


def codes(numbers: frozenset[str]) -> frozenset[str]:
    """The codes among a record's :func:`identifiers` (model and part numbers)."""
    return frozenset(n for n in numbers if _CODE_WORD.search(n))


def _codes_shared(a: frozenset[str], b: frozenset[str]) -> bool:
    if a & b:
        return True
    return any(x in y or y in x for x in a for y in b if min(len(x), len(y)) >= _CODE_INSIDE)


def rare(numbers: Sequence[frozenset[str]]) -> list[frozenset[str]]:
    """Each record's numbers without those many records hold (more than
    ``DEFAULTS.numbers_common_share`` of them and ``DEFAULTS.numbers_common_min``): a zip code
    or a year is shared by records of other entities, so sharing it says nothing of a pair,
    where a house number or a model code does.

    >>> rare([frozenset({"60660", str(n)}) for n in range(20)])[0]
    frozenset({'0'})
    """
    held = Counter(n for s in numbers for n in s)
    most = max(DEFAULTS.numbers_common_min, DEFAULTS.numbers_common_share * len(numbers))
    common = {n for n, c in held.items() if c > most}
    if not common:
        return list(numbers)
    return [s - common if not common.isdisjoint(s) else s for s in numbers]


def identifiers_differ(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two records' numbers tell them apart: both hold some and they share none; or
    both hold codes and share no code (one written inside the other counts as shared). Why
    codes apart: a catalogue's rows hold prices, weights and sizes beside the model number,
    and two models of one series ("PLS-13", "PLS-14"; "K39358US", "K39359US") share a weight
    of 1 or a 2.0 of "USB 2.0" while their codes differ.

    >>> identifiers_differ(frozenset({"pls14", "14", "1"}), frozenset({"pls13", "13", "1"}))
    True
    >>> identifiers_differ(frozenset({"m01727mb"}), frozenset({"sakm01727mb", "23"}))
    False
    >>> identifiers_differ(frozenset({"rl1299", "1299"}), frozenset({"1299"}))
    False
    """
    if not a or not b:
        return False
    ca, cb = codes(a), codes(b)
    if ca and cb and _codes_shared(ca, cb):
        return False
    return not a & b or (bool(ca) and bool(cb))


def count_unshared(
    pairs: Iterable[tuple[float, K, K]], numbers: Callable[[K], frozenset[str]], waived: float
) -> tuple[int, int]:
    """Of the pairs ``(similarity, a, b)`` at least ``waived`` similar whose records both hold
    numbers: how many there are, and how many of them :func:`identifiers_differ`. Where numbers are
    identifiers, nearly none of such pairs (nearly all matches) share none."""
    both = [(a, b) for s, a, b in pairs if s >= waived and numbers(a) and numbers(b)]
    return len(both), sum(1 for a, b in both if not numbers(a) & numbers(b))
