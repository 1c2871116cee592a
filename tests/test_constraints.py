"""neardup.constraints: one vocabulary of parameter checks, every public parameter declared."""

from __future__ import annotations

import argparse
import inspect
import math
from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any

import pytest

from neardup import NearDupIndex, Params, ShingleProcessor
from neardup.candidates.bruteforce import all_pairs
from neardup.cli.common import PARAM_FLAGS
from neardup.cli.main import build_parser
from neardup.constraints import (
    BOOL,
    NONE,
    PARAMETERS,
    InstanceOf,
    Interval,
    Options,
    Text,
    check,
    declared,
)
from neardup.errors import ArgumentError, InputError
from neardup.options import ReportOptions
from neardup.pipeline import Writer
from neardup.plan import DuckDB, Spark


@pytest.mark.parametrize(
    ("value", "constraints", "message"),
    [
        (1.5, (Interval(float, 0, 1, closed="right"),), "x must be a number in (0, 1], got 1.5"),
        (0, (Interval(float, 0, 1, closed="right"),), "x must be a number in (0, 1], got 0"),
        (-0.1, (Interval(float, 0, 1, closed="both"),), "x must be a number in [0, 1], got -0.1"),
        (1, (Interval(float, 0, 1, closed="left"),), "x must be a number in [0, 1), got 1"),
        (0, (Interval(int, 1, None),), "x must be an integer >= 1, got 0"),
        (2.0, (Interval(int, 1, None),), "x must be an integer >= 1, got 2.0"),
        (True, (Interval(int, 1, None),), "x must be an integer >= 1, got True"),
        (0, (Interval(int, 0, None, closed="neither"),), "x must be an integer > 0, got 0"),
        (9, (Interval(int, None, 5, closed="neither"),), "x must be an integer < 5, got 9"),
        ("1", (Interval(int, None, None),), "x must be an integer, got '1'"),
        (1, (Interval(int, 2, None), NONE), "x must be an integer >= 2 or None, got 1"),
        ("both", (Options(("dedup", "link")),), "x must be one of dedup, link, got 'both'"),
        (["dedup"], (Options(("dedup", "link")),), "x must be one of dedup, link, got ['dedup']"),
        (1, (BOOL,), "x must be True or False, got 1"),
        (True, (InstanceOf((int,), "a batch number"),), "x must be a batch number, got True"),
        ("  ", (Text("a size such as '2GB'"),), "x must be a size such as '2GB', got '  '"),
    ],
)
def test_one_format_for_every_refusal(value: Any, constraints: tuple, message: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        check("x", value, *constraints)
    assert str(caught.value) == message
    assert isinstance(caught.value, InputError)  # the CLI's exit code 2


def test_a_value_that_holds_is_given_back() -> None:
    assert check("x", 0.0, Interval(float, 0, 1, closed="both")) == 0.0
    assert check("x", None, Interval(int, 2, None), NONE) is None
    assert check("x", 7, Interval(int, 2, None), NONE) == 7
    assert check("x", "link", Options(("dedup", "link"))) == "link"


def test_nan_is_in_no_interval() -> None:
    for interval in (Interval(float, 0, 1, closed="both"), Interval(float, None, None)):
        with pytest.raises(ArgumentError, match="got nan"):
            check("x", math.nan, interval)


def test_an_interval_holds_numbers_only() -> None:
    with pytest.raises(TypeError):
        Interval(str, 0, 1)


# -- the declarations --------------------------------------------------------------------------

#: The arguments of the public callables that are data, not parameters.
DATA = {"self", "text", "record_id", "records", "shingle_sets", "backend", "documents", "labels"}


def _arguments(function: Callable[..., Any]) -> list[str]:
    return [n for n in inspect.signature(function).parameters if n not in DATA]


def _fields(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]


#: owner (as declared) -> the public parameters it takes, read off the code.
PUBLIC = {
    "Params": _fields(Params),
    "ReportOptions": _fields(ReportOptions),
    "ShingleProcessor": _arguments(ShingleProcessor.__init__),
    "Writer": _arguments(Writer.__init__),
    "add_many": _arguments(NearDupIndex.add_many),
    "lookup": sorted({
        *_arguments(NearDupIndex.query),
        *_arguments(NearDupIndex.search),
        *(n for n in _arguments(NearDupIndex.neighbors) if n != "source"),
    }),
    "ask": _arguments(NearDupIndex.ask),
    "all_pairs": _arguments(all_pairs),
    "DuckDB": _fields(DuckDB),
    "Spark": _fields(Spark),
}  # fmt: skip


def test_every_public_parameter_is_declared() -> None:
    assert PUBLIC["lookup"] == ["k", "threshold"] and PUBLIC["all_pairs"] == ["threshold"]
    assert {"batch_size", "writers", "progress", "total"} <= set(PUBLIC["Writer"])
    missing = [
        f"{owner}.{name}"
        for owner, names in PUBLIC.items()
        for name in names
        if name not in PARAMETERS.get(owner, {})
    ]
    assert not missing, f"declare these in neardup/constraints.py: {missing}"
    stale = [
        f"{owner}.{name}"
        for owner, declared_ in PARAMETERS.items()
        for name in declared_
        if name not in PUBLIC.get(owner, [])
    ]
    assert not stale, f"declared but no such parameter: {stale}"


@pytest.mark.parametrize("owner", ["Params", "ReportOptions", "DuckDB", "Spark"])
def test_every_default_holds_for_its_declaration(owner: str) -> None:
    """A default its own declaration refused would make the class unusable without it."""
    cls = {"Params": Params, "ReportOptions": ReportOptions, "DuckDB": DuckDB, "Spark": Spark}
    for f in fields(cls[owner]):
        default = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
        if owner == "ReportOptions" and f.name == "engine":
            continue  # an engine instance is allowed too: checked by ReportOptions itself
        assert declared(owner)[f.name].check(default) == default, f.name


def test_every_declaration_has_a_help_line_and_a_constraint() -> None:
    for owner, parameters in PARAMETERS.items():
        for name, parameter in parameters.items():
            assert parameter.help.strip() and parameter.constraints, f"{owner}.{name}"
            assert parameter.name == name


def test_a_lookup_threshold_of_0_is_legitimate_a_pair_threshold_of_0_is_not() -> None:
    index = NearDupIndex(Params(threshold=0.5))
    index.add_many([("1", "blue cafe on main street"), ("2", "red cafe on main street")])
    assert [m.id for m in index.query("cafe on main street", threshold=0.0)] == ["1", "2"]
    assert [m.id for m in index.neighbors("1", threshold=0)] == ["2"]
    with pytest.raises(ArgumentError, match=r"^threshold must be a number in \[0, 1\], got 1.5$"):
        index.search("cafe", threshold=1.5)
    with pytest.raises(ArgumentError, match=r"^threshold must be a number in \(0, 1\], got 0$"):
        Params(threshold=0)
    with pytest.raises(ArgumentError, match=r"^threshold must be a number in \(0, 1\] or None"):
        ReportOptions(threshold=0)
    with pytest.raises(ArgumentError, match=r"^threshold must be a number in \(0, 1\], got 0$"):
        all_pairs({"1": {"a"}}, 0)
    with pytest.raises(ArgumentError, match=r"^k must be an integer >= 1, got 0$"):
        index.query("cafe", k=0)
    with pytest.raises(ArgumentError, match=r"^n must be an integer >= 1, got True$"):
        index.ask(True)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Params(canonical="no"), "canonical must be True or False, got 'no'"),
        (lambda: Params(shingle_size=0), "shingle_size must be an integer in [1, 100000], got 0"),
        # beyond these, a traceback from the C kernel, or choosing the bands never returned
        (lambda: Params(shingle_size=10**20), "shingle_size must be an integer in [1, 100000]"),
        (lambda: Params(num_perm=10**20), "num_perm must be an integer in [1, 65536], got 1"),
        (lambda: Params(bands=-1, rows=1), "bands must be an integer >= 0, got -1"),
        (lambda: Params(rule="best"),
         "rule must be one of threshold, valley, learned, documents, got"),
        (lambda: ShingleProcessor(0), "size must be an integer in [1, 100000], got 0"),
        (lambda: ShingleProcessor(kind="chars"), "kind must be one of word, char, got 'chars'"),
        (lambda: ShingleProcessor(seed=1.5), "seed must be an integer, got 1.5"),
        (lambda: ReportOptions(max_dist=1.5), "max_dist must be an integer >= 0 or None"),
        (lambda: DuckDB(threads=0), "threads must be an integer >= 1 or None, got 0"),
        (lambda: DuckDB(memory_limit=""), "memory_limit must be a size such as '2GB' or None"),
        (lambda: Spark(master=" "), "master must be a Spark master URL such as 'local[2]'"),
        (lambda: Writer(Any, list, writers=0), "writers must be an integer >= 1, got 0"),
    ],
)
def test_the_owners_check_with_their_declarations(make: Callable[[], Any], message: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        make()
    assert str(caught.value).startswith(message)


def _flag(parser: argparse.ArgumentParser, verb: str, flag: str) -> argparse.Action:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(a for a in sub.choices[verb]._actions if flag in a.option_strings)


def test_the_cli_takes_choices_types_and_ranges_from_the_declarations() -> None:
    parser = build_parser()
    params = declared("Params")
    for name in PARAM_FLAGS:
        action = _flag(parser, "index", "--" + name.replace("_", "-"))
        parameter = params[name]
        assert action.type is parameter.kind, name
        if parameter.choices is None:
            assert action.choices is None and parameter.allowed in action.help, name
        else:
            assert sorted(action.choices) == sorted(parameter.choices), name
            assert action.choices[0] == getattr(Params(), name), name  # the default first
    report = declared("ReportOptions")
    for name in ("mode", "prune", "similarity", "engine"):
        assert _flag(parser, "report", "--" + name).choices == report[name].choices, name
    assert str(report["threshold"].constraints[0]) in _flag(parser, "report", "--threshold").help
    for verb in ("search", "neighbors"):
        assert declared("lookup")["threshold"].allowed in _flag(parser, verb, "--threshold").help
