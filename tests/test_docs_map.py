"""The maps stay true: every module path and dotted name that docs/architecture.md and
CONTRIBUTING.md give exists, and every package ``__init__`` lists each of its modules.

Static (nothing is imported): a path ``upskill_hub/a/b.py`` (or a folder ``upskill_hub/a/``)
must exist in the checkout; a dotted name ``upskill_hub.a.b.name`` must be a module, or a
name its longest module prefix defines (tests/test_docstring_refs.py resolves it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.test_docstring_refs import resolves

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "upskill_hub"
DOCUMENTS = ("docs/architecture.md", "CONTRIBUTING.md")
#: ``upskill_hub/...`` paths (files or folders), and ``upskill_hub.x.y`` dotted names.
PATH = re.compile(r"(?<![\w/.-])upskill_hub(?:/[A-Za-z0-9_.]+)*/?")
DOTTED = re.compile(r"(?<![\w/.-])upskill_hub(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: A name given with its module: "`name` in `upskill_hub/a.py`", "`name` (`upskill_hub/a.py`".
NAME_IN_MODULE = re.compile(
    r"`([A-Za-z_]\w*)`(?:\s+in|\s+of)?\s+\(?`(upskill_hub/[\w/]+?)(?:/__init__)?\.py`"
)
#: Other repository paths a document names (``tests/...``, ``schemas/...``, ``scripts/check``).
REPO_PATH = re.compile(r"(?<![\w/.-])(?:tests|schemas|scripts|docs|space|benchmarks)/[\w./-]*\w")


def paths_in(text: str) -> list[str]:
    return [m.group(0).rstrip(".") for m in PATH.finditer(text) if "/" in m.group(0)]


def dotted_in(text: str) -> list[str]:
    return [m.group(0) for m in DOTTED.finditer(text)]


def missing_paths(text: str) -> list[str]:
    """Every ``upskill_hub/...`` or other repository path in ``text`` that does not exist."""
    found = paths_in(text) + [m.group(0) for m in REPO_PATH.finditer(text)]
    return sorted({p for p in found if "*" not in p and not (ROOT / p).exists()})


def names_in(text: str) -> list[str]:
    """Dotted names, and "`name` in `upskill_hub/x/y.py`" as ``upskill_hub.x.y.name``."""
    given = [f"{m.group(2).replace('/', '.')}.{m.group(1)}" for m in NAME_IN_MODULE.finditer(text)]
    return dotted_in(text) + given


def missing_names(text: str) -> list[str]:
    return sorted({name for name in names_in(text) if not resolves(name)})


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_module_a_document_names_exists(document: str) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    assert len(paths_in(text)) + len(names_in(text)) >= (20 if "architecture" in document else 1)
    assert missing_paths(text) == []
    assert missing_names(text) == []


def test_a_stale_name_is_caught() -> None:
    text = (
        "See upskill_hub/registry/lock.py and `upskill_hub.registry.hub.Hub`, tests/nope.py; "
        "`fetch_all` in `upskill_hub/registry/fetch.py`."
    )
    assert missing_paths(text) == ["tests/nope.py", "upskill_hub/registry/lock.py"]
    assert missing_names(text) == [
        "upskill_hub.registry.fetch.fetch_all",
        "upskill_hub.registry.hub.Hub",
    ]
    good = (
        "upskill_hub/hub/client.py, upskill_hub/registry/, upskill_hub.hub.client.Hub, "
        "`fetch_skills` (`upskill_hub/registry/fetch.py`), `KINDS` in "
        "`upskill_hub/evaluation/assertions/__init__.py`"
    )
    assert missing_paths(good) == [] and missing_names(good) == []
    assert len(names_in(good)) == 3


def package_inits() -> list[Path]:
    return sorted(PACKAGE.rglob("__init__.py"))


def unlisted_modules(init: Path) -> list[str]:
    """The modules and sub-packages of ``init``'s package its docstring does not list as
    ``- :mod:`.name`: what it is``."""
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    listed = set(re.findall(r"^\s*- :mod:`\.([A-Za-z0-9_]+)`:", docstring, re.MULTILINE))
    folder = init.parent
    members = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
    members |= {p.parent.name for p in folder.glob("*/__init__.py")}
    return sorted(members - listed)


@pytest.mark.parametrize("init", package_inits(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_package_docstring_lists_its_modules(init: Path) -> None:
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert docstring, f"{init.relative_to(ROOT)}: no module docstring"
    assert unlisted_modules(init) == []


def test_an_unlisted_module_is_caught(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text('"""A package.\n\n- :mod:`.listed`: here.\n"""\n')
    (tmp_path / "listed.py").write_text("")
    (tmp_path / "forgotten.py").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__init__.py").write_text("")
    assert unlisted_modules(tmp_path / "__init__.py") == ["forgotten", "sub"]
