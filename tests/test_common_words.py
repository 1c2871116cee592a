"""neardup.decision.common_words: documents alike by the words many records hold, and by
nothing else (a brand's boilerplate), are not copies (hostile sweep hx29, finding 1)."""

from __future__ import annotations

import random
from pathlib import Path

from neardup import NearDupIndex, Params
from neardup.choose import choose
from neardup.decision.common_words import common_alone
from neardup.results import Pair

from .conftest import run_cli

BRANDS = ["Nordvik", "Caldera", "Hexon", "Brightwell", "Solano", "Kestrel"]
KINDS = ["Kettle", "Toaster", "Blender", "Desk Lamp", "Backpack", "Water Bottle", "Headphones"]
FEATS = ["easy to clean", "dishwasher safe", "made from recycled materials", "lightweight",
         "ergonomic grip", "soft-touch finish", "energy efficient", "whisper quiet",
         "compact footprint", "long battery life", "BPA free", "two speed settings"]  # fmt: skip


def _boiler(brand: str) -> str:
    return (f"Free shipping on all {brand} orders over $50. 30-day returns, no questions asked. "
            f"Every {brand} product is backed by our two-year warranty and tested in our own "
            "lab. Questions? Our customer care team answers within one business day. "
            f"{brand} is committed to sustainable packaging: all boxes are recyclable. Join the "
            f"{brand} club for exclusive offers and early access to new collections.")  # fmt: skip


def shop(products: int = 240, seed: int = 1) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """A catalogue whose descriptions end in their brand's boilerplate; a tenth of the products
    listed twice (the copy marked new, on sale): the rows, and the true pairs."""
    rnd = random.Random(seed)
    rows: list[tuple[str, str]] = []
    copies: set[tuple[str, str]] = set()
    for n in range(products):
        brand, kind = rnd.choice(BRANDS), rnd.choice(KINDS)
        sku = f"{brand[:3].upper()}-{rnd.randint(10000, 99999)}"
        text = (f"{brand} {kind} {n} {sku} {rnd.randint(10, 99)}.99 The {kind} {n}: "
                f"{', '.join(rnd.sample(FEATS, 3))}. {_boiler(brand)}")  # fmt: skip
        rows.append((f"p{n}", text))
        if n % 10 == 0:
            rows.append((f"q{n}", "SALE! " + text.replace(f"{kind} {n}", f"{kind} {n} (New)")))
            copies.add((f"p{n}", f"q{n}"))
    return rows, copies


def test_products_that_share_a_brand_s_boilerplate_are_not_copies() -> None:
    """Long descriptions make them documents (word 1-grams at Jaccard 0.65): every product of a
    brand passed that bar with every other, and dedupe kept a handful of rows."""
    rows, copies = shop()
    index = NearDupIndex()
    index.add_many(rows)
    assert index.params.rule == "documents"
    report = index.report()
    assert {(p.id1, p.id2) for p in report.pairs} == copies
    assert len(report.dropped["common_words"]) > 1000
    assert report.rule is not None and report.rule["common_words"]["made"]
    # a fixed bar, as a user gives it, stays the bar it names
    fixed = NearDupIndex(Params(shingle_kind="word", shingle_size=1, threshold=0.65))
    fixed.add_many(rows)
    assert len(fixed.report().pairs) > 1000


def test_copies_among_a_few_documents_are_kept() -> None:
    """Among a handful of records every shared word looks common: not judged there."""
    text = " ".join(f"word{i}" for i in range(60))
    pairs = [Pair("a", "b", 0.8, 3)]
    texts = {"a": text, "b": text.replace("word7 ", "")}
    kept, found = common_alone(pairs, texts, Params(shingle_kind="word").processor())
    assert kept == pairs and not found["made"]
    index = NearDupIndex()
    index.add_many([("a", texts["a"]), ("b", texts["b"]), ("c", "something else " * 30)])
    assert [(p.id1, p.id2) for p in index.report().pairs] == [("a", "b")]


def test_the_choice_and_the_words_say_it(tmp_path: Path) -> None:
    assert choose(["word " * 300]).params.rule == "documents"
    rows, _ = shop(120)
    data = tmp_path / "shop.tsv"
    data.write_text("".join(f"{i}\t{t}\n" for i, t in rows))
    said = run_cli("dedupe", str(data), "--out", str(tmp_path / "o.tsv"), "--backend", "memory",
                   "-v")  # fmt: skip
    assert said.returncode == 0, said.stderr
    out = said.stdout + said.stderr
    assert "Jaccard >= 0.65 less pairs alike by common words alone" in out
    assert "pairs dropped that share little but words many records hold" in out
