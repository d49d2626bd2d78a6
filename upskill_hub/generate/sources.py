"""What ``generate --from PATH`` starts from: a skill folder to improve, or an agent trace."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from upskill_hub.errors import Param, UsageError
from upskill_hub.generate.traces import (
    DEFAULT_TRACE_BUDGET,
    CondensedTrace,
    Trace,
    condense,
    read_trace,
)
from upskill_hub.skill import Skill, load_skill
from upskill_hub.skill.model import SKILL_FILENAME, skill_dir_of
from upskill_hub.skill.testcases import META_FILENAME

SourceKind = Literal["task", "trace", "skill"]


@dataclass
class Source:
    """The starting point. ``sha256`` fingerprints the trace file's bytes, or for a skill its
    SKILL.md and skill_meta.json; None for a bare task."""

    kind: SourceKind
    path: Path | None = None
    sha256: str | None = None
    trace: Trace | None = None
    condensed: CondensedTrace | None = None
    skill: Skill | None = None

    def describe(self) -> dict[str, object]:
        """The ``source`` entry of skill_meta.json metadata (file name only, no local paths)."""
        data: dict[str, object] = {"kind": self.kind, "sha256": self.sha256}
        if self.path is not None:
            data["name"] = self.path.name
        if self.trace is not None:
            data["format"] = self.trace.format
            data["events"] = len(self.trace.events)
            data["condensed"] = bool(self.condensed and self.condensed.shortened)
        if self.skill is not None:
            data["skill"] = self.skill.name
            data["tests"] = len(self.skill.tests)
        return data


def source_sha256(folder: Path) -> str:
    """sha256 over SKILL.md, a NUL byte, and skill_meta.json (empty when absent)."""
    digest = hashlib.sha256((folder / SKILL_FILENAME).read_bytes())
    digest.update(b"\0")
    meta = folder / META_FILENAME
    if meta.is_file():
        digest.update(meta.read_bytes())
    return "sha256:" + digest.hexdigest()


def load_source(path: Path | None, *, trace_budget: int = DEFAULT_TRACE_BUDGET) -> Source:
    """A skill folder (or its SKILL.md) becomes a skill source; any other file a trace."""
    if path is None:
        return Source("task")
    path = Path(path).expanduser()
    if not path.exists():
        raise UsageError(Param("source"), f" {path}: no such file or folder")
    folder = skill_dir_of(path)
    if folder.is_dir():
        if not (folder / SKILL_FILENAME).is_file():
            raise UsageError(
                Param("source"), f" {path}: a folder must be a skill (it has no SKILL.md)"
            )
        skill = load_skill(folder)
        return Source("skill", folder, source_sha256(folder), skill=skill)
    trace = read_trace(path)
    return Source("trace", path, trace.sha256, trace=trace, condensed=condense(trace, trace_budget))
