"""``search`` scores short queries by containment (issue 27): a two-word query finds and ranks
the records that hold both words, which Jaccard against a long record misses."""

from __future__ import annotations

import json
from collections.abc import Callable

from neardup import NearDupIndex, Params
from neardup.resources import restaurants
from neardup.solr import admin

from .conftest import run_cli

RECORDS = {
    "1": "The quarterly report on river pollution near the old paper mill, with water samples",
    "2": "Water samples taken upstream of the mill show little change over the quarter",
    "3": "A new bakery opened on the high street, selling bread and pastries every morning",
    "4": "Pollution in the river: the paper mill denies any link to the dead fish",
    "5": "Fishing season opens on the river next week, with new quotas",
}


def test_two_words_find_the_records_holding_both(make_index: Callable[..., NearDupIndex]) -> None:
    index = make_index(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    index.add_many(RECORDS.items())
    query = "river pollution"
    assert not {"1", "4"} <= {m.id for m in index.query(query, k=5)}  # Jaccard misses some
    found = index.search(query, k=5)
    assert [m.id for m in found][:2] == ["1", "4"] or [m.id for m in found][:2] == ["4", "1"]
    assert found[0].containment == found[1].containment == 1.0
    assert all(m.containment is not None and m.containment < 1.0 for m in found[2:])
    assert {m.id for m in found[2:]} >= {"5"}  # holds 'river' only: ranked below
    assert found[0].jaccard >= found[1].jaccard  # ties by Jaccard
    assert [m.id for m in index.search(query, k=5, threshold=1.0)] in (["1", "4"], ["4", "1"])
    words = make_index(Params(shingle_kind="word", shingle_size=1, threshold=0.5))
    words.add_many(RECORDS.items())
    assert {m.id for m in words.search("paper mill", k=5) if m.containment == 1.0} == {"1", "4"}
    long = RECORDS["3"]  # more than eight words: the usual similarity search
    assert words.search(long, k=1)[0].id == "3" and words.search(long, k=1)[0].containment is None


def test_cli_search_ranks_by_containment(solr_base: str) -> None:
    records, _ = restaurants()
    coll = "test_search_short"
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/{coll}"}
    admin.delete_collection(admin.connect(solr_base, coll))
    try:
        assert run_cli("index", str(records), env=env).returncode == 0
        proc = run_cli("search", "ventura blvd", "-k", "50", "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        matches = json.loads(proc.stdout)["matches"]
        both = [m for m in matches if m["containment"] == 1.0]
        texts = [line.lower() for line in records.read_text().splitlines()]
        holding = [t for t in texts if "ventura" in t and "blvd" in t]
        assert len(both) == min(50, len(holding)) > 1
        assert all("ventura" in m["text"].lower() and "blvd" in m["text"].lower() for m in both)
        assert matches.index(both[-1]) == len(both) - 1  # ranked first
    finally:
        admin.delete_collection(admin.connect(solr_base, coll))
