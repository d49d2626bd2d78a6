"""Re-evaluate a Hub skill on a schedule: a scheduled Job that runs ``eval`` and pushes a split.

``eval NS/NAME --executor jobs --schedule @weekly --push-results NS/EVALS`` creates a scheduled
Job (``create_scheduled_job``) whose command installs upskill-hub and runs ``upskill-hub eval
NS/NAME ... --push-results NS/EVALS`` against the skill's latest commit, each time appending a
split to the results dataset, so its card shows when the skill (or a model update) stopped
helping. The models' keys travel as the scheduled Job's secrets, as for any run on Jobs.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from upskill_hub import __version__
from upskill_hub.errors import Param, UsageError
from upskill_hub.jobs.keys import endpoint_env, plan_secrets, secret_names

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig

__all__ = ["ScheduledEval", "create_schedule", "delete_schedule", "eval_command", "list_schedules"]

LABEL = {"upskill-hub": "scheduled-eval"}
_SCHEDULES = ("@annually", "@yearly", "@monthly", "@weekly", "@daily", "@hourly")


@dataclass(frozen=True)
class ScheduledEval:
    id: str
    schedule: str
    skill: str
    results: str
    suspended: bool


def eval_command(
    skill: str, config: EvalConfig, push_repo: str, install: str = "pypi"
) -> list[str]:
    """The Job's command: install upskill-hub, evaluate ``skill``'s latest commit, push."""
    argv = ["upskill-hub", "eval", skill]
    for model in config.models:
        argv += ["--model", model]
    argv += ["--runs", str(config.runs), "--max-tokens", str(config.params.max_tokens)]
    argv += ["--temperature", format(config.params.temperature, "g")]
    if config.params.seed is not None:
        argv += ["--seed", str(config.params.seed)]
    if config.base_url:
        argv += ["--base-url", config.base_url]
    if config.judge_model:
        argv += ["--judge-model", config.judge_model]
    if config.no_baseline:
        argv.append("--no-baseline")
    if not config.cache:
        argv.append("--no-cache")
    argv += ["--push-results", push_repo]
    if install == "none":
        return argv
    pip = shlex.join(["pip", "install", "-q", f"upskill-hub=={__version__}"])
    return ["bash", "-c", f"{pip} && exec {shlex.join(argv)}"]


def _check_schedule(text: str) -> str:
    value = text.strip()
    if value in _SCHEDULES or len(value.split()) == 5:
        return value
    raise UsageError(
        Param("schedule"),
        f" {text!r}: one of {', '.join(_SCHEDULES)} or a cron line ('0 9 * * 1')",
    )


def create_schedule(
    skill: str,
    repo_id: str | None,
    config: EvalConfig,
    push_repo: str,
    schedule: str,
    *,
    flavor: str = "cpu-basic",
    image: str = "python:3.12",
    timeout: str = "2h",
    install: str = "pypi",
) -> ScheduledEval:
    """Create the scheduled Job; ``repo_id`` must be set (a Hub skill has a latest commit)."""
    from upskill_hub.hub.client import Hub

    if repo_id is None:
        raise UsageError(
            Param("schedule"),
            f": {skill} is a local folder; schedule a Hub skill (NS/NAME) so each "
            "run evaluates its latest commit",
        )
    when = _check_schedule(schedule)
    names = sorted(
        {n for m in config.models for n in secret_names(m, config.judge_model, config.base_url)}
    )
    secrets = plan_secrets({"all": names})
    made = Hub().create_scheduled_job(
        image=image,
        command=eval_command(repo_id, config, push_repo, install),
        schedule=when,
        env=endpoint_env(),
        secrets=secrets,
        flavor=flavor,
        timeout=timeout,
        labels={
            **LABEL,
            "skill": repo_id.replace("/", "--"),
            "results": push_repo.replace("/", "--"),
        },
    )
    return ScheduledEval(made.id, when, repo_id, push_repo, bool(made.suspend))


def list_schedules() -> list[ScheduledEval]:
    from upskill_hub.hub.client import Hub

    found = Hub().list_scheduled_jobs(labels=LABEL)
    return [
        ScheduledEval(
            s.id,
            s.schedule or "",
            (s.job_spec.labels or {}).get("skill", "").replace("--", "/"),
            (s.job_spec.labels or {}).get("results", "").replace("--", "/"),
            bool(s.suspend),
        )
        for s in found
    ]


def delete_schedule(scheduled_id: str) -> None:
    from upskill_hub.hub.client import Hub

    Hub().delete_scheduled_job(scheduled_id)
