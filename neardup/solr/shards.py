"""A SolrCloud collection's shards, each read from one of its own replicas.

Why: reading every record (a report, the plan of an engine) through one node made that node
load and send every shard's stored fields, one cursor at a time. Each shard read from a
replica of its own, with ``distrib=false``, spreads that work over the nodes that hold the
shards, side by side (:meth:`neardup.solr.client.Solr.iter_docs`'s ``cores``).
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import NeardupError
from .client import Solr, redact

log = logging.getLogger(__name__)

#: Seconds a replica has to answer the check that it can be reached from here.
REACH_TIMEOUT = 5.0


def shard_cores(solr: Solr) -> list[Solr] | None:
    """A client on one active replica core of each active shard of ``solr``'s collection
    (its leader where it is active), or None where the collection is not one of two or more
    shards (a standalone core), a shard has no active replica, or a replica cannot be
    reached from here (the nodes' own addresses, as the cluster state gives them, may be
    private to their network): then the collection is read through the node given."""
    try:
        info = solr.system_info()
        if info.get("mode") != "solrcloud":
            return None
        got = solr.request(
            "GET",
            "admin/collections",
            params={"action": "CLUSTERSTATUS", "collection": solr.collection},
            core=False,
        )
    except NeardupError:
        return None
    shards = got.get("cluster", {}).get("collections", {}).get(solr.collection, {}).get("shards")
    if not isinstance(shards, dict) or len(shards) < 2:
        return None
    cores: list[Solr] = []
    for name in sorted(shards):
        shard = shards[name]
        if shard.get("state") != "active":  # a parent left by a split: its sub-shards hold it
            continue
        replica = _replica(shard.get("replicas", {}))
        if replica is None:
            log.info("shard %s of %s has no active replica: read through one node", name, solr)
            return None
        base = str(replica["base_url"]).rstrip("/")
        if base.split(":", 1)[0] != solr.base_url.split(":", 1)[0]:
            return None  # never https given and http taken, the credentials in the clear
        core = solr.clone(str(replica["core"]))
        core.base_url = base
        if not _reachable(core):
            log.info("replica %s is not reachable from here: read through one node",
                     redact(core.url))  # fmt: skip
            return None
        cores.append(core)
    return cores if len(cores) >= 2 else None


def _replica(replicas: dict[str, Any]) -> dict[str, Any] | None:
    """The shard's active leader, else its first active replica (by name), else None."""
    active = [replicas[k] for k in sorted(replicas) if replicas[k].get("state") == "active"]
    active = [r for r in active if r.get("core") and r.get("base_url")]
    leaders = [r for r in active if str(r.get("leader")) == "true"]
    return (leaders or active or [None])[0]


def _reachable(core: Solr) -> bool:
    """Whether the replica's core answers a query of its own documents, soon."""
    probe = core.clone()
    probe.retries = 0
    try:
        probe.request(
            "GET", "select", params={"q": "*:*", "rows": 0, "distrib": "false"},
            timeout=REACH_TIMEOUT,
        )  # fmt: skip
    except NeardupError:
        return False
    return True
