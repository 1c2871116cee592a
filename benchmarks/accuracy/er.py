"""The development tasks of ``../shared/datasets/er``: two real catalogues each, linked through the
CLI with default settings, the files as they are, scored against their true links and shown
beside the F1 that published systems reach on them.

What a user does, and nothing more: ``neardup index FIRST --collection C``, ``neardup index SECOND
--collection C``, ``neardup report --collection C --mode link --out pairs.tsv``, ``neardup
evaluate pairs.tsv --gold gt.csv``. The files keep their ``|`` separator, their ontology-URI
column names and their ids, which both files number from 0. The Solr is ``NEARDUP_SOLR_URL`` or
the local node the CLI starts; each task gets a collection of its own, deleted afterwards.

``python -m benchmarks.accuracy.er [--tasks D1,D8]`` prints the table; the full accuracy run
(``python -m benchmarks.accuracy``) runs every task and writes the table into RESULTS.md, the
quick run (CI) the smallest task, D1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: Where the tasks are: ``NEARDUP_ER_DIR``, else ``shared/datasets/er`` beside the checkout.
DEFAULT_DIR = REPO.parent / "shared" / "datasets" / "er"


@dataclass(frozen=True)
class Task:
    """One two-source task and the published F1 of other systems on it (its README's table)."""

    name: str
    first: str
    second: str
    kind: str
    jedai_default: float
    jedai_best: float
    magellan: float


TASKS = (
    Task("D1", "rest1.csv", "rest2.csv", "restaurants", 0.643, 0.784, 0.844),
    Task("D5", "imdb.csv", "tmdb.csv", "movies, people", 0.676, 0.789, 0.705),
    Task("D6", "imdb.csv", "tvdb.csv", "movies, people, episodes", 0.418, 0.604, 0.609),
    Task("D7", "tmdb.csv", "tvdb.csv", "movies, people, episodes", 0.455, 0.678, 0.679),
    Task("D8", "walmart.csv", "amazon.csv", "electronics products", 0.458, 0.495, 0.637),
    Task("D10", "imdb.csv", "dbpedia.csv", "movies", 0.869, 0.561, 0.608),
)
QUICK = ("D1",)


def folder() -> Path:
    return Path(os.environ.get("NEARDUP_ER_DIR") or DEFAULT_DIR)


def _cli(*args: str) -> dict[str, Any]:
    """Run ``neardup ARGS --json``; its JSON answer, or an error with what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "neardup", *args, "--json"],
        capture_output=True, text=True, cwd=str(REPO),
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"neardup {' '.join(args)}: exit {done.returncode}: {done.stderr}")
    return dict(json.loads(done.stdout))


def _delete(collection: str) -> None:
    from neardup import config
    from neardup.solr import admin
    from neardup.solr.admin import connect

    try:
        settings = config.load()  # the local node's own password, for its URL
        admin.delete_collection(
            connect(settings.solr_url, collection, auth=settings.auth, home=settings.home)
        )
    except Exception as exc:  # a leftover collection is named, not fatal
        print(f"accuracy: could not delete collection {collection}: {exc}", file=sys.stderr)


def run_task(task: Task, where: Path) -> dict[str, Any]:
    """Index, link and score one task through the CLI, with default settings."""
    collection = f"er_{task.name.lower()}_{os.getpid()}"
    start = time.perf_counter()
    try:
        counts = [_cli("index", str(where / f), "--collection", collection)
                  for f in (task.first, task.second)]  # fmt: skip
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "pairs.tsv"
            report = _cli("report", "--collection", collection, "--mode", "link",
                          "--out", str(out))  # fmt: skip
            scores = _cli("evaluate", str(out), "--gold", str(where / "gt.csv"))
    finally:
        _delete(collection)
    return {
        "task": task.name,
        "kind": task.kind,
        "records": [c["indexed"] for c in counts],
        "rejected": [c["rejected"] for c in counts],
        "gold": scores["gold"],
        "pairs": scores["pairs"],
        "precision": scores["precision"],
        "recall": scores["recall"],
        "f1": scores["f1"],
        "jedai_default": task.jedai_default,
        "jedai_best": task.jedai_best,
        "magellan": task.magellan,
        "rule": (report.get("rule") or {}).get("kind", "jaccard"),
        "seconds": round(time.perf_counter() - start, 1),
    }


def run(
    names: tuple[str, ...] | None = None,
    runner: Callable[[Task, Path], dict[str, Any]] | None = None,
    how: str = "",
) -> list[dict[str, Any]]:
    """The tasks named (all by default) that are there, each run by ``runner`` (default:
    :func:`run_task`; ``how`` says how in the progress lines); a missing folder is said, not
    fatal."""
    where = folder()
    if not where.is_dir():
        print(f"accuracy: no ER tasks at {where} (set NEARDUP_ER_DIR)", file=sys.stderr)
        return []
    rows = []
    with _solr():
        for task in TASKS:
            if names is not None and task.name not in names:
                continue
            row = (runner or run_task)(task, where / task.name)
            print(
                f"accuracy: {task.name}{how}: F1 {row['f1']:.3f} (JedAI default "
                f"{task.jedai_default:.3f}) ({row['seconds']:.1f} s)",
                file=sys.stderr,
            )
            rows.append(row)
    return rows


@contextmanager
def _solr() -> Iterator[None]:
    """``NEARDUP_SOLR_URL`` as it is, or neardup's local node (of ``NEARDUP_HOME``), started
    for the tasks and stopped after them unless it was running already."""
    if os.environ.get("NEARDUP_SOLR_URL"):
        yield
        return
    from neardup.solr.local import LocalSolr

    node = LocalSolr(Path(os.environ["NEARDUP_HOME"]) if os.environ.get("NEARDUP_HOME") else None)
    was_running = node.running() is not None
    state = node.start()
    os.environ["NEARDUP_SOLR_URL"] = state.url
    try:
        yield
    finally:
        del os.environ["NEARDUP_SOLR_URL"]
        if not was_running:
            node.stop()


def _cells(r: dict[str, Any]) -> list[str]:
    mark = "yes" if r["f1"] >= r["jedai_default"] else "no"
    return [
        r["task"], r["kind"], " / ".join(map(str, r["records"])), str(r["gold"]),
        f"{r['precision']:.3f}", f"{r['recall']:.3f}", f"{r['f1']:.3f}",
        f"{r['jedai_default']:.3f}", mark, f"{r['jedai_best']:.3f}", f"{r['magellan']:.3f}",
    ]  # fmt: skip


HEADER = ["task", "kind", "records", "links", "P", "R", "F1", "JedAI default", ">= default",
          "JedAI best (labels)", "Magellan (80% labels)"]  # fmt: skip


def text_table(header: list[str], cells: list[list[str]]) -> str:
    """Rows of cells under a header, as a plain-text table."""
    cells = [header] + cells
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    return "\n".join("  ".join(c[i].ljust(widths[i]) for i in range(len(c))) for c in cells)


def markdown_table(intro: str, header: list[str], cells: list[list[str]]) -> list[str]:
    """Rows of cells under a header as a Markdown table after a line saying what they are."""
    if not cells:
        return []
    return [intro, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(c) + " |" for c in cells)]  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a plain-text table."""
    return text_table(HEADER, [_cells(r) for r in rows])


def markdown(rows: list[dict[str, Any]]) -> list[str]:
    """The rows as a Markdown table, with what they are."""
    return markdown_table(
        "Real two-source tasks (`../shared/datasets/er`), linked through the CLI with default "
        "settings, the files as they are (`benchmarks/accuracy/er.py`); the published F1 of "
        "other systems from that folder's README:",
        HEADER, [_cells(r) for r in rows],
    )  # fmt: skip


def cli(
    argv: list[str] | None,
    prog: str,
    doc: str | None,
    runner: Callable[[tuple[str, ...] | None], list[dict[str, Any]]],
    shown: Callable[[list[dict[str, Any]]], str],
) -> int:
    """A task benchmark's command line: ``--tasks`` (a subset), ``--json OUT``; the tasks run
    by ``runner`` and printed by ``shown``."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("--tasks", help="comma-separated subset of: "
                        + ", ".join(t.name for t in TASKS))  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    names = tuple(t.strip() for t in args.tasks.split(",")) if args.tasks else None
    unknown = set(names or ()) - {t.name for t in TASKS}
    if unknown:
        parser.error(f"unknown tasks: {', '.join(sorted(unknown))}")
    rows = runner(names)
    print(shown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    return cli(argv, "python -m benchmarks.accuracy.er", __doc__, run, table)


if __name__ == "__main__":
    sys.exit(main())
