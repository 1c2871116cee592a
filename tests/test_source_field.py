"""A source column (``source_field``, ``--source-field``): one file holding several catalogues,
linked across them; bad input names its file and line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.errors import InputError
from neardup.read.items import Record, Rejection
from neardup.read.records import read_records

from .conftest import run_cli

ROWS = [
    ("id", "src", "name", "city"),
    ("1", "fodors", "Cafe Roma", "Springfield"),
    ("2", "zagats", "Caffe Roma", "Springfield"),
    ("3", "guide", "Cafe Roma", "Springfield"),
    ("4", "fodors", "Cafe Romas", "Springfield"),  # a copy within fodors: never linked
    ("5", "", "Blue Door Books", "Shelbyville"),  # no source
    ("6", "zagats", "!!!", "..."),  # no words after normalization
]


def _csv(path: Path) -> Path:
    path.write_text("".join(",".join(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def test_records_take_their_source_from_the_column(tmp_path: Path) -> None:
    path = _csv(tmp_path / "guides.csv")
    items = list(read_records(path, source_field="src"))
    records = [i for i in items if isinstance(i, Record)]
    assert [(r.id, r.source) for r in records] == [
        ("1", "fodors"), ("2", "zagats"), ("3", "guide"), ("4", "fodors"), ("6", "zagats")
    ]  # fmt: skip
    assert all(r.file == str(path) and r.location == str(path) for r in records)
    assert records[0].text == "Cafe Roma Springfield" and set(records[0].fields) == {"name", "city"}
    [bad] = [i for i in items if isinstance(i, Rejection)]
    assert (bad.source, bad.line, bad.id) == (str(path), 6, "5")
    assert "no source in field 'src'" in bad.reason
    # Without a source field the column is text, and the file is every record's source.
    plain = [i for i in read_records(path) if isinstance(i, Record)]
    assert plain[0].text == "fodors Cafe Roma Springfield" and plain[0].source == str(path)


def test_a_source_field_the_file_does_not_have(tmp_path: Path) -> None:
    path = _csv(tmp_path / "guides.csv")
    with pytest.raises(InputError, match=r"guides.csv:1: the header has no column 'origin'"):
        list(read_records(path, source_field="origin"))
    lines = tmp_path / "r.txt"
    lines.write_text("1 Cafe Roma\n", encoding="utf-8")
    with pytest.raises(InputError, match="source field"):
        list(read_records(lines, source_field="src"))
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text(
        json.dumps({"id": 1, "text": "Cafe Roma", "src": "a"}) + "\n"
        + json.dumps({"id": 2, "text": "Caffe Roma", "src": ["b"]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    got = list(read_records(jsonl, source_field="src"))
    assert isinstance(got[0], Record) and got[0].source == "a"
    assert isinstance(got[1], Rejection) and got[1].line == 2 and "no source" in got[1].reason


def test_link_mode_pairs_across_the_column_and_rejections_name_the_file(tmp_path: Path) -> None:
    path = _csv(tmp_path / "guides.csv")
    index = NearDupIndex(Params(shingle_kind="char", shingle_size=3, threshold=0.5))
    stats = index.add_many(read_records(path, source_field="src"))
    assert (stats.read, stats.indexed, stats.rejected) == (6, 4, 2)
    assert {(r.source, r.line) for r in stats.rejections} == {(str(path), 6), (str(path), 7)}
    link = {(p.id1, p.id2) for p in index.report(mode="link").pairs}
    assert link == {("1", "2"), ("1", "3"), ("2", "3")}  # one partner in each other source
    dedup = {(p.id1, p.id2) for p in index.report(mode="dedup").pairs}
    assert ("1", "4") in dedup and ("1", "4") not in link


def test_dedupe_with_a_source_field_removes_by_source_and_id(tmp_path: Path) -> None:
    """A record is its (source, id): with --source-field, dedupe looked the clusters up by id
    alone, so a near-duplicate of another source was never removed ("2 records in 1 clusters",
    removed 0), or with its own id, kept for sharing the id of the record kept."""
    path = tmp_path / "shops.csv"
    path.write_text("id,shop,text\n1,a,Arts Deli 12224 Ventura Blvd\n1,b,Art's Deli 12224 Ventura"
                    " Blvd\n2,a,Blue Door Books Shelbyville\n7,b,Blue Door Books Shelbyvile\n"
                    "3,b,Cafe Roma Springfield\n", encoding="utf-8")  # fmt: skip
    for keep, kept in (("first", ["1,a", "2,a", "3,b"]), ("last", ["1,b", "7,b", "3,b"])):
        out = tmp_path / f"{keep}.csv"
        proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory", "--json",
                       "--source-field", "shop", "--threshold", "0.5", "--keep", keep)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        counts = json.loads(proc.stdout)
        assert (counts["kept"], counts["removed"], counts["clustered"]) == (3, 2, 4)
        rows = out.read_text(encoding="utf-8").splitlines()[1:]
        assert [",".join(r.split(",")[:2]) for r in rows] == kept


@pytest.mark.parametrize("flags", [["--source-field", "text"], ["--source-field", "id"],
                                   ["--source-field", "src", "--text-field", "src"]])
def test_a_source_column_that_is_the_id_or_the_text_is_refused(
    tmp_path: Path, flags: list[str]
) -> None:
    """``--source-field text`` was accepted: the column was the source and the text compared
    at once, though a source column is no text. Refused, before anything is written."""
    path = tmp_path / "shops.csv"
    path.write_text("id,text,src\n1,hello world,a\n2,hello world,b\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory", *flags)
    assert proc.returncode == 2 and "apart from the id and text columns" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_a_cluster_column_names_the_kept_records_source(tmp_path: Path) -> None:
    """Two clusters whose kept records are a's 1 and b's 1 were both written as cluster "1":
    grouped by that column, a drill and a shaver were one cluster. With a source column the
    cluster is named by its kept record's source too (``<cluster column>_source``), in every
    format that has columns."""
    rows = [("1", "a", "Bosch cordless drill RL-1299 18V"), ("1", "b", "Philips shaver S5000"),
            ("2", "a", "Philips shaver S5000 new"), ("2", "b", "Bosch cordless drill RL1299"),
            ("3", "b", "unrelated garden hose green")]  # fmt: skip
    csv_in = tmp_path / "shops.csv"
    csv_in.write_text("id,src,text\n" + "".join(f"{i},{s},{t}\n" for i, s, t in rows),
                      encoding="utf-8")  # fmt: skip
    jsonl_in = tmp_path / "shops.jsonl"
    jsonl_in.write_text("".join(json.dumps({"id": int(i), "src": s, "text": t}) + "\n"
                                for i, s, t in rows), encoding="utf-8")  # fmt: skip
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    pq_in = tmp_path / "shops.parquet"
    pq.write_table(pa.table({"id": [int(r[0]) for r in rows], "src": [r[1] for r in rows],
                             "text": [r[2] for r in rows]}), pq_in)  # fmt: skip
    for path in (csv_in, jsonl_in, pq_in):
        out = tmp_path / f"out{path.suffix}"
        proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory",
                       "--source-field", "src", "--threshold", "0.4", "--cluster-column", "cl")
        assert proc.returncode == 0, proc.stderr
        assert "the kept record's source in 'cl_source'" in proc.stdout
        if path is csv_in:
            got = [line.split(",") for line in out.read_text(encoding="utf-8").splitlines()]
            assert got[0] == ["id", "src", "text", "cl", "cl_source", "similarity"]
            named = {(r[1], r[0]): (r[4], r[3]) for r in got[1:]}
        elif path is jsonl_in:
            objs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            named = {(o["src"], str(o["id"])): (o["cl_source"], str(o["cl"])) for o in objs}
        else:
            t = pq.read_table(out).to_pylist()
            named = {(r["src"], str(r["id"])): (r["cl_source"], str(r["cl"])) for r in t}
        assert named == {("a", "1"): ("a", "1"), ("b", "1"): ("b", "1"), ("a", "2"): ("b", "1"),
                         ("b", "2"): ("a", "1"), ("b", "3"): ("b", "3")}, path  # fmt: skip


@pytest.mark.solr
def test_cli_source_field(solr_base: str, tmp_path: Path) -> None:
    path = _csv(tmp_path / "guides.csv")
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_source_field_{random.randrange(10**9)}"
    flags = ["--collection", name, "--shingle-kind", "char", "--threshold", "0.5"]
    done = run_cli("index", str(path), "--source-field", "src", *flags, "--json", env=env)
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert (counts["indexed"], counts["rejected"]) == (4, 2)
    out = tmp_path / "pairs.tsv"
    rep = run_cli("report", "--collection", name, "--mode", "link", "--out", str(out), env=env)
    assert rep.returncode == 0, rep.stderr
    rows = {tuple(line.split("\t")[:2]) for line in out.read_text().splitlines()[1:]}
    assert rows == {("1", "2"), ("1", "3"), ("2", "3")}
    bad = run_cli("index", str(path), "--source-field", "origin", *flags, env=env)
    assert bad.returncode == 2 and "no column 'origin'" in bad.stderr


def test_cli_changed_rows_of_a_named_source_replace_their_records(
    solr_base: str, tmp_path: Path
) -> None:
    """Issue 38 case 4: a changed row sent again in a new file, named as the same source,
    replaces its record instead of becoming a second one (reported as the pair '2 2')."""
    first, update = tmp_path / "shop.csv", tmp_path / "update.csv"
    first.write_text("id,name\n1,cafe roma springfield main street\n"
                     "2,blue door books shelbyville oak avenue\n", encoding="utf-8")  # fmt: skip
    update.write_text("id,name\n2,blue door bookshop shelbyville oak avenue\n",
                      encoding="utf-8")  # fmt: skip
    env = {"NEARDUP_SOLR_URL": solr_base}
    name = f"test_named_source_{random.randrange(10**9)}"
    assert run_cli("index", str(first), "--collection", name, env=env).returncode == 0
    done = run_cli("index", str(update), "--source", str(first), "--collection", name,
                   "--json", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    info = json.loads(run_cli("info", "--collection", name, "--json", env=env).stdout)
    assert info["records"] == 2 and info["sources"] == {str(first): 2}
    rep = run_cli("report", "--collection", name, "--threshold", "0.3", "--out", "-", env=env)
    assert rep.returncode == 0 and rep.stdout.splitlines()[1:] == [], rep.stdout
    found = run_cli("search", "blue door", "--collection", name, "--json", env=env)
    texts = [m["text"] for m in json.loads(found.stdout)["matches"]]
    assert texts == ["blue door bookshop shelbyville oak avenue"], texts
    both = run_cli("index", str(update), "--source", "x", "--source-field", "name",
                   "--collection", name, env=env)  # fmt: skip
    assert both.returncode == 2 and "not both" in both.stderr


def test_one_file_read_by_two_spellings_of_its_path_is_one_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a relative and an absolute path of one file were two sources: every record was stored
    # twice and reported as its own duplicate
    (tmp_path / "d").mkdir()
    rng = random.Random(3)
    words = [f"w{k}" for k in range(500)]
    rows = ["id,text"] + [f"{i},{' '.join(rng.sample(words, 8))}" for i in range(1, 31)]
    (tmp_path / "d" / "shop.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    index = NearDupIndex()
    index.add_many(read_records("d/shop.csv"))
    stats = index.add_many(read_records(tmp_path / "d" / "shop.csv"))
    assert stats.indexed == 30 and len(index) == 30
    assert index.report().pairs == []
    bad = read_records("d/shop.csv")  # a message still names the file as typed
    assert next(iter(bad)).location == "d/shop.csv"
    # the one name is the file's absolute path, as the CLI's index names it
    assert index.primary_source == str(tmp_path / "d" / "shop.csv")


def test_ids_repeated_beside_a_source_column_point_to_source_field(tmp_path: Path) -> None:
    """hx28 finding 4: a file holding two catalogues that number their rows alike, with a
    column named ``source``: half its rows were rejected as "duplicate id" and nothing said
    that ``--source-field source`` keeps them apart. Both verbs now say it; a file without such
    a column, or the run with the flag, does not."""
    both = tmp_path / "both.csv"
    both.write_text("id,Source,name,city\n1,fodors,Arnie Mortons,Los Angeles\n"
                    "2,fodors,Arts Deli,Studio City\n1,zagat,Arnie Morton's,Los Angeles\n"
                    "2,zagat,Art's Deli,Studio City\n")  # fmt: skip
    plain = tmp_path / "plain.csv"
    plain.write_text("id,name,city\n1,Arnie Mortons,LA\n2,Arts Deli,SC\n1,Arnie Morton,LA\n")
    hint = "--source-field Source keeps the same id in two of them apart"
    for verb, extra in (("index", ("--index-file", str(tmp_path / "x.duckdb"))),
                        ("dedupe", ("--backend", "memory", "--out", str(tmp_path / "o.csv")))):
        said = run_cli(verb, str(both), *extra)
        assert said.returncode == 0, said.stderr
        assert "2 rows rejected for an id seen before, and the file has a column 'Source'" \
            in said.stderr and hint in said.stderr  # fmt: skip
        assert hint not in run_cli(verb, str(both), *extra, "--source-field", "Source").stderr
    other = run_cli("index", str(plain), "--index-file", str(tmp_path / "y.duckdb"))
    assert "duplicate id" in other.stderr and "--source-field" not in other.stderr
