"""Candidates below the valley that stand out, rescued where the records come in families.

The valley rule (:mod:`neardup.decision.valley`) reads its bar between the records' best-match
similarities. Where records come in families (tracks of one album, products of one line), the
family's columns (artist, album, year) make most of a record's text, so every record's nearest
stranger is a sibling, as similar as a copy written another way (``Beatles, The`` for ``The
Beatles``, a title with ``(Remastered 2009)``, a length as ``259`` for ``4:19``). The valley is
then read above both, between the copies written alike and the rest, and misses the others.

The pairs that stand out by weighted similarity (:mod:`neardup.decision.standout`) tell these
apart: a family's shared words are frequent, so they weigh little, and a pair stands out only
when it is ahead of both records' runner-ups (their siblings). Those below the valley are
added to its pairs where three things hold:

* the records come in families: at least ``DEFAULTS.families_share`` of the candidates below
  the valley are siblings, records that agree exactly on at least half of the columns either
  holds. Where the candidates below are strangers (person records with a typo here and there),
  a best neighbour that stands out is no evidence of a match, and nothing is added;
* the two rules agree where both see matches: at least ``DEFAULTS.families_agreement`` of the
  valley's pairs stand out too;
* each pair added is a verified candidate (at the floor or more) that no check dropped.

Only added, never taken away, as where the valley shows no cut (:class:`StandingOut` in
:mod:`neardup.decision.decide`, which makes the numbers check on the pairs added).

Where the valley shows no cut, the fallback bar keeps siblings instead: two tracks of one
album share artist, album, year and language, most of their text. There the columns that tell
a family's members apart (:func:`telling`: a column of words of the records' text whose values
differ in most of the bar's pairs, while those pairs are alike on half of their other columns)
judge the bar's pairs (:func:`told_apart`): a pair stands where those values are alike
(``005-City`` within ``City``, a typo), not where they differ (two titles of one album). The
pairs told apart are dropped, whatever their number of copies: no one-partner rule, so that
the three copies of one track stay one cluster.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..defaults import DEFAULTS
from ..keys import id_key
from ..results import Pair
from ..sign.minhash import ShingleProcessor
from .columns import sample_pairs
from .standout import stand_out


def siblings(
    pairs: Sequence[Pair],
    rows: Mapping[str, Mapping[str, str]],
    normalize: Callable[[str], str],
) -> float:
    """The share of ``pairs`` whose records agree exactly (after ``normalize``) on at least half
    of the columns either holds: siblings of one family, or copies. 0.0 without pairs."""
    if not pairs:
        return 0.0
    same = 0
    for p in pairs:
        a, b = rows.get(p.id1, {}), rows.get(p.id2, {})
        names = set(a) | set(b)
        agree = sum(
            1 for n in names if a.get(n, "").strip() and normalize(a[n]) == normalize(b.get(n, ""))
        )
        same += bool(names) and 2 * agree >= len(names)
    return same / len(pairs)


def rescue(
    kept: Sequence[Pair],
    candidates: Sequence[Pair],
    dropped: Iterable[Pair],
    everything: Callable[[], Iterable[tuple[str, str]]],
    processor: ShingleProcessor,
    columns: Callable[[list[str]], Mapping[str, Mapping[str, str]]],
) -> tuple[list[Pair], dict[str, Any]] | None:
    """The candidates below the valley to add (each carrying its cosine as its
    ``similarity``), and what was found; None where the records do not come in families
    (nothing read beyond the candidates' columns)."""
    held = {(p.id1, p.id2) for p in kept}
    below = [p for p in candidates if (p.id1, p.id2) not in held]
    if len(below) < DEFAULTS.columns_min_pairs:
        return None
    sample = sample_pairs(below)
    ids = sorted({i for p in sample for i in (p.id1, p.id2)}, key=id_key)
    share = siblings(sample, columns(ids), processor.normalize)
    if share < DEFAULTS.families_share:
        return None
    records = list(everything())
    found = stand_out(records, processor)
    gone = held | {(p.id1, p.id2) for p in dropped}
    by_ids = {(p.id1, p.id2): p for p in below}
    by_kept = {(p.id1, p.id2): p for p in kept}
    agree = sum((a, b) in held for _, a, b in found.pairs) / len(kept) if kept else 0.0
    said: dict[str, Any] = {
        "pairs": len(found.pairs), "candidates": found.candidates, "agreement": agree,
        "siblings": share,
    }  # fmt: skip
    if agree < DEFAULTS.families_agreement:
        why = (
            f"records in families ({share:.0%} of the candidates below the threshold agree on "
            f"half their columns); no pairs added by weighted similarity: {agree:.0%} of the "
            f"valley's pairs stand out too (fewer than {DEFAULTS.families_agreement:.0%})"
        )
        return [], {**said, "added": 0, "reason": why}
    added = [
        dataclasses.replace(by_ids[(a, b)], similarity=round(s, 6))
        for s, a, b in found.pairs
        if (a, b) in by_ids and (a, b) not in gone
    ]
    copies = [by_kept[(a, b)] for _, a, b in found.pairs if (a, b) in by_kept]
    added, apart = _siblings_apart(
        added, sample, copies, columns, dict(records), processor.normalize
    )
    said["added"], said["told_apart"] = len(added), len(apart)
    said["reason"] = (
        f"{len(added)} pairs below the threshold added that stand out by weighted similarity "
        f"(TF-IDF cosine; one partner each, ahead of both records' runner-ups by "
        f"{DEFAULTS.link_margin:.0%}): the records come in families ({share:.0%} of the "
        f"candidates below the threshold agree on half their columns), where siblings are as "
        f"similar as copies; {agree:.0%} of the valley's pairs stand out too"
    )
    if apart:
        said["reason"] += (
            f"; {len(apart)} not added whose values differ in the columns that tell the "
            "family's members apart: siblings"
        )
    return added, said


def _siblings_apart(
    added: list[Pair],
    below: Sequence[Pair],
    copies: Sequence[Pair],
    columns: Callable[[list[str]], Mapping[str, Mapping[str, str]]],
    texts: Mapping[str, str],
    normalize: Callable[[str], str],
) -> tuple[list[Pair], list[Pair]]:
    """The pairs ``added`` that the columns telling a family's members apart (:func:`telling`,
    read off the candidates ``below`` the valley: siblings) let stand, and those that differ
    on most of them: a sibling may stand out too (the one colleague at a company of two:
    another first name and last name; the e-mails share the company's domain). Only where at
    least ``DEFAULTS.families_told`` of ``copies`` (the valley's pairs that stand out) are not
    so told apart: copies may write those columns otherwise (a citation's authors)."""
    if not added or not copies:
        return added, []
    ids = sorted({i for p in (*below, *added, *copies) for i in (p.id1, p.id2)}, key=id_key)
    rows = columns(ids)
    tell = telling(below, rows, texts, normalize)
    if not tell:
        return added, []

    def apart(p: Pair) -> bool:
        a, b = rows.get(p.id1, {}), rows.get(p.id2, {})
        both = [n for n in tell if a.get(n, "").strip() and b.get(n, "").strip()]
        return 2 * sum(not _alike(a[n], b[n], normalize) for n in both) > len(both)

    if sum(not apart(p) for p in copies) < DEFAULTS.families_told * len(copies):
        return added, []
    return [p for p in added if not apart(p)], [p for p in added if apart(p)]


def _grams(value: str, normalize: Callable[[str], str]) -> set[str]:
    """The character 3-grams of ``value`` after ``normalize`` (the value itself when shorter)."""
    s = normalize(value).strip()
    return {s[i : i + 3] for i in range(max(1, len(s) - 2))} if s else set()


def telling(
    pairs: Sequence[Pair],
    rows: Mapping[str, Mapping[str, str]],
    texts: Mapping[str, str],
    normalize: Callable[[str], str],
) -> list[str]:
    """The columns that tell the members of a family apart, where the records come in
    families: columns of words (at least half letters) of the records' texts (``texts``, what
    the pairs were measured on; a patent's co-authors beside its applicant's name are not)
    whose values differ in at least ``DEFAULTS.families_telling`` of ``pairs`` where both
    records hold them, while at least ``DEFAULTS.families_share`` of ``pairs`` are alike on
    half of the other columns both hold (artist, album, year: the family's). Empty otherwise."""
    held: dict[str, int] = {}
    differ: dict[str, int] = {}
    letters: dict[str, list[int]] = {}
    for p in pairs:
        a, b = rows.get(p.id1, {}), rows.get(p.id2, {})
        ta, tb = normalize(texts.get(p.id1, "")), normalize(texts.get(p.id2, ""))
        for n in set(a) & set(b):
            va, vb = normalize(a[n]).strip(), normalize(b[n]).strip()
            if not (va and vb and va in ta and vb in tb):
                continue
            held[n] = held.get(n, 0) + 1
            differ[n] = differ.get(n, 0) + (normalize(a[n]) != normalize(b[n]))
            count = letters.setdefault(n, [0, 0])
            for v in (a[n], b[n]):
                count[0] += sum(c.isalpha() for c in v)
                count[1] += sum(not c.isspace() for c in v)
    tell = sorted(
        n for n, k in held.items()
        if differ[n] >= DEFAULTS.families_telling * k and 2 * letters[n][0] >= letters[n][1]
    )  # fmt: skip
    if not tell:
        return []
    family = 0
    for p in pairs:
        a, b = rows.get(p.id1, {}), rows.get(p.id2, {})
        names = {n for n in set(a) & set(b) if a[n].strip() and b[n].strip()} - set(tell)
        agree = sum(1 for n in names if _alike(a[n], b[n], normalize))
        family += bool(names) and 2 * agree >= len(names)
    return tell if family >= DEFAULTS.families_share * len(pairs) else []


def _alike(a: str, b: str, normalize: Callable[[str], str]) -> bool:
    """Whether two values share at least ``DEFAULTS.families_contained`` of the shorter's
    character 3-grams (``Kiss`` and ``kiss``, ``Noche`` and ``Noche (2004)``)."""
    ga, gb = _grams(a, normalize), _grams(b, normalize)
    return bool(ga and gb) and len(ga & gb) >= DEFAULTS.families_contained * min(len(ga), len(gb))


def told_apart(
    kept: Sequence[Pair],
    rows: Mapping[str, Mapping[str, str]],
    normalize: Callable[[str], str],
    tell: Sequence[str],
) -> tuple[list[Pair], list[Pair]]:
    """The pairs of ``kept`` whose values of the columns ``tell`` (where both records hold
    them) share at least ``DEFAULTS.families_contained`` of the shorter value's character
    3-grams, and those that do not: siblings, two titles of one album."""
    stand, gone = [], []
    for p in kept:
        a, b = rows.get(p.id1, {}), rows.get(p.id2, {})
        alike = all(
            _alike(a[n], b[n], normalize) or not (a[n].strip() and b[n].strip())
            for n in tell
            if n in a and n in b
        )
        (stand if alike else gone).append(p)
    return stand, gone
