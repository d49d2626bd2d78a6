"""Where each coding agent reads skills (project folder and user folder), and the project root."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from upskill_hub.errors import UsageError

DEFAULT_AGENT = "claude"


@dataclass(frozen=True)
class AgentTarget:
    """One agent's skill folders.

    ``project_dir`` is relative to the project root. ``user_dir`` starts with ``~/``; when
    ``env_var`` is set in the environment it replaces ``env_default`` (the first part of
    ``user_dir``), e.g. ``$CLAUDE_CONFIG_DIR/skills`` instead of ``~/.claude/skills``.
    """

    name: str
    label: str
    project_dir: str
    user_dir: str
    env_var: str | None = None
    env_default: str | None = None

    def user_path(self) -> Path:
        """The ``--global`` skills folder, honouring the agent's config-dir variable."""
        if self.env_var and self.env_default:
            value = os.environ.get(self.env_var, "").strip()
            if value:
                rest = self.user_dir.removeprefix(self.env_default).lstrip("/")
                return Path(value).expanduser() / rest
        return Path(self.user_dir).expanduser()

    def project_path(self, project_root: Path) -> Path:
        return Path(project_root) / self.project_dir


AGENTS: dict[str, AgentTarget] = {
    t.name: t
    for t in (
        AgentTarget(
            "claude",
            "Claude Code",
            ".claude/skills",
            "~/.claude/skills",
            "CLAUDE_CONFIG_DIR",
            "~/.claude",
        ),
        AgentTarget("agents", "shared .agents convention", ".agents/skills", "~/.agents/skills"),
        AgentTarget("codex", "Codex", ".codex/skills", "~/.codex/skills", "CODEX_HOME", "~/.codex"),
        AgentTarget("cursor", "Cursor", ".cursor/skills", "~/.cursor/skills"),
        AgentTarget("copilot", "GitHub Copilot", ".github/skills", "~/.copilot/skills"),
        AgentTarget("gemini", "Gemini CLI", ".gemini/skills", "~/.gemini/skills"),
        AgentTarget(
            "opencode",
            "OpenCode",
            ".opencode/skills",
            "~/.config/opencode/skills",
            "XDG_CONFIG_HOME",
            "~/.config",
        ),
        AgentTarget(
            "goose",
            "Goose",
            ".goose/skills",
            "~/.config/goose/skills",
            "XDG_CONFIG_HOME",
            "~/.config",
        ),
        AgentTarget("windsurf", "Windsurf", ".windsurf/skills", "~/.codeium/windsurf/skills"),
    )
}


def agent_target(name: str) -> AgentTarget:
    """Look up an agent by name (case-insensitive); unknown names raise :class:`UsageError`."""
    key = name.strip().lower()
    if key not in AGENTS:
        valid = ", ".join(sorted(AGENTS))
        raise UsageError(f"unknown agent {name!r}; valid agents: {valid}")
    return AGENTS[key]


def skills_dirs(
    agents: Sequence[str],
    *,
    project_root: Path,
    global_: bool = False,
    custom_dir: Path | None = None,
) -> list[Path]:
    """The skills folders to install into, canonical (first) one first, without duplicates.

    ``custom_dir`` (``--dir``) comes first when given and then only the explicitly named agents
    follow; otherwise no agents means ``claude``. ``global_`` picks the user folders.
    """
    targets = [agent_target(a) for a in agents]
    if not targets and custom_dir is None:
        targets = [AGENTS[DEFAULT_AGENT]]
    dirs: list[Path] = []
    if custom_dir is not None:
        dirs.append(Path(custom_dir).expanduser().absolute())
    for target in targets:
        dirs.append(target.user_path() if global_ else target.project_path(project_root))
    unique: list[Path] = []
    seen: set[Path] = set()
    for d in dirs:
        key = Path(os.path.normpath(d.absolute()))
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding ``.git`` (dir or file), else ``start``."""
    start = Path(start).absolute()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start
