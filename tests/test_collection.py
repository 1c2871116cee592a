"""Collections (issues 27, 38): ``neardup info`` says what a collection holds, and a file
joins a collection of other files' records with the collection's parameters, said in one
line where its own data would get others."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neardup.resources import restaurants
from neardup.solr import admin

from .conftest import REPO, run_cli

ADDRESSES, _ = restaurants()


def test_info_and_append(solr_base: str, tmp_path: Path) -> None:
    lines = ADDRESSES.read_text().splitlines()
    a, c, docs = tmp_path / "a.txt", tmp_path / "c.txt", tmp_path / "docs.txt"
    a.write_text("\n".join(lines[:500]) + "\n")
    c.write_text("\n".join(lines[500:]) + "\n")
    rng = random.Random(5)
    vocab = [f"word{i}" for i in range(500)]
    docs.write_text("".join(f"d{n} {' '.join(rng.choices(vocab, k=80))}\n" for n in range(30)))
    name = f"test_info_{random.randrange(10**9)}"
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/{name}"}
    try:
        assert run_cli("index", str(a), env=env).returncode == 0
        again = run_cli("index", str(a), env=env)  # the same file again: its own collection
        assert again.returncode == 0, again.stderr
        same = run_cli("index", str(c), env=env)  # records like a's get a's parameters
        assert same.returncode == 0, same.stderr
        assert "joins" not in same.stderr
        # Issue 38: no parameters given, so the collection's stand for this file too, and
        # one line says so; only a flag that conflicts is refused.
        conflict = run_cli("index", str(docs), "--shingle-kind", "word", env=env)
        assert conflict.returncode == 2 and "--shingle-kind" in conflict.stderr
        info = json.loads(run_cli("info", "--json", env=env).stdout)
        assert info["records"] == 864 and info["sources"] == {str(a): 500, str(c): 364}
        appended = run_cli("index", str(docs), env=env)
        assert appended.returncode == 0, appended.stderr
        notes = [line for line in appended.stderr.splitlines() if line.startswith("note:")]
        assert len(notes) == 1 and f"{docs} joins" in notes[0], appended.stderr
        assert "shingle_kind 'word'" in notes[0]
        proc = run_cli("info", "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        info = json.loads(proc.stdout)
        assert info["records"] == 894 and info["source_count"] == 3
        # four runs, three batches: a's second run replaced the records of its first
        assert info["params"]["shingle_kind"] == "char" and info["batch_count"] == 3
        assert [(b["records"], b["sources"]) for b in info["batches"]] == [
            (30, [str(docs)]), (364, [str(c)]), (500, [str(a)])]
        assert info["batches"][0]["written"].endswith("UTC")
        text = run_cli("info", env=env).stdout
        assert f"{name}: 894 records" in text and "parameters: character 3-grams" in text
        assert f"{docs}: 30 records" in text and "batches (3, newest first)" in text
    finally:
        admin.delete_collection(admin.connect(solr_base, name))


def test_a_file_joins_a_collection_banded_for_its_size(
    solr_base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A collection of many records is banded from a higher floor (neardup.choose): another
    file of records like them joins it, whatever its own size; records of another kind do not."""
    import dataclasses

    import neardup.choose as choose_module
    from neardup import NearDupIndex
    from neardup.collection import joining_note
    from neardup.defaults import DEFAULTS
    from neardup.read.records import read_records

    monkeypatch.setattr(choose_module, "DEFAULTS", dataclasses.replace(DEFAULTS, large_records=400))
    records = list(read_records(ADDRESSES, "lines"))
    name = f"test_join_{random.randrange(10**9)}"
    try:
        index = NearDupIndex.open(solr_base, collection=name)
        index.add_many(records[:500])  # 500 > 400: the large banding
        assert (index.params.threshold, index.params.rows) == (0.4, 4)
        small = [r.text for r in records[500:600]]
        assert joining_note(index.backend, index.params, "c.txt", small, {}) is None
        words = ["word " * 80 + str(i) for i in range(30)]
        note = joining_note(index.backend, index.params, "d", words, {})
        assert note is not None and "shingle_kind 'word'" in note
    finally:
        admin.delete_collection(admin.connect(solr_base, name))


def test_one_file_under_three_spellings_is_one_source(solr_base: str, tmp_path: Path) -> None:
    """Issue 41 item 5: '../d.txt' from a folder, 'd.txt' from its own and its absolute path
    are one source, so each run replaces the records of the last (three sources and every
    record paired with itself before)."""
    import os
    import subprocess
    import sys

    sub = tmp_path / "sub"
    sub.mkdir()
    data = tmp_path / "d.txt"
    data.write_text("\n".join(ADDRESSES.read_text().splitlines()[:200]) + "\n")
    name = f"test_spelling_{random.randrange(10**9)}"
    env = {**os.environ, "NEARDUP_SOLR_URL": f"{solr_base}/{name}"}
    try:
        for cwd, spelled in ((sub, "../d.txt"), (tmp_path, "d.txt"), (REPO, str(data))):
            done = subprocess.run([sys.executable, "-m", "neardup", "index", spelled], cwd=cwd,
                                  env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
            assert done.returncode == 0, done.stderr
        info = json.loads(run_cli("info", "--json", env={"NEARDUP_SOLR_URL": env[
            "NEARDUP_SOLR_URL"]}).stdout)  # fmt: skip
        assert info["records"] == 200 and info["sources"] == {str(data.resolve()): 200}
    finally:
        admin.delete_collection(admin.connect(solr_base, name))
