"""Data safety under hostile input and misuse (issue 26): nothing lost, nothing replaced, no
way out of a record or a collection. What neardup promises is written in docs/safety.md.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.backends.solr import META_ID, SolrBackend
from neardup.io import Record, Rejection, read_pairs, read_records
from neardup.solr.client import Solr

from .conftest import run_cli

_names = itertools.count()


def cli_index(solr_base: str, path: Path, *extra: str) -> tuple[int, dict, str, str]:
    """``neardup index path --json`` into a fresh collection: exit code, counts, stderr, and
    the collection's URL."""
    url = f"{solr_base}/test_safety_{os.getpid()}_{next(_names)}"
    proc = run_cli("index", str(path), "--json", *extra, env={"NEARDUP_SOLR_URL": url})
    assert "Traceback" not in proc.stderr, proc.stderr
    counts = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, counts, proc.stderr, url


# -- 2: no record reaches the index's own metadata -------------------------------------------


def test_the_metadata_id_is_reserved() -> None:
    from neardup.io import RESERVED_PREFIX

    assert META_ID.startswith(RESERVED_PREFIX)


@pytest.mark.solr
def test_a_record_with_the_metadata_id_is_refused_with_its_line(
    solr_base: str, tmp_path: Path
) -> None:
    path = tmp_path / "meta.jsonl"
    rows = [
        {"id": "a", "text": "one two three four"},
        {"id": META_ID, "text": "five six seven eight"},
        {"id": "b", "text": "one two three four five"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, counts, stderr, url = cli_index(solr_base, path, "--threshold", "0.4")
    assert code == 0, stderr
    assert counts["indexed"] == 2 and counts["rejected"] == 1
    assert counts["rejections"][0]["line"] == 2
    assert f"{path}:2: " in stderr and "reserved" in stderr
    from neardup.solr.admin import connect

    solr = connect(url.rsplit("/", 1)[0], url.rsplit("/", 1)[1])
    stored = SolrBackend(solr).load_params()
    assert stored is not None and stored["threshold"] == 0.4


@pytest.mark.parametrize("kind", ["memory", pytest.param("solr", marks=pytest.mark.solr)])
def test_records_given_as_values_cannot_reach_the_metadata(
    kind: str, request: pytest.FixtureRequest
) -> None:
    if kind == "memory":
        idx = NearDupIndex(Params(threshold=0.4))
    else:
        factory: Callable[[str], Solr] = request.getfixturevalue("new_collection")
        idx = NearDupIndex(Params(threshold=0.4), backend=SolrBackend(factory("meta")))
    stats = idx.add_many(
        [("a", "one two three"), (META_ID, "evil text here"), Record(META_ID, "more evil")]
    )
    assert (stats.indexed, stats.rejected) == (1, 2)
    assert all("reserved" in r.reason for r in stats.rejections)
    assert [r.line for r in stats.rejections] == [2, 0]
    again = NearDupIndex(backend=idx.backend)
    assert again.params.threshold == 0.4
    assert len(again) == 1


# -- 8: ids that would break outputs are refused --------------------------------------------


def test_ids_with_control_characters_are_refused_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "ids.csv"
    path.write_text(
        'id,text\n"a\tb",tab in the id\n"c\nd",newline in the id\nok id,fine text\n'
        '"e\x1b[31m",escape in the id\n"f\u202eg",bidi override in the id\n',
        encoding="utf-8",
    )
    items = list(read_records(path))
    got = [(i.line, i.reason) for i in items if isinstance(i, Rejection)]
    assert [line for line, _ in got] == [2, 3, 6, 7]
    assert [r.split(" at ")[0] for _, r in got] == [
        "id holds the control character U+0009",
        "id holds the control character U+000A",
        "id holds the control character U+001B",
        "id holds the control character U+202E",
    ]
    assert [i.id for i in items if isinstance(i, Record)] == ["ok id"]
    path = tmp_path / "ids.jsonl"
    path.write_text('{"id": "x\\u2028y", "text": "line separator"}\n', encoding="utf-8")
    (item,) = read_records(path)
    assert isinstance(item, Rejection) and "U+2028" in item.reason
    idx = NearDupIndex()
    stats = idx.add_many([("p\rq", "carriage return"), ("fine", "a fine text")])
    assert stats.rejected == 1 and "U+000D" in stats.rejections[0].reason


def test_a_report_with_spaces_in_ids_reads_back(tmp_path: Path) -> None:
    report = tmp_path / "pairs.tsv"
    report.write_text(
        "id1\tid2\tjaccard\tedit_distance\nacme inc\tacme  inc.\t0.9000\t1\n", encoding="utf-8"
    )
    (pair,) = read_pairs(report)
    assert set(pair) == {"acme inc", "acme  inc."}
    plain = tmp_path / "gold.txt"
    plain.write_text("1 2\n3   4\n", encoding="utf-8")
    assert read_pairs(plain) == {("1", "2"), ("3", "4")}
