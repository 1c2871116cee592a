"""neardup.numbers: the numbers check's two questions, shared by the valley rule and the link."""

from __future__ import annotations

from neardup import Params
from neardup.link import numbers_check
from neardup.numbers import apart, differ
from neardup.results import Pair
from neardup.valley import numbers_disagree, numbers_identify


def test_differ_needs_numbers_on_both_sides_and_none_shared() -> None:
    assert differ(frozenset({"12"}), frozenset({"14"}))
    assert not differ(frozenset({"12", "3"}), frozenset({"12"}))
    assert not differ(frozenset({"12"}), frozenset())
    assert not differ(frozenset(), frozenset())


def test_apart_counts_the_alike_pairs_holding_numbers_and_those_sharing_none() -> None:
    nums = {"a": frozenset({"1"}), "b": frozenset({"1"}), "c": frozenset({"2"}), "d": frozenset()}
    pairs = [(0.9, "a", "b"), (0.7, "a", "c"), (0.95, "a", "d"), (0.69, "b", "c")]
    assert apart(pairs, nums.__getitem__, 0.7) == (2, 1)  # a-d: d holds none; b-c: not alike
    assert apart(pairs, nums.__getitem__, 0.6) == (3, 2)
    assert apart([], nums.__getitem__, 0.7) == (0, 0)


def _alike(k: int, n: int = 40) -> tuple[list[Pair], dict[str, str]]:
    """``n`` pairs at Jaccard 0.9 of records holding numbers, the first ``k`` sharing none."""
    texts, pairs = {}, []
    for i in range(n):
        texts[f"a{i}"] = f"house {i} main street"
        texts[f"b{i}"] = f"house {i + 1000 if i < k else i} main street"
        pairs.append(Pair(f"a{i}", f"b{i}", 0.9, 1))
    return pairs, texts


def test_the_valley_and_the_link_read_the_data_the_same_way() -> None:
    """Both make the check at 2 of 40 alike pairs sharing no number (5%), not at 3 (7.5%)."""
    proc = Params().processor()
    for k, made in ((2, True), (3, False)):
        pairs, texts = _alike(k)
        assert numbers_identify(pairs, texts, proc)[0] is made
        keys = sorted(texts)
        numbers = [frozenset(w for w in proc.normalize(texts[i]).split() if w.isdigit())
                   for i in keys]  # fmt: skip
        row = {key: n for n, key in enumerate(keys)}
        mapped = [(p.jaccard, row[p.id1], row[p.id2], None, None) for p in pairs]
        made_link, why = numbers_check(mapped, numbers)
        assert made_link is made and why.startswith(f"{'made' if made else 'not made'}: {k} of 40")


def test_the_valley_drops_the_pairs_whose_numbers_differ_below_the_waiver() -> None:
    proc = Params().processor()
    texts = {"a": "12 main", "b": "12 main st", "c": "14 main", "d": "main st", "e": "14 main st"}
    pairs = [Pair("a", "b", 0.6, 1), Pair("a", "c", 0.6, 1), Pair("a", "d", 0.5, 1),
             Pair("a", "e", 0.75, 2)]  # fmt: skip
    kept, dropped = numbers_disagree(pairs, texts, proc)
    assert [(p.id1, p.id2) for p in kept] == [("a", "b"), ("a", "d"), ("a", "e")] and dropped == 1
