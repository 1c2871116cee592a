"""The decision step: which verified candidates are matches.

Every way of deciding is a :class:`Rule`: ``decide(features)`` takes the verified candidates
(:class:`Features`) and returns the pairs it keeps with a :class:`~neardup.results.Decision`
(the threshold, which rule chose it, the precision and recall it estimates where it knows them,
and what it found). Three rules today:

* :class:`FixedThreshold`: Jaccard at least a given bar;
* :class:`ValleyRule`: the bar read off the records' best-match similarities
  (:mod:`neardup.decision.valley`);
* :class:`LearnedRule`: a Fellegi-Sunter rule fitted by EM without labels
  (:mod:`neardup.decision.fellegi_sunter`).

A :class:`Check` (the numbers check, :class:`NumbersCheck`; the dates check,
:class:`DatesCheck`; the columns check, :class:`ColumnsCheck`) second-guesses the pairs a rule
kept; :class:`Checked` composes any rule with any checks. Why one interface: a new way of
deciding is one class here, and the report, the review page and ``--json`` print its
:class:`~neardup.results.Decision` as they print the others'.

>>> from neardup import Params
>>> pairs = [Pair("1", "2", 0.9, 0), Pair("1", "3", 0.6, 2)]
>>> rule = rule_for("threshold", 0.5)
>>> kept, decision = rule.decide(Features(pairs, {}, Params().processor(), 3))
>>> len(kept), decision.rule, decision.threshold
(2, 'threshold', 0.5)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..defaults import DEFAULTS
from ..keys import id_key
from ..results import Decision, Pair
from ..sign.minhash import ShingleProcessor
from .codes import codes_differ, codes_disagree
from .column_map import match_columns
from .columns import columns_disagree, sample_pairs
from .common_words import common_alone
from .dates import dates_differ, dates_disagree
from .families import rescue, telling, told_apart
from .fellegi_sunter import apply_rule
from .standout import measured, stand_out
from .swaps import swaps_disagree
from .valley import (
    RecordNumbers,
    numbers_alone_differ,
    numbers_disagree,
    numbers_identify,
    numbers_spared,
    read_valley,
    roles_disagree,
)

#: The columns of records by id (:meth:`neardup.backends.base.Backend.columns`).
ColumnReader = Callable[[list[str]], Mapping[str, Mapping[str, str]]]
#: The sources of records by id (:meth:`neardup.backends.base.Backend.sources`).
SourceReader = Callable[[list[str]], Mapping[str, str]]


@dataclass
class Features:
    """What a rule decides from: the verified candidates and how to read their records."""

    #: The verified candidates (each at the floor or more), sorted by id.
    pairs: list[Pair]
    #: The records' texts by id (:class:`neardup.candidates.text_table.TextTable`).
    texts: Mapping[str, str]
    processor: ShingleProcessor
    #: How many records the index holds (those without a candidate count too).
    records: int
    #: A report of new records only (``since``): their ids; None for the full report.
    fresh: set[str] | None = None
    #: The records' columns, for the columns check; None where there are none.
    columns: ColumnReader | None = None
    #: The records' sources by id, so that the columns of two sources are matched before they
    #: are compared (:mod:`neardup.decision.column_map`); None: one source.
    sources: SourceReader | None = None
    #: The index's primary source: the names the other sources' columns are renamed into.
    primary: str | None = None
    #: Column pairs the user mapped (``title=product_name``).
    given_columns: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: Every record of the index, (id, text): what a dedup rule reads beyond the candidates
    #: (:mod:`neardup.decision.standout`); None in link mode, whose pairs cross sources.
    everything: Callable[[], Iterable[tuple[str, str]]] | None = None
    #: The shingle hashes the backend kept of some records, ``(values, offsets)``, or None
    #: where it kept none of them: what the weighted Jaccard reads before making them again.
    hashes: Callable[[Sequence[str]], tuple[Any, Any] | None] | None = None


class Rule(Protocol):
    """A way of deciding which verified candidates are matches."""

    def decide(self, features: Features) -> tuple[list[Pair], Decision]:
        """The pairs kept, and how they were decided."""
        ...


class Check(Protocol):
    """A second opinion on the pairs a rule kept: the pairs it lets stand, and what it found
    (merged into the decision's ``explain``); the pairs it drops are listed under its
    ``name`` (:attr:`neardup.results.Decision.dropped`)."""

    name: str

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        """The pairs of ``kept`` it lets stand, and what it found."""
        ...


@dataclass(frozen=True)
class FixedThreshold:
    """Jaccard at least ``threshold``: every candidate verified at it is kept (the
    verification measured each one exactly, so nothing is left to decide)."""

    threshold: float
    #: The name the decision carries: ``documents`` where the common-words check follows.
    name: str = "threshold"

    def decide(self, features: Features) -> tuple[list[Pair], Decision]:
        return features.pairs, Decision(self.name, self.threshold)


@dataclass(frozen=True)
class CommonWordsCheck:
    """Documents alike by common words alone (a brand's boilerplate), dropped
    (:mod:`neardup.decision.common_words`)."""

    name: str = "common_words"

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        if not kept:
            return kept, {}
        out, found = common_alone(kept, features.texts, features.processor, features.hashes)
        return out, {"common_words": found}


@dataclass(frozen=True)
class ValleyRule:
    """The threshold at the valley of the records' best-match similarities, above ``floor``
    (:func:`neardup.decision.valley.valley_threshold`); in a report of new records, of theirs only.
    The valley is read on plain Jaccard and on Jaccard weighted by the shingles' rarity, and
    the data choose (:func:`neardup.decision.valley.read_valley`): where the weighted one decided,
    each kept pair carries its weighted Jaccard as its ``similarity``."""

    floor: float

    def decide(self, features: Features) -> tuple[list[Pair], Decision]:
        fresh, pairs = features.fresh, features.pairs
        records = features.records if fresh is None else len(fresh)
        found, weights = read_valley(
            pairs, features.texts, features.processor, records, self.floor, fresh,
            features.hashes,
        )  # fmt: skip
        cut = found.threshold
        if weights is None:
            kept = [p for p in pairs if p.jaccard >= cut]
        else:
            kept = [
                dataclasses.replace(p, similarity=w)
                for p, w in zip(pairs, weights, strict=True)
                if w >= cut
            ]
        return kept, Decision("valley", cut, explain=found.as_dict())


@dataclass(frozen=True)
class LearnedRule:
    """The match rule fitted to the candidates without labels
    (:func:`neardup.decision.fellegi_sunter.apply_rule`): each pair kept carries its match
    probability."""

    def decide(self, features: Features) -> tuple[list[Pair], Decision]:
        kept, fitted = apply_rule(features.pairs, features.texts, features.processor)
        explain = fitted.as_dict()
        return kept, Decision(
            "learned", explain["threshold"], explain["estimated_precision"],
            explain["estimated_recall"], explain,
        )  # fmt: skip


@dataclass(frozen=True)
class NumbersCheck:
    """Pairs whose records both hold numbers and share none dropped, where numbers tell
    entities apart here (:func:`neardup.decision.valley.numbers_identify`), and those whose
    records hold different numbers after the same word (``unit 305``, ``unit 306``:
    :func:`neardup.decision.valley.roles_disagree`) wherever; not made when ``enabled`` is
    False (the user turned it off)."""

    enabled: bool = True
    name: str = "numbers"

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        if not self.enabled:
            return kept, {"numbers_check": OFF, "numbers_disagree": 0}
        texts, processor = features.texts, features.processor
        read = (texts, processor, RecordNumbers(texts, processor))  # each record's, once
        identify, why = numbers_identify(kept, *read)
        kept, alone = numbers_alone_differ(kept, *read)
        kept, roles = roles_disagree(kept, *read)
        vetoed = 0
        if identify:
            kept, vetoed = numbers_disagree(kept, *read)
        found: dict[str, Any] = {"numbers_check": why, "numbers_disagree": vetoed}
        if identify:
            found["numbers_spared"] = numbers_spared(kept, *read)
        if alone:
            found["numbers_alone"] = alone
        if roles:
            found["numbers_roles"] = roles
        return kept, found


@dataclass(frozen=True)
class DatesCheck:
    """Pairs whose records both hold a full date and share none dropped, where the dates
    identify records here (:mod:`neardup.decision.dates`): the members of one household."""

    name: str = "dates"

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        return dates_disagree(kept, features.texts)


@dataclass(frozen=True)
class ColumnsCheck:
    """The kept pairs after the records' columns had their say (:mod:`neardup.decision.columns`);
    the verified pairs the rule dropped are what non-matches look like."""

    name: str = "columns"

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        held = {(p.id1, p.id2) for p in kept}
        below = [p for p in features.pairs if (p.id1, p.id2) not in held]
        others = sample_pairs(below)
        ids = sorted({i for p in (*kept, *others) for i in (p.id1, p.id2)}, key=id_key)
        rows = features.columns(ids) if features.columns is not None else {}
        if not rows:
            return kept, {"columns": None}
        matched = None
        if features.sources is not None:
            rows, matched = _matched_columns(rows, kept, features)
        out, check = columns_disagree(kept, others, dict(rows), features.processor, len(below))
        found = check.as_dict()
        if matched is not None:
            found["matched"] = matched.pairs()
        return out, {"columns": found}


@dataclass(frozen=True)
class SwapsCheck:
    """Pairs whose records hold the same values in other columns of one kind (a transfer and
    the one back), dropped (:mod:`neardup.decision.swaps`). Made on one
    source's columns: two sources name theirs apart."""

    name: str = "swaps"

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        if features.columns is None or not kept:
            return kept, {}
        # the columns' kinds are read off more records than the kept pairs': a swapped copy
        # alone makes two columns look alike; those of candidates below the bar are read too
        held = {(p.id1, p.id2) for p in kept}
        others = sample_pairs([p for p in features.pairs if (p.id1, p.id2) not in held])
        ids = sorted({i for p in (*kept, *others) for i in (p.id1, p.id2)}, key=id_key)
        normalize = features.processor.normalize
        rows = {
            i: {c: normalize(v) for c, v in row.items() if v and v.strip()}
            for i, row in features.columns(ids).items()
        }
        if features.sources is not None and len(set(features.sources(ids).values())) > 1:
            return kept, {}
        out, _, found = swaps_disagree(kept, rows)
        return out, {"swaps": found} if found["one_kind"] else {}


@dataclass(frozen=True)
class CodesCheck:
    """Pairs whose records hold different codes in a column of model numbers, dropped where the
    kept pairs are siblings and not copies (:mod:`neardup.decision.codes`). Made on one
    source's columns (two sources name theirs apart), never in link mode."""

    name: str = "codes"

    def check(self, kept: list[Pair], features: Features) -> tuple[list[Pair], dict[str, Any]]:
        if features.columns is None or features.everything is None or not kept:
            return kept, {}
        if features.sources is not None:
            ids = sorted({i for p in kept for i in (p.id1, p.id2)}, key=id_key)
            if len(set(features.sources(ids).values())) > 1:
                return kept, {}
        # the columns are read off every record where the index is small enough to read
        # them all (as for the pairs that stand out), else off the candidates' records
        records = (
            (i for i, _ in features.everything())
            if features.records <= DEFAULTS.standout_records
            else (i for p in features.pairs for i in (p.id1, p.id2))
        )
        out, found = codes_disagree(kept, records, features.columns,
                                    features.processor.normalize)  # fmt: skip
        return out, {"codes": found} if found.get("columns") else {}


def _matched_columns(
    rows: Mapping[str, Mapping[str, str]], kept: Sequence[Pair], features: Features
) -> tuple[Mapping[str, Mapping[str, str]], Any]:
    """The records' columns renamed into the primary source's names, where they come from
    more than one source (:func:`neardup.decision.column_map.match_columns`, from the kept
    pairs)."""
    assert features.sources is not None
    sources = features.sources(list(rows))
    if len(set(sources.values())) < 2:
        return rows, None
    anchors = [
        (sources[p.id1], rows[p.id1], sources[p.id2], rows[p.id2])
        for p in kept
        if p.id1 in rows and p.id2 in rows and p.id1 in sources and p.id2 in sources
    ]
    mapping = match_columns(anchors, features.given_columns, features.primary)
    return {k: mapping.rename(sources.get(k), r) for k, r in rows.items()}, mapping


@dataclass(frozen=True)
class Checked:
    """A rule whose kept pairs then go through ``checks``, in order; what each found is added
    to the decision's ``explain``."""

    rule: Rule
    checks: Sequence[Check]

    def decide(self, features: Features) -> tuple[list[Pair], Decision]:
        kept, decision = self.rule.decide(features)
        explain = dict(decision.explain or {"kind": decision.rule})
        dropped: dict[str, list[Pair]] = {}
        for check in self.checks:
            before = kept
            kept, found = check.check(kept, features)
            explain.update(found)
            if len(kept) < len(before):
                stand = {(p.id1, p.id2) for p in kept}
                dropped[check.name] = [p for p in before if (p.id1, p.id2) not in stand]
        return kept, dataclasses.replace(decision, explain=explain, dropped=dropped)


@dataclass(frozen=True)
class StandingOut:
    """A rule whose pairs, where it found no clear cut (a valley rule's fallback), are joined
    by those that stand out by weighted similarity (:mod:`neardup.decision.standout`): never in
    a report of new records, never past ``DEFAULTS.standout_records`` records, never a pair a
    check dropped, and only where at least ``DEFAULTS.standout_agreement`` of the pairs that
    stand out are at the bar too. The numbers and dates checks, where made, are made on the
    pairs added as on the bar's. Each pair added carries its cosine as its ``similarity``.
    Before, where the records come in families, the bar's pairs whose family-telling columns
    differ are dropped (:func:`neardup.decision.families.told_apart`): siblings, not copies."""

    rule: Rule

    def decide(self, features: Features) -> tuple[list[Pair], Decision]:
        kept, decision = self.rule.decide(features)
        explain = decision.explain or {}
        if features.fresh is not None:
            return kept, decision
        if explain.get("found", True):
            return _in_families(kept, decision, features)
        if features.everything is None or features.records > DEFAULTS.standout_records:
            why = f"not read: more than {DEFAULTS.standout_records:,} records"
            said = {"added": 0, "reason": why}
            return kept, dataclasses.replace(decision, explain={**explain, "stood_out": said})
        texts = dict(features.everything())
        found = stand_out(texts.items(), features.processor)
        kept, decision = _families_apart(kept, decision, features, found.pairs)
        explain = decision.explain or {}
        held = {(p.id1, p.id2) for p in kept}
        held.update((p.id1, p.id2) for gone in decision.dropped.values() for p in gone)
        fresh = [(s, a, b) for s, a, b in found.pairs if (a, b) not in held]
        agree = 1.0 - len(fresh) / len(found.pairs) if found.pairs else 0.0
        said: dict[str, Any] = {
            "pairs": len(found.pairs), "candidates": found.candidates, "agreement": agree,
        }  # fmt: skip
        if not found.pairs:
            said["added"] = 0
            said["reason"] = "no pair stands out by weighted similarity"
            return kept, dataclasses.replace(decision, explain={**explain, "stood_out": said})
        if agree < DEFAULTS.standout_agreement:
            said["added"] = 0
            said["reason"] = (
                f"no pairs added by weighted similarity: of the {len(found.pairs)} that stand "
                f"out, {agree:.0%} are at the bar too (fewer than "
                f"{DEFAULTS.standout_agreement:.0%}: the two disagree on what a match is here)"
            )
            return kept, dataclasses.replace(decision, explain={**explain, "stood_out": said})
        added = [measured(s, a, b, texts, features.processor) for s, a, b in fresh]
        # two records that share not one of the index's shingles ("a b", "b") are alike to
        # nothing the index holds: removed by dedupe at similarity 0.0000, otherwise
        added = [p for p in added if p.jaccard > 0]
        dropped = dict(decision.dropped)
        added, explain = _numbers_on(added, texts, features.processor, explain, dropped)
        added, explain = _dates_on(added, texts, explain, dropped)
        added, explain = _codes_on(added, features, explain, dropped)
        said["added"] = len(added)
        said["reason"] = (
            f"{len(added)} pairs added that stand out by weighted similarity (TF-IDF cosine; "
            f"one partner each, ahead of both records' runner-ups by {DEFAULTS.link_margin:.0%}; "
            f"{agree:.0%} of the {len(found.pairs)} that stand out are at the bar too)"
        )
        out = sorted([*kept, *added], key=lambda p: (id_key(p.id1), id_key(p.id2)))
        return out, dataclasses.replace(
            decision, explain={**explain, "stood_out": said}, dropped=dropped,
            stood_out=frozenset((p.id1, p.id2) for p in added),
        )


def _numbers_on(
    added: list[Pair],
    texts: Mapping[str, str],
    processor: ShingleProcessor,
    explain: Mapping[str, Any],
    dropped: dict[str, list[Pair]],
) -> tuple[list[Pair], dict[str, Any]]:
    """The pairs ``added`` to a rule's that the numbers check, where the rule's pairs went
    through it, lets stand, as it does the rule's: numbers alone that differ, then the check;
    those it drops join ``dropped`` (in place), and the counts ``explain``."""
    explain = dict(explain)
    if explain.get("numbers_check", OFF) == OFF:
        return added, explain
    before = added
    read = (texts, processor, RecordNumbers(texts, processor))
    added, alone = numbers_alone_differ(added, *read)
    added, roles = roles_disagree(added, *read)
    vetoed = 0
    if explain["numbers_check"].startswith("made"):
        added, vetoed = numbers_disagree(added, *read)
    stand = {(p.id1, p.id2) for p in added}
    gone = [p for p in before if (p.id1, p.id2) not in stand]
    if gone:
        dropped["numbers"] = [*dropped.get("numbers", []), *gone]
        explain["numbers_disagree"] = explain.get("numbers_disagree", 0) + vetoed
        if alone:
            explain["numbers_alone"] = explain.get("numbers_alone", 0) + alone
        if roles:
            explain["numbers_roles"] = explain.get("numbers_roles", 0) + roles
    return added, explain


def _dates_on(
    added: list[Pair],
    texts: Mapping[str, str],
    explain: Mapping[str, Any],
    dropped: dict[str, list[Pair]],
) -> tuple[list[Pair], dict[str, Any]]:
    """The pairs ``added`` to a rule's that the dates check, where it was made on the rule's
    pairs, lets stand; those it drops join ``dropped`` (in place), and the count ``explain``."""
    explain = dict(explain)
    if not str(explain.get("dates_check", "")).startswith("made"):
        return added, explain
    added, gone = dates_differ(added, texts)
    if gone:
        dropped["dates"] = [*dropped.get("dates", []), *gone]
        explain["dates_disagree"] = explain.get("dates_disagree", 0) + len(gone)
    return added, explain


def _codes_on(
    added: list[Pair],
    features: Features,
    explain: Mapping[str, Any],
    dropped: dict[str, list[Pair]],
) -> tuple[list[Pair], dict[str, Any]]:
    """The pairs ``added`` to a rule's that the codes check, where it was made on the rule's
    pairs, lets stand; those it drops join ``dropped`` (in place), and the count ``explain``."""
    explain = dict(explain)
    made = (explain.get("codes") or {}).get("made")
    if not made or not added or features.columns is None:
        return added, explain
    ids = sorted({i for p in added for i in (p.id1, p.id2)}, key=id_key)
    added, gone = codes_differ(added, features.columns(ids), made, features.processor.normalize)
    if gone:
        dropped["codes"] = [*dropped.get("codes", []), *gone]
        codes = explain["codes"]
        explain["codes"] = {**codes, "dropped": codes["dropped"] + len(gone)}
    return added, explain


def _in_families(
    kept: list[Pair], decision: Decision, features: Features
) -> tuple[list[Pair], Decision]:
    """The valley's pairs joined by the candidates below it that stand out, where the records
    come in families (:mod:`neardup.decision.families`); never past
    ``DEFAULTS.standout_records`` records."""
    if (
        features.everything is None
        or features.columns is None
        or features.records > DEFAULTS.standout_records
    ):
        return kept, decision
    gone = [p for ps in decision.dropped.values() for p in ps]
    found = rescue(kept, features.pairs, gone, features.everything, features.processor,
                   features.columns)  # fmt: skip
    if found is None:
        return kept, decision
    added, said = found
    dropped = dict(decision.dropped)
    added, explain = _numbers_on(
        added, features.texts, features.processor, decision.explain or {}, dropped
    )
    added, explain = _dates_on(added, features.texts, explain, dropped)
    added, explain = _codes_on(added, features, explain, dropped)
    said["added"] = len(added)
    explain["stood_out"] = said
    if added:
        explain["reason"] = _between_families(explain.get("reason", ""))
    out = sorted([*kept, *added], key=lambda p: (id_key(p.id1), id_key(p.id2)))
    return out, dataclasses.replace(
        decision, explain=explain, dropped=dropped,
        stood_out=frozenset((p.id1, p.id2) for p in added),
    )


def _between_families(reason: str) -> str:
    """The valley's words where the records come in families and copies were found below it:
    under it lie records whose nearest neighbour is a sibling, copies among them."""
    return re.sub(
        r"; (\d+) do not \((.*?)\)$",
        r"; \1 do not (\2): below it, the nearest neighbour of most is a sibling of their "
        "family, and copies written another way are among them",
        reason,
    )


def _families_apart(
    kept: list[Pair],
    decision: Decision,
    features: Features,
    standing: Sequence[tuple[float, str, str]],
) -> tuple[list[Pair], Decision]:
    """The bar's pairs, where the valley shows no cut and the records come in families, less
    those whose columns that tell a family's members apart differ (two titles of one album:
    :func:`neardup.decision.families.telling`); those dropped are listed under ``families``.
    Only where the pairs that stand out by weighted similarity (``standing``) agree: at least
    ``DEFAULTS.families_told`` of those whose records both hold the columns are alike on them
    (where they are not, the column differs between copies too: authors written ``J. Smith``
    and ``Smith, John``)."""
    if features.columns is None or len(kept) < DEFAULTS.columns_min_pairs:
        return kept, decision
    sample = sample_pairs(kept)
    normalize = features.processor.normalize
    ids = sorted({i for p in sample for i in (p.id1, p.id2)}, key=id_key)
    tell = telling(sample, features.columns(ids), features.texts, normalize)
    if not tell:
        return kept, decision
    judged = [Pair(a, b, 0.0, 0) for _, a, b in standing]
    ids = sorted({i for p in (*kept, *judged) for i in (p.id1, p.id2)}, key=id_key)
    rows = features.columns(ids)
    judged = [p for p in judged if all(rows.get(p.id1, {}).get(n, "").strip()
                                       and rows.get(p.id2, {}).get(n, "").strip() for n in tell)]
    alike = len(told_apart(judged, rows, normalize, tell)[0]) / len(judged) if judged else 0.0
    said: dict[str, Any] = {"columns": tell, "dropped": 0, "agreement": alike}
    if alike < DEFAULTS.families_told:
        return kept, dataclasses.replace(
            decision, explain={**(decision.explain or {}), "families": said}
        )
    kept, gone = told_apart(kept, rows, normalize, tell)
    said["dropped"] = len(gone)
    dropped = {**decision.dropped, "families": gone} if gone else decision.dropped
    explain = {**(decision.explain or {}), "families": said}
    return kept, dataclasses.replace(decision, explain=explain, dropped=dropped)


#: What the numbers check says when the user turned it off.
OFF = "not made: turned off (numbers_check=False, --no-numbers-check)"


def rule_for(name: str, threshold: float, *, numbers_check: bool = True) -> Rule:
    """The rule an index's ``rule`` parameter names (:data:`neardup.params.RULES`):
    ``threshold`` at ``threshold``; ``valley`` above it as a floor, with the numbers check
    (unless ``numbers_check`` is False), the dates check, the columns check, the swaps check
    and the codes check; ``learned``."""
    if name == "learned":
        return LearnedRule()
    if name == "valley":
        checks = (NumbersCheck(numbers_check), DatesCheck(), ColumnsCheck(), SwapsCheck(),
                  CodesCheck())  # fmt: skip
        return StandingOut(Checked(ValleyRule(threshold), checks))
    if name == "documents":
        return Checked(FixedThreshold(threshold, "documents"), (CommonWordsCheck(),))
    return FixedThreshold(threshold)


# -- what the Jaccard rules say -------------------------------------------------------------
# Each rule's words live beside it: the outputs (report, dedupe, review, --json) print them
# through :func:`neardup.decision.words.words_for` and know no rule by name.


def similarity_name(decision: Decision) -> str:
    """The similarity a rule's threshold applies to, as the report names it."""
    weighted = (decision.explain or {}).get("similarity") == "weighted jaccard"
    return "weighted Jaccard" if weighted else "Jaccard"


def matched_line(matched: list[str] | None) -> str:
    """The columns of two sources compared as one (:mod:`neardup.decision.column_map`), if any."""
    if not matched:
        return ""
    return f"\ncolumns compared across sources: {', '.join(matched)}"


def _checks_text(explain: Mapping[str, Any]) -> str:
    """What the numbers and columns checks composed with a Jaccard rule found."""
    cols = explain.get("columns")
    numbers = (
        f"{explain.get('numbers_disagree', 0)} pairs dropped whose records both hold "
        "numbers and share none"
        if explain.get("numbers_check", "made").startswith("made")
        else f"numbers check {explain['numbers_check']}"
    )
    spared = explain.get("numbers_spared", 0)
    if spared:
        numbers += (f" ({spared} pairs whose numbers differ kept: at Jaccard >= "
                    f"{DEFAULTS.numbers_waived_jaccard} the check is waived)")  # fmt: skip
    alone = explain.get("numbers_alone", 0)
    if alone:
        numbers += f"; {alone} pairs dropped whose records are different numbers alone"
    roles = explain.get("numbers_roles", 0)
    if roles:
        numbers += (f"; {roles} pairs dropped whose records hold different numbers after the "
                    "same word (unit 305, unit 306)")  # fmt: skip
    dates = explain.get("dates_check")
    if dates is not None:
        numbers += f"\ndates check {dates}" + (
            f"; {explain['dates_disagree']} pairs dropped whose records both hold a date and "
            "share none" if dates.startswith("made") else ""
        )
    return (
        numbers
        + (f"\ncolumns ({', '.join(cols['columns'])}): {cols['reason']}" if cols else "")
        + matched_line(cols.get("matched") if cols else None)
        + _swaps_text(explain)
        + _codes_text(explain)
    )


def _swaps_text(explain: Mapping[str, Any]) -> str:
    """What the swaps check found, where it dropped pairs."""
    swaps = explain.get("swaps")
    if not swaps or not swaps["dropped"]:
        return ""
    return (
        f"\nswaps check: {swaps['dropped']} pairs dropped whose records hold the same values in "
        "other columns of one kind ("
        + "; ".join(", ".join(k) for k in swaps["swapped"])
        + "): a transfer and the one back, not a copy"
    )


def _codes_text(explain: Mapping[str, Any]) -> str:
    """What the codes check found on each code column: the pairs it dropped and why, or why
    it was not made."""
    codes = explain.get("codes")
    if not codes:
        return ""
    made = [j for j in codes["columns"] if j["made"]]
    text = ""
    if made:
        names = ", ".join(j["column"] for j in made)
        why = "; ".join(j["reason"] if len(made) == 1 else f"{j['column']}: {j['reason']}"
                        for j in made)  # fmt: skip
        text = (f"\ncodes ({names}): {codes['dropped']:,} pairs dropped whose records hold "
                f"different codes in {names}; {why}")  # fmt: skip
    for judged in codes["columns"]:
        if not judged["made"]:
            text += f"\ncodes ({judged['column']}): {judged['reason']}"
    return text


def _checked(explain: Mapping[str, Any]) -> bool:
    """Whether checks were composed with the rule (:class:`Checked`)."""
    return "numbers_check" in explain or "dates_check" in explain or "columns" in explain


def jaccard_reason(decision: Decision, pair: Pair, threshold: float) -> str:
    """Why a pair stands under a Jaccard rule: its similarity at the bar, or a completed
    cluster's."""
    explain = decision.explain or {}
    # A valley read on weighted Jaccard: each pair it kept carries that similarity.
    weighed = decision.rule == "valley" and similarity_name(decision) != "Jaccard"
    sim = pair.similarity if weighed else pair.jaccard
    # a pair added as it stands out carries its cosine, whatever the valley was read on; a
    # decision read back from its words alone (no such set) tells them by the plain valley
    added = (pair.id1, pair.id2) in decision.stood_out or (
        not weighed and pair.similarity is not None and bool(explain.get("stood_out"))
    )
    if added and pair.similarity is not None:
        return (
            f"stands out by weighted similarity: cosine {pair.similarity:.3f}, ahead of both "
            "records' runner-ups"
        )
    if sim is None or sim + 1e-9 < threshold:
        return "cluster completed: most pairs of its cluster verified"
    how = ""
    if decision.rule == "valley":  # the bar is the valley's, or the fallback where none showed
        how = ", valley read off the data" if explain.get("found", True) else ", the fallback"
    name = similarity_name(decision) if weighed else "Jaccard"
    said = f"{name} {sim:.3f} >= {threshold:g}{how}"
    if explain.get("columns"):
        said += "; columns checked"
    return said


def probability_reason(pair: Pair) -> str | None:
    """Why a pair a learned rule scored stands: its match probability."""
    if pair.probability is None:
        return None
    return f"learned rule: match probability {pair.probability:.3f}"


class ThresholdWords:
    """A fixed Jaccard bar."""

    def short(self, decision: Decision) -> str:
        return f"Jaccard >= {decision.threshold:g}"

    def line(self, decision: Decision) -> str:
        return f"decided: pairs with {self.short(decision)}"

    def detail(self, decision: Decision) -> str:
        explain = decision.explain or {}
        return f"\nchecks: {_checks_text(explain)}" if _checked(explain) else ""

    def reason(self, decision: Decision, pair: Pair, threshold: float) -> str:
        return probability_reason(pair) or jaccard_reason(decision, pair, threshold)


class DocumentsWords(ThresholdWords):
    """A fixed Jaccard bar on documents, less the pairs alike by common words alone."""

    def short(self, decision: Decision) -> str:
        found = (decision.explain or {}).get("common_words", {})
        dropped = found.get("dropped", 0)
        less = f", less {dropped} pairs alike by common words alone" if dropped else ""
        return f"Jaccard >= {decision.threshold:g}{less}"

    def detail(self, decision: Decision) -> str:
        found = (decision.explain or {}).get("common_words")
        return f"\ncommon words: {found['reason']}" if found else ""


class ValleyWords(ThresholdWords):
    """The bar read off the data, and what the checks found."""

    def short(self, decision: Decision) -> str:
        found = (decision.explain or {})["found"]
        how = "read off the data" if found else "the default, as the data show no clear cut"
        added = (decision.explain or {}).get("stood_out", {}).get("added", 0)
        them = "pairs that stand" if added > 1 else "pair that stands"
        also = f", and {added} {them} out by weighted similarity" if added else ""
        return f"{similarity_name(decision)} >= {decision.threshold:g}, {how}{also}"

    def detail(self, decision: Decision) -> str:
        explain = decision.explain or {}
        chose = f"; {explain['choice']}" if explain.get("choice") else ""
        if explain.get("families", {}).get("dropped"):
            fam = explain["families"]
            chose += (f"; records in families: {fam['dropped']} pairs at the bar dropped "
                      f"whose values differ in {', '.join(fam['columns'])} (the columns that "
                      "tell a family's members apart)")  # fmt: skip
        if explain.get("stood_out"):
            chose += f"; {explain['stood_out']['reason']}"
        return (
            f"\nvalley rule: {similarity_name(decision)} >= {explain['threshold']:g}; "
            f"{explain['reason']}{chose}; " + _checks_text(explain)
        )


class LearnedWords(ThresholdWords):
    """The rule fitted without labels, with its own estimates."""

    def short(self, decision: Decision) -> str:
        return f"learned rule from Jaccard {decision.threshold:g}"

    def line(self, decision: Decision) -> str:
        return (
            "decided: pairs a rule learned from the data accepts "
            f"(Jaccard >= {decision.threshold:g})"
        )

    def detail(self, decision: Decision) -> str:
        explain = decision.explain or {}
        return (
            f"\nlearned rule ({', '.join(explain['features'])}): accepts from Jaccard "
            f"{explain['threshold']:.3f}, {explain['accepted']} of {explain['candidates']} "
            f"candidates; estimated precision {decision.precision:.3f}, recall "
            f"{decision.recall:.3f}" + (f"; {_checks_text(explain)}" if _checked(explain) else "")
        )
