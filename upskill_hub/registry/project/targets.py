"""Where each coding agent reads skills (project folder and user folder), and the project root.

The table follows each agent's documentation (sources in the README, "Install"). Codex reads
the shared ``.agents/skills`` (project, from the working directory up to the repository root)
and ``~/.agents/skills``; it does not read ``.codex/skills``, where earlier releases of this
tool installed it. Those folders stay valid lock targets (:data:`LEGACY_TARGETS`), so an older
lock still reads, and ``remove`` still deletes what it installed there.
"""

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
        AgentTarget("codex", "Codex", ".agents/skills", "~/.agents/skills"),
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


#: Folders earlier releases of this tool installed into, which the agent does not read (Codex's
#: documentation names only ``.agents/skills``): accepted in locks, never installed into anew.
LEGACY_TARGETS: tuple[AgentTarget, ...] = (
    AgentTarget(
        "codex", "Codex (old folder)", ".codex/skills", "~/.codex/skills", "CODEX_HOME", "~/.codex"
    ),
)


def _known_folders() -> tuple[AgentTarget, ...]:
    return (*AGENTS.values(), *LEGACY_TARGETS)


#: Other names agents go by (``--agent claude-code`` is Claude Code).
AGENT_ALIASES = {"claude-code": "claude", "gemini-cli": "gemini", "github-copilot": "copilot"}


def agent_target(name: str) -> AgentTarget:
    """Look up an agent by name (case-insensitive); unknown names raise :class:`UsageError`."""
    key = name.strip().lower()
    key = AGENT_ALIASES.get(key, key)
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


def target_entry(path: Path, project_root: Path) -> str:
    """How the lock records an install folder: project-relative, else ``~/...``, else absolute."""
    path = Path(os.path.normpath(Path(path).expanduser().absolute()))
    for base, prefix in ((Path(project_root).absolute(), ""), (Path.home(), "~/")):
        base = Path(os.path.normpath(base))
        if path != base and path.is_relative_to(base):
            return prefix + path.relative_to(base).as_posix()
    return path.as_posix()


def target_path(entry: str, project_root: Path) -> Path:
    """The folder a lock ``targets`` entry points at (inverse of :func:`target_entry`)."""
    if entry.startswith("~"):
        return Path(entry).expanduser()
    path = Path(entry)
    return path if path.is_absolute() else Path(project_root) / path


def lock_target_entries(name: str, project_root: Path) -> set[str]:
    """Every ``targets`` entry a lock may hold for skill ``name``: ``<agent folder>/<name>``.

    Project folders are recorded relative to the project root (``.claude/skills/NAME``); user
    folders as ``~/...`` (``~/.claude/skills/NAME``), or where an agent's config-dir variable
    moves them, as :func:`target_entry` records that folder.
    """
    entries: set[str] = set()
    for agent in _known_folders():
        entries.add(f"{agent.project_dir}/{name}")
        entries.add(f"{agent.user_dir}/{name}")
        entries.add(target_entry(agent.user_path() / name, project_root))
    return entries


def is_project_folder(folder: Path, project_root: Path) -> bool:
    """Whether ``folder`` lies (as written, links not followed) inside the project root."""
    path = os.path.normpath(Path(folder).expanduser().absolute())
    root = os.path.normpath(Path(project_root).absolute())
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def is_agent_folder(folder: Path, project_root: Path) -> bool:
    """Whether ``folder`` is one of the agents' skills folders (project or user)."""
    path = Path(os.path.normpath(Path(folder).expanduser().absolute()))
    for agent in _known_folders():
        known = (
            agent.project_path(project_root),
            agent.user_path(),
            Path(agent.user_dir).expanduser(),
        )
        if any(path == Path(os.path.normpath(k.absolute())) for k in known):
            return True
    return False


def confinement_problem(folder: Path, project_root: Path) -> str | None:
    """Why installing into (or deleting from) ``folder`` would leave its scope, else None.

    A project skills folder must really (symlinks followed) lie inside the project; a user one
    inside HOME or the agent's configured user folder. A ``.claude/skills`` symlink that points
    out of a cloned repository is refused here, so the lock never says ``.claude/skills/NAME``
    while the files went elsewhere.
    """
    real = os.path.realpath(Path(folder).expanduser().absolute())
    if is_project_folder(folder, project_root):
        scopes = [os.path.realpath(project_root)]
        what = f"the project ({project_root})"
    else:
        scopes = [os.path.realpath(Path.home())]
        scopes += [os.path.realpath(a.user_path()) for a in _known_folders()]
        what = "your home folder"
    for scope in scopes:
        if real == scope or real.startswith(scope.rstrip(os.sep) + os.sep):
            return None
    return f"{folder} resolves to {real}, outside {what}"


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding ``.git`` (dir or file), else ``start``."""
    start = Path(start).absolute()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start
