"""The options of a report as one object, checked in one place.

Why: :meth:`NearDupIndex.report <neardup.index.NearDupIndex.report>` takes nine options
(threshold, mode, pruning, ...) that the CLI, the dedupe and review commands and the library
all pass; as one frozen :class:`ReportOptions` they are checked once, when it is made, and
handed on whole instead of as long lists of positional arguments. ``None`` (and ``"auto"`` for
the similarity) means the data or the index decides: :func:`neardup.decision.route.route`
says what it decides.

>>> ReportOptions(mode="link").pruning
'one-to-one'
>>> ReportOptions(mode="other")
Traceback (most recent call last):
...
neardup.errors.ArgumentError: mode must be one of dedup, link, got 'other'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .candidates.buckets import DEFAULT_CAP, DEFAULT_MAX_BUCKET, check_max_bucket
from .constraints import MODES, SIMILARITIES, InstanceOf, check, check_all, declared
from .decision.column_map import parse_given
from .decision.prune import DEFAULT_PRUNE
from .errors import ArgumentError
from .plan import IN_PROCESS, DuckDB, Spark, budget_of

__all__ = ["MODES", "SIMILARITIES", "ReportOptions"]


@dataclass(frozen=True)
class ReportOptions:
    """What a report is asked for (the keywords of :meth:`NearDupIndex.report
    <neardup.index.NearDupIndex.report>`), each explained here, where it is checked when made.
    Which rule decides with them: :func:`neardup.decision.route.route`."""

    #: A fixed Jaccard bar (None: the index's rule decides: ``valley`` reads its bar off the
    #: records' nearest-neighbour similarities, :mod:`neardup.decision.valley`; ``learned``
    #: fits its match rule to the candidates, :mod:`neardup.decision.fellegi_sunter`).
    threshold: float | None = None
    #: ``dedup`` pairs any two records; ``link`` only records of different sources.
    mode: str = "dedup"
    #: The pruning of the pairs kept (:data:`neardup.decision.prune.PRUNE_MODES`; None: none in
    #: dedup, one-to-one in link).
    prune: str | None = None
    #: The most word edit distance a pair may have (None: any).
    max_dist: int | None = None
    #: Progress bars on standard error.
    progress: bool = False
    #: A batch number (``NearDupIndex.batch_written``, ``last_batch()``): only the pairs of
    #: the records written by that batch or later, at a cost that follows their number.
    since: int | None = None
    #: Members of a bucket larger than this become candidates only where they share another
    #: band too (:mod:`neardup.candidates.buckets`; None pairs every bucket in full).
    max_bucket: int | None = DEFAULT_MAX_BUCKET
    #: Add the missing pairs of clusters whose pairs are nearly all verified
    #: (:mod:`neardup.decision.completion`); None: where a rule read off the data decides the full
    #: dedup report without pruning.
    complete: bool | None = None
    #: What decides: ``jaccard`` (the shingle sets' Jaccard through the LSH bands and the
    #: rule), ``weighted`` (TF-IDF cosine, one partner each, the relative rule of
    #: :mod:`neardup.decision.link`; in dedup mode any two records, for a collection whose
    #: duplicates come one to a record) or ``auto``: weighted for the full link report of an
    #: index whose parameters were chosen from the data, with no threshold, else jaccard.
    similarity: str = "auto"
    #: A record with more candidates keeps the ``cap`` that share the most bands
    #: (:func:`neardup.candidates.buckets.cap_per_record`; None: no cap).
    cap: int | None = DEFAULT_CAP
    #: Whether pairs whose records hold different numbers may be dropped (where the data's
    #: numbers identify records: :mod:`neardup.decision.identifiers`); False keeps them.
    numbers_check: bool = True
    #: Column pairs of two sources the user says are one (``{"title": "product_name"}``);
    #: the others are matched by name and content (:mod:`neardup.decision.column_map`).
    #: Given as a mapping, ``"a=b,c=d"`` or a list of ``"a=b"``; kept as pairs.
    columns: Mapping[str, str] | str | tuple[tuple[str, str], ...] | None = None
    #: Where the report runs (:data:`neardup.plan.ENGINES`): ``"auto"`` in this process while
    #: the memory budget holds it, else on DuckDB (:mod:`neardup.plan.budget`); ``"memory"``
    #: in this process; ``"duckdb"`` or ``"spark"`` as the plan of :mod:`neardup.plan`, or a
    #: :class:`neardup.plan.DuckDB` or :class:`neardup.plan.Spark` with its settings (memory
    #: limit, temporary directory; Spark's master).
    engine: Any = "auto"
    #: The memory the report may take (``"12GB"``, ``"500MB"`` or bytes; None: half the
    #: machine): what decides the ``auto`` engine, and the engines' own limit.
    memory: str | int | None = None
    #: Whether the weighted link may drop two short records that each hold a word the other
    #: lacks (:mod:`neardup.decision.names`); False keeps them (nicknames: "Dick", "Richard").
    names_check: bool = True

    def __post_init__(self) -> None:
        check_all("ReportOptions", {f.name: getattr(self, f.name) for f in fields(self)
                                    if f.name != "engine"})  # fmt: skip
        engine = declared("ReportOptions")["engine"]
        check("engine", self.engine, *engine.constraints, InstanceOf((DuckDB, Spark), "an engine"))
        if self.columns is not None:
            given = self.columns
            if isinstance(given, tuple) and all(isinstance(g, tuple) for g in given):
                given = dict(given)
            object.__setattr__(self, "columns", tuple(parse_given(given).items()))
        object.__setattr__(self, "max_bucket", check_max_bucket(self.max_bucket))
        if self.complete and (
            self.mode != "dedup" or self.pruning != "none" or self.since is not None
        ):
            raise ArgumentError(
                "complete adds the pairs of clusters: it needs mode dedup, prune none and the "
                "full report (no since)"
            )
        if self.memory is not None:
            budget_of(self.memory)  # a size, checked now
        if self.engine not in IN_PROCESS and self.since is not None:
            raise ArgumentError(
                f"the {getattr(self.engine, 'name', self.engine)} engine makes the full report: "
                "a report of new records (since, --new) runs in memory"
            )

    @property
    def pruning(self) -> str:
        """The pruning asked for, else the mode's (:data:`neardup.decision.prune.DEFAULT_PRUNE`)."""
        return DEFAULT_PRUNE[self.mode] if self.prune is None else self.prune
