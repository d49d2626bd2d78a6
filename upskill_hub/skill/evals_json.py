"""The spec's own test file, ``evals/evals.json`` (agentskills.io, "Evaluating skills"), read as
test cases.

``{"skill_name": str, "evals": [{"id": int, "prompt": str, "expected_output": str,
"files": [path, ...], "expectations": [str, ...]}]}``: each eval becomes a case ``eval-<id>``
whose input is the prompt, whose context files are the listed files (read from the skill
folder, paths relative to it), and whose assertions are one ``judge`` per expectation (the
expectation is the rubric); an eval without expectations is judged against its
``expected_output``. Judge assertions need a judge model (``--judge-model``); without one they
are skipped and the run says so.

A listed file must stay inside the skill folder (no absolute path, no ``..``, no symbolic link)
and be UTF-8 text; anything else is an :class:`InvalidTestFileError` naming the eval and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from upskill_hub.errors import InvalidTestFileError
from upskill_hub.skill.suite import AssertionSpec, TestCase, TestSuite, read_test_json

__all__ = ["EVALS_FILE", "evals_root", "is_evals_json", "read_evals_json", "suite_from_evals"]

EVALS_FILE = "evals/evals.json"
MAX_FILE_BYTES = 1024 * 1024


def is_evals_json(data: Any) -> bool:
    """Whether ``data`` has the shape of an ``evals.json`` (an object with an ``evals`` list
    and none of upskill's ``tests`` / ``cases``)."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("evals"), list)
        and "tests" not in data
        and "cases" not in data
    )


def _read_listed(root: Path, raw: Any, where: str) -> tuple[str, str]:
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidTestFileError(f"{where}: must be a non-empty path")
    rel = raw.strip().replace("\\", "/")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if rel.startswith("/") or ".." in parts or not parts:
        raise InvalidTestFileError(f"{where}: {raw!r} must be a path inside the skill folder")
    path = root
    for part in parts:
        path = path / part
        if path.is_symlink():
            raise InvalidTestFileError(f"{where}: {raw!r} is a symbolic link; not read")
    if not path.is_file():
        raise InvalidTestFileError(f"{where}: {raw!r} not found in {root}")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidTestFileError(f"{where}: {raw!r} is larger than 1 MB")
    try:
        return "/".join(parts), path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidTestFileError(f"{where}: {raw!r} is not UTF-8 text") from None


def _expectations(obj: dict[str, Any], where: str) -> list[AssertionSpec]:
    raw = obj.get("expectations", [])
    if not isinstance(raw, list) or not all(isinstance(e, str) for e in raw):
        raise InvalidTestFileError(f"{where}.expectations: must be a list of strings")
    rubrics = [e.strip() for e in raw if e.strip()]
    expected = obj.get("expected_output")
    if expected is not None and not isinstance(expected, str):
        raise InvalidTestFileError(f"{where}.expected_output: must be a string")
    if not rubrics and expected and expected.strip():
        rubrics = [f"The answer gives this expected result: {expected.strip()}"]
    if not rubrics:
        raise InvalidTestFileError(f"{where}: has neither expectations nor expected_output")
    return [{"type": "judge", "rubric": r} for r in rubrics]


def suite_from_evals(data: Any, source: str, root: Path) -> TestSuite:
    """The cases of an ``evals.json`` object; ``root`` is the folder its files are relative to
    (the skill folder)."""
    if not is_evals_json(data):
        raise InvalidTestFileError(f"{source}: expected an object with an 'evals' list")
    name = data.get("skill_name")
    if name is not None and not isinstance(name, str):
        raise InvalidTestFileError(f"{source}: 'skill_name' must be a string")
    cases: list[TestCase] = []
    seen: set[str] = set()
    for index, obj in enumerate(data["evals"]):
        where = f"{source}: evals[{index}]"
        if not isinstance(obj, dict):
            raise InvalidTestFileError(f"{where}: must be an object")
        raw_id = obj.get("id", index + 1)
        if isinstance(raw_id, bool) or not isinstance(raw_id, int | str) or raw_id == "":
            raise InvalidTestFileError(f"{where}.id: must be an integer or a string")
        case_id = f"eval-{raw_id}"
        if case_id in seen:
            raise InvalidTestFileError(f"{where}.id: duplicate id {raw_id!r}")
        seen.add(case_id)
        prompt = obj.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise InvalidTestFileError(f"{where}.prompt: must be a non-empty string")
        listed = obj.get("files", [])
        if not isinstance(listed, list):
            raise InvalidTestFileError(f"{where}.files: must be a list of paths")
        files = dict(_read_listed(root, raw, f"{where}.files[{j}]") for j, raw in enumerate(listed))
        cases.append(
            TestCase(
                id=case_id,
                input=prompt,
                files=files,
                assertions=tuple(_expectations(obj, where)),
            )
        )
    metadata = {"source": "evals.json", **({"skill_name": name} if name else {})}
    return TestSuite(cases=cases, metadata=metadata)


def evals_root(path: Path) -> Path:
    """The folder an ``evals.json``'s files are relative to: the skill folder (the parent of
    its ``evals/`` folder), else the file's own folder."""
    path = Path(path)
    return path.parent.parent if path.parent.name == "evals" else path.parent


def read_evals_json(path: Path, root: Path | None = None) -> TestSuite:
    """Read an ``evals.json``; files are relative to ``root`` (default :func:`evals_root`)."""
    return suite_from_evals(read_test_json(path), str(path), root or evals_root(path))
