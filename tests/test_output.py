"""Real data out (issue 27): ``--out -`` is standard output, ``--quiet``, the report's pairs and
clusters as TSV, CSV, JSON Lines and Parquet tables with texts, sources, similarity and reason,
``Report.to_pandas()`` and ``.to_polars()``, ``evaluate --id-field``, and ``plot`` without
matplotlib."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.cli.main import build_parser
from neardup.decision.cluster import pair_clusters
from neardup.errors import NeardupWarning
from neardup.keys import record_id
from neardup.out.output import (
    cluster_columns,
    decided_line,
    pair_columns,
    rule_line,
    table_format,
    write_table,
)
from neardup.resources import restaurants
from neardup.solr import admin

from .conftest import REPO, run_cli

ADDRESSES, GOLD = restaurants()
DELI = "Arts Deli 12224 Ventura Blvd Studio City"
DELI2 = "Art's Deli 12224 Ventura Boulevard Studio City"
HOTEL = "Hotel Bel-Air 701 Stone Canyon Rd Bel Air"
HOTEL2 = "Hotel Bel Air 701 Stone Canyon Road Bel Air"


def _index() -> NearDupIndex:
    index = NearDupIndex(Params(threshold=0.4))
    index.add_many([("1", DELI, "a.csv"), ("2", DELI2, "b.csv"), ("3", HOTEL, "a.csv"),
                    ("4", HOTEL2, "b.csv"), ("5", "something else entirely", "a.csv")])
    return index


def test_pair_and_cluster_tables_in_every_format(tmp_path: Path) -> None:
    index = _index()
    report = index.report()
    assert [(p.id1, p.id2) for p in report.pairs] == [("1", "2"), ("3", "4")]
    cols = pair_columns(report, index)
    assert cols["text1"] == [DELI, HOTEL] and cols["text2"] == [DELI2, HOTEL2]
    assert cols["source1"] == ["a.csv", "a.csv"] and cols["source2"] == ["b.csv", "b.csv"]
    assert cols["similarity"] == [p.jaccard for p in report.pairs]
    assert all(r.startswith(f"Jaccard {p.jaccard:.3f} >= 0.4")
               for r, p in zip(cols["reason"], report.pairs, strict=True))
    for fmt in ("tsv", "csv", "jsonl"):
        path = tmp_path / f"pairs.{fmt}"
        assert write_table(cols, path, fmt) == 2
        text = path.read_text()
        if fmt == "jsonl":
            rows = [json.loads(line) for line in text.splitlines()]
        else:
            rows = list(csv.DictReader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ","))
        assert [(r["id1"], r["text2"], r["source2"]) for r in rows] == [
            ("1", DELI2, "b.csv"), ("3", HOTEL2, "b.csv")]
    pq = pytest.importorskip("pyarrow.parquet")
    write_table(cols, tmp_path / "pairs.parquet", "parquet")
    back = pq.read_table(tmp_path / "pairs.parquet").to_pydict()
    assert back["text1"] == [DELI, HOTEL] and back["similarity"] == cols["similarity"]
    # The CLI's clusters: members are keys (b.csv's records keyed by id and source), shown as ids.
    groups = [c.members for c in pair_clusters(report.pairs, index.primary_source)]
    assert [[record_id(m) for m in g] for g in groups] == [
        [i for _, i in c] for c in index.clusters()]  # members are (source, id): two sources
    table = cluster_columns(groups, index)
    assert list(zip(table["cluster"], table["id"], table["text"], strict=True)) == [
        (1, "1", DELI), (1, "2", DELI2), (2, "3", HOTEL), (2, "4", HOTEL2)]
    assert table_format("x.parquet", None) == "parquet" and table_format("x.tsv", None) is None


def test_report_to_pandas_and_polars() -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    report = _index().report()
    frame = report.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert frame[["id1", "id2", "text1", "text2"]].values.tolist() == [
        ["1", "2", DELI, DELI2], ["3", "4", HOTEL, HOTEL2]]
    polars = report.to_polars()
    assert isinstance(polars, pl.DataFrame)
    assert polars["similarity"].to_list() == [p.jaccard for p in report.pairs]


def test_dedupe_and_review_write_to_stdout(tmp_path: Path) -> None:
    proc = run_cli("dedupe", str(ADDRESSES), "--out", "-", "--backend", "memory", "--json")
    assert proc.returncode == 0, proc.stderr
    assert not (REPO / "-").exists()
    counts = json.loads(proc.stderr[proc.stderr.index("{"):])  # the summary goes to stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == counts["kept"] < 864 and lines[0] == ADDRESSES.read_text().splitlines()[0]
    page = run_cli("review", str(ADDRESSES), "--out", "-", "--backend", "memory")
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>") and "pairs in" in page.stderr
    both = run_cli("dedupe", str(ADDRESSES), "--out", "-", "--rejects", "-", "--backend", "memory")
    assert both.returncode == 2 and "only one output can be standard output" in both.stderr


PEOPLE = (
    "name,street,city\n"
    "Jon Smith,12 Main St,Boston\nJohn Smith,12 Main Street,Boston\n"
    "Mary Jones,4 Elm Rd,Salem\nMary Jones,4 Elm Road,Salem MA\nPeter Brown,77 Oak Ave,Dover\n"
)
#: The first words of the lines that say how the pairs were decided in detail.
DETAILS = ("valley rule:", "dates check", "columns (", "clusters completed:")


@pytest.mark.parametrize("verb", ["dedupe", "review"])
def test_one_plain_line_says_what_was_decided_and_v_tells_how(verb: str, tmp_path: Path) -> None:
    src = tmp_path / "people.csv"
    src.write_text(PEOPLE)
    out = tmp_path / ("out.csv" if verb == "dedupe" else "page.html")
    run = (verb, str(src), "--out", str(out), "--backend", "memory")
    plain = run_cli(*run)
    assert plain.returncode == 0, plain.stderr
    summary, decided = plain.stdout.splitlines()  # the summary, and one line: nothing more
    assert decided == (
        "decided: pairs with Jaccard >= 0.5, the default, as the data show no clear cut")
    for flags in (("-v",), ("--verbose",)):
        loud = run_cli(*run, *flags)
        assert loud.returncode == 0, loud.stderr
        lines = loud.stdout.splitlines()
        assert lines[1] == decided
        assert [next(n for n, ln in enumerate(lines) if ln.startswith(d)) for d in DETAILS] == [
            2, 3, 4, 5]
    top = run_cli("-v", *run)  # neardup's own -v (Solr's retries) says as much
    assert top.stdout.splitlines()[1:] == lines[1:]
    got = json.loads(run_cli(*run, "--json").stdout)  # --json has the details, always
    rule = got["report"]["rule"]
    assert rule["kind"].startswith("valley") and rule["found"] is False
    assert "no valley" in rule["reason"]
    assert rule["columns"]["columns"] == ["name", "street", "city"]
    assert got["report"]["completion"]["reason"].startswith("0 pairs added")


def test_report_takes_v_and_rule_line_is_empty_without_it() -> None:
    parser = build_parser()
    assert parser.parse_args(["report", "--out", "p.tsv"]).verbose is False
    assert parser.parse_args(["report", "--out", "p.tsv", "-v"]).verbose is True
    assert parser.parse_args(["-v", "report", "--out", "p.tsv"]).verbose is True  # not reset
    index = NearDupIndex()
    index.add_many(_lines_of(PEOPLE))
    report = index.report()
    assert rule_line(report.decision, report.completion, verbose=False) == ""
    detail = rule_line(report.decision, report.completion, verbose=True)
    assert detail.startswith("\nvalley rule: Jaccard >= 0.5") and "clusters completed" in detail
    assert decided_line(report).count("\n") == 1 and "valley" not in decided_line(report)


def _lines_of(table: str) -> list[tuple[str, str]]:
    """The rows of a CSV text as (line number, the row's text) records."""
    rows = table.splitlines()[1:]
    return [(str(n), row.replace(",", " ")) for n, row in enumerate(rows, start=2)]


def test_quiet_prints_a_summary_of_the_rejections(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("".join(f"{n}\n" for n in range(1, 21)) + "".join(
        f"{n} record number {n}\n" for n in range(21, 31)) + "21 again\n")
    out = tmp_path / "o.txt"
    loud = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory")
    assert loud.stderr.count("neardup: empty text, not indexed: ") == 20
    assert loud.stderr.count("neardup: rejected ") == 1
    quiet = run_cli("dedupe", str(path), "--out", str(out), "--backend", "memory", "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr.count("neardup: empty text, not indexed: ") == 5  # the first five
    assert quiet.stderr.count("neardup: rejected ") == 1  # and the counts by reason
    assert "... and 16 more rejected records not shown" in quiet.stderr
    assert "rejected by reason: no text after the id: 20; duplicate id: 1" in quiet.stderr


def test_cli_report_tables_and_stdout(solr_base: str, tmp_path: Path) -> None:
    coll = "test_report_tables"
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/{coll}"}
    admin.delete_collection(admin.connect(solr_base, coll))
    try:
        assert run_cli("index", str(ADDRESSES), env=env).returncode == 0
        ids = run_cli("report", "--out", "-", env=env)
        assert ids.returncode == 0, ids.stderr
        assert ids.stdout.splitlines()[0] == "id1\tid2\tjaccard\tedit_distance\tsimilarity"
        assert "kept" in ids.stderr and "kept" not in ids.stdout
        clusters = tmp_path / "clusters.csv"  # (--format is every table's: a .jsonl is refused)
        table = run_cli("report", "--out", "-", "--format", "csv", "--clusters", str(clusters),
                        env=env)
        assert table.returncode == 0, table.stderr
        rows = list(csv.DictReader(io.StringIO(table.stdout)))
        assert len(rows) == len(ids.stdout.splitlines()) - 1 > 90
        texts = dict(line.split(None, 1) for line in ADDRESSES.read_text().splitlines())
        assert all(r["text1"] == texts[r["id1"]].strip() and r["text2"] == texts[r["id2"]].strip()
                   for r in rows)
        assert all(r["source1"] == str(ADDRESSES) and r["reason"] for r in rows)
        members = list(csv.DictReader(io.StringIO(clusters.read_text(encoding="utf-8"))))
        assert {m["id"] for m in members} == {r[k] for r in rows for k in ("id1", "id2")}
        assert all(m["text"] == texts[m["id"]].strip() for m in members)
        pq = pytest.importorskip("pyarrow.parquet")
        out = tmp_path / "pairs.parquet"
        assert run_cli("report", "--out", str(out), env=env).returncode == 0
        assert pq.read_table(out).column("id1").to_pylist() == [r["id1"] for r in rows]
    finally:
        admin.delete_collection(admin.connect(solr_base, coll))


def test_report_tsv_names_the_first_source_where_its_columns_name_others(
    solr_base: str, tmp_path: Path
) -> None:
    """Two files with the same ids in one collection: the TSV left source1 source2 blank for
    a pair within the first file and named it in a pair across, so evaluate read '1' (blank)
    and '1' of a.csv as two records: a gold file with sources scored recall 0.333, not 1."""
    coll = "test_report_tsv_sources"
    env = {"NEARDUP_SOLR_URL": f"{solr_base}/{coll}"}
    admin.delete_collection(admin.connect(solr_base, coll))
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,text\n1,the quick brown fox jumps over the lazy dog near the river bank\n"
                 "2,the quick brown fox jumps over the lazy dog near the river banks\n"
                 "3,a unique sentence nobody else shares at all whatsoever indeed\n")  # fmt: skip
    b.write_text("id,text\n1,the quick brown fox jumps over the lazy dog near the river bank\n")
    try:
        for path in (a, b):
            assert run_cli("index", str(path), env=env).returncode == 0
        rep = run_cli("report", "--out", "-", "--threshold", "0.9", env=env)
        assert rep.returncode == 0, rep.stderr
        rows = [line.split("\t") for line in rep.stdout.splitlines()[1:]]
        assert rows and all(r[5] and r[6] for r in rows), rep.stdout
        pairs = tmp_path / "pairs.tsv"
        pairs.write_text(rep.stdout)
        gold = tmp_path / "gold.tsv"
        gold.write_text(f"id1\tid2\tsource1\tsource2\n1\t2\t{a}\t{a}\n")
        ev = run_cli("evaluate", str(pairs), "--gold", str(gold), "--json")
        assert ev.returncode == 0, ev.stderr
        assert json.loads(ev.stdout)["recall"] == 1.0
    finally:
        admin.delete_collection(admin.connect(solr_base, coll))


def _evaluated(tmp_path: Path, gold_lines: str) -> tuple[list[str], subprocess.CompletedProcess]:
    """``evaluate --json`` of the pair a-b against ``gold_lines``, the records a, b, c given
    with their ids in a column ``key``; the arguments, for another run."""
    found, gold, records = tmp_path / "f.tsv", tmp_path / "g.tsv", tmp_path / "r.csv"
    found.write_text("a\tb\n")
    gold.write_text(gold_lines)
    records.write_text("key,text\na,x\nb,y\nc,z\n")
    args = ["evaluate", str(found), "--gold", str(gold), "--records", str(records),
            "--id-field", "key"]  # fmt: skip
    proc = run_cli(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return args, proc


def test_evaluate_id_field(tmp_path: Path) -> None:
    args, proc = _evaluated(tmp_path, "a\tb\n")
    assert json.loads(proc.stdout)["bcubed"]["records"] == 3
    page = run_cli(*args, "--html", "-")
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>") and "F1 1.000" in page.stderr


def test_evaluate_says_which_gold_records_are_not_in_the_records(tmp_path: Path) -> None:
    _, proc = _evaluated(tmp_path, "a\tb\n99\t100\n")
    said = json.loads(proc.stdout)
    assert said["bcubed"]["records"] == 5
    assert any("2 records named by the pairs or the gold are not in --records" in n
               for n in said["notes"]), said["notes"]
    assert "the first: 100" in proc.stderr


def test_plot_without_matplotlib_names_the_extra(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from neardup.cli import main\n"
        f"sys.exit(main(['plot', 's-curve', '--out-dir', {str(tmp_path)!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(REPO))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "pip install 'neardup[plot]'" in proc.stderr


# -- issue 41: tables written whole, with their mode, and several outputs together ----------

WRITE_FULL = """
import resource, sys
from neardup.out.output import write_table
resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
columns = {"id": [str(n) for n in range(100)], "text": ["a text of some length"] * 100}
write_table(columns, sys.argv[1], sys.argv[2])
"""


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl", "parquet"])
def test_a_table_that_cannot_be_written_leaves_the_old_file(fmt: str, tmp_path: Path) -> None:
    """The file cannot grow past 200 bytes (as on a full disk): the old table is kept byte for
    byte, no temporary file is left, and the error names the file."""
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"pairs.{fmt}"
    out.write_bytes(b"the old table\n")
    proc = subprocess.run(
        [sys.executable, "-c", WRITE_FULL, str(out), fmt], capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stderr
    assert f"OutputError: {out}: cannot be written: File too large" in proc.stderr
    assert out.read_bytes() == b"the old table\n"
    assert [p.name for p in tmp_path.iterdir()] == [out.name]


def test_a_replaced_table_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "pairs.csv"
    out.write_bytes(b"old\n")
    out.chmod(0o600)
    write_table({"id1": ["1"], "id2": ["2"]}, out, "csv")
    assert out.read_text() == "id1,id2\n1,2\n"
    assert out.stat().st_mode & 0o777 == 0o600


def test_outputs_are_replaced_together_and_stdout_only_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inside :class:`neardup.out.write.Outputs` a table is not in place, nor sent to stdout, until
    the block ends; an error in the block leaves every old file and sends nothing."""
    from neardup.out.write import Outputs

    a, b = tmp_path / "a.csv", tmp_path / "b.jsonl"
    a.write_bytes(b"old a\n")
    b.write_bytes(b"old b\n")
    cols = {"id": ["1", "2"]}
    with pytest.raises(RuntimeError), Outputs():
        write_table(cols, a, "csv")
        write_table(cols, "-", "tsv")
        write_table(cols, b, "jsonl")
        raise RuntimeError("a later step fails")
    assert a.read_bytes() == b"old a\n" and b.read_bytes() == b"old b\n"
    assert capsys.readouterr().out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.jsonl"]
    with Outputs():
        write_table(cols, a, "csv")
        write_table(cols, "-", "tsv")
        assert a.read_bytes() == b"old a\n" and capsys.readouterr().out == ""
    assert a.read_text() == "id\n1\n2\n" and capsys.readouterr().out == "id\n1\n2\n"


def test_evaluate_finds_the_records_files_by_any_spelling_of_their_paths(tmp_path: Path) -> None:
    """``index`` names a file's records by its absolute path; ``evaluate --records a.csv`` gave
    it as typed, and was refused ("give the records files by the names they were indexed
    under", which the user had done)."""
    (tmp_path / "a.csv").write_text("id,t\n1,acme drill rx-100 black\n2,blue steel kettle\n")
    (tmp_path / "b.csv").write_text("id,t\n1,ACME drill RX100 black\n2,red desk lamp\n")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("id1\tid2\tsource1\tsource2\n"
                     f"1\t1\t{tmp_path / 'a.csv'}\t{tmp_path / 'b.csv'}\n")  # fmt: skip
    (tmp_path / "sub").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "neardup", "evaluate", str(pairs), "--gold", str(pairs),
         "--records", "a.csv", "--records", "./sub/../b.csv", "--json"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bcubed"]["records"] == 4


def test_a_text_column_another_source_names_otherwise_shows_its_values() -> None:
    """``--text-column name`` of a link whose other source calls it ``full_name`` left every
    text2 empty: the column the link matched with it is shown, else the whole text."""
    import random

    pd = pytest.importorskip("pandas")
    rng = random.Random(3)
    names = [f"{rng.choice(['Rita', 'Peter', 'Anna', 'Omar'])} {w} {i}"
             for i, w in enumerate(["Novak", "Costa", "Weber", "Haddad"] * 5)]  # fmt: skip
    index = NearDupIndex()
    index.add_frame(pd.DataFrame({"id": range(20), "name": names, "city": ["Omaha"] * 20}),
                    source_name="a.csv")  # fmt: skip
    index.add_frame(pd.DataFrame({"id": range(20), "full_name": names, "town": ["Omaha"] * 20}),
                    source_name="b.csv")  # fmt: skip
    report = index.report(mode="link", columns="name=full_name")
    assert report.pairs
    cols = pair_columns(report, index, "name")
    assert cols["text1"] == cols["text2"] and all(t in names for t in cols["text2"])
    unmatched = pair_columns(index.report(mode="link"), index, "city")
    assert all(t == "Omaha" for t in unmatched["text1"]) and all(unmatched["text2"])


def test_a_report_whose_records_were_removed_says_so_in_its_table() -> None:
    """``to_pandas()`` reads the texts when called: a record removed after the report came out
    with an empty text and source, and nothing said."""
    pytest.importorskip("pandas")
    index = NearDupIndex(Params(threshold=0.5))
    index.add_many([("1", "jon smith 12 main st boston"), ("2", "john smith 12 main st boston"),
                    ("3", "mary jones 4 elm road salem"), ("4", "mary jones 4 elm rd salem")])
    report = index.report()
    assert len(report.pairs) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report.to_pandas()  # all there: nothing said
    index.remove(["2"])
    with pytest.warns(NeardupWarning, match="1 of the 4 records in the report are no longer"):
        frame = report.to_pandas()
    assert frame.text2.isna().tolist() == [True, False]


def test_a_text_column_of_records_without_columns_is_refused() -> None:
    """Records indexed from lines have no columns: ``to_pandas(text_column="nosuch")`` and
    ``--text-column nosuch`` wrote every whole text, exit 0, as if the column were there."""
    from neardup.errors import InputError

    idx = NearDupIndex()
    idx.add_many([("1", "hotel bel air 701 stone canyon road"),
                  ("2", "hotel bel-air 701 stone canyon road")])  # fmt: skip
    report = idx.report()
    assert report.pairs
    with pytest.raises(InputError, match="no column 'nosuch': these records were indexed "
                       "without columns"):  # fmt: skip
        report.to_pandas(text_column="nosuch")


def test_report_refuses_an_output_named_for_another_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report --format X --out NAME.Y``: which won depended on the two (x.csv --format jsonl
    wrote CSV, x.parquet --format tsv Parquet, d.json TSV that evaluate then refused). Now a
    conflict is refused before any work, by the check dedupe uses (one definition)."""
    from neardup.cli.main import main
    from neardup.errors import ArgumentError
    from neardup.out.dedupe import check_output_format

    records = tmp_path / "r.txt"
    records.write_text(f"1 {DELI}\n2 {DELI2}\n3 {HOTEL}\n4 {HOTEL2}\n", encoding="utf-8")
    idx = tmp_path / "r.duckdb"
    assert main(["index", str(records), "--index-file", str(idx), "--quiet"]) == 0
    capsys.readouterr()
    refused = [
        (["--out", "a.csv", "--format", "jsonl"], "--out a.csv: its extension says CSV, but "
         "--format jsonl asks for JSON Lines"),
        (["--out", "b.tsv", "--format", "csv"], "its extension says TSV"),
        (["--out", "c.parquet", "--format", "tsv"], "its extension says PARQUET"),
        (["--out", "d.json", "--format", "csv"], "its extension says JSON Lines"),
        (["--out", "e.arrow"], "a format the report is not written in"),
        (["--out", "f.txt", "--format", "csv", "--clusters", "c.tsv"], "--clusters c.tsv"),
    ]  # fmt: skip
    for args, said in refused:
        code = main(["report", "--index-file", str(idx), *[str(tmp_path / a) if "." in a
                     else a for a in args]])  # fmt: skip
        err = capsys.readouterr().err
        assert code == 2 and said in err.replace(str(tmp_path) + os.sep, ""), (args, err)
        assert not any((tmp_path / a).exists() for a in args if "." in a)
    written = {"d.json": b'{"id1"', "g.pq": b"PAR1", "h.tsv": b"id1\tid2\tjaccard"}
    for name, start in written.items():  # a name alone: its extension's format, ids for .tsv
        assert main(["report", "--index-file", str(idx), "--out", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_bytes().startswith(start), name
    assert table_format("x.tsv", "tsv") == "tsv" and table_format("-", "csv") == "csv"
    assert table_format("x.txt", "parquet") == "parquet" and table_format("x.json", None) == "jsonl"
    # dedupe's check is the same: a CSV input's output named .json is refused too
    with pytest.raises(ArgumentError, match=r"--out o.json: its extension says JSON Lines, but "
                       "dedupe writes the input's format, CSV"):  # fmt: skip
        check_output_format("o.json", "csv", None)
    check_output_format("o.json", "jsonl", None)


def test_a_dedup_table_holds_the_jaccard_and_a_rounded_similarity() -> None:
    """hx21: a dedup report's table (CSV, JSON Lines, Parquet, to_pandas) had no jaccard
    column, which the TSV has, and wrote the weighted similarity unrounded
    (0.7120787520320071) where the link's tables round it to 6 digits."""
    from neardup.out.output import pair_columns
    from neardup.read.records import read_records

    idx = NearDupIndex()
    idx.add_many(read_records(ADDRESSES), progress=False)
    report = idx.report()
    cols = pair_columns(report, idx)
    assert report.pairs and cols["jaccard"] == [p.jaccard for p in report.pairs]
    assert all(v == round(v, 6) for v in cols["similarity"])
