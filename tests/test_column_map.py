"""neardup.decision.column_map: columns of two sources matched by what the user says, by name and by
content (issue 38 case 7)."""

from __future__ import annotations

import random

import pytest

from benchmarks.shops import two_shops
from neardup.decision.column_map import match_columns, name_key, parse_given
from neardup.errors import ArgumentError


def _anchors(n: int = 60) -> list[tuple[str, dict[str, str], str, dict[str, str]]]:
    a, b, gold = two_shops(200, seed=4)
    rows_a, rows_b = {r["id"]: r for r in a}, {r["id"]: r for r in b}

    def cols(row: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in row.items() if k != "id"}

    return [("a", cols(rows_a[x]), "b", cols(rows_b[y])) for x, y in sorted(gold)[:n]]


def test_columns_named_differently_are_matched_by_content() -> None:
    found = match_columns(_anchors(), primary="a")
    assert found.pairs() == ["title=product_name (content)", "brand=maker (content)",
                             "price=cost_eur (numbers)"]  # fmt: skip
    assert found.rename("b", {"maker": "bosch", "other": "x"}) == {"brand": "bosch", "other": "x"}
    assert found.rename("a", {"brand": "Bosch"}) == {"brand": "Bosch"}


def test_shuffled_pairs_match_nothing_by_content() -> None:
    """Columns are one only where the pairs say so: pairs of unrelated records match none."""
    anchors = _anchors()
    rng = random.Random(1)
    rights = [r for _, _, _, r in anchors]
    rng.shuffle(rights)
    found = match_columns([(s, a, t, b) for (s, a, t, _), b in zip(anchors, rights, strict=True)])
    assert found.matched == []


def test_names_written_one_way_and_given_pairs_come_first() -> None:
    assert name_key("http://schema.org/Product_Name") == "productname" == name_key("product name")
    rows = [("a", {"Title": "x y", "Year": "1999"}, "b", {"http://o.org/x#title": "x y",
             "year": "1999"})] * 10  # fmt: skip
    found = match_columns(rows, {"Year": "http://o.org/x#title"}, primary="a")
    assert ("Year", "http://o.org/x#title", "given", 1.0) in found.matched
    assert not any(m[0] == "Title" for m in found.matched if m[2] == "name")
    assert parse_given("title=product_name, price=cost_eur") == {
        "title": "product_name", "price": "cost_eur"}  # fmt: skip
    with pytest.raises(ArgumentError, match="NAME=NAME"):
        parse_given("title")
    with pytest.raises(ArgumentError, match="mapped twice"):
        parse_given("a=b,a=c")
