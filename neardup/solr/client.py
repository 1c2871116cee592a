"""How neardup talks to Solr: searches through pysolr, everything on one ``requests`` session.

It never starts a Solr (that is :mod:`neardup.solr.local`) and never manages collections (that
is :mod:`neardup.solr.admin`): it sends requests to one collection and reads the answers.

Searches and commits go through a :class:`pysolr.Solr`; updates (adds and deletes, as JSON in
bodies of at most ``UPDATE_BYTES``: see :meth:`Solr._update` for why not pysolr's), real-time
get and the admin calls of :mod:`neardup.solr.admin` go through :meth:`Solr.request`, a thin
JSON call. Both use the same ``requests.Session``, on which a
:class:`RetryAdapter` is mounted: the one place where transport failures and Solr's error
answers become neardup's exceptions, with messages that name the URL and never credentials,
and where idempotent requests are retried (each retry logged at INFO on the ``neardup.solr``
logger, which ``neardup -v`` shows). pysolr only catches ``requests`` exceptions, so neardup's
own pass through it untouched. Every user value in a query is quoted by :func:`quote` or sent
as a parameter of its own (:func:`terms_params`, :func:`any_term_params`).

Retry policy (see :class:`RetryAdapter`):

- Only idempotent requests are retried (searches, reads, adds by id, commits, deletes); a
  request sent with ``idempotent=False`` (creating a core or collection) is tried once.
- Retried: connection errors (refused, reset, dropped), timeouts, and HTTP 408, 429, 502, 503
  and 504; HTTP 500 only briefly (1.5 s: a core that replays its transaction log after a crash
  answers 500 for a moment). Never retried: other HTTP errors (400, 401, 403, 404 ...), TLS
  failures, and a request of ``LARGE_REQUEST`` bytes or more whose connection Solr reset or
  closed: the request itself is the likely cause (a node out of heap, a proxy's body limit),
  so the error says so, with its size, instead of "cannot reach Solr" after several tries.
- The waits double from 0.5 s, capped at 8 s, while the retry budget lasts: 30 s from the first
  attempt of a request (``retry_budget``; 0 turns retries off), and the first
  retry is always made. So an idempotent request rides through a restart of Solr of 10 to 20 s
  and then gives up with the URL in the message; a Solr that hangs costs two timeouts.
- A server that has never answered this client is not retried for long: until the first HTTP
  answer, the budget is 1.5 s (two quick retries), so a wrong URL or a Solr that is not running
  fails within seconds. Once the server has answered, a refused connection means a restart.
- A server that one request gave up on after its whole budget, unanswered, is gone: the next
  requests to it in this process (the cleanup after the failure, a second stage) get the brief
  budget too, until one is answered, so that a Solr killed during a job fails it in about 30 s,
  not 30 s a request.
- A request may take 60 s unless ``timeout`` (seconds) says otherwise; a few long operations
  (commit, create) set their own. It is both the read timeout (each wait for the next bytes)
  and a deadline for the whole answer (:class:`_Watchdog`): a server that trickles its answer
  a byte at a time is cut at it, as one that sends nothing is, and retried like a timeout.

Why not urllib3's ``Retry`` (``HTTPAdapter(max_retries=Retry(...))``): it counts attempts and
has no time budget; one ``status_forcelist`` shares one count, so HTTP 500 cannot be retried
more briefly than 503; it knows nothing across requests, so "brief until the server first
answered" has no place; its first backoff is 0 s; errors while reading a body (a connection
cut after the headers) happen after it has returned, so they are never retried; and on giving
up it raises ``MaxRetryError``, whose message is not the neardup message with Solr's own
reason. A subclass would override ``increment``, ``get_backoff_time``, ``is_exhausted`` and
``sleep``, i.e. all of it, so the policy is the small loop of :meth:`RetryAdapter.send`.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import heapq
import ipaddress
import json
import logging
import os
import queue
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

import pysolr
import requests
from requests.adapters import HTTPAdapter

from ..errors import (
    InputError,
    MissingCABundle,
    NeardupError,
    SolrCertificateUnverified,
    SolrRequestError,
    SolrUnauthorized,
    SolrUnavailable,
)

log = logging.getLogger("neardup.solr")
T = TypeVar("T")

DEFAULT_COLLECTION = "neardup"
CONNECT_TIMEOUT = 5.0
#: Read timeout of a request, in seconds.
DEFAULT_TIMEOUT = 60.0
#: Read timeout of a commit (it may wait for segments to be written and a searcher to open).
COMMIT_TIMEOUT = 600.0
#: Seconds after a request's first attempt in which retries may start.
RETRY_BUDGET = 30.0
#: The budget while the server has not answered this client yet (a URL where nothing listens
#: fails fast instead of being retried for half a minute), and for HTTP 500.
BRIEF_BUDGET = 1.5
#: Servers (``host:port``) a request gave up on after its whole budget without an answer,
#: until one answers again: their next requests get :data:`BRIEF_BUDGET`.
_GONE: set[str] = set()
#: First wait between attempts, doubled after each retry up to ``BACKOFF_CAP``.
BACKOFF_START = 0.5
BACKOFF_CAP = 8.0
#: HTTP statuses that say "try again later": a proxy or a Solr that is (re)starting or busy.
RETRY_STATUSES = frozenset({408, 429, 502, 503, 504})
#: Request bodies at least this large are not retried when Solr resets or closes their
#: connection. An update of 1000 ordinary records is a few MB; 32 MB is an oversized record (or
#: several large ones in one batch), which Solr may not survive twice.
LARGE_REQUEST = 32 * 1024 * 1024
#: Update bodies (adds, deletes) are split into requests of at most this many bytes: half of
#: ``LARGE_REQUEST``, so that only a single oversized document ever makes a large request (and
#: its error then names one record's size), while a batch of 1000 ordinary records (a few MB)
#: still goes in one request.
UPDATE_BYTES = LARGE_REQUEST // 2
#: Request header that marks a request as not idempotent (sent once); the adapter removes it
#: before the request leaves, so Solr never sees it.
ONCE_HEADER = "X-Neardup-Once"


def quote(value: str) -> str:
    """A Lucene-syntax phrase that matches ``value`` exactly on a string field, whatever it holds.

    Inside double quotes only the backslash and the double quote are special, so escaping those
    two makes operators, colons, brackets and ``AND``/``OR``/``NOT`` inert.
    """
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def or_query(field: str, values: Iterable[str]) -> str:
    """``field:"v1" OR field:"v2" ...``: the seed's ranked query (a scored BooleanQuery)."""
    return " OR ".join(f"{field}:{quote(v)}" for v in values)


def terms_params(field: str, values: Sequence[str], prefix: str = "nd") -> dict[str, str]:
    """Parameters of a ``{!terms}`` query: no clause limit, the values passed by reference.

    The values travel in their own request parameter joined by a separator that none of them
    contains, so no value is ever parsed as syntax.
    """
    sep = _separator(values)
    return {
        "q": f"{{!terms f={field} separator=${prefix}.sep v=${prefix}.terms}}",
        f"{prefix}.sep": sep,
        f"{prefix}.terms": sep.join(values),
    }


def any_term_params(terms: Sequence[tuple[str, str]], prefix: str = "nd") -> dict[str, str]:
    """Parameters of a query for documents with any of ``(field, value)`` terms, any fields.

    One ``{!term}`` query per pair, OR-ed by ``{!bool}``; every value travels in a request
    parameter of its own, so no value is ever parsed as syntax.
    """
    params: dict[str, str] = {}
    clauses = []
    for i, (fld, value) in enumerate(terms):
        params[f"{prefix}.v{i}"] = value
        params[f"{prefix}.q{i}"] = f"{{!term f={fld} v=${prefix}.v{i}}}"
        clauses.append(f"should=${prefix}.q{i}")
    if not clauses:
        raise InputError("cannot build a query from no terms")
    return {"q": f"{{!bool {' '.join(clauses)}}}", **params}


def _separator(values: Sequence[str]) -> str:
    for sep in ("\n", "\x1f", "\x1e", "\x1d", "\t"):
        if not any(sep in v for v in values):
            return sep
    raise InputError("cannot build a terms query: every separator occurs inside the values")


@dataclass(frozen=True)
class Auth:
    user: str
    #: Left out of the repr: an Auth in a message, a log or a traceback never shows it.
    password: str = field(repr=False)


def split_url(url: str) -> tuple[str, str | None]:
    """Split ``http://h:p/solr/coll`` into (``http://h:p/solr``, ``coll``); a base URL has none."""
    try:
        parts = urlsplit(url.rstrip("/"))
        parts.port  # noqa: B018 - a port that is no number raises here, not later
    except ValueError as exc:  # "Invalid IPv6 URL", a port out of range ...
        raise InputError(f"not a Solr URL ({exc}): {redact(url)}") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"not a Solr URL (http or https expected): {redact(url)}")
    path = parts.path.rstrip("/")
    segments = [s for s in path.split("/") if s]
    if not segments or segments[-1] == "solr":
        return urlunsplit((parts.scheme, parts.netloc, path or "/solr", "", "")), None
    base = "/".join(segments[:-1])  # none before the name: the server's root, no '//admin'
    root = f"/{base}" if base else ""
    return urlunsplit((parts.scheme, parts.netloc, root, "", "")), segments[-1]


#: Solr's rule for collection and core names, as neardup enforces it: letters, digits, ``.``,
#: ``_`` and ``-``, not starting with ``.`` or ``-``. A name is a path under the node's home
#: and a segment of every URL: ``..`` or ``a/../b`` would reach outside the collection.
_COLLECTION_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
#: The longest collection name: its core's folder is named after it, with a shard's and a
#: replica's suffix, and a file name holds 255 bytes (Solr answered a 300-character name with
#: its own error about a core's properties, exit 1).
COLLECTION_NAME_MAX = 200


def check_collection_name(name: str) -> str:
    """``name`` if Solr's rule allows it as a collection's, else an :class:`InputError`."""
    if not _COLLECTION_NAME.fullmatch(name):
        raise InputError(
            f"not a collection name: {name!r} (letters, digits, '.', '_' and '-', not starting "
            "with '.' or '-')"
        )
    if len(name) > COLLECTION_NAME_MAX:
        raise InputError(
            f"not a collection name: {name[:40]!r}... is {len(name)} characters long, over "
            f"{COLLECTION_NAME_MAX} (a folder of the Solr node is named after it, with more)"
        )
    return name


#: ``scheme://userinfo@rest``, the userinfo up to the last ``@`` before a host: a password
#: holding ``/``, ``#``, ``?`` or ``@`` unencoded must not be read as a path, a fragment, a
#: query or a host (and then shown in messages).
_USERINFO = re.compile(r"(?is)([a-z][a-z0-9+.-]*://)(.*)@([^@/?#]*(?:[/?#][^@]*)?)")


def credentials(url: str) -> tuple[str, Auth | None]:
    """``url`` without its ``user:password@`` part, and those credentials (percent-escapes
    decoded), if it has them."""
    m = _USERINFO.fullmatch(url.strip())
    if m is None:
        return url, None
    user, _, password = m.group(2).partition(":")
    return m.group(1) + m.group(3), Auth(unquote(user), unquote(password))


#: ``scheme://userinfo@`` anywhere in a text (a message that quotes a URL).
_TEXT_USERINFO = re.compile(r"(?i)([a-z][a-z0-9+.-]*://)[^\s/?#]*@")


def redact(url: str) -> str:
    """The URL without any user:password part, for messages and logs; also a URL given
    without its scheme (``alice:pw@127.0.0.1:8983/solr``), where the userinfo becomes
    ``***@``."""
    plain, given = credentials(url)
    if given is None and "://" not in url:  # read as if it had one, up to the last '@'
        rest, given = credentials("x://" + url.strip())
        if given is not None:
            return "***@" + rest[len("x://") :]
    return plain


def mask_userinfo(text: str) -> str:
    """``text`` with the userinfo of every URL it quotes replaced by ``***``: the last guard
    before a message is printed, so that no path of a URL into a message shows a password.

    >>> mask_userinfo("cannot reach http://alice:pw@solr.example:8983/solr/x: refused")
    'cannot reach http://***@solr.example:8983/solr/x: refused'
    """
    return _TEXT_USERINFO.sub(r"\1***@", text)


class _Session(requests.Session):
    """A session whose own ``verify`` (a CA bundle given to neardup, or False) wins over the
    ``REQUESTS_CA_BUNDLE`` and ``CURL_CA_BUNDLE`` variables.

    requests lets those variables override ``Session.verify`` in ``merge_environment_settings``
    whenever a request does not pass ``verify`` itself (psf/requests#3829; pysolr never passes
    it), so a bundle given with ``--solr-ca`` was silently replaced by the environment's. Why
    not ``trust_env = False``: that would also drop the environment's proxies, which a user
    behind one needs; why not ``verify=`` on each request: pysolr's calls cannot pass it.
    Only ``verify`` is changed here; a session left at ``verify = True`` still takes the
    environment's bundle, as requests documents.
    """

    def merge_environment_settings(  # type: ignore[override]
        self, url: str, proxies: Any, stream: Any, verify: Any, cert: Any
    ) -> dict[str, Any]:
        settings = super().merge_environment_settings(url, proxies, stream, verify, cert)
        if verify is None and self.verify is not True:
            settings["verify"] = self.verify
        return settings


#: Whether this process has warned about credentials sent over plain http (once is enough).
_plain_http_warned = threading.Event()


def _warn_plain_http(host: str) -> None:
    """Warn once per process that basic credentials go over plain http to another machine
    (``host``: its name and port).

    Warned, not refused: a Solr on a private network (a Docker network, a VPN) is often
    reached over http, and such a setup must keep working; but nobody should learn only
    later that the password crossed the network in the clear.
    """
    if _plain_http_warned.is_set():
        return
    _plain_http_warned.set()
    log.warning(
        "the Solr password is sent over plain http to %s: anyone on the network between can "
        "read it (basic authentication is only base64); use an https URL",
        host,
    )


#: How a user gives a request more time, said by the errors of a request that took too long.
TIMEOUT_HINT = " (set NEARDUP_SOLR_TIMEOUT to more seconds to allow it more)"


class _Overdue(Exception):
    """A response's body was cut at its request's deadline (:func:`_read_by`)."""


class _Watchdog:
    """One thread that cuts the responses whose request is past its deadline.

    A read timeout bounds each wait for the next bytes, not a request: a server (or proxy)
    that sends a byte every few seconds kept neardup waiting for ever. The body is read by
    :func:`_read_by` while this thread holds its deadline; past it, the response's socket is
    shut down for reading (urllib3's public ``HTTPResponse.shutdown``), which ends the
    blocked read at once. One thread for every request (a ``threading.Timer`` a request cost
    0.2-0.5 ms, which thousands of searches of a report would pay); none runs until the
    first request.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._cuts: dict[int, Any] = {}
        self._next = 0
        self._thread: threading.Thread | None = None

    def watch(self, deadline: float, cut: Any) -> int:
        """Call ``cut()`` at ``deadline`` (monotonic) unless :meth:`done` comes first."""
        with self._cond:
            self._next += 1
            key = self._next
            self._cuts[key] = cut
            heapq.heappush(self._heap, (deadline, key))
            if self._thread is None or not self._thread.is_alive():  # (also after a fork)
                self._thread = threading.Thread(target=self._run, name="neardup-deadline",
                                                daemon=True)  # fmt: skip
                self._thread.start()
            elif self._heap[0][1] == key:
                self._cond.notify()
            return key

    def done(self, key: int) -> bool:
        """Forget ``key``; whether its deadline had passed (and its cut been called)."""
        with self._cond:
            return self._cuts.pop(key, None) is None

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                heap = self._heap
                while heap and (heap[0][0] <= now or heap[0][1] not in self._cuts):
                    cut = self._cuts.pop(heapq.heappop(heap)[1], None)
                    if cut is not None:
                        with contextlib.suppress(Exception):  # released meanwhile: nothing to cut
                            cut()
                self._cond.wait(heap[0][0] - now if heap else None)


_WATCHDOG = _Watchdog()
if hasattr(os, "register_at_fork"):  # a child gets a lock and a heap of its own
    os.register_at_fork(after_in_child=_WATCHDOG.__init__)


def _read_by(resp: requests.Response, deadline: float | None) -> None:
    """Read ``resp``'s body (``resp.content``), raising :class:`_Overdue` if it is not all
    there at ``deadline`` (monotonic seconds; None: no deadline but the read timeout)."""
    shutdown = getattr(resp.raw, "shutdown", None)  # urllib3 2.3 and newer
    if deadline is None or shutdown is None:
        resp.content  # noqa: B018
        return
    key = _WATCHDOG.watch(deadline, shutdown)
    try:
        resp.content  # noqa: B018
    except requests.RequestException:
        if _WATCHDOG.done(key):
            raise _Overdue from None
        raise
    _WATCHDOG.done(key)  # all read: a deadline that passed just now cut nothing of it


class RetryAdapter(HTTPAdapter):
    """neardup's retry policy and error messages for every request of one session.

    Mounted on the session that pysolr and :meth:`Solr.request` share, so both get the same
    policy (module docstring) from one place. A 2xx/3xx answer is returned with its body read;
    anything else raises :class:`SolrUnavailable` (cannot reach, 401, 403) or
    :class:`SolrRequestError` (Solr said no), naming the URL without credentials.
    """

    def __init__(self, collection: str, retries: int, retry_budget: float) -> None:
        super().__init__()
        self.collection = collection
        self.retries = retries
        self.retry_budget = retry_budget
        #: Whether the server has answered this session with HTTP at least once.
        self.answered = False
        #: The CA bundle given for the server's certificate (None: the system's or the
        #: environment's): an error then names it instead of asking for one.
        self.ca: str | None = None

    def send(  # type: ignore[override]
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: bool | str = True,
        cert: Any = None,
        proxies: Any = None,
    ) -> requests.Response:
        idempotent = request.headers.pop(ONCE_HEADER, None) is None
        where = redact(str(request.url).split("?", 1)[0].rstrip("/"))
        if (
            request.headers.get("Authorization")
            and str(request.url).lower().startswith("http://")
            and not is_loopback(str(request.url))
        ):
            _warn_plain_http(urlsplit(where).netloc)
        read_timeout = timeout[1] if isinstance(timeout, tuple) else timeout
        delay = BACKOFF_START
        started = time.monotonic()
        attempt = 0
        host = urlsplit(where).netloc
        while True:
            attempt += 1
            brief = host in _GONE  # an error that only earns a short retry budget
            unanswered = False
            begun = time.monotonic()
            try:
                resp = super().send(request, stream, timeout, verify, cert, proxies)
                if not stream:  # read here, so that a cut body is retried too
                    _read_by(resp, None if read_timeout is None else begun + read_timeout)
            except requests.RequestException as exc:
                error: NeardupError = self._unanswered(exc, request, where, read_timeout)
                unanswered = True
            except _Overdue:
                error = SolrUnavailable(
                    f"Solr at {where}: the request did not finish within {read_timeout:g} s"
                    f"{TIMEOUT_HINT}"
                )
                unanswered = True
            else:
                self.answered = True
                _GONE.discard(host)
                if resp.status_code < 400:
                    return resp
                error = self._http_error(resp, request, where)
                resp.close()
                brief = brief or resp.status_code == 500
                if resp.status_code not in RETRY_STATUSES and not brief:
                    raise error
            pause = min(delay, self._budget_left(attempt, started, brief))
            if not idempotent or attempt > self.retries or pause <= 0:
                if unanswered and attempt > 1 and self.answered:
                    _GONE.add(host)  # it answered once, and not for a whole budget: gone
                if attempt > 1:
                    spent = time.monotonic() - started
                    error = type(error)(
                        f"{error} (gave up after {attempt} attempts, {spent:.0f} s)"
                    )
                raise error
            log.info("retry %d in %.1f s after: %s", attempt, pause, error)
            time.sleep(pause)
            delay = min(delay * 2, BACKOFF_CAP)

    def _unanswered(
        self,
        exc: requests.RequestException,
        request: requests.PreparedRequest,
        where: str,
        read_timeout: float | None,
    ) -> NeardupError:
        """The error of a request that got no HTTP answer, when a retry may help; raised at
        once when it cannot (a certificate refused, a large request cut, a bad URL)."""
        if isinstance(exc, requests.exceptions.SSLError):
            unverified = "CERTIFICATE_VERIFY_FAILED" in str(exc)
            if unverified and self.ca is not None:
                # The bundle was given: asking for one would send the user in a circle.
                raise SolrUnavailable(
                    f"cannot reach Solr at {where}: its TLS certificate could not be "
                    f"verified with the CA bundle {self.ca} (is that the CA that signed "
                    "it, and is the host name in the certificate?)"
                ) from None
            kind = SolrCertificateUnverified if unverified else SolrUnavailable
            raise kind(f"cannot reach Solr at {where}: {_reason(exc)}") from None
        if isinstance(exc, requests.Timeout):
            return SolrUnavailable(
                f"Solr at {where} did not answer within {read_timeout:g} s{TIMEOUT_HINT}"
            )
        if isinstance(exc, requests.ConnectionError | requests.exceptions.ChunkedEncodingError):
            reason = _reason(exc)
            size = _body_size(request)
            if size >= LARGE_REQUEST and not reason.startswith("connection refused"):
                raise SolrUnavailable(
                    f"Solr at {where} closed the connection on a request of {size} bytes "
                    f"({reason}; not retried): the request is likely too large for it "
                    "(a record too large, or a node short of heap: see Solr's log)"
                ) from None
            return SolrUnavailable(f"cannot reach Solr at {where}: {reason}")
        raise SolrUnavailable(f"cannot talk to Solr at {where}: {_reason(exc)}") from None

    def _budget_left(self, attempt: int, started: float, brief: bool) -> float:
        """Seconds the retries of one request may still take: a server that never answered,
        or answered 500, earns only a brief budget."""
        budget = self.retry_budget
        if brief or not self.answered:
            budget = min(budget, BRIEF_BUDGET)
        # The first retry always comes (a request that timed out after 60 s gets a second
        # chance); later ones only while the budget lasts, counted from the first attempt.
        return budget if attempt == 1 else budget - (time.monotonic() - started)

    def _http_error(
        self, resp: requests.Response, request: requests.PreparedRequest, where: str
    ) -> NeardupError:
        code = resp.status_code
        if code == 401:
            sent = request.headers.get("Authorization")
            if not sent:
                return SolrUnauthorized(f"Solr at {where} requires a user and password (HTTP 401)")
            user = _basic_user(sent)
            whose = f" of user '{user}'" if user is not None else ""
            return SolrUnauthorized(f"Solr at {where} refused the credentials{whose} (HTTP 401)")
        if code == 403:
            return SolrUnavailable(f"Solr at {where} forbids this request to this user (HTTP 403)")
        msg = ""
        try:
            body = resp.json()
            msg = (body.get("error") or {}).get("msg") or ""
        except (ValueError, AttributeError):
            msg = resp.text[:300].strip()
            title = re.search(r"<title>(.*?)</title>", msg, re.S | re.I)
            if msg.startswith("<"):  # Jetty's HTML error page: its title says it all
                msg = title.group(1).strip() if title else ""
        if code == 404:
            hint = f"does the collection '{self.collection}' exist?"
            if f"/{self.collection}/" not in urlsplit(where).path:
                # a request of the server (the first one: admin/info/system), not of the
                # collection: nothing like Solr answers at the URL given
                hint = "is this Solr's base URL (like http://host:8983/solr) or a collection's?"
            return SolrRequestError(
                f"not found at {where} (HTTP 404): {hint}"
                + (f" The server says: {msg}" if msg else "")  # (it may be no Solr at all)
            )
        return SolrRequestError(f"Solr at {where} answered HTTP {code}: {msg or resp.reason}")


def _body_size(request: requests.PreparedRequest) -> int:
    """The bytes of a request's body (0 for none, or one streamed without a length)."""
    body = request.body
    if isinstance(body, bytes | str):
        return len(body)
    return int(request.headers.get("Content-Length") or 0)


class EncodedJSON(str):
    """A value already written as JSON text, sent as it is (a caller that writes part of its
    documents faster than ``json.dumps``: :func:`neardup.backends.solr.encoded_documents`)."""

    __slots__ = ()


def _json_batches(items: Iterable[Any], limit: int) -> Iterator[str]:
    """``items`` as JSON (an :class:`EncodedJSON` as it is), comma-separated, in runs of at
    most ``limit`` bytes; an item larger than ``limit`` is a run of its own. Nothing for no
    items."""
    run: list[str] = []
    size = 0
    for item in items:
        text = item if isinstance(item, EncodedJSON) else json.dumps(item, allow_nan=False)
        if run and size + len(text) > limit:
            yield ", ".join(run)
            run, size = [], 0
        run.append(text)
        size += len(text) + 2
    if run:
        yield ", ".join(run)


def _basic_user(header: str) -> str | None:
    """The user of a basic ``Authorization`` header (never its password), else None."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        return base64.b64decode(token).decode("utf-8", "replace").split(":", 1)[0]
    except ValueError:
        return None



class Answer(dict):  # type: ignore[type-arg]
    """Solr's JSON answer; a part it lacks is a :class:`SolrRequestError` that says so, not a
    ``KeyError`` traceback (a server that answers every request with some JSON, not Solr)."""

    def __init__(self, answer: Any, where: str) -> None:
        super().__init__(answer)
        self.where = where

    def __missing__(self, key: str) -> Any:
        raise SolrRequestError(
            f"{self.where} answered without {key!r}, as no Solr 9 does: is it a Solr server?"
        )

class Solr:
    """One Solr collection (a standalone core or a SolrCloud collection) and its server.

    ``timeout`` is the time limit of a request in seconds, to the last byte of its answer
    (default 60); ``retries`` caps the retries of one request and ``retry_budget`` the seconds
    after its first attempt in which retries may start (default 30). ``verify`` is True (TLS
    certificates are verified against the system's CAs), the path of a CA bundle, or False.
    Documents travel through :attr:`pysolr`, a :class:`pysolr.Solr` on this client's session.
    """

    def __init__(
        self,
        url: str,
        collection: str | None = None,
        *,
        auth: Auth | None = None,
        verify: bool | str = True,
        timeout: float | None = None,
        retries: int = 10,
        retry_budget: float | None = None,
    ) -> None:
        if isinstance(verify, str) and not Path(verify).exists():
            raise MissingCABundle(
                f"the CA bundle for Solr's TLS certificate does not exist: {verify}"
            )
        url, in_url = credentials(url)
        auth = auth or in_url
        base, from_url = split_url(url)
        self.base_url = base
        # an empty name (--collection "$UNSET") is refused, not read as the default collection
        name = collection if collection is not None else from_url or DEFAULT_COLLECTION
        self.collection = check_collection_name(name)
        self._timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        self.session = _Session()
        self.session.verify = verify
        if auth is not None:
            self.session.auth = (auth.user, auth.password)
        self.session.headers["User-Agent"] = "neardup"
        if is_loopback(base):
            # Compressing for a socket on this machine spends Solr's CPU, which the report
            # shares with it, to save bytes that never cross a network: 0.3-0.5 s of the
            # 1.6 s that 100k short records' texts take to read.
            self.session.headers["Accept-Encoding"] = "identity"
        adapter = RetryAdapter(
            self.collection, retries, RETRY_BUDGET if retry_budget is None else retry_budget
        )
        adapter.ca = verify if isinstance(verify, str) else None
        self._mount(adapter)

    def _mount(self, adapter: RetryAdapter) -> None:
        self._adapter = adapter
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self._pysolr: pysolr.Solr | None = None
        self._pysolr_slow: pysolr.Solr | None = None

    @classmethod
    def from_pysolr(cls, client: pysolr.Solr) -> Solr:
        """neardup's client for the collection of a user's :class:`pysolr.Solr`.

        Its URL, auth, TLS verification and timeout are taken over, and so are the auth,
        verification, headers and client certificate of its session, if it has one; that
        session itself is left alone (neardup's retry policy is mounted on a session of its
        own). Precedence as in pysolr: ``client.auth``, else the session's, else the URL's.
        """
        theirs: requests.Session | None = getattr(client, "session", None)
        verify = client.verify if theirs is None else theirs.verify
        timeout = client.timeout
        if isinstance(timeout, tuple):
            timeout = timeout[1]
        solr = cls(client.url, verify=verify, timeout=timeout)
        if theirs is not None:
            defaults = requests.utils.default_headers()
            for key, value in theirs.headers.items():
                if defaults.get(key) != value:
                    solr.session.headers[key] = value
            solr.session.cert = theirs.cert
            if theirs.auth is not None:
                solr.session.auth = theirs.auth
        if client.auth is not None:
            solr.session.auth = client.auth
        return solr

    @property
    def url(self) -> str:
        return f"{self.base_url}/{self.collection}"

    @property
    def timeout(self) -> float:
        return self._timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._timeout = seconds
        self._pysolr = None

    @property
    def retries(self) -> int:
        return self._adapter.retries

    @retries.setter
    def retries(self, value: int) -> None:
        self._adapter.retries = value

    @property
    def retry_budget(self) -> float:
        return self._adapter.retry_budget

    @retry_budget.setter
    def retry_budget(self, seconds: float) -> None:
        self._adapter.retry_budget = seconds

    @property
    def answered(self) -> bool:
        """Whether the server has answered this client with HTTP at least once."""
        return self._adapter.answered

    @answered.setter
    def answered(self, value: bool) -> None:
        self._adapter.answered = value

    @property
    def pysolr(self) -> pysolr.Solr:
        """The :class:`pysolr.Solr` of this collection, on this client's session (and policy)."""
        if self._pysolr is None:
            self._pysolr = self._new_pysolr(self._timeout)
        return self._pysolr

    def _new_pysolr(self, read_timeout: float) -> pysolr.Solr:
        return pysolr.Solr(self.url, timeout=(CONNECT_TIMEOUT, read_timeout), session=self.session)

    def clone(self, collection: str | None = None) -> Solr:
        """The same collection (or ``collection`` of the same server) and settings with an HTTP
        session of its own.

        A ``requests.Session`` is not meant to be shared between threads: each thread that
        talks to Solr at the same time as another one gets its own clone.
        """
        other = copy.copy(self)
        if collection is not None:
            other.collection = check_collection_name(collection)
        other.session = _Session()
        other.session.verify = self.session.verify
        other.session.auth = self.session.auth
        other.session.cert = self.session.cert
        other.session.headers.update(self.session.headers)
        other.session.proxies.update(self.session.proxies)
        # A caller's hooks (metrics, logging) see every request, those of a clone's thread too.
        other.session.hooks = {event: list(hooks) for event, hooks in self.session.hooks.items()}
        mine = self._adapter
        adapter = RetryAdapter(other.collection, mine.retries, mine.retry_budget)
        adapter.answered = mine.answered
        adapter.ca = mine.ca
        other._mount(adapter)
        return other

    def __repr__(self) -> str:
        return f"Solr({self.url!r})"

    def system_info(self) -> dict[str, Any]:
        """The server's ``admin/info/system``: the first request, which fails fast."""
        return self.request("GET", "admin/info/system", core=False)

    # -- the thin JSON call (real-time get, admin) ----------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        data: Any = None,
        json_body: Any = None,
        headers: dict[str, str] | None = None,
        idempotent: bool = True,
        timeout: float | None = None,
        core: bool = True,
    ) -> dict[str, Any]:
        """Send one request and return Solr's JSON answer, or raise a NeardupError.

        For what pysolr does not cover. A POST without a body of its own carries its parameters
        as a form (no length limit). ``idempotent=False`` sends the request once (no retry);
        otherwise the session's :class:`RetryAdapter` retries it by the module's policy.
        """
        url = f"{self.url if core else self.base_url}/{path.lstrip('/')}"
        params = {**(params or {}), "wt": "json"}
        as_form = method == "POST" and data is None and json_body is None
        if not idempotent:
            headers = {**(headers or {}), ONCE_HEADER: "1"}
        try:
            resp = self.session.request(
                method,
                url,
                params=None if as_form else params,
                data=params if as_form else data,
                json=json_body,
                headers=headers,
                timeout=(CONNECT_TIMEOUT, timeout or self._timeout),
            )
        except requests.RequestException as exc:  # raised before the adapter (a bad URL ...)
            raise SolrUnavailable(f"cannot talk to Solr at {redact(url)}: {_reason(exc)}") from None
        try:
            return Answer(resp.json(), where=redact(url))
        except (ValueError, TypeError) as exc:  # not JSON, or JSON that is no object
            raise SolrRequestError(
                f"Solr at {redact(url)} answered with something that is not JSON "
                f"(HTTP {resp.status_code})"
            ) from exc

    # -- documents, through pysolr ----------------------------------------------------------
    def _through_pysolr(self, path: str, call: Any, *args: Any, **kwargs: Any) -> Any:
        """``call(*args, **kwargs)`` of pysolr, with its few own errors turned into neardup's.

        The adapter's errors (everything a Solr or the network can do) pass through pysolr as
        they are; what is left is an answer pysolr does not accept or cannot decode.
        """
        where = redact(f"{self.url}/{path}")
        try:
            return call(*args, **kwargs)
        except NeardupError:
            raise
        except pysolr.SolrError as exc:
            raise SolrRequestError(f"Solr at {where}: {redact(str(exc))}") from None
        except ValueError as exc:
            raise SolrRequestError(
                f"Solr at {where} answered with something that is not JSON (HTTP 200)"
            ) from exc
        except requests.RequestException as exc:  # raised before the adapter (a bad URL ...)
            raise SolrUnavailable(f"cannot talk to Solr at {where}: {_reason(exc)}") from None

    def _update(self, prefix: str, items: Iterable[Any], suffix: str) -> None:
        """POST ``items`` to ``update`` as JSON ``prefix[item, ...]suffix`` bodies of at most
        :data:`UPDATE_BYTES` each (one item alone may be larger: it goes alone).

        Through :meth:`request`, not pysolr: pysolr's public ``add`` drops empty values and
        runs the body through ``sanitize`` (32 passes, bytes to text and back: 45% more client
        time on a 1000-document batch, for nothing, since JSON escapes every control
        character), its ``delete`` sends XML, which strips the control characters an id may
        hold, and the raw ``_update`` beneath both is private. Every item is encoded with
        ``ensure_ascii``, so its length in characters is its length in bytes.
        """
        for body in _json_batches(items, UPDATE_BYTES - len(prefix) - len(suffix)):
            self.request(
                "POST",
                "update",
                data=f"{prefix}{body}{suffix}".encode("ascii"),
                headers={"Content-Type": "application/json"},
            )

    def add(self, docs: Sequence[dict[str, Any]]) -> None:
        """Add or replace documents by id; safe to retry, since a re-add overwrites."""
        self._update("[", docs, "]")

    def commit(self) -> None:
        if self._pysolr_slow is None:
            self._pysolr_slow = self._new_pysolr(max(COMMIT_TIMEOUT, self._timeout))
        self._through_pysolr("update", self._pysolr_slow.commit)

    def delete_query(self, query: str) -> None:
        self._update('{"delete": ', [{"query": query}], "}")

    def delete_ids(self, ids: Sequence[str]) -> None:
        """By JSON: pysolr's XML form would strip control characters that an id may hold."""
        self._update('{"delete": [', ids, "]}")

    def select(self, params: dict[str, Any]) -> dict[str, Any]:
        """A search (``q`` defaults to all documents): pysolr sends a GET, or a POST form once
        the query is long, so any number of terms fits."""
        query = dict(params)
        q = query.pop("q", "*:*")
        results = self._through_pysolr("select", self.pysolr.search, q, **query)
        return dict(results.raw_response)

    def get(self, ids: Sequence[str], fields: str = "*") -> list[dict[str, Any]]:
        """Documents by id through real-time get (sees uncommitted updates too).

        Each id is its own ``id`` parameter: the comma-separated ``ids`` form would split or
        unescape ids that hold commas or backslashes.
        """
        if not ids:
            return []
        answer = self.request("POST", "get", params={"id": list(ids), "fl": fields})
        if "doc" in answer:  # Solr's answer to a single id
            return [answer["doc"]] if answer["doc"] else []
        return list(answer.get("response", {}).get("docs", []))

    def count(self, query: str = "*:*", fq: Sequence[str] = ()) -> int:
        res = self.select({"q": query, "fq": list(fq), "rows": 0})
        return int(res["response"]["numFound"])

    def iter_docs(
        self,
        fields: str,
        query: str = "*:*",
        fq: Sequence[str] = (),
        rows: int = 1000,
        params: dict[str, Any] | None = None,
        ahead: bool = False,
        parts: int = 1,
        cores: Sequence[Solr] | None = None,
        side_by_side: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every matching document, in id order, by cursor: constant memory, no deep paging.

        ``params`` may carry a whole query (for example from :func:`terms_params`). A page
        shorter than ``rows`` is the last one, so fewer than ``rows`` matches take one request
        (no second request only to learn that the cursor has not moved). ``ahead``: the next
        page is asked for while the caller works on this one (:func:`read_ahead`), on a
        client of its own.

        ``parts`` > 1 (with ``ahead``): the documents are split by a hash of their id
        (Solr's ``{!hash}`` filter, made for parallel export) into that many cursors read
        side by side, each on a client and thread of its own; pages come from each in turn,
        so the order is id order within a part only. Why: loading stored fields is most of
        Solr's cost in reading every text, one page at a time on one core while the caller
        waited (100k short records: 1.6-1.8 s signed as they came, 1.1-1.4 s in two parts).
        ``side_by_side``: at most that many parts are read at once, the next ones once those
        are done (None: all of them). Why more parts than cores: each page of a cursor sorts
        every document of its part again, so the pages of one cursor through a large index
        cost its size squared; parts of a bounded size keep that linear, and reading them a
        few at a time keeps the pages held in memory few.

        ``cores`` (with ``ahead``): one client on a replica core of each shard of a SolrCloud
        collection (:func:`neardup.solr.shards.shard_cores`), each read with ``distrib=false``,
        every shard side by side: each node loads the stored fields of its own shard. Past one
        ``parts`` a shard, each shard is split into ``parts / len(cores)`` parts by the same
        hash, read one part of every shard at a time, so that a shard of many millions of
        records is not one cursor whose pages each sort all of it.
        """
        if cores and ahead:
            local = {**(params or {}), "distrib": "false"}
            per = max(1, -(-parts // len(cores)))
            if per > 1:
                local["partitionKeys"] = "id"
            for k in range(per):
                split = [*fq, f"{{!hash workers={per} worker={k}}}"] if per > 1 else list(fq)
                for page in _in_turn(
                    [
                        read_ahead(core.clone()._pages(fields, query, split, rows, local))
                        for core in cores
                    ]
                ):
                    yield from page
            return
        if parts > 1 and ahead:
            width = side_by_side or parts
            for lo in range(0, parts, width):
                for page in _in_turn(
                    [
                        read_ahead(
                            self.clone()._pages(
                                fields,
                                query,
                                [*fq, f"{{!hash workers={parts} worker={k}}}"],
                                rows,
                                {**(params or {}), "partitionKeys": "id"},
                            )
                        )
                        for k in range(lo, min(parts, lo + width))
                    ]
                ):
                    yield from page
            return
        pages = self._pages(fields, query, fq, rows, params)
        if ahead:
            pages = read_ahead(self.clone()._pages(fields, query, fq, rows, params))
        for page in pages:
            yield from page

    def _pages(
        self,
        fields: str,
        query: str,
        fq: Sequence[str],
        rows: int,
        params: dict[str, Any] | None,
    ) -> Iterator[list[dict[str, Any]]]:
        """The pages of :meth:`iter_docs`."""
        cursor = "*"
        while True:
            res = self.select(
                {
                    "q": query,
                    **(params or {}),
                    "fq": list(fq),
                    "fl": fields,
                    "rows": rows,
                    "sort": "id asc",
                    "cursorMark": cursor,
                }
            )
            docs = res["response"]["docs"]
            yield docs
            nxt = res.get("nextCursorMark", cursor)
            if nxt == cursor or len(docs) < rows:
                return
            cursor = nxt


def _in_turn(sources: list[Iterator[T]]) -> Iterator[T]:
    """The items of every source, one from each in turn until all are done; every source is
    closed at the end, also when the caller stops early (their threads stop too).

    >>> list(_in_turn([iter([1, 2, 3]), iter([10])]))
    [1, 10, 2, 3]
    """
    live = list(sources)
    try:
        while live:
            for src in list(live):
                try:
                    yield next(src)
                except StopIteration:
                    live.remove(src)
    finally:
        for src in sources:
            close = getattr(src, "close", None)
            if close is not None:
                close()


def read_ahead(items: Iterator[T], depth: int = 1) -> Iterator[T]:
    """The items of ``items``, made on a thread of their own up to ``depth`` ahead of the
    caller; its errors are raised where the item would have come. Why: while Solr writes the
    next page of a cursor (its CPU, the socket), the caller works on this one (a report signs
    100k texts as they come: 1.9 s of a 10 s report was waiting for the pages)."""
    done = object()
    box: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                box.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    return
            put((done, None))
        except BaseException as exc:  # noqa: BLE001  (raised again in the caller's thread)
            put((done, exc))

    thread = threading.Thread(target=work, name="neardup-read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item, exc = box.get()
            if exc is not None:
                raise exc
            if item is done:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine (``localhost``, 127.0.0.0/8, ``::1``).

    >>> is_loopback("http://127.0.0.1:8983/solr"), is_loopback("https://solr.example:8983/solr")
    (True, False)
    >>> is_loopback("http://[::1]:8983/solr"), is_loopback("http://localhost:8983/solr")
    (True, True)
    """
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:  # a malformed URL ("http://[::1/solr") is no known host
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _reason(exc: Exception) -> str:
    text = str(exc)
    if "Connection refused" in text:
        return "connection refused (is Solr running there?)"
    if "Connection reset" in text:
        return "the connection was reset"
    if "RemoteDisconnected" in text or "Connection aborted" in text or "IncompleteRead" in text:
        return "the connection was closed before Solr answered"
    if "Name or service not known" in text or "nodename nor servname" in text:
        return "unknown host"
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return "its TLS certificate could not be verified (give the CA bundle that signed it)"
    return text.split(": ")[-1][:200]
