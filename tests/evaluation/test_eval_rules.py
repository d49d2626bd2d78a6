"""``eval``'s flag combinations: one table of rules (``upskill_hub.cli.eval_options.RULES``),
each rule's message as the command prints it, checked before the skill is loaded."""

from __future__ import annotations

import inspect
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
import typer

from tests.cli_runner import run_cli
from upskill_hub.cli.eval_commands import eval_command
from upskill_hub.cli.eval_options import GIVEN, RULES, EvalOptions, check_rules
from upskill_hub.errors import UsageError


def defaults(**given: Any) -> EvalOptions:
    """The options of ``eval SKILL`` with nothing else given, then ``given``."""
    values = {
        name: (param.default if param.default is not inspect.Parameter.empty else "some/skill")
        for name, param in inspect.signature(eval_command).parameters.items()
    }
    return replace(EvalOptions(**values), **given)


def test_the_options_are_the_command_parameters() -> None:
    params = list(inspect.signature(eval_command).parameters)
    assert [f.name for f in fields(EvalOptions)] == params
    check_rules(defaults())  # nothing given, nothing broken


def test_every_flag_a_rule_names_is_an_eval_option() -> None:
    app = typer.Typer()
    app.command()(eval_command)
    command = typer.main.get_command(app)
    options = {opt for param in command.params for opt in param.opts}
    for rule in RULES:
        for flag in rule.flags:
            assert flag in GIVEN
            assert flag.split()[0] in options, flag


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"private": True}, "--private apply only with --push-results NS/NAME"),
        (
            {"update_skill_card": True, "create_pr": True},
            "--update-skill-card, --create-pr apply only with --push-results NS/NAME",
        ),
        (
            {"push_repo": "a/b", "skill_repo": "a/s"},
            "--skill-repo and --create-pr apply only with --update-skill-card",
        ),
        ({"token_budget": 5}, "--token-budget apply only with --mode agent"),
        (
            {"triggers": Path("q.json"), "mode": "inline"},
            "--triggers runs the model with tools; drop --mode inline",
        ),
        (
            {"triggers": Path("q.json"), "no_baseline": True, "executor": "jobs"},
            "--no-baseline, --executor jobs do(es) not apply to --triggers (a trigger eval)",
        ),
        ({"split": 0.0}, "--split and --distractors apply only with --triggers FILE"),
        (
            {"executor": "jobs", "resume": Path("r")},
            "--resume r: a local run; resume it without --executor jobs",
        ),
        (
            {"executor": "jobs", "no_wait": True, "push_repo": "a/b"},
            "--push-results waits for the run: drop --no-wait, or run `results push RUN --repo "
            "NS/NAME` after `jobs collect RUN`",
        ),
        (
            {"executor": "jobs", "schedule": "@weekly"},
            "--schedule needs --push-results NS/NAME (where each run's split goes)",
        ),
        (
            {"no_wait": True, "job_image": "img"},
            "--no-wait, --job-image apply only with --executor jobs",
        ),
    ],
)
def test_each_rule_says_what_applies_with_what(given: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_rules(defaults(**given))
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "given",
    [
        {"triggers": Path("q.json"), "max_turns": 3, "split": 0.5, "distractors": Path("d")},
        {"mode": "agent", "token_budget": 100},
        {"executor": "jobs", "no_wait": True, "artifact_repo": "a/r", "job_image": "img"},
        {"executor": "jobs", "schedule": "@weekly", "push_repo": "a/b", "no_wait": True},
        {"push_repo": "a/b", "update_skill_card": True, "skill_repo": "a/s", "create_pr": True},
    ],
)
def test_flags_given_where_they_apply_pass(given: dict[str, Any]) -> None:
    check_rules(defaults(**given))


def test_a_run_on_jobs_resumes_with_its_own_flags(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "jobs.json").write_text("{}")
    resumed = defaults(resume=run, no_wait=True, yes=True, split=0.5)
    assert resumed.program == "jobs-resume"
    check_rules(resumed)  # --no-wait and --yes are its flags; run flags are not looked at
    with pytest.raises(UsageError, match="--private apply only with --push-results"):
        check_rules(replace(resumed, private=True))


def test_a_broken_rule_is_said_before_the_skill_is_looked_for(tmp_path: Path) -> None:
    done = run_cli("eval", str(tmp_path / "no-such-skill"), "--split", "0.5")
    assert done.returncode == 2
    assert done.stderr == "error: --split and --distractors apply only with --triggers FILE\n"
