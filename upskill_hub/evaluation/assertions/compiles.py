"""``compiles``: the answer's CUDA / C++ code block compiles with nvcc. Nothing is ever run.

Spec: ``{"type": "compiles", "language": "cuda" | "cpp" = "cuda", "arch": "sm_90"?,
"flags": [str]?, "timeout": seconds = 60}``.

* Block: for ``cuda`` the first block tagged ``cuda``/``cu``, else the first ``cpp``/``c++``/``cxx``
  block containing ``__global__``; for ``cpp`` the first ``cpp``/``c++``/``cxx``/``cc`` block.
* Command: ``nvcc [-arch=ARCH] FLAGS -c k.cu -o k.o`` (``k.cpp`` for cpp) in a fresh temp dir,
  in a worker thread, killed with its children after ``timeout``.
* ``nvcc`` missing from PATH: ``skipped`` ("skipped: nvcc not found"), never a pass.
* Flags come from test files, which come from the Hub: only an allow-list (optimisation,
  language standard, defines, warnings, relaxed-constexpr/lambda, rdc, register caps, gencode)
  is accepted, so no spec can add ``--run``, ``-o``, ``-ccbin`` or ``-Xcompiler`` options.
* Includes are decided on the preprocessed source, not by reading the code: ``nvcc -E`` runs
  first, and any line marker naming a file outside the temp dir and the CUDA toolkit / system
  include folders refuses the check (macros, ``#/**/include``, line splices and ``%:include``
  all show up there). A reason only quotes diagnostics about the answer's own file, never text
  from elsewhere (compile errors can quote an included file's lines, e.g. credentials).
* Both nvcc steps run under limits: address space, file size, CPU time, wall time, and at most
  64 KiB of captured output (``#include </dev/zero>`` would otherwise ask for gigabytes).
* Results are cached in-process by sha256 of (nvcc path, language, arch, flags, code).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from typing import Any

from upskill_hub.evaluation.assertions.base import Assertion, CheckContext, int_problems
from upskill_hub.evaluation.fenced import CodeBlock, extract_blocks
from upskill_hub.evaluation.types import AssertionResult, AssertionStatus

DEFAULT_TIMEOUT = 60
MAX_ERROR_LINES = 4

_ARCH = re.compile(r"^(sm|compute)_\d{2,3}[af]?$")
_SAFE_FLAGS = [
    re.compile(p)
    for p in (
        r"-O[0-3s]",
        r"-std=c\+\+(11|14|17|20|23)",
        r"-[DU][A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+\-]*)?",
        r"-w|-W[A-Za-z0-9_=\-]+|-Werror=[a-z\-,]+",
        r"-lineinfo|-G|-g",
        r"--?use_fast_math|--?expt-relaxed-constexpr|--?expt-extended-lambda|--?extended-lambda",
        r"-rdc=(true|false)|--relocatable-device-code=(true|false)",
        r"-maxrregcount=\d+|--maxrregcount=\d+",
        r"-gencode=arch=compute_\d{2,3}[af]?,code=(sm|compute)_\d{2,3}[af]?",
        r"--resource-usage|-res-usage|--ptxas-options=-v|-Xptxas=-v",
    )
]
#: Limits for each nvcc step: address space, largest file written, CPU seconds, output kept.
MEMORY_LIMIT = 4 << 30
FILE_SIZE_LIMIT = 256 << 20
OUTPUT_LIMIT = 64 << 10
#: Folders whose headers a compile may read, besides its temp dir and the CUDA toolkit.
SYSTEM_INCLUDE_DIRS = ("/usr/include", "/usr/lib/gcc", "/usr/local/include")
_LINE_MARKER = re.compile(rb'^#(?:line)?\s*\d+\s+"((?:[^"\\]|\\.)*)"', re.MULTILINE)
_PSEUDO_FILES = {"<built-in>", "<command-line>", "<command line>", "<stdin>"}
_LIMITED = (
    "import os, resource, sys\n"
    "mem, fsize, cpu = (int(v) for v in sys.argv[1:4])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (mem, mem))\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "os.execv(sys.argv[4], sys.argv[4:])\n"
)
_CUDA_TAGS, _CPP_TAGS = {"cuda", "cu"}, {"cpp", "c++", "cxx", "cc"}

_cache: dict[str, tuple[AssertionStatus, str]] = {}
_key_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()
_slots = threading.BoundedSemaphore(max(1, (os.cpu_count() or 2)))


def flag_allowed(flag: str) -> bool:
    return any(p.fullmatch(flag) for p in _SAFE_FLAGS)


def pick_block(output: str, language: str) -> CodeBlock | None:
    blocks = extract_blocks(output)
    if language == "cuda":
        for block in blocks:
            if block.lang in _CUDA_TAGS:
                return block
        return next((b for b in blocks if b.lang in _CPP_TAGS and "__global__" in b.code), None)
    return next((b for b in blocks if b.lang in _CPP_TAGS), None)


_NVCC_TEMP = re.compile(r"\S*tmpxft_[0-9a-f]+_[0-9a-f]+-\d+_")


def _error_summary(text: str, workdir: str) -> str:
    lines = [
        " ".join(_NVCC_TEMP.sub("", ln.replace(workdir + os.sep, "")).split())
        for ln in text.splitlines()
        if ln.strip()
    ]
    errors = [ln for ln in lines if "error" in ln.lower()] or lines
    shown = errors[:MAX_ERROR_LINES]
    more = f" (+{len(errors) - len(shown)} more)" if len(errors) > len(shown) else ""
    return " | ".join(shown) + more if shown else "no compiler output"


def _toolkit_dirs(nvcc: str) -> list[str]:
    """The CUDA toolkit folders nvcc reads headers from (its own, CUDA_HOME, /usr/local/cuda*)."""
    found = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))]
    found += [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    found += glob.glob("/usr/local/cuda*") + glob.glob("/opt/cuda*")
    return [os.path.realpath(d) for d in found]


def _inside(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def outside_files(preprocessed: bytes, workdir: str, allowed: list[str]) -> list[str]:
    """Files named by line markers that lie outside ``workdir`` and the ``allowed`` folders."""
    outside: set[str] = set()
    for match in _LINE_MARKER.finditer(preprocessed):
        raw = match.group(1).decode("utf-8", "replace")
        name = re.sub(r"\\(.)", r"\1", raw)
        if name in _PSEUDO_FILES:
            continue
        real = os.path.realpath(os.path.join(workdir, name))
        if not _inside(real, [workdir, *allowed]):
            outside.add(name)
    return sorted(outside)


def _limited_run(
    nvcc: str, args: list[str], workdir: str, timeout: float
) -> tuple[int | None, str]:
    """Run ``nvcc ARGS`` in ``workdir`` under the limits; (exit code or None on timeout, output)."""
    log = os.path.join(workdir, ".nvcc-output")
    limits = [str(MEMORY_LIMIT), str(FILE_SIZE_LIMIT), str(int(timeout) + 1)]
    cmd = [sys.executable, "-S", "-c", _LIMITED, *limits, nvcc, *args]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with open(log, "rb") as fh:
        text = fh.read(OUTPUT_LIMIT).decode("utf-8", "replace")
    return code, text


def _own_lines(text: str, source: str) -> str:
    """Only the diagnostics that point into the answer's own file."""
    return "\n".join(ln for ln in text.splitlines() if ln.startswith((source + ":", source + "(")))


def _run_nvcc(
    nvcc: str, args: list[str], source: str, code: str, timeout: float
) -> tuple[AssertionStatus, str, bool]:
    """Preprocess, check includes, compile; (status, reason, cacheable). Timeouts aren't cached."""
    shown = " ".join(["nvcc", *args])
    with _slots, tempfile.TemporaryDirectory(prefix="upskill-nvcc-") as tmp:
        workdir = os.path.realpath(tmp)
        with open(os.path.join(workdir, source), "w", encoding="utf-8") as fh:
            fh.write(code)
        deadline = time.monotonic() + timeout
        try:
            rc, out = _limited_run(nvcc, [*args, "-E", source, "-o", "k.ii"], workdir, timeout)
        except OSError as exc:
            return "error", f"cannot run nvcc: {exc.strerror}", False
        if rc is None:
            return "error", f"nvcc timed out after {timeout:g} s", False
        if rc != 0:
            own = _own_lines(out, source)
            return "fail", f"`{shown} -E` failed: {_error_summary(own, workdir)}", True
        with open(os.path.join(workdir, "k.ii"), "rb") as fh:
            preprocessed = fh.read()
        allowed = _toolkit_dirs(nvcc) + [os.path.realpath(d) for d in SYSTEM_INCLUDE_DIRS]
        outside = outside_files(preprocessed, workdir, allowed)
        if outside:
            return (
                "fail",
                f"refused: the code includes {len(outside)} file(s) outside the CUDA toolkit "
                "and system include folders",
                True,
            )
        left = max(1.0, deadline - time.monotonic())
        rc, out = _limited_run(nvcc, [*args, "-c", source, "-o", "k.o"], workdir, left)
        if rc is None:
            return "error", f"nvcc timed out after {timeout:g} s", False
        if rc == 0:
            return "pass", f"compiled with `{shown}`", True
        return "fail", f"`{shown}` failed: {_error_summary(out, workdir)}", True


def _compile_cached(
    key: str, nvcc: str, args: list[str], source: str, code: str, timeout: float
) -> tuple[AssertionStatus, str]:
    with _locks_guard:
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:  # identical concurrent requests compile once
        if key in _cache:
            return _cache[key]
        status, reason, cacheable = _run_nvcc(nvcc, args, source, code, timeout)
        if cacheable:
            _cache[key] = (status, reason)
        return status, reason


class Compiles(Assertion):
    kind = "compiles"
    allowed = frozenset({"type", "language", "arch", "flags", "timeout"})

    @classmethod
    def problems(cls, spec: Mapping[str, Any]) -> list[str]:
        found = super().problems(spec)
        if spec.get("language", "cuda") not in ("cuda", "cpp"):
            found.append("'language' must be 'cuda' or 'cpp'")
        arch = spec.get("arch")
        if arch is not None and (not isinstance(arch, str) or not _ARCH.match(arch)):
            found.append(f"'arch' must look like sm_90, sm_90a or compute_90 (got {arch!r})")
        flags = spec.get("flags", [])
        if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
            found.append("'flags' must be a list of strings")
        else:
            found += [f"flag {f!r} is not allowed" for f in flags if not flag_allowed(f)]
        return found + int_problems(spec, "timeout", required=False, minimum=1, maximum=600)

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        language = self.spec.get("language", "cuda")
        block = pick_block(output, language)
        if block is None:
            return self.result("fail", f"no {'CUDA' if language == 'cuda' else 'C++'} code block")
        nvcc = shutil.which("nvcc")
        if nvcc is None:
            return self.result("skipped", "skipped: nvcc not found")
        args = [f"-arch={self.spec['arch']}"] if "arch" in self.spec else []
        args += list(self.spec.get("flags", []))
        source = "k.cu" if language == "cuda" else "k.cpp"
        key = hashlib.sha256(
            "\0".join([nvcc, language, *args, block.code]).encode("utf-8", "replace")
        ).hexdigest()
        timeout = float(self.spec.get("timeout", DEFAULT_TIMEOUT))
        if key in _cache:
            status, reason = _cache[key]
        else:
            status, reason = await asyncio.to_thread(
                _compile_cached, key, nvcc, args, source, block.code, timeout
            )
        return self.result(status, f"block at line {block.start_line}: {reason}")
