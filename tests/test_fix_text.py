"""Mojibake repair (issue 27): an opt-in parameter (ftfy) of normalization, stored with the
index; off, text is compared as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from neardup import NearDupIndex, Params

from .conftest import run_cli

pytest.importorskip("ftfy")

RIGHT = "Café Müller, 12 Rue de la Paix, Genève"
BROKEN = RIGHT.encode("utf-8").decode("latin-1")  # 'CafÃ© MÃ¼ller ... GenÃ¨ve'


def test_repair_is_opt_in_and_stored() -> None:
    assert "Ã©" in BROKEN
    plain, fixed = Params().processor(), Params(fix_text=True).processor()
    assert plain.normalize(BROKEN) != plain.normalize(RIGHT)
    assert fixed.normalize(BROKEN) == fixed.normalize(RIGHT) == plain.normalize(RIGHT)
    assert fixed.prepare(BROKEN) == fixed.prepare(RIGHT)
    stored = Params(fix_text=True).to_dict()
    assert Params.from_dict(stored).fix_text and stored["processor"]["repair"] == "ftfy.fix_text"
    assert "repair" not in Params().to_dict()["processor"]  # indexes without it are unchanged
    for fix, expected in ((False, False), (True, True)):
        index = NearDupIndex(Params(shingle_kind="char", shingle_size=3, threshold=0.9,
                                    fix_text=fix))
        index.add_many([("1", RIGHT), ("2", BROKEN)])
        assert bool(index.pairs()) is expected
        if fix:
            assert index.pairs()[0].jaccard == 1.0


def test_cli_fix_text(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text(f"1 {RIGHT}\n2 {BROKEN}\n3 something else\n")
    out = tmp_path / "o.txt"
    args = ("dedupe", str(path), "--out", str(out), "--backend", "memory", "--threshold", "0.9")
    assert run_cli(*args).returncode == 0
    assert len(out.read_text().splitlines()) == 3
    assert run_cli(*args, "--fix-text").returncode == 0
    assert out.read_text().splitlines() == [f"1 {RIGHT}", "3 something else"]
