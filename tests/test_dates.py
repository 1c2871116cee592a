"""neardup.decision.dates: the members of one household (one surname, address and phone; other
dates of birth) are not merged as one person (hostile sweep hx23, finding 1)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

from neardup import Params
from neardup.decision.dates import dates_close, record_dates
from neardup.decision.decide import Checked, DatesCheck, Features, FixedThreshold
from neardup.out.output import rule_line
from neardup.results import Pair

from .conftest import run_cli

JUNE_3 = frozenset({(1974, 6, 3)})


def test_a_date_is_read_in_its_common_forms() -> None:
    for text in ("b. 1974-06-03", "3 June 1974", "3rd Jun. 1974", "June 3, 1974", "Jun 3 1974",
                 "3-Jun-1974", "19740603", "1974/6/3"):  # fmt: skip
        assert record_dates(text) == JUNE_3, text
    # day and month either way round: both read
    assert record_dates("06/03/1974") == {(1974, 6, 3), (1974, 3, 6)}
    assert record_dates("13/06/1974") == {(1974, 6, 13)}


def test_a_year_a_phone_or_a_price_is_no_date() -> None:
    for text in ("Casablanca (1942)", "617-555-0101", "(617) 555-0101", "$1,299.00",
                 "1974", "June 1974", "1.5.2", "12345678"):  # fmt: skip
        assert record_dates(text) == frozenset(), text


def test_a_date_within_one_keying_error_is_the_same_date() -> None:
    assert dates_close(JUNE_3, record_dates("1974-06-08"))  # a digit substituted
    assert dates_close(JUNE_3, record_dates("1947-06-03"))  # two digits swapped
    assert dates_close(JUNE_3, record_dates("1974-03-06"))  # day and month swapped
    assert not dates_close(JUNE_3, record_dates("1975-06-04"))  # two errors
    assert not dates_close(JUNE_3, record_dates("1993-02-19"))


def _household(n: int) -> tuple[dict[str, str], list[Pair], set[tuple[str, str]]]:
    """``n`` people entered twice (another date format, a nickname), and each one's
    housemate: their texts, the kept pairs, and which of them are one person."""
    texts, kept, same = {}, [], set()
    for i in range(n):
        texts[f"{i}a"] = f"William Ramirez, 19{50 + i}-06-03, {i} Main Street, 617-555-01{i:02d}"
        texts[f"{i}b"] = f"Bill Ramirez, 3 Jun 19{50 + i}, {i} Main St, (617) 555-01{i:02d}"
        texts[f"{i}c"] = f"Betty Ramirez, 19{80 + i}-02-19, {i} Main Street, 617-555-01{i:02d}"
        same.add((f"{i}a", f"{i}b"))
        kept += [Pair(f"{i}a", f"{i}b", 0.5, 3), Pair(f"{i}a", f"{i}c", 0.6, 2)]
    return texts, kept, same


def _check(texts: dict[str, str], kept: list[Pair]) -> tuple[list[Pair], dict[str, object]]:
    features = Features(list(kept), texts, Params().processor(), len(texts))
    return DatesCheck().check(list(kept), features)


def test_household_members_are_parted_where_the_dates_are_copied_as_they_are() -> None:
    texts, kept, same = _household(12)
    out, found = _check(texts, kept)
    assert {(p.id1, p.id2) for p in out} == same  # Bill and William stay one person
    assert found["dates_disagree"] == 12 and str(found["dates_check"]).startswith("made")


def test_the_report_says_what_the_dates_check_found() -> None:
    texts, kept, _ = _household(12)
    features = Features(list(kept), texts, Params().processor(), len(texts))
    out, decision = Checked(FixedThreshold(0.4), (DatesCheck(),)).decide(features)
    assert len(out) == 12 and len(decision.dropped["dates"]) == 12
    line = rule_line(decision)
    assert "\ndates check made: 0 of the 12 pairs whose records agree on a date" in line
    assert line.endswith("; 12 pairs dropped whose records both hold a date and share none")


def test_not_made_where_the_dates_are_typed_in_with_errors() -> None:
    """FEBRL's dates of birth: a true pair agreeing but for a typo says a whole date may be
    typed in wrong too, and two dates then say nothing."""
    texts, kept, _ = _household(12)
    texts["0b"] = texts["0b"].replace("3 Jun", "8 Jun")
    out, found = _check(texts, kept)
    assert out == kept and found["dates_disagree"] == 0
    assert "keying error" in str(found["dates_check"])


def test_not_made_on_too_few_pairs_nor_on_the_dates_of_documents() -> None:
    texts, kept, _ = _household(3)
    out, found = _check(texts, kept)
    assert out == kept and str(found["dates_check"]).startswith("not made")
    texts, kept, _ = _household(12)
    story = " a story of the day" * 20  # a document: its date is a day it was published
    out, found = _check({k: v + story for k, v in texts.items()}, kept)
    assert out == kept


def _people(path: Path) -> set[frozenset[str]]:
    """A customer file of households (one surname, address and phone; other given names and
    dates of birth), a third of its people entered twice; the pairs that are one person."""
    rng = random.Random(3)
    names = ["James", "Mary", "John", "Linda", "Robert", "Susan", "David", "Karen", "Paul"]
    rows, gold = [], set()
    for h in range(60):
        surname, phone = f"Family{h}", f"303-555-{h:04d}"
        street = f"{rng.randint(1, 999)} Oak Street"
        for m in range(rng.choice([1, 2, 3])):
            y, mo, d = rng.randint(1940, 2010), rng.randint(1, 12), rng.randint(1, 28)
            row = [f"{h}-{m}", rng.choice(names), surname, f"{y}-{mo:02d}-{d:02d}", street, phone]
            rows.append(row)
            if rng.random() < 0.35:
                rows.append([f"{h}-{m}x", row[1], surname, f"{mo:02d}/{d:02d}/{y}",
                             street.replace("Street", "St"), phone.replace("-", "")])  # fmt: skip
                gold.add(frozenset((row[0], f"{h}-{m}x")))
    with path.open("w", newline="") as f:
        csv.writer(f).writerows([["id", "first", "last", "dob", "address", "phone"], *rows])
    return gold


def test_dedupe_keeps_the_members_of_a_household_apart(tmp_path: Path) -> None:
    src, out = tmp_path / "people.csv", tmp_path / "out.csv"
    gold = _people(src)
    done = run_cli("dedupe", str(src), "--backend", "memory", "--out", str(out),
                   "--cluster-column", "cluster")  # fmt: skip
    assert done.returncode == 0, done.stderr
    clusters: dict[str, set[str]] = {}
    for row in csv.DictReader(out.open()):
        clusters.setdefault(row["cluster"], set()).add(row["id"])
    found = {frozenset((a, b)) for c in clusters.values() for a in c for b in c if a < b}
    assert found == gold

PEOPLE = """id,first_name,last_name,dob,address,city,phone
1,John,Smith,1990-01-02,12 Main Street,Boston,617-555-0101
2,Smith,John,02/01/1990,12 Main St,Boston,(617) 555-0101
3,Jon,Smith,2 Jan 1990,12 Main St.,Boston MA,6175550101
4,Jane,Smith,1990-01-02,12 Main Street,Boston,617-555-0101
5,James,Smith,1962-07-14,12 Main Street,Boston,617-555-0101
6,Mary,Johnson,1985-03-15,45 Oak Avenue Apt 4B,Chicago,312-555-0188
7,Mary,Johnson,1985-03-15,45 Oak Ave #4B,Chicago IL,312.555.0188
8,Mary,Johnson,1958-11-30,45 Oak Avenue Apt 4B,Chicago,312-555-0188
9,Robert,Williams,1978-09-09,9 Elm Road,Denver,303-555-0142
10,Bob,Williams,09/09/1978,9 Elm Rd,Denver,303 555 0142
11,Elizabeth,Brown,2001-05-20,300 Pine Street,Seattle,206-555-0199
12,Liz,Brown,20.05.2001,300 Pine St,Seattle,+1 206 555 0199
13,Ashley,Garcia,1995-12-01,77 Lake Drive,Austin,512-555-0111
14,Amber,Garcia,1995-12-01,77 Lake Drive,Austin,512-555-0111
15,Michael,Davis,1970-04-04,5 Hill Court,Portland,503-555-0177
16,Michael,Davis,1970-04-04,5 Hill Ct,Portland,503-555-0177
17,Michael,Davis,1999-08-16,5 Hill Court,Portland,503-555-0177
18,Christopher,Lee,1988-02-29,18 River Road,Miami,305-555-0166
19,Chris,Lee,29 Feb 1988,18 River Rd,Miami,305-555-0166
20,William,Taylor,1964-10-10,220 Park Avenue,New York,212-555-0122
21,Bill,Taylor,1964-10-10,220 Park Ave,New York NY,212-555-0122
22,Maria,Gonzalez,1975-06-06,31 Sunset Blvd,Los Angeles,323-555-0133
23,María,González,06/06/1975,31 Sunset Boulevard,Los Angeles,323-555-0133
24,Daniel,Martin,1981-01-11,8 Cedar Lane,Atlanta,404-555-0155
25,Danielle,Martin,1981-01-11,8 Cedar Lane,Atlanta,404-555-0155
26,Thomas,Anderson,1971-03-11,1 Matrix Way,Capital City,555-0199
27,Anderson,Thomas,11/03/1971,1 Matrix Way,Capital City,555-0199
28,Sarah,Connor,1965-05-13,Apt 2,Los Angeles,213-555-0100
29,Kyle,Reese,1956-11-02,Apt 2,Los Angeles,213-555-0100
30,Peter,Parker,2001-08-10,20 Ingram Street,Queens,718-555-0144
"""


def test_a_small_hand_written_file_and_the_pairs_that_stand_out(tmp_path: Path) -> None:
    """At the fallback bar the pairs that stand out by weighted similarity are added after the
    checks: the dates check is made on them too (Sarah Connor and Kyle Reese, one flat). Twins
    (one date, two given names: Jane and John Smith) are the given name's to part, not the
    dates'."""
    src, out = tmp_path / "people.csv", tmp_path / "out.csv"
    src.write_text(PEOPLE, encoding="utf-8")
    done = run_cli("dedupe", str(src), "--backend", "memory", "--out", str(out),
                   "--cluster-column", "cluster")  # fmt: skip
    assert done.returncode == 0, done.stderr
    clusters: dict[str, set[str]] = {}
    for row in csv.DictReader(out.open(encoding="utf-8")):
        clusters.setdefault(row["cluster"], set()).add(row["id"])
    cluster = {i: n for n, c in clusters.items() for i in c}
    for ids in ("1 2 3", "6 7", "9 10", "11 12", "15 16", "18 19", "20 21", "22 23", "26 27"):
        assert len({cluster[i] for i in ids.split()}) == 1, ids  # one person's records
    for a, b in (("1", "5"), ("6", "8"), ("15", "17"), ("28", "29")):  # other dates of birth
        assert cluster[a] != cluster[b], (a, b)
