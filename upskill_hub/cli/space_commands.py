"""``space``: deploy the Gradio Space (the app itself lives in ``space/app.py``).

Thin adapter over :mod:`upskill_hub.space_support.deploy`; gradio is never imported here.
"""

from __future__ import annotations

from pathlib import Path

import typer

from upskill_hub.cli.output import OutputFormat, console, print_json


def register(app: typer.Typer) -> None:
    space = typer.Typer(
        name="space",
        help="The Gradio Space: run any skill against any model in the browser.",
        no_args_is_help=True,
    )

    @space.command("deploy")
    def deploy_command(
        repo: str = typer.Option(..., "--repo", help="Space repo to create or update: NS/NAME."),
        private: bool = typer.Option(False, "--private", help="Create the Space as private."),
        app_dir: Path | None = typer.Option(
            None, "--app-dir", help="Folder with app.py and README.md [default: space/]."
        ),
        skills_dir: Path | None = typer.Option(
            None, "--skills-dir", help="Bundled skills to ship [default: skills/]."
        ),
        output_format: OutputFormat = typer.Option(
            OutputFormat.text, "--format", help="Output format: text or json."
        ),
    ) -> None:
        """Create or update a Space (sdk gradio) with the app, the bundled skills, and a wheel
        of this upskill-hub source that the Space's requirements.txt installs."""
        from upskill_hub.space_support.deploy import deploy_space

        result = deploy_space(repo, app_dir=app_dir, skills_dir=skills_dir, private=private)
        if output_format is OutputFormat.json:
            print_json(
                {
                    "repo_id": result.repo_id,
                    "url": result.url,
                    "commit": result.commit,
                    "files": result.files,
                    "deleted": result.deleted,
                }
            )
            return
        out = console()
        out.print(f"deployed {len(result.files)} files to {result.url} ({result.commit[:12]})")
        if result.deleted:
            out.print(f"removed {len(result.deleted)} stale file(s): {', '.join(result.deleted)}")

    app.add_typer(space)
