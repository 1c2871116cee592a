"""Rebuild the bundled Fodor's/Zagat's restaurant dataset from the py-entitymatching sdist.

Usage:
    python data/restaurants/build.py [--sdist PATH_TO_TGZ] [--check]

Reads ``py_entitymatching/datasets/end-to-end/restaurants/`` straight out of the
py-entitymatching 0.4.2 sdist (no extraction to disk) and produces, in the package's resources
(``neardup/resources/restaurants/``, so that the data ships in the wheel):

* ``addresses.txt``: ``ID name addr city`` per record; Fodor's get ids 1..533 and
  Zagat's 534..864, both in source-file order (our id = position, not the CSV id).
* ``gold.txt``: the 112 known matches as tab-separated pairs of our ids.
* ``LICENSE.py_entitymatching.txt``: the sdist's LICENSE file, verbatim.

Without ``--check`` the files are written. With ``--check`` they are rebuilt in memory and
compared with the files on disk: exit 0 if identical, 1 (with a diff summary) otherwise.
Bad or missing input gives a one-line error and exit 2. If ``--sdist`` is omitted the sdist
is fetched with ``python -m pip download`` into a temporary directory.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "py-entitymatching"
VERSION = "0.4.2"
SDIST_NAME = f"{PACKAGE}-{VERSION}.tar.gz"
SDIST_SHA256 = "3656a8ab0bdce297ed3ae13c890c0091deeae79367aad44e3f84effd44b60f7f"
TOP = f"{PACKAGE}-{VERSION}"
DATA_DIR = f"{TOP}/py_entitymatching/datasets/end-to-end/restaurants"
FODORS_MEMBER = f"{DATA_DIR}/fodors.csv"
ZAGATS_MEMBER = f"{DATA_DIR}/zagats.csv"
MATCHES_MEMBER = f"{DATA_DIR}/matches_fodors_zagats.csv"
MATCHES_MORE_MEMBER = f"{DATA_DIR}/match_fodors_zagats_more_attrs.csv"
LICENSE_MEMBER = f"{TOP}/LICENSE"

RECORD_HEADER = ["id", "name", "addr", "city", "phone", "type"]
MORE_HEADER = [
    "_id",
    "fodors_id",
    "zagats_id",
    "ltable_name",
    "ltable_addr",
    "ltable_city",
    "ltable_phone",
    "rtable_name",
    "rtable_addr",
    "rtable_city",
    "rtable_phone",
    "gold",
]
KEPT_FIELDS = ("name", "addr", "city")
N_FODORS = 533
N_ZAGATS = 331
N_MATCHES = 112

#: The data ships inside the package (neardup.resources.restaurants() finds it there); this
#: script stays outside it, in the repository, because building needs pip and the network.
REPO = Path(__file__).resolve().parents[2]
OUT_DIR = REPO / "neardup" / "resources" / "restaurants"
ADDRESSES = "addresses.txt"
GOLD = "gold.txt"
LICENSE_OUT = "LICENSE.py_entitymatching.txt"
GOLD_COMMENT = (
    "# id_a<TAB>id_b: a known Fodor's/Zagat's match, ids as in addresses.txt "
    "(Fodor's 1-533, Zagat's 534-864), smaller id first, sorted"
)


class BuildError(Exception):
    """Bad or missing input; reported as a one-line error with exit status 2."""


def read_member(tar: tarfile.TarFile, name: str) -> str:
    """Return the UTF-8 text of one regular file inside the sdist."""
    try:
        info = tar.getmember(name)
    except KeyError:
        raise BuildError(f"sdist has no member {name}") from None
    fh = tar.extractfile(info) if info.isfile() else None
    if fh is None:
        raise BuildError(f"sdist member {name} is not a regular file")
    try:
        return fh.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BuildError(f"{name} is not valid UTF-8: {exc}") from None


def parse_csv(text: str, name: str, header: list[str]) -> list[dict[str, str]]:
    """Parse CSV text, insisting on the exact header and a full row everywhere."""
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise BuildError(f"{name}: CSV error: {exc}") from None
    if not rows or rows[0] != header:
        raise BuildError(f"{name}: expected header {header}, got {rows[:1]}")
    records = []
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise BuildError(f"{name}:{lineno}: expected {len(header)} fields, got {len(row)}")
        records.append(dict(zip(header, row, strict=True)))
    return records


def id_map(records: list[dict[str, str]], first_id: int, name: str) -> dict[int, int]:
    """Map each CSV id to our id: first_id + 0-based position in the file."""
    mapping: dict[int, int] = {}
    for pos, rec in enumerate(records):
        try:
            csv_id = int(rec["id"])
        except ValueError:
            raise BuildError(f"{name}: non-integer id {rec['id']!r}") from None
        if csv_id in mapping:
            raise BuildError(f"{name}: duplicate id {csv_id}")
        mapping[csv_id] = first_id + pos
    return mapping


def address_line(our_id: int, rec: dict[str, str], name: str) -> str:
    fields = [rec[key].strip() for key in KEPT_FIELDS]
    if not all(fields):
        raise BuildError(f"{name}: record id {rec['id']} has an empty name/addr/city")
    return " ".join([str(our_id), *fields])


def read_pairs(
    text: str, name: str, header: list[str], left: str, right: str
) -> set[tuple[int, int]]:
    pairs: set[tuple[int, int]] = set()
    for rec in parse_csv(text, name, header):
        try:
            pair = (int(rec[left]), int(rec[right]))
        except ValueError:
            raise BuildError(f"{name}: non-integer id in {rec}") from None
        if pair in pairs:
            raise BuildError(f"{name}: duplicate pair {pair}")
        pairs.add(pair)
    return pairs


def build(sdist: Path) -> dict[str, str]:
    """Return {output file name: content} built from the sdist at ``sdist``."""
    if not sdist.is_file():
        raise BuildError(f"sdist not found: {sdist}")
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise BuildError(f"{sdist}: sha256 {digest} does not match expected {SDIST_SHA256}")
    try:
        with tarfile.open(sdist, "r:gz") as tar:
            fodors_text = read_member(tar, FODORS_MEMBER)
            zagats_text = read_member(tar, ZAGATS_MEMBER)
            matches_text = read_member(tar, MATCHES_MEMBER)
            more_text = read_member(tar, MATCHES_MORE_MEMBER)
            license_text = read_member(tar, LICENSE_MEMBER)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise BuildError(f"cannot read sdist {sdist}: {exc}") from None

    fodors = parse_csv(fodors_text, "fodors.csv", RECORD_HEADER)
    zagats = parse_csv(zagats_text, "zagats.csv", RECORD_HEADER)
    if (len(fodors), len(zagats)) != (N_FODORS, N_ZAGATS):
        raise BuildError(
            f"expected {N_FODORS} Fodor's and {N_ZAGATS} Zagat's records, "
            f"got {len(fodors)} and {len(zagats)}"
        )
    fodors_ids = id_map(fodors, 1, "fodors.csv")
    zagats_ids = id_map(zagats, N_FODORS + 1, "zagats.csv")

    lines = [address_line(fodors_ids[int(r["id"])], r, "fodors.csv") for r in fodors]
    lines += [address_line(zagats_ids[int(r["id"])], r, "zagats.csv") for r in zagats]

    matches = read_pairs(
        matches_text,
        "matches_fodors_zagats.csv",
        ["fodors_id", "zagats_id"],
        "fodors_id",
        "zagats_id",
    )
    more = read_pairs(
        more_text,
        "match_fodors_zagats_more_attrs.csv",
        MORE_HEADER,
        "fodors_id",
        "zagats_id",
    )
    if len(matches) != N_MATCHES:
        raise BuildError(f"expected {N_MATCHES} matches, got {len(matches)}")
    if matches != more:
        raise BuildError("matches_fodors_zagats.csv and match_fodors_zagats_more_attrs.csv differ")

    gold: list[tuple[int, int]] = []
    for f_csv, z_csv in matches:
        if f_csv not in fodors_ids or z_csv not in zagats_ids:
            raise BuildError(f"match ({f_csv}, {z_csv}) refers to an unknown Fodor's/Zagat's id")
        a, b = fodors_ids[f_csv], zagats_ids[z_csv]
        gold.append((min(a, b), max(a, b)))
    gold.sort()
    for a, b in gold:
        if not (1 <= a <= N_FODORS < b <= N_FODORS + N_ZAGATS):
            raise BuildError(f"gold pair {a}-{b} is not one Fodor's and one Zagat's id")

    return {
        ADDRESSES: "\n".join(lines) + "\n",
        GOLD: "\n".join([GOLD_COMMENT, *(f"{a}\t{b}" for a, b in gold)]) + "\n",
        LICENSE_OUT: license_text,
    }


def fetch_sdist(dest: Path) -> Path:
    """Download the sdist with pip into ``dest`` and return its path.

    ``--no-binary`` names only this package: ``:all:`` would also force pip's isolated
    metadata build to compile numpy from source, which fails without a toolchain and then
    pip keeps no archive at all.
    """
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        PACKAGE,
        f"{PACKAGE}=={VERSION}",
        "-d",
        str(dest),
    ]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BuildError(f"cannot run pip: {exc}") from None
    sdist = dest / SDIST_NAME
    if not sdist.is_file():
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise BuildError(
            f"pip download did not produce {SDIST_NAME} (exit {result.returncode}): {tail[0]}"
        )
    return sdist


def check(expected: dict[str, str]) -> int:
    """Compare built content with files on disk; print a summary; return the exit status."""
    bad = 0
    for name, content in expected.items():
        path = OUT_DIR / name
        if not path.is_file():
            print(f"{name}: missing")
            bad += 1
            continue
        current = path.read_bytes().decode("utf-8", errors="replace")
        if current == content:
            print(f"{name}: ok")
            continue
        bad += 1
        diff = list(
            difflib.unified_diff(
                current.splitlines(),
                content.splitlines(),
                f"{name} (on disk)",
                f"{name} (rebuilt)",
                lineterm="",
                n=0,
            )
        )
        body = diff[2:]
        removed = sum(1 for d in body if d.startswith("-"))
        added = sum(1 for d in body if d.startswith("+"))
        print(f"{name}: differs ({removed} lines only on disk, {added} only in rebuild)")
        for d in diff[:12]:
            print(f"    {d}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sdist", type=Path, help=f"path to {SDIST_NAME} (default: pip download)")
    parser.add_argument(
        "--check", action="store_true", help="verify the files on disk instead of writing them"
    )
    args = parser.parse_args(argv)
    try:
        if args.sdist is not None:
            files = build(args.sdist)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                files = build(fetch_sdist(Path(tmp)))
        if args.check:
            return check(files)
        for name, content in files.items():
            (OUT_DIR / name).write_text(content, encoding="utf-8", newline="\n")
            print(f"wrote {OUT_DIR / name}")
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
