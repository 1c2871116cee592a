"""neardup.evaluate.scores: pairs and clusters of records keyed by their source and id."""

from __future__ import annotations

from neardup.evaluate import bcubed

A7, B9, B7, A1 = ("a.csv", "7"), ("b.csv", "9"), ("b.csv", "7"), ("a.csv", "1")


def test_bcubed_keeps_two_records_of_one_id_apart() -> None:
    """The records 7 of a.csv and b.csv are two records: b.csv's 7 belongs with a.csv's 1 and
    was not found (recall 3/4); keyed by the id alone, all three ids would be one cluster."""
    s = bcubed([(A7, B9)], [(B9, A7), (A1, B7)])
    assert (s.records, s.precision, s.recall) == (4, 1.0, 0.75)
