"""One frozen parameter set per index: how text is prepared, shingled, hashed and banded.

Signatures made with other parameters are not comparable: querying an index with them would
return plausible-looking garbage. So the parameters are stored with the index when it is
created, read back whenever it is opened, and a caller who asks for others gets
:class:`~neardup.errors.ParameterMismatch` instead of wrong answers.

>>> p = Params(threshold=0.8)
>>> (p.bands, p.rows)
(21, 6)
>>> Params.from_dict(p.to_dict()) == p
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from .constraints import RULES, check_all
from .errors import ArgumentError, ParameterMismatch
from .extra_fields import ExtraFields, loaded, wanted
from .sign.banding import MAX_BANDS, choose_bands
from .sign.minhash import ShingleProcessor

#: Version of the stored form (and of the band-key layout in a Solr index). An index written
#: in another form is refused with "re-index", never read as if it had no shared buckets.
#: 3: a Solr record's band keys live in its band fields alone (numeric docValues, read back by
#: ``fl=lsh_b*``), no longer also as 40 stored strings (``content_lsh``), which cost Solr 43%
#: of its CPU indexing short records. An older neardup refuses a format-3 index instead of
#: reading records with no keys.
FORMAT = 3
#: The formats this version reads: 2 (keys also stored as strings; it keeps writing them
#: there, so that the neardup that made it can still read it) and 3.
READS = (2, 3)
#: How a report decides (declared with the other parameters' values in :mod:`neardup.constraints`).
__all__ = ["FORMAT", "READS", "RULES", "Params"]


@dataclass(frozen=True)
class Params:
    """The parameter set of an index.

    ``shingle_kind``/``shingle_size``: word n-grams or character k-grams. ``num_perm``: MinHash
    values per record, drawn by ``hash_family`` from ``seed``. ``threshold``: the Jaccard
    similarity a pair needs; ``bands`` x ``rows`` follow from it (see
    :func:`~neardup.sign.banding.choose_bands`) unless both are given. ``canonical``: rewrite record
    forms (street suffixes, ordinals) before shingling. ``split_hyphens``: character shingles
    read a hyphen as a space (``bel-air``/``bel air``; indexes stored before it existed read
    as False, the way they were built). ``fold_marks``: with ``fold_accents``, also fold the
    optional marks of Arabic and Hebrew (harakat, niqqud: ``مُحَمَّد`` is ``محمد``; indexes
    stored before it existed read as False and keep their signatures). ``fields_2014``: also
    store the 2014
    article's fields for its two methods: a plug-in (:mod:`neardup.extra_fields`) that
    :mod:`neardup.seed2014` adds when it is imported.

    The field defaults (word 1-grams of the canonical text at Jaccard >= 0.65, 128 permutations
    of the universal family) are what ``Params()`` means. An index created without any
    parameters does not use them blindly: it chooses shingles and rule from its first records
    (:mod:`neardup.choose`).
    """

    shingle_kind: str = "word"
    shingle_size: int = 1
    num_perm: int = 128
    hash_family: str = "universal"
    seed: int = 42
    threshold: float = 0.65
    canonical: bool = True
    fold_accents: bool = True
    split_hyphens: bool = True
    rule: str = "threshold"
    bands: int = 0
    rows: int = 0
    #: Fields a plug-in adds (:mod:`neardup.extra_fields`); the metadata names its package.
    #: The name is what indexes store: an index made with it keeps reading the same.
    fields_2014: bool = field(default=False, metadata={"extra_fields": "neardup.seed2014"})
    #: Repair mojibake with ftfy before normalizing (the ``repair`` extra; off by default).
    fix_text: bool = False
    #: Fold Arabic's and Hebrew's optional marks with the accents (normalization v4).
    fold_marks: bool = True

    def __post_init__(self) -> None:
        check_all("Params", {f.name: getattr(self, f.name) for f in fields(self)})
        if self.fix_text:
            self.processor()  # ftfy is there, or the error names the extra now
        if (self.bands > 0) != (self.rows > 0):
            raise ArgumentError("give both bands and rows, or neither (they follow the threshold)")
        if self.bands == 0:
            b, r = choose_bands(self.num_perm, self.threshold)
            object.__setattr__(self, "bands", b)
            object.__setattr__(self, "rows", r)
        if self.bands > MAX_BANDS:
            raise ArgumentError(
                f"{self.bands} bands: at most {MAX_BANDS} (a neighbours query ORs one term per "
                "band, and Solr allows 1024 clauses); use longer bands"
            )
        if self.bands * self.rows > self.num_perm:
            raise ArgumentError(
                f"bands x rows = {self.bands} x {self.rows} exceeds num_perm = {self.num_perm}"
            )

    def describe(self) -> str:
        """One line a person reads: shingles, how pairs are decided, permutations and bands."""
        kind = "word" if self.shingle_kind == "word" else "character"
        decide = (
            f"Jaccard >= {self.threshold:g}"
            if self.rule == "threshold"
            else f"Jaccard >= {self.threshold:g} less pairs alike by common words alone"
            if self.rule == "documents"
            else f"{self.rule} rule above a floor of {self.threshold:g}"
        )
        return (
            f"{kind} {self.shingle_size}-grams, {decide}, {self.num_perm} MinHash values in "
            f"{self.bands} bands x {self.rows} rows"
        )

    def processor(self) -> ShingleProcessor:
        """The one :class:`ShingleProcessor` of this parameter set: the only factory of a
        processor from parameters, so that the two cannot drift."""
        return ShingleProcessor(
            self.shingle_size,
            kind=self.shingle_kind,
            num_perm=self.num_perm,
            hash_family=self.hash_family,
            seed=self.seed,
            canonical=self.canonical,
            fold_accents=self.fold_accents,
            split_hyphens=self.split_hyphens,
            fix_text=self.fix_text,
            fold_marks=self.fold_marks,
        )

    def extra_fields(self) -> list[ExtraFields]:
        """The plug-ins whose fields this parameter set asks for, or an error naming the
        package to import for one that is not loaded (never an index without its fields)."""
        plugins = {f.name: f.metadata["extra_fields"] for f in fields(self)
                   if "extra_fields" in f.metadata}  # fmt: skip
        return wanted([n for n in plugins if getattr(self, n)], plugins)

    def replace(self, **changes: Any) -> Params:
        """A copy with ``changes``; bands and rows follow a new threshold unless given."""
        if ("threshold" in changes or "num_perm" in changes) and "bands" not in changes:
            changes.setdefault("bands", 0)
            changes.setdefault("rows", 0)
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """What is stored with an index: the fields, and the versions of every fixed choice
        (normalization, canonical rules, shingle hash, permutation generator, layout)."""
        out = {"format": FORMAT, **asdict(self), "processor": self.processor().params()}
        for plugin in loaded(out):  # its versions too (one not loaded is not checked)
            out.update(plugin.stored(self))
        return out

    @classmethod
    def from_dict(cls, stored: dict[str, Any]) -> Params:
        """The parameters an index was built with; an index of another format or another
        version of the fixed choices is refused with what to do."""
        if stored.get("format") not in READS:
            raise ParameterMismatch(
                "this index was written by another version of neardup (stored format "
                f"{stored.get('format', 'none')!r}, this version reads "
                f"{' or '.join(map(str, READS))}): re-index it "
                "into a new collection"
            )
        names = {f.name for f in fields(cls)}
        # Indexes stored before hyphens could be spaces were shingled with them kept, and
        # those stored before Arabic's and Hebrew's marks were folded normalized them kept.
        stored = {"split_hyphens": False, "fold_marks": False, **stored}
        try:
            params = cls(**{k: v for k, v in stored.items() if k in names})
        except (TypeError, ArgumentError) as exc:
            raise ParameterMismatch(f"the index's stored parameters are unreadable: {exc}") from exc
        mine = params.to_dict()
        stale = [
            f"{part}.{k}"
            for part in mine
            if isinstance(mine[part], dict)  # the versions: the processor's and plug-ins'
            for k in mine[part]
            if stored.get(part, {}).get(k) != mine[part][k]
        ]
        if stale:
            raise ParameterMismatch(
                "the index was built by another version of neardup's text processing ("
                + ", ".join(stale)
                + "); re-index it"
            )
        return params

    def check_given(self, given: Mapping[str, Any], where: str) -> None:
        """:meth:`check` for some parameters given by name: only those are compared (a given
        threshold still follows the index's bands and rows, which it does not name)."""
        unknown = sorted(set(given) - set(Params.__dataclass_fields__))
        if unknown:
            raise ArgumentError(f"unknown parameters: {', '.join(unknown)}")
        asked = self.replace(**given)  # checks the values as Params does
        names = [n for n in given if getattr(self, n) != getattr(asked, n)]
        if names:
            self._refuse(names, asked, where)

    def check(self, other: Params, where: str) -> None:
        """Raise :class:`ParameterMismatch` naming each difference between the index's
        parameters (``self``) and the ones asked for."""
        names = [f.name for f in fields(self) if getattr(self, f.name) != getattr(other, f.name)]
        if {"threshold", "num_perm"} & set(names):  # bands and rows follow them: not news
            names = [n for n in names if n not in ("bands", "rows")]
        if names:
            self._refuse(names, other, where, whole=True)

    def _refuse(self, names: list[str], other: Params, where: str, whole: bool = False) -> None:
        diffs = [
            f"{n}: index has {getattr(self, n)!r}, asked for {getattr(other, n)!r}" for n in names
        ]
        some = ""
        if whole:
            # A Params object is a whole set: the fields left at their defaults were asked for
            # too. Say how to ask for some only, when some of the differences are such defaults.
            defaults = Params.__dataclass_fields__
            unasked = [n for n in names if n not in ("bands", "rows")
                       and getattr(other, n) == defaults[n].default]  # fmt: skip
            if unasked:
                some = (
                    f"; Params() asks for every field, the defaults too ({', '.join(unasked)}): "
                    "to ask for some only, pass them by name, NearDupIndex(given={...})"
                )
        raise ParameterMismatch(
            f"the index at {where} was built with other parameters ({'; '.join(diffs)}); "
            "open it without parameters to use its own, or index into a new "
            + ("index file" if where.startswith("duckdb:") else "collection") + some
        )
