"""The skill as a typed object: load a folder, write one back.

This package knows nothing of the Hub, models or the terminal; everything else builds on it.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.errors import InvalidSkillError, SkillNotFoundError
from upskill_hub.skill.frontmatter import dump_skill_md, normalize_text, parse_skill_md
from upskill_hub.skill.testcases import (
    META_FILENAME,
    TestCase,
    TestSuite,
    read_skill_meta,
    write_suite,
)

SKILL_FILENAME = "SKILL.md"
MAX_SKILL_MD_BYTES = 5 * 1024 * 1024
MAX_LISTED_FILES = 10_000

_JUNK_NAMES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".DS_Store",
        "Thumbs.db",
        "desktop.ini",
        ".ipynb_checkpoints",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".venv",
        "node_modules",
        ".idea",
        ".vscode",
        ".hf-skill-manifest.json",
    }
)
_JUNK_SUFFIXES = (".pyc", ".pyo", ".swp", ".swo", "~")

#: Files and folders that hold credentials (compared case-insensitively).
_SECRET_NAMES = frozenset(
    {
        ".env",
        ".netrc",
        "_netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".htpasswd",
        ".pgpass",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        ".ssh",
        ".aws",
        ".gnupg",
        ".docker",
        ".kube",
    }
)
_SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore")
#: ``.env.example`` and friends document variables; they are meant to be shared.
_ENV_TEMPLATES = frozenset({"example", "sample", "template", "dist", "defaults"})


def is_junk(relpath: str) -> bool:
    """True for VCS, OS and editor leftovers that never belong in a published skill."""
    for part in relpath.replace("\\", "/").split("/"):
        if part in _JUNK_NAMES or part.startswith("._") or part.endswith(_JUNK_SUFFIXES):
            return True
    return False


def is_secret_file(relpath: str) -> bool:
    """True for files named like credentials (``.env``, ``.env.local``, ``id_rsa``, ``.netrc``,
    ``*.pem``, anything under ``.ssh/`` or ``.aws/``...): never listed, so ``push`` never
    publishes them and agent mode's ``Read`` never returns them. ``.env.example`` is not one."""
    for part in relpath.replace("\\", "/").lower().split("/"):
        if part in _SECRET_NAMES or part.endswith(_SECRET_SUFFIXES):
            return True
        if part.startswith(".env.") and part[5:] not in _ENV_TEMPLATES:
            return True
    return False


def is_published(relpath: str) -> bool:
    """True for a path ``push`` would publish: neither junk nor named like a secret."""
    return not is_junk(relpath) and not is_secret_file(relpath)


def list_files(root: Path) -> list[str]:
    """Relative posix paths of the files under ``root`` (junk and secret-named files excluded:
    :func:`is_published`; symlinks not followed)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if is_published(d))
        # a symlinked directory is listed as an entry (the scan refuses it), not walked
        entries = filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        for name in entries:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            if is_published(rel):
                found.append(rel)
                if len(found) >= MAX_LISTED_FILES:
                    return sorted(found)
    return sorted(found)


def read_skill_md_text(path: Path) -> str:
    """Read and normalise a SKILL.md (BOM and CRLF handled). Raises InvalidSkillError on bad
    bytes."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise InvalidSkillError(f"{path}: SKILL.md is {kind}")
        size = info.st_size
        if size > MAX_SKILL_MD_BYTES:
            raise InvalidSkillError(f"{path}: SKILL.md is {size / 1e6:.1f} MB (limit 5 MB)")
        raw = path.read_bytes()
    except InvalidSkillError:
        raise
    except IsADirectoryError:
        raise InvalidSkillError(f"{path}: SKILL.md is a directory, not a file") from None
    except OSError as exc:
        raise InvalidSkillError(f"{path}: cannot read SKILL.md ({exc.strerror or exc})") from None
    try:
        return normalize_text(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidSkillError(f"{path}: SKILL.md is not valid UTF-8 (byte {exc.start})") from None


@dataclass
class Skill:
    """A loaded skill folder."""

    path: Path
    frontmatter: dict[str, Any]
    body: str
    skill_md_text: str
    files: list[str] = field(default_factory=list)
    suite: TestSuite | None = None
    key_lines: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        value = self.frontmatter.get("name")
        return value if isinstance(value, str) else self.path.name

    @property
    def description(self) -> str:
        value = self.frontmatter.get("description")
        return value if isinstance(value, str) else ""

    @property
    def license(self) -> str | None:
        value = self.frontmatter.get("license")
        return value if isinstance(value, str) else None

    @property
    def tests(self) -> list[TestCase]:
        return list(self.suite.cases) if self.suite else []


def skill_dir_of(path: Path) -> Path:
    """The skill folder for a path that is a folder or its SKILL.md."""
    path = Path(path)
    if path.name == SKILL_FILENAME and not path.is_dir():
        return path.parent
    return path


def load_skill(path: Path, *, with_tests: bool = True) -> Skill:
    """Load a skill folder (or its SKILL.md). Raises SkillNotFoundError / InvalidSkillError /
    InvalidTestFileError.

    Rule violations such as a bad name do not stop loading: run ``validate_skill`` for those.
    """
    root = skill_dir_of(Path(path))
    skill_md = root / SKILL_FILENAME
    if not root.exists():
        raise SkillNotFoundError(f"{root}: no such file or directory")
    if not skill_md.exists() and not skill_md.is_symlink():
        raise SkillNotFoundError(f"{root}: Missing required file: SKILL.md")
    text = read_skill_md_text(skill_md)
    parsed = parse_skill_md(text)
    if parsed.frontmatter is None:
        first = parsed.findings[0]
        raise InvalidSkillError(f"{skill_md}:{first.line or 1}: {first.message}")
    suite = None
    meta = root / META_FILENAME
    if with_tests and meta.is_file():
        suite = read_skill_meta(meta)
    if with_tests and suite is None and (root / "evals" / "evals.json").is_file():
        from upskill_hub.skill.evals_json import read_evals_json

        suite = read_evals_json(root / "evals" / "evals.json", root)
    return Skill(
        path=root,
        frontmatter=parsed.frontmatter,
        body=parsed.body,
        skill_md_text=text,
        files=list_files(root),
        suite=suite,
        key_lines=parsed.key_lines,
    )


def write_skill(
    skill_dir: Path, frontmatter: dict[str, Any], body: str, suite: TestSuite | None = None
) -> Path:
    """Write SKILL.md (and skill_meta.json when ``suite`` is given) atomically."""
    from upskill_hub.atomic_io import atomic_write_text

    skill_dir = Path(skill_dir)
    skill_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(skill_dir / SKILL_FILENAME, dump_skill_md(frontmatter, body))
    if suite is not None:
        write_suite(skill_dir / META_FILENAME, suite)
    return skill_dir
