"""Two shops: a linking scenario generated from a seed, for the tests and the accuracy suite.

Why generated: the catalogue pairs users bring are not ours to ship, and the hard parts of
them can be planted on purpose. Both shops number their rows from 1, name their columns
differently (``title``/``product_name``, ``brand``/``maker``, ``price``/``cost_eur``), write
model numbers two ways ("RL-1299" in one, "RL1299", "RL 1299" or "rl-1299" in the other), and
differ in prices; the first shop also holds a close sibling of a third of its products (the
same brand and kind, the next model number), so that a link on words alone is not enough.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

BRANDS = ("Bosch", "Philips", "Sony", "Canon", "Makita", "Braun", "Siemens", "Nikon", "Lenovo",
          "Dell", "Samsung", "Panasonic")  # fmt: skip
KINDS = (
    ("cordless drill", "18V battery pack"), ("digital camera", "20MP zoom lens"),
    ("electric shaver", "wet and dry"), ("monitor", "27in full HD"),
    ("laptop", "14in 16GB RAM"), ("coffee maker", "12 cup programmable"),
    ("vacuum cleaner", "bagless cyclone"), ("headphones", "noise cancelling wireless"),
    ("toaster", "4 slice stainless"), ("blender", "1000W glass jar"),
    ("hair dryer", "ionic 2000W"), ("printer", "laser duplex"),
)  # fmt: skip
COLORS = ("black", "white", "silver", "red", "blue", "grey")
LETTERS = "ABCDEFGHKLMNPRSTVX"

Product = tuple[str, str, str, str, int, str, float]
Row = dict[str, str]


def _product(rng: random.Random) -> Product:
    kind, spec = rng.choice(KINDS)
    prefix = "".join(rng.choices(LETTERS, k=rng.randint(2, 3)))
    return (rng.choice(BRANDS), kind, spec, prefix, rng.randint(100, 9999), rng.choice(COLORS),
            round(rng.uniform(20, 900), 2))  # fmt: skip


def two_shops(n: int = 300, seed: int = 11) -> tuple[list[Row], list[Row], set[tuple[str, str]]]:
    """The rows of shop A (``id,title,brand,price``), of shop B
    (``id,product_name,maker,cost_eur``) and the true links as (A's id, B's id)."""
    rng = random.Random(seed)
    products = [_product(rng) for _ in range(n)]
    a_items = list(products)
    for brand, kind, spec, prefix, num, _color, price in products[: n // 3]:  # siblings
        sibling = (brand, kind, spec, prefix, num + 1, rng.choice(COLORS), round(price * 1.1, 2))
        a_items.append(sibling)
    rng.shuffle(a_items)
    b_items = products[: int(n * 0.85)] + [_product(rng) for _ in range(n // 5)]
    rng.shuffle(b_items)
    a_id = {item: str(k) for k, item in enumerate(a_items, start=1)}
    b_id = {item: str(k) for k, item in enumerate(b_items, start=1)}
    shop_a = [
        {"id": k, "title": f"{brand.upper()} {kind.title()} {prefix}-{num} {spec}, {color}",
         "brand": brand, "price": f"{price:.2f}"}
        for (brand, kind, spec, prefix, num, color, price), k in a_id.items()
    ]  # fmt: skip
    shop_b = []
    for (brand, kind, _spec, prefix, num, color, price), k in b_id.items():
        style = rng.random()
        model = (f"{prefix}{num}" if style < 0.4 else f"{prefix} {num}" if style < 0.7
                 else f"{prefix.lower()}-{num}")  # fmt: skip
        shop_b.append({"id": k, "product_name": f"{brand} {model} {kind} ({color})",
                       "maker": brand.lower(), "cost_eur": f"{price * 0.92:.2f}"})  # fmt: skip
    gold = {(a_id[p], b_id[p]) for p in products if p in a_id and p in b_id}
    return shop_a, shop_b, gold


def write_shops(folder: Path, n: int = 300, seed: int = 11) -> tuple[Path, Path, Path]:
    """``a.csv``, ``b.csv`` and ``gold.tsv`` (``id1 id2``, A's id first) in ``folder``."""
    shop_a, shop_b, gold = two_shops(n, seed)
    paths = folder / "a.csv", folder / "b.csv", folder / "gold.tsv"
    for path, rows in zip(paths, (shop_a, shop_b), strict=False):
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    paths[2].write_text("id1\tid2\n" + "".join(f"{a}\t{b}\n" for a, b in sorted(gold)),
                        encoding="utf-8")  # fmt: skip
    return paths
