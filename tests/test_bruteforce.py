"""Tests for neardup.candidates.bruteforce: the prefix-filtered join against a naive O(n^2) double
loop."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.candidates.bruteforce import all_pairs, jaccard
from neardup.errors import ArgumentError
from neardup.keys import id_key


def naive_pairs(sets: dict[str, set], threshold: float) -> list[tuple[str, str, float]]:
    """Every pair, by the definition: |a & b| / |a | b| >= threshold, empty sets excluded."""
    ids = sorted(sets, key=lambda i: (0, int(i)) if i.isdigit() else (1, i))
    out = []
    for x in range(len(ids)):
        for y in range(x + 1, len(ids)):
            a, b = sets[ids[x]], sets[ids[y]]
            if not a or not b:
                continue
            sim = len(a & b) / len(a | b)
            if sim >= threshold:
                out.append((ids[x], ids[y], sim))
    return out


def random_sets(rng: random.Random, n: int, alphabet: int, max_size: int) -> dict[str, set]:
    """Sets over a small skewed alphabet, with planted near-copies, so that overlaps abound."""
    sets: dict[str, set] = {}
    for i in range(n):
        if sets and rng.random() < 0.3:  # a near-copy of an earlier set
            base = set(sets[rng.choice(list(sets))])
            for _ in range(rng.randint(0, 3)):
                if base and rng.random() < 0.5:
                    base.discard(rng.choice(sorted(base)))
                else:
                    base.add(f"t{int(rng.paretovariate(1.0)) % alphabet}")
            sets[str(i)] = base
        else:
            size = rng.randint(0, max_size)
            sets[str(i)] = {f"t{int(rng.paretovariate(0.8)) % alphabet}" for _ in range(size)}
    return sets


@pytest.mark.parametrize("threshold", [0.05, 0.1, 0.2, 0.3, 1 / 3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
@pytest.mark.parametrize("seed", range(6))
def test_matches_naive_on_random_sets(seed: int, threshold: float) -> None:
    rng = random.Random(seed)
    sets = random_sets(rng, n=rng.randint(20, 120), alphabet=rng.choice([8, 30, 200]), max_size=12)
    expected = naive_pairs(sets, threshold)
    got = all_pairs(sets, threshold)
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in expected]
    assert [j for *_, j in got] == pytest.approx([j for *_, j in expected], abs=0.0)


@settings(max_examples=200, deadline=None)
@given(
    sets=st.dictionaries(
        st.integers(0, 60).map(str),
        st.sets(st.integers(0, 15), max_size=10),
        max_size=25,
    ),
    threshold=st.floats(min_value=0.0, max_value=1.0, exclude_min=True),
)
def test_matches_naive_hypothesis(sets: dict[str, set], threshold: float) -> None:
    assert all_pairs(sets, threshold) == naive_pairs(sets, threshold)


@pytest.mark.parametrize(
    ("inter", "size_a", "size_b"),
    [(7, 25, 7), (14, 25, 14), (15, 29, 15), (29, 35, 29), (7, 9, 8), (3, 6, 7), (2, 5, 3)],
)
def test_similarity_exactly_at_threshold_is_reported(inter: int, size_a: int, size_b: int) -> None:
    # For t = 7/25 = 0.28, t * 25 == 7.000000000000001 in floating point: a plain ceil() would
    # ask the 25-set for an overlap of 8, shorten its prefix to its 18 rare tokens and miss the
    # pair (the small set is a subset of the big one, so all shared tokens are the frequent ones).
    a = set(range(size_a))
    b = set(range(size_a - inter, size_a - inter + size_b))
    assert len(a & b) == inter
    t = inter / len(a | b)
    assert all_pairs({"1": a, "2": b}, t) == [("1", "2", t)]
    assert Fraction(t).limit_denominator(100) == Fraction(inter, len(a | b))


def test_empty_sets_are_never_reported() -> None:
    sets = {"1": set(), "2": set(), "3": {"x"}, "4": {"x"}}
    for t in (0.01, 0.5, 1.0):
        assert all_pairs(sets, t) == [("3", "4", 1.0)]
    assert all_pairs({"1": set(), "2": set()}, 0.5) == []


def test_identical_sets_have_similarity_one() -> None:
    s = {"a b", "b c", "c d"}
    assert all_pairs({"1": s, "2": set(s), "3": {"a b"}}, 1.0) == [("1", "2", 1.0)]
    assert jaccard(s, set(s)) == 1.0


def test_jaccard_examples() -> None:
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 0.5
    assert jaccard({1}, {2}) == 0.0
    assert jaccard(set(), {1}) == 0.0
    assert jaccard([1, 1, 2], (2, 3)) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 1.0  # same convention as ShingleProcessor.jaccard


def test_ids_are_ordered_numerically_then_as_text() -> None:
    s = {"x", "y"}
    got = all_pairs({"b": s, "10": s, "9": s, "a": s}, 0.9)
    assert [(a, b) for a, b, _ in got] == [
        ("9", "10"),
        ("9", "a"),
        ("9", "b"),
        ("10", "a"),
        ("10", "b"),
        ("a", "b"),
    ]
    assert sorted(["10", "9", "a", "100"], key=id_key) == ["9", "10", "100", "a"]


def test_accepts_a_list_of_pairs_and_frozensets() -> None:
    items = [("2", frozenset("abc")), ("1", frozenset("abd")), ("3", frozenset("xyz"))]
    assert all_pairs(items, 0.5) == [("1", "2", 0.5)]


def test_rejects_bad_input() -> None:
    """Bad input is an ArgumentError (exit code 2 in the CLI), in the constraints' format."""
    with pytest.raises(ArgumentError, match=r"^threshold must be a number in \(0, 1\], got 0.0$"):
        all_pairs({"1": {"a"}}, 0.0)
    with pytest.raises(ArgumentError, match=r"threshold must be a number in \(0, 1\], got 1.5"):
        all_pairs({"1": {"a"}}, 1.5)
    with pytest.raises(ArgumentError, match="duplicate record id '1'"):
        all_pairs([("1", {"a"}), ("1", {"b"})], 0.5)
    with pytest.raises(ArgumentError, match="record ids must be strings, got 1"):
        all_pairs([(1, {"a"})], 0.5)  # type: ignore[list-item]
    with pytest.raises(ArgumentError, match="threshold must be a number in .*, got True"):
        all_pairs({"1": {"a"}}, True)


def test_larger_skewed_input_agrees_with_naive() -> None:
    # Long sets with a heavy-tailed token distribution: prefixes, size filter and duplicates
    # of frequent tokens all matter here.
    rng = random.Random(99)
    sets = {}
    for i in range(300):
        k = rng.randint(1, 60)
        sets[str(i)] = {int(rng.paretovariate(0.6)) % 500 for _ in range(k)}
    for t in (0.25, 0.5, 0.75):
        assert all_pairs(sets, t) == naive_pairs(sets, t)


def test_verify_gives_the_same_pairs_when_the_word_table_restarts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # verify.verify encodes each record's words once in a shared WordCodes table; when the
    # table is full it starts a new generation and stale encodings must not be compared.
    from neardup.candidates.verify import verify
    from neardup.params import Params
    from neardup.sign.text import WordCodes, word_edit_distance

    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(40)]
    base = [rng.choice(vocab) for _ in range(12)]
    texts = {}
    for i in range(30):
        words = list(base)
        for _ in range(rng.randint(0, 3)):
            words[rng.randrange(len(words))] = rng.choice(vocab) + "x"
        texts[str(i)] = " ".join(words)
    content = dict(texts)
    cands = [(a, b) for a in texts for b in texts if int(a) < int(b)]
    proc = Params(threshold=0.5, canonical=False).processor()
    roomy = verify(cands, content, proc, 0.5, progress=False)
    monkeypatch.setattr(WordCodes, "LIMIT", 30)  # two records fit, a few fill it
    restarts = []
    real_restart = WordCodes.restart
    monkeypatch.setattr(WordCodes, "restart", lambda self: (restarts.append(1), real_restart(self)))
    tight = verify(cands, content, proc, 0.5, progress=False)
    assert len(roomy) > 50 and len(restarts) > 10
    assert tight == roomy
    for p in roomy[:50]:
        assert p.edit_distance == word_edit_distance(texts[p.id1].split(), texts[p.id2].split())
    codes = WordCodes()
    codes.encode(["a"] * 5 + ["b"] * 5)
    codes.encode([f"n{i}" for i in range(29)])
    assert codes.generation == 1 and len(codes.codes) == 29
    with pytest.raises(ValueError, match="too long to compare"):
        codes.encode([f"m{i}" for i in range(31)])
