"""Figures on the shape of the code: modules per package, import cycles, files constructing
``HfApi``, model-string prefix reads outside the resolver, the largest functions, total lines.

Run from the repository root: ``python3 scripts/code_shape.py``.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_import_cycles import cycles, import_graph

PACKAGE = Path("upskill_hub")
MODEL_PREFIX = re.compile(r'startswith\(\s*\(?\s*"(vllm|openai|anthropic|hf|local|mock):')


def main() -> None:
    paths = sorted(PACKAGE.rglob("*.py"))
    per_package = Counter(str(p.parent) for p in paths)
    print("modules per package:")
    for package, count in sorted(per_package.items()):
        print(f"  {package}: {count}")
    print(f"largest package: {max(per_package.values())}; modules: {len(paths)}")
    groups = cycles(import_graph(Path("."), "upskill_hub"))
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
