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

#: The library's packages, and the front ends that use it (docs/architecture.md, "Layers").
LIBRARY = {"skill", "hub", "registry", "evaluation", "publish", "generate", "jobs"}
FRONT_ENDS = {"cli", "space_support", "hub_server"}
PACKAGES = LIBRARY | FRONT_ENDS

#: Which packages a package must not import. ``skill`` knows nothing of the rest; ``hub`` (the
#: Hub client) only the top-level modules; ``registry`` and ``evaluation`` do not import each
#: other (a Hub repo id given to ``eval`` is turned into a folder at the CLI/library entry) nor
#: ``publish``, which reads what they wrote; ``generate`` writes skill folders and measures them,
#: never talking to the Hub; ``jobs`` runs the ordinary runner on Hugging Face Jobs and publishes
#: nothing; ``hub_server`` stands in for the Hub, so it shares no code with the client side it
#: serves; the front ends (CLI, the Space's support code, the server) are imported by no library
#: package, and nothing but ``__main__`` imports the CLI.
FORBIDDEN: dict[str, set[str]] = {
    "skill": PACKAGES - {"skill"},
    "hub": PACKAGES - {"hub"},
    "registry": {"evaluation", "publish", "generate", "jobs"} | FRONT_ENDS,
    "evaluation": {"hub", "registry", "publish", "generate", "jobs"} | FRONT_ENDS,
    "publish": {"generate", "jobs"} | FRONT_ENDS,
    "generate": {"hub", "registry", "publish", "jobs"} | FRONT_ENDS,
    "jobs": {"registry", "publish", "generate"} | FRONT_ENDS,
    "hub_server": PACKAGES - {"hub_server"},
    "space_support": {"cli", "hub_server"},
    "cli": set(),
}
#: The top-level modules (``errors``, ``atomic_io``, ``backoff``, ``secrets``, ...) are the base
#: every package may import: they import no package. The front door (``upskill_hub/__init__.py``)
#: exports the library lazily, not its front ends; ``__main__`` only starts the CLI.
BASE_FORBIDDEN = PACKAGES
ENTRY_POINTS: dict[str, set[str]] = {
    "upskill_hub": FRONT_ENDS | {"jobs"},
    "upskill_hub.__main__": PACKAGES - {"cli"},
}


def banned_for(name: str) -> set[str]:
    """The packages the module ``name`` must not import."""
    if name in ENTRY_POINTS:
        return ENTRY_POINTS[name]
    layer = name.split(".")[1]
    if layer in FORBIDDEN:
        return FORBIDDEN[layer]
    return BASE_FORBIDDEN if (PACKAGE / f"{layer}.py").is_file() else PACKAGES


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
    banned = banned_for(name)
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
        ("from upskill_hub.space_support.deploy import x\n", "upskill_hub.jobs.submit"),
        ("from upskill_hub.jobs.cost import FLAVORS\n", "upskill_hub.hub_server.jobs_api"),
        ("from upskill_hub.hub.client import Hub\n", "upskill_hub.hub_server.app"),
        ("from upskill_hub.registry.fetch import x\n", "upskill_hub.hub.client"),
        ("from upskill_hub.cli.output import x\n", "upskill_hub.space_support.live"),
        ("from upskill_hub.skill import load_skill\n", "upskill_hub.errors"),
        ("from upskill_hub.cli.main import app\n", "upskill_hub"),
    ],
)
def test_a_crossing_is_caught(source: str, name: str) -> None:
    assert violations(source, name)


def test_every_package_has_a_rule() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert packages == set(FORBIDDEN) == PACKAGES


def test_nothing_but_main_imports_the_cli() -> None:
    assert all("cli" in banned for layer, banned in FORBIDDEN.items() if layer != "cli")
    assert "cli" in BASE_FORBIDDEN and "cli" in ENTRY_POINTS["upskill_hub"]
    assert "cli" not in ENTRY_POINTS["upskill_hub.__main__"]


def test_allowed_imports_pass() -> None:
    source = (
        "from upskill_hub.errors import HubError\nfrom upskill_hub.skill import load_skill\n"
        "from .hub import Hub\nfrom upskill_hub.datasets_quiet import quiet_datasets\n"
    )
    assert violations(source, "upskill_hub.registry.evidence.read") == []
    assert violations("from . import hub\n", "upskill_hub.registry", is_package=True) == []
    shared = "from upskill_hub.jobs_flavors import FLAVORS\nfrom upskill_hub.errors import X\n"
    assert violations(shared, "upskill_hub.hub_server.jobs_api") == []
    assert violations("from upskill_hub.evaluation import x\n", "upskill_hub.jobs.shard") == []
    assert violations("from upskill_hub.cli.main import app\n", "upskill_hub.__main__") == []
