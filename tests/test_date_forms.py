"""neardup.decision.date_forms: the weighted link reads a date written two ways as one date."""

from __future__ import annotations

import random

from neardup import NearDupIndex
from neardup.decision.date_forms import day_first, in_one_form, one_form
from neardup.keys import record_id
from neardup.read.items import Record

FIRST = ("James John Robert Michael William David Richard Joseph Thomas Charles Mary Patricia "
         "Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen").split()  # fmt: skip
LAST = ("Smith Johnson Williams Brown Jones Garcia Miller Davis Lopez Wilson Anderson Taylor "
        "Moore Jackson Martin Lee Perez Thompson White Harris").split()  # fmt: skip
TOWNS = ["Springfield", "Riverton", "Lakeside", "Fairview", "Salem"]


def registries(
    seed: int = 2, clinic: int = 100, registry: int = 600, both: int = 80
) -> tuple[list[Record], list[Record], set[tuple[str, str]]]:
    """A clinic's patients (dob ``1980-03-07``) and a registry's people (birth date
    ``07/03/1980``, names in capitals, other columns); ``both`` people in each, 40% of them
    moved house since. Few names and towns: a person is told by name and date of birth."""
    rng = random.Random(seed)

    def person() -> dict[str, str | int]:
        return {"fn": rng.choice(FIRST), "ln": rng.choice(LAST), "y": rng.randint(1930, 2005),
                "m": rng.randint(1, 12), "d": rng.randint(1, 28), "town": rng.choice(TOWNS),
                "street": f"{rng.randint(1, 400)} {rng.choice(LAST)} St"}  # fmt: skip

    everyone = [person() for _ in range(clinic + registry - both)]
    a: list[Record] = []
    b: list[Record] = []
    for n, p in enumerate(everyone[:registry]):
        b.append(_record(f"r{n}", "registry", n, {
            "surname": str(p["ln"]).upper(), "given": str(p["fn"]).upper(),
            "birth_date": f"{p['d']:02d}/{p['m']:02d}/{p['y']}", "street": str(p["street"]),
            "place": str(p["town"]),
        }))  # fmt: skip
    for n, p in enumerate(everyone[registry - both:]):
        moved = rng.random() < 0.4
        street = f"{rng.randint(1, 400)} {rng.choice(LAST)} St" if moved else str(p["street"])
        a.append(_record(f"c{n}", "clinic", n, {
            "first_name": str(p["fn"]), "last_name": str(p["ln"]),
            "dob": f"{p['y']}-{p['m']:02d}-{p['d']:02d}", "town": str(p["town"]), "address": street,
        }))  # fmt: skip
    gold = {(f"c{n}", f"r{registry - both + n}") for n in range(both)}
    return a, b, gold


def _record(rid: str, source: str, n: int, fields: dict[str, str]) -> Record:
    return Record(rid, " ".join(fields.values()), source, n + 2, fields)


def test_dates_written_two_ways_are_linked_as_one() -> None:
    """Same name and date of birth, one registry writing ``14/07/1952`` and the other
    ``1952-07-14``: the old link's grams saw two dates, so that a stranger at the same address
    outranked the moved person (59 of the 80 pairs found here, every one with both dates
    written ISO); with the dates in one form, the link finds every pair."""
    a, b, gold = registries()
    index = NearDupIndex()
    index.add_many(a)
    index.add_many(b)
    pairs = index.report(mode="link").pairs
    found = {(record_id(p.id1), record_id(p.id2)) for p in pairs}
    found = {(x, y) if x.startswith("c") else (y, x) for x, y in found}
    tp = len(found & gold)
    assert tp == len(gold), (tp, len(found))
    assert len(found) - tp <= 5


def test_an_ambiguous_date_is_read_the_way_its_source_writes_dates() -> None:
    """``07/03/1980`` is 7 March in a source whose unambiguous dates put the day first,
    3 July in one that puts the month first, and left as written where its source says
    neither (a guess would make a wrong date of a right one)."""
    texts = ["Ann 25/03/1980", "Bob 07/03/1980", "Cy 14/11/1972"] * 5
    texts += ["Dee 03/25/1980", "Ed 07/03/1980", "Flo 11/14/1972"] * 5
    texts += ["Gus 07/03/1980"]
    sources = ["eu"] * 15 + ["us"] * 15 + ["few"]
    written, orders = in_one_form(texts, sources)
    assert orders == {"eu": True, "us": False, "few": None}
    assert written[1] == "Bob 1980-03-07" and written[0] == "Ann 1980-03-25"
    assert written[16] == "Ed 1980-07-03" and written[15] == "Dee 1980-03-25"
    assert written[-1] == "Gus 07/03/1980"
    # Half and half is no order: each ambiguous date is left as written.
    assert day_first(["25/03/1980", "03/25/1980"] * 10) is None


def test_every_form_the_dates_check_reads_is_written_one_way() -> None:
    for text in ("1974-06-03", "1974/6/3", "3 Jun 1974", "June 3, 1974", "03.06.1974"):
        assert one_form(f"born {text} here", True) == "born 1974-06-03 here", text
    # Not dates: a year alone, a phone number, a price; and an impossible date.
    for text in ("Casablanca (1942)", "call 617-555-0101", "12.99", "31/31/1999"):
        assert one_form(text, True) == text
