"""Hosted or local, and the limits that go with each.

Hosted mode (the app runs on a Hugging Face Space: ``SPACE_ID`` is set) serves strangers: base
URLs may not point inside the Space's network, the Space's own API keys are never used on a
visitor's behalf, runs and concurrent evaluations are capped, and the embedded model is not
offered. Local mode (``python space/app.py``) trusts its user: local servers are allowed and the
usual environment keys apply.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from upskill_hub.evaluation.pricing import Price

#: Where a local app writes run folders unless ``UPSKILL_HUB_SPACE_RUNS`` says otherwise.
RUNS_ENV = "UPSKILL_HUB_SPACE_RUNS"


def is_hosted(env: Mapping[str, str] | None = None) -> bool:
    """True when running on a Hugging Face Space (``SPACE_ID`` is set and non-empty)."""
    env = os.environ if env is None else env
    return bool(env.get("SPACE_ID", "").strip())


@dataclass(frozen=True)
class SpaceSettings:
    """Mode and limits of one app instance."""

    hosted: bool
    output_root: Path
    max_runs: int
    max_samples: int
    concurrency: int
    retries: int
    request_timeout_s: float
    max_tokens: int
    deadline_s: float
    queue_concurrency: int
    per_visitor: int
    space_id: str | None = None
    #: Prices the app's owner gives (canonical model id -> price), over the built-in table: a
    #: run of a priced model gets cost figures and frontier.png.
    prices: Mapping[str, Price] = field(default_factory=dict)

    @classmethod
    def for_mode(
        cls, hosted: bool, *, output_root: Path | None = None, space_id: str | None = None
    ) -> SpaceSettings:
        """The default limits of ``hosted`` or local mode."""
        if output_root is None:
            output_root = Path(tempfile.gettempdir()) / "upskill-hub-space-runs"
        if hosted:
            return cls(
                hosted=True,
                output_root=output_root,
                max_runs=3,
                max_samples=120,
                concurrency=6,
                retries=2,
                request_timeout_s=60.0,
                max_tokens=1024,
                deadline_s=600.0,
                queue_concurrency=4,
                per_visitor=1,
                space_id=space_id,
            )
        return cls(
            hosted=False,
            output_root=output_root,
            max_runs=10,
            max_samples=2000,
            concurrency=4,
            retries=3,
            request_timeout_s=120.0,
            max_tokens=1024,
            deadline_s=3600.0,
            queue_concurrency=2,
            per_visitor=2,
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SpaceSettings:
        """Settings for the current process: hosted iff ``SPACE_ID``; runs under
        ``$UPSKILL_HUB_SPACE_RUNS`` (local default ``./runs``; hosted: a temp folder)."""
        env = os.environ if env is None else env
        hosted = is_hosted(env)
        root = env.get(RUNS_ENV)
        if root:
            output_root: Path | None = Path(root)
        else:
            output_root = None if hosted else Path("runs")
        return cls.for_mode(hosted, output_root=output_root, space_id=env.get("SPACE_ID") or None)


def oauth_available(hosted: bool) -> bool:
    """Whether "Sign in with Hugging Face" can work here: Gradio's OAuth needs ``itsdangerous``
    (sessions) everywhere and ``authlib`` on a Space (the real login; locally it is mocked)."""
    import importlib.util

    needed = ("itsdangerous", "authlib") if hosted else ("itsdangerous",)
    return all(importlib.util.find_spec(name) is not None for name in needed)


def local_token_available() -> bool:
    """Whether this machine has a Hugging Face token (``HF_TOKEN`` or a saved ``hf auth login``)."""
    import huggingface_hub

    return huggingface_hub.get_token() is not None


def sign_in_available(settings: SpaceSettings) -> bool:
    """Whether to show "Sign in with Hugging Face" (and so attach Gradio's OAuth routes).

    On a Space the sign-in is real. Locally Gradio mocks it with the machine's own login and
    refuses to start without one, so it is offered only when a token is available here; without
    one the local app starts plain (no login button, no OAuth routes).
    """
    if not oauth_available(settings.hosted):
        return False
    return settings.hosted or local_token_available()
