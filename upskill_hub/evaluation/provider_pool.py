"""The providers of one run (an eval, or ``generate``'s students and teacher): one per model
(plus judges), resolved once, closed once; providers handed in ready are the caller's to close
(and keep their own ``prompt_cache``)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from upskill_hub.errors import Param, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.judges import JudgeScope
    from upskill_hub.evaluation.providers.base import Provider

__all__ = ["ProviderPool"]


class ProviderPool:
    """One provider per model (plus judges), created once, closed once."""

    def __init__(
        self,
        models: Sequence[str],
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        given: dict[str, Provider] | None = None,
        judge_scope: JudgeScope = "any",
        prompt_cache: bool = True,
    ) -> None:
        self.base_url = base_url
        self.prompt_cache = prompt_cache
        self.api_key = api_key
        self.models = list(models)
        self.judge_scope: JudgeScope = judge_scope
        self.by_spec: dict[str, Provider] = {}
        self.owned: list[Provider] = []
        self._judges: dict[str, Provider] = {}
        self._judge_lock = asyncio.Lock()
        given = given or {}
        for spec in models:
            provider = given.get(spec)
            if provider is None:
                provider = self._resolve(spec)
                self.owned.append(provider)
            self.by_spec[spec] = provider
        ids = [p.model_id for p in self.by_spec.values()]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise UsageError(Param("models"), f" names the same model twice: {', '.join(dupes)}")

    @classmethod
    def for_config(cls, config: EvalConfig, given: dict[str, Provider] | None) -> ProviderPool:
        """The pool of an eval's models."""
        return cls(
            config.models,
            base_url=config.base_url,
            api_key=config.api_key,
            given=given,
            judge_scope=config.judge_scope,
            prompt_cache=config.cache,
        )

    def _resolve(
        self, spec: str, base_url: str | None = None, api_key: str | None = None
    ) -> Provider:
        from upskill_hub.evaluation.providers.resolve import resolve_model

        if base_url is None:
            base_url, api_key = self.base_url, self.api_key
        return resolve_model(
            spec, base_url=base_url, api_key=api_key, prompt_cache=self.prompt_cache
        )

    def _resolve_own(self, spec: str) -> Provider:
        """``spec`` with its own vendor's key from the environment (no explicit key, no
        ``base_url``: those belong to the run's models)."""
        from upskill_hub.evaluation.providers.resolve import resolve_model

        return resolve_model(spec, prompt_cache=self.prompt_cache)

    def extra(
        self, spec: str, *, base_url: str | None, api_key: str | None, given: Provider | None
    ) -> Provider:
        """A provider outside the models (``generate``'s teacher, with its own endpoint)."""
        from upskill_hub.evaluation.providers.resolve import resolve_model

        if given is not None:
            return given
        provider = resolve_model(
            spec, base_url=base_url, api_key=api_key, prompt_cache=self.prompt_cache
        )
        self.owned.append(provider)
        return provider

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
        """The provider of judge model ``spec``: the run's key only on the run's own endpoint
        (:func:`~upskill_hub.evaluation.judges.judge_route`); elsewhere its own vendor's
        environment key, or :class:`JudgeSkipped` when ``judge_scope`` is ``run``."""
        from upskill_hub.evaluation.assertions.base import JudgeSkipped
        from upskill_hub.evaluation.judges import judge_refusal, judge_route

        async with self._judge_lock:
            if spec not in self._judges:
                provider = self.by_spec.get(spec)
                if provider is None:
                    why = judge_refusal(spec, self.models, self.base_url, self.judge_scope)
                    if why is not None:
                        raise JudgeSkipped(why)
                    if judge_route(spec, self.models, self.base_url) == "run":
                        provider = self._resolve(spec)
                    else:  # another vendor: never the run's key, only its own from the env
                        provider = self._resolve_own(spec)
                if provider not in self.by_spec.values():
                    self.owned.append(provider)
                self._judges[spec] = provider
            return self._judges[spec]

    async def aclose(self) -> None:
        for provider in self.owned:
            with contextlib.suppress(Exception):  # closing must not hide the run's outcome
                await provider.aclose()
