"""``generate``: a teacher writes a skill and its tests, students measure it, failures refine it.

Thin adapter over :mod:`upskill_hub.generate`: parse flags, print progress on stderr and the
result (text or JSON). The library is imported only when the command runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from upskill_hub.cli.output import OutputFormat, console, err_console, print_json

#: API key for ``--base-url`` / ``--teacher-base-url`` servers (same variable as ``eval``).
API_KEY_ENV = "UPSKILL_HUB_API_KEY"


def generate_command(
    task: str = typer.Argument(
        None, help="What the skill should teach (optional with --from: taken from the source)."
    ),
    source: Path = typer.Option(
        None,
        "--from",
        "-f",
        help="Start from a trace (Claude Code or Codex session JSONL, Markdown transcript) or "
        "a skill folder to improve (its tests stay as a regression suite).",
    ),
    teacher: str = typer.Option(
        "opus", "--teacher", help="Model that writes and refines the skill [opus]."
    ),
    student: list[str] = typer.Option(
        None,
        "--student",
        "-s",
        help="Model measured with and without the skill; repeat for several [local]. Same "
        "forms as eval --model.",
    ),
    runs: int = typer.Option(1, "--runs", "-n", help="Runs of each case per arm and student."),
    max_iterations: int = typer.Option(
        3, "--max-iterations", help="Skills the teacher writes at most (1 = no refinement)."
    ),
    output: Path = typer.Option(
        Path("skills"), "--output", "-o", help="Folder the skill folder <name>/ is written in."
    ),
    base_url: str = typer.Option(
        None,
        "--base-url",
        help=f"OpenAI/Anthropic-compatible API URL for every model (key from ${API_KEY_ENV}).",
    ),
    teacher_base_url: str = typer.Option(
        None, "--teacher-base-url", help="API URL for the teacher only [--base-url]."
    ),
    judge_model: str = typer.Option(
        None,
        "--judge-model",
        help="Model grading 'judge' assertions (else the teacher may not write any).",
    ),
    max_tokens: int = typer.Option(1024, "--max-tokens", help="Student reply length limit."),
    temperature: float = typer.Option(0.0, "--temperature", help="Student sampling temperature."),
    teacher_max_tokens: int = typer.Option(
        8192, "--teacher-max-tokens", help="Teacher reply length limit."
    ),
    concurrency: int = typer.Option(4, "--concurrency", "-j", help="Student requests in flight."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per student request."),
    runs_dir: Path = typer.Option(
        Path("runs"), "--runs-dir", help="Where the work folder (candidates, evals) goes."
    ),
    force: bool = typer.Option(False, "--force", help="Write over an existing skill folder."),
    output_format: OutputFormat = typer.Option(
        OutputFormat.text, "--format", help="Output format: text or json."
    ),
) -> None:
    """Generate a skill with a teacher model, measure its lift on students, refine on failures."""
    from upskill_hub.evaluation.types import GenerationParams
    from upskill_hub.formatting import lift, points
    from upskill_hub.generate import GenerateConfig, generate
    from upskill_hub.generate.teacher import DEFAULT_TEACHER_PARAMS

    config = GenerateConfig(
        task=task or "",
        source=source,
        teacher=teacher,
        students=list(student) if student else ["local"],
        runs=runs,
        max_iterations=max_iterations,
        output=output,
        work_root=runs_dir,
        base_url=base_url,
        teacher_base_url=teacher_base_url,
        api_key=os.environ.get(API_KEY_ENV) or None,
        student_params=GenerationParams(
            temperature=temperature, max_tokens=max_tokens, timeout=timeout
        ),
        teacher_params=GenerationParams(
            temperature=DEFAULT_TEACHER_PARAMS.temperature,
            max_tokens=teacher_max_tokens,
            timeout=DEFAULT_TEACHER_PARAMS.timeout,
        ),
        concurrency=concurrency,
        judge_model=judge_model,
        force=force,
    )
    err = err_console()
    result = generate(config, on_event=lambda message: err.print(message, markup=False))
    if output_format is OutputFormat.json:
        print_json(result.to_dict())
        return
    out = console()
    best = result.best
    out.print(f"skill: {result.skill_dir}  ({result.tests} tests)", markup=False)
    for rec in result.history:
        mark = "*" if rec.iteration == result.best_iteration else " "
        state = "accepted" if rec.accepted else "rejected"
        out.print(
            f"{mark} iteration {rec.iteration} ({rec.origin}): "
            f"lift {lift(rec.lift, rec.lift_ci95)} {state}",
            markup=False,
        )
    out.print(
        f"best: iteration {best.iteration}, lift {points(best.lift)}; "
        f"stopped: {result.stop_reason}",
        markup=False,
    )
    out.print(f"work folder: {result.work_dir}", markup=False)
    for warning in result.warnings:
        err.print(f"warning: {warning}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("generate")(generate_command)
