"""What every verb shares: the Solr options, the environment, and how results are printed."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from .. import config as cfg
from ..candidates.buckets import DEFAULT_MAX_BUCKET
from ..constraints import Parameter, declared
from ..errors import (
    InputError,
    MissingCABundle,
    NeardupError,
    SolrCertificateUnverified,
    SolrUnauthorized,
    SolrUnavailable,
)
from ..out.output import is_stdout
from ..out.write import check_output, distinct_outputs, escape_unseen
from ..params import Params
from ..read.arrow import left_out_columns
from ..read.checks import MAX_RECORD_BYTES, check_source
from ..read.records import (
    ARROW_FORMATS,
    FORMATS,
    FileItems,
    checked_file,
    choose_id_field,
    first_columns,
    read_records,
)
from ..read.rows import ROW_ID
from ..read.sniff import table_delimiter


def solr_options(p: argparse.ArgumentParser, collection: bool = True) -> None:
    g = p.add_argument_group("Solr")
    g.add_argument(
        "--solr-url",
        default=None,
        help="an existing Solr (base URL or collection URL); default: "
        "$NEARDUP_SOLR_URL, else neardup's own local node",
    )
    if collection:
        g.add_argument(
            "--collection",
            default=None,
            help="collection (core) name; default: from the URL, else 'neardup'",
        )
    g.add_argument("--solr-user", default=None, help="basic auth user ($NEARDUP_SOLR_USER)")
    g.add_argument(
        "--solr-password", default=None, help="basic auth password ($NEARDUP_SOLR_PASSWORD)"
    )
    g.add_argument(
        "--solr-password-file",
        default=None,
        metavar="FILE",
        help="a file whose first line is the password, kept out of the process list "
        "($NEARDUP_SOLR_PASSWORD_FILE)",
    )
    g.add_argument(
        "--solr-heap",
        default=None,
        type=heap_flag,
        help="Java heap of neardup's own local node when this command starts it, e.g. 4g "
        "(at least 256m; $NEARDUP_SOLR_HEAP; default: a quarter of the machine's memory, 1 to "
        "8 GB)",
    )
    g.add_argument(
        "--solr-ca",
        default=None,
        help="CA bundle to verify Solr's TLS certificate ($NEARDUP_SOLR_CA)",
    )


def index_file_option(p: argparse.ArgumentParser) -> None:
    """``--index-file``: the index in a DuckDB file instead of a Solr collection, so that
    ``index``, ``report`` and the lookups work without Java (:class:`DuckDBBackend`)."""
    g = p.add_argument_group("Without Solr")
    g.add_argument(
        "--index-file",
        type=Path,
        default=None,
        metavar="FILE.duckdb",
        help="keep the index in this DuckDB file instead of a Solr collection: `index` "
        "creates it (or adds to it), the other verbs read it; no Java needed",
    )


#: DuckDB files the verb opened (--index-file), closed when it ends, whatever the outcome.
OPENED: list[Any] = []


def close_opened() -> None:
    """Close the index files the verb opened: their last records are written at close."""
    while OPENED:
        OPENED.pop().close()


def json_option(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--json``: the verb's summary as JSON, for scripts (every verb has it)."""
    p.add_argument("--json", action="store_true", help=help)


def file_path(text: str) -> Path:
    """A file a verb writes, as named on the command line (``/dev/stdout`` is ``-``). Why not
    ``Path``: it drops what says a name is a folder (``--out new/`` became a file ``new``) and
    reads ``""`` as ``.``."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name: give a file's name")
    if text != "-" and text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} names a folder: give a file's name")
    if text in ("/dev/stdout", "/dev/fd/1"):  # standard output by another name: as '-', so
        return Path("-")  # the summary goes to stderr and a file stdout goes to is not replaced
    return Path(text)


def out_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--out``: the file a verb writes, required; ``-`` is standard output."""
    p.add_argument("--out", type=file_path, required=True, help=help)


def verbose_option(p: argparse.ArgumentParser, help: str) -> None:
    """``-v``: how the pairs were decided, after the one plain line. Suppressed by default, so
    that the top-level ``neardup -v VERB`` (which also logs Solr's retries) is not reset by the
    verb's own default."""
    p.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=help)


def max_bucket_option(p: argparse.ArgumentParser) -> None:
    """``--max-bucket``: the bound on what a common feature costs (neardup.candidates.buckets)."""
    def parse(text: str) -> int | None:
        if text.strip().lower() in ("none", "0"):
            return None
        return _int_at_least(text, 2, "an integer >= 2 or 'none'")

    p.add_argument(
        "--max-bucket",
        type=parse,
        default=DEFAULT_MAX_BUCKET,
        metavar="N",
        help="the members of a bucket (a band key) of more than N records become candidates "
        f"only where they share a second band too (default {DEFAULT_MAX_BUCKET}; 'none' pairs "
        "every bucket in full, at a cost that grows with the square of the records)",
    )


#: One flag per parameter of :class:`~neardup.params.Params` that takes a value, with what the
#: CLI does without it; its type, its choices and what it allows come from its declaration
#: (:mod:`neardup.constraints`).
PARAM_FLAGS: dict[str, str] = {
    "shingle_kind": "default: chosen from the data, char for records, word for documents",
    "shingle_size": "default 3 for char, 1 for word",
    "num_perm": "default 128",
    "hash_family": "default universal",
    "seed": "default 42",
    "threshold": "giving it fixes it; default: read off the data for records, 0.65 for "
    "documents; with --rule valley or learned, the floor of the candidates",
    "rule": "threshold: pairs at --threshold or more; valley: the threshold at the valley of "
    "the records' best-match similarities (default for records); learned: a match rule fitted "
    "to the candidates without labels (Fellegi-Sunter, EM)",
    "bands": "default: from the threshold",
    "rows": "default: from the threshold",
}


def flag_help(parameter: Parameter, note: str) -> str:
    """A flag's help: the declaration's line, what it allows (argparse lists choices itself),
    and the CLI's ``note``."""
    allowed = "" if parameter.choices else f", {parameter.allowed}"
    return f"{parameter.help}{allowed} ({note})"


def flag_choices(parameter: Parameter, default: Any = None) -> list[str] | None:
    """The declared choices of a flag, ``default`` first (as the help names it)."""
    choices = parameter.choices
    if choices is None or default not in choices:
        return choices
    return [default, *(c for c in choices if c != default)]


def param_options(p: argparse.ArgumentParser) -> None:
    """The flags of the index parameters (:data:`PARAM_FLAGS`) and of the text's forms."""
    g = p.add_argument_group(
        "index parameters (stored with a new index; an existing index keeps its own)"
    )
    declarations = declared("Params")
    defaults = {f.name: f.default for f in fields(Params)}
    for name, note in PARAM_FLAGS.items():
        parameter = declarations[name]
        g.add_argument(
            "--" + name.replace("_", "-"),
            type=parameter.kind,
            default=None,
            choices=flag_choices(parameter, defaults[name]),
            help=flag_help(parameter, note),
        )
    g.add_argument(
        "--no-canonical",
        dest="canonical",
        action="store_false",
        default=None,
        help="do not rewrite record forms (7th/seventh, st/street) before shingling",
    )
    g.add_argument(
        "--no-fold-accents",
        dest="fold_accents",
        action="store_false",
        default=None,
        help="keep accents, and Arabic and Hebrew vowel marks (café and cafe differ); Unicode is "
        "still NFKC- and case-folded",
    )
    g.add_argument(
        "--keep-hyphens",
        dest="split_hyphens",
        action="store_false",
        default=None,
        help="character shingles keep hyphens (bel-air and bel air differ)",
    )
    g.add_argument(
        "--fix-text",
        dest="fix_text",
        action="store_true",
        default=None,
        help="repair mojibake (CafÃ© for Café) with ftfy before comparing "
        "(pip install 'neardup[repair]')",
    )
    g.add_argument(
        "--fields-2014",
        dest="fields_2014",
        action="store_true",
        default=None,
        help="also store the 2014 article's fields, for report --method shingles|minhash",
    )


def input_options(p: argparse.ArgumentParser) -> None:
    """How records are read from a file: its format, the id and text fields of a table, and the
    largest record."""
    p.add_argument(
        "--format",
        default="auto",
        choices=["auto", *FORMATS],
        help="input format (default: from the file's extension; a file of another extension "
        "is 'lines', 'ID TEXT', unless its first lines are a table with an 'id' column; a "
        "folder is 'folder': each file under it a document, its path the id)",
    )
    p.add_argument(
        "--id-field",
        default=None,
        help="id column/key (a nested JSON key by its path: item.id); @row numbers the records "
        "by their line (row); default: 'id' if the file has one, else line numbers",
    )
    p.add_argument(
        "--text-field",
        action="append",
        default=None,
        help="text column/key, a nested JSON key by its path (item.title); repeat to join "
        "several; default: 'text' if there is one, else every column but the id and the "
        "source, each compared on its own too",
    )
    p.add_argument(
        "--source-field",
        default=None,
        help="column/key holding each record's source, which --mode link pairs across (one "
        "file holding several catalogues); default: the file a record is read from",
    )
    p.add_argument(
        "--delimiter",
        type=delimiter_option,
        default=None,
        metavar="C",
        help="the column separator of a table, one character ('\\t' or 'tab' for a tab); given, "
        "the file is read as a table whatever its extension (default: read off its first lines: "
        "the character that splits the header and the lines after it into as many columns)",
    )
    record_limit_option(p)
    p.add_argument(
        "--quiet",
        action="store_true",
        help="print the rejected lines as a summary (counts by reason, the first few) instead "
        "of one line each, and no progress bars",
    )


def delimiter_option(raw: str) -> str:
    """An argparse value: one character; ``\\t`` (as a shell passes '\\t') and ``tab`` are
    a tab."""
    value = "\t" if raw in ("\\t", "tab", "TAB") else raw
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"one character expected (or 'tab'), got {raw!r}")
    if value in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"{raw!r} cannot separate fields: a quote quotes them, and a line break ends a row"
        )
    return value


def record_limit_option(p: argparse.ArgumentParser) -> None:
    """``--max-record-bytes``: records with a larger text are rejected as they are read."""
    p.add_argument(
        "--max-record-bytes",
        type=_positive_int,
        default=MAX_RECORD_BYTES,
        metavar="N",
        help="reject a record whose text is over N bytes (UTF-8) as it is read, with its "
        f"line and size; it is never sent to Solr (default {MAX_RECORD_BYTES}: 8 MiB)",
    )


def _int_at_least(raw: str, least: int, expected: str) -> int:
    """An argparse value: an integer >= ``least``, else a usage error naming ``expected``."""
    try:
        value = int(raw)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"{expected} expected, got {raw!r}")
    return value


def port_number(raw: str) -> int:
    """An argparse value: a TCP port, 1 to 65535."""
    value = _int_at_least(raw, 1, "a port number from 1 to 65535")
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port number from 1 to 65535 expected, got {raw!r}")
    return value


def heap_flag(raw: str) -> str:
    """An argparse value: a Java heap size Solr can start with (--heap, --solr-heap)."""
    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr.local import HEAP_EXPECTED, heap_size

    try:
        return heap_size(raw)
    except InputError:
        raise argparse.ArgumentTypeError(f"{HEAP_EXPECTED} expected, got {raw!r}") from None


def pair_count(raw: str) -> int:
    """An argparse value: a number of pairs, 0 or more."""
    return _int_at_least(raw, 0, "a number of pairs >= 0")


def _positive_int(raw: str) -> int:
    return _int_at_least(raw, 1, "a number of bytes >= 1")


def read_input(args: argparse.Namespace, path: Path) -> FileItems:
    """The records of ``path`` as the input options say to read them. Without ``--id-field``,
    a file without an ``id`` column is numbered by its lines, and this says so."""
    resolve_ids(args, path)
    return read_records(
        path,
        args.format,
        args.id_field,
        tuple(args.text_field) if args.text_field else None,
        max_record_bytes=args.max_record_bytes,
        source_field=args.source_field,
        delimiter=args.delimiter,
    )


def resolve_ids(args: argparse.Namespace, path: Path) -> None:
    """``args.id_field`` for ``path`` when no ``--id-field`` was given: ``id`` if the file has
    one, else line numbers (``@row``), which this says. The file is checked either way (no
    such file, a spreadsheet, a table that would be read as lines:
    :func:`neardup.read.records.checked_file`) with the format and ``--delimiter`` it will be
    read with."""
    check_input_name(path)
    delimiter = getattr(args, "delimiter", None)
    # the file checked first, id field or not: a spreadsheet or a table read wrongly is said
    # before Solr is started or asked
    file, fmt = checked_file(path, args.format, delimiter, refuse_tables=args.format == "auto")
    if fmt in ("csv", "tsv"):
        table_delimiter(file, fmt, delimiter, args.id_field)
    if args.id_field is None:
        _resolve_id_field(args, path, file, fmt, delimiter)
    noted: set[Path] = vars(args).setdefault("_left_out_noted", set())
    if fmt in ARROW_FORMATS and not args.text_field and path not in noted:
        noted.add(path)  # said once, however often the file is checked
        left = left_out_columns(file, fmt, args.id_field, getattr(args, "source_field", None))
        if left:
            shown = ", ".join(f"{escape_unseen(n)} ({kind})" for n, kind in left.items())
            print(
                f"neardup: note: {path}: not compared, for what they hold: {shown} (name them "
                "with --text-field to compare them)",
                file=sys.stderr,
            )


def _resolve_id_field(
    args: argparse.Namespace, path: Path, file: Path, fmt: str, delimiter: str | None
) -> None:
    choice = choose_id_field(file, fmt, delimiter)
    args.id_field = choice.field
    what = "rows" if fmt in ARROW_FORMATS else "lines"
    if choice.field != ROW_ID:
        if choice.candidates:  # a column named as an id, not 'id'
            print(
                f"neardup: {path} has no 'id' column: its column {choice.field!r} is the "
                f"records' ids (its values are unique in its first {choice.rows} rows; name "
                "another with --id-field, or --id-field @row for line numbers)",
                file=sys.stderr,
            )
        return
    columns = first_columns(file, fmt, delimiter)
    if not columns:  # (an empty file has none)
        return
    said = f"{path} has no 'id' column: the records' ids are the numbers of their {what}"
    if not choice.candidates:
        print(f"neardup: {said} (--id-field @row; name an id column with --id-field)",
              file=sys.stderr)  # fmt: skip
        return
    named = " and ".join(map(repr, choice.candidates))
    if len(choice.candidates) > 1:
        why = f"{named} could each be the id, which is ambiguous"
    elif choice.repeated:
        why = f"{named} holds {choice.repeated[:40]!r} twice in its first {choice.rows} rows"
    else:
        why = f"{named} has an empty value in its first {choice.rows} rows"
    left = ""
    if not args.text_field and "text" not in columns:
        left = f"; {named} not compared as text (--text-field names the columns to compare)"
    print(f"neardup: {said} ({why}: name the id column with --id-field){left}", file=sys.stderr)


def config(args: argparse.Namespace | None = None) -> Any:
    """The configuration (:mod:`neardup.config`): the Solr flags given, else the environment."""
    def flag(name: str) -> Any:
        return getattr(args, name, None) if args is not None else None

    return cfg.load(
        solr_url=flag("solr_url"),
        user=flag("solr_user"),
        password=flag("solr_password"),
        password_file=flag("solr_password_file"),
        ca=flag("solr_ca"),
        heap=flag("solr_heap") or flag("heap"),
    )


def local_node(args: argparse.Namespace | None = None) -> Any:
    """neardup's own node, in ``$NEARDUP_HOME``; a heap flag wins over ``$NEARDUP_SOLR_HEAP``."""
    # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr.local import LocalSolr

    settings = config(args)
    return LocalSolr(settings.home, heap=settings.heap, auth=settings.auth)


def open_solr(
    args: argparse.Namespace, create: bool = True, server: bool = False, start: bool = True
) -> Any:
    """The collection the flags and the environment name, as a :class:`neardup.solr.Solr`
    (with ``server``, a client of the server alone: no collection is looked for or made; the
    local node is started for it only with ``start``)."""
    # lazy: both pull in pysolr and requests, which --help and the verbs without Solr do not need
    from ..solr.admin import connect, local_state
    from ..solr.client import Solr

    if getattr(args, "solr_password", None) is not None:
        print(
            "neardup: warning: --solr-password is visible to other users of this machine (ps, "
            "/proc); prefer NEARDUP_SOLR_PASSWORD or --solr-password-file",
            file=sys.stderr,
        )
    settings = config(args)
    options: dict[str, Any] = {
        "auth": settings.auth,
        "verify": settings.verify,
        "create": create,
        "timeout": settings.timeout,
        "retry_budget": settings.retry_budget,
    }
    collection = getattr(args, "collection", None)
    try:
        if server:
            options.pop("create")
            url = settings.solr_url
            if url is None:
                node = local_node(args)
                if not start and node.running() is None:
                    raise SolrUnavailable("neardup's local Solr node is not running")
                state = local_state(node)
                url = state.url
                options["auth"] = node.client_auth(state, settings.auth)
            client = Solr(url, **options)
            client.system_info()  # fails fast, with the URL, if Solr is not there
            return client
        return connect(
            settings.solr_url, collection, home=settings.home, heap=settings.heap, **options
        )
    except SolrUnauthorized as exc:
        raise SolrUnavailable(
            f"{exc}: give --solr-user and --solr-password or --solr-password-file "
            "(or NEARDUP_SOLR_USER / NEARDUP_SOLR_PASSWORD / NEARDUP_SOLR_PASSWORD_FILE)"
        ) from None
    except SolrCertificateUnverified as exc:
        raise SolrUnavailable(f"{exc} (--solr-ca or NEARDUP_SOLR_CA)") from None
    except MissingCABundle as exc:
        raise InputError(f"{exc} (check --solr-ca or NEARDUP_SOLR_CA)") from None


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """The summary of a run: on stdout, or on stderr when stdout carries the data
    (``--out -``). A control or bidirectional character in it (of an id, a source, a path, a
    record's text) is shown as its code point, ``[U+202E]``, as the review page shows it: it
    could move the terminal's cursor or make one name read as another (JSON escapes them)."""
    taken = stdout_taken(args)
    out = sys.stderr if taken else sys.stdout
    if getattr(args, "json", False):
        # on stderr, among the notes and rejections printed there, as one line: the last,
        # which a script reads with tail -1 (indented, it could not be told from the notes)
        indent = None if taken else 2
        print(json.dumps(payload, indent=indent, sort_keys=False), file=out)
    else:
        print(escape_unseen(text, lines=True), file=out)


def check_outputs(
    args: argparse.Namespace, outputs: Sequence[tuple[str, str]], inputs: Sequence[Path] = ()
) -> None:
    """A verb's outputs (``(flag, what)``, e.g. ``("--out", "report")``), checked before any
    work: at most one is standard output, no two are one file however spelled, none is an input,
    and each can be written (:func:`neardup.out.write.check_output`)."""
    given = {flag: getattr(args, flag.lstrip("-").replace("-", "_")) for flag, _ in outputs}
    taken = [flag for flag, path in given.items() if is_stdout(path)]
    if len(taken) > 1:
        raise InputError(f"only one output can be standard output ('-'): {', '.join(taken)}")
    distinct_outputs(given)
    index_file = getattr(args, "index_file", None)  # an input too: the index the verb reads
    read = [*inputs, *([index_file] if index_file is not None else [])]
    for flag, what in outputs:
        path = given[flag]
        if path is not None and not is_stdout(path):
            check_output(path, what, [p for p in read if not is_stdout(p)])


def refuse_binary_to_terminal(flag: str, path: Path | None, fmt: str | None,
                              stream: Any = None) -> None:  # fmt: skip
    """A binary format (Parquet, Arrow) to standard output (``-``) that is a terminal is
    refused, before any work, as gzip and zstd refuse compressed data: its bytes, record texts
    and their escape sequences included, went to the terminal raw (one retitled the window),
    and no one reads a table there. Redirected to a file or a pipe, it is written."""
    if not is_stdout(path) or fmt not in ARROW_FORMATS:
        return
    stream = sys.stdout if stream is None else stream
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # no stream, or a closed one: not a terminal
        tty = False
    if tty:
        raise InputError(
            f"{flag} -: {fmt.capitalize()} is binary and is not written to a terminal: redirect "
            f"standard output (> out.{fmt}, or | a program that reads it) or give a file's name"
        )


def check_input_name(path: Path) -> None:
    """A file whose name holds a control or bidirectional character is refused: its name is
    its records' source, written in the pairs and clusters files (a tab or a line break there
    splits a row) and shown on the terminal (:func:`neardup.read.checks.check_source`)."""
    problem = check_source(str(path))
    if problem:
        said = problem.replace("source holds", "its name holds")
        raise InputError(
            f"{escape_unseen(str(path))}: {said}, and a file's name is its records' source in the "
            "pairs and clusters files: rename the file"
        )


def stdout_taken(args: argparse.Namespace) -> bool:
    """Whether an output of the command is standard output (``-``)."""
    names = ("out", "clusters", "rejects", "html", "review")
    return any(is_stdout(getattr(args, name, None)) for name in names)


def progress(args: argparse.Namespace) -> bool:
    """Whether to draw progress bars: not for ``--json`` or ``--quiet``."""
    return not (getattr(args, "json", False) or getattr(args, "quiet", False))


#: Column names that say which catalogue or file a row comes from: where ids repeat in a
#: file holding such a column, ``--source-field`` is likely what the user meant.
SOURCE_LIKE = frozenset(
    "source src dataset data_source origin catalogue catalog provider database db system "
    "site vendor".split()
)


def say_source_column(args: argparse.Namespace, path: Path, rejections: Sequence[Any]) -> None:
    """A note where rows were rejected for a repeated id and the file has a column named as a
    source: the same id in two catalogues of one file is two records only with
    ``--source-field``, which nothing else would tell the user."""
    if getattr(args, "source_field", None) is not None or is_stdout(path):
        return
    repeated = sum(1 for r in rejections if str(r.reason).startswith("duplicate id"))
    if not repeated:
        return
    fmt = getattr(args, "format", "auto")
    try:
        file, fmt = checked_file(path, fmt, getattr(args, "delimiter", None))
        columns = first_columns(file, fmt, getattr(args, "delimiter", None))
    except (NeardupError, OSError):  # said already when the file was read
        return
    named = next((c for c in columns if c.strip().lower() in SOURCE_LIKE), None)
    if named is None:
        return
    print(
        f"neardup: note: {path}: {repeated} row{'s' if repeated > 1 else ''} rejected for an id "
        f"seen before, and the file has a column {escape_unseen(named)!r}: if it says which "
        f"catalogue a row comes from, --source-field {shlex.quote(named)} keeps the same id in "
        "two of them apart",
        file=sys.stderr,
    )
