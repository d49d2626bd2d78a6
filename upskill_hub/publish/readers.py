"""The readers of published lift, with figures checked against their samples by default.

The registry shows published lift but may not import this package, so its readers take a
:class:`~upskill_hub.registry.evidence.verification.Verifier` and show every figure as
``reported`` without one. This module gives them the real check
(:func:`upskill_hub.publish.verify.verify_published`): :data:`published_verifier`, and the
registry's reader functions with ``verifier`` defaulting to it. The front door
(``upskill_hub.info``, ``pull``, ``update``, ``outdated``, ``skill_evidence``), the CLI and the
Space use these, so a library user sees what the CLI shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from upskill_hub.hub.client import Hub
from upskill_hub.registry.evidence.read import skill_evidence as _skill_evidence
from upskill_hub.registry.project.pull import pull as _pull
from upskill_hub.registry.project.state import outdated as _outdated
from upskill_hub.registry.project.update import update as _update
from upskill_hub.registry.search import info as _info

if TYPE_CHECKING:
    from upskill_hub.publish.verify import RunVerification

P = ParamSpec("P")
R = TypeVar("R")


def published_verifier(hub: Hub, dataset: str, split: str) -> RunVerification:
    """Check a published run the way a reader may: recompute and re-grade offline, never
    compile (published outputs are untrusted code)."""
    from upskill_hub.publish.verify import verify_published

    return verify_published(hub, dataset, split, compile=False)


def with_verifier(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` with its ``verifier`` parameter defaulting to :func:`published_verifier`."""

    @functools.wraps(func)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        kwargs.setdefault("verifier", published_verifier)  # verifier=None: no check
        return func(*args, **kwargs)

    return checked


info = with_verifier(_info)
pull = with_verifier(_pull)
update = with_verifier(_update)
outdated = with_verifier(_outdated)
skill_evidence = with_verifier(_skill_evidence)
