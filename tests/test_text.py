"""neardup.sign.text: the shared building blocks every step uses (number words, character
k-grams)."""

from __future__ import annotations

import re

import pytest

from benchmarks.accuracy import oracle
from neardup import Params
from neardup.decision.columns import _Columns
from neardup.decision.fellegi_sunter import MISSING, features
from neardup.decision.valley import RecordNumbers
from neardup.results import Pair
from neardup.sign.minhash import ShingleProcessor
from neardup.sign.text import char_grams, number_words


def test_number_words_are_the_words_holding_a_digit() -> None:
    words = "sony kdl-46v3000 tv 2008 no. n°5 ٣".split()
    assert number_words(words) == {"kdl-46v3000", "2008", "n°5", "٣"}
    assert number_words([]) == frozenset()
    assert number_words(["tv", "black"]) == frozenset()


def test_number_words_decimal_counts_only_decimal_digits_as_the_regex_does() -> None:
    """The learned rule's feature used ``re.search(r"\\d")``: ``decimal=True`` keeps it."""
    words = ["x²", "①", "a1", "٣", "𐩀"]  # superscript, circled, ASCII, Arabic-Indic, Kharosthi
    assert number_words(words) == {"x²", "①", "a1", "٣", "𐩀"}
    assert number_words(words, decimal=True) == {"a1", "٣"}
    digit = re.compile(r"\d")
    assert number_words(words, decimal=True) == {w for w in words if digit.search(w)}


def test_every_numbers_check_uses_the_one_definition() -> None:
    """The valley's check, the learned rule's feature and the link's check read numbers the
    same way: a word with a digit, after the index's normalization."""
    proc = Params().processor()
    texts = {"a": "Roma 12 Main St", "b": "Rome 12b Main", "c": "Roma Main"}
    numbers = RecordNumbers(texts, proc)
    assert numbers("a") == number_words(proc.normalize(texts["a"]).split()) == {"12"}
    assert numbers("b") == {"12b"} and numbers("c") == frozenset()
    pairs = [Pair("a", "b", 0.5, 1), Pair("a", "c", 0.4, 2)]
    values, names = features(pairs, texts, proc)
    col = names.index("numbers")
    assert values[0, col] == 0.0  # {"12"} and {"12b"} share none
    assert values[1, col] == MISSING  # c holds no number
    # identifiers written two ways are one number, for the checks and the feature alike
    codes = {"a": "Bosch RL-1299 drill", "b": "bosch rl 1299 drill"}
    numbers = RecordNumbers(codes, proc)
    assert numbers("a") & numbers("b") == {"1299"}
    values, names = features([Pair("a", "b", 0.5, 1)], codes, proc)
    assert values[0, names.index("numbers")] > 0.0


@pytest.mark.parametrize(
    ("text", "k", "grams"),
    [
        ("", 3, []),
        ("a", 3, ["a"]),
        ("abc", 3, ["abc"]),
        ("abcd", 3, ["abc", "bcd"]),
        ("aaaa", 2, ["aa", "aa", "aa"]),  # duplicates kept, in order
        ("bel air", 4, ["bel ", "el a", "l ai", " air"]),
        ("東京都", 2, ["東京", "京都"]),
    ],
)
def test_char_grams(text: str, k: int, grams: list[str]) -> None:
    assert char_grams(text, k) == grams


def test_char_grams_is_what_shingles_columns_and_the_oracle_use() -> None:
    """Character shingles, the columns' grams and the oracle's char3 are the same grams."""
    text = "art s deli 12224 ventura"
    proc = ShingleProcessor(3, kind="char", canonical=False)
    assert proc.ngrams(text, prepared=True) == char_grams(text, 3)
    assert oracle.shingles(text, "char3") == frozenset(char_grams(text, 3))
    assert oracle.shingles("ab", "char3") == {"ab"}
    columns = _Columns({"r": {"name": "Art's Deli"}}, ["name"], Params().processor())
    assert columns.grams("r", "name") == frozenset(char_grams("art s deli", 3))
    assert columns.grams("r", "city") is None


def test_number_words_skips_letter_words_without_changing_the_answer() -> None:
    """The letters-only shortcut gives, for every character of the Basic Multilingual Plane
    (alone, after a letter, before a digit), the words that the plain definition gives."""
    def plain(words: list[str], decimal: bool) -> frozenset[str]:
        test = str.isdecimal if decimal else str.isdigit
        return frozenset(w for w in words if any(test(c) for c in w))

    words = [w for i in range(0x10000) if not 0xD800 <= i < 0xE000
             for w in (chr(i), "a" + chr(i), chr(i) + "1")]  # fmt: skip
    for decimal in (False, True):
        assert number_words(words, decimal=decimal) == plain(words, decimal)
    assert len(number_words(words)) > len(number_words(words, decimal=True)) > 60_000


@pytest.mark.parametrize("mark", ["\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_an_invisible_format_character_inside_a_word_is_dropped(mark: str) -> None:
    """A soft hyphen, zero-width space or joiner, word joiner or byte-order mark inside a word
    (text scraped from web pages and PDFs) made it two words: word 1-gram Jaccard 0.45 of two
    copies, the pair missed. Dropped (normalization v3); stored with the index, so an index
    normalized the old way is refused, not mixed."""
    proc = ShingleProcessor(1, kind="word")
    plain = "the quick brown fox jumps over the lazy contact form"
    marked = plain.replace("contact", f"con{mark}tact").replace("quick", f"qu{mark}ick")
    assert proc.normalize(marked) == proc.normalize(plain)
    assert proc.shingle_set(marked) == proc.shingle_set(plain)
    assert proc.params()["normalization"] not in ("v1", "v2")
