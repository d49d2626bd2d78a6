"""Start a run on Jobs: plan it, describe it in the artifact repo, submit one Job per shard.

:func:`plan_run` writes nothing to the Hub: it makes the local run folder (run.json as any run,
plus ``jobs.json``, the plan) so that the caller can print the plan and cost and ask before
anything is spent. :func:`publish_run` puts what the Jobs read into the artifact dataset;
:func:`submit_shard` starts one shard's Job with ``run_job``: an image, a command that installs
this exact upskill-hub (``pypi``: this version from PyPI; ``wheel``: a wheel built from this
checkout and uploaded to the artifact repo, as ``space deploy`` does; ``none``: the image has
it, as the offline stand-in does), and the shard's keys as ``secrets`` only.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub import __version__
from upskill_hub.errors import Param, UsageError
from upskill_hub.jobs import artifacts
from upskill_hub.jobs.cost import CostEstimate, estimate_cost, flavor_prices, is_gpu
from upskill_hub.jobs.keys import endpoint_env, secret_names
from upskill_hub.jobs.plan import DEFAULT_SHARD_SAMPLES, JobsPlan, Shard, make_shards

if TYPE_CHECKING:
    from huggingface_hub import JobInfo

    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.hub.client import Hub
    from upskill_hub.skill.model import Skill
    from upskill_hub.skill.testcases import TestCase

__all__ = ["JobsOptions", "estimate", "job_command", "plan_run", "publish_run", "submit_shard"]

INSTALL_MODES = ("pypi", "wheel", "none")
DEFAULT_IMAGE = "python:3.12"
VLLM_IMAGE = "vllm/vllm-openai:latest"
#: Seconds between a shard's commits of its samples (env ``UPSKILL_HUB_JOBS_COMMIT_EVERY``).
COMMIT_EVERY_ENV = "UPSKILL_HUB_JOBS_COMMIT_EVERY"


@dataclass(frozen=True)
class JobsOptions:
    """How a grid runs on Jobs (the ``eval --executor jobs`` flags)."""

    artifact_repo: str | None = None
    flavor: str = "cpu-basic"
    max_parallel: int = 10
    timeout: str = "2h"
    shard_samples: int = DEFAULT_SHARD_SAMPLES
    image: str | None = None
    install: str = "pypi"
    commit_every_s: float = 30.0


def _hub() -> Hub:
    from upskill_hub.hub.client import Hub

    return Hub()


def _is_vllm(model: str) -> bool:
    from upskill_hub.evaluation.providers.resolve import model_kind

    return model_kind(model) == "vllm"


def _check_timeout(text: str) -> str:
    value = text.strip()
    number = value[:-1] if value[-1:] in ("s", "m", "h", "d") else value
    try:
        ok = float(number) > 0
    except ValueError:
        ok = False
    if not ok:
        raise UsageError(
            Param("job_timeout"), f" {text!r}: give a duration such as 90m, 2h or 3600"
        )
    return value


def plan_run(
    skill: Skill,
    cases: list[TestCase],
    config: EvalConfig,
    options: JobsOptions,
    *,
    output_root: Path,
    repo_id: str | None = None,
    revision: str | None = None,
    hub: Hub | None = None,
) -> tuple[Path, JobsPlan]:
    """The local run folder of a new run on Jobs and its plan (nothing sent to the Hub)."""
    from upskill_hub.evaluation.providers.resolve import canonical_model_id
    from upskill_hub.evaluation.run.folder import RunFolder, create_run_dir
    from upskill_hub.evaluation.run.info import new_run_info, skill_sha256

    config.validate()
    if options.install not in INSTALL_MODES:
        raise UsageError(
            Param("install"), f" {options.install!r}: one of {', '.join(INSTALL_MODES)}"
        )
    if options.max_parallel < 1:
        raise UsageError(Param("max_parallel"), f" must be at least 1 (got {options.max_parallel})")
    timeout = _check_timeout(options.timeout)
    if options.flavor not in flavor_prices():
        known = ", ".join(sorted(flavor_prices()))
        raise UsageError(Param("flavor"), f" {options.flavor!r}: unknown flavor (one of {known})")
    vllm = [m for m in config.models if _is_vllm(m)]
    if vllm and not is_gpu(options.flavor):
        raise UsageError(
            Param("models"),
            f" {vllm[0]}: vLLM needs a GPU ",
            Param("flavor"),
            " (e.g. l4x1, a100-large)",
        )
    model_ids = {m: canonical_model_id(m, config.base_url) for m in config.models}
    namespace = (hub or _hub()).whoami(action="who am I (Hugging Face token)")
    repo = options.artifact_repo or f"{namespace}/{artifacts.DEFAULT_REPO_NAME}"
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise UsageError(Param("artifact_repo"), f" {repo!r}: give a dataset id NS/NAME")
    folder = RunFolder(create_run_dir(output_root, skill.name))
    info = new_run_info(
        folder,
        skill,
        list(model_ids.values()),
        cases,
        config,
        skill_sha256(skill.skill_md_text),
        repo_id=repo_id,
        revision=revision,
        skill_ref=None,
    )
    info.extra["executor"] = {"kind": "jobs", "artifact_repo": repo, "flavor": options.flavor}
    folder.write_tests(cases)
    folder.write_info(info)
    shards = make_shards(
        config.models, [c.id for c in cases], config.runs, len(config.arms), options.shard_samples
    )
    image = options.image or (VLLM_IMAGE if vllm else DEFAULT_IMAGE)
    plan = JobsPlan(
        run_id=info.run_id,
        artifact_repo=repo,
        namespace=namespace,
        flavor=options.flavor,
        max_parallel=options.max_parallel,
        timeout=timeout,
        image=image,
        install=options.install,
        models=list(config.models),
        model_ids=model_ids,
        runs=config.runs,
        arms=list(config.arms),
        shards=shards,
        secret_names={
            m: secret_names(m, config.judge_model, config.base_url) for m in config.models
        },
        commit_every_s=float(os.environ.get(COMMIT_EVERY_ENV) or options.commit_every_s),
    )
    plan.save(folder.path)
    return folder.path, plan


def estimate(plan: JobsPlan, concurrency: int, hub: Hub | None = None) -> CostEstimate:
    """The cost of the plan's pending shards, at the Hub's listed prices when it answers."""
    prices, source = flavor_prices(), "reference list prices"
    try:
        listing = (hub or _hub()).list_jobs_hardware()
        prices = flavor_prices([(h.name, float(h.unit_cost_usd)) for h in listing])
        source = "Jobs hardware listing"
    except Exception:  # offline or an older Hub: the reference table stands in
        pass
    sizes = [s.samples for s in plan.shards if s.state != "completed"]
    return estimate_cost(
        sizes,
        plan.flavor,
        max_parallel=plan.max_parallel,
        concurrency=concurrency,
        prices=prices,
        price_source=source,
    )


def publish_run(plan: JobsPlan, run_dir: Path, skill: Skill, hub: Hub | None = None) -> None:
    """Create the artifact dataset (private) and commit what the Jobs read."""
    import json

    hub = hub or _hub()
    repo = plan.artifact_repo
    artifacts.hub_call(
        hub,
        f"create {repo}",
        lambda: hub.api.create_repo(repo, repo_type="dataset", private=True, exist_ok=True),
        repo,
    )
    prefix = artifacts.run_prefix(plan.run_id)
    files: dict[str, bytes | Path] = {
        f"{prefix}/run.json": Path(run_dir) / "run.json",
        f"{prefix}/tests.json": Path(run_dir) / "tests.json",
        f"{prefix}/plan.json": json.dumps(plan.to_dict(), indent=1).encode("utf-8"),
    }
    for rel in skill.files:
        local = Path(skill.path) / rel
        if local.is_file() and not local.is_symlink():
            files[f"{prefix}/skill/{rel}"] = local
    if plan.install == "wheel":
        import tempfile

        from upskill_hub.source_wheel import build_wheel, source_root

        with tempfile.TemporaryDirectory(prefix="upskill-hub-wheel-") as tmp:
            wheel = build_wheel(source_root(), Path(tmp))
            files[f"{prefix}/wheel/{wheel.name}"] = wheel.read_bytes()
            plan.wheel = wheel.name
            files[f"{prefix}/plan.json"] = json.dumps(plan.to_dict(), indent=1).encode("utf-8")
            artifacts.upload(hub, repo, files, f"upskill-hub run {plan.run_id}")
        plan.save(run_dir)
        return
    artifacts.upload(hub, repo, files, f"upskill-hub run {plan.run_id}")


def job_command(plan: JobsPlan, shard: Shard) -> list[str]:
    """The command of a shard's Job: install upskill-hub (per ``plan.install``), run the shard."""
    run = ["upskill-hub", "jobs", "run-shard", plan.artifact_repo, plan.run_id, shard.id]
    if _is_vllm(shard.model):
        run.append("--serve-vllm")
    if plan.install == "none":
        return run
    if plan.install == "wheel":
        path = f"{artifacts.run_prefix(plan.run_id)}/wheel/{plan.wheel}"
        steps = [
            "pip install -q huggingface_hub",
            shlex.join(
                [
                    *["hf", "download", plan.artifact_repo, path, "--repo-type", "dataset"],
                    *["--local-dir", "/tmp/upskill-hub-wheel"],
                ]
            ),
            shlex.join(["pip", "install", "-q", f"/tmp/upskill-hub-wheel/{path}"]),
        ]
    else:
        steps = [shlex.join(["pip", "install", "-q", f"upskill-hub=={__version__}"])]
    return ["bash", "-c", " && ".join([*steps, "exec " + shlex.join(run)])]


def job_labels(plan: JobsPlan, shard: Shard) -> dict[str, str]:
    return {"upskill-hub-run": plan.run_id, "upskill-hub-shard": shard.id}


def submit_shard(
    plan: JobsPlan, shard: Shard, secrets: dict[str, str], hub: Hub | None = None
) -> JobInfo:
    """Start ``shard``'s Job; ``secrets`` holds exactly the names the plan lists for its model."""
    wanted = set(plan.secret_names.get(shard.model, ["HF_TOKEN"]))
    env: dict[str, Any] = {**endpoint_env(), COMMIT_EVERY_ENV: f"{plan.commit_every_s:g}"}
    info = (hub or _hub()).run_job(
        image=plan.image,
        command=job_command(plan, shard),
        env=env,
        secrets={k: v for k, v in secrets.items() if k in wanted},
        flavor=plan.flavor,
        timeout=plan.timeout,
        labels=job_labels(plan, shard),
        name=f"upskill-hub-{shard.id}",
        namespace=plan.namespace,
        action=f"run_job for shard {shard.id}",
    )
    shard.job_id = info.id
    shard.state = "running"
    shard.message = None
    shard.attempts += 1
    return info
