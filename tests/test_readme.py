"""The examples of README.md and docs/*.md run, and print what their comments say.

Each ``print(...)  # expected`` line of a ```python block must print the expected text; ``|``
separates the lines a loop prints, ``...`` stands for anything. A block that opens a Solr index
(``.open(``) runs against the tests' Solr. The README's shell transcripts (``$ command`` and
what it prints) are run too, timings aside.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = [README, *sorted((REPO / "docs").glob("*.md"))]
_PRINT = re.compile(r"^\s*print\(.*\)\s+#\s(.*)$")
#: A run's duration in a command's output: ``(0.3 s)``.
_SECONDS = re.compile(r"\(\d+(\.\d+)? s\)")


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


def expected_lines(block: str) -> list[str]:
    out: list[str] = []
    for line in block.splitlines():
        m = _PRINT.match(line)
        if m:
            out += [part.strip() for part in m.group(1).split(" | ")]
    return out


def matches(expected: str, got: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, got) is not None


def run(block: str, cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", block],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def check(block: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    got, want = run(block, cwd, env), expected_lines(block)
    assert len(got) == len(want), got
    for g, w in zip(got, want, strict=True):
        assert matches(w, g), (w, g)


def _examples() -> list[object]:
    params = []
    for path in DOCS:
        for n, block in enumerate(python_blocks(path), start=1):
            solr = ".open(" in block
            params.append(
                pytest.param(
                    block,
                    solr,
                    id=f"{path.relative_to(REPO)}:{n}",
                    marks=[pytest.mark.solr] if solr else [],
                )
            )
    return params


def test_the_examples_check_something() -> None:
    blocks = {p: python_blocks(p) for p in DOCS}
    assert len(blocks[README]) >= 2 and len(blocks[REPO / "docs" / "python.md"]) >= 3
    assert all(expected_lines(b) for bs in blocks.values() for b in bs)
    assert matches("a ... c", "a b b c") and not matches("a ... c", "a b b d")
    assert len(README.read_text(encoding="utf-8")) <= 15_000  # a front page, not a manual


@pytest.mark.parametrize(("block", "solr"), _examples())
def test_an_example(block: str, solr: bool, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    env = dict(os.environ)
    if solr:
        from neardup.solr import admin

        base = request.getfixturevalue("solr_base")
        env["NEARDUP_SOLR_URL"] = base
        for name in set(re.findall(r'collection="(\w+)"', block)):
            admin.delete_collection(admin.connect(base, name))
    check(block, tmp_path, env)


def transcripts(path: Path) -> list[tuple[str, list[str]]]:
    """``(command, the lines it prints)`` of every ``$ command`` in the unlabelled blocks."""
    found: list[tuple[str, list[str]]] = []
    fence: str | None = None  # the language of the block the line is in, "" for none
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
            found.append(("", []))  # a block's end ends its last command's output
        elif fence == "" and line.startswith("$ "):
            found.append((line[2:], []))
        elif fence == "":
            found[-1][1].append(line)
    return [(command, out) for command, out in found if command]


def test_the_readme_transcripts(tmp_path: Path) -> None:
    """The README's own-CSV example, then its shell lines: the same output, timings aside."""
    (csv_block,) = [b for b in python_blocks(README) if "people.csv" in b]
    run(csv_block, tmp_path)
    commands = transcripts(README)
    assert [c for c, _ in commands][:1] == [
        "neardup dedupe people.csv --out deduped.csv --review review.html --backend memory"
    ]
    bin_dir = Path(sys.executable).parent
    for command, want in commands:
        argv = shlex.split(command)
        if argv[0] == "neardup":
            argv = [sys.executable, "-m", "neardup", *argv[1:]]
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=300, cwd=tmp_path,
            env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        got = [_SECONDS.sub("(s)", ln) for ln in proc.stdout.splitlines()]
        assert got == [_SECONDS.sub("(s)", ln) for ln in want], command


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def broken_links(path: Path) -> list[str]:
    """The relative links of a Markdown file whose file, or heading, does not exist."""
    text = path.read_text(encoding="utf-8")
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            bad.append(target)
        elif anchor and where.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", where.read_text(encoding="utf-8"), flags=re.M)
            if anchor not in {_anchor(h) for h in headings}:
                bad.append(target)
    return bad


def test_link_check_sees_a_missing_file_and_heading(tmp_path: Path) -> None:
    page = tmp_path / "a.md"
    page.write_text("# A page, of ours\n[x](#a-page-of-ours) [y](b.md) [z](#nothing) [w](https://x)\n")
    assert broken_links(page) == ["b.md", "#nothing"]


def test_every_link_of_the_docs_exists() -> None:
    assert {str(p.relative_to(REPO)): broken_links(p) for p in DOCS} == {
        str(p.relative_to(REPO)): [] for p in DOCS
    }


def command_lines(path: Path) -> list[str]:
    """Every ``neardup ...`` command of the fenced blocks of a Markdown file (a ``$`` prompt
    dropped, indented continuation lines of a synopsis joined to their command)."""
    found: list[str] = []
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced and re.match(r"(\$ )?neardup ", line):
            found.append(line.removeprefix("$ "))
        elif fenced and found and re.match(r"\s+\[", line):
            found[-1] += " " + line.strip()
    return found


def test_every_documented_command_and_flag_exists() -> None:
    """A synopsis names real verbs and flags; a command shown run parses as it is written."""
    from neardup.cli.main import build_parser

    parser = build_parser()
    (verbs,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = [(p, c) for p in DOCS for c in command_lines(p)]
    assert len(commands) >= 20
    for path, command in commands:
        where = f"{path.relative_to(REPO)}: {command}"
        argv = shlex.split(command.replace("$D", "neardup/resources/restaurants"), comments=True)
        sub = verbs.choices.get(argv[1])
        assert sub is not None, where
        flags = re.findall(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*|-[a-z])\b", " ".join(argv[2:]))
        unknown = [f for f in flags if f not in sub._option_string_actions]
        assert unknown == [], where
        if not re.search(r"[\[|]|\.\.\.", command):  # no synopsis syntax: it must parse
            try:
                parser.parse_args(argv[1:])
            except SystemExit:
                pytest.fail(f"does not parse: {where}")
