"""Data safety under hostile input and misuse (issue 26): nothing lost, nothing replaced, no
way out of a record or a collection. What neardup promises is written in docs/safety.md.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from neardup import NearDupIndex, Params
from neardup.backends.solr import META_ID, SolrBackend
from neardup.errors import (
    ArgumentError,
    InputError,
    NeardupError,
    OutputError,
    ParameterMismatch,
    SolrRequestError,
    SolrUnavailable,
)
from neardup.out.write import AtomicFile
from neardup.read.items import Record, Rejection
from neardup.read.pairs import read_pairs
from neardup.read.records import read_records
from neardup.resources import CONFIGSET_NAME, configset_dir
from neardup.solr import admin
from neardup.solr.client import Solr
from neardup.solr.local import LocalSolr

from .conftest import node_of_its_own, run_cli, with_credentials
from .faultproxy import Fault, FaultProxy

_names = itertools.count()


def cli_index(solr_base: str, path: Path, *extra: str) -> tuple[int, dict, str, str]:
    """``neardup index path --json`` into a fresh collection: exit code, counts, stderr, and
    the collection's URL."""
    url = f"{solr_base}/test_safety_{os.getpid()}_{next(_names)}"
    proc = run_cli("index", str(path), "--json", *extra, env={"NEARDUP_SOLR_URL": url})
    assert "Traceback" not in proc.stderr, proc.stderr
    counts = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, counts, proc.stderr, url


# -- 2: no record reaches the index's own metadata -------------------------------------------


def test_the_metadata_id_is_reserved() -> None:
    from neardup.read.checks import RESERVED_PREFIX

    assert META_ID.startswith(RESERVED_PREFIX)


@pytest.mark.solr
def test_a_record_with_the_metadata_id_is_refused_with_its_line(
    solr_base: str, tmp_path: Path
) -> None:
    path = tmp_path / "meta.jsonl"
    rows = [
        {"id": "a", "text": "one two three four"},
        {"id": META_ID, "text": "five six seven eight"},
        {"id": "b", "text": "one two three four five"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, counts, stderr, url = cli_index(solr_base, path, "--threshold", "0.4")
    assert code == 0, stderr
    assert counts["indexed"] == 2 and counts["rejected"] == 1
    assert counts["rejections"][0]["line"] == 2
    assert f"{path}:2: " in stderr and "reserved" in stderr
    from neardup.solr.admin import connect

    solr = connect(url.rsplit("/", 1)[0], url.rsplit("/", 1)[1])
    stored = SolrBackend(solr).load_params()
    assert stored is not None and stored["threshold"] == 0.4


@pytest.mark.parametrize("kind", ["memory", pytest.param("solr", marks=pytest.mark.solr)])
def test_records_given_as_values_cannot_reach_the_metadata(
    kind: str, request: pytest.FixtureRequest
) -> None:
    if kind == "memory":
        idx = NearDupIndex(Params(threshold=0.4))
    else:
        factory: Callable[[str], Solr] = request.getfixturevalue("new_collection")
        idx = NearDupIndex(Params(threshold=0.4), backend=SolrBackend(factory("meta")))
    stats = idx.add_many(
        [("a", "one two three"), (META_ID, "evil text here"), Record(META_ID, "more evil")]
    )
    assert (stats.indexed, stats.rejected) == (1, 2)
    assert all("reserved" in r.reason for r in stats.rejections)
    assert [r.line for r in stats.rejections] == [2, 0]
    again = NearDupIndex(backend=idx.backend)
    assert again.params.threshold == 0.4
    assert len(again) == 1


# -- 8: ids that would break outputs are refused --------------------------------------------


def test_ids_with_control_characters_are_refused_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    path.write_text(
        'id,text\n"a\tb",tab in the id\n"c\nd",newline in the id\nok id,fine text\n'
        '"e\x1b[31m",escape in the id\n"f\u202eg",bidi override in the id\n',
        encoding="utf-8",
    )
    items = list(read_records(path))
    got = [(i.line, i.reason) for i in items if isinstance(i, Rejection)]
    assert [line for line, _ in got] == [2, 3, 6, 7]
    assert [r.split(" at ")[0] for _, r in got] == [
        "id holds the control character U+0009",
        "id holds the control character U+000A",
        "id holds the control character U+001B",
        "id holds the control character U+202E",
    ]
    assert [i.id for i in items if isinstance(i, Record)] == ["ok id"]
    path = tmp_path / "ids.jsonl"
    path.write_text('{"id": "x\\u2028y", "text": "line separator"}\n', encoding="utf-8")
    (item,) = read_records(path)
    assert isinstance(item, Rejection) and "U+2028" in item.reason
    idx = NearDupIndex()
    stats = idx.add_many([("p\rq", "carriage return"), ("fine", "a fine text")])
    assert stats.rejected == 1 and "U+000D" in stats.rejections[0].reason


def test_values_with_lone_surrogates_are_rejected_with_their_position() -> None:
    """A lone surrogate has no UTF-8 form. In an id it passed the checks, was stored, and broke
    every output that wrote it (to_pandas: UnicodeEncodeError); in a text it stopped add_many
    half-way with "text 1 is not valid Unicode", the position in a batch, not the record."""
    idx = NearDupIndex()
    stats = idx.add_many(
        [("0", "a fine text here"), ("1", "bad \ud800 text"), ("\udc80", "another fine text"),
         ("3", "a fine text here too")]
    )  # fmt: skip
    assert (stats.read, stats.indexed, stats.rejected) == (4, 2, 2)
    assert [(r.line, r.reason) for r in stats.rejections] == [
        (2, "text is not valid Unicode: lone surrogate U+D800 at character 5"),
        (3, "id is not valid Unicode: lone surrogate U+DC80 at character 1"),
    ]
    assert len(idx) == 2
    assert sorted(idx.report(threshold=0.5).to_pandas()["id1"]) == ["0"]


def test_a_read_only_output_is_never_replaced(tmp_path: Path) -> None:
    """A file without a write bit was replaced when the user could rename over it: root (to
    whom os.access says yes) through the CLI, anyone whose folder is writable through the
    library's writers."""
    src = tmp_path / "in.txt"
    src.write_text("1 the quick brown fox\n2 the quick brown fax\n")
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    out.chmod(0o444)
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{out}: the output is a read-only file" in proc.stderr
    with pytest.raises(OutputError, match=f"{out}: cannot be written: a read-only file"):
        with AtomicFile(out) as fh:
            fh.write(b"new\n")
    assert out.read_text() == "old\n" and stat.S_IMODE(out.stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]


def test_a_report_with_spaces_in_ids_reads_back(tmp_path: Path) -> None:
    report = tmp_path / "pairs.tsv"
    report.write_text(
        "id1\tid2\tjaccard\tedit_distance\nacme inc\tacme  inc.\t0.9000\t1\n", encoding="utf-8"
    )
    (pair,) = read_pairs(report)
    assert set(pair) == {"acme inc", "acme  inc."}
    plain = tmp_path / "gold.txt"
    plain.write_text("1 2\n3   4\n", encoding="utf-8")
    assert read_pairs(plain) == {("1", "2"), ("3", "4")}


# -- 3, 4: collection names, data paths, cores that fail to load ----------------------------


@pytest.fixture(scope="module")
def private_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSolr]:
    """A node of its own, which these tests stop, restart and break."""
    with node_of_its_own(tmp_path_factory.mktemp("safety") / "home") as node:
        yield node


@pytest.mark.parametrize(
    "name", [".", "..", "victim/../victim", "-x", ".hidden", "a b", "a%2Fb", "", "x" * 201]
)
def test_collection_names_follow_solrs_rule(name: str) -> None:
    # "": an empty --collection (an unset shell variable) is not the default collection
    with pytest.raises(InputError, match="not a collection name"):
        Solr("http://127.0.0.1:1/solr", name)
    if name and "/" not in name and "%" not in name:
        with pytest.raises(InputError, match="not a collection name"):
            Solr(f"http://127.0.0.1:1/solr/{name}")
    assert Solr("http://127.0.0.1:1/solr", "ok.name_1-2").collection == "ok.name_1-2"
    assert Solr("http://127.0.0.1:1/solr", "x" * 200).collection == "x" * 200


def test_a_bad_collection_name_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("1 some words here\n", encoding="utf-8")
    proc = run_cli(
        "index", str(path), "--solr-url", "http://127.0.0.1:1/solr", "--collection", ".."
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "not a collection name: '..'" in proc.stderr


@pytest.mark.solr
def test_the_local_node_keeps_data_only_under_its_home(
    private_node: LocalSolr, tmp_path: Path
) -> None:
    url = with_credentials(private_node)  # past the password: Solr's own check of paths
    outside = tmp_path / "elsewhere"
    solr = Solr(url, "evil")
    with pytest.raises(SolrRequestError):
        solr.request(
            "GET",
            "admin/cores",
            params={
                "action": "CREATE",
                "name": "evil",
                "configSet": CONFIGSET_NAME,
                "dataDir": str(outside),
            },
            core=False,
            idempotent=False,
        )
    assert not outside.exists()
    assert not admin.collection_exists(solr)


@pytest.mark.solr
def test_a_core_that_fails_to_load_is_said_so_and_kept(private_node: LocalSolr) -> None:
    solr = admin.connect(with_credentials(private_node), "victim")
    NearDupIndex(Params(threshold=0.5), backend=SolrBackend(solr)).add("1", "some words")
    props = private_node.home / "standalone" / "victim" / "core.properties"
    private_node.stop()
    broken = props.read_text(encoding="utf-8") + "schema=no-such-schema.xml\n"
    props.write_text(broken, encoding="utf-8")
    url = private_node.start().url
    with pytest.raises(SolrRequestError, match="'victim' .* failed to load: .*schema"):
        admin.connect(with_credentials(private_node, url), "victim")
    # The node's URL without a user: neardup finds the password of the node of NEARDUP_HOME.
    home = {"NEARDUP_HOME": str(private_node.home.parent)}
    proc = run_cli("report", "--solr-url", f"{url}/victim", "--out", "/dev/null", env=home)
    assert proc.returncode == 1 and "failed to load" in proc.stderr, proc.stderr
    assert props.read_text(encoding="utf-8") == broken


# -- 5: stop signals only the node neardup started ------------------------------------------


def test_stop_with_a_stale_pid_signals_nothing(tmp_path: Path) -> None:
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        node = LocalSolr(tmp_path / "home")
        node.home.mkdir(parents=True)
        state = {"pid": other.pid, "urls": ["http://127.0.0.1:1/solr"], "version": "9",
                 "mode": "standalone", "log": "x"}  # fmt: skip
        node.state_file.write_text(json.dumps(state), encoding="utf-8")
        assert node.running() is None and not node.state_file.exists()
        node.state_file.write_text(json.dumps(state), encoding="utf-8")
        assert node.stop() is None
        node.state_file.write_text(json.dumps(state), encoding="utf-8")
        proc = run_cli("solr", "stop", env={"NEARDUP_HOME": str(tmp_path / "home")})
        assert proc.returncode == 0 and "no local Solr was running" in proc.stdout
        assert other.poll() is None  # never signalled
        assert not node.state_file.exists()
    finally:
        other.kill()
        other.wait()


@pytest.mark.solr
def test_a_node_whose_pid_cannot_be_seen_is_reused_and_a_dead_one_restarted(
    tmp_path: Path,
) -> None:
    """hx24 finding 3: a neardup in another PID namespace (a container, 'unshare') sharing
    NEARDUP_HOME could not see the node's pid, took node.json for stale, deleted it and
    started a second JVM on the same home (every core locked, the first node orphaned). The
    node's pid here is made one no process has, as it is there; the flock its JVM holds still
    says it lives, so it is reused; once killed -9, it is stale and a new one starts."""
    with node_of_its_own(tmp_path / "home") as node:
        first = node.running()
        assert first is not None
        gone = subprocess.Popen(["true"])
        gone.wait()  # its pid is no process's now
        unseen = {**json.loads(node.state_file.read_text(encoding="utf-8")), "pid": gone.pid}
        node.state_file.write_text(json.dumps(unseen), encoding="utf-8")
        try:
            assert node.running() == LocalSolr(node.home.parent).start()
            assert node.running().url == first.url and node.state_file.exists()
            with pytest.raises(SolrUnavailable, match="cannot see .* PID namespace"):
                node.stop()  # it cannot be signalled from here: said, and node.json kept
            assert node.state().pid == gone.pid
        finally:
            os.kill(first.pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        # Solr stops answering before the kernel has reaped the JVM and dropped its flock:
        # running() is None then and node.json is kept (the lock says it lives); wait for both
        while (node.running() is not None or node.state_file.exists()) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.2)  # the kernel drops the flock once the JVM is gone
        assert node.running() is None and not node.state_file.exists()
        again = node.start()
        assert again.pid != first.pid and node.running() == again


# -- 6, 12: outputs checked first, written whole, never replacing what is not a file ---------

RECORDS = (
    "1 the quick brown fox jumps over the lazy dog\n"
    "2 the quick brown fox jumps over the lazy cat\n"
)


def dedupe_memory(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "in.txt"
    # Line 4 is rejected (an id with a control character); an empty text would be written as
    # it is (issue 27), so it would not show the rejects file.
    src.write_text(RECORDS + "3 a record with nothing in common\nx\x01y text\n", encoding="utf-8")
    return run_cli("dedupe", str(src), "--backend", "memory", "--threshold", "0.5", *args)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_dedupe_writes_through_a_fifo_and_never_replaces_it(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = dedupe_memory(tmp_path, "--out", str(fifo))
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO, not a regular file
    assert got == [b"1 the quick brown fox jumps over the lazy dog\n"
                   b"3 a record with nothing in common\n"
                   b"x\x01y text\n"]  # the line rejected, written through  # fmt: skip
    assert leftovers(tmp_path) == []


def test_dedupe_writes_through_a_pipe_named_by_dev_fd(tmp_path: Path) -> None:
    """``--out /dev/stdout`` on a pipe, or ``--out >(gzip > x.gz)`` (/dev/fd/63): the path
    resolves to /proc/self/fd/pipe:[...], the name of no file, and the run was refused with
    "cannot be written (permission denied)". The pipe is written through, as a FIFO is."""
    proc = dedupe_memory(tmp_path, "--out", "/dev/stdout")  # run_cli's stdout is a pipe
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1 the quick brown fox jumps over the lazy dog\n"
                                  "3 a record with nothing in common\n"
                                  "x\x01y text\n")  # fmt: skip
    assert leftovers(tmp_path) == []


def test_an_output_name_near_the_longest_a_folder_takes(tmp_path: Path) -> None:
    """A 250-byte name is a name: its temporary file (``.NAME.PID.RANDOM.tmp``) was longer than
    255 bytes, and the run failed at the end with "File name too long"."""
    out = tmp_path / ("é" * 123 + ".txt")  # 250 bytes of UTF-8
    proc = dedupe_memory(tmp_path, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8").startswith("1 the quick brown fox")
    assert leftovers(tmp_path) == []


def test_a_name_longer_than_a_folder_takes_is_bad_usage(tmp_path: Path) -> None:
    """A name over the limit, as an output or as the input, ended in an OSError traceback (from
    ``Path.exists()``): it is bad usage, said in one line."""
    out, too_long = tmp_path / "out.txt", tmp_path / ("o" * 260 + ".txt")
    for args in (("--out", str(too_long)), ("--out", str(out), "--rejects", str(too_long))):
        proc = dedupe_memory(tmp_path, *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert f"neardup: error: {too_long}: File name too long" in proc.stderr
    proc = run_cli("dedupe", str(too_long), "--out", str(out), "--backend", "memory")
    assert proc.returncode == 2 and "File name too long" in proc.stderr, proc.stderr


def test_a_link_to_a_missing_folder_names_that_folder(tmp_path: Path) -> None:
    """An output that is a symbolic link into a folder that does not exist was refused with
    "no such directory '.'", the folder of the link, which is there."""
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "gone" / "out.txt")
    proc = dedupe_memory(tmp_path, "--out", str(link))
    assert proc.returncode == 2, proc.stderr
    assert f"{link}: no such directory '{tmp_path / 'gone'}'" in proc.stderr


def test_dedupe_follows_a_symlink_and_keeps_it(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n", encoding="utf-8")
    link, rejects = tmp_path / "link.txt", tmp_path / "rejects-link.txt"
    link.symlink_to(real)
    rejects.symlink_to(tmp_path / "rejects.txt")  # dangling: the file it names is made
    proc = dedupe_memory(tmp_path, "--out", str(link), "--rejects", str(rejects))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and rejects.is_symlink()
    assert real.read_text(encoding="utf-8").startswith("1 the quick")
    assert (tmp_path / "rejects.txt").read_bytes() == b"x\x01y text\n"  # the line rejected
    assert "in.txt:4: id holds the control character" in proc.stderr
    assert leftovers(tmp_path) == []


def test_a_write_that_fails_is_an_error_and_leaves_nothing() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    before = os.stat("/dev/full")
    with pytest.raises(OutputError, match="/dev/full: cannot be written"):
        with AtomicFile("/dev/full") as fh:
            fh.write(b"x" * 100_000)
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@pytest.mark.parametrize("verb", ["dedupe", "report", "review"])
def test_output_paths_are_checked_before_any_work(verb: str, tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text(RECORDS, encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder\n", encoding="utf-8")
    dead = ["--solr-url", "http://127.0.0.1:9/solr/x"]  # nothing answers: work would fail
    cases = {
        "dedupe": [
            ["dedupe", str(src), "--out", str(tmp_path)],
            ["dedupe", str(src), "--out", str(tmp_path / "ok.txt"), "--rejects",
             str(blocker / "r.txt")],
            ["dedupe", str(src), "--out", str(tmp_path / "ok.txt"), "--review",
             str(tmp_path / "nodir" / "p.html")],
        ],
        "report": [
            ["report", "--out", str(blocker / "pairs.tsv")],
            ["report", "--out", str(tmp_path / "pairs.tsv"), "--clusters", str(tmp_path)],
        ],
        "review": [["review", str(src), "--out", str(tmp_path / "nodir" / "p.html")]],
    }  # fmt: skip
    for args in cases[verb]:
        proc = run_cli(*args, *(dead if args[0] != "evaluate" else []))
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "127.0.0.1:9" not in proc.stderr, proc.stderr
        assert "is a directory" in proc.stderr or "no such directory" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "in.txt"]


# -- 13: an unclosed quote is named with its line and what it took ----------------------------


def test_an_unclosed_csv_quote_says_where_and_how_much(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('id,text\n1,ok\n2,"open\n3,fine\n4,fine\n', encoding="utf-8")
    items = list(read_records(path))
    assert [i.id for i in items if isinstance(i, Record)] == ["1"]
    (bad,) = [i for i in items if isinstance(i, Rejection)]
    assert bad.line == 3 and "unclosed quote" in bad.reason and "lines 3-5 (3 lines)" in bad.reason
    path.write_text('id,text\n1,"open\n2,fine\n3,"x" y\n4,z\n', encoding="utf-8")
    items = list(read_records(path))
    (bad,) = [i for i in items if isinstance(i, Rejection)]
    assert bad.line == 2 and "a quoted field ran over lines 2-4, all rejected" in bad.reason
    assert [i.id for i in items if isinstance(i, Record)] == ["4"]


def test_a_quote_closed_by_a_later_stray_quote_does_not_swallow_rows_unseen(
    tmp_path: Path,
) -> None:
    """The quote opened on line 3 is closed by the stray one on line 5: the csv module reads
    lines 3-5 as one row of two cells, the rows 3 and 4 inside its text."""
    path = tmp_path / "q.csv"
    path.write_text('id,text\n1,ok\n2,"open\n3,fine\n4,fine"\n5,last\n', encoding="utf-8")
    items = list(read_records(path))
    assert [i.id for i in items if isinstance(i, Record)] == ["1", "5"]
    (bad,) = [i for i in items if isinstance(i, Rejection)]
    assert bad.line == 3 and "lines 3-5" in bad.reason and "2 lines that read as rows" in bad.reason
    # A quoted field over several lines that are not rows (an address) is a record as before.
    path.write_text('id,text\n1,"12 Main St\nSpringfield, IL"\n2,"a, b\nc"\n', encoding="utf-8")
    got = [(i.id, i.text) for i in read_records(path) if isinstance(i, Record)]
    assert got == [("1", "12 Main St\nSpringfield, IL"), ("2", "a, b\nc")]


# -- 14: odd arguments and odd files ---------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), "0.5", True])
def test_neighbors_and_search_check_the_threshold(bad: object) -> None:
    idx = NearDupIndex(Params(threshold=0.5))
    idx.add_many([("1", "one two three four"), ("2", "one two three five")])
    with pytest.raises(ArgumentError, match="threshold"):
        idx.neighbors("1", threshold=bad)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="threshold"):
        idx.query("one two three", threshold=bad)  # type: ignore[arg-type]


@pytest.mark.solr
def test_the_cli_checks_the_threshold_of_neighbors_and_search(solr_base: str) -> None:
    for args in (["neighbors", "1"], ["search", "some text"]):
        proc = run_cli(*args, "--threshold", "7", "--solr-url", f"{solr_base}/no_such_coll_x")
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "--threshold must be a number in [0, 1], got 7.0" in proc.stderr


def test_a_5000_digit_id(tmp_path: Path) -> None:
    big = "9" * 5000
    path = tmp_path / "big.jsonl"
    path.write_text(
        f'{{"id": {big}, "text": "one two"}}\n{{"id": "1", "text": "three four"}}\n',
        encoding="utf-8",
    )
    (bad, good) = read_records(path)
    assert isinstance(bad, Rejection) and bad.line == 1 and "invalid JSON" in bad.reason
    assert isinstance(good, Record)
    idx = NearDupIndex(Params(threshold=0.5))
    long = big[:500]  # ids given as values have the readers' limit too: 512 bytes
    idx.add_many([(long, "one two three four"), (long[:-1] + "8", "one two three four")])
    (pair,) = idx.pairs()
    assert (pair.id1, pair.id2) == (long[:-1] + "8", long)


def test_dedupe_of_a_pipe_says_why(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", "dedupe", "/dev/stdin", "--backend", "memory",
         "--out", str(tmp_path / "out.txt")],
        input="1 one two three\n2 one two three\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "not a regular file; dedupe reads its input twice" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_cr_only_line_endings_are_refused_as_a_whole(tmp_path: Path) -> None:
    path = tmp_path / "mac.txt"
    path.write_bytes(b"1 one two three\r2 four five six\r")
    with pytest.raises(InputError, match="carriage return alone"):
        list(read_records(path))
    path.write_bytes(b"1 one two three\r\n2 four five six\r\n")  # Windows: repaired
    assert [i.id for i in read_records(path)] == ["1", "2"]  # type: ignore[union-attr]


def test_a_byte_order_mark_inside_a_file(tmp_path: Path) -> None:
    path = tmp_path / "joined.txt"
    path.write_bytes(b"\xef\xbb\xbf1 one two\n\xef\xbb\xbf2 three four\n5\xef\xbb\xbf six seven\n")
    items = list(read_records(path))
    assert [i.id for i in items if isinstance(i, Record)] == ["1", "2"]
    (bad,) = [i for i in items if isinstance(i, Rejection)]
    assert bad.line == 3 and "U+FEFF" in bad.reason


def test_json_nan_is_not_a_text(tmp_path: Path) -> None:
    path = tmp_path / "nan.jsonl"
    path.write_text(
        '{"id": "1", "text": NaN}\n{"id": "2", "text": Infinity}\n{"id": "3", "text": "ok"}\n',
        encoding="utf-8",
    )
    items = list(read_records(path))
    assert [(i.line, i.reason) for i in items if isinstance(i, Rejection)] == [
        (1, "invalid JSON: NaN is not a JSON value"),
        (2, "invalid JSON: Infinity is not a JSON value"),
    ]


# -- 15: what a record hides is shown on the review page -------------------------------------


def test_bidi_controls_are_visible_on_the_review_page(tmp_path: Path) -> None:
    from neardup.out.review import review_index

    idx = NearDupIndex(Params(threshold=0.3))
    spoof = "invoice for acme payment \u202eexe.txt\u202c due today"
    idx.add_many([("1", "invoice for acme payment txt.exe due today"), ("2", spoof)])
    page = review_index(idx, tmp_path / "review.html", title="run \u2067x\u2069")
    text = page.path.read_text(encoding="utf-8")
    assert page.pairs == 1
    for hidden in "\u202e\u202c\u2067\u2069":
        assert hidden not in text
    assert "[U+202E]exe.txt[U+202C]" in text and "run [U+2067]x[U+2069]" in text


# -- 10: the node and its secrets --------------------------------------------------------------


def solr_processes(home: Path) -> list[int]:
    """Pids of neardup launchers whose command line names ``home``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if "neardup.solr.Launcher" in args and str(home) in args:
            found.append(int(entry.name))
    return found


def wait_for(what: Callable[[], object], deadline: float = 180.0) -> object:
    """``what()`` once it is true, polled; fails the test if it never is."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.2)
    pytest.fail("waited in vain")


@pytest.mark.solr
def test_ctrl_c_during_solr_start_leaves_no_orphan(tmp_path: Path) -> None:
    """Ctrl-C while ``neardup solr start`` waits for the JVM it spawned: exit 130, no JVM
    left. The interrupt is sent once the JVM is seen; on a busy machine the start may already
    have finished by then (it said where the node runs): that try proves nothing, so the node
    is stopped and the start tried again, up to three times."""
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to find the JVM")
    for attempt in range(3):
        home = tmp_path / f"home{attempt}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "neardup", "solr", "start"],
            env={**os.environ, "NEARDUP_HOME": str(home)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # as at a terminal: a run started in the background without job control (nohup
            # ... &) ignores SIGINT, and its children inherit that, so no interrupt would come
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            # the JVM runs; node.json not yet
            wait_for(lambda home=home: solr_processes(home.resolve()))
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=120)
            if proc.returncode == 0 and "running at" in out + err:
                continue  # too late: the start was over (the finally stops its JVM)
            assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
            assert solr_processes(home.resolve()) == []
            assert LocalSolr(home).running() is None
            return
        finally:
            for pid in solr_processes(home.resolve()):
                os.kill(pid, signal.SIGKILL)
            proc.kill()
    pytest.fail("each of three starts was over before its interrupt arrived")


@pytest.mark.solr
def test_ctrl_c_as_the_jvm_is_spawned_leaves_no_orphan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The narrowest window: Ctrl-C after the JVM exists, before ``Popen`` has returned."""
    if not Path("/proc").is_dir():
        pytest.skip("needs /proc to find the JVM")
    from neardup.solr import local

    real = subprocess.Popen

    def popen_then_ctrl_c(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        proc = real(*args, **kwargs)  # type: ignore[call-overload]
        if "neardup.solr.Launcher" in args[0]:  # type: ignore[operator]
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)  # the signal is handled here, inside "Popen"
        return proc

    monkeypatch.setattr(local.subprocess, "Popen", popen_then_ctrl_c)
    home = tmp_path / "home"
    try:
        with pytest.raises(KeyboardInterrupt):
            LocalSolr(home).start()
        assert solr_processes(home.resolve()) == []
        assert LocalSolr(home).running() is None
    finally:
        for pid in solr_processes(home.resolve()):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("password", ["p/w", "p#w", "p?w", "a/b#c?d@e:f"])
def test_passwords_with_url_characters(password: str, tmp_path: Path) -> None:
    url = f"http://alice:{password}@127.0.0.1:9/solr/coll"
    solr = Solr(url)
    assert (solr.base_url, solr.collection) == ("http://127.0.0.1:9/solr", "coll")
    assert solr.session.auth == ("alice", password)
    path = tmp_path / "r.txt"
    path.write_text("1 one two three\n", encoding="utf-8")
    proc = run_cli("index", str(path), env={"NEARDUP_SOLR_URL": url})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "127.0.0.1:9" in proc.stderr
    assert password not in proc.stderr and password.split("/")[-1] not in proc.stderr


def test_a_password_flag_is_warned_about(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("1 one two three\n", encoding="utf-8")
    proc = run_cli("index", str(path), "--solr-url", "http://127.0.0.1:9/solr/c",
                   "--solr-user", "alice", "--solr-password", "s3cret-pw")  # fmt: skip
    assert proc.returncode == 1
    assert "--solr-password is visible to other users" in proc.stderr
    assert "s3cret-pw" not in proc.stderr


@pytest.mark.parametrize("port", ["99999", "-1", "0", "http"])
def test_a_bad_port_is_a_usage_error(port: str, tmp_path: Path) -> None:
    proc = run_cli("solr", "start", "--port", port, env={"NEARDUP_HOME": str(tmp_path)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "a port number from 1 to 65535" in proc.stderr
    with pytest.raises(InputError, match="port"):
        LocalSolr(tmp_path).start(port=70000)


# -- 11: temporary collections: removed on SIGTERM as on Ctrl-C, and a command for leftovers ----


def temp_collections(solr_base: str, pid: int) -> list[str]:
    server = Solr(solr_base)
    return [c for c in admin.collections(server) if c.startswith(f"neardup_tmp_{pid}_")]


def review_from_a_fifo(solr_base: str, tmp_path: Path) -> tuple[subprocess.Popen[str], Any]:
    """``neardup review`` of a FIFO into a temporary collection, stopped while it reads (the
    FIFO is held open): the process, and the writing end to close afterwards."""
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup", "review", str(fifo), "--out",
         str(tmp_path / "page.html")],
        env={**os.environ, "NEARDUP_SOLR_URL": solr_base},
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        writer = open(fifo, "w", encoding="utf-8")  # noqa: SIM115 - once the reader opens
        writer.write("1 one two three four\n")
        writer.flush()
        wait_for(lambda: temp_collections(solr_base, proc.pid))
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, writer


def _stop(proc: subprocess.Popen[str], writer: Any, kill: bool = False) -> str:
    """Stop a run blocked on its FIFO by SIGTERM (or SIGKILL: no clean-up can run), then
    close the FIFO's writing end: the run's standard error."""
    try:
        if kill:
            proc.kill()
            proc.wait(60)
            return ""
        proc.send_signal(signal.SIGTERM)
        return proc.communicate(timeout=120)[1]
    finally:
        proc.kill()
        with contextlib.suppress(OSError):
            writer.close()


@pytest.mark.solr
def test_sigterm_removes_the_temporary_collection(solr_base: str, tmp_path: Path) -> None:
    proc, writer = review_from_a_fifo(solr_base, tmp_path)
    err = _stop(proc, writer)
    assert proc.returncode == 143 and "terminated" in err and "Traceback" not in err, err
    assert temp_collections(solr_base, proc.pid) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fifo"]


@pytest.mark.solr
def test_clean_removes_what_a_killed_run_left(solr_base: str, tmp_path: Path) -> None:
    proc, writer = review_from_a_fifo(solr_base, tmp_path)
    _stop(proc, writer, kill=True)
    (left,) = temp_collections(solr_base, proc.pid)
    env = {"NEARDUP_SOLR_URL": solr_base}
    dry = run_cli("clean", "--dry-run", "--json", env=env)
    assert dry.returncode == 0, dry.stderr
    assert left in json.loads(dry.stdout)["leftover"]
    assert temp_collections(solr_base, proc.pid) == [left]
    done = run_cli("clean", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert left in json.loads(done.stdout)["removed"]
    assert temp_collections(solr_base, proc.pid) == []


@pytest.mark.solr
def test_clean_leaves_the_collections_of_other_hosts_unless_older_than_asked(
    solr_base: str,
) -> None:
    """hx24 finding 2: clean removed a temporary collection whenever its pid did not run on
    this machine, so a dedupe running on another machine or in a container (a Solr shared by
    NEARDUP_SOLR_URL) lost its collection under it. Another host's collection, and one named
    by an older neardup (no host), are left alone and listed; --older-than removes them once
    they are older, and never a newer one."""
    now, day, other = int(time.time()), 86400, "0123456789"  # not this host's (checked below)
    names = {"new": f"neardup_tmp_999999999_{now}_{other}",  # no such pid here, nor needed
             "old": f"neardup_tmp_999999999_{now - 2 * day}_{other}",
             "legacy": f"neardup_tmp_999999999_{now - 2 * day}"}  # fmt: skip
    server = Solr(solr_base)
    for name in names.values():
        admin.create_collection(server.clone(name), configset_dir())
    env = {"NEARDUP_SOLR_URL": solr_base}
    try:
        kept = run_cli("clean", "--json", env=env)
        assert kept.returncode == 0, kept.stderr
        said = json.loads(kept.stdout)
        assert not set(names.values()) & set(said["removed"])
        assert set(names.values()) <= set(said["elsewhere"])
        assert set(names.values()) <= set(admin.collections(server))
        text = run_cli("clean", "--dry-run", env=env).stdout
        assert "of another host (or of an older neardup) left alone" in text, text
        done = run_cli("clean", "--json", "--older-than", "1d", env=env)
        assert done.returncode == 0, done.stderr
        removed = set(json.loads(done.stdout)["removed"])
        assert {names["old"], names["legacy"]} <= removed and names["new"] not in removed
        assert names["new"] in admin.collections(server)
        bad = run_cli("clean", "--older-than", "24", env=env)
        assert bad.returncode == 2 and "such as 90m, 24h or 7d" in bad.stderr, bad.stderr
        from neardup.cli.dedupe_review import host_tag, temporary_collection

        assert re.fullmatch(r"[0-9a-f]{10}", host_tag()) and host_tag() != other
        assert temporary_collection().endswith(f"_{host_tag()}")
    finally:
        for name in names.values():
            with contextlib.suppress(NeardupError):
                admin.delete_collection(server.clone(name))


def review_into_duckdb(tmp_path: Path) -> tuple[subprocess.Popen[str], Any, Path, Path]:
    """``neardup review --backend duckdb`` of a FIFO, stopped while it reads, with its own
    temporary folder: the process, the writing end, that temporary folder and the DuckDB
    folder the run made in it."""
    fifo, tmp = tmp_path / "in.fifo", tmp_path / "tmp"
    tmp.mkdir()
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup", "review", str(fifo), "--backend", "duckdb", "--out",
         str(tmp_path / "page.html")],
        env={**os.environ, "TMPDIR": str(tmp)}, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        writer = open(fifo, "w", encoding="utf-8")  # noqa: SIM115 - once the reader opens
        writer.write("1 one two three four\n")
        writer.flush()
        made = wait_for(lambda: list(tmp.glob(f"neardup-duckdb-{proc.pid}-*")))
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, writer, tmp, made[0]  # type: ignore[index]


def test_sigterm_removes_the_temporary_duckdb_folder(tmp_path: Path) -> None:
    proc, writer, tmp, folder = review_into_duckdb(tmp_path)
    err = _stop(proc, writer)
    assert proc.returncode == 143 and "terminated" in err and "Traceback" not in err, err
    assert not folder.exists() and list(tmp.iterdir()) == []


@pytest.mark.solr
def test_clean_removes_the_duckdb_folder_a_killed_run_left(solr_base: str, tmp_path: Path) -> None:
    proc, writer, tmp, folder = review_into_duckdb(tmp_path)
    _stop(proc, writer, kill=True)
    assert folder.is_dir()
    running = tmp / f"neardup-duckdb-{os.getpid()}-abc"  # this test's own process runs
    running.mkdir()
    env = {"NEARDUP_SOLR_URL": solr_base, "TMPDIR": str(tmp)}
    dry = run_cli("clean", "--dry-run", "--json", env=env)
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["folders"]["leftover"] == [str(folder)] and folder.is_dir()
    done = run_cli("clean", env=env)
    assert done.returncode == 0, done.stderr
    assert f"removed 1 temporary DuckDB folder(s): {folder}" in done.stdout
    assert not folder.exists() and running.is_dir()


def test_clean_without_solr_removes_duckdb_folders_and_starts_no_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user without Java who cleans what a killed ``--backend duckdb`` run left: no Solr is
    given and the local node (a home of its own here) neither runs nor holds a temporary
    collection, so none is started (it was, and Java was fetched for nothing)."""
    tmp, home = tmp_path / "tmp", tmp_path / "home"
    tmp.mkdir()
    left = tmp / "neardup-duckdb-999999999-abc"  # no such process
    left.mkdir()
    env = {"NEARDUP_SOLR_URL": "", "NEARDUP_HOME": str(home), "TMPDIR": str(tmp)}
    done = run_cli("clean", "--json", env=env)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["solr"] is None and said["folders"]["removed"] == [str(left)]
    assert not left.exists() and not home.exists()  # the node was never prepared, nor started
    # a temporary collection's core on the stopped node's disk: then Solr is looked at
    from neardup.cli.dedupe_review import _solr_to_clean

    (home / "solr" / "standalone" / "neardup_tmp_1_2").mkdir(parents=True)
    args = argparse.Namespace(solr_url=None, solr_user=None, solr_password=None,
                              solr_password_file=None, solr_heap=None, solr_ca=None)  # fmt: skip
    monkeypatch.setenv("NEARDUP_HOME", str(home))
    monkeypatch.delenv("NEARDUP_SOLR_URL", raising=False)
    assert _solr_to_clean(args)


# -- 7: two first-time writers store one parameter set ------------------------------------------

SHORT = [(f"s{i}", f"acme {i} main st") for i in range(30)]
LONG = [(f"l{i}", " ".join(f"word{(i * 7 + k) % 97}" for k in range(120))) for i in range(30)]


@pytest.mark.parametrize("kind", ["memory", pytest.param("solr", marks=pytest.mark.solr)])
def test_two_first_writers_store_one_parameter_set(
    kind: str, request: pytest.FixtureRequest
) -> None:
    if kind == "memory":
        from neardup.backends.memory import MemoryBackend

        one = two = MemoryBackend()
    else:
        factory: Callable[[str], Solr] = request.getfixturevalue("new_collection")
        solr = factory("race")
        one, two = SolrBackend(solr), SolrBackend(solr.clone())
    first, second = NearDupIndex(backend=one), NearDupIndex(backend=two)  # both see none
    first.add_many(SHORT)
    second.add_many(LONG)  # its data would choose others: it uses the stored ones
    assert first.params == second.params
    assert Params.from_dict(one.load_params() or {}) == first.params
    assert len(first) == 60
    with pytest.raises(ParameterMismatch):
        NearDupIndex(Params(threshold=0.91), backend=two)
    assert two.store_params({"threshold": 0.1}) == one.load_params()  # never overwritten


@pytest.mark.solr
def test_sigterm_while_the_temporary_collection_is_opened(
    solr_base: str, tmp_path: Path
) -> None:
    src = tmp_path / "in.txt"
    src.write_text(RECORDS, encoding="utf-8")
    fault = Fault("/schema", action="sleep", sleep=60.0, times=1)  # made, not yet checked
    with FaultProxy(solr_base, [fault]) as proxy:
        proc = subprocess.Popen(
            [sys.executable, "-m", "neardup", "dedupe", str(src), "--out",
             str(tmp_path / "out.txt"), "--solr-url", proxy.url],
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_for(lambda: fault.injected or proc.poll() is not None)
            assert fault.injected == 1, proc.stderr
            assert temp_collections(solr_base, proc.pid)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=120)
        finally:
            proc.kill()
    assert proc.returncode == 143 and "Traceback" not in err, err
    assert temp_collections(solr_base, proc.pid) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


def test_out_of_memory_is_an_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A step that cannot get its memory ends the command with exit code 1 and one line that
    names the verb; the output is not left half-written."""
    from neardup.cli.main import main as cli_main

    src = tmp_path / "in.txt"
    src.write_text("1 the old mill road\n2 the old mill road\n3 a new text\n", encoding="utf-8")
    out = tmp_path / "out.txt"

    def no_memory(*_args: Any, **_kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(NearDupIndex, "report", no_memory)
    code = cli_main(["dedupe", str(src), "--backend", "memory", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert "neardup: error: out of memory during 'dedupe'" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


# -- issue 41, 1-4: outputs replaced whole, together, with their mode, never two on one file --

#: What an output file's size may be in the child processes that simulate a full disk: writes
#: past it fail with EFBIG (as on a full disk, ENOSPC), for every file the child writes.
FULL_AT = 300


def run_full(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``neardup ARGS`` in a child process whose files cannot grow past :data:`FULL_AT` bytes
    (RLIMIT_FSIZE: portable, no mount needed, and the write fails the way a full disk does)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_AT, FULL_AT))

    from .conftest import REPO

    return subprocess.run(
        [sys.executable, "-m", "neardup", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
        cwd=str(REPO),
        preexec_fn=limit,
    )


def similar_records(pairs: int) -> str:
    """``ID TEXT`` lines: ``pairs`` pairs of near-duplicates, long enough that any output of
    them is larger than :data:`FULL_AT`."""
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()
    lines = []
    for n in range(pairs):
        text = " ".join(f"{w}{n}" for w in words)
        lines += [f"a{n} {text} mike", f"b{n} {text} november"]
    return "\n".join(lines) + "\n"


def assert_kept(proc: subprocess.CompletedProcess[str], folder: Path, old: dict[str, bytes],
                failed: str) -> None:
    """The run failed on ``failed`` with exit 1 and a message naming it, every output kept its
    old bytes, and no temporary file is left."""
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert f"{failed}: cannot be written" in proc.stderr, proc.stderr
    for name, data in old.items():
        assert (folder / name).read_bytes() == data, name
    assert leftovers(folder) == []


@pytest.fixture(scope="module")
def pairs_collection(solr_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a collection of 80 pairs of near-duplicates, for the report's outputs."""
    from neardup.solr.admin import connect

    src = tmp_path_factory.mktemp("full") / "in.txt"
    src.write_text(similar_records(80), encoding="utf-8")
    url = f"{solr_base}/test_safety_full_{os.getpid()}"
    proc = run_cli("index", str(src), "--threshold", "0.5", env={"NEARDUP_SOLR_URL": url})
    assert proc.returncode == 0, proc.stderr
    yield url
    with contextlib.suppress(Exception):
        admin.delete_collection(connect(solr_base, url.rsplit("/", 1)[1]))


@pytest.mark.solr
def test_report_outputs_on_a_full_disk_keep_the_old_files(
    pairs_collection: str, tmp_path: Path
) -> None:
    """Every format of the report's tables (issue 41, 1), and its pairs with its clusters
    (issue 41, 3): the old files kept byte for byte, no temporary file left, the error names
    the file, exit 1, no traceback."""
    env = {"NEARDUP_SOLR_URL": pairs_collection}
    cases = [
        ["--out", "pairs.tsv"],
        ["--out", "pairs.csv"],
        ["--out", "pairs.jsonl"],
        ["--out", "pairs.parquet"],
        ["--out", "pairs.txt", "--format", "tsv"],
        ["--out", "pairs.jsonl", "--clusters", "clusters.tsv"],
    ]
    for case in cases:
        names = [a for a in case[1::2] if a != "tsv"]
        old = {name: f"old {name}\n".encode() for name in names}
        for name, data in old.items():
            (tmp_path / name).write_bytes(data)
        args = [str(tmp_path / a) if a in old else a for a in case]
        proc = run_full("report", *args, "--quiet", env=env)
        assert_kept(proc, tmp_path, old, str(tmp_path / names[0]))
    # the same two outputs, the clusters on /dev/full (written through, and failing)
    if Path("/dev/full").exists():
        old = {"p.tsv": b"old pairs\n"}
        (tmp_path / "p.tsv").write_bytes(old["p.tsv"])
        proc = run_cli("report", "--out", str(tmp_path / "p.tsv"), "--clusters", "/dev/full",
                       "--quiet", env=env)  # fmt: skip
        assert_kept(proc, tmp_path, old, "/dev/full")


@pytest.mark.parametrize(
    "fmt", ["tsv", "csv", "jsonl", pytest.param("parquet", id="parquet"), "html"]
)
def test_dedupe_outputs_on_a_full_disk_keep_the_old_files(fmt: str, tmp_path: Path) -> None:
    """dedupe writes each input format in its own, and html is its review page: on a full
    disk, every old output is kept, with the output and the page replaced together or not at
    all (issue 41, 1 and 3)."""
    text = similar_records(40)
    if fmt == "html":
        src, out, page = tmp_path / "in.txt", "out.txt", "page.html"
        src.write_text(text[:FULL_AT // 2].rsplit("\n", 1)[0] + "\n", encoding="utf-8")
    else:
        rows = [line.split(" ", 1) for line in text.splitlines()]
        src, out, page = tmp_path / f"in.{fmt}", f"out.{fmt}", None
        if fmt == "parquet":
            pa = pytest.importorskip("pyarrow")
            import pyarrow.parquet as pq

            table = pa.table({"id": [r[0] for r in rows], "text": [r[1] for r in rows]})
            pq.write_table(table, src)
        elif fmt == "jsonl":
            src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows))
        else:
            sep = "\t" if fmt == "tsv" else ","
            src.write_text("id" + sep + "text\n" + "".join(f"{i}{sep}{t}\n" for i, t in rows))
    names = [out] + ([page] if page else [])
    old = {name: f"old {name}\n".encode() for name in names}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)
    args = ["--out", str(tmp_path / out)] + (["--review", str(tmp_path / page)] if page else [])
    proc = run_full("dedupe", str(src), "--backend", "memory", "--threshold", "0.5", "--quiet",
                    *args)  # fmt: skip
    assert_kept(proc, tmp_path, old, str(tmp_path / names[-1]))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([src.name, *names])


def test_the_output_and_the_page_are_replaced_together(tmp_path: Path) -> None:
    """The page cannot be written (/dev/full): the output, complete, is not put in place
    either (issue 41, 3)."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    out = tmp_path / "out.txt"
    out.write_bytes(b"old\n")
    proc = dedupe_memory(tmp_path, "--out", str(out), "--review", "/dev/full")
    assert_kept(proc, tmp_path, {"out.txt": b"old\n"}, "/dev/full")


def test_a_replaced_output_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path: Path) -> None:
    """issue 41, 4: a 0600 output stays 0600; a new one is 0666 less the umask, as open()."""
    out, rejects = tmp_path / "out.txt", tmp_path / "rejects.txt"
    out.write_bytes(b"old\n")
    out.chmod(0o600)
    src = tmp_path / "in.txt"
    src.write_text(RECORDS + "x\x01y text\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", "dedupe", str(src), "--backend", "memory", "--out",
         str(out), "--rejects", str(rejects), "--quiet"],
        capture_output=True, text=True, preexec_fn=lambda: os.umask(0o027),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes().startswith(b"1 the quick")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert stat.S_IMODE(rejects.stat().st_mode) == 0o640  # new: 0666 & ~027


def two_outputs_cases(tmp_path: Path) -> list[list[str]]:
    src = tmp_path / "in.txt"
    src.write_text(RECORDS, encoding="utf-8")
    x = tmp_path / "x"
    x.write_text("1 2\n", encoding="utf-8")  # a file of pairs, for evaluate
    (tmp_path / "link").symlink_to(x)
    os.link(src, tmp_path / "hard.txt")  # another name of the input
    dot = str(tmp_path / "." / "x")
    d = ["dedupe", str(src)]
    return [
        [*d, "--out", str(x), "--review", str(x)],
        [*d, "--out", str(x), "--rejects", dot],
        [*d, "--out", str(x), "--rejects", str(tmp_path / "link")],
        [*d, "--out", str(tmp_path / "o"), "--review", str(x), "--rejects", str(x)],
        [*d, "--out", str(tmp_path / "hard.txt")],
        ["review", str(src), "--out", str(tmp_path / "hard.txt")],
        ["report", "--out", str(x), "--clusters", str(x)],
        ["report", "--out", str(x), "--dropped", dot],
        ["report", "--out", str(tmp_path / "p"), "--clusters", str(tmp_path / "link"),
         "--dropped", str(x)],
        ["evaluate", str(x), "--gold", str(src), "--html", dot],
        ["evaluate", str(x), "--gold", str(src), "--html", str(tmp_path / "hard.txt")],
    ]  # fmt: skip


def test_two_outputs_on_one_file_are_refused_before_any_work(tmp_path: Path) -> None:
    """issue 41, 2: however the file is spelled (``./x``, a symbolic link, a hard link of the
    input), exit 2 before Solr is asked, and nothing written."""
    dead = ["--solr-url", "http://127.0.0.1:9/solr/x"]  # nothing answers: work would fail
    for args in two_outputs_cases(tmp_path):
        before = sorted(p.name for p in tmp_path.iterdir())
        proc = run_cli(*args, *(dead if args[0] != "evaluate" else []))
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "127.0.0.1:9" not in proc.stderr, proc.stderr
        assert "the same file" in proc.stderr or "overwrite the input" in proc.stderr, args
        if args[0] == "evaluate" and "overwrite" in proc.stderr:  # its page is no review page
            assert "the evaluation page would" in proc.stderr, proc.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == before


# -- issue 41, 6: sources that cannot break the pairs file or the terminal ---------------------


def test_a_source_with_a_control_character_is_rejected_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "in.csv"
    path.write_text(
        'id,text,src\n1,one two three,"shop\tA"\n2,one two three,shop B\n'
        '3,one two three,"shop\nC"\n4,one two four,"x\u202ey"\n',
        encoding="utf-8",
    )
    items = list(read_records(path, source_field="src"))
    got = [(i.line, i.reason.split(" at ")[0]) for i in items if isinstance(i, Rejection)]
    assert got == [
        (2, "source holds the control character U+0009"),
        (4, "source holds the control character U+000A"),
        (6, "source holds the control character U+202E"),
    ]
    assert [i.source for i in items if isinstance(i, Record)] == ["shop B"]


def test_the_pairs_file_stays_one_line_per_pair_whatever_the_sources(tmp_path: Path) -> None:
    """Sources that reached an index before they were checked are written escaped: one line a
    pair, seven cells, and read back as the pairs they are."""
    from neardup.out.write import write_pairs
    from neardup.results import Pair

    pairs = [
        Pair("1", "2", 0.9, 1, source1="a\tb.csv", source2="c\nd.csv"),
        Pair("3", "4", 0.8, 2, source1="e\u202e.csv", source2="plain.csv"),
    ]
    out = tmp_path / "pairs.tsv"
    assert write_pairs(pairs, out) == 2
    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 4
    assert all(len(line.split("\t")) == 7 for line in lines[:-1])
    assert lines[1].endswith("a[U+0009]b.csv\tc[U+000A]d.csv")
    assert len(read_pairs(out, linked=True)) == 2


def test_a_file_name_with_a_control_character_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "a\tb.txt"
    src.write_text(RECORDS, encoding="utf-8")
    proc = run_cli("dedupe", str(src), "--backend", "memory", "--out", str(tmp_path / "o.txt"))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "a[U+0009]b.txt: its name holds the control character U+0009" in proc.stderr
    assert not (tmp_path / "o.txt").exists()


def test_bidi_controls_are_shown_escaped_on_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "report\u202etxt.exe"
    proc = dedupe_memory(tmp_path, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "report[U+202E]txt.exe" in proc.stdout and "\u202e" not in proc.stdout


#: The console script's code (pyproject's [project.scripts]), after a line that says the
#: interpreter has started: a signal sent before that lands in Python's own start-up (site),
#: which no code of neardup's runs early enough to catch.
_CONSOLE_SCRIPT = (
    "import sys\n"
    "print('started', flush=True)\n"
    "from neardup.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


_CTRL_C_IN_A_C_IMPORT = (
    "import os, signal, sys\n"
    "class _Finder:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'datetime':\n"
    "            os.kill(os.getpid(), signal.SIGINT)\n"
    "            sum(range(1000))\n"
    "        return None\n"
    "assert 'datetime' not in sys.modules\n"
    "sys.meta_path.insert(0, _Finder())\n"
    "from neardup.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_ctrl_c_inside_numpys_c_import_is_one_line() -> None:
    """Ctrl-C as numpy's C extension imports ``datetime`` (a CI run hit it): the interrupt
    raised there comes out of numpy as an ImportError, so it must be held until the modules
    have loaded, then end with one line and 130."""
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_IN_A_C_IMPORT, "dedupe", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (130, "neardup: interrupted\n")
    assert proc.stdout == ""


@pytest.mark.parametrize("delay", [0.02, 0.05, 0.1, 0.2, 0.3, 0.45])
def test_ctrl_c_while_the_command_starts_is_one_line(delay: float) -> None:
    """Ctrl-C while ``import neardup`` and the verbs' modules load ends with one line and 130
    (or, once --help is printed, 0), never with the traceback of an import."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _CONSOLE_SCRIPT, "dedupe", "--help"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "started\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert "Traceback" not in err, err
    if proc.returncode == 130:
        assert err == "neardup: interrupted\n"
    else:  # after the help was printed: done, or killed as Python exits (the shell's 130)
        assert proc.returncode in (0, -signal.SIGINT) and err == "", (proc.returncode, err)
        assert "usage: neardup dedupe" in out


@pytest.mark.parametrize("name", ["new/", ""])
def test_an_output_named_as_a_folder_or_empty_is_bad_usage(tmp_path: Path, name: str) -> None:
    """argparse's Path dropped the slash: ``--out new/`` wrote a file named ``new``, and
    ``--out ""`` was read as the folder ``.``."""
    src = tmp_path / "in.csv"
    src.write_text("id,text\n1,acme drill\n2,acme drill\n", encoding="utf-8")
    out = str(tmp_path / name) + ("/" if name.endswith("/") else "") if name else ""
    done = run_cli("dedupe", "--backend", "memory", str(src), "--out", out)
    assert done.returncode == 2
    assert ("names a folder" if name else "an empty name") in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_dev_stdout_is_standard_output_with_the_summary_on_stderr(tmp_path: Path) -> None:
    """``--out /dev/stdout`` mixed the summary into the data, and where stdout was a file, the
    output replaced it (the summary written to it before was lost)."""
    src, got = tmp_path / "in.csv", tmp_path / "got.csv"
    src.write_text("id,text\n1,acme drill\n2,acme drill\n3,kettle\n", encoding="utf-8")
    with open(got, "wb") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "neardup", "dedupe", "--backend", "memory", str(src), "--out",
             "/dev/stdout"], stdout=fh, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert got.read_text(encoding="utf-8") == "id,text\n1,acme drill\n3,kettle\n"
    assert "read 3" in done.stderr


def test_a_server_that_answers_any_json_is_named_not_a_traceback(tmp_path: Path) -> None:
    """An HTTP server answering every request with the same JSON (a proxy, a mock) gave a
    37-line KeyError traceback: Solr's answer lacked 'fields'."""
    import http.server

    body = json.dumps({"responseHeader": {"status": 0}, "lucene": {"solr-spec-version": "9.10.1"},
                       "response": {"numFound": 0, "docs": []}}).encode()  # fmt: skip

    class Any200(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Any200)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        src = tmp_path / "s.csv"
        src.write_text("id,name\n1,blue cafe\n2,blue cafe!\n", encoding="utf-8")
        url = f"http://127.0.0.1:{server.server_address[1]}/solr"
        done = run_cli("index", str(src), "--collection", "c1", env={"NEARDUP_SOLR_URL": url})
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "answered without 'fields'" in done.stderr and "is it a Solr server?" in done.stderr
    finally:
        server.shutdown()


@pytest.mark.solr
def test_two_commands_that_find_no_node_start_one_between_them(tmp_path: Path) -> None:
    """Two commands started at once on a home without a running node each started a JVM:
    two nodes on one home, and 'solr stop' stopped only the one its state file named."""
    from neardup.solr.local import LocalSolr

    home = tmp_path / "home"
    env = {"NEARDUP_HOME": str(home)}
    full = {**os.environ, **env}
    both = [subprocess.Popen([sys.executable, "-m", "neardup", "solr", "start"], env=full,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]  # fmt: skip
    try:
        said = [p.communicate(timeout=300) for p in both]
        assert all(p.returncode == 0 for p in both), said
        pids = {out.split("(pid ")[1].split(";")[0] for out, _ in said}
        assert len(pids) == 1, said  # one node, which both were told of
    finally:
        LocalSolr(home).stop()
    assert not any(str(home) in " ".join(_args(pid)) for pid in _java_pids())


def _java_pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
            and "java" in (p / "comm").read_text(errors="replace")]  # fmt: skip


def _args(pid: int) -> list[str]:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_text(errors="replace").split("\0")
    except OSError:
        return []


def _on_a_terminal(*args: str) -> tuple[int, bytes, str]:
    """``neardup ARGS`` with standard output a terminal (a pty): its exit code, the bytes that
    reached the terminal, its stderr."""
    import pty

    from .conftest import REPO

    main, terminal = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "neardup", *args], stdout=terminal,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              cwd=str(REPO), timeout=300)  # fmt: skip
        os.close(terminal)
        shown = b""
        with contextlib.suppress(OSError):  # EIO once everything written was read
            while chunk := os.read(main, 65536):
                shown += chunk
        return done.returncode, shown, done.stderr
    finally:
        os.close(main)
        with contextlib.suppress(OSError):
            os.close(terminal)


def test_binary_output_is_not_written_to_a_terminal(tmp_path: Path) -> None:
    """hx24 finding 7: ``dedupe p.parquet --out -`` and ``report --format parquet --out -``
    wrote Parquet bytes to a terminal, record texts with their escape sequences raw (one
    retitled the window), exit 0. Refused now (exit 2), before any work: nothing indexed or
    opened, nothing on the terminal; redirected to a pipe, the Parquet is written."""
    from .conftest import REPO

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["1", "2", "3"], "name": ["Jon Smith\x1b]0;PWNED\x07",
                                                             "John Smith", "Mary Jones"]}), src)
    runs = (("dedupe", str(src), "--out", "-", "--backend", "memory"),
            ("dedupe", str(src), "--out", str(tmp_path / "o.parquet"), "--rejects", "-",
             "--backend", "memory"),
            ("report", "--index-file", str(tmp_path / "none.duckdb"), "--format", "parquet",
             "--out", "-"),
            ("report", "--index-file", str(tmp_path / "none.duckdb"), "--clusters", "-",
             "--format", "parquet", "--out", str(tmp_path / "pairs.parquet")))  # fmt: skip
    for run in runs:
        code, shown, err = _on_a_terminal(*run)
        flag = "--rejects" if "--rejects" in run else "--clusters" if "--clusters" in run \
            else "--out"  # fmt: skip
        assert code == 2, err
        assert err == (f"neardup: error: {flag} -: Parquet is binary and is not written to a "
                       "terminal: redirect standard output (> out.parquet, or | a program that "
                       "reads it) or give a file's name\n")  # fmt: skip
        assert shown == b""
    assert not (tmp_path / "o.parquet").exists()
    piped = subprocess.run([sys.executable, "-m", "neardup", "dedupe", str(src), "--out", "-",
                            "--backend", "memory", "--quiet"], capture_output=True,
                           cwd=str(REPO), timeout=300)  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith(b"PAR1") and piped.stdout.endswith(b"PAR1")
