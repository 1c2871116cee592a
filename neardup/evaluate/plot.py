"""Figures that explain the LSH choices: the S-curve, a bands x rows sweep, a threshold curve.

Everything here runs in memory (no Solr), so the figures can be redrawn in seconds and the
numbers behind them are reproducible. matplotlib is an optional dependency (``.[plot]``): it is
imported inside the functions, so ``import neardup`` and ``import neardup.plot`` work without it,
and the non-interactive Agg backend is selected so that plotting never needs a display.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..candidates import bruteforce
from ..errors import NeardupError, OutputError
from ..index import NearDupIndex
from ..out.write import AtomicFile
from ..params import Params
from ..read.items import Record
from ..read.pairs import read_pairs
from ..read.records import read_records
from ..resources import restaurants
from ..sign.banding import optimal_bands, s_curve
from ..sign.text import ordered
from .scores import score

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_BANDS",
    "DEFAULT_ROWS",
    "DEFAULT_THRESHOLDS",
    "MAX_NUM_PERM",
    "plot_s_curve",
    "plot_sweep",
    "plot_threshold",
    "restaurant_plots",
    "sweep",
    "threshold_curve",
]

#: The grid of seed 002's bands x rows experiment.
DEFAULT_BANDS = (5, 10, 20, 30, 50)
DEFAULT_ROWS = (1, 2, 3, 4, 5)
#: Cells with more permutations than this are skipped: signatures would dominate the run time.
MAX_NUM_PERM = 512
#: Verification thresholds of the threshold curve (the configured one is added if missing).
DEFAULT_THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(16))  # 0.2 .. 0.95


def _pyplot() -> Any:
    """pyplot on the Agg backend, imported only when a figure is actually drawn; without
    matplotlib, an error that names the extra to install."""
    try:
        import matplotlib
    except ImportError:
        raise NeardupError(
            "plot draws with matplotlib, which is not installed: pip install 'neardup[plot]'"
        ) from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Figure, out: Path) -> Path:
    """The figure as a PNG, written as every output is (:class:`~neardup.out.write.AtomicFile`):
    whole or not at all, a folder or an unwritable place said by name, not a traceback."""
    out = Path(out)
    try:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"{out}: cannot be written: {exc.strerror or exc}") from None
        with AtomicFile(out) as fh:
            fig.savefig(fh, format="png", dpi=120, bbox_inches="tight")
    finally:
        _pyplot().close(fig)
    return out


# -- S-curve ----------------------------------------------------------------------------------


def plot_s_curve(
    bands: int, rows: int, threshold: float, out: Path, num_perm: int | None = None
) -> Path:
    """Draw P(candidate) = 1 - (1 - s^r)^b, to show how much recall the banding keeps at the
    threshold. With ``num_perm``, the datasketch-style balanced (b, r) of
    :func:`~neardup.sign.banding.optimal_bands` is drawn faintly for comparison."""
    plt = _pyplot()
    s = np.linspace(0.0, 1.0, 501)
    p_at = float(s_curve(threshold, bands, rows))
    fig, ax = plt.subplots(figsize=(7, 4.8))
    used = f" ({bands * rows} of {num_perm} permutations)" if num_perm else ""
    ax.plot(s, s_curve(s, bands, rows), color="C0", lw=2.2, label=f"{bands} x {rows}{used}")
    if num_perm and 0.0 < threshold < 1.0:
        ob, orow = optimal_bands(num_perm, threshold)
        if (ob, orow) != (bands, rows):
            p_opt = float(s_curve(threshold, ob, orow))
            ax.plot(
                s,
                s_curve(s, ob, orow),
                color="C1",
                lw=1.5,
                alpha=0.55,
                ls="--",
                label=f"datasketch-style balanced FP/FN\n{ob} x {orow}: "
                f"P = {p_opt:.3f} at J = {threshold:g}",
            )
            ax.plot([threshold], [p_opt], "o", color="C1", alpha=0.55, ms=5)
    ax.axvline(threshold, color="0.35", ls=":", lw=1.2, label=f"threshold J = {threshold:g}")
    ax.axhline(p_at, color="C3", ls="--", lw=0.9, alpha=0.7)
    ax.plot([threshold], [p_at], "o", color="C3", ms=6)
    # Put the annotation on the side of the threshold with more room.
    right = threshold < 0.6
    ax.annotate(
        f"P = {p_at:.3f} at J = {threshold:g}",
        xy=(threshold, p_at),
        xytext=(threshold + 0.08 if right else threshold - 0.08, p_at - 0.22),
        ha="left" if right else "right",
        fontsize=10,
        color="C3",
        arrowprops={
            "arrowstyle": "->",
            "color": "C3",
            "lw": 0.9,
            "relpos": (0.0 if right else 1.0, 0.5),
        },
        bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85},
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.04)
    ax.set_xlabel("Jaccard similarity J of a pair")
    ax.set_ylabel("P(pair becomes an LSH candidate)")
    ax.set_title(f"LSH S-curve: b x r = {bands} x {rows}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8.5, framealpha=0.95)
    return _save(fig, out)


# -- bands x rows sweep -----------------------------------------------------------------------


def _prepared(texts: Mapping[str, str], cfg: Params) -> tuple[list[str], list[Any]]:
    """(ids, shingle sets) of the records that have shingles.

    Records without shingles are left out, as :func:`~neardup.candidates.bruteforce.all_pairs` never
    reports them (their MinHash signatures would all collide).
    """
    proc = cfg.processor()
    ids, sets = [], []
    for rid, text in texts.items():
        sh = proc.shingle_set(text)
        if sh:
            ids.append(rid)
            sets.append(sh)
    return ids, sets


def _cell(
    cfg: Params, bands: int, rows: int, texts: Mapping[str, str], ids: list[str], threshold: float
) -> tuple[set[tuple[str, str]], int, float]:
    """(verified pairs, candidates, seconds) of one (b, r): an in-memory :class:`NearDupIndex`
    with ``b * r`` permutations, all its pairs verified and none pruned."""
    sub = cfg.replace(num_perm=bands * rows, bands=bands, rows=rows, threshold=threshold)
    start = time.perf_counter()
    index = NearDupIndex(sub)
    index.add_many((rid, texts[rid]) for rid in ids)
    report = index.report(prune="none")
    found = {(p.id1, p.id2) for p in report.pairs}
    return found, report.candidates, time.perf_counter() - start


def sweep(
    texts: Mapping[str, str],
    cfg: Params,
    bands_list: Iterable[int] = DEFAULT_BANDS,
    rows_list: Iterable[int] = DEFAULT_ROWS,
    threshold: float | None = None,
) -> dict[str, Any]:
    """Recall, candidates and time of LSH + exact verification for every (bands, rows).

    Seed 002's experiment, in memory: the truth is the exact all-pairs join at ``threshold``
    (default ``cfg.threshold``); each cell uses ``b * r`` permutations of ``cfg``'s shingling.
    The time covers a whole in-memory index: preparing and shingling the texts, signatures,
    band keys, bucketing and verification. Cells with ``b * r`` above
    :data:`MAX_NUM_PERM` are listed in ``"skipped"``. Recall is 1.0 when there is no true pair.
    """
    t = cfg.threshold if threshold is None else float(threshold)
    bands_l, rows_l = list(bands_list), list(rows_list)
    ids, sets = _prepared(texts, cfg)
    truth_pairs = bruteforce.all_pairs(dict(zip(ids, sets, strict=True)), t)
    truth = {ordered(a, b) for a, b, _ in truth_pairs}
    cells: list[dict[str, Any]] = []
    skipped: list[tuple[int, int]] = []
    for b in bands_l:
        for r in rows_l:
            if b * r > MAX_NUM_PERM:
                skipped.append((b, r))
                continue
            found, n_cand, seconds = _cell(cfg, b, r, texts, ids, t)
            hit = len(found & truth)
            cells.append(
                {
                    "bands": b,
                    "rows": r,
                    "num_perm": b * r,
                    "candidates": n_cand,
                    "found": len(found),
                    "recall": hit / len(truth) if truth else 1.0,
                    "p_at_threshold": float(s_curve(t, b, r)),
                    "seconds": seconds,
                }
            )
    return {
        "bands": bands_l,
        "rows": rows_l,
        "threshold": t,
        "records": len(ids),
        "truth": len(truth),
        "shingling": f"{cfg.shingle_kind} {cfg.shingle_size}-grams, {cfg.hash_family} hashing",
        "cells": cells,
        "skipped": skipped,
    }


def _grid(result: Mapping[str, Any], key: str) -> np.ndarray:
    bands, rows = result["bands"], result["rows"]
    grid = np.full((len(bands), len(rows)), np.nan)
    for c in result["cells"]:
        grid[bands.index(c["bands"]), rows.index(c["rows"])] = c[key]
    return grid


def _fmt_count(n: float) -> str:
    return f"{n / 1000:.0f}k" if n >= 10_000 else f"{n / 1000:.1f}k" if n >= 1000 else f"{n:.0f}"


def plot_sweep(result: Mapping[str, Any], out: Path) -> Path:
    """Heatmaps of recall and seconds over bands x rows, to show the recall/cost trade-off:
    more rows per band cut candidates (and time) but lose recall near the threshold."""
    plt = _pyplot()
    bands, rows = result["bands"], result["rows"]
    recall, seconds, cands = (_grid(result, k) for k in ("recall", "seconds", "candidates"))
    slowest = float(np.nanmax(seconds)) if np.isfinite(seconds).any() else 1.0
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.55 * len(bands) + 3.2))
    panels = (
        (axes[0], recall, "viridis", "recall", (0.0, 1.0)),
        (axes[1], seconds, "magma_r", "seconds", (0.0, slowest)),
    )
    for ax, grid, cmap, name, (lo, hi) in panels:
        masked = np.ma.masked_invalid(grid)
        cm = plt.get_cmap(cmap).with_extremes(bad="0.88")
        im = ax.imshow(masked, cmap=cm, vmin=lo, vmax=hi, aspect="auto", origin="lower")
        fig.colorbar(im, ax=ax, shrink=0.9, label=name)
        ax.set_xticks(range(len(rows)), [str(r) for r in rows])
        ax.set_yticks(range(len(bands)), [str(b) for b in bands])
        ax.set_xlabel("rows per band (r)")
        ax.set_ylabel("bands (b)")
        for i, j in itertools.product(range(len(bands)), range(len(rows))):
            v = grid[i, j]
            if np.isnan(v):
                ax.text(j, i, "skipped", ha="center", va="center", fontsize=8, color="0.4")
                continue
            frac = (v - lo) / (hi - lo) if hi > lo else 0.0
            dark = frac < 0.55 if name == "recall" else frac > 0.45
            color = "white" if dark else "black"
            if name == "recall":
                label = f"{v:.3f}"
            else:
                label = f"{v:.2f}s\n{_fmt_count(cands[i, j])} cand"
            ax.text(j, i, label, ha="center", va="center", fontsize=8.5, color=color)
    axes[0].set_title(f"recall vs exact Jaccard >= {result['threshold']:g}")
    axes[1].set_title("wall time: signatures + buckets + verification")
    fig.suptitle(
        f"bands x rows sweep ({result['shingling']}; {result['records']} records, "
        f"{result['truth']} true pairs)",
        fontsize=11,
    )
    fig.tight_layout()
    return _save(fig, out)


# -- verification threshold -------------------------------------------------------------------


def threshold_curve(
    texts: Mapping[str, str],
    gold_pairs: Iterable[tuple[str, str]],
    cfg: Params,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
) -> list[dict[str, Any]]:
    """Precision, recall and F1 against gold of the exact join at each verification threshold.

    This is the best any LSH banding can do at that threshold (LSH only loses pairs), so it
    shows whether the configured threshold sits where the gold wants it. ``cfg.threshold`` is
    always included and flagged ``"default": True``.
    """
    gold = list(gold_pairs)
    proc = cfg.processor()
    sets = {rid: proc.shingle_set(text) for rid, text in texts.items()}
    ts = sorted({round(float(t), 6) for t in thresholds} | {cfg.threshold})
    curve = []
    for t in ts:
        pairs = bruteforce.all_pairs(sets, t)
        s = score([(a, b) for a, b, _ in pairs], gold)
        curve.append(
            {
                "threshold": t,
                "pairs": s.pairs,
                "true_pairs": s.true_pairs,
                "gold": s.gold,
                "precision": s.precision,
                "recall": s.recall,
                "f1": s.f1,
                "default": t == cfg.threshold,
            }
        )
    return curve


def plot_threshold(curve: Sequence[Mapping[str, Any]], out: Path) -> Path:
    """Precision, recall and F1 against the verification threshold, with the configured
    threshold and the best-F1 threshold marked, to justify (or question) the default."""
    plt = _pyplot()
    t = [c["threshold"] for c in curve]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for key, color, marker in (("precision", "C0", "s"), ("recall", "C2", "^"), ("f1", "C3", "o")):
        ax.plot(
            t,
            [c[key] for c in curve],
            color=color,
            marker=marker,
            ms=4,
            lw=1.8,
            label=key if key != "f1" else "F1",
        )
    best = max(curve, key=lambda c: (c["f1"], -c["threshold"]))
    ax.axvline(
        best["threshold"],
        color="C3",
        ls=":",
        lw=1,
        alpha=0.6,
        label=f"best F1 {best['f1']:.3f} at J >= {best['threshold']:g}",
    )
    default = next((c for c in curve if c.get("default")), None)
    if default is not None:
        ax.axvline(
            default["threshold"],
            color="0.2",
            ls="--",
            lw=1.2,
            label=f"configured J >= {default['threshold']:g}: P {default['precision']:.3f}"
            f", R {default['recall']:.3f}, F1 {default['f1']:.3f}",
        )
    gold = curve[0]["gold"] if curve else 0
    ax.set_xlabel("verification threshold (exact Jaccard of shingle sets)")
    ax.set_ylabel("score against gold pairs")
    ax.set_ylim(-0.02, 1.04)
    ax.set_title(f"Verification threshold vs {gold} gold pairs")
    ax.grid(alpha=0.3)
    # Below the axes: inside, it would hide the low-threshold end of precision and F1.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8.5)
    return _save(fig, out)


# -- the bundled data -------------------------------------------------------------------------


def restaurant_plots(out_dir: Path, cfg: Params | None = None) -> list[Path]:
    """``s_curve.png``, ``sweep.png`` and ``threshold.png`` of the bundled restaurant records,
    so the README's choice of defaults can be checked by eye."""
    cfg = cfg or Params()
    out_dir = Path(out_dir)
    records_path, gold_path = restaurants()
    texts = {item.id: item.text for item in read_records(records_path) if isinstance(item, Record)}
    gold = read_pairs(gold_path)
    return [
        plot_s_curve(cfg.bands, cfg.rows, cfg.threshold, out_dir / "s_curve.png", cfg.num_perm),
        plot_sweep(sweep(texts, cfg), out_dir / "sweep.png"),
        plot_threshold(threshold_curve(texts, gold, cfg), out_dir / "threshold.png"),
    ]
