"""Real data in (issue 27): nested JSON keys by path, row numbers as ids, Parquet and Arrow
files, pandas and polars DataFrames, identical rows and empty texts, and an exit code that is
not 0 when nothing at all was indexed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup import InputError, NearDupIndex, Params, Record, read_records
from neardup.dedupe import dedupe
from neardup.errors import MissingColumn
from neardup.index import clusters
from neardup.io import ROW_ID, Blank, EmptyText, Rejection

from .conftest import run_cli

DELI = "Arts Deli 12224 Ventura Blvd Studio City"
DELI2 = "Art's Deli 12224 Ventura Boulevard Studio City"
HOTEL = "Hotel Bel-Air 701 Stone Canyon Rd Bel Air"


def _records(items: list[object]) -> list[tuple[str, str]]:
    return [(r.id, r.text) for r in items if isinstance(r, Record)]


# -- nested JSON keys ---------------------------------------------------------------------------


def _nested(path: Path) -> Path:
    rows = [
        {"meta": {"id": "a"}, "item": {"title": DELI, "price": 3}},
        {"meta": {"id": "b"}, "item": {"title": DELI2, "price": 4}},
        {"meta": {"id": "c"}, "item": {"title": HOTEL}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_nested_json_keys_by_path(tmp_path: Path) -> None:
    path = _nested(tmp_path / "n.jsonl")
    items = list(read_records(path, id_field="meta.id", text_fields=["item.title"]))
    assert _records(items) == [("a", DELI), ("b", DELI2), ("c", HOTEL)]
    joined = list(read_records(path, id_field="meta.id", text_fields=["item.title", "item.price"]))
    assert _records(joined)[:2] == [("a", f"{DELI} 3"), ("b", f"{DELI2} 4")]
    assert joined[0].fields == {"item.title": DELI, "item.price": "3"}  # type: ignore[union-attr]
    # a key that is a path to a non-text value is rejected with the path
    bad = list(read_records(path, id_field="meta.id", text_fields=["item"]))
    assert all(isinstance(r, Rejection) and "'item' is not text" in r.reason for r in bad)


def test_cli_nested_text_field_and_nothing_indexed(tmp_path: Path) -> None:
    path = _nested(tmp_path / "n.jsonl")
    out = tmp_path / "out.jsonl"
    proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory")
    assert proc.returncode == 2, proc.stderr
    assert "nothing was indexed: all 3 records were rejected" in proc.stderr
    assert "--text-field item.title" in proc.stderr
    assert not out.exists()
    proc = run_cli(
        "dedupe", str(path), "--out", str(out), "--backend", "memory", "--id-field", "meta.id",
        "--text-field", "item.title", "--threshold", "0.3", "--cluster-column", "cluster",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["cluster"] for r in rows] == ["a", "a", "c"]


def test_index_exit_code_when_nothing_was_indexed(solr_base: str, tmp_path: Path) -> None:
    path = _nested(tmp_path / "n.jsonl")
    coll = f"t_nothing_{tmp_path.name[-12:]}".replace("-", "_")
    proc = run_cli("index", str(path), "--solr-url", solr_base, "--collection", coll)
    try:
        assert proc.returncode == 2, proc.stderr
        assert "nothing was indexed" in proc.stderr
        empty = tmp_path / "empty.jsonl"
        empty.write_text("\n")
        proc = run_cli("index", str(empty), "--solr-url", solr_base, "--collection", coll)
        assert proc.returncode == 2 and "holds no records" in proc.stderr, proc.stderr
    finally:
        from neardup.solr import admin
        from neardup.solr.client import Solr

        try:
            admin.delete_collection(Solr(solr_base, coll))
        except Exception:
            pass


# -- row numbers as ids -------------------------------------------------------------------------


def test_row_numbers_when_there_is_no_id_column(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text(f"name,city\n{DELI},LA\n\n{HOTEL},LA\n")
    with pytest.raises(InputError, match="no column 'id'"):
        list(read_records(path))  # the library's default is an id column, as before
    items = list(read_records(path, id_field=None))
    assert _records(items) == [("2", f"{DELI} LA"), ("4", f"{HOTEL} LA")]
    assert _records(read_records(path, id_field=ROW_ID)) == _records(items)
    with_ids = tmp_path / "b.csv"
    with_ids.write_text(f"id,name\nx,{DELI}\n")
    assert _records(read_records(with_ids, id_field=None)) == [("x", DELI)]
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('not json\n[1]\n{"id": "k", "text": "x y"}\n')  # the first object decides
    assert _records(read_records(jsonl, id_field=None)) == [("k", "x y")]
    lines = tmp_path / "plain.txt"
    lines.write_text(f"{DELI}\n{HOTEL}\n")
    assert _records(read_records(lines, id_field=ROW_ID)) == [("1", DELI), ("2", HOTEL)]


def test_cli_says_ids_are_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text(f"name\n{DELI}\n{DELI2}\n{HOTEL}\n")
    out = tmp_path / "o.csv"
    proc = run_cli(
        "dedupe", str(path), "--out", str(out), "--backend", "memory", "--threshold", "0.3",
        "--cluster-column", "cluster",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "has no 'id' column: the records' ids are the numbers of their lines" in proc.stderr
    rows = [line.rsplit(",", 2) for line in out.read_text().splitlines()[1:]]
    assert [(text, cluster) for text, cluster, _ in rows] == [
        (DELI, "2"), (DELI2, "2"), (HOTEL, "4")
    ]  # the cluster ids are the line numbers of the records kept
    assert rows[0][2] == rows[2][2] == "1.0000" and 0.3 <= float(rows[1][2]) < 1


# -- Parquet and Arrow --------------------------------------------------------------------------


def test_parquet_and_arrow_files(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "id": [1, 2, 3, 4],
            "item": [{"title": DELI}, {"title": DELI2}, {"title": None}, {"title": HOTEL}],
            "price": [1.5, None, 2.0, float("nan")],
        }
    )
    pq.write_table(table, tmp_path / "r.parquet", row_group_size=2)
    feather.write_feather(table, tmp_path / "r.arrow")
    for name in ("r.parquet", "r.arrow"):
        items = list(read_records(tmp_path / name, text_fields=["item.title"]))
        assert _records(items) == [("1", DELI), ("2", DELI2), ("4", HOTEL)]
        assert isinstance(items[2], EmptyText) and items[2].line == 3
        priced = list(read_records(tmp_path / name, text_fields=["price"]))
        assert _records(priced) == [("1", "1.5"), ("3", "2.0")]  # NaN is missing, not "nan"
        with pytest.raises(MissingColumn, match="has no column 'title'"):
            list(read_records(tmp_path / name, text_fields=["title"]))
    no_ids = tmp_path / "n.parquet"
    pq.write_table(pa.table({"text": [DELI, HOTEL]}), no_ids)
    assert _records(read_records(no_ids, id_field=None)) == [("1", DELI), ("2", HOTEL)]
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="not a readable parquet file"):
        list(read_records(broken))


def test_cli_reads_parquet_and_dedupe_writes_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"id": ["a", "b", "c"], "text": [DELI, DELI2, HOTEL],
                             "price": [1, 2, 3]}), path)
    page = tmp_path / "page.html"
    proc = run_cli("review", str(path), "--out", str(page), "--backend", "memory",
                   "--threshold", "0.3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["report"]["records"] == 3 and page.is_file()
    out = tmp_path / "out.parquet"
    args = ("dedupe", str(path), "--out", str(out), "--backend", "memory", "--threshold", "0.3",
            "--text-field", "text")
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    assert pq.read_table(out).to_pydict() == {"id": ["a", "c"], "text": [DELI, HOTEL],
                                               "price": [1, 3]}
    proc = run_cli(*args, "--cluster-column", "cluster")
    assert proc.returncode == 0, proc.stderr
    tagged = pq.read_table(out)
    assert tagged.column_names == ["id", "text", "price", "cluster", "similarity"]
    assert tagged.column("cluster").to_pylist() == ["a", "a", "c"]
    sims = tagged.column("similarity").to_pylist()
    assert sims[0] == sims[2] == 1.0 and 0.3 <= sims[1] < 1.0


def test_dedupe_arrow_with_identical_rows_and_empty_texts(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather as feather

    path = tmp_path / "r.arrow"
    feather.write_feather(pa.table({"id": [1, 2, 1, 3, 4], "text": [DELI, HOTEL, DELI, None,
                                                                    DELI2]}), path)
    index = NearDupIndex(Params(threshold=0.3))
    stats = index.add_many(read_records(path))
    assert (stats.indexed, stats.identical, stats.empty) == (3, 1, 1)
    report = index.report()
    out = tmp_path / "out.arrow"
    d = dedupe(path, out, clusters((p.id1, p.id2) for p in report.pairs), pairs=report.pairs)
    assert feather.read_table(out).to_pydict() == {"id": [1, 2, 3], "text": [DELI, HOTEL, None]}
    assert (d.read, d.kept, d.removed, d.identical, d.empty, d.lines) == (5, 3, 2, 1, 1, 5)


# -- DataFrames ---------------------------------------------------------------------------------


def test_pandas_frame(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {"name": [DELI, DELI2, HOTEL, None, "  "], "city": ["LA", "LA", "LA", "SF", None]},
        index=[10, 20, 30, 40, 50],
    )
    index = NearDupIndex(Params(threshold=0.4))
    stats = index.add_frame(df, text="name")
    assert (stats.read, stats.indexed, stats.rejected, stats.empty) == (5, 3, 2, 2)
    assert [r.id for r in stats.rejections] == ["40", "50"]  # the pandas index labels
    assert [(p.id1, p.id2) for p in index.pairs()] == [("10", "20")]
    by_id = NearDupIndex(Params(threshold=0.4))
    by_id.add_frame(df.assign(key=["a", "b", "c", "d", "e"]), id="key", text=["name", "city"])
    assert [(p.id1, p.id2) for p in by_id.pairs()] == [("a", "b")]
    assert by_id.backend.texts(["a"]) == {"a": f"{DELI} LA"}
    with pytest.raises(InputError, match="no column 'title'"):
        NearDupIndex().add_frame(df, text="title")
    dup = pd.DataFrame({"id": [1, 1, 2], "text": [DELI, DELI, "other"]})
    stats = NearDupIndex().add_many(dup)  # a DataFrame in add_many: its 'id' and 'text'
    assert (stats.read, stats.indexed, stats.identical) == (3, 2, 1)


def test_polars_frame() -> None:
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"text": [DELI, DELI2, HOTEL]})
    index = NearDupIndex(Params(threshold=0.4))
    stats = index.add_frame(df)
    assert stats.indexed == 3
    assert [(p.id1, p.id2) for p in index.pairs()] == [("0", "1")]  # positions from 0


# -- identical rows and empty texts -------------------------------------------------------------


def test_identical_rows_are_copies_and_dedupe_removes_them(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(
        f"id,text\n1,{DELI}\n2,{HOTEL}\n1,{DELI}\n3,\n1,another text\n2,{HOTEL}\n4,{DELI2}\n"
    )
    items = [i for i in read_records(path) if not isinstance(i, Blank)]
    assert [(i.line, i.copy_of) for i in items if isinstance(i, Record)] == [
        (2, 0), (3, 0), (4, 2), (7, 3), (8, 0)
    ]
    assert [(i.line, type(i).__name__) for i in items if isinstance(i, Rejection)] == [
        (5, "EmptyText"), (6, "Rejection")
    ]
    index = NearDupIndex(Params(threshold=0.3))
    stats = index.add_many(read_records(path))
    assert (stats.read, stats.indexed, stats.identical, stats.rejected, stats.empty) == (
        7, 3, 2, 2, 1)
    assert len(index) == 3
    report = index.report()
    groups = clusters((p.id1, p.id2) for p in report.pairs)
    out = tmp_path / "out.csv"
    d = dedupe(path, out, groups, pairs=report.pairs)
    assert out.read_text() == f"id,text\n1,{DELI}\n2,{HOTEL}\n3,\n"
    assert (d.read, d.kept, d.removed, d.rejected, d.identical, d.empty) == (7, 3, 3, 1, 2, 1)
    assert (d.clusters, d.clustered) == (2, 5)  # {1, 1, 4} and {2, 2}
    assert d.read == d.kept + d.removed + d.rejected
    tagged = tmp_path / "tagged.csv"
    dedupe(path, tagged, groups, pairs=report.pairs, cluster_column="cluster")
    assert tagged.read_text().splitlines()[1:] == [
        f"1,{DELI},1,1.0000", f"2,{HOTEL},2,1.0000", f"1,{DELI},1,1.0000", "3,,3,",
        f"2,{HOTEL},2,1.0000", f"4,{DELI2},1,{report.pairs[0].jaccard:.4f}",
    ]  # fmt: skip
    assert [(p.id1, p.id2) for p in report.pairs] == [("1", "4")]


def test_cli_dedupe_counts_identical_rows_and_empty_texts(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text(f"1 {DELI}\n1 {DELI}\n2\n3 {HOTEL}\n")
    out = tmp_path / "o.txt"
    proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory", "--json")
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    assert (counts["identical"], counts["empty_texts"], counts["removed"]) == (1, 1, 1)
    assert out.read_text() == f"1 {DELI}\n2\n3 {HOTEL}\n"
    proc = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory", "--strict")
    assert proc.returncode == 2, proc.stderr


def test_a_missing_column_is_typed_and_the_cli_names_its_flags(tmp_path: Path) -> None:
    """The CLI adds its flags to a MissingColumn by its type (not by matching its words)."""
    src = tmp_path / "in.csv"
    src.write_text("key,body\n1,ok\n")
    with pytest.raises(MissingColumn, match=r"in.csv:1: the header has no column 'title'"):
        list(read_records(src, id_field="key", text_fields=["title"]))
    assert issubclass(MissingColumn, InputError)
    out = tmp_path / "out.csv"
    proc = run_cli("dedupe", str(src), "--out", str(out), "--backend", "memory",
                   "--text-field", "title")  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "the header has no column 'title'" in proc.stderr
    assert proc.stderr.rstrip().endswith("(--id-field, --text-field)")
    assert not out.exists()


def test_the_ids_seen_are_held_where_the_cycle_collector_does_not_walk() -> None:
    """The reader's table of ids seen (for duplicates and identical rows) holds strings and
    ints only, so its dicts are untracked: with a tuple a record, the collector walked 20M
    objects again and again at 10M records. Duplicates and copies are still found."""
    import gc

    from neardup.io import checked_spans

    records = [Record(str(i), f"text {i}", "f.txt", line=i) for i in range(1, 1001)]
    records.append(Record("7", "text 7", "f.txt", line=1001))  # an identical row
    records.append(Record("8", "another text", "f.txt", line=1002))  # a duplicate id
    records.append(Record("8", "text 8", "g.txt", line=1003))  # another source: a record
    gen = checked_spans(((r, r.line) for r in records), "f.txt")
    out = [next(gen)[0] for _ in range(len(records))]
    seen = gen.gi_frame.f_locals["seen"]
    assert seen and all(not gc.is_tracked(ids) for ids in seen.values())
    assert isinstance(out[1000], Record) and out[1000].copy_of == 7
    assert isinstance(out[1001], Rejection)
    assert out[1001].reason == "duplicate id, first seen at line 8"
    assert isinstance(out[1002], Record) and not out[1002].copy_of
