"""The Space's agent mode: the form's Mode, and per case which skill files the model read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.space.conftest import SENTINEL_KEY, RunningApp, SkillRepo, evaluate_on, files_text
from tests.support.llm_servers import FakeLLMServer, openai_server, skill_agent
from upskill_hub.errors import UsageError
from upskill_hub.space_support import form as forms
from upskill_hub.space_support.live import VisitorGate, stream_eval
from upskill_hub.space_support.settings import SpaceSettings
from upskill_hub.space_support.skills import bundled_skills

REPO_ROOT = Path(__file__).resolve().parents[2]
FACT = "MANGOSTEEN-77"


def test_the_form_takes_a_mode() -> None:
    local = SpaceSettings.for_mode(False)
    plan = forms.plan_eval(forms.EvalForm("s", forms.ANTHROPIC, "haiku", mode="agent"), local)
    assert plan.config.agent is not None and plan.config.agent.max_turns == 8
    assert (
        forms.plan_eval(forms.EvalForm("s", forms.ANTHROPIC, "haiku"), local).config.agent is None
    )
    with pytest.raises(UsageError, match="Mode agent needs a model that can call tools"):
        forms.plan_eval(forms.EvalForm("s", forms.EMBEDDED, "local", mode="agent"), local)
    with pytest.raises(UsageError, match="Mode 'robot'"):
        forms.plan_eval(forms.EvalForm("s", forms.ANTHROPIC, "haiku", mode="robot"), local)


@pytest.fixture(scope="module")
def refs_repo(hub_server: object, tmp_path_factory: pytest.TempPathFactory) -> SkillRepo:
    """A skill on the local Hub whose answer lives only in references/."""
    from upskill_hub.registry.push import push_skills

    folder = tmp_path_factory.mktemp("skill") / "fruit-refs"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: fruit-refs\ndescription: Names the house fruit. Use for fruit questions.\n"
        "license: Apache-2.0\n---\n# Fruit\n\nThe house fruit is in references/fruit.md.\n"
    )
    (folder / "references" / "fruit.md").write_text(f"The house fruit is {FACT}.\n")
    tests = [
        {"id": f"f{i}", "input": f"Q{i}: the house fruit?", "expected": {"contains": FACT}}
        for i in (1, 2)
    ]
    (folder / "skill_meta.json").write_text(json.dumps({"tests": tests}))
    result = push_skills(folder, repo_id="local-user/fruit-refs-space")
    return SkillRepo(result.repo_id, "fruit-refs")


def _answer(texts: list[str]) -> str:
    return f"It is {FACT}." if any(FACT in t for t in texts) else "An apple."


def test_agent_run_shows_the_files_read(refs_repo: SkillRepo, tmp_path: Path) -> None:
    agent = skill_agent("fruit-refs", reads=("references/fruit.md",), answer=_answer)
    settings = SpaceSettings.for_mode(False, output_root=tmp_path)
    with openai_server(agent, api_key=SENTINEL_KEY) as srv:
        form = forms.EvalForm(
            refs_repo.repo_id, forms.OPENAI, "fake-model", srv.base_url, SENTINEL_KEY, 1, 0, "agent"
        )
        views = list(
            stream_eval(
                form,
                settings,
                gate=VisitorGate(1),
                visitor="ip:test",
                bundled=bundled_skills(REPO_ROOT / "skills"),
                min_interval_s=0,
            )
        )
    final = views[-1]
    assert final.finished and final.error is None, final
    assert final.summary[0][3].endswith("0/2") and final.summary[0][4].endswith("2/2")
    html = final.cases_html
    assert html.count("loaded skill <code>fruit-refs</code>") == 2
    assert html.count("read <code>references/fruit.md</code>") == 2
    assert "skill not loaded" in html  # the baseline lists no skill
    assert SENTINEL_KEY not in html and SENTINEL_KEY not in files_text(tmp_path)


def test_app_offers_the_mode(
    running_app: RunningApp, skill_repo: SkillRepo, llm: FakeLLMServer
) -> None:
    _, (_, status, _, _, _, cases) = evaluate_on(running_app, skill_repo, llm, "agent")
    assert "Done" in status, status
    # this server never calls a tool: no arm loads the skill, and the page says so per case
    assert cases.count("skill not loaded") == 6
    assert all(r.json and r.json.get("tools") for r in llm.requests)
