"""The rule of ``update --require-lift`` at its edges, the lock's ``evidence`` field, and the
one lift format (no Hub needed: these are the pure parts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from upskill_hub.errors import LockError
from upskill_hub.registry.evidence.gate import compare, require_lift
from upskill_hub.registry.evidence.locked import LockedEvidence
from upskill_hub.registry.evidence.read import ModelEvidence, SkillEvidence
from upskill_hub.registry.evidence.text import evidence_lines, lift_text, model_line, where_text
from upskill_hub.registry.evidence.verification import Level
from upskill_hub.registry.project.lock import Lock, LockedSkill, read_lock, write_lock

OLD = "a" * 40
NEW = "b" * 40
GPT = "openai:gpt-4.1-mini"


def _measured(
    lift: float | None,
    low: float | None,
    high: float | None,
    relation: str = "exact",
    verification: Level = "verified",
) -> ModelEvidence:
    return ModelEvidence(
        GPT,
        lift,
        low,
        high,
        10,
        2,
        "inline",
        "ns/res",
        "run_x",
        NEW,
        relation,
        0,
        verification=verification,
        verification_note=None if verification == "verified" else "why",
    )


def _locked(lift: float | None = 0.5) -> LockedSkill:
    evidence = [] if lift is None else [LockedEvidence(GPT, "ns/res", "run_a", OLD, lift, 0.2, 0.8)]
    return LockedSkill("s", "ns/s", commit=OLD, evidence=evidence)


@pytest.mark.parametrize(
    ("high", "ok"),
    [(0.5, True), (0.49, False), (0.9, True)],
)
def test_new_upper_bound_below_the_locked_lift_refuses(high: float, ok: bool) -> None:
    new = SkillEvidence("ns/s", "s", NEW, [_measured(high - 0.3, high - 0.6, high)])
    [check] = require_lift(_locked(0.5), new)
    assert check.ok is ok and check.reference == 0.5 and check.reference_source == "lock"
    if not ok:
        assert "below the locked +50 pts beyond its interval" in check.reason


def test_evidence_for_other_files_does_not_count() -> None:
    new = SkillEvidence("ns/s", "s", NEW, [_measured(0.9, 0.8, 1.0, relation="behind")])
    [check] = require_lift(_locked(0.5), new)
    assert not check.ok and "has no published lift" in check.reason
    same = SkillEvidence("ns/s", "s", NEW, [_measured(0.9, 0.8, 1.0, relation="same_files")])
    assert [c.ok for c in require_lift(_locked(0.5), same)] == [True]


def test_without_locked_evidence_the_reference_is_the_published_lift_then_zero() -> None:
    new = SkillEvidence("ns/s", "s", NEW, [_measured(0.1, -0.2, 0.3)])
    [check] = require_lift(_locked(None), new)
    assert check.ok and check.reference == 0.0 and check.reference_source == "none"
    harmful = SkillEvidence("ns/s", "s", NEW, [_measured(-0.4, -0.6, -0.1)])
    assert [c.ok for c in require_lift(_locked(None), harmful)] == [False]
    locked_now = SkillEvidence("ns/s", "s", OLD, [_measured(0.6, 0.4, 0.8)])
    [check] = require_lift(_locked(None), new, locked_now=locked_now)
    assert not check.ok and check.reference == 0.6 and check.reference_source == "published"
    nothing = SkillEvidence("ns/s", "s", NEW, [])
    [check] = require_lift(_locked(None), nothing)
    assert not check.ok and "no published lift for any model" in check.reason


def test_only_verified_figures_count_unless_reported_ones_are_accepted() -> None:
    reported = SkillEvidence("ns/s", "s", NEW, [_measured(0.9, 0.8, 1.0, verification="reported")])
    [check] = require_lift(_locked(0.5), reported)
    assert not check.ok and "reported, not verified (why); --accept-reported" in check.reason
    [check] = require_lift(_locked(0.5), reported, accept_reported=True)
    assert check.ok
    inconsistent = SkillEvidence(
        "ns/s", "s", NEW, [_measured(None, None, None, verification="inconsistent")]
    )
    for accept in (False, True):
        [check] = require_lift(_locked(0.5), inconsistent, accept_reported=accept)
        assert not check.ok and "is inconsistent (why)" in check.reason


def test_an_inconsistent_figure_is_not_shown_and_a_note_says_why() -> None:
    e = _measured(None, None, None, verification="inconsistent")
    [row] = compare(_locked(0.5), SkillEvidence("ns/s", "s", NEW, [e]))
    assert row.change == "inconsistent"
    assert model_line(e).startswith(f"{GPT}  lift not shown · inconsistent · 10 cases")
    lines = evidence_lines(SkillEvidence("ns/s", "s", NEW, [e]))
    assert lines[-1] == f"note: {GPT}: why"
    assert " · verified · " in model_line(_measured(0.5, 0.2, 0.8))


def test_both_owners_are_named_when_they_differ() -> None:
    other = ModelEvidence(
        GPT,
        0.1,
        0,
        0.2,
        3,
        1,
        "agent",
        "n/r",
        "s",
        NEW,
        "exact",
        0,
        results_owner="n",
        skill_owner="ns",
    )
    assert where_text(other) == "reported by n (skill by ns) for this commit (bbbbbbb)"


def test_compare_names_the_direction_beyond_the_interval() -> None:
    changes = {
        (0.1, 0.0, 0.3): "lower",
        (0.5, 0.3, 0.7): "within interval",
        (0.9, 0.6, 1.0): "higher",
    }
    for (lift, low, high), expected in changes.items():
        new = SkillEvidence("ns/s", "s", NEW, [_measured(lift, low, high)])
        [row] = compare(_locked(0.5), new)
        assert row.change == expected and row.locked == 0.5


def test_lift_text_is_points_with_the_interval() -> None:
    assert lift_text(0.333, 0.05, 0.56) == "+33 pts [+5, +56]"
    assert lift_text(-0.2, -0.5, 0.001) == "-20 pts [-50, +0]"
    assert lift_text(0.5) == "+50 pts" and lift_text(None) == "no lift"
    behind = ModelEvidence(GPT, 0.1, 0, 0.2, 3, 1, "agent", "n/r", "s", OLD, "behind", 2)
    assert where_text(behind) == "reported by n for aaaaaaa, 2 commits behind"


def test_lock_evidence_round_trips_and_old_locks_still_load(tmp_path: Path) -> None:
    root = tmp_path
    target = ".claude/skills/s"
    skill = _locked(0.5)
    skill.targets = [target]
    write_lock(root, Lock({"s": skill}))
    data = json.loads((root / "upskill-hub.lock").read_text())
    assert data["skills"]["s"]["evidence"] == [
        {
            "model": GPT,
            "dataset": "ns/res",
            "split": "run_a",
            "commit": OLD,
            "lift": 0.5,
            "lift_ci95": [0.2, 0.8],
            "cases": None,
            "runs": None,
            "mode": "inline",
        }
    ]
    assert read_lock(root).skills["s"].evidence == skill.evidence

    del data["skills"]["s"]["evidence"]  # a lock written before the field existed
    (root / "upskill-hub.lock").write_text(json.dumps(data))
    assert read_lock(root).skills["s"].evidence == []
    write_lock(root, read_lock(root))
    assert "evidence" not in (root / "upskill-hub.lock").read_text()  # no new bytes


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"dataset": "n/r", "split": "s"}, r"evidence\[0\]\.model must be a non-empty string"),
        ({"model": "m", "dataset": "n/r", "split": "s", "commit": "main"}, "commit must be"),
        ({"model": "m", "dataset": "n/r", "split": "s", "lift": "high"}, "lift must be a number"),
        ({"model": "m", "dataset": "n/r", "split": "s", "lift_ci95": [1]}, "lift_ci95 must be"),
    ],
)
def test_a_malformed_evidence_entry_refuses_the_lock(
    tmp_path: Path, entry: dict[str, object], message: str
) -> None:
    data = {
        "version": 1,
        "skills": {"s": {"repo_id": "ns/s", "commit": OLD, "evidence": [entry]}},
    }
    (tmp_path / "upskill-hub.lock").write_text(json.dumps(data))
    with pytest.raises(LockError, match=message):
        read_lock(tmp_path)
