"""Fixtures that give the tests a real Solr of the pinned version.

Where the Solr comes from, in order: ``NEARDUP_SOLR_URL``; a testcontainers Solr if a Docker
engine answers; otherwise neardup's own local node, in a home of its own under ``.neardup/test``
so that the tests never touch a user's node. With ``CI=true`` a Solr that cannot be had fails
the run; elsewhere the tests that need Solr are skipped with the reason.

neardup's own nodes have a password by default, so the URL ``solr_base`` gives for the tests'
node carries its credentials (``http://neardup:...@127.0.0.1:port/solr``): every client a test
makes from it (neardup's, pysolr's, requests') sends them. ``NEARDUP_HOME`` is the tests' home
meanwhile, so that neardup (a CLI run, ``NearDupIndex.open``) finds the password for the node's
plain URL too, as it does for a user's node. ``with_credentials`` gives the URL of a test's
private node its credentials.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest

from neardup import NearDupIndex, Params
from neardup.backends.duckdb_file import DuckDBBackend
from neardup.backends.solr import SolrBackend
from neardup.solr import admin
from neardup.solr.admin import connect
from neardup.solr.client import Solr
from neardup.solr.local import CONFIGSET, LocalSolr, solr_version

REPO = Path(__file__).resolve().parents[1]
TEST_HOME = REPO / ".neardup" / "test"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _docker_answers() -> bool:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


def _testcontainers_solr() -> Iterator[str]:
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs

    container = (
        DockerContainer(f"solr:{solr_version()}")
        .with_exposed_ports(8983)
        .with_volume_mapping(str(CONFIGSET), "/opt/solr/server/solr/configsets/neardup_v3", "ro")
        .with_command("solr-precreate neardup /opt/solr/server/solr/configsets/neardup_v3")
    )
    with container:
        wait_for_logs(container, "Started", timeout=120)
        host, port = container.get_container_host_ip(), container.get_exposed_port(8983)
        yield f"http://{host}:{port}/solr"


@pytest.fixture(scope="session")
def solr_base() -> Iterator[str]:
    """The base URL of a real Solr (``http://host:port/solr``)."""
    url = os.environ.get("NEARDUP_SOLR_URL")
    if url:
        yield url
        return
    if _docker_answers():
        yield from _testcontainers_solr()
        return
    node = LocalSolr(TEST_HOME)
    running = node.running()
    if running is not None and running.mode == "standalone" and not running.credentials:
        node.stop()  # the test node of an older neardup, open: started again with a password
        running = None
    was_running = running is not None
    try:
        state = node.start()
    except Exception as exc:  # a Solr that cannot start: fail in CI, skip elsewhere
        if IN_CI:
            pytest.fail(f"CI=true and no Solr could be started: {exc}", pytrace=False)
        pytest.skip(f"no Solr: {exc}")
    home = os.environ.get("NEARDUP_HOME")
    os.environ["NEARDUP_HOME"] = str(TEST_HOME)
    try:
        yield with_credentials(node, state.url)
    finally:
        if home is None:
            os.environ.pop("NEARDUP_HOME", None)
        else:
            os.environ["NEARDUP_HOME"] = home
        if not was_running:
            node.stop()


def credentials_env(node: LocalSolr) -> dict[str, str]:
    """The environment that gives the CLI ``node``'s own credentials, for a URL that is not
    the node's own (a fault proxy's): as a user gives credentials for a Solr of theirs."""
    state = node.state()
    auth = node.client_auth(state) if state is not None else None
    if auth is None:
        return {}
    return {"NEARDUP_SOLR_USER": auth.user, "NEARDUP_SOLR_PASSWORD": auth.password}


def with_credentials(node: LocalSolr, url: str | None = None) -> str:
    """``url`` (default: the running node's) with ``user:password@`` of ``node``'s own
    credentials, for the clients a test makes itself."""
    state = node.running()
    assert state is not None, "the node is not running"
    url = url or state.url
    auth = node.client_auth(state)
    if auth is None:
        return url
    userinfo = f"{quote(auth.user, safe='')}:{quote(auth.password, safe='')}@"
    return url.replace("://", f"://{userinfo}", 1)


#: Fixtures that mean "this test talks to a real Solr": such tests get the ``solr`` marker, so
#: that ``pytest -m "not solr"`` runs the rest in seconds without Java.
SOLR_FIXTURES = {"solr_base", "new_collection", "collection", "restaurants", "safety"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SOLR_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.solr)


_counter = itertools.count()


@pytest.fixture
def new_collection(solr_base: str) -> Iterator[Callable[[str], Solr]]:
    """A factory of fresh, empty collections; they are deleted after the test."""
    made: list[Solr] = []

    def make(prefix: str = "t") -> Solr:
        name = f"test_{prefix}_{os.getpid()}_{next(_counter)}"
        solr = connect(solr_base, name)
        made.append(solr)
        return solr

    yield make
    for solr in made:
        try:
            admin.delete_collection(solr)
        except Exception:
            pass


@pytest.fixture
def collection(new_collection: Callable[[str], Solr]) -> Solr:
    return new_collection("c")


@pytest.fixture(params=["memory", "duckdb", pytest.param("solr", marks=pytest.mark.solr)])
def backend_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_index(
    backend_kind: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., NearDupIndex]:
    """A factory of empty indexes on the backend of the test's parameter (memory, a DuckDB
    file or Solr)."""

    def make(params: Params | None = None) -> NearDupIndex:
        if backend_kind == "memory":
            return NearDupIndex(params)
        if backend_kind == "duckdb":
            backend = DuckDBBackend(tmp_path_factory.mktemp("duckdb") / "index.duckdb")
            request.addfinalizer(backend.close)
            return NearDupIndex(params, backend=backend)
        factory = request.getfixturevalue("new_collection")
        return NearDupIndex(params, backend=SolrBackend(factory("i")))

    return make


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """The real ``neardup`` command in a child process (exit codes, stdout, stderr)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "neardup", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=str(REPO),
    )


@contextmanager
def counted(solr: Solr) -> Iterator[list[str]]:
    """The paths (``select``, ``get``, ``update`` ...) of the requests ``solr`` sends meanwhile.

    Counted on its HTTP session, which pysolr's calls and the thin JSON calls share.
    """
    paths: list[str] = []
    session = solr.session
    original = session.request
    prefix = solr.url + "/"

    def counting(method: str, url: str, *args: object, **kw: object) -> object:
        path = str(url).split("?", 1)[0]
        paths.append(path[len(prefix) :].strip("/") if path.startswith(prefix) else path)
        return original(method, url, *args, **kw)  # type: ignore[arg-type]

    session.request = counting  # type: ignore[method-assign]
    try:
        yield paths
    finally:
        session.request = original  # type: ignore[method-assign]


@contextmanager
def node_of_its_own(home: Path) -> Iterator[LocalSolr]:
    """A private local node in ``home`` (a test may kill, restart or break it), stopped
    afterwards; fails in CI and skips elsewhere if it cannot start."""
    node = LocalSolr(home)
    try:
        node.start()
    except Exception as exc:
        if IN_CI:
            pytest.fail(f"CI=true and no local Solr node could start: {exc}", pytrace=False)
        pytest.skip(f"no local Solr node: {exc}")
    try:
        yield node
    finally:
        node.stop()
