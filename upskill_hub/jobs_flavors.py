"""The hardware flavors of Hugging Face Jobs and their list prices (USD per hour, 2026).

Plain data, importable from any layer: the Jobs client estimates cost from it
(:mod:`upskill_hub.jobs.cost`) and the local Hub server lists it as its Jobs hardware
(:mod:`upskill_hub.hub_server.jobs_api`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FLAVORS", "Flavor"]


@dataclass(frozen=True)
class Flavor:
    """A Jobs hardware flavor and its list price."""

    name: str
    pretty_name: str
    usd_per_hour: float
    cpu: str = "2 vCPU"
    ram: str = "16 GB"
    gpu: str | None = None
    gpu_count: int = 0
    vram: str = ""


FLAVORS: tuple[Flavor, ...] = (
    Flavor("cpu-basic", "CPU Basic", 0.01),
    Flavor("cpu-upgrade", "CPU Upgrade", 0.03, cpu="8 vCPU", ram="32 GB"),
    Flavor("t4-small", "Nvidia T4 - small", 0.40, "4 vCPU", "15 GB", "T4", 1, "16 GB"),
    Flavor("l4x1", "1x Nvidia L4", 0.80, "8 vCPU", "30 GB", "L4", 1, "24 GB"),
    Flavor("a10g-small", "Nvidia A10G - small", 1.00, "4 vCPU", "15 GB", "A10G", 1, "24 GB"),
    Flavor("l40sx1", "1x Nvidia L40S", 1.80, "8 vCPU", "62 GB", "L40S", 1, "48 GB"),
    Flavor("a100-large", "Nvidia A100 - large", 2.50, "12 vCPU", "142 GB", "A100", 1, "80 GB"),
    Flavor("rtx-pro-6000", "Nvidia RTX PRO 6000", 2.75, "24 vCPU", "192 GB", "RTX PRO 6000", 1),
    Flavor("h200", "Nvidia H200", 5.00, "23 vCPU", "256 GB", "H200", 1, "141 GB"),
    Flavor("h200x8", "8x Nvidia H200", 40.00, "184 vCPU", "2 TB", "H200", 8, "1128 GB"),
)
