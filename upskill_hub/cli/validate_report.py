"""``validate``'s work and output, without typer or rich: the fast path of the command.

``upskill-hub validate`` must start as fast as the reference validator (``agentskills
validate``), so this module imports only the skill package and the standard library, and both
the typer command and the fast entry point (:mod:`upskill_hub.cli.entry`) call
:func:`print_validation`. Colours are ANSI codes, on a terminal only and never with
``NO_COLOR``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from upskill_hub.cli.output import print_json
from upskill_hub.formatting import strip_control

_STYLES = {"green": "32", "red": "31", "yellow": "33", "bold": "1", "dim": "2"}


def _styled(text: str, style: str) -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return text
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"


def print_validation(paths: Sequence[Path], output_format: str) -> int:
    """Validate every skill at or under ``paths``, print the result; the exit code (0 or 1)."""
    from upskill_hub.skill import discover_skills, validate_skill

    # links that leave a folder given are not followed (they could be anywhere): named instead
    links_out: list[tuple[Path, Path]] = []
    skill_dirs = [
        d
        for path in paths
        for d in discover_skills(Path(path), follow_links=True, links_out=links_out)
    ]
    reports = [validate_skill(d) for d in skill_dirs]
    all_valid = all(r.valid for r in reports)
    if output_format == "json":
        data: dict[str, object] = {"valid": all_valid, "skills": [r.to_dict() for r in reports]}
        if links_out:
            data["links_not_followed"] = [
                {"path": str(link), "target": str(target)} for link, target in links_out
            ]
        print_json(data)
        return 0 if all_valid else 1
    lines = [
        f"{_styled('skipped', 'yellow')} {strip_control(link)}: a link to "
        f"{strip_control(target)}, outside the folder given; validate that folder itself"
        for link, target in links_out
    ]
    for report in reports:
        label = strip_control(report.name or report.path.name)
        status = _styled("valid", "green") if report.valid else _styled("invalid", "red")
        lines.append(f"{status} {_styled(label, 'bold')} ({strip_control(report.path)})")
        for finding in report.errors + report.warnings:
            colour = "red" if finding.severity == "error" else "yellow"
            lines.append(
                f"  {_styled(finding.severity, colour)} {strip_control(finding.location())} "
                f"{_styled(finding.rule, 'dim')} {strip_control(finding.message)}"
            )
    n_bad = sum(not r.valid for r in reports)
    n_warn = sum(len(r.warnings) for r in reports)
    lines.append(
        f"{len(reports)} skill(s): {len(reports) - n_bad} valid, {n_bad} invalid, "
        f"{n_warn} warning(s)"
    )
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0 if all_valid else 1
