"""Tests for neardup.sign.canonical: the rules, their limits on prose, and idempotence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.sign.canonical import (
    CANONICAL_VERSION,
    DIRECTIONALS,
    STREET_SUFFIXES,
    canonicalize,
)
from neardup.sign.text import normalize

# Words that trigger the rules, mixed with ordinary ones, so that random texts hit rule
# interactions (clauses next to ordinals next to suffixes ...).
TRICKY = [
    "between", "and", "&", "at", "near", "off", "the", "new", "york", "city", "nyc",
    "street", "st", "st.", "sts", "str", "avenue", "ave", "aves", "av", "blvd", "blv",
    "road", "rd", "place", "pl", "square", "drive", "circle", "saint", "suite",
    "north", "n", "south", "s", "east", "e.", "west", "w", "southwest",
    "first", "second", "seventh", "twenty", "twenty-first", "fifth",
    "1st", "7th", "54th", "55th", "14", "12", "854", "2450", "293-b",
    "broadway", "park", "main", "walker", "white", "hudson", "cafe", "grill", ",", "(la)",
]  # fmt: skip

PROSE = (
    "The committee met on Tuesday to discuss the budget. Officials said the talks between the "
    "two parties were constructive, and the first vote is expected next week. A second round "
    "may follow if the senators cannot agree on the spending cuts proposed by the governor."
)


def words(text: str) -> list[str]:
    return normalize(text).split()


def test_version() -> None:
    assert CANONICAL_VERSION == "addr-v1"


@pytest.mark.parametrize(
    "variants",
    [
        ["854 seventh ave.", "854 7th avenue", "854 Seventh Avenue", "854 7th av"],
        ["570 4th st.", "570 fourth street", "570 Fourth Str."],
        ["12224 Ventura Blvd.", "12224 ventura boulevard", "12224 ventura blv."],
        ["3130 piedmont road", "3130 Piedmont Rd."],
        ["7 claude lane", "7 claude ln."],
        ["439 n. beverly drive", "439 North Beverly Dr."],
        ["1 margaret mitchell square", "1 margaret mitchell sq."],
        ["2930 beverly glen circle", "2930 beverly glen cir."],
        ["8358 sunset blvd. w. hollywood", "8358 sunset boulevard west hollywood"],
        ["1 w 21st st", "1 West Twenty-First Street", "1 west twenty first street"],
        ["322 e. 14 st.", "322 east 14th street"],
        ["gotham bar & grill", "gotham bar and grill", "Gotham Bar&Grill"],
        ["21 w. 52nd st. new york", "21 w. 52nd st. new york city", "21 w 52nd st NYC"],
        ["st. louis", "saint louis"],
    ],
)
def test_variants_get_one_form(variants: list[str]) -> None:
    forms = {canonicalize(v) for v in variants}
    assert len(forms) == 1, forms


def test_canonical_forms_are_the_usps_abbreviations() -> None:
    assert canonicalize("854 Seventh Avenue") == "854 7th ave"
    assert canonicalize("2 Harrison Street") == "2 harrison st"
    assert canonicalize("North Point") == "n point"
    assert canonicalize("new york city") == "new york"


@pytest.mark.parametrize(
    ("with_clause", "without"),
    [
        ("854 7th ave.  between 54th and 55th sts. new york", "854 seventh ave. new york city"),
        ("2450 broadway  between 90th and 91st sts. new york", "2450 broadway new york city"),
        ("239 w. broadway  between walker and white sts. new york", "239 w. broadway new york"),
        ("42 e. 20th st.  between park ave. s and broadway new york", "42 e. 20th st. new york"),
        ("60 w. 55th st.  between 5th and 6th ave. new york", "60 w. 55th st. new york"),
        ("20 mott st.  between bowery and pell st. new york", "20 mott st. new york"),
        ("156 2nd ave. at 10th st. new york", "156 second ave. new york city"),
        ("2 harrison st.  near hudson st. new york", "2 harrison st. new york"),
        ("57 jane st.  off hudson st. new york", "57 jane st. new york"),
        ("95 ave. a at 6th st. new york", "95 ave. a new york"),
        ("255 courtland st.  at harris st. atlanta", "255 courtland st. atlanta"),
    ],
)
def test_cross_street_clauses_are_dropped_in_addresses(with_clause: str, without: str) -> None:
    assert canonicalize(with_clause) == canonicalize(without)


@pytest.mark.parametrize(
    "sentence",
    [
        "The talks between France and Germany resumed at noon.",
        "Prices rose between 1990 and 2000 across the region.",
        "She finished between 3rd and 5th place in every race.",
        "We met at 5th street after the show.",
        "He lives near the old mill and works off the coast.",
        "The war between the north and the south lasted years.",
    ],
)
def test_clauses_are_kept_outside_addresses(sentence: str) -> None:
    # Nothing is deleted or reordered: each word is kept or replaced by its table abbreviation.
    got = canonicalize(sentence).split()
    table = {**STREET_SUFFIXES, **DIRECTIONALS}
    assert got == [table.get(w, w) for w in words(sentence)]


def test_prose_keeps_its_content_words() -> None:
    got = canonicalize(PROSE).split()
    assert got == words(PROSE)  # no street, direction or city word in it: unchanged


def test_ordinal_words_change_only_before_a_street_suffix() -> None:
    assert canonicalize("the first time") == "the first time"
    assert canonicalize("a second opinion") == "a second opinion"
    assert canonicalize("second avenue deli") == "2nd ave deli"
    assert canonicalize("the twelfth street bridge") == "the 12th st bridge"
    assert canonicalize("11 e 113 st") == "11 e 113th st"
    assert canonicalize("12 main st") == "12 main st"  # a house number stays a number


def test_la_and_content_words_are_not_touched() -> None:
    assert canonicalize("624 s. la brea ave. los angeles") == "624 s la brea ave los angeles"
    assert canonicalize("restaurant katsu") == "restaurant katsu"
    assert canonicalize("apple pan  the") == "apple pan the"


def test_empty_and_blank() -> None:
    assert canonicalize("") == ""
    assert canonicalize("  ,.;  ") == ""


def test_canonical_words_map_to_themselves() -> None:
    for table in (STREET_SUFFIXES, DIRECTIONALS):
        for canon in set(table.values()):
            assert canonicalize(canon) == canon


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=25).map(" ".join))
def test_idempotent_on_address_like_text(text: str) -> None:
    once = canonicalize(text)
    assert canonicalize(once) == once
    assert normalize(once) == once


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_idempotent_on_any_text(text: str) -> None:
    once = canonicalize(text)
    assert canonicalize(once) == once
    assert normalize(once) == once


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([w for w in TRICKY if w not in ("between", "at", "near", "off", "city")]),
        max_size=25,
    ).map(" ".join)
)
def test_no_word_is_deleted_without_a_clause_word(text: str) -> None:
    # Only the cross-street clauses and "new york city" remove words; "&" and "nyc" add one;
    # a compound ordinal ("twenty first st" -> "21st st") merges a tens word into its ordinal.
    tens = {"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
    merged = sum(w in tens for w in words(text))
    assert len(canonicalize(text).split()) >= len(words(text)) - merged


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TRICKY + PROSE.split()), max_size=30).map(" ".join))
def test_fast_path_gives_what_the_rules_give(text: str) -> None:
    # canonicalize() returns early when no word can trigger a rule; the rules must agree.
    from neardup.sign import canonical

    words = normalize(text.replace("&", " and ")).split()
    assert canonicalize(text) == canonical._canonical_words(words)


def test_fast_path_is_taken_for_plain_prose_and_not_for_addresses() -> None:
    from neardup.sign import canonical

    assert canonical._TRIGGERS.isdisjoint(normalize("the committee met on tuesday").split())
    for address in ("12 main street", "between 5th and 6th", "new york city", "west 54th"):
        assert not canonical._TRIGGERS.isdisjoint(normalize(address).split())
