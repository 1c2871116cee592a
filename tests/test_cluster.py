"""Clusters that do not chain: center clustering of the pairs, in the library and the CLI."""

from __future__ import annotations

import random
from pathlib import Path

from neardup import NearDupIndex, Params
from neardup.decision.cluster import center_clusters, pair_clusters
from neardup.graph import clusters
from neardup.out.write import write_clusters
from neardup.read.items import Record
from neardup.results import Pair


def _random_pairs(seed: int, n: int = 60, m: int = 150) -> list[tuple[str, str, float]]:
    rng = random.Random(seed)
    out: dict[frozenset[str], tuple[str, str, float]] = {}
    for _ in range(m):
        a, b = (str(x) for x in rng.sample(range(n), 2))
        out[frozenset((a, b))] = (a, b, round(rng.uniform(0.3, 1.0), 3))
    return list(out.values())


def test_every_member_is_a_pair_of_its_center() -> None:
    for seed in range(20):
        pairs = _random_pairs(seed)
        sims = {frozenset((a, b)): s for a, b, s in pairs}
        got = center_clusters(pairs)
        seen: set[str] = set()
        for c in got:
            assert c.members[0] == c.center and len(c.members) >= 2
            assert not seen & set(c.members)  # a record in one cluster at most
            seen |= set(c.members)
            to_center = [sims[frozenset((c.center, m))] for m in c.members[1:]]  # KeyError: chain
            assert c.least == min(to_center)
        # Never coarser than connected components: each cluster lies inside one component.
        component = {i: n for n, g in enumerate(clusters((a, b) for a, b, _ in pairs)) for i in g}
        assert all(len({component[m] for m in c.members}) == 1 for c in got)


def test_a_chain_of_templates_is_not_one_cluster() -> None:
    # Listings written from one template: each alike to the next, the ends barely alike.
    chain = [(str(i), str(i + 1), 0.9 - 0.01 * i) for i in range(12)]
    assert len(clusters((a, b) for a, b, _ in chain)) == 1  # connected components: one
    got = center_clusters(chain)
    assert len(got) >= 4 and all(len(c.members) <= 3 for c in got)


def test_a_star_and_a_clique_stay_whole() -> None:
    star = [("hub", str(i), 0.8) for i in range(6)]
    [one] = center_clusters(star)
    assert one.center == "hub" and sorted(one.members[1:]) == [str(i) for i in range(6)]
    clique = [(a, b, 0.9) for a in "abcd" for b in "abcd" if a < b]
    [whole] = center_clusters(clique)
    assert sorted(whole.members) == list("abcd") and whole.least == 0.9


def test_the_weighted_similarity_decides_where_it_did() -> None:
    pairs = [Pair("1", "2", 0.2, 3, similarity=0.9), Pair("2", "3", 0.8, 1)]
    [c] = pair_clusters(pairs)
    assert c.center == "2" and c.least == 0.8


def test_index_clusters_and_the_clusters_file(tmp_path: Path) -> None:
    index = NearDupIndex(Params(threshold=0.5))
    index.add_many([("1", "cafe roma 12 main street"), ("2", "caffe roma 12 main street"),
                    ("3", "blue door books 4 high street"), ("4", "blue door books 4 high st")])
    assert sorted(map(sorted, index.clusters())) == [["1", "2"], ["3", "4"]]
    out = tmp_path / "clusters.tsv"
    write_clusters(pair_clusters(index.pairs()), out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "center\tleast_similarity\tmembers"
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == 2 and all(len(r) == 3 and 0.5 <= float(r[1]) <= 1 for r in rows)


def test_the_clusters_file_says_each_records_source_where_sources_share_ids(
    tmp_path: Path,
) -> None:
    """Two files whose records are both numbered 7: the clusters file tells them apart."""
    index = NearDupIndex(Params(threshold=0.5))
    index.add_many([Record("7", "cafe roma 12 main street", source="a.csv"),
                    Record("8", "blue door books 4 high street", source="a.csv")])  # fmt: skip
    index.add_many([Record("7", "caffe roma 12 main street", source="b.csv"),
                    Record("9", "blue door books 4 high st", source="b.csv")])  # fmt: skip
    out = tmp_path / "clusters.tsv"
    report = index.report(mode="link")
    write_clusters(pair_clusters(report.pairs, index.primary_source), out, index.primary_source)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "center\tcenter_source\tleast_similarity\tmembers (id, source)"
    rows = sorted(line.split("\t") for line in lines[1:])
    assert [(r[0], r[1]) for r in rows] == [("7", "a.csv"), ("8", "a.csv")]
    assert [r[3:] for r in rows] == [["7", "b.csv"], ["9", "b.csv"]]
