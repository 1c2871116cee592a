"""neardup.defaults: every tuned constant in one object, read by the steps, not stored."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

from neardup import Params
from neardup.defaults import DEFAULTS, Defaults

#: Each step, the names it gave its tuned values before they moved here, and their fields.
MOVED = {
    "neardup.sign.banding": {"TARGET_RECALL": "target_recall"},
    "neardup.candidates.buckets": {
        "DEFAULT_MAX_BUCKET": "max_bucket", "COHERENT": "coherent", "DEFAULT_CAP": "candidate_cap",
        "PROTECT_JACCARD": "cap_protect_jaccard", "REPEATED_GROUP": "repeated_group",
        "IDENTICAL_PAIRS": "identical_pairs", "IDENTICAL_RECORDS": "identical_records",
    },
    "neardup.choose": {
        "RECORD_WORDS": "record_words", "SAMPLE": "choose_sample", "RECORD_FLOOR": "record_floor",
        "RECORD_BANDS": "record_bands", "DOCUMENT_THRESHOLD": "document_threshold",
        "LARGE_RECORDS": "large_records", "LARGE_RECORD_FLOOR": "large_record_floor",
        "LARGE_RECORD_BANDS": "large_record_bands", "LARGE_DOCUMENT_BANDS": "large_document_bands",
    },
    "neardup.decision.valley": {
        "WIDTH": "valley_width", "GAP": "valley_gap", "DEPTH": "valley_depth",
        "FALLBACK": "valley_fallback", "NUMBERS_WAIVED": "numbers_waived_jaccard",
        "NUMBERS_NOISY": "numbers_noisy", "NUMBERS_MIN_PAIRS": "numbers_min_pairs",
        "PLAIN_MARGIN": "valley_plain_margin", "TOP": "valley_top",
        "MIN_SIDE": "valley_min_side",
    },
    "neardup.decision.identifiers": {
        "COMMON_SHARE": "numbers_common_share", "COMMON_MIN": "numbers_common_min",
    },
    "neardup.decision.link": {
        "NUMBERS_WAIVED": "numbers_waived_cosine", "NUMBERS_NOISY": "numbers_noisy",
        "NUMBERS_MIN_PAIRS": "numbers_min_pairs", "COLUMNS_MIN_PAIRS": "columns_min_pairs",
        "JOINED_SHARE": "joined_share", "CODE_LENGTH": "link_code_length",
        "TWIN_WORDS": "link_twin_words",
    },
    "neardup.decision.columns": {
        "CUT": "columns_cut", "SAMPLE": "columns_sample", "MIN_PAIRS": "columns_min_pairs",
        "MARGIN": "columns_margin_bits", "GRAM": "columns_gram",
        "MAX_SHARE": "columns_max_share", "JOINED_BELOW": "columns_joined_below",
    },
    "neardup.decision.fellegi_sunter": {
        "SMOOTHING": "em_smoothing", "ITERATIONS": "em_iterations", "TOLERANCE": "em_tolerance",
    },
    "neardup.decision.dates": {
        "NOISY": "dates_noisy", "MIN_PAIRS": "dates_min_pairs", "MAX_WORDS": "dates_max_words",
    },
    "neardup.decision.date_forms": {
        "ORDER_MIN": "date_order_min", "ORDER_NOISY": "date_order_noisy",
    },
    "neardup.decision.swaps": {"SHARED": "swaps_shared"},
    "neardup.decision.common_words": {
        "FLOOR": "common_words_floor", "RECORDS": "common_words_records",
    },
    "neardup.decision.codes": {
        "FILLED": "codes_filled", "DIGITS": "codes_digits", "ONE_TOKEN": "codes_one_token",
        "LENGTH": "codes_length", "DISTINCT": "codes_distinct", "AGREE": "codes_agree",
        "ALIKE_RATIO": "codes_alike_ratio", "ALIKE_MARGIN": "codes_alike_margin",
        "MIN_PAIRS": "codes_min_pairs", "SAMPLE": "codes_sample",
        "RANDOM_PAIRS": "codes_random_pairs", "DATES": "codes_dates",
    },
    "neardup.decision.weights": {
        "GRAM": "weighted_gram", "SOURCE_SHARE": "source_gram_share",
        "SOURCE_RATIO": "source_gram_ratio", "SOURCE_LEAST": "source_gram_least",
    },
    "neardup.decision.topk": {"TOP_K": "link_top_k", "PURGE": "link_purge"},
    "neardup.decision.assign": {"MARGIN": "link_margin"},
    "neardup.decision.standout": {"FLOOR": "standout_floor"},
    "neardup.decision.families": {
        "SHARE": "families_share", "AGREEMENT": "families_agreement",
        "TELLING": "families_telling", "CONTAINED": "families_contained",
    },
    "neardup.decision.names": {
        "MAX_WORDS": "names_max_words", "COMMON_SHARE": "names_common_share",
        "COMMON_MIN": "names_common_min", "MAX_SHARED": "names_max_shared",
    },
    "neardup.decision.decide": {
        "STANDOUT_RECORDS": "standout_records", "STANDOUT_AGREEMENT": "standout_agreement",
        "FAMILIES_TOLD": "families_told",
    },
    "neardup.decision.completion": {
        "DENSITY": "complete_density", "MIN_RECORDS": "complete_min_records",
    },
    "neardup.index": {"SCAN_RECORDS": "scan_records", "SCAN_CHAR_FACTOR": "scan_char_factor"},
    "neardup.candidates.verify": {
        "EDIT_DISTANCE_CAP": "edit_distance_cap", "ORDER_FLOOR": "document_order_floor",
    },
}  # fmt: skip
#: The names kept, because the CLI and index.py read them: each only DEFAULTS' value.
KEPT = {
    ("neardup.candidates.buckets", "DEFAULT_MAX_BUCKET"),
    ("neardup.candidates.buckets", "DEFAULT_CAP"),
    ("neardup.choose", "SAMPLE"),
}  # fmt: skip


def _source(module: str) -> str:
    return Path(importlib.import_module(module).__file__ or "").read_text(encoding="utf-8")


@pytest.mark.parametrize("module", sorted(MOVED))
def test_each_step_reads_its_tuned_values_from_defaults(module: str) -> None:
    """No step keeps a number of its own for a tuned value: the old name is gone, or (kept for
    its readers) assigned from DEFAULTS; and the step reads each of its fields."""
    mod = importlib.import_module(module)
    source = _source(module)
    assigned = {
        node.targets[0].id: ast.unparse(node.value)
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    for name, field in MOVED[module].items():
        assert f"DEFAULTS.{field}" in source, f"{module} does not read DEFAULTS.{field}"
        if (module, name) in KEPT:
            assert assigned[name] == f"DEFAULTS.{field}"
            assert getattr(mod, name) == getattr(DEFAULTS, field)
        else:
            assert name not in assigned, f"{module}.{name} = {assigned[name]}"


def test_every_field_is_read_by_some_step() -> None:
    read = {field for names in MOVED.values() for field in names.values()}
    assert read == {f.name for f in dataclasses.fields(Defaults)}


def test_a_step_reads_the_defaults_when_it_runs() -> None:
    """The steps read DEFAULTS at call time, so one value changes what a step decides (the
    tests change one by replacing a module's DEFAULTS)."""
    from neardup.decision import valley

    assert valley.valley_threshold([], records=100, floor=0.3).threshold == 0.5
    try:
        valley.DEFAULTS = dataclasses.replace(DEFAULTS, valley_fallback=0.42)  # type: ignore[misc]
        assert valley.valley_threshold([], records=100, floor=0.3).threshold == 0.42
    finally:
        valley.DEFAULTS = DEFAULTS  # type: ignore[misc]


def test_the_defaults_cannot_be_changed_in_place() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.valley_fallback = 0.4  # type: ignore[misc]


def test_the_defaults_are_not_stored_with_an_index() -> None:
    """Stored parameters (and so which stored indexes open) do not depend on them."""
    stored = Params().to_dict()
    names = {f.name for f in dataclasses.fields(Defaults)}
    flat = set(stored) | set(stored["processor"])
    assert not names & flat
    assert Params.from_dict(stored) == Params()


def test_the_defaults_module_imports_nothing_of_neardup() -> None:
    """A leaf: every step can read it without an import cycle."""
    import neardup.defaults as mod

    tree = ast.parse(Path(mod.__file__ or "").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("neardup"), node.module
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("neardup") for a in node.names)
