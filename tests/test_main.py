"""neardup/cli/main.py: the verbs, each with a register function of its own, in the order
``neardup --help`` lists them; and a start that leaves the Solr client unloaded."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.cli.main import VERBS, build_parser, main

from .conftest import run_cli

REPO = Path(__file__).resolve().parents[1]


def _verbs(parser: argparse.ArgumentParser) -> list[str]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(actions[0].choices)


def test_each_verb_registers_its_own_flags() -> None:
    """One ``register_<verb>`` per verb, adding that verb and no other, in the help's order."""
    assert [f"register_{verb}" for verb in _verbs(build_parser())] == [
        register.__name__ for register in VERBS
    ]
    for register in VERBS:
        probe = argparse.ArgumentParser()
        register(probe.add_subparsers())
        assert _verbs(probe) == [register.__name__.removeprefix("register_")]


def test_help_leaves_the_solr_client_unloaded() -> None:
    """The reason the CLI imports the Solr modules inside its functions: ``neardup --help``
    (and a verb without Solr) should not pay for loading pysolr and requests."""
    code = (
        "import sys\n"
        "from neardup.cli.main import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('pysolr', 'requests') if m in sys.modules))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "[]"


def test_an_error_with_json_is_json_on_standard_output_too(tmp_path: Path) -> None:
    """A script that reads ``--json`` got an empty standard output on an error: it gets the
    error and the exit code to parse, besides the line on stderr."""
    missing = tmp_path / "none.duckdb"
    done = run_cli("neighbors", "7", "--index-file", str(missing), "--json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = json.loads(done.stdout)
    assert said["exit_code"] == 2 and said["error"].startswith(f"{missing}: no such index file")
    assert f"neardup: error: {said['error']}" in done.stderr
    plain = run_cli("neighbors", "7", "--index-file", str(missing))
    assert plain.returncode == 2 and plain.stdout == ""


def test_a_usage_error_with_json_is_json_on_standard_output_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Errors argparse finds (a missing option, a value of the wrong kind, a bad port) printed
    nothing on standard output with ``--json``: they now print the same error object as the
    errors found later, keeping exit code 2 and the usage on stderr; not with ``--out -``,
    whose reader expects the data, nor without ``--json``."""
    for argv, said in (
        (["report", "--index-file", "i.duckdb", "--json"],
         "the following arguments are required: --out"),
        (["report", "--index-file", "i.duckdb", "--out", "p.tsv", "--since", "abc", "--json"],
         "argument --since: invalid int value: 'abc'"),
        (["solr", "start", "--port", "0", "--json"],
         "argument --port: a port number from 1 to 65535 expected, got '0'"),
    ):  # fmt: skip
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert json.loads(out) == {"error": said, "exit_code": 2}, out
        assert f"error: {said}" in err and "usage: " in err
    for argv in (["report", "--index-file", "i.duckdb", "--out", "-", "--since", "x", "--json"],
                 ["report", "--index-file", "i.duckdb", "--since", "x"],
                 ["report", "--index-file", "i.duckdb", "--since", "x", "--", "--json"]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and "--since" in err


def test_an_abbreviated_flag_is_refused_not_read_as_another() -> None:
    """``dedupe --source X`` was read as ``--source-field X`` (argparse completes a unique
    prefix): a column named X, where ``index --source`` names the records' source. No flag is
    completed; every verb's parser refuses a prefix."""
    parser = build_parser()
    args = parser.parse_args(["dedupe", "a.csv", "--out", "b.csv", "--source-field", "src"])
    assert args.source_field == "src"
    for verb in (["dedupe", "a.csv", "--out", "b.csv", "--source", "X"],
                 ["report", "--thresh", "0.5"]):  # fmt: skip
        try:
            parser.parse_args(verb)
        except SystemExit as exc:
            assert exc.code == 2
        else:
            raise AssertionError(f"{verb} was accepted")


def test_a_bad_threshold_flag_is_named_as_typed() -> None:
    """'threshold must be a number in (0, 1] or None, got 2.0' named neither the flag nor a
    value one can type on a command line."""
    for verb in (["report", "--out", "-"], ["compare"]):
        done = run_cli(*verb, "--threshold", "2", "--index-file", "/nonexistent/x.duckdb")
        assert done.returncode == 2, done.stderr
        assert "--threshold must be a number in (0, 1], got 2.0" in done.stderr
        assert "None" not in done.stderr
