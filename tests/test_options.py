"""A report's options as one object (neardup.options.ReportOptions), checked in one place."""

from __future__ import annotations

from typing import Any

import pytest

from neardup import NearDupIndex, Params
from neardup.errors import ArgumentError
from neardup.options import ReportOptions
from neardup.read.records import read_records
from neardup.resources import restaurants


def _index(**params: Any) -> NearDupIndex:
    path, _ = restaurants()
    index = NearDupIndex(Params(**params) if params else None)
    index.add_many([(r.id, r.text, "f" if int(r.id) <= 533 else "z") for r in read_records(path)])
    return index


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"mode": "both"}, "^mode must be one of dedup, link, got 'both'$"),
        ({"similarity": "cosine"}, "similarity must be one of auto, jaccard, weighted, got 'c"),
        ({"since": "5"}, "since must be an integer >= 0"),
        ({"since": True}, "since must be an integer >= 0"),
        ({"since": -1}, "^since must be an integer >= 0 or None, got -1$"),
        ({"max_bucket": 0}, "^max_bucket must be an integer >= 2 or None, got 0$"),
        ({"cap": 0}, "^cap must be an integer >= 1 or None, got 0$"),
        ({"max_dist": -1}, "^max_dist must be an integer >= 0 or None, got -1$"),
        ({"numbers_check": None}, "^numbers_check must be True or False, got None$"),
        ({"engine": "hadoop"}, "^engine must be one of auto, memory, duckdb, spark or an"),
        ({"complete": True, "mode": "link"}, "complete adds the pairs of clusters"),
        ({"complete": True, "prune": "best"}, "complete adds the pairs of clusters"),
        ({"threshold": 0}, r"^threshold must be a number in \(0, 1\] or None, got 0$"),
        ({"threshold": 1.5}, r"^threshold must be a number in \(0, 1\] or None, got 1.5$"),
        ({"threshold": "0.5"}, "threshold must be a number"),
        ({"prune": "all"}, "^prune must be one of best, mutual, one-to-one, none or None, got"),
    ],
)
def test_bad_options_are_refused_when_made(given: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        ReportOptions(**given)


def test_pruning_follows_the_mode() -> None:
    assert ReportOptions().pruning == "none" and ReportOptions(mode="link").pruning == "one-to-one"
    assert ReportOptions(mode="link", prune="best").pruning == "best"


def test_options_give_the_report_the_keywords_give() -> None:
    index = _index(threshold=0.3, rule="valley", shingle_kind="char", shingle_size=3)
    for keywords in ({}, {"mode": "link"}, {"threshold": 0.5, "prune": "best"}):
        by_keywords = index.report(**keywords)
        by_options = index.report(options=ReportOptions(**keywords))
        assert by_options.pairs == by_keywords.pairs and by_options.pairs
        assert by_options.rule == by_keywords.rule and by_options.prune == by_keywords.prune
    assert index.pairs(options=ReportOptions(0.5)) == index.pairs(0.5)
    with pytest.raises(ArgumentError, match="not both"):
        index.report(0.5, options=ReportOptions(0.5))
    auto = _index()  # parameters from the data: link mode is decided by weighted similarity
    assert auto.report(options=ReportOptions(mode="link")).decision.rule == "weighted"
