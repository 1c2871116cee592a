"""The pairs that stand out by weighted similarity (neardup.decision.standout), and the valley
rule's fallback joined by them."""

from __future__ import annotations

import dataclasses

from neardup import NearDupIndex, Params
from neardup.decision.decide import Features, StandingOut, rule_for
from neardup.decision.standout import stand_out
from neardup.defaults import DEFAULTS
from neardup.results import Pair

PROCESSOR = Params().processor()

#: Two catalogues' records of the same products, written differently (few shared shingles,
#: a shared model number), among products of their own.
RECORDS = [
    ("1", "sony bravia kdl-46v3000 46 inch lcd television black"),
    ("2", "sony kdl46v3000 lcd television"),
    ("3", "canon powershot sd1100 digital camera blue"),
    ("4", "canon powershot sd1100 camera"),
    ("5", "garden hose reel with wheels"),
    ("6", "stainless steel kitchen sink"),
    ("7", "wooden desk lamp with shade"),
    ("8", "ceramic coffee mug"),
]


def test_a_record_rewritten_stands_out_and_others_do_not():
    found = stand_out(RECORDS, PROCESSOR)
    pairs = {(a, b) for _, a, b in found.pairs}
    assert ("1", "2") in pairs and ("3", "4") in pairs
    products = {"1", "2", "3", "4"}
    assert all((a in products) == (b in products) for a, b in pairs)
    assert all(s > 0 for s, _, _ in found.pairs)


def test_a_pair_below_the_floor_is_not_kept():
    assert all(s >= DEFAULTS.standout_floor for s, _, _ in stand_out(RECORDS, PROCESSOR).pairs)
    assert stand_out([("5", RECORDS[4][1]), ("7", RECORDS[6][1])], PROCESSOR).pairs == []


def test_the_pairs_do_not_depend_on_the_records_order():
    one = stand_out(RECORDS, PROCESSOR).pairs
    assert stand_out(list(reversed(RECORDS)), PROCESSOR).pairs == one


def test_nothing_to_compare():
    assert stand_out([], PROCESSOR).pairs == []
    assert stand_out([("1", "a b c")], PROCESSOR).pairs == []


def _features(pairs: list[Pair], records: int, everything=lambda: RECORDS, fresh=None):
    return Features(pairs, dict(RECORDS), PROCESSOR, records, fresh, everything=everything)


def test_the_fallback_is_joined_by_the_pairs_that_stand_out():
    # two verified pairs, far from any valley: the rule falls back to its default bar, which
    # keeps 3-4; of the two pairs that stand out (1-2, 3-4) half are at the bar: 1-2 is added
    verified = [Pair("3", "4", 0.6, 1), Pair("5", "7", 0.31, 3)]
    kept, decision = rule_for("valley", 0.3).decide(_features(verified, 8))
    assert decision.explain is not None and not decision.explain["found"]
    got = {(p.id1, p.id2): p for p in kept}
    assert set(got) == {("1", "2"), ("3", "4")}
    assert got[("1", "2")].similarity is not None and got[("3", "4")].similarity is None
    said = decision.explain["stood_out"]
    assert said["added"] == 1 and said["agreement"] == 0.5 and "stand out" in said["reason"]


def test_nothing_is_added_where_the_bar_and_the_relative_rule_disagree():
    # the bar keeps nothing that stands out: standing out is no evidence here
    kept, decision = rule_for("valley", 0.3).decide(_features([Pair("5", "7", 0.31, 3)], 8))
    said = decision.explain["stood_out"]
    assert kept == [] and said["added"] == 0 and said["agreement"] == 0.0
    assert "disagree" in said["reason"]


def test_a_fallback_where_nothing_stands_out_says_so():
    lone = [("1", "alpha beta gamma"), ("2", "delta epsilon zeta")]
    features = Features([], dict(lone), PROCESSOR, 2, everything=lambda: lone)
    kept, decision = rule_for("valley", 0.3).decide(features)
    assert kept == [] and decision.explain["stood_out"] == {
        "pairs": 0, "candidates": 1, "agreement": 0.0, "added": 0,
        "reason": "no pair stands out by weighted similarity",
    }  # fmt: skip


def test_not_past_the_bound_nor_for_new_records():
    pair = [Pair("5", "7", 0.31, 3)]
    kept, decision = rule_for("valley", 0.3).decide(
        _features(pair, DEFAULTS.standout_records + 1)
    )
    assert kept == [] and decision.explain["stood_out"]["added"] == 0
    kept, _ = rule_for("valley", 0.3).decide(_features(pair, 8, fresh={"5"}))
    assert kept == []


def test_a_report_says_which_pairs_stood_out():
    index = NearDupIndex()
    index.add_many(RECORDS)
    report = index.report()
    assert report.rule is not None and not report.rule["found"], report.rule
    frame = report.to_pandas()
    ends = zip(frame["id1"], frame["id2"], strict=True)
    reasons = dict(zip(ends, frame["reason"], strict=True))
    said = report.rule["stood_out"]
    added = [r for r in reasons.values() if r.startswith("stands out by weighted similarity")]
    assert len(added) == said["added"], (reasons, said)


def test_the_numbers_check_is_made_on_the_pairs_added():
    """Two records of other model numbers that stand out are dropped as the bar's would be,
    where the numbers check is made; listed under the check's name."""
    records = [
        ("1", "sony bravia kdl-46v3000 lcd television black"),
        ("2", "sony bravia 52xbr4 lcd tv black"),
        ("3", "canon powershot sd1100 digital camera"),
        ("4", "canon powershot sd1100 camera"),
        ("5", "garden hose reel with wheels"),
    ]
    verified = [Pair("3", "4", 0.6, 1)]
    features = Features(verified, dict(records), PROCESSOR, 5, everything=lambda: records)
    rule = rule_for("valley", 0.3)
    checked = rule.rule  # the valley rule and its checks, which StandingOut wraps
    made = dataclasses.replace(
        checked, checks=(_MadeNumbers(), *checked.checks[1:])
    )
    kept, decision = StandingOut(made).decide(features)
    assert ("1", "2") not in {(p.id1, p.id2) for p in kept}
    assert ("1", "2") in {(p.id1, p.id2) for p in decision.dropped["numbers"]}
    assert decision.explain["numbers_disagree"] == len(decision.dropped["numbers"])
    off = rule_for("valley", 0.3, numbers_check=False)  # the check turned off: kept
    kept, decision = off.decide(features)
    assert ("1", "2") in {(p.id1, p.id2) for p in kept}


class _MadeNumbers:
    """The numbers check, made whatever the data say of their numbers."""

    name = "numbers"

    def check(self, kept, features):
        from neardup.decision.valley import numbers_disagree

        out, dropped = numbers_disagree(kept, features.texts, features.processor)
        return out, {"numbers_check": "made: (test)", "numbers_disagree": dropped}


def test_a_pair_that_shares_no_shingle_is_never_added() -> None:
    """``"a b"`` and ``"b"`` stood out by weighted similarity and were added under the
    fallback: dedupe removed "b" at similarity 0.0000 to the record kept. Two records that
    share none of the index's shingles are alike to nothing it holds."""
    idx = NearDupIndex()
    idx.add_many([("1", "Bosch cordless drill RL-1299 18V"),
                  ("2", "Bosch cordless drill RL1299 18 V"), ("3", "Philips shaver S5000"),
                  ("y", "a b"), ("z", "b"), ("w", "12345")])  # fmt: skip
    pairs = idx.report().pairs
    assert ("1", "2") in {(p.id1, p.id2) for p in pairs}
    assert all(p.jaccard > 0 for p in pairs) and ("y", "z") not in {(p.id1, p.id2) for p in pairs}
