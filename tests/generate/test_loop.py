"""The generate loop against real local LLM servers: a scripted teacher, scripted students."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.generate.scripted import (
    NOT_SURE,
    ScriptedTeacher,
    Students,
    _OverflowServer,
    fenced,
    overflowing_students,
    skill_answer,
)
from tests.support.llm_servers import FakeLLMServer, anthropic_server, openai_server
from upskill_hub.errors import ProviderError
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.generate import GenerateConfig, generate
from upskill_hub.generate.teacher import TeacherError
from upskill_hub.skill import load_skill, validate_skill


@dataclass
class Servers:
    teacher: FakeLLMServer
    students: FakeLLMServer
    script: ScriptedTeacher

    def config(self, tmp: Path, **overrides: object) -> GenerateConfig:
        values: dict[str, object] = {
            "task": "Answer questions about item codes.",
            "teacher": "anthropic:fake-teacher",
            "teacher_base_url": self.teacher.url,
            "students": ["fake-model"],
            "base_url": self.students.base_url,
            "output": tmp / "skills",
            "work_root": tmp / "runs",
            "max_iterations": 3,
            "student_params": GenerationParams(max_tokens=2000, timeout=10),
        }
        values.update(overrides)
        return GenerateConfig(**values)  # type: ignore[arg-type]

    def teacher_texts(self) -> list[str]:
        return [r.text for r in self.teacher.requests]


@pytest.fixture
def servers(request: pytest.FixtureRequest) -> Iterator[Servers]:
    replies, knowledge = request.param
    script = ScriptedTeacher(replies)
    filler = " " + " ".join(f"word{i}" for i in range(600)) + " END-OF-OUTPUT"
    with (
        anthropic_server(script) as teacher,
        openai_server(Students(knowledge, filler=filler)) as students,
    ):
        yield Servers(teacher, students, script)


def meta_of(skill_dir: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((skill_dir / "skill_meta.json").read_text())
    return data


INVALID = fenced(
    {
        "name": "Item Codes",
        "description": "Looks up item codes.",
        "body": "# Item codes\n",
        "tests": [
            {"id": "item-1", "input": "What is item 1?", "assertions": [{"type": "contains"}]}
        ],
    }
)


@pytest.mark.parametrize(
    "servers",
    [([INVALID, skill_answer("A", items=[1, 2])], {"A": {1, 2}})],
    indirect=True,
)
def test_invalid_answer_is_sent_back_then_valid_answer_is_used(
    servers: Servers, tmp_path: Path
) -> None:
    result = generate(servers.config(tmp_path, max_iterations=1))
    texts = servers.teacher_texts()
    assert len(texts) == 2
    assert "'values' is a required property" not in texts[0]
    assert "$.tests[0].assertions[0]: 'values' is a required property" in texts[1]
    assert "complete corrected JSON object" in texts[1]
    # the skill: normalised name, valid, tests and metadata saved
    assert result.name == "item-codes"
    assert result.skill_dir == tmp_path / "skills" / "item-codes"
    assert validate_skill(result.skill_dir).valid
    meta = meta_of(result.skill_dir)
    assert [t["id"] for t in meta["upskill_hub"]["tests"]] == ["item-1", "item-2"]  # type: ignore[index,union-attr,call-overload]
    md = meta["metadata"]
    assert md["teacher"] == "anthropic:fake-teacher"  # type: ignore[index]
    assert md["students"] == ["fake-model"]  # type: ignore[index]
    assert md["source_task"] == "Answer questions about item codes."  # type: ignore[index]
    history = md["lift_history"]  # type: ignore[index]
    assert len(history) == 1 and history[0]["accepted"] is True
    assert history[0]["lift"] == 1.0
    assert history[0]["pass_rates"] == {"baseline": 0.0, "with_skill": 1.0}
    assert md["stop_reason"] == "max_iterations"  # type: ignore[index]
    # the teacher exchanges are kept in the work folder, errors included
    rows = [json.loads(line) for line in (result.work_dir / "teacher.jsonl").open()]
    assert [bool(r["errors"]) for r in rows] == [True, False]


@pytest.mark.parametrize("servers", [([INVALID], {})], indirect=True)
def test_teacher_that_never_answers_validly_is_a_clear_error(
    servers: Servers, tmp_path: Path
) -> None:
    with pytest.raises(TeacherError) as info:
        generate(servers.config(tmp_path))
    assert len(servers.teacher.requests) == 4  # the answer and 3 corrections
    assert "no valid skill after 3 correction(s)" in str(info.value)
    assert "'values' is a required property" in str(info.value)
    assert not (tmp_path / "skills").exists()


@pytest.mark.parametrize(
    "servers",
    [
        (
            [skill_answer("A", items=[1, 2, 3, 4]), skill_answer("C"), skill_answer("D")],
            {"A": {1, 2}, "C": set()},
        )
    ],
    indirect=True,
)
def test_refinement_that_hurts_is_rejected_and_best_kept(servers: Servers, tmp_path: Path) -> None:
    result = generate(servers.config(tmp_path, max_iterations=3))
    first, second = result.history
    assert first.lift == 0.5 and first.accepted
    assert second.lift == 0.0 and not second.accepted and second.improved is False
    assert "rejected: lift dropped" in second.reason
    assert result.best_iteration == 1
    assert result.stop_reason == "plateau"  # a rejected candidate does not improve
    assert len(servers.teacher.requests) == 2
    skill = load_skill(result.skill_dir)
    assert "Version A." in skill.body and "Version C." not in skill.body
    history = meta_of(result.skill_dir)["metadata"]["lift_history"]  # type: ignore[index]
    assert [h["accepted"] for h in history] == [True, False]


@pytest.mark.parametrize(
    "servers",
    [
        (
            [skill_answer("A", items=[1, 2, 3, 4]), skill_answer("C")],
            {"A": {1, 2}, "C": set()},
        )
    ],
    indirect=True,
)
def test_failure_evidence_holds_full_outputs_and_reasons(servers: Servers, tmp_path: Path) -> None:
    generate(servers.config(tmp_path, max_iterations=2))
    refine = servers.teacher_texts()[1]
    # both failing cases, with their complete outputs (600 filler words and the end marker)
    for n in (3, 4):
        assert f"### Case `item-{n}`" in refine
        assert "#### Student `fake-model`, run 1" in refine
        assert f"What is the code of item {n}?" in refine
        assert f"missing: 'CODE-{n}'" in refine
    assert refine.count("END-OF-OUTPUT") == 2
    assert refine.count("word599") == 2
    assert NOT_SURE in refine
    assert "NOTE: this evidence was shortened" not in refine
    # passing cases are not failures, and the results and history are there
    assert "Case `item-1`" not in refine
    assert "lift +50 pts" in refine
    assert "iteration 1 (generated)" in refine


@pytest.mark.parametrize(
    "servers",
    [
        (
            [skill_answer("A", items=[1, 2, 3, 4]), skill_answer("A2"), skill_answer("X")],
            {"A": {1, 2}, "A2": {1, 2}},
        )
    ],
    indirect=True,
)
def test_plateau_stops_early(servers: Servers, tmp_path: Path) -> None:
    result = generate(servers.config(tmp_path, max_iterations=5))
    assert result.stop_reason == "plateau"
    assert len(servers.teacher.requests) == 2
    first, second = result.history
    assert second.lift == first.lift == 0.5
    assert second.accepted and second.improved is False  # a tie is accepted, not an improvement
    assert result.best_iteration == 2
    assert "Version A2." in load_skill(result.skill_dir).body
    assert second.margin is not None and second.margin > 0


@pytest.mark.parametrize(
    "servers",
    [
        (
            [
                skill_answer("A", items=range(1, 9)),
                skill_answer("B"),
                skill_answer("C"),
            ],
            {"A": set(), "B": {1, 2, 3, 4}, "C": set(range(1, 9))},
        )
    ],
    indirect=True,
)
def test_max_iterations_reached_while_still_improving(servers: Servers, tmp_path: Path) -> None:
    result = generate(servers.config(tmp_path, max_iterations=2))
    assert result.stop_reason == "max_iterations"
    assert len(servers.teacher.requests) == 2
    first, second = result.history
    assert first.lift == 0.0 and second.lift == 0.5
    assert second.improved is True and second.accepted
    assert second.failed_samples == 4  # there was more to learn: only the cap stopped it
    assert result.best_iteration == 2


@pytest.mark.parametrize(
    "servers",
    [([skill_answer("A", items=[1, 2]), skill_answer("B")], {"A": {1, 2}})],
    indirect=True,
)
def test_all_passed_stops_without_refining(servers: Servers, tmp_path: Path) -> None:
    result = generate(servers.config(tmp_path, max_iterations=3))
    assert result.stop_reason == "all_passed"
    assert len(servers.teacher.requests) == 1


@pytest.mark.parametrize("servers", [([skill_answer("A", items=[1])], {"A": {1}})], indirect=True)
def test_existing_output_folder_is_not_overwritten(servers: Servers, tmp_path: Path) -> None:
    taken = tmp_path / "skills" / "item-codes"
    taken.mkdir(parents=True)
    (taken / "notes.txt").write_text("mine")
    from upskill_hub.errors import UsageError

    with pytest.raises(UsageError, match="already exists"):
        generate(servers.config(tmp_path))
    assert (taken / "notes.txt").read_text() == "mine"
    assert not (taken / "SKILL.md").exists()


# ---- a student that cannot take the skill: no with-skill sample is ever graded


@pytest.fixture
def overflow_servers() -> Iterator[Servers]:
    script = ScriptedTeacher([skill_answer("A", items=[1, 2]), skill_answer("B")])
    with anthropic_server(script) as teacher, overflowing_students() as students:
        yield Servers(teacher, students, script)


def test_student_failing_every_with_skill_request_is_an_error_not_all_passed(
    overflow_servers: Servers, tmp_path: Path
) -> None:
    with pytest.raises(ProviderError) as info:
        generate(overflow_servers.config(tmp_path, max_iterations=3, retries=0))
    message = str(info.value)
    assert "\n" not in message
    assert "iteration 1 could not be measured" in message
    assert "every with-skill request of student 'fake-model' failed" in message
    assert "maximum context length is 64 tokens" in message
    # nothing was claimed: no skill written, no refinement asked for
    assert not (tmp_path / "skills" / "item-codes").exists()
    assert len(overflow_servers.teacher.requests) == 1
    # the baseline was answered, every with-skill request was refused
    students = overflow_servers.students
    assert isinstance(students, _OverflowServer)
    assert len(students.refused) == 2 and all("Version A." in s for s in students.refused)
    assert len(students.requests) == 2  # the two baseline requests, answered
    assert (tmp_path / "runs").is_dir()


def test_errored_with_skill_samples_count_as_not_passing() -> None:
    from upskill_hub.evaluation.types import Sample
    from upskill_hub.generate.loop import _with_skill_counts

    def sample(case: str, outcome: str) -> Sample:
        return Sample("m", case, 1, "with_skill", "h", outcome)  # type: ignore[arg-type]

    failed, graded = _with_skill_counts(
        [sample("a", "pass"), sample("b", "error"), sample("c", "pass")]
    )
    assert (failed, graded) == (1, 2)
    assert _with_skill_counts([sample("a", "error")]) == (1, 0)
