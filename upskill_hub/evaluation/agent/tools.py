"""The two tools of agent mode, shaped like Claude Code's: ``Skill`` and ``Read``.

* ``Skill`` (``{"skill": NAME}``) returns the SKILL.md of a listed skill and marks it loaded.
* ``Read`` (``{"file_path": PATH}``) returns a file of a loaded skill, by its path relative to
  the skill's folder (``references/guide.md``, or ``NAME/references/guide.md``), or one of the
  case's attached files by name.

Nothing else is ever returned. A path that is absolute, climbs (``..``), goes through a
symbolic link, is not among the skill's listed files (:func:`upskill_hub.skill.model.list_files`,
the files ``push`` publishes: junk such as ``.git`` and secret-named files such as ``.env`` or
``id_rsa`` excluded), is not a regular UTF-8 file (a FIFO or device is refused without being
opened for reading), or names a skill not loaded yet gets an error result the model reads
(``is_error``), never the file. Files are read from disk only at the moment of the call, at most
:data:`MAX_READ_BYTES` and :data:`READ_TIMEOUT_S` seconds of reading.
"""

from __future__ import annotations

import io
import os
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from upskill_hub.evaluation.types import ToolCall, ToolResult, ToolSpec, ToolUse

__all__ = [
    "MAX_READ_BYTES",
    "READ_TIMEOUT_S",
    "READ_TOOL",
    "SKILL_TOOL",
    "TOOLS",
    "SkillFolder",
    "Toolbox",
]

#: Largest file ``Read`` returns; a larger one is cut there, the result saying so.
MAX_READ_BYTES = 256 * 1024
#: A read still going after this long is cut off (a slow or hung file system).
READ_TIMEOUT_S = 5.0
_CHUNK = 64 * 1024
_INPUT_CHARS = 300

SKILL_TOOL = ToolSpec(
    name="Skill",
    description=(
        "Load a skill listed in <available_skills>: returns its SKILL.md instructions. Call it "
        "with the skill's name when the task matches the skill's description, before answering."
    ),
    input_schema={
        "type": "object",
        "properties": {"skill": {"type": "string", "description": "The skill's name."}},
        "required": ["skill"],
    },
)
READ_TOOL = ToolSpec(
    name="Read",
    description=(
        "Read a text file: a file of a loaded skill, by its path relative to the skill's folder "
        "(for example references/guide.md), or a file attached to the task, by its name."
    ),
    input_schema={
        "type": "object",
        "properties": {"file_path": {"type": "string", "description": "The file to read."}},
        "required": ["file_path"],
    },
)
TOOLS: tuple[ToolSpec, ...] = (SKILL_TOOL, READ_TOOL)


@dataclass(frozen=True)
class SkillFolder:
    """A skill the model may load: name, description, SKILL.md text, and its folder (``None``
    for a skill known by its description only, such as a packaged distractor)."""

    name: str
    description: str
    skill_md_text: str
    path: Path | None = None
    files: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, skill: object) -> SkillFolder:
        """From a loaded skill (anything with ``name``, ``path``, ``skill_md_text`` and
        optionally ``description``); its file list is taken now."""
        from upskill_hub.skill.model import list_files

        path = Path(getattr(skill, "path"))  # noqa: B009 - SkillLike, not a typed attribute
        return cls(
            name=str(getattr(skill, "name")),  # noqa: B009
            description=str(getattr(skill, "description", "") or ""),
            skill_md_text=str(getattr(skill, "skill_md_text")),  # noqa: B009
            path=path,
            files=frozenset(list_files(path)) if path.is_dir() else frozenset(),
        )


class ReadRefused(Exception):
    """Why a ``Read`` is refused (the message goes to the model)."""


def _clean_path(raw: str) -> str:
    """``raw`` as a relative posix path, or :class:`ReadRefused`."""
    text = raw.strip()
    if not text or "\x00" in text:
        raise ReadRefused("file_path must be a non-empty path")
    text = text.replace("\\", "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or text.startswith("~"):
        raise ReadRefused(
            f"{raw}: absolute paths are not readable; give a path relative to a loaded "
            "skill's folder"
        )
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ReadRefused(f"{raw}: paths may not leave the skill's folder ('..')")
    if not parts:
        raise ReadRefused(f"{raw}: not a file")
    return "/".join(parts)


def _read_inside(root: Path, rel: str) -> str:
    """The text of ``root/rel``, refusing symbolic links anywhere on the way and anything that
    is not a regular UTF-8 file inside ``root``."""
    current = root
    for part in rel.split("/"):
        current = current / part
        if current.is_symlink():
            raise ReadRefused(f"{rel}: a symbolic link; not readable")
    resolved = current.resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise ReadRefused(f"{rel}: outside the skill's folder")
    try:
        if not stat.S_ISREG(os.lstat(current).st_mode):
            raise ReadRefused(f"{rel}: not a regular file")
        # O_NONBLOCK: a FIFO swapped in since the check opens at once instead of waiting
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(current, flags)
    except OSError as exc:
        raise ReadRefused(f"{rel}: cannot be read ({exc.strerror or 'error'})") from None
    with os.fdopen(fd, "rb", buffering=0) as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ReadRefused(f"{rel}: not a regular file")
        data = _read_capped(fh, rel)
    cut = len(data) > MAX_READ_BYTES
    try:
        text = data[:MAX_READ_BYTES].decode("utf-8", errors="strict" if not cut else "ignore")
    except UnicodeDecodeError:
        raise ReadRefused(f"{rel}: a binary file; only text files are readable") from None
    if cut:
        text += f"\n[file cut at {MAX_READ_BYTES} bytes]"
    return text


def _read_capped(fh: io.FileIO, rel: str) -> bytes:
    """Up to ``MAX_READ_BYTES + 1`` bytes of an open regular file, in chunks, within
    :data:`READ_TIMEOUT_S`."""
    deadline = time.monotonic() + READ_TIMEOUT_S
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_READ_BYTES:
        chunk = fh.read(min(_CHUNK, MAX_READ_BYTES + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if time.monotonic() > deadline:
            raise ReadRefused(f"{rel}: reading took over {READ_TIMEOUT_S:g} s; not read")
    return b"".join(chunks)


class Toolbox:
    """The tools of one sample: the skills it lists and the case's attached files."""

    def __init__(self, skills: Sequence[SkillFolder], case_files: Mapping[str, str]) -> None:
        self.skills = {s.name: s for s in skills}
        self.case_files = dict(case_files)
        self.loaded: list[str] = []

    def execute(self, call: ToolCall) -> tuple[ToolResult, ToolUse]:
        """Run one call: the result for the model and the record for the sample."""
        args = call.arguments
        if call.name == "Skill":
            value = args.get("skill") if args is not None else None
            shown = str(value)[:_INPUT_CHARS] if value is not None else ""
            if not isinstance(value, str) or not value.strip():
                return self._error(call, "Skill", shown, 'input must be {"skill": NAME}')
            return self._skill(call, value.strip())
        if call.name == "Read":
            value = args.get("file_path") if args is not None else None
            shown = str(value)[:_INPUT_CHARS] if value is not None else ""
            if not isinstance(value, str):
                return self._error(call, "Read", shown, 'input must be {"file_path": PATH}')
            try:
                text = self._read(value)
            except ReadRefused as why:
                return self._error(call, "Read", shown, str(why))
            return ToolResult(call.id, text), ToolUse("Read", shown)
        return self._error(
            call, call.name[:_INPUT_CHARS], "", f"unknown tool {call.name!r}; use Skill or Read"
        )

    def refuse(self, call: ToolCall, why: str) -> tuple[ToolResult, ToolUse]:
        """An error result for ``call`` without running it (the loop's per-turn limits)."""
        args = call.arguments or {}
        value = args.get("file_path", args.get("skill"))
        shown = str(value)[:_INPUT_CHARS] if value is not None else ""
        return self._error(call, call.name[:_INPUT_CHARS], shown, why)

    def _error(self, call: ToolCall, tool: str, shown: str, why: str) -> tuple[ToolResult, ToolUse]:
        return (
            ToolResult(call.id, f"Error: {why}", is_error=True),
            ToolUse(tool, shown, ok=False, error=why),
        )

    def _skill(self, call: ToolCall, name: str) -> tuple[ToolResult, ToolUse]:
        skill = self.skills.get(name)
        if skill is None:
            listed = ", ".join(sorted(self.skills)) or "none"
            return self._error(
                call, "Skill", name, f"no skill named {name!r} is available (available: {listed})"
            )
        if name not in self.loaded:
            self.loaded.append(name)
        header = f"Base directory for this skill: {name}/ (Read its files by relative path)"
        return ToolResult(call.id, f"{header}\n\n{skill.skill_md_text}"), ToolUse("Skill", name)

    def _read(self, raw: str) -> str:
        if raw in self.case_files:
            return self.case_files[raw]
        rel = _clean_path(raw)
        if rel in self.case_files:
            return self.case_files[rel]
        head, _, rest = rel.partition("/")
        candidates: list[tuple[SkillFolder, str]] = []
        if rest and head in self.skills and head in self.loaded:
            candidates.append((self.skills[head], rest))
        candidates += [(self.skills[n], rel) for n in reversed(self.loaded)]
        if not self.loaded:
            if head in self.skills or any(rel in s.files for s in self.skills.values()):
                raise ReadRefused(f"{raw}: load the skill with the Skill tool first")
            raise ReadRefused(f"{raw}: no such file (no skill is loaded)")
        from upskill_hub.skill.model import is_published

        for skill, path in candidates:
            # only what push would publish: never junk, never a file named like a secret
            if skill.path is not None and path in skill.files and is_published(path):
                return _read_inside(skill.path, path)
        raise ReadRefused(f"{raw}: no such file in the loaded skill's folder or the task's files")
