"""The ``upskill_hub.results`` metadata of a skill card: written per run, read back tolerantly."""

from __future__ import annotations

from upskill_hub.registry.card import with_results_metadata
from upskill_hub.registry.evidence.index import (
    MAX_ENTRIES,
    MeasuredModel,
    PublishedRun,
    published_run,
    published_runs,
    run_mode,
    with_run,
)

COMMIT = "c" * 40
CARD = "---\nlicense: mit\ntags:\n- agent-skills\n---\n\n# s\n\n## Results\n\nNone yet.\n"


def _run(split: str, lift: float = 0.5) -> PublishedRun:
    return PublishedRun("ns/res", split, COMMIT, "s", models=(MeasuredModel("m", lift, 0.1, 0.9),))


def test_a_run_replaces_its_own_split_and_appends_others() -> None:
    entries = with_run([], _run("run_a"))
    entries = with_run(entries, _run("run_b"))
    entries = with_run(entries, _run("run_a", 0.7))
    assert [(e["split"], e["models"][0]["lift"]) for e in entries] == [
        ("run_b", 0.5),
        ("run_a", 0.7),
    ]
    many: list[dict[str, object]] = []
    for i in range(MAX_ENTRIES + 3):
        many = with_run(many, _run(f"run_{i}"))
    assert len(many) == MAX_ENTRIES and many[0]["split"] == "run_3"


def test_the_card_body_is_kept_and_entries_read_back() -> None:
    card = with_results_metadata(CARD, with_run([], _run("run_a")))
    assert card.endswith("---\n\n# s\n\n## Results\n\nNone yet.\n")
    assert card.startswith("---\nlicense: mit\ntags:\n- agent-skills\nupskill_hub:\n")
    [run] = published_runs(card)
    assert run == _run("run_a")


def test_malformed_entries_are_ignored_not_fatal() -> None:
    bad = [
        {"dataset": "no-slash", "split": "x"},
        {"dataset": "../../etc/x", "split": "x"},
        {"dataset": "ns/res@main", "split": "x"},
        {"dataset": "ns/res", "split": "../x"},
        {"dataset": "ns/res", "split": "run_b", "skill_commit": "main", "models": "nope"},
        "text",
    ]
    card = with_results_metadata(CARD, bad)
    [run] = published_runs(card)
    assert (run.split, run.skill_commit, run.models, run.mode) == ("run_b", None, (), "inline")
    assert published_runs("no header at all") == []


def test_an_entry_from_a_run_folder() -> None:
    rows = [
        {
            "model": "m",
            "arm": "baseline",
            "lift": 0.25,
            "lift_ci_low": -0.1,
            "lift_ci_high": 0.5,
            "cases": 8,
            "runs": 3,
        },
        {
            "model": "m",
            "arm": "with_skill",
            "lift": 0.25,
            "lift_ci_low": -0.1,
            "lift_ci_high": 0.5,
            "cases": 8,
            "runs": 3,
        },
    ]
    info = {"skill": {"name": "s", "revision": COMMIT}, "started_at": "2026-11-25T00:00:00Z"}
    run = published_run(rows, info, dataset="ns/res", split="run_x")
    assert run.models == (MeasuredModel("m", 0.25, -0.1, 0.5, 8, 3),)
    assert (run.skill, run.skill_commit, run.mode) == ("s", COMMIT, "inline")
    assert run_mode({"mode": "agent"}) == "agent"
    assert run_mode({"config": {"mode": "agent"}}) == "agent"
    local = published_run(
        rows, {"skill": {"name": "s", "revision": None}}, dataset="n/r", split="x"
    )
    assert local.skill_commit is None
