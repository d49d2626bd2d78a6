"""A skill's judge never carries the run's key to another vendor, and judge calls are counted.

The attacker is a skill whose test names its own judge (``"model": "openai:gpt-4o"``) while the
run uses another vendor with a key given to it (a Space visitor's Hugging Face token, the CLI's
``UPSKILL_HUB_API_KEY``). Two real local OpenAI-compatible servers stand in for the Hugging Face
router and for OpenAI; each records the ``Authorization`` header it receives.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run_cli
from tests.support.llm_servers import FakeLLMServer, openai_server, system_prompt
from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import ProviderError
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.judges import judge_route, planned_requests
from upskill_hub.evaluation.providers.resolve import key_vendor, resolve_model
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.skill.model import Skill, load_skill
from upskill_hub.skill.testcases import TestCase, TestSuite, write_suite

VISITOR_HF = "hf_visitorTOKENabcdef123456"
OWNER_OPENAI = "sk-ownerOPENAIkey-77aa55"
MARKER = "Always answer PINEAPPLE"


def reply(request: dict[str, Any]) -> str:
    if "strict grader" in system_prompt(request):
        return "PASS\nThe answer names the fruit."
    return "PINEAPPLE" if MARKER in system_prompt(request) else "apple"


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeLLMServer, FakeLLMServer]]:
    """(the Hugging Face router, OpenAI), configured as the environment's endpoints."""
    with openai_server(reply) as router, openai_server(reply, models=("gpt-4o",)) as openai:
        monkeypatch.setenv("HF_ROUTER_URL", router.base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", openai.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", OWNER_OPENAI)
        monkeypatch.delenv("UPSKILL_HUB_API_KEY", raising=False)
        yield router, openai


def judged_case(*judges: str) -> TestCase:
    return TestCase(
        id="fruit",
        input="Which fruit?",
        assertions=(
            {"type": "contains", "values": ["PINEAPPLE"]},
            *({"type": "judge", "rubric": "names a fruit", "model": m} for m in judges),
        ),
    )


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    folder = tmp_path / "fruit"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\nname: fruit\ndescription: Fruit answers.\n---\n\n{MARKER}.\n"
    )
    return load_skill(folder, with_tests=False)


def hf_config(**extra: Any) -> EvalConfig:
    return EvalConfig(
        models=["hf:org/model"],
        api_key=VISITOR_HF,
        params=GenerationParams(max_tokens=32, timeout=5.0),
        retry=RetryPolicy(base_s=0.01, max_s=0.02),
        **extra,
    )


def test_a_judge_on_another_vendor_never_gets_the_runs_key(
    servers: tuple[FakeLLMServer, FakeLLMServer], skill: Skill, tmp_path: Path
) -> None:
    router, openai = servers
    case = judged_case("openai:gpt-4o", "hf:org/judge")
    result = evaluate(skill, [case], hf_config(), output_root=tmp_path / "runs")
    judged = next(s for s in result.samples if s.arm == "with_skill")
    assert [a.status for a in judged.assertions] == ["pass", "pass", "pass"]
    # OpenAI's judge went with OpenAI's own key; the visitor's token stayed with its vendor
    assert openai.requests and {r.api_key for r in openai.requests} == {OWNER_OPENAI}
    assert {r.api_key for r in router.requests} == {VISITOR_HF}
    judge_models = {r.json["model"] for r in router.requests if "strict grader" in r.system}
    assert judge_models == {"org/judge"}  # the same-vendor judge uses the visitor's token


def test_scope_run_skips_a_judge_on_another_vendor_and_says_so(
    servers: tuple[FakeLLMServer, FakeLLMServer], skill: Skill, tmp_path: Path
) -> None:
    router, openai = servers
    case = judged_case("openai:gpt-4o", "local", "hf:org/judge")
    config = hf_config(judge_scope="run")
    result = evaluate(skill, [case], config, output_root=tmp_path / "runs")
    assert openai.requests == []  # neither the visitor's token nor the owner's key went there
    for sample in result.samples:
        _, foreign, local, same = sample.assertions
        assert foreign.status == "skipped" and local.status == "skipped"
        assert "not on the provider this run uses" in foreign.reason
        assert same.status == "pass"
    judge_calls = [r for r in router.requests if "strict grader" in r.system]
    assert len(judge_calls) == 2 == planned_requests([case], config).judge_calls
    assert planned_requests([case], config).total == 4
    assert planned_requests([case], hf_config()).judge_calls == 6  # local and OpenAI too


def test_a_key_is_never_sent_to_another_vendors_endpoint(
    servers: tuple[FakeLLMServer, FakeLLMServer],
) -> None:
    assert (key_vendor(VISITOR_HF), key_vendor("sk-ant-api03-x"), key_vendor("sk-x")) == (
        "hf",
        "anthropic",
        "openai",
    )
    assert key_vendor("local-server-key") is None
    with pytest.raises(ProviderError) as caught:
        resolve_model("openai:gpt-4o", api_key=VISITOR_HF)
    assert "a Hugging Face token" in str(caught.value) and VISITOR_HF not in str(caught.value)
    with pytest.raises(ProviderError):
        resolve_model("hf:org/model", api_key="sk-ant-api03-abcdefgh")
    # a --base-url server is the endpoint the key was given for: any key goes there
    resolve_model("openai:gpt-4o", base_url="http://127.0.0.1:9/v1", api_key=VISITOR_HF)
    assert judge_route("anthropic:claude-x", ["fake"], "http://127.0.0.1:9/v1") == "run"
    assert judge_route("openai:gpt-4o", ["hf:org/model"], None) == "other"


def test_cli_refuses_to_send_a_key_to_another_vendor(
    servers: tuple[FakeLLMServer, FakeLLMServer], skill: Skill, tmp_path: Path
) -> None:
    _, openai = servers
    write_suite(skill.path / "skill_meta.json", TestSuite([judged_case()]))
    result = run_cli(
        *("eval", str(skill.path), "--model", "openai:gpt-4o", "--output", str(tmp_path / "r")),
        env={"UPSKILL_HUB_API_KEY": VISITOR_HF},
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "a Hugging Face token" in output and "Traceback" not in output
    assert VISITOR_HF not in output
    assert openai.requests == []
