"""Security against a real Solr: basic authentication, secrets kept out of output, TLS, binding.

The tests that need a user of their own run a node of their own (``LocalSolr.start(auth=...)``)
in a temporary home; the tests of the node's own password (on by default) run another one.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pysolr
import pytest
import requests

from neardup import NearDupIndex
from neardup.errors import (
    InputError,
    MissingCABundle,
    SolrCertificateUnverified,
    SolrRequestError,
    SolrUnauthorized,
    SolrUnavailable,
)
from neardup.resources import restaurants
from neardup.solr import Auth, Solr, admin
from neardup.solr.local import LocalSolr, NodeState, hash_password

from .conftest import IN_CI, node_of_its_own, run_cli
from .faultproxy import Fault, FaultProxy

RESTAURANTS = restaurants()[0]
USER = "alice"
#: A password with characters that must be quoted in a URL, unlike any other text in the output.
PASSWORD = "Pw-7q@x:Zr/9"
WRONG = "Wr0ng-8k@y:Tt"
#: Environment without any credentials or Solr URL of the caller's.
CLEAN = {"NEARDUP_SOLR_USER": "", "NEARDUP_SOLR_PASSWORD": "", "NEARDUP_SOLR_CA": ""}


class AuthNode:
    def __init__(self, node: LocalSolr, state: NodeState) -> None:
        self.node = node
        self.state = state
        self.url = state.url
        self.port = int(state.url.split(":")[2].split("/")[0])
        self.collections = 0

    def collection(self) -> str:
        self.collections += 1
        return f"sec_{os.getpid()}_{self.collections}"

    def log_text(self) -> str:
        return self.node.log_file.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def auth_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthNode]:
    node = LocalSolr(tmp_path_factory.mktemp("auth") / "home")
    try:
        state = node.start(auth=(USER, PASSWORD))
    except SolrUnavailable as exc:
        if IN_CI:
            pytest.fail(f"CI=true and no local Solr node could start: {exc}", pytrace=False)
        pytest.skip(f"no local Solr node: {exc}")
    try:
        yield AuthNode(node, state)
    finally:
        node.stop()


def assert_no_secret(*texts: str) -> None:
    for secret in (PASSWORD, WRONG):
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            for text in texts:
                assert form not in text


def test_hash_is_solrs_format() -> None:
    # The example of Solr's reference guide: user "solr", password "SolrRocks".
    salt = base64.b64decode("Ndd7LKvVBAaZIF0QAVi1ekCfAJXr1GGfLtRUXhgrF8c=")
    assert hash_password("SolrRocks", salt) == (
        "IV0EHq1OnNrj6gvRCwvFwTrZ1+z1oBbnQdiVC3otuq0= Ndd7LKvVBAaZIF0QAVi1ekCfAJXr1GGfLtRUXhgrF8c="
    )
    one, two = hash_password(PASSWORD), hash_password(PASSWORD)
    assert one != two  # a fresh salt each time
    assert PASSWORD not in one


@pytest.mark.solr
def test_security_json_only_with_auth(tmp_path: Path) -> None:
    node = LocalSolr(tmp_path / "home")
    security = node.home / "standalone" / "security.json"
    try:
        st = node.start(auth=("bob", PASSWORD))
        assert st.auth_user == "bob" and node.running() is not None
        conf = json.loads(security.read_text(encoding="utf-8"))
        assert stat.S_IMODE(security.stat().st_mode) == 0o600
        assert conf["authentication"]["blockUnknown"] is True
        assert conf["authentication"]["class"] == "solr.BasicAuthPlugin"
        assert set(conf["authentication"]["credentials"]) == {"bob"}
        assert conf["authorization"]["user-role"] == {"bob": ["admin"]}
        assert {"name": "all", "role": "admin"} in conf["authorization"]["permissions"]
        assert_no_secret(security.read_text(encoding="utf-8"))
        system = f"{st.url}/admin/info/system"
        assert requests.get(system, timeout=10).status_code == 401
        assert requests.get(system, auth=("bob", WRONG), timeout=10).status_code == 401
        assert requests.get(system, auth=("bob", PASSWORD), timeout=10).status_code == 200
        with pytest.raises(SolrUnavailable, match="already running"):
            node.start()  # a node of another kind is not silently reused
        node.stop()
        st = node.start(auth=False)  # open only when asked
        assert not security.exists() and st.no_auth and not st.auth_user
        assert requests.get(f"{st.url}/admin/info/system", timeout=10).status_code == 200
    finally:
        node.stop()
    assert_no_secret(node.log_file.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.solr
def test_no_credentials_gives_a_clear_401(auth_node: AuthNode) -> None:
    url = f"{auth_node.url}/{auth_node.collection()}"
    proc = run_cli("-v", "index", str(RESTAURANTS), env={**CLEAN, "NEARDUP_SOLR_URL": url})
    assert proc.returncode == 1
    assert f"Solr at {auth_node.url}/admin/info/system requires a user and password" in proc.stderr
    assert "HTTP 401" in proc.stderr
    assert "--solr-user" in proc.stderr  # the CLI's hint; the library's message names no flag
    assert "Traceback" not in proc.stderr
    assert "retry" not in proc.stderr


@pytest.mark.solr
def test_wrong_password_gives_a_clear_401(auth_node: AuthNode) -> None:
    url = f"{auth_node.url}/{auth_node.collection()}"
    runs = [
        run_cli(
            "-v",
            "index",
            str(RESTAURANTS),
            "--solr-user",
            USER,
            "--solr-password",
            WRONG,
            env={**CLEAN, "NEARDUP_SOLR_URL": url},
        ),
        run_cli(
            "-v",
            "report",
            "--method",
            "lsh",
            "--out",
            os.devnull,
            "--solr-url",
            url.replace("://", f"://{USER}:{quote(WRONG, safe='')}@"),
            env=CLEAN,
        ),
    ]
    for proc in runs:
        assert proc.returncode == 1
        assert f"Solr at {auth_node.url}/admin/info/system refused the credentials" in proc.stderr
        assert f"user '{USER}'" in proc.stderr and "HTTP 401" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert_no_secret(proc.stdout, proc.stderr)
    assert_no_secret(auth_node.log_text())


@pytest.mark.solr
@pytest.mark.parametrize("way", ["flags", "env", "url"])
def test_right_credentials_index_and_report(auth_node: AuthNode, tmp_path: Path, way: str) -> None:
    name = auth_node.collection()
    # Through a proxy that answers 503 once to each kind of request (the writes' while
    # indexing, the reads' while reporting): the -v retry lines must not show the password
    # either.
    env = dict(CLEAN)

    def connect(url: str) -> list[str]:
        if way == "flags":
            return ["--solr-url", url, "--solr-user", USER, "--solr-password", PASSWORD]
        if way == "env":
            env.update(NEARDUP_SOLR_USER=USER, NEARDUP_SOLR_PASSWORD=PASSWORD)
            return ["--solr-url", url]
        return ["--solr-url", url.replace("://", f"://{USER}:{quote(PASSWORD, safe='')}@")]

    with FaultProxy(auth_node.url, [Fault("/update", "503", times=1)]) as proxy:
        indexed = run_cli("-v", "index", str(RESTAURANTS), *connect(f"{proxy.url}/{name}"),
                          env=env)  # fmt: skip
        written_through = f"{proxy.url}/{name}"
    out = tmp_path / "pairs.tsv"
    with FaultProxy(auth_node.url, [Fault("/select", "503", times=1)]) as proxy:
        report = run_cli("-v", "report", "--method", "lsh", "--out", str(out),
                         *connect(f"{proxy.url}/{name}"), env=env)  # fmt: skip
    for proc in (indexed, report):
        assert proc.returncode == 0, proc.stderr
        assert "neardup: retry 1 in" in proc.stderr
        assert_no_secret(proc.stdout, proc.stderr)
    assert "read 864, indexed 864" in indexed.stdout
    assert len(out.read_text(encoding="utf-8").splitlines()) > 10
    assert written_through in indexed.stdout  # the URL, shown without its credentials
    solr = Solr(auth_node.url, name, auth=Auth(USER, PASSWORD))
    assert solr.count(fq=["-id:_neardup_meta_"]) == 864
    assert_no_secret(auth_node.log_text())


@pytest.mark.solr
def test_a_users_pysolr_client_with_credentials(auth_node: AuthNode) -> None:
    """Its auth is taken over (the right one works end to end), a wrong one is named by user
    only, and credentials in its URL never reach a message."""
    url = f"{auth_node.url}/{auth_node.collection()}"
    index = NearDupIndex.open(pysolr.Solr(url, auth=(USER, PASSWORD)))
    try:
        stats = index.add_many([("1", "a b c d e f g h"), ("2", "a b c d e f g x")])
        assert stats.indexed == 2 and len(index) == 2
    finally:
        admin.delete_collection(index.backend.solr)
    session = requests.Session()
    session.auth = (USER, WRONG)
    with pytest.raises(SolrUnavailable) as wrong:
        NearDupIndex.open(pysolr.Solr(url, session=session))
    assert f"Solr at {auth_node.url}/admin/info/system refused the credentials" in str(wrong.value)
    assert f"user '{USER}'" in str(wrong.value) and "HTTP 401" in str(wrong.value)
    assert "--solr-user" not in str(wrong.value)  # flags are the CLI's business
    with_url = url.replace("://", f"://{USER}:{quote(WRONG, safe='')}@")
    with pytest.raises(SolrUnavailable) as in_url:
        NearDupIndex.open(pysolr.Solr(with_url))
    assert f"user '{USER}'" in str(in_url.value)
    with pytest.raises(SolrUnavailable) as none:
        NearDupIndex.open(pysolr.Solr(url))
    assert "requires a user and password (HTTP 401)" in str(none.value)
    # Typed, so the CLI adds its flags by the error's type, not by matching its words.
    assert all(isinstance(e.value, SolrUnauthorized) for e in (wrong, in_url, none))
    assert_no_secret(str(wrong.value), str(in_url.value), repr(Solr(with_url)))


# -- TLS ------------------------------------------------------------------------------------------
def test_tls_verification_is_on_by_default(tmp_path: Path) -> None:
    assert Solr("https://127.0.0.1:1/solr/x").session.verify is True
    assert Solr("http://127.0.0.1:1/solr/x", verify=True).session.verify is True
    bundle = tmp_path / "ca.pem"
    bundle.write_text("not used\n")
    assert Solr("https://127.0.0.1:1/solr/x", verify=str(bundle)).session.verify == str(bundle)
    with pytest.raises(MissingCABundle, match="does not exist"):
        Solr("https://127.0.0.1:1/solr/x", verify=str(tmp_path / "missing.pem"))
    assert issubclass(MissingCABundle, InputError)  # exit code 2 and the CLI's hint


@pytest.fixture
def untrusted_tls(tmp_path: Path) -> Iterator[str]:
    """An HTTPS server on 127.0.0.1 with a self-signed certificate nobody trusts."""
    import http.server
    import ssl
    import subprocess
    import threading

    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
         "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/solr/x"
    finally:
        server.shutdown()
        server.server_close()


def test_an_unverified_certificate_is_a_typed_error_with_the_clis_hint(untrusted_tls: str) -> None:
    with pytest.raises(SolrCertificateUnverified, match="certificate could not be verified"):
        Solr(untrusted_tls, retries=0).system_info()
    proc = run_cli("index", str(RESTAURANTS), "--solr-url", untrusted_tls, env=CLEAN)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "certificate could not be verified" in proc.stderr
    assert "(--solr-ca or NEARDUP_SOLR_CA)" in proc.stderr


def test_missing_ca_bundle_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing-ca.pem"
    url = "https://127.0.0.1:1/solr/x"
    runs = [
        run_cli("index", str(RESTAURANTS), "--solr-url", url, "--solr-ca", str(missing), env=CLEAN),
        run_cli(
            "index",
            str(RESTAURANTS),
            "--solr-url",
            url,
            env={**CLEAN, "NEARDUP_SOLR_CA": str(missing)},
        ),
    ]
    for proc in runs:
        assert proc.returncode in (1, 2)
        assert "Traceback" not in proc.stderr
        assert f"the CA bundle for Solr's TLS certificate does not exist: {missing}" in proc.stderr


# -- the node listens on 127.0.0.1 only -----------------------------------------------------------
LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}


def listeners(port: int) -> list[str]:
    """Local addresses (hex, as /proc/net/tcp* writes them) of the sockets listening on port."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.append(address)
    return found


@pytest.mark.solr
@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc/net/tcp")
def test_the_node_listens_on_loopback_only(auth_node: AuthNode) -> None:
    with socket.create_connection(("127.0.0.1", auth_node.port), timeout=5):
        pass
    found = listeners(auth_node.port)
    assert found, "no listener found for the node's port"
    assert set(found) <= LOOPBACK, found  # never 0.0.0.0 or ::


def test_no_shell_and_no_eval_of_input() -> None:
    """No user text can reach a shell or the interpreter: no shell=True, eval, exec, os.system
    (in every module of the package, its subpackages included)."""
    import re

    pattern = re.compile(r"shell\s*=\s*True|\beval\(|\bexec\(|os\.system\(|os\.popen\(")
    package = Path(__file__).resolve().parents[1] / "neardup"
    offenders = [
        f"{path.relative_to(package)}:{n}"
        for path in sorted(package.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []
    assert (package / "solr" / "client.py").exists()  # the walk does reach the subpackages


# -- the local node's own password (issue #26 item 9) ---------------------------------------------
def code_of(url: str) -> int:
    """The HTTP status of a plain GET with no credentials (urllib: nothing of neardup's)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.fixture(scope="module")
def own_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSolr]:
    """A node started as neardup starts it by default: with its own password."""
    with node_of_its_own(tmp_path_factory.mktemp("own") / "home") as node:
        yield node


def own_password(node: LocalSolr) -> str:
    text = node.credentials_file.read_text(encoding="utf-8")
    fields = text.split()
    assert fields[:4] == ["machine", "127.0.0.1", "login", "neardup"] and fields[4] == "password"
    return fields[5]


@pytest.mark.solr
def test_the_local_node_refuses_requests_without_its_password(
    own_node: LocalSolr, tmp_path: Path
) -> None:
    state = own_node.running()
    assert state is not None and state.auth_user == "neardup"
    file = own_node.credentials_file
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and file.stat().st_uid == os.geteuid()
    password = own_password(own_node)
    assert len(password) >= 24
    outside = tmp_path / "elsewhere"
    create = (
        f"{state.url}/admin/cores?action=CREATE&name=evil&instanceDir=evil&configSet=neardup_v2"
        f"&dataDir={quote(str(outside), safe='')}"
    )
    assert code_of(f"{state.url}/admin/cores?action=STATUS") == 401
    assert code_of(create) == 401
    assert not outside.exists() and not (own_node.home / "standalone" / "evil").exists()
    allowed = requests.get(
        f"{state.url}/admin/cores", params={"action": "STATUS"}, auth=("neardup", password),
        timeout=30,
    )  # fmt: skip
    assert allowed.status_code == 200  # the file's password is the node's
    # The password is nowhere but in its file: not in Solr's files, the JVM's arguments, the log.
    cmdline = Path(f"/proc/{state.pid}/cmdline")
    places = [own_node.home / "standalone" / "security.json", own_node.state_file,
              own_node.home / "classpath.args", own_node.log_file]  # fmt: skip
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in places]
    if cmdline.exists():
        texts.append(cmdline.read_bytes().decode("utf-8", "replace"))
    assert "neardup" in texts[0]  # the user, with the hash of the password
    for text in texts:
        assert password not in text
    assert password not in repr(own_node.client_auth(state))


@pytest.mark.solr
def test_neardup_uses_the_local_node_without_credentials_from_the_user(
    own_node: LocalSolr, tmp_path: Path
) -> None:
    state = own_node.running()
    assert state is not None
    password = own_password(own_node)
    env = {**CLEAN, "NEARDUP_HOME": str(own_node.home.parent), "NEARDUP_SOLR_URL": ""}
    out = tmp_path / "pairs.tsv"
    runs = [
        run_cli("index", str(RESTAURANTS), "--collection", "own_cli", env=env),
        run_cli("report", "--collection", "own_cli", "--out", str(out), env=env),
        # its URL as 'neardup solr status' prints it, given without a user
        run_cli("info", "--solr-url", f"{state.url}/own_cli", env=env),
        run_cli("solr", "status", env=env),
    ]
    for proc in runs:
        assert proc.returncode == 0, proc.stderr
        assert password not in proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
    assert "read 864, indexed 864" in runs[0].stdout
    assert len(out.read_text(encoding="utf-8").splitlines()) > 10
    assert "864" in runs[2].stdout
    assert f"password in {own_node.credentials_file}" in runs[3].stdout
    index = NearDupIndex.open(None, collection="own_lib", home=str(own_node.home.parent))
    try:
        index.add("1", "a record of the library's, with no credential given")
        assert len(index) == 1
        assert password not in repr(index) + repr(index.backend)
    finally:
        admin.delete_collection(index.backend.solr)  # type: ignore[attr-defined]


@pytest.mark.solr
def test_a_credentials_file_others_may_read_is_refused(own_node: LocalSolr) -> None:
    file = own_node.credentials_file
    env = {**CLEAN, "NEARDUP_HOME": str(own_node.home.parent), "NEARDUP_SOLR_URL": ""}
    password = own_password(own_node)
    try:
        for mode in (0o644, 0o640, 0o604):
            file.chmod(mode)
            proc = run_cli("index", str(RESTAURANTS), "--collection", "own_bad", env=env)
            assert proc.returncode == 2, proc.stderr
            assert f"{file}: the local Solr node's credentials file may be read by others" in (
                proc.stderr
            )
            assert f"(mode {mode:04o})" in proc.stderr and f"chmod 600 {file}" in proc.stderr
            assert "Traceback" not in proc.stderr and password not in proc.stderr + proc.stdout
        with pytest.raises(InputError, match="may be read by others"):
            NearDupIndex.open(None, collection="own_bad", home=str(own_node.home.parent))
    finally:
        file.chmod(0o600)
    assert run_cli("solr", "status", env=env).returncode == 0  # usable again once private


def test_the_credentials_file_is_private_from_its_creation(tmp_path: Path) -> None:
    node = LocalSolr(tmp_path / "home")
    previous = os.umask(0)  # even a umask that lets everyone read does not open it
    try:
        made = node.own_credentials()
    finally:
        os.umask(previous)
    info = node.credentials_file.stat()
    assert stat.S_IMODE(info.st_mode) == 0o600
    assert made.user == "neardup" and made.password == own_password(node)
    assert node.own_credentials() == made  # later starts reuse it
    assert LocalSolr(tmp_path / "other").own_credentials() != made  # random, per home
    assert made.password not in repr(made)


def test_a_credentials_file_not_ours_is_refused(tmp_path: Path) -> None:
    node = LocalSolr(tmp_path / "home")
    node.own_credentials()
    file = node.credentials_file
    real = tmp_path / "real"
    file.rename(real)
    file.symlink_to(real)
    with pytest.raises(InputError, match="it is a symbolic link"):
        node.own_credentials()
    file.unlink()
    real.rename(file)
    if os.geteuid() == 0:  # only root can give a file to another user
        os.chown(file, 65534, 65534)
        with pytest.raises(InputError, match=r"belongs to another user \(uid 65534\)"):
            node.own_credentials()
        os.chown(file, 0, 0)
    file.write_text("not a credentials file\n")
    file.chmod(0o600)
    with pytest.raises(InputError, match="not a credentials file of the local Solr node"):
        node.own_credentials()


@pytest.mark.solr
def test_no_auth_on_request_and_an_open_node_of_an_older_neardup(tmp_path: Path) -> None:
    """``--no-auth`` runs the node open and says so. A node an older neardup started (open,
    with no such choice in node.json) is used with a warning and never silently kept by
    ``solr start``; stopped and started again, it has a password."""
    home = tmp_path / "home"
    env = {**CLEAN, "NEARDUP_HOME": str(home), "NEARDUP_SOLR_URL": ""}
    node = LocalSolr(home)
    try:
        started = run_cli("solr", "start", "--no-auth", env=env)
        if started.returncode != 0 and not IN_CI and "could not start" in started.stderr:
            pytest.skip(f"no local Solr node: {started.stderr}")
        assert started.returncode == 0, started.stderr
        assert "no authentication (started so on purpose)" in started.stdout
        state = node.running()
        assert state is not None and state.no_auth and not state.auth_user
        assert code_of(f"{state.url}/admin/cores?action=STATUS") == 200
        assert not (node.home / "standalone" / "security.json").exists()
        # What an older neardup left in node.json: no credentials, no choice of running open.
        old = json.loads(node.state_file.read_text(encoding="utf-8"))
        del old["no_auth"], old["credentials"]
        node.state_file.write_text(json.dumps(old), encoding="utf-8")
        used = run_cli("index", str(RESTAURANTS), "--collection", "old", env=env)
        assert used.returncode == 0, used.stderr
        assert f"the local Solr node at {state.url} has no password" in used.stderr
        assert "'neardup solr stop'" in used.stderr
        status = run_cli("solr", "status", env=env)
        assert status.returncode == 0 and (
            "no authentication (started by an older neardup): run 'neardup solr stop', then "
            "'neardup solr start' to turn it on"
        ) in status.stdout
        again = run_cli("solr", "start", env=env)
        assert again.returncode == 1 and "Traceback" not in again.stderr
        assert "no authentication (started by an older neardup)" in again.stderr
        assert "run 'neardup solr stop' first" in again.stderr
        assert run_cli("solr", "stop", env=env).returncode == 0
        restarted = run_cli("solr", "start", env=env)
        assert restarted.returncode == 0, restarted.stderr
        assert f"password in {node.credentials_file}" in restarted.stdout
        state = node.running()
        assert state is not None
        assert code_of(f"{state.url}/admin/cores?action=STATUS") == 401
        info = run_cli("info", "--collection", "old", env=env)  # the old data, now behind it
        assert info.returncode == 0, info.stderr
        assert "864" in info.stdout
    finally:
        node.stop()


# -- URLs in messages -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [f"{USER}:{PASSWORD}@127.0.0.1:8983/solr", f"{USER}:{quote(PASSWORD, safe='')}@127.0.0.1/solr",
     f"ftp://{USER}:{PASSWORD}@127.0.0.1/solr"],
)  # fmt: skip
def test_a_url_that_is_not_solrs_never_shows_its_password(url: str) -> None:
    proc = run_cli("info", env={**CLEAN, "NEARDUP_SOLR_URL": url})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "not a Solr URL (http or https expected)" in proc.stderr
    assert "127.0.0.1" in proc.stderr  # the URL is still named, without its user:password
    assert_no_secret(proc.stdout, proc.stderr)


@pytest.mark.parametrize("url", ["http://[::1/solr", f"http://{USER}:{PASSWORD}@[::1/solr",
                                 "http://127.0.0.1:99999/solr"])  # fmt: skip
def test_a_malformed_url_is_an_error_not_a_traceback(url: str) -> None:
    proc = run_cli("info", env={**CLEAN, "NEARDUP_SOLR_URL": url})
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "neardup: error: not a Solr URL" in proc.stderr
    assert_no_secret(proc.stderr)
    with pytest.raises(InputError, match="not a Solr URL"):
        Solr(url)


# -- a CA bundle given wins over the environment's ------------------------------------------------
@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_the_given_ca_bundle_wins_over_the_environments(
    untrusted_tls: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    import subprocess

    import certifi

    cert = tmp_path / "cert.pem"  # the server's own, self-signed: the right CA to give
    monkeypatch.setenv(variable, certifi.where())  # a bundle that does not know the server
    # TLS is verified with the given CA and passes: the error is the test server's HTTP 501.
    for client in (Solr(untrusted_tls, verify=str(cert), retries=0),
                   Solr(untrusted_tls, verify=str(cert), retries=0).clone()):  # fmt: skip
        with pytest.raises(SolrRequestError, match="HTTP 501"):
            client.system_info()
    with pytest.raises(SolrRequestError, match="HTTP 501"):
        Solr.from_pysolr(pysolr.Solr(untrusted_tls, verify=str(cert))).system_info()
    env = {**CLEAN, variable: certifi.where()}
    right = run_cli("info", "--solr-url", untrusted_tls, "--solr-ca", str(cert), env=env)
    assert "HTTP 501" in right.stderr and "certificate" not in right.stderr, right.stderr
    # A given CA that did not sign it: the error names it, and does not ask for a CA bundle.
    other = tmp_path / "other.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=other", "-keyout", str(tmp_path / "other.key"), "-out", str(other)],
        check=True, capture_output=True,
    )  # fmt: skip
    wrong = run_cli("info", "--solr-url", untrusted_tls, "--solr-ca", str(other), env=env)
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert f"could not be verified with the CA bundle {other}" in wrong.stderr
    assert "--solr-ca or NEARDUP_SOLR_CA" not in wrong.stderr
    assert "give the CA bundle" not in wrong.stderr


# -- credentials over plain http ------------------------------------------------------------------
def test_credentials_over_plain_http_to_another_host_are_warned_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from neardup.solr import client as transport

    def send(url: str) -> None:
        with pytest.raises(SolrUnavailable):
            Solr(url, retries=0, retry_budget=0).system_info()

    transport._plain_http_warned.clear()
    with caplog.at_level("WARNING", logger="neardup.solr"):
        send(f"http://{USER}:{quote(PASSWORD, safe='')}@127.0.0.1:9/solr/x")  # this machine
        send(f"https://{USER}:{quote(PASSWORD, safe='')}@neardup-test.invalid:9/solr/x")
        send("http://neardup-test.invalid:9/solr/x")  # no credentials to protect
        assert not caplog.records
        for _ in range(2):
            send(f"http://{USER}:{quote(PASSWORD, safe='')}@neardup-test.invalid:9/solr/x")
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 1  # once per process
    assert "password is sent over plain http to neardup-test.invalid:9:" in warned[0]
    assert "use an https URL" in warned[0]
    assert_no_secret(*warned)
    transport._plain_http_warned.clear()
    proc = run_cli(
        "info", "--solr-url", "http://neardup-test.invalid:9/solr/x",
        env={**CLEAN, "NEARDUP_SOLR_USER": USER, "NEARDUP_SOLR_PASSWORD": PASSWORD},
    )  # fmt: skip
    assert proc.returncode == 1 and proc.stderr.count("sent over plain http") == 1
    assert_no_secret(proc.stdout, proc.stderr)


# -- neardup's home is private --------------------------------------------------------------------
def open_to_others(root: Path) -> list[str]:
    """Every folder and file under ``root`` (and itself) that the group or others may use."""
    found = []
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        if not stat.S_ISLNK(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
            found.append(f"{path} {stat.S_IMODE(info.st_mode):04o}")
    return found


def test_an_open_home_is_made_private_and_one_of_another_user_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from neardup.solr.local import make_private

    home = tmp_path / "home"
    data = home / "solr" / "standalone" / "core" / "data" / "index"
    data.mkdir(parents=True)
    (data / "_0.fdt").write_text("the records")
    for folder in (home, home / "solr", data):
        folder.chmod(0o755)
    (data / "_0.fdt").chmod(0o644)
    with caplog.at_level("WARNING", logger="neardup"):
        make_private(home)
    assert open_to_others(home) == []
    assert stat.S_IMODE((data / "_0.fdt").stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert f"{home} (0755) and {home / 'solr'} (0755) could be read by other users" in caplog.text
    fresh = tmp_path / "fresh"
    make_private(fresh)
    assert open_to_others(fresh) == []
    link = tmp_path / "link"
    link.symlink_to(home)
    with pytest.raises(InputError, match="must be a folder of its own, not a link"):
        make_private(link)
    if os.geteuid() == 0:  # only root can give a folder to another user
        os.chown(home / "solr", 65534, 65534)
        with pytest.raises(InputError, match=r"belongs to another user \(uid 65534\)"):
            make_private(home)
        with pytest.raises(InputError, match="belongs to another user"):
            LocalSolr(home).start()


@pytest.mark.solr
def test_the_nodes_files_are_private_also_those_solr_writes(own_node: LocalSolr) -> None:
    """The index files and the log hold the records: no other user may read them, also the
    files Solr writes after the start (its umask), and files an older neardup left open
    are repaired at the next start (see the test above)."""
    index = NearDupIndex.open(None, collection="own_private", home=str(own_node.home.parent))
    try:
        index.add_many([(str(i), f"a private record number {i} of {USER}") for i in range(50)])
        index.backend.solr.commit()  # type: ignore[attr-defined]
        home = own_node.home.parent
        stored = list((own_node.home / "standalone").rglob("*.fdt"))
        assert stored and own_node.log_file.stat().st_size > 0
        assert open_to_others(home) == []
        if os.geteuid() == 0 and Path("/usr/sbin/runuser").exists():
            import subprocess

            read = subprocess.run(["/usr/sbin/runuser", "-u", "nobody", "--", "cat",
                                   str(stored[0])], capture_output=True)  # fmt: skip
            assert read.returncode != 0 and b"private record" not in read.stdout
    finally:
        admin.delete_collection(index.backend.solr)  # type: ignore[attr-defined]


def test_a_home_that_cannot_be_a_folder_is_said_not_a_traceback(tmp_path: Path) -> None:
    """NEARDUP_HOME naming a file, or a path under a file: make_private made the folder before
    its own check, so solr start (and every verb that starts the node) ended with mkdir's
    traceback, exit 1. Now: exit 2, NEARDUP_HOME and the path named (JSON with --json)."""
    homefile = tmp_path / "homefile"
    homefile.write_text("not a folder\n")
    for home, said in ((homefile, "must be a folder of its own, not a link or a file"),
                       (homefile / "sub", "cannot make neardup's home there")):
        proc = run_cli("solr", "start", "--json", env={"NEARDUP_HOME": str(home)})
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        error = json.loads(proc.stdout)["error"]
        assert error.startswith(f"NEARDUP_HOME={home}: ") and said in error, error
    assert homefile.read_text() == "not a folder\n"
