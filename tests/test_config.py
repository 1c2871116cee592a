"""One configuration (issue 27): the library and the CLI read the environment through
neardup.config, explicit arguments win, and a started node says where it is and how to stop it."""

from __future__ import annotations

import dataclasses
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from neardup import InputError, NearDupIndex, config
from neardup.config import load
from neardup.errors import SolrUnavailable
from neardup.solr import admin
from neardup.solr.admin import started_message
from neardup.solr.client import redact
from neardup.solr.local import LocalSolr, NodeState

from .conftest import TEST_HOME, run_cli


def test_environment_and_explicit_arguments(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret\nignored\n")
    env = {
        "NEARDUP_HOME": str(tmp_path / "home"),
        "NEARDUP_SOLR_URL": "http://env:8983/solr/c",
        "NEARDUP_SOLR_USER": "env-user",
        "NEARDUP_SOLR_PASSWORD_FILE": str(secret),
        "NEARDUP_SOLR_TIMEOUT": "7",
    }
    got = load(environ=env)
    assert got.home == tmp_path / "home" and got.solr_url == "http://env:8983/solr/c"
    assert got.auth is not None and (got.auth.user, got.auth.password) == ("env-user", "s3cret")
    assert got.timeout == 7.0 and got.verify is True
    mine = load(home="/elsewhere", solr_url="http://flag:1/solr", user="me", password="pw",
                environ=env)
    assert (str(mine.home), mine.solr_url, mine.user, mine.password) == (
        "/elsewhere", "http://flag:1/solr", "me", "pw")
    assert load(environ={**env, "NEARDUP_SOLR_PASSWORD": "direct"}).password == "direct"
    assert load(environ={}) == load(environ={"NEARDUP_HOME": " "})
    with pytest.raises(InputError, match="cannot read NEARDUP_SOLR_PASSWORD_FILE"):
        load(environ={"NEARDUP_SOLR_PASSWORD_FILE": str(tmp_path / "missing")})
    with pytest.raises(InputError, match="NEARDUP_SOLR_TIMEOUT must be a number"):
        load(environ={"NEARDUP_SOLR_TIMEOUT": "soon"})


def test_library_open_honours_neardup_solr_url(
    solr_base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "test_config_env_url"
    monkeypatch.setenv("NEARDUP_SOLR_URL", f"{solr_base}/{name}")
    index = NearDupIndex.open(None)
    try:
        assert index.backend.location.endswith(f"/{name}")
        index.add("1", "a record in the collection the environment names")
        assert len(NearDupIndex.open(f"{solr_base}/{name}")) == 1  # the same collection
    finally:
        admin.delete_collection(index.backend.solr)  # type: ignore[attr-defined]


def test_library_open_honours_neardup_home(
    solr_base: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    node = LocalSolr(TEST_HOME).running()
    base = redact(solr_base)  # the URL without the test node's credentials
    if node is None or node.url != base:
        pytest.skip("the tests' Solr is not the local node in .neardup/test")
    monkeypatch.delenv("NEARDUP_SOLR_URL", raising=False)
    monkeypatch.setenv("NEARDUP_HOME", str(TEST_HOME))
    index = NearDupIndex.open(None, collection="test_config_env_home")
    try:  # the node of $NEARDUP_HOME, not a new one in ~/.neardup
        assert index.backend.location.startswith(base)
    finally:
        admin.delete_collection(index.backend.solr)  # type: ignore[attr-defined]


def test_cli_reads_the_password_file(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("1 a record\n")
    proc = run_cli("index", str(tmp_path / "x.txt"), "--solr-url", "http://127.0.0.1:9/solr/c",
                   "--solr-user", "u", "--solr-password-file", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "cannot read the password file" in proc.stderr, proc.stderr


def test_a_started_node_says_where_and_how_to_stop_it(tmp_path: Path) -> None:
    node = NodeState(pid=4242, urls=["http://127.0.0.1:38983/solr"], version="9",
                     mode="standalone", log=str(tmp_path / "solr.log"))
    said = started_message(node, tmp_path)
    assert "http://127.0.0.1:38983/solr" in said and "port 38983" in said and "pid 4242" in said
    assert f"home {tmp_path}" in said
    assert f"'NEARDUP_HOME={tmp_path} neardup solr stop'" in said
    own = NodeState(pid=4242, urls=["http://127.0.0.1:38983/solr"], version="9",
                    mode="standalone", log="solr.log", auth_user="neardup",
                    credentials=str(tmp_path / "credentials"))
    said = started_message(own, tmp_path)
    assert f"basic authentication, user 'neardup', password in {tmp_path / 'credentials'}" in said


def test_library_open_passes_the_heap_of_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The local node's heap comes from NEARDUP_SOLR_HEAP in the library too: a bad one is
    refused before any node is started (a good one would start one, which this does not)."""
    monkeypatch.delenv("NEARDUP_SOLR_URL", raising=False)
    monkeypatch.setenv("NEARDUP_HOME", str(tmp_path))
    monkeypatch.setenv("NEARDUP_SOLR_HEAP", "lots")
    said = "NEARDUP_SOLR_HEAP must be a size such as 512m or 4g, at least 256m, got 'lots'"
    with pytest.raises(InputError, match=said):
        NearDupIndex.open(None)
    assert not (tmp_path / "solr" / "node.json").exists()


def test_a_bad_solr_variable_is_said_by_the_verbs_that_use_it(tmp_path: Path) -> None:
    """A bad NEARDUP_SOLR_TIMEOUT (or retry budget, or password file) was read before the
    CLI's error handling by every verb: a traceback, exit 1, no JSON. A verb without Solr now
    runs; one that uses Solr says what is wrong (exit 2, JSON with --json); a flag that
    replaces the variable wins over it."""
    records = tmp_path / "s.txt"
    records.write_text("1 hello world\n2 hello world\n")
    index = tmp_path / "i.duckdb"
    home = {"NEARDUP_HOME": str(tmp_path / "home")}
    for bad in ({"NEARDUP_SOLR_TIMEOUT": "-1"}, {"NEARDUP_SOLR_RETRY_BUDGET": "abc"},
                {"NEARDUP_SOLR_PASSWORD_FILE": str(tmp_path / "missing")}):
        proc = run_cli("index", str(records), "--index-file", str(index), "--json",
                       env={**home, **bad})
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    proc = run_cli("solr", "status", "--json", env={**home, "NEARDUP_SOLR_TIMEOUT": "abc"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    said = json.loads(proc.stdout)
    assert said["exit_code"] == 2 and "NEARDUP_SOLR_TIMEOUT" in said["error"]
    assert "'abc'" in said["error"] and "number of seconds" in said["error"]
    password = tmp_path / "pw.txt"
    password.write_text("x\n")
    proc = run_cli("info", "--solr-url", "http://127.0.0.1:9/solr/c", "--solr-user", "u",
                   "--solr-password-file", str(password),
                   env={**home, "NEARDUP_SOLR_PASSWORD_FILE": str(tmp_path / "missing"),
                        "NEARDUP_SOLR_RETRY_BUDGET": "0"})
    assert "Traceback" not in proc.stderr and "PASSWORD_FILE" not in proc.stderr, proc.stderr
    assert "cannot reach Solr at http://127.0.0.1:9" in proc.stderr, proc.stderr


def test_a_start_on_another_port_than_the_running_nodes_is_refused(tmp_path: Path) -> None:
    """'solr start --port P' while the node ran on another port reused it silently (exit 0),
    where --cloud and --no-auth were refused: a script that asked for a port got another one.
    Now refused the same way, with the running node's port and how to stop it (no Solr needed:
    the check is on the running node's state)."""
    local = LocalSolr(tmp_path)
    running = NodeState(pid=4242, urls=["http://127.0.0.1:45889/solr"], version="9",
                        mode="standalone", log="solr.log", no_auth=True)
    assert local._reuse(running, "standalone", None, False, 45889) is running
    assert local._reuse(running, "standalone", None, False, None) is running
    with pytest.raises(SolrUnavailable, match=r"already running at http://127\.0\.0\.1:45889/"
                       r"solr \(port 45889, pid 4242\), not on port 58123; run 'neardup solr "
                       r"stop' first"):
        local._reuse(running, "standalone", None, False, 58123)


def test_status_says_a_node_that_lives_but_does_not_answer(tmp_path: Path) -> None:
    """A node whose process lives but does not answer (kill -STOP, or still starting) was
    said 'not running', so the minute the next command then waited for it went unexplained.
    Faked here without Solr: a process with the launcher's command line for this home, and a
    port nothing listens on."""
    home = tmp_path.resolve()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    fake = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)",
                             "neardup.solr.Launcher", "--home", str(home / "solr" / "standalone")])
    try:
        (home / "solr").mkdir()
        state = NodeState(pid=fake.pid, urls=[f"http://127.0.0.1:{port}/solr"], version="9",
                          mode="standalone", log=str(home / "solr.log"))
        (home / "solr" / "node.json").write_text(json.dumps(dataclasses.asdict(state)))
        env = {"NEARDUP_HOME": str(home)}
        said = run_cli("solr", "status", env=env)
        assert said.returncode == 1, said.stderr
        assert f"running but not answering: pid {fake.pid}, port {port}" in said.stdout
        assert "'neardup solr stop'" in said.stdout
        info = json.loads(run_cli("solr", "status", "--json", env=env).stdout)
        assert (info["running"], info["answering"], info["pid"]) == (True, False, fake.pid)
        assert fake.poll() is None  # status never signals it
    finally:
        fake.kill()
        fake.wait()
    said = run_cli("solr", "status", env=env)
    assert said.returncode == 1 and said.stdout.startswith("not running"), said.stdout


def test_an_unknown_neardup_variable_is_said_once_with_the_closest_name(tmp_path: Path) -> None:
    """A misspelt NEARDUP_HOEM or NEARDUP_SOLR_ULR was ignored without a word: the CLI now says
    it on one line of stderr (and runs on); the variables neardup and its tests and tools read
    are never said."""
    records = tmp_path / "s.txt"
    records.write_text("1 hello world\n2 hello world\n")
    index = ["index", str(records), "--index-file", str(tmp_path / "i.duckdb")]
    proc = run_cli(*index, env={"NEARDUP_HOEM": str(tmp_path), "NEARDUP_SOLR_ULR": "x"})
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert warned == [
        "neardup: warning: NEARDUP_HOEM is not a variable neardup reads (did you mean "
        "NEARDUP_HOME?); it is ignored",
        "neardup: warning: NEARDUP_SOLR_ULR is not a variable neardup reads (did you mean "
        "NEARDUP_SOLR_URL?); it is ignored",
    ]
    known = {name: "" for name in config.KNOWN}
    known.update(NEARDUP_SOLR_URL="", NEARDUP_HOME=str(tmp_path))  # empty: unset
    proc = run_cli(*index, env=known)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr


def test_every_neardup_variable_the_repository_reads_is_known() -> None:
    """So that no test, benchmark or CI step that sets one of its variables gets the unknown
    variable warning: every NEARDUP_* name written in the repository is known (the launcher's
    lines NEARDUP_READY, NEARDUP_FAILED and NEARDUP_ZK are no variables)."""
    repo = Path(__file__).resolve().parents[1]
    files = [repo / "Makefile", repo / "docker-compose.yml", repo / "README.md"]
    for folder in ("neardup", "tests", "benchmarks", ".ci", "docs"):
        files += [p for p in (repo / folder).rglob("*") if p.suffix in (".py", ".md", ".sh")]
    files += [repo / ".ci" / "run"]
    names = set()
    for path in files:
        if path.is_file() and path != Path(__file__).resolve():
            names |= set(re.findall(r"NEARDUP_[A-Z][A-Z_]*[A-Z]", path.read_text("utf-8")))
    launcher = {"NEARDUP_READY", "NEARDUP_FAILED", "NEARDUP_ZK"}
    assert names - launcher - set(config.KNOWN) == set()
    assert launcher <= names and set(config.KNOWN) <= names
