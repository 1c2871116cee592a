"""neardup.decision.codes: in a catalogue whose near-identical titles name sibling models
(``AB-1203``, ``AB-1204``), the pairs whose model numbers differ are dropped and the re-listings
that keep their model number are kept; a per-listing number that re-listings change, and a code
copies keep with typos (FEBRL's social security number), veto nothing (the lead's D8 finding:
Amazon deduplicated alone merged sibling models with different model numbers)."""

from __future__ import annotations

import csv
import random
import string
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.backends.memory import MemoryBackend
from neardup.decision.codes import agree, code_columns, judge
from neardup.decision.decide import Checked, CodesCheck, Features, FixedThreshold
from neardup.results import Pair

from .conftest import run_cli

BRANDS = ["Acme", "Voltix", "Norden", "Kestrel", "Lumara", "Ostrava", "Pexon", "Quill"]
KINDS = ["Wireless Router 4 Port Gigabit", "USB Flash Drive Metal Keyring",
         "Bluetooth Speaker Waterproof Portable", "Laser Toner Cartridge High Yield",
         "Tablet Case Folio Stand Leather", "HDMI Cable Braided Gold Plated"]  # fmt: skip
COLOURS = ["Black", "White", "Silver", "Blue", "Red", "Grey"]


def _code(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_uppercase, k=2)) + "-" + str(rng.randint(1000, 8999))


def _catalogue(seed: int) -> tuple[list[dict[str, str]], list[list[str]], list[tuple[str, str]]]:
    """Rows (id, title, modelno, price), the sibling families (ids), and the re-listings
    (original id, copy id): ~60 models in families of 2-4 codes one apart, 20 re-listings that
    keep the code (one written without its dash), 60 products of their own."""
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    families: list[list[str]] = []

    def add(title: str, code: str) -> str:
        rows.append({"id": str(len(rows)), "title": title, "modelno": code,
                     "price": f"{rng.randint(5, 300)}.{rng.randint(0, 99):02d}"})  # fmt: skip
        return rows[-1]["id"]

    while sum(len(f) for f in families) < 60:
        brand, kind, colour = rng.choice(BRANDS), rng.choice(KINDS), rng.choice(COLOURS)
        prefix, base = _code(rng)[:2], rng.randint(1000, 8990)
        families.append([add(f"{brand} {kind} {prefix}-{base + k} {colour}", f"{prefix}-{base + k}")
                         for k in range(rng.randint(2, 4))])  # fmt: skip
    models = [i for f in families for i in f]
    relisted = []
    for n, original in enumerate(rng.sample(models, 20)):
        row = rows[int(original)]
        code = row["modelno"].replace("-", "") if n == 0 else row["modelno"]
        relisted.append((original, add(f"New {row['title']}", code)))
    for _ in range(60):
        add(f"{rng.choice(BRANDS)} {rng.choice(KINDS)} {_code(rng)} {rng.choice(COLOURS)}",
            _code(rng).replace("-", ""))  # fmt: skip
    return rows, families, relisted


def _dedupe(tmp_path: Path, rows: list[dict[str, str]]) -> tuple[dict[str, str], str]:
    """The cluster of each row after ``neardup dedupe`` with defaults, and what ``-v`` said."""
    src, out = tmp_path / "catalogue.csv", tmp_path / "out.csv"
    with src.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="|")
        w.writeheader()
        w.writerows(rows)
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory", "-v",
                   "--cluster-column", "cluster")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with out.open(encoding="utf-8", newline="") as fh:
        cluster = {r["id"]: r["cluster"] for r in csv.DictReader(fh, delimiter="|")}
    return cluster, proc.stdout


def _siblings_merged(cluster: dict[str, str], families: list[list[str]]) -> int:
    return sum(cluster[a] == cluster[b] for f in families for a in f for b in f if a < b)


def test_codes_agree_when_equal_as_codes_or_one_holds_the_other() -> None:
    assert agree("AB-1203", "ab1203") and agree("tlant2405c", "TLANT2405CL")
    assert agree("346", "00346neat")
    assert not agree("CT2CP12872AV667", "CT2CP51272AV667") and not agree("TZeS121", "TZeS221")


def test_a_code_column_is_filled_one_token_mostly_digits_and_distinct() -> None:
    normalize = Params().processor().normalize
    rows = {
        str(i): {"modelno": f"AB-{1000 + i}", "addr": f"{i} main street",
                 "price": "9.99" if i % 2 else f"{i}.50", "brand": "acme",
                 "size": str(i % 9)}
        for i in range(40)
    }  # fmt: skip
    # addr holds spaces, price repeats, brand holds no digit, size is too short
    assert code_columns(rows, normalize) == ["modelno"]
    for i in range(25):  # filled in fewer than half the records
        rows[str(i)]["modelno"] = ""
    assert code_columns(rows, normalize) == []


def test_siblings_with_other_model_numbers_are_told_apart_and_relistings_kept(
    tmp_path: Path,
) -> None:
    rows, families, relisted = _catalogue(seed=5)
    cluster, said = _dedupe(tmp_path, rows)
    assert _siblings_merged(cluster, families) == 0
    assert all(cluster[a] == cluster[b] for a, b in relisted)  # "AB1203" among them
    # the words name the column and the pairs dropped
    assert "codes (modelno): " in said
    assert "pairs dropped whose records hold different codes in modelno" in said
    assert "differ as siblings' do" in said


def test_a_listing_number_that_relistings_change_vetoes_nothing(tmp_path: Path) -> None:
    rows, families, relisted = _catalogue(seed=5)
    rng = random.Random(9)
    listed = [{"id": r["id"], "title": r["title"], "listing": str(rng.randint(10000, 99999)),
               "price": r["price"]} for r in rows]  # fmt: skip
    cluster, said = _dedupe(tmp_path, listed)
    assert all(cluster[a] == cluster[b] for a, b in relisted)  # kept, though numbers differ
    assert "hold different codes" not in said  # nothing vetoed
    assert "codes (listing): not made" in said
    assert "no more alike than at random" in said


def _people(seed: int) -> tuple[dict[str, dict[str, str]], list[Pair]]:
    """FEBRL-like records and their copies: the copies keep the social security number and
    birth date in >= 80% of pairs and mistype a digit otherwise."""
    rng = random.Random(seed)
    rows: dict[str, dict[str, str]] = {}
    pairs: list[Pair] = []
    for i in range(600):
        rows[str(i)] = {"given": rng.choice(["anna", "bram", "carla", "daan", "eva"]),
                        "soc_sec_id": str(rng.randint(1000000, 9999999)),
                        "date_of_birth": f"19{rng.randint(40, 99)}{rng.randint(1, 12):02d}"
                                         f"{rng.randint(1, 28):02d}"}  # fmt: skip
    for n in range(100):
        copy = dict(rows[str(n)])
        if n % 6 == 0:  # a typo: one digit changed
            ssn = copy["soc_sec_id"]
            copy["soc_sec_id"] = ssn[:3] + str((int(ssn[3]) + 1) % 10) + ssn[4:]
        rows[f"c{n}"] = copy
        pairs.append(Pair(str(n), f"c{n}", 0.8, 2))
    return rows, pairs


def test_a_code_copies_keep_and_sometimes_mistype_vetoes_nothing() -> None:
    rows, kept = _people(seed=3)
    proc = Params().processor()
    # a date is no code: written another way (19900102, 01/02/1990), it is the same date
    assert code_columns(rows, proc.normalize) == ["soc_sec_id"]
    features = Features(
        pairs=kept, texts={}, processor=proc, records=len(rows),
        columns=lambda ids: {i: rows[i] for i in ids if i in rows},
        everything=lambda: ((i, "") for i in rows),
    )  # fmt: skip
    out, decision = Checked(FixedThreshold(0.5), (CodesCheck(),)).decide(features)
    assert out == kept and "codes" not in decision.dropped
    judged = {j["column"]: j for j in (decision.explain or {})["codes"]["columns"]}
    assert not judged["soc_sec_id"]["made"] and judged["soc_sec_id"]["agree"] > 0.8
    assert "not made: the pairs kept agree on it in 83% of cases" in judged["soc_sec_id"]["reason"]
    # the same records judged as siblings' would be: the check drops the pairs that differ
    siblings = judge("soc_sec_id", [p for n, p in enumerate(kept) if n % 6 == 0], rows,
                     proc.normalize)  # fmt: skip
    assert siblings.agree == 0.0 and siblings.made


def test_cluster_completion_adds_no_pair_whose_codes_differ() -> None:
    """Three listings of AB-1203, one without a model number that each is like, and AB-1207
    like it too: 7 of the 10 pairs kept, so the cluster is completed; where the codes check
    was made on ``modelno``, the three pairs of AB-1203 and AB-1207 are not added."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({
        "id": ["1", "2", "3", "4", "5"],
        "title": ["acme router", "acme router new", "acme router black", "acme router",
                  "acme router blue"],
        "modelno": ["AB-1203", "AB1203", "AB-1203", "", "AB-1207"],
    })  # fmt: skip
    index = NearDupIndex(Params(threshold=0.5), backend=MemoryBackend())
    index.add_many(frame)
    texts = dict(index.backend.all_texts())
    kept = [Pair(a, b, 0.8, 1) for a, b in
            [("1", "2"), ("1", "3"), ("2", "3"), ("1", "4"), ("2", "4"), ("3", "4"), ("4", "5")]]
    added = {(p.id1, p.id2) for p in index._completed(kept, texts, True)[0]} - {
        (p.id1, p.id2) for p in kept}  # fmt: skip
    assert added == {("1", "5"), ("2", "5"), ("3", "5")}  # without the check's verdict
    pairs, said = index._completed(kept, texts, True, codes=["modelno"])
    assert pairs == kept
    assert said is not None and said["added"] == 0 and said["vetoed"] == 3
    assert "3 missing pairs left out whose records hold different codes in modelno" in (
        said["reason"])
