"""The numbers check's two questions, one answer each for every rule that makes the check.

Two records that both hold numbers (house and phone numbers, birth dates, model numbers: the
words of :func:`neardup.sign.text.number_words`) and share none are different entities unless they
are alike overall. The valley rule (:mod:`neardup.decision.valley`, by Jaccard) and the weighted
link (:mod:`neardup.decision.link`, by cosine) both ask the same two things: do a pair's numbers
differ (:func:`identifiers_differ`), and do the data's numbers identify records at all
(:func:`count_unshared`: among the pairs alike enough to waive the check, how many share no
number, once the pairs that only hold other numbers in the same place are set aside:
:func:`siblings`).

>>> identifiers_differ(frozenset({"12"}), frozenset({"14"}))
True
>>> identifiers_differ(frozenset({"12"}), frozenset())
False
>>> nums = {"a": frozenset({"12"}), "b": frozenset({"12"}), "c": frozenset({"40"})}
>>> count_unshared([(0.9, "a", "b"), (0.8, "a", "c"), (0.2, "b", "c")], nums.__getitem__, 0.7)
(2, 1, 0)

The numbers compared are :func:`identifiers`: one catalogue's "RL-1299" is the other's
"RL1299" or "RL 1299", one's "(617) 555-0101" the other's "617-555-0101", "$1,299.00" is
"$1299" and "16 GB" "16GB" (:func:`shares`).

A third question, asked of every pair whatever the data's verdict and however alike the pair:
do two records hold different numbers after the same word naming a sibling's place, ``unit 305``
and ``unit 306``, ``no 5`` and ``no 6`` (:func:`roles_differ`)? Siblings share the house number,
the phone or the year, so the first question never parts them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence, Set
from typing import Any, TypeVar

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


#: How many adjacent words one number written in groups may span: "+1 206 555 0199" holds
#: "206-555-0199" in three of its words, "WH 1000 XM4" is "WH-1000XM4" in three.
_JOIN_SPAN = 4
#: The fewest digits of a group of digits read as going on from the digits before it: a
#: thousands group ("1,299", "1.299,00") or a phone's ("555 0101"). A group of fewer digits is
#: another number: normalization has made "1.5" the words "1 5", and "1.5" is not "15", nor
#: "12.50" "1250" (a price of cents, not a thousands group).
_GROUP = 3
#: The longest word without a digit written together with a number: a unit ("gb", "inch") or
#: a code's letters ("wh", "kdl"), not a word of the text.
_LETTERS = 4
#: The words after which a number says which one of several siblings a record is (a unit of a
#: building, a volume of a work, a part of a song): one record's "unit 305" and the other's "unit
#: 306" are two units, however alike the rest. Each is named by one of its spellings ("apartment" is
#: "unit"; "apt", "suite" and "unit" are one role, since one listing writes "Apt 2B" where the other
#: writes "Unit 2B"). Not any word: in person records the word before a house number is a surname or
#: a state ("smith 12", "nsw 2750"), and a typo in the number would part a true pair (658 of FEBRL
#: 2's 1,934 true pairs differ so). Nor "room", "box", "series", "act", "bay", "sec", "flat",
#: "season", "k" and "n", each found before a number of another role in the suite ("tea room 404
#: 876-1800", "25 box", "ACT" the territory, "Safety Bay 4821", "Kangaroo Flat 3193", "That
#: Championship Season 1982").
_ROLES = {
    "unit": "unit", "apt": "unit", "apartment": "unit", "suite": "unit", "ste": "unit",
    "no": "no", "nr": "no", "number": "no", "num": "no", "vol": "vol",
    "volume": "vol", "part": "part", "pt": "part", "chapter": "chapter", "episode": "episode",
    "ep": "episode", "op": "op", "opus": "op", "bwv": "bwv", "kv": "kv", "disc": "disc",
    "track": "track",
}  # fmt: skip
#: Units of measure written with or after a number ("apartment 93m2", "apartment 93 m2"): the
#: number is then a size, not which one of several siblings a record is. Words of two letters or
#: more only: a single letter after a number is a unit's letter ("apt 4 b").
_MEASURES = frozenset(
    "m2 sqm sqft ft2 qm mm cm km kg lb lbs oz ml gb mb tb kw mah hz khz mhz ghz inch".split()
)
#: The zeros a role's number is padded with ("vol 01", "unit 05", "apt 05b"): one number, one
#: value, so "01" is "1" there ("0" stays "0").
_PADDING = re.compile(r"^0+(?=\d)")
#: A number in its place (:func:`_places`): the word before it, the word after it, the number
#: as the record writes it.
Place = tuple[str, str, str]
#: A digit, which the shape of a number (:func:`_other_value`) reads as any other digit.
_DIGIT = re.compile(r"\d")
#: The centuries a year is written without ("79" for "1979").
_CENTURIES = ("19", "20")
#: The most numbers of one size ("80 x 28 x 202": width, depth, height), which :func:`_sizes`
#: writes together however they were written.
_DIMENSIONS = 3
#: Roman numerals after such a word ("Part II"), up to 20: a role's number written so.
_ROMAN = {
    r: str(n)
    for n, r in enumerate(
        "i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx".split(), 1
    )
}


class Numbers(frozenset[str]):
    """A record's numbers (:func:`identifiers`): the set of its numbers, each written one way,
    and three things a set of words cannot say: ``joined``, its adjacent words written together
    where they hold a digit (``"617 555-0101"`` holds ``"6175550101"``, ``"16 gb"``
    ``"16gb"``), which another record's number may be (:func:`shares`); ``roles``, the
    numbers that follow a word naming a sibling's place (``unit``: ``{"305"}``), which another
    record's numbers after the same word may contradict (:func:`roles_differ`); and ``places``,
    each word with a digit between the words either side of it (``"at least 72"``:
    ``("least", "", "72")``), where another record may hold another number (:func:`siblings`).

    A plain ``frozenset`` is numbers too, with nothing joined, no roles and no places."""

    joined: frozenset[str]
    roles: dict[str, frozenset[str]]
    places: frozenset[Place]

    def __new__(
        cls,
        keys: Iterable[str] = (),
        joined: Iterable[str] = (),
        roles: Mapping[str, frozenset[str]] | None = None,
        places: Iterable[Place] = (),
    ) -> Numbers:
        self = super().__new__(cls, keys)
        self.joined = frozenset(joined)
        self.roles = dict(roles or {})
        self.places = frozenset(places)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Numbers, (frozenset(self), self.joined, self.roles, self.places))

    def without(self, common: Set[str]) -> Numbers:
        """These numbers but those in ``common`` (:func:`rare`)."""
        return Numbers(self - common, self.joined - common, self.roles, self.places)


def _places(words: Sequence[str], digits: Sequence[int]) -> set[Place]:
    """Each word with a digit (at ``digits`` of ``words``) between the word before it and the
    word after it; a word without a letter or a digit (a dash before a source, ``- ap``) and
    the record's ends are ``""``."""

    def near(n: int) -> str:
        word = words[n] if 0 <= n < len(words) else ""
        return word if any(c.isalnum() for c in word) else ""

    return {(near(n - 1), near(n + 1), words[n]) for n in digits}


def _joined(of: frozenset[str]) -> frozenset[str]:
    return of.joined if isinstance(of, Numbers) else frozenset()


def _roles(of: frozenset[str]) -> Mapping[str, frozenset[str]]:
    return of.roles if isinstance(of, Numbers) else {}


def _written_together(pieces: Sequence[str], digit: Sequence[bool]) -> set[str]:
    """The runs of 2 to ``_JOIN_SPAN`` adjacent pieces (words without their punctuation) that
    hold a digit (``digit``, piece by piece), written together, words without a digit among
    them of ``_LETTERS`` letters at most (a unit, a code's letters); a group of digits after
    digits only where it has ``_GROUP`` digits or more. And a whole run of three groups of
    digits or more, of two digits each at least (a phone written in pairs, "08 05 57 63 73").

    >>> sorted(_written_together(["617", "5550101"], [True, True]))
    ['6175550101']
    >>> sorted(_written_together(["price", "1", "5", "gb"], [False, True, True, False]))
    ['5gb']
    """
    out: set[str] = set()
    n = len(pieces)
    for i in range(n):
        held, has = pieces[i], digit[i]
        if not has and len(held) > _LETTERS:
            continue
        for j in range(i + 1, min(n, i + _JOIN_SPAN)):
            piece = pieces[j]
            if digit[j]:
                if piece.isdigit() and len(piece) < _GROUP and pieces[j - 1].isdigit():
                    break
                has = True
            elif len(piece) > _LETTERS:
                break
            held += piece
            if has:
                out.add(held)
    if sum(digit) >= 3:
        run: list[str] = []
        for piece in [*pieces, ""]:
            if piece.isdigit() and len(piece) >= 2:
                run.append(piece)
                continue
            if len(run) >= 3:
                out.add("".join(run))
            run = []
    return out


def _sizes(pieces: Sequence[str]) -> set[str]:
    """The sizes among the pieces, written as one word writes them ("450x45x12", "80x28x202cm"):
    2 to ``_DIMENSIONS`` numbers one after the other, apart ("450 x 45 x 12", five words, more
    than ``_JOIN_SPAN``) or with their "x" gone ("80×28×202" is normalized to "80 28 202"), and
    the unit after the last. Only a run of numbers joins so, and only with an "x": the form
    is one a record holds only as a size.

    >>> sorted(_sizes("slide 450 x 45 x 12 mm".split()))
    ['450x45', '450x45x12', '450x45x12mm', '45x12', '45x12mm']
    """
    out: set[str] = set()
    n = len(pieces)
    for i in range(n):
        if not pieces[i].isdigit():
            continue
        held, count, k = pieces[i], 1, i + 1
        while count < _DIMENSIONS:
            gap = k < n and pieces[k] == "x"
            nxt = k + gap
            if nxt >= n or not pieces[nxt].isdigit():
                break
            held, count, k = f"{held}x{pieces[nxt]}", count + 1, nxt + 1
            out.add(held)
            unit = pieces[k] if k < n else ""
            if unit.isalpha() and unit != "x" and len(unit) <= _LETTERS:
                out.add(held + unit)
    return out


def _role_numbers(pieces: Sequence[str]) -> dict[str, frozenset[str]]:
    """The numbers after each word of :data:`_ROLES` (canonical): a word that starts with a
    digit ("305", "7c") or a roman numeral ("ii": "2"); written with the groups of digits or
    the letter alone after it too ("apt 2 005" is apt 2005, "apt 4 b" apt 4b).

    A number padded with zeros is its value ("vol 01" is vol 1: one catalogue pads volumes,
    units and episodes, the other does not).

    A number written with a unit of measure (:data:`_MEASURES`: "apartment 93m2", "apartment
    93 m2") is a size, not a role's number.

    >>> got = _role_numbers("apt 2 005 part ii no 4 b vol 01 apartment 93m2 no 5 kg".split())
    >>> sorted(got["unit"]), sorted(got["part"]), sorted(got["no"]), sorted(got["vol"])
    (['2', '2005'], ['2'], ['4', '4b'], ['1'])
    """
    out: dict[str, set[str]] = {}
    for n, word in enumerate(pieces[:-1]):
        role = _ROLES.get(word)
        if role is None:
            continue
        nxt = pieces[n + 1]
        if _measured(nxt, pieces[n + 2] if n + 2 < len(pieces) else ""):
            continue
        if nxt[:1].isdigit():
            got, held = {nxt}, nxt
            for after in pieces[n + 2 : n + _JOIN_SPAN]:  # "apt 2 005": apt 2005 too
                if not (held.isdigit() and after.isdigit() and len(after) >= _GROUP):
                    break
                held += after
                got.add(held)
            after = pieces[n + 2] if n + 2 < len(pieces) else ""
            if nxt.isdigit() and len(after) == 1 and after.isalpha():
                got.add(nxt + after)
        elif nxt in _ROMAN:
            got = {_ROMAN[nxt]}
        else:
            continue
        out.setdefault(role, set()).update(_PADDING.sub("", n) for n in got)
    return {role: frozenset(got) for role, got in out.items()}


#: "#" before a number marks which unit of a building, which item of a list ("3461 Elm St #11",
#: "Item #4521"): the index's normalization drops the sign, so it is read first as the word
#: "unit", whose number then names a sibling as "Apt 11" does.
_HASH = re.compile(r"#\s*(?=\d)")


def marked(text: str) -> str:
    """``text`` with "#" before a number written as the word "unit" (:data:`_HASH`).

    >>> marked("3461 Elm St #11, Franklin") == "3461 Elm St  unit 11, Franklin"
    True
    """
    return _HASH.sub(" unit ", text) if "#" in text else text


def _measured(number: str, after: str) -> bool:
    """Whether a number is written with a unit of measure, together ("93m2") or after it."""
    if not number[:1].isdigit():
        return False
    return number.lstrip("0123456789.,") in _MEASURES or after in _MEASURES


def identifiers(words: Iterable[str]) -> Numbers:
    """The numbers of a record's words (in their order) as identifiers, written one way: case
    folded already (normalized words), the punctuation inside dropped ("rl-1299" -> "rl1299"),
    and a code of letters then digits known by its digits too ("rl1299" -> "1299"), so that
    "RL-1299", "RL1299" and "RL 1299" share a number while "KDL-46V3000" and "KDL-52V3000" do
    not.

    >>> sorted(identifiers("bosch rl-1299 camera".split()))
    ['1299', 'rl1299']
    >>> sorted(identifiers("rl 1299".split())), sorted(identifiers(["kdl-46v3000"]))
    (['1299'], ['kdl46v3000'])

    A part number with a suffix is known by the part number alone too, which one catalogue
    writes: ``967685-0403`` shares ``967685`` (a retailer's code against the maker's part
    number: 31 of the 32 pairs the check dropped on a held-out products task were matches).

    >>> sorted(identifiers(["967685-0403"]))
    ['967685', '9676850403']

    One number written in groups, or with its unit apart, is the groups written together
    (``joined``; :func:`shares` reads them): a phone number in parentheses, dots or spaces, a
    price with a thousands separator, ``16 GB``, ``WH 1000 XM4``, a size ``450 x 45 x 12``
    (:func:`_sizes`). And the numbers that follow
    a word naming a sibling's place are the record's ``roles``
    (:func:`roles_differ`).

    >>> n = identifiers("call 617 555-0101 unit 305".split())
    >>> "6175550101" in n.joined, n.roles
    (True, {'unit': frozenset({'305'})})
    """
    words = list(words)
    held = number_words(words)
    # where the words with a digit are, and the words of _ROLES
    digits = [n for n, w in enumerate(words) if w in held] if held else []
    roles = [] if _ROLES.keys().isdisjoint(words) else [
        n for n, w in enumerate(words) if w in _ROLES
    ]  # fmt: skip
    out: set[str] = set()
    for word in held:
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
    if not out and not roles:  # most records: nothing to join, no place named
        return Numbers()
    places = _places(words, digits)
    joined: set[str] = set()
    named: dict[str, frozenset[str]] = {}
    for part in _near(words, digits, roles):  # the words a join or a role reads, in runs
        pieces, digit = [], []
        for w in part:
            piece = w if w.isalnum() else _PUNCTUATION.sub("", w)
            if piece:
                pieces.append(piece)
                digit.append(w in held)
        if out:
            joined |= _written_together(pieces, digit) | _sizes(pieces)
        for role, got in _role_numbers(pieces).items():
            named[role] = named.get(role, frozenset()) | got
    # a role's number padded with zeros is its value in the plain numbers too ("no 05" holds
    # 5): not any number so padded, which is as often the cents of a price ("10 08"), nor a
    # roman numeral's value ("part ii" is no plain 2)
    values = {_PADDING.sub("", k) for k in out if k.isdigit()}
    joined |= values & set().union(*named.values())
    return Numbers(out, joined - out, named, places)


def _near(words: Sequence[str], digits: Sequence[int], roles: Sequence[int]) -> list[list[str]]:
    """The runs of words within ``_JOIN_SPAN - 1`` of a word with a digit, or a word of
    :data:`_ROLES` and the ``_JOIN_SPAN - 1`` after it: every window :func:`_written_together`
    and :func:`_role_numbers` read lies in one, so a long text is read near its numbers only."""
    reach = _JOIN_SPAN - 1
    if len(words) <= 4 * _JOIN_SPAN:  # a short record: read whole
        return [list(words)]
    spans = sorted([(max(0, n - reach), n + reach + 1) for n in digits]
                   + [(n, n + reach + 1) for n in roles])  # fmt: skip
    runs: list[list[str]] = []
    start, end = spans[0]
    for a, b in spans[1:]:
        if a > end:
            runs.append(words[start:end])
            start, end = a, b
        else:
            end = max(end, b)
    runs.append(words[start:end])
    return runs


def shares(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two records share a number: one they both hold, or one of them holds what the
    other writes in adjacent words ("617-555-0101" and "(617) 555-0101"; "$1299" and
    "$1,299.00"; "16GB" and "16 GB"). Not two numbers each written in groups that join alike
    only when joined: each record's own numbers are what is compared.

    >>> shares(identifiers(["6175550101"]), identifiers(["617", "555-0101"]))
    True
    >>> shares(identifiers(["15"]), identifiers(["1", "5"]))
    False
    """
    return not (a.isdisjoint(b) and a.isdisjoint(_joined(b)) and b.isdisjoint(_joined(a)))


def roles_differ(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two records hold different numbers after the same word of :data:`_ROLES`:
    ``unit 305`` and ``unit 306``, ``no 5`` and ``no 6``, ``part i`` and ``part ii``,
    ``apt 7c`` and ``apt 9c``: siblings of one building or one work, though they share the
    house number, the phone or the year. Neither record's numbers after the word are all among
    the other's: a word met twice in one record ("garden apartment 77 elm st apt 1", the title
    then the unit) holds the number after each, and "apt 1" and "apt 2" of one house still
    differ; one record that holds a number more there ("no 14 op 27 no 2" and "op 27 no 2")
    does not.

    >>> unit = lambda text: identifiers(text.split())
    >>> roles_differ(unit("unit 305 1200 main"), unit("unit 306 1200"))
    True
    >>> roles_differ(unit("apt 1201"), unit("apartment 1201 2"))
    False
    """
    ra, rb = _roles(a), _roles(b)
    if not ra or not rb:
        return False
    return any(not (ra[w] <= rb[w] or rb[w] <= ra[w]) for w in ra.keys() & rb.keys())


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
    return [_without(s, common) if not common.isdisjoint(s) else s for s in numbers]


def _without(numbers: frozenset[str], common: Set[str]) -> frozenset[str]:
    return numbers.without(common) if isinstance(numbers, Numbers) else numbers - common


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
    # one code, or one written in the other's adjacent words ("wh 1000 xm4")
    joined = not ca.isdisjoint(_joined(b)) or not cb.isdisjoint(_joined(a))
    if ca and cb and (joined or _codes_shared(ca, cb)):
        return False
    return not shares(a, b) or (bool(ca) and bool(cb))


def _other_value(x: str, y: str) -> bool:
    """Whether two numbers in one place are two values of one kind, not one number written
    two ways: counts (digits alone) that differ but for the zeros they are padded with and
    that are not one year with and without its century (``1979``, ``79``); else the same
    shape (each digit any digit: ``85-80`` and ``112-98`` are two scores, ``kdl-46v3000`` and
    ``kdl-52v3000`` two models) and another value."""
    if x.isdecimal() and y.isdecimal():
        if x[-2:] == y and x[:2] in _CENTURIES and len(x) == 4:
            return False
        if y[-2:] == x and y[:2] in _CENTURIES and len(y) == 4:
            return False
        return (x.lstrip("0") or "0") != (y.lstrip("0") or "0")
    return x != y and _DIGIT.sub("0", x) == _DIGIT.sub("0", y)


def siblings(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two records hold another value of one kind of number in the same place, between
    the same words: ``kills at least 72`` and ``kills at least 15``, ``Meta shares rise 25%``
    and ``Netflix shares rise 12%``, ``to cut 500 jobs`` and ``to cut 1800 jobs``. Such a
    pair is two entities of one template (sibling stories, results, scores) or one number
    keyed in wrong, not one number written two ways: another way to write a number changes its
    shape or the words around it (``4:32`` and ``272 s``, ``1,299`` and ``1299``, ``1979``
    and ``79``, ``702/731-7547`` and ``702-731-7547``), which :func:`count_unshared` looks for.

    >>> ids = lambda text: identifiers(text.split())
    >>> siblings(ids("fire in lagos kills at least 72"), ids("fire in lagos kills at least 15"))
    True
    >>> siblings(ids("radio gypsy length 4 32"), ids("radio gypsy length 272 s"))
    False
    >>> siblings(ids("hold yesterday night 1976"), ids("hold yesterday night 76"))
    False
    """
    pa, pb = getattr(a, "places", ()), getattr(b, "places", ())
    if not pa or not pb:
        return False
    at: dict[tuple[str, str], list[str]] = {}
    for before, after, y in pb:
        at.setdefault((before, after), []).append(y)
    return any(_other_value(x, y) for before, after, x in pa for y in at.get((before, after), ()))


def siblings_said(other: int) -> str:
    """The pairs :func:`count_unshared` set aside as :func:`siblings`, in words after a share
    (empty where none)."""
    if not other:
        return ""
    return (
        f"; {other} more share none but hold another number in the same place: siblings, "
        "not one number written two ways"
    )


def count_unshared(
    pairs: Iterable[tuple[float, K, K]], numbers: Callable[[K], frozenset[str]], waived: float
) -> tuple[int, int, int]:
    """Of the pairs ``(similarity, a, b)`` at least ``waived`` similar whose records both hold
    numbers: how many there are, how many of them share none and could be one number written
    two ways, and how many share none as :func:`siblings` (another value in the same place).
    Each number is read as the data writes it, word by word (not the groups joined of
    :func:`shares`). Where numbers are identifiers, nearly none of such pairs (nearly all
    matches) share none.

    Why as written: where two sources write their numbers in two forms (one ``702/731-7547``,
    the other ``702-731-7547``: D1's restaurants, 97 of 189 alike pairs sharing no number word
    for word, 1 joined), numbers are not the data's identifiers as they stand, and the check is
    not made; made there, reading the phones joined, it dropped 4 pairs, all matches, whose
    phones differed (a restaurant's other line), and cost D1 0.020 F1. The pairs a check made
    drops are read joined (:func:`identifiers_differ`): a record keyed in by another hand does
    not lose its match for the way it writes a number.

    Why siblings apart: the pairs alike enough are nearly all matches only where records are
    not written from one template. Headlines of a news feed (``... kills at least 72``,
    ``... at least 15``), results and scores are alike but for their numbers, and such pairs
    are what the check is for: counted as sharing no number, they turned it off where it
    matters most (hostile sweep hx27, finding 1). They stay among the pairs counted, as pairs
    whose numbers do not say they are written in many forms."""
    both = [(a, b) for s, a, b in pairs if s >= waived and numbers(a) and numbers(b)]
    apart = [(a, b) for a, b in both if numbers(a).isdisjoint(numbers(b))]
    other = sum(1 for a, b in apart if siblings(numbers(a), numbers(b)))
    return len(both), len(apart) - other, other
