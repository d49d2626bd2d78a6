"""``compiles``: the answer's CUDA / C++ code block compiles with nvcc. Nothing is ever run.

Spec: ``{"type": "compiles", "language": "cuda" | "cpp" = "cuda", "arch": "sm_90"?,
"flags": [str]?, "timeout": seconds = 60}``.

* Block: for ``cuda`` the first block tagged ``cuda``/``cu``, else the first ``cpp``/``c++``/``cxx``
  block containing ``__global__``; for ``cpp`` the first ``cpp``/``c++``/``cxx``/``cc`` block.
* Command: ``nvcc [-arch=ARCH] FLAGS --keep -c k.cu -o k.o`` (``k.cpp``: ``nvcc -E`` first, its
  only pass) in a fresh temp dir, in a worker thread, killed with its children after ``timeout``
  or as soon as the run is cancelled.
* ``nvcc`` missing from PATH: ``skipped`` ("skipped: nvcc not found"), never a pass.
* Flags come from test files, which come from the Hub: only an allow-list (optimisation,
  language standard, defines, warnings, relaxed-constexpr/lambda, rdc, register caps, gencode)
  is accepted, so no spec can add ``--run``, ``-o``, ``-ccbin`` or ``-Xcompiler`` options.
* nvcc runs in a sandbox (:mod:`.sandbox`: ``bwrap`` or ``unshare``) that sees only the temp dir,
  the toolkit and the system's compiler folders, with a minimal environment (no API keys). Where
  namespaces are forbidden (``strict`` mode), what names local files is refused instead: host
  ``asm`` statements (the assembler's ``.include``/``.incbin``), ``__has_include``, ``#line``,
  ``#pragma GCC dependency``, and a missing include gets the same answer as an outside one.
  Every reason ends with ``[sandbox: MODE]``, so samples.jsonl records which mode ran.
* Includes are decided on every pass's preprocessed source (host and each device arch: nvcc
  ``--keep``), not by reading the code: any line marker naming a file outside the temp dir and
  the CUDA toolkit / system include folders refuses the check (macros, ``#/**/include``, line
  splices, ``%:include`` and ``#ifndef __CUDA_ARCH__`` all show up there). A reason only quotes
  diagnostics located in the answer's own file, never text from elsewhere (compile errors can
  quote an included file's lines, e.g. credentials).
* Each nvcc step runs under limits: address space, file size, CPU time, wall time, and at most
  64 KiB of captured output (``#include </dev/zero>`` would otherwise ask for gigabytes).
* Compiles share one slot per CPU, fairly between owners (:mod:`.tool_slots`: a Space's
  visitors), and a hosted Space caps a skill's ``timeout``.
* Results are cached in-process by sha256 of (nvcc path, sandbox mode, language, arch, flags,
  code).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
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
from dataclasses import dataclass, field
from typing import Any

from upskill_hub.evaluation.assertions import sandbox
from upskill_hub.evaluation.assertions.base import Assertion, CheckContext, int_problems
from upskill_hub.evaluation.assertions.tool_slots import Cancelled, FairSlots, current_policy
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
_slots = FairSlots(os.cpu_count() or 2)


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
    """The CUDA toolkit folders nvcc reads headers from (its own, CUDA_HOME, /usr/local/cuda*):
    real paths of folders holding ``bin/nvcc`` and ``nvvm`` (not a wrapper script's folder)."""
    found = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))]
    found += [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    found += glob.glob("/usr/local/cuda*") + glob.glob("/opt/cuda*")
    real = {os.path.realpath(d) for d in found}
    return sorted(d for d in real if os.path.isdir(os.path.join(d, "nvvm")))


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


def own_text(preprocessed: str, source: str, *, cudafe: bool = False) -> str:
    """The parts of a preprocessed file that come from ``source`` (by its line markers). In
    cudafe output (``cudafe``: strings are escaped there, so a line is never inside one) without
    the ``#if 0`` blocks device-only bodies are left in (the host compiler never sees them)."""
    kept: list[str] = []
    current = source
    skipping = False
    for line in preprocessed.splitlines():
        marker = _LINE_MARKER.match(line.encode("utf-8", "replace"))
        if marker:
            current = os.path.basename(marker.group(1).decode("utf-8", "replace"))
            continue
        stripped = line.strip()
        if skipping:
            skipping = stripped != "#endif"
            continue
        if cudafe and stripped == "#if 0":
            skipping = True
            continue
        if current == source:
            kept.append(line)
    return "\n".join(kept)


#: Strict mode: what no answer may contain, because it reads or tests a file the compiler can
#: see but the answer has no business with: assembler statements on the host (``.include``,
#: ``.incbin`` and gas macros building them), ``#pragma GCC dependency``, ``__has_include``.
_HOST_ASM = re.compile(r"\b(?:asm|__asm|__asm__)\b")
_SPLICE = re.compile(r"(?:\\|\?\?/)[ \t]*\r?\n")
#: ``#line N "file"`` / ``# N "file"`` (also as ``%:``, ``??=``, with comments in between) would
#: let the answer's own code pass as a toolkit header's in the preprocessed output; ``#embed``
#: reads a file without a line marker.
_DIRECTIVE = re.compile(
    r"^[ \t]*(?:#|%:|\?\?=)[ \t]*(?:/\*.*?\*/[ \t]*)*(line\b|embed\b|[0-9])",
    re.MULTILINE | re.DOTALL,
)


def strict_source_problem(code: str) -> str | None:
    """Strict mode, before compiling: why the raw code is refused (None: it is not)."""
    joined = _SPLICE.sub("", code)
    pasting = "##" in joined or "%:%:" in joined
    if "has_include" in joined or (pasting and "has" in joined):
        return "`__has_include` (or token pasting that could build it) tests for local files"
    if "dependency" in joined or (pasting and "ragma" in joined):
        return "`#pragma GCC dependency` (or token pasting in a pragma) tests local files"
    found = _DIRECTIVE.search(joined)
    if found:
        name = "line" if found.group(1).isdigit() else found.group(1)
        return f"`#{name}` directives are refused here"
    return None


def strict_host_problem(host_code: str) -> str | None:
    """Strict mode, on the answer's own host code after preprocessing."""
    if _HOST_ASM.search(host_code):
        return "host `asm` statements can make the assembler read local files"
    return None


_MISSING_INCLUDE = re.compile(
    r"No such file or directory|cannot open source file|Permission denied|Is a directory",
    re.IGNORECASE,
)
_REFUSED_INCLUDE = (
    "refused: the code includes a file outside its temp folder, the CUDA toolkit and the system "
    "include folders"
)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


class _Step:
    """How this compile's nvcc steps run: sandbox mode, folders, environment, cancellation."""

    def __init__(
        self, nvcc: str, mode: sandbox.Mode, base: str, cancel: threading.Event | None
    ) -> None:
        self.nvcc = os.path.realpath(nvcc)
        self.mode = mode
        self.base = base
        self.workdir = os.path.join(base, "w")
        self.cancel = cancel
        self.toolkit = _toolkit_dirs(nvcc)
        os.mkdir(self.workdir)
        bins = [os.path.dirname(self.nvcc)] + [os.path.join(d, "bin") for d in self.toolkit]
        self.env = sandbox.minimal_env(self.workdir, bins)

    def run(self, args: list[str], timeout: float) -> tuple[int | None, str]:
        """``nvcc ARGS`` under the limits; (exit code or None on timeout, output).
        Raises :class:`Cancelled` (after killing it) when the run is cancelled."""
        log = os.path.join(self.base, "nvcc-output")
        limits = [str(MEMORY_LIMIT), str(FILE_SIZE_LIMIT), str(int(timeout) + 1)]
        inner = sandbox.wrap(
            self.mode, [self.nvcc, *args], self.workdir, self.base, [self.nvcc, *self.toolkit]
        )
        cmd = [sys.executable, "-S", "-c", _LIMITED, *limits, *inner]
        deadline = time.monotonic() + timeout
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                cmd,
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            code: int | None = None
            try:
                while True:
                    if self.cancel is not None and self.cancel.is_set():
                        raise Cancelled
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        code = proc.wait(timeout=min(left, 0.1))
                        break
            finally:
                _kill_group(proc)
        with open(log, "rb") as fh:
            text = fh.read(OUTPUT_LIMIT).decode("utf-8", "replace")
        return code, text.replace(self.workdir + os.sep, "")


def _own_lines(text: str, source: str) -> str:
    """Only the diagnostics that point into the answer's own file (or the PTX nvcc made of it:
    shown only once no pass read a file from outside)."""
    stem = os.path.splitext(source)[0]
    own = (source + ":", source + "(", f"ptxas ./{stem}.", f"ptxas {stem}.", "ptxas fatal")
    return "\n".join(ln for ln in text.splitlines() if ln.startswith(own))


@dataclass(frozen=True)
class _Job:
    """One compile: the answer's code, how to compile it, and its cancellation."""

    nvcc: str
    args: tuple[str, ...]
    source: str  # k.cu or k.cpp (the language)
    code: str
    timeout: float
    mode: sandbox.Mode
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)

    @functools.cached_property
    def key(self) -> str:
        """The cache key: everything the result depends on (not the timeout: one that timed
        out is not cached)."""
        parts = [self.nvcc, self.mode, self.source, *self.args, self.code]
        return hashlib.sha256("\0".join(parts).encode("utf-8", "replace")).hexdigest()


def _run_nvcc(job: _Job) -> tuple[AssertionStatus, str, bool]:
    """Compile in the sandbox, then check what every pass read; (status, reason, cacheable).

    Timeouts aren't cached; a cancelled run raises :class:`Cancelled` (nvcc killed first).
    """
    args, source, timeout, mode = list(job.args), job.source, job.timeout, job.mode
    shown = " ".join(["nvcc", *args])
    tag = f" [sandbox: {mode}]"
    if mode == "strict":
        problem = strict_source_problem(job.code)
        if problem:
            return "fail", f"refused: {problem}{tag}", True
    owner = current_policy().owner
    with _slots.slot(owner, job.cancel), tempfile.TemporaryDirectory(prefix="upskill-nvcc-") as tmp:
        step = _Step(job.nvcc, mode, os.path.realpath(tmp), job.cancel)
        workdir = step.workdir
        with open(os.path.join(workdir, source), "w", encoding="utf-8") as fh:
            fh.write(job.code)
        deadline = time.monotonic() + timeout
        try:
            if source.endswith(".cpp"):  # one pass: preprocess it first, to read what it read
                rc, out = step.run([*args, "-E", source, "-o", "k.ii"], timeout)
                if rc == 0:
                    left = max(1.0, deadline - time.monotonic())
                    rc, out = step.run([*args, "-c", source, "-o", "k.o"], left)
            else:  # every pass's preprocessed file is kept (host .cpp4.ii, device .cpp1.ii)
                keep = ["--keep", "--keep-dir", "."]
                rc, out = step.run([*args, *keep, "-c", source, "-o", "k.o"], timeout)
        except OSError as exc:
            return "error", f"cannot run nvcc: {exc.strerror}{tag}", False
        if rc is None:
            return "error", f"nvcc timed out after {timeout:g} s{tag}", False
        own = _own_lines(out, source)
        allowed = step.toolkit + [os.path.realpath(d) for d in SYSTEM_INCLUDE_DIRS]
        outside: list[str] = []
        host_code: list[str] = []
        for name in sorted(os.listdir(workdir)):
            if name.endswith((".ii", ".cudafe1.cpp")):
                with open(os.path.join(workdir, name), "rb") as fh:
                    text = fh.read()
                outside += outside_files(text, workdir, allowed)
                if name.endswith((".cudafe1.cpp", "k.ii")):
                    decoded = text.decode("utf-8", "replace")
                    cudafe = name.endswith(".cudafe1.cpp")
                    host_code.append(own_text(decoded, source, cudafe=cudafe))
        if mode == "strict" and (outside or _MISSING_INCLUDE.search(own)):
            # the same answer whether or not the file exists
            return "fail", _REFUSED_INCLUDE + " (or one that is missing)" + tag, True
        if outside:
            return "fail", _REFUSED_INCLUDE + tag, True
        if mode == "strict":
            problem = next(filter(None, map(strict_host_problem, host_code)), None)
            if problem:
                return "fail", f"refused: {problem}{tag}", True
        if rc == 0:
            return "pass", f"compiled with `{shown}`{tag}", True
        return "fail", f"`{shown}` failed: {_error_summary(own, workdir)}{tag}", True


def _compile_cached(job: _Job) -> tuple[AssertionStatus, str]:
    key = job.key
    with _locks_guard:
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:  # identical concurrent requests compile once
        if key in _cache:
            return _cache[key]
        status, reason, cacheable = _run_nvcc(job)
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
        timeout = float(self.spec.get("timeout", DEFAULT_TIMEOUT))
        cap = current_policy().max_timeout_s
        if cap is not None:
            timeout = min(timeout, cap)
        mode = await asyncio.to_thread(sandbox.current_mode)  # probed once per process
        job = _Job(nvcc, tuple(args), source, block.code, timeout, mode)
        if job.key in _cache:
            status, reason = _cache[job.key]
        else:
            try:
                status, reason = await asyncio.to_thread(_compile_cached, job)
            except (asyncio.CancelledError, Cancelled):
                job.cancel.set()  # the run was cancelled: nvcc is killed within 0.1 s
                raise
        return self.result(status, f"block at line {block.start_line}: {reason}")
