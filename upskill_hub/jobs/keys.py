"""Which keys a shard's Job needs, read from the client's environment, sent as Job secrets.

Only the keys of the shard's own model (and of the judge model) travel, plus ``HF_TOKEN``
(the Job commits its samples to the artifact repo with it). They go as ``secrets`` of
``run_job``, never as ``environment``, labels, command arguments, plan files or log lines.
Endpoint URLs the providers read (``OPENAI_BASE_URL``, ...) are not secret and travel as
environment, without credentials.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from upskill_hub.errors import UsageError

__all__ = ["API_KEY_ENV", "endpoint_env", "plan_secrets", "secret_names", "secret_values"]

#: The key of an OpenAI-compatible ``--base-url`` server (as in ``eval``).
API_KEY_ENV = "UPSKILL_HUB_API_KEY"


def _model_key(spec: str, base_url: str | None) -> str | None:
    from upskill_hub.evaluation.providers.resolve import key_env

    if base_url:
        return API_KEY_ENV
    return key_env(spec)  # None for vllm: (served inside the Job) and others without a key


def secret_names(model: str, judge_model: str | None, base_url: str | None) -> list[str]:
    """The secrets a shard of ``model`` needs (``HF_TOKEN`` always)."""
    names = {"HF_TOKEN"}
    for spec in (model, judge_model):
        if spec:
            key = _model_key(spec, base_url)
            if key:
                names.add(key)
    return sorted(names)


def secret_values(
    names: list[str], hf_token: str | None, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The values of ``names`` from ``env`` (default: this process's); one-line error naming
    the first that is missing. ``UPSKILL_HUB_API_KEY`` may be absent (test servers take none)."""
    source = os.environ if env is None else env
    values: dict[str, str] = {}
    for name in names:
        value = hf_token if name == "HF_TOKEN" else source.get(name)
        if value:
            values[name] = value
        elif name != API_KEY_ENV:
            hint = " or run `hf auth login`" if name == "HF_TOKEN" else ""
            raise UsageError(
                f"{name} is not set{hint}: the Jobs need it (it travels as a Job secret only)"
            )
    return values


def endpoint_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Provider endpoint URLs set in ``env``, credentials removed (they are not secret)."""
    from upskill_hub.evaluation.providers.resolve import base_url_envs
    from upskill_hub.evaluation.run.info import public_url

    source = os.environ if env is None else env
    return {name: public_url(source[name]) or "" for name in base_url_envs() if source.get(name)}


def plan_secrets(names_by_model: Mapping[str, list[str]]) -> dict[str, str]:
    """Every secret a plan's shards need, from this environment and the saved Hub token."""
    from huggingface_hub import get_token

    names = sorted({n for names in names_by_model.values() for n in names} | {"HF_TOKEN"})
    return secret_values(names, get_token())
