"""The providers of one eval: one per model (plus judges), resolved once, closed once."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from upskill_hub.errors import UsageError

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.providers.base import Provider

__all__ = ["ProviderPool"]


class ProviderPool:
    """One provider per model (plus judges), created once, closed once."""

    def __init__(self, config: EvalConfig, given: dict[str, Provider] | None) -> None:
        self.config = config
        self.by_spec: dict[str, Provider] = {}
        self.owned: list[Provider] = []
        self._judges: dict[str, Provider] = {}
        self._judge_lock = asyncio.Lock()
        given = given or {}
        for spec in config.models:
            provider = given.get(spec)
            if provider is None:
                provider = self._resolve(spec)
                self.owned.append(provider)
            self.by_spec[spec] = provider
        ids = [p.model_id for p in self.by_spec.values()]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise UsageError(f"--model names the same model twice: {', '.join(dupes)}")

    def _resolve(self, spec: str) -> Provider:
        from upskill_hub.evaluation.providers.resolve import resolve_model

        return resolve_model(spec, base_url=self.config.base_url, api_key=self.config.api_key)

    @property
    def model_ids(self) -> list[str]:
        return [p.model_id for p in self.by_spec.values()]

    def all(self) -> list[Provider]:
        """Every provider of the run, models then judges, each once."""
        found: list[Provider] = []
        for provider in [*self.by_spec.values(), *self._judges.values()]:
            if not any(provider is p for p in found):
                found.append(provider)
        return found

    def by_id(self) -> dict[str, Provider]:
        return {p.model_id: p for p in self.by_spec.values()}

    async def judge(self, spec: str) -> Provider:
        async with self._judge_lock:
            if spec not in self._judges:
                provider = self.by_spec.get(spec) or self._resolve(spec)
                if provider not in self.by_spec.values():
                    self.owned.append(provider)
                self._judges[spec] = provider
            return self._judges[spec]

    async def aclose(self) -> None:
        for provider in self.owned:
            with contextlib.suppress(Exception):  # closing must not hide the run's outcome
                await provider.aclose()
