"""``from upskill_hub import ...``: every exported name resolves, lazily, and the README's
library example uses only the front door."""

from __future__ import annotations

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
