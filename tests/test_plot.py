"""neardup.evaluate.plot: valid PNGs; sweep and threshold numbers behave as LSH must."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from matplotlib.image import imread  # noqa: E402

from neardup.errors import OutputError  # noqa: E402
from neardup.evaluate.plot import (  # noqa: E402
    plot_s_curve,
    plot_sweep,
    plot_threshold,
    sweep,
    threshold_curve,
)
from neardup.params import Params  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CFG = Params(shingle_kind="char", shingle_size=4, num_perm=64, threshold=0.5, canonical=False)


def _corpus(n_docs: int = 60, seed: int = 3) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Random word documents plus lightly and heavily edited copies (seeded), and the gold
    pairs (each original with its copies)."""
    rng = random.Random(seed)
    vocab = [f"word{i}" for i in range(800)]
    texts: dict[str, str] = {}
    gold: set[tuple[str, str]] = set()
    for d in range(n_docs):
        words = rng.choices(vocab, k=rng.randint(15, 30))
        texts[f"d{d}"] = " ".join(words)
        for c, edits in enumerate((1, 3)):
            copy = list(words)
            for _ in range(edits):
                copy[rng.randrange(len(copy))] = rng.choice(vocab)
            texts[f"d{d}c{c}"] = " ".join(copy)
            gold.add((f"d{d}", f"d{d}c{c}"))
    return texts, gold


def _check_png(path: Path) -> None:
    assert path.exists() and path.stat().st_size > 1000
    assert path.read_bytes()[:8] == PNG_MAGIC
    img = imread(path)
    assert img.ndim == 3 and img.shape[2] in (3, 4)
    assert img.shape[0] > 200 and img.shape[1] > 300


def test_plot_s_curve(tmp_path: Path) -> None:
    out = plot_s_curve(42, 3, 0.5, tmp_path / "s.png", num_perm=128)
    assert out == tmp_path / "s.png"
    _check_png(out)
    _check_png(plot_s_curve(20, 5, 0.8, tmp_path / "sub" / "plain.png"))


def test_a_png_that_cannot_be_written_is_said_not_raised(tmp_path: Path) -> None:
    """A folder where the PNG goes, or a place nothing can be written, was an IsADirectoryError
    or FileNotFoundError traceback; the PNG was also written in place, half of it left by a
    killed run. It is written whole or not at all, and the failure names the file."""
    (tmp_path / "s_curve.png").mkdir()
    with pytest.raises(OutputError, match=r"s_curve.png: cannot be written"):
        plot_s_curve(20, 5, 0.5, tmp_path / "s_curve.png")
    out = plot_s_curve(20, 5, 0.5, tmp_path / "b.png")
    assert imread(out).shape[2] in (3, 4) and [p.name for p in tmp_path.iterdir()
                                                 if p.name.startswith(".")] == []  # fmt: skip


def test_sweep_recall_and_plot(tmp_path: Path) -> None:
    texts, _ = _corpus()
    result = sweep(texts, CFG, bands_list=[5, 50, 200], rows_list=[1, 5], threshold=0.5)
    assert result["truth"] > 20
    assert result["skipped"] == [(200, 5)]  # 1000 permutations > 512
    cell = {(c["bands"], c["rows"]): c for c in result["cells"]}
    assert set(cell) == {(5, 1), (5, 5), (50, 1), (50, 5), (200, 1)}
    assert cell[(50, 1)]["recall"] == 1.0
    for b in (5, 50):
        assert cell[(b, 1)]["recall"] >= cell[(b, 5)]["recall"]
        # Longer bands are more selective: fewer candidates.
        assert cell[(b, 1)]["candidates"] >= cell[(b, 5)]["candidates"]
    assert cell[(5, 5)]["recall"] < 1.0  # P ~ 0.15 at J = 0.5: some true pairs are missed
    for c in result["cells"]:
        assert 0.0 <= c["recall"] <= 1.0
        assert c["found"] <= c["candidates"]
        assert c["seconds"] >= 0.0
    _check_png(plot_sweep(result, tmp_path / "sweep.png"))


def test_sweep_drops_empty_records() -> None:
    texts = {"a": "same text here", "b": "same text here", "c": "!!!", "d": "..."}
    result = sweep(texts, CFG, bands_list=[10], rows_list=[2])
    assert result["records"] == 2 and result["truth"] == 1
    assert result["cells"][0]["found"] == 1


def test_threshold_curve_and_plot(tmp_path: Path) -> None:
    texts, gold = _corpus(n_docs=40)
    curve = threshold_curve(texts, gold, CFG, thresholds=[0.9, 0.2, 0.3, 0.7, 0.4])
    ts = [c["threshold"] for c in curve]
    assert ts == sorted(ts) and 0.5 in ts  # the configured threshold is always included
    assert [c["threshold"] for c in curve if c["default"]] == [0.5]
    recalls = [c["recall"] for c in curve]
    assert all(a >= b for a, b in zip(recalls, recalls[1:], strict=False))
    assert recalls[0] > recalls[-1]
    for c in curve:
        assert c["gold"] == len(gold)
        assert 0.0 <= c["precision"] <= 1.0 and 0.0 <= c["f1"] <= 1.0
    _check_png(plot_threshold(curve, tmp_path / "threshold.png"))


def test_importing_neardup_does_not_import_matplotlib() -> None:
    code = "import sys, neardup, neardup.evaluate.plot; sys.exit('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


def test_an_out_dir_that_is_a_file_is_bad_usage(tmp_path: Path) -> None:
    """``plot --out-dir FILE`` ended in a FileExistsError traceback."""
    taken = tmp_path / "taken"
    taken.write_text("not a folder\n", encoding="utf-8")
    for out_dir in (taken, taken / "sub"):
        args = [sys.executable, "-m", "neardup", "plot", "s-curve", "--out-dir", str(out_dir)]
        run = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert f"{out_dir}: --out-dir names a file, not a folder" in run.stderr
    assert taken.read_text(encoding="utf-8") == "not a folder\n"
