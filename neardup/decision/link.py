"""Linking sources by weighted similarity: the default decision of ``report(mode="link")``.

The steps, each in its own module:

1. **records** of every source, read back from the backend (keys, texts, sources, columns);
2. **weights**: TF-IDF of character 4-grams over all of them (:mod:`neardup.decision.weights`),
   their dates first written in one form (:mod:`neardup.decision.date_forms`: ``07/03/1980``
   and ``1980-03-07`` are one date);
3. **candidates**: each record's top-k of every other source (:mod:`neardup.decision.topk`);
4. **similarity**: the exact cosine of every candidate pair;
5. **assignment**: one partner per record and source
   (:func:`neardup.decision.assign.unique_mapping`);
6. **decision**: a mapped pair holds when it stands out from both records' runner-ups
   (:func:`neardup.decision.assign.stands_out`) and, where the data's numbers are identifiers, when
   its records do not hold different numbers (:func:`numbers_check`), and when, both short, its
   records are not two names that each hold a word the other lacks
   (:mod:`neardup.decision.names`). A pair ahead of both runner-ups by less than that holds
   when its records share a code that neither runner-up holds (:func:`by_code`); a mapped
   pair that does not stand out, however close its runner-ups, holds when its records share
   a value that no other record holds (:mod:`neardup.decision.held_values`: a title).

**Columns, weighed by the data.** A record with columns is first compared as one text (all its
columns joined). The pairs that stand out then say which columns matter, with no labels: a
column matters as much as its own text is found in the partner's record more than in the
runner-up's (a title: much more; a price, a genre, a birth year written otherwise: no more).
Each record's vector is then the columns' vectors weighed so (a long abstract no longer drowns
a title), half and half with the joined text, and steps 3-6 run again on it. Half and half,
because each part alone goes wrong somewhere: weighed columns alone give a large weight to a
column the two catalogues write differently (model numbers), and equal column weights count a
price as much as a title. On the development tasks the weighing lost on none and gained on
most (the figures: docs/linking.md, "Why the rule and the columns' weights are what they are").

No threshold is given or learned: the rule is relative to each record's own candidates, which
is what carried across the development tasks (:mod:`neardup.decision.assign` says why). The report's
``threshold`` is the lowest similarity kept, for information.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..defaults import DEFAULTS
from ..results import Decision, Pair
from ..sign.minhash import ShingleProcessor
from .assign import BestFirst, ahead_of, mapped_rows
from .column_map import match_columns
from .date_forms import in_one_form, one_form
from .decide import jaccard_reason, matched_line, probability_reason
from .held_values import Value, by_value, value_of
from .identifiers import (
    Numbers,
    count_unshared,
    identifiers,
    identifiers_differ,
    marked,
    rare,
    roles_differ,
    siblings_said,
)
from .names import common_words, names_differ, own, words
from .standout import measured
from .topk import purged, top_k, top_k_within
from .weights import TfidfSpace, cosine, source_idf

#: A candidate pass's mapped pairs: (similarity, row a, row b, a's runner-up, b's runner-up).
Mapped = tuple[float, int, int, int | None, int | None]
#: A column of one source: (source, column name).
Column = tuple[str, str]


@dataclass
class Grams:
    """The gram counts of some texts (one row each) over their own vocabulary, the sorted
    grams: what TF-IDF vectors are made from. Kept instead of the vectors because the weights
    change with every record added (each gram's document frequency, the number of records),
    the counts of a record do not: a link of new records re-weighs the counts it kept rather
    than reading and cutting every text into grams again."""

    vocab: NDArray[np.str_]
    #: ``scipy.sparse.csr_matrix`` of float32 counts, indices sorted within each row.
    counts: Any

    @classmethod
    def of(cls, texts: Sequence[str]) -> Grams:
        """Count the grams of ``texts`` (normalized) as
        :class:`~neardup.decision.weights.TfidfSpace` cuts them (its analyzer, the same scikit-learn
        counting)."""
        from scipy import sparse
        from sklearn.feature_extraction.text import CountVectorizer

        vec = CountVectorizer(
            analyzer="char_wb",
            ngram_range=(DEFAULTS.weighted_gram, DEFAULTS.weighted_gram),
            lowercase=False,
            dtype=np.float32,
        )
        try:
            counts = vec.fit_transform(texts)
        except ValueError:  # scikit-learn's "empty vocabulary": no text holds a gram
            empty = sparse.csr_matrix((len(texts), 0), dtype=np.float32)
            return cls(np.zeros(0, dtype="<U1"), empty)
        counts = sparse.csr_matrix(counts)
        counts.sort_indices()
        return cls(np.asarray(vec.get_feature_names_out(), dtype=str), counts)

    def onto(self, vocab: NDArray[np.str_]) -> Any:
        """The counts over another sorted vocabulary (grams it lacks left out)."""
        from scipy import sparse

        n = self.counts.shape[0]
        pos = np.searchsorted(vocab, self.vocab)
        hit = pos < len(vocab)
        hit[hit] = vocab[pos[hit]] == self.vocab[hit]
        if hit.all():  # a larger vocabulary: the columns move, in the same order
            out = sparse.csr_matrix(
                (self.counts.data.copy(), pos[self.counts.indices], self.counts.indptr.copy()),
                shape=(n, len(vocab)),
            )
            out.has_sorted_indices = True
            return out
        col = np.where(hit, pos, -1)[self.counts.indices]
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.counts.indptr))
        keep = col >= 0
        out = sparse.csr_matrix(
            (self.counts.data[keep], (rows[keep], col[keep])), shape=(n, len(vocab)),
            dtype=np.float32,
        )  # fmt: skip
        out.sort_indices()
        return out

    @classmethod
    def stacked(cls, parts: Sequence[Grams], rows: NDArray[np.int64] | None = None) -> Grams:
        """The rows of ``parts`` one after the other over the union of their vocabularies,
        then in the order ``rows`` (positions in the stacked rows; None: as stacked)."""
        from scipy import sparse

        if not parts:
            return cls(np.zeros(0, "<U1"), sparse.csr_matrix((0, 0), dtype=np.float32))
        # The first part is the largest, in practice: the grams it lacks are inserted (as
        # wide strings as the widest part's, that none is cut).
        base = parts[0].vocab.astype(np.result_type(*(p.vocab.dtype for p in parts)))
        missing = []
        for part in parts[1:]:
            pos = np.searchsorted(base, part.vocab)
            known = pos < len(base)
            known[known] = base[pos[known]] == part.vocab[known]
            missing.append(part.vocab[~known])
        extra = np.unique(np.concatenate(missing)) if missing else base[:0]
        vocab = np.insert(base, np.searchsorted(base, extra), extra) if len(extra) else base
        counts = sparse.vstack([p.onto(vocab) for p in parts], format="csr", dtype=np.float32)
        if rows is not None and not np.array_equal(rows, np.arange(len(rows))):
            counts = counts[rows]
        counts = sparse.csr_matrix(counts)
        counts.sort_indices()
        return cls(vocab, counts)


@dataclass
class LinkState:
    """What a weighted link of new records needs of the last full link: every record's gram
    counts (of its joined text and of each of its columns), and what the full link learned
    from all of its pairs (the columns' weights, whether numbers identify records). Records
    are in id order (:func:`~neardup.sign.text.sort_ids`), the rows of the full link."""

    keys: list[str]
    sources: list[str]
    joined: Grams
    #: Each column's records (keys, in row order) and counts.
    columns: dict[Column, tuple[list[str], Grams]]
    #: The columns' weights learned by the full link (None: it weighed no column).
    learned: dict[Column, float] | None
    identify: bool
    numbers_why: str
    order: list[str]
    #: The newest batch of the records held (None: not known).
    batch: int | None = None
    #: The full link's explanation (what a link of new records says of the same steps).
    explain: dict[str, Any] = field(default_factory=dict)
    #: Each record's numbers (:func:`~neardup.decision.identifiers.identifiers`), row order:
    #: what the numbers check reads, kept so that a link of new records makes it again.
    numbers: list[frozenset[str]] = field(default_factory=list)
    #: Each record's words (:func:`~neardup.decision.names.words`), row order: what the names
    #: check reads, kept for the same reason.
    words: list[tuple[str, ...]] = field(default_factory=list)
    #: One collection (dedup mode): every record a candidate of every other, whatever its
    #: source, and one partner each in all; else each source against every other.
    within: bool = False
    #: Each source's order of day and month (:func:`~neardup.decision.date_forms.day_first`):
    #: how the dates of its records written since are read.
    date_orders: dict[str, bool | None] = field(default_factory=dict)
    #: Each record's column values (:func:`~neardup.decision.held_values.value_of`), row
    #: order: what tells a contested pair by a value no other record holds.
    values: list[tuple[Value, ...]] = field(default_factory=list)


@dataclass
class Vectors:
    """The records' TF-IDF vectors made from a :class:`LinkState`'s counts."""

    joined: Any
    #: Each column's vectors, one row per record (empty where a record lacks the column).
    columns: dict[Column, Any]
    grams: int
    #: How many grams say a record's source (:func:`~neardup.decision.weights.source_idf`).
    source_grams: int = 0


def vectors_of(state: LinkState) -> Vectors:
    """Document frequencies over every record of ``state``, and the vectors they weigh: those
    of a TfidfVectorizer fitted on all the records' texts, made from the counts kept."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfTransformer

    counts = state.joined.counts
    tfidf = TfidfTransformer(sublinear_tf=True).fit(counts)
    source_grams = 0
    if not state.within:  # one collection: its records' sources are no catalogues
        tfidf.idf_, source_grams = source_idf(tfidf.idf_, counts, state.sources)
    joined = sparse.csr_matrix(tfidf.transform(counts, copy=True))
    row = {key: n for n, key in enumerate(state.keys)}
    n = len(state.keys)
    out: dict[Column, Any] = {}
    for name in sorted(state.columns):
        keys, grams = state.columns[name]
        part = sparse.csr_matrix(tfidf.transform(grams.onto(state.joined.vocab)))
        rows = [row[k] for k in keys]
        place = sparse.csr_matrix(
            (np.ones(len(rows), dtype=part.dtype), (rows, np.arange(len(rows)))),
            shape=(n, len(rows)),
        )
        vec = sparse.csr_matrix(place @ part)
        vec.sort_indices()
        out[name] = vec
    return Vectors(joined, out, len(state.joined.vocab), source_grams)


def state_of(
    keys: Sequence[str],
    normalized: Sequence[str],
    sources: Sequence[str],
    columns: Sequence[Mapping[str, str] | None] | None,
    processor: ShingleProcessor,
    order: Sequence[str] | None,
    date_orders: Mapping[str, bool | None] | None = None,
    written: Sequence[str] | None = None,
) -> LinkState:
    """The counts of records (``normalized`` texts, in id order), nothing learned yet; their
    columns' dates written in one form, read as ``date_orders`` says of each source; their
    numbers read off the texts ``written`` (dates in one form; else ``normalized``)."""
    names = sorted({(sources[i], c) for i, cols in enumerate(columns or ()) if cols for c in cols})
    dated = dict(date_orders or {})
    held: dict[Column, tuple[list[str], Grams]] = {}
    values: list[list[Value]] = [[] for _ in keys]
    for src, col in names:
        rows = [i for i in range(len(keys)) if sources[i] == src and columns
                and columns[i] and col in columns[i]]  # type: ignore[operator]  # fmt: skip
        texts = [processor.normalize(one_form(columns[i][col], dated.get(src)))  # type: ignore[index]
                 for i in rows]  # fmt: skip
        held[(src, col)] = ([keys[i] for i in rows], Grams.of(texts))
        for i, text in zip(rows, texts, strict=True):
            value = value_of(col, text)
            if value is not None:
                values[i].append(value)
    return LinkState(list(keys), list(sources), Grams.of(normalized), held, None, False, "",
                     list(order or []), numbers=_numbers(normalized, written, processor),
                     words=[words(t) for t in normalized], date_orders=dated,
                     values=[tuple(v) for v in values])  # fmt: skip


def weighed(vectors: Vectors, learned: Mapping[Column, float] | None) -> Any | None:
    """The records' vectors the final pass compares: the joined text's, half and half with
    the columns' weighed by ``learned`` (None without weights, or none above 0: the joined
    text's vectors are the final ones)."""
    from sklearn.preprocessing import normalize

    total = _weigh(vectors.columns, learned or {})
    if total is None:
        return None
    share = DEFAULTS.joined_share
    return normalize((vectors.joined * share + total * (1 - share)).tocsr())


def source_rank(sources: Sequence[str], order: Sequence[str] | None) -> dict[str, int]:
    """Each source's rank: those of ``order`` first, the others by name. A pair's record of
    the better-ranked source comes first, in the candidates and in every pair made of them."""
    names = list(order or []) + sorted(set(sources) - set(order or []))
    return {s: n for n, s in enumerate(names)}


def groups_of(
    sources: Sequence[str], order: Sequence[str] | None, within: bool = False
) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The rows of every two sources, the one ranked first (:func:`source_rank`) first;
    ``within``: every row against every row, the one group of a collection deduplicated."""
    if within:
        every = np.arange(len(sources), dtype=np.int64)
        return [(every, every)] if len(every) > 1 else []
    rank = source_rank(sources, order)
    by_source: dict[str, list[int]] = {}
    for i, s in enumerate(sources):
        by_source.setdefault(s, []).append(i)
    present = sorted(by_source, key=lambda s: rank[s])
    return [
        (np.asarray(by_source[a], dtype=np.int64), np.asarray(by_source[b], dtype=np.int64))
        for a, b in combinations(present, 2)
    ]


def twins_of(state: LinkState) -> tuple[NDArray[np.int64], int]:
    """Each row's first row of the same source, the same gram counts and the same words in
    the same order (its normalized text: "female to male" and "male to female" adapters
    have one bag of grams), where it holds
    :attr:`~neardup.defaults.Defaults.link_twin_words` words or more; else itself.
    Identical records of one source, a catalogue that lists a song twice: each would be
    the other's runner-up, so that neither stood out, and the mapping would take one of them
    at random; they are linked as one record, and its pairs are theirs. Also how
    many shorter records are identical to another of their source: names that distinct
    entities share, left to compete (a tie links neither), and said. A dedup folds no
    twin here: it compares one record of each text already, and a folded twin would lose its
    pair with the record it copies."""
    counts = state.joined.counts
    first: dict[tuple[str, bytes, bytes, tuple[str, ...]], int] = {}
    out = np.arange(len(state.keys), dtype=np.int64)
    if state.within:  # a dedup compares one record of each text already (_one_of_each)
        return out, 0
    ptr, ind, val = counts.indptr, counts.indices, counts.data
    least = DEFAULTS.link_twin_words
    short: dict[tuple[str, bytes, bytes, tuple[str, ...]], int] = {}
    for row, said in enumerate(state.words):
        lo, hi = ptr[row], ptr[row + 1]
        key = (state.sources[row], ind[lo:hi].tobytes(), val[lo:hi].tobytes(), said)
        if len(said) >= least:
            out[row] = first.setdefault(key, row)
        else:
            short[key] = short.get(key, 0) + 1
    return out, sum(n for n in short.values() if n > 1)


def _twins_said(twins: NDArray[np.int64], short: int) -> str:
    """What the assignment says of a source's identical records, where there are some."""
    n = int(np.count_nonzero(twins != np.arange(len(twins))))
    said = f" ({n} records identical to another of their source linked as that one)" if n else ""
    if short:
        said += (f" ({short} records of fewer than {DEFAULTS.link_twin_words} words identical "
                 "to another of their source, a name distinct entities may share: neither "
                 "is linked where both are alike to one record)")  # fmt: skip
    return said


def _as_one(
    groups: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]], twins: NDArray[np.int64]
) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """The groups' rows, each source's identical records one row (:func:`twins_of`)."""
    first = twins == np.arange(len(twins))
    return [(a, a) if a is b else (a[first[a]], b[first[b]]) for a, b in groups]


def _with_twins(
    found: Sequence[tuple[float, int, int]], twins: NDArray[np.int64]
) -> list[tuple[float, int, int]]:
    """The pairs, each also made of its records' identical twins (:func:`twins_of`)."""
    if not len(twins) or bool(np.all(twins == np.arange(len(twins)))):
        return list(found)
    members: dict[int, list[int]] = {}
    for row, head in enumerate(twins.tolist()):
        members.setdefault(head, []).append(row)
    return [(s, x, y) for s, a, b in found for x in members[a] for y in members[b]]


@dataclass
class Linked:
    """The pairs of a weighted link report and what each step did."""

    pairs: list[Pair]
    candidates: int
    mapped: int
    explain: dict[str, Any] = field(default_factory=dict)
    #: The pairs the numbers check dropped (records holding different numbers).
    dropped: list[Pair] = field(default_factory=list)
    #: What a link of new records needs of this one (:mod:`neardup.decision.link_new`).
    state: LinkState | None = None
    #: The pairs the names check dropped (:mod:`neardup.decision.names`).
    dropped_names: list[Pair] = field(default_factory=list)


@dataclass
class _Pass:
    candidates: int = 0
    mapped: list[Mapped] = field(default_factory=list)
    stood_out: list[Mapped] = field(default_factory=list)
    #: Mapped pairs ahead of both runner-ups, but by less than the margin.
    contested: list[Mapped] = field(default_factory=list)


def _pass(
    vectors: Any, groups: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]], k: int,
    margin: float,
) -> _Pass:  # fmt: skip
    """Candidates, unique mapping and the relative rule for every pair of sources (a group
    whose two sides are the same rows: one collection, each record against the others)."""
    out = _Pass()
    # ties broken by the rows as text, what unique_mapping sorts by: each row's rank so
    rank = np.empty(vectors.shape[0], dtype=np.int64)
    rank[np.argsort(np.arange(vectors.shape[0]).astype(str), kind="stable")] = np.arange(
        vectors.shape[0]
    )
    width = np.int64(vectors.shape[0])
    for ia, ib in groups:
        if ia is ib:  # one collection: each row's best others, itself left out
            x, y = top_k_within(vectors[ia], k)
            codes = ia[x] * width + ia[y]  # ia ascending: the first still the smaller
        else:
            va, vb = purged(vectors[ia], vectors[ib])
            r1, c1, _ = top_k(va, vb, k)
            r2, c2, _ = top_k(vb, va, k)
            codes = np.unique(np.concatenate([ia[r1], ia[c2]]) * width
                              + np.concatenate([ib[c1], ib[r2]]))  # fmt: skip
        if not len(codes):
            continue
        a, b = codes // width, codes % width
        s = cosine(vectors, a, b)
        live = s > 0.0
        a, b, s = a[live], b[live], s[live]
        out.candidates += len(s)
        order = np.lexsort((rank[b], rank[a], -s))  # best first
        a, b, s = a[order], b[order], s[order]
        mapped = np.asarray(mapped_rows(a.tolist(), b.tolist(), int(width)), dtype=np.int64)
        if not len(mapped):
            continue
        seen = BestFirst(a, b, s)
        ra, sa = seen.runner_up(a[mapped], b[mapped])
        rb, sb = seen.runner_up(b[mapped], a[mapped])
        closest = np.maximum(sa, sb)
        ahead = ahead_of(s[mapped], closest, margin)
        strict = closest < s[mapped]
        for n, e in enumerate(mapped.tolist()):
            pair = (float(s[e]), int(a[e]), int(b[e]), _row(ra[n]), _row(rb[n]))
            out.mapped.append(pair)
            if ahead[n]:
                out.stood_out.append(pair)
            elif strict[n]:
                out.contested.append(pair)
    return out


def by_code(
    contested: Sequence[Mapped], told: Sequence[frozenset[str]]
) -> list[tuple[float, int, int]]:
    """The contested pairs (ahead of both runner-ups by less than the margin) whose records
    share a code (a number of ``DEFAULTS.link_code_length`` characters or more, that few
    records hold: a model or part number, a phone number) that neither runner-up holds: the
    code tells the pair from the near twin. Sibling models ("KDL-46V3000", "KDL-52V3000")
    are within 10% of each other, and their catalogues' matches were left out for it (on a
    held-out products task, 60 of the 300 true pairs missed)."""
    least = DEFAULTS.link_code_length
    out = []
    for s, a, b, ra, rb in contested:
        shared = {n for n in told[a] & told[b] if len(n) >= least}
        for r in (ra, rb):
            if r is not None:
                shared -= told[r]
        if shared:
            out.append((s, a, b))
    return out


def _row(row: int) -> int | None:
    return None if row < 0 else int(row)


def _numbers(
    normalized: Sequence[str], written: Sequence[str] | None, processor: ShingleProcessor
) -> list[Numbers]:
    """Each record's numbers, read off its normalized text, or off its text as ``written``
    where that holds a "#": before a number it is the word "unit" there
    (:func:`~neardup.decision.identifiers.marked`: ``#11`` and ``Apt 36`` are two units),
    which normalizing drops."""
    if written is None:
        return [identifiers(t.split()) for t in normalized]
    return [identifiers((processor.normalize(marked(w)) if "#" in w else t).split())
            for t, w in zip(normalized, written, strict=True)]  # fmt: skip


def numbers_check(
    mapped: Sequence[Mapped], numbers: Sequence[frozenset[str]]
) -> tuple[bool, str]:
    """Whether the numbers of these records identify them, read off the mapped pairs alike
    enough to waive the check: among those whose records both hold numbers, how many share
    none. House numbers, phone numbers and years are shared by matches; prices, lengths and
    counts written in several forms are not, and then the check is not made."""
    waived, noisy = DEFAULTS.numbers_waived_cosine, DEFAULTS.numbers_noisy
    triples = ((m[0], m[1], m[2]) for m in mapped)
    both, differing, other = count_unshared(triples, lambda i: numbers[i], waived)
    if both < DEFAULTS.numbers_min_pairs:
        return False, (
            f"not made: {both} mapped pairs at cosine >= {waived} hold numbers on "
            "both sides, too few to tell whether numbers identify records here"
        )
    share = differing / both
    verdict = "made" if share <= noisy else "not made"
    return share <= noisy, (
        f"{verdict}: {differing} of {both} mapped pairs at cosine >= {waived} share "
        f"no number ({share:.0%}; the check is made at {noisy:.0%} or less{siblings_said(other)})"
    )


def column_weights(
    space: TfidfSpace,
    joined: Any,
    columns: Sequence[Mapping[str, str] | None],
    sources: Sequence[str],
    processor: ShingleProcessor,
    pairs: Sequence[Mapped],
) -> tuple[Any, dict[str, dict[str, float]]]:
    """Each record's columns weighed by how well they tell its partner from its runner-up, and
    the weights (source -> column -> weight); ``(None, {})`` where nothing can be weighed."""
    from scipy import sparse

    n = len(sources)
    names = sorted({(sources[i], c) for i, cols in enumerate(columns) if cols for c in cols})
    vecs: dict[Column, Any] = {}
    for src, col in names:
        rows = [i for i in range(n) if sources[i] == src and columns[i] and col in columns[i]]
        if not rows:
            continue
        texts = [processor.normalize(columns[i][col]) for i in rows]  # type: ignore[index]
        part = space.vectors(texts)
        # Every record a row: the column's vector where the record has the column, else empty.
        place = sparse.csr_matrix(
            (np.ones(len(rows), dtype=part.dtype), (rows, np.arange(len(rows)))),
            shape=(n, len(rows)),
        )
        vecs[(src, col)] = (place @ part).tocsr()
    if not vecs:
        return None, {}
    learned = _learn(vecs, joined, sources, pairs)
    return _weigh(vecs, learned), _shown_weights(learned)


def _learn(
    vecs: Mapping[Column, Any], joined: Any, sources: Sequence[str], pairs: Sequence[Mapped]
) -> dict[Column, float]:
    """Each column's weight: how much more of its text is found in the partner's record than
    in the runner-up's, over the pairs that stood out (columns no pair speaks of left out)."""
    learned: dict[Column, float] = {}
    for (src, col), vec in sorted(vecs.items()):
        found, against = [], []
        for _, a, b, ra, rb in pairs:
            for me, partner, runner in ((a, b, ra), (b, a, rb)):
                if sources[me] == src and runner is not None:
                    found.append((me, partner))
                    against.append((me, runner))
        if not found:
            continue
        m = float(_dots(vec, joined, found).mean())
        u = float(_dots(vec, joined, against).mean())
        learned[(src, col)] = max(m - u, 0.0)
    return learned


def _weigh(vecs: Mapping[Column, Any], learned: Mapping[Column, float]) -> Any:
    """The columns' vectors summed by their weights and normalized (None: no weight above 0)."""
    from sklearn.preprocessing import normalize

    total = None
    for name, w in learned.items():
        if w > 0:
            total = vecs[name] * w if total is None else total + vecs[name] * w
    return None if total is None else normalize(total.tocsr())


def _shown_weights(learned: Mapping[Column, float]) -> dict[str, dict[str, float]]:
    weights: dict[str, dict[str, float]] = {}
    for (src, col), w in learned.items():
        weights.setdefault(src, {})[col] = round(w, 4)
    return weights


def _dots(left: Any, right: Any, pairs: Sequence[tuple[int, int]]) -> NDArray[np.float64]:
    a = np.fromiter((p[0] for p in pairs), np.int64, len(pairs))
    b = np.fromiter((p[1] for p in pairs), np.int64, len(pairs))
    return np.asarray(left[a].multiply(right[b]).sum(axis=1), dtype=np.float64).ravel()


def link(
    keys: Sequence[str],
    texts: Sequence[str],
    sources: Sequence[str],
    processor: ShingleProcessor,
    order: Sequence[str] | None = None,
    columns: Sequence[Mapping[str, str] | None] | None = None,
    *,
    k: int = DEFAULTS.link_top_k,
    margin: float = DEFAULTS.link_margin,
    check_numbers: bool = True,
    given_columns: Mapping[str, str] | None = None,
    check_names: bool = True,
    within: bool = False,
) -> Linked:
    """Link the records (``keys[i]``, ``texts[i]`` as written, ``sources[i]``, ``columns[i]``
    or None) across sources; ``within``: pair any two records, each at most one partner in
    all (the weighted dedup of a collection whose duplicates come one to a record, such as two
    catalogues written into one table).

    ``order`` ranks the sources (the primary one first): a pair's first id is the record of
    the source ranked first. Pairs carry the weighted ``similarity``, and their Jaccard and
    word edit distance for reading. ``check_numbers`` False keeps the pairs whose records
    hold different numbers; ``given_columns`` pairs columns of two sources as the user says,
    the rest are matched by name and content and said in the explanation."""
    dated, orders = in_one_form(texts, sources)
    normalized = [processor.normalize(t) for t in dated]
    rows, copies = _one_of_each(normalized, keys) if within else (list(range(len(keys))), [])
    if len(rows) < len(keys):  # the weighted pass sees one record of each text
        keys, texts, dated, normalized, sources = (
            [xs[i] for i in rows] for xs in (keys, texts, dated, normalized, sources)
        )  # fmt: skip
        columns = None if columns is None else [columns[i] for i in rows]
    state = state_of(keys, normalized, sources, columns, processor, order, orders, dated)
    state.within = within
    decided = decide(state, k=k, margin=margin, check_numbers=check_numbers,
                     check_names=check_names)  # fmt: skip
    matched = [] if within else _matched_columns(
        decided.final, sources, columns, order, given_columns
    )
    state.explain = {**decided.explain, "columns_matched": matched, "identical": len(copies)}
    found = _pairs(decided.found, keys, texts, processor)
    return Linked(copies + found, decided.final.candidates,
                  len(decided.final.mapped), dict(state.explain),
                  _pairs(decided.dropped, keys, texts, processor), state,
                  _pairs(decided.dropped_names, keys, texts, processor))  # fmt: skip


def _one_of_each(
    normalized: Sequence[str], keys: Sequence[str]
) -> tuple[list[int], list[Pair]]:
    """The rows the weighted dedup compares, one of each normalized text, and the pairs of
    the others with it (similarity 1): identical records are each other's runner-ups,
    so that none would stand out, and they are duplicates whatever the rule. Each copy is
    paired with the first of its text, not with every other copy: a thousand copies make
    999 pairs and one cluster, not half a million pairs."""
    first: dict[str, int] = {}
    rows: list[int] = []
    copies: list[Pair] = []
    for i, text in enumerate(normalized):
        j = first.setdefault(text, i)
        if j == i:
            rows.append(i)
        else:
            copies.append(Pair(keys[j], keys[i], 1.0, 0, similarity=1.0))
    return rows, copies


@dataclass
class Decided:
    """What the weighted link decided of a :class:`LinkState`'s records: the last pass, the
    pairs kept and those the numbers check and the names check dropped (``(similarity, row,
    row)``), and the explanation."""

    final: _Pass
    found: list[tuple[float, int, int]]
    dropped: list[tuple[float, int, int]]
    explain: dict[str, Any]
    dropped_names: list[tuple[float, int, int]] = field(default_factory=list)


def decide(
    state: LinkState,
    *,
    k: int = DEFAULTS.link_top_k,
    margin: float = DEFAULTS.link_margin,
    check_numbers: bool = True,
    check_names: bool = True,
) -> Decided:
    """Steps 3-6 of the link on ``state``'s counts: candidates, mapping and the relative rule
    on the joined text; the columns' weights learned from the pairs that stood out and the
    passes made again on the weighed vectors; the numbers check. Sets what ``state`` learned
    (its weights, the numbers' verdict). One definition for a full link and a link of new
    records, so that both give a record the same pairs."""
    made = vectors_of(state)
    twins, short = twins_of(state)
    groups = _as_one(groups_of(state.sources, state.order, state.within), twins)
    vectors = made.joined
    first = _pass(vectors, groups, k, margin)
    final: _Pass = first
    weights: dict[str, dict[str, float]] = {}
    state.learned = None
    if made.columns and len(first.stood_out) >= DEFAULTS.columns_min_pairs:
        state.learned = _learn(made.columns, vectors, state.sources, first.stood_out)
        weights = _shown_weights(state.learned)
        mixed = weighed(made, state.learned)
        if mixed is not None:
            final = _pass(mixed, groups, k, margin)
    numbers = state.numbers
    identify, why = numbers_check(final.mapped, numbers)
    state.identify, state.numbers_why = identify, why
    if not check_numbers:
        identify, why = False, NUMBERS_OFF
    found = [(m[0], m[1], m[2]) for m in final.stood_out]
    stood = {(m[1], m[2]) for m in final.stood_out}
    unsure = [m for m in final.mapped if (m[1], m[2]) not in stood]
    valued = [] if state.within else by_value(unsure, state.values, state.sources)
    told = {(a, b) for _, a, b in valued}
    contested = [m for m in final.contested if (m[1], m[2]) not in told]
    found, dropped, coded, siblings = _checked_numbers(
        found + valued, contested, numbers, identify, check_numbers
    )
    named: list[tuple[float, int, int]] = []
    if check_names and state.words:
        found, named = names_check(found, state.words, state.sources)
    kept_valued = len(set(valued) & set(found))
    found, dropped, named, siblings = (
        _with_twins(t, twins) for t in (found, dropped, named, siblings)
    )
    explain = {
        "kind": "weighted",
        "similarity": similarity_line(made.grams, len(state.keys), made.source_grams),
        "columns": _columns_line(weights),
        "column_weights": weights,
        "candidates": f"each record's top {k} "
        + ("among the other records" if state.within else "in every other source")
        + f" (grams held by more than {DEFAULTS.link_purge} records left out of the search)",
        "assignment": "unique mapping: best pairs first, each record at most one partner"
        + ("" if state.within else " in each other source")
        + _twins_said(twins, short),
        "decision": f"a mapped pair is kept when it is ahead of both records' runner-ups by "
        f"{margin:.0%} of its similarity",
        "margin": margin,
        "mapped": len(final.mapped),
        "stood_out": len(final.stood_out),
        "numbers_check": why,
        "numbers_disagree": len(dropped) - len(siblings),
        "numbers_roles": len(siblings),
        "coded": len(coded),
        "valued": kept_valued,
        "names_disagree": len(named),
        "threshold": round(min((s for s, _, _ in found), default=1.0), 6),
        "kept": len(found),
        "found": True,
    }
    return Decided(final, found, dropped, explain, named)


Triples = list[tuple[float, int, int]]


def _checked_numbers(
    found: Triples,
    contested: Sequence[Mapped],
    numbers: Sequence[frozenset[str]],
    identify: bool,
    check: bool,
) -> tuple[Triples, Triples, Triples, Triples]:
    """The numbers check on the pairs ``found``: those it keeps, those it drops (either way),
    the contested pairs it keeps for a code (:func:`by_code`) and those dropped for other
    numbers after the same word (:func:`~neardup.decision.identifiers.roles_differ`). Where
    ``identify``, below the waiver a pair whose numbers differ, read without those many
    records hold (a zip, a year: :func:`~neardup.decision.identifiers.rare`); where the user
    left the check on (``check``), siblings whatever the verdict and however alike."""
    dropped: Triples = []
    coded: Triples = []
    if identify:
        waived, told = DEFAULTS.numbers_waived_cosine, rare(numbers)
        vetoed_at = [s < waived and identifiers_differ(told[a], told[b]) for s, a, b in found]
        dropped = [t for t, veto in zip(found, vetoed_at, strict=True) if veto]
        found = [t for t, veto in zip(found, vetoed_at, strict=True) if not veto]
        coded = by_code(contested, told)
        found = found + coded
    siblings: Triples = []
    if check:  # other numbers after the same word (unit 305, unit 306)
        apart = [roles_differ(numbers[a], numbers[b]) for _, a, b in found]
        siblings = [t for t, differ in zip(found, apart, strict=True) if differ]
        found = [t for t, differ in zip(found, apart, strict=True) if not differ]
    return found, dropped + siblings, coded, siblings


def names_check(
    found: list[tuple[float, int, int]], texts: Sequence[tuple[str, ...]], sources: Sequence[str]
) -> tuple[list[tuple[float, int, int]], list[tuple[float, int, int]]]:
    """The pairs ``found`` kept and those dropped by the names check: below the cosine that
    waives the numbers check, two short records that each hold a word the other has nothing
    of (:mod:`neardup.decision.names`; ``texts``: each row's words)."""
    common = common_words(texts, sources)
    waived = DEFAULTS.numbers_waived_cosine
    kept, dropped = [], []
    for t in found:
        s, a, b = t
        differ = s < waived and names_differ(
            own(texts[a], common[sources[a]]), texts[a], own(texts[b], common[sources[b]]),
            texts[b],
        )  # fmt: skip
        (dropped if differ else kept).append(t)
    return kept, dropped


#: The numbers check's verdict when the caller turned it off.
NUMBERS_OFF = "not made: turned off (numbers_check=False, --no-numbers-check)"


def similarity_line(grams: int, records: int, source_grams: int = 0) -> str:
    """The explanation's words for the similarity."""
    told = (
        f"; {source_grams} grams that one source's records hold far more often than another's "
        "weigh as a gram every record holds" if source_grams else ""
    )
    return (
        f"TF-IDF cosine of character {DEFAULTS.weighted_gram}-grams ({grams} grams, document "
        f"frequencies over {records} records{told})"
    )


def _matched_columns(
    final: _Pass,
    sources: Sequence[str],
    columns: Sequence[Mapping[str, str] | None] | None,
    order: Sequence[str] | None,
    given: Mapping[str, str] | None,
) -> list[str]:
    """The column pairs of the sources, read off the pairs that stood out
    (:func:`neardup.decision.column_map.match_columns`), as ``a=b (how)``."""
    if columns is None:
        return []
    anchors = [
        (sources[a], columns[a], sources[b], columns[b])
        for _, a, b, _, _ in final.stood_out
        if columns[a] and columns[b]
    ]
    primary = order[0] if order else None
    return match_columns(anchors, given, primary).pairs()  # type: ignore[arg-type]


def _columns_line(weights: Mapping[str, Mapping[str, float]]) -> str:
    if not weights:
        return "one text per record (no columns, or too few pairs to weigh them by)"
    parts = []
    for src, cols in weights.items():
        used = sorted(cols.items(), key=lambda x: -x[1])
        shown = ", ".join(f"{_short(c)} {w:.2f}" for c, w in used if w > 0) or "none"
        left = [_short(c) for c, w in used if w <= 0]
        parts.append(f"{src}: {shown}" + (f" (not: {', '.join(left)})" if left else ""))
    return "columns weighed by how well they tell a partner from a runner-up, half and half " \
        "with the joined text; " + "; ".join(parts)


def _short(column: str) -> str:
    """A column's name without an ontology's URI (``http://...#name`` -> ``name``)."""
    return column.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1] or column


def _pairs(
    found: Sequence[tuple[float, int, int]],
    keys: Sequence[str],
    texts: Sequence[str],
    processor: ShingleProcessor,
) -> list[Pair]:
    held = {keys[i]: texts[i] for _, a, b in found for i in (a, b)}
    out = [measured(s, keys[a], keys[b], held, processor) for s, a, b in found]
    out.sort(key=lambda p: -(p.similarity or 0.0))
    return out


class WeightedWords:
    """What the weighted link says: its similarity, candidates, mapping and relative rule."""

    def short(self, decision: Decision) -> str:
        if not (decision.explain or {}).get("kept", 1):
            return "weighted rule, no pair stands out"
        return f"weighted rule, kept from cosine {round(decision.threshold, 3):g}"

    def line(self, decision: Decision) -> str:
        rule = decision.explain or {}
        said = []
        if rule.get("kept", 1):  # (a decision read back from a report made before: kept)
            said.append(
                "pairs of records that are each other's clear best match "
                f"(weighted similarity >= {round(decision.threshold, 3):g})"
            )
        if rule.get("identical"):
            said.append(f"{rule['identical']} pairs of identical records (one of each text "
                         "compared)")  # fmt: skip
        if not said:
            return "decided: no pair: no two records are each other's clear best match"
        return "decided: " + ", and ".join(said)

    def detail(self, decision: Decision) -> str:
        rule = decision.explain or {}
        numbers = (
            f", {rule['numbers_disagree']} pairs dropped whose records both hold numbers "
            "and share none"
            if rule["numbers_check"].startswith("made")
            else ""
        )
        if rule.get("coded"):
            numbers += (f", {rule['coded']} pairs within {rule['margin']:.0%} of a runner-up "
                        "kept for a code they share that neither runner-up holds")  # fmt: skip
        if rule.get("valued"):
            numbers += (f", {rule['valued']} pairs that do not stand out kept for a value "
                        "they share that no other record of either source holds (a title, "
                        "a name)")  # fmt: skip
        if rule.get("numbers_roles"):
            numbers += (f", {rule['numbers_roles']} pairs dropped whose records hold different "
                        "numbers after the same word (unit 305, unit 306)")  # fmt: skip
        names = (
            f"; names check: {rule['names_disagree']} pairs dropped of two short records "
            "that each hold a word the other has nothing of"
            if rule.get("names_disagree")
            else ""
        )
        return (
            f"\nweighted rule: {rule['similarity']}; candidates: {rule['candidates']}; "
            f"{rule['assignment']} ({rule['mapped']} pairs); {rule['decision']} "
            f"({rule['stood_out']} pairs); numbers check {rule['numbers_check']}{numbers}"
            f"{names}\n{rule['columns']}" + matched_line(rule.get("columns_matched"))
        )

    def reason(self, decision: Decision, pair: Pair, threshold: float) -> str:
        said = probability_reason(pair)
        if said is not None:
            return said
        if pair.similarity is None:
            return jaccard_reason(decision, pair, threshold)
        if pair.edit_distance == 0 and pair.jaccard == 1.0 and (decision.explain or {}).get(
            "identical"
        ):
            return "identical records: the same text once normalized"
        margin = (decision.explain or {}).get("margin", 0.1)
        return (
            f"weighted similarity {pair.similarity:.3f}, one partner each, ahead of both "
            f"records' runner-ups by {margin:.0%}"
        )
