"""SolrCloud: the restaurant experiment on a two-shard collection equals the standalone one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from neardup import NearDupIndex
from neardup.backends import solr as solr_backend
from neardup.backends.solr import SolrBackend
from neardup.resources import restaurants
from neardup.seed2014.experiment import PARAMS, run_restaurants
from neardup.solr import admin
from neardup.solr.admin import connect
from neardup.solr.client import Solr
from neardup.solr.local import LocalSolr

from .conftest import IN_CI, REPO, run_cli, with_credentials
from .test_security import code_of

CLOUD_HOME = REPO / ".neardup" / "test-cloud"


@pytest.fixture(scope="module")
def cloud_url() -> Iterator[str]:
    url = os.environ.get("NEARDUP_SOLR_CLOUD_URL")
    if url:
        yield url
        return
    node = LocalSolr(CLOUD_HOME)
    running = node.running()
    if running is not None and not running.credentials:
        node.stop()  # the open SolrCloud of an older neardup: started again with a password
    try:
        state = node.start(cloud=True, nodes=2)
    except Exception as exc:
        if IN_CI:
            pytest.fail(f"CI=true and no SolrCloud could be started: {exc}", pytrace=False)
        pytest.skip(f"no SolrCloud: {exc}")
    try:
        yield with_credentials(node, state.url)
    finally:
        node.stop()


@pytest.mark.solr
def test_the_local_cloud_has_a_password_as_the_standalone_node(cloud_url: str) -> None:
    if os.environ.get("NEARDUP_SOLR_CLOUD_URL"):
        pytest.skip("a SolrCloud of the user's, not neardup's local one")
    node = LocalSolr(CLOUD_HOME)
    state = node.running()
    assert state is not None and state.mode == "cloud" and state.auth_user == "neardup"
    assert state.credentials == str(node.credentials_file)
    for url in state.urls:  # every node, without the password: nothing
        assert code_of(f"{url}/admin/collections?action=LIST") == 401
        assert code_of(f"{url}/admin/info/system") == 401
    connect(cloud_url, "test_cloud_auth")  # with it: a collection made and used
    env = {"NEARDUP_HOME": str(CLOUD_HOME), "NEARDUP_SOLR_USER": "", "NEARDUP_SOLR_PASSWORD": ""}
    url = f"{state.url}/test_cloud_auth"  # as 'neardup solr status' shows it: no password
    indexed = run_cli("index", str(restaurants()[0]), "--solr-url", url, env=env)
    assert indexed.returncode == 0, indexed.stderr
    info = run_cli("info", "--solr-url", url, env=env)
    assert info.returncode == 0 and "864" in info.stdout, info.stderr
    status = run_cli("solr", "status", env=env)
    assert f"password in {node.credentials_file}" in status.stdout, status.stderr
    assert node.client_auth(state).password not in indexed.stderr + info.stderr + status.stdout
    dropped = run_cli("drop", "test_cloud_auth", "--yes", "--solr-url", state.url, env=env)
    assert dropped.returncode == 0 and ": 864 records" in dropped.stdout, dropped.stderr


@pytest.mark.solr
def test_two_shards_give_the_same_pairs_as_standalone(
    cloud_url: str, solr_base: str, tmp_path: Path
) -> None:
    cloud = connect(cloud_url, "test_cloud_restaurants", shards=2)
    assert admin.is_cloud(cloud)
    status = cloud.request(
        "GET",
        "admin/collections",
        core=False,
        params={"action": "CLUSTERSTATUS", "collection": cloud.collection},
    )
    shards = status["cluster"]["collections"][cloud.collection]["shards"]
    assert len(shards) == 2
    nodes = {r["node_name"] for s in shards.values() for r in s["replicas"].values()}
    assert len(nodes) == 2
    single = connect(solr_base, "test_cloud_standalone_twin")
    cloud_index = NearDupIndex(PARAMS, backend=SolrBackend(cloud))
    r_cloud = run_restaurants(cloud_index, tmp_path / "cloud")
    single_index = NearDupIndex(PARAMS, backend=SolrBackend(single))
    r_single = run_restaurants(single_index, tmp_path / "single")
    assert r_cloud["scores"] == r_single["scores"]
    for method in ("shingles", "minhash", "lsh"):
        a = (tmp_path / "cloud" / f"{method}.tsv").read_text()
        b = (tmp_path / "single" / f"{method}.tsv").read_text()
        assert a == b and a.count("\n") > 50, method
    # both shards hold records, and neighbours/search work across them
    per_shard = [
        cloud.select({"q": "*:*", "rows": 0, "shards": name, "fq": "-id:_neardup_meta_"})
        for name in shards
    ]
    assert all(r["response"]["numFound"] > 100 for r in per_shard)
    assert cloud_index.neighbors("2", k=1)[0].id == "753"
    assert cloud_index.query("arts deli 12224 ventura blvd studio city", k=1)[0].id == "753"


@pytest.mark.solr
def test_the_cloud_benchmark_counts_what_the_nodes_send_each_other(cloud_url: str) -> None:
    from benchmarks import corpus as C
    from benchmarks.cloud import measure

    records = C.short_records(3_000, seed=9)
    memory = NearDupIndex()
    memory.add_many(records)
    solr = connect(cloud_url, "test_cloud_bench", shards=2)
    got = measure(NearDupIndex(backend=SolrBackend(solr)), records, "cloud")
    expected = memory.report()
    assert got["records"] == 3_000 and got["candidates"] == expected.candidates > 1_000
    assert got["pairs"] == len(expected.pairs)
    # The client's own requests and responses are counted and taken off the loopback's bytes;
    # what is left is what the two shards sent each other to answer them.
    assert 0 < got["client_mb"] < got["loopback_mb"]
    assert got["between_nodes_mb"] > 0.2 * got["client_mb"]


@pytest.mark.solr
def test_every_shard_is_read_from_a_replica_of_its_own(cloud_url: str) -> None:
    """Reading every record of a two-shard collection (a report, the plan of an engine) reads
    each shard from one of its replicas with distrib=false, side by side: every record once,
    the same as a read through one node, and the plan's pairs those of the in-process report."""
    from benchmarks.scale import stream_short_records
    from neardup.solr.shards import shard_cores

    solr = connect(cloud_url, "test_cloud_shard_reads", shards=2)
    index = NearDupIndex(backend=SolrBackend(solr))
    records = list(stream_short_records(12_000, seed=3))
    index.add_many(records, progress=False)
    backend = SolrBackend(solr.clone())
    cores = backend.shard_cores
    assert cores is not None and len(cores) == 2
    assert len({core.collection for core in cores}) == 2  # a core of each shard
    per_core = [
        core.select({"q": "*:*", "rows": 0, "distrib": "false", "fq": "-id:_neardup_meta_"})
        for core in cores
    ]
    counts = [r["response"]["numFound"] for r in per_core]
    assert min(counts) > 1_000 and sum(counts) == len(records)
    read = list(backend.all_texts())
    assert len(read) == len(records)
    assert sorted(read) == sorted((r.id, r.text) for r in records)
    through_one = SolrBackend(solr.clone())
    through_one._shards = ([],)  # as a collection whose replicas cannot be reached is read
    assert sorted(through_one.all_texts()) == sorted(read)
    # A shard past PART_RECORDS is read in parts of it (here 3 a shard): each page of one
    # cursor through a whole shard of millions would sort all of it.
    asked: list[list[str]] = []
    pages = Solr._pages

    def spy(self: Solr, fields: str, query: str, fq: list[str], *rest: object) -> object:
        asked.append(list(fq))
        return pages(self, fields, query, fq, *rest)  # type: ignore[arg-type]

    with mock.patch.object(solr_backend, "PART_RECORDS", 2_000), \
            mock.patch.object(Solr, "_pages", spy):  # fmt: skip
        in_parts = list(SolrBackend(solr.clone()).all_texts())
    assert sorted(in_parts) == sorted(read) and len(in_parts) == len(read)
    hashed = sorted(f for got in asked for f in got if f.startswith("{!hash"))
    assert hashed == sorted(f"{{!hash workers=3 worker={k}}}" for k in range(3) for _ in cores)
    assert shard_cores(connect(cloud_url, "test_cloud_one_shard", shards=1)) is None
    planned, held = index.report(engine="duckdb"), index.report(engine="memory")
    assert [p.as_dict() for p in planned.pairs] == [p.as_dict() for p in held.pairs]
    assert len(held.pairs) > 100
