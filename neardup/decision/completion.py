"""Clusters completed: the pairs a nearly complete cluster implies, reported with the rest.

A record cited forty times in five styles, a company written a hundred ways: the copies of one
entity are not all alike. Two citations in different styles can share fewer shingles than any
threshold that keeps other papers apart, yet each is close to many of the copies between them.
Pairs alone then miss many of a big cluster's pairs (on generated citations a quarter, while
nearly every pair found is right), though the cluster itself is right.

Completing every connected component would chain: one wrong pair joins two entities, and
their every pair follows. So only a component whose verified pairs already cover at least
``DEFAULTS.complete_density`` (:mod:`neardup.defaults`) of its pairs is completed. A wrong
bridge between two entities leaves their component sparse (two cliques of five joined by one
pair: 21 of 45 pairs), and a chain of three records (relatives at one address: two of three
pairs) is left as it is. The pairs added carry
their exact Jaccard and edit distance, which are below the rule's bar: that is how a reader
tells them from the verified ones.

On the development suite completion gained most where clusters are big and their copies
unlike (generated citations, patent applicants) and changed the others little. The bar sits
between two losses: lower, it completes chains of three (relatives), higher, it leaves
citation clusters incomplete (the figures: docs/accuracy.md, "What each step for records did
when it was added").

>>> kept = [("0", "1"), ("0", "2"), ("0", "3"), ("1", "2"), ("1", "3")]   # 5 of 6 pairs
>>> missing, info = missing_pairs(kept)
>>> missing, info["clusters"]
([('2', '3')], 1)
>>> missing_pairs([("a", "b"), ("b", "c")])[0]   # a chain of three is left alone
[]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from itertools import combinations
from typing import Any

from ..defaults import DEFAULTS
from ..graph import union_find
from ..keys import id_key
from ..results import Pair
from .identifiers import roles_differ

#: The checks whose dropped pairs completion may add back: they judge a pair by what the data
#: taught them (how the kept pairs' columns agree; numbers shared), which copies written
#: otherwise fail too. Patent applicants: 8,433 pairs the columns check dropped were all true
#: and completed back; FEBRL 3: 5 pairs whose numbers a typo parted. The other checks, and
#: the numbers check where it drops two siblings (different numbers after the same word:
#: "Suite 11", "Suite 15"), part two entities, and their pairs are never added.
RECONSIDERED = frozenset({"columns", "numbers"})


def parted_pairs(
    dropped: Mapping[str, Sequence[Pair]], numbers: Callable[[str], frozenset[str]]
) -> set[tuple[str, str]]:
    """The pairs completion must not add (both orders): those a check dropped as two entities
    (:data:`RECONSIDERED`); ``numbers``: a record's numbers (``RecordNumbers``)."""
    out: set[tuple[str, str]] = set()
    for check, gone in dropped.items():
        for p in gone:
            if check not in RECONSIDERED or (
                check == "numbers" and roles_differ(numbers(p.id1), numbers(p.id2))
            ):
                out.update(((p.id1, p.id2), (p.id2, p.id1)))
    return out

#: The missing pairs a check would drop, and why, in words (``whose records ...``).
Veto = Callable[[list[tuple[str, str]]], tuple[list[tuple[str, str]], str]]


def missing_pairs(
    pairs: Iterable[tuple[str, str]],
    density: float = DEFAULTS.complete_density,
    parted: Set[tuple[str, str]] = frozenset(),
    veto: Veto | None = None,
) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """The pairs missing from the nearly complete components of ``pairs`` (see the module),
    each in id order, and what was found: components completed, pairs missing. A pair in
    ``parted`` (:func:`parted_pairs`: two units of one building, two sizes of one product) is
    never added: the check's verdict stands over the cluster's. ``veto``: the missing pairs a
    check the rule's pairs went through would drop, with the reason, left out (two sibling
    models' records: :mod:`neardup.decision.codes`).

    >>> missing_pairs([("0", "1"), ("0", "2"), ("0", "3"), ("1", "2"), ("1", "3")],
    ...               parted={("2", "3")})[0]
    []
    """
    pairs = list(pairs)  # each pair once, as a report holds them
    root = union_find(pairs)
    members: dict[str, set[str]] = defaultdict(set)
    edges: dict[str, int] = defaultdict(int)
    for a, b in pairs:
        r = root(a)
        members[r].update((a, b))
        edges[r] += 1
    chosen: dict[str, None] = {}  # in first-seen order: the same output in every process
    for r, ids in members.items():
        n = len(ids)
        possible = n * (n - 1) // 2
        if n >= DEFAULTS.complete_min_records and density * possible <= edges[r] < possible:
            chosen[r] = None
    # Only the chosen components' pairs are held in memory, not the report's.
    held = {
        (a, b) if id_key(a) <= id_key(b) else (b, a) for a, b in pairs if root(a) in chosen
    }
    missing: list[tuple[str, str]] = []
    for r in chosen:
        ordered = sorted(members[r], key=id_key)
        missing += [ab for ab in combinations(ordered, 2) if ab not in held and ab not in parted]
    vetoed, why = veto(missing) if veto is not None and missing else ([], "")
    if vetoed:
        out = set(vetoed)
        missing = [ab for ab in missing if ab not in out]
    chosen = {root(a): None for a, _ in missing}  # those left with a pair to add
    completed = len(chosen)
    info = {
        "density": density,
        "clusters": completed,
        "added": len(missing),
        "reason": (
            f"{_n(len(missing), 'pair')} added in {_n(completed, 'cluster')} of "
            f"{DEFAULTS.complete_min_records} or more records whose pairs were at least "
            f"{density:.0%} verified"
            + (f"; {_n(len(vetoed), 'missing pair')} left out {why}" if vetoed else "")
        ),
    }
    if vetoed:
        info["vetoed"] = len(vetoed)
    return missing, info


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"
