"""Clusters that do not chain: center clustering of the pairs, in the library and the CLI."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

from neardup import NearDupIndex, Params, read_records
from neardup.decision.cluster import center_clusters, pair_clusters
from neardup.graph import clusters
from neardup.out.write import write_clusters
from neardup.read.items import Record
from neardup.results import Pair

from .conftest import run_cli


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


def _dense_between(c: Any, d: Any, sims: dict[frozenset[str], float]) -> bool:
    """Whether two clusters are as the merge asks: 70% of the pairs between them or more, and
    a record of the two paired with every other."""
    between = sum(frozenset((a, b)) in sims for a in c.members for b in d.members)
    union = set(c.members) | set(d.members)
    hub = any(all(frozenset((r, m)) in sims for m in union - {r}) for r in union)
    return between >= 0.7 * len(c.members) * len(d.members) and hub


def test_records_all_paired_with_each_other_are_one_cluster() -> None:
    """hx23 finding 3: the two best pairs a-b and c-d started two clusters, and the four pairs
    between them joined nothing: four records, every pair kept, were two clusters."""
    four = [("0", "1", 1.0), ("2", "3", 1.0), ("0", "2", 0.79), ("0", "3", 0.79),
            ("1", "2", 0.79), ("1", "3", 0.79)]  # fmt: skip
    [one] = center_clusters(four)
    assert one.members == ["0", "1", "2", "3"] and one.least == 0.79
    rng = random.Random(3)
    for n in range(3, 13):
        ids = [f"r{i}" for i in range(n)]
        clique = [(a, b, round(rng.uniform(0.5, 1.0), 3)) for i, a in enumerate(ids)
                  for b in ids[i + 1 :]]  # fmt: skip
        rng.shuffle(clique)
        [whole] = center_clusters(clique)
        assert sorted(whole.members) == sorted(ids)
        sims = {frozenset((a, b)): s for a, b, s in clique}
        assert whole.least == min(sims[frozenset((whole.center, m))] for m in whole.members[1:])


def test_two_cliques_and_a_bridge_stay_two() -> None:
    """Dense within, sparse between: a wrong pair between two entities (or a chain) merges
    nothing, however the pairs are ordered."""
    first, second = "abcde", "vwxyz"
    pairs = [(a, b, 0.8) for g in (first, second) for a in g for b in g if a < b]
    pairs += [("a", "v", 0.6), ("b", "v", 0.6), ("a", "w", 0.6)]
    got = center_clusters(pairs)
    assert sorted(sorted(c.members) for c in got) == [list(first), list(second)]


def test_no_two_clusters_left_that_the_merge_would_join() -> None:
    for seed in range(20):
        pairs = _random_pairs(seed, n=30, m=200)
        sims = {frozenset((a, b)): s for a, b, s in pairs}
        got = center_clusters(pairs)
        for i, c in enumerate(got):
            for d in got[i + 1 :]:
                assert not _dense_between(c, d, sims)


def test_every_output_agrees_on_a_clique(tmp_path: Path) -> None:
    """The four rows all paired with each other (hx23 finding 3) are one cluster for the
    library, dedupe (one kept), its cluster column, and the review page."""
    src = tmp_path / "people.csv"
    src.write_text("name,street,city\nJohn Smith,12 Main Street,Boston\n"
                   "John Smith,12 Main St,Boston\nJon Smith,12 Main Street,Boston MA\n"
                   "Jon Smith,12 Main St,Boston MA\nMary Jones,4 Elm Rd,Salem\n"
                   "Peter Brown,77 Oak Ave,Dover\n", encoding="utf-8")  # fmt: skip
    index = NearDupIndex()
    index.add_many(read_records(src, id_field=None))
    report = index.report()
    assert len(report.pairs) == 6  # every pair of the first four
    assert index.clusters() == [["2", "3", "4", "5"]]
    out, page = tmp_path / "out.csv", tmp_path / "review.html"
    done = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory", "--json",
                   "--review", str(page))  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert (said["kept"], said["clusters"]) == (3, 1)
    assert out.read_text().splitlines()[1:] == [
        "John Smith,12 Main Street,Boston", "Mary Jones,4 Elm Rd,Salem",
        "Peter Brown,77 Oak Ave,Dover"]  # fmt: skip
    assert '"clusters":[[' in page.read_text() and said["review"]["clusters"] == 1
    column = tmp_path / "clustered.csv"
    done = run_cli("dedupe", str(src), "--out", str(column), "--backend", "memory",
                   "--cluster-column", "cluster")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(column.open(encoding="utf-8")))
    assert [r["cluster"] for r in rows] == ["2", "2", "2", "2", "6", "7"]
