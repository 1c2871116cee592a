"""The C kernel gives exactly the signatures of the numpy reference path.

The numpy path is itself checked against a naive pure-Python MinHash in test_minhash.py; here
the two implementations are compared on random, adversarial and Unicode texts, for both hash
families, both shingle kinds and several sizes, seeds and signature lengths.
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.errors import InvalidText
from neardup.sign import banding, kernel
from neardup.sign import minhash as minhash_module
from neardup.sign import text as textmod
from neardup.sign.minhash import EMPTY_SIGNATURE_VALUE, ShingleProcessor

pytestmark = pytest.mark.skipif(
    kernel.compiled() is None and os.environ.get("CI") != "true",
    reason="the C kernel was not built (no C compiler at install time)",
)

# Characters that exercise every rule of normalize(): ASCII punctuation, the hyphen that is
# kept, every ASCII whitespace str.split() knows (including \x1c-\x1f), non-ASCII whitespace
# (\x85, \u3000), case folding that changes length ("İ" lower-cases to two code points), and
# multi-byte UTF-8 of 2, 3 and 4 bytes.
ALPHABET = (
    "aAbBzZ09 -'\".,;:!?()[]{}\\/|@#$%^&*_+=~`<>\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u3000éİß€😀"
)


def both(p: ShingleProcessor, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    return p.signatures_batch(texts), p.signatures_batch_numpy(texts)


def test_kernel_is_built_in_ci() -> None:
    # The Makefile's install compiles it; a silent fall back to numpy would be 10x slower.
    assert kernel.active() == "c"


def test_kernel_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = kernel.compiled()
    calls = []
    names = ("signatures", "normalize", "band_keys", "band_hashes", "any_word", "signed_hashes")
    for name in names:
        monkeypatch.setattr(compiled, name, lambda *a, _n=name: calls.append(_n))
    kernel.use("numpy")
    try:
        assert kernel.active() == "numpy"
        from neardup.sign.banding import band_hashes_batch, band_keys_batch
        from neardup.sign.text import normalize

        sig = ShingleProcessor().signatures_batch(["a b c d"])
        assert (ShingleProcessor().signed_and_hashed(["a b c d"], 1 << 20)[0] == sig).all()
        band_keys_batch(sig, 32, 4)
        band_hashes_batch(sig, 32, 4)
        normalize("Some ASCII text")
        from neardup.sign.canonical import canonicalize

        assert canonicalize("854 Seventh Avenue") == "854 7th ave"
    finally:
        kernel.use("c")
    assert calls == []  # one switch for every call into the kernel
    with pytest.raises(ValueError):
        kernel.use("fortran")


def test_cli_reads_the_kernel_switch_from_the_environment() -> None:
    from .conftest import run_cli

    bad = run_cli("plot", "s-curve", "--out-dir", "/tmp/neardup-kernel-test",
                  env={"NEARDUP_KERNEL": "fortran"})
    assert bad.returncode == 2 and "NEARDUP_KERNEL" in bad.stderr


def test_the_library_reads_the_kernel_switch_from_the_environment() -> None:
    """NEARDUP_KERNEL was applied by the CLI alone (the library kept the C kernel) and
    documented as 'c' or 'python': the library now reads it through neardup.config, the same
    values as the CLI, and refuses a bogus one."""
    import subprocess
    import sys

    from .conftest import REPO, run_cli

    check = "import neardup.sign.kernel as k; print(k.active())"

    def active(value: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                              cwd=str(REPO), env={**os.environ, "NEARDUP_KERNEL": value})

    assert active("numpy").stdout.strip() == "numpy"
    assert active("NumPy ").stdout.strip() == "numpy"
    assert active("c").stdout.strip() == kernel.active()
    bad = active("python")
    assert bad.returncode != 0
    assert "NEARDUP_KERNEL must be 'c' or 'numpy', got 'python'" in bad.stderr, bad.stderr
    cli = run_cli("plot", "s-curve", "--out-dir", "/tmp/neardup-kernel-test",
                  env={"NEARDUP_KERNEL": "python"})
    assert cli.returncode == 2 and "NEARDUP_KERNEL must be 'c' or 'numpy'" in cli.stderr


@pytest.mark.parametrize("family", ["xor", "universal"])
@pytest.mark.parametrize(
    ("kind", "size"),
    [("word", 1), ("word", 2), ("word", 3), ("word", 5), ("char", 1), ("char", 3), ("char", 5)],
)
def test_kernel_equals_numpy_on_random_texts(family: str, kind: str, size: int) -> None:
    rng = random.Random(hash((family, kind, size)) & 0xFFFF)
    vocab = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 9))) for _ in range(300)]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 60))) for _ in range(300)]
    texts += ["", " ", "?!.", "a", "ab", "abcdef", "A-B", "İ", "x" * 100_000]
    p = ShingleProcessor(size, kind=kind, num_perm=67, hash_family=family, seed=rng.randint(0, 99))
    fast, ref = both(p, texts)
    assert fast.dtype == np.uint32 and fast.shape == (len(texts), 67)
    np.testing.assert_array_equal(fast, ref)
    assert fast[300].tolist() == [EMPTY_SIGNATURE_VALUE] * 67  # ""


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(
        st.text(
            alphabet=st.sampled_from(list(ALPHABET)) | st.characters(exclude_categories=("Cs",))
        ),
        max_size=6,
    ),
    kind=st.sampled_from(["word", "char"]),
    size=st.integers(1, 4),
    family=st.sampled_from(["xor", "universal"]),
    seed=st.integers(0, 2**63),
    num_perm=st.integers(1, 40),
)
def test_kernel_equals_numpy_property(
    texts: list[str], kind: str, size: int, family: str, seed: int, num_perm: int
) -> None:
    p = ShingleProcessor(size, kind=kind, num_perm=num_perm, hash_family=family, seed=seed)
    fast, ref = both(p, texts)
    np.testing.assert_array_equal(fast, ref)


@pytest.mark.parametrize("family", ["xor", "universal"])
def test_single_signature_goes_through_the_kernel_and_agrees(family: str) -> None:
    p = ShingleProcessor(3, num_perm=32, hash_family=family)
    text = "Arts Delicatessen, 12224 Ventura Blvd. Studio City"
    assert p.signature(text).tolist() == p.signatures_batch_numpy([text])[0].tolist()
    assert p.signatures(7, text).tolist() == p.signatures_batch_numpy([text])[0][:7].tolist()


def test_kernel_rejects_non_text_with_its_position() -> None:
    p = ShingleProcessor()
    with pytest.raises(TypeError, match="text 1 is bytes"):
        p.signatures_batch(["ok", b"bytes"])  # type: ignore[list-item]


@pytest.mark.parametrize("kind", ["word", "char"])
def test_lone_surrogate_fails_alike_in_both_paths(kind: str) -> None:
    p = ShingleProcessor(2, kind=kind)
    for compute in (p.signatures_batch, p.signatures_batch_numpy):
        with pytest.raises(InvalidText, match="text 1 is not valid Unicode: lone surrogate U"):
            compute(["fine text", "bad \ud800 text"])
    with pytest.raises(ValueError, match="U\\+DC80 at character 5"):
        p.hashes("bad \udc80")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=3000))
def test_c_normalize_equals_the_python_rules(text: str) -> None:
    python_rules = " ".join(text.lower().translate(textmod._PUNCT_TABLE).split())
    assert kernel.compiled().normalize(text) == python_rules
    assert textmod.normalize(text) == python_rules


def test_c_normalize_leaves_non_ascii_to_python() -> None:
    assert kernel.compiled().normalize("café") is None
    assert textmod.normalize("  CAFÉ\u3000Bar ") == "cafe bar"  # \u3000 is whitespace
    with pytest.raises(TypeError, match="needs str"):
        kernel.compiled().normalize(b"bytes")


_WORDS = ["st", "ave", "between", "a", "fifteen-char-wd", "x1"]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_WORDS + ["sts", "s", "ave1", "é", "st\u00a0", "sixteen-char-wd1"]),
            st.text(alphabet="ast \t\n\x1c\x1f\x0b\x85é", max_size=6),
        ),
        max_size=30,
    ).map("".join)
)
def test_c_word_lookup_equals_split_and_set(text: str) -> None:
    c = kernel.compiled()
    found = c.any_word(text, c.word_table(_WORDS))
    if text.isascii():
        assert found == (not set(_WORDS).isdisjoint(text.split()))
    else:
        assert found is None  # left to Python, whose split knows Unicode whitespace


def test_c_word_table_refuses_what_it_cannot_hold() -> None:
    c = kernel.compiled()
    for bad in (["sixteen-char-wd1"], [""], ["café"], ["a b"], [3]):
        with pytest.raises(ValueError):
            c.word_table(bad)
    with pytest.raises(ValueError, match="word_table"):
        c.any_word("st", b"short")
    table = c.word_table(["st", "st", "ave"])  # repeats are one word
    assert c.any_word("main st", table) and not c.any_word("main", table)


@pytest.mark.parametrize(("bands", "rows"), [(1, 1), (21, 6), (32, 4), (3, 5), (120, 1), (2, 9)])
def test_c_band_keys_equal_the_mmh3_reference(bands: int, rows: int) -> None:
    # rows 1-9 make bands of 4-36 bytes: every tail length of MurmurHash3 x64-128 (0, 4, 8, 12)
    rng = np.random.default_rng(bands * 100 + rows)
    sigs = rng.integers(0, 2**32, size=(300, bands * rows + 2), dtype=np.uint64).astype(np.uint32)
    sigs[0] = EMPTY_SIGNATURE_VALUE
    sigs[1] = 0
    fast = banding.band_keys_batch(sigs, bands, rows)
    assert fast == banding.band_keys_batch_python(sigs, bands, rows)
    assert fast[2][bands - 1].startswith(f"b{bands - 1:02d}_") and len(fast[2][0]) in (20, 21)
    # The values written to a Solr index's band fields are those keys' hashes, in C and Python.
    hashes = banding.band_hashes_batch(sigs, bands, rows)
    assert hashes.shape == (300, bands) and hashes.dtype == np.uint64
    assert [[f"b{i:02d}_{h:016x}" for i, h in enumerate(row)] for row in hashes.tolist()] == fast
    kernel.use("numpy")
    try:
        assert (banding.band_hashes_batch(sigs[:20], bands, rows) == hashes[:20]).all()
    finally:
        kernel.use("c")


@pytest.mark.parametrize("family", ["xor", "universal"])
@pytest.mark.parametrize(("kind", "size"), [("word", 1), ("word", 3), ("char", 3)])
def test_signed_hashes_are_the_signatures_and_the_shingle_hashes(
    family: str, kind: str, size: int
) -> None:
    """One pass gives what the two calls give, for ASCII, non-ASCII, short and empty texts."""
    rng = random.Random(11)
    words = ["st", "ave", "café", "straße", "東京", "a", "b-c", "Ünïcode", "x"]
    texts = [" ".join(rng.choices(words, k=rng.randint(0, 30))) for _ in range(400)]
    texts += ["", "   ", "ab", "Ab. C!"]
    texts += [" ".join(f"w{rng.randrange(10**6)}" for _ in range(n)) for n in (47, 49, 900)]
    p = ShingleProcessor(size, kind=kind, hash_family=family)
    sigs, held = p.signed_and_hashed(texts, budget=1 << 30, chunk=64)
    assert held is not None
    values, offsets = p.shingle_hashes(texts)
    assert (sigs == p.signatures_batch(texts)).all()
    assert (held[0] == values).all() and (held[1] == offsets).all()
    for d in range(len(texts)):  # each text's run sorted and distinct, long runs too
        run = values[offsets[d] : offsets[d + 1]].astype(np.int64)
        assert (np.diff(run) > 0).all()
        assert set(run.tolist()) == {int(h) for h in p.hashes(texts[d])}
    assert max(np.diff(offsets)) > 800
    past, none = p.signed_and_hashed(texts, budget=0, chunk=64)  # signatures alone past it
    assert none is None and (past == sigs).all()


def test_signing_on_threads_gives_the_same_signatures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "threads", lambda: 4)
    rng = random.Random(3)
    texts = [" ".join(f"w{rng.randrange(500)}" for _ in range(200)) for _ in range(1_500)]
    calls: list[tuple[int, int]] = []
    real = kernel.in_parts

    def counted(n: int, per_part: int, call: Any, most: int | None = None) -> None:
        real(n, per_part, lambda lo, hi: (calls.append((lo, hi)), call(lo, hi)), most)

    monkeypatch.setattr(kernel, "in_parts", counted)
    p = ShingleProcessor()
    one = p.signatures_batch(texts)
    assert calls == [(0, 1_500)]
    calls.clear()
    split = p.signatures_batch(texts, threads=3)
    assert sorted(calls) == [(0, 500), (500, 1_000), (1_000, 1_500)]
    assert (split == one).all()


def test_an_error_in_any_slice_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "threads", lambda: 2)

    def fail_late(lo: int, hi: int) -> None:
        if lo > 0:
            raise ValueError(f"slice {lo}")

    with pytest.raises(ValueError, match="slice"):
        kernel.in_parts(1_000, 10, fail_late, 2)


def _exact(p: ShingleProcessor, texts: list[str], a: list[int], b: list[int]) -> np.ndarray:
    """The reference: Jaccard of the shingle strings (-1 where one side has none)."""
    out = []
    for i, j in zip(a, b, strict=True):
        x, y = p.shingle_set(texts[i]), p.shingle_set(texts[j])
        out.append(len(x & y) / len(x | y) if x and y else -1.0)
    return np.array(out)


@pytest.mark.parametrize(("kind", "size"), [("word", 1), ("word", 3), ("char", 2), ("char", 3)])
def test_pair_jaccard_equals_the_shingle_sets(kind: str, size: int) -> None:
    rng = random.Random(size * 7 + len(kind))
    vocab = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 6))) for _ in range(40)]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 30))) for _ in range(200)]
    texts += ["", "?!.", "a", "İ", "Café Müller", "cafe muller", "東京都港区", "x" * 50_000]
    a = [rng.randrange(len(texts)) for _ in range(4000)] + [204, 205, 200]
    b = [rng.randrange(len(texts)) for _ in range(4000)] + [205, 204, 201]
    p = ShingleProcessor(size, kind=kind)
    fast = p.pair_jaccard(texts, a, b)
    exact = _exact(p, texts, a, b)
    with pytest.MonkeyPatch.context() as m:  # the pairs cut in slices, one a thread
        m.setattr(minhash_module, "PAIRS_A_THREAD", 700)
        m.setattr(kernel, "threads", lambda: 4)
        np.testing.assert_array_equal(p.pair_jaccard(texts, a, b), fast)
    # 32-bit hashes of distinct shingles may collide: none do here, and where one did it would
    # move a similarity by one shingle in hundreds.
    np.testing.assert_allclose(fast, exact, atol=1e-12)
    assert fast[-3] == 1.0 and fast[-1] == -1.0  # folded alike; "" has no shingles
    kernel.use("numpy")
    try:
        np.testing.assert_allclose(p.pair_jaccard(texts, a, b), exact, atol=1e-12)
    finally:
        kernel.use("c")
    with pytest.raises(IndexError, match="out of range"):
        p.pair_jaccard(texts, [0], [len(texts)])
    with pytest.raises(ValueError, match="one length"):
        p.pair_jaccard(texts, [0, 1], [1])


def test_the_screen_keeps_every_pair_verification_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.corpus import short_records
    from neardup import NearDupIndex
    from neardup.candidates import verify as verify_mod

    calls: list[int] = []
    real = ShingleProcessor.shingle_hashes

    def spy(
        self: ShingleProcessor, texts: list[str], **kw: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(texts))
        return real(self, texts, **kw)

    monkeypatch.setattr(ShingleProcessor, "shingle_hashes", spy)
    index = NearDupIndex()
    index.add_many(short_records(6_000, seed=4))
    screened = index.report()
    # The memory backend kept every record's hashes when it was signed: none are made again.
    assert sum(calls) == 0 and index.backend.shingle_hashes(["0"]) is not None
    calls.clear()
    monkeypatch.setattr(index.backend, "shingle_hashes", lambda ids: None)  # as if not kept
    monkeypatch.setattr(verify_mod, "SCREEN_HASH_BYTES", 0)  # over budget: chunks of pairs
    monkeypatch.setattr(verify_mod, "SCREEN_BYTES", 4096)
    chunked = index.report()
    assert len(calls) > 2, "the chunked screen did not run"
    screens: list[int] = []
    real_screen = verify_mod.hashed_jaccard

    def screen_spy(*args: Any) -> np.ndarray:
        screens.append(1)
        return real_screen(*args)

    monkeypatch.setattr(verify_mod, "hashed_jaccard", screen_spy)
    monkeypatch.setattr(verify_mod, "SCREEN_MIN", 10**12)  # every candidate verified in Python
    plain = index.report()
    assert not screens
    assert screened.candidates == plain.candidates > 10 * len(plain.pairs)
    assert screened.pairs == chunked.pairs == plain.pairs
    assert screened.verified == chunked.verified == plain.verified > 0


def test_hashed_jaccard_checks_its_runs() -> None:
    from neardup.sign.minhash import hashed_jaccard

    p = ShingleProcessor(3, kind="char")
    values, offsets = p.shingle_hashes(["abcd", "abce", ""])
    for name in ("c", "numpy"):
        kernel.use(name)
        try:
            got = hashed_jaccard(values, offsets, [0, 0, 1], [1, 2, 1])
            assert got.round(3).tolist() == [0.333, -1.0, 1.0]
            with pytest.raises(IndexError, match="out of range"):
                hashed_jaccard(values, offsets, [0], [3])
        finally:
            kernel.use("c")
    with pytest.raises(ValueError, match="out of order"):
        kernel.get().jaccard_hashed(values, np.array([0, 5, 2, 4]), np.zeros(1, np.int64),
                                    np.zeros(1, np.int64), np.empty(1))  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_floor_only_cuts_short_the_pairs_below_it(seed: int) -> None:
    """With a floor, a pair that reaches it gets its exact similarity and one that does not
    stays below it (the screen asks no more), on either side of the floor."""
    from neardup.sign.minhash import hashed_jaccard

    rng = np.random.default_rng(seed)
    runs = [np.unique(rng.integers(0, 400, rng.integers(0, 120))) for _ in range(300)]
    values = np.concatenate(runs).astype(np.uint32)
    offsets = np.r_[0, np.cumsum([r.size for r in runs])].astype(np.int64)
    a, b = rng.integers(0, 300, 20_000), rng.integers(0, 300, 20_000)
    exact = hashed_jaccard(values, offsets, a, b)
    for floor in (0.05, 0.15, 0.3, 0.6):
        got = hashed_jaccard(values, offsets, a, b, floor)
        above = exact >= floor
        assert 0 < above.sum() < above.size
        np.testing.assert_array_equal(got[above], exact[above])
        assert (got[~above] < floor).all()
        assert ((exact[~above] == -1) == (got[~above] == -1)).all()


@pytest.mark.parametrize("seed", [0, 1])
def test_the_radix_sort_and_the_fold_equal_numpy(seed: int) -> None:
    from neardup.candidates import buckets as candidates

    rng = np.random.default_rng(seed)
    c = kernel.get()
    for lo, hi, n in [(0, 2**40, 50_000), (-(2**62), 2**62, 30_000), (0, 3, 1_000), (5, 6, 9)]:
        a = rng.integers(lo, hi, n, dtype=np.int64)
        got = a.copy()
        c.sort_i64(got)
        np.testing.assert_array_equal(got, np.sort(a))
    for empty in (np.zeros(0, np.int64), np.zeros(1, np.int64)):
        c.sort_i64(empty)
    for bad in (np.zeros(3, np.uint64), np.zeros(3, np.float64), np.zeros(3, np.int32)):
        with pytest.raises(ValueError, match="int64"):
            c.sort_i64(bad)
    # Packed candidates of several bands, some pairs in up to 20 of them (counts cap at 15).
    keys = rng.integers(0, 3_000, 40_000, dtype=np.int64)
    parts = [(keys[k::4] << candidates.COUNT_BITS) | 1 for k in range(4)]
    parts.append((np.arange(7, dtype=np.int64).repeat(20) << candidates.COUNT_BITS) | 1)
    fast = candidates._unique_counted([p.copy() for p in parts])
    kernel.use("numpy")
    try:
        slow = candidates._unique_counted([p.copy() for p in parts])
    finally:
        kernel.use("c")
    np.testing.assert_array_equal(fast, slow)
    assert (fast[:7] & candidates.COUNT_MAX == candidates.COUNT_MAX).all()


def test_signatures_with_hashes_are_the_two_calls_on_any_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(3)
    words = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))) for _ in range(300)]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 60))) for _ in range(900)]
    p = ShingleProcessor(3, kind="char")
    sigs, held = p.signatures_with_hashes(texts)
    assert held is not None
    monkeypatch.setattr(minhash_module, "TEXT_BYTES_A_THREAD", 2_000)
    monkeypatch.setattr(kernel, "threads", lambda: 4)
    split, (values, offsets) = p.signatures_with_hashes(texts, threads=4)
    np.testing.assert_array_equal(sigs, p.signatures_batch(texts))
    np.testing.assert_array_equal(split, sigs)
    want_values, want_offsets = p.shingle_hashes(texts)
    for got in (held, (values, offsets)):
        np.testing.assert_array_equal(got[0], want_values)
        np.testing.assert_array_equal(got[1], want_offsets)


@pytest.mark.parametrize("kind", ["word", "char"])
@pytest.mark.parametrize("canonical", [True, False])
@pytest.mark.parametrize("split_hyphens", [True, False])
def test_texts_prepared_in_one_kernel_call_are_prepare_s(
    kind: str, canonical: bool, split_hyphens: bool
) -> None:
    """The texts that only need normalizing are prepared in one kernel call, the others by
    prepare(): what the kernel is given is prepare()'s text either way, on texts full of the
    canonical rules' words, ampersands, hyphens and non-ASCII letters."""
    from neardup.sign.canonical import _TRIGGERS

    rng = random.Random(len(kind) * 4 + canonical * 2 + split_hyphens)
    rules = sorted(_TRIGGERS)
    pieces = ["&", "-", "--", "a-b", "-x", "y-", "N.Y.", "O'Brien", "  ", "\t", "é", "Müller",
              "東京", "x" * 20, "1st", "new york city", "AND", "St."]  # fmt: skip
    texts = [
        rng.choice([" ", "", " - "]).join(
            rng.choice(pieces + rules) if rng.random() < 0.4
            else "".join(rng.choice("abcxyz-.,&' ") for _ in range(rng.randint(1, 8)))
            for _ in range(rng.randint(0, 12))
        )
        for _ in range(5_000)
    ]  # fmt: skip
    p = ShingleProcessor(3, kind=kind, canonical=canonical, split_hyphens=split_hyphens)
    if not (canonical or (kind == "char" and split_hyphens)):
        return  # nothing to prepare: the kernel normalizes the texts as given
    plain = kernel.get().prepare_plain(texts, None, False)
    assert sum(x is not None for x in plain) > len(texts) // 10  # the one call did many
    assert p.kernel_ready(texts) == [p.prepare(t) for t in texts]
    with pytest.raises(TypeError, match="text 1 is bytes"):
        p.kernel_ready(["a", b"b"])  # type: ignore[list-item]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 7])
def test_c_exact_char_jaccard_equals_python_sets(k: int) -> None:
    """char_jaccard's exact value is the one of Python's sets of character grams, whatever
    the text: shorter than k (one gram), empty (-1), grams that differ in one byte, and
    non-ASCII texts, which it leaves to Python (NaN)."""
    from neardup.candidates.verify import verified_jaccard

    c = kernel.compiled()
    assert c is not None
    rng = random.Random(k)
    texts = ["", "a", "ab", "abc", "abd", "bel air", "bel airs", "cafe\u00e9", "x y z"]
    texts += ["".join(rng.choice("ab c") for _ in range(rng.randint(0, 30))) for _ in range(300)]
    a = np.array([rng.randrange(len(texts)) for _ in range(3000)] + [1, 4, 7], np.int64)
    b = np.array([rng.randrange(len(texts)) for _ in range(3000)] + [2, 3, 8], np.int64)
    out = np.empty(a.size)
    c.char_jaccard(texts, k, a, b, out)
    sets = [frozenset(textmod.char_grams(t, k)) for t in texts]
    for x, y, got in zip(a.tolist(), b.tolist(), out.tolist(), strict=True):
        want = verified_jaccard(sets[x], sets[y])
        if not (texts[x].isascii() and texts[y].isascii()):
            assert got != got  # NaN: the caller measures it
        elif want is None:
            assert got == -1.0
        else:
            assert got == want, (texts[x], texts[y])
    assert (out[:-3] > 0).sum() > 10 and (out[:-3] == 1.0).sum() >= 3


def test_c_exact_char_jaccard_refuses_what_it_cannot_measure() -> None:
    c = kernel.compiled()
    assert c is not None
    one = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="k must be"):
        c.char_jaccard(["abc"], 8, one, one, np.empty(1))
    with pytest.raises(TypeError, match="text 1 is not str"):
        c.char_jaccard(["abc", b"abc"], 3, one, one, np.empty(1))
    with pytest.raises(IndexError, match="out of range"):
        c.char_jaccard(["abc"], 3, one, one + 1, np.empty(1))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"canonical": False},
        {"split_hyphens": False},
        {"canonical": False, "split_hyphens": False},
    ],
)
def test_prepared_in_bulk_equals_prepare(options: dict[str, Any]) -> None:
    """ShingleProcessor.prepared (what the kernel's exact check reads) is prepare(), text by
    text, for every combination of canonical forms and hyphens, with the kernel on or off."""
    proc = ShingleProcessor(3, kind="char", **options)
    texts = ["Well-Known  CAFE!", "12 Main St. & Co", "Caf\u00e9 M\u00fcller", "", "A-B-C road",
             "Saint Street West", "N.Y.C. 5th Ave", "Ｔｏｋｙｏ"]  # fmt: skip
    want = [proc.prepare(t) for t in texts]
    assert proc.prepared(texts) == want
    kernel.use("numpy")
    try:
        assert proc.prepared(texts) == want
    finally:
        kernel.use("c")
