"""Serve an open model with vLLM's OpenAI-compatible server (inside a GPU Job, or locally).

``--model vllm:ORG/MODEL`` evaluates ORG/MODEL served by ``vllm serve`` on 127.0.0.1 (the
``vllm`` kind of :mod:`upskill_hub.evaluation.providers.resolve`, which sends its requests
there): the shard Job starts it on its GPU before the runner's first request; without
``--executor jobs`` the same happens on this machine when vLLM is installed, else one error
line says so. The run records ``vllm:ORG/MODEL``, so its reproduce command serves it again.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from typing import TYPE_CHECKING

from upskill_hub.errors import Param, ProviderError, UsageError
from upskill_hub.evaluation.providers.resolve import VLLM_PORT, model_kind, parse_model, with_kind

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig

__all__ = ["VLLM_PORT", "check_installed", "local_vllm", "start_vllm", "vllm_command"]

#: Seconds to wait for the server to load the model (downloads included).
READY_TIMEOUT_S = 1800.0


def vllm_command(model: str, port: int = VLLM_PORT) -> list[str]:
    """The command that serves ``model`` (ORG/MODEL) with vLLM on 127.0.0.1:``port``, reporting
    the prompt tokens its prefix cache served (``usage.prompt_tokens_details.cached_tokens``,
    recorded as each sample's ``cached_input_tokens``)."""
    argv = ["vllm", "serve", model, "--host", "127.0.0.1", "--port", str(port)]
    return [*argv, "--enable-prompt-tokens-details"]


def check_installed(spec: str) -> str:
    """The ``vllm`` executable, or a one-line error naming ``spec`` and what to do."""
    found = shutil.which("vllm")
    if found is None:
        raise UsageError(
            Param("models"),
            f" {spec}: vLLM is not installed here (pip install vllm, on a machine with a GPU), "
            "or run it on Hugging Face Jobs: ",
            Param("executor"),
            " jobs ",
            Param("flavor"),
            " l4x1",
        )
    return found


def start_vllm(
    model: str, port: int = VLLM_PORT, timeout_s: float = READY_TIMEOUT_S
) -> tuple[subprocess.Popen[bytes], str]:
    """Start vLLM for ``model`` (``vllm:ORG/MODEL``, or ORG/MODEL); return the process and its
    base URL once it answers."""
    import httpx

    if model_kind(model) == "vllm":
        model = parse_model(model).model
    check_installed(with_kind("vllm", model))
    process = subprocess.Popen(vllm_command(model, port))
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ProviderError(f"vllm:{model}: vLLM exited with code {process.returncode}")
        try:
            if httpx.get(f"{base_url}/models", timeout=5).status_code == 200:
                return process, base_url
        except httpx.HTTPError:
            pass
        time.sleep(2)
    process.terminate()
    raise ProviderError(f"vllm:{model}: vLLM did not answer within {timeout_s:.0f}s")


def local_vllm(config: EvalConfig) -> EvalConfig:
    """``config`` once its one ``vllm:ORG/MODEL`` is served by a local vLLM (stopped at exit);
    a one-line error when vLLM is not installed or other models come along."""
    import atexit

    specs = [m for m in config.models if model_kind(m) == "vllm"]
    parse_model(specs[0])  # an UnknownModelError before anything else
    check_installed(specs[0])
    if len(config.models) != 1:
        raise UsageError(
            Param("models"),
            " vllm:...: evaluate one vLLM model at a time here (or use ",
            Param("executor"),
            " jobs)",
        )
    process, _ = start_vllm(specs[0])
    atexit.register(process.terminate)
    return config
