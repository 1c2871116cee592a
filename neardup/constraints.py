"""One vocabulary of parameter constraints, and every public parameter declared with it.

Why: the same checks were hand-written ``if`` chains in ten modules, and their bounds and
messages drifted apart (a threshold was ``(0, 1]`` in one place and ``[0, 1]`` in another for
the same meaning). Here each public parameter is declared once, as scikit-learn declares its
estimators' (``sklearn.utils._param_validation``: an interval, options, a type), with one help
line; the library checks with the declaration, the CLI takes its choices and the allowed range
of its help from it, and one error format comes out of it::

    threshold must be a number in (0, 1], got 1.5

>>> check("k", 0, Interval(int, 1, None))
Traceback (most recent call last):
...
neardup.errors.ArgumentError: k must be an integer >= 1, got 0
>>> declared("Params")["threshold"].allowed
'a number in (0, 1]'

The values of a parameter with options (:data:`MODES`, :data:`ENGINES`, ...) are defined here,
where they are declared; the modules that use them import them from here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from .errors import ArgumentError

#: Word n-grams or character k-grams (:class:`neardup.sign.minhash.ShingleProcessor`).
KINDS = ("word", "char")
#: How the random permutations are simulated (:class:`neardup.sign.minhash.ShingleProcessor`).
HASH_FAMILIES = ("xor", "universal")
#: How a report decides: pairs at ``threshold`` or more; the threshold at the valley of the
#: records' nearest-neighbour similarities (:mod:`neardup.decision.valley`); or a rule learned
#: from the candidates (:mod:`neardup.decision.fellegi_sunter`). For the last two,
#: ``threshold`` is the floor banding finds.
RULES = ("threshold", "valley", "learned", "documents")
#: Which records a report pairs: any two, or only records of different sources.
MODES = ("dedup", "link")
#: What decides a pair (see :class:`neardup.options.ReportOptions`).
SIMILARITIES = ("auto", "jaccard", "weighted")
#: The prunings of a report's pairs (:mod:`neardup.decision.prune`).
PRUNE_MODES = ("best", "mutual", "one-to-one", "none")
#: Where a report runs (:mod:`neardup.plan`): ``auto`` (in process while the memory budget holds
#: it, else DuckDB), ``memory`` (the in-process report) or a plan engine.
ENGINES = ("auto", "memory", "duckdb", "spark")
#: The engines that run the report in this process (the weighted link and a report of new
#: records run nowhere else).
IN_PROCESS = ("auto", "memory")


class Constraint(Protocol):
    """What a value must be: ``holds`` says whether it is, ``str()`` says it to a person."""

    def holds(self, value: Any) -> bool: ...


def _is_int(value: Any) -> bool:
    """An integer, not a bool (``True`` is an int to Python, never a count to a person)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """An int or a float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class Interval:
    """A number of ``kind`` (``int``: integers only; ``float``: any int or float) between
    ``low`` and ``high`` (None: unbounded), ``closed`` on the ``"left"``, the ``"right"``,
    ``"both"`` sides or ``"neither"``. NaN is in no interval."""

    kind: type
    low: float | None
    high: float | None
    closed: Literal["left", "right", "both", "neither"] = "left"

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise TypeError(f"an Interval holds int or float, not {self.kind!r}")

    def holds(self, value: Any) -> bool:
        if not (_is_int(value) if self.kind is int else _is_number(value)):
            return False
        left = self.closed in ("left", "both")
        right = self.closed in ("right", "both")
        if self.low is not None and not (value >= self.low if left else value > self.low):
            return False
        if self.high is not None and not (value <= self.high if right else value < self.high):
            return False
        return not (isinstance(value, float) and math.isnan(value))

    def __str__(self) -> str:
        what = "an integer" if self.kind is int else "a number"
        low, high = _shown(self.low), _shown(self.high)
        left = self.closed in ("left", "both")
        right = self.closed in ("right", "both")
        if self.low is None and self.high is None:
            return what
        if self.high is None:
            return f"{what} {'>=' if left else '>'} {low}"
        if self.low is None:
            return f"{what} {'<=' if right else '<'} {high}"
        return f"{what} in {'[' if left else '('}{low}, {high}{']' if right else ')'}"


def _shown(bound: float | None) -> str:
    """A bound as a person writes it: ``1``, not ``1.0``."""
    return f"{bound:g}" if bound is not None else ""


@dataclass(frozen=True)
class Options:
    """One of a few strings."""

    values: tuple[str, ...]

    def holds(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.values

    def __str__(self) -> str:
        return "one of " + ", ".join(self.values)


@dataclass(frozen=True)
class InstanceOf:
    """An instance of one of ``types`` (an ``int`` is never a bool), said as ``what``."""

    types: tuple[type, ...]
    what: str

    def holds(self, value: Any) -> bool:
        if isinstance(value, bool) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    def __str__(self) -> str:
        return self.what


@dataclass(frozen=True)
class Text:
    """A string that is not blank, said as ``what``."""

    what: str

    def holds(self, value: Any) -> bool:
        return isinstance(value, str) and bool(value.strip())

    def __str__(self) -> str:
        return self.what


class _NoneConstraint:
    """The value None (a parameter that may be left to the data or the index)."""

    def holds(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"

    def __repr__(self) -> str:
        return "NONE"


#: None is allowed.
NONE = _NoneConstraint()
#: A flag.
BOOL = InstanceOf((bool,), "True or False")


def check(name: str, value: Any, *constraints: Constraint) -> Any:
    """``value`` if one of ``constraints`` holds for it, else an :class:`ArgumentError` in the
    one format: ``NAME must be ALLOWED, got VALUE``."""
    if any(c.holds(value) for c in constraints):
        return value
    raise ArgumentError(f"{name} must be {allowed(constraints)}, got {value!r}")


def allowed(constraints: tuple[Constraint, ...]) -> str:
    """What ``constraints`` allow, as a person reads it (``an integer >= 2 or None``)."""
    return " or ".join(str(c) for c in constraints)


@dataclass(frozen=True)
class Parameter:
    """A public parameter: its name (as messages and flags say it), its constraints (any one
    may hold) and one help line saying what it is."""

    name: str
    constraints: tuple[Constraint, ...]
    help: str

    def check(self, value: Any) -> Any:
        """``value``, checked (:func:`check`)."""
        return check(self.name, value, *self.constraints)

    @property
    def allowed(self) -> str:
        """What the parameter takes, as a person reads it."""
        return allowed(self.constraints)

    @property
    def choices(self) -> list[str] | None:
        """The strings it takes, if it takes a few (a CLI flag's ``choices``), else None."""
        for c in self.constraints:
            if isinstance(c, Options):
                return list(c.values)
        return None

    @property
    def kind(self) -> type:
        """What a command-line value is parsed as: ``int``, ``float`` or ``str``."""
        for c in self.constraints:
            if isinstance(c, Interval):
                return c.kind
        return str


#: The declared parameters: owner (a class, a function, or ``lookup`` for query, search and
#: neighbors) -> name -> :class:`Parameter`.
PARAMETERS: dict[str, dict[str, Parameter]] = {}


def declared(owner: str) -> Mapping[str, Parameter]:
    """The parameters ``owner`` declares, in the order they are checked."""
    try:
        return PARAMETERS[owner]
    except KeyError:
        raise KeyError(f"no parameters declared for {owner!r}: {sorted(PARAMETERS)}") from None


def check_all(owner: str, values: Mapping[str, Any]) -> None:
    """Each of ``owner``'s parameters in ``values`` checked against its declaration."""
    for name, parameter in declared(owner).items():
        if name in values:
            parameter.check(values[name])


def _declare(owner: str, *parameters: Parameter) -> None:
    PARAMETERS.setdefault(owner, {}).update({p.name: p for p in parameters})


def _param(name: str, help: str, *constraints: Constraint) -> Parameter:
    return Parameter(name, constraints, help)


# -- the declarations -------------------------------------------------------------------------
_COUNT = Interval(int, 1, None)
_SEED = Interval(int, None, None)
#: The most words or characters a shingle and MinHash values a signature may have: beyond
#: them the C kernel's sizes overflow (a traceback) and choosing the bands tries every row
#: count up to ``num_perm`` (``--num-perm 10**20`` never returned), for no use.
_SHINGLE_SIZE = Interval(int, 1, 100_000, closed="both")
_NUM_PERM = Interval(int, 1, 65_536, closed="both")
#: A pair's Jaccard bar: 0 would pair every two records, so it is refused.
_PAIR_THRESHOLD = Interval(float, 0, 1, closed="right")
#: A lookup's least similarity: 0 is legitimate (every match ranked by similarity).
_LOOKUP_THRESHOLD = Interval(float, 0, 1, closed="both")
_SIZE = Text("a size such as '2GB'")

SHINGLE_KIND = _param("shingle_kind", "word n-grams or character k-grams", Options(KINDS))
SHINGLE_SIZE = _param("shingle_size", "words or characters per shingle", _SHINGLE_SIZE)
NUM_PERM = _param("num_perm", "MinHash values per record", _NUM_PERM)
HASH_FAMILY = _param("hash_family", "how the permutations are simulated", Options(HASH_FAMILIES))
SEED = _param("seed", "random seed of the permutations", _SEED)
CANONICAL = _param("canonical", "rewrite record forms (7th/seventh) before shingling", BOOL)
FOLD_ACCENTS = _param("fold_accents", "fold accents (café is cafe)", BOOL)
SPLIT_HYPHENS = _param("split_hyphens", "character shingles read a hyphen as a space", BOOL)
FIX_TEXT = _param("fix_text", "repair mojibake with ftfy before normalizing", BOOL)
FOLD_MARKS = _param("fold_marks", "fold Arabic's and Hebrew's vowel marks with the accents", BOOL)
PROGRESS = _param("progress", "progress bars on standard error", BOOL)
BATCH_SIZE = _param("batch_size", "records per update request", _COUNT)
WRITERS = _param("writers", "concurrent update requests per batch", _COUNT)
TOTAL = _param(
    "total", "how many records come (a progress bar's end)", Interval(int, 0, None), NONE
)

_declare(
    "Params",
    SHINGLE_KIND,
    SHINGLE_SIZE,
    NUM_PERM,
    HASH_FAMILY,
    SEED,
    _param("threshold", "the Jaccard similarity a pair needs", _PAIR_THRESHOLD),
    CANONICAL,
    FOLD_ACCENTS,
    SPLIT_HYPHENS,
    _param("rule", "how pairs are decided", Options(RULES)),
    _param("bands", "LSH bands", Interval(int, 0, None)),
    _param("rows", "rows per band", Interval(int, 0, None)),
    _param("fields_2014", "also store the 2014 article's fields", BOOL),
    FIX_TEXT,
    FOLD_MARKS,
)
# ShingleProcessor's own names for the shingles' kind and size.
_declare(
    "ShingleProcessor",
    _param("size", "words or characters per shingle", _SHINGLE_SIZE),
    _param("kind", "word n-grams or character k-grams", Options(KINDS)),
    NUM_PERM,
    HASH_FAMILY,
    SEED,
    CANONICAL,
    FOLD_ACCENTS,
    SPLIT_HYPHENS,
    FIX_TEXT,
    FOLD_MARKS,
)
_declare(
    "ReportOptions",
    _param("mode", "which records are paired: any two, or of different sources", Options(MODES)),
    _param("similarity", "what decides a pair", Options(SIMILARITIES)),
    _param("numbers_check", "pairs of records that hold different numbers may be dropped", BOOL),
    _param("names_check", "pairs of two names that each hold a word the other lacks may be "
           "dropped", BOOL),
    _param(
        "since",
        "only the pairs of the records of this batch or later",
        Interval(int, 0, None),  # a batch number: -1 was taken, as every batch
        NONE,
    ),
    _param(
        "max_bucket",
        "a larger bucket's members pair only where they share another band",
        Interval(int, 2, None),
        NONE,
    ),
    _param("cap", "the most candidates a record keeps", _COUNT, NONE),
    _param("threshold", "the smallest verified Jaccard", _PAIR_THRESHOLD, NONE),
    _param("prune", "the pruning of the pairs kept", Options(PRUNE_MODES), NONE),
    _param("max_dist", "the largest word edit distance", Interval(int, 0, None), NONE),
    PROGRESS,
    _param("complete", "add the missing pairs of nearly verified clusters", BOOL, NONE),
    _param(
        "columns",
        "column pairs of two sources that are one",
        InstanceOf((Mapping, str, tuple, list), "a mapping, 'a=b,c=d' or a list of 'a=b'"),
        NONE,
    ),
    # a DuckDB or Spark instance is allowed too: ReportOptions adds those (neardup.plan)
    _param("engine", "where the report runs", Options(ENGINES)),
    _param(
        "memory",
        "the memory the report may take",
        InstanceOf((str,), "a size such as '12GB'"),
        Interval(int, 1, None),
        NONE,
    ),
)
_declare(
    "lookup",  # NearDupIndex.query, search and neighbors
    _param("k", "the most matches", _COUNT),
    _param("threshold", "the least Jaccard of a match", _LOOKUP_THRESHOLD),
)
_declare("ask", _param("n", "the pairs to label", _COUNT))
_declare("all_pairs", _param("threshold", "the least exact Jaccard of a pair", _PAIR_THRESHOLD))
_declare("Writer", BATCH_SIZE, WRITERS, PROGRESS, TOTAL)
_declare(
    "add_many",
    BATCH_SIZE,
    WRITERS,
    PROGRESS,
    TOTAL,
    _param(
        "source_name",
        "the source of records given without one",
        InstanceOf((str,), "a source name"),
        NONE,
    ),
    _param("replace", "replace records an earlier call wrote", BOOL),
)
_declare(
    "DuckDB",
    _param("memory_limit", "DuckDB's memory limit", _SIZE, NONE),
    _param(
        "temp_directory",
        "where the database and spill files go",
        InstanceOf((str, Path), "a folder"),
        NONE,
    ),
    _param("threads", "DuckDB's threads", _COUNT, NONE),
    _param("disk_limit", "the most the spill files may take", _SIZE, NONE),
)
_declare(
    "Spark",
    _param(
        "master",
        "where Spark runs",
        Text("a Spark master URL such as 'local[2]'"),
    ),
    _param("memory", "the driver's and each executor's heap", Text("a size such as '4g'"), NONE),
    _param(
        "temp_directory", "where the plan's tables go", InstanceOf((str, Path), "a folder"), NONE
    ),
    _param(
        "conf",
        "other Spark settings, as strings",
        InstanceOf((Mapping, tuple), "a mapping of strings"),
    ),
)
