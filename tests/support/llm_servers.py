"""Fake-but-real LLM API servers for tests: real HTTP on 127.0.0.1, scripted replies.

Two servers, each a context manager that starts uvicorn (serving a Starlette app) in a
background thread on a free port and stops it on exit:

- :func:`openai_server` speaks the OpenAI chat completions API: ``POST /v1/chat/completions``
  and ``GET /v1/models``. Point the ``openai`` SDK (or our ``openai:`` / ``hf:`` / bare-name
  providers) at ``srv.base_url`` (``http://127.0.0.1:PORT/v1``).
- :func:`anthropic_server` speaks the Anthropic Messages API: ``POST /v1/messages``. Point the
  ``anthropic`` SDK (or our ``anthropic:`` provider, or ``ANTHROPIC_BASE_URL``) at
  ``srv.base_url`` (``http://127.0.0.1:PORT``).

Usage::

    from tests.support.llm_servers import openai_server, skill_aware

    responder = skill_aware("## My skill", with_skill="ANSWER: 42", without="no idea")
    with openai_server(responder, latency=0.0) as srv:
        provider = resolve_model("fake-model", base_url=srv.base_url, api_key="any")
        ...
        srv.inject("429", retry_after=1)  # the next request gets a 429 with Retry-After: 1
        assert not any("## My skill" in r.text for r in srv.requests if ...)

The **responder** is ``Callable[[dict], str]``: it gets the decoded request JSON and returns the
reply text; helpers :func:`system_prompt`, :func:`last_user_message`, :func:`constant`,
:func:`echo` and :func:`skill_aware` cover the usual scripts. A responder may instead return a
:class:`ToolCallReply` (:func:`tool_call`): the server answers with OpenAI ``tool_calls`` or
Anthropic ``tool_use`` blocks, and :func:`tool_results` reads back the results the client sent;
:func:`skill_agent` scripts an agent that loads a listed skill, reads files, then answers.
Usage numbers are whitespace token counts (input: every message and the system prompt;
output: the reply), and a reply longer than ``max_tokens`` words is cut, with finish reason
``length`` / ``max_tokens``.

Every request to a completion endpoint is recorded in ``srv.requests`` (a snapshot list of
:class:`RecordedRequest`: path, headers, JSON body, the fault it got, the usage answered),
faulted ones included.

**Prompt caching**: ``prompt_cache=PromptCache(min_tokens=...)``
(:mod:`tests.support.prompt_cache`) makes the server keep a prompt cache and report it as the
API does: Anthropic ``cache_read_input_tokens`` / ``cache_creation_input_tokens`` for prefixes
marked with ``cache_control`` (``input_tokens`` then being the uncached rest), OpenAI
``prompt_tokens_details.cached_tokens`` for any prefix seen before. Input counts then include
the tool definitions.

**Faults** queue up with ``srv.inject(kind, ...)`` and are consumed in order, one per
completion request (``GET /v1/models`` never consumes one):

- ``"429"``: rate limited, with ``Retry-After`` (``retry_after=`` seconds or an HTTP date
  string; ``None`` sends no header);
- any other status code as a string (``"500"``, ``"503"``, ``"529"``, ``"400"``, ``"401"``,
  ``"404"``...): that status with the API's error JSON;
- ``"hang"``: sleep ``seconds`` (default 30) before answering normally, longer than a client's
  timeout; the sleep ends early when the server stops;
- ``"malformed"``: status 200, ``application/json``, a body that is not JSON;
- ``"drop"``: close the connection without sending any response;
- a redirect status (``"301"``, ``"302"``, ``"303"``, ``"307"``, ``"308"``) with
  ``location=URL``: that status with ``Location: URL`` and an empty body, e.g.
  ``srv.inject("307", location=other.base_url + "/chat/completions")`` (a redirect status
  without ``location`` is a ``ValueError``). Clients must not follow it: check that the other
  server's ``requests`` stay empty.

``latency=`` adds a fixed ``asyncio.sleep`` before every answer (for benchmarks of the runner);
``srv.answered_at`` lists when each completion response was fully sent (``time.time()``), so a
benchmark can tell how long a client took after its last response.
``api_key=`` makes the server demand that key (401 otherwise, echoing the key it got, as real
APIs partly do: use it to check our error messages redact keys). ``srv.clear()`` forgets
requests and pending faults. Servers are thread-safe: tests and servers run in different
threads, and the runner may call one server concurrently.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from tests.support.prompt_cache import PromptCache
from tests.support.responders import (  # re-exported, see __all__
    ErrorReply,
    FinishReply,
    Responder,
    ToolCallReply,
    _count_tokens,
    _text_of,
    constant,
    echo,
    last_user_message,
    skill_agent,
    skill_aware,
    system_prompt,
    tool_call,
    tool_results,
)

ApiKind = Literal["openai", "anthropic"]

__all__ = [
    "ErrorReply",
    "FakeLLMServer",
    "Fault",
    "FinishReply",
    "PromptCache",
    "RecordedRequest",
    "Responder",
    "ToolCallReply",
    "anthropic_server",
    "constant",
    "echo",
    "last_user_message",
    "openai_server",
    "skill_agent",
    "skill_aware",
    "system_prompt",
    "tool_call",
    "tool_results",
]

_TRANSPORT_KEY = "fake_llm.transport"
_HANG_DEFAULT_S = 30.0


# --------------------------------------------------------------------------- records, faults


@dataclass(frozen=True)
class Fault:
    """One injected failure, consumed by the next completion request."""

    kind: str
    retry_after: float | str | None = None
    seconds: float = _HANG_DEFAULT_S
    location: str | None = None


@dataclass(frozen=True)
class RecordedRequest:
    """One request a server received."""

    method: str
    path: str
    headers: dict[str, str]
    json: dict[str, Any] | None
    fault: str | None = None
    received_at: float = field(default_factory=time.time)
    #: The ``usage`` object of the answer (empty until answered, and for errors).
    usage: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """Every message text and the system prompt, joined: for "contains" assertions."""
        if not self.json:
            return ""
        texts = [system_prompt(self.json)]
        texts += [
            _text_of(m.get("content", ""))
            for m in self.json.get("messages", [])
            if m.get("role") not in ("system", "developer")
        ]
        return "\n".join(texts)

    @property
    def system(self) -> str:
        return system_prompt(self.json or {})

    @property
    def api_key(self) -> str:
        """The key sent, from ``x-api-key`` or ``Authorization: Bearer``."""
        bearer = self.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return self.headers.get("x-api-key", "") or bearer


# --------------------------------------------------------------------------- API dialects


def _openai_error(status: int, message: str) -> dict[str, Any]:
    kinds = {400: "invalid_request_error", 401: "invalid_request_error", 404: "not_found_error"}
    code = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
    return {
        "error": {
            "message": message,
            "type": "server_error" if status >= 500 else kinds.get(status, "requests"),
            "param": None,
            "code": code.get(status),
        }
    }


def _anthropic_error(status: int, message: str) -> dict[str, Any]:
    kinds = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        413: "request_too_large",
        429: "rate_limit_error",
        529: "overloaded_error",
    }
    kind = kinds.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _openai_reply(request: dict[str, Any], text: str, seq: int) -> dict[str, Any]:
    words = text.split()
    limit = request.get("max_completion_tokens") or request.get("max_tokens")
    finish = "stop"
    if isinstance(limit, int) and len(words) > limit:
        text, finish = " ".join(words[:limit]), "length"
    prompt = sum(_count_tokens(_text_of(m.get("content", ""))) for m in request["messages"])
    completion = _count_tokens(text)
    return {
        "id": f"chatcmpl-fake{seq}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", ""),
        "system_fingerprint": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _openai_tool_reply(request: dict[str, Any], reply: ToolCallReply, seq: int) -> dict[str, Any]:
    body = _openai_reply(request, reply.text, seq)
    message = body["choices"][0]["message"]
    message["content"] = reply.text or None
    message["tool_calls"] = [
        {
            "id": f"call_{seq}_{i}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for i, (name, args) in enumerate(reply.calls)
    ]
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


def _anthropic_tool_reply(
    request: dict[str, Any], reply: ToolCallReply, seq: int
) -> dict[str, Any]:
    body = _anthropic_reply(request, reply.text, seq)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    blocks += [
        {"type": "tool_use", "id": f"toolu_{seq}_{i}", "name": name, "input": args}
        for i, (name, args) in enumerate(reply.calls)
    ]
    body["content"] = blocks
    body["stop_reason"] = "tool_use"
    return body


def _anthropic_reply(request: dict[str, Any], text: str, seq: int) -> dict[str, Any]:
    words = text.split()
    limit = request.get("max_tokens")
    stop = "end_turn"
    if isinstance(limit, int) and len(words) > limit:
        text, stop = " ".join(words[:limit]), "max_tokens"
    prompt = _count_tokens(_text_of(request.get("system", "")))
    prompt += sum(_count_tokens(_text_of(m.get("content", ""))) for m in request["messages"])
    return {
        "id": f"msg_fake{seq}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", ""),
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": _count_tokens(text)},
    }


def _validate(kind: ApiKind, body: Any) -> str | None:
    """Why a request body is invalid for the API, or None."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: must be a non-empty list"
    if body.get("stream"):
        return "stream: not supported by the fake server"
    roles = (
        {"system", "developer", "user", "assistant", "tool"}
        if kind == "openai"
        else {"user", "assistant"}
    )
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in roles:
            return f"messages.{i}.role: must be one of {sorted(roles)}"
    if kind == "anthropic" and not isinstance(body.get("max_tokens"), int):
        return "max_tokens: field required"
    return None


# --------------------------------------------------------------------------- the server


class FakeLLMServer:
    """One fake API server; use :func:`openai_server` / :func:`anthropic_server` to start one."""

    def __init__(
        self,
        kind: ApiKind,
        responder: Responder,
        *,
        latency: float = 0.0,
        api_key: str | None = None,
        models: tuple[str, ...] = ("fake-model",),
        prompt_cache: PromptCache | None = None,
    ) -> None:
        self.kind = kind
        self.prompt_cache = prompt_cache
        self.responder = responder
        self.latency = latency
        self.api_key = api_key
        self.models = models
        self._lock = threading.Lock()
        self._faults: collections.deque[Fault] = collections.deque()
        self._requests: list[RecordedRequest] = []
        self._answered: list[float] = []
        self._seq = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: asyncio.Event | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ---- public API

    @property
    def url(self) -> str:
        """Root URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The matching SDK's ``base_url``: ``.../v1`` for OpenAI, the root for Anthropic."""
        return f"{self.url}/v1" if self.kind == "openai" else self.url

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every completion request received so far, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def answered_at(self) -> list[float]:
        """When each completion response was fully sent (``time.time()``), in order."""
        with self._lock:
            return list(self._answered)

    def inject(
        self,
        kind: str,
        *,
        retry_after: float | str | None = None,
        seconds: float = _HANG_DEFAULT_S,
        location: str | None = None,
    ) -> None:
        """Queue a fault for the next completion request (see the module docstring)."""
        if kind not in ("hang", "malformed", "drop") and not (kind.isdigit() and len(kind) == 3):
            raise ValueError(f"unknown fault {kind!r}")
        if kind.startswith("3") and not location:
            raise ValueError(f"fault {kind!r} (a redirect) needs location=URL")
        fault = Fault(kind, retry_after=retry_after, seconds=seconds, location=location)
        with self._lock:
            self._faults.append(fault)

    def clear(self) -> None:
        """Forget recorded requests and pending faults."""
        with self._lock:
            self._requests.clear()
            self._answered.clear()
            self._faults.clear()

    @property
    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    # ---- lifecycle

    def start(self) -> FakeLLMServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit this: without it, keep-alive responses (headers, then
        # body) wait ~40 ms on Nagle + delayed ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self._asgi_app(),
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._serve, args=(sock,), name=f"fake-{self.kind}-{self.port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"fake {self.kind} server did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is None or self._thread is None:
            return
        if self._loop is not None and self._closing is not None:
            with contextlib.suppress(RuntimeError):  # loop already closed
                self._loop.call_soon_threadsafe(self._closing.set)
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._server = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self, sock: socket.socket) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._closing = asyncio.Event()
        try:
            assert self._server is not None
            loop.run_until_complete(self._server.serve(sockets=[sock]))
        finally:
            loop.close()
            sock.close()

    # ---- request handling

    def _asgi_app(self) -> Callable[[Scope, Receive, Send], Any]:
        if self.kind == "openai":
            routes = [
                Route("/v1/chat/completions", self._complete, methods=["POST"]),
                Route("/v1/models", self._list_models, methods=["GET"]),
            ]
        else:
            routes = [Route("/v1/messages", self._complete, methods=["POST"])]
        app = Starlette(routes=routes)

        async def with_transport(scope: Scope, receive: Receive, send: Send) -> None:
            # uvicorn's ``send`` is a bound method of the connection's cycle, which holds the
            # transport: the "drop" fault closes it to vanish without a response.
            cycle = getattr(send, "__self__", None)
            scope[_TRANSPORT_KEY] = getattr(cycle, "transport", None)
            await app(scope, receive, send)
            if scope.get("type") == "http" and scope.get("method") == "POST":
                with self._lock:
                    self._answered.append(time.time())

        return with_transport

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        body = (
            _openai_error(status, message)
            if self.kind == "openai"
            else _anthropic_error(status, message)
        )
        return JSONResponse(body, status_code=status, headers=headers)

    def _given_key(self, request: Request) -> str:
        """The key a request carries (Anthropic SDKs send ``x-api-key`` or a bearer token)."""
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if self.kind == "anthropic":
            return request.headers.get("x-api-key", "") or bearer
        return bearer

    async def _list_models(self, request: Request) -> Response:
        if self.api_key is not None and self._given_key(request) != self.api_key:
            return self._error(401, f"Incorrect API key provided: {self._given_key(request)}")
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models]
        return JSONResponse({"object": "list", "data": data})

    async def _complete(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
            recorded = RecordedRequest(
                method=request.method,
                path=request.url.path,
                headers=dict(request.headers),
                json=body if isinstance(body, dict) else None,
                fault=fault.kind if fault else None,
            )
            self._requests.append(recorded)
            seq = next(self._seq)
        if fault is not None:
            faulted = await self._apply_fault(fault, request)
            if faulted is not None:
                return faulted
        if self.api_key is not None and self._given_key(request) != self.api_key:
            return self._error(401, f"Incorrect API key provided: {self._given_key(request)}")
        problem = _validate(self.kind, body)
        if problem is not None:
            return self._error(400, problem)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        reply = self.responder(body)
        if isinstance(reply, ErrorReply):
            error = self._error(reply.status, reply.message)
            if reply.code is not None:
                data = json.loads(bytes(error.body))
                data["error"]["code" if self.kind == "openai" else "type"] = reply.code
                error = JSONResponse(data, status_code=reply.status)
            return error
        if isinstance(reply, FinishReply):
            if self.kind == "openai":
                answer = _openai_reply(body, reply.text, seq)
                answer["choices"][0]["finish_reason"] = reply.finish
            else:
                answer = _anthropic_reply(body, reply.text, seq)
                answer["stop_reason"] = reply.finish
            return JSONResponse(self._with_usage(recorded, body, answer))
        if self.kind == "openai":
            if isinstance(reply, ToolCallReply):
                answer = _openai_tool_reply(body, reply, seq)
            else:
                answer = _openai_reply(body, reply, seq)
            return JSONResponse(self._with_usage(recorded, body, answer))
        answer = (
            _anthropic_tool_reply(body, reply, seq)
            if isinstance(reply, ToolCallReply)
            else _anthropic_reply(body, reply, seq)
        )
        return JSONResponse(
            self._with_usage(recorded, body, answer), headers={"request-id": f"req_fake{seq}"}
        )

    def _with_usage(
        self, recorded: RecordedRequest, body: dict[str, Any], answer: dict[str, Any]
    ) -> dict[str, Any]:
        """``answer`` with the prompt cache's counts (if the server keeps one), its usage
        recorded on ``recorded``."""
        usage = answer["usage"]
        if self.prompt_cache is not None and self.kind == "anthropic":
            usage.update(self.prompt_cache.anthropic(body))
        elif self.prompt_cache is not None:
            prompt, cached = self.prompt_cache.openai(body)
            usage["prompt_tokens"] = prompt
            usage["total_tokens"] = prompt + usage["completion_tokens"]
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        with self._lock:
            recorded.usage.update(usage)
        return answer

    async def _apply_fault(self, fault: Fault, request: Request) -> Response | None:
        """Answer a faulted request; None means "then answer normally" (after a hang)."""
        if fault.kind == "hang":
            assert self._closing is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), timeout=fault.seconds)
            return None
        if fault.kind == "malformed":
            return Response(b'{"id": "broken", "choices": [', media_type="application/json")
        if fault.kind == "drop":
            transport = request.scope.get(_TRANSPORT_KEY)
            if transport is None:  # not uvicorn's cycle: fall back to a half-sent response
                raise RuntimeError("drop")
            transport.close()
            with contextlib.suppress(TimeoutError):  # wait for uvicorn to see the disconnect
                await asyncio.wait_for(request.receive(), timeout=5)
            return Response(b"")
        status = int(fault.kind)
        if 300 <= status < 400:
            assert fault.location is not None
            return Response(b"", status_code=status, headers={"location": fault.location})
        headers: dict[str, str] = {}
        if fault.retry_after is not None:
            value = fault.retry_after
            headers["retry-after"] = value if isinstance(value, str) else format(value, "g")
        messages = {
            429: "Rate limit reached for requests",
            500: "The server had an error while processing your request.",
            503: "The service is temporarily unavailable.",
            529: "Overloaded",
            400: "Invalid request",
            401: "Invalid authentication",
            403: "Permission denied",
            404: "The model does not exist or you do not have access to it.",
        }
        return self._error(status, messages.get(status, f"error {status}"), headers)


@contextlib.contextmanager
def openai_server(
    responder: Responder = echo,
    *,
    latency: float = 0.0,
    api_key: str | None = None,
    models: tuple[str, ...] = ("fake-model",),
    prompt_cache: PromptCache | None = None,
) -> Iterator[FakeLLMServer]:
    """Run a fake OpenAI chat completions server for the duration of the ``with`` block."""
    server = FakeLLMServer(
        "openai",
        responder,
        latency=latency,
        api_key=api_key,
        models=models,
        prompt_cache=prompt_cache,
    )
    with server:
        yield server


@contextlib.contextmanager
def anthropic_server(
    responder: Responder = echo,
    *,
    latency: float = 0.0,
    api_key: str | None = None,
    prompt_cache: PromptCache | None = None,
) -> Iterator[FakeLLMServer]:
    """Run a fake Anthropic Messages API server for the duration of the ``with`` block."""
    server = FakeLLMServer(
        "anthropic", responder, latency=latency, api_key=api_key, prompt_cache=prompt_cache
    )
    with server:
        yield server
