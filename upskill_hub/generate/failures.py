"""Failure evidence for the teacher: every failing case, whole, or an explicit cut.

One block per failing case holds the case (input, context files, assertions) and, per student,
every failed with-skill output **complete** with each failed assertion's reason. Runs of a
student that failed with the same output and reasons are shown once ("runs 1, 2"). A block
says when a run passed without the skill (the skill made it worse).

Blocks are never shortened. When they do not all fit ``budget`` characters, whole case blocks
are left out (the first one always goes in; a later, smaller one may still fit), and the text
starts with a NOTE naming the cases left out and saying that no shown case was cut.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from upskill_hub.evaluation.types import Sample
from upskill_hub.skill.testcases import TestCase

DEFAULT_EVIDENCE_BUDGET = 60_000


@dataclass
class Evidence:
    """The evidence text and what it holds."""

    text: str
    total_cases: int  # cases with at least one failed with-skill sample
    shown_cases: list[str] = field(default_factory=list)
    omitted_cases: list[str] = field(default_factory=list)
    failed_samples: int = 0
    errors: int = 0  # with-skill requests that failed at the API (no output to show)

    @property
    def shortened(self) -> bool:
        return bool(self.omitted_cases)


def _runs(runs: list[int]) -> str:
    return ("run " if len(runs) == 1 else "runs ") + ", ".join(str(r) for r in runs)


def _case_block(
    case_id: str, case: TestCase | None, failed: list[Sample], baseline_pass: set[tuple[str, int]]
) -> str:
    runs_total = len(failed)
    lines = [f"### Case `{case_id}` ({runs_total} failed with-skill sample(s))"]
    if case is not None:
        lines += ["Input:", "<input>", case.input, "</input>"]
        for fname, content in case.files.items():
            lines += [f'<file name="{fname}">', content, "</file>"]
        lines += [
            "Assertions:",
            *(f"- {json.dumps(a, ensure_ascii=False)}" for a in case.assertions),
        ]
    # group a student's runs that failed identically
    groups: dict[tuple[str, str, tuple[tuple[str, str, str], ...]], list[int]] = {}
    for s in failed:
        found: tuple[tuple[str, str, str], ...] = tuple(
            (a.type, str(a.status), a.reason) for a in s.assertions if a.status in ("fail", "error")
        )
        groups.setdefault((s.model, s.output, found), []).append(s.run)
    for (model, output, reasons), runs in groups.items():
        runs.sort()
        head = f"#### Student `{model}`, {_runs(runs)}"
        if len(runs) > 1:
            head += " (identical output)"
        lines += ["", head]
        worse = [r for r in runs if (model, r) in baseline_pass]
        if worse:
            lines.append(
                f"Passed WITHOUT the skill in {_runs(worse)}: the skill made this case worse."
            )
        lines += ["Output (complete):", "<output>", output, "</output>", "Failed assertions:"]
        lines += [f"- {kind} ({status}): {reason}" for kind, status, reason in reasons]
        if not reasons:
            lines.append("- (none recorded)")
    return "\n".join(lines)


def failure_evidence(
    samples: Sequence[Sample],
    cases: Sequence[TestCase],
    *,
    budget: int = DEFAULT_EVIDENCE_BUDGET,
) -> Evidence:
    """The evidence for the failed with-skill samples of one eval (see the module docstring)."""
    by_id = {c.id: c for c in cases}
    order = {c.id: i for i, c in enumerate(cases)}
    failed = [s for s in samples if s.arm == "with_skill" and s.outcome == "fail"]
    errors = sum(1 for s in samples if s.arm == "with_skill" and s.outcome == "error")
    per_case: dict[str, list[Sample]] = {}
    for s in sorted(failed, key=lambda s: (order.get(s.case_id, len(order)), s.model, s.run)):
        per_case.setdefault(s.case_id, []).append(s)
    blocks: list[tuple[str, str]] = []
    for case_id, group in per_case.items():
        passed_base = {
            (s.model, s.run)
            for s in samples
            if s.case_id == case_id and s.arm == "baseline" and s.outcome == "pass"
        }
        blocks.append((case_id, _case_block(case_id, by_id.get(case_id), group, passed_base)))
    shown: list[str] = []
    omitted: list[str] = []
    parts: list[str] = []
    used = 0
    for case_id, block in blocks:
        size = len(block) + 2
        if parts and used + size > budget:
            omitted.append(case_id)
            continue
        parts.append(block)
        shown.append(case_id)
        used += size
    head: list[str] = []
    if omitted:
        head.append(
            f"NOTE: this evidence was shortened to fit the prompt budget ({budget} characters): "
            f"{len(shown)} of {len(blocks)} failing cases are shown, each complete (no output "
            f"was cut); these whole cases were left out: {', '.join(omitted)}."
        )
    if errors:
        head.append(
            f"{errors} with-skill request(s) failed at the API (no output); they are not shown."
        )
    if not blocks:
        head.append("No with-skill sample failed.")
    return Evidence(
        text="\n\n".join([*head, *parts]),
        total_cases=len(blocks),
        shown_cases=shown,
        omitted_cases=omitted,
        failed_samples=len(failed),
        errors=errors,
    )
