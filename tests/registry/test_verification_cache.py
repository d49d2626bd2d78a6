"""What a reader makes of a check (levels, notes) and the on-disk cache of verdicts per
results-dataset commit (no Hub needed: the pure parts)."""

from __future__ import annotations

from pathlib import Path

from upskill_hub.publish.verify import ModelVerification, RunVerification
from upskill_hub.registry.evidence.verification import Verdict, VerificationCache, verdicts_of

GPT = "openai:gpt-4.1-mini"
CLAUDE = "anthropic:claude-haiku-4-5"
COMMIT = "c" * 40


def test_levels_and_notes_come_from_the_check() -> None:
    run = RunVerification(
        "inconsistent",
        [
            ModelVerification(GPT, "inconsistent", 10, 9, 0, ["case-01 run 1: outcome differs"]),
            ModelVerification(CLAUDE, "reported", 0, 0, 20, []),
        ],
        ["case-01 run 1: outcome differs"],
        [
            f"{CLAUDE}: 20 sample(s) graded by a judge or a compiler: "
            "their outcome is the publisher's"
        ],
    )
    verdicts = verdicts_of(run)
    assert verdicts[GPT].verification == "inconsistent"
    assert verdicts[GPT].note is not None and "case-01 run 1: outcome differs" in verdicts[GPT].note
    assert verdicts[CLAUDE] == Verdict(
        "reported", "20 sample(s) graded by a judge or a compiler: their outcome is the publisher's"
    )
    unconfirmed = RunVerification(
        "reported",
        [ModelVerification(GPT, "reported", 10, 10, 0, [])],
        [],
        ["the tests of ns/skill@abc could not be read (gone)"],
    )
    assert (
        verdicts_of(unconfirmed)[GPT].note == "the tests of ns/skill@abc could not be read (gone)"
    )


def test_the_cache_keeps_verdicts_per_commit_and_split(tmp_path: Path) -> None:
    cache = VerificationCache(tmp_path)
    assert cache.get("ns/results", COMMIT, "run_a") is None
    cache.put("ns/results", COMMIT, "run_a", {GPT: Verdict("verified", None, 20)})
    cache.put("ns/results", COMMIT, "run_b", {GPT: Verdict("reported", "judge", 0)})
    assert cache.get("ns/results", COMMIT, "run_a") == {GPT: Verdict("verified", None, 20)}
    assert cache.get("ns/results", COMMIT, "run_b") == {GPT: Verdict("reported", "judge", 0)}
    assert cache.get("ns/results", "d" * 40, "run_a") is None
    assert (tmp_path / "ns" / "results" / f"{COMMIT}.json").is_file()
    # names that are not plain ids, and damaged files, are never used
    assert cache.path("../x", COMMIT) is None and cache.path("ns/results", "main") is None
    (tmp_path / "ns" / "results" / f"{COMMIT}.json").write_text("{not json")
    assert cache.get("ns/results", COMMIT, "run_a") is None
