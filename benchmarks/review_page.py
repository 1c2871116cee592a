"""The review page at scale: its size and how fast it loads and answers in a real browser.

``python -m benchmarks.review_page --pairs 100000`` writes the review page of a seeded synthetic
report (record-like texts of 6-14 words, clusters of 2-5 records, each cluster's pairs at
Jaccard >= 0.5), opens it in headless Chromium and prints its size, the time until the first
page of pairs is drawn, and the time of a similarity filter, a text search and a page turn. The
browser test (``tests/test_review.py``) runs the same measurement.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from itertools import combinations
from pathlib import Path
from typing import Any

from neardup.out.review import Page, write_review
from neardup.results import Pair, Report
from neardup.sign.text import jaccard, word_edit_distance

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)


def chromium_paths() -> tuple[str | None, str | None]:
    """Debian's chromium and chromium-driver (``apt-get install chromium chromium-driver``)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return browser, driver


def chromium(profile: Path, downloads: Path | None = None) -> Any:
    """A headless Chromium driven by selenium, with a fresh profile in ``profile``, started
    from the system's binaries (selenium is never asked to download a browser or a driver);
    what a page downloads goes to ``downloads`` without a prompt, when given."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = chromium_paths()
    if browser is None or driver is None:
        raise RuntimeError("chromium and chromedriver are needed (Debian: chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's console
    if downloads is not None:
        options.add_experimental_option("prefs", {
            "download.default_directory": str(downloads),
            "download.prompt_for_download": False,
        })
    return webdriver.Chrome(service=Service(driver), options=options)


def synthetic(n_pairs: int, seed: int = 7) -> tuple[Report, dict[str, str]]:
    """A report of ``n_pairs`` pairs over record-like texts, and the texts."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(5000)]
    texts: dict[str, str] = {}
    pairs: list[Pair] = []
    while len(pairs) < n_pairs:
        base = [rng.choice(vocab) for _ in range(rng.randint(6, 14))]
        members: list[tuple[str, list[str]]] = []
        for k in range(rng.choice((2, 2, 2, 2, 3, 3, 4, 5))):
            words = list(base)
            for _ in range(rng.randint(1, 3) if k else 0):
                at = rng.randrange(len(words))
                if rng.random() < 0.5:
                    words[at] = rng.choice(vocab)
                else:
                    words.insert(at, rng.choice(vocab))
            record_id = str(len(texts))
            texts[record_id] = " ".join(words)
            members.append((record_id, words))
        for (a, wa), (b, wb) in combinations(members, 2):
            sim = jaccard(wa, wb)
            if sim >= 0.5:
                pairs.append(Pair(a, b, round(sim, 6), word_edit_distance(wa, wb)))
    pairs = pairs[:n_pairs]
    report = Report(pairs=pairs, records=len(texts), verified=len(pairs),
                    confirmed=len(pairs), threshold=0.5)
    return report, texts


def write(out: Path, n_pairs: int) -> tuple[Page, Report, dict[str, str], float]:
    report, texts = synthetic(n_pairs)
    start = time.perf_counter()
    page = write_review(out, report, texts, title=f"{n_pairs:,} synthetic pairs")
    return page, report, texts, time.perf_counter() - start


_SEARCH = """
const [query, done] = [arguments[0], arguments[arguments.length - 1]];
const status = document.getElementById("nd-status"), before = status.textContent;
const box = document.getElementById("nd-search"), t0 = performance.now();
new MutationObserver(function (_, obs) {
  obs.disconnect(); done(performance.now() - t0 - 150);  // minus the typing debounce
}).observe(status, {childList: true, characterData: true, subtree: true});
box.value = query; box.dispatchEvent(new Event("input"));
"""


def measure(driver: Any, page: Path, query: str) -> dict[str, float]:
    """Milliseconds: load until the first page is drawn, a similarity filter, a search, a
    page turn; and the JavaScript heap after loading (MB)."""
    from selenium.webdriver.support.ui import WebDriverWait

    start = time.perf_counter()
    driver.get(page.resolve().as_uri())
    WebDriverWait(driver, 120).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-ready')") == "1"
    )
    wall = (time.perf_counter() - start) * 1000
    figures = driver.execute_script(
        """
        const out = {ready: window.ndReady};
        const heap = performance.memory ? performance.memory.usedJSHeapSize : 0;
        out.heap_mb = heap / 1048576;
        let t = performance.now(), box = document.getElementById("nd-min");
        box.value = "0.8"; box.dispatchEvent(new Event("input"));
        out.filter = performance.now() - t;
        box.value = ""; box.dispatchEvent(new Event("input"));
        t = performance.now(); document.getElementById("nd-next").click();
        out.next_page = performance.now() - t;
        return out;
        """
    )
    figures["search"] = driver.execute_async_script(_SEARCH, query)
    figures["load_wall"] = wall
    return {k: round(float(v), 1) for k, v in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=Path("out/review_page"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"review_{args.pairs}.html"
    page, _report, texts, seconds = write(path, args.pairs)
    with tempfile.TemporaryDirectory() as profile:
        driver = chromium(Path(profile))
        try:
            figures = measure(driver, path, texts["0"].split()[0])
        finally:
            driver.quit()
    result = {"pairs": page.pairs, "clusters": page.clusters, "bytes": page.bytes,
              "write_seconds": round(seconds, 2), "browser_ms": figures}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
