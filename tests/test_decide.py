"""The decision step (neardup.decision.decide): every rule behind one interface, with a typed result
that reports print the same way, and checks that compose with any rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.decision.decide import (
    Checked,
    CodesCheck,
    ColumnsCheck,
    DatesCheck,
    Features,
    FixedThreshold,
    LearnedRule,
    NumbersCheck,
    Rule,
    StandingOut,
    SwapsCheck,
    ValleyRule,
    rule_for,
)
from neardup.out.output import decided, rule_line, rule_text
from neardup.read.records import read_records
from neardup.resources import restaurants
from neardup.results import Decision, Pair, Report

TEXTS = {
    "a": "Roma Trattoria 12 Main Street Springfield",
    "b": "Roma Trattoria 12 Main St Springfield",
    "c": "Roma Trattoria 40 Main Street Springfield",
    "d": "Hotel Bel-Air 701 Stone Canyon Road",
}
PAIRS = [Pair("a", "b", 0.6, 1), Pair("a", "c", 0.6, 1), Pair("b", "c", 0.45, 2)]


def _features(**more: object) -> Features:
    return Features(list(PAIRS), TEXTS, Params().processor(), len(TEXTS), **more)  # type: ignore[arg-type]


def _restaurants() -> list[tuple[str, str, str]]:
    path, _ = restaurants()
    return [(r.id, r.text, "f" if int(r.id) <= 533 else "z") for r in read_records(path)]


@pytest.mark.parametrize(
    "rule", [FixedThreshold(0.3), ValleyRule(0.3), LearnedRule(), rule_for("valley", 0.3)]
)
def test_every_rule_is_a_rule_with_a_typed_decision(rule: Rule) -> None:
    kept, decision = rule.decide(_features())
    assert isinstance(decision, Decision)
    assert set(kept) <= set(PAIRS) or all(p.probability is not None for p in kept)
    assert 0.0 < decision.threshold <= 1.0
    # What a report stores (threshold, rule) gives the very decision back: what it prints.
    assert Decision.read(decision.threshold, decision.explain) == decision


@pytest.mark.parametrize(
    ("rule", "name", "estimates"),
    [("threshold", "threshold", False), ("valley", "valley", False), ("learned", "learned", True)],
)
def test_a_reports_decision_is_the_rules(rule: str, name: str, estimates: bool) -> None:
    index = NearDupIndex(Params(threshold=0.3, rule=rule))
    index.add_many(_restaurants())
    report = index.report()
    decision = report.decision
    assert decision.rule == name and decision.threshold == report.threshold
    assert decision.explain == report.rule
    if estimates:  # the learned rule estimates its own precision and recall
        assert decision.precision == report.rule["estimated_precision"] > 0.5  # type: ignore[index]
        assert decision.recall == report.rule["estimated_recall"] > 0.5  # type: ignore[index]
    else:
        assert decision.precision is None and decision.recall is None
    assert rule_text(report)[0] == decided(report)


def test_the_weighted_link_rule_reports_a_decision_too() -> None:
    index = NearDupIndex()  # chosen from the data: link mode decides by weighted similarity
    index.add_many(_restaurants())
    report = index.report(mode="link")
    assert report.decision.rule == "weighted"
    assert decided(report) == f"weighted rule, kept from cosine {round(report.threshold, 3):g}"


def test_numbers_check_composes_with_a_fixed_threshold() -> None:
    kept, decision = Checked(FixedThreshold(0.4), (NumbersCheck(),)).decide(_features())
    # a and c (and b and c) share no number: the check drops them, whatever the rule.
    assert [(p.id1, p.id2) for p in kept] == [("a", "b")]
    assert decision.rule == "threshold" and decision.explain is not None
    assert decision.explain["numbers_disagree"] == 2
    report = Report(kept, threshold=decision.threshold, rule=decision.explain)
    assert report.decision == decision
    assert decided(report) == "Jaccard >= 0.4"
    assert rule_line(report.decision) == (
        "\nchecks: 2 pairs dropped whose records both hold numbers and share none"
    )
    assert rule_line(FixedThreshold(0.4).decide(_features())[1]) == ""  # no checks: nothing


def test_numbers_check_composes_with_the_learned_rule() -> None:
    index = NearDupIndex(Params(threshold=0.3, rule="learned"))
    index.add_many(_restaurants())
    pairs = index.report(0.3, prune="none").pairs
    texts = {r.id: r.text for r in read_records(restaurants()[0])}
    features = Features(pairs, texts, index.processor, len(index))
    alone, plain = LearnedRule().decide(features)
    kept, checked = Checked(LearnedRule(), (NumbersCheck(),)).decide(features)
    assert checked.explain is not None and checked.explain["numbers_disagree"] > 0
    assert len(kept) == len(alone) - checked.explain["numbers_disagree"]
    assert (checked.rule, checked.threshold, checked.precision) == (
        plain.rule, plain.threshold, plain.precision,
    )  # fmt: skip
    line = rule_line(checked)
    assert line.startswith("\nlearned rule (") and "pairs dropped whose records both" in line


def test_columns_check_without_columns_says_none() -> None:
    kept, found = ColumnsCheck().check(list(PAIRS), _features())
    assert kept == PAIRS and found == {"columns": None}
    rows = {i: {"name": TEXTS[i].split(" 1")[0].split(" 4")[0], "no": i} for i in TEXTS}
    kept, found = ColumnsCheck().check(list(PAIRS), _features(columns=lambda ids: rows))
    assert found["columns"] is not None and "columns" in found["columns"]


def test_rule_for_names_each_rule() -> None:
    assert rule_for("threshold", 0.7) == FixedThreshold(0.7)
    assert rule_for("learned", 0.7) == LearnedRule()
    standing = rule_for("valley", 0.3)
    assert isinstance(standing, StandingOut)
    valley = standing.rule
    assert isinstance(valley, Checked) and valley.rule == ValleyRule(0.3)
    assert [type(c) for c in valley.checks] == [NumbersCheck, DatesCheck, ColumnsCheck, SwapsCheck,
                                                CodesCheck]  # fmt: skip


# -- which rule decides, and the words each rule owns ------------------------------------------


def test_route_names_the_rule_the_options_and_the_index_choose() -> None:
    from neardup.decision.route import route
    from neardup.options import ReportOptions

    def name(options: ReportOptions, from_data: bool = True, labelled: bool = False) -> str:
        return route(options, "valley", 0.4, from_data, labelled).rule

    assert name(ReportOptions(mode="link")) == "weighted"
    assert name(ReportOptions(mode="link"), from_data=False) == "valley"
    assert name(ReportOptions(0.5, mode="link")) == "threshold"
    assert name(ReportOptions(mode="link", similarity="weighted"), from_data=False) == "weighted"
    assert name(ReportOptions(mode="link"), labelled=True) == "labelled"
    assert name(ReportOptions()) == "valley"
    chosen = route(ReportOptions(0.7), "valley", 0.4, True, False)
    assert (chosen.rule, chosen.threshold, chosen.complete) == ("threshold", 0.7, False)
    assert route(ReportOptions(), "valley", 0.4, True, False).complete
    assert not route(ReportOptions(complete=False), "valley", 0.4, True, False).complete
    assert route(ReportOptions(complete=True), "threshold", 0.4, True, False).complete
    assert not route(ReportOptions(mode="link"), "valley", 0.4, False, False).complete


@pytest.mark.parametrize(
    ("options", "labelled", "message"),
    [
        ({"mode": "link", "prune": "best"}, False, "prune 'best' needs the Jaccard rule"),
        ({"mode": "link", "engine": "duckdb"}, False, "duckdb engine runs the Jaccard report"),
        ({}, True, "labels teach the link's rule: they need mode link"),
        ({"mode": "link", "threshold": 0.5}, True, "no since, no threshold"),
        ({"mode": "link", "prune": "best"}, True, "prune 'best' cannot be given with labels"),
        ({"mode": "link", "numbers_check": False}, True, "the numbers check off cannot be"),
        ({"mode": "link", "similarity": "jaccard"}, True, "similarity 'jaccard' cannot be"),
        # the labelled rule runs in this process: an engine asked for is refused, not ignored
        ({"mode": "link", "engine": "duckdb"}, True, "duckdb engine runs the Jaccard report: lab"),
        ({"mode": "link", "engine": "spark"}, True, "spark engine runs the Jaccard report: lab"),
    ],
)
def test_route_refuses_what_the_rule_cannot_honour(
    options: dict[str, object], labelled: bool, message: str
) -> None:
    from neardup.decision.route import route
    from neardup.errors import ArgumentError
    from neardup.options import ReportOptions

    with pytest.raises(ArgumentError, match=message):
        route(ReportOptions(**options), "valley", 0.4, True, labelled)  # type: ignore[arg-type]


def test_review_refuses_a_pruning_of_the_weighted_link_with_a_flag_it_has(
    tmp_path: Path,
) -> None:
    """``review --mode link --prune none`` was told to add ``--similarity jaccard``, a flag
    of report's that review does not have: a threshold is the way there."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,text\n1,arts deli ventura blvd\n2,blue door books\n", encoding="utf-8")
    b.write_text("id,text\n1,art's deli ventura\n2,blue door bookshop\n", encoding="utf-8")
    args = ["review", "--backend", "memory", "--mode", "link", str(a), str(b), "--prune", "none",
            "--out", str(tmp_path / "page.html")]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "neardup", *args], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2 and "give a threshold (--threshold)" in done.stderr, done.stderr
    again = subprocess.run([sys.executable, "-m", "neardup", *args, "--threshold", "0.5"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stderr


def test_link_candidates_keep_only_pairs_across_sources() -> None:
    import numpy as np

    from neardup.candidates.buckets import Candidates
    from neardup.decision.route import across_sources

    ids = ["a", "b", "c", "d"]
    cands = Candidates(ids=ids, first=np.array([0, 0, 1, 2]), second=np.array([1, 2, 3, 3]))
    of = {"a": "left", "b": "left", "c": "right", "d": "right"}
    sources = across_sources(cands, lambda wanted: {i: of[i] for i in wanted})
    assert sorted(zip(cands.first.tolist(), cands.second.tolist(), strict=True)) == [(0, 2), (1, 3)]
    assert sources == of


def test_within_distance_caps_the_edit_distance() -> None:
    from neardup.decision.route import within_distance

    assert within_distance(list(PAIRS), None) == PAIRS
    assert within_distance(list(PAIRS), 1) == PAIRS[:2]


def test_every_rule_a_report_can_carry_has_its_own_words() -> None:
    """The outputs print a decision through its rule's words and name no rule themselves."""
    import ast
    from pathlib import Path

    from neardup.decision.labelled import asked_explain, checked_explain
    from neardup.decision.words import WORDS, words_for
    from neardup.out import output

    assert set(WORDS) == {"threshold", "valley", "learned", "weighted", "labelled", "asked",
                          "checked", "documents"}  # fmt: skip
    decisions = {
        "weighted": Decision("weighted", 0.3, explain={"margin": 0.1}),
        "threshold": Decision("threshold", 0.5),
        "documents": Decision("documents", 0.65, explain={"common_words": {"dropped": 3}}),
        "asked": Decision("asked", 0.0, explain=asked_explain(3, None, taught=False)),
        "checked": Decision("checked", 0.0, explain=checked_explain(3, None)),
    }
    shorts = {name: words_for(d).short(d) for name, d in decisions.items()}
    assert shorts == {
        "weighted": "weighted rule, kept from cosine 0.3",
        "threshold": "Jaccard >= 0.5",
        "documents": "Jaccard >= 0.65, less 3 pairs alike by common words alone",
        "asked": "pairs to label",
        "checked": "pairs drawn at random to check the report",
    }
    checked = decisions["checked"]
    assert words_for(checked).line(checked).startswith(
        "the 3 pairs drawn at random from those the report keeps")
    pair = Pair("a", "b", 0.6, 1, similarity=0.42)
    asked = decisions["asked"]
    assert words_for(asked).line(asked) == (
        "the 3 pairs whose labels would teach the most: spread over the weighted link's "
        "mapping, most from its top"
    )
    assert "ahead of both records' runner-ups by 10%" in words_for(decisions["weighted"]).reason(
        decisions["weighted"], pair, 0.3
    )
    assert words_for(decisions["threshold"]).reason(decisions["threshold"], pair, 0.5) == (
        "Jaccard 0.600 >= 0.5"
    )
    # output.py holds no rule's name: a string literal naming one would be a decision there.
    tree = ast.parse(Path(output.__file__).read_text(encoding="utf-8"))
    named = {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in WORDS
    }
    assert named == set()


def test_a_pair_added_as_it_stands_out_says_its_cosine_whatever_the_valley_was_read_on() -> None:
    """hx27 finding 5: where the valley was read on weighted Jaccard, a pair the families step
    added (its similarity a cosine) was said to be at a weighted Jaccard, or 'cluster completed'
    where its cosine was under the bar."""
    from neardup.decision.decide import jaccard_reason
    from neardup.results import Decision, Report

    explain = {"similarity": "weighted jaccard", "found": True, "stood_out": {"added": 2}}
    decision = Decision("valley", 0.625, explain=explain,
                        stood_out=frozenset({("1", "2"), ("3", "4")}))  # fmt: skip
    for pair in (Pair("1", "2", 0.6, 1, similarity=0.739), Pair("3", "4", 0.5, 2, similarity=0.59)):
        assert jaccard_reason(decision, pair, 0.625).startswith(
            f"stands out by weighted similarity: cosine {pair.similarity:.3f}"
        )
    kept = Pair("5", "6", 0.7, 0, similarity=0.7)  # the valley's own pair
    assert jaccard_reason(decision, kept, 0.625).startswith("weighted Jaccard 0.700 >= 0.625")
    report = Report(pairs=[], records=0, threshold=0.625, rule=explain,
                    stood_out=decision.stood_out)  # fmt: skip
    assert report.decision.stood_out == decision.stood_out  # what the outputs read
