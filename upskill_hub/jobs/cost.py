"""What a grid on Hugging Face Jobs will cost: flavor price per hour x estimated minutes.

Prices come from the Jobs hardware listing (``list_jobs_hardware``) when the Hub answers, else
from :data:`~upskill_hub.jobs_flavors.FLAVORS`, the list prices of the reference table (USD per
hour, 2026). The time of a shard is an estimate: Job start-up plus its samples at a per-request
time (seconds per sample divided by the requests a shard runs at once). It is printed as an
estimate, never billed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from upskill_hub.errors import Param, UsageError
from upskill_hub.jobs_flavors import FLAVORS

__all__ = ["CostEstimate", "estimate_cost", "flavor_prices"]


#: Minutes a Job takes before its first request (image pull, install, start).
STARTUP_MINUTES = 2.0
#: Seconds one request takes on average, when the caller knows no better.
SECONDS_PER_SAMPLE = 4.0


def flavor_prices(listing: list[tuple[str, float]] | None = None) -> dict[str, float]:
    """USD per hour by flavor: ``listing`` (name, USD per minute) over the reference table."""
    prices = {f.name: f.usd_per_hour for f in FLAVORS}
    for name, per_minute in listing or []:
        prices[name] = round(per_minute * 60, 6)
    return prices


def is_gpu(flavor: str) -> bool:
    return not flavor.startswith("cpu")


@dataclass(frozen=True)
class CostEstimate:
    """The estimate printed before anything is submitted."""

    flavor: str
    usd_per_hour: float
    shards: int
    samples: int
    minutes_per_shard: float
    job_minutes: float
    usd: float
    wall_minutes: float
    price_source: str

    def lines(self) -> list[str]:
        return [
            f"flavor {self.flavor} at ${self.usd_per_hour:.2f}/h ({self.price_source})",
            f"{self.shards} Jobs x ~{self.minutes_per_shard:.1f} min = "
            f"~{self.job_minutes:.0f} Job-minutes, ~{self.wall_minutes:.0f} min wall",
            f"estimated cost: ${self.usd:.2f}",
        ]


def estimate_cost(
    shard_sizes: list[int],
    flavor: str,
    *,
    max_parallel: int,
    concurrency: int,
    prices: dict[str, float] | None = None,
    price_source: str = "reference list prices",
    seconds_per_sample: float = SECONDS_PER_SAMPLE,
    startup_minutes: float = STARTUP_MINUTES,
) -> CostEstimate:
    """Cost of running shards of ``shard_sizes`` samples on ``flavor``, ``max_parallel`` at a
    time, each with ``concurrency`` requests in flight."""
    table = prices if prices is not None else flavor_prices()
    if flavor not in table:
        known = ", ".join(sorted(table))
        raise UsageError(Param("flavor"), f" {flavor!r}: unknown flavor (one of {known})")
    if max_parallel < 1:
        raise UsageError(Param("max_parallel"), f" must be at least 1 (got {max_parallel})")
    per_hour = table[flavor]
    minutes = [
        startup_minutes + size * seconds_per_sample / max(1, concurrency) / 60
        for size in shard_sizes
    ]
    job_minutes = sum(minutes)
    waves = math.ceil(len(minutes) / max_parallel) if minutes else 0
    longest = max(minutes) if minutes else 0.0
    return CostEstimate(
        flavor=flavor,
        usd_per_hour=per_hour,
        shards=len(shard_sizes),
        samples=sum(shard_sizes),
        minutes_per_shard=longest,
        job_minutes=job_minutes,
        usd=round(job_minutes / 60 * per_hour, 2),
        wall_minutes=waves * longest,
        price_source=price_source,
    )
