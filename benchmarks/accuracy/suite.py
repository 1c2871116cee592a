"""Score every dataset (neardup's defaults, the oracle, B-cubed) and lay the results out as
one table: the console's, RESULTS.md's and the JSON's numbers are the same numbers."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import metrics, oracle
from .datasets import Dataset
from .run_neardup import run_neardup

REPO = Path(__file__).resolve().parents[2]


def evaluate(ds: Dataset, functions: tuple[str, ...] = oracle.FUNCTIONS) -> dict[str, Any]:
    """One dataset's row: neardup's defaults against the gold, the oracle, and their clusters."""
    ids = [r.id for r in ds.records]
    start = time.perf_counter()
    predicted = metrics.counted(ds, run_neardup(ds))
    nd_seconds = time.perf_counter() - start
    scores = metrics.pairwise(predicted, ds.gold)
    b3 = metrics.bcubed(ids, predicted, ds.gold)
    start = time.perf_counter()
    orc = oracle.oracle(ds, functions)
    or_seconds = time.perf_counter() - start
    ob3 = metrics.bcubed(ids, metrics.counted(ds, orc.pairs), ds.gold)
    return {
        "dataset": ds.name,
        "kind": ds.kind,
        "mode": ds.mode,
        "held_out": ds.held_out,
        "records": len(ds.records),
        "sources": sorted({r.source for r in ds.records if r.source}),
        "gold_pairs": len(ds.gold),
        "origin": ds.origin,
        "licence": ds.licence,
        "defaults": {**scores.as_dict(), "bcubed": vars(b3), "seconds": nd_seconds},
        "oracle": {
            "function": orc.best.function,
            "threshold": orc.best.threshold,
            "f1": orc.best.f1,
            "precision": orc.best.precision,
            "recall": orc.best.recall,
            "bcubed": vars(ob3),
            "seconds": or_seconds,
            "functions": {s.function: s.as_dict() for s in orc.sweeps},
        },
        "gap": orc.best.f1 - scores.f1,
    }


def run(datasets: Iterable[Dataset], functions: tuple[str, ...] = oracle.FUNCTIONS,
        echo: bool = True) -> list[dict[str, Any]]:  # fmt: skip
    """Evaluate the datasets one by one (each is dropped before the next is loaded)."""
    rows = []
    for ds in datasets:
        start = time.perf_counter()
        row = evaluate(ds, functions)
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
        if echo:
            d, o = row["defaults"], row["oracle"]
            print(
                f"accuracy: {ds.name}: defaults F1 {d['f1']:.3f}, oracle "
                f"{o['function']}@{o['threshold']:.3f} F1 {o['f1']:.3f} "
                f"({row['seconds']:.1f} s)",
                flush=True,
            )
    return rows


COLUMNS = (
    ("dataset", 13, "<"), ("kind", 31, "<"), ("mode", 6, "<"), ("records", 8, ">"),
    ("gold", 7, ">"), ("P", 6, ">"), ("R", 6, ">"), ("F1", 6, ">"), ("oracle", 7, ">"),
    ("function@t", 12, "<"), ("gap", 7, ">"), ("B3", 6, ">"), ("B3 orc", 7, ">"),
)  # fmt: skip


def _cells(row: dict[str, Any]) -> list[str]:
    d, o = row["defaults"], row["oracle"]
    return [
        row["dataset"], row["kind"], row["mode"], str(row["records"]), str(row["gold_pairs"]),
        f"{d['precision']:.3f}", f"{d['recall']:.3f}", f"{d['f1']:.3f}", f"{o['f1']:.3f}",
        f"{o['function']}@{o['threshold']:.3f}".replace("0.", "."), f"{row['gap']:+.3f}",
        f"{d['bcubed']['f1']:.3f}", f"{o['bcubed']['f1']:.3f}",
    ]  # fmt: skip


def _line(cells: list[str]) -> str:
    out = []
    for text, (_, width, align) in zip(cells, COLUMNS, strict=True):
        out.append(f"{text:{align}{width}}")
    return " ".join(out).rstrip()


def format_table(rows: list[dict[str, Any]]) -> str:
    """The console table: development datasets, then the held-out ones apart."""
    head = _line([c[0] for c in COLUMNS])
    lines = [head, "-" * len(head)]
    dev = [r for r in rows if not r["held_out"]]
    held = [r for r in rows if r["held_out"]]
    lines += [_line(_cells(r)) for r in dev]
    if held:
        lines += ["", "held out (never tuned on):", head, "-" * len(head)]
        lines += [_line(_cells(r)) for r in held]
    lines += [
        "",
        "P/R/F1: neardup's defaults, pairwise (link mode: cross-source pairs only); oracle: best "
        "exact all-pairs",
        "similarity at the best threshold chosen with the labels; gap = oracle F1 - defaults F1; "
        "B3: B-cubed F1",
        "of the connected components of the defaults' pairs (B3 orc: of the oracle's pairs).",
    ]
    return "\n".join(lines)


def _md_table(rows: list[dict[str, Any]]) -> list[str]:
    head = [c[0] for c in COLUMNS]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(_cells(r)) + " |" for r in rows]
    return out


def environment() -> dict[str, Any]:
    """Where the numbers came from: neardup's version and commit (and whether its tree had
    uncommitted changes), Python, the machine."""
    import neardup

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, check=False
            ).stdout.strip()
        except OSError:
            return ""

    dirty = bool(git("status", "--porcelain", "--", "neardup"))
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "neardup": getattr(neardup, "__version__", "?"),
        "neardup_path": str(Path(neardup.__file__).resolve().parent),
        "commit": git("rev-parse", "--short", "HEAD") + (" (neardup/ modified)" if dirty else ""),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    }


def markdown(rows: list[dict[str, Any]], env: dict[str, Any], seconds: float,
             command: str) -> str:  # fmt: skip
    """RESULTS.md: the table, the held-out table, every function's oracle, where data is from."""
    dev = [r for r in rows if not r["held_out"]]
    held = [r for r in rows if r["held_out"]]
    lines = [
        "# Accuracy suite: results",
        "",
        f"`{command}` on {env['date']}: neardup {env['neardup']} at {env['commit']}, Python "
        f"{env['python']}, {env['machine']}; {seconds:.0f} s. Written by the suite; see "
        "[README.md](README.md) for what the columns mean and where the data comes from.",
        "",
        *_md_table(dev),
    ]
    if held:
        lines += ["", "Held out (FEBRL 1, 3, 4: reported, never tuned on):", "", *_md_table(held)]
    functions = list(oracle.FUNCTIONS)
    lines += [
        "",
        "Oracle F1 of each similarity function at its own best threshold (`-`: not affordable):",
        "",
        "| dataset | " + " | ".join(functions) + " |",
        "|---|" + "|".join("---" for _ in functions) + "|",
    ]
    for r in rows:
        cells = []
        for fn in functions:
            s = r["oracle"]["functions"].get(fn)
            cells.append("-" if not s or s["skipped"] else f"{s['f1']:.3f} @{s['threshold']:.3f}")
        lines.append(f"| {r['dataset']} | " + " | ".join(cells) + " |")
    lines += ["", "| dataset | origin | licence |", "|---|---|---|"]
    lines += [f"| {r['dataset']} | {r['origin']} | {r['licence']} |" for r in rows]
    return "\n".join(lines) + "\n"
