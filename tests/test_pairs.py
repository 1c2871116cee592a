"""neardup.read.pair_files: ``evaluate`` reads neardup's own pairs tables by their headers, a
record is its source and its id, and a pair is unordered (#38 item 3)."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from neardup import NearDupIndex
from neardup.cli.main import main
from neardup.out.output import pair_columns, write_table
from neardup.out.write import write_pairs

from .conftest import REPO

SOURCES = ("a.csv", "b.csv")
N = 30


def _two_shops() -> tuple[NearDupIndex, list[tuple[tuple[str, str], tuple[str, str]]]]:
    """Two sources that both number their records 1..N; record i of a.csv is record
    (7i mod N) + 1 of b.csv. Texts hold what splits a line: tabs, commas, quotes, a line
    break. Returns the index (in memory) and the true pairs."""
    rng = random.Random(38)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))

    index, truth = NearDupIndex(), []
    a, b = [], []
    for i in range(1, N + 1):
        text = " ".join(word() for _ in range(10)) + ', "quoted",\tand a\nsecond line'
        j = (i * 7) % N + 1
        a.append((str(i), text, SOURCES[0]))
        b.append((str(j), text + " x", SOURCES[1]))
        truth.append(((SOURCES[0], str(i)), (SOURCES[1], str(j))))
    index.add_many(a)
    index.add_many(b)
    return index, truth


def _gold(path: Path, truth: list[tuple[tuple[str, str], tuple[str, str]]]) -> Path:
    """A gold file with sources, every other pair written the other way round."""
    rows = [p if k % 2 else (p[1], p[0]) for k, p in enumerate(truth)]
    path.write_text(
        "id1\tid2\tsource1\tsource2\n"
        + "".join(f"{x[1]}\t{y[1]}\t{x[0]}\t{y[0]}\n" for x, y in rows),
        encoding="utf-8",
    )
    return path


def _evaluate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = main(["evaluate", *args, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


@pytest.mark.parametrize("mode", ["link", "dedup"])
@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl", "parquet"])
def test_own_table_scores_one_against_its_true_pairs(
    fmt: str, mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, truth = _two_shops()
    report = index.report(mode=mode)
    assert len(report.pairs) == N
    pairs = tmp_path / f"pairs.{fmt}"
    write_table(pair_columns(report, index), pairs, fmt)
    gold = _gold(tmp_path / "g.tsv", truth)
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 0, err
    assert (scores["pairs"], scores["gold"], scores["true_pairs"]) == (N, N, N)
    assert scores["precision"] == scores["recall"] == 1.0
    # clusters key records by source and id: the 2N records are N clusters of two
    assert scores["bcubed"]["records"] == 2 * N and scores["bcubed"]["f1"] == 1.0
    assert scores["records_by"] == "source and id"
    # a gold of the ER tasks (ids only, the first file's in the first column) reads the same
    gt = tmp_path / "gt.csv"
    gt.write_text("D1|D2\n" + "".join(f"{x[1]}|{y[1]}\n" for x, y in truth), encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gt))
    assert code == 0, err
    assert scores["true_pairs"] == N and scores["precision"] == scores["recall"] == 1.0
    assert f"its first column read as ids of {SOURCES[0]}" in err


def test_a_dedup_pair_reversed_in_the_gold_still_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ids file ``report --out pairs.tsv`` writes, with its source columns: a pair of
    (source, id) records is the same pair either way round."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.tsv"
    write_pairs(index.report(mode="dedup").pairs, pairs)
    gold = tmp_path / "gold.tsv"
    gold.write_text(
        "id1\tid2\tsource1\tsource2\n"
        + "".join(f"{y[1]}\t{x[1]}\t{y[0]}\t{x[0]}\n" for x, y in truth),
        encoding="utf-8",
    )
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 0, err
    assert scores["true_pairs"] == N and scores["precision"] == scores["recall"] == 1.0


def test_a_table_without_its_id_column_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, truth = _two_shops()
    report = index.report(mode="link")
    columns = pair_columns(report, index)
    del columns["id2"]
    pairs = tmp_path / "pairs.csv"
    write_table(columns, pairs, "csv")
    gold = _gold(tmp_path / "g.tsv", truth)
    code, _, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 2
    assert f"{pairs}:1: the header has no 'id2' column" in err and "Traceback" not in err
    # as a gold file too
    code, _, err = _evaluate(capsys, str(gold), "--gold", str(pairs))
    assert code == 2 and f"{pairs}:1:" in err


def test_a_line_that_cannot_be_read_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index, truth = _two_shops()
    gold = _gold(tmp_path / "g.tsv", truth)
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text('{"id1": "1", "id2": "8"}\n\n{"id1": "2", "text1": "a b"}\n', "utf-8")
    code, _, err = _evaluate(capsys, str(jsonl), "--gold", str(gold))
    assert code == 2 and f"{jsonl}:3: no 'id2'" in err
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("id1\tid2\tsimilarity\n1\t8\t0.9\n2 15 0.8\n", "utf-8")
    code, _, err = _evaluate(capsys, str(tsv), "--gold", str(gold))
    assert code == 2 and f"{tsv}:3: 1 column where the header (line 1) has 3" in err


def test_a_parquet_id_that_is_not_utf8_is_an_error_naming_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Parquet string that is not UTF-8 ended evaluate in a UnicodeDecodeError traceback."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    index, truth = _two_shops()
    gold = _gold(tmp_path / "g.tsv", truth)
    pairs = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"id1": ["1", "@@@@"], "id2": ["8", "9"]}), pairs,
                   compression="none")  # fmt: skip
    pairs.write_bytes(pairs.read_bytes().replace(b"@@@@", b"\xff" * 4))
    code, _, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 2 and f"{pairs}: row 2: invalid UTF-8 in column 'id1'" in err


def test_ids_of_two_sources_against_a_gold_without_sources_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pairs of both directions between two sources that share ids: an id alone in the gold
    cannot say which record it is, so no score is given."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "id1\tid2\tsource1\tsource2\n1\t8\ta.csv\tb.csv\n8\t2\ta.csv\tb.csv\n3\t1\tb.csv\ta.csv\n",
        "utf-8",
    )
    gold = tmp_path / "gold.txt"
    gold.write_text("1 8\n8 2\n", "utf-8")
    code, _, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 2
    assert "an id alone cannot say which record it is" in err and "'8' of a.csv and b.csv" in err


def test_a_labels_file_counts_its_matches_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review page's labels (``source1 id1 source2 id2 label``) as the gold: a pair
    labelled non-match is not a true pair."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.csv"
    write_table(pair_columns(index.report(mode="link"), index), pairs, "csv")
    labels = tmp_path / "labels.tsv"
    (x, y), (u, v) = truth[0], truth[1]
    labels.write_text(
        "source1\tid1\tsource2\tid2\tlabel\n"
        f"{y[0]}\t{y[1]}\t{x[0]}\t{x[1]}\tmatch\n{u[0]}\t{u[1]}\t{v[0]}\t{v[1]}\tnon-match\n",
        "utf-8",
    )
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(labels))
    assert code == 0, err
    assert (scores["gold"], scores["true_pairs"], scores["pairs"]) == (1, 1, N)


def test_pairs_from_standard_input(tmp_path: Path) -> None:
    """``-``: the table comes on stdin, its format read off its content (Parquet here)."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.parquet"
    write_table(pair_columns(index.report(mode="link"), index), pairs, "parquet")
    gold = _gold(tmp_path / "g.tsv", truth)
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", "evaluate", "-", "--gold", str(gold), "--json"],
        input=pairs.read_bytes(), capture_output=True, cwd=str(REPO), timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["f1"] == 1.0


def _shop_files(tmp_path: Path) -> tuple[Path, Path, list[tuple[str, str]]]:
    """Two CSV files numbered 1..N alike; a.csv's i is b.csv's (7i mod N) + 1."""
    rng = random.Random(40)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(7)) for _ in range(4 * N)]
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    rows_a, rows_b, truth = ["id,name"], {}, []
    for i in range(1, N + 1):
        text = " ".join(words[4 * (i - 1) : 4 * i])
        j = (i * 7) % N + 1
        rows_a.append(f"{i},{text}")
        rows_b[j] = f"{j},{text} ltd"
        truth.append((str(i), str(j)))
    a.write_text("\n".join(rows_a) + "\n", encoding="utf-8")
    b.write_text("id,name\n" + "\n".join(rows_b[j] for j in sorted(rows_b)) + "\n",
                 encoding="utf-8")  # fmt: skip
    return a, b, truth


@pytest.mark.parametrize("fmt", ["txt", "csv", "jsonl", "parquet"])
def test_own_clusters_file_is_read_as_its_clusters_pairs(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report --clusters`` in each of its formats, given to evaluate: every two records of
    a cluster are a pair (by source and id), not its first two cells (F1 0 before)."""
    a, b, truth = _shop_files(tmp_path)
    idx = tmp_path / "i.duckdb"
    for f in (a, b):
        assert main(["index", str(f), "--index-file", str(idx), "--quiet"]) == 0
    pairs, clusters = tmp_path / "pairs.tsv", tmp_path / f"cl.{fmt}"
    assert main(["report", "--index-file", str(idx), "--mode", "link", "--out", str(pairs),
                 "--clusters", str(clusters), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(clusters))
    assert code == 0, err
    assert scores["pairs"] == scores["gold"] == scores["true_pairs"] == N
    gold = tmp_path / "gold.tsv"
    lines = "".join(f"{x}\t{y}\t{a}\t{b}\n" for x, y in truth)
    gold.write_text("id1\tid2\tsource1\tsource2\n" + lines, encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(clusters), "--gold", str(gold))
    assert code == 0, err
    assert scores["true_pairs"] == N and scores["precision"] == scores["recall"] == 1.0


def test_a_cluster_of_three_is_three_pairs_and_a_third_column_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clusters = tmp_path / "cl.tsv"
    clusters.write_text("center\tleast_similarity\tmembers\n1\t0.5\t2\t3\n4\t0.9\t5\n",
                        encoding="utf-8")  # fmt: skip
    gold = tmp_path / "gold.txt"
    gold.write_text("1 2\n2 3\n1 3\n4 5\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(clusters), "--gold", str(gold))
    assert code == 0, err
    assert scores["pairs"] == 4 and scores["true_pairs"] == 4
    # a line of the 2014 experiment's groups (tab-separated ids, no header): every two
    groups = tmp_path / "groups.txt"
    groups.write_text("1\t2\t3\n4\t5\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(groups), "--gold", str(gold))
    assert code == 0 and scores["true_pairs"] == 4, err
    # the 2014 report's lines (id, id, edit distance, by tabs) are pairs, the number aside
    scored = tmp_path / "shingles.tsv"
    scored.write_text("1\t2\t0\n4\t5\t2\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(scored), "--gold", str(gold))
    assert code == 0 and (scores["pairs"], scores["true_pairs"]) == (2, 2), err
    # a third column under a header, or separated by commas (a label?), is not read as nothing
    for text in ("a b c\n1 2 3\n4 5 6\n", "1,2,0\n4,5,1\n", "left|right|label\n1|2|1\n"):
        bad = tmp_path / "bad.txt"
        bad.write_text(text, encoding="utf-8")
        code, _, err = _evaluate(capsys, str(bad), "--gold", str(gold))
        assert code == 2 and "evaluate reads" in err and "Traceback" not in err
    # a cluster line with a member's source missing is refused by line
    clusters.write_text("center\tcenter_source\tleast_similarity\tmembers (id, source)\n"
                        "1\ta.csv\t0.5\t2\n", encoding="utf-8")  # fmt: skip
    code, _, err = _evaluate(capsys, str(clusters), "--gold", str(gold))
    assert code == 2 and f"{clusters}:2:" in err


def test_an_id_that_starts_with_a_quote_reads_back_from_the_pairs_and_clusters_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``"x"7`` written as it is: evaluate (and pandas) read the cell as a quoted one and
    failed on the file neardup had just written."""
    from neardup.out.write import write_clusters
    from neardup.results import Pair

    pairs = [Pair('"x"7', "2", 1.0, 0), Pair("3", 'a"b', 0.9, 1)]
    out, clusters = tmp_path / "pairs.tsv", tmp_path / "clusters.txt"
    write_pairs(pairs, out)
    index = NearDupIndex()
    index.add_many([('"x"7', "golden dragon"), ("2", "golden dragon"), ("3", "blue cafe"),
                    ('a"b', "blue cafe")])  # fmt: skip
    write_clusters(index.clusters(), clusters)
    for found in (out, clusters):
        code, scores, err = _evaluate(capsys, str(found), "--gold", str(out))
        assert code == 0, err
        assert scores["true_pairs"] == scores["gold"] == 2


def test_a_gold_header_that_names_the_files_the_other_way_round_is_read_as_it_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``b.csv|a.csv`` above b's ids then a's: read as a's ids then b's, F1 0.012."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.tsv"
    write_pairs(index.report(mode="link").pairs, pairs)
    gold = tmp_path / "gold.txt"
    gold.write_text(f"{SOURCES[1]}|{SOURCES[0]}\n" + "".join(f"{y[1]}|{x[1]}\n" for x, y in truth),
                    encoding="utf-8")  # fmt: skip
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 0, err
    assert scores["true_pairs"] == N and scores["precision"] == scores["recall"] == 1.0
    assert f"its first column read as ids of {SOURCES[1]}" in err and "as its header" in err


def test_a_gold_file_of_ids_written_the_other_way_round_is_read_the_way_its_pairs_are_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """b's ids then a's, no header: read as a's then b's, every score was 0 with exit 0. With
    nothing to name the columns' files, they are read the way more of the pairs are found,
    and the note says so; a file written a's ids first is read as before."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.tsv"
    write_pairs(index.report(mode="link").pairs, pairs)
    turned, straight = tmp_path / "turned.txt", tmp_path / "straight.txt"
    turned.write_text("".join(f"{y[1]}\t{x[1]}\n" for x, y in truth), encoding="utf-8")
    straight.write_text("".join(f"{x[1]}\t{y[1]}\n" for x, y in truth), encoding="utf-8")
    for gold, said in ((turned, f"its first column read as ids of {SOURCES[1]}"),
                       (straight, f"its first column read as ids of {SOURCES[0]}")):  # fmt: skip
        code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
        assert code == 0, err
        assert scores["true_pairs"] == N and scores["precision"] == scores["recall"] == 1.0
        assert said in err
    assert f"the way {N} pairs of them are in" in err or "as every pair" in err


@pytest.mark.parametrize(
    ("header", "row", "fmt"),
    [
        # Magellan and DeepMatcher's labelled pairs: ltable_id, rtable_id, label 1 or 0
        ("_id,ltable_id,rtable_id,label", "{k},{a},{b},{label}", "csv"),
        # Splink's labels: unique_id_l, unique_id_r, their sources, a clerical match score
        ("unique_id_l,unique_id_r,source_dataset_l,source_dataset_r,clerical_match_score",
         "{a},{b},a.csv,b.csv,{score}", "csv"),
        ("ltable_id\trtable_id\tlabel", "{a}\t{b}\t{word}", "tsv"),
    ],
    ids=["deepmatcher", "splink", "true-false"],
)
def test_other_tools_labelled_pairs_are_read_by_their_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str, row: str, fmt: str
) -> None:
    """A DeepMatcher test split (``ltable_id,rtable_id,label``) as the gold was refused for
    lacking id1 and id2; Splink's labels would have counted every row, its non-matches too.
    Now their columns are read as neardup's, 1 and 0 (true, false; a score from 0.5) as match
    and non-match, and the non-matches are said."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.csv"
    write_table(pair_columns(index.report(mode="link"), index), pairs, "csv")
    gold = tmp_path / f"gold.{fmt}"
    lines = [header]
    for k, (x, y) in enumerate(truth[:10]):
        match = k < 6
        lines.append(row.format(k=k, a=x[1], b=y[1], label=int(match),
                                score=0.9 if match else 0.2, word=str(match).lower()))  # fmt: skip
    gold.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 0, err
    assert (scores["gold"], scores["true_pairs"], scores["pairs"]) == (6, 6, N)
    assert f"{gold} labels 4 pairs non-match" in err
    gold.write_text(f"{header}\n" + row.format(k=0, a="1", b="2", label=7, score=1.5,
                                               word="maybe") + "\n", encoding="utf-8")  # fmt: skip
    code, _, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 2 and f"{gold}:2: label " in err and "expected 'match' or 'non-match'" in err


def test_gold_files_as_other_publishers_write_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Leipzig benchmarks' gold ("idDBLP","idACM" over ids that are not all digits) lost a
    pair to its header; a Magellan predictions table counted its predicted non-matches as
    found; a JSON null label was a match; two columns read as one, the first won silently."""
    found = tmp_path / "found.tsv"
    found.write_text("id1\tid2\njournals/sigmod/Abc02\t375678\nconf/vldb/Xyz99\t671234\n", "utf-8")
    gold = tmp_path / "DBLP-ACM_perfectMapping.csv"
    gold.write_text('"idDBLP","idACM"\r\n"journals/sigmod/Abc02","375678"\r\n'
                    '"conf/vldb/Xyz99","671234"\r\n', "utf-8")  # fmt: skip
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0, err
    assert (scores["gold"], scores["true_pairs"], scores["recall"]) == (2, 2, 1.0)
    # a predictions table: 'predicted' is the decision, its 0 rows not found
    pred = tmp_path / "pred.csv"
    pred.write_text("_id,ltable_id,rtable_id,predicted,probs\n0,journals/sigmod/Abc02,375678,1,"
                    "0.9\n1,a,b,0,0.1\n2,conf/vldb/Xyz99,671234,1,0.8\n", "utf-8")  # fmt: skip
    code, scores, err = _evaluate(capsys, str(pred), "--gold", str(gold))
    assert code == 0, err
    assert (scores["pairs"], scores["precision"]) == (2, 1.0)
    for name, text, said in [
        ("null.jsonl", '{"ltable_id": "a", "rtable_id": "b", "label": null}\n',
         "null.jsonl:1: no label: expected 'match' or 'non-match'"),
        ("both.csv", "id_l,id_r,is_match,clerical_match_score\n1,2,0,0.9\n",
         "both.csv:1: the columns 'is_match' and 'clerical_match_score' would both be read as "
         "label"),
        ("ids.csv", "ltable_id,rtable_id,left_id,right_id,label\n1,2,7,8,1\n",
         "ids.csv:1: the columns 'ltable_id' and 'left_id' would both be read as id1"),
    ]:
        bad = tmp_path / name
        bad.write_text(text, "utf-8")
        code, _, err = _evaluate(capsys, str(found), "--gold", str(bad))
        assert code == 2 and said in err, err


def test_a_gold_file_naming_its_files_as_typed_is_read_as_the_index_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gold file whose sources are ``a.csv`` and ``b.csv`` (as typed, or a Splink
    ``source_dataset``) against pairs of sources the index named by their absolute paths was
    refused ("no source in common"), while ``report --labels`` read the same file."""
    index, truth = _two_shops()
    pairs = tmp_path / "pairs.csv"
    write_table(pair_columns(index.report(mode="link"), index), pairs, "csv")
    text = pairs.read_text("utf-8")
    for name in SOURCES:  # the index's sources as absolute paths
        text = text.replace(f",{name},", f",{tmp_path / 'data' / name},")
    pairs.write_text(text, "utf-8")
    gold = tmp_path / "gold.csv"
    rows = "".join(f"{x[1]},{y[1]},{x[0]},{y[0]}\n" for x, y in truth)
    gold.write_text("unique_id_l,unique_id_r,source_dataset_l,source_dataset_r\n" + rows, "utf-8")
    code, scores, err = _evaluate(capsys, str(pairs), "--gold", str(gold))
    assert code == 0, err
    assert scores["true_pairs"] == N == scores["gold"]
    assert "gold.csv names its sources' files as typed, or from another folder" in err


def test_a_gold_file_in_windows_1252_is_read_as_the_records_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The records' files read bytes that are not UTF-8 as Windows-1252; a gold file of the
    same bytes was refused ("invalid UTF-8"), so its ids could not match theirs."""
    gold, found = tmp_path / "gold.tsv", tmp_path / "found.tsv"
    gold.write_bytes(b"id1\tid2\nCaf\xe9\tCafe\n")
    found.write_bytes(b"id1\tid2\nCafe\tCaf\xc3\xa9\n")
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0, err
    assert scores["true_pairs"] == 1 and f"{gold}:2: not UTF-8 at column 4" in err


def test_a_source_named_on_a_non_match_line_only_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A labels file whose one line of source c.csv says non-match: the note said the labels
    named no c.csv, as only its match lines were read for sources."""
    found, gold = tmp_path / "p.tsv", tmp_path / "labels.tsv"
    found.write_text("id1\tid2\tsource1\tsource2\n1\t2\ta.csv\tb.csv\n3\t4\ta.csv\tc.csv\n",
                     encoding="utf-8")  # fmt: skip
    gold.write_text("source1\tid1\tsource2\tid2\tlabel\na.csv\t1\tb.csv\t2\tmatch\n"
                    "a.csv\t3\tc.csv\t4\tnon-match\n", encoding="utf-8")  # fmt: skip
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0, err
    assert "names sources" not in err and scores["true_pairs"] == 1


def test_a_group_line_holding_a_score_is_refused(tmp_path: Path) -> None:
    """'1 752' then '2 753 0.7 extra': the longer line was a group of four ids, 0.7 one of
    them, and 2 pairs counted as 8 more without a word."""
    from neardup.errors import InputError
    from neardup.read.pair_files import read_pairs_file

    path = tmp_path / "pairs.txt"
    path.write_text("1 752\n2 753 0.7 extra\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pairs.txt:2: 4 columns, one of them the number 0.7"):
        read_pairs_file(path)
    path.write_text("1 752 9\n2 753 8 4\n", encoding="utf-8")  # groups of integer ids stay
    assert len(read_pairs_file(path).pairs) == 3 + 6


_TWO_SHOPS_CSV = (
    "id,{src},title\n"
    "1,A,Bosch cordless drill RL-1299 18V black\n"
    "1,B,Philips shaver S5000 wet & dry\n"
    "2,A,Philips shaver S5000 wet and dry\n"
    "2,B,Bosch RL1299 cordless drill 18V black\n"
    "3,A,Sony camera A7 III body only\n"
    "3,B,Canon EOS R5 mirrorless camera\n"
)


@pytest.mark.parametrize("src", ["source", "src"])
def test_dedupe_cluster_column_with_sources_reads_a_cluster_as_its_source_and_id(
    src: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``dedupe --source-field S --cluster-column cluster`` names a cluster by ``cluster`` and
    ``cluster_source``: evaluate read ``cluster`` alone, so A's cluster 1 and B's cluster 1
    were one (precision 0.286), and with ``src`` it read ids alone (recall 0.5)."""
    both = tmp_path / "both.csv"
    both.write_text(_TWO_SHOPS_CSV.format(src=src), encoding="utf-8")
    out = tmp_path / "dd.csv"
    assert main(["dedupe", str(both), "--source-field", src, "--out", str(out),
                 "--cluster-column", "cluster", "--backend", "memory", "--quiet"]) == 0  # fmt: skip
    header = out.read_text(encoding="utf-8").splitlines()[0]
    assert header.endswith("cluster,cluster_source,similarity")
    gold = tmp_path / "gold.csv"
    gold.write_text("source1,id1,source2,id2\nA,1,B,2\nA,2,B,1\n", encoding="utf-8")
    capsys.readouterr()
    told = [] if src == "source" else ["--source-field", src]  # 'source': read by default
    code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold), *told)
    assert code == 0, err
    assert (scores["pairs"], scores["true_pairs"], scores["precision"]) == (2, 2, 1.0)
    # --records with --source-field: each record's source is its column's, as dedupe read it
    code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold), "--source-field", src,
                                  "--records", str(both))  # fmt: skip
    assert code == 0, err
    assert scores["bcubed"]["records"] == 6 and scores["bcubed"]["f1"] == 1.0
    if src != "source":  # not told the column: refused, never read as ids alone
        code, _, err = _evaluate(capsys, str(out), "--gold", str(gold))
        assert code == 2 and "cluster_source" in err and "--source-field" in err
        code, _, err = _evaluate(capsys, str(out), "--gold", str(gold), "--source-field", "x")
        assert code == 2 and "'x'" in err


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_cluster_source_is_read_in_json_and_parquet_clusters_tables(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"id": i, "Src": s, "cluster": c, "cluster_source": cs}
            for i, s, c, cs in [(1, "A", 1, "A"), (1, "B", 1, "B"), (2, "A", 1, "B"),
                                (2, "B", 1, "A"), (3, "A", 3, "A"), (3, "B", 3, "B")]]  # fmt: skip
    found = tmp_path / f"dd.{fmt}"
    if fmt == "jsonl":
        found.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), found)
    gold = tmp_path / "gold.csv"
    gold.write_text("source1,id1,source2,id2\nA,1,B,2\nA,2,B,1\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold), "--source-field", "Src")
    assert code == 0, err
    assert (scores["pairs"], scores["true_pairs"], scores["precision"]) == (2, 2, 1.0)
    code, _, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 2 and "--source-field" in err


def test_clusters_table_rows_in_no_cluster_or_in_two_are_not_paired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dedupe writes a row it rejects with an empty cluster: those rows were one cluster ''
    (two rejected rows a found pair); and a record in two clusters (two sources' ids read as
    one) is refused, not merged."""
    found = tmp_path / "dd.csv"
    found.write_text("id,title,cluster,similarity\n1,x,1,1.0\n2,y,1,0.8\n3,z,3,1.0\n"
                     "3,w,,\n5,v,5,1.0\n5,u,,\n", encoding="utf-8")  # fmt: skip
    gold = tmp_path / "g.txt"
    gold.write_text("1 2\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0, err
    assert (scores["pairs"], scores["precision"]) == (1, 1.0)
    found.write_text("id,title,cluster\n1,x,1\n2,y,1\n1,z,3\n4,w,3\n", encoding="utf-8")
    code, _, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 2 and f"{found}:4: record 1 is in cluster 3, and in cluster 1" in err


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_dedupes_cluster_column_named_otherwise_is_read_by_the_name_given(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """hx25 finding 8: evaluate read only a cluster column named ``cluster``, so dedupe's
    output with ``--cluster-column group`` could not be scored at all (exit 2, 'no id1'). A
    column of the records named ``cluster`` is their data then, never read as the clusters."""
    rows = [{"id": str(i), "name": n, "street": st, "cluster": c}
            for i, n, st, c in [(1, "Blue Cafe", "12 Main St", "7"), (2, "Blue Cafe",
                                "12 Main St.", "8"), (3, "Red Shoes", "4 Elm Rd", "7"),
                                (4, "Green Grocer", "9 Oak Ave", "7")]]  # fmt: skip
    shops = tmp_path / f"shops.{fmt}"
    if fmt == "csv":
        shops.write_text("id,name,street,cluster\n" + "".join(
            ",".join(r.values()) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "jsonl":
        shops.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), shops)
    out = tmp_path / f"dd.{fmt}"
    assert main(["dedupe", str(shops), "--out", str(out), "--cluster-column", "group",
                 "--similarity-column", "sim", "--threshold", "0.5", "--backend", "memory",
                 "--quiet"]) == 0  # fmt: skip
    gold = tmp_path / "gold.csv"
    gold.write_text("id1,id2\n1,2\n", encoding="utf-8")
    capsys.readouterr()
    plain = tmp_path / "plain.csv"  # no column 'cluster' at all: the error says the flag
    plain.write_text("id,name,group,similarity\n1,a,1,1.0\n2,a,1,0.9\n", encoding="utf-8")
    code, _, err = _evaluate(capsys, str(plain), "--gold", str(gold))
    assert code == 2 and "give evaluate --cluster-column NAME" in err
    # told a column the table lacks: refused, its 'cluster' being the records' own
    code, _, err = _evaluate(capsys, str(out), "--gold", str(gold), "--cluster-column", "x")
    assert code == 2 and "no column 'x' (--cluster-column" in err
    code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold), "--cluster-column",
                                  "group", "--similarity-column", "sim")  # fmt: skip
    assert code == 0, err
    assert (scores["pairs"], scores["true_pairs"], scores["precision"]) == (1, 1, 1.0)


_PEOPLE = ("name,street,city\nJon Smith,12 Main St,Boston\nJohn Smith,12 Main Street,Boston\n"
           "Mary Jones,4 Elm Rd,Salem\nMary Jones,4 Elm Road,Salem MA\n"
           "Peter Brown,77 Oak Ave,Dover\n")


def test_dedupe_cluster_column_of_a_file_without_ids_is_scored_by_its_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """hx23 finding 6: the README's people.csv (no id column) through dedupe --cluster-column,
    then evaluate with the gold by line number (the ids dedupe gave): exit 2, 'the header has
    no id1 and no id2 column', with --id-field @row and --records too."""
    people, out = tmp_path / "people.csv", tmp_path / "clustered.csv"
    people.write_text(_PEOPLE, encoding="utf-8")
    assert main(["dedupe", str(people), "--out", str(out), "--cluster-column", "cluster",
                 "--backend", "memory", "--quiet"]) == 0  # fmt: skip
    assert [r.split(",")[3] for r in out.read_text().splitlines()[1:]] == ["2", "2", "4", "4", "6"]
    gold = tmp_path / "gold.csv"
    gold.write_text("id1,id2\n2,3\n4,5\n", encoding="utf-8")
    capsys.readouterr()
    for extra in ([], ["--id-field", "@row"], ["--records", str(people)]):
        code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold), *extra)
        assert code == 0, err
        assert (scores["pairs"], scores["true_pairs"], scores["precision"]) == (2, 2, 1.0)
    assert scores["bcubed"]["records"] == 5


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_rows_numbered_otherwise_than_dedupe_numbered_them_are_refused_or_read_from_records(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dedupe drops blank lines (and with --rejects, moves the rows it rejects): the output's
    lines are not the input's. Read by their lines, each cluster would name a record not in
    it: refused, saying to give --records; with --records, the rows are numbered as dedupe read
    the file, rows rejected and written through, and rows over several lines, included."""
    rows = ["Jon Smith,12 Main St,Boston", "", "John Smith,12 Main Street,Boston",
            "Mary Jones,4 Elm Rd,Salem", "bad,row", '"Mary\nJones",4 Elm Road,Salem MA', "",
            "Peter Brown,77 Oak Ave,Dover"]  # fmt: skip
    gold = tmp_path / "gold.csv"
    if fmt == "csv":
        people = tmp_path / "people.csv"
        people.write_text("name,street,city\n" + "\n".join(rows) + "\n", encoding="utf-8")
        gold.write_text("id1,id2\n2,4\n5,7\n", encoding="utf-8")  # lines of the input
    else:
        people = tmp_path / "people.jsonl"
        people.write_text("".join((json.dumps({"name": r.replace('"', "")}) if r else "")
                                  + "\n" for r in rows if r != "bad,row"),
                          encoding="utf-8")  # fmt: skip
        gold.write_text("id1,id2\n1,3\n4,5\n", encoding="utf-8")
    for rejects in ([], ["--rejects", str(tmp_path / f"rejects.{fmt}")]):
        out = tmp_path / f"clustered.{fmt}"
        assert main(["dedupe", str(people), "--out", str(out), "--cluster-column", "cluster",
                     "--backend", "memory", "--quiet", *rejects]) == 0  # fmt: skip
        capsys.readouterr()
        code, _, err = _evaluate(capsys, str(out), "--gold", str(gold))
        assert code == 2 and "does not hold the record it is named by" in err
        assert "--records" in err and "blank lines" in err
        code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold), "--records",
                                      str(people))  # fmt: skip
        assert code == 0, err
        assert (scores["pairs"], scores["true_pairs"], scores["precision"]) == (2, 2, 1.0)


def test_a_clusters_table_named_by_an_id_like_column_or_by_the_one_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """dedupe names the records of a file without 'id' by its one column named as an id
    (customer_id), or by --id-field: evaluate reads the table's rows alike, and a table whose
    clusters do not hold the records they are named by is refused with what to give."""
    people = tmp_path / "people.csv"
    lines = _PEOPLE.splitlines()
    people.write_text("\n".join([f"customer_id,{lines[0]}"]
                                + [f"c{k}_,{line}" for k, line in enumerate(lines[1:])]) + "\n",
                      encoding="utf-8")  # fmt: skip
    gold = tmp_path / "gold.csv"
    gold.write_text("id1,id2\nc0_,c1_\nc2_,c3_\n", encoding="utf-8")
    out = tmp_path / "clustered.csv"
    assert main(["dedupe", str(people), "--out", str(out), "--cluster-column", "cluster",
                 "--backend", "memory", "--quiet", "--keep", "longest"]) == 0  # fmt: skip
    capsys.readouterr()
    code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold))
    assert code == 0, err
    assert (scores["pairs"], scores["true_pairs"]) == (2, 2)
    # dedupe told to number the lines: so is evaluate, else it reads customer_id and refuses
    assert main(["dedupe", str(people), "--out", str(out), "--cluster-column", "cluster",
                 "--backend", "memory", "--quiet", "--id-field", "@row"]) == 0  # fmt: skip
    capsys.readouterr()
    code, _, err = _evaluate(capsys, str(out), "--gold", str(gold))
    assert code == 2 and "'customer_id'" in err and "--id-field" in err
    gold.write_text("id1,id2\n2,3\n4,5\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(out), "--gold", str(gold), "--id-field", "@row")
    assert code == 0, err
    assert (scores["pairs"], scores["true_pairs"]) == (2, 2)
    code, _, err = _evaluate(capsys, str(out), "--gold", str(gold), "--id-field", "nope")
    assert code == 2 and "no column 'nope'" in err


@pytest.mark.parametrize(
    ("gold_text", "pairs", "note"),
    [
        ("A12 B7\n3 4\n", 2, False),  # a first pair of SKUs above numbers: a pair (was dropped)
        ('"q"\t"q2"\n007\t7\n', 2, False),
        ("D1|D2\nA12|B7\n3|4\n", 2, False),  # names: a header, whatever is below
        ("a.csv,b.csv\nA12,B7\n3,4\n", 2, False),
        ("idAbt,idBuy\nA12,B7\n3,4\n", 2, False),
        ("abt|buy\n3|4\n", 1, True),  # two words above numbers: a header, said on stderr
    ],
)
def test_a_first_line_is_a_header_by_its_names_not_by_digits(
    gold_text: str, pairs: int, note: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A headerless gold file whose first ids are not numbers and the next line's are lost its
    first pair, read as a ``D1|D2`` header without a word (true pairs 1 of 1, precision 0.5)."""
    found = tmp_path / "pairs.tsv"
    found.write_text("id1\tid2\tjaccard\tedit_distance\nA12\tB7\t0.9\t1\n3\t4\t0.9\t1\n"
                     "q\tq2\t0.9\t1\n007\t7\t0.9\t1\n", encoding="utf-8")  # fmt: skip
    gold = tmp_path / "gold.txt"
    gold.write_text(gold_text, encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0, err
    assert scores["gold"] == scores["true_pairs"] == pairs
    said = [n for n in scores["notes"] if "read as a header" in n]
    assert bool(said) == note and (f"{gold}:1: 'abt buy' read as a header" in err) == note
    # the other reader of pairs files (plot, the 2014 experiment) reads the first line alike
    from neardup.errors import NeardupWarning
    from neardup.read.pairs import read_pairs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(read_pairs(gold)) == pairs
    assert any(issubclass(w.category, NeardupWarning) for w in caught) == note


def test_the_precision_of_no_pair_found_is_undefined_not_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty pairs file scored precision 0.000: every pair found wrong, of none found."""
    found, gold = tmp_path / "p.tsv", tmp_path / "g.txt"
    found.write_text("id1\tid2\tjaccard\tedit_distance\n", encoding="utf-8")
    gold.write_text("1 2\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0, err
    assert scores["precision"] is None and (scores["recall"], scores["f1"]) == (0.0, 0.0)
    page = tmp_path / "e.html"
    assert main(["evaluate", str(found), "--gold", str(gold), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "precision n/a (no pair found)" in out and "precision 0.000" not in out
    assert 'data-count="precision"><span class="n">n/a<' in page.read_text(encoding="utf-8")
    found.write_text("id1\tid2\tjaccard\tedit_distance\n1\t3\t0.9\t1\n", encoding="utf-8")
    code, scores, err = _evaluate(capsys, str(found), "--gold", str(gold))
    assert code == 0 and scores["precision"] == 0.0, err  # one pair found, wrong: 0


def test_excels_sep_line_in_a_pairs_file(tmp_path: Path) -> None:
    """A gold file saved by Excel with its ``sep=;`` line: the separator, not a row (hostile
    sweep hx22, finding 3)."""
    from neardup.read.pair_files import read_pairs_file

    gold = tmp_path / "gold.csv"
    gold.write_text("sep=;\r\nid1;id2\r\na 1;b 1\r\nc;d\r\n", encoding="utf-8")
    assert read_pairs_file(str(gold)).pairs == [(("", "a 1"), ("", "b 1")), (("", "c"), ("", "d"))]
