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
    from upskill_hub.evaluation.providers.resolve import resolve_model
    from upskill_hub.evaluation.results import EvalResult
    from upskill_hub.evaluation.runner import evaluate
    from upskill_hub.evaluation.triggers import evaluate_triggers
    from upskill_hub.generate import GenerateConfig, generate
    from upskill_hub.publish.results_dataset import push_results
    from upskill_hub.publish.results_view import compare_results, load_results
    from upskill_hub.registry.evidence import skill_evidence
    from upskill_hub.registry.fetch import fetch_skill
    from upskill_hub.registry.hub import Hub
    from upskill_hub.registry.lock_update import update
    from upskill_hub.registry.project import outdated, remove, verify
    from upskill_hub.registry.pull import pull
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
    "EvalResult": "upskill_hub.evaluation.results",
    "GenerateConfig": "upskill_hub.generate",
    "Hub": "upskill_hub.registry.hub",
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
    "evaluate_triggers": "upskill_hub.evaluation.triggers",
    "fetch_skill": "upskill_hub.registry.fetch",
    "generate": "upskill_hub.generate",
    "info": "upskill_hub.registry.search",
    "load_results": "upskill_hub.publish.results_view",
    "load_skill": "upskill_hub.skill",
    "outdated": "upskill_hub.registry.project",
    "pull": "upskill_hub.registry.pull",
    "push_results": "upskill_hub.publish.results_dataset",
    "push_skills": "upskill_hub.registry.push",
    "remove": "upskill_hub.registry.project",
    "resolve_model": "upskill_hub.evaluation.providers.resolve",
    "search": "upskill_hub.registry.search",
    "skill_evidence": "upskill_hub.registry.evidence",
    "update": "upskill_hub.registry.lock_update",
    "validate_skill": "upskill_hub.skill",
    "verify": "upskill_hub.registry.project",
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
