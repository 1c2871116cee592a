"""Files that are not UTF-8 are read in the encoding their bytes read as (hostile sweep hx22,
finding 1): a Russian CSV from Excel (Windows-1251) was read as Windows-1252, and accent folding
made six Cyrillic letters one ``a``; Western files read as Windows-1252 as before."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from neardup import NotUtf8, Record, read_records
from neardup.read.pair_files import read_pairs_file

RUSSIAN = [
    "Иванов Сергей Петрович, ул. Ленина 5", "Смирнова Анна Ивановна, Москва",
    "Кузнецов Дмитрий Ильич, Тверь", "Фёдоров Глеб Олегович, Санкт-Петербург",
    "Попов Дмитрий Ильич, ул. Мира 12", "Васильева Ольга Юрьевна, Казань",
]  # fmt: skip
WESTERN = [
    "Crème brûlée à la française", "Café de la Gare, “chez Zoé”", "Müller GmbH, Straße 5, Köln",
    "José Núñez, Peña — año", "Hôtel Élysée, 5 rue de l'Église", "Bäckerei Schäfer, 10 €",
]  # fmt: skip


def _read(path: Path) -> tuple[list[tuple[str, str]], list[NotUtf8]]:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        items = list(read_records(path))
    notes = [w.message for w in said if isinstance(w.message, NotUtf8)]
    return [(r.id, r.text) for r in items if isinstance(r, Record)], notes


def _csv(path: Path, texts: list[str], encoding: str) -> Path:
    rows = "".join(f'{i},"{t}"\r\n' for i, t in enumerate(texts, start=1))
    path.write_bytes(("id,name\r\n" + rows).encode(encoding))
    return path


@pytest.mark.parametrize("encoding", ["cp1251", "koi8-r"])
def test_a_cyrillic_file_is_read_in_its_encoding(tmp_path: Path, encoding: str) -> None:
    records, notes = _read(_csv(tmp_path / "people.csv", RUSSIAN, encoding))
    assert records == [(str(i), t) for i, t in enumerate(RUSSIAN, start=1)]
    (note,) = notes
    assert note.line == 2 and note.encoding != "Windows-1252 (cp1252)"
    assert "people.csv:2: not UTF-8 at column 4: read as " in str(note)
    assert "iconv -f ENCODING -t UTF-8" in str(note)


def test_windows_1251_is_named_in_the_note(tmp_path: Path) -> None:
    _, (note,) = _read(_csv(tmp_path / "people.csv", RUSSIAN, "cp1251"))
    assert "read as Windows-1251 (cp1251), the encoding its bytes read as" in str(note)


def test_a_western_file_is_still_read_as_windows_1252(tmp_path: Path) -> None:
    """charset-normalizer ranks Windows-1250 or Mac Latin 2 first for some French and Spanish
    samples: Windows-1252 is kept whenever it reads the sample plausibly."""
    for n in (1, 3, 6):
        records, (note,) = _read(_csv(tmp_path / f"shops{n}.csv", WESTERN[:n], "cp1252"))
        assert records == [(str(i), t) for i, t in enumerate(WESTERN[:n], start=1)]
        assert note.encoding == "Windows-1252 (cp1252)"
        assert "read as Windows-1252 (cp1252), as is any such byte" in str(note)
    big = WESTERN * 400  # a sample of 64 KB: charset-normalizer's first was Mac Latin 2
    records, _ = _read(_csv(tmp_path / "big.csv", big, "cp1252"))
    assert [t for _, t in records] == big


def test_a_utf8_file_with_a_broken_byte_keeps_its_utf8(tmp_path: Path) -> None:
    """A sample mostly valid UTF-8 is a UTF-8 file with broken bytes, not a code page's."""
    lines = [f'{i},"{t}"' for i, t in enumerate(RUSSIAN, start=1)]
    data = ("id,name\n" + "\n".join(lines) + "\n").encode()
    data = data.replace("Тверь".encode(), b"Tver\xff")
    records, (note,) = _read(_write(tmp_path / "mixed.csv", data))
    assert records[2] == ("3", "Кузнецов Дмитрий Ильич, Tver\xff")
    assert records[0] == ("1", RUSSIAN[0]) and note.encoding == "Windows-1252 (cp1252)"


def test_the_lines_read_ahead_for_the_sample_keep_their_order_and_numbers(
    tmp_path: Path,
) -> None:
    texts = ["plain ascii line"] * 3 + RUSSIAN * 50
    records, (note,) = _read(_csv(tmp_path / "late.csv", texts, "cp1251"))
    assert records == [(str(i), t) for i, t in enumerate(texts, start=1)]
    assert note.line == 5


def test_a_pairs_file_is_read_in_its_encoding(tmp_path: Path) -> None:
    """Surnames as ids: charset-normalizer ranked Mac Cyrillic first (its capitals are
    elsewhere); Windows' code pages come first."""
    names = "Иванов Смирнов Кузнецов Попов Васильев Петров Соколов Михайлов Новиков Фёдоров"
    gold = tmp_path / "gold.csv"
    rows = "".join(f"{n}-1,{n}-2\n" for n in names.split())
    gold.write_bytes(("id1,id2\n" + rows).encode("cp1251"))
    with pytest.warns(NotUtf8, match=r"read as Windows-1251 \(cp1251\)"):
        pairs = read_pairs_file(str(gold))
    assert pairs.pairs[0] == (("", "Иванов-1"), ("", "Иванов-2"))


def test_too_little_to_tell_is_read_as_before() -> None:
    from neardup.read.lines import legacy_encoding

    assert legacy_encoding("Zoé".encode("cp1252")) == "cp1252"
    assert legacy_encoding("Иван".encode("cp1251")) == "cp1252"  # one word: no confidence


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
