"""The one way neardup talks to Solr: a thin JSON client over ``requests``.

Every request goes through :meth:`Solr.request`, which turns transport failures and Solr's own
error responses into messages that name the URL, retries idempotent requests with backoff (each
retry logged at INFO, which ``neardup -v`` shows), and never puts credentials into a message.
Queries are always sent as POST form bodies, so any number of terms fits, and every user value is
quoted by :func:`quote`.

Retry policy (see :meth:`Solr.request`):

- Only idempotent requests are retried (searches, reads, adds by id, commits, deletes); a
  request sent with ``idempotent=False`` (creating a core or collection) is tried once.
- Retried: connection errors (refused, reset, dropped), timeouts, and HTTP 408, 429, 502, 503
  and 504; HTTP 500 only briefly (1.5 s: a core that replays its transaction log after a crash
  answers 500 for a moment). Never retried: other HTTP errors (400, 401, 403, 404 ...), TLS
  failures.
- The waits double from 0.5 s, capped at 8 s, while the retry budget lasts: 30 s from the first
  attempt of a request (``NEARDUP_SOLR_RETRY_BUDGET``; 0 turns retries off), and the first
  retry is always made. So an idempotent request rides through a restart of Solr of 10 to 20 s
  and then gives up with the URL in the message; a Solr that hangs costs two timeouts.
- A server that has never answered this client is not retried for long: until the first HTTP
  answer, the budget is 1.5 s (two quick retries), so a wrong URL or a Solr that is not running
  fails within seconds. Once the server has answered, a refused connection means a restart.
- The read timeout of a request is 60 s unless ``NEARDUP_SOLR_TIMEOUT`` (seconds) says otherwise;
  a few long operations (commit, create) set their own.
"""

from __future__ import annotations

import copy
import io
import logging
import os
import time
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests

from .errors import InputError, NeardupError, SolrRequestError, SolrUnavailable

log = logging.getLogger("neardup.solr")

DEFAULT_COLLECTION = "neardup"
#: Fields a collection must have for neardup to work (seed 003's schema plus neardup's own).
REQUIRED_FIELDS = (
    "id",
    "content",
    "md5_hash",
    "num_words",
    "first_word",
    "content_ng",
    "content_sg",
)
#: Dynamic fields it must have: one field per LSH band (``lsh_b00``, ``lsh_b01``, ...).
REQUIRED_DYNAMIC = ("lsh_b*",)
CONNECT_TIMEOUT = 5.0
#: Read timeout of a request, in seconds, unless ``NEARDUP_SOLR_TIMEOUT`` says otherwise.
DEFAULT_TIMEOUT = 60.0
#: Seconds after a request's first attempt in which retries may start
#: (``NEARDUP_SOLR_RETRY_BUDGET``).
RETRY_BUDGET = 30.0
#: The budget while the server has not answered this client yet (a URL where nothing listens
#: fails fast instead of being retried for half a minute), and for HTTP 500.
BRIEF_BUDGET = 1.5
#: First wait between attempts, doubled after each retry up to ``BACKOFF_CAP``.
BACKOFF_START = 0.5
BACKOFF_CAP = 8.0
#: HTTP statuses that say "try again later": a proxy or a Solr that is (re)starting or busy.
RETRY_STATUSES = frozenset({408, 429, 502, 503, 504})


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
    password: str


def split_url(url: str) -> tuple[str, str | None]:
    """Split ``http://h:p/solr/coll`` into (``http://h:p/solr``, ``coll``); a base URL has none."""
    parts = urlsplit(url.rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"not a Solr URL (http or https expected): {redact(url)}")
    path = parts.path.rstrip("/")
    segments = [s for s in path.split("/") if s]
    if not segments or segments[-1] == "solr":
        return urlunsplit((parts.scheme, parts.netloc, path or "/solr", "", "")), None
    base = "/" + "/".join(segments[:-1])
    return urlunsplit((parts.scheme, parts.netloc, base, "", "")), segments[-1]


def redact(url: str) -> str:
    """The URL without any user:password part, for messages and logs."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def _env_seconds(name: str, default: float, positive: bool = False) -> float:
    """A number of seconds from the environment (``default`` when unset or empty)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 if positive else value >= 0):  # also rejects nan and inf below
        raise InputError(
            f"{name} must be a number of seconds {'> 0' if positive else '>= 0'}, got {raw!r}"
        )
    return min(value, 86400.0)


class Solr:
    """One Solr collection (a standalone core or a SolrCloud collection) and its server.

    ``timeout`` is the read timeout of a request in seconds (default ``NEARDUP_SOLR_TIMEOUT``,
    else 60); ``retries`` caps the retries of one request and ``retry_budget`` the seconds after
    its first attempt in which retries may start (default ``NEARDUP_SOLR_RETRY_BUDGET``, else
    30). ``verify`` is True (TLS certificates are verified against the system's CAs), the path
    of a CA bundle, or False.
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
            raise InputError(
                f"the CA bundle for Solr's TLS certificate does not exist: {verify} "
                "(check --solr-ca or NEARDUP_SOLR_CA)"
            )
        parts = urlsplit(url)
        if parts.username or parts.password:
            from urllib.parse import unquote

            auth = auth or Auth(unquote(parts.username or ""), unquote(parts.password or ""))
            url = redact(url)
        base, from_url = split_url(url)
        self.base_url = base
        self.collection = collection or from_url or DEFAULT_COLLECTION
        self.timeout = (
            _env_seconds("NEARDUP_SOLR_TIMEOUT", DEFAULT_TIMEOUT, positive=True)
            if timeout is None
            else timeout
        )
        self.retries = retries
        self.retry_budget = (
            _env_seconds("NEARDUP_SOLR_RETRY_BUDGET", RETRY_BUDGET)
            if retry_budget is None
            else retry_budget
        )
        #: Whether the server has answered this client with HTTP at least once (see request()).
        self.answered = False
        self.session = requests.Session()
        self.session.verify = verify
        if auth is not None:
            self.session.auth = (auth.user, auth.password)
        self.session.headers["User-Agent"] = "neardup"

    @property
    def url(self) -> str:
        return f"{self.base_url}/{self.collection}"

    def clone(self) -> Solr:
        """The same collection and settings with an HTTP session of its own.

        A ``requests.Session`` is not meant to be shared between threads: each thread that
        talks to Solr at the same time as another one gets its own clone.
        """
        other = copy.copy(self)
        other.session = requests.Session()
        other.session.verify = self.session.verify
        other.session.auth = self.session.auth
        other.session.headers.update(self.session.headers)
        return other

    def __repr__(self) -> str:
        return f"Solr({self.url!r})"

    # -- transport ------------------------------------------------------------------------
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

        An idempotent request is retried after a connection error, a timeout or an HTTP status
        of :data:`RETRY_STATUSES`, with waits of 0.5, 1, 2, 4, 8, 8 ... s until ``retry_budget``
        seconds have passed since its first attempt (the first retry is always made) or
        ``retries`` retries are made; each retry is logged at INFO. Until the server has
        answered this client once, and after an HTTP 500, the budget is only
        :data:`BRIEF_BUDGET`: a server that is not there at all fails fast, while one that
        answered before and now refuses connections is taken to be restarting. A request with
        ``idempotent=False`` is sent once. Messages name the URL without credentials.
        """
        url = f"{self.url if core else self.base_url}/{path.lstrip('/')}"
        where = redact(url)
        params = {**(params or {}), "wt": "json"}
        read_timeout = timeout or self.timeout
        delay = BACKOFF_START
        started = time.monotonic()
        # A POST without a body of its own carries its parameters as a form: no length limit.
        as_form = method == "POST" and data is None and json_body is None
        attempt = 0
        while True:
            attempt += 1
            brief = False  # an error that only earns a short retry budget
            try:
                resp = self.session.request(
                    method,
                    url,
                    params=None if as_form else params,
                    data=params if as_form else data,
                    json=json_body,
                    headers=headers,
                    timeout=(CONNECT_TIMEOUT, read_timeout),
                )
            except requests.exceptions.SSLError as exc:
                raise SolrUnavailable(f"cannot reach Solr at {where}: {_reason(exc)}") from None
            except requests.Timeout:
                error: NeardupError = SolrUnavailable(
                    f"Solr at {where} did not answer within {read_timeout:g} s"
                )
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
                error = SolrUnavailable(f"cannot reach Solr at {where}: {_reason(exc)}")
            except requests.RequestException as exc:
                raise SolrUnavailable(f"cannot talk to Solr at {where}: {_reason(exc)}") from None
            else:
                self.answered = True
                if resp.status_code < 400:
                    try:
                        return resp.json()
                    except ValueError as exc:
                        raise SolrRequestError(
                            f"Solr at {where} answered with something that is not JSON "
                            f"(HTTP {resp.status_code})"
                        ) from exc
                error = self._http_error(resp, url)
                brief = resp.status_code == 500
                if resp.status_code not in RETRY_STATUSES and not brief:
                    raise error
            budget = self.retry_budget
            if brief or not self.answered:
                budget = min(budget, BRIEF_BUDGET)
            # The first retry always comes (a request that timed out after 60 s gets a second
            # chance); later ones only while the budget lasts, counted from the first attempt.
            left = budget if attempt == 1 else budget - (time.monotonic() - started)
            pause = min(delay, left)
            if not idempotent or attempt > self.retries or pause <= 0:
                if attempt > 1:
                    spent = time.monotonic() - started
                    error = type(error)(
                        f"{error} (gave up after {attempt} attempts, {spent:.0f} s)"
                    )
                raise error
            log.info("retry %d in %.1f s after: %s", attempt, pause, error)
            time.sleep(pause)
            delay = min(delay * 2, BACKOFF_CAP)

    def _http_error(self, resp: requests.Response, url: str) -> Exception:
        code = resp.status_code
        where = redact(url)
        if code == 401:
            if self.session.auth is None:
                return SolrUnavailable(
                    f"Solr at {where} requires a user and password (HTTP 401): give "
                    "--solr-user and --solr-password (or NEARDUP_SOLR_USER / "
                    "NEARDUP_SOLR_PASSWORD)"
                )
            user = self.session.auth[0]  # type: ignore[index]
            return SolrUnavailable(
                f"Solr at {where} refused the credentials of user '{user}' (HTTP 401): check "
                "--solr-user and --solr-password (or NEARDUP_SOLR_USER / NEARDUP_SOLR_PASSWORD)"
            )
        if code == 403:
            return SolrUnavailable(f"Solr at {where} forbids this request to this user (HTTP 403)")
        msg = ""
        try:
            body = resp.json()
            msg = (body.get("error") or {}).get("msg") or ""
        except ValueError:
            msg = resp.text[:300].strip()
        if code == 404:
            return SolrRequestError(
                f"not found at {where} (HTTP 404): does the collection '{self.collection}' exist?"
                + (f" Solr says: {msg}" if msg else "")
            )
        return SolrRequestError(f"Solr at {where} answered HTTP {code}: {msg or resp.reason}")

    # -- server ---------------------------------------------------------------------------
    def system_info(self) -> dict[str, Any]:
        return self.request("GET", "admin/info/system", core=False)

    def version(self) -> str:
        return str(self.system_info()["lucene"]["solr-spec-version"])

    def is_cloud(self) -> bool:
        return self.system_info().get("mode") == "solrcloud"

    def collection_exists(self) -> bool:
        if self.is_cloud():
            names = self.request(
                "GET", "admin/collections", params={"action": "LIST"}, core=False
            ).get("collections", [])
            return self.collection in names
        status = self.request(
            "GET", "admin/cores", params={"action": "STATUS", "core": self.collection}, core=False
        )
        return bool(status.get("status", {}).get(self.collection))

    def create_collection(
        self, configset_dir: Path, configset: str = "neardup", shards: int = 1, replicas: int = 1
    ) -> None:
        """Create the collection from neardup's configset (a core, or a SolrCloud collection)."""
        if self.is_cloud():
            self.upload_configset(configset_dir, configset)
            self.request(
                "GET",
                "admin/collections",
                params={
                    "action": "CREATE",
                    "name": self.collection,
                    "numShards": shards,
                    "replicationFactor": replicas,
                    "collection.configName": configset,
                },
                core=False,
                idempotent=False,
                timeout=180,
            )
        else:
            self.request(
                "GET",
                "admin/cores",
                params={"action": "CREATE", "name": self.collection, "configSet": configset},
                core=False,
                idempotent=False,
                timeout=180,
            )

    def upload_configset(self, configset_dir: Path, name: str) -> None:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            conf = configset_dir / "conf"
            for path in sorted(conf.rglob("*")):
                if path.is_file():
                    zf.write(path, path.relative_to(conf).as_posix())
        self.request(
            "POST",
            "admin/configs",
            params={"action": "UPLOAD", "name": name, "overwrite": "true"},
            data=buf.getvalue(),
            headers={"Content-Type": "application/octet-stream"},
            core=False,
        )

    def delete_collection(self) -> None:
        if self.is_cloud():
            self.request(
                "GET",
                "admin/collections",
                params={"action": "DELETE", "name": self.collection},
                core=False,
            )
        else:
            self.request(
                "GET",
                "admin/cores",
                params={"action": "UNLOAD", "core": self.collection, "deleteInstanceDir": "true"},
                core=False,
            )

    def schema_fields(self) -> dict[str, dict[str, Any]]:
        fields = self.request("GET", "schema/fields", params={"showDefaults": "true"})["fields"]
        return {f["name"]: f for f in fields}

    def check_schema(self) -> None:
        """Fail early, and say what to do, if the collection lacks neardup's fields."""
        missing = [f for f in REQUIRED_FIELDS if f not in self.schema_fields()]
        dynamic = self.request("GET", "schema/dynamicfields")["dynamicFields"]
        missing += [f for f in REQUIRED_DYNAMIC if f not in {d["name"] for d in dynamic}]
        if missing:
            raise SolrRequestError(
                f"the collection at {redact(self.url)} lacks the fields {', '.join(missing)}; "
                "create it from neardup's configset (solr_config/configsets/neardup)"
            )

    # -- documents ------------------------------------------------------------------------
    def add(self, docs: Sequence[dict[str, Any]]) -> None:
        """Add or replace documents by id; safe to retry, since a re-add overwrites."""
        if docs:
            self.request("POST", "update", json_body=list(docs), params={"commit": "false"})

    def commit(self) -> None:
        self.request("POST", "update", json_body={"commit": {}}, timeout=600)

    def delete_query(self, query: str) -> None:
        self.request("POST", "update", json_body={"delete": {"query": query}})

    def delete_ids(self, ids: Sequence[str]) -> None:
        if ids:
            self.request("POST", "update", json_body={"delete": list(ids)})

    def select(self, params: dict[str, Any]) -> dict[str, Any]:
        """A search, sent as a POST form so that the query may be of any length."""
        return self.request("POST", "select", params=params)

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
    ) -> Iterator[dict[str, Any]]:
        """Every matching document, in id order, by cursor: constant memory, no deep paging.

        ``params`` may carry a whole query (for example from :func:`terms_params`). A page
        shorter than ``rows`` is the last one, so fewer than ``rows`` matches take one request
        (no second request only to learn that the cursor has not moved).
        """
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
            yield from docs
            nxt = res.get("nextCursorMark", cursor)
            if nxt == cursor or len(docs) < rows:
                return
            cursor = nxt


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
        return "its TLS certificate could not be verified (pass --solr-ca with a CA bundle)"
    return text.split(": ")[-1][:200]


def _appears(solr: Solr, wait: float = 30.0) -> bool:
    """Whether the collection exists, or comes to exist within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        if solr.collection_exists():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def env_auth() -> Auth | None:
    user = os.environ.get("NEARDUP_SOLR_USER")
    if not user:
        return None
    return Auth(user, os.environ.get("NEARDUP_SOLR_PASSWORD", ""))


def connect(
    url: str | None = None,
    collection: str | None = None,
    *,
    auth: Auth | None = None,
    verify: bool | str = True,
    create: bool = True,
    shards: int | None = None,
) -> Solr:
    """The collection to work on: at ``url`` (or ``NEARDUP_SOLR_URL``), else on the local node.

    Without a URL the private node is started or reused. A missing collection is created from
    neardup's configset where the server allows it (the local node, any SolrCloud); otherwise
    the error says how to create it. Two processes that create the same collection at the same
    time both go on with it. The first request (system information) fails within seconds if
    nothing answers at the URL: see the retry policy in this module's docstring.
    """
    from .local_solr import CONFIGSET, LocalSolr

    url = url or os.environ.get("NEARDUP_SOLR_URL") or None
    auth = auth or env_auth()
    if url is None:
        local = LocalSolr()
        node = local.running() or local.start()  # a running node is reused, cloud or not
        if node.mode == "standalone":
            local.refresh_configset()  # for a node started by an older neardup
        solr = Solr(node.url, collection, auth=auth, verify=verify)
        cloud_default_shards = 2 if node.mode == "cloud" else 1
    else:
        solr = Solr(url, collection, auth=auth, verify=verify)
        cloud_default_shards = 1
    info = solr.system_info()  # fails fast, with the URL, if Solr is not there
    if not solr.collection_exists():
        if not create:
            raise SolrRequestError(
                f"the collection '{solr.collection}' does not exist at {redact(solr.base_url)}"
            )
        try:
            solr.create_collection(CONFIGSET, shards=shards or cloud_default_shards)
        except SolrRequestError as exc:
            text = str(exc).lower()
            if ("already exists" in text or "already creating" in text) and _appears(solr):
                # Another process created it at the same moment: use theirs.
                solr.check_schema()
                return solr
            mode = info.get("mode", "std")
            hint = (
                ""
                if mode == "solrcloud"
                else "; on a standalone Solr, create the core from solr_config/configsets/neardup "
                "(docker-compose.yml does this) or use the local node"
            )
            raise SolrRequestError(
                f"cannot create the collection '{solr.collection}' at "
                f"{redact(solr.base_url)}: {exc}{hint}"
            ) from exc
    solr.check_schema()
    return solr
