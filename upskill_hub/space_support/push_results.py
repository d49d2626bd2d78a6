"""The "Push results to the Hub" button: a finished run's folder to a results dataset in the
visitor's namespace, through :mod:`upskill_hub.publish` (the one results writer).

Before anything is sent, every file of the run folder is checked for the visitor's key and
token: a run that somehow holds one is refused rather than published.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub.errors import UpskillHubError, UsageError
from upskill_hub.secrets import Redactor

if TYPE_CHECKING:
    from upskill_hub.publish.dataset_push import PushedResults

_MAX_SCAN_BYTES = 50 * 1024 * 1024


def results_repo_id(namespace: str, skill_name: str) -> str:
    """The dataset a visitor's results go to: ``<namespace>/<skill>-upskill-results``."""
    return f"{namespace}/{skill_name}-upskill-results"


def check_no_secrets(run_dir: Path, redactor: Redactor) -> None:
    """Refuse (UpskillHubError) when any file of ``run_dir`` holds one of the secrets."""
    total = 0
    for path in sorted(Path(run_dir).rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        total += len(data)
        if total > _MAX_SCAN_BYTES:
            raise UsageError("This run folder is too large to publish from the Space")
        if redactor.leaks(data.decode("utf-8", errors="replace")):
            raise UpskillHubError(
                f"Refusing to publish: {path.name} contains your API key or token"
            )


def push_run(
    run_dir: Path,
    *,
    skill_name: str,
    namespace: str | None,
    token: str | None,
    redactor: Redactor,
) -> PushedResults:
    """Publish ``run_dir`` to ``results_repo_id(namespace, skill_name)`` with ``token``.

    ``namespace`` None means the token's own user (local mode, the machine's login);
    ``token`` None means the machine's login (local mode only; the caller decides). The token
    goes to :func:`upskill_hub.publish.results_dataset.push_results` for every Hub call.
    """
    from upskill_hub.hub.client import Hub
    from upskill_hub.publish.results_dataset import push_results

    run_dir = Path(run_dir)
    if not (run_dir / "summary.json").is_file():
        raise UsageError("Run an evaluation to the end before pushing its results")
    check_no_secrets(run_dir, redactor)
    owner = namespace or Hub(token=token).whoami()
    repo_id = results_repo_id(owner, skill_name)
    return push_results(run_dir, repo_id, token=token)


def skill_name_of(run_dir: Path) -> str:
    """The skill a run folder evaluated (from its run.json)."""
    from upskill_hub.evaluation.run.folder import RunFolder

    name = RunFolder(Path(run_dir)).read_info().skill.name
    if not name:
        raise UsageError(f"{run_dir}: run.json names no skill")
    return name
