"""End to end: a text file in, verified pairs out, each library the way a user runs it.

    python -m benchmarks.end_to_end --sizes 10000 [--out PATH]   # this part alone
    python -m benchmarks.run --mode full                          # as part of the benchmark

The corpus (``benchmarks/corpus.py``) is written to a text file of ``ID TEXT`` lines first,
outside the timed region. Then each method runs as its own process(es), one after the other,
each writing the verified pairs to a TSV file (``neardup.out.write.write_pairs``: ``id1 id2 jaccard
edit_distance``), which is scored against the corpus's exact truth. Every method gets the same
parameters: word 3-gram shingles (``--kind``/``--size``) of the canonical text, 128 MinHash
permutations, Jaccard threshold t (0.8 by default).

- ``neardup_solr``: the CLI, two processes, ``neardup index FILE --format lines --solr-url URL
  --collection bench_e2e_N --shingle-kind word --shingle-size 3 --threshold t --rule threshold``
  into a new collection (created by the command, as for a user), then ``neardup report
  --solr-url URL --collection bench_e2e_N --out pairs.tsv``. "index + report" is the sum of the
  two; "report alone" is the second process, on the index the first one left.
- ``neardup_memory``: the library in memory, one process: ``read_records(FILE, "lines")``,
  ``NearDupIndex(Params(shingle_kind, shingle_size, threshold, rule="threshold"))``,
  ``add_many``, ``report()``, ``write_pairs``.
- ``datasketch``: one process: read the lines, shingle each text with neardup's shingler (the
  same sets: the corpus is in canonical form already, so normalizing is enough), ``MinHash.bulk``
  (128 permutations, ``hashfunc`` = 32-bit MurmurHash3 from ``mmh3``, the fast hash its docs
  recommend instead of its SHA-1 default), ``MinHashLSH(threshold=t, num_perm=128)`` with its
  default bands, ``insert`` every MinHash, ``query`` every MinHash, verify the candidate pairs
  with ``neardup.candidates.verify.verify`` (exact Jaccard of the shingle sets: the function
  neardup's report and ``benchmarks/measure.py`` verify with), ``write_pairs``.
- ``rensa``: the same with ``RMinHash.from_token_sets(sets, 128, seed=42)`` (rensa hashes the
  ``str`` shingles itself) and ``RMinHashLSH(threshold=t, num_perm=128, num_bands=16)``:
  rensa requires the bands to divide the permutations, and 16 x 8 is the divisor of 128 whose
  S-curve is nearest neardup's 21 x 6 at t = 0.8 (probability that a pair at J = 0.8 becomes a
  candidate: 0.947; 8 x 16 gives 0.20). ``insert_pairs`` all, ``query_all``, then the same
  verification and writer.

Measured for each process (it is started by a small Python launcher that times it and collects
it with ``os.wait4``): wall time from start to exit (interpreter start and imports included),
CPU time (user + system, all threads) and peak RSS (``ru_maxrss``). The launcher is what makes
the peak the process's own: a child's ``ru_maxrss`` starts from the resident size of the process
that spawned it (Linux carries it across ``exec``), about 10 MB for the launcher instead of the
benchmark's corpus. The peer processes import ``neardup.candidates.verify`` for the verification
(about 26 MB of RSS, numpy included); each reports its RSS after its imports. For neardup in Solr,
Solr's CPU time during each command (``utime + stime`` of the JVM from ``/proc/PID/stat``) and its
peak RSS (``VmHWM``, reset before each command through ``/proc/PID/clear_refs``) are recorded too,
when the benchmark runs the local node (with ``NEARDUP_SOLR_URL`` there is no pid to read).
recall = reported true pairs / truth pairs, precision = reported true pairs / reported pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.proc import status_mb

REPO = Path(__file__).resolve().parents[1]
NUM_PERM = 128
#: rensa's ``RMinHashLSH`` needs ``num_perm % num_bands == 0``: 16 bands of 8 rows (see above).
RENSA_BANDS = 16
PEERS = ("neardup_solr", "neardup_memory", "datasketch", "rensa")


# -- the children: one process per method, imports included ------------------------------------


def mmh3_32(token: str | bytes) -> int:
    """datasketch's ``hashfunc``: unsigned 32-bit MurmurHash3, seed 42."""
    import mmh3

    return mmh3.hash(token, 42, signed=False)


def read_lines(path: str) -> tuple[list[str], list[str]]:
    """Ids and texts of an ``ID TEXT`` file, as a user of a MinHash library reads it."""
    ids: list[str] = []
    texts: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            i, _, text = line.rstrip("\n").partition(" ")
            ids.append(i)
            texts.append(text)
    return ids, texts


def _verify_and_write(
    cands: set[tuple[str, str]], ids: list[str], texts: list[str], cfg: Any, t: float, out: str
) -> int:
    from neardup.candidates.verify import verify
    from neardup.out.write import write_pairs

    content = dict(zip(ids, texts, strict=True))
    pairs = verify(cands, content, cfg.processor(), t, progress=False)
    return write_pairs(pairs, out)


def _peer(kind: str, path: str, out: str, cfg: Any) -> dict[str, Any]:
    """datasketch or rensa: read, shingle, MinHash, LSH insert and query, verify, write."""
    from neardup.keys import id_key

    t = cfg.threshold
    proc = cfg.replace(canonical=False).processor()  # the texts are canonical: same sets
    marks = [("start", time.perf_counter())]
    ids, texts = read_lines(path)
    marks.append(("read", time.perf_counter()))
    sets = [proc.shingle_set(x) for x in texts]
    marks.append(("shingle", time.perf_counter()))
    cands: set[tuple[str, str]] = set()
    info: dict[str, Any] = {}
    if kind == "datasketch":
        from datasketch import MinHash, MinHashLSH

        sigs = MinHash.bulk(sets, num_perm=NUM_PERM, hashfunc=mmh3_32)
        del sets
        marks.append(("minhash", time.perf_counter()))
        lsh = MinHashLSH(threshold=t, num_perm=NUM_PERM)
        for i, m in zip(ids, sigs, strict=True):
            lsh.insert(i, m)
        marks.append(("lsh_insert", time.perf_counter()))
        for i, m in zip(ids, sigs, strict=True):
            ki = id_key(i)
            for o in lsh.query(m):
                if o != i:
                    cands.add((i, o) if ki < id_key(o) else (o, i))
        info.update(bands=lsh.b, rows=lsh.r)
    else:
        from rensa import RMinHash, RMinHashLSH

        sigs = RMinHash.from_token_sets(sets, NUM_PERM, 42)
        del sets
        marks.append(("minhash", time.perf_counter()))
        lsh = RMinHashLSH(t, NUM_PERM, RENSA_BANDS)
        lsh.insert_pairs(enumerate(sigs))
        marks.append(("lsh_insert", time.perf_counter()))
        for i, found in enumerate(lsh.query_all(sigs)):
            for j in found:
                if j != i:
                    a, b = ids[i], ids[j]
                    cands.add((a, b) if id_key(a) < id_key(b) else (b, a))
        info.update(bands=lsh.get_num_bands(), rows=NUM_PERM // lsh.get_num_bands())
    marks.append(("lsh_query", time.perf_counter()))
    del lsh, sigs
    info["pairs"] = _verify_and_write(cands, ids, texts, cfg, t, out)
    marks.append(("verify_and_write", time.perf_counter()))
    info["candidates"] = len(cands)
    info["phases"] = {b[0]: round(b[1] - a[1], 3) for a, b in zip(marks, marks[1:], strict=False)}
    return info


def _memory(path: str, out: str, cfg: Any) -> dict[str, Any]:
    """neardup's library in memory: read_records + NearDupIndex + add_many + report."""
    from neardup import NearDupIndex, read_records
    from neardup.out.write import write_pairs

    t0 = time.perf_counter()
    index = NearDupIndex() if cfg is None else NearDupIndex(cfg)
    stats = index.add_many(read_records(path, "lines"))
    t1 = time.perf_counter()
    rep = index.report()
    t2 = time.perf_counter()
    n = write_pairs(rep.pairs, out)
    t3 = time.perf_counter()
    return {
        "pairs": n,
        "indexed": stats.indexed,
        "candidates": rep.candidates,
        "bands": index.params.bands,
        "rows": index.params.rows,
        "params": index.params.describe(),
        "phases": {"read_and_index": round(t1 - t0, 3), "report": round(t2 - t1, 3),
                   "write": round(t3 - t2, 3),
                   **{f"report.{k}": round(v, 3) for k, v in rep.timings.items()}},
    }  # fmt: skip


def child_main(argv: list[str]) -> int:
    """``python -m benchmarks.end_to_end peer KIND FILE OUT --threshold T --kind K --size S``:
    one method in this process; what it reports about itself goes to ``OUT.json``."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.end_to_end peer")
    ap.add_argument("kind", choices=["neardup_memory", "datasketch", "rensa"])
    ap.add_argument("file")
    ap.add_argument("out")
    ap.add_argument("--threshold", type=float, required=True)
    ap.add_argument("--kind", dest="shingle_kind", required=True)
    ap.add_argument("--size", dest="shingle_size", type=int, required=True)
    ap.add_argument("--defaults", action="store_true",
                    help="neardup_memory: NearDupIndex() as a user makes it (parameters chosen "
                         "from the data), not the parameters above")  # fmt: skip
    a = ap.parse_args(argv)
    import neardup.candidates.verify  # noqa: F401  (every method verifies with it)
    from neardup.params import Params

    if a.kind == "datasketch":
        import datasketch  # noqa: F401  (imports first, so that the RSS after them is its own)
    elif a.kind == "rensa":
        import rensa  # noqa: F401
    imported = status_mb("VmRSS")
    cfg = Params(threshold=a.threshold, shingle_kind=a.shingle_kind,
                 shingle_size=a.shingle_size, rule="threshold")  # fmt: skip
    if a.kind == "neardup_memory":
        info = _memory(a.file, a.out, None if a.defaults else cfg)
    else:
        info = _peer(a.kind, a.file, a.out, cfg)
    info["rss_after_imports_mb"] = None if imported is None else round(imported, 1)
    info["own_vmhwm_mb"] = status_mb("VmHWM")
    Path(a.out + ".json").write_text(json.dumps(info), encoding="utf-8")
    return 0


# -- measuring a process -----------------------------------------------------------------------

#: Runs the command given as JSON, its output to a log file; prints wall, CPU and peak RSS.
LAUNCHER = """\
import json, os, sys, time
cmd, log = json.loads(sys.argv[1]), sys.argv[2]
fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
hwm = [ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM:')]
t = time.perf_counter()
pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                      file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)])
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t
print(json.dumps({'wall_s': wall, 'user_s': ru.ru_utime, 'sys_s': ru.ru_stime,
                  'maxrss_kb': ru.ru_maxrss, 'code': os.waitstatus_to_exitcode(status),
                  'launcher_hwm_kb': int(hwm[0]) if hwm else None}))
"""


class SolrProcess:
    """CPU time and peak RSS of the local Solr JVM (pid known), or nothing (pid None)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def cpu_s(self) -> float | None:
        if self.pid is None:
            return None
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / self.tick  # utime, stime

    def reset_peak(self) -> bool:
        if self.pid is None:
            return False
        try:
            Path(f"/proc/{self.pid}/clear_refs").write_text("5")
            return True
        except OSError:
            return False

    def peak_mb(self) -> float | None:
        return None if self.pid is None else status_mb("VmHWM", self.pid)

    def rss_mb(self) -> float | None:
        return None if self.pid is None else status_mb("VmRSS", self.pid)


def measure(
    cmd: list[str], log: Path, solr: SolrProcess | None = None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run ``cmd`` to its end under the launcher (with ``env``, else this process's
    environment): wall s, CPU s, peak RSS MB (and Solr's)."""
    out: dict[str, Any] = {}
    if solr is not None and solr.pid is not None:
        out["solr_peak_is_per_command"] = solr.reset_peak()
        out["solr_rss_before_mb"] = _round(solr.rss_mb())
        cpu0 = solr.cpu_s()
    res = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCHER, json.dumps(cmd), str(log)],
        cwd=REPO, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    if res.returncode != 0:
        raise RuntimeError(f"launcher failed: {res.stderr.strip()}")
    m = json.loads(res.stdout)
    if m["code"] != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"{' '.join(cmd)} exited with {m['code']}:\n{tail}")
    out.update({
        "wall_s": round(m["wall_s"], 3), "cpu_s": round(m["user_s"] + m["sys_s"], 3),
        "user_s": round(m["user_s"], 3), "sys_s": round(m["sys_s"], 3),
        "peak_rss_mb": round(m["maxrss_kb"] / 1024, 1),
        "launcher_rss_mb": _round((m["launcher_hwm_kb"] or 0) / 1024),
    })  # fmt: skip
    if solr is not None and solr.pid is not None:
        cpu1 = solr.cpu_s()
        out["solr_cpu_s"] = None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2)
        out["solr_peak_rss_mb"] = _round(solr.peak_mb())
    return out


def _round(x: float | None, nd: int = 1) -> float | None:
    return None if x is None else round(x, nd)


# -- the methods -------------------------------------------------------------------------------


def neardup_command() -> list[str]:
    """The ``neardup`` script next to this interpreter (the virtualenv's), else ``-m``."""
    script = Path(sys.executable).with_name("neardup")
    return [str(script)] if script.exists() else [sys.executable, "-m", "neardup"]


def param_flags(cfg: Any) -> list[str]:
    return ["--shingle-kind", cfg.shingle_kind, "--shingle-size", str(cfg.shingle_size),
            "--threshold", str(cfg.threshold), "--rule", "threshold"]  # fmt: skip


def drop_collection(base: str, name: str) -> None:
    from neardup.solr.admin import delete_collection
    from neardup.solr.client import Solr

    try:
        delete_collection(Solr(base, name))
    except Exception:  # not there
        pass


def run_neardup_solr(
    path: Path,
    cfg: Any,
    base: str,
    collection: str,
    solr_pid: int | None,
    work: Path,
    flags: list[str] | None = None,
    keep: bool = False,
) -> tuple[dict[str, Any], Path]:
    """``neardup index`` then ``neardup report``, each measured, into a new collection;
    ``flags`` are the index's parameter flags (default: those of ``cfg``; ``[]``: none, the
    defaults a user gets); ``keep``: the collection is left for the caller to drop."""
    from neardup.solr.client import credentials

    solr = SolrProcess(solr_pid)
    plain, auth = credentials(base)  # given by the environment: a command line is public
    env = None
    if auth is not None:
        env = {**os.environ, "NEARDUP_SOLR_USER": auth.user, "NEARDUP_SOLR_PASSWORD": auth.password}
    where = ["--solr-url", plain, "--collection", collection]
    cli = neardup_command()
    flags = param_flags(cfg) if flags is None else flags
    index_cmd = [*cli, "index", str(path), "--format", "lines", *where, *flags]
    out = work / "neardup_solr.tsv"
    report_cmd = [*cli, "report", *where, "--out", str(out)]
    drop_collection(base, collection)
    try:
        steps = {
            "index": measure(index_cmd, work / "neardup_index.log", solr, env),
            "report": measure(report_cmd, work / "neardup_report.log", solr, env),
        }
    finally:
        if not keep:
            drop_collection(base, collection)
    for step, s in steps.items():
        s["summary"], s["own_seconds"] = cli_summary(work / f"neardup_{step}.log")
    cand = re.search(r"(\d+) candidate pairs", steps["report"]["summary"])
    idx, rep = steps["index"], steps["report"]
    res: dict[str, Any] = {
        "how": " ".join(["neardup index FILE --format lines", *where[:1], "URL", *where[2:],
                         *flags]) + "; neardup report --solr-url URL --collection "
               f"{collection} --out pairs.tsv",
        "steps": steps,
        "wall_s": round(idx["wall_s"] + rep["wall_s"], 3),
        "cpu_s": round(idx["cpu_s"] + rep["cpu_s"], 3),
        "peak_rss_mb": max(idx["peak_rss_mb"], rep["peak_rss_mb"]),
        "candidates": int(cand.group(1)) if cand else None,
        "bands": cfg.bands if flags else None, "rows": cfg.rows if flags else None,
    }  # fmt: skip
    if solr_pid is not None:
        cpus = [idx.get("solr_cpu_s"), rep.get("solr_cpu_s")]
        peaks = [x for x in (idx.get("solr_peak_rss_mb"), rep.get("solr_peak_rss_mb")) if x]
        res["solr_cpu_s"] = None if None in cpus else round(sum(cpus), 2)  # type: ignore[arg-type]
        res["solr_peak_rss_mb"] = max(peaks) if peaks else None
    return res, out


def cli_summary(log: Path) -> tuple[str, float | None]:
    """The command's closing line (``... -> where (N s)``) and the seconds it gives itself."""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    line = next((ln.strip() for ln in reversed(lines) if " -> " in ln), "")
    own = re.search(r"\(([\d.]+) s\)", line)
    return line, float(own.group(1)) if own else None


def run_child(
    kind: str, path: Path, cfg: Any, work: Path, extra: Sequence[str] = (), tag: str = ""
) -> tuple[dict[str, Any], Path]:
    """One of the in-process methods in its own process, measured (``extra``: more flags of
    the child; ``tag`` tells apart two runs of one method)."""
    out = work / f"{kind}{tag}.tsv"
    cmd = [sys.executable, "-m", "benchmarks.end_to_end", "peer", kind, str(path), str(out),
           "--threshold", str(cfg.threshold), "--kind", cfg.shingle_kind,
           "--size", str(cfg.shingle_size), *extra]  # fmt: skip
    res = measure(cmd, work / f"{kind}{tag}.log")
    info = json.loads(Path(str(out) + ".json").read_text(encoding="utf-8"))
    res.update(info)
    own = sum(v for k, v in info["phases"].items() if "." not in k)
    res["startup_and_imports_s"] = round(res["wall_s"] - own, 3)  # and writing OUT.json
    res["how"] = HOW_DEFAULTS if kind == "neardup_memory" and "--defaults" in extra else HOW[kind]
    return res, out


HOW = {
    "neardup_memory": "read_records(FILE, 'lines'); NearDupIndex(Params(shingle_kind, "
    "shingle_size, threshold, rule='threshold')).add_many(...); .report(); write_pairs",
    "datasketch": "read lines; neardup's shingle sets; MinHash.bulk(num_perm=128, hashfunc=mmh3 "
    "32-bit); MinHashLSH(threshold=t, num_perm=128) default bands; insert all, query each; "
    "neardup.candidates.verify.verify; write_pairs",
    "rensa": "read lines; neardup's shingle sets; RMinHash.from_token_sets(num_perm=128, "
    f"seed=42); RMinHashLSH(t, 128, num_bands={RENSA_BANDS}); insert_pairs, query_all; "
    "neardup.candidates.verify.verify; write_pairs",
}
#: ``neardup_memory`` run with ``--defaults`` (``benchmarks/defaults.py``): no parameters given.
HOW_DEFAULTS = "read_records(FILE, 'lines'); NearDupIndex().add_many(...); .report(); write_pairs"


def read_pairs(path: Path) -> set[tuple[str, str]]:
    """The pairs of a ``write_pairs`` TSV, smaller id first."""
    from neardup.sign.text import ordered

    with open(path, encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        if header[:2] != ["id1", "id2"]:
            raise ValueError(f"{path}: not a pairs report (header {header})")
        return {ordered(*ln.rstrip("\n").split("\t")[:2]) for ln in fh if ln.strip()}


def scored(path: Path, truth: set[tuple[str, str]]) -> dict[str, Any]:
    """Recall and precision of a pairs file against ``truth`` (pairs with the smaller id first)."""
    from benchmarks.corpus import score

    found = read_pairs(path)
    return {**score(found, truth), "outside_truth": len(found - truth)}


def write_corpus(records: Iterable[Any], path: Path) -> int:
    """``ID TEXT`` lines; returns the bytes written."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(f"{r.id} {r.text}\n")
    return path.stat().st_size


def warm_up(path: Path, cfg: Any, base: str, work: Path, lines: int = 3000) -> None:
    """Index the first ``lines`` documents once, untimed: the JVM compiles its indexing code."""
    head = work / "warmup.txt"
    with open(path, encoding="utf-8") as src, open(head, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= lines:
                break
            dst.write(line)
    run_neardup_solr(head, cfg, base, "bench_e2e_warmup", None, work)


def run(
    path: Path,
    truth: set[tuple[str, str]],
    cfg: Any,
    *,
    solr_base: str | None,
    solr_pid: int | None,
    work: Path,
    peers: Iterable[str] = PEERS,
    say: Any = print,
) -> dict[str, Any]:
    """Every method in ``peers`` on the corpus file ``path``, scored against ``truth``."""
    with open(path, encoding="utf-8") as fh:
        n = sum(1 for _ in fh)
    res: dict[str, Any] = {
        "docs": n, "threshold": cfg.threshold, "num_perm": NUM_PERM,
        "shingles": f"{cfg.shingle_kind} {cfg.shingle_size}-gram",
        "file_bytes": path.stat().st_size, "solr_measured": solr_pid is not None,
        "methods": {},
    }  # fmt: skip
    for kind in peers:
        if kind == "neardup_solr":
            if solr_base is None:
                continue
            r, out = run_neardup_solr(path, cfg, solr_base, f"bench_e2e_{n}", solr_pid, work)
        else:
            try:
                r, out = run_child(kind, path, cfg, work)
            except RuntimeError as exc:  # e.g. killed when the peer's MinHashes outgrow memory
                first = str(exc).splitlines()[0]
                res.setdefault("failed", {})[kind] = first[-300:]
                say(f"end to end {kind}: did not finish ({first[-300:]})")
                continue
        r.update(scored(out, truth))
        res["methods"][kind] = r
        solr_part = (
            f", Solr CPU {r['solr_cpu_s']} s, Solr peak {r['solr_peak_rss_mb']} MB"
            if r.get("solr_cpu_s") is not None
            else ""
        )
        say(
            f"end to end {kind}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU, peak RSS "
            f"{r['peak_rss_mb']:.0f} MB{solr_part}; recall {r['recall']}, precision "
            f"{r['precision']} ({r['reported']:,d} pairs, {r.get('candidates')} candidates)"
        )
    res["ratios"] = ratios(res["methods"])
    say(f"end to end ratios: {res['ratios']}")
    return res


#: What end to end compares: a ratio's key ends in the suffix, and divides the runs' field.
MEASURES = {"_wall": "wall_s", "_cpu": "cpu_s", "_python_rss": "peak_rss_mb"}
#: neardup's runs, and the name each has in a ratio's key.
MINE = {"neardup_solr": "neardup", "neardup_memory": "neardup_memory"}


def ratios(
    m: dict[str, Any],
    peers: Iterable[str] = ("datasketch", "rensa"),
    measures: dict[str, str] = MEASURES,
    mine: dict[str, str] = MINE,
) -> dict[str, float]:
    """neardup / peer for each measure (below 1: neardup uses less), keyed
    ``{name}/{peer}{suffix}``; with CPU time measured, neardup on Solr's CPU also counts
    Solr's. A run missing from ``m`` has no ratios."""
    out: dict[str, float] = {}
    peers = list(peers)
    for name, tag in mine.items():
        for peer in peers:
            if name not in m or peer not in m:
                continue
            a, b = m[name], m[peer]
            for suffix, key in measures.items():
                out[f"{tag}/{peer}{suffix}"] = round(a[key] / b[key], 3)
            if "_cpu" in measures and name == "neardup_solr" and a.get("solr_cpu_s") is not None:
                out[f"{tag}/{peer}_cpu_with_solr"] = round(
                    (a["cpu_s"] + a["solr_cpu_s"]) / b["cpu_s"], 3
                )
    return out


# -- standalone --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["peer"]:
        return child_main(argv[1:])
    import tempfile

    from benchmarks import corpus as C
    from benchmarks.corpus import bench_params
    from benchmarks.node import SolrNode, say

    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.end_to_end",
        description="the end-to-end part of the benchmark alone",
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--kind", choices=["word", "char"], default="word")
    ap.add_argument("--size", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peers", nargs="+", choices=PEERS, default=list(PEERS))
    ap.add_argument("--out", type=Path, help="write the results as JSON here")
    args = ap.parse_args(argv)  # fmt: skip
    cfg = bench_params(args)
    url = os.environ.get("NEARDUP_SOLR_URL") or None
    heap = os.environ.get("NEARDUP_SOLR_HEAP") or "2g"
    node = SolrNode(url, heap) if "neardup_solr" in args.peers else None
    results: dict[str, Any] = {}
    try:
        for n in args.sizes:
            corp = C.generate(n, seed=args.seed, threshold=args.threshold, config=cfg)
            truth = {(a, b) for a, b, _ in corp.truth}
            with tempfile.TemporaryDirectory(prefix="neardup-e2e-") as tmp:
                work = Path(tmp)
                path = work / "corpus.txt"
                write_corpus(corp.records, path)
                del corp
                base = node.base if node else None
                if base is not None:
                    warm_up(path, cfg, base, work)
                results[str(n)] = run(path, truth, cfg, solr_base=base,
                                      solr_pid=node.pid if node else None, work=work,
                                      peers=args.peers, say=say)  # fmt: skip
    finally:
        if node is not None:
            node.stop()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        say(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
