"""``neardup dedupe``: the input again, in its own format, without its near-duplicates (or with a
cluster id on every record), on both backends, streaming, with every bad line accounted for."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from neardup import InputError, NearDupIndex, Record, read_records
from neardup.cli.main import main
from neardup.decision.valley import WEIGHTED, numbers_disagree, weighted_jaccards
from neardup.errors import ArgumentError, NotUtf8
from neardup.graph import clusters
from neardup.keys import id_key
from neardup.out.dedupe import DedupeStats, dedupe, index_similarity
from neardup.resources import restaurants
from neardup.results import Pair, Report
from neardup.sign.text import jaccard
from neardup.solr import admin

from .conftest import REPO, run_cli
from .test_readme import expected_lines, matches

ADDRESSES, GOLD = restaurants()


def _lines(path: Path) -> list[tuple[str, str]]:
    """(id, text) of the restaurant file, in file order."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record_id, text = line.split(None, 1)
        out.append((record_id, text.strip()))
    return out


def _same_rule(index: NearDupIndex, report: Report) -> list[Pair]:
    """The pairs ``index`` holds by the rule that made ``report``: its threshold, and for the
    valley rule its numbers check too (read off data without duplicates, the valley itself
    would land elsewhere)."""
    weighted = bool(report.rule) and report.rule.get("similarity") == WEIGHTED
    # a bar on weighted Jaccard: the candidates from the index's floor, then that bar
    pairs = index.report(index.params.threshold if weighted else report.threshold,
                         prune="none").pairs  # fmt: skip
    if report.rule and report.rule["kind"].startswith("valley"):
        texts = index.backend.texts([i for p in pairs for i in (p.id1, p.id2)])
        if weighted:
            sims = weighted_jaccards(pairs, texts, index.processor)
            pairs = [p for p, w in zip(pairs, sims, strict=True) if w >= report.threshold]
        pairs, _ = numbers_disagree(pairs, texts, index.processor)
    return pairs


def _run(
    index: NearDupIndex, path: Path, out: Path, fmt: str = "auto", **kw: Any
) -> tuple[Report, list[list[str]], DedupeStats]:
    """Index ``path``, report every verified pair, and dedupe ``path`` into ``out``."""
    index.add_many(read_records(path, fmt))
    report = index.report(prune="none")
    groups = clusters((p.id1, p.id2) for p in report.pairs)
    stats = dedupe(
        path, out, groups, pairs=report.pairs, fmt=fmt, similarity=index_similarity(index), **kw
    )
    return report, groups, stats


# -- the acceptance test: restaurants ------------------------------------------------------------


def test_restaurants_keep_one_record_of_every_cluster_and_all_others(
    make_index: Callable[..., NearDupIndex], tmp_path: Path
) -> None:
    out = tmp_path / "deduped.txt"
    index = make_index()
    report, groups, stats = _run(index, ADDRESSES, out)
    records = _lines(ADDRESSES)
    order = {record_id: n for n, (record_id, _) in enumerate(records)}
    clustered = {i for g in groups for i in g}
    assert len(groups) > 50 and len(clustered) > len(groups)  # there is something to remove

    kept = [line.split(None, 1)[0] for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(kept) == len(set(kept))
    for g in groups:  # exactly one record of every cluster: the first seen
        assert [i for i in kept if i in g] == [min(g, key=order.__getitem__)], g
    assert {i for i, _ in records} - clustered <= set(kept)  # every record in no cluster
    assert len(kept) == len(records) - sum(len(g) - 1 for g in groups)
    # as written, in file order
    originals = ADDRESSES.read_bytes().splitlines(keepends=True)
    assert out.read_bytes().splitlines(keepends=True) == [
        originals[order[i]] for i in sorted(kept, key=order.__getitem__)
    ]
    assert stats.read == stats.kept + stats.removed + stats.rejected == len(records)
    assert (stats.kept, stats.removed, stats.rejected, stats.blank) == (
        len(kept), len(records) - len(kept), 0, 0)
    assert (stats.clusters, stats.clustered, stats.lines) == (
        len(groups), len(clustered), len(records))
    # what is left has no near-duplicates: indexed again with the same parameters, no pairs
    # at the threshold the report used (a rule that reads it off the data would find another
    # on data without duplicates)
    again = NearDupIndex(index.params)
    again.add_many(read_records(out))
    assert _same_rule(again, report) == []


KEEP_FILE = (
    "1 aaa bbb ccc\n"
    "2 aaa bbb ccc ddd eee\n"
    "3 aaa bbb\n"
    "4 zzz yyy\n"
    "6 qqq www eee\n"
    "8 aaa ccc bbb\n"
    "5 aaa bbb ccc dd\n"
    "7 qqq www eee\n"
)
KEEP_GROUPS = [["1", "2", "3", "5", "8"], ["6", "7"]]
KEEP_PAIRS = [
    Pair("1", "8", 0.9, 1), Pair("2", "8", 0.9, 1), Pair("3", "8", 0.9, 1),
    Pair("5", "8", 0.9, 1), Pair("1", "2", 0.5, 2), Pair("6", "7", 1.0, 0),
]
EXPECTED_KEPT = {
    "first": {"1", "6"},
    "last": {"5", "7"},
    "longest": {"2", "6"},
    "shortest": {"3", "6"},
    "central": {"8", "6"},  # 8 is paired with every other member
}


@pytest.mark.parametrize("rule", sorted(EXPECTED_KEPT))
def test_each_rule_keeps_its_record(rule: str, tmp_path: Path) -> None:
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_text(KEEP_FILE)
    stats = dedupe(src, out, KEEP_GROUPS, pairs=KEEP_PAIRS, keep=rule)
    kept = [line.split()[0] for line in out.read_text().splitlines()]
    assert set(kept) == EXPECTED_KEPT[rule] | {"4"}
    order = [line.split()[0] for line in KEEP_FILE.splitlines()]
    assert kept == [i for i in order if i in set(kept)]  # file order whatever the rule
    assert (stats.kept, stats.removed, stats.clusters, stats.keep) == (3, 5, 2, rule)


def test_a_rule_never_keeps_a_member_missing_from_the_input(tmp_path: Path) -> None:
    """An index may hold more than the file: its records are not there to be kept."""
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_text(KEEP_FILE)
    groups = [["0", *KEEP_GROUPS[0]], KEEP_GROUPS[1]]  # "0" is not in the file
    pairs = [Pair("0", "1", 1.0, 0), Pair("0", "2", 1.0, 0), Pair("0", "3", 1.0, 0), *KEEP_PAIRS]
    dedupe(src, out, groups, pairs=pairs, keep="central")
    assert {line.split()[0] for line in out.read_text().splitlines()} == {"4", "6", "8"}
    with pytest.raises(InputError, match="unknown rule"):
        dedupe(src, out, groups, keep="best")
    with pytest.raises(InputError, match="ranks by the report's pairs"):
        dedupe(src, out, groups, keep="central")
    assert dedupe(src, out, [], keep="central").kept == 8  # nothing to rank: nothing to say


# -- formats --------------------------------------------------------------------------------------


def _write_format(path: Path, fmt: str, rows: list[tuple[str, str]]) -> None:
    """The restaurant records in ``fmt``, with an extra column, one blank line and one line
    that is not a record (an id seen before); CSV with quoting and a line break in a field,
    lines with a byte-order mark and CRLF endings."""
    dup = (rows[0][0], "an id seen before")
    if fmt == "lines":
        body = [f"{i} {t}" for i, t in rows[:5]] + [""] + [f"{i} {t}" for i, t in [dup, *rows[5:]]]
        path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(body).encode() + b"\r\n")
    elif fmt == "jsonl":
        lines = [
            json.dumps({"id": i, "text": t, "extra": {"n": n}}) for n, (i, t) in enumerate(rows)
        ]
        lines.insert(5, "")
        lines.insert(6, json.dumps({"id": dup[0], "text": dup[1]}))
        path.write_text("\n".join(lines) + "\n")
    else:
        buf = io.StringIO()
        delimiter = "\t" if fmt == "tsv" else ","
        w = csv.writer(buf, delimiter=delimiter, lineterminator="\n",
                       quoting=csv.QUOTE_MINIMAL if fmt == "csv" else csv.QUOTE_NONE)
        w.writerow(["id", "text", "extra"])
        for n, (i, t) in enumerate(rows):
            if n == 5:
                buf.write("\n")
                w.writerow([dup[0], dup[1], "x"])
            extra = f'note "{n}", line\nbreak' if fmt == "csv" and n % 7 == 0 else f"x{n}"
            w.writerow([i, t, extra])
        path.write_text(buf.getvalue())


def _parsed(path: Path, fmt: str) -> list[dict[str, Any]]:
    """Every row of a file as the standard library reads it (not neardup's reader)."""
    text = path.read_text(encoding="utf-8-sig")
    if fmt == "jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if fmt == "lines":
        return [dict(zip(("id", "text"), line.split(None, 1), strict=True))
                for line in text.splitlines() if line.strip()]
    delimiter = "\t" if fmt == "tsv" else ","
    quoting = csv.QUOTE_MINIMAL if fmt == "csv" else csv.QUOTE_NONE
    return [r for r in csv.DictReader(io.StringIO(text), delimiter=delimiter, quoting=quoting)
            if any(v.strip() for v in r.values())]


@pytest.mark.parametrize("fmt", ["lines", "tsv", "csv", "jsonl"])
def test_formats_round_trip(fmt: str, tmp_path: Path) -> None:
    rows = _lines(ADDRESSES)
    src, out = tmp_path / f"in.{fmt}", tmp_path / f"out.{fmt}"
    _write_format(src, fmt, rows)
    first = NearDupIndex()
    report, groups, stats = _run(first, src, out, fmt=fmt)
    assert stats.rejected == 1 and stats.rejections[0].reason.startswith("duplicate id")
    assert stats.blank == 1 and stats.read == len(rows) + 1
    assert stats.read == stats.kept + stats.removed + stats.rejected
    removed = {i for g in groups for i in sorted(g, key=[r[0] for r in rows].index)[1:]}
    written = _parsed(out, fmt)
    # the same rows, every column as it was, minus the removed records, in file order; the row
    # rejected (an id seen before) written through in its place
    assert written == [r for r in _parsed(src, fmt)
                       if r["text"] == "an id seen before" or str(r["id"]) not in removed]
    assert len(written) == stats.written == stats.kept + 1 == len(rows) - len(removed) + 1
    again = list(read_records(out, fmt))  # neardup reads its own output back, the same rejection
    assert [r.reason.split(",")[0] for r in again if not isinstance(r, Record)] == ["duplicate id"]
    raw = out.read_bytes()
    if fmt == "lines":  # byte-order mark and line endings kept
        assert raw.startswith(b"\xef\xbb\xbf") and raw.count(b"\r\n") == stats.written
    if fmt == "csv":
        assert b'line\nbreak"' in raw  # a quoted line break, copied as it was
    # nothing left to merge with the same parameters and rule
    again = NearDupIndex(first.params)
    again.add_many(read_records(out, fmt))
    assert _same_rule(again, report) == []


@pytest.mark.parametrize("fmt", ["lines", "tsv", "csv", "jsonl"])
def test_cluster_column(fmt: str, tmp_path: Path) -> None:
    rows = _lines(ADDRESSES)
    texts = dict(rows)
    src, out = tmp_path / f"in.{fmt}", tmp_path / f"out.{fmt}"
    _write_format(src, fmt, rows)
    index = NearDupIndex()
    report, groups, stats = _run(index, src, out, fmt=fmt, cluster_column="cluster_id",
                                 similarity_column="sim")
    assert stats.written == stats.kept + stats.removed + stats.rejected == len(rows) + 1
    out_fmt = "tsv" if fmt == "lines" else fmt  # ID TEXT lines have no columns: TSV
    every = _parsed(out, out_fmt)
    # the row rejected (an id seen before) in its place, its cluster and similarity empty
    (rejected,) = [r for r in every if r["text"] == "an id seen before"]
    assert every.index(rejected) == 5 and str(rejected["id"]) == rows[0][0]
    assert rejected["cluster_id"] in ("", None) and rejected["sim"] in ("", None)
    written = [r for r in every if r is not rejected]
    assert [str(r["id"]) for r in written] == [i for i, _ in rows]
    by_cluster: dict[str, set[str]] = {}
    for r in written:
        by_cluster.setdefault(str(r["cluster_id"]), set()).add(str(r["id"]))
    position = {i: n for n, (i, _) in enumerate(rows)}
    expected = {min(g, key=position.__getitem__): set(g) for g in groups}
    expected.update({i: {i} for i, _ in rows if not any(i in g for g in groups)})
    assert by_cluster == expected  # cluster id: the id of the record kept (the first seen)
    paired = {(p.id1, p.id2): p.jaccard for p in report.pairs}
    processor = index.processor
    for r in written:
        rid, cid, sim = str(r["id"]), str(r["cluster_id"]), float(r["sim"])
        if rid == cid:
            assert sim == 1.0
            continue
        key = tuple(sorted((rid, cid), key=id_key))
        if key in paired:
            assert sim == round(paired[key], 4)
        else:  # not paired by the report: measured exactly against the record kept
            want = jaccard(processor.shingle_set(texts[rid]), processor.shingle_set(texts[cid]))
            assert sim == pytest.approx(want, abs=5e-5)
    if fmt in ("csv", "tsv", "jsonl"):  # the other columns are untouched
        original = {
            str(r["id"]): r for r in _parsed(src, fmt) if r["text"] != "an id seen before"
        }
        for r in written:
            assert r["extra"] == original[str(r["id"])]["extra"]
    again = [r for r in read_records(out, out_fmt) if not isinstance(r, Record)]
    assert [r.reason.split(",")[0] for r in again] == ["duplicate id"]  # read back, the same


def test_cluster_column_measures_members_not_paired_with_the_record_kept(tmp_path: Path) -> None:
    src, out = tmp_path / "in.txt", tmp_path / "out.tsv"
    src.write_text("1 a b c d\n2 a b c d e\n3 a b c d e f\n")
    pairs = [Pair("1", "2", 0.8, 1), Pair("2", "3", 5 / 6, 1)]  # 1 and 3: a chain, not a pair
    index = NearDupIndex()
    dedupe(src, out, [["1", "2", "3"]], pairs=pairs, cluster_column="c",
           similarity=index_similarity(index))
    rows = _parsed(out, "tsv")
    assert [(r["id"], r["c"], r["similarity"]) for r in rows] == [
        ("1", "1", "1.0000"), ("2", "1", "0.8000"), ("3", "1", f"{4 / 6:.4f}")]
    dedupe(src, out, [["1", "2", "3"]], pairs=pairs, cluster_column="c")  # no way to measure
    assert _parsed(out, "tsv")[2]["similarity"] == ""


def test_lines_with_a_cluster_column_make_a_tsv_quoted_as_report_quotes(tmp_path: Path) -> None:
    """``ID TEXT`` lines became a TSV with the texts raw: a text that starts with a quote read
    back (pandas, csv, neardup) as a quoted cell running over the next rows. Now quoted as
    ``report --format tsv`` quotes, the rejected lines too."""
    src, out = tmp_path / "in.txt", tmp_path / "out.tsv"
    src.write_bytes(b'1 "Blue" Cafe Paris rue\n2 Blue Cafe Paris rue x\n3 "Red Barn Oslo\n'
                    b'1 "seen \xff before\r\n4 Yellow sub\n')
    stats = dedupe(src, out, [["1", "2"]], cluster_column="c")
    assert stats.rejected == 1
    rows = list(csv.reader(io.StringIO(out.read_text(errors="surrogateescape"), newline=""),
                           delimiter="\t"))
    assert [(r[0], r[1], r[3]) for r in rows] == [
        ("id", "c", "text"), ("1", "1", '"Blue" Cafe Paris rue'),
        ("2", "1", "Blue Cafe Paris rue x"), ("3", "3", '"Red Barn Oslo'),
        ("1", "", '"seen \udcff before'), ("4", "4", "Yellow sub")]
    assert b'"""seen \xff before"\r\n' in out.read_bytes()  # its bytes and line ending kept
    with pytest.warns(UserWarning):  # the not-UTF-8 byte, read as Windows-1252 again
        again = list(read_records(out, "tsv"))  # one row a line, as neardup reads a TSV
    assert [(r.id if isinstance(r, Record) else r.reason[:12]) for r in again] == [
        "1", "2", "3", "duplicate id", "4"]


def test_jsonl_cluster_ids_keep_the_type_of_the_ids(tmp_path: Path) -> None:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": 7, "text": "a b"}\n{"id": 9, "text": "a b c"}\n'
                   '{"id": "x", "text": "q"}\n{"text": "d e", "id": "y"}\n')
    dedupe(src, out, [["7", "9"], ["x", "y"]], cluster_column="cluster")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["cluster"]) for r in rows] == [(7, 7), (9, 7), ("x", "x"), ("y", "x")]
    assert out.read_text().splitlines()[3] == (
        '{"text": "d e", "id": "y", "cluster": "x", "similarity": null}')  # as written, + 2 keys


def test_a_rejected_empty_json_object_gets_the_keys_as_valid_json(tmp_path: Path) -> None:
    """A rejected ``{}`` or ``{ }`` (no id) was written ``{, "c": null, ...}``: a comma after
    the opening brace, a line no JSON reader reads."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": 1, "text": "a b"}\n{}\n{"id": 2, "text": "a b"}\n{ }\r\n')
    stats = dedupe(src, out, [["1", "2"]], cluster_column="c")
    assert stats.rejected == 2
    lines = out.read_bytes().splitlines(keepends=True)
    assert [json.loads(line) for line in lines][1::2] == [{"c": None, "similarity": None}] * 2
    assert lines[3].endswith(b"}\r\n")  # its line ending kept


def test_a_cluster_column_names_the_kept_record_as_its_row_wrote_its_id(tmp_path: Path) -> None:
    """Ids written 1 and "2" in one file: the cluster read 1 in one row and "1" in the other,
    and a typed group-by split it. Then the first record's id set the column's type, and a
    cluster kept as "007" read 7, which is another record's id. A cluster's value is now its
    kept record's id as that row wrote it: one value a cluster, joining with the id column."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": 1, "text": "a b"}\n{"id": "2", "text": "a b"}\n'
                   '{"id": "3", "text": "q"}\n{"id": "007", "text": "x y"}\n'
                   '{"id": 7, "text": "x y!"}\n{"id": " 9", "text": "z"}\n')  # fmt: skip
    dedupe(src, out, [["1", "2"], ["007", "7"]], cluster_column="cluster")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["cluster"]) for r in rows] == [
        (1, 1), ("2", 1), ("3", "3"), ("007", "007"), (7, "007"), (" 9", " 9")
    ]


@pytest.mark.parametrize("column", ["a\nb", "a\tb", "a\u202eb"])
def test_a_cluster_column_name_with_a_control_character_is_bad_usage(
    column: str, tmp_path: Path
) -> None:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_format(src, "csv", _lines(ADDRESSES)[:20])
    for given in ({"cluster_column": column}, {"cluster_column": "c", "similarity_column": column}):
        with pytest.raises(ArgumentError, match="without control characters"):
            dedupe(src, out, [], **given)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == [src]


@pytest.mark.parametrize("fmt,column", [("csv", "extra"), ("jsonl", "extra")])
def test_a_cluster_column_that_exists_is_an_error(fmt: str, column: str, tmp_path: Path) -> None:
    src, out = tmp_path / f"in.{fmt}", tmp_path / f"out.{fmt}"
    _write_format(src, fmt, _lines(ADDRESSES)[:20])
    with pytest.raises(InputError, match="already has a (column|key) 'extra'"):
        dedupe(src, out, [], cluster_column=column)
    assert not out.exists() and list(tmp_path.iterdir()) == [src]  # no partial output


# -- bad input ------------------------------------------------------------------------------------


BAD_LINES = (
    b"1 good record one\n"
    b"2 \xff\xfe bad utf8\n"
    b"3\n"
    b"\n"
    b"1 an id seen before\n"
    b"5 good record five\n"
    b"6 with \x00 nul\n"
    b"7 ...\n"  # no words: cannot be a duplicate of anything, so it is kept
)


def test_bad_lines_are_counted_and_written_to_the_rejects_file_as_they_are(
    tmp_path: Path,
) -> None:
    src, out, rejects = tmp_path / "in.txt", tmp_path / "out.txt", tmp_path / "rejects.txt"
    src.write_bytes(BAD_LINES)
    with pytest.warns(NotUtf8, match=r"in.txt:2: not UTF-8 at column 3"):
        stats = dedupe(src, out, [], rejects=rejects)
    # an id without a text is a row of the data: written as it is, counted apart (issue 27);
    # bytes that are not UTF-8 are read as Windows-1252 (said), and the row kept byte for byte
    assert out.read_bytes() == (
        b"1 good record one\n2 \xff\xfe bad utf8\n3\n5 good record five\n7 ...\n"
    )
    # the rows rejected, byte for byte (their reasons: stats, stderr)
    assert rejects.read_bytes() == b"1 an id seen before\n6 with \x00 nul\n"
    assert "duplicate id, first seen at line 1" in stats.rejections[0].reason
    assert str(stats.rejections[1]) == f"{src}:7: NUL byte at column 8"
    assert [r.line for r in stats.rejections] == [5, 7]
    assert [(r.line, r.reason) for r in stats.empties] == [(3, "no text after the id")]
    assert (stats.read, stats.kept, stats.removed, stats.rejected, stats.blank, stats.lines) == (
        7, 5, 0, 2, 1, 8)
    assert stats.empty == 1 and stats.written == 5
    assert stats.as_dict()["rejected_to"] == str(rejects)


def test_bad_lines_are_written_through_in_their_place_by_default(tmp_path: Path) -> None:
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_bytes(BAD_LINES)
    with pytest.warns(NotUtf8):
        stats = dedupe(src, out, [["1", "5"]])
    # every line but the blank one and the duplicate removed, as it was, NUL bytes too
    kept = BAD_LINES.replace(b"\n\n", b"\n").replace(b"5 good record five\n", b"")
    assert out.read_bytes() == kept
    assert (stats.read, stats.kept, stats.removed, stats.rejected, stats.blank) == (7, 4, 1, 2, 1)
    assert stats.written == stats.kept + stats.rejected
    assert stats.as_dict()["rejected_to"] == "output"
    assert stats.first_rejected == f"{src}:5"



def test_a_row_without_words_is_written_and_not_called_rejected(tmp_path: Path) -> None:
    """A row of punctuation has no words to compare: dedupe writes it and counts it kept, so
    its message must not call it rejected (the summary says rejected 0)."""
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("id,text\n1,hello world foo\n2,hello world foo\n3,!!!\n", encoding="utf-8")
    done = run_cli("dedupe", str(src), "--backend", "memory", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"not compared, written as it is: {src}:4: no words after normalization" in done.stderr
    assert "neardup: rejected" not in done.stderr and "rejected 0" in done.stdout
    assert out.read_text(encoding="utf-8").splitlines() == ["id,text", "1,hello world foo", "3,!!!"]

def test_parquet_rows_rejected_are_written_through_or_to_a_parquet_rejects_file(
    tmp_path: Path,
) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    src, out, rejects = tmp_path / "in.parquet", tmp_path / "out.parquet", tmp_path / "rej.parquet"
    data = {"id": ["a", None, "c", "a"], "text": ["one text", "no id", "three", "another"],
            "n": [1, 2, 3, 4]}  # row 2: no id; row 4: an id seen before, another text
    pq.write_table(pa.table(data), src)
    stats = dedupe(src, out, [], cluster_column="cluster")
    assert (stats.read, stats.kept, stats.rejected, stats.written) == (4, 2, 2, 4)
    got = pq.read_table(out).to_pydict()
    assert got["n"] == [1, 2, 3, 4] and got["cluster"] == ["a", None, "c", None]
    assert got["similarity"] == [1.0, None, 1.0, None]
    stats = dedupe(src, out, [], rejects=rejects)
    assert pq.read_table(out).to_pydict() == {"id": ["a", "c"], "text": ["one text", "three"],
                                               "n": [1, 3]}
    assert pq.read_table(rejects).to_pydict() == {"id": [None, "a"], "text": ["no id", "another"],
                                                   "n": [2, 4]}
    assert stats.written == stats.kept == 2


def test_a_malformed_csv_row_does_not_shift_the_next_rows(tmp_path: Path) -> None:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text('id,text\n1,ok\n2,"bad"x\n3,"multi\nline"\n4,fine\n')
    stats = dedupe(src, out, [["3", "4"]])
    assert [(r.line, r.reason.split(":")[0]) for r in stats.rejections] == [(3, "malformed row")]
    assert out.read_text() == 'id,text\n1,ok\n2,"bad"x\n3,"multi\nline"\n'
    assert [(r.id, r.line) for r in read_records(src) if isinstance(r, Record)] == [
        ("1", 2), ("3", 4), ("4", 6)]


def test_a_header_without_the_columns_stops_before_writing(tmp_path: Path) -> None:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("key,body\n1,ok\n")
    with pytest.raises(InputError, match=r"in.csv:1: the header has no column 'id'"):
        dedupe(src, out, [])
    assert not out.exists()
    with pytest.raises(InputError, match="would overwrite the input"):
        dedupe(src, src, [], id_field="key", text_fields=["body"])
    with pytest.raises(InputError, match="no such directory"):
        dedupe(src, tmp_path / "nope" / "out.csv", [])
    assert dedupe(src, out, [], id_field="key", text_fields=["body"]).kept == 1
    assert out.read_text() == src.read_text()


def test_a_table_with_only_a_header(tmp_path: Path) -> None:
    src, out = tmp_path / "in.tsv", tmp_path / "out.tsv"
    src.write_text("id\ttext\n")
    stats = dedupe(src, out, [], cluster_column="cluster")
    assert out.read_text() == "id\ttext\tcluster\tsimilarity\n" and stats.read == 0


# -- streaming ------------------------------------------------------------------------------------


def test_memory_does_not_grow_with_the_records(tmp_path: Path) -> None:
    """What is held is the id -> cluster mapping, not the records: a 24 MB input is written
    with a few MB at most (the records are 8 KB each)."""
    src = tmp_path / "big.txt"
    n = 3000
    with open(src, "w") as fh:
        for i in range(n):
            fh.write(f"{i} " + " ".join(f"w{i % 1500}_{k}" for k in range(800)) + "\n")
    size = src.stat().st_size
    groups = [[str(i), str(i + 1500)] for i in range(1500)]
    pairs = [Pair(a, b, 1.0, 0) for a, b in groups]
    for kw in ({}, {"keep": "longest"}, {"cluster_column": "cluster"}):
        out = tmp_path / "out.txt"
        tracemalloc.start()
        try:
            stats = dedupe(src, out, groups, pairs=pairs, **kw)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert stats.read == n and stats.removed == 1500
        assert peak < size / 8, (kw, peak, size)
        os.remove(out)


# -- the README -----------------------------------------------------------------------------------


def test_the_readme_example(tmp_path: Path) -> None:
    """The Python example of docs/cli.md's "Deduplicated data" section prints what it says."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("\n## Deduplicated data", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    proc = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got, want = proc.stdout.splitlines(), expected_lines(block)
    assert len(want) == 2 and len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert matches(w, g), (w, g)
    assert (tmp_path / "deduped.txt").is_file() and (tmp_path / "review.html").is_file()


# -- the command ----------------------------------------------------------------------------------


def test_cli_dedupe_in_memory(tmp_path: Path) -> None:
    out, page = tmp_path / "out.txt", tmp_path / "review.html"
    proc = run_cli("dedupe", str(ADDRESSES), "--out", str(out), "--backend", "memory",
                   "--review", str(page), "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["read"] == got["kept"] + got["removed"] + got["rejected"] == 864
    assert got["removed"] > 50 and got["index"]["indexed"] == 864
    assert len(out.read_text().splitlines()) == got["kept"]
    assert got["review"]["pairs"] == got["report"]["confirmed"] and page.stat().st_size > 10000
    text = run_cli("dedupe", str(ADDRESSES), "--out", str(out), "--backend", "memory",
                   "--cluster-column", "cluster")
    assert text.returncode == 0, text.stderr
    assert "every record with its cluster id in column 'cluster'" in text.stdout
    assert len(out.read_text().splitlines()) == 865  # a header and every record


#: A ragged CSV (issue 38, case 9): rows with a field too many and too few (read with the
#: missing last field empty), no id, Latin-1 bytes, a quoted row whose second line cannot be
#: decoded, an empty text, a blank line and a duplicate, each a line of its own (the quoted
#: row: lines 7-9).
RAGGED = [
    b"id,name,city\n",
    b"1,Blue Cafe,Paris\n",
    b"2,Blue Cafe,Paris,extra\n",
    b"3,Red\n",
    b",Nameless,Nice\n",
    b"5,Caf\xe9 Bleu,Paris\n",
    b'6,"Green\n', b"\x00\n", b'Grocer",Lyon\n',
    b"7,,\n",
    b"\n",
    b"8,Blue Cafe,Paris\n",
]
RAGGED_REJECTED = [3, 5, 7, 8, 9]  # the lines of the rows rejected (6 is Windows-1252)


def test_cli_every_row_of_a_ragged_csv_is_in_the_output_or_the_rejects_file(
    tmp_path: Path,
) -> None:
    src = tmp_path / "ragged.csv"
    src.write_bytes(b"".join(RAGGED))
    line = dict(enumerate(RAGGED, start=1))
    run = ("dedupe", str(src), "--backend", "memory", "--threshold", "0.5")

    # By default the rows rejected are written through, byte for byte, in their place: only
    # the blank line and the duplicate (8, of 1) are not in the output. Exit 0: the run
    # completed and nothing was lost, as the summary says.
    out = tmp_path / "out.csv"
    proc = run_cli(*run, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == b"".join(line[n] for n in line if n not in (11, 12))
    assert f"rejected 3 (written through as they are, the first at {src}:3)" in proc.stdout
    assert f"{src}:8: NUL byte at column 1" in proc.stderr  # the reasons, on stderr
    assert f"neardup: note: {src}:6: not UTF-8 at column 6: read as Windows-1252" in proc.stderr

    # --rejects: the rows rejected go there instead, after the header; the output is clean.
    out, rejects = tmp_path / "clean.csv", tmp_path / "rejects.csv"
    proc = run_cli(*run, "--out", str(out), "--rejects", str(rejects), "--json")
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == line[1] + line[2] + line[4] + line[6] + line[10]
    assert rejects.read_bytes() == line[1] + b"".join(line[n] for n in RAGGED_REJECTED)
    got = json.loads(proc.stdout)
    assert (got["read"], got["kept"], got["removed"], got["rejected"], got["blank_lines"]) == (
        8, 4, 1, 3, 1)
    assert got["read"] == got["kept"] + got["removed"] + got["rejected"]
    assert got["lines"] == len(RAGGED)  # the header and one row of three lines more
    assert got["rejected_to"] == str(rejects) and got["first_rejected"] == f"{src}:3"
    # every line of the input is in one of the two files, or was blank, or a duplicate removed
    assert len(out.read_bytes().splitlines()) + len(rejects.read_bytes().splitlines()) - 1 == (
        len(RAGGED) - 2)

    # --strict: the same files, exit 2.
    strict = run_cli(*run, "--out", str(out), "--rejects", str(rejects), "--strict")
    assert strict.returncode == 2, strict.stderr
    assert rejects.read_bytes() == line[1] + b"".join(line[n] for n in RAGGED_REJECTED)

    # --cluster-column: every row, the rows rejected with an empty cluster and similarity.
    proc = run_cli(*run, "--out", str(out), "--cluster-column", "cluster")
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (
        b"id,name,city,cluster,similarity\n"
        b"1,Blue Cafe,Paris,1,1.0000\n"
        b"2,Blue Cafe,Paris,,,extra\n"  # its extra cell after the columns added, not under

        b"3,Red,,3,1.0000\n"  # the city it left out, empty, then its cluster
        b",Nameless,Nice,,\n"
        b"5,Caf\xe9 Bleu,Paris,5,1.0000\n"  # its own cluster: read as Windows-1252
        b'6,"Green\n\x00\nGrocer",Lyon,,\n'
        b"7,,,7,\n"
        b"8,Blue Cafe,Paris,1,1.0000\n"
    )


def test_a_row_that_leaves_out_its_last_empty_fields_is_read_with_them_empty(
    tmp_path: Path,
) -> None:
    """A TSV row without its trailing empty field (an editor trimming trailing tabs) was
    rejected "expected 4 columns, found 3", never compared, and its duplicate stayed in the
    output (hostile sweep hx26, finding 6). It is read with the field empty, said in a note;
    dedupe writes it through as it was, and with --cluster-column its cluster lands under the
    cluster column (the field it left out added empty), so evaluate scores it. A row longer
    than the header stays rejected."""
    rows = [
        b"id\ttitle\tcity\tnotes\n",
        b"1\tSunny 2-room flat near park\tBerlin\tbalcony\n",
        b"2\tSunny 2 room flat near the park\tBerlin\n",
        b"3\tLoft with roof terrace\tHamburg\n",
        b"4\tLoft with roof-terrace\tHamburg\t\n",
        b"5\tStudio near station\tKoeln\tfurnished\n",
        b"6\tCastle\tBonn\t\tx\n",
    ]
    src, out, clustered = tmp_path / "flats.tsv", tmp_path / "o.tsv", tmp_path / "c.tsv"
    src.write_bytes(b"".join(rows))
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory", "--json")
    got = json.loads(proc.stdout)
    assert (got["read"], got["kept"], got["removed"], got["rejected"]) == (6, 3, 2, 1)
    assert out.read_bytes() == b"".join(rows[n] for n in (0, 1, 3, 5, 6))  # byte for byte
    assert (f"neardup: note: {src}: 2 rows shorter than the header read with the missing last "
            "columns empty (the first at line 3: 3 of 4 columns)") in proc.stderr  # fmt: skip
    assert f"rejected {src}:7: expected 4 columns, found 5" in proc.stderr
    proc = run_cli("dedupe", str(src), "--out", str(clustered), "--backend", "memory",
                   "--cluster-column", "cluster")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    with clustered.open(newline="", encoding="utf-8") as fh:
        table = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert [(r["id"], r["notes"], r["cluster"]) for r in table] == [
        ("1", "balcony", "1"), ("2", "", "1"), ("3", "", "3"), ("4", "", "3"),
        ("5", "furnished", "5"), ("6", "", "")]  # fmt: skip
    gold = tmp_path / "gold.tsv"
    gold.write_text("id1\tid2\n1\t2\n3\t4\n")
    scored = run_cli("evaluate", str(clustered), "--gold", str(gold))
    assert scored.returncode == 0 and "F1 1.000" in scored.stdout, scored.stderr


def test_cli_exit_codes(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"1 fine record\n2\n")
    out = tmp_path / "out.txt"
    cases = [
        (["dedupe", str(tmp_path / "nope.txt"), "--out", str(out)], "no such file"),
        (["dedupe", str(bad), "--out", str(bad), "--backend", "memory"], "overwrite the input"),
        (["dedupe", str(bad), "--out", str(out), "--backend", "memory", "--no-index"],
         "--no-index needs a collection"),
        (["dedupe", str(bad), "--out", str(out), "--backend", "memory", "--strict"],
         f"{bad}:2: no text after the id"),
        (["review", "--out", str(tmp_path / "p.html"), "--backend", "memory"], "holds nothing"),
        (["dedupe", str(bad), "--out", str(out), "--backend", "memory", "--threshold", "2"],
         "threshold must be a number in (0, 1]"),
    ]
    for args, message in cases:
        proc = run_cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert out.read_text() == "1 fine record\n2\n"  # --strict: all written, exit 2
    assert run_cli("dedupe", "--help").returncode == 0


def test_cluster_columns_are_checked_before_the_work(tmp_path: Path) -> None:
    """Cluster columns without a name, or both of one name, were refused only once the input
    was indexed and reported: they are bad usage, said before anything is read."""
    path = tmp_path / "in.txt"
    path.write_text("1 fine record\n2 another record\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    for flags, message in (
        (("--cluster-column", " "), "the cluster and similarity columns need names"),
        (("--cluster-column", "c", "--similarity-column", "c"), "columns are both 'c'"),
        (("--similarity-column", "sim"), "give --cluster-column too"),  # was ignored silently
    ):
        proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory", *flags)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert "parameters chosen" not in proc.stderr  # nothing was indexed
    assert not out.exists()


def _cores(solr_base: str) -> set[str]:
    status = requests.get(f"{solr_base}/admin/cores", params={"action": "STATUS"}, timeout=30)
    return set(status.json()["status"])


def test_cli_dedupe_on_solr_matches_memory(solr_base: str, tmp_path: Path) -> None:
    env = {"NEARDUP_SOLR_URL": solr_base}
    before = _cores(solr_base)
    on_solr, in_memory = tmp_path / "solr.txt", tmp_path / "memory.txt"
    proc = run_cli("dedupe", str(ADDRESSES), "--out", str(on_solr), env=env)
    assert proc.returncode == 0, proc.stderr
    assert _cores(solr_base) == before  # the temporary collection is gone
    mem = run_cli("dedupe", str(ADDRESSES), "--out", str(in_memory), "--backend", "memory")
    assert mem.returncode == 0, mem.stderr
    assert on_solr.read_bytes() == in_memory.read_bytes()
    assert proc.stdout.split(" -> ")[0] == mem.stdout.split(" -> ")[0]  # the same counts

    name = f"test_dedupe_named_{os.getpid()}"
    try:
        first = run_cli("dedupe", str(ADDRESSES), "--out", str(tmp_path / "a.txt"),
                        "--collection", name, "--keep", "longest", env=env)
        assert first.returncode == 0, first.stderr
        assert name in _cores(solr_base)  # a named collection is kept
        again = run_cli("dedupe", str(ADDRESSES), "--out", str(tmp_path / "b.txt"),
                        "--collection", name, "--keep", "longest", "--no-index", "--json",
                        env=env)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["index"] is None  # reused, not indexed again
        assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
        # A parameter flag that the collection's index contradicts is an error, not ignored;
        # --threshold with --no-index is the report's.
        other = run_cli("dedupe", str(ADDRESSES), "--out", str(tmp_path / "c.txt"),
                        "--collection", name, "--no-index", "--shingle-kind", "word", env=env)
        assert other.returncode == 2, other.stderr
        assert "--shingle-kind: the index has 'char', given 'word'" in other.stderr
        assert not (tmp_path / "c.txt").exists()
        tighter = run_cli("dedupe", str(ADDRESSES), "--out", str(tmp_path / "c.txt"),
                          "--collection", name, "--no-index", "--threshold", "0.9", env=env)
        assert tighter.returncode == 0, tighter.stderr
        page = tmp_path / "review.html"
        review = run_cli("review", "--collection", name, "--out", str(page), env=env)
        assert review.returncode == 0, review.stderr
        assert page.read_text(encoding="utf-8").count('data-count="pairs"') == 1
    finally:
        admin.delete_collection(admin.connect(solr_base, name))


def test_dedupe_no_index_of_a_second_file_matches_its_own_records(
    solr_base: str, tmp_path: Path
) -> None:
    """Two files with the same ids in one collection: ``dedupe b.csv --no-index`` matched the
    rows of b.csv to the first file's records by id, and removed rows of b.csv that have no
    duplicate because a.csv's rows of those ids had. A file none of the collection's sources
    is an error, not deduped by another file's clusters; a collection of one source indexed
    under another name (--source) is still its file's."""
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_dedupe_second_{os.getpid()}"
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    a.write_text("id,text\n1,the quick brown fox jumps over the lazy dog near the river bank\n"
                 "2,the quick brown fox jumps over the lazy dog near the river banks\n"
                 "3,a unique sentence nobody else shares at all whatsoever indeed\n")
    b.write_text("id,text\n1,alpha beta gamma delta epsilon zeta eta theta one\n"
                 "2,lambda mu nu xi omicron pi rho sigma tau two\n"
                 "3,alpha beta gamma delta epsilon zeta eta theta one\n")
    c.write_text(a.read_text())  # fmt: skip
    try:
        for path in (a, b):
            assert run_cli("index", str(path), "--collection", name, env=env).returncode == 0
        out = tmp_path / "out.csv"
        done = run_cli("dedupe", str(b), "--out", str(out), "--collection", name, "--no-index",
                       env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert [r["id"] for r in csv.DictReader(out.open())] == ["1", "2"]  # 3 is 1's copy
        done = run_cli("dedupe", str(a), "--out", str(out), "--collection", name, "--no-index",
                       env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert [r["id"] for r in csv.DictReader(out.open())] == ["1", "3"]
        missing = run_cli("dedupe", str(c), "--out", str(tmp_path / "c_out.csv"),
                          "--collection", name, "--no-index", env=env)  # fmt: skip
        assert missing.returncode == 2 and "sources, none of them" in missing.stderr
        assert not (tmp_path / "c_out.csv").exists()
        one = f"{name}_one"
        try:
            assert run_cli("index", str(a), "--source", "shop", "--collection", one,
                           env=env).returncode == 0  # fmt: skip
            done = run_cli("dedupe", str(c), "--out", str(out), "--collection", one,
                           "--no-index", env=env)  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert [r["id"] for r in csv.DictReader(out.open())] == ["1", "3"]
        finally:
            admin.delete_collection(admin.connect(solr_base, one))
    finally:
        admin.delete_collection(admin.connect(solr_base, name))


@pytest.mark.parametrize("sep", ["|", ";", "#", "\t"])
def test_the_cluster_columns_are_added_with_the_tables_own_separator(
    sep: str, tmp_path: Path
) -> None:
    """A ``.csv`` separated by ``|`` (as many catalogues are) got its cluster columns after a
    comma: the header's last name became ``dimensions,cluster,similarity``, and the output
    read back had no cluster column."""
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    rows = [["id", "title", "brand"], ["1", "koss eq50 stereo equalizer", "Koss, Inc"],
            ["2", "koss eq50 stereo equaliser", "Koss"], ["3", "kodak black ink 10b", "Kodak"]]
    with open(src, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, delimiter=sep, lineterminator="\n").writerows(rows)
    stats = dedupe(src, out, [["1", "2"]], cluster_column="cluster")
    assert stats.clusters >= 1
    with open(out, encoding="utf-8", newline="") as fh:
        back = list(csv.DictReader(fh, delimiter=sep))
    assert list(back[0]) == ["id", "title", "brand", "cluster", "similarity"]
    assert [(r["id"], r["brand"], r["cluster"]) for r in back] == [
        ("1", "Koss, Inc", "1"), ("2", "Koss", "1"), ("3", "Kodak", "3")]
    # read as neardup reads it: the same records, the new columns beside them
    again = [r for r in read_records(out) if isinstance(r, Record)]
    assert [r.fields.get("cluster") for r in again] == ["1", "1", "3"]


def test_an_output_named_for_another_format_is_refused_before_any_work(tmp_path: Path) -> None:
    """A CSV input deduplicated into ``x.parquet`` wrote CSV text there, exit 0: every reader
    of its name failed on it. The output is the input's format, whatever it is named."""
    src = tmp_path / "in.csv"
    _write_format(src, "csv", _lines(ADDRESSES)[:20])
    for name in ("out.parquet", "out.jsonl", "out.tsv"):
        with pytest.raises(ArgumentError, match=r"extension says .*the input's format, CSV"):
            dedupe(src, tmp_path / name, [])
    with pytest.raises(ArgumentError, match="--rejects"):
        dedupe(src, tmp_path / "ok.csv", [], rejects=tmp_path / "bad.jsonl")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]
    dedupe(src, tmp_path / "out.csv", [])  # the input's format, or no known extension
    dedupe(src, tmp_path / "out.dat", [])
    lines = tmp_path / "in.txt"
    lines.write_text("1 blue cafe\n2 red bar\n", encoding="utf-8")
    dedupe(lines, tmp_path / "c.tsv", [], cluster_column="c")  # lines with a column are TSV
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", "dedupe", str(src), "--out", str(tmp_path / "x.parquet"),
         "--backend", "memory"], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "extension says PARQUET" in proc.stderr
    assert not (tmp_path / "x.parquet").exists() and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "flags", [["--bands", "0", "--rows", "0"], ["--bands", "-2", "--rows", "3"]]
)
def test_bands_or_rows_below_one_are_bad_usage(flags: list[str], tmp_path: Path) -> None:
    """``--bands 0 --rows 0`` ran with bands chosen from the threshold, and printed "given:
    bands=0, rows=0" beside the 64 x 2 it used."""
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_format(src, "csv", _lines(ADDRESSES)[:20])
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory", *flags)
    assert proc.returncode == 2 and "at least 1" in proc.stderr, proc.stderr
    assert not out.exists() and "Traceback" not in proc.stderr


def test_an_output_cut_short_by_its_reader_is_not_success(tmp_path: Path) -> None:
    """``dedupe --out - | head -2`` exited 0 without its summary: a script could not tell the
    output was cut short. The exit status is now a shell's for SIGPIPE, without a traceback."""
    src = tmp_path / "in.csv"
    rng = random.Random(12)
    rows = [f"{i},{' '.join(f'w{rng.randrange(3000)}' for _ in range(12))}\n"
            for i in range(4_000)]  # fmt: skip
    src.write_text("id,text\n" + "".join(rows), encoding="utf-8")  # more than a pipe holds
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup", "dedupe", str(src), "--out", "-", "--backend",
         "memory", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as head does once it has its lines
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err


def test_json_beside_data_on_stdout_is_the_last_line_of_stderr(tmp_path: Path) -> None:
    """With ``--out -``, the indented JSON summary came after the notes on stderr, and no
    script could parse it. It is now one line, the last."""
    src = tmp_path / "s.csv"
    src.write_text("id,name\n1,blue cafe paris\n2,blue cafe paris!\n", encoding="utf-8")
    proc = run_cli("dedupe", str(src), "--out", "-", "--json", "--backend", "memory")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("id,name")
    lines = proc.stderr.strip().splitlines()
    assert len(lines) > 1  # the notes (the parameters chosen) are there too
    assert json.loads(lines[-1])["kept"] == 1


@pytest.mark.solr
def test_files_of_one_name_in_two_folders_are_two_sources_of_a_kept_collection(
    solr_base: str, tmp_path: Path
) -> None:
    """``dedupe people.csv --collection c`` named the source as typed: the same name run from
    another folder replaced the first folder's records, exit 0 both times."""
    shops = []
    for name, rows in (("shopA", ["0,Mary Jones 12 Main St Salem", "1,Peter Brown 4 Elm Rd"]),
                       ("shopB", ["0,Zed Zulu 1 Zebra Way Zurich"])):  # fmt: skip
        (tmp_path / name).mkdir()
        (tmp_path / name / "people.csv").write_text("id,name\n" + "\n".join(rows) + "\n",
                                                    encoding="utf-8")  # fmt: skip
        shops.append(tmp_path / name)
    coll = f"t_two_folders_{random.randrange(10**9)}"
    try:
        for shop in shops:
            done = subprocess.run(
                [sys.executable, "-m", "neardup", "dedupe", "people.csv", "--out", "out.csv",
                 "--collection", coll, "--solr-url", solr_base],
                cwd=shop, capture_output=True, text=True, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
        info = run_cli("info", "--collection", coll, "--solr-url", solr_base, "--json")
        sources = json.loads(info.stdout)["sources"]
        assert sources == {str(s / "people.csv"): n for s, n in zip(shops, (2, 1), strict=True)}
    finally:
        run_cli("drop", coll, "--yes", "--solr-url", solr_base)


def test_a_dedupe_that_never_reached_solr_says_so_once(tmp_path: Path) -> None:
    """Solr unreachable: "could not delete the temporary collection: cannot reach Solr" came
    first, of a collection never made, then the error itself."""
    src = tmp_path / "s.csv"
    src.write_text("id,name\n1,blue cafe paris\n2,blue cafe paris!\n", encoding="utf-8")
    done = run_cli("dedupe", str(src), "--out", str(tmp_path / "o.csv"),
                   env={"NEARDUP_SOLR_URL": "http://127.0.0.1:1/solr"})  # fmt: skip
    assert done.returncode == 1 and "cannot reach Solr" in done.stderr
    assert "temporary collection" not in done.stderr and done.stderr.count("\n") == 1


def test_cluster_columns_of_rows_that_are_not_utf8_are_written_in_their_encoding(
    tmp_path: Path,
) -> None:
    """Rows in Windows-1252 (read as such, :mod:`neardup.read.lines`): a JSON line got a
    UnicodeDecodeError traceback with --cluster-column, and a CSV row its cluster id in UTF-8
    beside its own id in Windows-1252, so that the two no longer joined."""
    src = tmp_path / "cp.jsonl"
    src.write_bytes(b'{"id":"1","text":"Caf\xe9 M\xfcller"}\n'
                    b'{"id":"2","text":"Caf\xc3\xa9 M\xc3\xbcller"}\n'
                    b'{"id":"3","text":"Other thing"}\n')  # fmt: skip
    out = tmp_path / "o.jsonl"
    proc = run_cli("dedupe", str(src), "--backend", "memory", "--threshold", "0.5", "--out",
                   str(out), "--cluster-column", "cl")  # fmt: skip
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = out.read_bytes().splitlines()
    assert lines[0] == b'{"id":"1","text":"Caf\xe9 M\xfcller", "cl": "1", "similarity": 1.0}'
    assert json.loads(lines[1]) == {"id": "2", "text": "Café Müller", "cl": "1", "similarity": 1.0}
    src = tmp_path / "cp.csv"
    src.write_bytes(b"id,text\nCaf\xe9,Main street coffee house downtown\n"
                    b"Cr\xe8me,Main street coffee house downtown!\n")  # fmt: skip
    out = tmp_path / "o.csv"
    proc = run_cli("dedupe", str(src), "--backend", "memory", "--threshold", "0.5", "--out",
                   str(out), "--cluster-column", "cl")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (
        b"id,text,cl,similarity\nCaf\xe9,Main street coffee house downtown,Caf\xe9,1.0000\n"
        b"Cr\xe8me,Main street coffee house downtown!,Caf\xe9,1.0000\n"
    )


def test_a_bom_inside_a_jsonl_file_gets_its_cluster_column(tmp_path: Path) -> None:
    """Two JSON Lines files saved with a BOM and joined (cat): the reader read past the BOM of
    the second, the cluster column's writer stopped at it with a traceback."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b'{"id": 1, "text": "a b"}\n\xef\xbb\xbf{"id": 2, "text": "a b c"}\n')
    dedupe(src, out, [["1", "2"]], cluster_column="cluster")
    lines = out.read_bytes().splitlines()
    assert lines[1].startswith(b'\xef\xbb\xbf{"id": 2')  # the row as it was, and the cells added
    assert [json.loads(x.decode("utf-8-sig"))["cluster"] for x in lines] == [1, 1]


def test_a_parquet_cluster_column_has_the_type_of_its_ids(tmp_path: Path) -> None:
    """An int64 id column: the cluster ids are int64 too, so that the column joins with it, as
    JSON Lines writes them."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                             "text": ["jon smith boston", "john smith boston", "mary jones"]}), src)
    dedupe(src, out, [["1", "2"]], cluster_column="cluster")
    table = pq.read_table(out)
    assert table.schema.field("cluster").type == pa.int64()
    assert table.column("cluster").to_pylist() == [1, 1, 3]


def test_a_record_removed_unpaired_with_the_record_kept_is_said(tmp_path: Path) -> None:
    """A chain 1-2-3 (center 2): keep first keeps 1 and removes 3, which the report paired with
    2 only. The run says so and names the rule that removes only records paired with the one
    kept; with it, nothing is said."""
    src = tmp_path / "chain.csv"
    src.write_text("id,text\n1,a b c d e f\n2,c d e f g h\n3,e f g h i j\n", encoding="utf-8")
    flags = ["--backend", "memory", "--shingle-kind", "word", "--threshold", "0.3", "--json"]
    first = run_cli("dedupe", str(src), "--out", str(tmp_path / "a.csv"), *flags)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["unpaired"] == 1
    assert "note: 1 of the 2 records removed was paired with their cluster's center" in \
        first.stderr and "--keep central" in first.stderr  # fmt: skip
    central = run_cli("dedupe", str(src), "--out", str(tmp_path / "b.csv"), "--keep",
                      "central", *flags)  # fmt: skip
    assert central.returncode == 0 and json.loads(central.stdout)["unpaired"] == 0
    assert "cluster's center" not in central.stderr
    assert (tmp_path / "b.csv").read_text(encoding="utf-8") == "id,text\n2,c d e f g h\n"


def test_the_summary_counts_the_rows_with_no_words(tmp_path: Path) -> None:
    """hx22: rows of emoji or punctuation alone are written as they are, never compared, each
    said on stderr, but the summary line did not count them: read 8, kept 7, removed 1."""
    path = tmp_path / "c.csv"
    path.write_text("id,comment\n1,🍕🍕🍕\n2,🍕🍕🍕\n3,👍\n4,👍\n5,???\n6,???\n7,Great pizza\n"
                    "8,Great pizza\n", encoding="utf-8")  # fmt: skip
    done = run_cli("dedupe", str(path), "--out", str(tmp_path / "out.csv"), "--backend", "memory")
    assert done.returncode == 0, done.stderr
    assert "read 8, kept 7, removed 1" in done.stdout
    assert "no words 6 (punctuation or symbols alone: written as they are, not compared)" \
        in done.stdout, done.stdout


def _edited_between_reads(
    monkeypatch: pytest.MonkeyPatch, edit: Callable[[Path], None], src: Path
) -> None:
    """``edit(src)`` once dedupe has indexed ``src``, before it reads it again to write it."""
    from neardup.cli import dedupe_review

    real = dedupe_review._report

    def edited_first(index: Any, args: Any, mode: str = "dedup") -> Any:
        edit(src)
        return real(index, args, mode)

    monkeypatch.setattr(dedupe_review, "_report", edited_first)


def _in_place(path: Path) -> None:
    """Row 1 says something else (as long, so as many lines and bytes), its mtime put back."""
    info = path.stat()
    edited = path.read_bytes().replace(b"1,jon smith 12 main st", b"1,zzz qqqqq 99 vvvv xx")
    path.write_bytes(edited)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size


def _appended(path: Path) -> None:
    with path.open("ab") as fh:
        fh.write(b"8,rows added after indexing\n9,rows added after indexing\n")


@pytest.mark.parametrize("edit", [_in_place, _appended], ids=["edited in place", "appended to"])
def test_a_file_changed_between_its_two_reads_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    edit: Callable[[Path], None],
) -> None:
    """hx24 finding 1: dedupe indexes its input, then reads it again to write it. A row edited
    in place (same size, same mtime: only what was read tells) or rows appended in between
    went unnoticed: exit 0, row 2 removed as a duplicate of a row 1 that no longer said the
    same, the appended rows written as kept though never compared. Now refused (exit 2), the
    output that was there left as it was."""
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("id,text\n1,jon smith 12 main st\n2,john smith 12 main st\n3,mary jones\n"
                   "4,peter parker\n", encoding="utf-8")  # fmt: skip
    out.write_text("the old output\n", encoding="utf-8")
    _edited_between_reads(monkeypatch, edit, src)
    code = main(["dedupe", str(src), "--out", str(out), "--backend", "memory", "--quiet",
                 "--shingle-kind", "word", "--threshold", "0.5"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{src}: the file changed while it was read" in err
    assert out.read_text(encoding="utf-8") == "the old output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "out.csv"]  # no .tmp left


def test_dedupe_checks_its_reads_against_the_first(tmp_path: Path) -> None:
    """The library's side of finding 1: ``first_read`` (what indexing saw) is checked by every
    read dedupe makes (keep last's too, Parquet's too); unchanged, the file is written."""
    from neardup.read.unchanged import FirstRead

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    csv_in, pq_in = tmp_path / "in.csv", tmp_path / "in.parquet"
    csv_in.write_text("id,text\n1,a b c\n2,a b c d\n3,x y z\n", encoding="utf-8")
    pq.write_table(pa.table({"id": ["1", "2", "3"], "text": ["a b c", "a b c d", "x y z"]}), pq_in)
    for src in (csv_in, pq_in):
        for keep in ("first", "last"):
            first = FirstRead(src)
            list(first.over(read_records(src)))
            out = tmp_path / f"out{src.suffix}"
            dedupe(src, out, [["1", "2"]], keep=keep, first_read=first)  # unchanged: written
            assert out.exists()
            out.unlink()
            info = src.stat()
            src.write_bytes(src.read_bytes().replace(b"x y z", b"x y q"))
            os.utime(src, ns=(info.st_atime_ns, info.st_mtime_ns))
            with pytest.raises(InputError, match="the file changed while it was read"):
                dedupe(src, out, [["1", "2"]], keep=keep, first_read=first)
            assert not out.exists()
            src.write_bytes(src.read_bytes().replace(b"x y q", b"x y z"))


@pytest.mark.parametrize("sep", [",", "\t", ";"])
def test_a_rejected_row_never_reads_as_a_cluster_member(tmp_path: Path, sep: str) -> None:
    """hx24 finding 9: with --cluster-column, a row rejected for a field too many was written
    through with the two empty cells appended, so its stray cell sat under the cluster column:
    csv.DictReader (and Excel) read the rejected, never compared row as a member of cluster 1.
    Its cells past the header's now come after the columns added; quoted cells holding the
    separator or quotes are one cell; the row is otherwise as it was, and rows without a cell
    too many are written as before."""
    q = sep != "\t"  # TSV is read as written: a quote is text
    rows = ["id,text", "1,jon smith boston", "2,john smith boston",
            '3,"a, ""b"" c",1' if q else "3,a b c,1", "4,mary,1,0.9", "1,other text"]
    src = tmp_path / ("in.tsv" if sep == "\t" else "in.csv")
    src.write_text("".join(r.replace(",", sep) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / ("out.tsv" if sep == "\t" else "out.csv")
    stats = dedupe(src, out, [["1", "2"]], cluster_column="cluster", delimiter=sep)
    assert stats.rejected == 3
    with out.open(newline="", encoding="utf-8") as fh:
        got = list(csv.DictReader(fh, delimiter=sep, quoting=csv.QUOTE_MINIMAL if q
                                  else csv.QUOTE_NONE))  # fmt: skip
    assert [(r["id"], r["cluster"], r["similarity"]) for r in got] == [
        ("1", "1", "1.0000"), ("2", "1", ""), ("3", "", ""), ("4", "", ""), ("1", "", "")]
    assert [r[None] for r in got[2:4]] == [["1"], ["1", "0.9"]]  # kept, past the columns
    text = ('a; "b" c' if sep == ";" else 'a, "b" c') if q else "a b c"
    assert got[2]["text"] == text
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[5] == sep.join(["1", "other text", "", ""])  # an id seen before: appended
