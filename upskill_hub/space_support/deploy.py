"""``upskill-hub space deploy``: create or update a Gradio Space running this app.

The Space repo gets ``app.py`` and ``README.md`` (the Space's YAML metadata) from the app
folder, the bundled ``skills/``, a wheel of the upskill-hub source doing the deploy and a
``requirements.txt`` installing it. Files left over from an earlier deploy are deleted in the
same commit.

**The wheel.** A version number on PyPI may not exist (or may not be this code), so the deploy
builds a wheel of the current source checkout (:mod:`upskill_hub.source_wheel`), uploads
it as ``wheels/upskill_hub-<version>-py3-none-any.whl`` and writes ``requirements.txt`` as
``./wheels/upskill_hub-<version>-py3-none-any.whl[space]``: a relative wheel path with an extra,
which pip resolves from the directory it runs in (the Space repo's root). Run from an installed
package (no ``pyproject.toml`` beside it), there is no source to build: the requirement then pins
``upskill-hub[space]==<version>``, the release it was installed from.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from upskill_hub import __version__
from upskill_hub.errors import Param, UsageError
from upskill_hub.hub.client import Hub, parse_spec
from upskill_hub.skill import list_files
from upskill_hub.source_wheel import build_wheel, source_root

APP_FILES = ("app.py", "README.md")
REQUIREMENTS = "requirements.txt"
WHEELS_DIR = "wheels"


def requirements_text(wheel_name: str | None = None, version: str = __version__) -> str:
    """The Space's requirements.txt: the uploaded wheel ``wheels/<wheel_name>`` with its Space
    extra, or (no wheel) this version from the package index."""
    if wheel_name:
        return f"./{WHEELS_DIR}/{wheel_name}[space]\n"
    return f"upskill-hub[space]=={version}\n"


def default_app_dir() -> Path:
    """``space/`` of the source checkout this package runs from."""
    return source_root() / "space"


def default_skills_dir() -> Path:
    return source_root() / "skills"


@dataclass(frozen=True)
class DeployResult:
    repo_id: str
    url: str
    commit: str
    files: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def space_files(
    app_dir: Path, skills_dir: Path | None, wheel: Path | None = None
) -> dict[str, bytes]:
    """Path in the Space repo -> content (``wheel``: the upskill-hub wheel to ship)."""
    files: dict[str, bytes] = {}
    for name in APP_FILES:
        path = app_dir / name
        if not path.is_file():
            raise UsageError(f"{path}: missing (is {app_dir} the Space app folder?)")
        files[name] = path.read_bytes()
    if wheel is not None:
        files[f"{WHEELS_DIR}/{wheel.name}"] = wheel.read_bytes()
    files[REQUIREMENTS] = requirements_text(wheel.name if wheel else None).encode("utf-8")
    if skills_dir is not None:
        if not skills_dir.is_dir():
            raise UsageError(f"{skills_dir}: no such skills folder")
        for rel in list_files(skills_dir):
            source = skills_dir / rel
            if source.is_symlink() or not source.is_file():
                raise UsageError(f"{source}: not a regular file; the Space gets plain files only")
            files[f"skills/{rel}"] = source.read_bytes()
    return files


def deploy_space(
    repo_id: str,
    *,
    app_dir: Path | None = None,
    skills_dir: Path | None = None,
    private: bool = False,
    hub: Hub | None = None,
) -> DeployResult:
    """Create the Space ``repo_id`` if needed (sdk gradio) and upload the app in one commit
    (with a wheel of this source checkout when there is one; see the module docstring)."""
    repo_id, rev = parse_spec(repo_id)
    if rev:
        raise UsageError(
            Param("repo_id"), f" takes NS/NAME without a revision, got {repo_id}@{rev}"
        )
    app = app_dir or default_app_dir()
    skills = skills_dir or default_skills_dir()
    space_files(app, skills)  # a missing app file is an error before any build or request
    root = source_root()
    with tempfile.TemporaryDirectory(prefix="upskill-hub-wheel-") as tmp:
        wheel = build_wheel(root, Path(tmp)) if (root / "pyproject.toml").is_file() else None
        files = space_files(app, skills, wheel)
    return _upload(repo_id, files, private=private, hub=hub or Hub())


def _upload(repo_id: str, files: dict[str, bytes], *, private: bool, hub: Hub) -> DeployResult:
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    hub.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private)
    existing = hub.repo_files(repo_id, repo_type="space")
    deleted = sorted(f for f in existing if f not in files and f != ".gitattributes")
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)
        for path, data in sorted(files.items())
    ]
    operations += [CommitOperationDelete(path_in_repo=path) for path in deleted]
    info = hub.create_commit(
        repo_id,
        operations,
        repo_type="space",
        message=f"Deploy upskill-hub {__version__} Space",
    )
    return DeployResult(
        repo_id=repo_id,
        url=hub.repo_url(repo_id, "space"),
        commit=info.oid,
        files=sorted(files),
        deleted=deleted,
    )
