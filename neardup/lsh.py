"""LSH configuration: how a record becomes the shingle set that is banded, stored and verified.

One :class:`LshConfig` is used by the indexer (band keys in ``content_lsh`` and ``lsh_bNN``), by
the all-pairs report, by ``neighbors`` and ``search``, and by verification, which recomputes the
exact shingle set from the stored ``content``. Its parameters are stored with the index
(prefixed ``lsh.``) and read back from it, so a query can never band a text differently from
the index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .errors import InputError
from .shingles import ShingleProcessor, band_keys_batch, normalize, s_curve

#: Defaults for records and text alike (see README, "Choosing the defaults"): character 4-grams
#: of the canonical text, 128 permutations of the universal hash family, verified at Jaccard
#: 0.5. (b, r) follow from the threshold through the S-curve.
DEFAULT_KIND = "word"
DEFAULT_SIZE = 1
DEFAULT_NUM_PERM = 128
DEFAULT_FAMILY = "universal"
DEFAULT_THRESHOLD = 0.65
DEFAULT_SEED = 42
PREFIX = "lsh."
#: How band keys are laid out in the index: ``content_lsh`` holds all of a record's keys and
#: ``lsh_bNN`` band NN's key. Stored with the index, so that an index written in another layout
#: is re-indexed instead of being read as if it had no shared buckets.
LAYOUT = "band-fields-1"
#: Solr's default maxBooleanClauses: a neighbors query has one clause per band.
MAX_BANDS = 1024
#: The probability that a pair exactly at the threshold becomes a candidate; pairs above it are
#: more likely still. Verification removes the false candidates that this generosity lets in.
TARGET_RECALL = 0.99


def choose_bands(num_perm: int, threshold: float, recall: float = TARGET_RECALL) -> tuple[int, int]:
    """(bands, rows) for a near-complete report: the longest bands whose S-curve still gives
    ``recall`` at ``threshold``.

    Longer bands mean fewer false candidates, so this is the cheapest choice that keeps recall.
    datasketch-style :func:`~neardup.shingles.optimal_bands` balances false positives against
    false negatives instead, which loses about half the pairs right at the threshold; here
    false positives cost only verification, never a wrong answer.
    """
    best = (num_perm, 1)
    for r in range(1, num_perm + 1):
        b = num_perm // r
        if s_curve(min(threshold, 1.0), b, r) >= recall:
            best = (b, r)
    return best


def band_field(band: int) -> str:
    """The single-valued field that holds band ``band``'s key of every record."""
    return f"lsh_b{band:02d}"


def key_field(key: str) -> str:
    """The band field of a band key (``b07_3f9c...`` is in ``lsh_b07``)."""
    head, sep, _ = key.partition("_")
    if not sep or head[:1] != "b" or not head[1:].isdigit():
        raise ValueError(f"not a band key: {key!r}")
    return band_field(int(head[1:]))


@dataclass(frozen=True)
class LshConfig:
    kind: str = DEFAULT_KIND
    size: int = DEFAULT_SIZE
    num_perm: int = DEFAULT_NUM_PERM
    hash_family: str = DEFAULT_FAMILY
    seed: int = DEFAULT_SEED
    threshold: float = DEFAULT_THRESHOLD
    canonical: bool = True
    bands: int = 0
    rows: int = 0
    _extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise InputError(f"threshold must be in (0, 1], got {self.threshold}")
        try:
            self.processor  # noqa: B018  (validates kind, size, num_perm, family, seed)
        except ValueError as exc:
            raise InputError(str(exc)) from exc
        if self.bands <= 0 or self.rows <= 0:
            b, r = choose_bands(self.num_perm, self.threshold)
            object.__setattr__(self, "bands", b)
            object.__setattr__(self, "rows", r)
        if self.bands > MAX_BANDS:
            raise InputError(
                f"{self.bands} bands: at most {MAX_BANDS} (neighbors and search OR one Solr "
                "term query per band, and Solr allows 1024 clauses); use longer bands"
            )
        if self.bands * self.rows > self.num_perm:
            raise InputError(
                f"bands x rows = {self.bands} x {self.rows} exceeds num_perm = {self.num_perm}"
            )

    @cached_property
    def processor(self) -> ShingleProcessor:
        return ShingleProcessor(
            self.size,
            kind=self.kind,
            num_perm=self.num_perm,
            hash_family=self.hash_family,
            seed=self.seed,
        )

    def prepare(self, text: str) -> str:
        """Normalized text, and canonical record forms (``7th``/``seventh``) where enabled.

        Give it the record as written (the ``raw`` field): canonical forms read ``&``, which
        normalization deletes.
        """
        if self.canonical:
            from .canonical import canonicalize

            return canonicalize(text)
        return normalize(text)

    def shingles(self, text: str) -> frozenset[str]:
        # prepare() returns normalized text (canonicalize ends with normalize; tested)
        return frozenset(self.processor.ngrams(self.prepare(text), normalized=True))

    def keys_batch(self, texts: list[str]) -> list[list[str]]:
        """Band keys of many texts, as written."""
        prepared = [self.prepare(t) for t in texts]
        sigs = self.processor.signatures_batch(prepared)
        return band_keys_batch(sigs, self.bands, self.rows)

    def keys(self, text: str) -> list[str]:
        return self.keys_batch([text])[0]

    def candidate_probability(self, similarity: float) -> float:
        return float(s_curve(similarity, self.bands, self.rows))

    def params(self) -> dict[str, Any]:
        from .canonical import CANONICAL_VERSION

        p = {f"{PREFIX}{k}": v for k, v in self.processor.params().items()}
        p.update(
            {
                f"{PREFIX}bands": self.bands,
                f"{PREFIX}rows": self.rows,
                f"{PREFIX}threshold": self.threshold,
                f"{PREFIX}canonical": CANONICAL_VERSION if self.canonical else "off",
                f"{PREFIX}layout": LAYOUT,
            }
        )
        return p

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> LshConfig:
        """The configuration an index was built with (its stored ``lsh.*`` parameters)."""
        if f"{PREFIX}bands" not in params:
            raise InputError(
                "this index has no LSH bands: re-index it with neardup >= 0.1 "
                "(neardup index FILE) to use the lsh method, neighbors or search"
            )
        if params.get(f"{PREFIX}layout") != LAYOUT:
            raise InputError(
                "this index was built by an older neardup, without one field per LSH band "
                f"(layout {params.get(f'{PREFIX}layout', 'none')!r}, this version reads "
                f"{LAYOUT!r}): re-index it into a new collection (neardup index FILE)"
            )
        g = {k[len(PREFIX) :]: v for k, v in params.items() if k.startswith(PREFIX)}
        cfg = cls(
            kind=g["kind"],
            size=int(g["size"]),
            num_perm=int(g["num_perm"]),
            hash_family=g["hash_family"],
            seed=int(g["seed"]),
            threshold=float(g["threshold"]),
            canonical=g["canonical"] != "off",
            bands=int(g["bands"]),
            rows=int(g["rows"]),
        )
        mine = cfg.params()
        stale = [k for k in mine if k in params and params[k] != mine[k]]
        if stale:
            raise InputError(
                "the index was built by another version of neardup's shingling "
                f"({', '.join(f'{k}={params[k]!r}' for k in stale)}); re-index it"
            )
        return cfg


def signature_matrix(cfg: LshConfig, texts: list[str]) -> np.ndarray:
    return cfg.processor.signatures_batch([cfg.prepare(t) for t in texts])
