"""Registry commands: push, pull, install, verify, list, remove, outdated, update, scan; search
and info (from :mod:`.search_commands`) are registered here too, so ``--help`` lists them where
it always has. Each parses its options, calls ``upskill_hub.registry`` and prints (rich for
people, ``--format json`` for programs). Errors propagate to ``cli.main``, which prints one line."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from upskill_hub.cli.evidence_output import outdated_lift, print_evidence
from upskill_hub.cli.interrupts import atomic
from upskill_hub.cli.output import (
    OutputFormat,
    console,
    err_console,
    print_json,
    safe,
    wrapping_table,
)
from upskill_hub.cli.search_commands import info, search
from upskill_hub.cli.signing_commands import (
    ALLOW_DOWNGRADE_OPTION,
    CERTIFICATE_CHAIN_OPTION,
    REQUIRE_SIGNATURE_OPTION,
    SIGN_CERTIFICATE_OPTION,
    SIGN_OPTION,
    TRUSTED_CA_OPTION,
    TRUSTED_KEY_OPTION,
    TRUSTED_KEYS_OPTION,
    results_signatures,
    signing_key,
    trust_policy,
)

FORMAT_OPTION = typer.Option(OutputFormat.text, "--format", help="Output format: text or json.")
PROJECT_OPTION = typer.Option(
    None,
    "--project",
    help="Project root (default: the nearest folder above the current one holding .git).",
)
FORCE_OPTION = typer.Option(False, "--force", help="Overwrite local edits / name collisions.")
LOCK_GLOBAL_OPTION = typer.Option(
    False,
    "--global",
    help="Also act on the lock's entries in your user folders (~/.claude/skills/NAME, ...); "
    "without it such entries are refused.",
)
UNSAFE_OPTION = typer.Option(
    False,
    "--allow-unsafe",
    help="Install even when the security scan reports errors (never escaping paths or links).",
)
PUSH_UNSAFE_OPTION = typer.Option(
    False,
    "--allow-unsafe",
    help="Publish even when the security scan reports errors; symlinks, special files and "
    "escaping paths are refused regardless.",
)
SCAN_UNSAFE_OPTION = typer.Option(
    False,
    "--allow-unsafe",
    help="Exit 0 when push --allow-unsafe would accept the skill (symlinks, special files and "
    "escaping paths still fail).",
)


def _quiet(output_format: OutputFormat) -> None:
    """No huggingface_hub progress bars with --format json or when stderr is not a terminal."""
    from upskill_hub.hub.client import quiet_huggingface_hub

    quiet_huggingface_hub(progress=None if output_format is OutputFormat.text else False)


@contextlib.contextmanager
def _show_refusals() -> Iterator[None]:
    """Print every finding of a scan or validation refusal before the one-line error."""
    from upskill_hub.registry.fetch import ScanRefusedError, ValidationRefusedError

    try:
        yield
    except ScanRefusedError as exc:
        for finding in exc.findings:
            err_console().print(
                f"  [red]unsafe[/red] {safe(finding)}", markup=True, highlight=False
            )
        raise
    except ValidationRefusedError as exc:
        for f in exc.report.errors:
            err_console().print(
                f"  [red]error[/red] {safe(f.location())} [dim]{safe(f.rule)}[/dim] "
                f"{safe(f.message)}",
                markup=True,
                highlight=False,
            )
        raise


def _warn(lines: list[str]) -> None:
    for line in lines:
        err_console().print(
            f"  [yellow]warning[/yellow] {safe(line)}", markup=True, highlight=False
        )


def push(
    path: Path = typer.Argument(..., help="A skill folder, or a folder of skills."),
    repo: str = typer.Option(None, "--repo", help="Target repo NS/NAME (default: you/<name>)."),
    private: bool = typer.Option(False, "--private", help="Create the repo as private."),
    tag: str = typer.Option(None, "--tag", help="Tag the commit with this version."),
    message: str = typer.Option(None, "--message", "-m", help="Commit message."),
    create_pr: bool = typer.Option(False, "--create-pr", help="Open a pull request instead."),
    allow_unsafe: bool = PUSH_UNSAFE_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
    sign: Path = SIGN_OPTION,
    sign_certificate: Path = SIGN_CERTIFICATE_OPTION,
    certificate_chain: list[Path] = CERTIFICATE_CHAIN_OPTION,
) -> None:
    """Validate, scan and publish skills to a Hub model repo with a model card."""
    from upskill_hub.registry.push import push_skills

    _quiet(output_format)
    with _show_refusals():
        result = push_skills(
            path,
            repo_id=repo,
            private=private,
            tag=tag,
            message=message,
            create_pr=create_pr,
            allow_unsafe=allow_unsafe,
            sign=signing_key(sign, sign_certificate, certificate_chain),
        )
    if output_format is OutputFormat.json:
        print_json(result.to_dict())
        return
    _warn(result.warnings)
    out = console()
    skills = safe(", ".join(result.skills))
    if not result.changed:
        what = "no pull request was opened" if create_pr else "nothing was committed"
        out.print(
            f"No changes: [bold]{safe(result.repo_id)}[/bold] already has these files of "
            f"{skills}; {what}"
        )
    else:
        out.print(f"Pushed {skills} to [bold]{safe(result.repo_id)}[/bold]")
    out.print(f"  commit {result.commit}" + (f"  tag {safe(result.tag)}" if result.tag else ""))
    if result.signed_by:
        out.print(f"  signed by {safe(result.signed_by)}")
    if result.changed:
        out.print(f"  {len(result.files)} file(s)")
        if result.deleted:
            out.print(
                f"  removed from the repo (no longer in the skill folder): "
                f"{safe(', '.join(result.deleted))}"
            )
    out.print(f"  {safe(result.url)}")


def pull(
    spec: str = typer.Argument(..., help="REPO_ID[@REV]: a branch, tag or commit."),
    skill: list[str] = typer.Option([], "--skill", help="Skill to take from a multi-skill repo."),
    agent: list[str] = typer.Option(
        [], "--agent", help="claude|agents|codex|cursor|copilot|gemini|opencode|goose|windsurf"
    ),
    directory: Path = typer.Option(None, "--dir", help="Install into this skills folder."),
    global_: bool = typer.Option(False, "--global", help="Install into the user's folders."),
    force: bool = FORCE_OPTION,
    allow_unsafe: bool = UNSAFE_OPTION,
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
    require_signature: bool = REQUIRE_SIGNATURE_OPTION,
    trusted_key: list[Path] = TRUSTED_KEY_OPTION,
    trusted_keys: Path = TRUSTED_KEYS_OPTION,
    trusted_ca: list[Path] = TRUSTED_CA_OPTION,
    allow_downgrade: bool = ALLOW_DOWNGRADE_OPTION,
) -> None:
    """Download, check and install skills from a Hub repo; lock the commit."""
    from upskill_hub.publish.readers import pull as run

    _quiet(output_format)
    policy = trust_policy(require_signature, trusted_key, trusted_keys, trusted_ca, allow_downgrade)
    with _show_refusals():
        report = run(
            spec,
            skills=skill,
            agents=agent,
            custom_dir=directory,
            global_=global_,
            force=force,
            allow_unsafe=allow_unsafe,
            project_root=project,
            trust=policy,
            results_signatures=results_signatures(policy),
        )
    _print_report(report, output_format)


def install(
    requests: list[str] = typer.Argument(
        None, help="Locked skill names or REPO_ID[@REV] (default: everything in the lock)."
    ),
    frozen: bool = typer.Option(False, "--frozen", help="Fail instead of changing the lock (CI)."),
    global_: bool = LOCK_GLOBAL_OPTION,
    force: bool = FORCE_OPTION,
    allow_unsafe: bool = UNSAFE_OPTION,
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
    require_signature: bool = REQUIRE_SIGNATURE_OPTION,
    trusted_key: list[Path] = TRUSTED_KEY_OPTION,
    trusted_keys: Path = TRUSTED_KEYS_OPTION,
    trusted_ca: list[Path] = TRUSTED_CA_OPTION,
) -> None:
    """Restore exactly the commits in upskill-hub.lock."""
    from upskill_hub.registry.project.pull import install_locked

    _quiet(output_format)
    with _show_refusals():
        report = install_locked(
            requests or [],
            frozen=frozen,
            global_=global_,
            force=force,
            allow_unsafe=allow_unsafe,
            project_root=project,
            trust=trust_policy(require_signature, trusted_key, trusted_keys, trusted_ca),
        )
    _print_report(report, output_format)


def update(
    names: list[str] = typer.Argument(None, help="Skills to update (default: all)."),
    global_: bool = LOCK_GLOBAL_OPTION,
    force: bool = FORCE_OPTION,
    allow_unsafe: bool = UNSAFE_OPTION,
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
    require_lift: bool = typer.Option(
        False,
        "--require-lift",
        help="Move a skill only when the new commit's published lift is not lower than the "
        "locked one's beyond its interval (new upper bound >= locked lift); skip the rest.",
    ),
    model: str = typer.Option(
        None, "--model", help="With --require-lift: the model whose lift decides."
    ),
    require_signed_results: bool = typer.Option(
        False,
        "--require-signed-results",
        help="With --require-lift: count only figures whose results split a trusted key "
        "(--trusted-key, --trusted-keys, $UPSKILL_HUB_TRUSTED_KEYS) signed, rows unchanged "
        "since (results push --sign).",
    ),
    accept_reported: bool = typer.Option(
        False,
        "--accept-reported",
        help="With --require-lift: count figures that are only reported (not re-checked "
        "from the published samples) too; inconsistent ones never count.",
    ),
    require_signature: bool = REQUIRE_SIGNATURE_OPTION,
    trusted_key: list[Path] = TRUSTED_KEY_OPTION,
    trusted_keys: Path = TRUSTED_KEYS_OPTION,
    trusted_ca: list[Path] = TRUSTED_CA_OPTION,
    allow_downgrade: bool = ALLOW_DOWNGRADE_OPTION,
) -> None:
    """Move skills to the current commit of their ref; edited ones need --force.

    Exits 1 when a skill was skipped (edited locally, or refused by --require-lift), 0 when
    every skill is current.
    """
    from upskill_hub.publish.readers import update as run

    _quiet(output_format)
    policy = trust_policy(require_signature, trusted_key, trusted_keys, trusted_ca, allow_downgrade)
    with _show_refusals():
        report = run(
            names or [],
            force=force,
            allow_unsafe=allow_unsafe,
            project_root=project,
            require_lift=require_lift,
            model=model,
            accept_reported=accept_reported,
            trust=policy,
            global_=global_,
            require_signed_results=require_signed_results,
            results_signatures=results_signatures(policy) if require_signed_results else None,
        )
    _print_report(report, output_format)
    if any(s.status == "skipped" for s in report.skills):
        raise typer.Exit(1)


def _print_report(report: Any, output_format: OutputFormat) -> None:
    if output_format is OutputFormat.json:
        print_json(report.to_dict())
        return
    out = console()
    if not report.skills:
        out.print("Nothing to do.")
    for s in report.skills:
        _warn(s.warnings)
        where = safe(", ".join(s.targets))
        moved = (
            f" (was {s.previous_commit[:12]})"
            if s.previous_commit and s.previous_commit != s.commit
            else ""
        )
        colour = {"installed": "green", "copied": "green", "unchanged": "dim", "skipped": "yellow"}[
            s.status
        ]
        out.print(
            f"[{colour}]{s.status}[/{colour}] [bold]{safe(s.name)}[/bold] "
            f"{safe(s.repo_id)}@{s.commit[:12]}"
            f"{moved} -> {where}",
            markup=True,
            highlight=False,
        )
        if s.detail:
            out.print(f"  {safe(s.detail)}", highlight=False)
        print_evidence(s.evidence)


def verify(
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
    require_signature: bool = REQUIRE_SIGNATURE_OPTION,
    trusted_key: list[Path] = TRUSTED_KEY_OPTION,
    trusted_keys: Path = TRUSTED_KEYS_OPTION,
    trusted_ca: list[Path] = TRUSTED_CA_OPTION,
) -> None:
    """Check installed skills against the lock, and signed ones against their signature: exit 0
    when all match, 1 naming every differing file, 2 when it cannot tell (no lock, unreadable
    lock)."""
    from upskill_hub.registry.project.state import project_root_for
    from upskill_hub.registry.project.state import verify as run
    from upskill_hub.registry.trust.installed import verify_signatures

    bad = run(project)
    policy = trust_policy(require_signature, trusted_key, trusted_keys, trusted_ca)
    signatures = verify_signatures(project_root_for(project), policy)
    if output_format is OutputFormat.json:
        print_json(
            {
                "ok": not bad and not signatures,
                "differing": {s.name: s.differing_files() for s in bad},
                "signatures": signatures,
            }
        )
    elif not bad and not signatures:
        console().print("All installed skills match upskill-hub.lock.")
    else:
        for s in bad:
            for f in s.differing_files():
                console().print(
                    f"[red]differs[/red] {safe(s.name)}: {safe(f)}", markup=True, highlight=False
                )
        for problems in signatures.values():
            for problem in problems:
                console().print(f"[red]signature[/red] {safe(problem)}", highlight=False)
    raise typer.Exit(1 if bad or signatures else 0)


def list_skills(
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Installed skills with source, commit and modified state."""

    from upskill_hub.registry.project.state import list_installed

    states = list_installed(project)
    if output_format is OutputFormat.json:
        print_json({"skills": [s.to_dict() for s in states]})
        return
    if not states:
        console().print("No skills in upskill-hub.lock.")
        return
    table = wrapping_table("skill", "source", "ref", "commit", "state", "installed in")
    for s in states:
        state = "ok" if s.clean else ("modified" if s.modified else "missing")
        table.add_row(
            safe(s.name),
            safe(s.repo_id + (f":{s.subpath}" if s.subpath else "")),
            safe(s.ref or "-"),
            s.commit[:12],
            state,
            safe("\n".join(s.targets)),
        )
    console().print(table)


def remove(
    name: str = typer.Argument(..., help="The skill to uninstall."),
    force: bool = typer.Option(False, "--force", help="Remove even if edited locally."),
    global_: bool = LOCK_GLOBAL_OPTION,
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Uninstall a skill (every folder and link) and drop it from the lock."""
    from upskill_hub.registry.project.state import remove as run

    targets = run(name, force=force, project_root=project, global_=global_)
    if output_format is OutputFormat.json:
        print_json({"removed": name, "targets": targets})
    else:
        console().print(f"Removed {safe(name)} ({safe(', '.join(targets) or 'not installed')})")


def outdated(
    names: list[str] = typer.Argument(None, help="Skills to check (default: all)."),
    project: Path = PROJECT_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Compare each locked commit with the current commit of its ref.

    Exits 0 when all are up to date, 1 when any is outdated, 2 when it cannot tell (the Hub
    cannot be reached, the lock is missing or unreadable), as ``diff`` does.
    """

    from upskill_hub.publish.readers import outdated as run

    rows = run(names or [], project_root=project)
    stale = any(r.outdated for r in rows)
    if output_format is OutputFormat.json:
        print_json({"skills": [r.to_dict() for r in rows]})
        raise typer.Exit(1 if stale else 0)
    table = wrapping_table("skill", "repo", "ref", "locked", "current", "", "lift")
    for r in rows:
        table.add_row(
            safe(r.name),
            safe(r.repo_id),
            safe(r.ref),
            r.locked[:12],
            r.current[:12],
            "outdated" if r.outdated else "up to date",
            safe(outdated_lift(r)),
        )
    console().print(table)
    raise typer.Exit(1 if stale else 0)


def scan(
    path: Path = typer.Argument(..., help="A skill folder, or a folder of skills."),
    allow_unsafe: bool = SCAN_UNSAFE_OPTION,
    output_format: OutputFormat = FORMAT_OPTION,
) -> None:
    """Run the security scan on local skills (what push would upload); exit 1 on errors."""
    from upskill_hub.registry.push import NEVER_UPLOADED, scan_local

    results = scan_local(path)
    failed = any(
        f.severity == "error" and (not allow_unsafe or f.rule in NEVER_UPLOADED)
        for _, findings in results
        for f in findings
    )
    if output_format is OutputFormat.json:
        print_json(
            {
                "ok": not failed,
                "skills": [
                    {"path": str(p), "findings": [f.__dict__ for f in findings]}
                    for p, findings in results
                ],
            }
        )
    else:
        for skill_path, findings in results:
            console().print(f"[bold]{safe(skill_path)}[/bold]: {len(findings)} finding(s)")
            for f in findings:
                colour = "red" if f.severity == "error" else "yellow"
                console().print(
                    f"  [{colour}]{f.severity}[/{colour}] {safe(f.location)}: "
                    f"{safe(f.message)} [dim]{safe(f.rule)}[/dim]",
                    markup=True,
                    highlight=False,
                )
    raise typer.Exit(1 if failed else 0)


def register(app: typer.Typer) -> None:
    # atomic: the command puts everything back when interrupted (Ctrl-C says "nothing changed")
    rolls_back = (pull, install, verify, remove, outdated, update)
    for command in (push, pull, install, verify, remove, outdated, update, search, info, scan):
        app.command()(atomic(command) if command in rolls_back else command)
    app.command("list")(atomic(list_skills))
