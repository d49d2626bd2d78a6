"""What an eval is given: how to run it (:class:`EvalConfig`) and what it needs of a skill."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol
from urllib.parse import urlsplit

from upskill_hub.backoff import RetryPolicy
from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.agent.settings import AgentSettings
from upskill_hub.evaluation.pricing import Price
from upskill_hub.evaluation.types import ARMS, Arm, GenerationParams

__all__ = ["EvalConfig", "JudgeScope", "SkillLike", "check_base_url"]

#: ``any``: a judge on another vendor uses that vendor's environment key; ``run``: only judges
#: on the run's own endpoint and key run, the others are skipped (:mod:`.judges`).
JudgeScope = Literal["any", "run"]


def check_base_url(url: str | None) -> None:
    """:class:`UsageError` naming ``base_url`` unless ``url`` is None or an http(s) URL with a
    host."""
    if url is None:
        return
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        raise UsageError(Param("base_url"), f" {url!r}: not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            Param("base_url"), f" {url!r}: give an http:// or https:// URL with a host"
        )


class SkillLike(Protocol):
    """What the runner needs of a skill (``upskill_hub.skill.Skill`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> Path: ...

    @property
    def skill_md_text(self) -> str: ...


#: Reply limit when only the embedded model runs: SmolLM2-135M rambles to whatever limit it is
#: given, and 384 tokens holds a complete answer to every bundled case.
EMBEDDED_MAX_TOKENS = 384


def default_max_tokens(models: Sequence[str]) -> int:
    """The reply limit when none is given: 1024, or 384 when every model is ``local``."""
    from upskill_hub.evaluation.providers.resolve import model_kind

    if models and all(model_kind(m) == "local" for m in models):
        return EMBEDDED_MAX_TOKENS
    return GenerationParams().max_tokens


@dataclass
class EvalConfig:
    """How to run an eval. ``api_key`` is used for requests only and never written anywhere."""

    models: list[str] = field(default_factory=lambda: ["local"])
    runs: int = 1
    #: Requests in flight at most, per model (each model has its own workers).
    concurrency: int = 4
    params: GenerationParams = field(default_factory=GenerationParams)
    #: Retries of a failed model request (its ``retries`` is ``--retries`` and run.json's
    #: ``retries``).
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    no_baseline: bool = False
    judge_model: str | None = None
    #: ``None``: inline mode (SKILL.md in the system prompt); else agent mode with these limits.
    agent: AgentSettings | None = None
    #: Where judge models may run (:mod:`upskill_hub.evaluation.judges`): ``any`` (another
    #: vendor's judge with that vendor's environment key) or ``run`` (only on the run's own
    #: provider and key; the hosted Space).
    judge_scope: JudgeScope = "any"
    #: Prices given for models (``--price``), canonical model id -> price; the rest come from
    #: the built-in table (:mod:`upskill_hub.evaluation.pricing`) or stay unpriced.
    prices: dict[str, Price] = field(default_factory=dict)

    def _check_prices(self) -> None:
        """A price given for a model the run does not evaluate is a typo: refuse it."""
        from upskill_hub.errors import UpskillHubError
        from upskill_hub.evaluation.providers.resolve import canonical_model_id

        ids = set(self.models)
        for model in self.models:
            with contextlib.suppress(UpskillHubError):  # an unknown model fails elsewhere
                ids.add(canonical_model_id(model, self.base_url))
        for key in self.prices:
            if key not in ids:
                raise UsageError(
                    Param("prices"), f" prices {key}, which this run does not evaluate (",
                    Param("models"), f" {', '.join(self.models)})",
                )  # fmt: skip

    @property
    def arms(self) -> tuple[Arm, ...]:
        return ("with_skill",) if self.no_baseline else ARMS

    def validate(self) -> None:
        """Raise :class:`UsageError` for values no run can use."""
        if not self.models:
            raise UsageError("no model given (", Param("models"), ")")
        dupes = sorted({m for m in self.models if self.models.count(m) > 1})
        if dupes:
            raise UsageError(Param("models"), f" given twice: {', '.join(dupes)}")
        if self.runs < 1:
            raise UsageError(Param("runs"), f" must be at least 1 (got {self.runs})")
        if self.concurrency < 1:
            raise UsageError(Param("concurrency"), f" must be at least 1 (got {self.concurrency})")
        if self.retry.retries < 0:
            raise UsageError(Param("retries"), f" must be 0 or more (got {self.retry.retries})")
        check_base_url(self.base_url)
        if self.judge_scope not in ("any", "run"):
            raise UsageError(f"judge_scope must be 'any' or 'run' (got {self.judge_scope!r})")
        if self.agent is not None:
            self.agent.validate()
        self._check_prices()
        p = self.params
        if p.max_tokens < 1:
            raise UsageError(Param("max_tokens"), f" must be at least 1 (got {p.max_tokens})")
        if p.timeout <= 0:
            raise UsageError(Param("timeout"), f" must be positive (got {p.timeout:g})")
        if not 0 <= p.temperature <= 2:
            raise UsageError(
                Param("temperature"), f" must be between 0 and 2 (got {p.temperature:g})"
            )
