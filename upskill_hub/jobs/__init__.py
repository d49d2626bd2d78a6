"""Run eval grids on Hugging Face Jobs: plan and cost, one Job per shard, merge back.

huggingface_hub is imported only inside functions.

- :mod:`.plan`: the grid cut into shards, and its state (``jobs.json``);
- :mod:`.cost`: flavor price x estimated minutes;
- :mod:`.api_cost`: model API cost: tokens of a prior run x prices x grid size;
- :mod:`.keys`: which secrets a shard needs;
- :mod:`.artifacts`: the artifact dataset: where each file of a run lives, Hub calls on it;
- :mod:`.submit`: the artifact repo filled and one ``run_job`` per shard;
- :mod:`.shard`: what runs inside a Job (the ordinary runner);
- :mod:`.vllm`: open models served by vLLM inside the Job;
- :mod:`.drive`: waiting, progress, cancel and resume;
- :mod:`.merge`: the shards' samples as one ordinary run folder;
- :mod:`.recurring`: scheduled re-evaluation of a Hub skill.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:  # the names of _EXPORTS, for type checkers (``X as X``: re-exported)
    from upskill_hub.jobs.cost import CostEstimate as CostEstimate
    from upskill_hub.jobs.cost import estimate_cost as estimate_cost
    from upskill_hub.jobs.drive import cancel_run as cancel_run
    from upskill_hub.jobs.drive import wait_run as wait_run
    from upskill_hub.jobs.merge import merge_run as merge_run
    from upskill_hub.jobs.plan import JobsPlan as JobsPlan
    from upskill_hub.jobs.plan import Shard as Shard
    from upskill_hub.jobs.plan import read_plan as read_plan
    from upskill_hub.jobs.submit import JobsOptions as JobsOptions
    from upskill_hub.jobs.submit import plan_run as plan_run
    from upskill_hub.jobs.submit import publish_run as publish_run

_EXPORTS = {
    "CostEstimate": "upskill_hub.jobs.cost",
    "JobsOptions": "upskill_hub.jobs.submit",
    "JobsPlan": "upskill_hub.jobs.plan",
    "Shard": "upskill_hub.jobs.plan",
    "cancel_run": "upskill_hub.jobs.drive",
    "estimate_cost": "upskill_hub.jobs.cost",
    "merge_run": "upskill_hub.jobs.merge",
    "plan_run": "upskill_hub.jobs.submit",
    "publish_run": "upskill_hub.jobs.submit",
    "read_plan": "upskill_hub.jobs.plan",
    "wait_run": "upskill_hub.jobs.drive",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
