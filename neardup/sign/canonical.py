"""Canonical text for US-style name/address records: one spelling for each thing.

Two listings of the same place are often written differently: ``"854 seventh avenue"`` and
``"854 7th ave."``, ``"w. hollywood"`` and ``"west hollywood"``, ``"bar & grill"`` and ``"bar and
grill"``, with or without a cross-street hint (``"between 54th and 55th sts."``). Shingles see
those as different words. :func:`canonicalize` rewrites the text so that such variants become
identical, with GENERAL rules (postal conventions, not rules fitted to one data set):

1. ``&`` becomes ``and`` (before :func:`~neardup.sign.text.normalize`, which would delete it).
2. :func:`~neardup.sign.text.normalize`: lower case, punctuation except ``-`` removed.
3. Street suffixes take their USPS standard abbreviation (Publication 28, appendix C1):
   ``street/st/str -> st``, ``avenue/ave/av -> ave``, ``boulevard/blvd/blv -> blvd``,
   ``road -> rd``, ``drive -> dr``, ``place -> pl``, ``lane -> ln``, ``highway -> hwy``,
   ``parkway -> pkwy``, ``square -> sq``, ``court -> ct``, ``circle -> cir``, ... (see
   :data:`STREET_SUFFIXES`). The abbreviation is chosen as canonical form because it is the
   postal standard and, being short, it adds few character shingles shared by unrelated
   addresses. Unit designators ``suite/apartment/building`` become ``ste/apt/bldg`` (appendix
   C2) and ``saint`` becomes ``st`` (as in "St. Louis"; it then shares the token of street,
   which only ever merges spellings, never content).
4. Directionals take their USPS abbreviation: ``north -> n``, ``southwest -> sw``, ...
5. Ordinal words before a street suffix become numbers: ``seventh ave -> 7th ave``,
   ``twenty-first st -> 21st st``; a bare number after a directional and before ``st``/``ave``
   gets its ordinal ending (``e 14 st -> e 14th st``). Elsewhere ordinal words are left alone,
   so prose keeps "the first time".
6. ``new york city`` and ``nyc`` become ``new york`` (the city's postal name).
7. Cross-street hints are removed, but ONLY in an address context (one of the two previous
   words is a street suffix, a directional or a house number) and only in address shapes: a
   cross street is not part of a postal address, but directories add them at will.

   * ``between X and Y <suffix>`` (``between 54th and 55th sts``, ``between walker and white
     sts``), ``between <ordinal> and <ordinal>`` and ``between <... suffix> and <word>``
     (``between park ave s and broadway``), with X and Y of one to three words;
   * ``at|near|off X <suffix>`` with X of one to three words (``at 65th st``, ``near hudson
     st``, ``off 1st ave``).

   The suffixes that close a clause are the through-street ones (st, ave, rd, blvd, dr, hwy,
   pkwy and their plurals), so "between 3rd and 5th place" in a sentence stays.

Deliberately NOT done, because it is not general or not safe: ``la`` is not expanded (it is
"Los Angeles", "lane" and the article in "la brea"); words such as ``restaurant`` or ``cafe``
are content words and stay; parenthesised qualifiers cannot be told from content; building,
mall or shopping-centre names after the street are kept (they have no reliable boundary). The
article ``the`` is kept although directories invert it (``"palm, the"``): with word 1-gram or
character shingles its position hardly matters, and dropping it measured no gain on the
restaurant benchmark (``benchmarks/restaurant_tuning.py``).

The function is deterministic, idempotent (``canonicalize(canonicalize(x)) ==
canonicalize(x)``: the word rules are applied until nothing changes, and every canonical form
maps to itself), and its output is already normalized. Give it the raw text when you can (so
``&`` is still visible); already normalized text works too.
"""

from __future__ import annotations

import re

from . import kernel
from .text import normalize

__all__ = [
    "CANONICAL_VERSION",
    "DIRECTIONALS",
    "STREET_SUFFIXES",
    "canonicalize",
]

#: Stored with an index: shingles made under another canonical form are not comparable.
CANONICAL_VERSION = "addr-v1"

#: Street suffix spellings -> USPS standard abbreviation (Publication 28, C1; common subset).
STREET_SUFFIXES: dict[str, str] = {}
for _canon, _variants in {
    "st": ("street", "st", "str", "strt"),
    "ave": ("avenue", "ave", "av", "aven", "avenu", "avn", "avnue"),
    "blvd": ("boulevard", "blvd", "blv", "boul", "boulv"),
    "rd": ("road", "rd"),
    "dr": ("drive", "dr", "drv", "driv"),
    "pl": ("place", "pl"),
    "ln": ("lane", "ln"),
    "hwy": ("highway", "hwy", "hiway", "hiwy", "hway"),
    "pkwy": ("parkway", "pkwy", "parkwy", "pkway", "pky"),
    "sq": ("square", "sq", "sqr", "sqre", "squ"),
    "ct": ("court", "ct"),
    "cir": ("circle", "cir", "circ", "circl", "crcl", "crcle"),
    "ter": ("terrace", "ter", "terr"),
    "plz": ("plaza", "plz", "plza"),
    "expy": ("expressway", "expy", "expw"),
    "fwy": ("freeway", "fwy", "frwy", "frway"),
    "tpke": ("turnpike", "tpke", "trnpk", "turnpk"),
    "trl": ("trail", "trl"),
    "ctr": ("center", "centre", "ctr", "cntr"),
    "hts": ("heights", "hts"),
}.items():
    for _v in _variants:
        STREET_SUFFIXES[_v] = _canon

#: Directional spellings -> USPS abbreviation (Publication 28, appendix B).
DIRECTIONALS: dict[str, str] = {
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
    "northeast": "ne",
    "northwest": "nw",
    "southeast": "se",
    "southwest": "sw",
}

_OTHER_WORDS = {
    "saint": "st",
    "suite": "ste",
    "apartment": "apt",
    "building": "bldg",
    "bldg": "bldg",
    "nyc": "new york",
}

# One dict lookup per token; every value maps to itself (idempotence).
_WORD_MAP: dict[str, str] = {**STREET_SUFFIXES, **DIRECTIONALS, **_OTHER_WORDS}

_SUFFIX_FORMS = frozenset(STREET_SUFFIXES.values())
_DIR_FORMS = frozenset(DIRECTIONALS.values())
# Through-street suffixes (canonical and plural spellings) that may close a cross-street clause.
_CROSS = frozenset(
    ["st", "ave", "rd", "blvd", "dr", "hwy", "pkwy"]
    + ["sts", "streets", "aves", "avs", "avenues", "rds", "roads", "blvds", "boulevards"]
    + ["drs", "drives", "hwys", "highways", "pkwys", "parkways"]
)
_CONTEXT = _SUFFIX_FORMS | _DIR_FORMS | _CROSS
_CLAUSE_WORDS = frozenset(["between", "and", "at", "near", "off"])

_UNITS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_TENTHS = {w[:-1] + "ieth": n for w, n in _TENS.items()}  # twentieth, thirtieth, ...
_ORDINAL_WORDS: dict[str, int] = {**_UNITS, **_TENTHS}
_ORDINAL_WORDS.update(
    {f"{t}-{u}": tn + un for t, tn in _TENS.items() for u, un in _UNITS.items() if un < 10}
)

_NUMERIC_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
_HOUSE_NUMBER = re.compile(r"\d+[a-z]?(?:-\d+[a-z]?)?")
_BARE_NUMBER = re.compile(r"\d{1,3}")


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


#: A text none of whose words is in this set is already canonical: every rule needs one of them
#: (a word to rewrite, "city" of "new york city", the street suffix after an ordinal, "between",
#: or the cross-street word of an "at/near/off" clause). Checked first, it spares most prose the
#: rule passes (canonicalization was 30% of indexing a 200-word document).
_TRIGGERS = frozenset(_WORD_MAP) | _SUFFIX_FORMS | _CROSS | {"city", "between"}


#: :data:`_TRIGGERS` as the C kernel's word table (None without the kernel): looking the words
#: of an ASCII text up in C makes no string for each, and splitting 100k documents of 200 words
#: into strings only to find none of them here took 1.2 s a pass.
_TRIGGER_TABLE: bytes | None = None
if kernel.compiled() is not None:
    _TRIGGER_TABLE = kernel.compiled().word_table(sorted(_TRIGGERS))


def trigger_table() -> bytes | None:
    """The words a rule needs as the C kernel's word table (None without the kernel)."""
    return _TRIGGER_TABLE


def has_trigger(normal: str) -> bool:
    """Whether a word of the normalized text ``normal`` is one a rule needs (in C when the
    kernel is active and the text is ASCII; the same answer either way).

    >>> has_trigger("854 seventh avenue"), has_trigger("the quick brown fox")
    (True, False)
    """
    c = kernel.get()
    if c is not None and _TRIGGER_TABLE is not None:
        found = c.any_word(normal, _TRIGGER_TABLE)
        if found is not None:
            return bool(found)
    return not _TRIGGERS.isdisjoint(normal.split())


def canonicalize(text: str, fold_accents: bool = True, fold_marks: bool = True) -> str:
    """Canonical, normalized form of ``text`` (see the module docstring for the rules)."""
    text = text.replace("&", " and ") if "&" in text else text
    normal = normalize(text, fold_accents, fold_marks)
    if not has_trigger(normal):
        return normal  # normalized text is its words joined by one space
    return _canonical_words(normal.split())


def _canonical_words(words: list[str]) -> str:
    """The rules applied until nothing changes (the fast path's exact reference)."""
    while True:
        new = _drop_clauses(_rewrite(words))
        if new == words:
            return " ".join(words)
        words = new


def _rewrite(words: list[str]) -> list[str]:
    """Word-level rules 3-6: one pass."""
    out: list[str] = []
    for w in words:
        m = _WORD_MAP.get(w)
        if m is None:
            out.append(w)
        elif " " in m:
            out.extend(m.split())
        else:
            out.append(m)
    # "new york city" -> "new york"
    i = 0
    res: list[str] = []
    n = len(out)
    while i < n:
        w = out[i]
        if w == "new" and i + 2 < n and out[i + 1] == "york" and out[i + 2] == "city":
            res += ["new", "york"]
            i += 3
            continue
        nxt = out[i + 1] if i + 1 < n else ""
        if nxt in _SUFFIX_FORMS:
            num = _ORDINAL_WORDS.get(w)
            if num is not None:
                if res and res[-1] in _TENS:  # "twenty first st"
                    num += _TENS[res.pop()]
                res.append(_ordinal(num))
                i += 1
                continue
            if (
                nxt in ("st", "ave")
                and _BARE_NUMBER.fullmatch(w)
                and res
                and res[-1] in _DIR_FORMS
                and int(w) > 0
            ):
                res.append(_ordinal(int(w)))
                i += 1
                continue
        res.append(w)
        i += 1
    return res


def _address_context(words: list[str], i: int) -> bool:
    """One of the two words before position ``i`` looks like part of a street address."""
    for j in (i - 1, i - 2):
        if j >= 0 and (words[j] in _CONTEXT or _HOUSE_NUMBER.fullmatch(words[j])):
            return True
    return False


def _phrase(words: list[str], start: int, max_len: int) -> int:
    """Length (0..max_len) of the run of non-clause words starting at ``start``."""
    k = 0
    while k < max_len and start + k < len(words) and words[start + k] not in _CLAUSE_WORDS:
        k += 1
    return k


def _clause_end(words: list[str], i: int) -> int | None:
    """End (exclusive) of a cross-street clause starting at ``words[i]``, or None."""
    w = words[i]
    if w == "between":
        nx = _phrase(words, i + 1, 3)
        j = i + 1 + nx  # position of "and"
        if nx == 0 or j >= len(words) or words[j] != "and":
            return None
        ny = _phrase(words, j + 1, 4)
        for k in range(j + 2, j + 1 + ny):  # "between X and Y <suffix>", Y of 1-3 words
            if words[k] in _CROSS:
                return k + 1
        if ny == 0:
            return None
        x, y = words[i + 1 : j], words[j + 1]
        if len(x) == 1 and _NUMERIC_ORDINAL.fullmatch(x[0]) and _NUMERIC_ORDINAL.fullmatch(y):
            return j + 2  # "between 5th and 6th"
        if x[-1] in _CROSS or (len(x) > 1 and x[-1] in _DIR_FORMS and x[-2] in _CROSS):
            return j + 2  # "between park ave s and broadway"
        return None
    if w in ("at", "near", "off"):
        ny = _phrase(words, i + 1, 4)
        for k in range(i + 2, i + 1 + ny):  # "at X <suffix>", X of 1-3 words
            if words[k] in _CROSS:
                return k + 1
    return None


def _drop_clauses(words: list[str]) -> list[str]:
    """Rule 7: remove cross-street clauses found in an address context."""
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] in ("between", "at", "near", "off") and _address_context(words, i):
            end = _clause_end(words, i)
            if end is not None:
                i = end
                continue
        out.append(words[i])
        i += 1
    return out
