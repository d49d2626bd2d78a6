"""Figures on the shape of the code: modules per package, import cycles, files constructing
``HfApi``, model-string prefix reads outside the resolver, the largest functions, total lines.

Run from the repository root: ``python3 scripts/code_shape.py``.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

PACKAGE = Path("upskill_hub")
MODEL_PREFIX = re.compile(r'startswith\(\s*\(?\s*"(vllm|openai|anthropic|hf|local|mock):')


def module_name(path: Path) -> str:
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Every import (function-level and TYPE_CHECKING ones too) as an edge between modules."""
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = here[: len(here) - node.level + 1]
                    base = ".".join(parent + ([node.module] if node.module else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]], nodes: list[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in nodes:
        if v not in index:
            visit(v)
    return found


def main() -> None:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p): p for p in paths}
    per_package = Counter(str(p.parent) for p in paths)
    print("modules per package:")
    for package, count in sorted(per_package.items()):
        print(f"  {package}: {count}")
    print(f"largest package: {max(per_package.values())}; modules: {len(paths)}")
    groups = cycles(import_graph(modules), list(modules))
    print(f"import cycles: {len(groups)}")
    for group in groups:
        print("  " + " <-> ".join(group))
    hfapi = [str(p) for p in paths if re.search(r"\bHfApi\(", p.read_text())]
    print(f"files constructing HfApi: {len(hfapi)} {hfapi}")
    resolver = PACKAGE / "evaluation" / "providers" / "resolve.py"
    reads = {str(p): len(MODEL_PREFIX.findall(p.read_text())) for p in paths if p != resolver}
    reads = {p: n for p, n in reads.items() if n}
    print(f"model-string prefix reads outside resolve.py: {sum(reads.values())} {reads}")
    sizes = sorted(
        (
            (node.end_lineno or node.lineno) - node.lineno + 1,
            f"{p}:{node.name}",
        )
        for p in paths
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    print("largest functions:", sizes[::-1][:5])
    print("lines:", sum(len(p.read_text().splitlines()) for p in paths))


if __name__ == "__main__":
    main()
