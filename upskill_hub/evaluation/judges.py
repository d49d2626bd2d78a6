"""Where a ``judge`` assertion's model may run, with which key, and what judging costs in
requests.

A run's explicit key (``EvalConfig.api_key``: the CLI's ``UPSKILL_HUB_API_KEY``, a Space
visitor's key) belongs to the endpoint of the run's own models. A judge model reaching that same
endpoint (one of the run's models, the same vendor, or anything when ``base_url`` is given, since
every API model then goes there) uses it. A judge on another vendor never gets it:

* ``judge_scope="any"`` (the CLI): it runs with its own vendor's key from the environment, as
  the same model string would as ``--model``;
* ``judge_scope="run"`` (the hosted Space, where the environment's keys are the owner's): it is
  not called at all, and the check is ``skipped`` saying why.

:func:`planned_requests` counts the requests a run may send, judge calls included, so that a cap
on requests (the Space's) covers what a skill's judges make the run spend.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from upskill_hub.errors import UpskillHubError
from upskill_hub.evaluation.config import EvalConfig, JudgeScope

if TYPE_CHECKING:
    from upskill_hub.skill.testcases import TestCase

__all__ = [
    "JudgeScope",
    "RequestPlan",
    "judge_refusal",
    "judge_route",
    "planned_requests",
]


Route = Literal["run", "other"]


def judge_route(spec: str, models: Sequence[str], base_url: str | None) -> Route:
    """``run`` when judge model ``spec`` reaches the endpoint of the run's models (so it may use
    the run's key), ``other`` when it belongs to another vendor. An unknown model string raises
    :class:`~upskill_hub.errors.UnknownModelError`."""
    from upskill_hub.evaluation.providers.resolve import parse_model

    parsed = parse_model(spec, base_url)
    runs = [parse_model(m, base_url) for m in models]
    if any(parsed.model_id == r.model_id for r in runs):
        return "run"
    if parsed.kind == "local":
        return "other"
    if base_url:  # every API model goes to base_url, with the run's key
        return "run"
    return "run" if any(parsed.kind == r.kind for r in runs) else "other"


def judge_refusal(
    spec: str, models: Sequence[str], base_url: str | None, scope: JudgeScope
) -> str | None:
    """Why judge model ``spec`` may not be called in a run of ``models`` (a sentence for the
    check's reason), or None when it may."""
    if scope != "run":
        return None
    try:
        route = judge_route(spec, models, base_url)
    except UpskillHubError as exc:
        return f"judge model {spec[:80]!r} is not a model here ({exc})"
    if route == "run":
        return None
    return (
        f"judge model {spec[:80]!r} is not on the provider this run uses; a judge here runs "
        "only on the run's own provider and key"
    )


def _judge_specs(case: TestCase, config: EvalConfig) -> Iterable[str | None]:
    for spec in case.assertions:
        if spec.get("type") == "judge":
            model = spec.get("model")
            yield model if isinstance(model, str) and model else config.judge_model


@dataclass(frozen=True)
class RequestPlan:
    """What a run may send: ``samples`` (one model request each, in inline mode) and
    ``judge_calls`` judge requests; ``total`` adds them (retries apart)."""

    samples: int
    judge_calls: int

    @property
    def total(self) -> int:
        return self.samples + self.judge_calls


def planned_requests(cases: Sequence[TestCase], config: EvalConfig) -> RequestPlan:
    """The requests ``cases`` make under ``config``: a model request per sample, and a judge
    request per sample for every ``judge`` check that will actually call a model (one with a
    model, its own or the run's default, that :func:`judge_refusal` lets run)."""
    per_case = config.runs * len(config.arms)
    judge_calls = 0
    for case in cases:
        calls = sum(
            1
            for spec in _judge_specs(case, config)
            if spec is not None
            and judge_refusal(spec, config.models, config.base_url, config.judge_scope) is None
        )
        judge_calls += calls * per_case
    return RequestPlan(len(cases) * per_case, judge_calls)
