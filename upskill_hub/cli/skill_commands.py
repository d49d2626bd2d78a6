"""``validate``, ``to-prompt`` and ``init``: commands over local skill folders."""

from __future__ import annotations

from pathlib import Path

import typer

from upskill_hub.cli.output import OutputFormat, console, print_json, safe
from upskill_hub.errors import UsageError

FORMAT_OPTION = typer.Option(OutputFormat.text, "--format", help="Output format: text or json.")


def validate(
    paths: list[Path] = typer.Argument(
        ..., help="Skill folders, SKILL.md files, or folders of skills (searched recursively)."
    ),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Check skills against the agentskills.io spec. Exit 0 if all are valid, 1 if any is not."""
    from upskill_hub.cli.validate_report import print_validation

    raise typer.Exit(print_validation(paths, output_format.value))


def to_prompt(
    paths: list[Path] = typer.Argument(..., help="Skill folders or folders of skills."),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Print the <available_skills> block agents put in their system prompt."""
    from upskill_hub.skill import discover_skills, load_skill
    from upskill_hub.skill.prompt import skill_entries
    from upskill_hub.skill.prompt import to_prompt as render

    skills = [load_skill(d, with_tests=False) for p in paths for d in discover_skills(p)]
    if output_format is OutputFormat.json:
        print_json({"skills": skill_entries(skills), "prompt": render(skills)})
    else:
        print(render(skills))


def init(
    name: str = typer.Argument(..., help="The skill name (lowercase a-z, 0-9, hyphens)."),
    directory: Path = typer.Option(Path("."), "--dir", help="Parent folder for the new skill."),
    description: str = typer.Option(None, "--description", help="The skill's description."),
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Scaffold a valid skill folder with SKILL.md and a starter skill_meta.json."""
    from upskill_hub.skill.scaffold import scaffold_skill

    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--dir {directory}: not a directory")
    target = scaffold_skill(name, directory, description=description)
    if output_format is OutputFormat.json:
        print_json({"path": str(target), "name": name})
    else:
        console().print(
            f"Created {safe(target)} (edit SKILL.md, then: upskill-hub validate {safe(target)})"
        )


def register(app: typer.Typer) -> None:
    app.command()(validate)
    app.command("to-prompt")(to_prompt)
    app.command()(init)
