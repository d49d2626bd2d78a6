"""The skill page says how far each published figure is checked: a badge per model, the note of
an inconsistent figure instead of its lift, and the command that re-runs a published run."""

from __future__ import annotations

from upskill_hub.registry.evidence.read import ModelEvidence, SkillEvidence
from upskill_hub.space_support import browse

GPT = "openai:gpt-4.1-mini"
CLAUDE = "anthropic:claude-haiku-4-5"


def _e(model: str, level: str, lift: float | None, note: str | None = None) -> ModelEvidence:
    return ModelEvidence(
        model,
        lift,
        None if lift is None else lift - 0.2,
        None if lift is None else min(1.0, lift + 0.2),
        10,
        2,
        "inline",
        "alice/results",
        "run_x",
        "a" * 40,
        "exact",
        0,
        verification=level,  # type: ignore[arg-type]
        verification_note=note,
        results_owner="alice",
        skill_owner="bob",
    )


def test_badges_notes_and_the_reproduce_command() -> None:
    evidence = SkillEvidence(
        "bob/skill",
        "skill",
        "a" * 40,
        [
            _e(GPT, "verified", 0.7),
            _e(
                CLAUDE,
                "inconsistent",
                None,
                "does not check out against its published samples and tests: x",
            ),
            _e("vllm:qwen3-8b", "reported", 0.3, "10 sample(s) graded by a judge"),
        ],
    )
    lines = browse.evidence_markdown(evidence)
    rows = {
        line.split(" | ")[0][2:]: line
        for line in lines
        if line.startswith("| ") and "|---" not in line
    }
    assert "✅ verified" in rows[browse.md_escape(GPT)]
    assert browse.md_escape("+70 pts [+50, +90]") in rows[browse.md_escape(GPT)]
    inconsistent = rows[browse.md_escape(CLAUDE)]
    assert "❌ inconsistent" in inconsistent and "not shown" in inconsistent
    assert "ℹ️ reported" in rows[browse.md_escape("vllm:qwen3-8b")]
    assert any(
        line.startswith(f"- note: {browse.md_escape(CLAUDE)}: ") and "does not check out" in line
        for line in lines
    )
    assert (
        browse.md_escape("reported by alice (skill by bob) for this commit")
        in rows[browse.md_escape(GPT)]
    )
    command = f"upskill-hub results reproduce alice/results:run_x --model {GPT} --repo NS/DATASET"
    assert f"- `{command}`" in lines
    assert browse.reproduce_command(evidence.models[0]) == command
