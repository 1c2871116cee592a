"""The memory and Solr backends give identical answers: the same pairs (before and after
pruning), neighbours, query results and clusters, on the restaurant data and on the
benchmark's 10,000-document corpus."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from benchmarks import corpus as C
from neardup import NearDupIndex, Params
from neardup.backends.solr import SolrBackend
from neardup.read.items import Record
from neardup.read.records import read_records
from neardup.resources import restaurants
from neardup.solr.client import Solr

pytestmark = pytest.mark.solr

NewCollection = Callable[[str], Solr]


def _both(
    params: Params, records: list[Record], new_collection: NewCollection
) -> tuple[NearDupIndex, NearDupIndex]:
    memory = NearDupIndex(params)
    solr = NearDupIndex(params, backend=SolrBackend(new_collection("parity")))
    for index in (memory, solr):
        stats = index.add_many(records)
        assert stats.indexed == len(records) == len(index)
    return memory, solr


def test_restaurants_give_identical_answers(new_collection: NewCollection) -> None:
    path, _ = restaurants()
    records = [r for r in read_records(path) if isinstance(r, Record)]
    memory, solr = _both(Params(), records, new_collection)
    for prune in ("none", "best", "mutual"):
        a, b = memory.report(prune=prune), solr.report(prune=prune)
        assert a.pairs == b.pairs, prune
        assert (a.buckets, a.candidates, a.verified) == (b.buckets, b.candidates, b.verified)
    assert len(memory.pairs(prune="none")) > 100
    assert memory.clusters() == solr.clusters()
    for rid in [r.id for r in records[::37]]:
        assert memory.neighbors(rid, k=5) == solr.neighbors(rid, k=5), rid
    for text in ("arts deli 12224 ventura blvd studio city", "Carnegie Deli, 854 7th Avenue"):
        assert memory.query(text, k=5) == solr.query(text, k=5)
    gone = [p.id2 for p in memory.pairs()[:10]]
    memory.remove(gone)
    solr.remove(gone)
    assert memory.pairs() == solr.pairs()


def test_the_benchmark_corpus_gives_identical_pairs(new_collection: NewCollection) -> None:
    params = Params(shingle_size=3, threshold=0.5)
    corpus = C.generate(10_000, seed=3, threshold=0.5, truth="none", config=params)
    memory, solr = _both(params, corpus.records, new_collection)
    a, b = memory.report(prune="none"), solr.report(prune="none")
    assert len(a.pairs) > 500
    assert a.pairs == b.pairs
    assert a.candidates == b.candidates
    assert memory.clusters(prune="none") == solr.clusters(prune="none")
    for record in corpus.records[:2000:200]:
        assert memory.neighbors(record.id, k=3) == solr.neighbors(record.id, k=3)


def test_the_lookups_of_an_incremental_report_agree(new_collection: NewCollection) -> None:
    """key_counts and holding_two (what report(since=...) asks a backend) give the same answers
    on both backends, for character 3-grams whose buckets reach past max_bucket."""
    from neardup.candidates.buckets import large_key_groups

    path, _ = restaurants()
    records = [r for r in read_records(path) if isinstance(r, Record)]
    params = Params(shingle_kind="char", shingle_size=3, threshold=0.3, rule="valley")
    memory, solr = _both(params, records, new_collection)
    own = {r.id: r.keys for r in memory.backend.records() if int(r.id) % 5 == 0}
    keys = sorted({k for ks in own.values() for k in ks})
    counts = memory.backend.key_counts(keys)
    assert counts == solr.backend.key_counts(keys)
    small, groups = large_key_groups(own, counts, 5)
    assert small and groups
    holders = memory.backend.holding_two(groups)
    assert holders  # records that hold two large keys of one group
    assert holders == solr.backend.holding_two(groups)
    backends = (memory.backend, solr.backend)
    found = [{k: set(v) for k, v in b.members(small).items()} for b in backends]
    assert found[0] == found[1]
    for max_bucket in (5, 20, None):
        a = memory.report(since=0, max_bucket=max_bucket)
        b = solr.report(since=0, max_bucket=max_bucket)
        assert a.pairs == b.pairs and (a.candidates, a.large_buckets) == (
            b.candidates,
            b.large_buckets,
        )
