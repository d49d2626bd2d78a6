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

if TYPE_CHECKING:  # the names of _EXPORTS, for type checkers (``X as X``: re-exported)
    from upskill_hub.errors import EvalCancelledError as EvalCancelledError
    from upskill_hub.errors import HubError as HubError
    from upskill_hub.errors import InvalidSkillError as InvalidSkillError
    from upskill_hub.errors import InvalidTestFileError as InvalidTestFileError
    from upskill_hub.errors import LocalModificationsError as LocalModificationsError
    from upskill_hub.errors import LockError as LockError
    from upskill_hub.errors import ProviderError as ProviderError
    from upskill_hub.errors import RepoNotFoundError as RepoNotFoundError
    from upskill_hub.errors import RevisionNotFoundError as RevisionNotFoundError
    from upskill_hub.errors import SignatureError as SignatureError
    from upskill_hub.errors import SkillNotFoundError as SkillNotFoundError
    from upskill_hub.errors import UndeterminedError as UndeterminedError
    from upskill_hub.errors import UnknownModelError as UnknownModelError
    from upskill_hub.errors import UnsafeSkillError as UnsafeSkillError
    from upskill_hub.errors import UpskillHubError as UpskillHubError
    from upskill_hub.errors import UsageError as UsageError
    from upskill_hub.errors import VerificationUndeterminedError as VerificationUndeterminedError
    from upskill_hub.evaluation.agent import AgentSettings as AgentSettings
    from upskill_hub.evaluation.config import EvalConfig as EvalConfig
    from upskill_hub.evaluation.eval_result import EvalResult as EvalResult
    from upskill_hub.evaluation.providers.resolve import resolve_model as resolve_model
    from upskill_hub.evaluation.runner import evaluate as evaluate
    from upskill_hub.evaluation.triggers.measure import evaluate_triggers as evaluate_triggers
    from upskill_hub.generate import GenerateConfig as GenerateConfig
    from upskill_hub.generate import generate as generate
    from upskill_hub.generate.teacher import TeacherError as TeacherError
    from upskill_hub.hub.client import Hub as Hub
    from upskill_hub.publish.readers import info as info
    from upskill_hub.publish.readers import outdated as outdated
    from upskill_hub.publish.readers import pull as pull
    from upskill_hub.publish.readers import skill_evidence as skill_evidence
    from upskill_hub.publish.readers import update as update
    from upskill_hub.publish.results_dataset import push_results as push_results
    from upskill_hub.publish.results_view import compare_results as compare_results
    from upskill_hub.publish.results_view import load_results as load_results
    from upskill_hub.publish.run_consistency import InconsistentRunError as InconsistentRunError
    from upskill_hub.registry.fetch import ScanRefusedError as ScanRefusedError
    from upskill_hub.registry.fetch import SeveralSkillsError as SeveralSkillsError
    from upskill_hub.registry.fetch import ValidationRefusedError as ValidationRefusedError
    from upskill_hub.registry.fetch import fetch_skill as fetch_skill
    from upskill_hub.registry.project.state import remove as remove
    from upskill_hub.registry.project.state import verify as verify
    from upskill_hub.registry.push import push_skills as push_skills
    from upskill_hub.registry.search import search as search
    from upskill_hub.registry.skill_source import open_skill as open_skill
    from upskill_hub.skill import Skill as Skill
    from upskill_hub.skill import SkillReport as SkillReport
    from upskill_hub.skill import TestCase as TestCase
    from upskill_hub.skill import TestSuite as TestSuite
    from upskill_hub.skill import discover_skills as discover_skills
    from upskill_hub.skill import load_skill as load_skill
    from upskill_hub.skill import validate_skill as validate_skill

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
    "info": "upskill_hub.publish.readers",
    "load_results": "upskill_hub.publish.results_view",
    "load_skill": "upskill_hub.skill",
    "outdated": "upskill_hub.publish.readers",
    "pull": "upskill_hub.publish.readers",
    "push_results": "upskill_hub.publish.results_dataset",
    "push_skills": "upskill_hub.registry.push",
    "remove": "upskill_hub.registry.project.state",
    "resolve_model": "upskill_hub.evaluation.providers.resolve",
    "search": "upskill_hub.registry.search",
    "skill_evidence": "upskill_hub.publish.readers",
    "update": "upskill_hub.publish.readers",
    "validate_skill": "upskill_hub.skill",
    "verify": "upskill_hub.registry.project.state",
    # the errors a caller may catch
    "EvalCancelledError": "upskill_hub.errors",
    "InvalidSkillError": "upskill_hub.errors",
    "InvalidTestFileError": "upskill_hub.errors",
    "LocalModificationsError": "upskill_hub.errors",
    "LockError": "upskill_hub.errors",
    "ProviderError": "upskill_hub.errors",
    "RepoNotFoundError": "upskill_hub.errors",
    "RevisionNotFoundError": "upskill_hub.errors",
    "SignatureError": "upskill_hub.errors",
    "SkillNotFoundError": "upskill_hub.errors",
    "UndeterminedError": "upskill_hub.errors",
    "UnknownModelError": "upskill_hub.errors",
    "UnsafeSkillError": "upskill_hub.errors",
    "VerificationUndeterminedError": "upskill_hub.errors",
    "TeacherError": "upskill_hub.generate.teacher",
    "InconsistentRunError": "upskill_hub.publish.run_consistency",
    "ScanRefusedError": "upskill_hub.registry.fetch",
    "SeveralSkillsError": "upskill_hub.registry.fetch",
    "ValidationRefusedError": "upskill_hub.registry.fetch",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
