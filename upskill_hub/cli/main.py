"""The ``upskill-hub`` command: parses arguments, calls the library, prints.

Each area registers its commands from its own module (``register(app)``). Heavy libraries
(gradio, datasets, openai, anthropic, llama_cpp, matplotlib) are imported only inside commands.
Library errors become one line on stderr and an exit code here, and only here.
"""

from __future__ import annotations

import importlib
import sys

import typer

from upskill_hub import __version__
from upskill_hub.cli.exit_codes import exit_code_for
from upskill_hub.cli.interrupts import INTERRUPTED, NOTHING_CHANGED, CommandInterrupted
from upskill_hub.errors import UpskillHubError

#: Command modules under ``upskill_hub.cli``; each defines ``register(app: typer.Typer)``.
COMMAND_MODULES = (
    "skill_commands",
    "registry_commands",
    "eval_commands",
    "results_commands",
    "hub_commands",
    "generate_commands",
    "space_commands",
    "signing_commands",
    "jobs_commands",
)

app = typer.Typer(
    name="upskill-hub",
    help="Validate, evaluate, publish and install Agent Skills on the Hugging Face Hub.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"upskill-hub {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Validate, evaluate, publish and install Agent Skills on the Hugging Face Hub."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"upskill_hub.cli.{_name}").register(app)


def main() -> None:
    """Console-script entry point: the one place errors become a line and an exit code."""
    command = typer.main.get_command(app)
    try:
        code = command.main(prog_name="upskill-hub", standalone_mode=False)
    except (UpskillHubError, OSError) as exc:
        sys.exit(exit_code_for(exc))
    except CommandInterrupted:  # an atomic command (cli/interrupts.py) put everything back
        print(NOTHING_CHANGED, file=sys.stderr)
        sys.exit(130)
    except (KeyboardInterrupt, typer.Abort):
        print(INTERRUPTED, file=sys.stderr)
        sys.exit(130)
    except typer.TyperException as exc:  # argument parsing: a bad flag, value or argument
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        exit_code = int(getattr(exc, "exit_code", 2))
        if message.lstrip().startswith("Usage:"):  # no arguments: the help text itself
            print(message)
            sys.exit(0)
        print(f"error: {' '.join(message.split())}", file=sys.stderr)
        sys.exit(exit_code)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
