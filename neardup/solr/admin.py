"""Collections, configsets and schemas: the admin calls the document client does not make.

Thin on purpose: each function is one or two Solr admin requests through
:meth:`~neardup.solr.client.Solr.request` (its errors, retries and credential redaction), for
what a document transport such as pysolr does not cover.
"""

from __future__ import annotations

import io
import logging
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import InputError, NoSuchCollection, SolrRequestError
from ..resources import CONFIGSET_NAME, configset_dir
from .client import Auth, Solr, redact
from .local import LocalSolr, NodeState, neardup_home

log = logging.getLogger("neardup")

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


def version(solr: Solr) -> str:
    return str(solr.system_info()["lucene"]["solr-spec-version"])


def is_cloud(solr: Solr) -> bool:
    return solr.system_info().get("mode") == "solrcloud"


def collections(solr: Solr) -> list[str]:
    """The names of the server's collections (SolrCloud) or cores (standalone)."""
    if is_cloud(solr):
        got = solr.request("GET", "admin/collections", params={"action": "LIST"}, core=False)
        return sorted(got.get("collections", []))
    status = solr.request("GET", "admin/cores", params={"action": "STATUS"}, core=False)
    return sorted(status.get("status", {}))


def collection_exists(solr: Solr) -> bool:
    if is_cloud(solr):
        names = solr.request(
            "GET", "admin/collections", params={"action": "LIST"}, core=False
        ).get("collections", [])
        return solr.collection in names
    status = solr.request(
        "GET", "admin/cores", params={"action": "STATUS", "core": solr.collection}, core=False
    )
    failed = status.get("initFailures", {}).get(solr.collection)
    if failed:
        # The core is there but Solr could not load it. Creating it again would fail, and
        # Solr then deletes the core.properties of the core it could not create: the user's.
        raise SolrRequestError(
            f"the core '{solr.collection}' at {redact(solr.base_url)} exists but failed to load: "
            f"{failed}; neardup leaves it as it is (fix or remove it, then run again)"
        )
    return bool(status.get("status", {}).get(solr.collection))


def create_collection(
    solr: Solr,
    configset_dir: Path,
    configset: str = CONFIGSET_NAME,
    shards: int = 1,
    replicas: int = 1,
) -> None:
    """Create the collection from neardup's configset (a core, or a SolrCloud collection)."""
    if is_cloud(solr):
        upload_configset(solr, configset_dir, configset)
        solr.request(
            "GET",
            "admin/collections",
            params={
                "action": "CREATE",
                "name": solr.collection,
                "numShards": shards,
                "replicationFactor": replicas,
                "collection.configName": configset,
            },
            core=False,
            idempotent=False,
            timeout=180,
        )
    else:
        solr.request(
            "GET",
            "admin/cores",
            params={"action": "CREATE", "name": solr.collection, "configSet": configset},
            core=False,
            idempotent=False,
            timeout=180,
        )


def upload_configset(solr: Solr, configset_dir: Path, name: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        conf = configset_dir / "conf"
        for path in sorted(conf.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(conf).as_posix())
    solr.request(
        "POST",
        "admin/configs",
        params={"action": "UPLOAD", "name": name, "overwrite": "true"},
        data=buf.getvalue(),
        headers={"Content-Type": "application/octet-stream"},
        core=False,
    )


def delete_collection(solr: Solr) -> None:
    if is_cloud(solr):
        solr.request(
            "GET",
            "admin/collections",
            params={"action": "DELETE", "name": solr.collection},
            core=False,
        )
    else:
        solr.request(
            "GET",
            "admin/cores",
            params={"action": "UNLOAD", "core": solr.collection, "deleteInstanceDir": "true"},
            core=False,
        )


def schema_fields(solr: Solr) -> dict[str, dict[str, Any]]:
    fields = solr.request("GET", "schema/fields", params={"showDefaults": "true"})["fields"]
    return {f["name"]: f for f in fields}


def check_schema(solr: Solr) -> None:
    """Fail early, and say what to do, if the collection lacks neardup's fields."""
    missing = [f for f in REQUIRED_FIELDS if f not in schema_fields(solr)]
    dynamic = solr.request("GET", "schema/dynamicfields")["dynamicFields"]
    missing += [f for f in REQUIRED_DYNAMIC if f not in {d["name"] for d in dynamic}]
    if missing:
        raise SolrRequestError(
            f"the collection at {redact(solr.url)} lacks the fields {', '.join(missing)}; "
            "create it from neardup's configset (neardup.resources.configset_dir())"
        )


def _appears(solr: Solr, wait: float = 30.0) -> bool:
    """Whether the collection exists, or comes to exist within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        if collection_exists(solr):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.5)


def connect(
    url: str | None = None,
    collection: str | None = None,
    *,
    auth: Auth | None = None,
    verify: bool | str = True,
    create: bool = True,
    shards: int | None = None,
    timeout: float | None = None,
    retry_budget: float | None = None,
    home: Path | None = None,
    heap: str | None = None,
) -> Solr:
    """The collection to work on: at ``url``, else on neardup's own local node.

    Without a URL the private node (in ``home``, default ``~/.neardup``; ``heap``: its Java heap
    when it is started) is started or reused, and its own credentials are used (``auth`` only
    for a node started with a user of the caller's).
    A missing collection is created from neardup's configset where the server allows it (the
    local node, any SolrCloud); otherwise the error says how to create it. Two processes that
    create the same collection at the same time both go on with it. The first request (system
    information) fails within seconds if nothing answers at the URL (see
    :mod:`neardup.solr.client` for the retry policy).
    """
    options: dict[str, Any] = {
        "auth": auth,
        "verify": verify,
        "timeout": timeout,
        "retry_budget": retry_budget,
    }
    if url is None:
        local = LocalSolr(home, heap=heap)
        node = local_state(local)
        options["auth"] = local.client_auth(node, auth)
        solr = Solr(node.url, collection, **options)
        cloud_default_shards = 2 if node.mode == "cloud" else 1
    else:
        solr = Solr(url, collection, **options)
        cloud_default_shards = 1
    return ensure_collection(solr, create=create, shards=shards or cloud_default_shards)


def local_state(local: LocalSolr) -> NodeState:
    """neardup's own node, running: reused if it runs (cloud or not), else started, and then
    said where, on which port and how to stop it (a node outlives the process that starts
    it, so a user must know it is there)."""
    node = local.running()
    if node is None:
        node = local.start()
        log.warning(started_message(node, local.home.parent))
    elif node.open_from_old_version:
        log.warning(
            f"the local Solr node at {node.url} has no password: any user of this machine can "
            "read, change or delete its indexes; run 'neardup solr stop' (and 'neardup solr "
            "start') to restart it with one"
        )
    if node.mode == "standalone":
        local.refresh_configset()  # for a node started by an older neardup
    return node


def started_message(node: NodeState, home: Path) -> str:
    """What is said when neardup starts its own node."""
    port = urlsplit(node.url).port
    where = "" if home == neardup_home().resolve() else f"NEARDUP_HOME={home} "
    return (
        f"started a local Solr node at {node.url} (port {port}, pid {node.pid}, home {home}, "
        f"log {node.log}; {node.auth_text()}); it keeps running for the next commands: stop it "
        f"with '{where}neardup solr stop'"
    )


def ensure_collection(solr: Solr, *, create: bool = True, shards: int = 1) -> Solr:
    """``solr`` once its collection exists (created from the configset if allowed) and has
    neardup's fields."""
    info = solr.system_info()  # fails fast, with the URL, if Solr is not there
    if not collection_exists(solr):
        if not create:
            raise NoSuchCollection(
                f"the collection '{solr.collection}' does not exist at {redact(solr.base_url)}"
            )
        try:
            create_collection(solr, configset_dir(), shards=shards)
        except SolrRequestError as exc:
            text = str(exc).lower()
            if ("already exists" in text or "already creating" in text) and _appears(solr):
                # Another process created it at the same moment: use theirs.
                check_schema(solr)
                return solr
            mode = info.get("mode", "std")
            hint = (
                ""
                if mode == "solrcloud"
                else "; on a standalone Solr, create the core from neardup's configset "
                "(docker-compose.yml does this) or use the local node"
            )
            raise SolrRequestError(
                f"cannot create the collection '{solr.collection}' at "
                f"{redact(solr.base_url)}: {exc}{hint}"
            ) from exc
    check_schema(solr)
    return solr


@dataclass(frozen=True)
class Dropped:
    """A collection :func:`drop_collection` deleted, and what it held."""

    collection: str
    #: Where it was (the server's URL, without credentials).
    where: str
    #: Its records (neardup's own stored-parameters record not counted).
    records: int
    #: Whether neardup recognised it as its own (False: dropped with ``force``).
    own: bool


def collection_facts(solr: Solr) -> tuple[int, bool]:
    """The records of ``solr``'s collection and whether neardup made it: it has the fields of
    neardup's configset and, unless it is empty, the record of neardup's stored parameters
    (written by the first ``index``). A collection made otherwise, even one of the same
    schema holding records that neardup did not index, is not neardup's to drop."""
    # Here, not at the top: backends.solr imports neardup.solr.client, which runs
    # neardup/solr/__init__.py, which imports this module before backends.solr has its names.
    from ..backends.solr import META_ID, RECORDS_FQ

    records = solr.count("*:*", fq=[RECORDS_FQ])
    try:
        check_schema(solr)
    except SolrRequestError:
        return records, False
    if records == 0:
        return 0, True
    stored = solr.get([META_ID], fields="id,nd_params")
    return records, bool(stored and stored[0].get("nd_params"))


def drop_collection(server: Solr, name: str, *, force: bool = False) -> Dropped:
    """Delete the collection ``name`` of ``server`` (a SolrCloud collection, or a core with
    its folder), records, schema and all, if neardup made it (:func:`collection_facts`);
    another one only with ``force``. An :class:`InputError` if it is not neardup's, a
    :class:`SolrRequestError` if it does not exist."""
    solr = server.clone(name)
    where = redact(server.base_url)
    if not collection_exists(solr):
        raise NoSuchCollection(f"the collection '{name}' does not exist at {where}")
    records, own = collection_facts(solr)
    if not own and not force:
        raise InputError(
            f"the collection '{name}' at {where} ({records} records) was not made by neardup "
            "(it lacks neardup's fields or its stored parameters); neardup drops only its own: "
            "add --force to drop it anyway"
        )
    delete_collection(solr)
    return Dropped(name, where, records, own)
