"""Which rule decides a report, with the options it cannot honour refused, and the two cuts
every Jaccard report makes: link mode's pairs across sources, and the edit-distance cap.

Why here: the report (:meth:`neardup.index.NearDupIndex.report`) asks this module which rule
decides and runs it; it weighs nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..candidates.buckets import Candidates
from ..candidates.verify import used_codes
from ..constraints import IN_PROCESS
from ..errors import ArgumentError
from ..results import Pair

#: The rule a reviewer's labels teach (:mod:`neardup.decision.labelled`).
LABELLED = "labelled"
#: The weighted link (:mod:`neardup.decision.link`).
WEIGHTED = "weighted"


class Asked(Protocol):
    """What the routing reads of a report's options (:class:`neardup.options.ReportOptions`):
    the decision package names what it needs rather than importing the options, which sit
    above it (they check the engines of :mod:`neardup.plan`, which runs the rules)."""

    @property
    def mode(self) -> str: ...
    @property
    def similarity(self) -> str: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def complete(self) -> bool | None: ...
    @property
    def since(self) -> int | None: ...
    @property
    def engine(self) -> Any: ...
    @property
    def prune(self) -> str | None: ...
    @property
    def pruning(self) -> str: ...
    @property
    def numbers_check(self) -> bool: ...


@dataclass(frozen=True)
class Route:
    """The rule that decides a report: ``labelled``, ``weighted``, or a Jaccard rule
    (``threshold``, ``valley``, ``learned``: :func:`neardup.decision.decide.rule_for`) at
    ``threshold``; ``complete``: whether its clusters are completed."""

    rule: str
    threshold: float
    complete: bool = False

    @property
    def jaccard(self) -> bool:
        """Whether a Jaccard rule decides (the report verifies LSH candidates first)."""
        return self.rule not in (LABELLED, WEIGHTED)


def weighs(options: Asked, from_data: bool) -> bool:
    """Whether the weighted similarity decides: asked for, or ``auto`` for a link report (the
    full one or that of new records) of an index whose parameters were chosen from the data
    (``from_data``) and no threshold given."""
    return options.similarity == "weighted" or (
        options.similarity == "auto" and options.mode == "link" and options.threshold is None
        and from_data
    )  # fmt: skip


def completes(options: Asked, rule: str) -> bool:
    """Whether clusters are completed: as asked, else where a rule read off the data (``rule``
    is not ``threshold``) decides the full dedup report without pruning."""
    if options.complete is not None:
        return options.complete
    return (
        options.mode == "dedup" and options.pruning == "none" and options.since is None
        and rule not in ("threshold", "documents")
    )  # fmt: skip


def _in_process_only(options: Asked, instead: str) -> None:
    """Refuses an engine of :mod:`neardup.plan` for a rule that runs in this process only (the
    labelled and the weighted rules): the engines run the Jaccard report, and a report asked
    of one is not made elsewhere without a word. ``instead``: what the user may do."""
    if options.engine not in IN_PROCESS:
        raise ArgumentError(
            f"the {getattr(options.engine, 'name', options.engine)} engine runs the "
            f"Jaccard report: {instead}, or use the memory engine"
        )


def route(
    options: Asked, rule: str, threshold: float, from_data: bool, labelled: bool
) -> Route:
    """The rule that decides a report with ``options`` in an index whose rule is ``rule`` at
    ``threshold`` (its parameters chosen ``from_data`` or not), ``labelled`` by a reviewer or
    not; options that rule cannot honour are refused (:class:`~neardup.errors.ArgumentError`)."""
    if labelled:
        if options.mode != "link" or options.since is not None or options.threshold:
            raise ArgumentError(
                "labels teach the link's rule: they need mode link and the full report "
                "(no since, no threshold)"
            )
        unheeded = [
            said for said, given in (
                (f"prune {options.pruning!r}", options.pruning != "one-to-one"),
                ("similarity 'jaccard'", options.similarity == "jaccard"),
                ("the numbers check off", not options.numbers_check),
                ("complete", bool(options.complete)),
            ) if given
        ]  # fmt: skip
        if unheeded:  # accepted and then ignored, before
            raise ArgumentError(
                "labels teach the link's rule, which weighs every piece of evidence the labels "
                "weigh (numbers too) and keeps one partner each: "
                f"{', '.join(unheeded)} cannot be given with labels"
            )
        _in_process_only(
            options, "labels (--labels) teach a rule that runs in this process; leave them out "
            "to report by Jaccard"
        )  # fmt: skip
        return Route(LABELLED, 0.5)
    if weighs(options, from_data):
        _in_process_only(
            options, "add similarity='jaccard' (--similarity jaccard) to link by Jaccard"
        )
        one_each = options.pruning == "one-to-one" or (
            options.mode == "dedup" and options.prune is None
        )  # a weighted dedup keeps one partner each in all: its own pruning
        if not one_each or options.complete:
            raise ArgumentError(
                "the weighted similarity keeps one partner each (prune one-to-one) and adds no "
                f"pairs; prune {options.pruning!r}"
                f"{' and complete' if options.complete else ''} needs the Jaccard rule: "
                "give a threshold (--threshold), or similarity='jaccard' (report --similarity "
                "jaccard; review and dedupe have no such flag)"
            )
        return Route(WEIGHTED, 0.0)
    name = rule if options.threshold is None else "threshold"
    bar = threshold if options.threshold is None else options.threshold
    return Route(name, bar, completes(options, name))


def across_sources(
    cands: Candidates, read_sources: Callable[[list[str]], Mapping[str, str]]
) -> dict[str, str]:
    """Link mode: only the candidates whose records come from different sources stay in
    ``cands``; the sources of the records in a candidate, by id (what pruning one-to-one reads
    next)."""
    used = used_codes(cands)
    sources = dict(read_sources([cands.ids[k] for k in used.tolist()]))
    names: dict[str | None, int] = {None: -1}
    src = np.full(len(cands.ids), -1, dtype=np.int64)
    src[used] = [names.setdefault(sources.get(cands.ids[k]), len(names)) for k in used]
    cands.only(src[cands.first] != src[cands.second])
    return sources


def within_distance(pairs: list[Pair], max_dist: int | None) -> list[Pair]:
    """The pairs whose word edit distance is at most ``max_dist`` (None: all)."""
    if max_dist is None:
        return pairs
    return [p for p in pairs if p.edit_distance <= max_dist]
