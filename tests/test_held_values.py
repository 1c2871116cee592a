"""A value two records share and no other record of either source holds tells a contested
pair from its runner-ups (neardup.decision.held_values)."""

from __future__ import annotations

from neardup.decision.held_values import by_value, value_of


def _values(*rows: tuple[str, str]) -> list[tuple]:
    out = []
    for column, text in rows:
        value = value_of(column, text)
        out.append(() if value is None else (value,))
    return out


def test_a_value_held_once_in_each_source_keeps_the_contested_pair() -> None:
    values = _values(("title", "renaissance man"), ("title", "renaissance"),
                     ("title", "renaissance man 1994"), ("title", "renaissance 2006"))  # fmt: skip
    sources = ["a", "a", "b", "b"]
    contested = [(0.39, 0, 2, 3, 1), (0.37, 1, 3, 2, 0)]
    assert by_value(contested, values, sources) == [(0.39, 0, 2), (0.37, 1, 3)]


def test_a_value_another_record_holds_keeps_nothing() -> None:
    values = _values(("title", "renaissance man"), ("title", "renaissance man 1994"),
                     ("title", "renaissance man 2010"))  # fmt: skip
    # the two films of one name in b: the value tells neither from the other
    assert by_value([(0.4, 0, 1, 2, None)], values, ["a", "b", "b"]) == []


def test_numbers_on_both_sides_must_agree() -> None:
    values = _values(("title", "friday the 13th part 3"), ("title", "friday the 13th part 2 1981"),
                     ("title", "friday the 13th part 3 1982"))  # fmt: skip
    sources = ["a", "b", "c"]
    assert by_value([(0.6, 0, 1, None, None)], values, sources) == []  # 3 against 2 1981
    assert by_value([(0.6, 0, 2, None, None)], values, sources) == [(0.6, 0, 2)]


def test_a_value_of_numbers_only_is_no_value() -> None:
    assert value_of("released", "1994 12 01") is None
    assert value_of("released", "1998-11-27") is None  # as normalized: one token, no letter
    assert value_of("price", "19 99") is None
    assert value_of("price", "17.88") is None
    assert value_of("title", "big 1988") == ("title", "big", frozenset({"1988"}))
    assert value_of("title", "man renaissance the man") == ("title", "man renaissance the",
                                                            frozenset())  # fmt: skip


def test_records_of_one_source_are_not_told_so() -> None:
    values = _values(("title", "renaissance man"), ("title", "renaissance man"))
    assert by_value([(0.9, 0, 1, None, None)], values, ["a", "a"]) == []
