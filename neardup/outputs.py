"""Files neardup writes: checked before the work starts, and written whole or not at all.

A run that indexes and reports for minutes must not fail at the end on a path it could have
checked at the start (:func:`check_output`), and a run that fails or is interrupted must leave
no half-written or empty file (:class:`AtomicFile`). What is replaced is only ever a regular
file: a device (``/dev/null``, ``/dev/full``), a FIFO or a terminal is written through, and a
symbolic link is followed (the file it points at is replaced; the link stays a link).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from .errors import InputError, OutputError

#: Write errors that are the output's, not the input's: said as such, without a traceback.
WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE)


def check_output(path: str | Path, what: str = "output", inputs: Iterable[Path] = ()) -> Path:
    """``path`` if a file can be written there, else an :class:`InputError` that says why:
    a directory, no such directory, no permission, or one of ``inputs`` (never overwritten)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: the {what} is a directory")
    real = path.resolve()
    for source in inputs:
        if source.exists() and real == Path(source).resolve():
            raise InputError(f"{path}: the {what} would overwrite the input")
    if path.exists():
        if not os.access(real, os.W_OK):
            raise InputError(f"{path}: the {what} cannot be written (permission denied)")
        if not _regular(real):
            return path  # written through: its directory need not be writable
    parent = real.parent
    if not parent.is_dir():
        raise InputError(f"{path}: no such directory {str(path.parent)!r}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{path}: the {what} cannot be written in {str(parent)!r}")
    return path


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True  # does not exist (yet): it will be a regular file


class AtomicFile:
    """A file written under a temporary name beside its target and renamed over it only when
    complete (:meth:`done`); :meth:`fail` (or leaving the ``with`` block on an error) removes
    the temporary file and leaves the target as it was. A target that exists and is not a
    regular file is opened and written through instead; a symbolic link's target is the file
    replaced."""

    def __init__(self, target: str | Path, text: bool = False) -> None:
        self.target = Path(target)
        real = self.target.resolve()
        self.tmp: Path | None = None
        self.fh: IO[Any]
        if self.target.exists() and not _regular(real):
            path = real
        else:
            self.tmp = path = real.with_name(f".{real.name}.{os.getpid()}.tmp")
            self.real = real
        if text:
            self.fh = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        else:
            self.fh = open(path, "wb")  # noqa: SIM115 - closed by done() or fail()

    def done(self) -> None:
        try:
            self.fh.close()
            if self.tmp is not None:
                os.replace(self.tmp, self.real)
        except OSError as exc:
            self.fail()
            raise self.error(exc) from None

    def fail(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass  # the data that could not be flushed is being thrown away anyway
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)

    def error(self, exc: OSError) -> OutputError:
        """What the user is told when this file cannot be written."""
        return OutputError(f"{self.target}: cannot be written: {exc.strerror or exc}")

    def __enter__(self) -> IO[Any]:
        return self.fh

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.done()
            return
        self.fail()
        if isinstance(exc, OSError) and exc.errno in WRITE_ERRORS:
            raise self.error(exc) from None
