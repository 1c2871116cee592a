"""A folder of documents read as records: each file one record, its path under the folder the id."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from neardup import InputError, NearDupIndex, NotUtf8, Record, read_records
from neardup.errors import ArgumentError
from neardup.read.checks import LINE_ROOM
from neardup.read.items import EmptyText, Rejection

from .conftest import REPO, run_cli

STORY = (
    "The council voted on Tuesday to close the old bridge over the river for repairs that "
    "will take most of the summer, the mayor said, and traffic will go through the town centre."
)


def _folder(where: Path) -> Path:
    """Articles as files, two of them edited copies of the first, in folders and not, with what
    is not a document: a hidden folder and file, an image, an empty file."""
    docs = where / "articles"
    (docs / "2024" / "june").mkdir(parents=True)
    (docs / ".git").mkdir()
    (docs / "a.txt").write_text(STORY + "\n", encoding="utf-8")
    (docs / "2024" / "june" / "copy.txt").write_text(
        STORY.replace("Tuesday", "Wednesday") + "\nReported by staff.\n", encoding="utf-8"
    )
    # Windows-1252: a name with an accent, its line ending CRLF
    (docs / "2024" / "latin.txt").write_bytes(
        (STORY.replace("mayor", "mayor Ren\xe9") + "\r\n").encode("cp1252")
    )
    (docs / "b.txt").write_text("A recipe for bread: flour, water, salt and yeast.\n", "utf-8")
    (docs / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    (docs / "empty.txt").write_bytes(b"")
    (docs / ".DS_Store").write_bytes(b"\x00\x01")
    (docs / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (docs / "gone.txt").symlink_to(where / "nowhere.txt")  # a link to nothing: said
    (docs / "elsewhere").symlink_to(docs / "2024", target_is_directory=True)  # not followed
    os.mkfifo(docs / "pipe")  # a named pipe is no document: said, not passed over
    return docs


def test_each_file_is_a_record_its_path_the_id(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    with pytest.warns(NotUtf8, match="latin.txt:1: not UTF-8"):
        items = list(read_records(docs))
    records = [i for i in items if isinstance(i, Record)]
    assert [r.id for r in records] == [
        "2024/june/copy.txt", "2024/latin.txt", "a.txt", "b.txt"
    ]  # sorted paths; hidden names left out
    assert {r.source for r in records} == {str(docs)}
    assert "mayor René said" in records[1].text
    rejected = {i.id: i for i in items if isinstance(i, Rejection)}
    assert set(rejected) == {"empty.txt", "photo.jpg", "gone.txt", "elsewhere", "pipe"}
    assert isinstance(rejected["empty.txt"], EmptyText)
    # named by its file, not by a line: the folder's n-th document read like a line number
    assert str(rejected["photo.jpg"]) == (
        f"{docs}/photo.jpg: not text: a NUL byte at byte 5 (a binary file?)"
    )
    assert "a symbolic link to a file that does not exist" in rejected["gone.txt"].reason
    assert rejected["elsewhere"].reason.startswith("a symbolic link to a folder (")
    assert rejected["pipe"].reason == "not a regular file: a named pipe (FIFO)"
    assert len(items) == 9  # every document accounted for
    index = NearDupIndex()
    with pytest.warns(NotUtf8):  # said again: each reading of the folder says it
        index.add_many(read_records(docs))
    found = {frozenset((p.id1, p.id2)) for p in index.report().pairs}
    assert frozenset(("a.txt", "2024/latin.txt")) in found
    assert all("b.txt" not in p for p in found)


def test_a_folder_has_no_columns_to_name(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    for kw in ({"text_fields": ["body"]}, {"source_field": "site"}, {"id_field": "name"}):
        with pytest.raises(ArgumentError, match="a folder's records are its files"):
            list(read_records(docs, **kw))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="not as csv: give no format, or the format 'folder'"):
        list(read_records(docs, "csv"))
    with pytest.raises(InputError, match="not a folder"):
        list(read_records(docs / "a.txt", "folder"))
    with pytest.raises(InputError, match="whole files, not tables"):
        list(read_records(docs, delimiter=";"))


def test_a_file_larger_than_a_record_is_rejected_unread(tmp_path: Path) -> None:
    docs = tmp_path / "big"
    docs.mkdir()
    huge = b"word " * ((1000 + LINE_ROOM) // 5 + 2)
    size = len(huge)
    (docs / "huge.txt").write_bytes(huge)
    (docs / "large.txt").write_bytes(b"word " * 1000)  # read, then over the limit
    (docs / "small.txt").write_bytes(b"a few words here")
    items = list(read_records(docs, max_record_bytes=1000))
    assert [i.id for i in items if isinstance(i, Record)] == ["small.txt"]
    big, large = [i for i in items if isinstance(i, Rejection)]
    assert big.id == "huge.txt" and f"record too large, a file of {size} bytes" in big.reason
    assert large.id == "large.txt" and "record too large, 5000 bytes" in large.reason


def test_cli_indexes_a_folder_and_reports_its_documents_by_path(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    store, pairs = tmp_path / "i.duckdb", tmp_path / "pairs.csv"
    done = run_cli("index", str(docs), "--index-file", str(store), "--json")
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert (counts["read"], counts["indexed"], counts["rejected"]) == (9, 4, 5)
    assert "neardup: note: " in done.stderr and "latin.txt:1: not UTF-8" in done.stderr
    assert "Traceback" not in done.stderr
    done = run_cli("report", "--index-file", str(store), "--out", str(pairs))
    assert done.returncode == 0, done.stderr
    with open(pairs, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    got = {frozenset((r["id1"], r["id2"])) for r in rows}
    assert frozenset(("a.txt", "2024/latin.txt")) in got
    assert {r["source1"] for r in rows} == {str(docs.resolve())}  # absolute, as a file's
    # a document by its path, the folder as typed: the source the index knows it by
    near = run_cli("neighbors", "a.txt", "--index-file", str(store), "--source",
                   os.path.relpath(docs, REPO), "--json")  # fmt: skip
    assert near.returncode == 0, near.stderr
    assert "2024/latin.txt" in {m["id"] for m in json.loads(near.stdout)["matches"]}
    # dedupe writes its input again: a folder is refused with what to run instead
    done = run_cli("dedupe", str(docs), "--out", str(tmp_path / "out"), "--backend", "memory")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"neardup index {docs}, then neardup report" in done.stderr
