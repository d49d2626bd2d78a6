"""Printing helpers shared by the command modules: JSON output and a lazily built rich console."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from upskill_hub.formatting import strip_control

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from rich.console import Console

    from upskill_hub.publish.dataset_push import PushedResults


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


_console: Console | None = None
_err_console: Console | None = None


def console() -> Console:
    global _console
    if _console is None:
        from rich.console import Console

        _console = Console(highlight=False, soft_wrap=True)
    return _console


def err_console() -> Console:
    global _err_console
    if _err_console is None:
        from rich.console import Console

        _err_console = Console(stderr=True, highlight=False, soft_wrap=True)
    return _err_console


def safe(value: object) -> str:
    """``value`` as text that rich prints literally: markup such as ``[/x]`` or ``[bold]`` in a
    skill name, a Hub description or a path is escaped, never interpreted (or crashed on), and
    control characters (ANSI escapes that could rewrite the terminal) are dropped."""
    from rich.markup import escape

    return escape(strip_control(value))


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def wrapping_table(*headers: str, **options: Any) -> Any:
    """A rich Table whose cells wrap rather than shorten: repo ids and paths are never cut."""
    from rich.table import Table

    made = Table(**options)
    for header in headers:
        made.add_column(header, overflow="fold")
    return made


def print_run_outcome(
    output_format: OutputFormat,
    data: dict[str, Any],
    report: Callable[[Console], None],
    run_dir: Path,
    pushed: PushedResults | None = None,
    *,
    where: str = "",
) -> None:
    """Print a finished run: ``data`` (with ``results`` when it was pushed) as JSON, or
    ``report`` then the run folder and the results dataset (``where`` precedes its split)."""
    if output_format is OutputFormat.json:
        if pushed is not None:
            data = {**data, "results": pushed.to_dict()}
        print_json(data)
        return
    out = console()
    report(out)
    out.print(f"run folder: {run_dir}")
    if pushed is not None:
        out.print(f"results: {pushed.url} ({where}split {pushed.split})")
