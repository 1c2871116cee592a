"""The bad-input catalogue, through the real CLI and a real Solr: each case is handled or named.

Every run must end with counts that add up (read = indexed + rejected; lines = read + blank),
no traceback, and a ``file:line: reason`` for every rejected record.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup import InputError, NearDupIndex, Params
from neardup.backends.solr import SolrBackend
from neardup.read.items import Record, Rejection
from neardup.read.pair_files import read_labels, read_pairs_file
from neardup.read.pairs import read_pairs
from neardup.seed2014 import SeedSearcher
from neardup.sign.text import normalize
from neardup.solr import admin
from neardup.solr.admin import connect
from neardup.solr.client import Solr

from .conftest import REPO, run_cli

SYNTAX = '" \\ : ( ) [ ] { } * ? + - ! ^ ~ && || / AND OR NOT'
_names = itertools.count()


def idx(solr: Solr) -> NearDupIndex:
    """The index in ``solr``, with the parameters it was built with."""
    return NearDupIndex(backend=SolrBackend(solr))


def index(
    solr_base: str, tmp_path: Path, data: bytes, name: str = "in.txt", *extra: str
) -> tuple[dict, str, Solr]:
    """Index ``data`` as a file through the CLI into a fresh collection, with the 2014 fields
    too (they index words and shingles as terms, so they meet Solr's term limit)."""
    coll = f"test_bad_{os.getpid()}_{next(_names)}"
    path = tmp_path / name
    path.write_bytes(data)
    proc = run_cli(
        "index",
        str(path),
        "--json",
        "--fields-2014",
        *extra,
        env={"NEARDUP_SOLR_URL": f"{solr_base}/{coll}"},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 2), proc.stderr
    counts = json.loads(proc.stdout) if proc.stdout.strip() else {}
    if counts:
        assert counts["read"] == counts["indexed"] + counts["rejected"] + counts["identical"]
        assert len(counts["rejections"]) == counts["rejected"]
        for r in counts["rejections"]:
            assert r["source"] == str(path) and r["line"] >= 1 and r["reason"]
            assert f"{path}:{r['line']}: " in proc.stderr
    return counts, proc.stderr, connect(solr_base, coll)


def reasons(counts: dict) -> list[tuple[int, str]]:
    return [(r["line"], r["reason"]) for r in counts["rejections"]]


def test_empty_file(solr_base: str, tmp_path: Path) -> None:
    counts, stderr, solr = index(solr_base, tmp_path, b"")
    assert (counts["read"], counts["indexed"], counts["blank_lines"]) == (0, 0, 0)
    assert "nothing was indexed: the file holds no records" in stderr  # and exit code 2
    assert solr.count(fq=["-id:_neardup_meta_"]) == 0


def test_blank_lines_are_skipped_and_counted(solr_base: str, tmp_path: Path) -> None:
    counts, _, _ = index(solr_base, tmp_path, b"\n1 one two three\n   \n\t\n2 four five six\n\n")
    assert (counts["read"], counts["indexed"], counts["blank_lines"]) == (2, 2, 4)


def test_punctuation_only_and_one_word_records(solr_base: str, tmp_path: Path) -> None:
    counts, _, solr = index(solr_base, tmp_path, b"1 ... !!! ???\n2 word\n3 word\n")
    assert reasons(counts) == [(1, "no words after normalization")]
    assert counts["indexed"] == 2
    found = idx(solr).neighbors("2")
    assert [(m.id, m.jaccard) for m in found] == [("3", 1.0)]


def test_a_200000_word_record(solr_base: str, tmp_path: Path) -> None:
    words = " ".join(f"w{i % 5000}x{i // 5000}" for i in range(200_000))
    counts, _, solr = index(solr_base, tmp_path, f"1 {words}\n2 {words} extra\n".encode())
    assert counts["indexed"] == 2
    doc = solr.get(["1"], fields="num_words")[0]
    assert doc["num_words"] == 200_000
    near = SeedSearcher(idx(solr)).near_dups_of("1", "minhash", 2)
    assert [(n.id, n.edit_distance) for n in near] == [("2", 1)]


def test_a_word_longer_than_solr_allows(solr_base: str, tmp_path: Path) -> None:
    counts, _, _ = index(solr_base, tmp_path, b"1 ok text here\n2 " + b"x" * 40_000 + b" y\n")
    assert counts["indexed"] == 1
    ((line, reason),) = reasons(counts)
    assert line == 2 and "longer than Solr's limit" in reason


def test_bytes_that_are_not_utf8_are_read_as_windows_1252(solr_base: str, tmp_path: Path) -> None:
    """A Windows-1252 export (an accented name, a curly quote) had each such line rejected:
    a record lost for every letter past ASCII. Read as Windows-1252, said once, with the line."""
    data = b"1 first line\n2 Caf\xe9 cr\xe8me \x93Paris\x94\n3 last\n4 caf\xe9 cr\xe8me paris\n"
    counts, stderr, solr = index(solr_base, tmp_path, data)
    assert reasons(counts) == [] and counts["indexed"] == 4
    assert stderr.count("not UTF-8") == 1
    assert f"neardup: note: {tmp_path / 'in.txt'}:2: not UTF-8 at column 6: read as Windows-1252" \
        in stderr
    found = idx(solr).neighbors("2")
    assert [m.id for m in found] == ["4"]
    assert solr.get(["2"], fields="raw")[0]["raw"] == "Café crème “Paris”"


def test_lone_surrogate_escapes_in_json(solr_base: str, tmp_path: Path) -> None:
    # json.loads accepts "\\ud800"; the string has no UTF-8 form, and mmh3 5.x segfaulted on it.
    lines = [
        '{"id": "a", "text": "good record one"}',
        '{"id": "b", "text": "bad \\ud800 record"}',
        '{"id": "c\\udfff", "text": "bad id"}',
        '{"id": "d", "text": "good record two"}',
    ]
    data = ("\n".join(lines) + "\n").encode()
    counts, _, solr = index(solr_base, tmp_path, data, "in.jsonl")
    assert (counts["read"], counts["indexed"], counts["rejected"]) == (4, 2, 2)
    assert reasons(counts) == [
        (2, "field 'text' is not valid Unicode: lone surrogate U+D800 at character 5"),
        (3, "field 'id' is not valid Unicode: lone surrogate U+DFFF at character 2"),
    ]
    assert sorted(d["id"] for d in solr.iter_docs("id", fq=["-id:_neardup_meta_"])) == ["a", "d"]
    # Undecodable command-line bytes become lone surrogates too: exit 2 before any Solr call.
    proc = run_cli("search", "caf\udcff", env={"NEARDUP_SOLR_URL": "http://127.0.0.1:9/solr/x"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "the search text is not valid Unicode: lone surrogate U+DCFF" in proc.stderr


def test_nul_bytes(solr_base: str, tmp_path: Path) -> None:
    counts, _, _ = index(solr_base, tmp_path, b"1 first line\n2 nul \x00 here\n3 last\n")
    assert reasons(counts) == [(2, "NUL byte at column 7")]
    assert counts["indexed"] == 2


def test_windows_line_endings(solr_base: str, tmp_path: Path) -> None:
    counts, _, solr = index(solr_base, tmp_path, b"1 first line\r\n2 last\r\n")
    assert counts["indexed"] == 2
    docs = {d["id"]: d["raw"] for d in solr.get(["1", "2"], fields="id,raw")}
    assert docs == {"1": "first line", "2": "last"}


def test_byte_order_mark(solr_base: str, tmp_path: Path) -> None:
    counts, _, solr = index(solr_base, tmp_path, b"\xef\xbb\xbf1 first line\n2 last\n")
    assert counts["indexed"] == 2
    assert solr.get(["1"], fields="id,raw") == [{"id": "1", "raw": "first line"}]


def test_duplicate_ids(solr_base: str, tmp_path: Path) -> None:
    counts, _, solr = index(solr_base, tmp_path, b"1 first\n2 second\n1 again\n")
    assert [(line, r.split(",")[0]) for line, r in reasons(counts)] == [(3, "duplicate id")]
    assert solr.get(["1"], fields="raw")[0]["raw"] == "first"


def test_missing_ids(solr_base: str, tmp_path: Path) -> None:
    data = b'{"id": "a", "text": "x y"}\n{"text": "no id"}\n{"id": "", "text": "empty id"}\n'
    counts, _, _ = index(solr_base, tmp_path, data, "r.jsonl")
    assert reasons(counts) == [(2, "missing id field 'id'"), (3, "empty id (field 'id')")]
    counts, _, _ = index(solr_base, tmp_path, b"id,text\n,no id here\n2,fine\n", "r.csv")
    assert [(line, r) for line, r in reasons(counts)] == [(2, "empty id (field 'id')")]


def test_odd_ids(solr_base: str, tmp_path: Path) -> None:
    ids = ["with space", "ünïcödé", 'a:b"c\\d(e)[f]{g}*?+-!^~&&||/', "AND", "*"]
    rows = [json.dumps({"id": i, "text": f"shared words here {n}"}) for n, i in enumerate(ids)]
    counts, _, solr = index(solr_base, tmp_path, "\n".join(rows).encode(), "ids.jsonl")
    assert counts["indexed"] == len(ids)
    assert {d["id"] for d in solr.get(ids, fields="id")} == set(ids)
    for i in ids:
        assert {m.id for m in idx(solr).neighbors(i, k=10)} == set(ids) - {i}


def test_text_full_of_solr_syntax(solr_base: str, tmp_path: Path) -> None:
    data = f"1 {SYNTAX}\n2 {SYNTAX} extra\n3 AND OR NOT\n".encode()
    counts, _, solr = index(solr_base, tmp_path, data)
    assert counts["indexed"] == 3
    assert idx(solr).query(SYNTAX, k=1)[0].id == "1"
    for method in ("shingles", "minhash"):
        near = SeedSearcher(idx(solr)).near_dups_of("1", method, 2)
        assert [n.id for n in near] == ["2"]


def test_malformed_rows(solr_base: str, tmp_path: Path) -> None:
    counts, _, _ = index(solr_base, tmp_path, b"id\ttext\n1\tok\n2\ttoo\tmany\n3\n", "t.tsv")
    assert [line for line, _ in reasons(counts)] == [3, 4]
    counts, _, _ = index(solr_base, tmp_path, b'id,text\n1,ok\n2,"unterminated\n', "c.csv")
    assert counts["indexed"] == 1 and counts["rejected"] == 1
    counts, _, _ = index(
        solr_base, tmp_path, b'{"id": "1", "text": "ok"}\n{"id": 2,\n[]\n', "j.jsonl"
    )
    assert [line for line, _ in reasons(counts)] == [2, 3]


def test_strict_exit_code_and_a_missing_file(solr_base: str, tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_bytes(b"1 fine\n2 ...\n")
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/test_bad_strict"}
    admin.delete_collection(connect(solr_base, "test_bad_strict"))  # a fresh collection
    assert run_cli("index", str(path), env=env).returncode == 0
    strict = run_cli("index", str(path), "--strict", env=env)
    assert strict.returncode == 2 and "rejected 1" in strict.stdout
    missing = run_cli("index", str(tmp_path / "nope.txt"), env=env)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert "Traceback" not in missing.stderr
    writers = run_cli("index", str(path), "--writers", "0", env=env)
    assert writers.returncode == 2 and "--writers must be between 1 and 64, got 0" in writers.stderr


@pytest.fixture(scope="module")
def safety(solr_base: str) -> Solr:
    solr = connect(solr_base, f"test_query_safety_{os.getpid()}")
    solr.delete_query("*:*")
    solr.commit()
    NearDupIndex(Params(fields_2014=True), backend=SolrBackend(solr)).add_many([])
    return solr


_ids = itertools.count()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(min_size=1, max_size=200))
def test_any_text_finds_itself(safety: Solr, text: str) -> None:
    """Any text, indexed and searched for, raises no Solr syntax error and finds itself."""
    if not normalize(text):
        return  # rejected at indexing (tested above), so there is nothing to find
    rid = f"h{next(_ids)}"
    index = idx(safety)
    stats = index.add_many([Record(rid, text)])
    assert stats.indexed == 1
    matches = index.query(text, k=50)
    top = [m for m in matches if m.jaccard == 1.0]
    assert rid in {m.id for m in top}
    SeedSearcher(index).near_dups_of(rid, "shingles", 2)


def test_the_local_nodes_heap_is_checked_and_sized_for_the_machine(tmp_path: Path) -> None:
    from neardup.solr.local import DEFAULT_HEAP, HEAP_MAX_MB, HEAP_MIN_MB, default_heap

    bad = run_cli("solr", "status", "--heap", "lots", env={"NEARDUP_HOME": str(tmp_path)})
    assert bad.returncode == 2, bad.stderr
    assert "argument --heap: a size such as 512m or 4g, at least 256m expected" in bad.stderr
    env = {"NEARDUP_HOME": str(tmp_path), "NEARDUP_SOLR_HEAP": "1x"}
    env_bad = run_cli("solr", "status", env=env)
    assert env_bad.returncode == 2 and "'1x'" in env_bad.stderr
    assert HEAP_MIN_MB <= int(DEFAULT_HEAP.rstrip("m")) <= HEAP_MAX_MB
    assert default_heap(16 * 2**30) == "4096m" and default_heap(2**30) == f"{HEAP_MIN_MB}m"


def test_a_bad_heap_names_its_variable_or_flag_and_a_tiny_one_is_refused(
    tmp_path: Path,
) -> None:
    """A bad NEARDUP_SOLR_HEAP was said as 'Solr heap must be ...', without the variable's
    name, and '1k' passed the check to fail in Java (exit 1). Now the variable (or the flag)
    is named and a heap below the floor Solr starts with is refused before Java (exit 2)."""
    home = {"NEARDUP_HOME": str(tmp_path)}
    for value in ("4gb", "1k", "255m", "abc"):
        proc = run_cli("solr", "start", env={**home, "NEARDUP_SOLR_HEAP": value})
        assert proc.returncode == 2, proc.stderr
        assert (f"NEARDUP_SOLR_HEAP must be a size such as 512m or 4g, at least 256m, "
                f"got '{value}'") in proc.stderr, proc.stderr
        flag = run_cli("index", "x.txt", "--collection", "c", "--solr-heap", value, env=home)
        assert flag.returncode == 2 and "argument --solr-heap: " in flag.stderr, flag.stderr
    assert not (tmp_path / "solr" / "node.json").exists()
    # a flag wins over the variable: the bad variable is not even read
    proc = run_cli("solr", "status", "--heap", "512m", env={**home, "NEARDUP_SOLR_HEAP": "1k"})
    assert proc.returncode == 1 and "not running" in proc.stdout, proc.stderr


# -- files that are not text, or tables read wrongly: refused before Solr is asked (issue 38) ----

#: A Solr that is not there: these files are refused before any request.
NO_SOLR = {"NEARDUP_SOLR_URL": "http://127.0.0.1:9/solr/never"}


def test_an_empty_table_is_said_in_one_line(tmp_path: Path) -> None:
    """An empty .csv first printed that it had no 'id' column and that its ids would be line
    numbers, then that it held no records: a note about columns a file without any lacks."""
    for data in (b"", b"\n\n"):
        path = tmp_path / "empty.csv"
        path.write_bytes(data)
        proc = run_cli("dedupe", str(path), "--out", str(tmp_path / "o.csv"), "--backend", "memory")
        assert proc.returncode == 2
        assert proc.stderr.splitlines() == [
            f"neardup: error: {path}: nothing was indexed: the file holds no records"
        ]
        assert not (tmp_path / "o.csv").exists()


def test_pairs_files_in_utf16_or_gzip_are_refused_by_name(tmp_path: Path) -> None:
    """A gold file saved as UTF-16 (no byte-order mark) was read as "expected two ids, found 1
    column", one gzipped as "invalid UTF-8 (byte 2)": the records' files name both."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("id1\tid2\n1\t2\n")
    cases = (
        ("utf16.tsv", pairs.read_text().encode("utf-16-le"), "is UTF-16LE, not UTF-8"),
        ("gold.tsv.gz", gzip.compress(pairs.read_bytes()), "is gzip-compressed: gunzip it first"),
    )
    for name, data, said in cases:
        gold = tmp_path / name
        gold.write_bytes(data)
        for read in (read_pairs, read_pairs_file):
            with pytest.raises(InputError, match=f"^{gold} {said}"):
                read(gold)
        proc = run_cli("evaluate", str(pairs), "--gold", str(gold))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"neardup: error: {gold} {said}")
        assert "neardup index" not in proc.stderr  # a pairs file is not indexed


def test_pairs_files_that_are_spreadsheets_or_zips_are_refused_by_name(tmp_path: Path) -> None:
    """hx24 finding 5: evaluate read a gold .xlsx (a ZIP) as Windows-1252 text, made 15 gold
    "pairs" of its bytes and scored them, exit 0. Now the records readers' sniff refuses it
    (by extension, or a ZIP or OLE2 file by its first bytes), for the pairs, the gold, the
    labels and standard input alike, exit 2."""
    import zipfile

    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("id1\tid2\n1\t2\n")
    book = tmp_path / "gold.xlsx"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    renamed = tmp_path / "gold.tsv"  # a ZIP by another name: by its first bytes
    renamed.write_bytes(book.read_bytes())
    xls = tmp_path / "labels.txt"
    xls.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    cases = ((book, "is a spreadsheet (an Excel workbook)"), (renamed, "is a ZIP archive"),
             (xls, "is an OLE2 compound file"))  # fmt: skip
    for gold, said in cases:
        for read in (read_pairs, read_pairs_file, read_labels):
            with pytest.raises(InputError, match=f"^{re.escape(f'{gold} {said}')}.*save it as CSV"):
                read(gold)
        proc = run_cli("evaluate", str(pairs), "--gold", str(gold))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith(f"neardup: error: {gold} {said}")
        assert "true pairs" not in proc.stdout
    piped = subprocess.run([sys.executable, "-m", "neardup", "evaluate", "-", "--gold",
                            str(pairs)], input=book.read_bytes(), capture_output=True,
                           cwd=str(REPO))  # fmt: skip
    assert piped.returncode == 2 and b"- is a ZIP archive" in piped.stderr, piped.stderr


def test_pairs_files_with_control_characters_in_ids_are_refused(tmp_path: Path) -> None:
    """hx24 finding 6: evaluate read ``2\\x00`` and ``4\\x1b[0m`` as ids, which no record has
    (the records readers reject them), and scored 0 of 2 true, exit 0. Now every id and source
    evaluate reads is checked as the records readers check ids: the file, its line, exit 2."""
    gold = tmp_path / "gold.tsv"
    gold.write_text("1\t2\n3\t4\n", encoding="utf-8")
    nul = tmp_path / "nul.tsv"
    nul.write_bytes(b"1\t2\n3\t4\x00\n")
    esc = tmp_path / "esc.tsv"
    esc.write_bytes(b"id1\tid2\n1\t2\n3\x1b[0m\t4\n")
    sourced = tmp_path / "labels.jsonl"
    sourced.write_text('{"source1": "a", "id1": "1", "source2": "b\\u001b", "id2": "2", '
                       '"label": "match"}\n', encoding="utf-8")  # fmt: skip
    cases = ((nul, f"{nul}:2: id2 holds the control character U+0000 at character 2"),
             (esc, f"{esc}:3: id1 holds the control character U+001B at character 2"))  # fmt: skip
    for bad, said in cases:
        for read in (read_pairs, read_pairs_file):
            with pytest.raises(InputError, match=f"^{re.escape(said)}$"):
                read(bad)
        for run in (("evaluate", str(bad), "--gold", str(gold)),
                    ("evaluate", str(gold), "--gold", str(bad))):  # fmt: skip
            proc = run_cli(*run)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr == f"neardup: error: {said}\n"
            assert "\x00" not in proc.stderr and "\x1b" not in proc.stderr
    for read in (read_pairs_file, read_labels):
        with pytest.raises(InputError, match="1: source2 holds the control character U[+]001B"):
            read(sourced)


def test_spreadsheets_are_refused_by_name(tmp_path: Path) -> None:
    """An .xlsx (a ZIP), an .xls (OLE2), an .ods, and a workbook renamed .txt: one error that
    says to save the sheet as CSV, exit 2; never its bytes read as ``ID TEXT`` lines."""
    import zipfile

    book = tmp_path / "people.xlsx"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/worksheets/sheet1.xml", "<sheetData/>")
    renamed = tmp_path / "people.txt"
    renamed.write_bytes(book.read_bytes())
    old = tmp_path / "old.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
    ods = tmp_path / "sheet.ods"
    ods.write_bytes(book.read_bytes())
    expected = {
        book: "is a spreadsheet (an Excel workbook), which neardup does not read",
        renamed: "is a ZIP archive, not text (an .xlsx or .ods spreadsheet?)",
        old: "is a spreadsheet (an Excel 97-2003 workbook), which neardup does not read",
        ods: "is a spreadsheet (an OpenDocument spreadsheet), which neardup does not read",
    }
    for path, what in expected.items():
        for verb in (["index", str(path)], ["dedupe", str(path), "--out", str(tmp_path / "o")]):
            proc = run_cli(*verb, "--id-field", "id", env=NO_SOLR)
            assert proc.returncode == 2, proc.stderr
            assert f"{path} {what}: save it as CSV" in proc.stderr
            assert "Traceback" not in proc.stderr and "NUL byte" not in proc.stderr
        assert not (tmp_path / "o").exists()


def test_a_table_read_as_one_column_names_its_separator(tmp_path: Path) -> None:
    """A wrong --delimiter, a .tsv that is not one, a .txt table without an id column: exit 2
    with the separator to give, before anything is indexed."""
    table = "id%name%addr\n0%Arts Deli%12224 Ventura Blvd\n1%Hotel Bel-Air%701 Stone Canyon\n"
    csv_file, tsv_file, txt_file = (tmp_path / f"people.{e}" for e in ("csv", "tsv", "txt"))
    csv_file.write_text(table)
    tsv_file.write_text(table)
    txt_file.write_text(table.replace("id%", "key%", 1))
    cases = [
        ([str(csv_file), "--delimiter", ","], "people.csv:1: read with the delimiter ','"),
        ([str(tsv_file)], "people.tsv:1: read with tabs (TSV)"),
        ([str(tsv_file), "--id-field", "id"], "the header has no column 'id'"),
        ([str(txt_file)], "people.txt:1: line 1 looks like a table separated by '%'"),
    ]
    for args, said in cases:
        proc = run_cli("index", *args, env=NO_SOLR)
        assert proc.returncode == 2, proc.stderr
        assert said in proc.stderr and "give --delimiter '%'" in proc.stderr
        assert "Traceback" not in proc.stderr and "has no 'id' column" not in proc.stderr
    bad = run_cli("index", str(csv_file), "--delimiter", "%%", env=NO_SOLR)
    assert bad.returncode == 2 and "one character expected" in bad.stderr


# -- input refused or rejected by name, through the CLI, without Solr (#41 items 7, 12-17) ------


def _dedupe(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    proc = run_cli("dedupe", str(path), "--out", str(path.with_name("out" + path.suffix)),
                   "--backend", "memory", *extra)  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_files_refused_as_a_whole_name_the_file_and_the_cause(tmp_path: Path) -> None:
    """Exit 2 and one line that says why, not a traceback nor a rejection a line: a column named
    twice, UTF-16, gzip, a corrupt Parquet page."""
    twice = tmp_path / "twice.csv"
    twice.write_text("id,text,text\n1,Arts Deli,Art's Deli\n")
    utf16 = tmp_path / "utf16.csv"
    utf16.write_bytes("id,text\n1,Arts Deli\n".encode("utf-16"))
    packed = tmp_path / "packed.csv"
    packed.write_bytes(gzip.compress(b"id,text\n1,Arts Deli\n"))
    cases = {
        twice: f"{twice}:1: the header names the column 'text' twice (columns 2 and 3)",
        utf16: f"{utf16} is UTF-16, not UTF-8: save it as UTF-8",
        packed: f"{packed} is gzip-compressed: gunzip it first",
    }
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    broken = tmp_path / "broken.parquet"
    texts = [f"record {i} of a parquet file" for i in range(2000)]
    pq.write_table(pa.table({"id": list(range(2000)), "text": texts}), broken,
                   row_group_size=1000, compression="none")  # fmt: skip
    offset = pq.ParquetFile(broken).metadata.row_group(1).column(1).data_page_offset
    data = bytearray(broken.read_bytes())
    data[offset + 10 : offset + 60] = b"\xff" * 50
    broken.write_bytes(bytes(data))
    cases[broken] = f"{broken}: row group 2 of 2 cannot be read (a corrupt page?)"
    for path, said in cases.items():
        proc = _dedupe(path)
        assert proc.returncode == 2 and said in proc.stderr, proc.stderr
        assert "NUL byte" not in proc.stderr and "invalid UTF-8" not in proc.stderr
    # dedupe reads its input twice: no pipe to it is suggested (index's way was: hx29 F5)
    assert "/dev/stdin" not in _dedupe(packed).stderr


def test_json_lines_too_deep_or_with_a_key_twice_are_rejected_lines(tmp_path: Path) -> None:
    """A line nested 1,500 levels deep ended the run in a RecursionError; a key twice and a
    number beyond a float were read silently (the last value; the text "inf")."""
    path = tmp_path / "r.jsonl"
    lines = [
        json.dumps({"id": 1, "text": "Arts Deli 12224 Ventura Blvd"}),
        '{"id": 2, "text": ' + "[" * 1500 + "]" * 1500 + "}",
        '{"id": 3, "text": "Hotel Bel-Air", "text": "Arts Deli"}',
        '{"id": 4, "name": 1e400}',
        '{"id": 5, "name": 7e999}',
    ]
    path.write_text("\n".join(lines) + "\n")
    proc = _dedupe(path, "--json", "--text-field", "text", "--text-field", "name")
    assert proc.returncode == 0, proc.stderr
    assert f"{path}:2: invalid JSON: nested too deep to be read" in proc.stderr
    assert f"{path}:3: duplicate key 'text' in a JSON object" in proc.stderr
    out = (tmp_path / "out.jsonl").read_text().splitlines()
    assert out[1] == lines[1] and out[2] == lines[2]  # written through, in their place
    kept = [json.loads(line)["id"] for line in out[:1] + out[3:]]
    assert kept == [1, 4, 5]  # 4 and 5 are not one text, "inf"


def test_a_pipe_and_a_fifo_are_read_once(tmp_path: Path) -> None:
    """``review /dev/stdin --format csv`` (or jsonl) said "holds no records": its first lines
    were read to find the id column, then it was read again, empty. A FIFO read twice hung in
    the second ``open()``."""
    rows = "id,text\n1,Arts Deli 12224 Ventura Blvd\n2,Arts Deli 12224 Ventura Blvd.\n"
    jsonl = "".join(json.dumps({"id": n, "text": t}) + "\n" for n, t in
                    ((1, "Arts Deli 12224 Ventura"), (2, "Arts Deli 12224 Ventura")))  # fmt: skip
    for fmt, data in (("csv", rows), ("jsonl", jsonl)):
        page = tmp_path / f"{fmt}.html"
        proc = subprocess.run(
            [sys.executable, "-m", "neardup", "review", "/dev/stdin", "--format", fmt,
             "--backend", "memory", "--out", str(page)],
            input=data, capture_output=True, text=True, timeout=120, cwd=str(REPO),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "1 pair in 1 cluster of 2 records" in proc.stdout and page.exists()
    src, fifo = tmp_path / "src.csv", tmp_path / "people.csv"
    src.write_text(rows)
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", 'cat "$0" > "$1"', str(src), str(fifo)])
    try:
        proc = run_cli("review", str(fifo), "--backend", "memory", "--out",
                       str(tmp_path / "fifo.html"), timeout=120)  # fmt: skip
    finally:
        writer.kill()
        writer.wait()
        with contextlib.suppress(OSError):  # an open() still waiting for a writer
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert proc.returncode == 0 and "of 2 records" in proc.stdout, proc.stderr


def test_a_second_pipe_without_a_source_is_refused_before_it_replaces_the_first(
    tmp_path: Path,
) -> None:
    """Every pipe is the source ``/dev/stdin``: a second piped file with the same ids replaced
    the first one's records, exit 0. Refused now (exit 2, nothing written) until ``--source``
    names it: a new name keeps both files, the same name replaces on purpose."""
    store = tmp_path / "s.duckdb"

    def pipe(rows: str, *flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "neardup", "index", "/dev/stdin", "--format", "csv",
             "--index-file", str(store), "--json", *flags],
            input=rows, capture_output=True, text=True, timeout=120, cwd=str(REPO),
        )  # fmt: skip

    shop_a = "id,name\n1,Blue Cafe Paris\n2,Red Barn Oslo\n"
    shop_b = "id,name\n1,Green House Rome\n2,Yellow Sub London\n"
    assert pipe(shop_a).returncode == 0
    done = pipe(shop_b)
    assert done.returncode == 2 and (
        "/dev/stdin: the index holds 2 records piped earlier under the source name /dev/stdin"
    ) in done.stderr and "give --source NAME (a new name keeps them apart" in done.stderr
    assert json.loads(done.stdout)["exit_code"] == 2  # refused before the work: no counts
    assert pipe(shop_b, "--source", "shopB").returncode == 0
    info = json.loads(run_cli("info", "--index-file", str(store), "--json").stdout)
    assert info["sources"] == {"/dev/stdin": 2, "shopB": 2}  # shop A's records kept
    near = run_cli("search", "Blue Cafe Paris", "--index-file", str(store), "--json")
    assert [m["id"] for m in json.loads(near.stdout)["matches"]][:1] == ["1"]
    assert pipe(shop_b, "--source", "/dev/stdin").returncode == 0  # replaced, as asked


def test_a_parquet_file_pandas_wrote_from_integer_ids_with_a_hole(tmp_path: Path) -> None:
    """pandas writes ``[1, 2, None]`` as floats: the hole is one rejected row, not three."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from neardup import read_records

    path = tmp_path / "ids.parquet"
    text = "Art's Deli, 12224 Ventura Blvd, Studio City"
    pd.DataFrame({"id": [1, 2, None], "text": [text, text, text]}).to_parquet(path)
    items = list(read_records(path))
    assert [i.id for i in items if isinstance(i, Record)] == ["1", "2"]
    assert [str(i) for i in items if not isinstance(i, Record)] == [
        f"{path}:3: missing id field 'id'"
    ]


def test_a_parquet_string_that_is_not_utf8_is_a_rejected_row(tmp_path: Path) -> None:
    """Parquet writers do not all check their strings: a cell of bytes that are not UTF-8 ended
    the run in a UnicodeDecodeError. It is one rejected row, written through by dedupe."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "bad.parquet"
    texts = ["Arts Deli Ventura Blvd", "Cafe Roma Main Street", "@@@@@@@@", "Blue Door Books"]
    pq.write_table(pa.table({"id": ["a", "b", "c", "d"], "text": texts}), path,
                   compression="none")  # fmt: skip
    path.write_bytes(path.read_bytes().replace(b"@@@@@@@@", b"\xff" * 8))
    proc = _dedupe(path)
    assert proc.returncode == 0, proc.stderr
    assert f"{path}:3: invalid UTF-8 in column 'text' at byte 0" in proc.stderr
    assert "read 4, kept 3, removed 0" in proc.stdout and "rejected 1" in proc.stdout
    assert pq.read_table(path.with_name("out.parquet")).column("id").to_pylist() == [
        "a", "b", "c", "d"
    ]  # fmt: skip


def test_a_link_loop_a_dangling_link_and_a_folder_are_named_as_such(tmp_path: Path) -> None:
    """Each was "no such file", of a name ``ls`` lists (an input, a labels or gold file)."""
    loop, dangling = tmp_path / "loop.csv", tmp_path / "dangling.csv"
    loop.symlink_to(tmp_path / "loop2.csv")
    (tmp_path / "loop2.csv").symlink_to(loop)
    dangling.symlink_to(tmp_path / "gone.csv")
    said = {
        loop: f"{loop}: a loop of symbolic links",
        dangling: f"{dangling}: a symbolic link to a file that does not exist ({tmp_path}/gone",
    }
    for path, message in said.items():
        proc = _dedupe(path)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        with pytest.raises(InputError, match="symbolic link"):
            read_pairs_file(str(path))
    with pytest.raises(InputError, match="is a directory, not a file"):
        read_pairs_file(str(tmp_path))


def test_a_gold_pair_labelled_both_ways_is_refused_with_both_lines(tmp_path: Path) -> None:
    """Taking the 'match' and dropping the 'non-match' changed the scores unseen."""
    gold = tmp_path / "gold.tsv"
    gold.write_text("id1\tid2\tlabel\n1\t2\tmatch\n2\t1\tnon-match\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_pairs_file(gold)
    assert str(err.value) == (
        f"{gold}:3: this pair is labelled 'non-match', but {gold}:2 labels it the other way"
    )


@pytest.mark.parametrize(
    "text", ["", "id1\tid2\n", "id1\tid2\tlabel\n1\t2\tnon-match\n", "1\t1\n7\t7\n"]
)
def test_evaluate_against_a_gold_file_without_pairs_is_bad_input(
    text: str, tmp_path: Path
) -> None:
    """No gold pair: every score read 0 and the exit code 0, for nothing measured."""
    found, gold = tmp_path / "pairs.tsv", tmp_path / "gold.tsv"
    found.write_text("id1\tid2\n1\t2\n", encoding="utf-8")
    gold.write_text(text, encoding="utf-8")
    run = run_cli("evaluate", str(found), "--gold", str(gold))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr == f"neardup: error: {gold}: no pair to score against (the file is " \
        "empty, labels every pair non-match, or pairs records with themselves): give the " \
        "pairs that should be found\n"


def test_evaluate_says_it_left_out_a_record_paired_with_itself(tmp_path: Path) -> None:
    found, gold = tmp_path / "pairs.tsv", tmp_path / "gold.tsv"
    found.write_text("id1\tid2\n1\t2\n3\t3\n", encoding="utf-8")
    gold.write_text("1\t2\n5\t5\n", encoding="utf-8")
    run = run_cli("evaluate", str(found), "--gold", str(gold), "--json")
    assert run.returncode == 0, run.stderr
    assert f"{gold}: 1 line pairing a record with itself left out" in run.stderr
    assert f"{found}: 1 line pairing a record with itself left out" in run.stderr
    scores = json.loads(run.stdout)
    assert (scores["pairs"], scores["gold"], scores["precision"]) == (1, 1, 1.0)


@pytest.mark.parametrize(
    ("name", "header", "problem"),
    [
        ("nul.csv", b"id,te\x00xt", "NUL byte"),
        ("cr.tsv", b"id\tte\rxt", "carriage return"),
    ],
)
@pytest.mark.parametrize("verb", ["dedupe", "review"])
def test_a_header_that_cannot_be_read_is_bad_input_not_a_row(
    tmp_path: Path, name: str, header: bytes, problem: str, verb: str
) -> None:
    """Rejected as a row, the header's line left the next line to name the columns: the first
    record lost as a header, the ids taken for line numbers, exit 0 and a corrupted output."""
    sep = b"\t" if name.endswith(".tsv") else b","
    path = tmp_path / name
    path.write_bytes(header + b"\n" + b"".join(
        n + sep + b"hello world foo\n" for n in (b"1", b"2", b"3")) + b"4" + sep + b"other\n")
    out = tmp_path / ("out.html" if verb == "review" else "out" + path.suffix)
    done = run_cli(verb, str(path), "--backend", "memory", "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert f"{path}:1: the header cannot be read" in done.stderr and problem in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("body", ["4, 5\n2, 4\n", "4,5\n2,4\n", "4 ,5\n2 , 4\n", "4 5\n2 4\n"])
def test_pairs_written_with_a_comma_and_a_space_are_read_as_two_ids(
    tmp_path: Path, body: str
) -> None:
    """``4, 5`` was split at the space: the ids ``4,`` and ``5`` matched nothing, and a gold
    file so written scored every report 0 with exit 0."""
    path = tmp_path / "gold.txt"
    path.write_text(body, encoding="utf-8")
    pairs = read_pairs_file(str(path)).pairs
    assert sorted((a[1], b[1]) for a, b in pairs) == [("2", "4"), ("4", "5")]


def test_a_quoted_tsv_line_break_rejects_both_halves_and_says_why(tmp_path: Path) -> None:
    """pandas' ``to_csv(sep="\\t")`` quotes a cell holding a line break. TSV fields are read as
    written: the record was indexed cut short ('"Blue cafe') and its second half rejected as a
    row of one column, with no word of quoting."""
    from neardup.read.records import read_records

    path = tmp_path / "q.tsv"
    path.write_text('id\ttext\n1\t"Blue cafe\nin Paris"\n2\tBlue cafe in Paris\n'
                    '3\tthe 5" screen\n', encoding="utf-8")  # fmt: skip
    read = list(read_records(path))
    rejected = [r for r in read if isinstance(r, Rejection)]
    assert [r.line for r in rejected] == [2, 3]
    assert all("save the file as CSV" in r.reason for r in rejected)
    kept = [(r.id, r.text) for r in read if not isinstance(r, Rejection)]
    assert kept == [("2", "Blue cafe in Paris"), ("3", 'the 5" screen')]  # a quote inside: text


def test_records_of_hyphens_alone_are_refused_as_punctuation_is() -> None:
    """Character shingles read a hyphen as a space: "-" was stored with no shingle, and fifty
    identical records of it were candidates of each other and never paired."""
    index = NearDupIndex()
    stats = index.add_many([(str(k), "-") for k in range(50)] + [("x", "a - b"), ("y", "a - b")])
    assert (stats.indexed, stats.rejected) == (2, 50)
    assert {r.reason for r in stats.rejections} == {"no words after normalization"}
    assert [(p.id1, p.id2) for p in index.report(threshold=0.5).pairs] == [("x", "y")]
    words = NearDupIndex(Params(shingle_kind="word", shingle_size=1, threshold=0.5))
    assert words.add_many([("1", "-"), ("2", "-")]).indexed == 2  # a word of its own there
    assert len(words.report().pairs) == 1
