"""Which shingles, threshold and canonicalization make a good near-duplicate default?

Exact brute force (:func:`neardup.candidates.bruteforce.all_pairs`), in memory, no Solr: this
measures what the LSH pipeline can at best achieve when it verifies candidates by exact Jaccard.

1. Restaurants (864 records, 112 gold pairs): {normalize only, canonicalize} x {word 1/2/3-gram,
   char 3/4/5-gram} x thresholds 0.30..0.90 step 0.05; best threshold per configuration.
2. The full curve of the chosen default, and general record refinements on top of it.
3. A seeded synthetic news-like corpus: do the same defaults behave on running text?

Run: ``.venv/bin/python benchmarks/restaurant_tuning.py``
"""

from __future__ import annotations

import math
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable

from neardup.candidates.bruteforce import all_pairs, jaccard
from neardup.decision.assign import best_of_each
from neardup.evaluate import Scores, score
from neardup.read.items import Record
from neardup.read.pairs import read_pairs
from neardup.read.records import read_records
from neardup.resources import restaurants
from neardup.sign.canonical import CANONICAL_VERSION, DIRECTIONALS, STREET_SUFFIXES, canonicalize
from neardup.sign.minhash import ShingleProcessor
from neardup.sign.text import normalize

THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(13)]
SHINGLES = [("word", 1), ("word", 2), ("word", 3), ("char", 3), ("char", 4), ("char", 5)]

#: The chosen default: the best plain-Jaccard F1 on the restaurants together with canonical char
#: 3-grams (0.882 vs 0.878), far fewer shingles per record, and on running text the widest gap
#: between near-duplicates and unrelated documents of all the kinds tried (section 4), whereas
#: char 3-grams of unrelated texts already reach ~0.6. Plain Jaccard peaks below 0.90 on the
#: restaurants; the mutual-best refinement (section 3) is the smallest general addition that
#: gets above it.
DEFAULT = {"canonical": True, "kind": "word", "size": 1, "threshold": 0.65}
#: A pair at least this similar is kept even when it is not a mutual best match, so that
#: clusters of three or more near-identical records are not broken up by the refinement.
MUTUAL_ESCAPE = 0.9

Pair = tuple[str, str, float]


# -- refinements ---------------------------------------------------------------------------------


def mutual_best(pairs: list[Pair], escape: float = MUTUAL_ESCAPE) -> list[Pair]:
    """Keep a pair if each record is the other's most similar partner (ties kept), or J>=escape.

    General for record linkage/deduplication where a record has one counterpart: a record whose
    best partner is someone else is more likely a neighbour (same building, same chain) than a
    second copy. Works on any verified pair list, needs no corpus statistics.
    """
    best = best_of_each(pairs)
    return [(a, b, j) for a, b, j in pairs if j >= escape or (j >= best[a] and j >= best[b])]


def idf_weighted_pairs(sets: dict[str, set[str]]) -> list[Pair]:
    """Exact IDF-weighted Jaccard ``sum_{a&b} w / sum_{a|b} w``, ``w = log(N / df)``, of every
    pair that shares a shingle. Shingles found in many records ("st", "new york") weigh little,
    rare ones (a name, a house number) a lot: a second measure that needs document frequencies.
    """
    n = len(sets)
    df = Counter(s for shingles in sets.values() for s in shingles)
    weight = {s: math.log(n / c) for s, c in df.items()}
    total = {rid: sum(weight[s] for s in shingles) for rid, shingles in sets.items()}
    postings: dict[str, list[str]] = defaultdict(list)
    for rid, shingles in sets.items():
        for s in shingles:
            postings[s].append(rid)
    shared: dict[tuple[str, str], float] = defaultdict(float)
    for s, rids in postings.items():
        w = weight[s]
        if w == 0.0:
            continue
        for i, a in enumerate(rids):
            for b in rids[i + 1 :]:
                shared[(a, b) if int(a) < int(b) else (b, a)] += w
    out = []
    for (a, b), inter in shared.items():
        union = total[a] + total[b] - inter
        if union > 0:
            out.append((a, b, inter / union))
    return out


_HOUSE_NUMBER = re.compile(r"\d+[a-z]?(?:-\d+[a-z]?)?")
_STREET_WORDS = set(STREET_SUFFIXES.values()) | set(DIRECTIONALS.values())


def name_part(text: str) -> str:
    """Heuristic field split of a canonical ``name address city`` record: the name is what comes
    before the last house number that is followed, within four words, by a street suffix or a
    directional. Without such a number the whole record is returned."""
    words = text.split()
    cuts = [
        i
        for i, w in enumerate(words)
        if i > 0
        and _HOUSE_NUMBER.fullmatch(w)
        and any(x in _STREET_WORDS for x in words[i : i + 5])
    ]
    return " ".join(words[: cuts[-1]]) if cuts else text


# -- helpers -------------------------------------------------------------------------------------


def at(pairs: list[Pair], t: float) -> list[Pair]:
    return [p for p in pairs if p[2] >= t - 1e-12]


def curve(pairs: list[Pair], gold: set[tuple[str, str]], refine=None) -> list[tuple[float, Scores]]:
    out = []
    for t in THRESHOLDS:
        kept = at(pairs, t)
        if refine is not None:
            kept = refine(kept)
        out.append((t, score([(a, b) for a, b, _ in kept], gold)))
    return out


def best(c: list[tuple[float, Scores]]) -> tuple[float, Scores]:
    return max(c, key=lambda ts: (ts[1].f1, -ts[0]))


def row(label: str, t: float, s: Scores, extra: str = "") -> str:
    return (
        f"{label:<30}{t:>6.2f}{s.pairs:>7}{s.true_pairs:>6}{s.recall:>8.3f}{s.precision:>8.3f}"
        f"{s.f1:>7.3f}{extra}"
    )


HEADER = f"{'':<30}{'T':>6}{'pairs':>7}{'true':>6}{'recall':>8}{'prec':>8}{'F1':>7}"


def shingle_sets(
    texts: dict[str, str], kind: str, size: int, canonical: bool
) -> dict[str, set[str]]:
    # canonical=False: the text is prepared here, so that both variants can be compared.
    proc = ShingleProcessor(size, kind=kind, canonical=False)
    prep: Callable[[str], str] = canonicalize if canonical else normalize
    return {rid: proc.shingle_set(prep(t)) for rid, t in texts.items()}


# -- synthetic text ------------------------------------------------------------------------------


def synthetic_news(seed: int = 20240611) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """300 documents of 100-200 words from a Zipf(1.07) vocabulary of 5,000 syllable words;
    30 of them get a near-duplicate with 5% word edits (substitute / insert / delete)."""
    rng = random.Random(seed)
    syllables = "ba ko ri tan el mo su ver di la ne po st ex ing or an th qu is".split()
    vocab: set[str] = set()
    while len(vocab) < 5000:
        vocab.add(
            "".join(rng.choice(syllables) for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 3, 4])))
        )
    words = sorted(vocab)
    rng.shuffle(words)
    weights = [1.0 / (r + 1) ** 1.07 for r in range(len(words))]
    docs = {str(i): rng.choices(words, weights, k=rng.randint(100, 200)) for i in range(1, 301)}
    gold = set()
    for k, i in enumerate(sorted(rng.sample(range(1, 301), 30))):
        w = list(docs[str(i)])
        for _ in range(max(1, round(0.05 * len(w)))):
            op, p = rng.choice("sid"), rng.randrange(len(w))
            if op == "s":
                w[p] = rng.choices(words, weights)[0]
            elif op == "i":
                w.insert(p, rng.choices(words, weights)[0])
            else:
                del w[p]
        docs[str(301 + k)] = w
        gold.add((str(i), str(301 + k)))
    return {rid: " ".join(w) for rid, w in docs.items()}, gold


# -- main ----------------------------------------------------------------------------------------


def main() -> None:
    records_path, gold_path = restaurants()
    texts = {r.id: r.text for r in read_records(records_path) if isinstance(r, Record)}
    gold = read_pairs(gold_path)
    print(f"Restaurants: {len(texts)} records, {len(gold)} gold pairs; exact Jaccard (brute force)")
    print(f"canonicalization {CANONICAL_VERSION}; thresholds {THRESHOLDS[0]}..{THRESHOLDS[-1]}\n")

    print("1. Best threshold per configuration")
    print(HEADER + f"{'ms':>7}")
    pairs_of: dict[tuple[bool, str, int], list[Pair]] = {}
    for canonical in (False, True):
        for kind, size in SHINGLES:
            sets = shingle_sets(texts, kind, size, canonical)
            start = time.perf_counter()
            pairs = all_pairs(sets, THRESHOLDS[0])
            ms = (time.perf_counter() - start) * 1000
            pairs_of[(canonical, kind, size)] = pairs
            t, s = best(curve(pairs, gold))
            label = f"{'canonical' if canonical else 'normalize'} {kind} {size}-gram"
            print(row(label, t, s, f"{ms:>7.0f}"))

    key = (DEFAULT["canonical"], DEFAULT["kind"], DEFAULT["size"])
    t_def = DEFAULT["threshold"]
    default_pairs = pairs_of[key]
    label = f"canonical {DEFAULT['kind']} {DEFAULT['size']}-gram"
    print(f"\n2. Full curve of the default ({label}), plain and with the mutual-best refinement")
    print(f"{'T':>6}{'pairs':>7}{'true':>6}{'recall':>8}{'prec':>8}{'F1':>7}   |  mutual best F1")
    for (t, s), (_, m) in zip(
        curve(default_pairs, gold), curve(default_pairs, gold, mutual_best), strict=True
    ):
        mark = "  <- default" if abs(t - t_def) < 1e-9 else ""
        print(
            f"{t:>6.2f}{s.pairs:>7}{s.true_pairs:>6}{s.recall:>8.3f}{s.precision:>8.3f}"
            f"{s.f1:>7.3f}   |  {m.f1:.3f} ({m.pairs} pairs){mark}"
        )

    print(f"\n3. Record refinements on {label} (best T, and at T = {t_def})")
    sets = shingle_sets(texts, DEFAULT["kind"], DEFAULT["size"], True)
    canon = {rid: canonicalize(t) for rid, t in texts.items()}
    char3 = ShingleProcessor(3, kind="char", canonical=False)
    names = {rid: char3.shingle_set(name_part(t)) for rid, t in canon.items()}
    weighted = idf_weighted_pairs(sets)

    def name_gate(pairs: list[Pair]) -> list[Pair]:
        return [p for p in pairs if jaccard(names[p[0]], names[p[1]]) >= 0.3]

    variants = [
        ("plain Jaccard", default_pairs, None),
        (f"mutual best (or J>={MUTUAL_ESCAPE})", default_pairs, mutual_best),
        ("name gate (name char3 J>=0.3)", default_pairs, name_gate),
        ("IDF-weighted Jaccard", weighted, None),
        ("IDF-weighted + mutual best", weighted, mutual_best),
    ]
    print(HEADER + "   | F1 at default T")
    for name, pairs, refine in variants:
        c = curve(pairs, gold, refine)
        t, s = best(c)
        here = dict(c)[t_def]
        print(row(name, t, s, f"   | {here.f1:.3f}"))

    print(f"\n   Gold pairs missed by the default (T = {t_def} + mutual best):")
    found = {(a, b) for a, b, _ in mutual_best(at(default_pairs, t_def))}
    for a, b in sorted(gold - found, key=lambda p: int(p[0])):
        print(f"   {jaccard(sets[a], sets[b]):.2f}  {canon[a]}  |  {canon[b]}")

    print("\n4. Synthetic news-like text (300 docs + 30 near-duplicates at 5% word edits)")
    news, news_gold = synthetic_news()
    print(f"{'shingles':<22}{'gold J min':>11}{'other J max':>12}  P/R at T={t_def}  (mutual best)")
    for kind, size in [(DEFAULT["kind"], DEFAULT["size"]), ("word", 3), ("char", 3), ("char", 5)]:
        nsets = shingle_sets(news, kind, size, True)
        npairs = all_pairs(nsets, 0.1)
        gold_js = [jaccard(nsets[a], nsets[b]) for a, b in news_gold]
        other = max((j for a, b, j in npairs if (a, b) not in news_gold), default=0.0)
        plain = score([(a, b) for a, b, _ in at(npairs, t_def)], news_gold)
        mutual = score([(a, b) for a, b, _ in mutual_best(at(npairs, t_def))], news_gold)
        print(
            f"{'canonical ' + kind + ' ' + str(size) + '-gram':<22}{min(gold_js):>11.3f}"
            f"{other:>12.3f}  {plain.precision:.3f}/{plain.recall:.3f}"
            f"  ({mutual.precision:.3f}/{mutual.recall:.3f})"
        )

    final = dict(curve(default_pairs, gold, mutual_best))[t_def]
    print(
        f"\nDefault: canonicalize ({CANONICAL_VERSION}), {DEFAULT['kind']} {DEFAULT['size']}-gram "
        f"shingles, exact Jaccard >= {t_def}, mutual best (or J >= {MUTUAL_ESCAPE}): restaurants "
        f"P={final.precision:.3f} R={final.recall:.3f} F1={final.f1:.3f}"
    )


if __name__ == "__main__":
    main()
