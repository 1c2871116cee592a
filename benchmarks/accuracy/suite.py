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
from .run_neardup import run_learned, run_neardup

REPO = Path(__file__).resolve().parents[2]


def evaluate(
    ds: Dataset, functions: tuple[str, ...] = oracle.FUNCTIONS, learned: bool = False
) -> dict[str, Any]:
    """One dataset's row: neardup's defaults against the gold, the oracle, and their clusters;
    with ``learned``, also the learned rule's own estimates against the labels."""
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
        **({"learned": _learned(ds)} if learned else {}),
    }


def _learned(ds: Dataset) -> dict[str, Any]:
    """The opt-in learned rule: its threshold and estimates, and what the labels say."""
    found, rule = run_learned(ds)
    s = metrics.pairwise(metrics.counted(ds, found), ds.gold)
    return {
        "threshold": rule.get("threshold"),
        "estimated_precision": rule.get("estimated_precision"),
        "estimated_recall": rule.get("estimated_recall"),
        "precision": s.precision,
        "recall": s.recall,
        "f1": s.f1,
    }


def run(datasets: Iterable[Dataset], functions: tuple[str, ...] = oracle.FUNCTIONS,
        echo: bool = True, learned: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    """Evaluate the datasets one by one (each is dropped before the next is loaded)."""
    rows = []
    for ds in datasets:
        start = time.perf_counter()
        row = evaluate(ds, functions, learned)
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
    extra = learned_table(rows)
    return "\n".join(lines + ([""] + extra if extra else []))


LEARNED_HEAD = ("dataset", "threshold", "est. P", "P", "est. R", "R", "F1")
LEARNED_NOTE = (
    "The learned rule (opt-in, rule=\"learned\"; Fellegi-Sunter fitted by EM to the candidates): "
    "the threshold it learned and its own estimates of precision and recall, beside the labels'."
)


def _learned_cells(row: dict[str, Any]) -> list[str]:
    lr = row["learned"]

    def num(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    return [row["dataset"], num(lr["threshold"]), num(lr["estimated_precision"]),
            num(lr["precision"]), num(lr["estimated_recall"]), num(lr["recall"]),
            num(lr["f1"])]  # fmt: skip


def learned_table(rows: list[dict[str, Any]], markdown: bool = False) -> list[str]:
    """The learned rule's estimates against the labels, one line a dataset (none if not run)."""
    rows = [r for r in rows if "learned" in r]
    if not rows:
        return []
    if markdown:
        rule = "|" + "|".join("---" for _ in LEARNED_HEAD) + "|"
        return [
            LEARNED_NOTE, "", "| " + " | ".join(LEARNED_HEAD) + " |", rule,
            *("| " + " | ".join(_learned_cells(r)) + " |" for r in rows),
        ]  # fmt: skip
    widths = (13, 9, 7, 6, 7, 6, 6)

    def line(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return " ".join(f"{c:<{w}}" if k == 0 else f"{c:>{w}}" for k, (c, w) in pairs).rstrip()

    head = line(list(LEARNED_HEAD))
    return [LEARNED_NOTE, head, "-" * len(head), *(line(_learned_cells(r)) for r in rows)]


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
    extra = learned_table(rows, markdown=True)
    if extra:
        lines += ["", *extra]
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
