"""Model providers: one class per API behind :class:`Provider`; :func:`resolve_model` picks one.

``resolve`` holds the table of model-string kinds (and is the only module that reads a model
string); ``openai_compat``, ``anthropic_messages``, ``huggingface``, ``embedded`` and ``mock``
are the providers; ``sdk_provider`` and ``http_errors`` what the SDK-based ones share.
"""

from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.providers.mock import register_mock
from upskill_hub.evaluation.providers.resolve import canonical_model_id, parse_model, resolve_model

__all__ = ["Provider", "canonical_model_id", "parse_model", "register_mock", "resolve_model"]
