"""How much memory a report may take, and the engine that keeps it within that.

The in-process report holds every record's signature, band keys, texts and candidates at once:
past what the machine's memory holds it would be killed by the system, after running for a
long time, with no word of why. So a report has a memory budget (``memory``: ``"12GB"``, a
number of bytes, or by default a share of the machine), and with the engine ``auto`` (the
default) it runs where the budget holds it: in this process while its estimated peak fits,
else as the plan on DuckDB with the budget as DuckDB's memory limit, spilling to disk past it.
The estimate is what the in-process report was measured to hold per record and per byte of
text (docs/scale.md); it errs on the large side, since a wrong "fits" is the costly mistake.
The candidate pairs are added to it once the band buckets are known, before any pair is
formed (:func:`candidates_fit`): records that are all alike make thousands each.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import ArgumentError
from .duck import DuckDB
from .spark import Spark

#: The share of the machine's memory a report may take when no budget is given: a quarter, as
#: the local Solr node's heap is (``neardup.solr.local.default_heap``), so that the two and the
#: system's file cache, which Solr's reads lean on, share the machine.
DEFAULT_SHARE = 0.25
#: What the in-process report holds per record beyond its text (signature, band keys, codes,
#: candidates of a record with copies), and per byte of its text (the text, its normalized
#: form and its shingle hashes), in bytes.
PER_RECORD = 4_000
PER_TEXT_BYTE = 4
#: What finding the candidates in process holds at its peak per pair the band buckets make
#: before the per-record cap cuts them (their keys, the cap's arrays over them), in bytes:
#: measured 61 at 10k records of 8-15 words from a 10-word vocabulary (19M such pairs, 1.2 GB).
PER_CANDIDATE = 64
#: Candidate pairs a record that :data:`PER_RECORD` already holds room for: 1M short records of
#: real words made 19M (a peak of 2 GB against the 4.3 GB estimated), so only the pairs past
#: this many a record are added, and such reports keep their place on a smaller machine.
PER_RECORD_CANDIDATES = 20
#: The share of the budget DuckDB's own memory limit gets; the rest is this process's (the
#: records read in batches, the verified pairs, the decision).
ENGINE_SHARE = 0.75
#: How many records the mean text size is read off.
SAMPLE = 2_000
#: A budget below this is refused: no engine runs in less.
LEAST = 256 << 20
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20,
          "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}  # fmt: skip
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_size(value: str | int) -> int:
    """Bytes from ``"12GB"``, ``"500MB"``, ``"1.5g"`` or a number of bytes."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ArgumentError(f"a memory budget is a size such as '8GB', got {value!r}")
    if isinstance(value, int):
        size = value
    else:
        found = _SIZE.match(value)
        unit = found.group(2).lower() if found else None
        if found is None or unit not in _UNITS:
            raise ArgumentError(
                f"a memory budget is a size such as '8GB' or '500MB', got {value!r}"
            )
        size = int(float(found.group(1)) * _UNITS[unit])
    if size < LEAST:
        shown = f"{value!r} ({size_text(size)})" if isinstance(value, str) else size_text(size)
        raise ArgumentError(
            f"a memory budget of {shown} is too small: give at least {size_text(LEAST)} (a "
            "number alone is bytes: say '8GB')"
        )
    total = machine_memory()
    if total is not None and size > total:  # spilling could not keep within it: said now
        raise ArgumentError(
            f"a memory budget of {size_text(size)} is more than this machine's "
            f"{size_text(total)}: give at most that (the work spills to disk past the budget)"
        )
    return size


def size_text(size: int) -> str:
    """A size as people read it: ``12.0 GB``, ``512 MB``."""
    if size >= 1 << 40:
        return f"{size / (1 << 40):.1f} TB"
    if size >= 1 << 30:
        return f"{size / (1 << 30):.1f} GB"
    return f"{size / (1 << 20):.0f} MB"


def machine_memory() -> int | None:
    """The machine's physical memory in bytes, where the system says (None where not)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


def budget_of(memory: str | int | None) -> int:
    """The budget given, else :data:`DEFAULT_SHARE` of the machine (8 GB where the machine's
    memory is unknown)."""
    if memory is not None:
        return parse_size(memory)
    total = machine_memory()
    return max(LEAST, int((total if total else 16 << 30) * DEFAULT_SHARE))


def mean_text_bytes(texts: Iterable[str]) -> float:
    """The mean UTF-8 size of ``texts`` (0 if none): what the estimate needs, read off a few
    records (:data:`SAMPLE`) rather than all of them."""
    sizes = [len(text.encode("utf-8")) for text in texts]
    return sum(sizes) / len(sizes) if sizes else 0.0


def in_process_peak(records: int, mean_text_bytes: float) -> int:
    """The estimated peak memory of the in-process report of ``records`` records."""
    return int(records * (PER_RECORD + PER_TEXT_BYTE * mean_text_bytes))


@dataclass(frozen=True)
class Placement:
    """Where a report runs (``"memory"``, or a plan engine) and why, in words."""

    engine: Any
    why: str
    #: Where ``auto`` chose this process: the budget, and the estimate it was chosen by, which
    #: the candidates are added to when known (:func:`candidates_fit`); else None.
    budget: int | None = None
    peak: int = 0

    @property
    def name(self) -> str:
        return str(getattr(self.engine, "name", self.engine))


def place(engine: Any, records: int, mean_text_bytes: float, memory: str | int | None) -> Placement:
    """Where a report of ``records`` records (``mean_text_bytes`` of text each) runs under the
    budget ``memory`` (None: :func:`budget_of`'s share of the machine).

    ``auto``: this process while the estimated peak fits the budget, else DuckDB. ``memory``
    asked for whose estimate is over a budget the user gave is refused, naming both and what
    to do. DuckDB and Spark get the budget as their memory limit where none is set."""
    budget = budget_of(memory)
    peak = in_process_peak(records, mean_text_bytes)
    said = (
        f"the in-process report of {records:,} records needs about {size_text(peak)}, "
        f"{'within' if peak <= budget else 'over'} the memory budget of {size_text(budget)}"
    )
    if engine == "auto":
        if peak <= budget:
            return Placement("memory", said, budget, peak)
        return Placement(_duckdb(budget), said + ON_DUCKDB)
    if engine == "memory":
        if memory is not None and peak > budget:
            raise ArgumentError(
                f"{said} (--memory): raise the budget, or let the report run on DuckDB, "
                "which spills to disk past it (engine auto or duckdb, --engine duckdb)"
            )
        return Placement("memory", "as asked")
    said = "as asked"
    limit = _limit_mb(budget)
    if engine == "duckdb":
        return Placement(_duckdb(budget), said)
    if engine == "spark":
        return Placement(Spark(memory=f"{limit}m" if memory is not None else None), said)
    if isinstance(engine, DuckDB) and engine.memory_limit is None and memory is not None:
        return Placement(dataclasses.replace(engine, memory_limit=f"{limit}MB"), said)
    if isinstance(engine, Spark) and engine.memory is None and memory is not None:
        return Placement(dataclasses.replace(engine, memory=f"{limit}m"), said)
    return Placement(engine, said)


#: Said where ``auto`` moves a report to DuckDB.
ON_DUCKDB = ": it runs on DuckDB, which spills to disk past the budget"


def _limit_mb(budget: int) -> int:
    """A plan engine's memory limit under ``budget``: its :data:`ENGINE_SHARE`, in MB."""
    return max(LEAST, int(budget * ENGINE_SHARE)) >> 20


def _duckdb(budget: int) -> DuckDB:
    """DuckDB with its share of ``budget`` as its memory limit."""
    return DuckDB(memory_limit=f"{_limit_mb(budget)}MB")


class Moved(Exception):
    """The in-process report stopped before forming its candidates, for they would not fit its
    budget (:func:`candidates_fit`): :attr:`placement` says where it runs instead, and why."""

    def __init__(self, placement: Placement) -> None:
        super().__init__(placement.why)
        self.placement = placement


def candidates_fit(
    placed: Placement, records: int, bound: int, estimate: Callable[[], int]
) -> None:
    """Whether the in-process report ``placed`` (by ``auto``) still fits its budget with the
    candidate pairs its band buckets make (:data:`PER_CANDIDATE` each): ``bound``, at most how
    many (:func:`neardup.candidates.estimate.bound`), where it fits, else ``estimate()``, a
    nearer count drawn from a sample (:func:`neardup.candidates.estimate.estimated`). Raises
    :class:`Moved` to DuckDB where they do not fit. Why: 10k records all alike (8-15 words of
    a 10-word vocabulary) held 1.2 GB of candidates where 4 KB a record was estimated, so
    ``auto`` never left this process; 50k would have needed about 6.5 GB."""
    allowed = PER_RECORD_CANDIDATES * records
    if placed.budget is None or placed.peak + (bound - allowed) * PER_CANDIDATE <= placed.budget:
        return
    pairs = estimate()
    peak = placed.peak + max(0, pairs - allowed) * PER_CANDIDATE
    if peak <= placed.budget:
        return
    said = (
        f"the in-process report of {records:,} records makes about {pairs:,} candidate pairs "
        f"and needs about {size_text(peak)}, over the memory budget of "
        f"{size_text(placed.budget)}"
    )
    raise Moved(Placement(_duckdb(placed.budget), said + ON_DUCKDB))


#: What the memory backend holds per record beside its text (its dictionaries, signature and
#: shingle hashes), and per byte of its text (the text and its id), in bytes.
STORED_PER_RECORD = 1_300
STORED_PER_TEXT_BYTE = 1.1


def held_in_memory(records: int, mean_text_bytes: float) -> int:
    """The estimated memory of ``records`` records held by the memory backend."""
    return int(records * (STORED_PER_RECORD + STORED_PER_TEXT_BYTE * mean_text_bytes))


def storage_fits(
    records: int, mean_text_bytes: float, memory: str | int | None = None
) -> tuple[bool, str]:
    """Whether ``records`` records can be held in this process (the memory backend) with room
    for their report, under the budget ``memory``, and why in words: the records held plus the
    report's share (its in-process peak, or the plan engine's share of the budget where that
    is less) must fit. Else a DuckDB file keeps them on disk
    (:class:`~neardup.backends.duckdb_file.DuckDBBackend`)."""
    budget = budget_of(memory)
    held = held_in_memory(records, mean_text_bytes)
    report = min(in_process_peak(records, mean_text_bytes), int(budget * ENGINE_SHARE))
    fits = held + report <= budget
    return fits, (
        f"{records:,} records need about {size_text(held)} held in this process and "
        f"{size_text(report)} for their report, {'within' if fits else 'over'} the memory "
        f"budget of {size_text(budget)}"
    )
