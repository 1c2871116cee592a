"""Readers, pair files and scores (no Solr)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neardup import resources
from neardup.errors import InputError, NotUtf8
from neardup.evaluate import bcubed, score
from neardup.read.items import Blank, Record, Rejection
from neardup.read.pairs import read_pairs
from neardup.read.records import read_records

REPO = Path(__file__).resolve().parents[1]


def _items(tmp_path: Path, name: str, data: bytes, **kw: object) -> list[object]:
    path = tmp_path / name
    path.write_bytes(data)
    return list(read_records(path, **kw))  # type: ignore[arg-type]


def test_lines_format_repairs_and_rejects(tmp_path: Path) -> None:
    data = (
        b"\xef\xbb\xbf1 first record\r\n"
        b"\n"
        b"   \n"
        b"2 second\trecord\n"
        b"3\n"
        b"4 bad \xff byte\n"
        b"5 nul \x00 byte\n"
        b"1 duplicate id\n"
        b"6 last line without newline"
    )
    with pytest.warns(NotUtf8, match="r.txt:6: not UTF-8"):
        items = _items(tmp_path, "r.txt", data)
    records = [i for i in items if isinstance(i, Record)]
    rejections = [i for i in items if isinstance(i, Rejection)]
    blanks = [i for i in items if isinstance(i, Blank)]
    assert [(r.id, r.text, r.line) for r in records] == [
        ("1", "first record", 1),
        ("2", "second\trecord", 4),
        ("4", "bad \xff byte", 6),  # a byte that is not UTF-8, read as Windows-1252 (said)
        ("6", "last line without newline", 9),
    ]
    assert [(r.line, r.reason.split(",")[0]) for r in rejections] == [
        (5, "no text after the id"),
        (7, "NUL byte at column 7"),
        (8, "duplicate id"),
    ]
    assert [b.line for b in blanks] == [2, 3]
    assert len(items) == 9  # every line is accounted for


def test_tsv_csv_jsonl(tmp_path: Path) -> None:
    tsv = _items(
        tmp_path,
        "a.tsv",
        b"id\tname\tcity\n1\tArt's\tLA\n2\tonly-two\n",
        text_fields=("name", "city"),
    )
    assert isinstance(tsv[0], Record) and tsv[0].text == "Art's LA"
    assert tsv[0].fields == {"name": "Art's", "city": "LA"}
    assert isinstance(tsv[1], Record) and tsv[1].fields == {"name": "only-two", "city": ""}
    csv = _items(
        tmp_path, "a.csv", b'id,text\n1,"a, quoted ""text"""\n2,\n,x\n', text_fields=("text",)
    )
    assert isinstance(csv[0], Record) and csv[0].text == 'a, quoted "text"'
    assert isinstance(csv[1], Rejection) and "no text" in csv[1].reason
    assert isinstance(csv[2], Rejection) and csv[2].reason == "empty id (field 'id')"
    js = _items(tmp_path, "a.jsonl", b'{"id": 7, "text": "x y"}\n[1]\n{"id": "8"\n{"text": "z"}\n')
    assert isinstance(js[0], Record) and js[0].id == "7"
    assert [r.reason.split(":")[0] for r in js[1:]] == [  # type: ignore[union-attr]
        "a JSON object was expected",
        "invalid JSON",
        "missing id field 'id'",
    ]
    with pytest.raises(InputError, match="header has no column 'text'"):
        _items(tmp_path, "b.csv", b"id,body\n1,x\n", text_fields=("text",))
    # Without a text field named, a table without a 'text' column is read from all its others.
    body = _items(tmp_path, "c.csv", b"id,body\n1,x\n")
    assert isinstance(body[0], Record) and body[0].text == "x"


def test_missing_file_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(read_records(tmp_path / "nope.txt"))
    with pytest.raises(InputError, match="unknown format"):
        list(read_records(tmp_path, fmt="xml"))


def test_read_pairs_formats(tmp_path: Path) -> None:
    p = tmp_path / "g.txt"
    p.write_text("# comment\nid1\tid2\tjaccard\n3 1\n1\t3\n10\t9\t0.5\n")
    assert read_pairs(p) == {("1", "3"), ("9", "10")}
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n3\n")
    with pytest.raises(InputError, match=r"bad.txt:2"):
        read_pairs(bad)


def test_scores_are_unordered() -> None:
    s = score([("2", "1"), ("3", "4"), ("5", "6")], [("1", "2"), ("4", "3"), ("7", "8")])
    assert (s.pairs, s.true_pairs, s.gold) == (3, 2, 3)
    assert s.recall == pytest.approx(2 / 3, abs=1e-4)
    assert s.precision == pytest.approx(2 / 3, abs=1e-4)
    assert score([], [("1", "2")]).f1 == 0.0


def test_bcubed_by_hand() -> None:
    # found: {a, b, c} and {d}; gold: {a, b} and {c, d}
    s = bcubed([("a", "b"), ("b", "c")], [("a", "b"), ("c", "d")])
    # precision: a, b: 2/3 each, c: 1/3, d: 1; recall: a, b: 1, c: 1/2, d: 1/2
    assert s.records == 4
    assert s.precision == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1) / 4, abs=1e-4)
    assert s.recall == pytest.approx((1 + 1 + 0.5 + 0.5) / 4, abs=1e-4)
    perfect = bcubed([("x", "y")], [("y", "x")], ids=["x", "y", "z"])
    assert (perfect.records, perfect.precision, perfect.recall) == (3, 1.0, 1.0)
    # every record of the data counts: singletons right on both sides raise both scores
    found, gold = [("a", "b")], [("a", "c")]
    assert bcubed(found, gold, ids="abcdef").f1 > bcubed(found, gold).f1


def test_cli_evaluate_prints_bcubed(tmp_path: Path) -> None:
    found, gold, records = tmp_path / "f.tsv", tmp_path / "g.tsv", tmp_path / "r.txt"
    found.write_text("1\t2\n2\t3\n")
    gold.write_text("1\t2\n")
    records.write_text("1 a\n2 b\n3 c\n4 d\n")
    cmd = [sys.executable, "-m", "neardup", "evaluate", str(found), "--gold", str(gold), "--json"]
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    assert out["bcubed"]["records"] == 3 and out["true_pairs"] == 1
    every = subprocess.run([*cmd, "--records", str(records)], capture_output=True, text=True)
    assert json.loads(every.stdout)["bcubed"]["records"] == 4
    text = subprocess.run(cmd[:-1], capture_output=True, text=True, check=True).stdout
    assert "clusters (B-cubed over 3 records)" in text


def test_bundled_restaurants_are_as_described() -> None:
    records, gold = resources.restaurants()
    items = list(read_records(records))
    assert len(items) == 864 and all(isinstance(i, Record) for i in items)
    ids = [i.id for i in items if isinstance(i, Record)]
    assert ids == [str(n) for n in range(1, 865)]
    pairs = read_pairs(gold)
    assert len(pairs) == 112
    assert all(1 <= int(a) <= 533 < int(b) <= 864 for a, b in pairs)


def test_bundled_data_rebuilds_identically_from_the_sdist() -> None:
    """The committed files equal what build.py makes from the py-entitymatching sdist (PyPI)."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "data/restaurants/build.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_line_mixing_utf8_and_windows_1252_keeps_both(tmp_path: Path) -> None:
    """A UTF-8 file with one broken byte: the line's valid UTF-8 letters are kept as they are,
    only the byte that is not UTF-8 is read as Windows-1252 (Latin-1 where it defines none)."""
    data = b"1 caf\xc3\xa9 \xe9t\xe9\n2 \x81 \x9d\n3 plain\n"
    with pytest.warns(NotUtf8) as said:
        items = _items(tmp_path, "m.txt", data)
    assert [(r.id, r.text) for r in items if isinstance(r, Record)] == [
        ("1", "café été"), ("2", "\x81 \x9d"), ("3", "plain")
    ]
    assert len(said) == 1 and said[0].message.line == 1  # type: ignore[union-attr]
