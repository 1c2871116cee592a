"""What every verb shares: the Solr options, the environment, and how results are printed."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from ..io import Item


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
        "--solr-heap",
        default=None,
        help="Java heap of neardup's own local node when this command starts it, e.g. 4g "
        "($NEARDUP_SOLR_HEAP; default: a quarter of the machine's memory, 1 to 8 GB)",
    )
    g.add_argument(
        "--solr-ca",
        default=None,
        help="CA bundle to verify Solr's TLS certificate ($NEARDUP_SOLR_CA)",
    )


def max_bucket_option(p: argparse.ArgumentParser) -> None:
    """``--max-bucket``: the bound on what a common feature costs (neardup.candidates)."""
    from ..candidates import DEFAULT_MAX_BUCKET

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


def input_options(p: argparse.ArgumentParser) -> None:
    """How records are read from a file: its format, the id and text fields of a table, and the
    largest record."""
    from ..io import FORMATS

    p.add_argument(
        "--format",
        default="auto",
        choices=["auto", *FORMATS],
        help="input format (default: from the file's extension; 'lines' is 'ID TEXT')",
    )
    p.add_argument("--id-field", default="id", help="id column/key for tsv, csv and jsonl")
    p.add_argument(
        "--text-field",
        action="append",
        default=None,
        help="text column/key (repeat to join several; default: 'text' if there is one, else "
        "every column but the id and the source, each compared on its own too)",
    )
    p.add_argument(
        "--source-field",
        default=None,
        help="column/key holding each record's source, which --mode link pairs across (one "
        "file holding several catalogues); default: the file a record is read from",
    )
    p.add_argument(
        "--delimiter",
        default=None,
        help="the column separator of a csv file (default: read off its header line: the one "
        "of , | ; and tab that splits it into the most columns)",
    )
    record_limit_option(p)


def record_limit_option(p: argparse.ArgumentParser) -> None:
    """``--max-record-bytes``: records with a larger text are rejected as they are read."""
    from ..io import MAX_RECORD_BYTES

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


def _positive_int(raw: str) -> int:
    return _int_at_least(raw, 1, "a number of bytes >= 1")


def read_input(args: argparse.Namespace, path: Path) -> Iterator[Item]:
    """The records of ``path`` as the input options say to read them."""
    from ..io import read_records

    return read_records(
        path,
        args.format,
        args.id_field,
        tuple(args.text_field) if args.text_field else None,
        max_record_bytes=args.max_record_bytes,
        source_field=args.source_field,
        delimiter=args.delimiter,
    )


def env_seconds(name: str, positive: bool = False) -> float | None:
    """A number of seconds from the environment (None when unset or empty)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (value > 0 if positive else value >= 0):  # also rejects nan and inf below
        raise InputError(
            f"{name} must be a number of seconds {'> 0' if positive else '>= 0'}, got {raw!r}"
        )
    return min(value, 86400.0)


def home() -> Path | None:
    raw = os.environ.get("NEARDUP_HOME")
    return Path(raw).expanduser() if raw else None


def env_auth() -> Any:
    from ..solr.client import Auth

    user = os.environ.get("NEARDUP_SOLR_USER")
    if not user:
        return None
    return Auth(user, os.environ.get("NEARDUP_SOLR_PASSWORD", ""))


def local_node(heap: str | None = None) -> Any:
    """neardup's own node; ``heap`` (a flag) wins over ``$NEARDUP_SOLR_HEAP``."""
    from ..solr.local import LocalSolr

    heap = heap or os.environ.get("NEARDUP_SOLR_HEAP") or None
    return LocalSolr(home(), heap=heap, auth=env_auth())


def open_solr(
    args: argparse.Namespace, create: bool = True, server: bool = False, start: bool = True
) -> Any:
    """The collection the flags and the environment name, as a :class:`neardup.solr.Solr`
    (with ``server``, a client of the server alone: no collection is looked for or made; the
    local node is started for it only with ``start``)."""
    from ..errors import SolrUnavailable
    from ..solr.admin import connect
    from ..solr.client import Auth

    auth = None
    user = args.solr_user or os.environ.get("NEARDUP_SOLR_USER")
    if args.solr_password is not None:
        print(
            "neardup: warning: --solr-password is visible to other users of this machine (ps, "
            "/proc); prefer NEARDUP_SOLR_PASSWORD",
            file=sys.stderr,
        )
    if user:
        password = args.solr_password
        if password is None:
            password = os.environ.get("NEARDUP_SOLR_PASSWORD", "")
        auth = Auth(user, password)
    verify: bool | str = args.solr_ca or os.environ.get("NEARDUP_SOLR_CA") or True
    url = args.solr_url or os.environ.get("NEARDUP_SOLR_URL") or None
    options: dict[str, Any] = {
        "auth": auth,
        "verify": verify,
        "create": create,
        "timeout": env_seconds("NEARDUP_SOLR_TIMEOUT", positive=True),
        "retry_budget": env_seconds("NEARDUP_SOLR_RETRY_BUDGET"),
    }
    collection = getattr(args, "collection", None)
    try:
        if server:
            from ..solr.client import Solr

            options.pop("create")
            if url is None:
                node = local_node()
                state = node.running() or (node.start() if start else None)
                if state is None:
                    raise SolrUnavailable("neardup's local Solr node is not running")
                url = state.url
            client = Solr(url, **options)
            client.system_info()  # fails fast, with the URL, if Solr is not there
            return client
        if url is None:
            node = local_node(getattr(args, "solr_heap", None))
            state = node.running() or node.start()
            if state.mode == "standalone":
                node.refresh_configset()
            return connect(
                state.url, collection, shards=2 if state.mode == "cloud" else 1, **options
            )
        return connect(url, collection, **options)
    except SolrUnavailable as exc:
        if "HTTP 401" in str(exc):
            raise SolrUnavailable(
                f"{exc}: give --solr-user and --solr-password "
                "(or NEARDUP_SOLR_USER / NEARDUP_SOLR_PASSWORD)"
            ) from None
        if "certificate could not be verified" in str(exc):
            raise SolrUnavailable(f"{exc} (--solr-ca or NEARDUP_SOLR_CA)") from None
        raise
    except InputError as exc:
        if "CA bundle" in str(exc):
            raise InputError(f"{exc} (check --solr-ca or NEARDUP_SOLR_CA)") from None
        raise


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(payload, indent=2, sort_keys=False))
    else:
        print(text)


def rule_line(rule: dict[str, Any] | None, completion: dict[str, Any] | None = None) -> str:
    """What a report's rule decided, for a person: the valley, the numbers and columns
    checks, or the learned rule, and the clusters completed (a leading newline each)."""
    done = f"\nclusters completed: {completion['reason']}" if completion else ""
    return (_rule_line(rule) if rule else "") + done


def _rule_line(rule: dict[str, Any]) -> str:
    cols = rule.get("columns")
    if rule.get("kind") == "weighted":
        return (
            f"\nweighted rule: {rule['similarity']}; candidates: {rule['candidates']}; "
            f"{rule['assignment']} ({rule['mapped']} pairs); {rule['decision']} "
            f"({rule['stood_out']} pairs); numbers check {rule['numbers_check']}"
            + (
                f", {rule['numbers_disagree']} pairs dropped whose records both hold numbers "
                "and share none"
                if rule["numbers_check"].startswith("made")
                else ""
            )
            + f"\n{rule['columns']}"
        )
    if rule.get("kind", "").startswith("valley"):
        return (
            f"\nvalley rule: Jaccard >= {rule['threshold']:g}; {rule['reason']}; "
            + (
                f"{rule.get('numbers_disagree', 0)} pairs dropped whose records both hold "
                "numbers and share none"
                if rule.get("numbers_check", "made").startswith("made")
                else f"numbers check {rule['numbers_check']}"
            )
            + (f"\ncolumns ({', '.join(cols['columns'])}): {cols['reason']}" if cols else "")
        )
    return (
        f"\nlearned rule ({', '.join(rule['features'])}): accepts from Jaccard "
        f"{rule['threshold']:.3f}, {rule['accepted']} of {rule['candidates']} candidates; "
        f"estimated precision {rule['estimated_precision']:.3f}, "
        f"recall {rule['estimated_recall']:.3f}"
    )
