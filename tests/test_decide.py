"""The decision step (neardup.decision.decide): every rule behind one interface, with a typed result
that reports print the same way, and checks that compose with any rule."""

from __future__ import annotations

import pytest

from neardup import NearDupIndex, Params
from neardup.decision.decide import (
    Checked,
    ColumnsCheck,
    Features,
    FixedThreshold,
    LearnedRule,
    NumbersCheck,
    Rule,
    ValleyRule,
    rule_for,
)
from neardup.io import read_records
from neardup.output import decided, rule_line, rule_text
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
    valley = rule_for("valley", 0.3)
    assert isinstance(valley, Checked) and valley.rule == ValleyRule(0.3)
    assert [type(c) for c in valley.checks] == [NumbersCheck, ColumnsCheck]
