"""A private Solr node on 127.0.0.1, run from Maven Central artifacts of the pinned version.

There is no Docker engine on many machines and no Solr tarball on Maven Central, so the node is
Solr's own ``JettySolrRunner`` (from ``solr-test-framework``) started by a tiny launcher class in
``solr_config/launcher``. Maven resolves the artifacts once into ``~/.m2``; afterwards a start is
``java -cp ... neardup.solr.Launcher``. The node's state (pid, port, URL) lives in
``$NEARDUP_HOME`` (default ``~/.neardup``) so that a second ``start`` reuses the running node and
``stop`` can find it from another process.

The node listens on 127.0.0.1 only. ``start(auth=(user, password))`` turns on Solr's
BasicAuthPlugin (every request needs the user's credentials) with a ``security.json`` in the
node's Solr home; a start without ``auth`` removes that file, so the node is open again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import requests

from .. import resources
from ..errors import InputError, SolrUnavailable
from ..resources import CONFIGSET_NAME, LEGACY_CONFIGSET
from .client import Auth

CONFIGSET = resources.configset_dir()
#: The local node's heap is this share of the machine's memory, within the bounds below,
#: unless ``LocalSolr(heap=...)`` says otherwise. 1 GB, Solr's own default, held the
#: benchmark's indexing to ~1,200 documents/s and ran out on a 50 MB record; a quarter of the
#: memory leaves the rest to the client, the page cache Lucene reads through, and the user.
HEAP_SHARE = 0.25
HEAP_MIN_MB = 1024
HEAP_MAX_MB = 8192


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

    @property
    def url(self) -> str:
        return self.urls[0]


def legacy_schema(schema: str) -> str:
    """This configset's schema as the indexes made before the band fields became longs need
    it: the same but for string band fields."""
    new = 'name="lsh_b*" type="plong"'
    if new not in schema:
        raise RuntimeError("the configset's band fields are not longs: legacy_schema is stale")
    return schema.replace(new, 'name="lsh_b*" type="string"')


def write_configsets(configsets: Path) -> None:
    """This neardup's configset under its name, and the one the local node's older cores were
    made with under theirs: a core reads its configset by name each time it loads, so a core
    made by an older neardup must not be handed the new band fields."""
    target = configsets / CONFIGSET_NAME
    if _tree_bytes(target) != _tree_bytes(CONFIGSET):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(CONFIGSET, target)
    legacy = configsets / LEGACY_CONFIGSET
    schema = "conf/schema.xml"
    want = _tree_bytes(CONFIGSET)
    want[schema] = legacy_schema(want[schema].decode("utf-8")).encode("utf-8")
    if _tree_bytes(legacy) != want:  # any file, not only the schema (solrconfig.xml too)
        shutil.rmtree(legacy, ignore_errors=True)
        shutil.copytree(CONFIGSET, legacy)
        (legacy / schema).write_bytes(want[schema])


class LocalSolr:
    """Start, reuse, inspect and stop the private node of one ``NEARDUP_HOME``."""

    def __init__(
        self, home: Path | None = None, heap: str | None = None, auth: Auth | None = None
    ) -> None:
        self.home = (Path(home).expanduser() if home else neardup_home()).resolve() / "solr"
        self.heap = (heap or DEFAULT_HEAP).strip()
        if not re.fullmatch(r"[1-9][0-9]*[kKmMgG]?", self.heap):
            raise InputError(f"Solr heap must be a size such as 512m or 4g, got {heap!r}")
        #: Credentials for the status check of a node started with authentication.
        self.auth = auth
        self.version = solr_version()
        self.state_file = self.home / "node.json"
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
        if not self._ours(st.pid):  # dead, or the pid now belongs to another process
            self.state_file.unlink(missing_ok=True)
            return None
        if not _healthy(st.url):
            return None
        return st

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
        auth: Auth | tuple[str, str] | None = None,
    ) -> NodeState:
        """Start a node, or return the running one if it is of the same kind.

        With ``auth=(user, password)`` (standalone only) every request to the node needs that
        user's credentials (Solr's BasicAuthPlugin with ``blockUnknown``; the user has the role
        ``admin`` with the permission ``all``). Only a salted hash of the password is written, to
        ``security.json`` in the node's Solr home; without ``auth`` that file is removed.
        """
        mode = "cloud" if cloud else "standalone"
        if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                                 or not 0 <= port <= 65535):  # fmt: skip
            raise InputError(f"port must be a number from 1 to 65535, got {port!r}")
        if auth is not None and not isinstance(auth, Auth):
            auth = Auth(*auth)
        if auth is not None:
            if cloud:
                raise InputError("authentication is only available on the standalone local node")
            if not auth.user or ":" in auth.user or not auth.password:
                raise InputError("authentication needs a user (without ':') and a password")
        current = self.running()
        if current is not None:
            if current.mode != mode:
                raise SolrUnavailable(
                    f"a {current.mode} node is already running at {current.url}; "
                    "run 'neardup solr stop' first"
                )
            wanted = auth.user if auth is not None else None
            if current.auth_user != wanted:
                now = f"user '{current.auth_user}'" if current.auth_user else "no authentication"
                raise SolrUnavailable(
                    f"a node with {now} is already running at {current.url}; "
                    "run 'neardup solr stop' first"
                )
            return current
        stale = self.state()
        if stale is not None and self._ours(stale.pid):
            # The process lives but does not answer: it is still starting or hung.
            _terminate(stale.pid)
        self.state_file.unlink(missing_ok=True)

        java = _require("java", "Java 17 (for example Debian's openjdk-17-jre-headless)")
        classpath = self.classpath()
        if port is None:
            port = 0 if cloud else _free_port()
        elif not cloud and not _port_free(port):
            raise SolrUnavailable(f"port {port} on 127.0.0.1 is in use; choose another port")

        solr_home = self.home / mode
        self._prepare_home(solr_home, auth)
        if cloud:
            # The embedded ZooKeeper starts empty each time, so the nodes' old cores would be
            # orphans that block the start: a local SolrCloud keeps no data across restarts.
            shutil.rmtree(solr_home / "cloud", ignore_errors=True)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        args = [
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
        if cloud:
            args += ["--cloud", "--nodes", str(nodes)]
        with open(self.log_file, "w", encoding="utf-8") as log:
            log.write(f"# {' '.join(args)}\n")
            log.flush()
            proc = subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=str(self.home),
            )
        try:
            urls, zk = self._wait_ready(proc, port)
            if not cloud:
                _wait_cores(urls[0], auth)
        except BaseException:
            # Ctrl-C (or any failure) before node.json is written: nothing could find this
            # JVM afterwards, and it runs in a session of its own, so it is stopped here.
            _terminate(proc.pid)
            raise
        st = NodeState(
            pid=proc.pid,
            urls=urls,
            version=self.version,
            mode=mode,
            log=str(self.log_file),
            zk=zk,
            auth_user=auth.user if auth is not None else None,
        )
        self.state_file.write_text(json.dumps(asdict(st), indent=2), encoding="utf-8")
        return st

    def _argfile(self, classpath: str) -> Path:
        """The classpath in a Java argument file, so that ``ps`` shows a readable command."""
        path = self.home / "classpath.args"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'-cp "{classpath}"\n', encoding="utf-8")
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
            # Standalone Solr reads security.json from its Solr home; only the owner may read it.
            fd = os.open(security, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(security_json(auth.user, auth.password), out, indent=2)
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
        with open(log, "w", encoding="utf-8") as out:
            code = subprocess.call(args, stdout=out, stderr=subprocess.STDOUT, cwd=str(launcher))
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
        st = self.state()
        if st is None:
            return None
        ours = self._ours(st.pid)
        if ours:
            _terminate(st.pid)
        self.state_file.unlink(missing_ok=True)
        return st if ours else None

    def status(self) -> dict[str, object]:
        st = self.running()
        if st is None:
            return {"running": False, "home": str(self.home), "pinned_version": self.version}
        info = {
            "running": True,
            "pid": st.pid,
            "url": st.url,
            "urls": st.urls,
            "mode": st.mode,
            "log": st.log,
            "pinned_version": self.version,
        }
        if st.auth_user:
            info["auth_user"] = st.auth_user
        auth = self.auth if st.auth_user else None
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
