"""Hub browsing commands: ``search`` (repos tagged agent-skills, ranked by published lift) and
``info`` (a repo's skills, files, scan findings and signature, without installing), with their
printers. Registered by :mod:`.registry_commands`, after ``update`` in ``--help``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from upskill_hub.cli.evidence_output import hit_lift, print_evidence
from upskill_hub.cli.output import OutputFormat, console, print_json, safe, wrapping_table
from upskill_hub.cli.signing_commands import (
    TRUSTED_CA_OPTION,
    TRUSTED_KEY_OPTION,
    TRUSTED_KEYS_OPTION,
    results_signatures,
    trust_policy,
)

FORMAT_OPTION = typer.Option(OutputFormat.text, "--format", help="Output format: text or json.")


def search(
    query: str = typer.Argument("", help="Text to match in repo ids."),
    limit: int = typer.Option(20, "--limit", help="Most results to show."),
    output_format: OutputFormat = FORMAT_OPTION,
    model: str = typer.Option(
        None, "--model", help="Rank by the published lift on this model (unmeasured last)."
    ),
) -> None:
    """List Hub model repos tagged agent-skills that match QUERY, with their published lift."""

    from upskill_hub.registry.search import search as run

    hits = run(query, limit=limit, model=model)
    if output_format is OutputFormat.json:
        print_json({"results": [h.to_dict() for h in hits]})
        return
    if not hits:
        console().print(f"No agent-skills repos match {safe(repr(query))}.")
        return
    lift = f"lift on {model}" if model else "lift"
    table = wrapping_table("repo", "description", "downloads", "likes", lift)
    for h in hits:
        table.add_row(
            safe(h.repo_id),
            safe(h.description),
            str(h.downloads),
            str(h.likes),
            safe(hit_lift(h.evidence, h.ranked_by) if not model or h.ranked_by else "not measured"),
        )
    console().print(table)


def info(
    spec: str = typer.Argument(..., help="REPO_ID[@REV]"),
    output_format: OutputFormat = FORMAT_OPTION,
    trusted_key: list[Path] = TRUSTED_KEY_OPTION,
    trusted_keys: Path = TRUSTED_KEYS_OPTION,
    trusted_ca: list[Path] = TRUSTED_CA_OPTION,
) -> None:
    """Show a repo's skills: file tree, sizes, frontmatter, scan findings and signature (no
    install). With trusted keys, each published figure says who measured it (signed results)."""
    from upskill_hub.publish.readers import info as run

    policy = trust_policy(False, trusted_key, trusted_keys, trusted_ca)
    result = run(spec, trust=policy, results_signatures=results_signatures(policy))
    if output_format is OutputFormat.json:
        print_json(result.to_dict())
        return
    out = console()
    out.print(
        f"[bold]{safe(result.repo_id)}[/bold] @ {result.commit}"
        + (f" ({safe(result.ref)})" if result.ref else ""),
        highlight=False,
    )
    for s in result.skills:
        out.print(
            f"\n[bold]{safe(s.name)}[/bold]" + (f"  ({safe(s.subpath)}/)" if s.subpath else ""),
            highlight=False,
        )
        for key, value in s.frontmatter.items():
            out.print(f"  {key}: {value}", markup=False, highlight=False)
        for path, size in s.files:
            out.print(f"  {size:>9,d}  {_printable(path)}", markup=False, highlight=False)
        for f in s.findings:
            colour = "red" if f.severity == "error" else "yellow"
            out.print(
                f"  [{colour}]{f.severity}[/{colour}] {safe(f.location)}: {safe(f.message)} "
                f"[dim]{safe(f.rule)}[/dim]",
                markup=True,
                highlight=False,
            )
        for e in s.validation_errors:
            out.print(f"  [red]invalid[/red] {safe(e)}", markup=True, highlight=False)
        if s.safe and not s.validation_errors:
            out.print("  [green]no scan errors, valid[/green]", markup=True)
        _print_signature(s.signature)
        print_evidence(s.evidence)


def _print_signature(signature: dict[str, Any] | None) -> None:
    """A line on a skill's signature for ``info`` (and one on its signed statement)."""
    if signature is None:
        console().print("  not signed", highlight=False)
        return
    _print_signer(signature)
    if signature.get("statement"):
        console().print(f"  statement {safe(signature['statement'])}", highlight=False)


def _print_signer(signature: dict[str, Any]) -> None:
    if signature.get("verified_by"):
        line = (
            f"  [green]signed by {safe(signature['verified_by'])} (trusted key, verified)[/green]"
        )
        console().print(line, markup=True, highlight=False)
    elif signature.get("problem"):
        console().print(f"  [red]signature[/red] {safe(signature['problem'])}", highlight=False)
    elif signature.get("changed_since_signing"):
        changed = ", ".join(signature["changed_since_signing"])
        console().print(
            f"  [red]signature[/red] signed by {safe(signature['key'])}, but files differ from "
            f"what was signed: {safe(changed)}",
            highlight=False,
        )
    else:
        console().print(
            f"  signed by {safe(signature['key'])} (files match; the key is not checked: "
            "give --trusted-key)",
            highlight=False,
        )


def _printable(text: str) -> str:
    """Escape invisible characters so a hostile file name prints as what it is."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)
