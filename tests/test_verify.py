"""Verification on codes: components found with numpy, texts held by code, the same pairs as a
pair-by-pair check."""

from __future__ import annotations

import random

import numpy as np
import pytest

from neardup import NearDupIndex, Params
from neardup.candidates.text_table import Gathered, TextTable
from neardup.candidates.verify import verify
from neardup.graph import clusters, component_labels
from neardup.keys import id_key
from neardup.sign.text import sort_ids, word_edit_distance


@pytest.mark.parametrize("seed", range(20))
def test_component_labels_are_the_union_find_clusters(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    m = int(rng.integers(0, 300))
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    label = component_labels(a, b, n)
    edges = zip(a.tolist(), b.tolist(), strict=True)
    found = clusters([(str(x), str(y)) for x, y in edges if x != y])
    roots = []
    for cluster in found:
        members = [int(x) for x in cluster]
        assert {int(label[x]) for x in members} == {min(members)}
        roots.append(min(members))
    alone = set(range(n)) - {int(x) for c in found for x in c}
    assert all(label[x] == x for x in alone)
    assert len(set(roots)) == len(roots)


def test_a_long_chain_is_one_component() -> None:
    n = 10_000
    order = np.random.default_rng(3).permutation(n)
    label = component_labels(order[:-1], order[1:], n)
    assert set(label.tolist()) == {0}


def test_text_table_tells_apart_ids_that_sort_as_one() -> None:
    ids = sorted(["7", "07", "007", "10", "a", "b"], key=id_key)
    table = TextTable(ids, [f"text of {i}" for i in ids])
    assert [table[i] for i in ("7", "07", "007", "10", "a")] == [
        "text of 7", "text of 07", "text of 007", "text of 10", "text of a"
    ]  # fmt: skip
    assert table.get("8") is None and "x" not in table and len(table) == 6
    scripts = TextTable(["1", "2", "3"], ["Café Müller", "", "東京都 Ｓｔａｒ ☕"])
    assert [scripts[i] for i in ("1", "2", "3")] == ["Café Müller", "", "東京都 Ｓｔａｒ ☕"]


def test_texts_gathered_in_any_order_make_the_table_of_their_ids() -> None:
    """The verified pairs' texts come in batches, an id in several: each is kept once, and
    the table in id order reads them back as a table made from the texts directly."""
    gathered = Gathered()
    gathered.add(["b", "07", "a"], ["text b", "Café Müller", ""])
    gathered.add(["a", "7", "b"], ["text a again", "東京都 ☕", "text b again"])
    assert len(gathered) == 4 and gathered.ids() == ["b", "07", "a", "7"]
    ids = sort_ids(gathered.ids())
    table = gathered.table(ids)
    direct = TextTable(ids, [{"a": "", "b": "text b", "07": "Café Müller", "7": "東京都 ☕"}[i]
                             for i in ids])  # fmt: skip
    assert [table.text(k) for k in range(4)] == [direct.text(k) for k in range(4)]
    assert table["a"] == "" and table["b"] == "text b" and table["7"] == "東京都 ☕"
    assert len(gathered) == 0  # the table holds the texts now, not both


@pytest.mark.parametrize("seed", range(5))
def test_verify_keeps_exactly_the_pairs_a_pair_by_pair_check_keeps(seed: int) -> None:
    rnd = random.Random(seed)
    words = [f"w{k}" for k in range(12)]
    texts: dict[str, str] = {}
    for k in range(120):
        rid = rnd.choice([str(k), f"0{k}", f"r{k}"])
        texts[rid] = " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 7)))
    ids = list(texts)
    cands = {tuple(rnd.sample(ids, 2)) for _ in range(900)}
    proc = Params(threshold=0.4, shingle_size=1).processor()
    got = verify(list(cands), texts, proc, 0.4, screened=True)
    want = []
    for a, b in cands:
        a, b = (a, b) if id_key(a) <= id_key(b) else (b, a)
        sa, sb = proc.shingle_set(texts[a]), proc.shingle_set(texts[b])
        if sa and sb and len(sa & sb) / len(sa | sb) >= 0.4:
            dist = word_edit_distance(
                proc.normalize(texts[a]).split(), proc.normalize(texts[b]).split()
            )
            want.append((a, b, round(len(sa & sb) / len(sa | sb), 6), dist))
    want = sorted(set(want), key=lambda p: (id_key(p[0]), id_key(p[1])))
    assert [(p.id1, p.id2, p.jaccard, p.edit_distance) for p in got] == want
    assert len(want) > 20


@pytest.mark.parametrize("seed", range(10))
def test_sort_ids_orders_as_id_key_does(seed: int) -> None:
    rnd = random.Random(seed)
    shapes = [lambda: str(rnd.randint(0, 60)), lambda: f"0{rnd.randint(0, 60)}",
              lambda: f"r{rnd.randint(0, 9)}", lambda: "²", lambda: "١٢", lambda: "Z"]  # fmt: skip
    ids = list(dict.fromkeys(rnd.choice(shapes)() for _ in range(rnd.randint(0, 80))))
    assert sort_ids(ids) == sorted(ids, key=id_key)
    big = [*ids, "123456789012345678901234"]  # past 64 bits: the plain sort
    assert sort_ids(big) == sorted(big, key=id_key)
    assert id_key("²") == (1, 0, "²")  # a digit int() cannot read sorts as text


def test_exact_check_in_the_kernel_gives_the_sets_pairs() -> None:
    """verify_codes measures character grams in the kernel (ASCII texts) and by Python sets
    (the rest, and without the kernel): the same pairs, Jaccard values and distances."""
    from neardup.candidates.verify import verify_codes
    from neardup.sign import kernel

    if kernel.compiled() is None:
        pytest.skip("the C kernel is not built")
    rng = random.Random(7)
    words = ["cafe", "caf\u00e9", "main", "st", "bel-air", "m\u00fcller", "road", "12", "&"]
    ids = [f"r{i:03d}" for i in range(120)]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))) for _ in ids]
    first = np.array([i for i in range(120) for j in range(i + 1, 120) if (i * j) % 7 == 0])
    second = np.array([j for i in range(120) for j in range(i + 1, 120) if (i * j) % 7 == 0])
    proc = Params(shingle_kind="char", shingle_size=3).processor()
    table = TextTable(ids, texts)
    fast = verify_codes(first, second, table, proc, 0.3)
    kernel.use("numpy")
    try:
        slow = verify_codes(first, second, table, proc, 0.3)
    finally:
        kernel.use("c")
    assert fast == slow and len(fast) > 50
    assert any(not (table[p.id1] + table[p.id2]).isascii() for p in fast)


def _edited(words: list[str], vocab: list[str], rate: float, rnd: random.Random) -> list[str]:
    return [rnd.choice(vocab) if rnd.random() < rate else w for w in words]


def test_long_documents_alike_only_in_their_vocabulary_are_no_pair() -> None:
    """Hostile sweep hx20 (4): documents of 400 random words over one 60-word vocabulary
    have the same word set (Jaccard 1.0 on word 1-grams) though nearly every word differs:
    they are no pair, as their word 2-grams say. Edited copies (5% of the words changed)
    and a copy with its halves swapped still pair, and so do short records alike in their
    words alone (a name with its words in another order)."""
    rnd = random.Random(5)
    vocab = [f"w{k}" for k in range(60)]
    docs = {f"d{k}": rnd.choices(vocab, k=400) for k in range(6)}
    docs["d0-edited"] = _edited(docs["d0"], vocab, 0.05, rnd)
    docs["d1-swapped"] = docs["d1"][200:] + docs["d1"][:200]
    texts = {i: " ".join(words) for i, words in docs.items()}
    texts |= {"n1": "maria garcia lopez", "n2": "lopez garcia maria"}
    proc = Params(shingle_kind="word", shingle_size=1).processor()
    ids = sorted(texts, key=id_key)
    cands = [(a, b) for k, a in enumerate(ids) for b in ids[k + 1 :]]
    sets = {i: proc.shingle_set(t) for i, t in texts.items()}
    alike = [len(sets[a] & sets[b]) / len(sets[a] | sets[b]) for a, b in cands]
    assert sum(j >= 0.65 for j in alike) > 20  # the word sets cannot tell them apart
    got = {(p.id1, p.id2) for p in verify(cands, texts, proc, 0.65, screened=True)}
    assert got == {("d0", "d0-edited"), ("d1", "d1-swapped"), ("n1", "n2")}


def test_the_edit_distance_is_measured_up_to_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile sweep hx20 (3): the exact word edit distance of two long documents costs the
    product of their lengths. Verification asks for it up to DEFAULTS.edit_distance_cap
    words (past it, the pair says cap + 1), or up to the report's max_dist when given, so
    that the cap on distances still reads exact values."""
    import dataclasses

    import Levenshtein

    from neardup.candidates import verify as verify_module
    from neardup.defaults import DEFAULTS

    cutoffs: list[int | None] = []
    distance = Levenshtein.distance

    def spy(a: str, b: str, **kw: object) -> int:
        cutoffs.append(kw.get("score_cutoff"))  # type: ignore[arg-type]
        return distance(a, b, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Levenshtein, "distance", spy)
    monkeypatch.setattr(
        verify_module, "DEFAULTS", dataclasses.replace(DEFAULTS, edit_distance_cap=5)
    )
    words = [f"w{k}" for k in range(50)]
    texts = {
        "a": " ".join(words),
        "b": " ".join(words[:40] + [f"x{k}" for k in range(10)]),  # 10 words replaced
        "c": "red wool scarf",
        "d": "red wool hat",
    }
    proc = Params(shingle_kind="word", shingle_size=1).processor()

    def dists(**kw: int) -> dict[tuple[str, str], int]:
        got = verify([("a", "b"), ("c", "d")], texts, proc, 0.5, screened=True, **kw)
        return {(p.id1, p.id2): p.edit_distance for p in got}

    assert dists() == {("a", "b"): 6, ("c", "d"): 1}
    assert cutoffs and set(cutoffs) == {5}
    cutoffs.clear()
    assert dists(max_dist=20) == {("a", "b"): 10, ("c", "d"): 1}
    assert set(cutoffs) == {20}
    for engine in ("memory", "duckdb"):  # the report's max_dist reaches both engines
        index = NearDupIndex(Params(shingle_kind="word", shingle_size=1, threshold=0.5))
        index.add_many(list(texts.items()), progress=False)
        wide = index.report(max_dist=12, engine=engine).pairs
        assert {(p.id1, p.id2): p.edit_distance for p in wide} == {("a", "b"): 10, ("c", "d"): 1}
        assert [(p.id1, p.id2) for p in index.report(max_dist=8, engine=engine).pairs] == [
            ("c", "d")
        ]


def test_every_word_edit_distance_is_bounded_as_verification_bounds_it() -> None:
    """word_edit_distance without max_dist (search, the review page, the standout rule) counts
    up to DEFAULTS.edit_distance_cap as verification does, so that one column means one thing
    on every surface and a long query document costs no product of lengths."""
    from dataclasses import replace

    from neardup.sign import text as text_mod

    a, b = [f"w{i}" for i in range(60)], [f"v{i}" for i in range(60)]
    assert text_mod.word_edit_distance(a, b) == 60
    saved = text_mod.DEFAULTS
    text_mod.DEFAULTS = replace(saved, edit_distance_cap=10)
    try:
        assert text_mod.word_edit_distance(a, b) == 11
        assert text_mod.word_edit_distance(a, b, max_dist=100) == 60
    finally:
        text_mod.DEFAULTS = saved
