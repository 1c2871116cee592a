"""The DuckDB backend: an index on disk, with no server, that a file too large for this
process's memory is deduplicated in (``dedupe --backend duckdb``, or ``--backend memory`` past
the memory budget). The behaviour it shares with the other backends is tested through
``make_index`` (conftest); here what is its own: the file outlives its handle, writes replace
by id at commit, the stored band keys are the memory backend's, and the CLI's choice."""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from neardup import NearDupIndex, Params
from neardup.backends.base import Capability, Document
from neardup.backends.duckdb_file import DuckDBBackend
from neardup.backends.memory import MemoryBackend
from neardup.cli.dedupe_review import _local_backend
from neardup.errors import ArgumentError, InputError, NeardupError
from neardup.keys import id_key
from neardup.plan.budget import held_in_memory, storage_fits
from neardup.plan.steps import id_sort_key
from neardup.read.records import read_records
from neardup.sign.text import sort_ids

from .conftest import run_cli

PARAMS = Params(shingle_kind="char", shingle_size=3, threshold=0.5)


def _records(n: int, seed: int = 1) -> list[tuple[str, str]]:
    """Records of six made-up words; every fifth is an earlier one with a letter changed."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: list[tuple[str, str]] = []
    for i in range(n):
        if i % 5 == 4:
            text = list(out[rng.randrange(i)][1])
            text[rng.randrange(len(text))] = rng.choice(letters)
            out.append((str(i), "".join(text)))
            continue
        words = ("".join(rng.choices(letters, k=rng.randint(3, 8))) for _ in range(6))
        out.append((str(i), " ".join(words)))
    return out


def test_a_named_file_keeps_the_index_for_a_second_handle(tmp_path: Path) -> None:
    path = tmp_path / "shop.duckdb"
    first = DuckDBBackend(path)
    assert Capability.PERSISTENT in first.capabilities
    index = NearDupIndex(PARAMS, backend=first)
    index.add_many(_records(300))
    pairs = sorted((p.id1, p.id2) for p in index.report().pairs)
    first.close()
    assert path.exists()
    again = NearDupIndex(backend=DuckDBBackend(path))
    assert again.params == PARAMS and len(again) == 300
    assert sorted((p.id1, p.id2) for p in again.report().pairs) == pairs
    assert pairs  # the records hold near-duplicates: the comparison compares something


def test_a_temporary_file_is_deleted_at_close() -> None:
    backend = DuckDBBackend()
    assert Capability.PERSISTENT not in backend.capabilities
    folder = backend.path.parent
    NearDupIndex(PARAMS, backend=backend).add_many(_records(20))
    assert backend.path.exists()
    backend.close()
    assert not folder.exists()


def test_a_record_written_again_replaces_the_old_one_at_commit() -> None:
    backend = DuckDBBackend()
    index = NearDupIndex(PARAMS, backend=backend)
    index.add_many([("1", "blue cafe paris"), ("2", "red grocer lyon")])
    index.add_many([("1", "green shop nice")], replace=True)
    index.add_many([("1", "green shop nicer")], replace=True)
    assert len(index) == 2
    assert backend.texts(["1", "2"]) == {"1": "green shop nicer", "2": "red grocer lyon"}
    # two writes of one id in one batch: the later one stays
    backend.add([Document("3", t, t, [], values=[1]) for t in ("old", "new")])
    backend.commit()
    assert backend.texts(["3"]) == {"3": "new"} and backend.count() == 3
    backend.remove(["3", "404"])
    assert backend.count() == 2 and backend.get("3") is None
    backend.close()


def test_band_keys_and_lookups_are_those_of_the_memory_backend() -> None:
    records = _records(400)
    memory = NearDupIndex(PARAMS)
    disk = NearDupIndex(PARAMS, backend=DuckDBBackend())
    for index in (memory, disk):
        index.add_many(records)
    ids = [str(i) for i in range(0, 400, 13)]
    for i in ids:
        assert disk.backend.get(i) == memory.backend.get(i)
    keys = [k for i in ids for k in memory.backend.get(i).keys[:3]]  # type: ignore[union-attr]
    assert disk.backend.members(keys) == memory.backend.members(keys)
    assert disk.backend.key_counts(keys) == memory.backend.key_counts(keys)
    groups = [memory.backend.get(i).keys for i in ids[:5]]  # type: ignore[union-attr]
    assert disk.backend.holding_two(groups) == memory.backend.holding_two(groups)
    for band in (0, 5):
        got = sorted(sorted(b) for b in disk.backend.buckets(band))
        assert got == sorted(sorted(b) for b in memory.backend.buckets(band)) and got


def test_records_come_in_the_order_of_ids_every_output_shares() -> None:
    backend = DuckDBBackend()
    ids = ["10", "9", "007", "b", "a", "100", "x9", "0", "٣"]
    backend.add([Document(i, f"text {i}", f"text {i}", [], values=[1, 2]) for i in ids])
    backend.commit()
    assert [r.id for r in backend.records()] == sorted(ids, key=id_key)
    backend.close()


def test_ids_of_one_value_are_ordered_alike_on_every_backend() -> None:
    """``1``, ``01`` and ``001`` read as one number: their order is still total (value, then
    text), so the pairs, their orientation and the cluster centers are the same whatever
    order a backend stores them in (hx25 finding 3: they tied, storage order decided)."""
    ids = ["1", "01", "001", "٣", "3", "03", "0", "00"]
    assert sorted(ids, key=id_key) == ["0", "00", "001", "01", "1", "03", "3", "٣"]
    assert sort_ids(ids) == sort_ids(ids[::-1]) == sorted(ids, key=id_key)
    assert sorted(ids, key=id_sort_key) == sorted(ids, key=id_key)
    rows = [("1", "alpha beta gamma delta"), ("01", "alpha beta gamma delta"),
            ("001", "alpha beta gamma delta epsilon"), ("2", "red green blue yellow"),
            ("02", "red green blue yellow black")]  # fmt: skip
    params = Params(shingle_kind="word", threshold=0.5)
    found = []
    for backend, order in ((MemoryBackend(), rows), (MemoryBackend(), rows[::-1]),
                           (DuckDBBackend(), rows), (DuckDBBackend(), rows[::-1])):  # fmt: skip
        index = NearDupIndex(params, backend=backend)
        index.add_many(order)
        pairs = [(p.id1, p.id2) for p in index.report().pairs]
        planned = [(p.id1, p.id2) for p in index.report(engine="duckdb").pairs]
        near = [m.id for m in index.neighbors("001")]
        found.append((pairs, planned, index.clusters(), near))
    assert found[0][0] == [("001", "01"), ("001", "1"), ("01", "1"), ("02", "2")]
    assert found[0][1] == found[0][0]
    assert found[0][2][0][0] == "01"  # 01 and 1 of one weight: 01 first
    assert all(f == found[0] for f in found), found


def test_the_plan_reads_the_records_from_the_file() -> None:
    """A report on DuckDB's plan from a DuckDB index gives the memory index's pairs."""
    records = _records(600, seed=4)
    memory = NearDupIndex(PARAMS)
    memory.add_many(records)
    disk = NearDupIndex(PARAMS, backend=DuckDBBackend())
    disk.add_many(records)
    want = sorted((p.id1, p.id2, p.jaccard) for p in memory.report().pairs)
    planned = disk.report(engine="duckdb")
    assert planned.engine == "duckdb" and want
    assert sorted((p.id1, p.id2, p.jaccard) for p in planned.pairs) == want


def test_records_past_the_budget_are_kept_on_disk(tmp_path: Path) -> None:
    """--backend memory keeps the records in this process while they and their report fit
    the memory budget, else in a DuckDB file, and says so."""
    big = tmp_path / "big.txt"
    big.write_text("".join(f"{i} blue cafe paris {i}\n" for i in range(100_000)))
    args = argparse.Namespace(backend="memory", format="auto", memory="256MB", quiet=True)
    fits, why = storage_fits(100_000, 30.0, "256MB")
    assert not fits and "over the memory budget of 256 MB" in why
    assert held_in_memory(100_000, 30.0) > held_in_memory(1_000, 30.0) > 0
    chosen = _local_backend(args, [big])
    assert isinstance(chosen, DuckDBBackend)
    chosen.close()
    args.memory = "8GB"
    assert isinstance(_local_backend(args, [big]), MemoryBackend)
    args.backend, args.memory = "duckdb", None
    chosen = _local_backend(args, [big])
    assert isinstance(chosen, DuckDBBackend)
    chosen.close()


def test_cli_dedupe_on_duckdb_writes_what_memory_writes(tmp_path: Path) -> None:
    data = tmp_path / "shops.txt"
    data.write_text("".join(f"{i} {t}\n" for i, t in _records(2_000, seed=9)))
    outs = {}
    for backend in ("memory", "duckdb"):
        out = tmp_path / f"{backend}.txt"
        proc = run_cli("dedupe", str(data), "--out", str(out), "--backend", backend,
                       "--cluster-column", "cluster", "--json")  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outs[backend] = (out.read_text(), json.loads(proc.stdout)["removed"])
    assert outs["duckdb"] == outs["memory"] and outs["memory"][1] > 0


def test_cli_the_switch_to_disk_is_said_and_changes_nothing_written(tmp_path: Path) -> None:
    data = tmp_path / "many.txt"
    rows = _records(100_000, seed=3)
    data.write_text("".join(f"{i} {t}\n" for i, t in rows))
    out_memory, out_disk = tmp_path / "m.txt", tmp_path / "d.txt"
    held = run_cli("dedupe", str(data), "--out", str(out_memory), "--backend", "memory")
    assert held.returncode == 0, held.stderr
    assert "DuckDB" not in held.stderr
    small = run_cli("dedupe", str(data), "--out", str(out_disk), "--backend", "memory",
                    "--memory", "256MB")  # fmt: skip
    assert small.returncode == 0, small.stderr
    assert "kept on disk in a temporary DuckDB file" in small.stderr
    assert out_disk.read_text() == out_memory.read_text()


@pytest.mark.parametrize("flag", [["--memory", "lots"], ["--memory", "1MB"]])
def test_cli_a_bad_memory_budget_is_bad_usage(flag: list[str], tmp_path: Path) -> None:
    data = tmp_path / "few.txt"
    data.write_text("1 blue cafe\n2 blue cafe\n")
    proc = run_cli("dedupe", str(data), "--out", str(tmp_path / "o.txt"), "--backend",
                   "memory", *flag)  # fmt: skip
    assert proc.returncode == 2 and "memory" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o.txt").exists()


def test_a_failing_database_is_an_error_naming_the_file(tmp_path: Path) -> None:
    """DuckDB's own errors (a full disk, a closed file) come out as neardup's error, with the
    file and what failed, not as a traceback of DuckDB's."""
    path = tmp_path / "gone.duckdb"
    backend = DuckDBBackend(path)
    backend._con.execute("DROP TABLE records")  # what a broken file leaves: statements fail
    doc = Document("1", "blue cafe", "blue cafe", [], values=[1])
    backend.add([doc])  # held until it is appended
    with pytest.raises(NeardupError, match=r"gone\.duckdb: DuckDB could not write the records"):
        backend.commit()
    with pytest.raises(NeardupError, match=r"gone\.duckdb: DuckDB could not read the records"):
        list(backend.all_texts())
    backend._con.close()  # closed under it: said so, not as a full disk
    with pytest.raises(NeardupError, match=r"gone\.duckdb: this index was closed"):
        list(backend.all_texts())


def test_a_second_process_on_the_same_file_is_told_why(tmp_path: Path) -> None:
    path = tmp_path / "busy.duckdb"
    holder = DuckDBBackend(path)
    NearDupIndex(PARAMS, backend=holder).add_many(_records(10))
    code = (
        "import sys\n"
        "from neardup.backends import DuckDBBackend\n"
        "from neardup.errors import InputError, NeardupError\n"
        "try:\n"
        f"    DuckDBBackend({str(path)!r}, read_only=sys.argv[1] == 'read')\n"
        "except InputError as exc:\n"
        "    sys.exit(4)\n"
        "except NeardupError as exc:  # a failure, not bad input: the file is fine, and busy\n"
        "    print(exc)\n"
        "    sys.exit(3)\n"
    )
    for how in ("write", "read"):
        proc = subprocess.run([sys.executable, "-c", code, how], capture_output=True, text=True)
        assert proc.returncode == 3, proc.stderr
        assert "busy.duckdb: in use by another process that writes it" in proc.stdout
    holder.close()
    # closed, any number of readers at once, in this process too
    readers = [DuckDBBackend(path, read_only=True) for _ in range(2)]
    proc = subprocess.run([sys.executable, "-c", code.replace("sys.exit(3)", "sys.exit(5)")
                           + "else:\n    sys.exit(0)\n", "read"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert all(r.count() == 10 for r in readers)
    for r in readers:
        r.close()


def test_a_read_only_open_writes_nothing_into_a_file_that_is_no_index(tmp_path: Path) -> None:
    """``report --index-file`` on another application's database created neardup's tables in
    it; read-only, it is refused and left as it was."""
    import duckdb

    path = tmp_path / "sales.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE sales (a INTEGER)")
    with pytest.raises(InputError, match="holds no neardup index"):
        DuckDBBackend(path, read_only=True)
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SHOW TABLES").fetchall() == [("sales",)]
    done = run_cli("report", "--index-file", str(path), "--out", str(tmp_path / "p.tsv"))
    assert done.returncode == 2 and "holds no neardup index" in done.stderr
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SHOW TABLES").fetchall() == [("sales",)]


def test_a_database_of_another_application_is_refused_untouched(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "theirs.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE records (name VARCHAR, price DOUBLE)")
        con.execute("INSERT INTO records VALUES ('lamp', 9.5)")
    with pytest.raises(InputError, match=r"theirs\.duckdb: its table 'records' is not a neardup"):
        DuckDBBackend(path)
    with duckdb.connect(str(path)) as con:
        assert con.execute("SELECT * FROM records").fetchall() == [("lamp", 9.5)]
    not_db = tmp_path / "table.csv"
    not_db.write_text("id,name\n1,lamp\n")
    with pytest.raises(InputError, match=r"table\.csv: not a DuckDB database file"):
        DuckDBBackend(not_db)
    assert not_db.read_text() == "id,name\n1,lamp\n"
    other = tmp_path / "notes.bin"
    other.write_text("id,name\n1,lamp\n")
    with pytest.raises(InputError, match=r"notes\.bin: not a DuckDB database file"):
        DuckDBBackend(other)
    assert other.read_text() == "id,name\n1,lamp\n"
    # read-only, DuckDB said only that an in-memory database cannot be read-only
    for path in (not_db, other):
        with pytest.raises(InputError, match="not a DuckDB database file"):
            DuckDBBackend(path, read_only=True)


def test_records_written_in_many_batches_are_all_kept_and_replaced_once(tmp_path: Path) -> None:
    """Writes are appended 50,000 at a time: every record is there at commit, later writes of
    an id replace earlier ones across appends, and a kept file closed without a commit still
    holds what was written."""
    path = tmp_path / "many.duckdb"
    backend = DuckDBBackend(path)
    for start in range(0, 120_000, 1_000):
        backend.add([Document(str(i), f"t{i}", f"t{i}", [], values=[i]) for i in
                     range(start, start + 1_000)])  # fmt: skip
    backend.add([Document("5", "again", "again", [], values=[5])])
    assert backend.count() == 120_000 and backend.texts(["5", "119999"]) == {
        "5": "again", "119999": "t119999"}  # fmt: skip
    backend.add([Document("new", "late", "late", [], values=[1])])
    backend.close()  # no commit
    again = DuckDBBackend(path)
    assert again.count() == 120_001 and again.texts(["new"]) == {"new": "late"}
    again.close()


def _shop_files(where: Path) -> tuple[Path, Path]:
    a, b = where / "a.csv", where / "b.csv"
    a.write_text("id,title\n" + "".join(f"{i},{t}\n" for i, t in _records(300, seed=4)),
                 encoding="utf-8")  # fmt: skip
    b.write_text("id,name\n" + "".join(f"{i},{t} new\n" for i, t in _records(40, seed=4)[::3]),
                 encoding="utf-8")  # fmt: skip
    return a, b


def test_the_cli_keeps_an_index_in_a_file_and_every_verb_reads_it(tmp_path: Path) -> None:
    """``--index-file``: index, report, neighbors, search and delete without Solr (a Solr URL
    that answers nothing proves none is asked), the same pairs as the memory backend's."""
    a, b = _shop_files(tmp_path)
    store = tmp_path / "shops.duckdb"
    env = {"NEARDUP_SOLR_URL": "http://127.0.0.1:9/solr"}

    def cli(*args: str) -> dict:
        done = run_cli(*args, "--index-file", str(store), "--json", env=env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert cli("index", str(a))["indexed"] == 300
    assert cli("index", str(b))["indexed"] == 14
    memory = NearDupIndex()
    for f in (a, b):
        memory.add_many(read_records(f), source_name=str(f.resolve()))
    for mode in ("dedup", "link"):
        out = tmp_path / f"{mode}.tsv"
        cli("report", "--mode", mode, "--out", str(out))
        want = memory.report(mode=mode).pairs
        got = out.read_text(encoding="utf-8").splitlines()[1:]
        assert len(got) == len(want) > 0
        assert {tuple(line.split("\t")[:2]) for line in got} == {(p.id1, p.id2) for p in want}
    near = cli("neighbors", "3", "--source", str(b))["matches"]
    first, second = str(a.resolve()), str(b.resolve())
    assert near and (near[0]["id"], near[0].get("source")) == ("3", first)  # its copy in a.csv
    text = dict(_records(300, seed=4))["3"]

    def found() -> set[tuple[str, str | None]]:
        return {(m["id"], m.get("source")) for m in cli("search", text)["matches"]}

    assert ("3", first) in found() and ("3", second) in found()
    # review reads it too (it had no --index-file: a user without Java could not review)
    page = tmp_path / "review.html"
    reviewed = cli("review", "--mode", "link", "--out", str(page))
    assert reviewed["pairs"] == len(memory.report(mode="link").pairs) and page.is_file()
    done = run_cli("review", str(a), "--out", str(page), "--index-file", str(store), env=env)
    assert done.returncode == 2 and "give no records to index" in done.stderr
    assert cli("delete", "3")["removed"] == 1  # of a.csv, the first source
    assert ("3", first) not in found() and ("3", second) in found()


def test_an_index_file_that_is_not_there_or_beside_solr_flags_is_bad_usage(tmp_path: Path) -> None:
    missing = tmp_path / "none.duckdb"
    done = run_cli("report", "--index-file", str(missing), "--out", str(tmp_path / "p.tsv"))
    assert done.returncode == 2 and "no such index file" in done.stderr
    assert not missing.exists() and not (tmp_path / "p.tsv").exists()
    a, _ = _shop_files(tmp_path)
    done = run_cli("index", str(a), "--index-file", str(missing), "--collection", "c")
    assert done.returncode == 2 and "leave out --collection" in done.stderr
    assert not missing.exists()


def test_no_output_and_no_records_file_is_the_index_file(tmp_path: Path) -> None:
    """``report --out`` onto the index file it reads replaced the index by the pairs (every
    record lost, exit 0); the index file is an input of every verb, by any name."""
    a, _ = _shop_files(tmp_path)
    store = tmp_path / "shops.duckdb"
    assert run_cli("index", str(a), "--index-file", str(store)).returncode == 0
    before = store.read_bytes()
    (tmp_path / "link.tsv").symlink_to(store)
    for flags in (["--out", str(store)], ["--out", str(tmp_path / "p.tsv"), "--clusters",
                                          str(tmp_path / "." / store.name)],
                  ["--out", str(tmp_path / "link.tsv")]):  # fmt: skip
        done = run_cli("report", "--index-file", str(store), *flags)
        assert done.returncode == 2 and "would overwrite the input" in done.stderr, done.stderr
        assert store.read_bytes() == before and not (tmp_path / "p.tsv").exists()
    done = run_cli("index", str(store), "--index-file", str(store))
    assert done.returncode == 2 and "is the index file itself" in done.stderr
    done = run_cli("report", "--index-file", str(tmp_path), "--out", "-")
    assert done.returncode == 2 and "a folder, not an index file" in done.stderr
    assert store.read_bytes() == before


def test_an_id_only_another_source_holds_names_that_source(tmp_path: Path) -> None:
    """neighbors and delete of an id the first source lacks name the source that holds it and
    the flag, on an index file too (only Solr's collections could say which sources they hold)."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,text\n1,acme drill rx-100 black\n", encoding="utf-8")
    b.write_text("id,text\n1,acme drill rx100\n7,blue steel kettle\n", encoding="utf-8")
    store = tmp_path / "i.duckdb"
    for f in (a, b):
        assert run_cli("index", str(f), "--index-file", str(store)).returncode == 0
    hint = f"the source {b.resolve()} holds records with such ids (--source {b.resolve()} names"
    done = run_cli("neighbors", "7", "--index-file", str(store))
    assert done.returncode == 2 and hint in done.stderr, done.stderr
    done = run_cli("delete", "7", "--index-file", str(store))
    assert done.returncode == 1 and hint in done.stdout + done.stderr
    assert "Warning" not in done.stderr  # the library's warning is the command's line
    # an id found is not in the hint: 1 of a.csv removed, nothing said of b.csv's 1
    done = run_cli("delete", "1", "--index-file", str(store))
    assert done.returncode == 0 and "names those" not in done.stdout + done.stderr


@pytest.mark.parametrize("kind", ["memory", "duckdb"])
def test_the_sources_holding_an_id_name_the_primary_source_too(kind: str, tmp_path: Path) -> None:
    """The hint after a miss named the sources of the records' keys, and a key names no
    source for the primary (first) source's records: its records were never named."""
    backend = MemoryBackend() if kind == "memory" else DuckDBBackend(tmp_path / "i.duckdb")
    index = NearDupIndex(PARAMS, backend=backend)
    index.add_many([("1", "acme drill rx-100 black"), ("2", "red wool scarf")], source_name="a")
    index.add_many([("1", "acme drill rx100"), ("3", "blue kettle")], source_name="b")
    assert index.sources_holding(["2"], "b") == ["a"]
    assert index.sources_holding(["1"], "c") == ["a", "b"]  # the primary first
    assert index.sources_holding(["3"]) == ["b"]
    assert index.source_counts() == ({"a": 2, "b": 2}, 2)


def test_a_source_miss_names_the_primary_source_and_an_unknown_source_is_called_one(
    tmp_path: Path,
) -> None:
    """``neighbors 2 --source b`` where only the first source holds 2 said no more than "no
    record"; ``--source nosuch.csv`` (a typo, a file's bare name) read as a missing id."""
    a, b = tmp_path / "a" / "shops.csv", tmp_path / "b" / "shops.csv"
    for f, rows in ((a, "1,Blue Cafe Paris rue\n2,Red Barn Oslo street\n"),
                    (b, "1,Blue Cafe Paris rue\n")):  # fmt: skip
        f.parent.mkdir()
        f.write_text("id,name\n" + rows, encoding="utf-8")
    store = tmp_path / "i.duckdb"
    for f in (a, b):
        assert run_cli("index", str(f), "--index-file", str(store)).returncode == 0
    hint = f"the source {a.resolve()} holds records with such ids (--source {a.resolve()} names"
    done = run_cli("neighbors", "2", "--source", str(b), "--index-file", str(store))
    assert done.returncode == 2 and hint in done.stderr, done.stderr
    done = run_cli("delete", "2", "--source", str(b), "--index-file", str(store))
    assert done.returncode == 1 and hint in done.stdout, done.stdout
    unknown = (f"--source shops.csv is not a source of duckdb:{store} (it holds no record of "
               f"it): its sources are {a.resolve()}, {b.resolve()}")  # fmt: skip
    for verb in ("neighbors", "delete"):
        done = run_cli(verb, "1", "--source", "shops.csv", "--index-file", str(store))
        assert done.returncode == 2 and unknown in done.stderr, done.stderr
    info = json.loads(run_cli("info", "--index-file", str(store), "--json").stdout)
    assert info["records"] == 3  # nothing removed


def test_an_index_closes_its_file_and_says_so_when_used_after(tmp_path: Path) -> None:
    """``with NearDupIndex(backend=DuckDBBackend(path))``: the last records are written at the
    end; used after, the index says it was closed (it said to free disk space)."""
    path = tmp_path / "i.duckdb"
    with NearDupIndex(PARAMS, backend=DuckDBBackend(path)) as index:
        index.add_many(_records(30))
    with pytest.raises(NeardupError, match="this index was closed"):
        len(index)
    reader = NearDupIndex(backend=DuckDBBackend(path, read_only=True))
    assert len(reader) == 30
    with pytest.raises(NeardupError, match="opened read-only"):
        reader.add_many(_records(3, seed=9), source_name="more")
    reader.close()
    NearDupIndex().close()  # a memory index has nothing to close


def test_a_link_that_finds_nothing_writes_the_links_columns(tmp_path: Path) -> None:
    """An empty link report lost ``similarity source1 source2`` from its header: a reader of
    columns by name broke on it alone."""
    a, b = _shop_files(tmp_path)
    store = tmp_path / "i.duckdb"
    lone = tmp_path / "c.csv"
    lone.write_text("id,name\n1,zzyzx quorble\n", encoding="utf-8")  # shares nothing
    for f in (a, b, lone):
        assert run_cli("index", str(f), "--index-file", str(store)).returncode == 0
    done = run_cli("report", "--index-file", str(store), "--mode", "link", "--new", "--out",
                   "-")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["id1\tid2\tjaccard\tedit_distance\tsimilarity\tsource1"
                                        "\tsource2"]  # fmt: skip


def test_info_of_an_index_file_says_what_info_of_a_collection_says(tmp_path: Path) -> None:
    a, b = _shop_files(tmp_path)
    store = tmp_path / "i.duckdb"
    for f in (a, b):
        assert run_cli("index", str(f), "--index-file", str(store)).returncode == 0
    done = run_cli("info", "--index-file", str(store), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["records"] == 314 and info["source_count"] == 2
    assert info["sources"] == {str(a.resolve()): 300, str(b.resolve()): 14}
    assert [(x["records"], x["sources"]) for x in info["batches"]] == [
        (14, [str(b.resolve())]), (300, [str(a.resolve())])]
    assert info["params"]["shingle_kind"] == "char" and info["batch_count"] == 2


def test_delete_counts_an_id_given_twice_once_and_names_an_empty_ids_file(tmp_path: Path) -> None:
    a, _ = _shop_files(tmp_path)
    store = tmp_path / "i.duckdb"
    assert run_cli("index", str(a), "--index-file", str(store)).returncode == 0
    done = run_cli("delete", "3", "3", "--index-file", str(store), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["asked"] == 1, done.stderr
    ids = tmp_path / "ids.txt"
    ids.write_text("# comments only\n\n", encoding="utf-8")
    done = run_cli("delete", "--ids-file", str(ids), "--index-file", str(store))
    assert done.returncode == 2 and "its lines are all blank or comments" in done.stderr
    # a comment line among ids is counted and said: an id '#5' was skipped without a word
    ids.write_text("#5\n4\n# the end\n", encoding="utf-8")
    done = run_cli("delete", "--ids-file", str(ids), "--index-file", str(store), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["comment_lines"] == 2, done.stderr
    said = run_cli("delete", "--ids-file", str(ids), "--index-file", str(store))
    assert "2 lines of" in said.stdout and "starting with '#' read as comments" in said.stdout


def test_json_matches_name_the_primary_source_too(tmp_path: Path) -> None:
    """Every match of the first file: ``"source": null`` in --json, though the index holds a
    second file with the same ids."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,text\n1,acme drill rx-100 black\n2,acme drill rx-100 black!\n",
                 encoding="utf-8")  # fmt: skip
    b.write_text("id,text\n1,blue steel kettle\n2,red wool scarf\n", encoding="utf-8")
    store = tmp_path / "i.duckdb"
    for f in (a, b):
        assert run_cli("index", str(f), "--index-file", str(store)).returncode == 0
    done = run_cli("neighbors", "1", "-k", "1", "--index-file", str(store), "--json")
    assert done.returncode == 0, done.stderr
    assert [(m["id"], m["source"]) for m in json.loads(done.stdout)["matches"]] == [
        ("2", str(a.resolve()))
    ]


def test_ids_given_with_spaces_around_and_a_refused_flag_read_as_typed(tmp_path: Path) -> None:
    """An id is stored without the spaces around it: ``neighbors '  1'`` and ``delete '  1'``
    said not found. ``--no-canonical`` against an index was named ``--canonical``, a flag
    that does not exist."""
    a = tmp_path / "a.csv"
    a.write_text("id,text\n1,acme drill rx-100 black\n2,acme drill rx-100 black!\n",
                 encoding="utf-8")  # fmt: skip
    store = tmp_path / "i.duckdb"
    assert run_cli("index", str(a), "--index-file", str(store)).returncode == 0
    near = run_cli("neighbors", "  1 ", "--index-file", str(store), "--json")
    assert near.returncode == 0 and json.loads(near.stdout)["matches"], near.stderr
    again = run_cli("index", str(a), "--index-file", str(store), "--no-canonical")
    assert again.returncode == 2 and (
        "--no-canonical: the index has canonical on, the flag turns it off" in again.stderr
    )
    gone = run_cli("delete", " 2 ", "--index-file", str(store), "--json")
    assert gone.returncode == 0 and json.loads(gone.stdout)["removed"] == 1, gone.stderr


def test_an_index_file_that_would_hold_nothing_is_not_left_behind(tmp_path: Path) -> None:
    """Indexing an empty file failed (exit 2) and left a new .duckdb file holding no index; an
    index file that existed before stays, with its records."""
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    store = tmp_path / "new.duckdb"
    done = run_cli("index", str(empty), "--index-file", str(store))
    assert done.returncode == 2 and "nothing was indexed" in done.stderr
    assert not store.exists() and not Path(f"{store}.wal").exists()
    a, _ = _shop_files(tmp_path)
    assert run_cli("index", str(a), "--index-file", str(store)).returncode == 0
    assert run_cli("index", str(empty), "--index-file", str(store)).returncode == 2
    assert store.exists() and run_cli("info", "--index-file", str(store)).returncode == 0


def test_indexing_a_file_again_says_the_records_its_rows_no_longer_hold(tmp_path: Path) -> None:
    """A file indexed again after rows were deleted from it left their records (a re-run
    updates by id, as documented) without a word: the index looked like the file, and its
    report still paired the deleted rows. The run now counts them and says how to remove
    them; a file that holds every record of its source says nothing."""
    shops, store = tmp_path / "shops.csv", tmp_path / "i.duckdb"
    shops.write_text("id,name\n1,Blue Cafe Paris rue 1\n2,Red Barn Oslo street\n"
                     "3,Green House Rome via\n4,Red Barn Oslo street 2\n", encoding="utf-8")
    done = run_cli("index", str(shops), "--index-file", str(store), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["not_in_file"] == 0, done.stderr
    assert "not in this file" not in done.stderr
    shops.write_text("id,name\n1,Blue Cafe Paris rue 1\n3,Green House Rome via\n",
                     encoding="utf-8")
    done = run_cli("index", str(shops), "--index-file", str(store), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["not_in_file"] == 2, done.stderr
    assert (f"2 records of {shops.resolve()} indexed before are not in this file: they stay in "
            "the index") in done.stderr
    assert f"'neardup delete ID... --source {shops.resolve()}'" in done.stderr
    info = run_cli("info", "--index-file", str(store), "--json")
    assert json.loads(info.stdout)["records"] == 4  # nothing deleted: the run is an upsert
    done = run_cli("index", str(shops), "--index-file", str(store), "--source", "other")
    assert done.returncode == 0 and "not in this file" not in done.stderr  # a source of its own


def test_delete_without_a_source_names_whose_record_it_removed(tmp_path: Path) -> None:
    """``delete 1`` in an index of two files that both hold 1 removed the first file's record
    and said "asked to remove 1 ids: 1 removed", as if there were one; neighbors names the
    source in the same case. An index of one source says it as before."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,name\n1,Blue Cafe Paris rue\n2,Red Barn Oslo street\n", encoding="utf-8")
    b.write_text("id,name\n1,Green House Rome via\n", encoding="utf-8")
    store = tmp_path / "i.duckdb"
    assert run_cli("index", str(a), "--index-file", str(store)).returncode == 0
    done = run_cli("delete", "2", "--index-file", str(store))
    assert done.returncode == 0 and done.stdout.startswith("asked to remove 1 ids: 1 removed")
    assert run_cli("index", str(b), "--index-file", str(store)).returncode == 0
    done = run_cli("delete", "1", "--index-file", str(store))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"asked to remove 1 ids of {a.resolve()}: 1 removed")
    info = json.loads(run_cli("info", "--index-file", str(store), "--json").stdout)
    assert info["sources"] == {str(b.resolve()): 1}


def _cli_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``neardup`` run from ``folder`` (run_cli runs from the repository), where a flag's
    bare file name means a file of that folder; this checkout's package, not an installed one."""
    repo = str(Path(__file__).resolve().parents[1])
    return subprocess.run([sys.executable, "-m", "neardup", *args], cwd=folder, text=True,
                          capture_output=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": repo})  # fmt: skip


def test_index_source_names_the_file_delete_and_neighbors_name(tmp_path: Path) -> None:
    """docs/cli.md: a file of changed rows indexed with ``--source shop.csv`` replaces the
    records of shop.csv it changes. ``index`` kept 'shop.csv' as typed, a second source beside
    the file's absolute path (4 records, the changed row paired with its old self), while
    ``delete --source shop.csv`` read it as the file and removed the old record (hx25, 1)."""
    (tmp_path / "shop.csv").write_text(
        "id,text\n1,Bosch cordless drill RL-1299 18V\n2,Philips shaver S5000\n"
        "3,Makita circular saw 5007\n", encoding="utf-8")  # fmt: skip
    (tmp_path / "changes.csv").write_text("id,text\n2,Philips shaver S5000 black edition\n",
                                          encoding="utf-8")  # fmt: skip
    shop = str((tmp_path / "shop.csv").resolve())
    for args in (["shop.csv"], ["changes.csv", "--source", "shop.csv"]):
        done = _cli_in(tmp_path, "index", *args, "--index-file", "s.duckdb")
        assert done.returncode == 0, done.stderr
    info = json.loads(_cli_in(tmp_path, "info", "--index-file", "s.duckdb", "--json").stdout)
    assert info["records"] == 3 and info["sources"] == {shop: 3}
    near = json.loads(_cli_in(tmp_path, "neighbors", "2", "--source", "shop.csv", "-k", "1",
                              "--index-file", "s.duckdb", "--json").stdout)  # fmt: skip
    assert near["matches"] == [] or near["matches"][0]["id"] != "2"  # no old self to pair
    done = _cli_in(tmp_path, "delete", "2", "--source", "shop.csv", "--index-file", "s.duckdb")
    assert done.returncode == 0 and "1 removed, 2 records left" in done.stdout, done.stdout
    info = json.loads(_cli_in(tmp_path, "info", "--index-file", "s.duckdb", "--json").stdout)
    assert info["sources"] == {shop: 2}


def test_a_source_named_as_the_index_holds_it_wins_over_a_file_of_that_name(
    tmp_path: Path,
) -> None:
    """A source held literally (a source column's 'b.csv') was refused by ``neighbors`` and
    ``delete --source b.csv`` (exit 2, "not a source ... its sources are b.csv, a.csv") when an
    unrelated file b.csv sat in the current folder: the flag became that file's path (hx25, 1).
    ``index --source b.csv`` writes to that same source, not to the file's."""
    (tmp_path / "both.csv").write_text(
        "shop,id,text\na.csv,1,alpha beta gamma delta\nb.csv,1,alpha beta gamma delta epsilon\n"
        "b.csv,2,red green blue\n", encoding="utf-8")  # fmt: skip
    (tmp_path / "b.csv").write_text("id,text\n9,unrelated\n", encoding="utf-8")
    (tmp_path / "more.csv").write_text("id,text\n3,yellow\n", encoding="utf-8")
    store = ["--index-file", "x.duckdb"]
    done = _cli_in(tmp_path, "index", "both.csv", "--source-field", "shop", *store)
    assert done.returncode == 0, done.stderr
    done = _cli_in(tmp_path, "neighbors", "1", "--source", "b.csv", "-k", "1", *store)
    assert done.returncode == 0 and "records most similar to 1 of b.csv" in done.stdout, done.stderr
    done = _cli_in(tmp_path, "delete", "2", "--source", "b.csv", *store)
    assert done.returncode == 0 and "ids of b.csv: 1 removed" in done.stdout, done.stderr
    assert _cli_in(tmp_path, "index", "more.csv", "--source", "b.csv", *store).returncode == 0
    info = json.loads(_cli_in(tmp_path, "info", *store, "--json").stdout)
    assert info["sources"] == {"a.csv": 1, "b.csv": 2}


@pytest.mark.parametrize("kind", ["memory", "duckdb"])
def test_source_name_of_a_files_records_is_their_source(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``add_many(read_records("changes.csv"), source_name="shop.csv")`` silently stored the
    source /abs/changes.csv (source_name was ignored for a file's records): there was no way to
    replace a file's rows from a file of changes (hx25, 1). It names the source by the rule of
    ``--source``; with a source column it is refused, not ignored."""
    monkeypatch.chdir(tmp_path)
    Path("shop.csv").write_text("id,text\n1,acme drill rx-100 black\n2,red wool scarf\n",
                                encoding="utf-8")  # fmt: skip
    Path("changes.csv").write_text("id,text\n2,red wool scarf long\n", encoding="utf-8")
    backend = MemoryBackend() if kind == "memory" else DuckDBBackend(tmp_path / "i.duckdb")
    index = NearDupIndex(PARAMS, backend=backend)
    index.add_many(read_records("shop.csv"))
    shop = str(Path("shop.csv").resolve())
    index.add_many(read_records("changes.csv"), source_name="shop.csv")
    assert index.source_counts() == ({shop: 2}, 1)
    assert index.backend.texts(["2"]) == {"2": "red wool scarf long"}
    Path("changes.csv").write_text("id,text\n1,acme drill rx-100\n", encoding="utf-8")
    index.add_many(read_records("changes.csv"), source_name=index.primary_source)
    assert index.source_counts() == ({shop: 2}, 1)
    Path("both.csv").write_text("shop,id,text\nx,5,blue kettle\n", encoding="utf-8")
    with pytest.raises(ArgumentError, match="source_name='shop.csv' names the source of a file"):
        index.add_many(read_records("both.csv", source_field="shop"), source_name="shop.csv")
    assert len(index) == 2
    index.close()


@pytest.mark.parametrize("kind", ["memory", "duckdb"])
def test_a_dedup_reports_pairs_name_the_primary_source_once_another_is_held(
    kind: str, tmp_path: Path
) -> None:
    """In an index of a.csv (primary) and b.csv, ``report().pairs`` gave ``(None, '1', None,
    '2')`` for the pair of a.csv's records and ``('a.csv', '1', ...)`` in the cross pairs: one
    record under two keys, where neighbors, clusters and the CLI's pairs file name a.csv
    (hx25, 7). An index of one source still names none; an index opened again counts it."""
    path = tmp_path / "i.duckdb"
    backend = MemoryBackend() if kind == "memory" else DuckDBBackend(path)
    index = NearDupIndex(Params(threshold=0.5, shingle_kind="word"), backend=backend)
    index.add_many([("1", "alpha beta gamma delta"), ("2", "alpha beta gamma delta epsilon")],
                   source_name="a.csv")  # fmt: skip
    one = {(p.source1, p.id1, p.source2, p.id2) for p in index.report().pairs}
    assert one == {(None, "1", None, "2")}
    index.add_many([("1", "alpha beta gamma delta"), ("9", "red green blue")], source_name="b.csv")
    named = ("a.csv", "1", "a.csv", "2")
    for kw in ({}, {"similarity": "weighted"}, {"similarity": "jaccard", "engine": "duckdb"}):
        pairs = {(p.source1, p.id1, p.source2, p.id2) for p in index.report(**kw).pairs}
        assert named in pairs and ("a.csv", "1", "b.csv", "1") in pairs, (kw, pairs)
    if kind == "duckdb":  # known from no write of this object: counted once
        index.close()
        index = NearDupIndex(backend=DuckDBBackend(path))
        assert named in {(p.source1, p.id1, p.source2, p.id2) for p in index.report().pairs}
    index.close()


def test_open_takes_the_index_file_every_message_names(tmp_path: Path) -> None:
    """Every message names a DuckDB index ``duckdb:FILE``, but ``NearDupIndex.open`` refused
    that name as "not a Solr URL (http or https expected)" (hx25, 9): it opens that file, with
    its parameters, and says what it cannot do with it."""
    location = f"duckdb:{tmp_path / 'shop.duckdb'}"
    with pytest.raises(InputError, match="no such index file"):
        NearDupIndex.open(location, create=False)
    with NearDupIndex.open(location, PARAMS) as index:
        index.add_many(_records(10))
    with NearDupIndex.open(location) as again:
        assert len(again) == 10 and again.params == PARAMS
        assert again.backend.location == location
    with pytest.raises(NeardupError, match="index into a new index file"):
        NearDupIndex.open(location, Params(threshold=0.9))
    with pytest.raises(ArgumentError, match="collection is Solr's"):
        NearDupIndex.open(location, collection="shop")


def test_a_file_joining_an_index_file_with_its_parameters_is_told_so(tmp_path: Path) -> None:
    """As a Solr collection says it (docs/cli.md): a later file that joins an index file with
    other parameters than its own data would get gets one ``note:`` line (hx25 finding 6: the
    index file joined silently), and its records are written after the note's reads."""
    from neardup.resources import restaurants

    lines = restaurants()[0].read_text(encoding="utf-8").splitlines()
    a, b, index = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "x.duckdb"
    a.write_text("\n".join(lines[:500]) + "\n", encoding="utf-8")
    b.write_text("\n".join(lines[500:]) + "\n", encoding="utf-8")
    first = run_cli("index", str(a), "--index-file", str(index), "--shingle-kind", "word",
                    "--threshold", "0.6")  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "note:" not in first.stderr  # a new index: its parameters are the file's own
    joined = run_cli("index", str(b), "--index-file", str(index))
    assert joined.returncode == 0, joined.stderr
    note = [line for line in joined.stderr.splitlines() if line.startswith("note:")]
    assert len(note) == 1 and f"joins duckdb:{index}" in note[0], joined.stderr
    assert f"those of {a} (500 records)" in note[0] and "another --index-file" in note[0]
    again = NearDupIndex(backend=DuckDBBackend(index))
    assert len(again) == len(lines) and again.params.shingle_kind == "word"
