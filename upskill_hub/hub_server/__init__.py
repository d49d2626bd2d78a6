"""A local Hub-compatible HTTP server for offline work, CI and tests.

``huggingface_hub`` and ``datasets`` talk to it over real HTTP (set ``HF_ENDPOINT`` to its URL
and ``HF_HUB_DISABLE_XET=1`` before importing them). It is NOT a Hub replacement: one process,
one data directory, a fixed local user, no web pages, discussions, Spaces runtime or Xet. Its
Jobs API (``run_job`` and friends) runs each Job's command as a local subprocess, not in a
container (:mod:`.job_processes`). It shares no code with the client side it serves.

Public API: :func:`create_app`, :func:`serve`, :func:`running_server`. Heavy imports (starlette,
uvicorn) happen on first use of these names, so importing this package is cheap.

- :mod:`.app`: the Starlette app, routing Hub API paths (raw, still encoded) to handlers;
- :mod:`.launch`: running the server, blocking (``serve``) or in a background thread;
- :mod:`.locations`: where the server keeps its data by default;
- :mod:`.call`: the parsed request every handler gets, and its helpers;
- :mod:`.api_errors`: the error the server answers with (status, message, ``X-Error-Code``);
- :mod:`.repo_api`: the JSON ``/api/...`` endpoints (repos, refs, history, commits, cards);
- :mod:`.repo_views`: the JSON shapes of repos, siblings, tree entries, commits and refs;
- :mod:`.file_api`: ``resolve`` downloads and the LFS batch and upload;
- :mod:`.cards`: README.md YAML metadata (repo tags, ``validate-yaml``);
- :mod:`.storage`: on-disk, content-addressed storage;
- :mod:`.hashing`: the object ids of the Hub protocol (git blob sha1, sha256, commit ids);
- :mod:`.jobs_api`: the Jobs routes huggingface_hub's job functions call;
- :mod:`.job_processes`: the Jobs engine, each Job's command a local subprocess.
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
