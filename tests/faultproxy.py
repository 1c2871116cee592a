"""A small fault-injecting HTTP proxy on 127.0.0.1 in front of a real Solr, for the tests.

It forwards every request to the real Solr unchanged, except requests that match a
:class:`Fault`: those are answered with an HTTP error (503, 500 or 400), held past the client's
timeout and then dropped,
or cut off (the connection is closed without an answer, which the client sees as a connection
error). A fault applies to the first ``times`` matching requests, or, with ``seconds``, to every
matching request for that many seconds after the first one. While the real Solr is down, the proxy
closes connections too, so a client behind it sees a connection error.

The proxy is a context manager; it also shuts itself down after ``lifetime`` seconds, so a failed
test never leaves it running. Nothing but 127.0.0.1 is involved.

The proxy sends the target's credentials with each request that comes without any: those of
its URL (``user:password@``), else those neardup finds for it (:func:`neardup.config.load`: the
password of the local node of ``NEARDUP_HOME`` at that URL, as the tests' node). So its own URL
needs none, as a Solr's URL given to a client with its credentials would.
"""

from __future__ import annotations

import base64
import http.client
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit, urlunsplit

#: Headers that belong to one connection, not to the message, and are not forwarded.
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
}
#: HTTP errors a fault can answer with, and the other actions.
STATUSES = ("400", "500", "503")
ACTIONS = (*STATUSES, "sleep", "close")


@dataclass
class Fault:
    """Which requests to disturb, how, and how often."""

    path: str  # a substring of the request path, e.g. "/select" or "/admin/cores"
    action: str = "503"  # a status of STATUSES, "sleep" (hold ``sleep`` s, then drop) or "close"
    times: int = 1  # disturb the first ``times`` matching requests ...
    seconds: float = 0.0  # ... or, if > 0, all matching requests this long after the first
    contains: str = ""  # only requests whose query string or body contains this
    sleep: float = 0.0  # for "sleep": how long to hold the request
    hits: int = 0  # matching requests seen
    injected: int = 0  # faults injected
    first: float | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown fault action {self.action!r}")

    def matches(self, path: str, body: bytes) -> bool:
        if self.path not in path:
            return False
        return not self.contains or self.contains in path or self.contains.encode() in body

    def fires(self, now: float) -> bool:
        """Count one matching request; whether it is to be disturbed."""
        self.hits += 1
        if self.first is None:
            self.first = now
        fire = now - self.first < self.seconds if self.seconds > 0 else self.hits <= self.times
        if fire:
            self.injected += 1
        return fire


class FaultProxy:
    """``with FaultProxy("http://127.0.0.1:8983/solr", [Fault("/select", times=2)]) as p:``.

    ``p.url`` is the proxied form of the target URL (same path, the proxy's port).
    """

    def __init__(self, target: str, faults: list[Fault] | None = None, lifetime: float = 120.0):
        self.faults = list(faults or [])
        self.lifetime = lifetime
        self.log: list[tuple[str, str, int | str]] = []  # (method, path, status or fault)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._closed = False
        self.retarget(target)
        proxy = self

        class Handler(_Handler):
            owner = proxy

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False  # type: ignore[attr-defined]
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime, self.close)
        self._timer.daemon = True

    # -- life -----------------------------------------------------------------------------------
    def start(self) -> FaultProxy:
        self._thread.start()
        self._timer.start()
        return self

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stop.set()
        self._timer.cancel()
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- routing --------------------------------------------------------------------------------
    def retarget(self, target: str) -> None:
        """Forward to another Solr (for example the same node restarted on another port)."""
        from neardup.config import load
        from neardup.solr.client import credentials

        target, auth = credentials(target)
        auth = auth or load(solr_url=target).auth
        self._authorization = (
            "Basic " + base64.b64encode(f"{auth.user}:{auth.password}".encode()).decode()
            if auth is not None
            else None
        )
        parts = urlsplit(target.rstrip("/"))
        if parts.hostname != "127.0.0.1":
            raise ValueError("the fault proxy only forwards to 127.0.0.1")
        self._target_path = parts.path
        self._upstream = ("127.0.0.1", int(parts.port or 80))

    @property
    def url(self) -> str:
        return urlunsplit(("http", f"127.0.0.1:{self.port}", self._target_path, "", ""))

    def fault_for(self, method: str, path: str, body: bytes) -> Fault | None:
        now = time.monotonic()
        with self._lock:
            for fault in self.faults:
                if fault.matches(path, body):
                    if fault.fires(now):
                        self.log.append((method, path, fault.action))
                        return fault
                    return None
        return None

    def record(self, method: str, path: str, status: int | str) -> None:
        with self._lock:
            self.log.append((method, path, status))


class _Handler(BaseHTTPRequestHandler):
    owner: FaultProxy
    protocol_version = "HTTP/1.1"  # keep-alive, as a client talking to Solr would see it
    timeout = 30  # an idle kept-alive connection ends its thread after this long

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # quiet

    def do_GET(self) -> None:  # noqa: N802
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def do_PUT(self) -> None:  # noqa: N802
        self._handle()

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle()

    def _handle(self) -> None:
        proxy = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fault = proxy.fault_for(self.command, self.path, body)
        if fault is not None:
            if fault.action in STATUSES:
                code = int(fault.action)
                body = f'{{"error":{{"msg":"injected by the fault proxy","code":{code}}}}}'
                self._answer(code, body.encode())
            elif fault.action == "sleep":
                proxy._stop.wait(fault.sleep)  # the client gives up meanwhile
                self._cut()
            else:
                self._cut()
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        if proxy._authorization and not any(k.lower() == "authorization" for k in headers):
            headers["Authorization"] = proxy._authorization
        host, port = proxy._upstream
        conn = http.client.HTTPConnection(host, port, timeout=600)
        try:
            conn.request(self.command, self.path, body=body or None, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
            out_headers = [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP_BY_HOP]
        except OSError:
            proxy.record(self.command, self.path, "upstream down")
            self._cut()  # Solr is not there: the client sees a connection error
            return
        finally:
            conn.close()
        proxy.record(self.command, self.path, status)
        self._answer(status, data, out_headers)

    def _answer(
        self, status: int, data: bytes, headers: list[tuple[str, str]] | None = None
    ) -> None:
        try:
            self.send_response(status)
            for key, value in headers or [("Content-Type", "application/json")]:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _cut(self) -> None:
        """Close the connection without an answer."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
