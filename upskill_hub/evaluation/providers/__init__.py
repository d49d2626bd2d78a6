"""Model providers: one class per API behind :class:`Provider`; :func:`resolve_model` picks one."""

from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.providers.resolve import canonical_model_id, parse_model, resolve_model

__all__ = ["Provider", "canonical_model_id", "parse_model", "resolve_model"]
