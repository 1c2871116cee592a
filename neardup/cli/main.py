"""The ``neardup`` command: one verb per job, ``--json`` for machines, exit codes 0/1/2.

The only layer that reads flags: it turns them into arguments of the library. The environment
(``NEARDUP_SOLR_URL``, ``NEARDUP_HOME``, credentials ...) is read by :mod:`neardup.config`, which
the library reads too; a flag wins over it.
"""

from __future__ import annotations

import sys

# Ctrl-C while the modules load (argparse, numpy, pandas, the index: tenths of a second) ends as
# Ctrl-C during a verb does, with one line and 130, not with the traceback of an import: nothing
# has been read or written yet. neardup/__init__.py loads nothing, so that this runs first.
# Why the signal is held rather than caught: a KeyboardInterrupt raised inside a C extension's
# import (numpy importing ``datetime``) comes out as an ImportError with the interrupt lost, so
# the Ctrl-C is recorded while the modules load and acted on once they have.
try:
    import signal

    _held: list[int] = []
    try:
        _before = signal.signal(signal.SIGINT, lambda signum, frame: _held.append(signum))
    except ValueError:  # imported outside the main thread: no handler can be set there
        _before = None
    try:
        import argparse
        import contextlib
        import errno
        import json
        import logging
        import os
        import warnings
        from collections.abc import Callable, Sequence
        from typing import Any

        from ..config import unknown_variables
        from ..errors import NeardupError, NeardupWarning
        from ..out.write import escape_unseen
        from ..seed2014 import cli as seed2014  # the one import of the 2014 plug-in: its verbs
        from ..sign import kernel
        from ..version import __version__
        from . import commands, dedupe_review
        from .common import close_opened, emit, heap_flag, json_option, local_node, port_number
    finally:
        if _before is not None:
            signal.signal(signal.SIGINT, _before)
    if _held:
        raise KeyboardInterrupt
except KeyboardInterrupt:
    print("neardup: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No abbreviated flags: 'dedupe --source X' was read as --source-field X, a column
        # named X, where index's --source names the records' source.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise _UsageError(message)


class _UsageError(SystemExit):
    """A usage error argparse found (exit code 2), with its message: with ``--json`` it is said
    on standard output too, as the errors found later are."""

    def __init__(self, message: str) -> None:
        super().__init__(2)
        self.message = message


def _json_asked(argv: Sequence[str]) -> bool:
    """Whether the command line, which did not parse, asks for ``--json`` with standard output
    free for it (not ``--out -``, whose reader expects the data): read off its words, before
    ``--`` (no abbreviations are taken, so only ``--json`` itself asks)."""
    words = list(argv)
    words = words[: words.index("--")] if "--" in words else words
    out = any(w == "--out=-" or (w == "--out" and nxt == "-")
              for w, nxt in zip(words, [*words[1:], ""], strict=True))  # fmt: skip
    return "--json" in words and not out


# -- solr ---------------------------------------------------------------------------------------
def cmd_solr(args: argparse.Namespace) -> int:
    node = local_node(args)
    if args.action == "start":
        auth = False if args.no_auth else None
        st = node.start(port=args.port, cloud=args.cloud, nodes=args.nodes, auth=auth)
        info = node.status()
        emit(
            args,
            info,
            f"Solr {info.get('solr_version')} ({st.mode}) running at "
            f"{' '.join(st.urls)} (pid {st.pid}; log {st.log}); {info['auth']}; stop it with "
            "'neardup solr stop'",
        )
    elif args.action == "status":
        info = node.status()
        if info["running"] and not info["answering"]:
            emit(
                args,
                info,
                f"running but not answering: pid {info['pid']}, port {info['port']} (home "
                f"{info['home']}; log {info['log']}); it is still starting, or hung: ask again "
                "in a moment, or stop it with 'neardup solr stop' (the next command that needs "
                "it stops it and starts another, which can take a minute)",
            )
            return 1
        if info["running"]:
            emit(
                args,
                info,
                f"running: {info['url']}  Solr {info.get('solr_version')}  "
                f"({info['mode']}, pid {info['pid']}, log {info['log']})\n{info['auth']}",
            )
        else:
            emit(
                args,
                info,
                f"not running (home {info['home']}; pinned Solr {info['pinned_version']})",
            )
            return 1
    else:
        st = node.stop()
        payload = {"stopped": st is not None, "pid": st.pid if st else None}
        emit(args, payload, f"stopped Solr (pid {st.pid})" if st else "no local Solr was running")
    return 0


def register_solr(sub: Any) -> None:
    p = sub.add_parser("solr", help="start, inspect or stop neardup's private Solr node")
    p.add_argument("action", choices=["start", "status", "stop"])
    p.add_argument("--port", type=port_number, default=None, help="port (default: a free one)")
    p.add_argument(
        "--cloud",
        action="store_true",
        help="a SolrCloud with an embedded ZooKeeper instead of one standalone node",
    )
    p.add_argument("--nodes", type=int, default=2, help="SolrCloud nodes (with --cloud)")
    p.add_argument(
        "--no-auth",
        action="store_true",
        help="start the node without a password: any user of this machine can then read, "
        "change or delete its indexes (default: basic authentication with the node's own "
        "password, kept in $NEARDUP_HOME/solr/credentials)",
    )
    p.add_argument(
        "--heap",
        default=None,
        type=heap_flag,
        help="Java heap per node, e.g. 4g, at least 256m ($NEARDUP_SOLR_HEAP; default: a "
        "quarter of the machine's memory, 1 to 8 GB)",
    )
    json_option(p, "print JSON")
    p.set_defaults(func=cmd_solr)


commands.REPORT_METHODS.append(seed2014.REPORT)  # report --method shingles|minhash

#: Each verb's flags, in the order ``neardup --help`` lists the verbs.
VERBS: tuple[Callable[[Any], None], ...] = (
    register_solr,
    commands.register_index,
    commands.register_report,
    commands.register_neighbors,
    commands.register_search,
    commands.register_info,
    commands.register_delete,
    commands.register_drop,
    commands.register_compare,
    commands.register_evaluate,
    commands.register_plot,
    seed2014.register_experiment,
    dedupe_review.register_dedupe,
    dedupe_review.register_review,
    dedupe_review.register_clean,
)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="neardup",
        description="Near-duplicate detection with shingles, MinHash and LSH, backed by Solr.",
    )
    parser.add_argument("--version", action="version", version=f"neardup {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log each Solr retry")
    sub = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)

    for register in VERBS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; its exit code. Ctrl-C before the verb starts (building the flags) is
    caught here, Ctrl-C during it by :func:`_run`, which cleans up after the verb."""
    try:
        return _run(argv)
    except KeyboardInterrupt:
        print("neardup: interrupted", file=sys.stderr)
        return 130


#: The notes said by this command.
_NOTED: set[str] = set()


def _note(
    message: Warning | str, category: type[Warning], filename: str, lineno: int,
    file: Any = None, line: str | None = None,
) -> None:  # fmt: skip
    """A library's note as a line of the CLI's (``neardup: note: ...``), not a Python warning
    with the file and line of the code that gave it; other warnings as Python shows them."""
    if issubclass(category, NeardupWarning):
        said = str(message)
        if said not in _NOTED:  # a file read twice (dedupe, review) says it once
            _NOTED.add(said)
            print(f"neardup: note: {escape_unseen(said)}", file=sys.stderr)
        return
    (file or sys.stderr).write(warnings.formatwarning(message, category, filename, lineno, line))


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        if _json_asked(sys.argv[1:] if argv is None else argv):
            print(json.dumps({"error": exc.message, "exit_code": 2}))
        return 2
    for message in unknown_variables():  # said once, before the verb's own lines
        print(f"neardup: warning: {escape_unseen(message)}", file=sys.stderr)
    warnings.showwarning = _note
    logging.getLogger("pysolr").setLevel(logging.WARNING)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="neardup: %(message)s",
    )
    terminated = []

    def on_sigterm(signum: int, _frame: object) -> None:
        # SIGTERM cleans up as Ctrl-C does: temporary collections dropped, partial outputs
        # removed (by the same handlers of KeyboardInterrupt), instead of dying on the spot.
        terminated.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        # NEARDUP_KERNEL, which the library reads (neardup.config), checked before any work;
        # the Solr variables are read by the verbs that use them, after their flags.
        kernel.active()
        return int(args.func(args))
    except NeardupError as exc:  # InputError among them: its exit_code is 2
        # The messages already leave credentials out; masking them here guards any new path.
        # lazy: pulls in pysolr and requests, which --help and the verbs without Solr do not need
        from ..solr.client import mask_userinfo

        said = mask_userinfo(str(exc))
        print(f"neardup: error: {said}", file=sys.stderr)
        if getattr(args, "json", False) and str(getattr(args, "out", "")) != "-":
            # a script reading --json gets an answer to parse, beside the exit code
            print(json.dumps({"error": said, "exit_code": exc.exit_code}))
        return exc.exit_code
    except KeyboardInterrupt:
        print("neardup: terminated" if terminated else "neardup: interrupted", file=sys.stderr)
        return 143 if terminated else 130
    except BrokenPipeError:
        # The reader of standard output went away (| head): the output was cut short, which a
        # script must be able to tell, so the exit status is a shell's for SIGPIPE (128 + 13),
        # not success. Standard output goes to /dev/null, so that its flush at exit is quiet.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        # a path given with a name (or a whole path) longer than the system allows: bad usage,
        # found by whichever check of the path asks first (Path.exists() raises it)
        print(f"neardup: error: {escape_unseen(str(exc.filename))}: {exc.strerror}",
              file=sys.stderr)  # fmt: skip
        return 2
    except MemoryError:
        # why: a step that asks for more memory than the machine has (a huge index's
        # candidates) is a failure to explain, not a traceback; outputs are written under a
        # temporary name and renamed only when complete, so none is left half-written.
        print(
            f"neardup: error: out of memory during '{args.verb}': this machine could not hold "
            "what it needed; no output was written. Run it where there is more memory, or on "
            "fewer records at a time",
            file=sys.stderr,
        )
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        try:
            close_opened()
        except NeardupError as exc:  # the index file's last records not written: a failure
            print(f"neardup: error: {exc}", file=sys.stderr)
            return 1  # noqa: B012 (the verb's own exit code would hide the failure)


if __name__ == "__main__":
    sys.exit(main())
