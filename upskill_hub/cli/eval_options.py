"""The ``eval`` command's options: declared once as ``Annotated`` aliases, read into
:class:`EvalOptions`, and their combinations checked against one table of rules.

An alias (``ModelOpt``, ``FormatOpt``...) is the type and the ``typer`` declaration of one
option, so the commands that share an option declare it with the same alias. :class:`EvalOptions`
holds what ``eval`` was given and says which of its programs runs (:attr:`EvalOptions.program`).
:data:`RULES` lists every "these flags apply only with that" rule of ``eval``; :func:`check_rules`
raises the :class:`UsageError` of the first one broken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from upskill_hub.cli.output import OutputFormat
from upskill_hub.errors import UsageError

if TYPE_CHECKING:
    from upskill_hub.evaluation.agent.settings import AgentSettings
    from upskill_hub.evaluation.pricing import Price
    from upskill_hub.evaluation.run.resume import RunOverrides
    from upskill_hub.jobs.submit import JobsOptions

#: API key for an OpenAI-compatible ``--base-url`` server (keys never go on the command line).
API_KEY_ENV = "UPSKILL_HUB_API_KEY"

MODES = ("inline", "agent")

# What to evaluate, and with which models.
SkillArg = Annotated[
    str,
    typer.Argument(help="Skill folder (or its SKILL.md), or a Hub repo id ns/name[@revision]."),
]
SkillNameOpt = Annotated[
    str | None, typer.Option("--skill", help="Which skill of a multi-skill Hub repo.")
]
ModelOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--model",
        "-m",
        help="Model to evaluate; repeat for several. local, openai:M, anthropic:M, haiku, "
        "sonnet, opus, hf:ORG/M[:PROVIDER], or a bare M with --base-url. Default: local.",
    ),
]
RunsOpt = Annotated[
    int | None, typer.Option("--runs", "-n", help="Runs of each case per arm [default: 1].")
]
TestsOpt = Annotated[
    Path | None,
    typer.Option("--tests", "-t", help="Test file instead of the skill's skill_meta.json."),
]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", "-j", help="Requests in flight at most, per model.")
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url", help=f"OpenAI/Anthropic-compatible API URL (key from ${API_KEY_ENV})."
    ),
]
TemperatureOpt = Annotated[
    float | None, typer.Option("--temperature", help="Sampling temperature [0].")
]
SeedOpt = Annotated[
    int | None, typer.Option("--seed", help="Sampling seed, for APIs that take one.")
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", help="Seconds per request before retrying.")
]
RetriesOpt = Annotated[
    int, typer.Option("--retries", help="Retries of a failed request (429, 5xx...).")
]
MaxTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--max-tokens", help="Reply length limit [1024; 384 when only the embedded model runs]."
    ),
]
JudgeModelOpt = Annotated[
    str | None,
    typer.Option("--judge-model", help="Model grading 'judge' assertions (skipped without one)."),
]
PriceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--price",
        help="MODEL=IN/OUT[/CACHED]: US dollars per million input/output/cached-input tokens; "
        "repeat per model. Over the built-in table; local and --base-url models have none.",
    ),
]
NoBaselineOpt = Annotated[bool, typer.Option("--no-baseline", help="Only the with-skill arm.")]
CacheOpt = Annotated[
    bool | None,
    typer.Option(
        "--cache/--no-cache",
        help="Mark each request's system prompt and tools for the API's prompt cache (Anthropic; "
        "OpenAI caches by itself), in both arms [default: on; a resume keeps the run's].",
    ),
]

# Where the run goes, and how it is shown.
OutputOpt = Annotated[Path, typer.Option("--output", "-o", help="Where run folders go.")]
ResumeOpt = Annotated[
    Path | None,
    typer.Option("--resume", help="Finish this run folder: run only missing or errored samples."),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="Output format: text or json.")]

# Publishing the finished run.
PushResultsOpt = Annotated[
    str | None,
    typer.Option(
        "--push-results",
        help="After the run, publish it to this Hub results dataset NS/NAME (a new split).",
    ),
]
PrivateOpt = Annotated[
    bool, typer.Option("--private", help="With --push-results: create the dataset as private.")
]
UpdateSkillCardOpt = Annotated[
    bool,
    typer.Option("--update-skill-card", help="With --push-results: also update the skill's card."),
]
SkillRepoOpt = Annotated[
    str | None,
    typer.Option("--skill-repo", help="With --update-skill-card: the skill model repo NS/NAME."),
]
CreatePrOpt = Annotated[
    bool,
    typer.Option("--create-pr", help="With --update-skill-card: open a pull request instead."),
]

# Agent mode.
ModeOpt = Annotated[
    str | None,
    typer.Option(
        "--mode",
        help="inline: SKILL.md in the system prompt [default]. agent: the model sees the skill's "
        "name and description and loads it and its files through Skill and Read tools.",
    ),
]
MaxTurnsOpt = Annotated[
    int | None,
    typer.Option("--max-turns", help="Agent mode: model calls per sample at most [8]."),
]
TokenBudgetOpt = Annotated[
    int | None,
    typer.Option(
        "--token-budget",
        help="Agent mode: stop a sample's tool loop after this many tokens, all turns [60000].",
    ),
]

# Trigger evals.
TriggersOpt = Annotated[
    Path | None,
    typer.Option(
        "--triggers",
        help="Trigger eval: queries file [{query, should_trigger}] (a path in the skill folder, "
        "e.g. evals/eval_queries.json, works too). Measures whether the model loads the skill.",
    ),
]
DistractorsOpt = Annotated[
    Path | None,
    typer.Option(
        "--distractors",
        help="Trigger eval: folder of other skills listed beside this one [skills bundled with "
        "upskill-hub].",
    ),
]
SplitOpt = Annotated[
    float | None,
    typer.Option(
        "--split",
        help="Trigger eval: share of queries in the train set (e.g. 0.6); the rest is the "
        "validation set, fixed by --seed.",
    ),
]

# Hugging Face Jobs.
ExecutorOpt = Annotated[
    str,
    typer.Option("--executor", help="Where requests run: local, or jobs (Hugging Face Jobs)."),
]
FlavorOpt = Annotated[str, typer.Option("--flavor", help="With --executor jobs: hardware.")]
ArtifactRepoOpt = Annotated[
    str | None,
    typer.Option(
        "--artifact-repo", help="With --executor jobs: dataset for shards [you/upskill-hub-runs]."
    ),
]
MaxParallelOpt = Annotated[
    int, typer.Option("--max-parallel", help="With --executor jobs: Jobs at once.")
]
JobTimeoutOpt = Annotated[str, typer.Option("--job-timeout", help="With --executor jobs: per Job.")]
ShardSizeOpt = Annotated[
    int, typer.Option("--shard-size", help="With --executor jobs: samples per Job.")
]
InstallOpt = Annotated[
    str,
    typer.Option("--install", help="With --executor jobs: pypi, wheel (this checkout) or none."),
]
JobImageOpt = Annotated[
    str | None,
    typer.Option("--job-image", help="With --executor jobs: Docker image [python:3.12; vLLM's]."),
]
NoWaitOpt = Annotated[
    bool, typer.Option("--no-wait", help="With --executor jobs: submit and exit.")
]
YesOpt = Annotated[
    bool, typer.Option("--yes", "-y", help="With --executor jobs: submit without asking.")
]
PilotOpt = Annotated[
    Path | None,
    typer.Option(
        "--pilot",
        help="With --executor jobs: a finished run folder whose tokens per sample price the "
        "grid [the latest run of the same skill under --output].",
    ),
]
ScheduleOpt = Annotated[
    str | None,
    typer.Option("--schedule", help="With --executor jobs: re-run on a schedule (@weekly, cron)."),
]

#: What ``eval`` runs: a run here, a run on Jobs, a trigger eval, or the resume of a Jobs run.
Program = Literal["local", "jobs", "triggers", "jobs-resume"]


@dataclass(frozen=True)
class EvalOptions:
    """Everything ``eval`` was given, one field per parameter of the command."""

    skill: str
    model: list[str] | None
    runs: int | None
    tests: Path | None
    concurrency: int
    base_url: str | None
    temperature: float | None
    seed: int | None
    timeout: float
    retries: int
    max_tokens: int | None
    judge_model: str | None
    output: Path
    resume: Path | None
    no_baseline: bool
    cache: bool | None
    skill_name: str | None
    output_format: OutputFormat
    push_repo: str | None
    private: bool
    update_skill_card: bool
    skill_repo: str | None
    create_pr: bool
    mode: str | None
    max_turns: int | None
    token_budget: int | None
    triggers: Path | None
    distractors: Path | None
    split: float | None
    executor: str
    flavor: str
    artifact_repo: str | None
    max_parallel: int
    job_timeout: str
    shard_size: int
    install: str
    job_image: str | None
    no_wait: bool
    yes: bool
    schedule: str | None
    pilot: Path | None = None
    price: list[str] | None = None

    @property
    def program(self) -> Program:
        """A run folder made on Jobs resumes there; else ``--triggers``, then ``--executor``."""
        if self.resume is not None and (self.resume / "jobs.json").is_file():
            return "jobs-resume"
        if self.triggers is not None:
            return "triggers"
        return "jobs" if self.executor == "jobs" else "local"

    def check_values(self) -> None:
        """:class:`UsageError` for a flag whose value alone is wrong (combinations: RULES)."""
        from upskill_hub.evaluation.config import check_base_url

        check_base_url(self.base_url)
        if self.push_repo is not None:
            from upskill_hub.publish.dataset_push import dataset_repo_id

            dataset_repo_id(self.push_repo)
        if self.resume is not None and not (self.resume / "run.json").is_file():
            raise UsageError(f"--resume {self.resume}: not a run folder (no run.json)")
        if self.pilot is not None and not (self.pilot / "summary.json").is_file():
            raise UsageError(f"--pilot {self.pilot}: not a finished eval run (no summary.json)")
        if self.tests is not None and not self.tests.is_file():
            raise UsageError(f"--tests {self.tests}: no such file")
        if self.executor not in ("local", "jobs"):
            raise UsageError(f"--executor {self.executor!r}: local or jobs")
        if self.program != "jobs-resume" and self.mode is not None and self.mode not in MODES:
            raise UsageError(f"--mode {self.mode!r}: use inline or agent")

    @property
    def push(self) -> dict[str, Any] | None:
        """``push_results`` keyword arguments for ``--push-results`` (None without it)."""
        if self.push_repo is None:
            return None
        return {
            "private": self.private,
            "update_skill_card": self.update_skill_card,
            "skill_repo": self.skill_repo,
            "create_pr": self.create_pr,
        }

    def agent_settings(self) -> AgentSettings | None:
        """The agent-mode limits of ``--max-turns``/``--token-budget`` (None: inline). Trigger
        evals always run the tool loop, so they take the limits without ``--mode agent``."""
        from upskill_hub.evaluation.agent.settings import AgentSettings

        if self.mode != "agent" and self.triggers is None:
            return None
        defaults = AgentSettings()
        settings = AgentSettings(
            max_turns=defaults.max_turns if self.max_turns is None else self.max_turns,
            token_budget=defaults.token_budget if self.token_budget is None else self.token_budget,
        )
        settings.validate()
        return settings

    def overrides(self, agent: AgentSettings | None) -> RunOverrides:
        """The run flags as the library's :class:`RunOverrides` (the key from the environment)."""
        import os

        from upskill_hub.evaluation.run.resume import RunOverrides

        return RunOverrides(
            models=self.model or None,
            runs=self.runs,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=self.seed,
            base_url=self.base_url,
            judge_model=self.judge_model,
            no_baseline=self.no_baseline,
            timeout=self.timeout,
            concurrency=self.concurrency,
            retries=self.retries,
            api_key=os.environ.get(API_KEY_ENV) or None,
            mode=self.mode,
            agent=agent,
            prices=self.prices(),
            cache=self.cache,
        )

    def prices(self) -> dict[str, Price]:
        """The ``--price`` values by canonical model id (UsageError naming ``--price``)."""
        from upskill_hub.evaluation.pricing import parse_prices

        return parse_prices(self.price or [], base_url=self.base_url)

    def jobs_options(self) -> JobsOptions:
        """The ``--executor jobs`` flags as the library's :class:`JobsOptions`."""
        from upskill_hub.jobs.submit import JobsOptions

        return JobsOptions(
            flavor=self.flavor,
            artifact_repo=self.artifact_repo,
            max_parallel=self.max_parallel,
            timeout=self.job_timeout,
            shard_samples=self.shard_size,
            install=self.install,
            image=self.job_image,
        )


#: Whether each flag a rule names was given (a flag left at its default is not).
GIVEN: dict[str, Callable[[EvalOptions], object]] = {
    "--private": lambda o: o.private,
    "--update-skill-card": lambda o: o.update_skill_card,
    "--skill-repo": lambda o: o.skill_repo,
    "--create-pr": lambda o: o.create_pr,
    "--max-turns": lambda o: o.max_turns,
    "--token-budget": lambda o: o.token_budget,
    "--mode inline": lambda o: o.mode == "inline",
    "--tests": lambda o: o.tests is not None,
    "--resume": lambda o: o.resume is not None,
    "--no-baseline": lambda o: o.no_baseline,
    "--judge-model": lambda o: o.judge_model is not None,
    "--executor jobs": lambda o: o.executor == "jobs",
    "--split": lambda o: o.split is not None,
    "--distractors": lambda o: o.distractors is not None,
    "--schedule": lambda o: o.schedule is not None,
    "--no-wait": lambda o: o.no_wait,
    "--artifact-repo": lambda o: o.artifact_repo,
    "--job-image": lambda o: o.job_image,
    "--pilot": lambda o: o.pilot is not None,
    "--price": lambda o: bool(o.price),
}

NEW_RUNS: tuple[Program, ...] = ("local", "jobs", "triggers")


@dataclass(frozen=True)
class Rule:
    """``flags`` apply, in the ``programs`` it is checked in, only when ``only_if`` holds
    (never, without one); given where they do not, ``message`` is the error: ``{flags}`` is
    the flags given, joined with commas, and ``{o}`` the :class:`EvalOptions`."""

    flags: tuple[str, ...]
    message: str
    only_if: Callable[[EvalOptions], bool] | None = None
    programs: tuple[Program, ...] = NEW_RUNS


#: Every "these flags apply only with that" rule of ``eval``, checked in this order.
RULES: tuple[Rule, ...] = (
    Rule(
        ("--private", "--update-skill-card", "--skill-repo", "--create-pr"),
        "{flags} apply only with --push-results NS/NAME",
        only_if=lambda o: o.push_repo is not None,
        programs=(*NEW_RUNS, "jobs-resume"),
    ),
    Rule(
        ("--skill-repo", "--create-pr"),
        "--skill-repo and --create-pr apply only with --update-skill-card",
        only_if=lambda o: o.update_skill_card,
        programs=(*NEW_RUNS, "jobs-resume"),
    ),
    Rule(
        ("--max-turns", "--token-budget"),
        "{flags} apply only with --mode agent",
        only_if=lambda o: o.mode == "agent" or o.triggers is not None,
    ),
    Rule(
        ("--mode inline",),
        "--triggers runs the model with tools; drop --mode inline",
        programs=("triggers",),
    ),
    Rule(
        (
            "--tests",
            "--resume",
            "--no-baseline",
            "--judge-model",
            "--update-skill-card",
            "--executor jobs",
            "--pilot",
            "--price",
        ),
        "{flags} do(es) not apply to --triggers (a trigger eval)",
        programs=("triggers",),
    ),
    Rule(
        ("--split", "--distractors"),
        "--split and --distractors apply only with --triggers FILE",
        programs=("local", "jobs"),
    ),
    Rule(
        ("--resume",),
        "--resume {o.resume}: a local run; resume it without --executor jobs",
        programs=("jobs",),
    ),
    Rule(
        ("--no-wait",),
        "--push-results waits for the run: drop --no-wait, or run `results push RUN --repo "
        "NS/NAME` after `jobs collect RUN`",
        only_if=lambda o: o.push_repo is None or bool(o.schedule),
        programs=("jobs",),
    ),
    Rule(
        ("--schedule",),
        "--schedule needs --push-results NS/NAME (where each run's split goes)",
        only_if=lambda o: bool(o.push_repo),
        programs=("jobs",),
    ),
    Rule(
        ("--price",),
        "--price applies to a new run or a local resume: a Jobs run keeps the prices it "
        "was started with",
        programs=("jobs-resume",),
    ),
    Rule(
        ("--schedule", "--no-wait", "--artifact-repo", "--job-image", "--pilot"),
        "{flags} apply only with --executor jobs",
        programs=("local",),
    ),
)


def check_rules(options: EvalOptions, rules: tuple[Rule, ...] = RULES) -> None:
    """:class:`UsageError` of the first rule ``options`` breaks (see :class:`Rule`)."""
    program = options.program
    for rule in rules:
        if program not in rule.programs:
            continue
        given = [flag for flag in rule.flags if GIVEN[flag](options)]
        if given and (rule.only_if is None or not rule.only_if(options)):
            raise UsageError(rule.message.format(flags=", ".join(given), o=options))
