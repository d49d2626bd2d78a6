"""The console-script entry point: ``validate`` on a fast path, everything else through typer.

Importing typer (which imports pydantic) and rich costs more than the reference validator's
whole run, so a plain ``upskill-hub validate PATH... [--format text|json]`` is parsed here and
answered by :mod:`upskill_hub.cli.validate_report` without them. Anything else (help, another
command, an option this parser does not know) goes to :func:`upskill_hub.cli.main.main`, which
gives the same output and errors. Library errors become one line and an exit code in
:func:`upskill_hub.cli.exit_codes.exit_code_for`, used by both paths. The process ends without
the interpreter's final garbage collections (:func:`main`).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from upskill_hub.cli.exit_codes import exit_code_for
from upskill_hub.errors import UpskillHubError


def _fast_validate_args(args: list[str]) -> tuple[list[Path], str] | None:
    """``validate``'s arguments when they are plain paths and ``--format``; else None."""
    paths: list[Path] = []
    output_format = "text"
    items = iter(args)
    for arg in items:
        if arg.startswith("--format="):
            output_format = arg.split("=", 1)[1]
        elif arg == "--format":
            output_format = next(items, "")
        elif arg.startswith("-"):
            return None
        else:
            paths.append(Path(arg))
    if not paths or output_format not in ("text", "json"):
        return None
    return paths, output_format


def main() -> None:
    """The console script: run the command, then leave without collecting garbage.

    Every object the command made lives until the process ends, so they are frozen
    (:func:`gc.freeze`) on the way out: the interpreter's final collections then skip them,
    which with openai or matplotlib loaded (hundreds of thousands of objects) saves ~0.2 s of
    exit. Files are closed by then (the tool writes through context managers and atomic
    renames) and standard streams are flushed as usual.
    """
    try:
        _main()
    finally:
        gc.freeze()


def _main() -> None:
    args = sys.argv[1:]
    fast = _fast_validate_args(args[1:]) if args[:1] == ["validate"] else None
    if fast is None:
        from upskill_hub.cli.main import main as full

        full()
        return
    from upskill_hub.cli.validate_report import print_validation

    try:
        code = print_validation(*fast)
    except (UpskillHubError, OSError, KeyboardInterrupt) as exc:
        code = exit_code_for(exc) or 1
    sys.exit(code)
