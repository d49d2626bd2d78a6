"""A local Hub-compatible HTTP server for offline work, CI and tests.

``huggingface_hub`` and ``datasets`` talk to it over real HTTP (set ``HF_ENDPOINT`` to its URL
and ``HF_HUB_DISABLE_XET=1`` before importing them). It is NOT a Hub replacement: one process,
one data directory, a fixed local user, no web pages, discussions, Spaces runtime or Xet. Its
Jobs API (``run_job`` and friends) runs each Job's command as a local subprocess, not in a
container (:mod:`.job_processes`).

Public API: :func:`create_app`, :func:`serve`, :func:`running_server`. Heavy imports (starlette,
uvicorn) happen on first use of these names, so importing this package is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from upskill_hub.hub_server.app import create_app
    from upskill_hub.hub_server.launch import RunningServer, running_server, serve

__all__ = ["RunningServer", "create_app", "running_server", "serve"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from upskill_hub.hub_server.app import create_app

        return create_app
    if name in ("serve", "running_server", "RunningServer"):
        from upskill_hub.hub_server import launch as runner

        return getattr(runner, name)
    raise AttributeError(name)
