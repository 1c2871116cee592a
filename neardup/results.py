"""What neardup answers with: a :class:`Pair` of near-duplicates, a :class:`Match` for a
query, and the :class:`Report` of an all-pairs run."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .defaults import DEFAULTS


@dataclass(frozen=True, slots=True)
class Pair:
    """Two records that are near-duplicates: ``id1`` sorts before ``id2`` (numbers as numbers),
    ``jaccard`` is the exact similarity of their shingle sets and ``edit_distance`` the number
    of word insertions, deletions and substitutions between their normalized texts."""

    id1: str
    id2: str
    jaccard: float
    edit_distance: int
    #: The learned rule's chance that the pair is a match (None under a fixed threshold).
    probability: float | None = None
    #: The weighted similarity that decided the pair: the TF-IDF cosine where the weighted
    #: link decided (:mod:`neardup.decision.weights`), the rarity-weighted Jaccard where the valley
    #: was read on it (:mod:`neardup.decision.valley`); None where plain Jaccard did.
    similarity: float | None = None
    #: The sources of ``id1`` and ``id2`` (link mode, or a pair with a record of a secondary
    #: source: two files may both hold an id 7); None otherwise.
    source1: str | None = None
    source2: str | None = None
    #: Why ``NearDupIndex.ask`` asked about the pair: ``"to teach"`` (the rule is unsure of
    #: it) or ``"at random"`` (drawn from the pairs the rule keeps, to check it); None elsewhere.
    asked: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.asked is None:  # only the pairs asked say why
            del out["asked"]
        return out


@dataclass(frozen=True)
class Match:
    """A record similar to a query (a text or another record), with its verified similarity
    and how many LSH bands it shares with the query."""

    id: str
    text: str
    jaccard: float
    edit_distance: int
    shared_bands: int
    #: The record's source where another than the index's primary one is in play (a match of
    #: one, or the record asked about is of one: then every match names its own, as a
    #: report's pairs do); None where only the primary is (:mod:`neardup.keys`).
    source: str | None = None
    #: The share of a short query's shingles the record holds (NearDupIndex.search); None for
    #: a query scored by Jaccard.
    containment: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Decision:
    """How a report's pairs were decided, in one shape whatever the rule
    (:class:`neardup.decision.decide.Rule`): ``report``, the review page and ``--json`` all print
    this.

    ``rule`` is ``threshold``, ``valley``, ``learned`` or ``weighted``; ``threshold`` the
    similarity from which pairs are kept; ``precision`` and ``recall`` the rule's own estimates
    where it makes them (the learned rule), else None; ``explain`` what the rule found, as
    ``--json`` prints it under ``rule`` (None for a fixed threshold without checks).
    """

    rule: str
    threshold: float
    precision: float | None = None
    recall: float | None = None
    explain: dict[str, Any] | None = None
    #: The pairs a check dropped after the rule kept them, by the check's name (``numbers``,
    #: ``columns``): what a user reads to see what the checks cost.
    dropped: dict[str, list[Pair]] = field(default_factory=dict, compare=False)
    #: The pairs ``(id1, id2)`` added because they stand out by weighted similarity (their
    #: ``similarity`` a TF-IDF cosine, whatever the rule's own measure): each pair's reason
    #: says so (:func:`neardup.decision.decide.jaccard_reason`).
    stood_out: frozenset[tuple[str, str]] = field(default_factory=frozenset, compare=False)

    @classmethod
    def read(cls, threshold: float, explain: dict[str, Any] | None) -> Decision:
        """The decision a report's ``threshold`` and ``rule`` (``explain``) describe, which is
        the one the rule returned: what lets a report made by hand print like any other."""
        if not explain:
            return cls("threshold", threshold)
        kind = explain.get("kind", "")
        if kind.startswith("learned"):
            precision, recall = explain["estimated_precision"], explain["estimated_recall"]
            return cls("learned", threshold, precision, recall, explain)
        if kind == "labelled":
            precision, recall = explain["estimated_precision"], explain["estimated_recall"]
            return cls("labelled", threshold, precision, recall, explain)
        name = "valley" if kind.startswith("valley") else kind
        return cls(name, threshold, explain=explain)


@dataclass
class Report:
    """The pairs of an index and how they were found (every count of the funnel)."""

    pairs: list[Pair]
    records: int = 0
    bands: int = 0
    buckets: int = 0
    #: Buckets of more than ``max_bucket`` records, whose members became candidates only
    #: where they share another band too (:mod:`neardup.candidates.buckets`).
    large_buckets: int = 0
    max_bucket: int | None = None
    #: Candidates dropped by the per-record cap (records with more than ``cap`` candidates
    #: keep their ``cap`` sharing the most bands:
    #: :func:`neardup.candidates.buckets.cap_per_record`).
    capped: int = 0
    cap: int | None = None
    #: Records of a group of more than ``repeated`` with the same band keys, paired with their
    #: group's first record only (:func:`neardup.candidates.buckets.star_bound`).
    identical: int = 0
    repeated: int = DEFAULTS.repeated_group
    candidates: int = 0
    verified: int = 0
    confirmed: int = 0
    threshold: float = 0.0
    prune: str = "none"
    mode: str = "dedup"
    #: How the threshold was decided from the data: the valley found
    #: (:meth:`neardup.decision.valley.Valley.as_dict`) or the learned match rule
    #: (:meth:`neardup.decision.fellegi_sunter.MatchRule.as_dict`); None for a fixed threshold.
    #: :attr:`decision` reads it, with ``threshold``, as the :class:`Decision` the rule returned.
    rule: dict[str, Any] | None = None
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    #: A report of only the pairs of the records written by this batch or later (None: all).
    since: int | None = None
    #: How many records of those batches (with ``since``).
    new_records: int = 0
    #: Why a report of new records has none (with ``since``): the batch holds no record now
    #: (the newest written, its records deleted), or no batch so new was written. None
    #: otherwise.
    nothing_new: str | None = None
    #: The clusters completed in dedup mode (:mod:`neardup.decision.completion`); None if not made.
    completion: dict[str, Any] | None = None
    #: The pairs the decision's checks dropped, by check (:attr:`Decision.dropped`).
    dropped: dict[str, list[Pair]] = field(default_factory=dict)
    #: The pairs added as they stand out by weighted similarity (:attr:`Decision.stood_out`).
    stood_out: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    #: Where the report ran (``memory``: this process; ``duckdb``, ``spark``) and why
    #: (:mod:`neardup.plan.budget`: the estimated peak against the memory budget).
    engine: str = "memory"
    engine_why: str | None = None
    #: The index the report was made from (set by :meth:`NearDupIndex.report`): where
    #: :meth:`to_pandas` and :meth:`to_polars` read the records' texts and sources.
    index: Any = field(default=None, repr=False, compare=False)

    @property
    def decision(self) -> Decision:
        """How the pairs were decided (:class:`Decision`), read off ``threshold`` and ``rule``."""
        return replace(Decision.read(self.threshold, self.rule), stood_out=self.stood_out)

    def to_pandas(self, text_column: str | None = None) -> Any:
        """The pairs as a pandas DataFrame: ``id1``, ``id2``, ``jaccard``, ``similarity``,
        ``edit_distance``, ``probability``, ``reason``, and from the index, ``source1``,
        ``source2``, ``text1``, ``text2`` (or the values of ``text_column``). Needs pandas
        (``pip install 'neardup[data]'``)."""
        return self._frame(text_column, "pandas")

    def to_polars(self, text_column: str | None = None) -> Any:
        """The pairs as a polars DataFrame (the columns of :meth:`to_pandas`)."""
        return self._frame(text_column, "polars")

    def _frame(self, text_column: str | None, kind: str) -> Any:
        """The table the index the report came from makes of it: the index reads the records'
        texts and sources, and the rule's words say why each pair stands."""
        if self.index is None:
            raise ValueError(
                f"to_{kind}() reads the records from the index this report came from; this "
                "report has none: make it with NearDupIndex.report()"
            )
        return self.index.frame(self, text_column, kind)

    def counts(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "bands": self.bands,
            "buckets": self.buckets,
            "large_buckets": self.large_buckets,
            "max_bucket": self.max_bucket,
            "capped": self.capped,
            "identical": self.identical,
            "repeated_group": self.repeated,
            "cap": self.cap,
            "candidates": self.candidates,
            "verified": self.verified,
            "confirmed": self.confirmed,
            "threshold": self.threshold,
            "prune": self.prune,
            "mode": self.mode,
            "rule": self.rule,
            "seconds": round(self.seconds, 3),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "since": self.since,
            "new_records": self.new_records,
            "nothing_new": self.nothing_new,
            "completion": self.completion,
            "dropped": {
                check: [p.as_dict() for p in pairs] for check, pairs in self.dropped.items()
            },
            "engine": self.engine,
            "engine_why": self.engine_why,
        }
