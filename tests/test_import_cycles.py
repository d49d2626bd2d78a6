"""No two modules of the package import each other, directly or through others.

Every import counts: top-level, inside a function, and under ``if TYPE_CHECKING:``. A module
importing one of its own parent packages is not an edge (the parent is always initialised
first; that is how a package ``__init__`` re-exports its modules).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` under ``root / package``."""
    names = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _imported(node: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import statement may load (``from a import b``: ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            here = module.split(".") if is_package else module.split(".")[:-1]
            here = here[: len(here) - node.level + 1]
            base = ".".join(here + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        yield base
        yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its source."""
    files = module_files(root, package)
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            for target in _imported(node, name, path.name == "__init__.py"):
                while target and target not in files:  # a name inside a module: the module
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(REPO, "upskill_hub")
    assert "upskill_hub.cli.exit_codes" in graph["upskill_hub.cli.main"]  # the graph is real
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(group) for group in found)


def test_every_kind_of_import_makes_an_edge(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from pkg.a import thing\n",
        "pkg/a.py": "def f():\n    from pkg import b\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\n",
        "pkg/c.py": "import pkg.sub.d\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "from .. import c\nfrom pkg.sub import e\n",
        "pkg/sub/e.py": "import pkg\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.b"}  # ``from pkg import b`` inside a function
    assert graph["pkg.b"] == {"pkg.a"}  # relative, under TYPE_CHECKING
    assert graph["pkg.sub.e"] == set()  # its own parent package is no edge
    assert graph["pkg.sub.d"] == {"pkg.c", "pkg.sub.e"}
    assert cycles(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub.d"]]
