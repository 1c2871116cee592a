"""A record too large: rejected as it is read (file, line, size), never sent to Solr, counted like
any other rejection; and a request that Solr closes because of its size is named as such.

Nothing is mocked: the CLI runs against the real test Solr, the library in memory, and the
request Solr "closes" goes through :mod:`tests.faultproxy` in front of the real Solr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params, read_records
from neardup.backends.solr import RECORDS_FQ, SolrBackend
from neardup.errors import ArgumentError, SolrUnavailable
from neardup.out.dedupe import dedupe
from neardup.read.checks import LINE_ROOM, MAX_RECORD_BYTES
from neardup.read.items import Record, Rejection
from neardup.solr.client import LARGE_REQUEST, Solr

from .conftest import REPO, run_cli
from .faultproxy import Fault, FaultProxy

BIG_LINE = 50 * 1024 * 1024  # bytes of the one-line record, its id included
NORMAL = {
    "n1": "the quick brown fox jumps over the lazy dog near the river bank",
    "n2": "hotel bel air 701 stone canyon road bel air california",
    "n3": "arts deli 12224 ventura boulevard studio city",
    "n5": "the quick brown fox jumped over the lazy dog near the river bank",
    "n6": "bel air hotel 701 stone canyon rd bel air",
    "n7": "art's delicatessen 12224 ventura blvd studio city",
}
BIG_AT = 4  # the line of the big record


def write_input(path: Path, big: bool = True) -> None:
    """Three normal records, a 50 MB one on line 4 (or none), three more; written in 40 KB
    blocks, so that it takes a fraction of a second."""
    lines = [f"{i} {t}\n".encode() for i, t in NORMAL.items()]
    with open(path, "wb") as fh:
        fh.writelines(lines[:3])
        if big:
            fh.write(b"big ")
            block = b"lorem ipsum dolor sit amet consectetur adipiscing elit " * 730
            left = BIG_LINE - 4
            while left > 0:
                fh.write(block[:left])
                left -= len(block[:left])
            fh.write(b"\n")
        fh.writelines(lines[3:])


def too_large(path: Path) -> str:
    """What the rejection of the big line says."""
    return (
        f"{path}:{BIG_AT}: record too large, a line of {BIG_LINE} bytes "
        f"(the limit is {MAX_RECORD_BYTES} bytes of text)"
    )


def index_measured(
    path: Path, url: str, *extra: str
) -> tuple[subprocess.CompletedProcess[str], int]:
    """``neardup index PATH --json`` in a child process, and the child's peak resident memory
    in bytes."""
    code = (
        "import resource, sys\n"
        "from neardup.cli.main import main\n"
        "rc = main(sys.argv[1:])\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print('peak', peak * (1 if sys.platform == 'darwin' else 1024), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    args = ["index", str(path), "--json", "--solr-url", url, *extra]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(REPO),
        env={**os.environ},
    )
    peaks = [ln.split()[1] for ln in proc.stderr.splitlines() if ln.startswith("peak ")]
    return proc, int(peaks[-1]) if peaks else 0


def test_a_50_mb_record_is_rejected_before_solr(
    new_collection: Callable[[str], Solr], tmp_path: Path
) -> None:
    data, calm = tmp_path / "big.txt", tmp_path / "calm.txt"
    write_input(data)
    write_input(calm, big=False)
    solr, other = new_collection("oversize"), new_collection("calm")

    proc, peak = index_measured(data, solr.url)
    assert proc.returncode == 0, proc.stderr  # rejections alone do not fail a run
    assert "Traceback" not in proc.stderr
    assert f"neardup: rejected {too_large(data)}" in proc.stderr.splitlines()
    counts = json.loads(proc.stdout)
    assert (counts["read"], counts["indexed"], counts["rejected"]) == (7, 6, 1)
    assert counts["rejections"] == [
        {
            "source": str(data),
            "line": BIG_AT,
            "reason": too_large(data).split(": ", 1)[1],
            "id": None,
        }
    ]
    assert counts["reasons"] == {"record too large": 1}

    # Every other record is in Solr, and Solr answers queries as before.
    assert solr.count(fq=[RECORDS_FQ]) == len(NORMAL)
    assert sorted(d["id"] for d in solr.iter_docs("id", fq=[RECORDS_FQ])) == sorted(NORMAL)
    assert solr.system_info()["lucene"]["solr-spec-version"]
    index = NearDupIndex(backend=SolrBackend(solr))
    assert index.query(NORMAL["n2"], k=1)[0].id == "n2"

    # The 50 MB line is never held whole: the run costs what the same file without it costs,
    # give or take the 8 MB the reader reads of the line before it measures the rest.
    calm_proc, calm_peak = index_measured(calm, other.url)
    assert calm_proc.returncode == 0, calm_proc.stderr
    assert peak - calm_peak < 30 * 2**20, (peak, calm_peak)  # measured: 15 MB

    # A larger limit lets it through the reader; a smaller one rejects the normal records too.
    small = run_cli(
        "index", str(calm), "--json", "--max-record-bytes", "20", "--solr-url", other.url
    )
    assert small.returncode == 2, small.stderr  # nothing at all was indexed (issue 27)
    assert "nothing was indexed: all 6 records were rejected" in small.stderr
    assert json.loads(small.stdout)["rejected"] == 6
    n1 = f"{calm}:1: record too large, {len(NORMAL['n1'])} bytes of text (the limit is 20)"
    assert f"neardup: rejected {n1} (id 'n1')" in small.stderr.splitlines()


def test_the_same_input_through_the_library_in_memory(tmp_path: Path) -> None:
    data = tmp_path / "big.txt"
    write_input(data)
    index = NearDupIndex(Params(threshold=0.5))
    stats = index.add_many(read_records(data))
    assert (stats.read, stats.indexed, stats.rejected, stats.blank) == (7, 6, 1, 0)
    assert [str(r) for r in stats.rejections] == [too_large(data)]
    assert sorted(r.id for r in index.backend.records()) == sorted(NORMAL)
    assert index.query(NORMAL["n3"], k=1)[0].id == "n3"

    # dedupe reads the file again with the same limit: the counts add up, and --rejects has it.
    out, rejects = tmp_path / "deduped.txt", tmp_path / "rejects.txt"
    kept = dedupe(data, out, index.clusters(), rejects=rejects)
    assert (kept.read, kept.rejected) == (7, 1)
    assert kept.read == kept.kept + kept.removed + kept.rejected
    assert [str(r) for r in kept.rejections] == [too_large(data)]
    assert rejects.read_bytes() == data.read_bytes().splitlines(keepends=True)[BIG_AT - 1]
    assert b"lorem" not in out.read_bytes()


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_the_limit_is_exact(tmp_path: Path, ending: str) -> None:
    limit = 100
    cap = limit + LINE_ROOM  # the longest line the reader decodes
    lines = {
        "a": "é" * 50,  # 100 bytes in 50 characters: accepted
        "b": "é" * 50 + "x",  # 101 bytes: rejected
        "c": "x" * 100,
        "d": "x" * 101,
        # a line of exactly ``cap`` bytes is decoded (its text is 100 bytes) ...
        "e": "x" * 100 + " " * (cap - 102),
        # ... one byte more is rejected as it is read, with the line's size
        "f": "x" * 100 + " " * (cap - 101),
    }
    path = tmp_path / "limit.txt"
    path.write_bytes("".join(f"{i} {t}{ending}" for i, t in lines.items()).encode())
    items = list(read_records(path, max_record_bytes=limit))
    assert [i.id for i in items if isinstance(i, Record)] == ["a", "c", "e"]
    assert [(r.line, r.reason, r.id) for r in items if isinstance(r, Rejection)] == [
        (2, "record too large, 101 bytes of text (the limit is 100)", "b"),
        (4, "record too large, 101 bytes of text (the limit is 100)", "d"),
        (6, f"record too large, a line of {cap + 1} bytes (the limit is 100 bytes of text)", None),
    ]
    # No limit: everything is a record; the default limit: so is everything here.
    assert all(isinstance(i, Record) for i in read_records(path, max_record_bytes=None))
    assert all(isinstance(i, Record) for i in read_records(path))


def test_the_limit_in_every_format(tmp_path: Path) -> None:
    jsonl = tmp_path / "r.jsonl"
    rows = [{"id": "1", "text": "x" * 100}, {"id": "2", "text": "y" * 101}]
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    csv_file = tmp_path / "r.csv"
    quoted = "\n".join(["word " * 10] * 3)  # 152 bytes over three lines, each short
    csv_file.write_text(f'id,text\n1,{"x" * 100}\n2,"{quoted}"\n3,ok\n', encoding="utf-8")
    for path, ids, line in ((jsonl, ["1"], 2), (csv_file, ["1", "3"], 3)):
        items = list(read_records(path, max_record_bytes=100))
        assert [i.id for i in items if isinstance(i, Record)] == ids
        ((rejected),) = [r for r in items if isinstance(r, Rejection)]
        assert rejected.line == line and rejected.reason.startswith("record too large, ")
    # A TSV field over csv's own 131,072 characters is a record like any other.
    tsv = tmp_path / "r.tsv"
    tsv.write_text("id\ttext\n1\t" + "abc " * 40_000 + "\n", encoding="utf-8")
    assert [type(i) for i in read_records(tsv)] == [Record]


def test_a_limit_beyond_a_c_integer_is_no_limit(tmp_path: Path) -> None:
    """``--max-record-bytes 99999999999999999999`` ended in an OverflowError (the readers'
    sizes are C integers): a bound no file can reach reads as no bound."""
    for name, body in (("r.csv", "id,text\n1,Arts Deli\n"), ("r.txt", "1 Arts Deli\n"),
                       ("r.jsonl", '{"id": "1", "text": "Arts Deli"}\n')):  # fmt: skip
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        items = list(read_records(path, max_record_bytes=10**20))
        assert [(i.id, i.text) for i in items] == [("1", "Arts Deli")]


def test_a_bad_limit_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text("1 text\n", encoding="utf-8")
    for bad in (0, -1, True, 1.5, "10"):
        with pytest.raises(ArgumentError, match="max_record_bytes"):
            read_records(path, max_record_bytes=bad)  # type: ignore[arg-type]
    env = {"NEARDUP_SOLR_URL": "http://127.0.0.1:9/solr/nothing_listens"}
    proc = run_cli("index", str(path), "--max-record-bytes", "0", env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--max-record-bytes: a number of bytes >= 1 expected, got '0'" in proc.stderr


def test_a_large_request_that_solr_closes_is_named_and_not_retried(
    new_collection: Callable[[str], Solr],
) -> None:
    direct = new_collection("closed")
    fault = Fault("/update", "close", times=2)
    with FaultProxy(direct.base_url, [fault]) as proxy:
        client = Solr(f"{proxy.url}/{direct.collection}")
        with pytest.raises(SolrUnavailable) as err:
            client.add([{"id": "big", "raw": "x" * LARGE_REQUEST}])
        message = str(err.value)
        assert f"{proxy.url}/{direct.collection}/update closed the connection" in message
        assert f"on a request of {LARGE_REQUEST + 26} bytes" in message
        assert "not retried" in message and "cannot reach" not in message
        assert fault.hits == 1
        # A small request on a closed connection is retried, and gets through.
        client.add([{"id": "small"}])
        assert fault.hits == 3 and fault.injected == 2
    direct.commit()
    assert [d["id"] for d in direct.iter_docs("id", fq=[RECORDS_FQ])] == ["small"]
