"""The package as shipped: its resources, its pinned Solr version, its module structure.

Fast and offline (no Solr, no network): these checks guard what an installed wheel depends on.
Building and installing the wheel itself is .ci/wheel_check.py's job.
"""

from __future__ import annotations

import ast
import builtins
import glob
import importlib
import importlib.util
import inspect
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from neardup import resources

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "neardup"
#: The only layer that may read the environment (see neardup/cli/main.py).
#: The one module that reads the environment, for the library and the CLI alike (issue 27).
ENV_LAYER = ("neardup", "config")
#: Attributes of ``os`` that read (or write) the process environment.
ENV_NAMES = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}


# -- resources -------------------------------------------------------------------------------
def _dotenv(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip().strip("'\"")
    return values


def test_dotenv_pins_the_packaged_solr_version() -> None:
    """docker compose reads .env, the local node reads the package: they must agree."""
    pinned = resources.solr_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), pinned
    assert _dotenv(REPO / ".env").get("SOLR_VERSION") == pinned


def _resource_paths() -> Iterator[tuple[str, Path]]:
    """Every path a public zero-argument function of neardup.resources returns."""
    for name in sorted(vars(resources)):
        func = getattr(resources, name)
        if name.startswith("_") or not callable(func) or func.__module__ != resources.__name__:
            continue
        result = func()
        if isinstance(result, Path):
            yield name, result
        elif isinstance(result, tuple):
            for i, item in enumerate(result):
                if isinstance(item, Path):
                    yield f"{name}()[{i}]", item


def test_every_resource_path_exists() -> None:
    paths = dict(_resource_paths())
    assert {"configset_dir", "launcher_dir", "solr_xml"} <= set(paths), sorted(paths)
    missing = {name: str(p) for name, p in paths.items() if not p.exists()}
    assert not missing
    needed = [
        resources.configset_dir() / "conf" / "schema.xml",
        resources.configset_dir() / "conf" / "solrconfig.xml",
        resources.launcher_dir() / "pom.xml",
        resources.launcher_dir() / "src/main/java/neardup/solr/Launcher.java",
        resources.launcher_dir() / "src/main/resources/log4j2.xml",
        resources.SOLR / "version.txt",
        *resources.restaurants(),
        resources.restaurants()[0].parent / "README.md",
        resources.restaurants()[0].parent / "LICENSE.py_entitymatching.txt",
    ]
    assert [str(p) for p in needed if not p.is_file()] == []


def test_package_data_covers_every_resource_file() -> None:
    """A file added under neardup/resources but not to pyproject's package-data would be
    missing from the wheel; the patterns are expanded as setuptools does (recursive glob)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    patterns = setuptools["package-data"]["neardup.resources"]
    excluded = setuptools.get("exclude-package-data", {}).get("neardup.resources", [])
    base = PACKAGE / "resources"
    shipped = {
        Path(p).relative_to(base).as_posix()
        for pattern in patterns
        for p in glob.glob(str(base / pattern), recursive=True)
        if Path(p).is_file()
    }
    present = {
        p.relative_to(base).as_posix()
        for p in base.rglob("*")
        if p.is_file()
        and p.suffix not in (".py", ".pyc")
        and "__pycache__" not in p.parts
        and "target" not in p.relative_to(base).parts
    }
    assert sorted(present - shipped) == []
    assert all("target" in e for e in excluded), excluded


def test_docker_compose_mounts_solr_config() -> None:
    text = (REPO / "docker-compose.yml").read_text(encoding="utf-8")
    mounts = re.findall(r"^\s*-\s*(\./[^:\s]+):", text, flags=re.MULTILINE)
    assert mounts, "docker-compose.yml mounts no path of the repository"
    for mount in mounts:
        assert (REPO / mount).exists(), f"docker-compose.yml mounts {mount}, which does not exist"
    configsets = [m for m in mounts if "configsets" in m]
    assert configsets == ["./solr_config/configsets/neardup"]
    assert (REPO / configsets[0] / "conf" / "schema.xml").is_file()


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "target" not in p.relative_to(root).parts
    }


def test_a_checkout_reads_solr_config_itself() -> None:
    """One copy to edit: the package finds the top-level solr_config/, not a copy of it."""
    assert resources.SOLR == REPO / "solr_config"
    assert resources.configset_dir() == REPO / "solr_config" / "configsets" / "neardup"
    assert not (PACKAGE / "resources" / "solr").exists()


def test_the_wheel_carries_solr_config_file_for_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """setup.py's build_py, as the wheel's build runs it, puts solr_config/ into the package as
    neardup/resources/solr: the same files, byte for byte, and no other. (.ci/wheel_check.py
    checks the same on a real wheel built from the sdist.)"""
    from setuptools import Distribution

    spec = importlib.util.spec_from_file_location("neardup_setup", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    setup_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_py)  # not __main__: defines the command, builds nothing
    monkeypatch.chdir(REPO)  # the build runs in the project's folder
    command = setup_py.BuildPyWithSolr(Distribution({"name": "neardup", "packages": []}))
    command.build_lib = str(tmp_path)
    command.ensure_finalized()
    command.run()
    packaged = tmp_path / "neardup" / "resources" / "solr"
    source = _tree(REPO / "solr_config")
    assert {"version.txt", "solr.xml", "configsets/neardup/conf/schema.xml"} <= set(source)
    assert _tree(packaged) == source
    assert sorted(command.get_outputs()) == sorted(str(packaged / name) for name in source)


# -- module structure ------------------------------------------------------------------------
def _modules() -> dict[str, Path]:
    """neardup's modules by dotted name (a package by its ``__init__.py``), and its C
    extensions by their source (``_kernel.c``): leaves that import no neardup module."""
    found: dict[str, Path] = {}
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c")]):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _nodes(tree: ast.AST, type_checking: bool) -> Iterator[ast.AST]:
    """Every node, inside functions too; the bodies of ``if TYPE_CHECKING:`` only with
    ``type_checking``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _imports(
    name: str, path: Path, modules: dict[str, Path], type_checking: bool = False
) -> dict[str, str]:
    """The neardup modules that module ``name`` imports, at any depth of its code, each with
    where (``path:line``) it is first imported; those under ``if TYPE_CHECKING:`` only with
    ``type_checking`` (for annotations: no import at run time, but a cycle all the same).

    ``from pkg import x`` is an edge to ``pkg.x`` when that is a module, else to ``pkg``. The
    parent packages that Python initialises on the way are not edges: every submodule would
    then depend on ``neardup/__init__.py``, which imports them.
    """
    if path.suffix != ".py":
        return {}
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    root = path.parents[len(name.split(".")) - 1 + is_package]
    where = path.relative_to(root).as_posix()
    edges: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        edges[target] = min(line, edges.get(target, line))

    for node in _nodes(ast.parse(path.read_text(encoding="utf-8"), str(path)), type_checking):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level - 1 >= len(parts):
                    raise AssertionError(f"{path}:{node.lineno}: relative import beyond neardup")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                add(sub if sub in modules else target, node.lineno)
    return {e: f"{where}:{n}" for e, n in sorted(edges.items()) if e in modules and e != name}


def _import_graph(type_checking: bool = False) -> dict[str, dict[str, str]]:
    """The import graph of neardup and of the benchmarks (which import neardup, never the
    other way round); with ``type_checking``, the imports for annotations too."""
    modules = {**_modules(), **_benchmark_modules()}
    return {name: _imports(name, path, modules, type_checking) for name, path in modules.items()}


def _benchmark_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((REPO / "benchmarks").rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle (first module repeated at the end) or None; iterative depth-first search."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for root in sorted(graph):
        if state.get(root):
            continue
        path: list[str] = [root]
        todo: list[Iterator[str]] = [iter(sorted(graph[root]))]
        state[root] = 1
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(sorted(graph[nxt])))
    return None


def _cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """One cycle in each group of modules that reach each other through imports (a strongly
    connected component), so that a failure names every group at once."""
    reach: dict[str, set[str]] = {}
    for root in graph:
        seen, todo = set(), [root]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[root] = seen
    out, placed = [], set()
    for root in sorted(graph):
        group = {m for m in reach[root] if root in reach[m]} | {root}
        if root in placed or root not in reach[root]:
            continue
        placed |= group
        cycle = _find_cycle({m: [n for n in graph[m] if n in group] for m in group})
        assert cycle is not None  # a group of modules that reach each other holds a cycle
        out.append(cycle)
    return out


def test_import_graph_is_built_from_real_imports() -> None:
    """The graph sees relative imports, imports inside functions, and TYPE_CHECKING imports
    only when asked."""
    graph = _import_graph()
    assert "neardup.index" not in graph["neardup.out.review"]  # under TYPE_CHECKING only
    assert "neardup.index" in _import_graph(type_checking=True)["neardup.out.review"]
    assert len(graph) >= 20 and "neardup.cli.main" in graph
    # the package's __init__ loads its names lazily (PEP 562): its imports are for type checkers
    assert "neardup.index" in _import_graph(type_checking=True)["neardup"]
    assert "neardup.resources" in graph["neardup.solr.local"]  # from .. import resources
    kernel = graph["neardup.sign.kernel"]
    assert set(kernel) >= {"neardup._kernel", "neardup.errors"}  # in functions
    assert "benchmarks.corpus" in graph["benchmarks.end_to_end"]  # in a function
    assert "neardup.params" in graph["benchmarks.corpus"]
    assert sum(len(v) for v in graph.values()) > len(graph)


def test_import_graph_sees_type_checking_only_when_asked(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg" / "sub"
    pkg.mkdir(parents=True)
    mod = pkg / "mod.py"
    mod.write_text(
        "from typing import TYPE_CHECKING\n"
        "import pkg.a\n"
        "from .. import b, c\n"
        "if TYPE_CHECKING:\n"
        "    from ..d import X\n"
        "else:\n"
        "    from . import e\n"
        "def f():\n"
        "    from ..d import Y\n"
        "    return Y\n"
    )
    names = ["pkg", "pkg.a", "pkg.b", "pkg.d", "pkg.sub", "pkg.sub.e", "pkg.sub.mod"]
    modules = {n: tmp_path / n.replace(".", "/") for n in names}
    edges = _imports("pkg.sub.mod", mod, modules)
    assert edges == {
        "pkg": "pkg/sub/mod.py:3",  # c is not a module: an attribute of pkg
        "pkg.a": "pkg/sub/mod.py:2",
        "pkg.b": "pkg/sub/mod.py:3",
        "pkg.d": "pkg/sub/mod.py:9",  # inside a function: counted; under TYPE_CHECKING: not
        "pkg.sub.e": "pkg/sub/mod.py:7",
    }
    with_annotations = _imports("pkg.sub.mod", mod, modules, type_checking=True)
    assert with_annotations == {**edges, "pkg.d": "pkg/sub/mod.py:5"}  # the first: line 5


def test_find_cycle_finds_one() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_cycles_names_each_group_once() -> None:
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"e"}, "e": {"d", "f"}, "f": set()}
    assert _cycles(graph) == [["a", "b", "a"], ["d", "e", "d"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    """No import cycle, TYPE_CHECKING imports included: a cycle, even through an import
    inside a function or one for annotations only, makes the layers inseparable."""
    graph, runtime = _import_graph(type_checking=True), _import_graph()

    def step(a: str, b: str) -> str:
        return f"{a} ({graph[a][b]}{'' if b in runtime[a] else ', TYPE_CHECKING'})"

    cycles = [
        " -> ".join(step(a, b) for a, b in zip(cycle, cycle[1:], strict=False)) + f" -> {cycle[0]}"
        for cycle in _cycles(graph)
    ]
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)



def test_the_front_door_loads_its_names_lazily() -> None:
    """``import neardup`` loads no library module (the command catches Ctrl-C only once its
    own code runs); each public name is found where the TYPE_CHECKING block imports it from,
    so that type checkers and the lazy loader agree."""
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, neardup; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "'numpy'" not in loaded and "'neardup.index'" not in loaded
    import neardup

    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    typed = {
        alias.name: "." * node.level + (node.module or "")
        for block in tree.body if isinstance(block, ast.If) and _is_type_checking(block.test)
        for node in block.body if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }  # fmt: skip
    assert typed == neardup._WHERE
    assert sorted(neardup.__all__) == sorted(typed)
    for name in neardup.__all__:
        assert getattr(neardup, name).__name__ == name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        neardup.nothing  # noqa: B018


#: neardup's layers, bottom to top: a module imports its own layer and those below. The folders
#: are the pipeline's steps (read, sign, candidates, decision, plan, out) with what they stand on
#: below them and the front door, the plug-in and the command line above. A name is a module or
#: a folder (every module in it); the longest name that holds a module places it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "keys", "defaults", "results", "constraints", "extra_fields", "resources",
     "_kernel", "graph", "version", "read.items"),
    ("sign",),
    ("params",),
    ("choose",),
    ("read",),
    ("solr",),
    ("config",),
    ("backends",),
    ("pipeline", "collection"),
    ("candidates",),
    ("decision",),
    ("plan",),
    ("options",),
    ("index",),
    ("evaluate",),
    ("out",),
    ("",),  # neardup/__init__.py, the front door of the library
    ("seed2014",),
    ("cli", "__main__"),
)  # fmt: skip
#: The imports that go from a lower layer up to a higher one (#42: at most 5), each with why.
UPWARD = {
    ("neardup.solr.admin", "neardup.backends.solr"):
        "the names of the records filter and the meta record, read inside the one function "
        "that counts a collection's records",
    ("neardup.index", "neardup.out.output"):
        "Report.to_pandas and NearDupIndex.frame: the front door hands back the table the "
        "outputs build",
    ("neardup.evaluate.plot", "neardup.out.write"):
        "the plot's PNG is written as every output is, whole or not at all (AtomicFile)",
    ("neardup.sign.kernel", "neardup.config"):
        "NEARDUP_KERNEL, read at the kernel's first call: the library honours it as the CLI "
        "does, and config is the one module that reads the environment",
    ("neardup.seed2014.cli", "neardup.cli.common"):
        "the plug-in's verbs take the flags every verb shares; the CLI registers them",
}  # fmt: skip


def _layer(name: str) -> int:
    """The layer of module ``name`` (:data:`LAYERS`)."""
    inner = name.removeprefix("neardup").removeprefix(".")
    best: tuple[int, int] | None = None
    for i, layer in enumerate(LAYERS):
        for room in layer:
            if inner == room or inner.startswith(f"{room}.") or (room == "" and inner == ""):
                if best is None or len(room) > best[1]:
                    best = (i, len(room))
    assert best is not None, f"{name} is in no layer of LAYERS"
    return best[0]


def _upward(graph: Mapping[str, Mapping[str, str]]) -> dict[tuple[str, str], str]:
    """The imports of neardup modules from a lower layer up to a higher one, with where."""
    return {
        (a, b): where
        for a, edges in graph.items() if a.startswith("neardup")
        for b, where in edges.items()
        if _layer(a) < _layer(b)
    }  # fmt: skip


def test_layer_check_sees_an_upward_import() -> None:
    graph = {
        "neardup.sign.text": {"neardup.decision.link": "neardup/sign/text.py:3"},
        "neardup.decision.link": {"neardup.sign.text": "neardup/decision/link.py:9"},
        "neardup.index": {"neardup": "neardup/index.py:5"},
    }
    assert _upward(graph) == {
        ("neardup.sign.text", "neardup.decision.link"): "neardup/sign/text.py:3",
        ("neardup.index", "neardup"): "neardup/index.py:5",
    }


def test_every_module_has_a_layer() -> None:
    for name in _modules():
        _layer(name)


def test_few_imports_go_up_a_layer() -> None:
    """The folders show the pipeline's steps: a step imports the steps before it, not those
    after; the few imports that go up (#42: at most 5), TYPE_CHECKING included, say why."""
    found = _upward(_import_graph(type_checking=True))
    unexplained = {k: v for k, v in found.items() if k not in UPWARD}
    assert not unexplained, f"imports up a layer: {unexplained}"
    assert len(UPWARD) <= 5
    assert set(UPWARD) <= set(found), "UPWARD names an import that is gone: remove it"

#: The 2014 design is a plug-in: the one module outside it that imports it is the CLI's
#: registration of its verbs.
SEED2014 = "neardup.seed2014"
SEED2014_IMPORTERS = {"neardup.cli.main"}


def _seed2014_importers(graph: Mapping[str, Mapping[str, str]]) -> dict[str, list[str]]:
    """The neardup modules outside :data:`SEED2014` that import it or one of its modules,
    each with where."""
    return {
        name: [where for target, where in edges.items()
               if target == SEED2014 or target.startswith(f"{SEED2014}.")]
        for name, edges in graph.items()
        if name.startswith("neardup.") and not name.startswith(SEED2014)
    }  # fmt: skip


def test_seed2014_check_sees_an_import() -> None:
    graph = {
        "neardup.candidates.documents": {"neardup.seed2014": "neardup/candidates/documents.py:70"},
        "neardup.seed2014.cli": {"neardup.cli.commands": "neardup/seed2014/cli.py:15"},
        "neardup.cli.main": {"neardup.seed2014.cli": "neardup/cli/main.py:21"},
        "neardup.seed2014x": {},
    }
    found = {k: v for k, v in _seed2014_importers(graph).items() if v}
    assert found == {
        "neardup.candidates.documents": ["neardup/candidates/documents.py:70"],
        "neardup.cli.main": ["neardup/cli/main.py:21"],
    }


def test_the_core_does_not_import_the_2014_design() -> None:
    """The 2014 design lives in neardup/seed2014/ (#42): no module of the core imports it,
    inside functions and for annotations included; the CLI imports it once, for its verbs."""
    found = {k: v for k, v in _seed2014_importers(_import_graph(type_checking=True)).items() if v}
    assert set(found) == SEED2014_IMPORTERS, f"modules that import the 2014 design: {found}"
    assert (PACKAGE / "seed2014" / "__init__.py").exists()


#: The steps of the decision layer: index.py composes them and defines none of their work.
STEPS = ("candidates/verify", "candidates/text_table", "decision/prune", "candidates/documents",
         "decision/decide", "decision/valley", "decision/fellegi_sunter", "decision/columns",
         "decision/link",
         "decision/route", "decision/labelled", "decision/words")
#: What index.py may define outside NearDupIndex: input conversion, the ids shown, the GC pause.
FACADE_FUNCTIONS = {"_as_record", "with_record_ids", "_gc_paused"}


def _defined(path: Path) -> tuple[set[str], set[str]]:
    """The names a module defines at its top level, and every function it defines anywhere."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    top = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            top.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            top |= {t.id for t in targets if isinstance(t, ast.Name)}
    functions = {
        n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return top, functions


def test_index_is_a_facade_over_the_steps() -> None:
    """index.py composes the steps: it defines no similarity, verification, pruning or threshold
    function (nor any name a step module defines), only what the facade itself needs."""
    top, functions = _defined(PACKAGE / "index.py")
    steps: set[str] = set()
    for step in STEPS:
        steps |= {n for n in _defined(PACKAGE / f"{step}.py")[0] if not n.startswith("__")}
    assert not top & steps, f"index.py defines what a step does: {top & steps}"
    loose = {n for n in top if n not in {"NearDupIndex", "_Batch"} and n[0].islower()}
    loose -= {"log"}
    assert loose <= FACADE_FUNCTIONS, f"index.py defines functions of its own: {loose}"
    deciding = re.compile(r"jaccard|screen|verif|prune|threshold|valley|rule|numbers|columns")
    assert not [f for f in functions if deciding.search(f)], "index.py decides something"


#: What a pair or a candidate is judged by: index.py's report compares none of them.
JUDGED = {"jaccard", "similarity", "edit_distance", "probability", "threshold", "first", "second",
          "margin", "cosine", "max_dist"}
#: The methods of NearDupIndex that make a report (lookups rank records, they decide no pairs).
REPORTING = {"report", "_report", "_report_weighted", "_weighted_report", "_report_labelled",
             "_link_new", "ask", "pairs", "clusters", "frame"}


def _judgements(tree: ast.AST) -> list[int]:
    """The lines where a comparison or a filter reads what a pair is judged by."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            names = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if names & JUDGED:
                found.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "only"):  # fmt: skip
            found.append(node.lineno)  # Candidates.only: a filter of the candidates
    return found


def test_index_judges_no_pair() -> None:
    """index.py compares no pair's similarity, distance or probability, no rule's name or
    threshold, and filters no candidates: the decision package does (its route, rules, prune)."""
    assert _judgements(ast.parse("if p.jaccard >= t:\n    pass\ncands.only(mask)\n")) == [1, 3]
    assert _judgements(ast.parse("if len(pairs) > 2:\n    pass\n")) == []
    tree = ast.parse((PACKAGE / "index.py").read_text(encoding="utf-8"))
    methods = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in REPORTING]
    assert {m.name for m in methods} == REPORTING
    assert [line for m in methods for line in _judgements(m)] == [], "index.py judges pairs"


def test_the_outputs_import_the_steps_not_the_index() -> None:
    """dedupe and review measure pairs with the verification step, not through the facade."""
    graph = _import_graph()
    for name in ("neardup.out.dedupe", "neardup.out.review"):
        assert "neardup.index" not in graph[name], f"{name} imports neardup.index"
        assert "neardup.candidates.verify" in graph[name]


def _environment_reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    os_names = {"os"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            os_names.update(a.asname or a.name for a in node.names if a.name == "os")
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [
                f"{node.lineno}: from os import {a.name}" for a in node.names if a.name in ENV_NAMES
            ]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ENV_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id in os_names
        ):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_environment_check_sees_reads(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os as o\nfrom os import getenv\nx = o.environ.get('A')\ny = o.getenv('B')\n"
    )
    assert sorted(_environment_reads(probe)) == [
        "2: from os import getenv",
        "3: o.environ",
        "4: o.getenv",
    ]


def test_only_the_configuration_reads_the_environment() -> None:
    """neardup.config reads the environment; the library and the CLI take what it read (the
    CLI's flags winning), so that a notebook and a shell see the same settings."""
    offenders = {
        str(path.relative_to(REPO)): reads
        for name, path in _modules().items()
        if path.suffix == ".py" and tuple(name.split(".")[:2]) != ENV_LAYER
        for reads in [_environment_reads(path)]
        if reads
    }
    assert offenders == {}


def test_the_readme_layout_names_every_module() -> None:
    """The Layout section of docs/development.md lists each module and subpackage of neardup/."""
    development = (REPO / "docs" / "development.md").read_text(encoding="utf-8")
    layout = development.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    package = Path(__file__).resolve().parents[1] / "neardup"
    names = {p.name for p in package.glob("*.py") if not p.name.startswith("_")}
    subpackages = [p for p in package.iterdir() if (p / "__init__.py").exists()]
    names |= {f"{p.name}/" for p in subpackages}
    missing = sorted(n for n in names if f"  {n}" not in layout)
    assert not missing, f"the Layout of docs/development.md does not name: {missing}"


# -- code that says what is not so ------------------------------------------------------------
#: A Sphinx role in a docstring or comment: ``:func:`~neardup.sign.banding.choose_bands```.
ROLE = re.compile(r":(?:func|mod|class|meth|attr|data|exc|obj):`~?([A-Za-z_][\w.]*)`")


def _python_sources() -> dict[str, Path]:
    """The importable modules of neardup/ and benchmarks/ by dotted name (no ``__main__``)."""
    found = {n: p for n, p in _modules().items() if p.suffix == ".py"}
    found.update(_benchmark_modules())
    return {n: p for n, p in found.items() if not n.endswith("__main__")}


def _has(obj: object, name: str) -> bool:
    """An attribute, a dataclass field, or an instance attribute its class assigns."""
    if hasattr(obj, name) or name in getattr(obj, "__dataclass_fields__", {}):
        return True
    return isinstance(obj, type) and f"self.{name} =" in inspect.getsource(obj)


def _walk(obj: object, names: list[str]) -> bool:
    for name in names:
        if not _has(obj, name):
            return False
        obj = getattr(obj, name, None)
    return True


def _resolves(dotted: str, home: ModuleType, everywhere: list[ModuleType]) -> bool:
    """Whether a role's target exists: an absolute one from its longest importable module; a
    relative one in the module, one of its classes, a builtin, or any neardup module."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return _walk(module, parts[cut:])
    own = [v for v in vars(home).values() if isinstance(v, type) and v.__module__ == home.__name__]
    return any(_walk(h, parts) for h in [home, *own, builtins, *everywhere])


def test_role_check_sees_a_missing_module() -> None:
    import neardup.sign.banding as banding

    assert _resolves("neardup.sign.banding.optimal_bands", banding, [])
    assert _resolves("choose_bands", banding, [])
    assert not _resolves("neardup.shingles.optimal_bands", banding, [])
    assert not _resolves("no_such_function", banding, [])


def test_every_docstring_reference_exists() -> None:
    """A reference to a module or function that does not exist sends a reader nowhere."""
    modules = {n: importlib.import_module(n) for n in _python_sources()}
    package = [m for n, m in modules.items() if n.startswith("neardup")]
    missing = [
        f"{path.relative_to(REPO)}:{number}: {match.group(0)}"
        for name, path in _python_sources().items()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for match in ROLE.finditer(line)
        if not _resolves(match.group(1), modules[name], package)
    ]
    assert missing == []


def _unread_parameters(path: Path) -> list[str]:
    """``file:line function(parameter)`` for each parameter a function never reads. Stubs
    (a body of a docstring, ``pass``, ``...`` or a raise) and dunder methods, whose signatures
    a protocol fixes, are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.name.startswith("__") or all(
            isinstance(s, ast.Pass | ast.Raise)
            or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            for s in node.body
        ):
            continue
        read = {n.id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name)}
        a = node.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg and arg.arg not in ("self", "cls") and not arg.arg.startswith("_"):
                if arg.arg not in read:
                    found.append(f"{path.name}:{node.lineno} {node.name}({arg.arg})")
    return found


def test_unread_parameter_check_sees_one(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(a, total=None):\n    return a\n"
        "def stub(a):\n    ...\n"
        "def __exit__(self, *exc):\n    return None\n"
    )
    assert _unread_parameters(probe) == ["probe.py:1 f(total)"]


def test_every_parameter_is_read() -> None:
    """A parameter a function ignores tells its caller that it matters when it does not."""
    assert [u for path in _modules().values() if path.suffix == ".py"
            for u in _unread_parameters(path)] == []  # fmt: skip


#: The backends' classes: outside neardup/backends a module asks a backend's capabilities.
BACKEND_CLASSES = {"SolrBackend", "MemoryBackend"}
#: The names the backends went by before their capabilities.
BACKEND_KINDS = {"memory", "solr"}


def _names_backend(node: ast.expr) -> bool:
    """``backend`` or ``<anything>.backend``."""
    return (isinstance(node, ast.Name) and node.id == "backend") or (
        isinstance(node, ast.Attribute) and node.attr == "backend"
    )


def _backend_branches(source: str) -> list[str]:
    """Where a module's source branches on which backend it holds: compares a backend's
    ``kind`` (or any ``kind`` with ``"memory"``/``"solr"``), or asks ``isinstance`` of a
    backend class."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            kinds = [s for s in sides if isinstance(s, ast.Attribute) and s.attr == "kind"]
            named = {s.value for s in sides if isinstance(s, ast.Constant)} & BACKEND_KINDS
            if any(_names_backend(k.value) for k in kinds) or (kinds and named):
                found.append(f"{node.lineno}: compares {ast.unparse(kinds[0])}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
        ):
            classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            for cls in classes:
                name = cls.attr if isinstance(cls, ast.Attribute) else getattr(cls, "id", "")
                if name in BACKEND_CLASSES:
                    found.append(f"{node.lineno}: isinstance of {name}")
    return found


def test_backend_branch_check_sees_each_form() -> None:
    found = _backend_branches(
        "a = self.backend.kind == 'memory'\n"
        "b = backend.kind != other\n"
        "c = 'solr' == store.kind\n"
        "d = isinstance(index.backend, SolrBackend)\n"
        "e = isinstance(b, (int, solr.MemoryBackend))\n"
        "f = processor.kind == 'word' or arr.dtype.kind == 'u'\n"  # not a backend's
    )
    assert found == [
        "1: compares self.backend.kind",
        "2: compares backend.kind",
        "3: compares store.kind",
        "4: isinstance of SolrBackend",
        "5: isinstance of MemoryBackend",
    ]


def test_only_the_backends_know_which_backend_they_are() -> None:
    """The core and the CLI ask a backend's ``capabilities`` (neardup.backends.base.Capability)
    and never its class or its name (#42): a third backend then needs no change to them."""
    offenders = {
        str(path.relative_to(REPO)): found
        for name, path in _modules().items()
        if path.suffix == ".py" and not name.startswith("neardup.backends")
        for found in [_backend_branches(path.read_text(encoding="utf-8"))]
        if found
    }
    assert offenders == {}


def test_every_backend_implements_the_capabilities_it_declares() -> None:
    """A declared capability is a promise of its protocol's members (and an undeclared one
    is not offered, so the core never calls a member a backend only half has)."""
    from neardup.backends.base import Capability, SignatureStore, SolrStore, TermSearch
    from neardup.backends.duckdb_file import DuckDBBackend
    from neardup.backends.memory import MemoryBackend
    from neardup.backends.solr import SolrBackend

    protocols = {
        Capability.SIGNATURES: SignatureStore,
        Capability.TERM_LOOKUP: TermSearch,
        Capability.SOLR_QUERIES: SolrStore,
        Capability.COLLECTION_INFO: SolrStore,
    }
    memory = MemoryBackend()
    # no server: a protocol check only asks that the members are there
    solr = SolrBackend(SimpleNamespace(url="http://localhost:8983/solr/c"))  # type: ignore[arg-type]
    disk = DuckDBBackend()
    for backend in (memory, solr, disk):
        for capability, protocol in protocols.items():
            declared = capability in backend.capabilities
            assert isinstance(backend, protocol) == declared, (type(backend), capability)
    disk.close()


def _uses(
    sources: Mapping[str, Path],
) -> tuple[set[tuple[str, str]], set[str], dict[str, set[str]]]:
    """What the sources use: the ``(module, name)`` pairs they import, every attribute they
    name (``x.name``) or pass to ``getattr`` as a string, and each module's own names (its
    code's and its doctests')."""
    imported: set[tuple[str, str]] = set()
    attributes: set[str] = set()
    named: dict[str, set[str]] = {}
    for name, path in sources.items():
        text = path.read_text(encoding="utf-8")
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        doctests = set(re.findall(r"\w+", " ".join(re.findall(">>> .*", text))))
        mine = named.setdefault(name, set(doctests))
        attributes |= doctests  # ``>>> p.words(...)`` names a method
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[: len(base) - max(node.level - 1, 0)] if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                imported.update((module, a.name) for a in node.names)
            elif isinstance(node, ast.Attribute):
                attributes.add(node.attr)
            elif isinstance(node, ast.Name):
                mine.add(node.id)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
            ):
                attributes.add(str(node.args[1].value))
    return imported, attributes, named


def _unused_definitions(modules: Mapping[str, Path], sources: Mapping[str, Path]) -> list[str]:
    """Public functions and classes of ``modules`` that no source imports or names (their own
    module, neardup, benchmarks, the tests, a doctest), and public methods of their public
    classes that no source names as an attribute, unless they override a method of a base
    class from outside ``modules`` (a library calls it: ``Thread.run``, ``JSONEncoder.default``).
    A method called through a Protocol counts, since the call names it."""
    imported, attributes, named = _uses(sources)
    found = []
    for name, path in modules.items():
        if path.suffix != ".py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef | ast.ClassDef) or node.name.startswith("_"):
                continue
            if (name, node.name) not in imported and node.name not in attributes | named[name]:
                found.append(f"{name}.{node.name}")
            if not isinstance(node, ast.ClassDef):
                continue
            methods = [
                m.name
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                and not m.name.startswith("_")
                and m.name not in attributes
            ]
            if not methods:
                continue
            cls = getattr(importlib.import_module(name), node.name)
            outside = [b for b in cls.__mro__[1:] if b.__module__ not in modules]
            found += [
                f"{name}.{node.name}.{m}" for m in methods if not any(m in vars(b) for b in outside)
            ]
    return found


def test_unused_definition_check_sees_methods(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "probe_unused"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(
        "import json\n"
        "class Used:\n"
        "    def called(self):\n        return self.by_name\n"
        "    def by_name(self):\n        return 1\n"
        "    def dead(self):\n        return 2\n"
        "    def _private(self):\n        return 3\n"
        "class Encoder(json.JSONEncoder):\n"
        "    def default(self, o):\n        return str(o)\n"
        "    def also_dead(self):\n        return 4\n"
        "def unused():\n    return Used, Encoder\n"
    )
    (pkg / "user.py").write_text(
        "from .mod import Used, Encoder\ngetattr(Used(), 'by_name')\nUsed().called()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    modules = {"probe_unused.mod": pkg / "mod.py"}
    sources = {**modules, "probe_unused.user": pkg / "user.py"}
    assert _unused_definitions(modules, sources) == [
        "probe_unused.mod.Used.dead",
        "probe_unused.mod.Encoder.also_dead",
        "probe_unused.mod.unused",
    ]


def test_no_unused_public_definitions() -> None:
    """Code nothing calls is code a reader studies for nothing, and it rots untested."""
    sources = {**_python_sources()}
    for path in sorted((REPO / "tests").glob("*.py")):
        sources[f"tests.{path.stem}"] = path
    assert _unused_definitions(_modules(), sources) == []


def _repeated_handlers(path: Path) -> list[str]:
    """``file:line`` of each ``except`` clause whose body repeats an earlier clause's of the
    same ``try``: one clause with both exceptions (or their common base) says it once."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Try | ast.TryStar):
            seen: set[str] = set()
            for handler in node.handlers:
                body = ast.dump(ast.Module(body=handler.body, type_ignores=[]))
                if body in seen:
                    found.append(f"{path.name}:{handler.lineno}")
                seen.add(body)
    return found


def test_repeated_handler_check_sees_one(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "try:\n    f()\nexcept KeyError as e:\n    print(e)\nexcept OSError as e:\n    print(e)\n"
        "except ValueError as e:\n    raise\n"
    )
    assert _repeated_handlers(probe) == ["probe.py:5"]


def test_no_try_repeats_a_handler() -> None:
    assert [r for path in _python_sources().values() for r in _repeated_handlers(path)] == []


def test_no_private_pysolr_calls() -> None:
    """pysolr's private methods change without notice between its releases."""
    private = re.compile(r"\bpysolr\w*\._[a-z]\w*")
    found = [
        f"{path.relative_to(REPO)}:{n}: {m.group(0)}"
        for path in _python_sources().values()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for m in private.finditer(line)
    ]
    assert found == []


#: Test files named after what they test that is not one module: behaviour across the
#: package (each says which in its docstring), the documentation, and the benchmarks.
CROSS_CUTTING = {
    "accuracy_suite": "benchmarks/accuracy", "bad_input": "the bad-input catalogue",
    "benchmarks": "benchmarks/", "cloud": "SolrCloud", "datasets": "readers and pair files",
    "docs_data": "docs/data.md", "fix_text": "the fix_text parameter",
    "incremental": "reports of new records", "modes": "dedup and link modes",
    "neighbors": "neighbors and query", "oversize": "records too large", "package": "the package",
    "parity": "memory and Solr backends agree", "plan": "the report as a plan (neardup/plan)",
    "readme": "README and docs examples",
    "reliability": "faults against Solr", "safety": "hostile input",
    "search": "search by containment", "security": "authentication and secrets",
    "seed2014": "the 2014 design (neardup/seed2014)",
    "source_field": "a source column",
}  # fmt: skip


def _test_subjects(names: list[str]) -> list[str]:
    """The test files whose name is neither a module of neardup nor a cross-cutting subject."""
    modules = {p.stem for p in (REPO / "neardup").rglob("*.py")}
    return [n for n in names if n not in modules and n not in CROSS_CUTTING]


def test_subject_check_sees_a_misnamed_file() -> None:
    assert _test_subjects(["verify", "shingles", "safety"]) == ["shingles"]


def test_tests_are_named_after_what_they_test() -> None:
    """``tests/test_<module>.py`` for a module's tests (#24 item 8); anything else is one of
    the cross-cutting subjects above, so a new test file says where it belongs."""
    names = [p.stem.removeprefix("test_") for p in (REPO / "tests").glob("test_*.py")]
    assert _test_subjects(names) == []


def _long_functions(path: Path, most: int = 80) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        f"{path.relative_to(REPO)}:{n.lineno} {n.name} ({n.end_lineno - n.lineno + 1} lines)"
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and (n.end_lineno or n.lineno) - n.lineno + 1 > most
    ]


def test_no_function_is_over_80_lines() -> None:
    """A function a reader cannot hold at once is several steps without their names."""
    found = [f for path in sorted(PACKAGE.rglob("*.py")) for f in _long_functions(path)]
    assert found == []


def _unexplained_imports(path: Path) -> list[str]:
    """neardup's own imports inside a function with no comment saying why: on the line, or on
    a line above it within the run of imports it belongs to."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    where = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
    found = []
    for fn in ast.walk(ast.parse(text, str(path))):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.ImportFrom) or not (
                node.level or (node.module or "").split(".")[0] == "neardup"
            ):
                continue
            k, said = node.lineno - 1, "#" in lines[(node.end_lineno or node.lineno) - 1]
            while not said and k > 0:
                above = lines[k - 1].strip()
                said = above.startswith("#")
                if not (above.startswith(("from ", "import ", ")")) or above.endswith(",")):
                    break
                k -= 1
            if not said:
                found.append(f"{where}:{node.lineno}")
    return found


def test_unexplained_imports_check_sees_one(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    from .a import b\n    return b\n"
        "def g():\n    # lazy: heavy\n    from .a import c\n    from .a import d\n    return c, d\n"
        "def h():\n    from .a import e  # lazy: heavy\n    import os\n    return e, os\n",
        encoding="utf-8",
    )
    assert _unexplained_imports(probe) == ["probe.py:2"]


def test_every_import_inside_a_function_says_why() -> None:
    """An import of neardup's own inside a function either breaks a cycle or keeps an optional
    package unloaded; a comment says which, else it belongs at the top."""
    found = [f for path in sorted(PACKAGE.rglob("*.py")) for f in _unexplained_imports(path)]
    assert found == []
