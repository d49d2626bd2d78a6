"""Trigger evals (``eval SKILL --triggers FILE``) against real local model servers that answer
with tool calls; rates, intervals and the split checked by hand."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.support.llm_servers import (
    ToolCallReply,
    anthropic_server,
    last_user_message,
    openai_server,
    tool_results,
)
from upskill_hub.errors import InvalidTestFileError, UsageError
from upskill_hub.evaluation.agent import AgentSettings
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.stats.summarize import clustered_rate_interval, wilson_interval
from upskill_hub.evaluation.triggers.measure import evaluate_triggers
from upskill_hub.evaluation.triggers.queries import (
    TriggerQuery,
    default_distractors,
    load_distractors,
    read_queries,
    split_queries,
)
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.skill.model import load_skill

REPO = Path(__file__).resolve().parents[2]
SKILL_MD = """---
name: zebra-care
description: Look after zebras. Use when asked how to feed or groom a zebra.
---

Feed zebras hay.
"""
# should_trigger, and what the scripted model does: TRIGGER loads the skill every run, HALF on
# the 1st and 3rd of its runs, DISTRACT loads another skill, plain answers without a tool
QUERIES = [
    ("A TRIGGER", True),  # q1 3/3
    ("B TRIGGER", True),  # q2 3/3
    ("C HALF", True),  # q3 2/3
    ("D plain", True),  # q4 0/3  misfire
    ("E plain", False),  # q5 0/3
    ("F DISTRACT", False),  # q6 0/3 (loads pdf-forms)
    ("G TRIGGER", False),  # q7 3/3  misfire
    ("H plain", False),  # q8 0/3
]


class Scripted:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> str | ToolCallReply:
        query = last_user_message(request) if not tool_results(request) else ""
        if tool_results(request):
            return "done"
        with self.lock:
            self.calls[query] += 1
            n = self.calls[query]
        if "TRIGGER" in query or ("HALF" in query and n % 2 == 1):
            return ToolCallReply((("Skill", {"skill": "zebra-care"}),))
        if "DISTRACT" in query:
            return ToolCallReply((("Skill", {"skill": "pdf-forms"}),))
        return "An answer."


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "zebra-care"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    rows = [{"query": q, "should_trigger": s} for q, s in QUERIES]
    (folder / "evals" / "eval_queries.json").write_text(json.dumps(rows))
    return folder


def test_trigger_rates_and_split_by_hand(skill_dir: Path, tmp_path: Path) -> None:
    with openai_server(Scripted()) as srv:
        done = run_cli(
            "eval", str(skill_dir), "--triggers", "evals/eval_queries.json",
            "-m", "fake-model", "--base-url", srv.base_url, "--runs", "3", "-j", "1",
            "--split", "0.5", "--seed", "7", "--format", "json", "-o", str(tmp_path / "runs"),
        )  # fmt: skip
        systems = {r.system for r in srv.requests}
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    (model,) = summary["models"]
    by_id = {q["id"]: q for q in model["queries"]}
    assert [by_id[f"q{i}"]["triggered"] for i in range(1, 9)] == [3, 3, 2, 0, 0, 0, 3, 0]
    assert all(q["runs"] == 3 for q in by_id.values())
    assert by_id["q3"]["trigger_rate"] == round(2 / 3, 6)
    assert by_id["q3"]["ci95"] == [round(v, 6) for v in wilson_interval(2, 3)]
    assert by_id["q4"]["passed"] is False and by_id["q7"]["passed"] is False
    assert by_id["q3"]["passed"] is True and by_id["q6"]["passed"] is True
    # seed 7 at 0.5, fixed: train q2 q4 | q6 q7, validation q1 q3 | q5 q8
    assert {q: by_id[q]["split"] for q in by_id} == {
        "q1": "validation", "q2": "train", "q3": "validation", "q4": "train",
        "q5": "validation", "q6": "train", "q7": "train", "q8": "validation",
    }  # fmt: skip
    sets = {s["set"]: s for s in model["sets"]}
    assert sets["all"]["recall"] == round(8 / 12, 6)
    assert sets["all"]["false_trigger_rate"] == 0.25
    lo, hi = clustered_rate_interval([(3, 3), (3, 3), (2, 3), (0, 3)])[0]
    assert sets["all"]["recall_ci95"] == [round(lo, 6), round(hi, 6)]
    assert sets["all"]["misfires"] == ["q4", "q7"]
    assert sets["train"]["recall"] == 0.5 and sets["train"]["false_trigger_rate"] == 0.5
    assert sets["train"]["misfires"] == ["q4", "q7"]
    assert sets["validation"]["recall"] == round(5 / 6, 6)
    assert sets["validation"]["false_trigger_rate"] == 0.0
    assert sets["validation"]["misfires"] == []
    # the skill is listed among the packaged distractors; nothing else differs between queries
    (system,) = systems
    assert "<name>\nzebra-care\n</name>" in system and "<name>\npdf-forms\n</name>" in system
    run_dir = Path(summary["run_dir"])
    samples = [json.loads(x) for x in (run_dir / "trigger_samples.jsonl").read_text().splitlines()]
    assert len(samples) == 24
    assert {tuple(s["loaded"]) for s in samples if s["query_id"] == "q6"} == {("pdf-forms",)}
    info = json.loads((run_dir / "run.json").read_text())
    assert info["kind"] == "triggers" and info["split"] == {"train_fraction": 0.5, "seed": 7}
    assert "--split 0.5 --seed 7" in info["reproduce"]
    assert json.loads((run_dir / "trigger_summary.json").read_text())["models"] == [model]


def test_text_report_names_misfires(skill_dir: Path, tmp_path: Path) -> None:
    with anthropic_server(Scripted()) as srv:
        done = run_cli(
            "eval", str(skill_dir), "--triggers", str(skill_dir / "evals/eval_queries.json"),
            "-m", "anthropic:claude-fake", "--base-url", srv.base_url, "--runs", "1",
            "-o", str(tmp_path / "runs"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "misfiring queries: q4, q7" in done.stdout
    assert "MISFIRE" in done.stdout


def test_library_run_with_own_distractors(skill_dir: Path, tmp_path: Path) -> None:
    others = tmp_path / "others"
    (others / "zebra-care").mkdir(parents=True)  # the skill itself is never a distractor
    (others / "zebra-care" / "SKILL.md").write_text(SKILL_MD)
    (others / "pdf-forms").mkdir()
    (others / "pdf-forms" / "SKILL.md").write_text(
        "---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\n\nUse pdftk.\n"
    )
    distractors = load_distractors(others, "zebra-care")
    assert [d.name for d in distractors] == ["pdf-forms"]
    queries = read_queries(skill_dir / "evals" / "eval_queries.json")[:2]
    with openai_server(Scripted()) as srv:
        config = EvalConfig(
            models=["fake-model"],
            base_url=srv.base_url,
            runs=2,
            params=GenerationParams(timeout=5.0),
            agent=AgentSettings(max_turns=2),
        )
        seen: list[tuple[int, int]] = []
        result = evaluate_triggers(
            load_skill(skill_dir),
            queries,
            distractors,
            config,
            output_root=tmp_path / "runs",
            on_sample=lambda _s, done, total: seen.append((done, total)),
        )
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    (stats,) = result.stats
    assert [q.triggered for q in stats.queries] == [2, 2]
    assert stats.sets[0].recall == 1.0 and stats.sets[0].false_trigger_rate is None


def test_split_is_fixed_and_stratified() -> None:
    queries = [TriggerQuery(f"q{i}", "x", i <= 5) for i in range(1, 11)]
    first = split_queries(queries, 0.6, 1)
    assert first == split_queries(queries, 0.6, 1)
    assert [q.split for q in first] == [
        "validation", "validation", "train", "train", "train",
        "train", "train", "train", "validation", "validation",
    ]  # fmt: skip
    for wanted in (True, False):
        chosen = [q.split for q in first if q.should_trigger is wanted]
        assert chosen.count("train") == 3 and chosen.count("validation") == 2
    with pytest.raises(UsageError, match=r"^split must be between 0 and 1") as refused:
        split_queries(queries, 1.0, 1)
    assert refused.value.param == "split"


def test_packaged_distractors_match_the_bundled_skill() -> None:
    bundled = load_skill(REPO / "skills" / "kernel-builder-cuda-kernels", with_tests=False)
    listed = {d.name: d for d in default_distractors("zebra-care")}
    assert listed[bundled.name].description == bundled.description
    assert len(listed) >= 8
    assert bundled.name not in {d.name for d in default_distractors(bundled.name)}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "non-empty list"),
        ('[{"query": "", "should_trigger": true}]', r"\[0\].query"),
        ('[{"query": "x", "should_trigger": "yes"}]', r"\[0\].should_trigger"),
    ],
)
def test_bad_queries_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "q.json"
    path.write_text(content)
    with pytest.raises(InvalidTestFileError, match=message):
        read_queries(path)


def test_cli_trigger_flag_errors(skill_dir: Path) -> None:
    missing = run_cli("eval", str(skill_dir), "--triggers", "nope.json", "-m", "local")
    assert missing.returncode == 2 and "--triggers nope.json: no such file" in missing.stderr
    stray = run_cli(
        "eval", str(skill_dir), "--split", "0.6", "-m", "m", "--base-url", "http://127.0.0.1:9"
    )
    assert stray.returncode == 2 and "--split and --distractors apply only" in stray.stderr
    extra = run_cli(
        "eval", str(skill_dir), "--triggers", "evals/eval_queries.json", "--no-baseline",
        "--judge-model", "m",
    )  # fmt: skip
    assert extra.returncode == 2
    assert "--no-baseline, --judge-model do(es) not apply to --triggers" in extra.stderr


def test_results_show_prints_a_trigger_run(skill_dir: Path, tmp_path: Path) -> None:
    with openai_server(Scripted()) as srv:
        done = run_cli(
            "eval", str(skill_dir), "--triggers", "evals/eval_queries.json", "-m", "fake-model",
            "--base-url", srv.base_url, "--runs", "1", "--format", "json",
            "-o", str(tmp_path / "runs"),
        )  # fmt: skip
    run_dir = json.loads(done.stdout)["run_dir"]
    shown = run_cli("results", "show", run_dir)
    assert shown.returncode == 0, shown.stderr
    assert "misfiring queries: q4, q7" in shown.stdout
    as_json = run_cli("results", "show", run_dir, "--format", "json")
    assert json.loads(as_json.stdout) == json.loads(done.stdout)


def test_hostile_queries_print_no_escape_codes(skill_dir: Path, tmp_path: Path) -> None:
    hostile = "\x1b[2J\x1b]0;pwned\x07Clear \x9b31m[bold red]it[/] TRIGGER"
    rows = [{"query": hostile, "should_trigger": False}, {"query": "plain", "should_trigger": True}]
    (skill_dir / "evals" / "eval_queries.json").write_text(json.dumps(rows))
    with openai_server(Scripted()) as srv:
        done = run_cli(
            "eval", str(skill_dir), "--triggers", "evals/eval_queries.json", "-m", "fake-model",
            "--base-url", srv.base_url, "--runs", "1", "-o", str(tmp_path / "runs"),
        )  # fmt: skip
    shown = run_cli("results", "show", str(next((tmp_path / "runs").iterdir())))
    for printed in (done, shown):
        assert printed.returncode == 0, printed.stderr
        text = printed.stdout + printed.stderr
        assert not any(c in text for c in "\x1b\x07\x9b"), repr(text)
        assert "Clear 31m[bold red]it[/] TRIGGER" in text  # the text itself, markup and all
        assert "misfiring queries: q1, q2" in text
