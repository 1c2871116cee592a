"""The lines of a text file as the readers see them, and ``ID TEXT`` lines.

A byte-order mark at the start of a line (of the file, or of files joined) and ``\\r\\n``
endings are repaired; blank lines are skipped and counted; a line with a NUL byte is rejected,
and so is a line too long to hold a record (:data:`~neardup.read.checks.LINE_ROOM`), before it
is decoded. In ``ID TEXT`` lines, a carriage return alone inside a line is rejected (it would
join two lines into one record).

**Bytes that are not UTF-8** are read as Windows-1252, said once per file
(:class:`~neardup.errors.NotUtf8`). Tables exported on Windows (Excel's "CSV", many catalogues
and public datasets) are Windows-1252 or Latin-1, whose letters past ASCII are never valid
UTF-8; rejecting their lines lost a record for every accented name or curly quote. A line is
read as UTF-8 where it is valid and byte by byte as Windows-1252 where it is not (Latin-1 for
the five bytes Windows-1252 leaves undefined), so a UTF-8 file with one broken byte keeps its
other letters. Why not a detector (charset-normalizer, chardet): it guesses one encoding for a
whole file from a sample, which a file read once, a line at a time, from a pipe too, cannot
give it, and a mixed file has no one encoding.
"""

from __future__ import annotations

import codecs
import warnings
from collections.abc import Iterator
from pathlib import Path

from ..errors import NotUtf8
from .checks import LINE_ROOM
from .inputs import open_input
from .items import Blank, EmptyText, Item, Record, Rejection

NUL = b"\x00"
#: Bytes read at a time to measure the rest of a line too long to be a record.
SKIP_CHUNK = 1 << 20
BOM = b"\xef\xbb\xbf"
#: The lines of a file as the readers see them: (line number, text, problem).
Lines = Iterator[tuple[int, str | None, str | None]]
#: The codec error handler that reads bytes that are not UTF-8 as Windows-1252.
WINDOWS_1252 = "neardup-windows-1252"


def _windows_1252(exc: UnicodeError) -> tuple[str, int]:
    """The bytes of ``exc`` that are not UTF-8, as Windows-1252 letters (Latin-1 for the bytes
    Windows-1252 does not define)."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return "".join(_letter(bad[i : i + 1]) for i in range(len(bad))), exc.end


def _letter(byte: bytes) -> str:
    try:
        return byte.decode("cp1252")
    except UnicodeDecodeError:
        return byte.decode("latin-1")


codecs.register_error(WINDOWS_1252, _windows_1252)


def as_windows_1252(
    data: bytes, exc: UnicodeDecodeError, path: object, *, say: bool, first_line: int = 1,
    also: str = "the file", codec: str = "utf-8",
) -> str:  # fmt: skip
    """``data``, which ``exc`` found not all UTF-8, read as UTF-8 where it is and as
    Windows-1252 where it is not; ``say``: the fault said first (:class:`NotUtf8`), by its line
    (``data`` starting at ``first_line`` of ``path``) and its byte in that line. One place for
    every reader: a file's lines, a folder's documents, pairs and labels files."""
    if say:
        line = first_line + data.count(b"\n", 0, exc.start)
        byte = exc.start - data.rfind(b"\n", 0, exc.start)
        warnings.warn(NotUtf8(path, line, byte, also), stacklevel=3)
    return data.decode(codec, WINDOWS_1252)


def _sized_lines(
    path: Path, cap: int | None, head_only: bool = False
) -> Iterator[tuple[bytes | None, int]]:
    """The lines of a file as :func:`raw_lines` numbers them, each with its size in bytes. A
    line over ``cap`` bytes (its ending not counted) comes as None and its size: it is read
    ``cap`` bytes into memory, and the rest is measured ``SKIP_CHUNK`` bytes at a time.
    ``head_only``: of a pipe, the lines of the bytes kept (:func:`open_input`)."""
    if cap is None:
        with open_input(path, head_only) as fh:
            for raw in fh:
                yield raw, len(raw) - _ending(raw)
        return
    with open_input(path, head_only) as fh:
        while raw := fh.readline(cap + 3):  # a line of ``cap`` bytes, "\r\n", and one more
            size, tail = len(raw), raw[-2:]
            text_size = size - (2 if tail == b"\r\n" else 1 if tail[-1:] == b"\n" else 0)
            if text_size <= cap:
                yield raw, text_size
                continue
            if not raw.endswith(b"\n"):
                del raw
                while chunk := fh.readline(SKIP_CHUNK):
                    size, tail = size + len(chunk), (tail + chunk)[-2:]
                    if chunk.endswith(b"\n"):
                        break
            yield None, size - _ending(tail)


def _ending(raw: bytes) -> int:
    """The length of a line's ending."""
    return 2 if raw.endswith(b"\r\n") else 1 if raw.endswith(b"\n") else 0


def decoded_lines(path: Path, limit: int | None, head_only: bool = False) -> Lines:
    """(line number, text, problem): text is None where the line cannot be taken as it is.
    ``head_only``: of a pipe, the lines of the bytes kept of it (:func:`open_input`), and no
    note of bytes that are not UTF-8 (the lines are read again)."""
    cap = None if limit is None else limit + LINE_ROOM
    noted = head_only
    for number, (raw, size) in enumerate(_sized_lines(path, cap, head_only), start=1):
        if raw is None:
            problem = (
                f"record too large, a line of {size} bytes (the limit is {limit} bytes of text)"
            )
            yield number, None, problem
            continue
        if raw.startswith(BOM):  # at the start of the file, or of files joined by cat
            raw = raw[3:]
        raw = raw.rstrip(b"\n").rstrip(b"\r")
        if NUL in raw:
            yield number, None, f"NUL byte at column {raw.index(NUL) + 1}"
            continue
        try:
            yield number, raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            text = as_windows_1252(raw, exc, path, say=not noted, first_line=number)
            noted = True
            yield number, text, None


def text_lines(lines: Lines, source: str) -> Iterator[Item | tuple[int, str]]:
    """(line number, text) of each line that has text; unreadable and blank ones as items."""
    for number, text, problem in lines:
        if text is None:
            yield Rejection(source, number, problem or "unreadable")
        elif not text.strip():
            yield Blank(source, number)
        else:
            yield number, text


def read_lines(lines: Lines, source: str, numbered: bool = False) -> Iterator[tuple[Item, int]]:
    """``ID TEXT`` lines, each item with its line; ``numbered``: each line is a text, its id
    its line number. (What :func:`text_lines` does, done here: a generator less a line was
    0.1 s of reading 100k records.)"""
    for number, text, problem in lines:
        if text is None:
            yield Rejection(source, number, problem or "unreadable"), number
            continue
        stripped = text.strip()
        if "\r" in stripped:  # a line break of old Mac OS: two records would be read as one
            column = text.index(stripped) + stripped.index("\r") + 1
            reason = (
                f"a carriage return (CR) alone at column {column}, inside the line: lines end "
                "with LF or CRLF; convert it (tr '\\r' '\\n')"
            )
            yield Rejection(source, number, reason), number
            continue
        text = stripped
        if not text:
            yield Blank(source, number), number
        elif numbered:
            yield Record(str(number), text, source, number), number
        else:
            parts = text.split(None, 1)
            if len(parts) < 2:  # split() leaves no blank text after the id
                yield EmptyText(source, number, "no text after the id", parts[0]), number
            else:
                yield Record(parts[0], parts[1], source, number), number
