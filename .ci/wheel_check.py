"""Does neardup work as a user gets it: built into a wheel and installed away from the checkout?

Usage (run by ``make wheel-check``, which .ci/run calls after ``make test``):

    .venv/bin/python .ci/wheel_check.py [--solr-url URL] [--keep]

1. contents: build the sdist and, from it, the wheel (``python -m build``, so a file missing from
   MANIFEST.in is missing from the wheel too); both must hold every module and resource of
   neardup, the sdist the C kernel's source and ``solr_config/``, the wheel ``solr_config/``'s
   files byte for byte as ``neardup/resources/solr`` (and no other there), neither a launcher
   ``target/``.
2. install: a fresh virtualenv in a temporary directory outside the checkout, the wheel
   installed into it with its dependencies from PyPI; ``import neardup`` must come from there.
3. solr: ``neardup solr start`` from that virtualenv, in a temporary ``NEARDUP_HOME``: it builds
   the launcher from the packaged source (skipped with ``--solr-url``, which uses that Solr).
4. experiment: ``neardup experiment restaurants`` from a temporary working directory; the table
   must show the known figures (pairs: shingles 72, minhash 71, lsh 98).
5. readme: every fenced ``python`` block under the README's "## Python" heading, then every one
   of docs/python.md (the Python API), in order, in one namespace (as a reader pastes them into
   one session), with ``NEARDUP_SOLR_URL`` set.

The node is stopped at the end whatever happens. Without a Solr (none starts), the Solr checks
are skipped with the reason, except with ``CI=true``, where that fails the run. The last line is
``wheel-check: N passed, N failed`` (and ``, N skipped``); the exit status is 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
#: The Python API's page: its examples run from the installed wheel too.
PYTHON_DOC = REPO / "docs" / "python.md"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
#: Pairs found per method on the bundled restaurant data (README, "The restaurant experiment").
EXPECTED_PAIRS = {"shingles": 72, "minhash": 71, "lsh": 98}
EXPERIMENT_FILES = ("shingles.tsv", "minhash.tsv", "lsh.tsv", "lsh_clusters.txt")
BUILD_TIMEOUT = 900
INSTALL_TIMEOUT = 900
SOLR_TIMEOUT = 900  # a first start fetches Solr's artifacts from Maven Central
RUN_TIMEOUT = 900


class CheckFailed(Exception):
    """One check's failure, with the reason printed in the summary."""


class Skipped(Exception):
    """A check that cannot run here (no Solr outside CI)."""


@dataclass
class Checker:
    results: list[tuple[str, str, str]] = field(default_factory=list)  # (name, status, detail)

    def run(self, name: str, func: Callable[[], str]) -> bool:
        print(f"--- {name}", flush=True)
        start = time.monotonic()
        try:
            detail, status = func(), "passed"
        except Skipped as exc:
            detail, status = str(exc), "skipped"
        except CheckFailed as exc:
            detail, status = str(exc), "failed"
        except subprocess.TimeoutExpired as exc:
            detail, status = f"timed out after {exc.timeout:.0f} s: {_cmd(exc.cmd)}", "failed"
        except Exception as exc:  # a bug or an unexpected answer: this check fails, not the rest
            detail, status = f"{type(exc).__name__}: {exc}", "failed"
        seconds = time.monotonic() - start
        self.results.append((name, status, detail))
        print(f"{name}: {status} ({seconds:.1f} s){': ' + detail if detail else ''}", flush=True)
        return status == "passed"

    def skip_rest(self, names: list[str], reason: str) -> None:
        for name in names:
            self.results.append((name, "skipped", reason))
            print(f"{name}: skipped: {reason}", flush=True)

    def count(self, status: str) -> int:
        return sum(1 for _, s, _ in self.results if s == status)


def _cmd(cmd: Any) -> str:
    return " ".join(str(c) for c in cmd) if isinstance(cmd, list | tuple) else str(cmd)


def run(
    cmd: list[str | Path],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float,
    echo: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a command; its output is printed (indented) when ``echo``, and returned."""
    proc = subprocess.run(
        [str(c) for c in cmd],
        cwd=str(cwd),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if echo or proc.returncode:
        out = (proc.stdout + proc.stderr).rstrip()
        if out:
            print(textwrap.indent(out, "    "), flush=True)
    return proc


# -- 1. contents ---------------------------------------------------------------------------
#: The Solr files' home in the checkout, and where the wheel carries them (setup.py copies them).
SOLR_CONFIG = REPO / "solr_config"
PACKAGED_SOLR = "neardup/resources/solr/"


def solr_config_files() -> dict[str, bytes]:
    """solr_config/'s files (no launcher build output) by their path relative to it."""
    return {
        p.relative_to(SOLR_CONFIG).as_posix(): p.read_bytes()
        for p in sorted(SOLR_CONFIG.rglob("*"))
        if p.is_file() and not {"target", "__pycache__"} & set(p.relative_to(SOLR_CONFIG).parts)
    }


def expected_files() -> set[str]:
    """What the wheel must hold: neardup's modules, every file under neardup/resources, and
    solr_config/'s files under neardup/resources/solr."""
    package = REPO / "neardup"
    found = {PACKAGED_SOLR + name for name in solr_config_files()}
    for path in package.rglob("*"):
        rel = path.relative_to(REPO)
        if not path.is_file() or "__pycache__" in rel.parts or "target" in rel.parts:
            continue
        if path.suffix == ".py" or (
            "resources" in rel.parts and path.suffix not in (".pyc", ".so", ".pyd")
        ):
            found.add(rel.as_posix())
    return found


def build(dist: Path) -> tuple[Path, Path]:
    try:
        import build  # noqa: F401
    except ImportError:
        raise CheckFailed(
            f"{sys.executable} has no 'build' module: install the test extra "
            "(pip install -e '.[test]', which make does)"
        ) from None
    proc = run(
        [sys.executable, "-m", "build", "--outdir", dist, REPO],
        cwd=REPO,
        timeout=BUILD_TIMEOUT,
        echo=False,
    )
    if proc.returncode:
        raise CheckFailed(f"python -m build exited with {proc.returncode}")
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        raise CheckFailed(f"expected one wheel and one sdist in {dist}, got {wheels + sdists}")
    return wheels[0], sdists[0]


def check_contents(wheel: Path, sdist: Path) -> str:
    import tarfile

    with zipfile.ZipFile(wheel) as zf:
        in_wheel = set(zf.namelist())
        packaged_solr = {
            n.removeprefix(PACKAGED_SOLR): zf.read(n)
            for n in in_wheel
            if n.startswith(PACKAGED_SOLR) and not n.endswith("/")
        }
    with tarfile.open(sdist) as tf:
        top = sdist.name.removesuffix(".tar.gz") + "/"
        in_sdist = {m.name.removeprefix(top) for m in tf.getmembers() if m.isfile()}
    expected = expected_files()
    problems = []
    if missing := sorted(expected - in_wheel):
        problems.append(f"wheel lacks {missing}")
    solr_config = solr_config_files()
    in_sdist_expected = {n for n in expected if not n.startswith(PACKAGED_SOLR)}
    in_sdist_expected |= {"neardup/_kernel.c", *(f"solr_config/{n}" for n in solr_config)}
    if missing := sorted(in_sdist_expected - in_sdist):
        problems.append(f"sdist lacks {missing}")
    if packaged_solr != solr_config:  # the same files, byte for byte, and no other
        differ = sorted(
            n
            for n in packaged_solr.keys() | solr_config.keys()
            if packaged_solr.get(n) != solr_config.get(n)
        )
        problems.append(f"the wheel's {PACKAGED_SOLR} differs from solr_config/ in {differ}")
    if any(n.startswith("neardup/resources/solr/") for n in in_sdist):
        problems.append("the sdist holds a second copy of the Solr files in neardup/resources/solr")
    for label, names in (("wheel", in_wheel), ("sdist", in_sdist)):
        if stray := sorted(n for n in names if "/target/" in n or "__pycache__" in n):
            problems.append(f"{label} holds build output {stray[:5]}")
    if not any(n.endswith(".dist-info/entry_points.txt") for n in in_wheel):
        problems.append("wheel has no entry points (the neardup command)")
    if problems:
        raise CheckFailed("; ".join(problems))
    resources = sorted(n for n in in_wheel if n.startswith("neardup/resources/"))
    print(f"    wheel: {len(in_wheel)} files, {len(resources)} under neardup/resources/")
    for name in resources:
        print(f"      {name}")
    return (
        f"{wheel.name} {wheel.stat().st_size / 1024:.0f} KiB ({len(in_wheel)} files), "
        f"{sdist.name} {sdist.stat().st_size / 1024:.0f} KiB ({len(in_sdist)} files)"
    )


# -- 2. install ----------------------------------------------------------------------------
def clean_env(venv: Path, home: Path, solr_url: str | None = None) -> dict[str, str]:
    """The environment of a user of the installed wheel: nothing of the checkout's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("NEARDUP_") and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["NEARDUP_HOME"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    if solr_url:
        env["NEARDUP_SOLR_URL"] = solr_url
    return env


PROBE = """
import json, neardup, neardup.resources as r, neardup.sign.kernel as k
paths = [r.configset_dir() / "conf" / "schema.xml", r.launcher_dir() / "pom.xml", r.solr_xml(),
         *r.restaurants()]
print(json.dumps({"file": neardup.__file__, "version": neardup.__version__, "solr_dir": str(r.SOLR),
                  "solr": r.solr_version(), "missing": [str(p) for p in paths if not p.is_file()],
                  "compiled_kernel": bool(k.compiled())}))
"""


def install(tmp: Path, wheel: Path, venv: Path, work: Path, home: Path) -> str:
    proc = run([sys.executable, "-m", "venv", venv], cwd=tmp, timeout=300)
    if proc.returncode:
        raise CheckFailed(f"python -m venv exited with {proc.returncode}")
    python = venv / "bin" / "python"
    env = clean_env(venv, home)
    cmd = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel]
    proc = run(cmd, cwd=work, env=env, timeout=INSTALL_TIMEOUT)
    if proc.returncode:
        raise CheckFailed(f"pip install of the wheel exited with {proc.returncode}")
    proc = run([python, "-c", PROBE], cwd=work, env=env, timeout=120, echo=False)
    if proc.returncode:
        raise CheckFailed(f"import neardup failed in the new virtualenv: {proc.stderr.strip()}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    where = Path(info["file"]).resolve()
    if venv.resolve() not in where.parents:
        raise CheckFailed(f"neardup was imported from {where}, not from the new virtualenv")
    if info["missing"]:
        raise CheckFailed(f"installed resources missing: {info['missing']}")
    if Path(info["solr_dir"]).resolve() != where.parent / "resources" / "solr":
        raise CheckFailed(f"the installed neardup reads its Solr files from {info['solr_dir']}")
    if not (venv / "bin" / "neardup").is_file():
        raise CheckFailed("the wheel installed no neardup command")
    kernel = "compiled C kernel" if info["compiled_kernel"] else "numpy kernel (no C kernel)"
    return f"neardup {info['version']} from {where.parent}, Solr {info['solr']}, {kernel}"


# -- 3. solr -------------------------------------------------------------------------------
def start_solr(venv: Path, work: Path, home: Path) -> str:
    env = clean_env(venv, home)
    proc = run(
        [venv / "bin" / "neardup", "solr", "start", "--json"],
        cwd=work,
        env=env,
        timeout=SOLR_TIMEOUT,
        echo=False,
    )
    if proc.returncode:
        reason = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        if "Traceback" in proc.stderr:  # the installed package is broken, not the machine
            raise CheckFailed(f"neardup solr start crashed: {reason[0]}")
        if IN_CI:
            raise CheckFailed(f"CI=true and Solr did not start: {reason[0]}")
        raise Skipped(f"no Solr: {reason[0]}")
    # Maven's "fetching Solr ... (once)" line may come before the JSON.
    text = proc.stdout
    if text[: text.find("{")].strip():
        print(textwrap.indent(text[: text.find("{")].rstrip(), "    "))
    info = json.loads(text[text.find("{") :])
    return str(info["url"])


def stop_solr(venv: Path, work: Path, home: Path) -> bool:
    """Stop the node of this ``NEARDUP_HOME`` (by its pid if the command cannot)."""
    state_file = home / "solr" / "node.json"
    if not state_file.exists():
        return True
    try:
        proc = run(
            [venv / "bin" / "neardup", "solr", "stop"],
            cwd=work,
            env=clean_env(venv, home),
            timeout=120,
        )
        if proc.returncode == 0:
            return True
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"    neardup solr stop: {exc}")
    try:
        pid = int(json.loads(state_file.read_text(encoding="utf-8"))["pid"])
        os.killpg(pid, signal.SIGKILL)  # the node runs in a session of its own
        print(f"    killed the node's process group {pid}")
        return True
    except ProcessLookupError:
        return True
    except (OSError, ValueError, KeyError) as exc:
        print(f"    could not stop the node: {exc}")
        return False


# -- 4. experiment -------------------------------------------------------------------------
def parse_pairs(table: str) -> dict[str, int]:
    """Method -> pairs from the experiment's table (``method pairs seed true ...`` rows)."""
    rows = re.findall(r"^(shingles|minhash|lsh)\s+(\d+)\s", table, flags=re.MULTILINE)
    return {method: int(pairs) for method, pairs in rows}


def experiment(venv: Path, work: Path, home: Path, solr_url: str, out: Path) -> str:
    proc = run(
        [venv / "bin" / "neardup", "experiment", "restaurants", "--out-dir", out],
        cwd=work,
        env=clean_env(venv, home, solr_url),
        timeout=RUN_TIMEOUT,
    )
    if proc.returncode:
        raise CheckFailed(f"neardup experiment restaurants exited with {proc.returncode}")
    found = parse_pairs(proc.stdout)
    if found != EXPECTED_PAIRS:
        raise CheckFailed(f"pairs {found}, expected {EXPECTED_PAIRS}")
    missing = [name for name in EXPERIMENT_FILES if not (out / name).is_file()]
    if missing:
        raise CheckFailed(f"{out} lacks {missing}")
    return "pairs " + ", ".join(f"{m} {n}" for m, n in found.items())


# -- 5. readme -----------------------------------------------------------------------------
@dataclass
class Block:
    line: int  # the line of the block's first code line in its file
    code: str
    file: str = "README.md"


def python_blocks(
    readme: str, heading: str | None = "Python", file: str = "README.md"
) -> list[Block]:
    """The fenced python blocks of the README's ``## <heading>`` section (up to the next level-1
    or level-2 heading; its ### subsections included), or of the whole text without a heading."""
    lines = readme.splitlines()
    start = -1 if heading is None else next(
        (i for i, ln in enumerate(lines) if re.match(rf"##\s+{re.escape(heading)}(\s|$)", ln)),
        None,
    )
    if start is None:
        return []
    blocks: list[Block] = []
    i = start + 1
    while i < len(lines) and (heading is None or not re.match(r"#{1,2}\s", lines[i])):
        fence = re.match(r"^(\s*)(`{3,}|~{3,})\s*(\w*)", lines[i])
        if fence is None:
            i += 1
            continue
        indent, marker, lang = fence.groups()
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(marker):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        if lang.lower() in ("python", "py", "python3", "pycon"):
            blocks.append(Block(line=i - len(body) + 1, code="\n".join(body) + "\n", file=file))
        i += 1
    return blocks


DRIVER = r'''
"""Runs the README's python blocks in order, in one namespace; doctest blocks as doctests."""
import doctest, json, sys, time, traceback

blocks = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {"__name__": "__main__"}
failed = 0
for n, block in enumerate(blocks, 1):
    label = f"{block['file']} block {n} (line {block['line']})"
    start = time.monotonic()
    ok = True
    try:
        if block["code"].lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(
                block["code"], namespace, label, block["file"], block["line"] - 1
            )
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            ok = runner.run(test, clear_globs=False).failed == 0
        else:
            code = compile("\n" * (block["line"] - 1) + block["code"], block["file"], "exec")
            exec(code, namespace)
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        ok = False
    failed += not ok
    print(f"{label}: {'ok' if ok else 'FAILED'} ({time.monotonic() - start:.1f} s)", flush=True)
print("README_RESULT " + json.dumps({"blocks": len(blocks), "failed": failed}))
sys.exit(1 if failed else 0)
'''


def readme_examples(venv: Path, work: Path, home: Path, solr_url: str, tmp: Path) -> str:
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    blocks += python_blocks(PYTHON_DOC.read_text(encoding="utf-8"), None, "docs/python.md")
    if not blocks:
        raise CheckFailed(
            f"{README.name} has no ```python blocks under a '## Python' heading: nothing to run"
        )
    print(f"    {len(blocks)} python blocks: {[f'{b.file}:{b.line}' for b in blocks]}")
    spec = tmp / "readme_blocks.json"
    spec.write_text(json.dumps([b.__dict__ for b in blocks]), encoding="utf-8")
    driver = tmp / "readme_driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    proc = run(
        [venv / "bin" / "python", driver, spec],
        cwd=work,
        env=clean_env(venv, home, solr_url),
        timeout=RUN_TIMEOUT,
    )
    result = re.search(r"^README_RESULT (.*)$", proc.stdout, flags=re.MULTILINE)
    if proc.returncode or result is None:
        summary = json.loads(result.group(1)) if result else {"failed": "?"}
        raise CheckFailed(f"{summary['failed']} of {len(blocks)} python blocks failed")
    return f"{len(blocks)} python blocks ran"


# -- main ----------------------------------------------------------------------------------
def checks(checker: Checker, tmp: Path, solr_url: str | None, solr: list[bool]) -> None:
    """The five checks in order; a check whose prerequisite failed is skipped with the reason."""
    venv, work, home, dist = tmp / "venv", tmp / "work", tmp / "home", tmp / "dist"
    work.mkdir()
    built: list[Path] = []

    def contents() -> str:
        built.extend(build(dist))
        return check_contents(*built)

    checker.run("contents", contents)
    if not built:
        return checker.skip_rest(["install", "solr", "experiment", "readme"], "no wheel")
    if not checker.run("install", lambda: install(tmp, built[0], venv, work, home)):
        return checker.skip_rest(["solr", "experiment", "readme"], "the wheel did not install")
    urls: list[str] = []
    if solr_url:
        urls.append(solr_url)
        checker.skip_rest(["solr"], f"--solr-url {solr_url}: the installed node was not started")
    else:

        def start() -> str:
            solr[0] = True
            urls.append(start_solr(venv, work, home))
            return f"the packaged launcher runs Solr at {urls[0]}"

        checker.run("solr", start)
    if not urls:
        return checker.skip_rest(["experiment", "readme"], "no Solr")
    checker.run("experiment", lambda: experiment(venv, work, home, urls[0], tmp / "out"))
    checker.run("readme", lambda: readme_examples(venv, work, home, urls[0], tmp))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--solr-url", help="use this Solr (base URL) instead of starting the installed node"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    # A TERM (CI's time limit, make interrupted) must still stop the node: finally blocks run.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="neardup-wheel-check-")).resolve()
    if tmp == REPO or REPO in tmp.parents:
        print(f"wheel check: the temporary directory {tmp} is inside the checkout; set TMPDIR")
        return 1
    print(f"wheel check in {tmp} (CI={'true' if IN_CI else 'false'})", flush=True)
    checker = Checker()
    solr_started = [False]
    try:
        checks(checker, tmp, args.solr_url, solr_started)
    finally:
        if solr_started[0]:
            stopped = stop_solr(tmp / "venv", tmp / "work", tmp / "home")
            if not stopped:
                checker.results.append(("stop", "failed", "the node could not be stopped"))
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"wheel check took {time.monotonic() - started:.0f} s")
    for name, status, detail in checker.results:
        if status != "passed":
            print(f"  {status}: {name}: {detail}")
    skipped = checker.count("skipped")
    tail = f", {skipped} skipped" if skipped else ""
    print(f"wheel-check: {checker.count('passed')} passed, {checker.count('failed')} failed{tail}")
    # Outside CI a skip (no Solr) is not a failure; in CI the Solr checks never skip.
    return 1 if checker.count("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
