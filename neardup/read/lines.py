"""The lines of a text file as the readers see them, and ``ID TEXT`` lines.

A byte-order mark at the start of a line (of the file, or of files joined) and ``\\r\\n``
endings are repaired; blank lines are skipped and counted; a line with a NUL byte is rejected,
and so is a line too long to hold a record (:data:`~neardup.read.checks.LINE_ROOM`), before it
is decoded. In ``ID TEXT`` lines, a carriage return alone inside a line is rejected (it would
join two lines into one record).

**Bytes that are not UTF-8** are read in the legacy encoding their bytes read as, said once per
file (:class:`~neardup.errors.NotUtf8`). Tables exported on Windows (Excel's "CSV", many
catalogues and public datasets) are in the code page of the system that wrote them, whose
letters past ASCII are never valid UTF-8; rejecting their lines lost a record for every accented
name or curly quote. At the first line that is not UTF-8, that line and the ones after it (up to
:data:`~neardup.read.inputs.SNIFF_BYTES`, read ahead and kept, of a pipe too) are the sample the
encoding is read off (:func:`legacy_encoding`): a Russian file from Excel is Windows-1251, whose
Cyrillic letters read as Windows-1252 are accented Latin ones (А Б В Г Д Е as À Á Â Ã Ä Å),
which accent folding made all ``a``. The detector is charset-normalizer (already installed with
requests, and a dependency of its own): it scores each code page by how plausible its letters'
sequences are, which a hand-written table of byte ranges could not do between, say, Windows-1250
and Windows-1252, whose letters mostly share their bytes. Its answer is taken only when it is
confident and Windows-1252 is not among the encodings it finds plausible (it ranked Windows-1250
and Mac Latin 2 first for French and Spanish samples, Windows-1252 close behind), else the file
is read as Windows-1252 as before: a line is read as UTF-8 where it is valid and byte by byte as
Windows-1252 where it is not (Latin-1 for the five bytes Windows-1252 leaves undefined), so a
UTF-8 file with one broken byte keeps its other letters. A sample mostly valid UTF-8 is such a
file, and is not given to the detector. In another encoding, a line that is not UTF-8 is read
whole in it (its letters are not valid UTF-8 sequences, but a pair of them may be).
"""

from __future__ import annotations

import codecs
import warnings
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from ..errors import NeardupWarning, NotUtf8
from .checks import LINE_ROOM
from .inputs import SNIFF_BYTES, open_input
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

#: The codec error handler for the bytes a legacy encoding leaves undefined: Latin-1 letters.
UNDEFINED_AS_LATIN_1 = "neardup-latin-1"


def _latin_1(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return exc.object[exc.start : exc.end].decode("latin-1"), exc.end


codecs.register_error(UNDEFINED_AS_LATIN_1, _latin_1)

#: The most chaos (charset-normalizer's measure of implausible characters, 0 to 1) and the
#: least coherence (how much the letters' frequencies are a language's) of an encoding taken
#: from the detector: below these, its guess is a guess (on a line or two, every code page
#: scores 0 coherence, and a Hebrew sample came back as Thai).
MAX_CHAOS = 0.15
MIN_COHERENCE = 0.1


def legacy_encoding(sample: bytes) -> str:
    """The encoding of ``sample``, bytes of a file that are not all UTF-8, as a Python codec name:
    of those charset-normalizer finds plausible, none Windows-1252 or Latin-1, and confident
    (:data:`MAX_CHAOS`, :data:`MIN_COHERENCE`), a Windows code page first, else its first;
    ``cp1252`` when there is none, or it reads the sample as Windows-1252 does. A sample
    mostly valid UTF-8 (more letters past ASCII that are valid UTF-8 than bytes that are
    not) is a UTF-8 file with a few broken bytes: ``cp1252``, not asked."""
    text = sample.decode("utf-8", "replace")
    broken = text.count("\ufffd")
    valid = sum(ch > "\x7f" for ch in text) - broken
    if broken == 0 or valid >= broken:
        return "cp1252"
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # (a dependency; a broken install reads as before)
        return "cp1252"
    matches = list(from_bytes(sample))
    if any(codecs.lookup(m.encoding).name in ("cp1252", "iso8859-1") for m in matches):
        return "cp1252"  # Windows-1252 (or Latin-1, its letters) reads it plausibly too
    names = [
        codecs.lookup(m.encoding).name for m in matches
        if m.chaos <= MAX_CHAOS and m.coherence >= MIN_COHERENCE
    ]  # fmt: skip
    # Windows' code pages first, those of Excel and most exports (a Windows-1251 sample of
    # surnames came back Mac Cyrillic first, whose capitals are elsewhere)
    name = next((n for n in names if n.startswith("cp125")), names[0] if names else "utf-8")
    if name == "utf-8":
        return "cp1252"
    western = sample.decode("cp1252", WINDOWS_1252)
    if sample.decode(name, UNDEFINED_AS_LATIN_1) == western:
        return "cp1252"  # the same letters
    return name


def encoding_name(codec: str) -> str:
    """A codec's name as users know it: ``Windows-1251 (cp1251)``, ``KOI8-R``."""
    name = codecs.lookup(codec).name
    if name.startswith("cp125"):
        return f"Windows-{name[2:]} ({name})"
    if name.startswith("iso8859-"):
        return f"ISO-8859-{name[8:]}"
    return name.upper() if name.startswith("koi8") else name


def legacy_text(data: bytes, encoding: str, codec: str = "utf-8") -> str:
    """``data``, not all UTF-8, read in ``encoding``: for ``cp1252``, UTF-8
    where it is valid and Windows-1252 byte by byte where it is not; else all of it in
    ``encoding`` (bytes it leaves undefined as Latin-1)."""
    if encoding == "cp1252":
        return data.decode(codec, WINDOWS_1252)
    if codec == "utf-8-sig":
        data = data.removeprefix(BOM)
    return data.decode(encoding, UNDEFINED_AS_LATIN_1)


def as_legacy(
    data: bytes, exc: UnicodeDecodeError, path: object, *, say: bool, first_line: int = 1,
    also: str = "the file", codec: str = "utf-8", encoding: str | None = None,
) -> tuple[str, str]:  # fmt: skip
    """``data``, which ``exc`` found not all UTF-8, read in its legacy encoding: ``encoding``,
    or for None the one read off ``data`` from its first byte that is not UTF-8 on
    (:func:`legacy_encoding`), Windows-1252 when none is found (:func:`legacy_text`); and that
    encoding, for the next such data of the file. ``say``: the fault said first
    (:class:`NotUtf8`), by its line (``data`` starting at ``first_line`` of ``path``), its byte
    in that line and the encoding. One place for every reader: a file's lines, a folder's
    documents, pairs and labels files."""
    if encoding is None:
        start = data.rfind(b"\n", 0, exc.start) + 1
        encoding = legacy_encoding(data[start : start + SNIFF_BYTES])
    if say:
        _say(data, exc, path, first_line, also, encoding)
    return legacy_text(data, encoding, codec), encoding


def _say(
    data: bytes, exc: UnicodeDecodeError, path: object, first_line: int, also: str, encoding: str
) -> None:
    line = first_line + data.count(b"\n", 0, exc.start)
    byte = exc.start - data.rfind(b"\n", 0, exc.start)
    shown = None if encoding == "cp1252" else encoding_name(encoding)
    warnings.warn(NotUtf8(path, line, byte, also, shown), stacklevel=3)


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
    encoding: str | None = None  # of the lines that are not UTF-8: read off the first of them
    sized = _sized_lines(path, cap, head_only)
    ahead: deque[tuple[bytes | None, int]] = deque()  # lines read to sample, not yet yielded

    def lines() -> Iterator[tuple[bytes | None, int]]:
        for item in sized:
            yield item
            while ahead:
                yield ahead.popleft()

    for number, (raw, size) in enumerate(lines(), start=1):
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
            if encoding is None:  # the sample: this line and the next (read ahead, kept)
                sample, held = [raw], len(raw)
                while held < SNIFF_BYTES and (item := next(sized, None)) is not None:
                    ahead.append(item)
                    if item[0] is not None:
                        sample.append(item[0])
                        held += len(item[0])
                sample[1:] = [b.removeprefix(BOM) for b in sample[1:]]
                encoding = legacy_encoding(b"\n".join(sample)[:SNIFF_BYTES])
            if not noted:
                _say(raw, exc, path, number, "the file", encoding)
                noted = True
            yield number, legacy_text(raw, encoding), None


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
    0.1 s of reading 100k records.) First words that do not read as ids are said
    (:class:`_FirstWords`)."""
    ids: _FirstWords | None = None if numbered else _FirstWords(source)
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
                continue
            if ids is not None and not ids.see(parts, number):
                ids = None
            yield Record(parts[0], parts[1], source, number), number
    if ids is not None:
        ids.end()


#: How many of a file's first ``ID TEXT`` lines :class:`_FirstWords` reads.
ID_LINES = 10_000
#: The share of first words read as words (:func:`_word_or_id`) from which they are said not
#: to be ids, and the fewest such words.
PROSE_SHARE = 0.8
PROSE_WORDS = 3
#: Around a first word, what does not make it less a word: a quote or bracket before, a
#: comma, full stop or the like after ("However," "Yes!").
_AROUND = "\"'“‘(["
_AFTER = ".,;:!?\"'”’)]"


def _word_or_id(word: str) -> bool | None:
    """Whether a first word reads as a word of prose (True: a capitalized word, ``Cats``,
    ``However,``), as an id (False: a number, a code, ``A123``, ``doc-7``, ``report.pdf``,
    anything else), or as either (None: one letter, or a word in lower case, ``a``,
    ``alice``, which ids and lines of text both start with)."""
    word = word.lstrip(_AROUND).rstrip(_AFTER)
    letters = word.replace("'", "").replace("’", "")
    if len(letters) < 2 or (letters.isalpha() and letters.islower()):
        return None
    return letters.isalpha() and letters[0].isupper() and letters[1:].islower()


class _FirstWords:
    """The first words of a file's first ``ID TEXT`` lines (:data:`ID_LINES`), read as ids,
    said once where they do not look like ids: an id on two lines with other texts (in a file
    of titles, "The" repeats, and every line but the first of each was rejected as a duplicate
    id without a word on why the first word was an id); or, at the end of those lines, first
    words that are mostly words of prose (:data:`PROSE_SHARE`): a file of sentences whose
    first words differ had each line's first word cut from its text, as its id, unsaid."""

    def __init__(self, source: str) -> None:
        self.source = source
        #: An id: its first line, a hash of its text.
        self.ids: dict[str, tuple[int, int]] = {}
        #: How many of the ids read as words, the first three, and how many as ids.
        self.words = 0
        self.shown: list[str] = []
        self.codes = 0

    def see(self, parts: list[str], number: int) -> bool:
        """Read the line ``number``; False once read far enough or said."""
        word, text = parts
        seen = self.ids.get(word)
        if seen is None:
            self.ids[word] = (number, hash(text))
            kind = _word_or_id(word)
            if kind:
                self.words += 1
                if len(self.shown) < 3:
                    self.shown.append(word[:40])
            elif kind is not None:
                self.codes += 1
            if len(self.ids) < ID_LINES:
                return True
            self.end()
            return False
        if seen[1] == hash(text):  # an identical row: a copy, not another record
            return True
        warnings.warn(NeardupWarning(
            f"{self.source}: read as ID TEXT lines, the first word of each line its id: "
            f"{word[:40]!r} is the id of lines {seen[0]} and {number}, with other texts: a line "
            "whose id an earlier line has is rejected as a duplicate id; if the lines are texts "
            "without ids, --id-field @row numbers them (id_field='@row')"
        ), stacklevel=3)  # fmt: skip
        return False

    def end(self) -> None:
        """The first words read said where most are words of prose (:data:`PROSE_SHARE`)."""
        words = self.words
        if words < PROSE_WORDS or words < PROSE_SHARE * (words + self.codes):
            return
        warnings.warn(NeardupWarning(
            f"{self.source}: read as ID TEXT lines, the first word of each line its id, cut "
            f"from its text: {words} of the {len(self.ids)} ids read are words of text, not "
            f"ids ({', '.join(map(repr, self.shown))}); if the lines are texts without ids, "
            "--id-field @row keeps each line whole, numbered by its line (id_field='@row')"
        ), stacklevel=3)  # fmt: skip
