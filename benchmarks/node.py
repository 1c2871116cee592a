"""The benchmark's machine side: the Solr node it measures against, the process's memory and
phases, the environment a run records, and its log line (:func:`say`)."""

from __future__ import annotations

import gc
import os
import platform
import resource
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from benchmarks.proc import status_mb
from neardup.backends.solr import SolrBackend
from neardup.index import NearDupIndex
from neardup.params import Params
from neardup.solr.admin import connect, delete_collection
from neardup.solr.admin import version as solr_version_of
from neardup.solr.client import Solr, split_url

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
BENCH_HOME = REPO / ".neardup" / "bench"

T0 = time.perf_counter()


def say(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f}s] {msg}", flush=True)


# -- memory ------------------------------------------------------------------------------------


def rss_mb() -> float:
    v = status_mb("VmRSS")
    return v if v is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


@contextmanager
def phase(out: dict[str, Any]) -> Iterator[None]:
    """Record wall time and the process's peak RSS (VmHWM) during the block into ``out``."""
    gc.collect()
    exact = _reset_peak()
    before = rss_mb()
    start = time.perf_counter()
    cpu0 = time.process_time()
    yield
    out.setdefault("seconds", round(time.perf_counter() - start, 3))
    out["cpu_seconds"] = round(time.process_time() - cpu0, 3)
    peak = status_mb("VmHWM") if exact else None
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    out["peak_rss_mb"] = round(peak, 1)
    out["rss_before_mb"] = round(before, 1)
    out["peak_is_per_phase"] = exact


# -- environment -------------------------------------------------------------------------------


def environment(solr: Solr | None, heap: str | None) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    def ver(pkg: str) -> str | None:
        try:
            return version(pkg)
        except PackageNotFoundError:
            return None

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    solr_version = None
    if solr is not None:
        try:
            solr_version = solr_version_of(solr)
        except Exception:
            solr_version = None

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    dirty = [ln[3:] for ln in git("status", "--porcelain", "neardup").splitlines()]
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gib": ram,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "datasketch": ver("datasketch"),
        "rensa": ver("rensa"),
        "mmh3": ver("mmh3"),
        "neardup": ver("neardup"),
        "solr": solr_version,
        "solr_heap": heap or "1g (default)",
        "git_commit": git("rev-parse", "--short", "HEAD"),
        "neardup_uncommitted_files": dirty,
        "load_average_at_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


# -- Solr --------------------------------------------------------------------------------------


class SolrNode:
    """The Solr at ``url`` if given, else the private bench node (with ``heap``; stopped at the
    end if started here). ``main`` reads the environment; nothing below it does."""

    def __init__(self, url: str | None, heap: str | None) -> None:
        self.node: Any = None
        self.started = False
        if url:
            self.base = split_url(url)[0]
            self.external = True
            say(f"Solr: {self.base} (NEARDUP_SOLR_URL)")
            return
        from neardup.solr.local import LocalSolr

        self.external = False
        t = time.perf_counter()
        self.node = LocalSolr(home=BENCH_HOME, heap=heap)
        self.started = self.node.running() is None
        state = self.node.start()
        self.node.refresh_configset()  # a reused node may hold an older configset
        self.start_seconds = round(time.perf_counter() - t, 1)
        say(
            f"Solr: {state.url} ({'started' if self.started else 'reused'} in "
            f"{self.start_seconds} s, home {BENCH_HOME})"
        )
        # The node's own credentials in the URL every client of the benchmark is given (never
        # printed: neardup's messages redact it, and run_neardup_solr hands them over by the
        # environment, not the command line).
        auth = self.node.client_auth(state)
        userinfo = f"{auth.user}:{quote(auth.password, safe='')}@" if auth else ""
        self.base = state.url.replace("://", f"://{userinfo}", 1)
        self._drop_stale()

    def _drop_stale(self) -> None:
        """Cores ``bench_*`` left behind by an interrupted run of the private node."""
        probe = Solr(self.base, "bench_probe")
        try:
            st = probe.request("GET", "admin/cores", params={"action": "STATUS"}, core=False)
        except Exception:
            return
        for name in st.get("status", {}):
            if name.startswith("bench_"):
                say(f"removing stale core {name}")
                delete_collection(Solr(self.base, name))

    def collection(self, name: str) -> Solr:
        solr = connect(self.base, name)
        if solr.count() > 0:  # a leftover of an interrupted run (its parameters document too)
            solr.delete_query("*:*")
            solr.commit()
        return solr

    def index(self, name: str, params: Params) -> NearDupIndex:
        """A new, empty index with ``params`` in the collection ``name``."""
        return NearDupIndex(params, backend=SolrBackend(self.collection(name)))

    @property
    def pid(self) -> int | None:
        """The local node's JVM (None for a Solr at ``NEARDUP_SOLR_URL``)."""
        state = self.node.state() if self.node is not None else None
        return state.pid if state is not None else None

    def stop(self) -> None:
        if self.node is not None and self.started:
            self.node.stop()
            say("Solr node stopped")


def index_size_bytes(solr: Solr) -> int | None:
    try:
        st = solr.request(
            "GET", "admin/cores", params={"action": "STATUS", "core": solr.collection}, core=False
        )
        return int(st["status"][solr.collection]["index"]["sizeInBytes"])
    except Exception:  # SolrCloud names cores differently
        return None


def solr_of(index: NearDupIndex) -> Solr:
    """The Solr client under a Solr-backed index."""
    backend = index.backend
    assert isinstance(backend, SolrBackend)
    return backend.solr
