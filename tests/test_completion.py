"""Clusters completed (neardup.decision.completion): which components are completed, the pairs added
to a report with their exact similarities, on the memory backend and on a real Solr, and what it
does on generated citations."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import pytest

from benchmarks.accuracy import datasets as D
from benchmarks.accuracy import metrics
from benchmarks.accuracy.run_neardup import _items
from neardup import NearDupIndex, Params
from neardup.decision.completion import missing_pairs
from neardup.defaults import DEFAULTS
from neardup.errors import ArgumentError
from neardup.sign.text import word_edit_distance

from .conftest import run_cli

MakeIndex = Callable[..., NearDupIndex]


def _clique(ids: list[str]) -> list[tuple[str, str]]:
    return list(combinations(ids, 2))


def test_a_nearly_complete_cluster_is_completed() -> None:
    ids = [str(i) for i in range(5)]
    pairs = _clique(ids)
    for gone in ([("0", "1")], [("0", "1"), ("2", "3"), ("3", "4")]):  # 9 and 7 of 10
        missing, info = missing_pairs(p for p in pairs if p not in gone)
        assert sorted(missing) == sorted(gone)
        assert info["clusters"] == 1 and info["added"] == len(gone)
    # 6 of 10 pairs: under the bar, left as it is.
    four_gone = [("0", "1"), ("2", "3"), ("3", "4"), ("1", "4")]
    assert 6 / 10 < DEFAULTS.complete_density
    assert missing_pairs(p for p in pairs if p not in four_gone)[0] == []


def test_chains_and_bridges_are_not_completed() -> None:
    assert missing_pairs([("a", "b"), ("b", "c")]) == ([], missing_pairs([])[1])
    assert missing_pairs([("a", "b"), ("b", "c"), ("c", "d")])[0] == []  # 3 of 6
    # Two entities of five records joined by one wrong pair: 21 of 45 pairs.
    left, right = [f"l{i}" for i in range(5)], [f"r{i}" for i in range(5)]
    bridged = _clique(left) + _clique(right) + [("l0", "r0")]
    missing, info = missing_pairs(bridged)
    assert missing == [] and info["clusters"] == 0
    # A complete component needs nothing; ids come back in id order (numbers as numbers).
    assert missing_pairs(_clique(["1", "2", "3", "4"]))[0] == []
    found = missing_pairs([p for p in _clique(["10", "9", "8", "7"]) if p != ("10", "9")])[0]
    assert found == [("9", "10")]


# Five of the six pairs of a, b, c, d reach 0.5 (word 1-grams); c and d share 4 of 16 words.
_WORDS = [f"w{i}" for i in range(10)]
_RECORDS = [
    ("a", " ".join(_WORDS)),
    ("b", " ".join([*_WORDS, "x1"])),
    ("c", " ".join([*_WORDS[:7], "c1", "c2", "c3"])),
    ("d", " ".join([*_WORDS[3:], "d1", "d2", "d3"])),
    ("e", "nothing alike here at all"),
    ("f", "nothing alike here at all, really"),
]


def test_report_adds_the_missing_pair_with_its_similarity(make_index: MakeIndex) -> None:
    index = make_index(Params(threshold=0.3))
    index.add_many(_RECORDS)
    plain = index.report(0.5)
    assert plain.completion is None
    kept = {(p.id1, p.id2) for p in plain.pairs}
    assert ("c", "d") not in kept and {("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")} <= kept
    done = index.report(0.5, complete=True)
    added = [p for p in done.pairs if (p.id1, p.id2) not in kept]
    assert [(p.id1, p.id2) for p in added] == [("c", "d")]
    proc = index.processor
    sc, sd = proc.shingle_set(_RECORDS[2][1]), proc.shingle_set(_RECORDS[3][1])
    assert added[0].jaccard == pytest.approx(len(sc & sd) / len(sc | sd), abs=1e-6)
    assert added[0].jaccard < 0.5
    assert added[0].edit_distance == word_edit_distance(
        proc.normalize(_RECORDS[2][1]).split(), proc.normalize(_RECORDS[3][1]).split()
    )
    assert done.completion == {**done.completion, "clusters": 1, "added": 1}
    assert done.counts()["completion"]["added"] == 1
    assert [p for p in done.pairs if (p.id1, p.id2) in kept] == plain.pairs


def test_completion_needs_dedup_without_pruning() -> None:
    index = NearDupIndex(Params(threshold=0.3))
    index.add_many((rid, text, "s1" if rid in "ac" else "s2") for rid, text in _RECORDS)
    for options in ({"mode": "link"}, {"prune": "best"}, {"since": 1}):
        with pytest.raises(ArgumentError, match="complete"):
            index.report(0.5, complete=True, **options)  # type: ignore[arg-type]
    assert index.report(0.5, mode="link").completion is None


def test_generated_citations_gain_recall_and_keep_precision() -> None:
    """The defaults (valley rule) complete clusters; without completion the same report has
    the same pairs less the added ones."""
    ds = D.citations(150)
    index = NearDupIndex()
    index.add_many(_items(ds))
    on = index.report()
    off = index.report(complete=False)
    assert index.params.rule == "valley" and on.completion and off.completion is None
    assert on.completion["added"] == len(on.pairs) - len(off.pairs) > 0
    assert {(p.id1, p.id2) for p in off.pairs} < {(p.id1, p.id2) for p in on.pairs}
    with_, without = (
        metrics.pairwise(metrics.counted(ds, {(p.id1, p.id2) for p in r.pairs}), ds.gold)
        for r in (on, off)
    )
    assert with_.recall > without.recall + 0.03
    assert with_.precision >= 0.95 and with_.f1 > without.f1


@pytest.mark.solr
def test_cli_report_says_what_completion_added(solr_base: str, tmp_path: Path) -> None:
    data = tmp_path / "r.txt"
    data.write_text("".join(f"{rid} {text}\n" for rid, text in _RECORDS), encoding="utf-8")
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_completion_{random.randrange(10**9)}"
    index = run_cli("index", str(data), "--collection", name, "--threshold", "0.3", env=env)
    assert index.returncode == 0, index.stderr
    out = tmp_path / "pairs.tsv"
    base = ["report", "--collection", name, "--threshold", "0.5", "--out", str(out), "--json"]
    plain = run_cli(*base, env=env)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["completion"] is None
    rows = out.read_text().splitlines()
    done = run_cli(*base, "--complete", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["completion"]["added"] == 1
    assert len(out.read_text().splitlines()) == len(rows) + 1
    assert any(line.startswith("c\td\t") for line in out.read_text().splitlines())
    text = run_cli(*base[:-1], "--complete", "-v", env=env)  # the details: -v
    assert "clusters completed: 1 pair added in 1 cluster of 4" in text.stderr + text.stdout
    bad = run_cli(*base, "--complete", "--mode", "link", env=env)
    assert bad.returncode == 2 and "complete" in bad.stderr


def test_the_review_page_shows_completed_pairs_apart(tmp_path: Path) -> None:
    from neardup.out.review import write_review

    index = NearDupIndex(Params(threshold=0.3))
    index.add_many(_RECORDS)
    texts = dict(_RECORDS)
    pages = {}
    for name, complete in (("plain", False), ("done", True)):
        out = tmp_path / f"{name}.html"
        write_review(out, index.report(0.5, complete=complete), texts)
        html = out.read_text(encoding="utf-8")
        blob = html.split('id="nd-data">', 1)[1].split("</script>", 1)[0]
        pages[name] = json.loads(blob)
    plain, done = pages["plain"], pages["done"]
    assert plain["labels"] == ["pair"] and len(plain["filters"]) == 1
    assert done["labels"] == ["pair", "completed"]
    marked = [
        (done["ids"][p[0]], done["ids"][p[1]]) for p in done["pairs"] if p[4] == 1
    ]
    assert marked == [("c", "d")]
    assert [name for name, _ in done["filters"]] == [
        "all pairs", "verified", "completed clusters' pairs"
    ]


def test_a_pair_a_check_dropped_is_never_completed() -> None:
    """hx29 finding 2: completion added back the pairs the numbers check had dropped (two
    units of one building), so the cluster table merged what the check's line said was
    parted. Units 305 and 306 of one loft, each written twice, and two listings that name no
    unit: 11 of the 15 pairs are kept, and the four between the units were dropped."""
    base = "Downtown loft with parking 1200 Main Street {} $1,850 303-555-0199"
    rows = [("a", base.format("Unit 305")), ("b", base.format("Unit 305").lower()),
            ("c", base.format("Unit 306")), ("d", base.format("Unit 306").lower()),
            ("e", base.format("")), ("f", base.format("").replace("Street", "St"))]  # fmt: skip
    idx = NearDupIndex(Params(threshold=0.3, rule="valley"))
    idx.add_many(rows)
    report = idx.report()
    pairs = {(p.id1, p.id2) for p in report.pairs}
    assert {("a", "b"), ("c", "d"), ("e", "f")} <= pairs
    assert not pairs & {("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")}, pairs
    assert {(p.id1, p.id2) for p in report.dropped["numbers"]} >= {("a", "c"), ("b", "d")}
    missing, info = missing_pairs([("0", "1"), ("0", "2"), ("0", "3"), ("1", "2"), ("1", "3")],
                                  parted={("2", "3")})  # fmt: skip
    assert missing == [] and info["clusters"] == 0
