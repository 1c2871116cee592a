"""The bytes of an input: a file, or a pipe read once.

A pipe or a FIFO (``/dev/stdin``) is read once: its first bytes are kept for the choices made
before reading (format, separator, id column) and read again from memory, then the rest from
the pipe (:func:`open_input`). A FIFO without a writer is waited on for :data:`FIFO_WAIT`
seconds, then refused, rather than blocking in ``open()`` for ever.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import InputError
from .checks import LINE_ROOM, MAX_RECORD_BYTES

#: How long a FIFO given as input is waited on for a writer, in seconds: ``open()`` of a FIFO
#: blocks until a writer opens it too, and a FIFO that nothing writes to would block for ever.
FIFO_WAIT = 10.0
#: How much of a file's start is read to choose how to read it (its separator:
#: :func:`neardup.read.sniff.sniff_table`), and kept of a pipe to be read again.
SNIFF_BYTES = 1 << 16
#: Bytes a reader asks the file for at once. Each refill lets go of the GIL and must win it
#: back from the threads that sign and send records: with the default 8 KB, 100k documents
#: (120 MB) were 15k refills, and reading was 0.9 s of indexing them into Solr; 256 KB makes
#: them 470 (and two files read side by side, as dedupe does, hold 0.5 MB).
READ_BUFFER = 1 << 18


@dataclass
class _Stream:
    """A pipe or FIFO opened for reading: its first bytes, read and kept, and the rest."""

    head: bytes
    rest: IO[bytes]


#: The pipes and FIFOs whose first bytes were read (:func:`first_bytes`) and the rest not yet, by
#: path: the choices made before reading (format, separator, id column) are read off those
#: bytes, and the reader takes them (:func:`open_input`), so that a pipe is read once.
_STREAMS: dict[str, _Stream] = {}


def no_file(path: Path) -> str:
    """Why ``path``, not a file that can be read, is not one, in words: a directory, a loop of
    symbolic links or one to a missing file (both ``ls`` lists: "no such file" misled), or
    no such file."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{path}: a loop of symbolic links (too many levels of links to follow)"
        if path.is_symlink():
            return f"{path}: a symbolic link to a file that does not exist ({os.readlink(path)})"
        if str(path) == "-":
            return ("-: standard input is not read here (give a file; a pipe as /dev/stdin "
                    "where the verb reads its input once, as index and review do)")
        return f"{path}: no such file"
    return f"{path}: is a directory, not a file" if path.is_dir() else f"{path}: not a file"


def is_stream(path: Path) -> bool:
    """Whether ``path`` is a pipe, a FIFO, a terminal or another device: bytes that can be read
    only once, not a file that can be opened again."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def first_bytes(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (all of them if it is shorter); of a pipe, of the
    bytes kept of it (:data:`_STREAMS`)."""
    if is_stream(path):
        kept = _STREAMS.get(str(path))
        if kept is None:
            rest = _open_stream(path)
            kept = _STREAMS[str(path)] = _Stream(_read_head(rest), rest)
        return kept.head[:size]
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read: {exc.strerror or exc}") from None


def _read_head(fh: IO[bytes]) -> bytes:
    """The first bytes of a pipe, kept to be read again: its first line that is not blank (a
    table's header, the first JSON object: they name the id; waited for, up to a record's
    longest line), then what has come already, up to :data:`SNIFF_BYTES` (a table's separator
    is read off them). Nothing more is waited for: a program that writes a line at a time is
    read as it writes."""
    import select

    head = bytearray()
    first: int | None = None  # where the first byte that is not white space is
    line = False  # whether the line of that byte has ended
    while (len(head) < SNIFF_BYTES or not line) and len(head) < MAX_RECORD_BYTES + LINE_ROOM:
        if line and not select.select([fh], [], [], 0)[0]:
            break  # the first line is in, and nothing more has come yet
        chunk = fh.read(SNIFF_BYTES)  # unbuffered: what has come, b"" at the end
        if not chunk:
            break
        start = len(head)
        head += chunk
        if first is None and chunk.strip():
            first = start + len(chunk) - len(chunk.lstrip())
        if first is not None and not line:
            line = head.find(b"\n", max(first, start)) >= 0
    return bytes(head)


def _open_stream(path: Path) -> IO[bytes]:
    """A pipe, FIFO or device opened for reading, unbuffered. ``open()`` of a FIFO waits until
    a writer opens it: it is waited on in a thread for :data:`FIFO_WAIT` seconds, then the FIFO
    is refused, and the waiting ``open()`` released by a writer opened and closed here."""
    import threading

    opened: list[int] = []
    failed: list[OSError] = []

    def opener() -> None:
        try:
            opened.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
        except OSError as exc:
            failed.append(exc)

    try:
        fifo = stat.S_ISFIFO(path.stat().st_mode)
    except OSError:
        fifo = False
    if not fifo:  # a pipe (/dev/stdin) has its writer; a device opens at once
        opener()
    else:
        waiter = threading.Thread(target=opener, name="neardup-fifo", daemon=True)
        waiter.start()
        waiter.join(FIFO_WAIT)
        if waiter.is_alive():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC))
            except OSError:
                pass  # then the thread stays blocked; it is a daemon
            waiter.join(1.0)
            for fd in opened:
                os.close(fd)
            raise InputError(
                f"{path}: a FIFO that no program writes to: none opened it within "
                f"{FIFO_WAIT:g} seconds (start the program that writes to it first, or give "
                "a file)"
            )
    if failed:
        raise InputError(f"{path}: cannot be read: {failed[0].strerror or failed[0]}")
    return open(opened[0], "rb", buffering=0)


class _Chained(io.RawIOBase):
    """The bytes kept of a pipe, then the rest of the pipe."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        super().__init__()
        self._head, self._at, self._rest = memoryview(head), 0, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._at < len(self._head):
            n = min(len(buffer), len(self._head) - self._at)
            buffer[:n] = self._head[self._at : self._at + n]
            self._at += n
            return n
        return self._rest.readinto(buffer)  # type: ignore[attr-defined]

    def close(self) -> None:
        try:
            self._rest.close()
        finally:
            super().close()


def open_input(path: Path, head_only: bool = False) -> IO[bytes]:
    """``path`` opened to be read: a file from its start; a pipe from the bytes kept of it
    (:func:`first_bytes`), then the rest, which is taken: read once, what a second reader of the
    same pipe gets is what is left in it. ``head_only``: of a pipe, only the bytes kept."""
    if not is_stream(path):
        return open(path, "rb", buffering=READ_BUFFER)
    if head_only:
        first_bytes(path, 0)
        return io.BytesIO(_STREAMS[str(path)].head)
    kept = _STREAMS.pop(str(path), None)
    if kept is None:
        kept = _Stream(b"", _open_stream(path))
    return io.BufferedReader(_Chained(kept.head, kept.rest), READ_BUFFER)  # type: ignore[arg-type]


def raw_lines(path: str | Path) -> Iterator[bytes]:
    """The lines of a file as bytes, line endings included, numbered as the readers number
    them (a line ends at ``\\n``; ``\\r`` is part of the line's ending)."""
    with open_input(Path(path)) as fh:
        yield from fh
