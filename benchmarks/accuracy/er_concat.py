"""The development tasks written as one file and deduplicated: what dedup mode finds of a link.

A user often holds two catalogues in one table. Per task, through the CLI with default
settings: the two files written one after the other into one ``|``-separated file (the union of
their columns as they name them, each record's id prefixed by its file's name, ``imdb-12``, as
the two files number their ids from 0), then ``neardup index FILE`` and ``neardup report``
(dedup, the default mode), then ``neardup report --similarity weighted`` (the weighted dedup:
one partner each, for duplicates that come one to a record). Scored on the pairs across the two
files against the task's true links; the pairs inside one file are counted apart, not scored
(the true links say nothing of them). Issue #39 asks these to be within .05 of the task's link
F1 (:mod:`.er`).

``python -m benchmarks.accuracy.er_concat [--tasks D1,D8] [--json OUT]``.
"""

from __future__ import annotations

import csv
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import er
from .er import Task, _cli, _delete, cli, markdown_table, text_table


def _prefix(name: str) -> str:
    return Path(name).stem


def write_concatenated(task: Task, where: Path, out: Path) -> set[tuple[str, str]]:
    """The task's two files as one at ``out`` (see the module docstring); its true links with
    the ids as written there, smaller first."""
    columns: list[str] = ["id"]
    rows: list[dict[str, str]] = []
    for name in (task.first, task.second):
        with open(where / name, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh, delimiter="|")
            columns += [c for c in reader.fieldnames or [] if c not in columns]
            for row in reader:
                rows.append({**row, "id": f"{_prefix(name)}-{row['id']}"})
    with open(out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter="|")
        writer.writeheader()
        writer.writerows(rows)
    a, b = _prefix(task.first), _prefix(task.second)
    with open(where / "gt.csv", encoding="utf-8", newline="") as fh:
        links = list(csv.reader(fh, delimiter="|"))[1:]
    return {tuple(sorted((f"{a}-{x}", f"{b}-{y}"))) for x, y, *_ in links}  # type: ignore[misc]


def score(pairs: Path, gold: set[tuple[str, str]], first: str) -> dict[str, Any]:
    """Precision, recall and F1 of the pairs across the two files (``first``: the first file's
    id prefix); the pairs within one file counted apart."""
    across: set[tuple[str, str]] = set()
    within = 0
    with open(pairs, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        next(reader, None)
        for row in reader:
            x, y = row[0], row[1]
            if x.startswith(f"{first}-") == y.startswith(f"{first}-"):
                within += 1
            else:
                across.add((x, y) if x <= y else (y, x))
    hit = len(across & gold)
    p = hit / len(across) if across else 0.0
    r = hit / len(gold) if gold else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"across": len(across), "within": within, "precision": round(p, 4),
            "recall": round(r, 4), "f1": round(f1, 4)}  # fmt: skip


def run_task(task: Task, where: Path) -> dict[str, Any]:
    """Write, index, deduplicate and score one task through the CLI, with default settings."""
    collection = f"er_concat_{task.name.lower()}_{os.getpid()}"
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{task.name.lower()}_both.csv"
        gold = write_concatenated(task, where, path)
        out = Path(tmp) / "pairs.tsv"
        try:
            counts = _cli("index", str(path), "--collection", collection)
            report = _cli("report", "--collection", collection, "--out", str(out))
            got = score(out, gold, _prefix(task.first))
            _cli("report", "--collection", collection, "--similarity", "weighted",
                 "--out", str(out))  # fmt: skip
            weighted = score(out, gold, _prefix(task.first))
        finally:
            _delete(collection)
    rule = report.get("rule") or {}
    return {"task": task.name, "kind": task.kind, "records": counts["indexed"],
            "gold": len(gold), **got, "rule": rule.get("kind", "jaccard"), "weighted": weighted,
            "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip


def run(names: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """The tasks named (all by default) that are there; a missing folder is said, not fatal."""
    return er.run(names, run_task, how=" in one file")


HEADER = ["task", "records", "links", "pairs across", "pairs within", "P", "R", "F1",
          "weighted: across", "within", "P", "R", "F1"]  # fmt: skip


def _cells(r: dict[str, Any]) -> list[str]:
    w = r["weighted"]
    return [r["task"], str(r["records"]), str(r["gold"]), str(r["across"]), str(r["within"]),
            f"{r['precision']:.3f}", f"{r['recall']:.3f}", f"{r['f1']:.3f}",
            str(w["across"]), str(w["within"]), f"{w['precision']:.3f}", f"{w['recall']:.3f}",
            f"{w['f1']:.3f}"]  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    return text_table(HEADER, [_cells(r) for r in rows])


def markdown(rows: list[dict[str, Any]]) -> list[str]:
    return markdown_table(
        "The same tasks with the two files written as one and deduplicated (`neardup report`, "
        "dedup mode; then `--similarity weighted`), the pairs across the two files scored "
        "(`benchmarks/accuracy/er_concat.py`):",
        HEADER, [_cells(r) for r in rows],
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    return cli(argv, "python -m benchmarks.accuracy.er_concat", __doc__, run, table)


if __name__ == "__main__":
    sys.exit(main())
