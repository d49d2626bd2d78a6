"""The Space's behaviour, tested in the library (no browser, no gradio)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.space.conftest import SENTINEL_KEY, SkillRepo, files_text, write_demo_skill
from tests.support.llm_servers import FakeLLMServer, openai_server
from upskill_hub.errors import ProviderError, UsageError
from upskill_hub.evaluation.types import AssertionResult, Sample
from upskill_hub.secrets import Redactor
from upskill_hub.skill.testcases import TestCase
from upskill_hub.space_support import form as forms
from upskill_hub.space_support import tables
from upskill_hub.space_support.live import EvalView, VisitorGate, stream_eval, visitor_id
from upskill_hub.space_support.messages import describe_error
from upskill_hub.space_support.network import UnsafeURL, blocked_reason, ssrf_guarded_url
from upskill_hub.space_support.settings import SpaceSettings, is_hosted
from upskill_hub.space_support.skills import DEFAULT_SKILL, bundled_skills, find_skills_dir

REPO_ROOT = Path(__file__).resolve().parents[2]


def public_resolver(_host: str, _port: int) -> list[str]:
    return ["93.184.215.14"]


def private_resolver(_host: str, _port: int) -> list[str]:
    return ["93.184.215.14", "10.0.0.7"]


# --------------------------------------------------------------------------- mode and guard


def test_hosted_mode_is_detected_from_space_id(tmp_path: Path) -> None:
    assert is_hosted({"SPACE_ID": "someone/upskill"})
    assert not is_hosted({"SPACE_ID": " "}) and not is_hosted({})
    hosted = SpaceSettings.from_env({"SPACE_ID": "someone/upskill"})
    local = SpaceSettings.from_env({"UPSKILL_HUB_SPACE_RUNS": str(tmp_path)})
    assert hosted.hosted and hosted.max_runs <= 3 and hosted.per_visitor == 1
    assert not local.hosted and local.output_root == tmp_path


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1:8000/v1",
        "https://127.9.9.9/v1",
        "https://[::1]/v1",
        "https://localhost/v1",
        "https://10.1.2.3/v1",
        "https://192.168.0.10/v1",
        "https://172.16.5.5/v1",
        "https://100.64.0.1/v1",
        "https://169.254.169.254/latest/meta-data",
        "https://[fe80::1]/v1",
        "https://[fec0::1]/v1",
        "https://[feff:ffff::1]/v1",
        "https://[::ffff:127.0.0.1]/v1",
        "https://0.0.0.0/v1",
        "https://metadata.google.internal/v1",
        "https://2130706433/v1",
        "https://127.1/v1",
        "https://0x7f.0.0.1/v1",
    ],
)
def test_hosted_guard_refuses_internal_addresses(url: str) -> None:
    with pytest.raises(UnsafeURL):
        ssrf_guarded_url(url, hosted=True, resolver=public_resolver)


def test_hosted_guard_checks_every_resolved_address() -> None:
    with pytest.raises(UnsafeURL, match="private network"):
        ssrf_guarded_url("https://api.example.com/v1", hosted=True, resolver=private_resolver)
    assert (
        ssrf_guarded_url(" https://api.example.com/v1 ", hosted=True, resolver=public_resolver)
        == "https://api.example.com/v1"
    )


def test_hosted_guard_wants_https_and_no_credentials() -> None:
    with pytest.raises(UnsafeURL, match="https"):
        ssrf_guarded_url("http://api.example.com/v1", hosted=True, resolver=public_resolver)
    with pytest.raises(UnsafeURL, match="user name or password"):
        ssrf_guarded_url("https://u:p@api.example.com/v1", hosted=False)
    with pytest.raises(UnsafeURL):
        ssrf_guarded_url("file:///etc/passwd", hosted=False)


def test_local_mode_allows_local_servers() -> None:
    assert ssrf_guarded_url("http://127.0.0.1:9/v1", hosted=False) == "http://127.0.0.1:9/v1"
    assert blocked_reason("8.8.8.8") is None
    assert blocked_reason("127.0.0.1") == "a loopback address"


# --------------------------------------------------------------------------- the form


def test_form_maps_providers_to_model_strings() -> None:
    local = SpaceSettings.for_mode(False)
    plan = forms.plan_eval(forms.EvalForm("s", forms.HF, "Qwen/Qwen2.5-7B"), local)
    assert plan.model_spec == "hf:Qwen/Qwen2.5-7B"
    plan = forms.plan_eval(forms.EvalForm("s", forms.ANTHROPIC, "haiku"), local)
    assert plan.model_spec == "anthropic:haiku"
    plan = forms.plan_eval(forms.EvalForm("s", forms.OPENAI, "gpt-x"), local)
    assert plan.model_spec == "openai:gpt-x" and plan.config.base_url is None
    plan = forms.plan_eval(
        forms.EvalForm("s", forms.OPENAI, "m", "http://127.0.0.1:1/v1", "k-123456", 2, 0.5), local
    )
    assert plan.model_spec == "m" and plan.config.base_url == "http://127.0.0.1:1/v1"
    assert plan.config.runs == 2 and plan.config.params.temperature == 0.5
    assert plan.config.api_key == "k-123456" and "k-123456" not in repr(plan)
    embedded = forms.plan_eval(forms.EvalForm("s", forms.EMBEDDED, ""), local)
    assert embedded.model_spec == "local"
    # the CLI's rule: the embedded model alone gets the shorter default reply limit
    assert embedded.config.params.max_tokens == 384 and plan.config.params.max_tokens == 1024


def test_hosted_form_never_falls_back_to_the_spaces_keys() -> None:
    hosted = SpaceSettings.for_mode(True)
    assert forms.EMBEDDED not in forms.providers_for(hosted)
    with pytest.raises(UsageError, match="not available"):
        forms.plan_eval(forms.EvalForm("s", forms.EMBEDDED, "local"), hosted)
    for provider in (forms.OPENAI, forms.ANTHROPIC):
        with pytest.raises(UsageError, match="API key is empty"):
            forms.plan_eval(forms.EvalForm("s", provider, "m"), hosted)
    with pytest.raises(UsageError, match="Sign in"):
        forms.plan_eval(forms.EvalForm("s", forms.HF, "org/m"), hosted)
    plan = forms.plan_eval(forms.EvalForm("s", forms.HF, "org/m"), hosted, oauth_token="hf_visitor")
    assert plan.config.api_key == "hf_visitor" and "hf_visitor" in plan.secrets
    local = forms.plan_eval(
        forms.EvalForm("s", forms.HF, "org/m"), SpaceSettings.for_mode(False), oauth_token="mock"
    )
    assert local.config.api_key is None  # local: the machine's own login, not the mock token


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"runs": 0}, "Runs must be between"),
        ({"runs": 4}, "Runs must be between"),
        ({"runs": 1.5}, "whole number"),
        ({"temperature": 2.5}, "Temperature"),
        ({"temperature": float("nan")}, "Temperature"),
        ({"model": ""}, "Model is empty"),
        ({"model": "a b"}, "not a model name"),
        ({"skill": "  "}, "Skill is empty"),
        ({"api_key": "two words"}, "malformed"),
        ({"provider": "Mystery"}, "not available"),
    ],
)
def test_form_errors_name_the_field(changes: dict[str, object], message: str) -> None:
    values: dict[str, object] = {
        "skill": "s",
        "provider": forms.ANTHROPIC,
        "model": "haiku",
        "api_key": "key-123456",
        "runs": 1,
        "temperature": 0,
    }
    values.update(changes)
    with pytest.raises(UsageError, match=message):
        forms.plan_eval(forms.EvalForm(**values), SpaceSettings.for_mode(True))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- pieces


def test_bundled_skills_default_first() -> None:
    skills_dir = find_skills_dir([REPO_ROOT / "nowhere", REPO_ROOT / "skills"])
    assert skills_dir == REPO_ROOT / "skills"
    assert next(iter(bundled_skills(skills_dir))) == DEFAULT_SKILL


def test_messages_are_readable_and_secret_free() -> None:
    err = ProviderError(f"m: authentication failed (401): key {SENTINEL_KEY} rejected", status=401)
    text = describe_error(err, Redactor([SENTINEL_KEY]))
    assert SENTINEL_KEY not in text and "Check the API key" in text
    assert "Traceback" not in describe_error(RuntimeError("boom"))
    assert describe_error(UsageError("Runs must be 1")) == "Runs must be 1"


def test_visitor_gate_caps_concurrent_runs() -> None:
    gate = VisitorGate(1)
    assert gate.try_enter("a") and not gate.try_enter("a") and gate.try_enter("b")
    gate.leave("a")
    assert gate.try_enter("a")
    assert visitor_id("ann", None, "1.2.3.4", "s") == "user:ann"
    # the proxy appends the address it saw; whatever the client put first is its own claim
    assert visitor_id(None, {"x-forwarded-for": "5.6.7.8"}, "10.0.0.1", "s") == "ip:5.6.7.8"
    spoofed = [
        visitor_id(None, {"x-forwarded-for": f"{fake}, 5.6.7.8"}, "10.0.0.1", "s")
        for fake in ("1.1.1.1", "2.2.2.2", "3.3.3.3, 4.4.4.4")
    ]
    assert spoofed == ["ip:5.6.7.8"] * 3  # one visitor, however many addresses it claims
    gate = VisitorGate(1)
    assert gate.try_enter(spoofed[0]) and not gate.try_enter(spoofed[1])
    assert visitor_id(None, {}, None, "s") == "session:s"


def _sample(arm: str, outcome: str, output: str, run: int = 1) -> Sample:
    return Sample(
        model="m",
        case_id="c1",
        run=run,
        arm=arm,  # type: ignore[arg-type]
        prompt_hash="h",
        outcome=outcome,  # type: ignore[arg-type]
        output=output,
        assertions=[
            AssertionResult("contains", "pass" if outcome == "pass" else "fail", "why <i>")
        ],
        output_tokens=5,
    )


def test_case_table_escapes_outputs_and_shows_ticks() -> None:
    case = TestCase(id="c1", input="Do <b>it</b>")
    html = tables.cases_html(
        [case],
        [_sample("baseline", "fail", "<script>x()</script>"), _sample("with_skill", "pass", "ok")],
        redact=Redactor(["ok-secret"]),
    )
    assert "<script>" not in html and "&lt;script&gt;" in html and "&lt;b&gt;it" in html
    assert "✓" in html and "✗" in html and "why &lt;i&gt;" in html
    assert tables.cases_html([case], []) == "<p>No finished cases yet.</p>"
    assert 'aria-valuenow="3"' in tables.progress_bar_html(
        3, 12
    ) and "25.0%" in tables.progress_bar_html(3, 12)
    assert tables.progress_bar_html(0, 0) == ""
    assert "transition" in tables.progress_bar_html(3, 12)
    assert "transition" not in tables.progress_bar_html(12, 12, finished=True)  # drawn full


def test_summary_rows_show_intervals_lift_and_verdict() -> None:
    samples = [_sample("baseline", "fail", "no", r) for r in (1, 2, 3, 4, 5)]
    samples += [_sample("with_skill", "pass", "yes", r) for r in (1, 2, 3, 4, 5)]
    [row] = tables.live_summary_rows(samples)
    assert row[0] == "m"
    assert row[3].startswith("0% [0, ") and row[3].endswith("0/5")
    assert row[4].startswith("100% [") and row[4].endswith("5/5")
    # one case run five times is one observation of the lift: no verdict (issue: by case)
    assert row[1].startswith("+100 pts [") and "too few cases" in row[2]


# --------------------------------------------------------------------------- whole runs


def _run(form: forms.EvalForm, settings: SpaceSettings, **kwargs: object) -> list[EvalView]:
    bundled = bundled_skills(REPO_ROOT / "skills")
    return list(
        stream_eval(
            form,
            settings,
            gate=VisitorGate(1),
            visitor="ip:test",
            bundled=bundled,
            min_interval_s=0,
            **kwargs,  # type: ignore[arg-type]
        )
    )


def test_hosted_run_refuses_loopback_before_any_request(llm: FakeLLMServer, tmp_path: Path) -> None:
    settings = SpaceSettings.for_mode(True, output_root=tmp_path)
    for url in (llm.base_url, llm.base_url.replace("http:", "https:")):
        form = forms.EvalForm(DEFAULT_SKILL, forms.OPENAI, "fake-model", url, SENTINEL_KEY)
        views = _run(form, settings)
        assert views[-1].error and "loopback" in views[-1].error
        assert SENTINEL_KEY not in repr(views)
    assert llm.requests == [] and not any(tmp_path.iterdir())


def test_local_run_streams_results_and_never_shows_the_key(
    llm: FakeLLMServer, skill_repo: SkillRepo, tmp_path: Path
) -> None:
    settings = SpaceSettings.for_mode(False, output_root=tmp_path)
    form = forms.EvalForm(
        skill_repo.repo_id, forms.OPENAI, "fake-model", llm.base_url, SENTINEL_KEY
    )
    views = _run(form, settings)
    final = views[-1]
    assert final.finished and final.error is None, final
    done = [v.done for v in views if v.total]
    assert done == sorted(done) and done[-1] == 6 and len(set(done)) > 2  # filled in as it ran
    assert "too few cases" in final.status  # 3 cases: too few to call
    assert final.summary[0][4].endswith("3/3") and final.summary[0][3].endswith("0/3")
    assert "fruit-1" in final.cases_html and "&lt;script&gt;" in final.cases_html
    assert final.chart is not None and final.chart.is_file()
    assert final.run_dir is not None and final.run_dir.parent == tmp_path
    assert all(r.api_key == SENTINEL_KEY for r in llm.requests)
    assert SENTINEL_KEY not in repr(views) and SENTINEL_KEY not in files_text(tmp_path)


def test_provider_401_is_a_readable_message_without_the_key(tmp_path: Path) -> None:
    with openai_server(api_key="the-right-key-123") as server:  # its 401 echoes the key it got
        form = forms.EvalForm(
            DEFAULT_SKILL, forms.OPENAI, "fake-model", server.base_url, SENTINEL_KEY, 1, 0
        )
        views = _run(form, SpaceSettings.for_mode(False, output_root=tmp_path))
    final = views[-1]
    assert "Every request failed" in final.status and "401" in final.status
    assert SENTINEL_KEY not in repr(views) and SENTINEL_KEY not in files_text(tmp_path)


@pytest.mark.parametrize(
    ("skill", "message"),
    [
        ("no-such-bundled-skill", "neither a bundled skill"),
        ("local-user/does-not-exist-xyz", "not found"),
        ("bad//id", "not a Hub repo id"),
    ],
)
def test_bad_skills_are_messages(
    skill: str, message: str, hub_server: object, tmp_path: Path
) -> None:
    form = forms.EvalForm(skill, forms.OPENAI, "m", "http://127.0.0.1:9/v1", "k-123456")
    views = _run(form, SpaceSettings.for_mode(False, output_root=tmp_path))
    assert views[-1].error and message in views[-1].error and "Traceback" not in views[-1].error


def test_second_run_of_the_same_visitor_is_refused(tmp_path: Path) -> None:
    gate = VisitorGate(1)
    assert gate.try_enter("ip:x")
    form = forms.EvalForm(DEFAULT_SKILL, forms.EMBEDDED, "local")
    views = list(
        stream_eval(form, SpaceSettings.for_mode(False), gate=gate, visitor="ip:x", bundled={})
    )
    assert len(views) == 1 and views[0].error and "already have 1 evaluation" in views[0].error
    assert gate.running("ip:x") == 1


def test_run_too_large_for_hosted_mode(tmp_path: Path) -> None:
    settings = SpaceSettings.for_mode(True, output_root=tmp_path)
    skills = tmp_path / "skills"
    write_demo_skill(skills)
    small = SpaceSettings(**{**settings.__dict__, "max_samples": 4})
    form = forms.EvalForm("fruit-answers", forms.ANTHROPIC, "haiku", "", SENTINEL_KEY, 1, 0)
    views = list(
        stream_eval(form, small, gate=VisitorGate(1), visitor="v", bundled=bundled_skills(skills))
    )
    assert views[-1].error and "more than the 4 allowed" in views[-1].error


def test_hosted_fetch_of_a_hub_skill_sends_no_space_token(skill_repo: SkillRepo) -> None:
    from upskill_hub.space_support.skills import load_choice

    chosen = load_choice(skill_repo.repo_id, {}, hosted=True, token=None)
    assert chosen.skill.name == skill_repo.name and chosen.repo_id == skill_repo.repo_id
    assert chosen.commit and len(chosen.commit) == 40 and len(chosen.skill.tests) == 3
