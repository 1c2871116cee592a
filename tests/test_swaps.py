"""neardup.decision.swaps: a row whose values are another row's in swapped columns of one kind
(a transfer and the one back) is not removed as its duplicate; a person whose given name and
surname were typed the wrong way round still is (hostile sweep hx24, finding 8)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from neardup import Params
from neardup.decision.decide import Checked, Features, FixedThreshold, SwapsCheck
from neardup.decision.swaps import one_kind, swaps_disagree
from neardup.results import Pair

from .conftest import run_cli

TRANSFERS = """id,sender,receiver,amount,date
1,Alice Johnson,Robert Miller,500.00,2023-04-01
2,Robert Miller,Alice Johnson,500.00,2023-04-01
3,Carol White,David Brown,120.00,2023-04-02
4,Eve Davis,Frank Wilson,75.50,2023-04-03
5,Grace Lee,Henry Clark,980.00,2023-04-04
"""


def test_columns_of_one_kind_are_those_whose_values_are_mostly_the_same() -> None:
    rows = {
        "1": {"home": "ajax", "away": "psv", "given": "anna", "surname": "jansen"},
        "2": {"home": "psv", "away": "ajax", "given": "jansen", "surname": "anna"},
        "3": {"home": "feyenoord", "away": "ajax", "given": "piet", "surname": "smit"},
        "4": {"home": "az", "away": "feyenoord", "given": "kees", "surname": "bakker"},
    }
    # home {ajax, psv, feyenoord, az} and away {psv, ajax, feyenoord}: 3 of 3 shared; given
    # and surname share the two swapped values only, 2 of 4
    assert one_kind(rows) == [("away", "home"), ("given", "surname")]
    rows["5"] = {"given": "jan", "surname": "visser"}
    assert one_kind(rows) == [("away", "home")]


def test_a_pair_swapped_in_columns_of_one_kind_is_dropped_and_others_kept() -> None:
    rows = {
        "1": {"home": "ajax", "away": "psv", "day": "sunday"},
        "2": {"home": "psv", "away": "ajax", "day": "sunday"},  # the return match
        "3": {"home": "ajax", "away": "psv", "day": "sunday"},  # a copy of 1
        "4": {"home": "az", "away": "ajax", "day": "monday"},
    }
    kept = [Pair("1", "2", 1.0, 0), Pair("1", "3", 1.0, 0), Pair("2", "3", 1.0, 0)]
    out, gone, found = swaps_disagree(kept, rows)
    assert [(p.id1, p.id2) for p in out] == [("1", "3")]
    assert [(p.id1, p.id2) for p in gone] == [("1", "2"), ("2", "3")]
    assert found["swapped"] == [["away", "home"]] and found["dropped"] == 2


def test_three_columns_of_one_kind_rotated_are_dropped_and_a_moved_value_is_not() -> None:
    rows = {  # hx24's permuted cities: home, work and birth city of five people
        "1": {"home": "springfield", "work": "shelbyville", "birth": "capital city"},
        "2": {"home": "shelbyville", "work": "capital city", "birth": "springfield"},
        "3": {"home": "capital city", "work": "springfield", "birth": "shelbyville"},
        "4": {"home": "springfield", "work": "shelbyville", "birth": "ogdenville"},
        "5": {"home": "ogdenville", "work": "shelbyville", "birth": "springfield"},
    }
    kept = [Pair("1", "2", 1.0, 0), Pair("1", "3", 1.0, 0), Pair("1", "4", 0.8, 1),
            Pair("4", "5", 1.0, 0)]  # fmt: skip
    out, gone, found = swaps_disagree(kept, rows)
    assert found["one_kind"] == [["birth", "home", "work"]]
    assert [(p.id1, p.id2) for p in gone] == [("1", "2"), ("1", "3"), ("4", "5")]
    # 4 is 1 with another birth city: a value changed, none moved
    assert [(p.id1, p.id2) for p in out] == [("1", "4")]
    assert found["swapped"] == [["birth", "home"], ["birth", "home", "work"]]


def test_the_check_reads_the_records_columns_and_says_what_it_dropped() -> None:
    rows = {
        "1": {"sender": "Alice Johnson", "receiver": "Robert Miller", "amount": "500.00"},
        "2": {"sender": "Robert Miller", "receiver": "ALICE JOHNSON", "amount": "500.00"},
    }
    features = Features(
        pairs=[Pair("1", "2", 0.9, 0)], texts={}, processor=Params().processor(), records=2,
        columns=lambda ids: {i: rows[i] for i in ids},
    )  # fmt: skip
    kept, decision = Checked(FixedThreshold(0.5), (SwapsCheck(),)).decide(features)
    assert kept == []  # told apart after the index's normalization (case)
    assert [(p.id1, p.id2) for p in decision.dropped["swaps"]] == [("1", "2")]
    no_columns = Features(pairs=features.pairs, texts={}, processor=features.processor,
                          records=2)  # fmt: skip
    assert Checked(FixedThreshold(0.5), (SwapsCheck(),)).decide(no_columns)[0] == features.pairs


def test_dedupe_keeps_the_transfer_back_and_says_why(tmp_path: Path) -> None:
    src, out = tmp_path / "transfers.csv", tmp_path / "out.csv"
    src.write_text(TRANSFERS, encoding="utf-8")
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory", "-v")
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8") == TRANSFERS  # row 2 is kept, the file as it was
    assert "removed 0" in proc.stdout
    assert "swaps check: 1 pairs dropped" in proc.stdout
    assert "(receiver, sender)" in proc.stdout


def _people(n: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    given = ["anna", "bram", "carla", "daan", "eva", "finn", "gijs", "hanna", "ilse", "joost",
             "karin", "lars", "mila", "noah", "olga", "pim", "roos", "sem", "tess", "vera"]
    surnames = ["bakker", "visser", "smit", "meijer", "mulder", "bos", "vos", "peters",
                "hendriks", "dekker", "brouwer", "dijkstra", "koster", "prins", "huisman",
                "kok", "jacobs", "vermeulen", "schouten", "willems"]  # fmt: skip
    return [
        {"id": str(i), "given_name": rng.choice(given), "surname": rng.choice(surnames),
         "street": f"{rng.randint(1, 200)} {rng.choice(['kerkstraat', 'dorpsweg', 'molenlaan'])}",
         "city": rng.choice(["utrecht", "leiden", "delft", "gouda"])}
        for i in range(n)
    ]  # fmt: skip


def test_a_person_with_given_name_and_surname_swapped_is_still_a_duplicate(
    tmp_path: Path,
) -> None:
    people = _people(60, seed=3)
    copy = dict(people[7], id="60", given_name=people[7]["surname"],
                surname=people[7]["given_name"])  # fmt: skip
    src, out = tmp_path / "people.csv", tmp_path / "out.csv"
    with src.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(people[0]))
        w.writeheader()
        w.writerows([*people, copy])
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory", "-v",
                   "--cluster-column", "cluster")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with out.open(encoding="utf-8", newline="") as fh:
        cluster = {r["id"]: r["cluster"] for r in csv.DictReader(fh)}
    assert cluster["60"] == cluster["7"]  # given names and surnames are two kinds
    assert "swaps check:" not in proc.stdout
