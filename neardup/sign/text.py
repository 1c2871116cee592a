"""Text in, comparable text out: normalization, words, exact similarities, id order.

One of each, shared by every stage: the signatures, the verification of candidates, the 2014
searcher and the evaluation all normalize, compare and order ids the same way.

>>> normalize("Art's Deli, 12224 Ventura Blvd.")
'art s deli 12224 ventura blvd'
>>> word_edit_distance("art s deli".split(), "arts deli".split())
2
"""

from __future__ import annotations

import unicodedata
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from ..defaults import DEFAULTS
from ..errors import ArgumentError, InvalidText
from ..keys import id_key
from . import kernel

#: Bump whenever ``normalize`` changes: signatures stored in an index are only comparable with
#: signatures computed under the same normalization. v2: Unicode folding of non-ASCII text.
#: v4: Arabic's and Hebrew's optional marks are folded with the accents (:data:`MARKS_KEPT`).
NORMALIZATION_VERSION = "v4"
#: The normalization that keeps those marks: v3, what an index stored before v4 was built by
#: (it opens with ``fold_marks=False`` and keeps it), and what keeping the accents is.
MARKS_KEPT = "v3"

# Everything in ASCII punctuation except "-" (kept so "bel-air" stays one word), as in the seed.
_PUNCT = "!\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~"
_PUNCT_TABLE = str.maketrans(_PUNCT, " " * len(_PUNCT))

#: Scripts written without spaces between words: each of their characters becomes a word of its
#: own, so word shingles are character n-grams there (as Lucene's CJK analyzers do).
_NO_SPACE_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)
#: Where the optional marks of Arabic and Hebrew are: vowel points, signs of doubling and of no
#: vowel, cantillation and Quranic annotation, which the same word is written with or without
#: (most text has none: ``مُحَمَّد`` is ``محمد``, ``שָׁלוֹם`` is ``שלום``). Of these ranges only the
#: marks (Mn) and Arabic's tatweel and small letters (Lm, a letter stretched or annotated) are
#: folded; Hebrew's punctuation there (maqaf, paseq, sof pasuq, nun hafukha) stays punctuation,
#: and Arabic's symbols (U+06DE, U+06E9) stay symbols. Marks of other scripts stay: an Indic
#: vowel sign or virama, a Thai vowel or tone mark changes the word.
_OPTIONAL_MARK_RANGES = (
    (0x0591, 0x05C7),  # Hebrew: cantillation, niqqud, dagesh, shin and sin dots
    (0x0610, 0x061A),  # Arabic: honorific signs, small fatha, damma and kasra
    (0x0640, 0x0640),  # Arabic tatweel (a stretched joint, not a letter)
    (0x064B, 0x065F),  # Arabic harakat: tanwin, fatha, damma, kasra, shadda, sukun, hamza, madda
    (0x0670, 0x0670),  # Arabic superscript alef
    (0x06D6, 0x06ED),  # Arabic Quranic annotation marks
)
_OPTIONAL_MARKS = [
    code
    for lo, hi in _OPTIONAL_MARK_RANGES
    for code in range(lo, hi + 1)
    if unicodedata.category(chr(code)) in ("Mn", "Lm")
]
#: ``str.translate`` tables that delete the combining diacritics (U+0300-036F), and those with
#: the optional marks.
_ACCENTS = dict.fromkeys(range(0x300, 0x370))
_ACCENTS_AND_MARKS = {**_ACCENTS, **dict.fromkeys(_OPTIONAL_MARKS)}
#: Letters that carry their accent in the letter itself, not in a combining mark.
_LETTER_FOLDS = {"ø": "o", "đ": "d", "ł": "l", "æ": "ae", "œ": "oe", "þ": "th", "ı": "i", "ħ": "h"}


class _CharMap(dict[int, str]):
    """``str.translate`` table for non-ASCII text, filled on first sight of each character:
    invisible format characters are dropped (a soft hyphen, a zero-width space or joiner, a
    byte-order mark inside a word: v3; v2 made them spaces, and "con\u00adtact" two words),
    punctuation, symbols and controls become spaces ("-" stays), characters of scripts without
    spaces are set apart, letters, marks and digits stay."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if char == "-":
            out = char
        elif any(lo <= code <= hi for lo, hi in _NO_SPACE_RANGES):
            out = f" {char} "
        elif unicodedata.category(char) == "Cf":
            out = ""
        elif unicodedata.category(char)[0] in "PSCZ":
            out = " "
        else:
            out = char
        self[code] = out
        return out


_CHAR_MAP = _CharMap()


def _fold_accents(text: str, marks: bool = True) -> str:
    """Strip the combining diacritics of Latin, Greek and Cyrillic letters (é -> e, ё -> е)
    and, with ``marks``, the optional marks of Arabic and Hebrew (:data:`_OPTIONAL_MARK_RANGES`:
    harakat, the hamza and madda over a letter, so أ is ا, tatweel, niqqud, cantillation);
    marks of other scripts (Japanese voicing, Indic vowel signs, Thai vowels and tones) carry
    meaning and stay."""
    decomposed = unicodedata.normalize("NFD", text)
    stripped = decomposed.translate(_ACCENTS_AND_MARKS if marks else _ACCENTS)
    folded = unicodedata.normalize("NFC", stripped)
    if not _LETTER_FOLDS.keys().isdisjoint(folded):
        folded = "".join(_LETTER_FOLDS.get(c, c) for c in folded)
    return folded


def normalize(text: str, fold_accents: bool = True, fold_marks: bool = True) -> str:
    """Lower-case, turn punctuation except '-' into spaces, collapse whitespace, strip.

    Indexer and searcher both call this so that "Art's Deli" and "art s deli" shingle alike.
    Text that is not ASCII is also brought to one form first: NFKC (full-width
    ``Ｓｔａｒｂｕｃｋｓ`` is ``starbucks``), case folding (``Straße`` is ``strasse``) and,
    with ``fold_accents``, accent folding (``Café Müller`` is ``cafe muller``). Characters of
    scripts without spaces between words (Chinese, Japanese, Thai) become words of their own.

    >>> normalize("Ｃａｆé  Müller & Straße")
    'cafe muller strasse'
    >>> normalize("東京都港区")
    '東 京 都 港 区'
    """
    c = kernel.get()
    if text.isascii():
        if c is not None:  # the same rules in C, 10x faster
            return c.normalize(text)
        return " ".join(text.lower().translate(_PUNCT_TABLE).split())
    text = unicodedata.normalize("NFKC", text).casefold()
    if fold_accents:
        text = _fold_accents(text, fold_marks)
    return " ".join(text.translate(_CHAR_MAP).split())


def words(text: str) -> list[str]:
    """Words of the normalized text ([] for blank text)."""
    return normalize(text).split()


def number_words(words: Iterable[str], *, decimal: bool = False) -> frozenset[str]:
    """The words that hold a digit (house and phone numbers, years, model numbers): what the
    numbers checks compare. One definition for every check.

    A digit is what ``str.isdigit`` says (``"²"`` too); with ``decimal``, only a decimal digit
    (``str.isdecimal``, the regular expression ``\\d``), which the learned rule's numbers
    feature has always used. After normalization (NFKC makes ``"²"`` a ``"2"``) the two
    differ only on rare digits such as Kharosthi's.

    >>> sorted(number_words("sony kdl-46v3000 tv 2008".split()))
    ['2008', 'kdl-46v3000']
    >>> number_words(["x²"]), number_words(["x²"], decimal=True)
    (frozenset({'x²'}), frozenset())
    """
    # A word of letters only holds no digit (str.isalpha in C): most words skip the scan.
    if decimal:
        return frozenset(
            w for w in words if not w.isalpha() and any(c.isdecimal() for c in w)
        )
    return frozenset(w for w in words if not w.isalpha() and any(c.isdigit() for c in w))


def char_grams(text: str, k: int) -> list[str]:
    """The character ``k``-grams of ``text`` in order, duplicates kept: the one definition
    behind character shingles, the columns' grams and the accuracy oracle. A text shorter than
    ``k`` is one gram (itself), so that short texts still compare; ``""`` has none.

    >>> char_grams("bel air", 3)
    ['bel', 'el ', 'l a', ' ai', 'air']
    >>> char_grams("ab", 3), char_grams("", 3)
    (['ab'], [])
    """
    if not text:
        return []
    if len(text) < k:
        return [text]
    return [text[i : i + k] for i in range(len(text) - k + 1)]


def check_text(text: str, where: str = "text") -> str:
    """``text`` itself if it has a UTF-8 form, else :class:`InvalidText` saying where.

    Lone surrogates (``"\\ud800"``) are legal in a Python ``str`` but have no UTF-8 form, and
    ``mmh3`` 5.x crashes the interpreter on them instead of raising, so every text is checked
    before it is hashed. Anything but a ``str`` (None, bytes, a number) is an
    :class:`~neardup.errors.ArgumentError` naming ``where``, not an AttributeError from deep
    inside.
    """
    if not isinstance(text, str):
        raise ArgumentError(f"{where} must be a string, not {type(text).__name__}")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise InvalidText(
            f"{where} is not valid Unicode: lone surrogate U+{ord(bad):04X} at character "
            f"{exc.start + 1}"
        ) from None
    return text


def jaccard(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """Exact Jaccard similarity ``|a & b| / |a | b|``; 1.0 when both are empty (equal sets)."""
    sa = a if isinstance(a, set | frozenset) else set(a)
    sb = b if isinstance(b, set | frozenset) else set(b)
    if not sa and not sb:
        return 1.0
    inter = len(sa & sb)
    return inter / (len(sa) + len(sb) - inter)


def sort_ids(ids: Iterable[str]) -> list[str]:
    """``sorted(ids, key=id_key)``, without a key tuple per id where the numeric ids fit in
    64 bits: those are ordered as text, then by value by numpy (stable: ids of one value,
    ``1`` and ``01``, stay in text order, as :func:`~neardup.keys.id_key` has them), the
    others as text. At millions of ids the tuples alone would cost 150 MB.
    """
    ids = ids if isinstance(ids, list) else list(ids)
    numeric = sorted(i for i in ids if i.isdecimal())
    if any(len(i) > 18 for i in numeric):
        return sorted(ids, key=id_key)
    values = np.fromiter(map(int, numeric), dtype=np.int64, count=len(numeric))
    order = np.argsort(values, kind="stable")
    out: list[str] = []
    for lo in range(0, order.size, 1 << 16):  # not one Python int per id at once
        out.extend(numeric[k] for k in order[lo : lo + (1 << 16)].tolist())
    out.extend(sorted(i for i in ids if not i.isdecimal()))
    return out


def ordered(a: str, b: str) -> tuple[str, str]:
    """The pair ``(a, b)`` with the smaller id first."""
    return (a, b) if id_key(a) <= id_key(b) else (b, a)


class WordCodes:
    """Words -> one code point each, so that an edit distance in words is one between strings.

    One instance can serve many comparisons (``neardup.candidates.verify`` encodes each record
    once). ``generation`` grows when the table is full and starts again (past 1,112,064 distinct
    words, the number of Unicode scalar values), so cached encodings of an older generation
    must not be compared with newer ones.
    """

    LIMIT = 0x110000 - 0x800  # scalar values: every code point but the surrogate block

    def __init__(self) -> None:
        self.codes: dict[str, str] = {}
        self.generation = 0

    def encode(self, words: Sequence[str]) -> str:
        codes = self.codes
        try:  # every word known: one C-level map (a third faster than a comprehension)
            return "".join(map(codes.__getitem__, words))
        except KeyError:
            pass
        out = [codes.get(w) for w in words]
        if None in out:
            if len(codes) + len(out) > self.LIMIT:
                if len(out) > self.LIMIT:
                    raise ValueError(f"a text of {len(out):,d} words is too long to compare")
                self.restart()
                out = [None] * len(out)
            for k, w in enumerate(words):
                c = codes.get(w)
                if c is None:
                    i = len(codes)
                    c = codes[w] = chr(i if i < 0xD800 else i + 0x800)  # skip surrogates
                out[k] = c
        return "".join(out)  # type: ignore[arg-type]

    def restart(self) -> None:
        """Forget every code: a new generation begins."""
        self.codes.clear()
        self.generation += 1


def word_edit_distance(a: Sequence[str], b: Sequence[str], max_dist: int | None = None) -> int:
    """Levenshtein distance counted in WORDS (insert/delete/substitute whole words).

    Words are first mapped to unique code points (:class:`WordCodes`) and the resulting strings
    are compared with ``Levenshtein.distance``. We do not pass the word lists directly:
    python-Levenshtein accepts sequences of hashables but compares them by ``hash()`` only
    (verified: objects with equal hashes but unequal values compare as equal), so a hash
    collision would silently be counted as a match. The code-point mapping is exact.

    If ``max_dist`` is given and the distance exceeds it, ``max_dist + 1`` is returned (cheaper:
    the library can stop early), which is all a "within k edits?" filter needs. Without it,
    the distance is exact up to ``DEFAULTS.edit_distance_cap`` words, as verification counts
    it (the exact distance of two long documents costs the product of their lengths).
    """
    if max_dist is not None and max_dist < 0:
        raise ValueError(f"max_dist must be >= 0 or None, got {max_dist}")
    codes = WordCodes()
    cutoff = DEFAULTS.edit_distance_cap if max_dist is None else max_dist
    return encoded_distance(codes.encode(a), codes.encode(b), cutoff)


def encoded_distance(
    sa: str, sb: str, max_dist: int | None = None, hint: int | None = None
) -> int:
    """Edit distance of two :class:`WordCodes` encodings of the same generation (past
    ``max_dist``, ``max_dist + 1``); ``hint``, a guess of it, only makes it faster."""
    import Levenshtein  # local import: only the searchers and the verifier need it

    if max_dist is None:
        return int(Levenshtein.distance(sa, sb, score_hint=hint))
    return int(Levenshtein.distance(sa, sb, score_cutoff=max_dist, score_hint=hint))
