"""A skill on the local Hub with its results dataset: push versions, publish measured runs.

Runs are hand-built run folders (:mod:`tests.publish.run_folders`, real summary statistics)
over ten cases the baseline always fails, published with ``results push --update-skill-card``.
The skill carries the same cases as its tests (``skill_meta.json``), so its runs verify.
"""

from __future__ import annotations

from pathlib import Path

from huggingface_hub import HfApi

from tests.publish.run_folders import make_run_folder
from tests.registry.conftest import write_skill
from upskill_hub.publish.results_dataset import push_results
from upskill_hub.registry.push import push_skills
from upskill_hub.skill.testcases import TestCase, TestSuite, dump_suite

GPT = "openai:gpt-4.1-mini"
CLAUDE = "anthropic:claude-haiku-4-5"
#: Ten cases: the baseline fails them all; the skill fails the ones a run names.
CASES = tuple(
    TestCase(
        id=f"case-{i:02d}",
        input=f"question {i}",
        assertions=({"type": "contains", "values": ["227"]},),
    )
    for i in range(10)
)
THREE_FAIL = tuple(c.id for c in CASES[:3])  # lift +70 pts [+34, +100]
# lift +20 pts [-18, +58] (Holm-adjusted over its two models)
EIGHT_FAIL = tuple(c.id for c in CASES[:8])


class SkillRepo:
    """A skill on the local Hub, its results dataset, and helpers to move both on."""

    def __init__(self, tmp: Path, repo_id: str) -> None:
        self.tmp = tmp
        self.repo_id = repo_id
        self.name = repo_id.split("/")[1]
        self.dataset = repo_id + "-results"
        self.folder = write_skill(tmp / "src", self.name)
        # the skill's own tests: what a published run's tests are checked against
        (self.folder / "skill_meta.json").write_text(
            dump_suite(TestSuite(list(CASES), {})), encoding="utf-8"
        )
        self.runs = 0

    def push(self, text: str | None = None) -> str:
        if text is not None:
            (self.folder / "scripts" / "run.py").write_text(text, encoding="utf-8")
        return str(push_skills(self.folder, repo_id=self.repo_id).commit)

    def run_folder(
        self, commit: str, fails: tuple[str, ...], models: tuple[str, ...] = (GPT, CLAUDE)
    ) -> Path:
        self.runs += 1
        return make_run_folder(
            self.tmp / f"runs{self.runs}",
            f"2026112{self.runs}-000000-{self.name}",
            repo_id=self.repo_id,
            revision=commit,
            started_at=f"2026-11-2{self.runs}T00:00:00Z",
            cases=CASES,
            skill_fails=fails,
            models=models,
            chart=False,
        )

    def publish(
        self, commit: str, fails: tuple[str, ...], models: tuple[str, ...] = (GPT, CLAUDE)
    ) -> str:
        pushed = push_results(
            self.run_folder(commit, fails, models), self.dataset, update_skill_card=True
        )
        return pushed.split

    def head(self) -> str:
        return str(HfApi().repo_info(self.repo_id).sha)
