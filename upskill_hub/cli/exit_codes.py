"""A failure as one line on stderr and an exit code, for both ways into the command line (the
fast ``validate`` path of :mod:`upskill_hub.cli.entry` and the typer app of
:mod:`upskill_hub.cli.main`)."""

from __future__ import annotations

import sys

from upskill_hub.errors import UpskillHubError


def exit_code_for(exc: BaseException) -> int | None:
    """Print the one-line error for a library, OS or Ctrl-C failure; its exit code (else None)."""
    if isinstance(exc, UpskillHubError):
        from upskill_hub.cli.flags import error_text

        print(f"error: {error_text(exc)}", file=sys.stderr)
        return exc.exit_code
    if isinstance(exc, OSError):  # a path the user gave that cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    if isinstance(exc, KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        return 130
    return None
