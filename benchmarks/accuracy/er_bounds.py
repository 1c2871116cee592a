"""How far a comparison of the records' content can go on the two-source tasks.

    python -m benchmarks.accuracy.er_bounds [--tasks D1,D10]

For each task of ``../shared/datasets/er``, the true links whose two records share no word of
three or more letters (normalized as neardup normalizes: lower case, accents folded, the
files' columns joined as ``neardup index`` joins them), and the F1 that bounds. A method that
links only records sharing a word finds at most the other links: its recall is at most ``R``,
so its F1 is at most ``2R / (1 + R)``, even with no false pair. The same for records that
share no character 4-gram (spaces included), a weaker kind of evidence still.

Why: a target above the bound can be met only by pairing records that have nothing in common
(guessing), which a tool must not be tuned to do. On D10, 28% of the true links pair an IMDb
record with an empty title and one actor with a DBpedia record of other actors.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from neardup.read.items import Record
from neardup.read.records import read_records
from neardup.sign.minhash import ShingleProcessor

from .er import TASKS, Task, folder


def _texts(path: Path, processor: ShingleProcessor) -> dict[str, str]:
    return {
        r.id: processor.normalize(r.text)
        for r in read_records(path)
        if isinstance(r, Record)
    }


def _grams(text: str) -> set[str]:
    return {text[i : i + 4] for i in range(len(text) - 3)}


def bounds(task: Task, where: Path) -> dict[str, float | int | str]:
    """The links of ``task`` (files in ``where``) sharing no word, no 4-gram, and the bounds."""
    p = ShingleProcessor()
    first, second = _texts(where / task.first, p), _texts(where / task.second, p)
    with open(where / "gt.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="|"))[1:]
    links = [(a, b) for a, b in rows if a in first and b in second]
    no_word = no_gram = 0
    for a, b in links:
        ta, tb = first[a], second[b]
        words_a = {w for w in ta.split() if len(w) >= 3}
        if not words_a & {w for w in tb.split() if len(w) >= 3}:
            no_word += 1
        if not _grams(ta) & _grams(tb):
            no_gram += 1
    n = max(len(links), 1)

    def f1_bound(missed: int) -> float:
        r = 1 - missed / n
        return round(2 * r / (1 + r), 3)

    return {
        "task": task.name,
        "links": len(links),
        "no_shared_word": no_word,
        "f1_bound_word": f1_bound(no_word),
        "no_shared_4gram": no_gram,
        "f1_bound_4gram": f1_bound(no_gram),
        "jedai_default": task.jedai_default,
    }


def main(argv: list[str] | None = None) -> int:
    prog = "python -m benchmarks.accuracy.er_bounds"
    ap = argparse.ArgumentParser(prog=prog, description=__doc__)
    ap.add_argument("--tasks", help="comma-separated task names (default: all)")
    args = ap.parse_args(argv)
    names = set(args.tasks.split(",")) if args.tasks else None
    print("| task | links | no shared word (3+ letters) | F1 at most | no shared 4-gram "
          "| F1 at most | JedAI default |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for task in TASKS:
        if names is not None and task.name not in names:
            continue
        if not (folder() / task.name).is_dir():
            continue
        b = bounds(task, folder() / task.name)
        links = int(b["links"]) or 1
        print(
            f"| {b['task']} | {b['links']} | {b['no_shared_word']} "
            f"({int(b['no_shared_word']) / links:.1%}) | {b['f1_bound_word']} | "
            f"{b['no_shared_4gram']} ({int(b['no_shared_4gram']) / links:.1%}) | "
            f"{b['f1_bound_4gram']} | {b['jedai_default']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
