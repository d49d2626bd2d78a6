"""A hostile skill's judge, attacked through the hosted Space's own API (``gradio_client``).

The skill, published on the local Hub, names its own judge on another vendor
(``"model": "openai:gpt-4o"``) and asks for many judge calls. The visitor signs in with a
Hugging Face token. Two local OpenAI-compatible servers stand in for the Hugging Face router and
for OpenAI (the Space's ``OPENAI_BASE_URL``, with the owner's ``OPENAI_API_KEY``); each records
the ``Authorization`` header it receives.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.space.conftest import write_demo_skill
from tests.support.llm_servers import FakeLLMServer, openai_server, system_prompt

VISITOR_HF = "hf_visitorSPACEtoken0a1b2c3d"
OWNER_OPENAI = "sk-ownerSPACEkey-9f8e7d6c"


def reply(request: dict[str, Any]) -> str:
    if "strict grader" in system_prompt(request):
        return "PASS\nIt names a fruit."
    return "Buy a PINEAPPLE."


def publish(parent: Path, name: str, judges: list[dict[str, Any]]) -> str:
    """The demo skill with ``judges`` added to each case, pushed to the local Hub."""
    from upskill_hub.registry.push import push_skills

    folder = write_demo_skill(parent, name)
    meta = json.loads((folder / "skill_meta.json").read_text())
    for case in meta["tests"]:
        case["assertions"] += judges
    (folder / "skill_meta.json").write_text(json.dumps(meta))
    return push_skills(folder, repo_id=f"local-user/{name}").repo_id


@pytest.fixture
def vendors(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeLLMServer, FakeLLMServer]]:
    """(the Hugging Face router, OpenAI) as the Space's environment configures them."""
    with openai_server(reply) as router, openai_server(reply, models=("gpt-4o",)) as openai:
        monkeypatch.setenv("HF_ROUTER_URL", router.base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", openai.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", OWNER_OPENAI)
        yield router, openai


def evaluate(url: str, repo_id: str) -> tuple[str, str]:
    """The visitor runs ``repo_id`` on an HF model with their token: (status, cases HTML)."""
    from gradio_client import Client

    client = Client(url, verbose=False)
    _, status, _, _, _, cases = client.predict(
        repo_id,
        "Hugging Face Inference Providers",
        "org/model",
        "",
        VISITOR_HF,
        1,
        0,
        api_name="/evaluate",
    )
    return status, cases


def test_a_skills_judge_runs_only_on_the_visitors_provider_and_key(
    hosted_url: str, vendors: tuple[FakeLLMServer, FakeLLMServer], tmp_path: Path
) -> None:
    router, openai = vendors
    judges = [
        {"type": "judge", "rubric": "names a fruit", "model": "openai:gpt-4o"},
        {"type": "judge", "rubric": "names a fruit", "model": "hf:org/judge"},
    ]
    repo_id = publish(tmp_path, "fruit-foreign-judge", judges)
    status, cases = evaluate(hosted_url, repo_id)
    assert "Done" in status, status
    # the visitor's token never went to OpenAI, nor did the owner's key get used for them
    assert openai.requests == []
    assert "skipped" in cases and "not on the provider this run uses" in cases
    judged = [r for r in router.requests if "strict grader" in r.system]
    assert len(judged) == 6 and {r.api_key for r in router.requests} == {VISITOR_HF}
    assert {r.json["model"] for r in judged if r.json} == {"org/judge"}


def test_judge_calls_count_in_the_request_cap(
    hosted_url: str, vendors: tuple[FakeLLMServer, FakeLLMServer], tmp_path: Path
) -> None:
    router, _ = vendors
    # 3 cases x 2 arms = 6 model requests, well under the cap of 120; but 20 judge calls a
    # sample make 120 more
    judge = {"type": "judge", "rubric": "names a fruit", "model": "hf:org/judge"}
    judges = [{**judge, "rubric": f"{judge['rubric']} ({i})"} for i in range(20)]
    repo_id = publish(tmp_path, "fruit-many-judges", judges)
    status, _ = evaluate(hosted_url, repo_id)
    assert "+ 120 judge calls = 126 requests, more than the 120 allowed here" in status, status
    assert router.requests == []
