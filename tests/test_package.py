"""The package as shipped: its resources, its pinned Solr version, its module structure.

Fast and offline (no Solr, no network): these checks guard what an installed wheel depends on.
Building and installing the wheel itself is .ci/wheel_check.py's job.
"""

from __future__ import annotations

import ast
import glob
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

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


def test_docker_compose_mounts_the_packaged_configset() -> None:
    text = (REPO / "docker-compose.yml").read_text(encoding="utf-8")
    mounts = re.findall(r"^\s*-\s*(\./[^:\s]+):", text, flags=re.MULTILINE)
    assert mounts, "docker-compose.yml mounts no path of the repository"
    for mount in mounts:
        assert (REPO / mount).exists(), f"docker-compose.yml mounts {mount}, which does not exist"
    configsets = [m for m in mounts if "configsets" in m]
    assert configsets == ["./neardup/resources/solr/configsets/neardup"]
    assert (REPO / configsets[0] / "conf" / "schema.xml").is_file()


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


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, inside functions too, except the bodies of ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _imports(name: str, path: Path, modules: dict[str, Path]) -> dict[str, str]:
    """The neardup modules that module ``name`` imports, at any depth of its code, each with
    where (``path:line``) it is first imported.

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

    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
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


def _import_graph() -> dict[str, dict[str, str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


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


def test_import_graph_is_built_from_real_imports() -> None:
    """The graph sees relative imports, imports inside functions, and skips TYPE_CHECKING."""
    graph = _import_graph()
    assert len(graph) >= 20 and "neardup.cli.main" in graph
    assert "neardup.index" in graph["neardup"]  # from .index import ... (package __init__)
    assert "neardup.resources" in graph["neardup.solr.local"]  # from .. import resources
    assert set(graph["neardup.kernel"]) >= {"neardup._kernel", "neardup.errors"}  # in functions
    assert sum(len(v) for v in graph.values()) > len(graph)


def test_import_graph_skips_type_checking_only(tmp_path: Path) -> None:
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


def test_find_cycle_finds_one() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles() -> None:
    """A cycle, even through an import inside a function, makes the layers inseparable."""
    graph = _import_graph()
    cycle = _find_cycle(graph)
    assert cycle is None, (
        "import cycle: "
        + " -> ".join(f"{a} ({graph[a][b]})" for a, b in zip(cycle, cycle[1:], strict=False))
        + f" -> {cycle[0]}"
    )


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
    """The README's Layout section lists each module and subpackage of neardup/."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    layout = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    package = Path(__file__).resolve().parents[1] / "neardup"
    names = {p.name for p in package.glob("*.py") if not p.name.startswith("_")}
    subpackages = [p for p in package.iterdir() if (p / "__init__.py").exists()]
    names |= {f"{p.name}/" for p in subpackages}
    missing = sorted(n for n in names if f"  {n}" not in layout)
    assert not missing, f"README Layout does not name: {missing}"
