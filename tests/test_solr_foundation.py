"""The foundation against a real Solr: schema, round trips, version, big queries, the node."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neardup import local_solr
from neardup.errors import SolrRequestError, SolrUnavailable
from neardup.local_solr import LocalSolr, solr_version
from neardup.solr import Solr, connect, or_query, split_url, terms_params

from .conftest import run_cli

SEED_FIELDS = {
    # name: (type, indexed, stored, multiValued)
    "id": ("string", True, True, False),
    "content": ("text_general", False, True, False),
    "md5_hash": ("string", True, True, False),
    "num_words": ("pint", True, True, False),
    "first_word": ("string", True, True, False),
    "content_ng": ("string", True, True, True),
    "content_sg": ("string", True, True, True),
}


def test_schema_has_the_seed_fields(collection: Solr) -> None:
    fields = collection.schema_fields()
    for name, (ftype, indexed, stored, multi) in SEED_FIELDS.items():
        assert name in fields, name
        f = fields[name]
        assert f["type"] == ftype, name
        assert bool(f.get("indexed")) is indexed, name
        assert bool(f.get("stored")) is stored, name
        assert bool(f.get("multiValued", False)) is multi, name
    assert "_version_" in fields
    assert "content_lsh" in fields
    dynamic = collection.request("GET", "schema/dynamicfields")["dynamicFields"]
    band = next(d for d in dynamic if d["name"] == "lsh_b*")
    assert band["indexed"] and band.get("docValues", False) is not False


def test_documents_round_trip(collection: Solr) -> None:
    shingles = [f"w{i} w{i + 1} w{i + 2}" for i in range(50)][::-1]  # not sorted on purpose
    docs = [
        {
            "id": "d1",
            "content": "a b c",
            "md5_hash": "x",
            "num_words": 3,
            "first_word": "a",
            "content_ng": shingles,
            "content_sg": ["3", "1", "2", "1"],
        },
        {
            "id": 'd2 with space: and "quotes"',
            "content": "z",
            "num_words": 1,
            "content_ng": ['he said "hi" \\ (a:b) AND OR NOT * ?'],
        },
    ]
    collection.add(docs)
    collection.commit()
    assert collection.count() == 2
    got = collection.select({"q": or_query("id", ["d1"]), "fl": "*"})["response"]["docs"][0]
    assert got["content_ng"] == shingles
    assert got["content_sg"] == ["3", "1", "2", "1"]  # duplicates and order kept
    assert got["num_words"] == 3
    odd = collection.get([docs[1]["id"]])
    assert odd and odd[0]["content_ng"] == docs[1]["content_ng"]
    hit = collection.select({"q": or_query("content_ng", docs[1]["content_ng"]), "fl": "id"})
    assert [d["id"] for d in hit["response"]["docs"]] == [docs[1]["id"]]


def test_system_info_reports_the_pinned_version(collection: Solr) -> None:
    assert collection.version() == solr_version()


def test_a_query_of_5000_terms(collection: Solr) -> None:
    collection.add(
        [
            {"id": "x", "content_ng": ["term 4999", "other"]},
            {"id": "y", "content_ng": ["term, with comma", "z"]},
        ]
    )
    collection.commit()
    terms = [f"term {i}" for i in range(5000)] + ["term, with comma"]
    params = terms_params("content_ng", terms)
    params["fl"] = "id"
    res = collection.select(params)
    assert sorted(d["id"] for d in res["response"]["docs"]) == ["x", "y"]
    # The scored OR form works as long as it stays below maxBooleanClauses.
    small = collection.select({"q": or_query("content_ng", terms[-900:]), "fl": "id"})
    assert sorted(d["id"] for d in small["response"]["docs"]) == ["x", "y"]


def test_split_url() -> None:
    assert split_url("http://h:1/solr/") == ("http://h:1/solr", None)
    assert split_url("http://h:1/solr/abc") == ("http://h:1/solr", "abc")
    assert split_url("https://h/x/solr/abc") == ("https://h/x/solr", "abc")


def test_unreachable_url_fails_fast_with_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/solr/nothing"
    start = time.monotonic()
    with pytest.raises(SolrUnavailable) as info:
        Solr(url, retries=0).system_info()
    assert f"127.0.0.1:{port}" in str(info.value)
    proc = run_cli("index", "data/restaurants/addresses.txt", "--solr-url", url)
    elapsed = time.monotonic() - start
    assert proc.returncode == 1
    assert f"http://127.0.0.1:{port}/solr" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert elapsed < 30


# -- the private node ------------------------------------------------------------------------
def _java_pids_of(home: Path) -> list[int]:
    out = subprocess.run(["pgrep", "-f", f"--home {home}"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def test_cli_start_status_stop_twice(tmp_path: Path) -> None:
    env = {"NEARDUP_HOME": str(tmp_path)}
    for _ in range(2):
        started = run_cli("solr", "start", "--json", env=env)
        assert started.returncode == 0, started.stderr
        info = json.loads(started.stdout)
        assert info["running"] and info["solr_version"] == solr_version()
        again = run_cli("solr", "start", "--json", env=env)  # a second start reuses the node
        assert json.loads(again.stdout)["pid"] == info["pid"]
        status = run_cli("solr", "status", env=env)
        assert status.returncode == 0
        assert info["url"] in status.stdout and solr_version() in status.stdout
        assert info["url"].startswith("http://127.0.0.1:")
        stopped = run_cli("solr", "stop", env=env)
        assert stopped.returncode == 0 and str(info["pid"]) in stopped.stdout
        assert not _java_pids_of(tmp_path / "solr" / "standalone")
        assert run_cli("solr", "status", env=env).returncode == 1
    assert "no local Solr was running" in run_cli("solr", "stop", env=env).stdout


def test_start_on_a_port_in_use_says_so(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = run_cli("solr", "start", "--port", str(port), env={"NEARDUP_HOME": str(tmp_path)})
    assert proc.returncode == 1
    assert f"port {port}" in proc.stderr and "in use" in proc.stderr
    assert not _java_pids_of(tmp_path / "solr" / "standalone")


def test_start_without_java_says_so(tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from neardup.cli import main; sys.exit(main(['solr', 'start']))",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(bare), "NEARDUP_HOME": str(tmp_path)},
        cwd=str(Path(__file__).resolve().parents[1]),
    )
    assert proc.returncode == 1
    assert "'java' is not on PATH" in proc.stderr


def test_unresolvable_solr_artifacts_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = LocalSolr(tmp_path)
    node.version = "0.0.404-does-not-exist"
    with pytest.raises(SolrUnavailable) as info:
        node.classpath()
    assert "could not be reached or lacks the artifacts" in str(info.value)
    assert "maven.log" in str(info.value)


def test_an_invalid_configset_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(local_solr.CONFIGSET, broken)
    schema = broken / "conf" / "schema.xml"
    schema.write_text(schema.read_text().replace('type="pint"', 'type="no_such_type"', 1))
    monkeypatch.setattr(local_solr, "CONFIGSET", broken)
    node = LocalSolr(tmp_path / "home")
    try:
        st = node.start()
        with pytest.raises(SolrRequestError) as info:
            connect(st.url, "bad")
        assert "cannot create the collection 'bad'" in str(info.value)
        assert "no_such_type" in str(info.value)
    finally:
        node.stop()
