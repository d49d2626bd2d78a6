"""upskill-hub: Agent Skills as first-class citizens of the Hugging Face Hub.

The library is usable without the CLI::

    from upskill_hub import load_skill, validate_skill, evaluate, EvalConfig, pull, push_skills

Every name loads on first use, so ``import upskill_hub`` stays cheap. Packages:
:mod:`upskill_hub.skill`, :mod:`upskill_hub.registry`, :mod:`upskill_hub.evaluation`,
:mod:`upskill_hub.publish`, :mod:`upskill_hub.generate`.
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
