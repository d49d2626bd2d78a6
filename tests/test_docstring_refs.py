"""Every Sphinx cross-reference in a docstring of upskill_hub names something that exists.

Statically, with ``ast`` (nothing is imported): ``:mod:``, ``:func:``, ``:class:``, ``:data:``,
``:meth:``, ``:attr:`` and ``:exc:`` targets, the ``~`` prefix stripped, resolve as follows.

- ``upskill_hub.a.b.name.attr``: the longest module prefix, then names defined in it (functions,
  classes, assignments, imports, lazy exports, submodules) and members of its classes, following
  ``from ... import`` to the defining module;
- ``.a.b``: the same, relative to the package of the module holding the docstring (or to the
  module itself: ``:func:`.helper``` in the module defining ``helper``);
- a bare ``name`` or ``Class.member``: a name of the module holding the docstring (or of the
  class whose docstring it is), else a name (a class's member) defined somewhere in the package;
- ``module.name`` of another project (``huggingface_hub.HfApi``): that its top-level module is
  installed (``importlib.util.find_spec``, which imports nothing).
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "upskill_hub"
ROLE = re.compile(r":(mod|func|class|data|meth|attr|exc):`~?([A-Za-z_.][A-Za-z0-9_.]*)(?:\(\))?`")


@dataclass
class Namespace:
    """What one module or class body defines: its own names, members of its classes, and the
    module a ``from ... import`` name comes from."""

    names: set[str] = field(default_factory=set)
    classes: dict[str, set[str]] = field(default_factory=dict)
    imported: dict[str, str] = field(default_factory=dict)  # local name -> "module.name"
    modules: set[str] = field(default_factory=set)  # ``import x``: another module's names


def module_path(name: str) -> Path | None:
    """The file of module ``name`` (a package's ``__init__.py``), or None."""
    if not name.startswith("upskill_hub"):
        return None
    parts = name.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file() and parts:
        return base.with_suffix(".py")
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def absolute(module: str, level: int, target: str | None, path: Path) -> str:
    base = package_of(module, path).split(".")
    base = base[: len(base) - level + 1]
    return ".".join(base + ([target] if target else []))


def body_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.If, ast.Try)):
            names |= body_names(node.body + node.orelse + getattr(node, "finalbody", []))
    return names


@cache
def namespace(module: str) -> Namespace:
    path = module_path(module)
    assert path is not None, module
    tree = ast.parse(path.read_text())
    found = Namespace(names=body_names(tree.body))
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.If, ast.Try)):
            stack += node.body + node.orelse + getattr(node, "finalbody", [])
        elif isinstance(node, ast.ClassDef):
            found.classes[node.name] = body_names(node.body) | {
                n.attr  # ``self.x = ...`` in a method
                for n in ast.walk(node)
                if isinstance(n, ast.Attribute)
                and isinstance(n.ctx, ast.Store)
                and isinstance(n.value, ast.Name)
                and n.value.id == "self"
            }
        elif isinstance(node, ast.Import):
            found.modules |= {(a.asname or a.name).split(".")[0] for a in node.names}
            found.names |= found.modules
        elif isinstance(node, ast.ImportFrom):
            source = absolute(module, node.level, node.module, path) if node.level else node.module
            for alias in node.names:
                found.names.add(alias.asname or alias.name)
                found.imported[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            found.names |= {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    if path.name == "__init__.py":
        found.names |= {p.stem for p in path.parent.glob("*.py") if p.stem != "__init__"}
        found.names |= {p.name for p in path.parent.iterdir() if (p / "__init__.py").is_file()}
    return found


def resolves(dotted: str, depth: int = 0) -> bool:
    """Whether the absolute name ``dotted`` (``upskill_hub....``) is a module or an attribute."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if module_path(module) is not None:
            return attribute_exists(module, parts[cut:], depth)
    return False


def attribute_exists(module: str, rest: list[str], depth: int = 0) -> bool:
    if not rest:
        return True
    space = namespace(module)
    head, tail = rest[0], rest[1:]
    if head not in space.names:
        return False
    if head in space.modules:
        return True
    if head in space.imported and depth < 10:  # follow the import to the defining module
        source = space.imported[head]
        if source.startswith("upskill_hub"):
            return resolves(".".join([source, *tail]), depth + 1)
        return True
    if module_path(f"{module}.{head}") is not None:
        return attribute_exists(f"{module}.{head}", tail, depth)
    if not tail:
        return True
    return head in space.classes and len(tail) == 1 and tail[0] in space.classes[head]


@cache
def defined_anywhere() -> frozenset[str]:
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        space = namespace(module_name(path))
        names |= space.names
        for members in space.classes.values():
            names |= members
    return frozenset(names)


@cache
def class_members_anywhere() -> dict[str, set[str]]:
    members: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for cls, names in namespace(module_name(path)).classes.items():
            members.setdefault(cls, set()).update(names)
    return members


def target_exists(target: str, module: str, path: Path, cls: str | None) -> bool:
    if target.startswith("upskill_hub"):
        return resolves(target)
    if target.startswith("."):
        rel = target.lstrip(".")
        package = package_of(module, path)
        return resolves(f"{package}.{rel}") or attribute_exists(module, rel.split("."))
    first = target.split(".")[0]
    space = namespace(module)
    if first not in space.names:
        if cls is not None and first in space.classes.get(cls, set()):
            return len(target.split(".")) == 1
        if "." not in target:
            return first in defined_anywhere() or hasattr(builtins, first)
        if first[0].isupper():  # ``Class.member`` of a class defined elsewhere in the package
            return target.split(".", 1)[1] in class_members_anywhere().get(first, set())
        return importlib.util.find_spec(first) is not None  # another project (not imported)
    return attribute_exists(module, target.split("."))


def docstrings(tree: ast.Module) -> list[tuple[int, str, str | None]]:
    """``(line, docstring, enclosing class)`` for the module and every class and function."""
    found: list[tuple[int, str, str | None]] = []
    if (text := ast.get_docstring(tree, clean=False)) is not None:
        found.append((1, text, None))

    def visit(node: ast.AST, cls: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                here = child.name if isinstance(child, ast.ClassDef) else cls
                if (text := ast.get_docstring(child, clean=False)) is not None:
                    found.append((child.lineno, text, here))
                visit(child, here)
            else:
                visit(child, cls)

    visit(tree, None)
    return found


def dangling(path: Path) -> list[str]:
    module = module_name(path)
    problems = []
    for line, text, cls in docstrings(ast.parse(path.read_text())):
        for match in ROLE.finditer(text):
            if not target_exists(match.group(2), module, path, cls):
                problems.append(f"{path.relative_to(PACKAGE.parent)}:{line} {match.group(0)}")
    return problems


def test_every_docstring_reference_resolves() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50
    assert sum(len(ROLE.findall(p.read_text())) for p in modules) > 100  # the regex finds them
    problems = [problem for path in modules for problem in dangling(path)]
    assert not problems, "dangling references:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("target", "module", "exists"),
    [
        ("upskill_hub.registry.project.lock", "upskill_hub.skill.model", True),
        ("upskill_hub.registry.lock", "upskill_hub.skill.model", False),
        ("upskill_hub.hub.client.Hub", "upskill_hub.skill.model", True),
        ("upskill_hub.hub.client.Hub.no_such_method", "upskill_hub.skill.model", False),
        ("upskill_hub.evaluation.runner.EvalConfig", "upskill_hub.skill.model", True),
        (".pull", "upskill_hub.registry.project.lock", True),
        (".lock_update", "upskill_hub.registry.project.lock", False),
        (".records.RunInfo", "upskill_hub.evaluation.run", True),
        ("load_skill", "upskill_hub.skill.model", True),
        ("no_such_name_anywhere", "upskill_hub.skill.model", False),
        ("registry.fetch", "upskill_hub.registry.project.pull", False),
        ("huggingface_hub.HfApi", "upskill_hub.hub.client", True),
    ],
)
def test_a_target_resolves_or_not(target: str, module: str, exists: bool) -> None:
    path = module_path(module)
    assert path is not None
    assert target_exists(target, module, path, None) is exists
