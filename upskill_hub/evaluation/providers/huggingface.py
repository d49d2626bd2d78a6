"""Hugging Face Inference Providers, through their OpenAI-compatible router."""

from __future__ import annotations

import os

from upskill_hub.evaluation.providers.openai_compat import OpenAICompatProvider

ROUTER_URL = "https://router.huggingface.co/v1"
ROUTER_URL_ENV = "HF_ROUTER_URL"  # override for tests and proxies


def router_url() -> str:
    return os.environ.get(ROUTER_URL_ENV) or ROUTER_URL


def hf_token() -> str | None:
    """``HF_TOKEN``, else the token ``hf auth login`` stored."""
    token = os.environ.get("HF_TOKEN")
    if token:
        return token
    try:
        from huggingface_hub import get_token
    except ImportError:  # pragma: no cover - a core dependency
        return None
    return get_token()


class HFRouterProvider(OpenAICompatProvider):
    """``hf:ORG/MODEL[:PROVIDER]``: the router picks a provider unless one is named."""

    key_hint = "set HF_TOKEN to a token allowed to call Inference Providers"

    def __init__(
        self, model: str, *, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        super().__init__(
            model, model_id=f"hf:{model}", base_url=base_url or router_url(), api_key=api_key
        )
