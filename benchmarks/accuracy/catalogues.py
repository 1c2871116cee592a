"""Seeded generators of two kinds of records the public datasets lack: citations and a music
catalogue, with labelled duplicates made the ways real ones are.

Why generated: no package on PyPI ships a citation or music set with its full gold standard
(see the README beside this file), and these kinds fail in their own ways.

**Citations** (like Cora's): a paper is cited many times, in different styles. Clusters are
heavy-tailed (most papers once or twice, a few dozens of times), so the few big clusters carry
most of the gold pairs. Each citation of a paper picks a style: authors in full or as initials,
surname first or last, ``and`` or commas, ``et al.`` after the first author; the venue in full,
abbreviated (``Proc. Int. Conf. on``) or as its acronym (``ICML-95``); pages as ``pp. 12-20``,
``12--20`` or left out; the year in full, two digits or left out. On top: typos in the title
and the names, a word of the title dropped. Hard negatives: papers by the same authors with
titles sharing most words (a sequel, an extended version at another venue and year).

**Music** (like the MusicBrainz benchmark's): tracks of albums (one to three of each album, as
a catalogue sampled from a larger one holds them), each track listed by one to five sources,
each source writing its fields its own way: the length as ``4m 32sec``, ``272000``
(milliseconds), ``4:32`` or ``04:32``; the year as ``2005``, ``05`` or ``'05``; the language as
``English``, ``eng.`` or ``en``; the track number alone, zero-padded, or glued to the title
(``003-Title``); one source puts artist, album and title in the title field. Typos and missing
fields on top. Hard negatives are the data itself: another track of one album shares
artist, album, year and language, and differs in title, number and length only.

Only :mod:`random` with a fixed seed is used, so the records depend on the seed and the Python
version's ``random`` alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

_TITLE_WORDS = (
    "learning adaptive efficient parallel distributed query optimization networks neural "
    "bayesian inference model models probabilistic reasoning planning search heuristic "
    "genetic algorithms algorithm analysis robust scalable incremental evaluation framework "
    "approach using based knowledge representation logic programs constraint satisfaction "
    "decision trees reinforcement agents multi-agent systems database databases relational "
    "object-oriented transactions concurrency control recovery indexing spatial temporal data "
    "mining association rules clustering classification feature selection visual recognition "
    "speech language natural grammar induction semantic parsing information retrieval "
    "text documents web caching memory hierarchy compiler code generation program "
    "verification theorem proving complexity bounds approximation online scheduling "
    "markov hidden processes stochastic gradient descent boosting ensembles kernel methods"
).split()
_GLUE = "for of in with and on via the a to from under".split()
_GIVEN = (
    "John Mary David Susan Michael Linda Richard Karen Thomas Nancy Peter Anne Robert Helen "
    "Daniel Laura James Ellen Steven Carol Andrew Ruth Mark Alice Paul Diane Kevin Ingrid "
    "Yoav Rina Stuart Judea Leslie Raymond Tom Manuela Pedro Craig Sebastian Haym"
).split()
_SURNAMES = (
    "Smith Johnson Miller Davis Wilson Moore Taylor Anderson Thomas Jackson White Harris "
    "Martin Thompson Garcia Clark Lewis Walker Hall Allen Young King Wright Scott Green Baker "
    "Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips Evans Turner Parker Collins "
    "Edwards Stewart Morris Murphy Cook Rogers Morgan Cooper Peterson Bailey Reed Kelly "
    "Freund Schapire Pearl Russell Norvig Mooney Quinlan Dietterich Kearns Valiant Haussler"
).split()
#: (full name, abbreviated, acronym) of venues.
_VENUES = (
    ("Proceedings of the International Conference on Machine Learning",
     "Proc. Int. Conf. on Machine Learning", "ICML"),
    ("Proceedings of the National Conference on Artificial Intelligence",
     "Proc. Natl. Conf. on Artif. Intell.", "AAAI"),
    ("Proceedings of the International Joint Conference on Artificial Intelligence",
     "Proc. Int. Joint Conf. on Artif. Intell.", "IJCAI"),
    ("Advances in Neural Information Processing Systems", "Adv. Neural Inf. Proc. Sys.", "NIPS"),
    ("Proceedings of the ACM SIGMOD International Conference on Management of Data",
     "Proc. ACM SIGMOD Conf.", "SIGMOD"),
    ("Proceedings of the International Conference on Very Large Data Bases",
     "Proc. Int. Conf. on Very Large Data Bases", "VLDB"),
    ("Machine Learning", "Mach. Learn.", "MLJ"),
    ("Journal of Artificial Intelligence Research", "J. Artif. Intell. Res.", "JAIR"),
    ("Artificial Intelligence", "Artif. Intell.", "AIJ"),
    ("Proceedings of the Conference on Computational Learning Theory",
     "Proc. Conf. on Comput. Learn. Theory", "COLT"),
    ("ACM Transactions on Database Systems", "ACM Trans. Database Syst.", "TODS"),
    ("Proceedings of the Annual Meeting of the Association for Computational Linguistics",
     "Proc. Annu. Meet. Assoc. Comput. Linguist.", "ACL"),
)  # fmt: skip
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class Generated:
    """The records (id, text, fields) and each record's entity."""

    records: list[tuple[str, str, dict[str, str]]]
    labels: dict[str, str]
    kinds: dict[str, str] = field(default_factory=dict)


def typo(rng: random.Random, value: str) -> str:
    """One letter of one word of four or more letters substituted, dropped, doubled or swapped
    with its neighbour."""
    words = value.split(" ")
    cands = [i for i, w in enumerate(words) if len(w) >= 4]
    if not cands:
        return value
    i = rng.choice(cands)
    w = list(words[i])
    pos = rng.randrange(len(w))
    op = rng.randrange(4)
    if op == 0:
        w[pos] = rng.choice(_LETTERS)
    elif op == 1:
        del w[pos]
    elif op == 2:
        w.insert(pos, w[pos])
    elif pos + 1 < len(w):
        w[pos], w[pos + 1] = w[pos + 1], w[pos]
    words[i] = "".join(w)
    return " ".join(words)


def _cluster_size(rng: random.Random, mean_tail: float, cap: int) -> int:
    """Heavy-tailed: half the entities once, the rest Pareto-distributed up to ``cap``."""
    if rng.random() < 0.5:
        return 1
    return min(cap, 1 + int(rng.paretovariate(mean_tail)))


def _shuffled(rows: list[tuple[str, dict[str, str], str, str]], rng: random.Random,
              prefix: str) -> Generated:  # fmt: skip
    rng.shuffle(rows)
    records, labels, kinds = [], {}, {}
    for i, (text, cols, key, kind) in enumerate(rows):
        rid = f"{prefix}{i}"
        records.append((rid, text, {k: v for k, v in cols.items() if v}))
        labels[rid] = key
        kinds[rid] = kind
    return Generated(records, labels, kinds)


# -- citations -----------------------------------------------------------------------------------


@dataclass
class Paper:
    key: str
    authors: list[tuple[str, str]]  # (given, surname)
    title: str
    venue: int
    year: int
    pages: tuple[int, int]


def _title(rng: random.Random) -> str:
    words = []
    for k in range(rng.randint(4, 10)):
        words.append(rng.choice(_GLUE) if k % 3 == 2 else rng.choice(_TITLE_WORDS))
    words[0] = words[0].capitalize()
    return " ".join(words)


def _paper(rng: random.Random, key: str) -> Paper:
    authors = [(rng.choice(_GIVEN), rng.choice(_SURNAMES)) for _ in range(rng.randint(1, 4))]
    start = rng.randint(1, 600)
    return Paper(key, authors, _title(rng), rng.randrange(len(_VENUES)), rng.randint(1985, 2000),
                 (start, start + rng.randint(5, 20)))  # fmt: skip


def _sibling(rng: random.Random, key: str, of: Paper) -> Paper:
    """The same authors' other paper: most of the title shared, another venue and year."""
    words = of.title.split()
    for _ in range(max(1, len(words) // 3)):
        words[rng.randrange(len(words))] = rng.choice(_TITLE_WORDS)
    if rng.random() < 0.3:
        words.append(rng.choice(("II", "revisited", "extended", "(extended abstract)")))
    start = rng.randint(1, 600)
    year = of.year + rng.choice((-2, -1, 1, 2, 3))
    pages = (start, start + rng.randint(5, 20))
    return Paper(key, list(of.authors), " ".join(words), rng.randrange(len(_VENUES)), year, pages)


def _authors(rng: random.Random, p: Paper) -> str:
    style = rng.randrange(5)
    names = list(p.authors)
    etal = len(names) > 2 and rng.random() < 0.25
    if etal:
        names = names[:1]
    if style == 0:  # J. Smith, A. Jones, and B. Lee
        parts = [f"{g[0]}. {s}" for g, s in names]
    elif style == 1:  # Smith, J., Jones, A.
        parts = [f"{s}, {g[0]}." for g, s in names]
    elif style == 2:  # John Smith and Anne Jones
        parts = [f"{g} {s}" for g, s in names]
    elif style == 3:  # Smith J, Jones A
        parts = [f"{s} {g[0]}" for g, s in names]
    else:  # J Smith; A Jones
        parts = [f"{g[0]} {s}" for g, s in names]
    if etal:
        return f"{parts[0]} et al."
    if len(parts) > 1 and style in (0, 2):
        return ", ".join(parts[:-1]) + " and " + parts[-1]
    return ("; " if style == 4 else ", ").join(parts)


def _cite(rng: random.Random, p: Paper, first: bool) -> dict[str, str]:
    full, abbrev, acronym = _VENUES[p.venue]
    title = p.title
    yy = f"{p.year % 100:02d}"
    venue = rng.choice((full, full, abbrev, acronym, f"{acronym}-{yy}", f"In {full}"))
    year = rng.choice((str(p.year), str(p.year), f"({p.year})", yy if acronym not in venue else ""))
    p1, p2 = p.pages
    pages = rng.choice((f"pp. {p1}-{p2}", f"{p1}--{p2}", f"pages {p1}-{p2}", "", ""))
    authors = _authors(rng, p)
    if not first:
        for _ in range(rng.choice((0, 1, 1, 2))):
            what = rng.random()
            if what < 0.45:
                title = typo(rng, title)
            elif what < 0.7:
                authors = typo(rng, authors)
            elif what < 0.85:
                words = title.split()
                if len(words) > 4:
                    del words[rng.randrange(1, len(words))]
                title = " ".join(words)
            else:
                title = title.lower()
    return {"authors": authors, "title": title, "venue": venue, "year": year, "pages": pages}


def citations(papers: int = 400, seed: int = 7) -> Generated:
    """Citations of ``papers`` papers, heavy-tailed clusters (see the module); ids ``"c0"``..."""
    rng = random.Random(seed)
    ents: list[Paper] = []
    for k in range(papers):
        key = f"p{k}"
        if ents and rng.random() < 0.15:
            ents.append(_sibling(rng, key, rng.choice(ents)))
        else:
            ents.append(_paper(rng, key))
    rows = []
    for p in ents:
        for m in range(_cluster_size(rng, 1.3, 50)):
            cols = _cite(rng, p, m == 0)
            order = ["authors", "year", "title", "venue", "pages"]
            if rng.random() < 0.5:
                order = ["authors", "title", "venue", "pages", "year"]
            text = ". ".join(cols[c].rstrip(".") for c in order if cols[c]) + "."
            rows.append((text, {c: cols[c] for c in order}, p.key, "citation"))
    return _shuffled(rows, rng, "c")


# -- music ---------------------------------------------------------------------------------------

_SONG_WORDS = (
    "love night heart fire rain summer dream blue home road light dark river sky time "
    "world baby girl city stars dance tonight forever lonely wild golden broken moon sun "
    "shadow angel ghost train highway paradise devil heaven silver storm ocean winter "
    "midnight memory crazy sweet little lost young free hold run back gone fall rise walk "
    "talk kiss tears smile eyes hands blood bones gold diamond glass stone wire radio "
    "telephone letter summertime yesterday tomorrow morning evening sunday monday satellite "
    "rocket garden window mirror island desert mountain valley harbour lighthouse carnival "
    "circus hurricane thunder lightning echo whisper promise secret stranger lover sister "
    "brother mother father children soldier sailor gypsy queen king"
).split()
_FOREIGN = {
    "German": "liebe nacht herz feuer regen sommer traum blau heimat straße licht dunkel "
    "fluss himmel zeit welt stadt sterne tanz morgen",
    "Spanish": "amor noche corazón fuego lluvia verano sueño azul casa camino luz oscuro "
    "río cielo tiempo mundo ciudad estrellas baile mañana",
    "French": "amour nuit cœur feu pluie été rêve bleu maison route lumière sombre rivière "
    "ciel temps monde ville étoiles danse demain",
}
_LANGUAGES = {  # how the sources write each language
    "English": ("English", "eng.", "en", "Eng."),
    "German": ("German", "ger.", "de", "Deu."),
    "Spanish": ("Spanish", "spa.", "es", "Spa."),
    "French": ("French", "fre.", "fr", "Fre."),
}
_BAND = "The {a} {b}s|{a} {b}|{g} {s}|{g} {s} and the {b}s|DJ {a}|{b}".split("|")


@dataclass
class Track:
    key: str
    number: int
    title: str
    seconds: int
    artist: str
    album: str
    year: int
    language: str


def _words(rng: random.Random, language: str, k: int) -> str:
    pool = _FOREIGN[language].split() if language in _FOREIGN else _SONG_WORDS
    return " ".join(rng.choice(pool) for _ in range(k)).title()


def _album(rng: random.Random, first: int) -> list[Track]:
    language = rng.choices(list(_LANGUAGES), (0.7, 0.1, 0.1, 0.1))[0]
    a, b = rng.choice(_SONG_WORDS).title(), rng.choice(_SONG_WORDS).title()
    artist = rng.choice(_BAND).format(a=a, b=b, g=rng.choice(_GIVEN), s=rng.choice(_SURNAMES))
    album = _words(rng, language, rng.randint(1, 3))
    year = rng.randint(1965, 2015)
    titles: set[str] = set()
    tracks = []
    for n in range(1, rng.randint(6, 14)):
        title = _words(rng, language, rng.randint(1, 4))
        if title in titles:
            continue
        titles.add(title)
        tracks.append(Track(f"t{first + len(tracks)}", n, title, rng.randint(110, 420), artist,
                            album, year, language))  # fmt: skip
    return tracks


def _listing(rng: random.Random, t: Track, source: int, first: bool) -> dict[str, str]:
    m, s = divmod(t.seconds, 60)
    yy = f"{t.year % 100:02d}"
    lang = _LANGUAGES[t.language][source % 4]
    if source == 0:
        cols = {"number": str(t.number), "title": t.title, "length": f"{m}m {s}sec",
                "artist": t.artist, "album": t.album, "year": str(t.year), "language": lang}
    elif source == 1:
        cols = {"number": f"{t.number:02d}", "title": t.title, "length": str(t.seconds * 1000),
                "artist": t.artist, "album": t.album, "year": yy, "language": lang}
    elif source == 2:
        cols = {"number": "", "title": f"{t.number:03d}-{t.title}", "length": f"{m}:{s:02d}",
                "artist": t.artist, "album": f"{t.album} ({t.year})", "year": "",
                "language": lang}
    elif source == 3:
        cols = {"number": "", "title": f"{t.artist} - {t.album} - {t.title}",
                "length": f"{m:02d}:{s:02d}", "artist": "", "album": "", "year": f"'{yy}",
                "language": ""}
    else:
        cols = {"number": str(t.number), "title": t.title.lower(), "length": f"{m}:{s:02d}",
                "artist": t.artist.lower(), "album": t.album.lower(), "year": str(t.year),
                "language": lang}
    if not first:
        for _ in range(rng.choice((0, 1, 1, 2))):
            what = rng.random()
            name = rng.choice(("title", "title", "artist", "album"))
            if what < 0.6 and cols[name]:
                cols[name] = typo(rng, cols[name])
            else:
                gone = [c for c in ("year", "language", "album", "number", "length") if cols[c]]
                if gone:
                    cols[rng.choice(gone)] = ""
    return cols


def music(albums: int = 600, seed: int = 5, whole: bool = False) -> Generated:
    """Tracks of ``albums`` albums listed by one to five of five sources (see the module);
    ids ``"m0"``, ``"m1"``, ... in shuffled order. ``whole``: every track of each album is
    listed, as in a catalogue of whole albums, where a track's nearest stranger is a sibling
    of its album (hostile sweep hx23, finding 2)."""
    rng = random.Random(seed)
    rows = []
    first = 0
    for _ in range(albums):
        tracks = _album(rng, first)
        first += len(tracks)
        listed = len(tracks) if whole else min(len(tracks), rng.choice((1, 1, 1, 2, 2, 3)))
        for t in rng.sample(tracks, listed):
            sources = rng.sample(range(5), rng.choices(range(1, 6), (0.3, 0.25, 0.2, 0.15, 0.1))[0])
            for k, src in enumerate(sources):
                cols = _listing(rng, t, src, k == 0)
                text = " ".join(v for v in cols.values() if v)
                rows.append((text, cols, t.key, f"source{src}"))
    return _shuffled(rows, rng, "m")
