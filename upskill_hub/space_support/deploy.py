"""``upskill-hub space deploy``: create or update a Gradio Space running this app.

The Space repo gets ``app.py`` and ``README.md`` (the Space's YAML metadata) from the app
folder, the bundled ``skills/``, and a ``requirements.txt`` pinning ``upskill-hub`` to the
version doing the deploy. Files left over from an earlier deploy are deleted in the same commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from upskill_hub import __version__
from upskill_hub.errors import UsageError
from upskill_hub.registry.hub import Hub, parse_spec
from upskill_hub.skill import list_files

APP_FILES = ("app.py", "README.md")
REQUIREMENTS = "requirements.txt"


def requirements_text(version: str = __version__) -> str:
    """The Space's requirements.txt: this package, pinned, with its Space extra."""
    return f"upskill-hub[space]=={version}\n"


def default_app_dir() -> Path:
    """``space/`` of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[2] / "space"


def default_skills_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "skills"


@dataclass(frozen=True)
class DeployResult:
    repo_id: str
    url: str
    commit: str
    files: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)


def space_files(app_dir: Path, skills_dir: Path | None) -> dict[str, bytes]:
    """Path in the Space repo -> content."""
    files: dict[str, bytes] = {}
    for name in APP_FILES:
        path = app_dir / name
        if not path.is_file():
            raise UsageError(f"{path}: missing (is {app_dir} the Space app folder?)")
        files[name] = path.read_bytes()
    files[REQUIREMENTS] = requirements_text().encode("utf-8")
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
    """Create the Space ``repo_id`` if needed (sdk gradio) and upload the app in one commit."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    repo_id, rev = parse_spec(repo_id)
    if rev:
        raise UsageError(f"--repo takes NS/NAME without a revision, got {repo_id}@{rev}")
    hub = hub or Hub()
    files = space_files(app_dir or default_app_dir(), skills_dir or default_skills_dir())
    api = hub.api
    hub.call(
        lambda: api.create_repo(
            repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True
        ),
        repo_id=repo_id,
        action="create space",
    )
    existing = hub.call(
        lambda: api.list_repo_files(repo_id, repo_type="space"), repo_id=repo_id, action="list"
    )
    deleted = sorted(f for f in existing if f not in files and f != ".gitattributes")
    operations: list[CommitOperationAdd | CommitOperationDelete] = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)
        for path, data in sorted(files.items())
    ]
    operations += [CommitOperationDelete(path_in_repo=path) for path in deleted]
    info = hub.call(
        lambda: api.create_commit(
            repo_id,
            operations,
            repo_type="space",
            commit_message=f"Deploy upskill-hub {__version__} Space",
        ),
        repo_id=repo_id,
        action="commit",
    )
    return DeployResult(
        repo_id=repo_id,
        url=hub.repo_url(repo_id, "space"),
        commit=info.oid,
        files=sorted(files),
        deleted=deleted,
    )
