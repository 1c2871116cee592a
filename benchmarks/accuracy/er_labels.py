"""The development tasks with 100 labels: what a reviewer's labels add to the weighted link.

Per task, through the CLI with default settings, as a reviewer would work: index both files,
then five rounds of ``neardup review --mode link --ask 20 --labels labels.tsv``, each pair asked
answered from the task's true links (``match`` where ``gt.csv`` links its records, else
``non-match``) and appended to ``labels.tsv`` as the review page writes it; then one round of
``neardup review --check 30``: pairs drawn at random from those the labels' rule keeps, answered
and appended marked ``at random`` (they test the rule and teach it nothing); then ``neardup
report --mode link --labels labels.tsv`` and ``neardup evaluate``. The table sets the F1 beside the
published figures of systems that learn from labels (the best JedAI configuration chosen with
them, Magellan with 80% of them), and the rule's own estimate of its precision and recall beside
the truth.

``python -m benchmarks.accuracy.er_labels [--tasks D1,D8] [--rounds 5] [--per-round 20]``.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import er
from .er import QUICK, TASKS, Task, _cli, _delete, markdown_table, text_table

ROUNDS, PER_ROUND = 5, 20
#: Pairs drawn at random to test the rule after the rounds (``review --check``).
CHECK = 30
LABELS_HEADER = "source1\tid1\tsource2\tid2\tlabel\tasked\n"


def _gold(where: Path) -> set[tuple[str, str]]:
    """The task's true links, as (first file's id, second file's id)."""
    with open(where / "gt.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="|"))
    return {(r[0], r[1]) for r in rows[1:] if len(r) >= 2}


def _answer(pair: dict[str, Any], first: str, gold: set[tuple[str, str]]) -> str:
    """A pair asked, labelled from the truth: ``match`` or ``non-match``."""
    ids = (pair["id1"], pair["id2"])
    if Path(pair["source1"]).name != first:
        ids = ids[::-1]
    return "match" if ids in gold else "non-match"


def run_task(task: Task, where: Path, rounds: int = ROUNDS, per: int = PER_ROUND) -> dict[str, Any]:
    """Index, ask, label, report and score one task through the CLI."""
    collection = f"erl_{task.name.lower()}_{os.getpid()}"
    gold = _gold(where)
    start = time.perf_counter()
    try:
        for f in (task.first, task.second):
            _cli("index", str(where / f), "--collection", collection)
        with tempfile.TemporaryDirectory() as tmp:
            labels, page = Path(tmp) / "labels.tsv", Path(tmp) / "page.html"
            labels.write_text(LABELS_HEADER, encoding="utf-8")
            matches = 0
            for n in range(rounds):
                given = ["--labels", str(labels)] if n else []
                asked = _cli("review", "--collection", collection, "--mode", "link", "--ask",
                             str(per), *given, "--out", str(page))["asked"]  # fmt: skip
                matches += _append(labels, asked, task.first, gold)
            labelled = sum(1 for _ in open(labels, encoding="utf-8")) - 1
            drawn = _cli("review", "--collection", collection, "--mode", "link", "--check",
                         str(CHECK), "--labels", str(labels), "--out", str(page))["asked"]
            hits = _append(labels, drawn, task.first, gold)
            out = Path(tmp) / "pairs.tsv"
            report = _cli("report", "--collection", collection, "--mode", "link", "--labels",
                          str(labels), "--out", str(out))  # fmt: skip
            scores = _cli("evaluate", str(out), "--gold", str(where / "gt.csv"))
    finally:
        _delete(collection)
    rule = report.get("rule") or {}
    return {
        "task": task.name,
        "labels": labelled,
        "matches": matches,
        "checked": len(drawn),
        "checked_matches": hits,
        "precision": scores["precision"],
        "recall": scores["recall"],
        "f1": scores["f1"],
        "estimated_precision": rule.get("estimated_precision"),
        "estimated_recall": rule.get("estimated_recall"),
        "jedai_best": task.jedai_best,
        "magellan": task.magellan,
        "seconds": round(time.perf_counter() - start, 1),
    }


def _append(labels: Path, pairs: list[dict[str, Any]], first: str,
            gold: set[tuple[str, str]]) -> int:  # fmt: skip
    """The ``pairs`` answered from the truth and appended to the labels file as the review
    page writes them; how many are matches."""
    matches = 0
    with open(labels, "a", encoding="utf-8") as fh:
        for p in pairs:
            label = _answer(p, first, gold)
            matches += label == "match"
            fh.write("\t".join([p["source1"], p["id1"], p["source2"], p["id2"], label,
                                p.get("asked") or ""]) + "\n")  # fmt: skip
    return matches


def run(names: tuple[str, ...] | None = None, rounds: int = ROUNDS,
        per: int = PER_ROUND) -> list[dict[str, Any]]:  # fmt: skip
    return er.run(names, lambda task, where: run_task(task, where, rounds, per))


HEADER = ["task", "labels (matches)", "checked (matches)", "P", "R", "F1", "estimated P",
          "estimated R", "JedAI best (labels)", "Magellan (80% labels)", ">= both"]  # fmt: skip


def _cells(r: dict[str, Any]) -> list[str]:
    def est(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    both = "yes" if r["f1"] >= max(r["jedai_best"], r["magellan"]) else "no"
    return [
        r["task"], f"{r['labels']} ({r['matches']})",
        f"{r.get('checked', 0)} ({r.get('checked_matches', 0)})", f"{r['precision']:.3f}",
        f"{r['recall']:.3f}", f"{r['f1']:.3f}", est(r["estimated_precision"]),
        est(r["estimated_recall"]), f"{r['jedai_best']:.3f}", f"{r['magellan']:.3f}", both,
    ]  # fmt: skip


INTRO = (
    "The same tasks with 100 labels, asked by `neardup review --ask 20` in five rounds and "
    "answered from the true links, then 30 pairs drawn at random from those the rule keeps "
    "(`neardup review --check 30`), answered too, which test the rule and teach it nothing, "
    "then `neardup report --labels` (`benchmarks/accuracy/er_labels.py`):"
)


def table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    """The rows as a plain-text table, or as Markdown lines after :data:`INTRO`."""
    cells = [_cells(r) for r in rows]
    if markdown:
        return "\n".join(markdown_table(INTRO, HEADER, cells))
    return text_table(HEADER, cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.accuracy.er_labels",
                                     description=__doc__)  # fmt: skip
    parser.add_argument("--tasks", help="comma-separated subset of: "
                        + ", ".join(t.name for t in TASKS))  # fmt: skip
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--per-round", type=int, default=PER_ROUND)
    args = parser.parse_args(argv)
    names = QUICK if args.quick else (tuple(args.tasks.split(",")) if args.tasks else None)
    rows = run(names, args.rounds, args.per_round)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
