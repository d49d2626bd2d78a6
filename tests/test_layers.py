"""The layering of docs/architecture.md, checked by parsing every module with ``ast``: every
``import``/``from ... import`` (top level, inside functions, under ``TYPE_CHECKING``, relative
ones resolved) and every string naming a module (``importlib``/lazy exports) counts."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "upskill_hub"
MODULE_NAME = re.compile(r"upskill_hub(\.[A-Za-z_][A-Za-z0-9_]*)+")

#: Which subpackages a subpackage must not import (docs/architecture.md). ``skill`` knows
#: nothing of the rest; ``registry`` and ``evaluation`` do not import each other (a Hub repo id
#: given to ``eval`` is turned into a folder at the CLI/library entry) nor ``publish``, which
#: reads what they wrote; only the CLI's ``hub serve`` uses ``hub_server``; the CLI and the
#: Space's support code are front ends nothing in the library imports.
FRONT_ENDS = {"cli", "space_support", "hub_server"}
FORBIDDEN: dict[str, set[str]] = {
    "skill": {"hub", "registry", "evaluation", "publish", "generate"} | FRONT_ENDS,
    "registry": {"evaluation", "publish", "generate"} | FRONT_ENDS,
    "evaluation": {"hub", "registry", "publish", "generate"} | FRONT_ENDS,
    "publish": {"generate"} | FRONT_ENDS,
    "generate": FRONT_ENDS,
    "space_support": {"cli", "hub_server"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, name: str, is_package: bool) -> list[tuple[int, str]]:
    """``(line, module)`` for every upskill_hub module ``source`` (the module ``name``) names."""
    found: list[tuple[int, str]] = []
    here = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and MODULE_NAME.fullmatch(node.value)
        ):
            found.append((node.lineno, node.value))
    return [(line, mod) for line, mod in found if mod.startswith("upskill_hub.")]


def violations(source: str, name: str, is_package: bool = False) -> list[str]:
    layer = name.split(".")[1] if name.count(".") else ""
    banned = FORBIDDEN.get(layer, set())
    crossings: dict[int, str] = {}  # one line a crossing (``from a import b`` names a and a.b)
    for line, mod in imported_modules(source, name, is_package):
        if mod.split(".")[1] in banned:
            crossings.setdefault(line, mod)
    return [f"{name}:{line} imports {mod}" for line, mod in crossings.items()]


def test_every_module_keeps_to_its_layer() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50  # the walk found the package
    problems = [
        problem
        for path in modules
        for problem in violations(path.read_text(), module_name(path), path.name == "__init__.py")
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("source", "name"),
    [
        (
            "def f():\n    from upskill_hub.publish.results_dataset import x\n",
            "upskill_hub.registry.a",
        ),
        ("from ..registry import hub\n", "upskill_hub.evaluation.runner"),
        ("from .. import registry\n", "upskill_hub.evaluation.runner"),
        ("import upskill_hub.evaluation.runner\n", "upskill_hub.skill.model"),
        (
            "import importlib\nimportlib.import_module('upskill_hub.cli.main')\n",
            "upskill_hub.publish.x",
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from upskill_hub.hub.client import Hub\n",
            "upskill_hub.evaluation.x",
        ),
    ],
)
def test_a_crossing_is_caught(source: str, name: str) -> None:
    assert violations(source, name)


def test_allowed_imports_pass() -> None:
    source = (
        "from upskill_hub.errors import HubError\nfrom upskill_hub.skill import load_skill\n"
        "from .hub import Hub\nfrom upskill_hub.datasets_quiet import quiet_datasets\n"
    )
    assert violations(source, "upskill_hub.registry.evidence.read") == []
    assert violations("from . import hub\n", "upskill_hub.registry", is_package=True) == []
