"""What a grid on Jobs will cost in model API calls: tokens per sample x prices x grid size.

Tokens per sample come from a finished run of the same skill: ``--pilot RUN_DIR``, or else the
most recent run folder under the output folder whose run.json names the same skill
(:func:`find_prior_run`). Its summary.json gives the mean input, output, cached-input and
cache-write tokens per answered sample of each model and arm. A planned model that the prior
run did not measure gets the prior run's mean over its models for that arm (said in the
estimate). Prices are :func:`~upskill_hub.evaluation.pricing.price_for`'s (``--price`` over the
built-in table), priced by :func:`~upskill_hub.evaluation.pricing.cost_usd`.

The estimate is ``unknown`` (``usd`` None, never 0) when there is no prior run, or when any
planned model is unpriced: a partial total would read as the whole bill. The compute estimate
(:mod:`upskill_hub.jobs.cost`) is separate: Jobs bill hardware, vendors bill tokens.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub.errors import Param, UsageError
from upskill_hub.formatting import dollars

if TYPE_CHECKING:
    from upskill_hub.evaluation.pricing import Price
    from upskill_hub.jobs.plan import JobsPlan

__all__ = [
    "TOKEN_FIELDS",
    "ApiCostEstimate",
    "ModelApiCost",
    "estimate_api_cost",
    "find_prior_run",
    "plan_api_cost",
    "plan_grid",
    "run_tokens",
]

#: summary.json's ``tokens`` keys, means per answered sample.
TOKEN_FIELDS = ("input", "output", "cached_input", "cache_write")
ARMS = ("baseline", "with_skill")

#: Tokens per sample, model -> arm -> {input, output, cached_input, cache_write}.
Tokens = dict[str, dict[str, dict[str, float]]]


@dataclass(frozen=True)
class ModelApiCost:
    """One planned model: samples per arm, the tokens and price used, and its cost."""

    model: str
    samples: dict[str, int]
    tokens: dict[str, dict[str, float]]
    tokens_from: str  # "this model" or "mean of the prior run's models"
    price_source: str | None  # None: unpriced
    usd: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "samples": self.samples,
            "tokens_per_sample": self.tokens,
            "tokens_from": self.tokens_from,
            "price_source": self.price_source,
            "usd": self.usd,
        }


@dataclass(frozen=True)
class ApiCostEstimate:
    """The API-cost estimate printed beside the compute estimate."""

    usd: float | None  # None: unknown (see ``reason``)
    source: str | None  # the run folder the tokens came from
    reason: str | None = None
    models: list[ModelApiCost] = field(default_factory=list)

    def lines(self) -> list[str]:
        if self.usd is None:
            return [f"estimated API cost: unknown ({self.reason})"]
        borrowed = [m.model for m in self.models if m.tokens_from != "this model"]
        note = f"; tokens of {', '.join(borrowed)} are the run's mean" if borrowed else ""
        return [
            f"estimated API cost: {dollars(self.usd)} (tokens per sample from {self.source}{note})"
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "usd": self.usd,
            "source": self.source,
            "reason": self.reason,
            "models": [m.to_dict() for m in self.models],
        }


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def run_tokens(run_dir: Path) -> Tokens:
    """Mean tokens per answered sample of each model and arm of a finished run (summary.json);
    one-line errors naming ``pilot`` when it is not one."""
    path = Path(run_dir) / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            Param("pilot"), f" {run_dir}: no summary.json (not a finished eval run)"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(Param("pilot"), f" {path}: unreadable ({type(exc).__name__})") from None
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, list):
        raise UsageError(Param("pilot"), f" {path}: not a run summary (no 'models' list)")
    tokens: Tokens = {}
    for model in models:
        if not isinstance(model, dict) or not isinstance(model.get("model"), str):
            continue
        for arm in ARMS:
            counts = (model.get(arm) or {}).get("tokens") or {}
            if _number(counts.get("input")) is None or _number(counts.get("output")) is None:
                continue
            tokens.setdefault(model["model"], {})[arm] = {
                k: _number(counts.get(k)) or 0.0 for k in TOKEN_FIELDS
            }
    return tokens


def _skill_name(run_dir: Path) -> str | None:
    try:
        data = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        name = data["skill"]["name"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    return name if isinstance(name, str) else None


def find_prior_run(
    output_root: Path, skill_name: str, *, exclude: Path | None = None
) -> Path | None:
    """The most recent run folder under ``output_root`` of the skill ``skill_name`` with token
    figures in its summary.json (folder names start with their UTC start time, so the greatest
    name is the latest); None when there is none."""
    root = Path(output_root)
    if not root.is_dir():
        return None
    skip = exclude.resolve() if exclude is not None else None
    for run_dir in sorted((p for p in root.iterdir() if p.is_dir()), reverse=True):
        if skip is not None and run_dir.resolve() == skip:
            continue
        if _skill_name(run_dir) != skill_name or not (run_dir / "summary.json").is_file():
            continue
        try:
            if run_tokens(run_dir):
                return run_dir
        except UsageError:
            continue
    return None


def plan_grid(plan: JobsPlan) -> dict[str, dict[str, int]]:
    """Samples still to run per model (canonical id) and arm: the plan's pending shards."""
    grid: dict[str, dict[str, int]] = {}
    for shard in plan.shards:
        if shard.state == "completed":
            continue
        model = plan.model_ids.get(shard.model, shard.model)
        per_arm = grid.setdefault(model, {arm: 0 for arm in plan.arms})
        for arm in plan.arms:
            per_arm[arm] += len(shard.case_ids) * plan.runs
    return grid


def _mean_tokens(tokens: Tokens) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for arm in ARMS:
        measured = [arms[arm] for arms in tokens.values() if arm in arms]
        if measured:
            out[arm] = {k: sum(t[k] for t in measured) / len(measured) for k in TOKEN_FIELDS}
    return out


def estimate_api_cost(
    grid: Mapping[str, Mapping[str, int]],
    tokens: Tokens | None,
    prices: Mapping[str, Price | None],
    *,
    source: str | None = None,
) -> ApiCostEstimate:
    """``grid`` (samples per model and arm) x ``tokens`` per sample x ``prices`` (per model;
    None or missing: unpriced); unknown without tokens or with any model unpriced."""
    from upskill_hub.evaluation.pricing import cost_usd

    if not tokens:
        return ApiCostEstimate(None, source, "no prior run of this skill to take tokens from")
    mean = _mean_tokens(tokens)
    models: list[ModelApiCost] = []
    unpriced: list[str] = []
    for model, samples in grid.items():
        own = tokens.get(model, {})
        used = {arm: own.get(arm) or mean.get(arm) for arm in samples}
        price = prices.get(model)
        usd: float | None = None
        if price is None:
            unpriced.append(model)
        elif all(used[arm] is not None for arm in samples):
            usd = 0.0
            for arm, n in samples.items():
                t = used[arm] or {}
                usd += n * cost_usd(
                    price,
                    input_tokens=t["input"],
                    output_tokens=t["output"],
                    cached_input_tokens=t["cached_input"],
                    cache_write_tokens=t["cache_write"],
                )
        models.append(
            ModelApiCost(
                model,
                dict(samples),
                {arm: t for arm, t in used.items() if t is not None},
                "this model" if own else "mean of the prior run's models",
                None if price is None else price.source,
                usd,
            )
        )
    if unpriced:
        reason = f"no price for {', '.join(unpriced)}; give one with --price MODEL=IN/OUT"
        return ApiCostEstimate(None, source, reason, models)
    if any(m.usd is None for m in models):
        reason = "the prior run has no tokens for an arm of this grid"
        return ApiCostEstimate(None, source, reason, models)
    return ApiCostEstimate(sum(m.usd or 0.0 for m in models), source, None, models)


def plan_api_cost(
    plan: JobsPlan,
    skill_name: str,
    *,
    output_root: Path,
    run_dir: Path | None = None,
    pilot: Path | None = None,
    price_overrides: Mapping[str, Price] | None = None,
    base_url: str | None = None,
) -> ApiCostEstimate:
    """The plan's API cost with tokens from ``pilot`` (a run folder) or else the latest run of
    ``skill_name`` under ``output_root`` (``run_dir``, the plan's own new folder, left out)."""
    from upskill_hub.evaluation.pricing import price_for

    prior = Path(pilot) if pilot is not None else None
    if prior is None:
        prior = find_prior_run(output_root, skill_name, exclude=run_dir)
    tokens = run_tokens(prior) if prior is not None else None
    grid = plan_grid(plan)
    prices = {m: price_for(m, price_overrides, base_url=base_url) for m in grid}
    return estimate_api_cost(grid, tokens, prices, source=None if prior is None else str(prior))
