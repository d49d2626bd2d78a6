"""``--resume`` runs both arms of a (case, run) again when one is missing or errored: the two
arms of a case and run share their time slot, so a shock shared by one minute's requests (a
provider degrading) cancels in their difference (issue 22, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import run_cli
from tests.support.eval_runs import FACT, canary_skill, eval_env, marker, quuxium_cases
from tests.support.llm_servers import openai_server, skill_aware, system_prompt
from upskill_hub.evaluation.run.folder import read_samples
from upskill_hub.evaluation.run.samples import resume_records

MARKER = marker("pair-resume")
RESPONDER = skill_aware(MARKER, with_skill=f"It is {FACT}.", without="Unknown.")


def _skill(tmp_path: Path) -> Path:
    return canary_skill(tmp_path, quuxium_cases(3, ids="c"), name="pair-resume")


def test_resume_reruns_both_arms_when_one_is_missing(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    run_dir = tmp_path / "run"
    with openai_server(RESPONDER) as srv:
        common = ("--model", "fake-model", "--base-url", srv.base_url, "--format", "json")
        first = run_cli(
            "eval",
            str(skill),
            "--runs",
            "2",
            "--output",
            str(tmp_path / "o"),
            *common,
            env=eval_env(),
        )
        assert first.returncode == 0, first.stderr
        (made,) = (tmp_path / "o").iterdir()
        made.rename(run_dir)
        samples = run_dir / "samples.jsonl"
        lines = samples.read_text().splitlines(keepends=True)
        assert len(lines) == 12
        # drop the with-skill sample of (c1, run 2): its baseline is still there
        gone = [
            i
            for i, line in enumerate(lines)
            if (lambda d: (d["case_id"], d["run"], d["arm"]) == ("c1", 2, "with_skill"))(
                json.loads(line)
            )
        ]
        assert len(gone) == 1
        samples.write_text("".join(x for i, x in enumerate(lines) if i not in gone))
        before = len(srv.requests)
        second = run_cli("eval", str(skill), "--resume", str(run_dir), *common, env=eval_env())
        asked = srv.requests[before:]
    assert second.returncode == 0, second.stderr
    # both arms of (c1, run 2) ran again, nothing else
    assert len(asked) == 2
    assert sorted(MARKER in system_prompt(r.json or {}) for r in asked) == [False, True]
    assert all("Q1:" in json.dumps(r.json) for r in asked)
    on_disk = read_samples(samples)
    assert len(on_disk) == 12 and len({s.key for s in on_disk}) == 12
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["models"][0]["lift"] == 1.0


def test_resume_scan_alone_keeps_a_lone_arm(tmp_path: Path) -> None:
    """What the pairing changes: the plain scan keeps a sample whose partner is missing."""
    path = tmp_path / "samples.jsonl"
    row = {
        "model": "m",
        "case_id": "c",
        "run": 1,
        "arm": "baseline",
        "outcome": "pass",
        "output": "",
        "assertions": [],
        "input_tokens": 0,
        "output_tokens": 0,
        "latency_s": 0.0,
        "prompt_hash": "h",
    }
    path.write_text(json.dumps(row) + "\n")
    from upskill_hub.evaluation.run.resume import resume_paired

    wanted = {("m", "c", 1, "baseline"), ("m", "c", 1, "with_skill")}
    assert set(resume_records(path, wanted).done) == {("m", "c", 1, "baseline")}
    path.write_text(json.dumps(row) + "\n")
    assert resume_paired(path, wanted, ["baseline", "with_skill"]).done == {}
    assert path.read_text() == ""  # the lone baseline sample is dropped: it runs again
