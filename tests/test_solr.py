"""The foundation against a real Solr: schema, round trips, version, big queries, the node."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pysolr
import pytest
import requests

from neardup import NearDupIndex, Params
from neardup.backends.solr import SolrBackend
from neardup.errors import SolrRequestError, SolrUnavailable
from neardup.resources import restaurants
from neardup.solr import admin, connect
from neardup.solr import client as client_module
from neardup.solr import local as local_solr
from neardup.solr.client import Solr, or_query, read_ahead, split_url, terms_params
from neardup.solr.local import LocalSolr, solr_version

from .conftest import run_cli

RESTAURANTS = restaurants()[0]

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


@pytest.mark.solr
def test_schema_has_the_seed_fields(collection: Solr) -> None:
    fields = admin.schema_fields(collection)
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


@pytest.mark.solr
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
    # Ids that XML cannot carry (a control character) or that a comma list would split are
    # added, read and deleted by exactly that id; an empty value is stored, not dropped.
    odd_ids = ["ctl\x01id", "comma,id", "back\\slash"]
    collection.add([{"id": i, "content": ""} for i in odd_ids])
    got_odd = collection.get(odd_ids)
    assert sorted(d["id"] for d in got_odd) == sorted(odd_ids)
    assert all(d["content"] == "" for d in got_odd)
    collection.delete_ids(odd_ids[:2])
    collection.commit()
    assert [d["id"] for d in collection.get(odd_ids)] == [odd_ids[2]]
    assert collection.count() == 3
    collection.delete_query("*:*")
    collection.commit()
    assert collection.count() == 0


def test_update_bodies_are_cut_by_bytes() -> None:
    items = [{"id": str(i), "t": "x" * 20} for i in range(5)]
    one = len(json.dumps(items[0]))  # 30 bytes each, and ", " between two
    runs = list(client_module._json_batches(items, 2 * one + 2))
    assert [json.loads(f"[{r}]") for r in runs] == [items[:2], items[2:4], items[4:]]
    assert all(len(r) <= 2 * one + 2 for r in runs)
    assert list(client_module._json_batches([{"id": "big", "t": "y" * 99}], 10)) == [
        '{"id": "big", "t": "' + "y" * 99 + '"}'
    ]  # too big alone: alone, not refused
    assert list(client_module._json_batches([], 10)) == []


@pytest.mark.solr
def test_large_updates_go_in_several_requests_of_bounded_size(
    collection: Solr, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "UPDATE_BYTES", 400)
    bodies: list[tuple[str, int]] = []
    send = collection.session.request

    def recording(method: str, url: str, *args: object, **kw: object) -> object:
        data = kw.get("data")
        if "/update" in url and "commit=" not in url and isinstance(data, bytes):
            bodies.append((url, len(data)))
        return send(method, url, *args, **kw)

    monkeypatch.setattr(collection.session, "request", recording)
    docs = [{"id": f"d{i:02d}", "content": f"text {i} " * 5} for i in range(20)]
    big = {"id": "big", "content": "w " * 400}
    collection.add([*docs[:10], big, *docs[10:]])
    collection.commit()
    assert collection.count() == 21
    assert len(bodies) >= 5
    assert sorted(n for _, n in bodies)[-2] <= 400  # only the one big document goes over
    bodies.clear()
    collection.delete_ids([f"d{i:02d}" for i in range(20)])
    collection.commit()
    assert [d["id"] for d in collection.iter_docs("id")] == ["big"]
    assert len(bodies) == 1  # 20 short ids fit one request


@pytest.mark.solr
def test_system_info_reports_the_pinned_version(collection: Solr) -> None:
    assert admin.version(collection) == solr_version()


@pytest.mark.solr
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


@pytest.mark.solr
def test_a_node_on_this_machine_answers_uncompressed(collection: Solr) -> None:
    """Gzip on a loopback socket spends the CPU that Solr shares with the report."""
    collection.add([{"id": f"r{i}", "raw": "words " * 200} for i in range(50)])
    collection.commit()
    url = f"{collection.base_url}/{collection.collection}/select"
    params = {"q": "*:*", "fl": "id,raw", "rows": 50}
    asked = collection.session.get(url, params=params, headers={"Accept-Encoding": "gzip"})
    assert asked.headers.get("Content-Encoding") == "gzip"  # Solr compresses when asked
    ours = collection.session.get(url, params=params)
    assert ours.headers.get("Content-Encoding") is None
    assert len(ours.json()["response"]["docs"]) == 50
    remote = Solr("https://solr.example:8983/solr", "c")
    assert remote.session.headers.get("Accept-Encoding") != "identity"


@pytest.mark.solr
def test_a_cursor_read_ahead_gives_every_document_once_in_order(collection: Solr) -> None:
    """The next page is read on a thread of its own; the documents and their order are those of
    the cursor read in the caller's thread, and a caller that stops early stops the thread."""
    collection.add([{"id": f"r{i:03d}", "raw": f"text {i}"} for i in range(257)])
    collection.commit()
    plain = [d["id"] for d in collection.iter_docs("id", rows=10)]
    ahead = [d["id"] for d in collection.iter_docs("id", rows=10, ahead=True)]
    assert ahead == plain == [f"r{i:03d}" for i in range(257)]
    early = collection.iter_docs("id", rows=10, ahead=True)
    assert [next(early)["id"] for _ in range(15)] == plain[:15]
    early.close()
    assert not [t for t in threading.enumerate() if t.name == "neardup-read-ahead"]


@pytest.mark.solr
def test_a_cursor_split_in_parts_gives_every_document_once(collection: Solr) -> None:
    """Read in parts side by side (a hash of the id picks the part), every document comes
    once, whatever the number of parts; each part keeps id order; a caller that stops early
    stops every part's thread."""
    ids = [f"r{i:03d}" for i in range(257)]
    collection.add([{"id": i, "raw": f"text {i}"} for i in ids])
    collection.commit()
    for parts in (2, 3):
        got = [d["id"] for d in collection.iter_docs("id", rows=10, ahead=True, parts=parts)]
        assert sorted(got) == ids and len(got) == len(ids)
        assert got != ids  # the parts came in turn: not one cursor's order
    early = collection.iter_docs("id", rows=10, ahead=True, parts=2)
    assert len({next(early)["id"] for _ in range(25)}) == 25
    early.close()
    assert not [t for t in threading.enumerate() if t.name == "neardup-read-ahead"]
    # More parts than are read at once (a large index): two at a time, every document once,
    # the parts of one pair done before the next pair starts.
    few = collection.iter_docs("id", rows=10, ahead=True, parts=5, side_by_side=2)
    first = [next(few)["id"] for _ in range(5)]
    alive = [t for t in threading.enumerate() if t.name == "neardup-read-ahead"]
    assert len(alive) <= 2
    got = first + [d["id"] for d in few]
    assert sorted(got) == ids and len(got) == len(ids)
    assert not [t for t in threading.enumerate() if t.name == "neardup-read-ahead"]


def test_read_ahead_keeps_order_raises_where_the_error_was_and_stops_when_closed() -> None:
    assert list(read_ahead(iter(range(100)), depth=3)) == list(range(100))
    assert list(read_ahead(iter([]))) == []

    def failing() -> Iterator[int]:
        yield 1
        yield 2
        raise SolrRequestError("page 3 failed")

    got: list[int] = []
    with pytest.raises(SolrRequestError, match="page 3"):
        for item in read_ahead(failing()):
            got.append(item)
    assert got == [1, 2]
    made: list[int] = []

    def counted() -> Iterator[int]:
        for i in range(10_000):
            made.append(i)
            yield i

    reader = read_ahead(counted(), depth=1)
    assert next(reader) == 0
    reader.close()
    assert len(made) <= 4  # the thread stopped a page or two ahead, not at the end
    assert not [t for t in threading.enumerate() if t.name == "neardup-read-ahead"]


def test_a_clone_keeps_the_sessions_settings_and_hooks() -> None:
    """A report reads pages on a clone's thread: a caller's hook (the cloud benchmark counts
    bytes with one) and proxies must follow it there."""
    solr = Solr("http://127.0.0.1:9/solr", "c")
    seen: list[object] = []
    solr.session.hooks["response"].append(lambda r, *a, **k: seen.append(r))
    solr.session.proxies["http"] = "http://proxy.example:3128"
    solr.session.headers["X-Mine"] = "1"
    other = solr.clone()
    assert other.session is not solr.session
    assert other.session.hooks["response"] == solr.session.hooks["response"]
    assert other.session.hooks["response"] is not solr.session.hooks["response"]
    assert other.session.proxies["http"] == "http://proxy.example:3128"
    assert other.session.headers["X-Mine"] == "1"
    assert other.session.auth == solr.session.auth


def test_split_url() -> None:
    assert split_url("http://h:1/solr/") == ("http://h:1/solr", None)
    assert split_url("http://h:1/solr/abc") == ("http://h:1/solr", "abc")
    assert split_url("https://h/x/solr/abc") == ("https://h/x/solr", "abc")
    # one segment, not 'solr': a collection at the server's root, whose requests had '//admin'
    assert split_url("http://h:1/solr2") == ("http://h:1", "solr2")


def test_unreachable_url_fails_fast_with_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/solr/nothing"
    start = time.monotonic()
    with pytest.raises(SolrUnavailable) as info:
        Solr(url, retries=0).system_info()
    assert f"127.0.0.1:{port}" in str(info.value)
    proc = run_cli("index", str(RESTAURANTS), "--solr-url", url)
    elapsed = time.monotonic() - start
    assert proc.returncode == 1
    assert f"http://127.0.0.1:{port}/solr" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert elapsed < 30


# -- a user's own pysolr.Solr ----------------------------------------------------------------
NEAR = [
    ("1", "the quick brown fox jumps over the lazy dog by the river bank"),
    ("2", "the quick brown fox jumps over the lazy cat by the river bank"),
    ("3", "fresh bread and strong coffee every morning at the corner bakery"),
    ("4", "fresh bread and strong coffee every morning at the corner shop"),
    ("5", "nothing in common with any other record of this small set"),
]


@pytest.mark.solr
def test_a_users_pysolr_client_works_end_to_end(solr_base: str) -> None:
    theirs = pysolr.Solr(f"{solr_base}/test_pysolr_{os.getpid()}", timeout=30)
    session = theirs.get_session()
    before = (dict(session.adapters), session.auth, dict(session.headers))
    index = NearDupIndex.open(theirs, Params())  # the collection is created
    try:
        stats = index.add_many(NEAR)
        assert (stats.read, stats.indexed, stats.rejected) == (5, 5, 0)
        assert {(p.id1, p.id2) for p in index.pairs()} == {("1", "2"), ("3", "4")}
        assert len(index) == 5
        # The user's client sees what neardup wrote, and its session was left as it was.
        assert theirs.search("-id:_neardup_meta_").hits == 5
        assert (dict(session.adapters), session.auth, dict(session.headers)) == before
        assert index.backend.solr.timeout == 30
    finally:
        admin.delete_collection(index.backend.solr)


def test_an_unreachable_pysolr_client_fails_fast_with_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(SolrUnavailable) as info:
        NearDupIndex.open(pysolr.Solr(f"http://127.0.0.1:{port}/solr/gone"))
    assert f"cannot reach Solr at http://127.0.0.1:{port}/solr/" in str(info.value)
    assert "connection refused" in str(info.value)
    assert time.monotonic() - start < 10  # never answered: the brief budget only


def test_from_pysolr_takes_over_the_settings_not_the_session(tmp_path: Path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("not used\n")
    theirs = pysolr.Solr(
        "https://127.0.0.1:1/solr/c", timeout=(3, 12), auth=("u", "p"), verify=str(bundle)
    )
    solr = Solr.from_pysolr(theirs)
    assert (solr.url, solr.timeout) == ("https://127.0.0.1:1/solr/c", 12)
    assert solr.session.auth == ("u", "p") and solr.session.verify == str(bundle)
    assert solr.pysolr.session is solr.session and solr.pysolr.url == solr.url

    session = requests.Session()
    session.headers["X-Tenant"] = "t1"
    session.cert = "/client.pem"
    session.verify = False
    session.auth = ("v", "q")
    adapters = dict(session.adapters)
    solr = Solr.from_pysolr(pysolr.Solr("http://127.0.0.1:1/solr/c", session=session))
    assert solr.session is not session and dict(session.adapters) == adapters
    assert solr.session.headers["X-Tenant"] == "t1"
    assert solr.session.headers["User-Agent"] == "neardup"  # requests' default is not copied
    assert (solr.session.cert, solr.session.verify) == ("/client.pem", False)
    assert solr.session.auth == ("v", "q")
    # pysolr's own precedence: the client's auth over its session's, and both over the URL's.
    both = pysolr.Solr("http://w:x@127.0.0.1:1/solr/c", session=session, auth=("u", "p"))
    assert Solr.from_pysolr(both).session.auth == ("u", "p")
    assert Solr.from_pysolr(both).url == "http://127.0.0.1:1/solr/c"


# -- the private node ------------------------------------------------------------------------
def _java_pids_of(home: Path) -> list[int]:
    out = subprocess.run(["pgrep", "-f", f"--home {home}"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


@pytest.mark.solr
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


@pytest.mark.solr  # needs Java and Solr's artifacts, though no server
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


@pytest.mark.solr  # runs Maven (so Java), though no server
def test_unresolvable_solr_artifacts_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = LocalSolr(tmp_path)
    node.version = "0.0.404-does-not-exist"
    with pytest.raises(SolrUnavailable) as info:
        node.classpath()
    assert "could not be reached or lacks the artifacts" in str(info.value)
    assert "maven.log" in str(info.value)


@pytest.mark.solr
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
            connect(st.url, "bad", auth=node.client_auth(st))
        assert "cannot create the collection 'bad'" in str(info.value)
        assert "no_such_type" in str(info.value)
    finally:
        node.stop()


def test_the_legacy_configset_follows_every_file_of_the_configset(tmp_path: Path) -> None:
    """write_configsets keeps the older cores' configset equal to this one but for string band
    fields: a change to any of its files (solrconfig.xml too) reaches it, and an equal one is
    left untouched."""
    from neardup.backends.solr import SEARCH_FIELDS
    from neardup.resources import CONFIGSET_NAME, LEGACY_CONFIGSET, V2_CONFIGSET
    from neardup.solr.local import CONFIGSET, legacy_schema, without_search, write_configsets

    write_configsets(tmp_path)
    legacy = tmp_path / LEGACY_CONFIGSET / "conf"
    ours = CONFIGSET / "conf"
    schema = (ours / "schema.xml").read_text()
    assert (tmp_path / CONFIGSET_NAME / "conf" / "schema.xml").read_text() == schema
    v2 = (tmp_path / V2_CONFIGSET / "conf" / "schema.xml").read_text()
    assert v2 == without_search(schema) and '<field name="nd_words"' in schema
    for older in (v2, (legacy / "schema.xml").read_text()):  # no search field reaches them
        assert not any(f'<field name="{f}"' in older for f in SEARCH_FIELDS)
    assert (legacy / "schema.xml").read_text() == legacy_schema(without_search(schema))
    assert (legacy / "solrconfig.xml").read_bytes() == (ours / "solrconfig.xml").read_bytes()
    (legacy / "solrconfig.xml").write_text("<config>stale</config>")
    write_configsets(tmp_path)
    assert (legacy / "solrconfig.xml").read_bytes() == (ours / "solrconfig.xml").read_bytes()
    before = (legacy / "schema.xml").stat().st_mtime_ns
    write_configsets(tmp_path)
    assert (legacy / "schema.xml").stat().st_mtime_ns == before


# -- drop -----------------------------------------------------------------------------------------
def drop_cli(
    solr_base: str, *args: str, answer: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``neardup drop ...`` on ``solr_base``: with no terminal, or with ``answer`` typed at one."""
    from .conftest import REPO

    command = [sys.executable, "-m", "neardup", "drop", *args, "--solr-url", solr_base]
    if answer is None:
        return subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              cwd=str(REPO), timeout=300)  # fmt: skip
    import pty

    main, terminal = pty.openpty()
    try:
        os.write(main, answer.encode() + b"\n")
        return subprocess.run(command, capture_output=True, text=True, stdin=terminal,
                              cwd=str(REPO), timeout=300)  # fmt: skip
    finally:
        os.close(main)
        os.close(terminal)


@pytest.mark.solr
def test_drop_deletes_a_collection_neardup_made_once_confirmed(
    solr_base: str, new_collection: Callable[[str], Solr]
) -> None:
    solr = new_collection("drop")
    name = solr.collection
    index = NearDupIndex(backend=SolrBackend(solr))
    index.add_many([(str(i), f"record {i} of the collection to drop") for i in range(25)])
    index.backend.commit()
    server = Solr(solr_base)
    asked = drop_cli(solr_base, name)  # no terminal, no --yes: nothing happens
    assert asked.returncode == 2 and "with no terminal to confirm it, add --yes" in asked.stderr
    no = drop_cli(solr_base, name, answer="n")
    assert no.returncode == 1, no.stderr
    assert f"drop the collection '{name}' at" in no.stderr and "its 25 records? [y/N]" in no.stderr
    assert name in admin.collections(server)
    yes = drop_cli(solr_base, name, answer="y")
    assert yes.returncode == 0, yes.stderr
    assert f"dropped the collection '{name}' at" in yes.stdout and ": 25 records" in yes.stdout
    assert name not in admin.collections(server)
    gone = drop_cli(solr_base, name, "--yes")
    assert gone.returncode == 2 and f"the collection '{name}' does not exist" in gone.stderr
    assert "Traceback" not in asked.stderr + no.stderr + yes.stderr + gone.stderr


@pytest.mark.solr
def test_drop_refuses_a_collection_neardup_did_not_make_unless_forced(
    solr_base: str, new_collection: Callable[[str], Solr]
) -> None:
    """A collection of neardup's schema holding records neardup did not index (no stored
    parameters) is not neardup's: refused even with --yes, dropped with --force."""
    solr = new_collection("theirs")
    solr.add([{"id": "a", "content": "a record neardup did not index"}])
    solr.commit()
    refused = drop_cli(solr_base, solr.collection, "--yes")
    assert refused.returncode == 2, refused.stderr
    assert f"the collection '{solr.collection}' at" in refused.stderr
    assert "(1 records) was not made by neardup" in refused.stderr
    assert "add --force to drop it anyway" in refused.stderr
    assert solr.collection in admin.collections(Solr(solr_base))
    forced = drop_cli(solr_base, solr.collection, "--yes", "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout) == {
        "dropped": solr.collection, "records": 1, "where": client_module.redact(solr.base_url),
        "neardup": False,
    }  # fmt: skip
    assert solr.collection not in admin.collections(Solr(solr_base))


@pytest.mark.solr
def test_every_text_of_a_large_index_is_read_once_in_parts_of_bounded_size(
    new_collection: Callable[[str], Solr], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index of more than PART_RECORDS records is read in one part more each PART_RECORDS
    (a cursor's pages each scan their whole part): with 40 a part, 257 records come in seven
    parts, each record once, with its text; the report's pairs are the same."""
    from neardup.backends import solr as solr_backend

    index = NearDupIndex(backend=SolrBackend(new_collection("parts")))
    records = [(f"r{i:03d}", f"record {i // 2} of the parted index") for i in range(257)]
    index.add_many(records, progress=False)
    index.backend.commit()
    whole = index.report()
    asked: list[int] = []
    read = index.backend.solr.iter_docs

    def counted(*args: object, **kwargs: Any) -> Any:
        asked.append(int(kwargs.get("parts", 1)))  # type: ignore[arg-type]
        return read(*args, **kwargs)

    monkeypatch.setattr(solr_backend, "PART_RECORDS", 40)
    monkeypatch.setattr(index.backend.solr, "iter_docs", counted)
    got = list(index.backend.all_texts())
    assert asked == [7]
    assert sorted(got) == sorted(records)
    assert [p.as_dict() for p in index.report().pairs] == [p.as_dict() for p in whole.pairs]
