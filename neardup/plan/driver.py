"""The report run as one plan by an engine: records -> signatures -> band keys -> candidates
(the large-bucket rule and the per-record cap of :mod:`neardup.candidates.buckets`) -> verified
pairs (:mod:`neardup.candidates.verify`, on Arrow batches) -> the pairs the index's rule keeps
(:mod:`neardup.decision.decide`). The engine holds every table; Python holds one batch at a time,
and the verified pairs with their texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from tqdm import tqdm

from ..backends.base import Backend
from ..candidates.buckets import COUNT_BITS, WINDOW, protected_bands, star_bound
from ..candidates.text_table import Gathered, TextTable
from ..candidates.verify import SCREEN_MIN
from ..decision.decide import Features, rule_for
from ..defaults import DEFAULTS
from ..keys import id_key
from ..results import Decision, Pair
from ..sign import kernel
from ..sign.minhash import ShingleProcessor
from ..sign.text import sort_ids
from . import steps
from .duck import DuckDB
from .spark import Spark
from .steps import sql

if TYPE_CHECKING:
    import pyarrow as pa

    from .duck import DuckDBSession
    from .spark import SparkPlanSession

    Session = DuckDBSession | SparkPlanSession



class PlanOptions(Protocol):
    """What the plan reads of a report's options (:class:`neardup.options.ReportOptions`,
    which imports this package to check its engine)."""

    mode: str
    max_bucket: int | None
    cap: int | None
    columns: Any
    numbers_check: bool
    progress: bool
    max_dist: int | None


#: Records signed and loaded at a time.
LOAD_BATCH = 50_000
#: Candidates screened or verified at a time.
VERIFY_BATCH = 100_000


@dataclass
class Planned:
    """What the plan found: the counts a :class:`~neardup.results.Report` prints, the pairs the
    rule kept with its decision, and the texts of the verified pairs' records."""

    buckets: int
    large: int
    candidates: int
    capped: int
    cap: int | None
    verified: int
    pairs: list[Pair]
    decision: Decision
    texts: TextTable
    #: Records of repeated groups paired with their group's first only (steps.REPEATS), and
    #: the size past which a group was starred (:func:`~neardup.candidates.buckets.star_bound`).
    identical: int = 0
    repeated: int = DEFAULTS.repeated_group

    def __len__(self) -> int:
        return self.candidates


def _chunks(items: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _map_into(
    session: Session, table: str, query: str, fn: Callable[[pa.RecordBatch], pa.Table],
    stage: _Stage | None = None,
) -> None:  # fmt: skip
    """``fn`` over the query's rows in batches, its rows appended to ``table``: where the rows
    are on an engine that says how (Spark's executors: ``map_into``), else in this process."""
    mapped = getattr(session, "map_into", None)
    if mapped is not None:
        mapped(table, query, fn, VERIFY_BATCH)
        return
    for batch in session.batches(query, VERIFY_BATCH):
        session.load(table, fn(batch))
        if stage is not None:
            stage.advance(batch.num_rows)


class _Stage:
    """One stage of the plan as a progress bar on standard error: its rows (or steps) and,
    where the engine says (DuckDB), what it has spilled to disk. Why: a plan of a large
    collection runs for long, and a user should see which stage and whether it spills."""

    def __init__(self, session: Session, name: str, total: int | None, unit: str,
                 shown: bool, out: Any = None) -> None:  # fmt: skip
        self.session = session
        # None: shown where standard error (``out``) is a terminal, as the other bars are
        self.bar = tqdm(total=total, unit=unit, desc=f"plan: {name}", leave=False, file=out,
                        disable=None if shown else True)  # fmt: skip

    def advance(self, n: int = 1) -> None:
        self.bar.update(n)
        spilled = getattr(self.session, "spilled", None)
        if spilled is not None and not self.bar.disable:
            self.bar.set_postfix_str(f"spilled {spilled() >> 20} MB", refresh=False)

    def __enter__(self) -> _Stage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()


def _load(
    session: Session,
    backend: Backend,
    processor: ShingleProcessor,
    bands: int,
    rows: int,
    link: bool,
    stage: _Stage,
) -> None:
    """Every record of the backend signed, in batches, into ``records`` and ``keys``."""
    session.run(sql(steps.CREATE_INPUT))
    start = 0
    for chunk in _chunks(backend.all_texts(), LOAD_BATCH):
        ids = [i for i, _ in chunk]
        texts = [t for _, t in chunk]
        sources = None
        if link:
            of = backend.sources(ids)
            sources = [of.get(i, "") for i in ids]
        records, keys = steps.signed_batch(start, ids, texts, sources, processor, bands, rows)
        session.load("records", records)
        session.load("keys", keys)
        start += len(ids)
        stage.advance(len(ids))


def _candidates(
    session: Session, max_bucket: int | None, cap: int | None, protect: int, link: bool,
    stage: _Stage,
) -> tuple[int, int, int, int | None, int]:  # fmt: skip
    """The candidates table; returns the shared buckets, the large ones, the candidates the
    cap dropped, the cap applied, the copies of repeated groups paired with their first and
    the size past which a group was starred."""
    bound = steps.UNBOUNDED if max_bucket is None else max_bucket
    for step in (steps.BUCKETS, steps.CODES, steps.MEMBERS):
        session.run(sql(step, max_bucket=bound))
        stage.advance()
    session.run(sql(steps.DONE_MEMBERS))
    buckets = int(session.scalar("SELECT count(*) FROM buckets"))
    identical, starred = _repeats(session, bound)
    repeated = DEFAULTS.repeated_group
    for step in (
        steps.SMALL_PAIRS,
        steps.REGROUPED,
        steps.COHERENT,
        steps.REGROUPED_PAIRS,
        steps.COHERENT_PAIRS,
        steps.COUNTED,
    ):
        if step is steps.COUNTED and bound != steps.UNBOUNDED and int(
            session.scalar(f"SELECT count(*) FROM buckets WHERE size > {max(repeated, bound)}")
        ):
            bands = int(session.scalar("SELECT count(DISTINCT band) FROM m"))
            windowed = steps.WINDOWED_PAIRS.replace("{offsets}", steps.offsets(WINDOW))
            session.run(sql(windowed, bands=bands, repeated=repeated, max_bucket=bound))
        session.run(sql(step, max_bucket=bound, repeated=repeated))  # fmt: skip
        stage.advance()
        if step is steps.SMALL_PAIRS and identical:
            session.run(sql(steps.COPY_PAIRS))
    session.run(sql(steps.DONE_FOUND))
    large = int(session.scalar(f"SELECT count(*) FROM buckets WHERE size > {bound}"))
    held = int(session.scalar("SELECT count(*) FROM codes"))
    capping = cap is not None and held < 1 << (31 - COUNT_BITS) and buckets > 0
    capped, uncapped = 0, ""
    if capping:
        session.run(sql(steps.DEGREE))
        session.run(sql(steps.WEAK, cap=cap, protect=min(protect, steps.COUNT_MAX)))
        session.run(sql(steps.KEPT))
        session.run(["CREATE TABLE chosen (a BIGINT, b BIGINT)"])
        levels = session.column("SELECT DISTINCT shared FROM weak ORDER BY shared DESC")
        for level in levels:
            session.run(sql(steps.CAP_LEVEL, cap=cap, level=int(level)))
        capped = int(session.scalar("SELECT count(*) FROM weak")) - int(
            session.scalar("SELECT count(*) FROM chosen")
        )
        uncapped = steps.CAPPED_OUT
    session.run(sql(steps.CANDIDATES.replace("{uncapped}", uncapped)))
    session.run(sql(steps.DONE_COUNTED))
    if link:
        session.run(sql(steps.OTHER_SOURCES))
    return buckets, large, capped, cap if capping else None, identical, starred


def _repeats(session: Session, bound: int) -> tuple[int, int]:
    """Starred repeated groups (:data:`~neardup.plan.steps.REPEATS`): how many copies left the
    buckets, and the size past which a group was (:func:`star_bound`, from the groups' sizes
    as the in-process step). Only where a bucket is larger than ``bound`` (a group of copies
    fills one in every band) and the buckets are bounded, as the in-process step."""
    repeated = DEFAULTS.repeated_group
    if bound == steps.UNBOUNDED or not int(
        session.scalar(f"SELECT count(*) FROM buckets WHERE size > {bound}")
    ):
        return 0, repeated
    bands = int(session.scalar("SELECT count(DISTINCT band) FROM m"))
    session.run(sql(steps.SIGS, bands=bands))
    sizes = session.column(f"SELECT count(*) FROM sigs GROUP BY sig HAVING count(*) > {bound}")
    held = int(session.scalar("SELECT count(*) FROM codes"))
    repeated = star_bound(np.array(sizes, dtype=np.int64), held, bound)
    if not any(int(z) > repeated for z in sizes):
        return 0, repeated
    session.run(sql(steps.REPEATS, repeated=repeated, bands=bands))
    copies = int(session.scalar("SELECT count(*) FROM copies"))
    if copies:
        session.run(sql(steps.UNREPEAT))
    return copies, repeated


def _screen(session: Session, total: int, threshold: float, stage: _Stage) -> None:
    """The ``screened`` table: the candidates the screen passes, where the in-process report
    screens (:func:`~neardup.candidates.verify.screen_keep`: with the C kernel, from
    :data:`~neardup.candidates.verify.SCREEN_MIN` candidates), else all of them."""
    session.run([steps.CREATE_SCREENED])
    if kernel.active() != "c" or total < SCREEN_MIN:
        session.run([steps.UNSCREENED])
        return
    screen = partial(steps.screened_batch, threshold=threshold)
    _map_into(session, "screened", steps.SCREEN_PAIRS, screen, stage)


def decided(
    backend: Backend,
    processor: ShingleProcessor,
    bands: int,
    rows: int,
    options: PlanOptions,
    threshold: float,
    rule_name: str,
    primary: str | None,
    engine: DuckDB | Spark,
) -> Planned:
    """The full report's verified pairs and the rule's decision, run as a plan by ``engine``:
    the same pairs as the in-process report (candidates, screen, exact Jaccard and rule as
    :meth:`NearDupIndex.report <neardup.index.NearDupIndex.report>` finds them)."""
    link, shown = options.mode == "link", options.progress
    session = engine.open()
    try:
        session.function("tie_hash", steps.tie_hash, "BIGINT", "FLOAT")
        with _Stage(session, "sign and load", backend.count(), "rec", shown) as stage:
            _load(session, backend, processor, bands, rows, link, stage)
        protect = protected_bands(bands, rows)
        with _Stage(session, "candidates", None, "step", shown) as stage:
            buckets, large, capped, cap, identical, starred = _candidates(
                session, options.max_bucket, options.cap, protect, link, stage
            )
        total = int(session.scalar("SELECT count(*) FROM candidates"))
        pairs: list[Pair] = []
        held = Gathered()
        with _Stage(session, "screen", total, "pair", shown) as stage:
            _screen(session, total, threshold, stage)
        session.run([steps.CREATE_VERIFIED])
        verify = partial(
            steps.verified_rows, processor=processor, threshold=threshold,
            max_dist=options.max_dist,
        )  # fmt: skip
        screened = int(session.scalar("SELECT count(*) FROM screened"))
        with _Stage(session, "verify", screened, "pair", shown) as stage:
            _map_into(session, "verified", steps.PAIRS, verify, stage)
        # what the pairs and their texts take in this process, the engine gives back first
        release = getattr(session, "release", None)
        if release is not None:
            release(("verified",))
        for batch in session.batches("SELECT * FROM verified", VERIFY_BATCH):
            pairs.extend(steps.verified_pairs(batch, held))
    finally:
        session.close()
    pairs.sort(key=lambda p: (id_key(p.id1), id_key(p.id2)))
    table = held.table(sort_ids(held.ids()))
    columns: Mapping[str, str] = dict(options.columns or ())
    features = Features(
        pairs, table, processor, backend.count(), None, backend.columns, backend.sources,
        primary, columns, backend.all_texts if options.mode == "dedup" else None,
    )  # fmt: skip
    rule = rule_for(rule_name, threshold, numbers_check=options.numbers_check)
    kept, decision = rule.decide(features)
    return Planned(
        buckets, large, total, capped, cap, len(pairs), kept, decision, table, identical,
        starred,
    )


def engine_named(engine: Any) -> DuckDB | Spark:
    """The engine ``engine`` names (``"duckdb"``, ``"spark"``: its defaults) or is."""
    if isinstance(engine, DuckDB | Spark):
        return engine
    return Spark() if engine == "spark" else DuckDB()
