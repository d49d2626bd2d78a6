"""What a trigger eval asks: the queries (the guide's ``eval_queries.json``), their fixed
train/validation split, and the distractor skills listed beside the one measured.

* Queries: ``[{"query": str, "should_trigger": bool}, ...]`` (agentskills.io, "Optimizing
  descriptions"); ``{"queries": [...]}`` is accepted too. Query ``i`` (from 1) has id ``q<i>``.
* Split (``--split F --seed S``): within each class (should / should not trigger) the queries
  are shuffled by ``random.Random(S)`` and the first ``round(F * n)`` go to ``train``, the rest
  to ``validation``: the same file, fraction and seed always give the same split, and both sets
  keep the file's mix of positives and near-misses.
* Distractors: every skill folder under ``--distractors DIR``; by default the skills bundled
  with upskill-hub and a fixed set of common agent skills, known by name and description
  (``distractors.json``, shipped in the package so an installed tool has them). The skill
  measured is never its own distractor.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from upskill_hub.errors import InvalidTestFileError, Param, UsageError
from upskill_hub.evaluation.agent.tools import SkillFolder

__all__ = [
    "TriggerQuery",
    "default_distractors",
    "load_distractors",
    "read_queries",
    "split_queries",
]

Split = Literal["train", "validation"]
QUERIES_FILE = "evals/eval_queries.json"
_STUB_BODY = "(This skill's instructions are not part of the trigger eval.)"


@dataclass(frozen=True)
class TriggerQuery:
    """One query, whether it should load the skill, and its split (None without ``--split``)."""

    id: str
    query: str
    should_trigger: bool
    split: Split | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "should_trigger": self.should_trigger,
            "split": self.split,
        }


def find_queries_file(given: Path, skill_path: Path) -> Path:
    """``given`` as a path, else relative to the skill folder (``evals/eval_queries.json``)."""
    if given.is_file():
        return given
    inside = Path(skill_path) / given
    if not given.is_absolute() and inside.is_file():
        return inside
    raise UsageError(Param("triggers"), f" {given}: no such file (nor in {skill_path})")


def read_queries(path: Path) -> list[TriggerQuery]:
    """The queries of an ``eval_queries.json``; :class:`InvalidTestFileError` naming the entry."""
    from upskill_hub.skill.suite import read_test_json

    data = read_test_json(Path(path))
    if isinstance(data, dict) and "queries" in data:
        data = data["queries"]
    if not isinstance(data, list) or not data:
        raise InvalidTestFileError(
            f"{path}: expected a non-empty list of {{query, should_trigger}}"
        )
    queries = []
    for i, item in enumerate(data):
        where = f"{path}: [{i}]"
        if not isinstance(item, dict):
            raise InvalidTestFileError(f"{where}: must be an object")
        text = item.get("query")
        if not isinstance(text, str) or not text.strip():
            raise InvalidTestFileError(f"{where}.query: must be a non-empty string")
        should = item.get("should_trigger")
        if not isinstance(should, bool):
            raise InvalidTestFileError(f"{where}.should_trigger: must be true or false")
        queries.append(TriggerQuery(f"q{i + 1}", text, should))
    return queries


def split_queries(
    queries: list[TriggerQuery], train_fraction: float, seed: int
) -> list[TriggerQuery]:
    """``queries`` (same order) with their split; see the module docstring."""
    if not 0 < train_fraction < 1:
        raise UsageError(Param("split"), f" must be between 0 and 1 (got {train_fraction:g})")
    rng = random.Random(seed)
    chosen: dict[str, Split] = {}
    for wanted in (True, False):
        ids = [q.id for q in queries if q.should_trigger is wanted]
        rng.shuffle(ids)
        n_train = int(train_fraction * len(ids) + 0.5)
        for k, qid in enumerate(ids):
            chosen[qid] = "train" if k < n_train else "validation"
    return [TriggerQuery(q.id, q.query, q.should_trigger, chosen[q.id]) for q in queries]


def _stub(name: str, description: str) -> SkillFolder:
    text = f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n\n{_STUB_BODY}\n"
    return SkillFolder(name=name, description=description, skill_md_text=text)


def default_distractors(exclude: str) -> list[SkillFolder]:
    """The packaged distractors (bundled skills and common agent skills), ``exclude`` left
    out."""
    text = resources.files("upskill_hub.evaluation").joinpath("distractors.json").read_text()
    entries = json.loads(text)["skills"]
    return [_stub(e["name"], e["description"]) for e in entries if e["name"] != exclude]


def load_distractors(folder: Path, exclude: str) -> list[SkillFolder]:
    """Every skill folder directly under ``folder`` (or ``folder`` itself if it is one), the
    one named ``exclude`` left out; :class:`UsageError` naming ``--distractors`` if none."""
    from upskill_hub.errors import UpskillHubError
    from upskill_hub.skill.model import SKILL_FILENAME, load_skill

    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(Param("distractors"), f" {folder}: no such folder")
    dirs = [folder] if (folder / SKILL_FILENAME).is_file() else sorted(folder.iterdir())
    found = []
    for path in dirs:
        if not (path / SKILL_FILENAME).is_file():
            continue
        try:
            skill = load_skill(path, with_tests=False)
        except UpskillHubError as exc:
            raise UsageError(Param("distractors"), f" {folder}: {exc}") from None
        if skill.name != exclude:
            found.append(SkillFolder.of(skill))
    if not found:
        raise UsageError(
            Param("distractors"), f" {folder}: no other skill folder (with a SKILL.md) in it"
        )
    return found
