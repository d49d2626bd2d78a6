"""The evaluation form: check what a visitor typed and turn it into a run plan.

Provider choices (the "Provider" radio) map to model strings of
:func:`upskill_hub.evaluation.providers.resolve.parse_model`:

- Hugging Face Inference Providers: ``hf:ORG/MODEL[:PROVIDER]``, key = the API key field, else
  the visitor's Hugging Face sign-in;
- OpenAI-compatible: a bare ``MODEL`` sent to the Base URL, or ``openai:MODEL`` without one;
- Anthropic: ``anthropic:MODEL``;
- Embedded model: ``local`` (local mode only).

In hosted mode every API call carries the visitor's own key or token: a missing one is an error
here, so the Space's environment keys (``HF_TOKEN``, ``OPENAI_API_KEY``...) are never used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.agent.settings import AgentSettings
from upskill_hub.evaluation.config import EvalConfig, default_max_tokens
from upskill_hub.evaluation.judges import planned_requests
from upskill_hub.evaluation.providers.resolve import (
    canonical_model_id,
    parse_model,
    with_kind,
    without_kind,
)
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.skill.testcases import TestCase
from upskill_hub.space_support.network import Resolver, ssrf_guarded_url
from upskill_hub.space_support.settings import SpaceSettings

if TYPE_CHECKING:
    from upskill_hub.evaluation.pricing import Price

HF = "Hugging Face Inference Providers"
OPENAI = "OpenAI-compatible"
ANTHROPIC = "Anthropic"
EMBEDDED = "Embedded model"
ALL_PROVIDERS = (HF, OPENAI, ANTHROPIC, EMBEDDED)
#: The "Mode" radio: SKILL.md in the prompt, or loaded through Skill and Read tools.
INLINE, AGENT = "inline", "agent"
MODES = (INLINE, AGENT)

#: The model each provider starts with in the form.
DEFAULT_MODELS = {
    HF: "Qwen/Qwen2.5-Coder-32B-Instruct",
    OPENAI: "gpt-4o-mini",
    ANTHROPIC: "claude-haiku-5-5",
    EMBEDDED: "local",
}
#: Placeholder shown in the Model box for each provider.
MODEL_HINTS = {
    HF: "ORG/MODEL or ORG/MODEL:PROVIDER, e.g. Qwen/Qwen2.5-Coder-32B-Instruct",
    OPENAI: "model name the server knows, e.g. gpt-4o-mini",
    ANTHROPIC: "e.g. claude-haiku-5-5 (or haiku, sonnet, opus)",
    EMBEDDED: "local (SmolLM2-135M on this machine's CPU)",
}
_MAX_MODEL_CHARS = 200
_MAX_KEY_CHARS = 4096


def providers_for(settings: SpaceSettings) -> tuple[str, ...]:
    """The provider choices offered: the embedded model only when running locally."""
    return ALL_PROVIDERS if not settings.hosted else (HF, OPENAI, ANTHROPIC)


@dataclass(frozen=True)
class EvalForm:
    """The raw values of the form (strings and numbers as widgets deliver them)."""

    skill: str
    provider: str
    model: str
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    runs: float = 1
    temperature: float = 0.0
    mode: str = INLINE


@dataclass(frozen=True)
class EvalPlan:
    """A checked form: the model string and config to run, and the secrets to keep out of sight."""

    skill: str
    model_spec: str
    config: EvalConfig
    secrets: tuple[str, ...] = field(default=(), repr=False)


def _runs(value: float | int | str | None, settings: SpaceSettings) -> int:
    try:
        number = float(value if value is not None else 1)
    except (TypeError, ValueError):
        raise UsageError(f"Runs must be a whole number (got {value!r})") from None
    if not math.isfinite(number) or number != int(number):
        raise UsageError(f"Runs must be a whole number (got {value!r})")
    runs = int(number)
    if not 1 <= runs <= settings.max_runs:
        raise UsageError(f"Runs must be between 1 and {settings.max_runs} (got {runs})")
    return runs


def _temperature(value: float | int | str | None) -> float:
    try:
        number = float(value if value is not None else 0)
    except (TypeError, ValueError):
        raise UsageError(f"Temperature must be a number (got {value!r})") from None
    if not math.isfinite(number) or not 0 <= number <= 2:
        raise UsageError(f"Temperature must be between 0 and 2 (got {value!r})")
    return number


def _model_spec(provider: str, model: str, base_url: str | None) -> str:
    if provider == EMBEDDED:
        return "local"
    if not model:
        raise UsageError(f"Model is empty: enter one ({MODEL_HINTS[provider]})")
    if len(model) > _MAX_MODEL_CHARS or any(c.isspace() for c in model):
        raise UsageError(f"Model {model[:60]!r} is not a model name ({MODEL_HINTS[provider]})")
    if provider == HF:
        spec = with_kind("hf", model)
    elif provider == ANTHROPIC:
        spec = with_kind("anthropic", model)
    elif base_url:
        spec = without_kind("openai", model)
    else:
        spec = with_kind("openai", model)
    parse_model(spec, base_url)  # UnknownModelError with the accepted forms
    return spec


def plan_eval(
    form: EvalForm,
    settings: SpaceSettings,
    *,
    oauth_token: str | None = None,
    resolver: Resolver | None = None,
) -> EvalPlan:
    """Check ``form``; the run plan, or a :class:`UsageError` saying which field to fix.

    ``oauth_token`` is the visitor's Hugging Face sign-in token (used for Inference Providers
    when no API key is typed; ignored in local mode, where the sign-in is a mock).
    """
    skill = (form.skill or "").strip()
    if not skill:
        raise UsageError("Skill is empty: pick a bundled skill or enter a Hub repo id")
    provider = (form.provider or "").strip()
    if provider not in providers_for(settings):
        offered = ", ".join(providers_for(settings))
        raise UsageError(f"Provider {provider!r} is not available here (choose {offered})")
    api_key = (form.api_key or "").strip() or None
    if api_key is not None and (len(api_key) > _MAX_KEY_CHARS or any(c.isspace() for c in api_key)):
        raise UsageError("API key looks malformed (spaces or far too long); paste it again")
    base_url: str | None = None
    if provider == OPENAI and (form.base_url or "").strip():
        base_url = ssrf_guarded_url(form.base_url, hosted=settings.hosted, resolver=resolver)
    spec = _model_spec(provider, (form.model or "").strip(), base_url)
    mode = (form.mode or INLINE).strip().lower()
    if mode not in MODES:
        raise UsageError(f"Mode {form.mode!r} is not one of {', '.join(MODES)}")
    if mode == AGENT and provider == EMBEDDED:
        raise UsageError(
            "Mode agent needs a model that can call tools; the embedded model runs inline only"
        )
    if provider == HF and api_key is None and settings.hosted:
        api_key = oauth_token or None
    if settings.hosted and api_key is None and not (provider == OPENAI and base_url):
        if provider == HF:
            raise UsageError(
                "Sign in with Hugging Face (button above) or paste a Hugging Face token "
                "in API key to use Inference Providers"
            )
        raise UsageError(f"API key is empty: {provider} needs your own key on this Space")
    config = EvalConfig(
        models=[spec],
        runs=_runs(form.runs, settings),
        concurrency=settings.concurrency,
        params=GenerationParams(
            temperature=_temperature(form.temperature),
            # the same default reply limit as the CLI (384 for the embedded model alone)
            max_tokens=min(settings.max_tokens, default_max_tokens([spec])),
            timeout=settings.request_timeout_s,
        ),
        retry=RetryPolicy(retries=settings.retries),
        base_url=base_url,
        api_key=api_key,
        agent=AgentSettings() if mode == AGENT else None,
        # a skill's judge runs only on the visitor's provider and key (never the Space's keys)
        judge_scope="run" if settings.hosted else "any",
        prices=_prices_for(spec, base_url, settings),
    )
    config.validate()
    secrets = tuple(s for s in (api_key, oauth_token) if s)
    return EvalPlan(skill=skill, model_spec=spec, config=config, secrets=secrets)


def _prices_for(spec: str, base_url: str | None, settings: SpaceSettings) -> dict[str, Price]:
    """The owner's price of the model this run evaluates, if the owner priced it (a price for
    another model would be refused by the run's config)."""
    names = {spec, canonical_model_id(spec, base_url)}
    return {m: p for m, p in settings.prices.items() if m in names}


def check_size(plan: EvalPlan, cases: Sequence[TestCase], settings: SpaceSettings) -> None:
    """Refuse a run with more requests than the mode allows (cases x runs x 2 arms, plus the
    judge calls its checks make: :func:`~upskill_hub.evaluation.judges.planned_requests`)."""
    planned = planned_requests(cases, plan.config)
    if planned.total > settings.max_samples:
        per_run = max(1, planned.total // plan.config.runs)
        most = max(1, settings.max_samples // per_run)
        judges = f" + {planned.judge_calls} judge calls" if planned.judge_calls else ""
        raise UsageError(
            f"{len(cases)} cases x {plan.config.runs} runs x 2 arms{judges} = {planned.total} "
            f"requests, more than the {settings.max_samples} allowed here; use at most "
            f"{most} run(s)"
        )
