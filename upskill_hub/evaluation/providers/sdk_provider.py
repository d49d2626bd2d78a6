"""What the OpenAI and Anthropic providers share: one SDK client per event loop (no retries, no
redirects), keys kept out of ``repr``, and SDK exceptions mapped to ProviderError."""

from __future__ import annotations

import asyncio
import os
from types import ModuleType
from typing import Any

from upskill_hub.evaluation.providers import http_errors
from upskill_hub.evaluation.providers.base import Provider

#: Sent when a server needs no key (local servers); the SDKs insist on some value.
NO_KEY = "no-key"


class SdkProvider(Provider):
    """Base for providers built on an official SDK. Subclasses name the SDK module, build its
    async client class, and implement :meth:`complete` (mapping failures with
    :meth:`_map_error`)."""

    key_hint = ""
    id_prefix = ""
    #: The SDK's own base-URL variable: settings the SDK reads from the environment
    #: (:attr:`ambient_settings`, :attr:`ambient_headers_env`) go only to that endpoint.
    base_url_env = ""
    #: Client attributes the SDK fills from the environment (OpenAI's organization, project).
    ambient_settings: tuple[str, ...] = ()
    #: A variable of ``Name: value`` lines the SDK adds as headers (ANTHROPIC_CUSTOM_HEADERS).
    ambient_headers_env = ""

    def __init__(
        self,
        model: str,
        *,
        model_id: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.model = model
        self.model_id = model_id or f"{self.id_prefix}:{model}"
        self.base_url = base_url
        self._api_key = api_key
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_id={self.model_id!r}, "
            f"base_url={http_errors.display_url(self.base_url)!r})"
        )

    def _sdk(self) -> ModuleType:
        """The SDK module (``openai`` or ``anthropic``), imported on first use."""
        raise NotImplementedError

    def _client_class(self) -> Any:
        raise NotImplementedError

    def _client_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            sdk = self._sdk()
            foreign = self._foreign_endpoint()
            extra: dict[str, Any] = {}
            if foreign and self.ambient_headers_env:
                extra["default_headers"] = {name: sdk.Omit() for name in self._ambient_headers()}
            self._client = self._client_class()(
                api_key=self._api_key or NO_KEY,
                base_url=self.base_url,
                max_retries=0,  # the runner retries, the same way for every provider
                # A redirect could lead anywhere, past the checks made on base_url (the Space's
                # SSRF guard): never follow one; from_sdk_error turns it into a final error.
                http_client=sdk.DefaultAsyncHttpxClient(follow_redirects=False),
                **extra,
            )
            if foreign:
                for name in self.ambient_settings:
                    setattr(self._client, name, None)
            self._client_loop = loop
        return self._client

    def _foreign_endpoint(self) -> bool:
        """Whether requests go to a base URL other than the one the SDK's environment names.

        The SDKs read organization, project and extra headers from the environment for the
        vendor's endpoint (or the one ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` names); a
        ``--base-url`` server elsewhere gets none of them.
        """
        if self.base_url is None:
            return False
        ambient = os.environ.get(self.base_url_env, "") if self.base_url_env else ""
        return self.base_url.rstrip("/") != ambient.rstrip("/")

    def _ambient_headers(self) -> list[str]:
        text = os.environ.get(self.ambient_headers_env, "")
        return [line.split(":", 1)[0].strip() for line in text.splitlines() if ":" in line]

    def _map_error(self, exc: Exception, timeout: float) -> Exception:
        return http_errors.from_sdk_error(
            self._sdk(),
            exc,
            model_id=self.model_id,
            timeout=timeout,
            key_hint=self.key_hint,
            secret=self._api_key,
        )

    async def aclose(self) -> None:
        client, loop = self._client, self._client_loop
        self._client = self._client_loop = None
        if client is not None and loop is asyncio.get_running_loop():
            await client.close()
