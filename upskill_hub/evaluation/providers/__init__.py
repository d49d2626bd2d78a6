"""Model providers: one class per API behind :class:`Provider`; :func:`resolve_model` picks one.

- :mod:`.base`: :class:`~.base.Provider`, the one interface every provider implements;
- :mod:`.resolve`: the table of model-string kinds, the only place a model string is parsed
  and becomes a provider;
- :mod:`.sdk_provider`: what the OpenAI and Anthropic providers share (one SDK client per loop);
- :mod:`.openai_compat`: OpenAI chat completions and every server that speaks it;
- :mod:`.anthropic_messages`: Anthropic's Messages API;
- :mod:`.huggingface`: Hugging Face Inference Providers (the OpenAI-compatible router);
- :mod:`.embedded`: ``local``, SmolLM2-135M run in-process by llama.cpp;
- :mod:`.http_errors`: HTTP API failures turned into :class:`~upskill_hub.errors.ProviderError`;
- :mod:`.mock`: scripted in-process ``mock:`` models for tests.
"""

from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.providers.mock import register_mock
from upskill_hub.evaluation.providers.resolve import canonical_model_id, parse_model, resolve_model

__all__ = ["Provider", "canonical_model_id", "parse_model", "register_mock", "resolve_model"]
