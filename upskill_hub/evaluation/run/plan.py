"""What a run is given besides its :class:`~upskill_hub.evaluation.config.EvalConfig`: where its
folder goes and what it records of the skill's origin (:class:`RunPlan`), and what the caller
plugs into it while it runs (:class:`RunHooks`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

    from upskill_hub.evaluation.eval_result import Progress
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.types import Sample

__all__ = ["RunHooks", "RunPlan"]


@dataclass(frozen=True)
class RunPlan:
    """Where a run writes and what its run.json records beside the config.

    ``run_dir`` names a new folder to use (it must not exist or be empty); otherwise one is
    created under ``output_root``. ``resume_from`` continues an existing run folder instead.
    ``repo_id``/``revision`` record a Hub skill's origin; ``skill_ref`` is how the reproduce
    command names the skill (default: repo_id@revision or the path). ``write_chart`` writes
    lift.png at the end.
    """

    run_dir: Path | None = None
    output_root: Path = Path("runs")
    resume_from: Path | None = None
    repo_id: str | None = None
    revision: str | None = None
    skill_ref: str | None = None
    write_chart: bool = True


@dataclass(frozen=True)
class RunHooks:
    """What the caller plugs into a running eval: ``on_sample`` runs in the event loop after
    each sample is on disk, setting ``cancel`` stops the run (finished samples are kept),
    and ``providers`` maps entries of ``config.models`` to ready providers the caller keeps."""

    on_sample: Callable[[Sample, Progress], None] | None = None
    cancel: asyncio.Event | None = None
    providers: dict[str, Provider] | None = field(default=None)
