"""Defaults chosen from the data: records or documents, and the threshold at the valley."""

from __future__ import annotations

import dataclasses
import json
import operator
import random
import re
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from neardup import NearDupIndex, Params
from neardup.backends.memory import MemoryBackend
from neardup.choose import choose
from neardup.decision.valley import valley_threshold
from neardup.defaults import DEFAULTS
from neardup.errors import ArgumentError

from .test_modes import _typo

SYLLABLES = ["an", "be", "ko", "ri", "sa", "mu", "el", "to", "va", "ni", "lo", "de", "ka", "su"]
STREETS = ["oak", "elm", "main", "park", "hill", "lake", "river", "pine", "mill", "high"]
CITIES = ["leeds", "york", "bath", "derby", "exeter", "oxford"]


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


def _people(seed: int = 5) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """Person records, some with typo'd copies (the truth: every pair of one person)."""
    rng = random.Random(seed)
    records, truth = [], set()
    for e in range(400):
        base = (
            f"{_name(rng)} {_name(rng)} {rng.randint(1, 999)} {rng.choice(STREETS)} street "
            f"{rng.choice(CITIES)} {rng.randint(10000, 99999)}"
        )
        ids = [f"{e}-{k}" for k in range(rng.choice([1, 1, 2, 3]))]
        for k, rid in enumerate(ids):
            records.append((rid, base if k == 0 else _typo(rng, base)))
        truth |= {(a, b) if a < b else (b, a) for a, b in combinations(ids, 2)}
    return records, truth


def _scores(found: set[tuple[str, str]], truth: set[tuple[str, str]]) -> tuple[float, float]:
    return len(found & truth) / max(1, len(found)), len(found & truth) / len(truth)


def test_records_get_character_shingles_and_the_valley() -> None:
    c = choose(["Cafe Muller 12 Main St Springfield"] * 10)
    assert (c.params.shingle_kind, c.params.shingle_size) == ("char", 3)
    assert (c.params.rule, c.params.threshold) == ("valley", DEFAULTS.record_floor)
    assert (c.params.bands, c.params.rows) == DEFAULTS.record_bands
    assert c.median_words == 6 and c.sampled == 10 and "records" in c.reasons[0]


def test_documents_get_word_shingles_at_a_fixed_threshold() -> None:
    text = " ".join(f"w{i}" for i in range(200))
    c = choose([text] * 3)
    assert (c.params.shingle_kind, c.params.shingle_size) == ("word", 1)
    assert (c.params.rule, c.params.threshold) == ("documents", DEFAULTS.document_threshold)
    assert "documents" in c.reasons[0]


def test_what_the_user_gives_wins() -> None:
    short = ["a short record"] * 5
    fixed = choose(short, {"threshold": 0.8}).params
    assert (fixed.shingle_kind, fixed.threshold, fixed.rule) == ("char", 0.8, "threshold")
    word = choose(short, {"shingle_kind": "word"}).params
    assert (word.shingle_kind, word.shingle_size, word.threshold) == ("word", 1, 0.65)
    sized = choose(short, {"shingle_size": 4}).params
    assert (sized.shingle_kind, sized.shingle_size) == ("char", 4)
    # the reason says the shingles given, not the ones the data would have had
    said = choose(short, {"shingle_kind": "word"}).reasons[0]
    assert said.endswith("; shingles as given: word 1-grams") and "character" not in said
    assert "so character 3-grams" in choose(short).reasons[0]
    with pytest.raises(ArgumentError, match="unknown parameters: colour"):
        choose(short, {"colour": "red"})


def test_an_index_without_parameters_chooses_from_its_first_records() -> None:
    backend = MemoryBackend()
    index = NearDupIndex(backend=backend)
    assert index.chosen is None and backend.load_params() is None  # nothing chosen yet
    records, _ = _people()
    index.add_many(records)
    assert index.chosen is not None and index.params.rule == "valley"
    stored = backend.load_params()
    assert stored is not None
    # Stored with the index: the parameters, and that they were chosen from the data (link
    # mode then decides by weighted similarity); the primary source is read off the records.
    # with the primary source its first write named (two first writers key their records alike)
    assert stored == {**index.params.to_dict(), "chosen_from_data": True,
                      "primary_source": "<records>"}  # fmt: skip
    reopened = NearDupIndex(backend=backend)
    assert reopened.params == index.params and reopened.chosen is None
    assert reopened.from_data and reopened.primary_source == "<records>"
    with pytest.raises(Exception, match="other parameters"):
        NearDupIndex(Params(), backend=backend)


def test_the_valley_finds_typo_copies_the_old_defaults_miss() -> None:
    records, truth = _people()
    index = NearDupIndex()
    index.add_many(records)
    report = index.report()
    assert report.rule is not None and report.rule["found"]
    assert DEFAULTS.record_floor < report.threshold < 0.8
    assert report.threshold == report.rule["threshold"]
    assert all(p.jaccard >= report.threshold for p in report.pairs)
    precision, recall = _scores({(p.id1, p.id2) for p in report.pairs}, truth)
    # recall: a copy with typos in both of its numbers and Jaccard < 0.7 is taken for another
    # entity (the numbers check of the valley rule); that costs 1 in 20 here
    assert precision > 0.95 and recall >= 0.94, (precision, recall, report.rule)
    assert report.rule["numbers_disagree"] > 0
    old = NearDupIndex(Params())  # word 1-grams at 0.65: a typo breaks a whole word
    old.add_many(records)
    _, old_recall = _scores({(p.id1, p.id2) for p in old.report().pairs}, truth)
    assert old_recall < recall - 0.1, (old_recall, recall)


def test_valley_between_two_modes() -> None:
    rng = np.random.default_rng(1)
    alike = rng.normal(0.5, 0.04, 2000).clip(0, 1)
    same = rng.normal(0.85, 0.05, 500).clip(0, 1)
    v = valley_threshold(np.concatenate([alike, same]), records=2500, floor=0.3)
    assert v.found and 0.6 <= v.threshold <= 0.72, v
    assert sum(v.counts) == np.count_nonzero(np.concatenate([alike, same]) >= 0.35)


def test_a_dip_between_near_copies_and_exact_ones_is_no_valley(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Business records, a sixth of them exact copies of another, the near duplicates
    (abbreviated streets, a missing zip) spread from 0.5 to 0.95 with no valley below them:
    the dip under the copies' spike was taken, a cut at 0.9 that left most duplicates out.
    It parts near copies from exact ones: passed over, and said."""
    rng = np.random.default_rng(4)
    alike = rng.normal(0.45, 0.1, 1500).clip(0, 0.99)  # records without a duplicate
    near = rng.uniform(0.5, 0.95, 1200)
    values = np.concatenate([alike, near, np.ones(900)])
    v = valley_threshold(values, records=3600, floor=0.3)
    assert not v.found and v.threshold == DEFAULTS.valley_fallback, v
    assert "parts near copies from exact ones" in v.reason
    from neardup.decision import valley

    monkeypatch.setattr(valley, "DEFAULTS", dataclasses.replace(DEFAULTS, valley_top=1.1))
    before = valley_threshold(values, records=3600, floor=0.3)  # as it was
    assert before.found and before.threshold >= 0.85


def test_valley_when_the_non_matches_lie_below_the_floor() -> None:
    rng = np.random.default_rng(2)
    same = rng.normal(0.8, 0.08, 600).clip(0, 1)  # 4000 other records have nothing >= floor
    v = valley_threshold(same, records=4600, floor=0.3)
    assert v.found and v.threshold == pytest.approx(0.35) and v.below_floor == 4000


def test_no_valley_falls_back() -> None:
    rng = np.random.default_rng(3)
    spread = rng.uniform(0.3, 1.0, 3000)  # matches everywhere: nothing to read
    v = valley_threshold(spread, records=3000, floor=0.3)
    assert not v.found and v.threshold == DEFAULTS.valley_fallback and "no valley" in v.reason


def test_cli_prints_what_it_chose_and_why(tmp_path: Path) -> None:
    records, _ = _people()
    src = tmp_path / "people.txt"
    src.write_text("".join(f"{i} {t}\n" for i, t in records), encoding="utf-8")

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        out = tmp_path / "out.txt"
        cmd = [sys.executable, "-m", "neardup", "dedupe", str(src), "--out", str(out),
               "--backend", "memory", *flags]  # fmt: skip
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    chose = run("--json")
    assert chose.returncode == 0, chose.stderr
    assert "parameters chosen from the data: character 3-grams, valley rule" in chose.stderr
    assert re.search(r"records: median \d+ words over the first 7\d\d records", chose.stderr)
    given = run("--threshold", "0.9", "--json")
    assert given.returncode == 0, given.stderr
    assert "character 3-grams, Jaccard >= 0.9" in given.stderr
    assert "given: threshold=0.9" in given.stderr
    assert json.loads(given.stdout)["kept"] > json.loads(chose.stdout)["kept"]


WORDS = ["night", "river", "blue", "song", "heart", "light", "road", "fire", "rain", "stone"]


def _tracks(seed: int = 3) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """Music tracks listed by two catalogues that write a track's length in their own form
    (4:32 against 272 s): the copies share their words but no number."""
    rng = random.Random(seed)
    records, truth = [], set()
    for t in range(400):
        title = " ".join(rng.choice(WORDS) for _ in range(3))
        album = f"{_name(rng)} {rng.choice(WORDS)} {_name(rng)}"
        artist = f"{_name(rng)} {_name(rng)}"
        seconds = rng.randint(120, 420)
        text = f"{title} {artist} {album}"
        records.append((f"a{t}", f"{text} {seconds // 60}:{seconds % 60:02d}"))
        if t % 3 == 0:
            copy = _typo(rng, text) if t % 2 else text
            records.append((f"b{t}", f"{copy} {seconds} s"))
            truth.add(tuple(sorted((f"a{t}", f"b{t}"))))  # type: ignore[arg-type]
    return records, truth


def test_the_numbers_check_is_left_out_where_numbers_are_written_in_many_forms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records, truth = _tracks()
    index = NearDupIndex()
    index.add_many(records)
    report = index.report()
    assert report.rule is not None and report.rule["numbers_check"].startswith("not made")
    assert report.rule["numbers_disagree"] == 0
    _, recall = _scores({(p.id1, p.id2) for p in report.pairs}, truth)
    # Made anyway, the check drops the copies that are not alike enough to be waived.
    import neardup.decision.valley as valley

    monkeypatch.setattr(valley, "DEFAULTS", dataclasses.replace(DEFAULTS, numbers_noisy=1.0))
    forced = index.report()
    assert forced.rule is not None and forced.rule["numbers_disagree"] > 0
    _, forced_recall = _scores({(p.id1, p.id2) for p in forced.pairs}, truth)
    assert recall >= 0.9 and forced_recall < recall - 0.1, (recall, forced_recall)


def test_the_numbers_check_is_made_where_matches_share_their_numbers() -> None:
    """Made where at most DEFAULTS.numbers_noisy of the alike pairs share no number, left out
    above."""
    from neardup.decision.valley import numbers_identify
    from neardup.results import Pair as ReportPair

    proc = Params().processor()
    texts: dict[str, str] = {}
    pairs = []
    for i in range(100):
        texts[f"a{i}"] = f"a track of the album 2005 length 4m{i:02d}s"
        pairs.append(ReportPair(f"a{i}", f"b{i}", 0.9, 0))

    def apart(k: int) -> list[ReportPair]:
        for i in range(100):  # the first k copies write their numbers in another form
            texts[f"b{i}"] = (
                f"a track of the album 05 length {240 + i}s" if i < k else texts[f"a{i}"]
            )
        return pairs

    noisy = DEFAULTS.numbers_noisy
    below, above = int(noisy * 100) - 2, int(noisy * 100) + 2
    made, why = numbers_identify(apart(below), texts, proc)
    assert made and why.startswith(f"made: {below} of 100"), why
    made, why = numbers_identify(apart(above), texts, proc)
    assert not made and why.startswith(f"not made: {above} of 100"), why


def test_a_large_collection_is_banded_against_its_chance_pairs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Past ``DEFAULTS.large_records`` expected records, short records get 4-row bands and the
    valley is looked for above 0.4: the number of the chance pairs just under the 0.3 floor
    grows with the square of the records; documents keep their threshold with 5-row bands.
    What is given and a write of unknown size keep the usual choice."""
    texts = ["cafe muller 12 main st springfield", "j smith 1 high street leeds"]
    big = DEFAULTS.large_records + 1
    large = choose(texts, expected=big)
    assert (large.params.bands, large.params.rows) == DEFAULTS.large_record_bands == (32, 4)
    assert large.params.threshold == DEFAULTS.large_record_floor == 0.4
    assert large.params.rule == "valley"
    assert any(r.startswith(f"size: {big:,d} records expected") for r in large.reasons)
    for expected in (None, DEFAULTS.large_records):
        usual = choose(texts, expected=expected).params
        assert (usual.bands, usual.rows, usual.threshold) == (40, 3, DEFAULTS.record_floor)
    assert choose(texts, {"threshold": 0.5}, expected=big).params.threshold == 0.5
    document = " ".join(f"w{i}" for i in range(300))
    usual_doc = Params(threshold=DEFAULTS.document_threshold)
    for expected in (None, DEFAULTS.large_records):  # their fixed threshold's banding
        doc = choose([document], expected=expected).params
        assert (doc.bands, doc.rows) == (usual_doc.bands, usual_doc.rows) == (32, 4)
    large_doc = choose([document], expected=big)
    assert (large_doc.params.bands, large_doc.params.rows) == DEFAULTS.large_document_bands
    assert large_doc.params.threshold == DEFAULTS.document_threshold  # the same threshold
    assert any(r.startswith(f"size: {big:,d} records expected") for r in large_doc.reasons)
    assert choose([document], {"num_perm": 64}, expected=big).params.num_perm == 64
    # The library passes a list's length (or total=) to the choice; a generator has none.
    import neardup.choose as choose_module

    monkeypatch.setattr(
        choose_module, "DEFAULTS", dataclasses.replace(DEFAULTS, large_records=5)
    )
    records = [(str(i), f"{t} {i}") for i in range(4) for t in texts]
    listed = NearDupIndex()
    listed.add_many(records)
    assert (listed.params.rows, listed.params.threshold) == (4, 0.4)
    streamed = NearDupIndex()
    streamed.add_many(r for r in records)
    assert (streamed.params.rows, streamed.params.threshold) == (3, 0.3)
    told = NearDupIndex()
    told.add_many((r for r in records), total=len(records))
    assert told.params.rows == 4
    # read_records' items hint at their file's lines
    from neardup.read.records import read_records

    path = tmp_path / "records.txt"
    path.write_text("".join(f"{i} {t}\n" for i, t in records), encoding="utf-8")
    items = read_records(path, "lines")
    assert operator.length_hint(items) == len(records)
    read = NearDupIndex()
    read.add_many(items)
    assert (read.params.rows, read.params.threshold, len(read)) == (4, 0.4, 4)  # ids repeat
    path.write_text("".join(f"{i} {t}\n" for i, t in records[:5]), encoding="utf-8")
    few = NearDupIndex()
    few.add_many(read_records(path, "lines"))
    assert few.params.rows == 3  # 5 lines: not past the bound of 5


def test_the_records_a_file_holds_are_counted_off_its_lines(tmp_path: Path) -> None:
    from neardup.read.records import expected_records

    (tmp_path / "a.txt").write_bytes(b"1 a\n2 b\n3 c\n")
    (tmp_path / "b.txt").write_bytes(b"1 a\r\n2 b")
    (tmp_path / "e.txt").write_bytes(b"")
    assert expected_records(tmp_path / "a.txt") == 3
    assert expected_records(tmp_path / "b.txt") == 2
    assert expected_records(tmp_path / "e.txt") == 0
    (tmp_path / "r.csv").write_text("id,name\n1,a\n2,b\n", encoding="utf-8")
    # not the header: 300,000 rows were "300,001 records expected", past a size cut-over
    assert expected_records(tmp_path / "r.csv") == 2
