"""upskill-hub: Agent Skills as first-class citizens of the Hugging Face Hub.

The library is usable without the CLI::

    from upskill_hub import load_skill, validate_skill, evaluate, EvalConfig, pull, push_skills

Every name loads on first use, so ``import upskill_hub`` stays cheap. docs/architecture.md is
the map: the layers below, what each may import, and where new code goes.

The library's packages:

- :mod:`.skill`: a skill folder loaded, checked against the agentskills.io spec, written back;
- :mod:`.hub`: the Hub client, through which every call to the Hugging Face Hub goes;
- :mod:`.registry`: skills on the Hub: push, fetch, pull, the lock, the scan and signatures;
- :mod:`.evaluation`: a skill's lift measured: providers, runner, assertions, statistics;
- :mod:`.publish`: run folders as results datasets, and the skill card's results section;
- :mod:`.generate`: a teacher model writes a skill and its tests, students measure it;
- :mod:`.jobs`: eval grids run on Hugging Face Jobs.

Its front ends, which nothing in the library imports:

- :mod:`.cli`: the ``upskill-hub`` command;
- :mod:`.space_support`: what the Gradio Space does, as plain library code;
- :mod:`.hub_server`: a local Hub-compatible server for offline work, CI and tests.

Modules every package may import (they import no package):

- :mod:`.errors`: the typed errors, and :class:`~.errors.Param` for a parameter a message names;
- :mod:`.atomic_io`: atomic file writes (temp file + rename);
- :mod:`.backoff`: how long to wait before retrying a transient failure;
- :mod:`.secrets`: secrets kept out of logs, run folders, datasets, cards and pages;
- :mod:`.formatting`: how rates, lifts and their intervals are written;
- :mod:`.json_input`: JSON handed in by users or other people's repositories, parsed;
- :mod:`.datasets_quiet`: ``datasets``' progress bars and info logs silenced;
- :mod:`.jobs_flavors`: the Jobs hardware flavors and their list prices;
- :mod:`.source_wheel`: a wheel of the source checkout this package runs from;
- :mod:`._lazy`: lazy package exports;
- :mod:`._sync`: blocking forms of the library's coroutine functions;
- :mod:`.records_codec`: dataclass records to and from JSON dicts, driven by their fields;
- :mod:`.__main__`: ``python -m upskill_hub``, the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from upskill_hub._lazy import lazy_exports

if TYPE_CHECKING:
    from upskill_hub.errors import HubError, UpskillHubError, UsageError
    from upskill_hub.evaluation.agent import AgentSettings
    from upskill_hub.evaluation.config import EvalConfig
    from upskill_hub.evaluation.eval_result import EvalResult
    from upskill_hub.evaluation.providers.resolve import resolve_model
    from upskill_hub.evaluation.runner import evaluate
    from upskill_hub.evaluation.triggers.measure import evaluate_triggers
    from upskill_hub.generate import GenerateConfig, generate
    from upskill_hub.hub.client import Hub
    from upskill_hub.publish.results_dataset import push_results
    from upskill_hub.publish.results_view import compare_results, load_results
    from upskill_hub.registry.evidence.read import skill_evidence
    from upskill_hub.registry.fetch import fetch_skill
    from upskill_hub.registry.project.pull import pull
    from upskill_hub.registry.project.state import outdated, remove, verify
    from upskill_hub.registry.project.update import update
    from upskill_hub.registry.push import push_skills
    from upskill_hub.registry.search import info, search
    from upskill_hub.registry.skill_source import open_skill
    from upskill_hub.skill import (
        Skill,
        SkillReport,
        TestCase,
        TestSuite,
        discover_skills,
        load_skill,
        validate_skill,
    )

__version__ = "0.1.0"

_EXPORTS = {
    "open_skill": "upskill_hub.registry.skill_source",
    "AgentSettings": "upskill_hub.evaluation.agent",
    "EvalConfig": "upskill_hub.evaluation.config",
    "EvalResult": "upskill_hub.evaluation.eval_result",
    "GenerateConfig": "upskill_hub.generate",
    "Hub": "upskill_hub.hub.client",
    "HubError": "upskill_hub.errors",
    "Skill": "upskill_hub.skill",
    "SkillReport": "upskill_hub.skill",
    "TestCase": "upskill_hub.skill",
    "TestSuite": "upskill_hub.skill",
    "UpskillHubError": "upskill_hub.errors",
    "UsageError": "upskill_hub.errors",
    "compare_results": "upskill_hub.publish.results_view",
    "discover_skills": "upskill_hub.skill",
    "evaluate": "upskill_hub.evaluation.runner",
    "evaluate_triggers": "upskill_hub.evaluation.triggers.measure",
    "fetch_skill": "upskill_hub.registry.fetch",
    "generate": "upskill_hub.generate",
    "info": "upskill_hub.registry.search",
    "load_results": "upskill_hub.publish.results_view",
    "load_skill": "upskill_hub.skill",
    "outdated": "upskill_hub.registry.project.state",
    "pull": "upskill_hub.registry.project.pull",
    "push_results": "upskill_hub.publish.results_dataset",
    "push_skills": "upskill_hub.registry.push",
    "remove": "upskill_hub.registry.project.state",
    "resolve_model": "upskill_hub.evaluation.providers.resolve",
    "search": "upskill_hub.registry.search",
    "skill_evidence": "upskill_hub.registry.evidence.read",
    "update": "upskill_hub.registry.project.update",
    "validate_skill": "upskill_hub.skill",
    "verify": "upskill_hub.registry.project.state",
}
__all__ = [
    "AgentSettings",
    "EvalConfig",
    "EvalResult",
    "GenerateConfig",
    "Hub",
    "HubError",
    "Skill",
    "SkillReport",
    "TestCase",
    "TestSuite",
    "UpskillHubError",
    "UsageError",
    "compare_results",
    "discover_skills",
    "evaluate",
    "evaluate_triggers",
    "fetch_skill",
    "generate",
    "info",
    "load_results",
    "load_skill",
    "open_skill",
    "outdated",
    "pull",
    "push_results",
    "push_skills",
    "remove",
    "resolve_model",
    "search",
    "skill_evidence",
    "update",
    "validate_skill",
    "verify",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
