"""``from upskill_hub import ...``: every exported name resolves, lazily, and the README's
library example uses only the front door."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_import_upskill_hub_is_cheap_and_every_name_resolves() -> None:
    code = (
        "import sys, upskill_hub\n"
        "heavy = [m for m in ('huggingface_hub', 'datasets', 'openai', 'typer', 'rich') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "for package in ('upskill_hub', 'upskill_hub.evaluation', 'upskill_hub.registry', "
        "'upskill_hub.publish'):\n"
        "    module = __import__(package, fromlist=['x'])\n"
        "    for name in module.__all__:\n"
        "        assert getattr(module, name) is not None, (package, name)\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_readme_library_example_uses_only_the_front_door() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Library", 1)[1].split("\n## ", 1)[0]
    imports = re.findall(r"^from (\S+) import (.+)$", section, re.MULTILINE)
    assert imports
    import upskill_hub

    for module, names in imports:
        if module == "pathlib":
            continue
        assert module == "upskill_hub", module
        for name in (n.strip() for n in names.split(",")):
            assert name in upskill_hub.__all__, name
    assert (REPO / "upskill_hub" / "py.typed").is_file()


def test_the_version_is_written_once() -> None:
    """pyproject.toml takes the version from ``upskill_hub/__init__.py`` (hatch's version
    source); every other place (``--version``, run.json's tool, the Hub's user agent, Space and
    Jobs requirements) reads ``upskill_hub.__version__``."""
    import importlib.metadata
    import tomllib

    import upskill_hub

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    source = REPO / pyproject["tool"]["hatch"]["version"]["path"]
    assert source == REPO / "upskill_hub" / "__init__.py"
    # hatch's regex version source: the first ``__version__ = "..."`` line of the file
    found = re.findall(
        r"""^__version__ *= *(['"])v?(.+?)\1""", source.read_text(encoding="utf-8"), re.MULTILINE
    )
    assert [v for _, v in found] == [upskill_hub.__version__]
    assert importlib.metadata.version("upskill-hub") == upskill_hub.__version__
    others = [
        str(path.relative_to(REPO))
        for path in (REPO / "upskill_hub").rglob("*.py")
        if path != source and re.search(r"^__version__ *=", path.read_text("utf-8"), re.MULTILINE)
    ]
    assert not others, others
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from upskill_hub.cli.entry import main; main()",
            "--version",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == f"upskill-hub {upskill_hub.__version__}\n", done.stderr


#: Packages whose errors never reach a library caller: the command line turns them into a line
#: and an exit code, the Space into a message, the test Hub server into an HTTP response.
APPLICATION_PACKAGES = ("upskill_hub/cli/", "upskill_hub/space_support/", "upskill_hub/hub_server/")
#: Exceptions that stay inside the library (control flow between its own parts); anything a
#: caller can see derives from ``UpskillHubError``.
INTERNAL_EXCEPTIONS = {
    "Cancelled",  # evaluation.assertions.tool_slots: a slot's task given up
    "JsonInputError",  # json_input: becomes the caller's own error naming the file
    "JudgeSkipped",  # evaluation.assertions.base: the judge check becomes ``skipped``
    "PathTooWide",  # evaluation.assertions.keypath: becomes a failed check
    "ReadRefused",  # evaluation.agent.tools: becomes the tool's answer to the model
    "RetriesExhausted",  # evaluation.retry: becomes a ProviderError or an error sample
    "_Cycle",  # skill.frontmatter: a YAML alias loop, reported as a finding
}


def _exception_classes() -> dict[str, tuple[str, list[str]]]:
    """Class name -> (module, base names) for every class of the library (ast, no import)."""
    found = {}
    for path in sorted((REPO / "upskill_hub").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith(APPLICATION_PACKAGES):
            continue
        module = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases]
                found.setdefault(node.name, (module, bases))
    return found


def test_every_library_error_is_in_the_front_door_with_an_error_name() -> None:
    import upskill_hub
    from upskill_hub.errors import UpskillHubError

    classes = _exception_classes()

    def derives(name: str, root: str) -> bool:
        return name == root or any(derives(b, root) for b in classes.get(name, ("", []))[1])

    errors = {n: m for n, (m, _) in classes.items() if derives(n, "UpskillHubError")}
    assert {"UpskillHubError", "HubError", "ScanRefusedError", "TeacherError"} <= set(errors)
    for name, module in errors.items():
        assert name.endswith("Error"), f"{module}.{name}: an error class's name ends in Error"
        assert upskill_hub._EXPORTS.get(name) == module, f"{module}.{name} not in the front door"
        error = getattr(upskill_hub, name)
        assert issubclass(error, UpskillHubError) and error.__module__ == module
    others = {
        n
        for n in classes
        if n not in errors
        and any(derives(n, root) for root in ("Exception", "ValueError", "RuntimeError"))
    }
    assert others == INTERNAL_EXCEPTIONS, (
        "an exception a caller may see derives from UpskillHubError and is exported; one that "
        "stays inside the library is listed in INTERNAL_EXCEPTIONS"
    )


def _lazy_packages() -> list[Path]:
    return sorted(
        p
        for p in (REPO / "upskill_hub").rglob("__init__.py")
        if "lazy_exports(" in p.read_text(encoding="utf-8")
    )


def test_each_lazy_export_table_is_its_all_and_its_type_checking_imports() -> None:
    """``_EXPORTS`` is the one list: ``__all__`` is derived from it, and the ``TYPE_CHECKING``
    block (what type checkers and editors see) imports exactly its names from its modules,
    each as itself so that it counts as re-exported."""
    import importlib

    packages = _lazy_packages()
    assert len(packages) >= 5, packages
    for path in packages:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(REPO)
        exports = typed = derived = None
        for node in tree.body:
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_EXPORTS":
                exports = ast.literal_eval(node.value)
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
                derived = ast.unparse(node.value)
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                typed = {}
                for stmt in node.body:
                    assert isinstance(stmt, ast.ImportFrom), f"{where}: {ast.unparse(stmt)}"
                    for alias in stmt.names:
                        assert alias.asname == alias.name, f"{where}: import {alias.name} as itself"
                        assert alias.name not in typed, f"{where}: {alias.name} imported twice"
                        typed[alias.name] = stmt.module
        assert exports, f"{where}: no _EXPORTS table"
        assert derived == "sorted(_EXPORTS)", f"{where}: __all__ = sorted(_EXPORTS)"
        assert typed == exports, f"{where}: the TYPE_CHECKING imports differ from _EXPORTS"
        package = importlib.import_module(".".join(where.parent.parts))
        assert package.__all__ == sorted(exports) == dir(package)
