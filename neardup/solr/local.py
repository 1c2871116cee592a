"""A private Solr node on 127.0.0.1, run from Maven Central artifacts of the pinned version.

There is no Docker engine on many machines and no Solr tarball on Maven Central, so the node is
Solr's own ``JettySolrRunner`` (from ``solr-test-framework``) started by a tiny launcher class,
whose Maven project is ``solr_config/launcher`` in the repository and
``neardup/resources/solr/launcher`` in the wheel (:func:`neardup.resources.launcher_dir` finds
either); it is built in the node's home. Maven resolves the artifacts once into ``~/.m2``;
afterwards a start is ``java -cp ... neardup.solr.Launcher``. The node's state (pid, port, URL)
lives in ``$NEARDUP_HOME`` (default ``~/.neardup``) so that a second ``start`` reuses the running
node and ``stop`` can find it from another process.

The node listens on 127.0.0.1 only, and a standalone node needs a password: any local user can
reach 127.0.0.1, and an open CoreAdmin would let them read, change or delete every index. On its
first start the node gets a random password, kept in ``<home>/solr/credentials`` (mode 0600,
netrc format, so ``curl --netrc-file`` reads it too); every later start reuses it, and neardup's
clients of the node read it from there (:meth:`LocalSolr.client_auth`). Solr's BasicAuthPlugin
gets only a salted hash, in ``security.json``. ``start(auth=(user, password))`` uses those
credentials instead, ``start(auth=False)`` runs the node open. The local SolrCloud (``cloud``)
gets the same protection: the launcher puts the same ``security.json`` into its ZooKeeper
before the nodes start, so they never run open.

The node's files are the user's alone: the records are in its index files and log, and a user
who may read them needs no password. ``NEARDUP_HOME`` and every folder under it are made 0700
and every file 0600 at each start (:func:`make_private`: folders and files left open by an
older neardup are repaired; a home of another user's is refused, as the credentials file is),
and Java runs with the umask 077, so the files Solr writes are private from their creation.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import requests

from .. import resources
from ..errors import InputError, SolrUnavailable
from ..resources import CONFIGSET_NAME, LEGACY_CONFIGSET, V2_CONFIGSET
from .client import Auth, credentials, split_url

try:
    import fcntl
except ImportError:  # not POSIX: starts are not serialized
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("neardup")

CONFIGSET = resources.configset_dir()
#: The umask the node's Java and Maven run with: the files they write are the user's alone.
PRIVATE_UMASK = 0o077
#: The local node's heap is this share of the machine's memory, within the bounds below,
#: unless ``LocalSolr(heap=...)`` says otherwise. 1 GB, Solr's own default, held the
#: benchmark's indexing to ~1,200 documents/s and ran out on a 50 MB record; a quarter of the
#: memory leaves the rest to the client, the page cache Lucene reads through, and the user.
HEAP_SHARE = 0.25
HEAP_MIN_MB = 1024
HEAP_MAX_MB = 8192
#: The smallest heap a node is started with, whoever asks: Solr 9 starts in 128 MB with an
#: empty index and in nothing much less, and Java refuses a tiny one only after the launch (a
#: '1k' ended as "java exited with code 1"); twice that leaves room for a first index.
HEAP_FLOOR_MB = 256
#: What a heap size looks like, for the messages of every place that checks one.
HEAP_EXPECTED = f"a size such as 512m or 4g, at least {HEAP_FLOOR_MB}m"
_UNIT_BYTES = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}


def heap_size(raw: str, what: str = "the Solr heap") -> str:
    """``raw`` as Java's ``-Xmx`` takes it, checked before Java is launched: an
    :class:`InputError` naming ``what`` (the variable, the flag or the argument it came from)
    for a size Java cannot read or Solr cannot start with.

    >>> heap_size(" 4g ")
    '4g'
    """
    text = raw.strip()
    m = re.fullmatch(r"([1-9][0-9]*)([kKmMgG]?)", text)
    if m is None or int(m[1]) * _UNIT_BYTES[m[2].lower()] < HEAP_FLOOR_MB * 2**20:
        raise InputError(f"{what} must be {HEAP_EXPECTED}, got {raw!r}")
    return text


def default_heap(total_bytes: int | None = None) -> str:
    """The heap for a node on this machine: a quarter of its memory, 1 to 8 GB.

    >>> default_heap(24 * 2**30), default_heap(2 * 2**30), default_heap(256 * 2**30)
    ('6144m', '1024m', '8192m')
    """
    if total_bytes is None:
        try:
            total_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            total_bytes = 0
    mb = int(total_bytes * HEAP_SHARE) // 2**20
    return f"{min(max(mb, HEAP_MIN_MB), HEAP_MAX_MB)}m"


DEFAULT_HEAP = default_heap()
START_TIMEOUT = 180.0
STOP_TIMEOUT = 60.0


def solr_version() -> str:
    """The pinned Solr version, shipped with the package."""
    return resources.solr_version()


#: The user of the node's own credentials.
LOCAL_USER = "neardup"
#: The node's own credentials, in its home (``~/.neardup/solr/credentials``).
CREDENTIALS_FILE = "credentials"
#: The file a node's JVM holds an flock on for its whole life (:meth:`LocalSolr._node_held`).
NODE_LOCK = "node.lock"


def neardup_home() -> Path:
    """Where the local node lives unless told otherwise: ``~/.neardup``."""
    return Path.home() / ".neardup"


@dataclass
class NodeState:
    """What a running node left behind for the next process: enough to reuse or stop it."""

    pid: int
    urls: list[str]
    version: str
    mode: str  # "standalone" or "cloud"
    log: str
    zk: str | None = None
    started: float = field(default_factory=time.time)
    #: The user of Solr's basic authentication, if the node was started with it (no password).
    auth_user: str | None = None
    #: The file of the node's own credentials, if it was started with them (the default).
    credentials: str | None = None
    #: Whether the node was asked to run without authentication (``auth=False``); a node
    #: without either was started by a neardup older than its own credentials.
    no_auth: bool = False

    @property
    def url(self) -> str:
        return self.urls[0]

    @property
    def open_from_old_version(self) -> bool:
        """Whether this node runs open only because an older neardup started it."""
        return not (self.auth_user or self.no_auth)

    def auth_text(self) -> str:
        """How the node is secured, in words for a user (never the password)."""
        if self.credentials:
            return f"basic authentication, user '{self.auth_user}', password in {self.credentials}"
        if self.auth_user:
            return f"basic authentication, user '{self.auth_user}'"
        if self.no_auth:
            return "no authentication (started so on purpose)"
        return "no authentication (started by an older neardup)"


def legacy_schema(schema: str) -> str:
    """This configset's schema as the indexes made before the band fields became longs need
    it: the same but for string band fields."""
    new = 'name="lsh_b*" type="plong"'
    if new not in schema:
        raise RuntimeError("the configset's band fields are not longs: legacy_schema is stale")
    return schema.replace(new, 'name="lsh_b*" type="string"')


#: The fields a short search looks up (:data:`neardup.backends.solr.SEARCH_FIELDS`), which the
#: configsets of older indexes must not have.
_SEARCH_FIELDS = re.compile(
    r'\s*<field name="nd_(words|shingles|unshingled|shingles_n|whole|c\d)"[^>]*/>'
)


def without_search(schema: str) -> str:
    """This configset's schema as the indexes made before records carried what a short
    search looks up need it: the same but without those fields."""
    out, found = _SEARCH_FIELDS.subn("", schema)
    if found != 10:
        raise RuntimeError("the configset has no search fields: without_search is stale")
    return out


def write_configsets(configsets: Path) -> None:
    """This neardup's configset under its name, and the ones the local node's older cores
    were made with under theirs: a core reads its configset by name each time it loads, so a
    core made by an older neardup must not be handed new fields (long band fields, or the
    search fields its records were written without)."""
    schema = "conf/schema.xml"
    ours = _tree_bytes(CONFIGSET)[schema].decode("utf-8")
    for name, text in ((CONFIGSET_NAME, ours), (V2_CONFIGSET, without_search(ours)),
                       (LEGACY_CONFIGSET, legacy_schema(without_search(ours)))):  # fmt: skip
        target = configsets / name
        want = _tree_bytes(CONFIGSET)
        want[schema] = text.encode("utf-8")
        if _tree_bytes(target) != want:  # any file, not only the schema (solrconfig.xml too)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(CONFIGSET, target)
            (target / schema).write_bytes(want[schema])


class LocalSolr:
    """Start, reuse, inspect and stop the private node of one ``NEARDUP_HOME``."""

    def __init__(
        self, home: Path | None = None, heap: str | None = None, auth: Auth | None = None
    ) -> None:
        self.home = (Path(home).expanduser() if home else neardup_home()).resolve() / "solr"
        self.heap = heap_size(heap or DEFAULT_HEAP, "the Solr heap (heap=)")
        #: Credentials for a node started with a user of the caller's (not its own).
        self.auth = auth
        self.version = solr_version()
        self.state_file = self.home / "node.json"
        self.credentials_file = self.home / CREDENTIALS_FILE
        self.log_file = self.home / "logs" / "solr.log"

    # -- state ------------------------------------------------------------------------------
    def state(self) -> NodeState | None:
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
            return NodeState(**data)
        except (OSError, ValueError, TypeError):
            return None

    def running(self) -> NodeState | None:
        """The node's state if its process is alive and Solr answers; stale state is removed."""
        st = self.state()
        if st is None:
            return None
        if not self._ours(st.pid) and not self._node_held():
            # dead (killed, or the machine rebooted), or the pid now belongs to another process
            self.state_file.unlink(missing_ok=True)
            return None
        # a pid this process cannot see whose lock is held: the node runs in another PID
        # namespace (a container or 'unshare' sharing NEARDUP_HOME), and is used as it is
        if not _healthy(st.url):
            return None
        return st

    def _node_held(self) -> bool:
        """Whether a node's JVM of this home is alive, wherever it runs: the JVM holds an
        flock on :data:`NODE_LOCK` for its whole life (given to it at its start), which the
        kernel drops when it dies, killed -9 or not, and which a reboot leaves no trace of.
        An flock is seen across PID namespaces, where the node's pid is not; a node started
        by a neardup older than the lock holds none, and is told by its pid alone."""
        if fcntl is None:
            return False
        try:
            fd = os.open(self.home / NODE_LOCK, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            os.close(fd)  # and with it the shared lock just taken, if it was
        return False

    def _unseen(self, st: NodeState | None, doing: str) -> SolrUnavailable:
        """The error of a command that would have to signal a node it cannot see."""
        which = f" (pid {st.pid}, {st.url})" if st is not None else ""
        return SolrUnavailable(
            f"the local Solr node of {self.home.parent}{which} runs in a "
            f"process this neardup cannot see (another PID namespace: a container or "
            f"'unshare' sharing NEARDUP_HOME), so it cannot {doing}; run 'neardup solr stop' "
            "where that node was started"
        )

    def _ours(self, pid: int) -> bool:
        """Whether ``pid`` is alive and is this home's Solr: node.json outlives a crash or a
        reboot, and its pid may since have gone to any other process, which must never be
        signalled. Told by the command line: neardup's launcher with this home."""
        if not _alive(pid):
            return False
        args = _command_line(pid)
        if "neardup.solr.Launcher" not in args:
            return False
        at = args.index("--home") if "--home" in args else -1
        return 0 <= at < len(args) - 1 and Path(args[at + 1]).parent == self.home

    # -- start ------------------------------------------------------------------------------
    def start(
        self,
        port: int | None = None,
        cloud: bool = False,
        nodes: int = 2,
        auth: Auth | tuple[str, str] | bool | None = None,
    ) -> NodeState:
        """Start a node, or return the running one if it is of the same kind.

        A node needs basic authentication (Solr's BasicAuthPlugin with ``blockUnknown``; the
        user has the role ``admin`` with the permission ``all``): by default with the node's
        own credentials, made on its first start and kept in :attr:`credentials_file`; with
        ``auth=(user, password)`` with those; ``auth=False`` runs it open. Only a salted hash
        of the password is written, to ``security.json`` in the node's Solr home (a SolrCloud
        reads it from its ZooKeeper, where the launcher puts it). The node's home is made
        private first (:func:`make_private`).
        """
        mode = "cloud" if cloud else "standalone"
        given, own = _start_arguments(port, auth)
        make_private(self.home.parent, deep=False)
        # one start at a time per home: two commands that found no node each started one,
        # two JVMs on one home, and the stop that followed knew only the last
        with self._start_lock():
            current = self.running()
            if current is not None:
                return self._reuse(current, mode, given, own, port)
            return self._start(mode, port, cloud, nodes, given, own)

    @contextmanager
    def _start_lock(self) -> Iterator[None]:
        """Held while a node starts or stops (an exclusive lock on a file of the home): a
        second command waits, then finds the node the first one started."""
        if fcntl is None:  # no flock where there is no fcntl: as before
            yield
            return
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.home / "start.lock", "a", opener=_private_opener) as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _start(
        self, mode: str, port: int | None, cloud: bool, nodes: int, given: Auth | None, own: bool
    ) -> NodeState:
        """:meth:`start` once no node runs (under :meth:`_start_lock`)."""
        node_auth = self.own_credentials() if own else given
        self._stop_stale()

        java = _require("java", "Java 17 (for example Debian's openjdk-17-jre-headless)")
        classpath = self.classpath()
        if port is None:
            port = 0 if cloud else _free_port()
        elif not cloud and not _port_free(port):
            raise SolrUnavailable(f"port {port} on 127.0.0.1 is in use; choose another port")

        solr_home = self.home / mode
        self._prepare_start(solr_home, node_auth, cloud)
        args = self._launch_args(java, classpath, solr_home, port)
        if cloud:
            args += ["--cloud", "--nodes", str(nodes)]
        pid, urls, zk = self._run_jvm(args, port, cloud, node_auth)
        st = NodeState(
            pid=pid,
            urls=urls,
            version=self.version,
            mode=mode,
            log=str(self.log_file),
            zk=zk,
            auth_user=node_auth.user if node_auth is not None else None,
            credentials=str(self.credentials_file) if own else None,
            no_auth=node_auth is None,
        )
        _write_private(self.state_file, json.dumps(asdict(st), indent=2))
        return st

    def _reuse(
        self, current: NodeState, mode: str, auth: Auth | None, own: bool, port: int | None = None
    ) -> NodeState:
        """The running node, if it is what :meth:`start` was asked for: another mode, another
        user or another port would silently serve the caller a node it did not ask for."""
        ports = [urlsplit(url).port for url in current.urls]
        if port is not None and port not in ports:
            on = ", ".join(str(p) for p in ports)
            raise SolrUnavailable(
                f"a node is already running at {current.url} (port {on}, pid {current.pid}), "
                f"not on port {port}; run 'neardup solr stop' first to start it on port {port}"
            )
        if current.mode != mode:
            raise SolrUnavailable(
                f"a {current.mode} node is already running at {current.url}; "
                "run 'neardup solr stop' first"
            )
        wanted = LOCAL_USER if own else auth.user if auth is not None else None
        if current.auth_user != wanted or bool(current.credentials) != own:
            raise SolrUnavailable(
                f"a node with {current.auth_text()} is already running at {current.url}; "
                "run 'neardup solr stop' first"
            )
        if own:
            self.client_auth(current)  # its credentials file must be fit to use
        return current

    def _stop_stale(self) -> None:
        """Forget a node that does not answer, stopping its process if it is this home's: it
        would hold the port and the cores' locks of the node started next."""
        stale = self.state()
        if stale is not None and self._ours(stale.pid):
            # The process lives but does not answer: it is still starting or hung.
            _terminate(stale.pid)
        elif self._node_held():
            # A node of this home lives where its pid cannot be seen, and does not answer: a
            # second JVM on the same home would find every core locked, and orphan the first.
            raise self._unseen(stale, "stop it to start another, and it does not answer")
        self.state_file.unlink(missing_ok=True)

    def _prepare_start(self, solr_home: Path, auth: Auth | None, cloud: bool) -> None:
        """The Solr home and the log folder of the node about to start, private."""
        self._prepare_home(solr_home, auth)
        if cloud:
            # The embedded ZooKeeper starts empty each time, so the nodes' old cores would be
            # orphans that block the start: a local SolrCloud keeps no data across restarts.
            shutil.rmtree(solr_home / "cloud", ignore_errors=True)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        # Everything already there (indexes and logs of a node an older neardup ran, the
        # files just written) becomes the user's alone; Java's umask keeps what comes next so.
        make_private(self.home.parent, deep=True)

    def _launch_args(self, java: str, classpath: str, solr_home: Path, port: int) -> list[str]:
        """The JVM's command line: neardup's launcher with this node's home, port and heap."""
        return [
            java,
            f"-Xmx{self.heap}",
            "-Djava.awt.headless=true",
            "-Dsolr.log.dir=" + str(self.log_file.parent),
            "-Dsolr.install.dir=" + str(solr_home),
            # Cores may keep data only under this node's own home (not "*": any local user
            # could otherwise have CoreAdmin write or read an index anywhere this user can).
            f"-Dsolr.allowPaths={self.home}",
            f"@{self._argfile(classpath)}",
            "neardup.solr.Launcher",
            "--home",
            str(solr_home),
            "--port",
            str(port),
        ]

    def _run_jvm(
        self, args: list[str], port: int, cloud: bool, auth: Auth | None
    ) -> tuple[int, list[str], str | None]:
        """Spawn the JVM and wait until it serves: its pid, URLs and ZooKeeper address.

        Until node.json is written nothing could find this JVM, and it runs in a session of
        its own, so any failure or Ctrl-C from the spawn on stops it here; spawn and stop stay
        in this one function so that no return between them leaves a window.
        """
        lock = self._node_lock()
        with open(self.log_file, "w", encoding="utf-8", opener=_private_opener) as out:
            out.write(f"# {' '.join(args)}\n")
            out.flush()
            with _ctrl_c_held() as held:
                try:
                    proc = subprocess.Popen(
                        args,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                        start_new_session=True,
                        cwd=str(self.home),
                        umask=PRIVATE_UMASK,
                        pass_fds=() if lock is None else (lock,),
                    )
                finally:
                    if lock is not None:  # the JVM's copy holds the lock from now on, alone
                        os.close(lock)
        try:
            if held:
                raise KeyboardInterrupt
            urls, zk = self._wait_ready(proc, port)
            if not cloud:
                _wait_cores(urls[0], auth)
        except BaseException:
            # Ctrl-C (or any failure) before node.json is written: nothing could find this
            # JVM afterwards, and it runs in a session of its own, so it is stopped here.
            _terminate(proc.pid)
            raise
        return proc.pid, urls, zk

    def _node_lock(self) -> int | None:
        """A file descriptor holding the flock of :data:`NODE_LOCK`, for the JVM to inherit:
        the lock then lives exactly as long as the JVM (:meth:`_node_held`)."""
        if fcntl is None:
            return None
        fd = os.open(self.home / NODE_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        deadline = time.monotonic() + 5  # another command may test it for a moment
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(fd)
                    raise self._unseen(self.state(), "stop it to start another") from None
                time.sleep(0.1)

    def own_credentials(self) -> Auth:
        """The node's own credentials: read from :attr:`credentials_file`, or, the first time,
        a new random password written there (0600 from the moment the file exists)."""
        try:
            return read_credentials(self.credentials_file)
        except FileNotFoundError:
            pass
        self.home.mkdir(parents=True, exist_ok=True)
        auth = Auth(LOCAL_USER, secrets.token_urlsafe(24))
        try:
            fd = os.open(
                self.credentials_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600
            )
        except FileExistsError:  # another process made it meanwhile: theirs
            return read_credentials(self.credentials_file)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(f"machine 127.0.0.1 login {auth.user} password {auth.password}\n")
            out.flush()
            os.fsync(out.fileno())
        return auth

    def client_auth(self, state: NodeState, given: Auth | None = None) -> Auth | None:
        """The credentials a client of this running node sends: the node's own when it was
        started with them (from its credentials file, checked), else ``given``."""
        make_private(self.home.parent, deep=False)
        if not state.credentials:
            return given
        try:
            return read_credentials(Path(state.credentials))
        except FileNotFoundError:
            raise SolrUnavailable(
                f"{state.credentials} is missing: the local Solr node at {state.url} keeps its "
                "password there; run 'neardup solr stop' and start it again (it gets a new one)"
            ) from None

    def _argfile(self, classpath: str) -> Path:
        """The classpath in a Java argument file, so that ``ps`` shows a readable command."""
        path = self.home / "classpath.args"
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_private(path, f'-cp "{classpath}"\n')
        return path

    def refresh_configset(self) -> None:
        """Give a running standalone node this neardup's configset for the cores it creates next.

        A standalone node copies the configset into its Solr home when it starts; a node started
        by an older neardup would otherwise create new cores with an older schema.
        """
        configsets = self.home / "standalone" / "configsets"
        if configsets.exists():
            write_configsets(configsets)

    def _prepare_home(self, solr_home: Path, auth: Auth | None = None) -> None:
        solr_home.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(resources.solr_xml(), solr_home / "solr.xml")
        security = solr_home / "security.json"
        security.unlink(missing_ok=True)
        if auth is not None:
            # Standalone Solr reads security.json from its Solr home, the launcher of a
            # SolrCloud puts it into ZooKeeper; only the owner may read it.
            _write_private(security, json.dumps(security_json(auth.user, auth.password), indent=2))
        write_configsets(solr_home / "configsets")

    def _wait_ready(self, proc: subprocess.Popen[bytes], port: int) -> tuple[list[str], str | None]:
        deadline = time.monotonic() + START_TIMEOUT
        zk: str | None = None
        while time.monotonic() < deadline:
            text = self.log_file.read_text(encoding="utf-8", errors="replace")
            for line in text.splitlines():
                if line.startswith("NEARDUP_ZK "):
                    zk = line.split(None, 1)[1].strip()
                if line.startswith("NEARDUP_READY "):
                    urls = [u.rstrip("/") for u in line.split()[1:]]
                    return urls, zk
                if line.startswith("NEARDUP_FAILED"):
                    _terminate(proc.pid)
                    raise SolrUnavailable(self._why(text, port))
            if proc.poll() is not None:
                raise SolrUnavailable(self._why(text, port, proc.returncode))
            time.sleep(0.25)
        _terminate(proc.pid)
        raise SolrUnavailable(
            f"Solr did not start within {START_TIMEOUT:.0f} s; see its log {self.log_file}"
        )

    def _why(self, log_text: str, port: int, code: int | None = None) -> str:
        if "BindException" in log_text or "Address already in use" in log_text:
            reason = f"port {port} on 127.0.0.1 is in use"
        elif "UnsupportedClassVersionError" in log_text:
            reason = "the Java on PATH is older than 17"
        elif "OutOfMemoryError" in log_text or "Could not reserve enough space" in log_text:
            reason = f"Java could not get its heap of {self.heap}; give the node a smaller one"
        else:
            lines = [ln for ln in log_text.splitlines() if ln.strip()]
            reason = lines[-1] if lines else "no output"
        exit_part = f" (java exited with code {code})" if code is not None else ""
        return f"Solr could not start{exit_part}: {reason}; see its log {self.log_file}"

    # -- build ------------------------------------------------------------------------------
    def classpath(self) -> str:
        """Compile the launcher and resolve Solr's jars with Maven, once per Solr version.

        The launcher's source is copied out of the package into the node's home and built
        there: an installed package may be read-only.
        """
        launcher = self._launcher_source()
        target = launcher / "target"
        cp_file = target / f"classpath-{self.version}.txt"
        classes = target / "classes"
        source = launcher / "src" / "main" / "java" / "neardup" / "solr" / "Launcher.java"
        built = classes / "neardup" / "solr" / "Launcher.class"
        fresh = (
            cp_file.exists()
            and built.exists()
            and built.stat().st_mtime >= source.stat().st_mtime
            and cp_file.stat().st_mtime >= (launcher / "pom.xml").stat().st_mtime
        )
        if not fresh:
            self._maven_build(launcher, cp_file)
        return str(classes) + os.pathsep + cp_file.read_text(encoding="utf-8").strip()

    def _launcher_source(self) -> Path:
        """The launcher's Maven project in the node's home, refreshed when the package's differs."""
        shipped = resources.launcher_dir()
        here = self.home / "launcher"
        if _tree_bytes(here, skip="target") != _tree_bytes(shipped, skip="target"):
            shutil.rmtree(here, ignore_errors=True)
            shutil.copytree(shipped, here, ignore=shutil.ignore_patterns("target"))
        return here

    def _maven_build(self, launcher: Path, cp_file: Path) -> None:
        mvn = _require("mvn", "Apache Maven (Debian's maven package)")
        self.home.mkdir(parents=True, exist_ok=True)
        log = self.home / "logs" / "maven.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        args = [
            mvn,
            "-B",
            "-q",
            f"-Dsolr.version={self.version}",
            "-f",
            str(launcher / "pom.xml"),
            "compile",
            "dependency:build-classpath",
            f"-Dmdep.outputFile={cp_file}",
        ]
        print(
            f"neardup: fetching Solr {self.version} from Maven Central (once) ...",
            file=sys.stderr,
            flush=True,
        )
        with open(log, "w", encoding="utf-8", opener=_private_opener) as out:
            code = subprocess.call(
                args, stdout=out, stderr=subprocess.STDOUT, cwd=str(launcher), umask=PRIVATE_UMASK
            )
        if code != 0 or not cp_file.exists():
            text = log.read_text(encoding="utf-8", errors="replace")
            if "Could not transfer" in text or "Could not resolve" in text or "UnknownHost" in text:
                reason = "the Maven repository could not be reached or lacks the artifacts"
            elif "COMPILATION ERROR" in text:
                reason = "the launcher did not compile (is the JDK 17 or newer?)"
            else:
                reason = f"Maven exited with code {code}"
            raise SolrUnavailable(
                f"cannot build the Solr {self.version} launcher: {reason}; see {log}"
            )

    # -- stop / status ----------------------------------------------------------------------
    def stop(self) -> NodeState | None:
        """Stop the node (all of its JVM) and forget it; returns what was stopped, if anything."""
        with self._start_lock():  # not while another command starts one
            return self._stop()

    def _stop(self) -> NodeState | None:
        st = self.state()
        if st is None:
            return None
        ours = self._ours(st.pid)
        if ours:
            _terminate(st.pid)
        elif self._node_held():
            raise self._unseen(st, "stop it")
        self.state_file.unlink(missing_ok=True)
        return st if ours else None

    def status(self) -> dict[str, object]:
        """What ``neardup solr status`` says: a node that answers, one whose process lives but
        does not answer (``answering`` False: still starting, or hung, so that the next command
        waits for it), or none."""
        st = self.running()
        if st is None:
            return self._silent_status()
        info = {
            "running": True,
            "answering": True,
            "pid": st.pid,
            "url": st.url,
            "urls": st.urls,
            "mode": st.mode,
            "log": st.log,
            "pinned_version": self.version,
        }
        info["auth"] = st.auth_text()
        if st.open_from_old_version:
            info["auth"] += ": run 'neardup solr stop', then 'neardup solr start' to turn it on"
        if st.auth_user:
            info["auth_user"] = st.auth_user
        if st.credentials:
            info["credentials"] = st.credentials
        auth = self.client_auth(st, self.auth) if st.auth_user else None
        try:
            r = requests.get(
                f"{st.url}/admin/info/system",
                params={"wt": "json"},
                timeout=10,
                auth=(auth.user, auth.password) if auth else None,
            )
            info["solr_version"] = r.json()["lucene"]["solr-spec-version"]
        except (requests.RequestException, ValueError, KeyError):
            info["solr_version"] = None
        if st.zk:
            info["zk"] = st.zk
        return info


    def _silent_status(self) -> dict[str, object]:
        """:meth:`status` when no node answers: its process may still live (a node stopped
        with SIGSTOP, or busy starting), which 'not running' hid."""
        info: dict[str, object] = {"running": False, "home": str(self.home),
                                   "pinned_version": self.version}  # fmt: skip
        st = self.state()
        if st is not None and (self._ours(st.pid) or self._node_held()):
            port = urlsplit(st.url).port
            info.update(running=True, answering=False, pid=st.pid, url=st.url, port=port,
                        mode=st.mode, log=st.log)  # fmt: skip
        return info


def url_auth(url: str, home: Path | None = None) -> Auth | None:
    """The own credentials of the node of ``home`` if ``url`` (holding none) is that node's
    running node's: its URL, as ``neardup solr status`` prints it, works without a password."""
    plain, given = credentials(url)
    try:
        if given is not None or urlsplit(plain).hostname != "127.0.0.1":
            return None
        base = split_url(plain)[0]
    except (InputError, ValueError):  # a malformed URL: split_url's error says so later
        return None
    local = LocalSolr(home)
    state = local.state()
    if state is None or not state.credentials or base not in state.urls:
        return None
    return local.client_auth(state)


def read_credentials(path: Path) -> Auth:
    """The user and password a credentials file of the local node holds (netrc format).

    The file must be a regular file of this user's that no one else may read: a password
    others could have read is no secret, and a file planted by someone else would make
    neardup send them nothing of value but trust their node. FileNotFoundError if missing.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise InputError(
            f"{path}: cannot use the local Solr node's credentials file: {why}"
        ) from None
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as file:
        info = os.fstat(file.fileno())
        mode = stat.S_IMODE(info.st_mode)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: the local Solr node's credentials file is not a file")
        if info.st_uid != os.geteuid():
            raise InputError(
                f"{path}: the local Solr node's credentials file belongs to another user (uid "
                f"{info.st_uid}); neardup uses only a file of its own user's"
            )
        if mode & 0o077:
            raise InputError(
                f"{path}: the local Solr node's credentials file may be read by others (mode "
                f"{mode:04o}); neardup uses it only when private: 'chmod 600 {path}' (or, for "
                "a new password, stop the node, delete the file and start the node again)"
            )
        words = file.read().split()
    fields = dict(zip(words[0::2], words[1::2], strict=False))
    if "login" not in fields or "password" not in fields:
        raise InputError(
            f"{path}: not a credentials file of the local Solr node (expected one line "
            "'machine 127.0.0.1 login USER password PASSWORD')"
        )
    return Auth(fields["login"], fields["password"])


def make_private(home: Path, deep: bool = True) -> None:
    """Make neardup's home (``NEARDUP_HOME``) the user's alone: the folder 0700 and, with
    ``deep``, every folder under it 0700 and every file without any permission for the group
    or others (0600; the owner's execute bit is kept).

    Checked like the credentials file: a home (or its ``solr`` folder) that is a symbolic link
    or belongs to another user is refused with an :class:`InputError`, since making it private
    or trusting its node would be wrong either way; modes that are too open are repaired, with
    a warning if one of those two folders was open (if they were closed, nothing under them
    could be reached; files neardup itself just copied in are repaired without a word). Why at
    each start: the index files and ``solr.log`` hold the records, and a node of an older
    neardup wrote them 0644 in 0755 folders.
    """
    home = Path(home)
    opened: list[str] = []
    for folder in (home, home / "solr"):
        # each folder checked before anything is made in it: a home that is a file, or under
        # one, gave mkdir's traceback instead of saying what is wrong with NEARDUP_HOME
        _make_folder(folder, home)
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            within = "" if folder == home else f" ({folder})"
            raise InputError(
                f"NEARDUP_HOME={home}: neardup's home{within} must be a folder of its own, not "
                "a link or a file; set NEARDUP_HOME to a folder"
            )
        if info.st_uid != os.geteuid():
            raise InputError(
                f"{folder}: neardup's home belongs to another user (uid {info.st_uid}); neardup "
                "keeps its node's indexes and password only in a folder of its own user's "
                "(set NEARDUP_HOME to one)"
            )
        if _open_to_others(folder, info.st_mode):
            opened.append(f"{folder} ({stat.S_IMODE(info.st_mode):04o})")
    if deep:
        for root, dirs, files in os.walk(home / "solr"):
            for name in dirs + files:
                path = Path(root) / name
                try:
                    info = os.lstat(path)
                except FileNotFoundError:  # removed meanwhile (a log rolled over)
                    continue
                if not stat.S_ISLNK(info.st_mode):
                    _open_to_others(path, info.st_mode)
    if opened:
        log.warning(
            "made neardup's home private: %s could be read by other users of this machine "
            "(now 0700)",
            " and ".join(opened),
        )


def _make_folder(folder: Path, home: Path) -> None:
    """Make ``folder`` of the home (0700: new folders are never open, even briefly) if it is
    missing; one that cannot be made is bad usage that names ``NEARDUP_HOME``."""
    try:
        folder.mkdir(parents=folder == home, exist_ok=True, mode=0o700)
    except FileExistsError:  # something else of that name: make_private says what
        pass
    except OSError as exc:
        raise InputError(
            f"NEARDUP_HOME={home}: cannot make neardup's home there ({folder}: {exc.strerror}); "
            "set NEARDUP_HOME to a folder of yours that can be made"
        ) from None


def _open_to_others(path: Path, mode: int) -> bool:
    """Take away the group's and others' permissions on ``path``; whether it had any."""
    if not stat.S_IMODE(mode) & 0o077:
        return False
    try:
        os.chmod(path, stat.S_IMODE(mode) & ~0o077, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InputError(f"{path}: cannot make neardup's home private: {exc.strerror}") from None
    return True


def _private_opener(path: str, flags: int) -> int:
    """``open(..., opener=_private_opener)``: a file created 0600, whatever the umask."""
    return os.open(path, flags, 0o600)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, a file of the user's alone (0600 also when it existed)."""
    with open(path, "w", encoding="utf-8", opener=_private_opener) as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(text)


def hash_password(password: str, salt: bytes | None = None) -> str:
    """A password as Solr's BasicAuthPlugin stores it: ``base64(hash) base64(salt)``.

    The hash is ``sha256(sha256(salt + password))`` over the UTF-8 bytes, with a random 32-byte
    salt (Solr's ``Sha256AuthenticationProvider``).
    """
    salt = os.urandom(32) if salt is None else salt
    digest = hashlib.sha256(hashlib.sha256(salt + password.encode("utf-8")).digest()).digest()
    return f"{base64.b64encode(digest).decode()} {base64.b64encode(salt).decode()}"


def security_json(user: str, password: str) -> dict[str, object]:
    """Basic authentication for one user, who may do everything (role ``admin``)."""
    return {
        "authentication": {
            "class": "solr.BasicAuthPlugin",
            "blockUnknown": True,
            "forwardCredentials": False,
            "credentials": {user: hash_password(password)},
        },
        "authorization": {
            "class": "solr.RuleBasedAuthorizationPlugin",
            "permissions": [{"name": "all", "role": "admin"}],
            "user-role": {user: ["admin"]},
        },
    }


def _require(program: str, what: str) -> str:
    path = shutil.which(program)
    if path is None:
        raise SolrUnavailable(f"'{program}' is not on PATH: the local Solr node needs {what}")
    return path


def _tree_bytes(root: Path, skip: str | None = None) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, with its bytes (empty if ``root`` is not),
    leaving out the top-level folder ``skip``."""
    if not root.is_dir():
        return {}
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if p.is_file() and (skip is None or rel.parts[0] != skip):
            out[str(rel)] = p.read_bytes()
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of this very process counts as dead.
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def _command_line(pid: int) -> list[str]:
    """The arguments of process ``pid`` (empty if they cannot be read)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    except OSError:
        pass
    try:  # no /proc (macOS): ask ps
        out = subprocess.run(
            ["ps", "-ww", "-o", "args=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return out.split()


def _start_arguments(
    port: int | None, auth: Auth | tuple[str, str] | bool | None
) -> tuple[Auth | None, bool]:
    """:meth:`LocalSolr.start`'s port and credentials checked before anything is touched: the
    credentials given (None for none or for the node's own) and whether they are the node's
    own."""
    if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                             or not 0 <= port <= 65535):  # fmt: skip
        raise InputError(f"port must be a number from 1 to 65535, got {port!r}")
    if auth is True:
        auth = None
    own = auth is None
    if auth is False or auth is None:
        auth = None
    elif not isinstance(auth, Auth):
        auth = Auth(*auth)  # type: ignore[misc]
    if auth is not None:
        if not auth.user or ":" in auth.user or not auth.password:
            raise InputError("authentication needs a user (without ':') and a password")
    return auth, own


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[list[int]]:
    """Hold Ctrl-C back while the JVM is spawned; the list says whether one came.

    A Ctrl-C that lands after the JVM exists but before ``Popen`` returns would leave a JVM
    in a session of its own that nothing stops; held back, it is raised where the caller
    stops the JVM. Only the main thread may set a signal handler; elsewhere nothing is held.
    """
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)


def _terminate(pid: int) -> None:
    """SIGTERM the node's process group (Jetty closes Solr in its hook), then SIGKILL if stuck."""
    for sig, wait in ((signal.SIGTERM, STOP_TIMEOUT), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.2)


def _healthy(url: str) -> bool:
    """Whether Solr answers at ``url``; a 401 is an answer too (a node with authentication)."""
    try:
        r = requests.get(f"{url}/admin/info/system", params={"wt": "json"}, timeout=5)
        return r.status_code in (200, 401)
    except requests.RequestException:
        return False


def _wait_cores(url: str, auth: Auth | None, wait: float = 60.0) -> None:
    """Wait until every loaded core serves real-time gets: after a crash, a core replays its
    transaction log in the background, and until that ends Solr answers HTTP 500 to them.

    Best effort: after ``wait`` seconds (or if Solr does not say which cores it has) the node
    is used as it is.
    """
    session = requests.Session()
    if auth is not None:
        session.auth = (auth.user, auth.password)
    deadline = time.monotonic() + wait
    try:
        status = session.get(
            f"{url}/admin/cores", params={"action": "STATUS", "wt": "json"}, timeout=10
        ).json()
        pending = sorted(status.get("status", {}))
        while pending and time.monotonic() < deadline:
            core = pending[0]
            r = session.post(
                f"{url}/{core}/get", data={"ids": "_neardup_probe_", "wt": "json"}, timeout=10
            )
            if r.status_code == 500:
                time.sleep(0.2)
            else:
                pending.pop(0)
    except (requests.RequestException, ValueError, AttributeError):
        pass
    finally:
        session.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_free(port: int) -> bool:
    """Whether Jetty can listen on ``port``: like Jetty, ignore connections in TIME_WAIT."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True
