"""A review page: one self-contained HTML file to look at what a run merged before trusting it.

Reading pairs of ids is not reviewing. The page shows the run's parameters and counts, the
similarity histogram with the threshold marked, the clusters largest first, and every pair side
by side with its word-level differences highlighted, with a filter by similarity (or by a click
on a bar of the histogram) and a search by id or text. :func:`write_evaluation_page` writes the
same page for a gold standard: false positives and missed pairs side by side.

Everything is inline (CSS, JavaScript, the histogram as SVG, the data as JSON), so the page opens
from a file with no network. It stays usable at 100k pairs because the data is embedded once
(each text once, pairs as indices into it) and the JavaScript renders one page of pairs or
clusters at a time; the word differences are computed in the browser for the page shown.

A record is its source and its id: two files may both hold an id 7 (:mod:`neardup.keys`). The
page keys each record as the index does (its id for a record of the primary source or of none,
else its id and its source), shows the source beside every id when the page holds records of
two or more sources, builds its clusters from these keys, and writes the sources into every
file it downloads (the gold file and the reviewer's labels, :data:`LABELS_HEADER`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import resources
from ..candidates.verify import verified_jaccard
from ..decision.cluster import center_clusters
from ..decision.column_map import ColumnMap, match_columns
from ..decision.identifiers import identifiers
from ..decision.valley import WEIGHTED
from ..evaluate.scores import Scores, score
from ..keys import SEP, id_key, record_id, source_of_key
from ..params import Params
from ..read.items import Record
from ..read.records import read_records
from ..results import Report
from ..sign.minhash import ShingleProcessor
from ..sign.text import normalize, number_words, ordered, word_edit_distance
from ..version import __version__
from .output import reason, rule_text
from .write import AtomicFile, check_output

if TYPE_CHECKING:
    from ..index import NearDupIndex

#: Histogram bins over [0, 1].
BINS = 50
#: Characters of a text the page holds: a longer one is cut there (and says so), so that a
#: 200,000-word record does not make the page unusable; similarities are the report's, of the
#: whole text.
MAX_TEXT = 20_000
#: Report counts shown under "details" only: they change from run to run.
VOLATILE = ("seconds", "timings")
#: The decisions of pages of pairs picked to label, not kept by a rule.
PICKED = ("asked", "checked")
#: The header of the labels file the page downloads: one reviewed pair a line (TSV), its label
#: :data:`MATCH` or :data:`NON_MATCH` (the page's script writes it with these names).
LABELS_HEADER = ("source1", "id1", "source2", "id2", "label", "asked")
MATCH, NON_MATCH = "match", "non-match"
COLORS = {
    "pair": "#4c78a8",
    "true positive": "#54a24b",
    "false positive": "#e45756",
    "missed": "#f58518",
    "completed": "#72b7b2",
}


@dataclass(frozen=True)
class Page:
    """A page written: where, how large, and what it holds."""

    path: Path
    bytes: int
    pairs: int
    clusters: int
    #: The report's pairs, where the page shows fewer (:data:`MAX_PAIRS`); else :attr:`pairs`.
    of: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "bytes": self.bytes, "pairs": self.pairs,
                "clusters": self.clusters, "of": self.pairs if self.of is None else self.of}

    def shown_line(self) -> str:
        """What the page leaves out and how to see it, where it leaves out pairs ("")."""
        return shown_line(self.pairs, self.of)


def shown_line(pairs: int, of: int | None) -> str:
    """The line a page of ``pairs`` of the report's ``of`` says ("" where it shows all)."""
    if of is None or of <= pairs:
        return ""
    return (f"the page shows the {pairs:,} pairs nearest the threshold of the report's "
            f"{of:,} (--max-pairs 0, max_pairs=0: every pair)")  # fmt: skip


#: The pairs a review page shows at most, by default: those nearest the threshold, where a
#: reviewer's eye is needed. Why: 292k pairs made a 30 MB page in 37 s, heavier than a browser
#: reads comfortably and more than anyone reads; the report's file holds them all.
MAX_PAIRS = 50_000


#: A record as a caller may name it to :func:`write_review`: its id (a record of no source, or
#: of the ``primary`` one), or ``(source, id)``.
RecordName = str | tuple[str, str]


def page_key(record: str, source: str | None, primary: str | None = None) -> str:
    """The page's key of the record ``record`` of ``source``: the index's own key
    (:func:`neardup.keys.key_of`) when ``primary`` is the index's primary source; a record of
    no source is its id. Two records that share an id but not a source never share a key."""
    if source is None or source == primary:
        return record
    return f"{record}{SEP}{source}"


def _keyed(named: Mapping[Any, Any] | None, primary: str | None) -> dict[str, Any]:
    """A mapping by :data:`RecordName` (ids, or ``(source, id)``; a mapping's key type is
    invariant, hence ``Any``) as one by page keys."""
    out: dict[str, Any] = {}
    for name, value in (named or {}).items():
        if isinstance(name, tuple):
            out[page_key(str(name[1]), name[0], primary)] = value
        else:
            out[name] = value
    return out


@dataclass(frozen=True)
class _Row:
    """One pair of the page: its records' keys (:func:`page_key`), similarity (None: unknown),
    edit distance, label, and the learned rule's match probability (None under a fixed
    threshold)."""

    id1: str
    id2: str
    jaccard: float | None
    edit_distance: int | None
    label: str
    probability: float | None = None
    #: Why ``review --ask`` asked about the pair (``Pair.asked``); None on other pages.
    asked: str | None = None


# -- the histogram ---------------------------------------------------------------------------


def bin_of(similarity: float) -> int:
    """The histogram bin of a similarity as the page shows it (rounded to 4 decimals); the
    page's script bins the same way, so a click on a bar shows exactly the pairs it counts."""
    return min(int(round(similarity, 4) * BINS + 1e-9), BINS - 1)


def histogram_svg(
    rows: Sequence[_Row], labels: Sequence[str], threshold: float | None, width: int = 640,
    height: int = 180,
) -> str:
    """Pairs by similarity in :data:`BINS` bins over [0, 1], stacked by label, the threshold as
    a dashed line; each bar carries its range (a click filters the page to it)."""
    counts = [[0] * len(labels) for _ in range(BINS)]
    where = {label: k for k, label in enumerate(labels)}
    for r in rows:
        if r.jaccard is not None:
            counts[bin_of(r.jaccard)][where[r.label]] += 1
    top = max((sum(c) for c in counts), default=0) or 1
    left, right, above, below = 44, 12, 22, 26
    plot_w, plot_h = width - left - right, height - above - below
    bar_w = plot_w / BINS
    parts = [
        f'<svg id="nd-hist" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" role="img" aria-label="pairs by similarity">',
        f'<line x1="{left}" y1="{above + plot_h}" x2="{left + plot_w}" y2="{above + plot_h}"'
        ' class="axis"/>',
        f'<text x="{left - 6}" y="{above + 4}" class="tick" text-anchor="end">{top}</text>',
        f'<text x="{left - 6}" y="{above + plot_h}" class="tick" text-anchor="end">0</text>',
    ]
    for t in range(11):
        x = left + plot_w * t / 10
        parts.append(
            f'<text x="{x:.1f}" y="{height - 8}" class="tick" text-anchor="middle">'
            f"{t / 10:.1f}</text>"
        )
    for b, stack in enumerate(counts):
        lo, hi = b / BINS, (b + 1) / BINS
        y = above + plot_h
        for k, n in enumerate(stack):
            if not n:
                continue
            h = max(plot_h * n / top, 1.0)
            y -= h
            parts.append(
                f'<rect x="{left + b * bar_w + 0.5:.1f}" y="{y:.1f}" width="{bar_w - 1:.1f}" '
                f'height="{h:.1f}" fill="{COLORS.get(labels[k], "#888")}" data-bin="{b}" '
                f'data-lo="{lo:.2f}" data-hi="{hi:.2f}"><title>{lo:.2f}-{hi:.2f}: {n} '
                f"{html.escape(labels[k])}{'' if n == 1 else 's'}</title></rect>"
            )
    if threshold is not None:
        x = left + plot_w * threshold
        parts.append(
            f'<line id="nd-threshold" x1="{x:.1f}" y1="{above - 6}" x2="{x:.1f}" '
            f'y2="{above + plot_h}" class="threshold"/><text x="{x + 4:.1f}" y="{above - 8}" '
            f'class="tlabel">threshold {threshold:g}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


# -- the page --------------------------------------------------------------------------------


def _table(rows: Iterable[tuple[str, Any]]) -> str:
    cells = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_shown(v))}</td></tr>"
        for k, v in rows
    )
    return f"<table class='kv'>{cells}</table>"


#: What the page shows for a value that is not set (never a raw ``None`` or ``null``).
UNSET = "not set"


def _shown(value: Any) -> str:
    if value is None:
        return UNSET
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict | list):
        return json.dumps(_set(value), sort_keys=True)
    return str(value)


def _set(value: Any) -> Any:
    """``value`` with every None inside it as :data:`UNSET`."""
    if value is None:
        return UNSET
    if isinstance(value, dict):
        return {k: _set(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_set(v) for v in value]
    return value


def _cards(summary: Sequence[tuple[str, str, Any]]) -> str:
    return "".join(
        f'<div class="card" data-count="{html.escape(key)}"><span class="n">'
        f'{html.escape(_shown(value))}</span><span class="l">{html.escape(label)}</span></div>'
        for key, label, value in summary
    )


def _clusters_of(rows: Sequence[_Row]) -> list[list[str]]:
    """The page's clusters as dedupe makes them (center clusters: :mod:`neardup.decision.cluster`),
    so that each cluster shows one kept record; of records (keys), never of bare ids."""
    found = center_clusters((r.id1, r.id2, r.jaccard or 0.0) for r in rows)
    return [sorted(c.members, key=_key_order) for c in found]


def _key_order(key: str) -> tuple[Any, ...]:
    """Records in id order (numbers as numbers), then by source."""
    return (id_key(record_id(key)), source_of_key(key) or "")


def _payload(
    rows: Sequence[_Row],
    texts: Mapping[str, str],
    groups: list[list[str]],
    labels: Sequence[str],
    filters: Sequence[tuple[str, Sequence[str]]],
    threshold: float | None,
    sort: str,
    kept: Collection[str] = (),
    primary: str | None = None,
) -> dict[str, Any]:
    """The data the page's script renders: each record (id, source) and text once, pairs as
    indices; ``kept``: the records dedupe keeps (as indices too). Records are keyed by
    :func:`page_key`, so a record of one source never takes another's text or cluster."""
    number: dict[str, int] = {}
    ids: list[str] = []

    def at(key: str) -> int:
        n = number.get(key)
        if n is None:
            n = number[key] = len(ids)
            ids.append(key)
        return n

    cluster_of = {i: c for c, g in enumerate(groups) for i in g}
    where = {label: k for k, label in enumerate(labels)}
    pairs = [
        [
            at(r.id1),
            at(r.id2),
            None if r.jaccard is None else round(r.jaccard, 4),
            r.edit_distance,
            where[r.label],
            cluster_of.get(r.id1, -1),
            None if r.probability is None else round(r.probability, 4),
            r.asked,
        ]
        for r in rows
    ]
    shown = [texts.get(i) for i in ids]
    cut = [n for n, t in enumerate(shown) if t is not None and len(t) > MAX_TEXT]
    for n in cut:
        shown[n] = shown[n][:MAX_TEXT]  # type: ignore[index]
    shown = [None if t is None else visible(t) for t in shown]
    # Each record's source as an index into the page's sources (-1: none known); empty when
    # no record has one.
    of = [source_of_key(k) or primary for k in ids]
    names = sorted({s for s in of if s is not None})
    where_source = {s: n for n, s in enumerate(names)}
    return {
        "ids": [visible(record_id(k)) for k in ids],
        "sources": [visible(s) for s in names],
        "source": [where_source.get(s, -1) for s in of] if names else [],
        "texts": shown,
        "cut": cut,
        "pairs": pairs,
        "kept": sorted(number[i] for i in kept if i in number),
        "clusters": [[at(i) for i in g] for g in groups],
        "labels": list(labels),
        "colors": [COLORS.get(label, "#888") for label in labels],
        "filters": [[name, [where[x] for x in members]] for name, members in filters],
        "threshold": threshold,
        "sort": sort,
        "bins": BINS,
    }


#: Characters that change how the text around them is shown without being seen themselves:
#: the bidirectional controls (an RLO makes "txt.exe" read "exe.txt"), zero-width characters
#: and the byte-order mark. Two records that look alike on the page must be alike.
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def visible(text: str) -> str:
    """``text`` with each invisible control shown as its code point, e.g. ``[U+202E]``."""
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def _script_json(data: Any) -> str:
    """JSON that can stand inside a <script> element: no ``<`` at all (``</script>``,
    ``<!--``), as a JSON escape that parses back to the same text."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def render(
    *,
    title: str,
    subtitle: str,
    summary: Sequence[tuple[str, str, Any]],
    tables: Sequence[tuple[str, Iterable[tuple[str, Any]]]],
    details: Iterable[tuple[str, Any]],
    rows: Sequence[_Row],
    texts: Mapping[str, str],
    labels: Sequence[str],
    filters: Sequence[tuple[str, Sequence[str]]],
    threshold: float | None,
    sort: str = "asc",
    rule: str = "",
    kept: Collection[str] = (),
    extra: Mapping[str, Any] | None = None,
    primary: str | None = None,
) -> tuple[str, int]:
    """The page's HTML, and how many clusters it shows. ``rows``, ``texts`` and ``kept`` name
    records by their :func:`page_key` (of ``primary``). ``rule``: a panel's HTML (the review
    page's threshold and rule); ``extra``: more data for the script (the review page's
    evidence, and that pairs can be marked)."""
    groups = _clusters_of(rows)
    data = {**_payload(rows, texts, groups, labels, filters, threshold, sort, kept, primary),
            **(extra or {})}
    # The page's identity, a hash of its data (records, texts, pairs): the browser keeps a
    # reviewer's marks under it, so a page written again from the same data finds them and
    # another page never does.
    data["identity"] = hashlib.sha256(_script_json(data).encode("utf-8")).hexdigest()[:32]
    side = "".join(
        f"<div class='panel'><h2>{html.escape(name)}</h2>{_table(items)}</div>"
        for name, items in tables
    )
    legend = "".join(
        f"<span class='key'><i style='background:{COLORS.get(label, '#888')}'></i>"
        f"{html.escape(label)}</span>"
        for label in labels
    )
    template, css, script = (p.read_text(encoding="utf-8") for p in resources.review_page())
    slots = {
        "title": html.escape(visible(title)),
        "subtitle": html.escape(visible(subtitle)),
        "cards": _cards(summary),
        "histogram": histogram_svg(rows, labels, threshold),
        "measure": html.escape(str((extra or {}).get("measure", "Jaccard"))),
        "legend": legend if len(labels) > 1 else "",
        "tables": side,
        "rule": rule,
        "details": _table(details),
        "version": html.escape(__version__),
        "css": css,
        "script": script,
        "data": _script_json(data),
    }
    # One pass: what is filled in (a title, the data) is never read for slots again.
    page = re.sub(r"\{\{(\w+)\}\}", lambda m: slots[m.group(1)], template)
    return page, len(groups)


def _write(out: str | Path, page: str, pairs: int, clusters: int) -> Page:
    out = check_output(out, "review page")
    data = page.encode("utf-8")
    with AtomicFile(out) as fh:
        fh.write(data)
    return Page(out, len(data), pairs, clusters)


def nearest_the_bar(report: Report, max_pairs: int | None) -> tuple[Report, int | None]:
    """The report with its ``max_pairs`` pairs nearest its threshold (in the measure that
    decided), in their order, and how many it held; the report as it is (and None) where it
    holds no more, ``max_pairs`` is None or 0, or its pairs were picked to label."""
    total = len(report.pairs)
    if not max_pairs or total <= max_pairs or report.decision.rule in PICKED:
        return report, None
    weighted = _weighted(report)

    def away(k: int) -> float:
        p = report.pairs[k]
        value = p.similarity if weighted and p.similarity is not None else p.jaccard
        return abs(value - report.threshold) if value is not None else float("inf")

    chosen = sorted(sorted(range(total), key=away)[:max_pairs])
    return dataclasses.replace(report, pairs=[report.pairs[k] for k in chosen]), total


def _params_rows(params: Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    """The plain values of a mapping, for a table (nested ones go under "details")."""
    return [(k, v) for k, v in (params or {}).items() if not isinstance(v, dict | list)]


#: Shared words a pair's evidence lists, of each kind (identifiers, rare words).
EVIDENCE_WORDS = 5


def _column_map(
    report: Report,
    columns: Mapping[str, Mapping[str, str]],
    primary: str | None,
    given: Mapping[str, str] | None,
) -> ColumnMap:
    """The columns of the page's sources matched (:mod:`neardup.decision.column_map`), from its
    pairs."""
    anchors = []
    for p in report.pairs:
        s1, s2 = p.source1 or primary, p.source2 or primary
        r1 = columns.get(page_key(p.id1, p.source1, primary))
        r2 = columns.get(page_key(p.id2, p.source2, primary))
        if s1 is not None and s2 is not None and s1 != s2 and r1 and r2:
            anchors.append((s1, r1, s2, r2))
    return match_columns(anchors, given, primary)


def evidence(
    report: Report,
    texts: Mapping[str, str],
    columns: Mapping[str, Mapping[str, str]] | None = None,
    primary: str | None = None,
    given_columns: Mapping[str, str] | None = None,
) -> tuple[list[str], list[list[Any]]]:
    """Why each pair of ``report`` is one, for a reviewer: the reasons (each once) and per
    pair ``[reason, identifiers, rare words, fields that agree, that differ, that one record
    lacks]``. Identifiers are the shared normalized words that hold a digit
    (:func:`neardup.sign.text.number_words`: house, phone, model numbers), rare words the other
    shared words; both rarest first over the page's records (then longest), since a shared
    ``the`` says nothing and a shared ``kdl-46v3000`` says much. Fields compare the records'
    columns (``columns``: key -> column -> value) by their normalized values, the columns of
    two sources matched first (by ``given_columns``, name and content: a field that agrees
    across them reads ``title=product_name``). ``texts`` and ``columns`` are keyed by
    :func:`page_key` (of ``primary``)."""
    bag = {i: set(normalize(t).split()) for i, t in texts.items() if t}
    df = Counter(w for ws in bag.values() for w in ws)
    reasons: dict[str, int] = {}
    rows: list[list[Any]] = []
    mapping = _column_map(report, columns or {}, primary, given_columns)
    # A column compared under another source's name is shown as both: "title=product_name".
    label = {a: f"{a}={b}" for a, b, _, _ in mapping.matched if a != b}
    for p in report.pairs:
        k1, k2 = page_key(p.id1, p.source1, primary), page_key(p.id2, p.source2, primary)
        shared = bag.get(k1, set()) & bag.get(k2, set())
        # identifiers as the numbers checks read them: "CDD-4738" and "CDD4738" are one
        numbers = identifiers(bag.get(k1, set())) & identifiers(bag.get(k2, set()))
        # a code's digits alone are its alias ("sd1000" -> "1000"): shown once, as the code
        numbers -= {n for n in numbers if n.isdigit() and any(
            m != n and m.endswith(n) for m in numbers)}  # fmt: skip

        def rarest(ws: Iterable[str]) -> list[str]:
            return sorted(ws, key=lambda w: (df[w], -len(w), w))[:EVIDENCE_WORDS]

        fields: tuple[list[str], list[str], list[str]] = ([], [], [])
        a = mapping.rename(p.source1 or primary, (columns or {}).get(k1, {}))
        b = mapping.rename(p.source2 or primary, (columns or {}).get(k2, {}))
        for name in [*a, *(n for n in b if n not in a)]:
            x, y = normalize(a.get(name) or ""), normalize(b.get(name) or "")
            if x or y:
                fields[0 if x == y else 1 if x and y else 2].append(label.get(name, name))
        said = reason(report, p)
        rows.append([reasons.setdefault(said, len(reasons)), rarest(numbers),
                     rarest(shared - number_words(shared)), *fields])
    return list(reasons), rows


def _rule_panel(report: Report, kept: Collection[str] | None, keep: str, shown: str = "") -> str:
    """The threshold and rule in the words ``neardup report`` prints, the record kept, and
    (``shown``) which pairs the page shows where not all."""
    lines = "".join(f"<div>{html.escape(line)}</div>" for line in rule_text(report))
    if shown:
        lines += f"<div id='nd-shown'><b>{html.escape(shown[0].upper() + shown[1:])}</b></div>"
    if report.mode == "link":
        said = "link mode: records of different sources are paired; none is removed"
    elif kept is not None:
        said = f"the record dedupe keeps in each cluster (keep {keep}) is marked kept"
    else:
        said = "the record kept is not known here: give the input file (or use dedupe --review)"
    return (
        f"<div class='panel'><h2>Threshold and rule</h2><div id='nd-rule'>{lines}</div>"
        f"<div id='nd-keep' class='rid'>{html.escape(said)}</div></div>"
    )


def write_review(
    out: str | Path,
    report: Report,
    texts: Mapping[Any, str],
    *,
    params: Mapping[str, Any] | None = None,
    title: str = "neardup review",
    source: str = "",
    kept: Collection[RecordName] | None = None,
    keep: str = "first",
    columns: Mapping[Any, Mapping[str, str]] | None = None,
    primary: str | None = None,
    given_columns: Mapping[str, str] | None = None,
    of: int | None = None,
) -> Page:
    """The review page of a report: ``texts`` maps the records of its pairs to their texts,
    ``params`` are the index's (``Params.to_dict()``). Values are read from the report, so a
    threshold it learned or a mode it ran in shows as it is, in the words ``report`` prints.
    ``kept``: the records dedupe keeps by its rule ``keep`` (:func:`neardup.out.dedupe.kept_ids`);
    ``columns``: the records' columns, compared in each pair's evidence (:func:`evidence`;
    ``given_columns``: column pairs of two sources the user says are one).

    A record is named by its id when its pair gives it no source (or gives ``primary``, the
    index's primary source), else by ``(source, id)``; a pair's records are told apart by
    their sources even where they share an id (``texts`` and ``columns`` are keyed by
    :data:`RecordName`). ``of``: the pairs of the whole report, where ``report`` holds only
    those the page shows (:func:`nearest_the_bar`), said on the page."""
    texts, columns = _keyed(texts, primary), _keyed(columns, primary)
    if kept is not None:
        kept = set(_keyed(dict.fromkeys(kept), primary))
    # Pairs a completed cluster added (neardup.decision.completion) sit below the rule's threshold,
    # which every pair the rule kept reaches: shown apart, so a reader sees which is which.
    added = bool(report.completion and report.completion.get("added"))
    weighted = _weighted(report)
    rows = _review_rows(report, primary, weighted, added)
    labels = ["pair", "completed"] if added else ["pair"]
    filters = [("all pairs", labels)]
    if added:
        filters += [("verified", ["pair"]), ("completed clusters' pairs", ["completed"])]
    counts = report.counts()
    run = {k: v for k, v in counts.items() if k not in VOLATILE}
    # pairs picked to label (--ask, --check): no threshold or pruning kept them, and the
    # counts of a report they are not would misstate them ("threshold 0", "verified 0")
    picked = report.decision.rule in PICKED
    if picked:
        run = {k: v for k, v in run.items() if k in ("records", "mode", "rule")}
    groups = _clusters_of(rows)
    reasons, why = evidence(report, texts, columns, primary, given_columns)
    summary = [
        ("records", "records", report.records),
        ("pairs", "pairs", len(rows)),
        ("clusters", "clusters", len(groups)),
        ("clustered", "records in clusters", sum(len(g) for g in groups)),
        *([] if picked else [("threshold", "threshold", report.threshold)]),
    ]
    page, n_clusters = render(
        title=title,
        subtitle=source,
        summary=summary,
        tables=[("Run", _params_rows(run)), ("Parameters", _params_rows(_floor(params)))],
        details=[(k, v) for k, v in run.items() if isinstance(v, dict)]
        + [(k, v) for k, v in (params or {}).items() if isinstance(v, dict)]
        + [(k, v) for k, v in counts.items() if k in VOLATILE],
        rows=rows,
        texts=texts,
        labels=labels,
        filters=filters,
        threshold=None if picked else report.threshold,
        rule=_rule_panel(report, kept, keep, shown_line(len(rows), of)),
        kept=kept or (),
        extra={"reasons": reasons, "evidence": why, "marks": True,
               "measure": "weighted cosine" if weighted else "Jaccard",
               "label_file": {"header": LABELS_HEADER, "match": MATCH, "non_match": NON_MATCH}},
        primary=primary,
    )
    written = _write(out, page, len(rows), n_clusters)
    return dataclasses.replace(written, of=of)


def _weighted(report: Report) -> bool:
    """Whether the weighted link's cosine decided the report: then the page shows it, so
    that the histogram, its threshold and each pair's figure are one measure."""
    rule = report.decision.explain or {}
    return report.decision.rule == "weighted" or (
        report.decision.rule == "valley" and rule.get("similarity") == WEIGHTED
    )


def _review_rows(report: Report, primary: str | None, weighted: bool, added: bool) -> list[_Row]:
    """The report's pairs as the page's rows, in the measure that decided (``weighted``);
    with ``added``, those under the threshold are the pairs a completed cluster added."""
    return [
        _Row(
            page_key(p.id1, p.source1, primary), page_key(p.id2, p.source2, primary),
            p.similarity if weighted and p.similarity is not None else p.jaccard,
            p.edit_distance,
            "completed" if added and (p.similarity if weighted and p.similarity is not None
                                      else p.jaccard) < report.threshold else "pair",
            getattr(p, "probability", None),
            getattr(p, "asked", None),
        )
        for p in report.pairs
    ]  # fmt: skip


def _floor(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The index's parameters, its ``threshold`` named for what it is: what the bands were
    made for (under the valley rule, a floor), not the report's threshold."""
    return {("bands made for Jaccard" if k == "threshold" else k): v
            for k, v in (params or {}).items()}


def review_index(
    index: NearDupIndex,
    out: str | Path,
    report: Report | None = None,
    *,
    title: str = "neardup review",
    source: str = "",
    kept: Collection[str] | None = None,
    keep: str = "first",
    max_pairs: int | None = MAX_PAIRS,
) -> Page:
    """The review page of an index's report (made with the defaults when not given), with
    the records' columns compared; ``kept`` and ``keep`` as :func:`write_review`'s. At most
    ``max_pairs`` pairs are shown, those nearest the threshold (None or 0: every pair), and
    the page says so (:func:`nearest_the_bar`; :attr:`Page.of`)."""
    report = report if report is not None else index.report()
    report, of = nearest_the_bar(report, max_pairs)
    # A record of the page is keyed as the index keys it (neardup.keys: its id, and its source
    # where that is not the primary one), so each is read under its own key: two files'
    # records 7 keep their own texts.
    primary = index.primary_source
    keys = sorted(
        {page_key(i, s, primary)
         for p in report.pairs for i, s in ((p.id1, p.source1), (p.id2, p.source2))},
        key=_key_order,
    )
    return write_review(
        out, report, index.backend.texts(keys), params=index.params.to_dict(), title=title,
        source=source or index.backend.location, kept=kept, keep=keep,
        columns=index.backend.columns(keys), primary=primary, of=of,
    )


def _texts_of(records: str | Path | Iterable[Any], wanted: set[str]) -> dict[str, str]:
    """The texts of the ``wanted`` ids only, from a file (any format) or from records."""
    items = read_records(records) if isinstance(records, str | Path) else records
    texts: dict[str, str] = {}
    for item in items:
        if isinstance(item, Record):
            record_id, text = item.id, item.text
        elif isinstance(item, tuple) and len(item) == 2:
            record_id, text = str(item[0]), item[1]
        else:
            continue
        if record_id in wanted:
            texts[record_id] = text
    return texts


def _evaluation_rows(
    found: set[tuple[str, str]],
    gold: set[tuple[str, str]],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
) -> list[_Row]:
    """False positives, then missed pairs, then true ones, each in id order, measured
    exactly with ``processor``'s shingles where both texts are known (a file of pairs need
    not carry similarities)."""
    shingles: dict[str, frozenset[str]] = {}

    def row(a: str, b: str, label: str) -> _Row:
        if a not in texts or b not in texts:
            return _Row(a, b, None, None, label)
        for x in (a, b):
            if x not in shingles:
                shingles[x] = processor.shingle_set(texts[x])
        jac = verified_jaccard(shingles[a], shingles[b])
        dist = word_edit_distance(normalize(texts[a]).split(), normalize(texts[b]).split())
        return _Row(a, b, jac, dist, label)

    def key(p: tuple[str, str]) -> tuple[Any, ...]:
        return (id_key(p[0]), id_key(p[1]))

    rows = [row(a, b, "false positive") for a, b in sorted(found - gold, key=key)]
    rows += [row(a, b, "missed") for a, b in sorted(gold - found, key=key)]
    rows += [row(a, b, "true positive") for a, b in sorted(found & gold, key=key)]
    return rows


def write_evaluation_page(
    out: str | Path,
    found: Iterable[tuple[str, str]],
    gold: Iterable[tuple[str, str]],
    records: str | Path | Iterable[Any] | None = None,
    *,
    scores: Scores | None = None,
    params: Params | None = None,
    threshold: float | None = None,
    title: str = "neardup evaluation",
    source: str = "",
) -> Page:
    """The review page of found pairs against gold pairs: false positives and missed pairs
    (and the true ones, one filter away), side by side.

    ``records`` (a file of records, or ``(id, text)`` pairs) gives the texts; without it the
    page shows ids only. Similarities are measured exactly, with ``params``' shingles (default:
    neardup's defaults), since a file of pairs need not carry them; the threshold marked is
    ``threshold``, else ``params``'.
    """
    found_set = {ordered(a, b) for a, b in found if a != b}
    gold_set = {ordered(a, b) for a, b in gold if a != b}
    params = params if params is not None else Params()
    scores = scores if scores is not None else score(found_set, gold_set)
    wanted = {i for p in found_set | gold_set for i in p}
    texts = _texts_of(records, wanted) if records is not None else {}
    rows = _evaluation_rows(found_set, gold_set, texts, params.processor())
    missing = len(wanted - texts.keys())
    # a precision of no pair found: undefined, not 0
    said = {k: "n/a" if v is None else v for k, v in scores.as_reported().items()}
    summary = [
        ("gold", "gold pairs", scores.gold),
        ("found", "pairs found", scores.pairs),
        ("true", "true pairs", scores.true_pairs),
        ("false_positives", "false positives", len(found_set - gold_set)),
        ("missed", "missed", len(gold_set - found_set)),
        *((k, {"f1": "F1"}.get(k, k), said[k]) for k in ("recall", "precision", "f1")),
    ]
    threshold = threshold if threshold is not None else params.threshold
    page, n_clusters = render(
        title=title,
        subtitle=source,
        summary=summary,
        tables=[
            ("Scores", list(said.items())),
            ("Similarity measured with", _params_rows(params.to_dict())),
        ],
        details=[("records without a text", missing)],
        rows=rows,
        texts=texts,
        labels=["true positive", "false positive", "missed"],
        filters=[
            ("errors: false positives and missed", ["false positive", "missed"]),
            ("false positives", ["false positive"]),
            ("missed", ["missed"]),
            ("true positives", ["true positive"]),
            ("all pairs", ["true positive", "false positive", "missed"]),
        ],
        threshold=threshold,
    )
    return _write(out, page, len(rows), n_clusters)
