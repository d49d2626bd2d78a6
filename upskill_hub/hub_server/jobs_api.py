"""The Jobs routes of the offline stand-in: what huggingface_hub's job functions call.

``/api/jobs/hardware`` (``list_jobs_hardware``), ``/api/jobs/{ns}`` (``run_job`` POST,
``list_jobs`` GET, Link-less: one page), ``/api/jobs/{ns}/{id}`` (``inspect_job``),
``.../logs`` (``fetch_job_logs``: server-sent events ``data: {"timestamp", "data"}``, replayed
from the start, then followed until the Job ends), ``.../cancel``; ``/api/scheduled-jobs/{ns}``
(create, list), ``.../{id}`` (inspect, delete), ``.../suspend``, ``.../resume``, ``.../run``.
The engine behind them is :mod:`.job_processes` (local subprocesses; see its docstring for what
this stand-in is not). The routes answer only when the server runs with ``--jobs`` (which needs
``--token``); every route needs that token (checked before any body is read, by the app), and
acts only in the token holder's namespaces (the local user and its org): another namespace's
Jobs cannot be started, listed, read or cancelled.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse

from upskill_hub.hub_server.api_errors import HubApiError
from upskill_hub.hub_server.call import Call, Handler
from upskill_hub.hub_server.job_processes import JobsEngine
from upskill_hub.hub_server.repo_api import LOCAL_ORG
from upskill_hub.hub_server.storage import LOCAL_USER

#: The namespaces the token holder owns: the only ones its Jobs may live in.
OWN_NAMESPACES = (LOCAL_USER, LOCAL_ORG)


def _engine(call: Call) -> JobsEngine:
    engine: JobsEngine = call.request.app.state.jobs
    return engine


def _namespace(call: Call) -> str:
    """The addressed namespace, after the checks every Jobs route makes: a token (as on the
    Hub, reads included; the app has also refused a browser form's content type before reading
    the body, for every handler in :data:`HANDLERS`), and a namespace of the token holder's."""
    call.require_write()
    namespace = call.segments[0]
    if namespace not in OWN_NAMESPACES:
        raise HubApiError(
            403,
            f"Namespace {namespace!r} is not yours: this server's token holder owns "
            f"{' and '.join(OWN_NAMESPACES)}",
        )
    return namespace


def _body(call: Call) -> dict[str, Any]:
    try:
        data = json.loads(call.body or b"{}")
    except ValueError:
        raise HubApiError(400, "Request body is not JSON") from None
    if not isinstance(data, dict):
        raise HubApiError(400, "Request body must be a JSON object")
    return data


def hardware(call: Call) -> Response:
    from upskill_hub.jobs_flavors import FLAVORS

    call.require_write()
    rows = []
    for flavor in FLAVORS:
        per_minute = flavor.usd_per_hour / 60
        rows.append(
            {
                "name": flavor.name,
                "prettyName": flavor.pretty_name,
                "cpu": flavor.cpu,
                "ram": flavor.ram,
                "ephemeralStorage": "50 GB",
                "accelerator": (
                    {
                        "type": "gpu",
                        "model": flavor.gpu,
                        "quantity": str(flavor.gpu_count),
                        "vram": flavor.vram,
                        "manufacturer": "Nvidia",
                    }
                    if flavor.gpu
                    else None
                ),
                "unitCostMicroUSD": round(per_minute * 1_000_000),
                "unitCostUSD": round(per_minute, 6),
                "unitLabel": "minute",
            }
        )
    return JSONResponse(rows)


def jobs(call: Call) -> Response:
    namespace = _namespace(call)
    if call.method == "POST":
        info = _engine(call).run(namespace, _body(call), call.base_url)
        return JSONResponse(info)
    params = call.request.query_params
    found = _engine(call).list_jobs(namespace, params.getlist("stage"), params.getlist("label"))
    return JSONResponse(found)


def job(call: Call) -> Response:
    namespace = _namespace(call)
    return JSONResponse(_engine(call).info(namespace, call.segments[1]))


def cancel(call: Call) -> Response:
    namespace = _namespace(call)
    _engine(call).cancel(namespace, call.segments[1])
    return JSONResponse({})


def logs(call: Call) -> Response:
    namespace = _namespace(call)
    engine = _engine(call)
    job_id = call.segments[1]
    path = engine.log_path(namespace, job_id)
    tail = call.query("tail")
    skip = 0
    if tail.isdigit():
        with path.open(encoding="utf-8") as handle:
            skip = max(0, sum(1 for _ in handle) - int(tail))
    return StreamingResponse(
        _events(engine, job_id, path, skip),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache"},
    )


def _events(engine: JobsEngine, job_id: str, path: Path, skip: int) -> Iterator[str]:
    """Log events as SSE: every line so far, then new ones until the Job has ended."""
    position = 0
    seen = 0
    quiet_since = time.monotonic()
    while True:
        alive = engine.running(job_id)
        with path.open("rb") as handle:
            handle.seek(position)
            chunk = handle.read()
        consumed = chunk[: chunk.rfind(b"\n") + 1]
        position += len(consumed)
        rest = chunk[len(consumed) :]
        for line in consumed.decode("utf-8", "replace").splitlines():
            seen += 1
            if seen > skip:
                yield f"data: {line}\n\n"
                quiet_since = time.monotonic()
        if not alive and not rest:
            return
        if time.monotonic() - quiet_since > 15:
            yield ": keep-alive\n\n"
            quiet_since = time.monotonic()
        time.sleep(0.1)


def scheduled_jobs(call: Call) -> Response:
    namespace = _namespace(call)
    engine = _engine(call)
    if call.method == "POST":
        return JSONResponse(engine.create_scheduled(namespace, _body(call)))
    return JSONResponse(engine.list_scheduled(namespace, call.query("label")))


def scheduled_job(call: Call) -> Response:
    namespace = _namespace(call)
    engine = _engine(call)
    if call.method == "DELETE":
        engine.delete_scheduled(namespace, call.segments[1])
        return JSONResponse({})
    return JSONResponse(engine.scheduled(namespace, call.segments[1]))


def scheduled_action(call: Call) -> Response:
    namespace = _namespace(call)
    engine = _engine(call)
    scheduled_id, action = call.segments[1], call.segments[2]
    if action == "run":
        return JSONResponse(engine.trigger_scheduled(namespace, scheduled_id, call.base_url))
    engine.suspend_scheduled(namespace, scheduled_id, action == "suspend")
    return JSONResponse({})


#: Every Jobs handler: the app checks the token before reading the body of any of them.
HANDLERS: frozenset[Handler] = frozenset(
    {
        hardware,
        jobs,
        job,
        cancel,
        logs,
        scheduled_jobs,
        scheduled_job,
        scheduled_action,
    }
)


def route(method: str, segs: list[str]) -> tuple[Handler, list[str]]:
    """The handler of ``/api/<segs>`` for a path under ``jobs`` or ``scheduled-jobs``."""
    verb = "GET" if method == "HEAD" else method
    head, rest = segs[0], segs[1:]
    if head == "jobs":
        if rest == ["hardware"] and verb == "GET":
            return hardware, rest
        table: dict[tuple[int, str, str], Handler] = {
            (1, "", "GET"): jobs,
            (1, "", "POST"): jobs,
            (2, "", "GET"): job,
            (3, "logs", "GET"): logs,
            (3, "cancel", "POST"): cancel,
        }
    else:
        table = {
            (1, "", "GET"): scheduled_jobs,
            (1, "", "POST"): scheduled_jobs,
            (2, "", "GET"): scheduled_job,
            (2, "", "DELETE"): scheduled_job,
            (3, "suspend", "POST"): scheduled_action,
            (3, "resume", "POST"): scheduled_action,
            (3, "run", "POST"): scheduled_action,
        }
    action = rest[2] if len(rest) == 3 else ""
    handler = table.get((len(rest), action, verb))
    if handler is None:
        raise HubApiError(404, f"Not found: {method} /api/{'/'.join(segs)}")
    return handler, rest
