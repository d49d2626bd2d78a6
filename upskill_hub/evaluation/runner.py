"""Run an eval: every (model, case, run, arm) sample, concurrently, saved as each one finishes.

What it fixes from upskill 0.2.1 (reference §4):

* every request goes to its own model: one provider per model, resolved once before anything
  runs (an unknown model fails before a run folder exists) and closed at the end;
* the arms are symmetric (:mod:`upskill_hub.evaluation.prompts`) and each sample stores the hash
  of the exact messages it sent;
* at most ``concurrency`` requests in flight (a fixed pool of workers pulling keys in a
  deterministic order: run, case, model, arm), retries with exponential backoff and jitter on
  retryable :class:`ProviderError` (honouring ``Retry-After``), a hard timeout backstop;
* a sample still failing after its retries is outcome ``error`` with a redacted message:
  statistics exclude it from pass rates and count it;
* nothing secret reaches the run folder: outputs, error messages and assertion reasons go
  through :class:`upskill_hub.secrets.Redactor` (the config's key, the environment's secrets,
  key-shaped strings) before a sample is written; assertions see the unredacted output;
* each finished sample goes to ``samples.jsonl`` at once (flush + fsync, off the event loop), so
  Ctrl-C, a crash or a kill loses no finished sample; ``resume_from`` runs only what is missing
  or errored;
* temperature, seed and max_tokens reach the provider; the run folder records them and the exact
  command that reproduces the run, never an API key.

Cancellation (``cancel`` event): no new sample starts and the requests in flight are cancelled at
once (they were not finished, so nothing is lost; a resume runs them); every finished sample is
kept, summary.json is written, and the result says ``cancelled``.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from upskill_hub import __version__
from upskill_hub.backoff import backoff_delay
from upskill_hub.errors import ProviderError, UpskillHubError, UsageError
from upskill_hub.evaluation.prompts import build_messages, prompt_hash
from upskill_hub.evaluation.run_dir import (
    FORMAT_VERSION,
    RunFolder,
    SampleKey,
    SampleLog,
    create_run_dir,
    latest_by_key,
    utc_now,
)
from upskill_hub.evaluation.types import (
    ARMS,
    Arm,
    AssertionResult,
    Completion,
    GenerationParams,
    Message,
    Sample,
)
from upskill_hub.secrets import Redactor
from upskill_hub.skill.testcases import TestCase

if TYPE_CHECKING:
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.statistics import ModelStats

__all__ = [
    "EvalConfig",
    "EvalResult",
    "Progress",
    "SkillLike",
    "config_from_run",
    "evaluate",
    "reproduce_command",
    "run_eval",
]

_ERROR_MAX = 500


class SkillLike(Protocol):
    """What the runner needs of a skill (``upskill_hub.skill.Skill`` has it)."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> Path: ...

    @property
    def skill_md_text(self) -> str: ...


@dataclass
class EvalConfig:
    """How to run an eval. ``api_key`` is used for requests only and never written anywhere."""

    models: list[str] = field(default_factory=lambda: ["local"])
    runs: int = 1
    concurrency: int = 4
    params: GenerationParams = field(default_factory=GenerationParams)
    retries: int = 3
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    no_baseline: bool = False
    judge_model: str | None = None
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    retry_after_max_s: float = 120.0

    @property
    def arms(self) -> tuple[Arm, ...]:
        return ("with_skill",) if self.no_baseline else ARMS

    def validate(self) -> None:
        """Raise :class:`UsageError` for values no run can use."""
        if not self.models:
            raise UsageError("no model given (--model)")
        dupes = sorted({m for m in self.models if self.models.count(m) > 1})
        if dupes:
            raise UsageError(f"--model given twice: {', '.join(dupes)}")
        if self.runs < 1:
            raise UsageError(f"--runs must be at least 1 (got {self.runs})")
        if self.concurrency < 1:
            raise UsageError(f"--concurrency must be at least 1 (got {self.concurrency})")
        if self.retries < 0:
            raise UsageError(f"--retries must be 0 or more (got {self.retries})")
        p = self.params
        if p.max_tokens < 1:
            raise UsageError(f"--max-tokens must be at least 1 (got {p.max_tokens})")
        if p.timeout <= 0:
            raise UsageError(f"--timeout must be positive (got {p.timeout:g})")
        if not 0 <= p.temperature <= 2:
            raise UsageError(f"--temperature must be between 0 and 2 (got {p.temperature:g})")


@dataclass(frozen=True)
class Progress:
    """Where a run stands after a sample finished (``done`` counts resumed samples too)."""

    done: int
    total: int
    passed: int
    failed: int
    errors: int
    resumed: int
    elapsed_s: float


@dataclass
class EvalResult:
    """What :func:`run_eval` returns; ``samples`` hold one sample per finished key, in key order."""

    run_dir: Path
    samples: list[Sample]
    stats: list[ModelStats]
    summary: dict[str, Any]
    expected: int
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for s in self.samples if s.outcome == "error")

    @property
    def missing(self) -> int:
        """Keys without a finished, non-error sample (what a resume would run)."""
        return self.expected - sum(1 for s in self.samples if s.outcome != "error")


# --------------------------------------------------------------------------- small pieces


def public_url(url: str | None) -> str | None:
    """``url`` without user:password, query or fragment (where credentials sometimes hide)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def reproduce_command(
    skill_ref: str,
    models: Sequence[str],
    config: EvalConfig,
    tests_file: Path | None,
    *,
    resume_dir: Path | None = None,
) -> str:
    """The ``upskill-hub eval`` command line for this run (never an API key)."""
    argv = ["upskill-hub", "eval", skill_ref]
    for model in models:
        argv += ["--model", model]
    argv += ["--runs", str(config.runs)]
    if tests_file is not None:
        argv += ["--tests", str(tests_file)]
    p = config.params
    argv += ["--temperature", format(p.temperature, "g"), "--max-tokens", str(p.max_tokens)]
    if p.seed is not None:
        argv += ["--seed", str(p.seed)]
    base_url = public_url(config.base_url)
    if base_url:
        argv += ["--base-url", base_url]
    if config.judge_model:
        argv += ["--judge-model", config.judge_model]
    if config.no_baseline:
        argv.append("--no-baseline")
    if resume_dir is not None:
        argv += ["--resume", str(resume_dir)]
    return shlex.join(argv)


def _params_dict(params: GenerationParams) -> dict[str, Any]:
    return {
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
        "seed": params.seed,
        "timeout": params.timeout,
    }


def _skill_sha256(text: str) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- providers


class _Providers:
    """One provider per model (plus judges), created once, closed once."""

    def __init__(self, config: EvalConfig, given: dict[str, Provider] | None) -> None:
        self.config = config
        self.by_spec: dict[str, Provider] = {}
        self.owned: list[Provider] = []
        self._judges: dict[str, Provider] = {}
        self._judge_lock = asyncio.Lock()
        given = given or {}
        for spec in config.models:
            provider = given.get(spec)
            if provider is None:
                provider = self._resolve(spec)
                self.owned.append(provider)
            self.by_spec[spec] = provider
        ids = [p.model_id for p in self.by_spec.values()]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise UsageError(f"--model names the same model twice: {', '.join(dupes)}")

    def _resolve(self, spec: str) -> Provider:
        from upskill_hub.evaluation.providers.resolve import resolve_model

        return resolve_model(spec, base_url=self.config.base_url, api_key=self.config.api_key)

    @property
    def model_ids(self) -> list[str]:
        return [p.model_id for p in self.by_spec.values()]

    def by_id(self) -> dict[str, Provider]:
        return {p.model_id: p for p in self.by_spec.values()}

    async def judge(self, spec: str) -> Provider:
        async with self._judge_lock:
            if spec not in self._judges:
                provider = self.by_spec.get(spec) or self._resolve(spec)
                if provider not in self.by_spec.values():
                    self.owned.append(provider)
                self._judges[spec] = provider
            return self._judges[spec]

    async def aclose(self) -> None:
        for provider in self.owned:
            with contextlib.suppress(Exception):  # closing must not hide the run's outcome
                await provider.aclose()


# --------------------------------------------------------------------------- one session


class _CallFailed(Exception):
    def __init__(self, error: BaseException, attempts: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts


class _Session:
    """The samples of one run_eval call: the pool, retries, grading and recording."""

    def __init__(
        self,
        config: EvalConfig,
        providers: _Providers,
        cases: list[TestCase],
        skill: SkillLike,
        pending: list[SampleKey],
        done: dict[SampleKey, Sample],
        total: int,
        log: SampleLog,
        on_sample: Callable[[Sample, Progress], None] | None,
        cancel: asyncio.Event | None,
    ) -> None:
        self.config = config
        self.providers = providers
        self.by_id = providers.by_id()
        self.cases = {c.id: c for c in cases}
        self.pending = deque(pending)
        self.done = done
        self.total = total
        self.resumed = len(done)
        self.log = log
        self.on_sample = on_sample
        self.cancel = cancel
        self.cancelled = False
        self.halted = False
        self.redact = Redactor([config.api_key])
        self.started = time.monotonic()
        self.counts = {"pass": 0, "fail": 0, "error": 0}
        for sample in done.values():
            self.counts[sample.outcome] += 1
        self.messages: dict[tuple[str, Arm], tuple[list[Message], str]] = {}
        for case in cases:
            for arm in config.arms:
                text = skill.skill_md_text if arm == "with_skill" else None
                msgs = build_messages(case, text, skill_name=skill.name)
                self.messages[(case.id, arm)] = (msgs, prompt_hash(msgs))
        needs_judge = config.judge_model is not None or any(
            a.get("type") == "judge" and a.get("model") for c in cases for a in c.assertions
        )
        self.judge = self._judge if needs_judge else None

    async def run(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            self.cancelled = True
            return
        workers = [
            asyncio.create_task(self._worker(), name=f"eval-worker-{i}")
            for i in range(min(self.config.concurrency, len(self.pending)))
        ]
        watcher = (
            asyncio.create_task(self._watch_cancel(workers)) if self.cancel is not None else None
        )
        try:
            results = await asyncio.gather(*workers, return_exceptions=True)
        finally:
            for task in workers:
                task.cancel()
            if watcher is not None:
                watcher.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            if watcher is not None:
                await asyncio.gather(watcher, return_exceptions=True)
        for outcome in results:
            if isinstance(outcome, BaseException) and not isinstance(
                outcome, asyncio.CancelledError
            ):
                raise outcome

    async def _watch_cancel(self, workers: list[asyncio.Task[None]]) -> None:
        assert self.cancel is not None
        await self.cancel.wait()
        self.cancelled = True
        for task in workers:
            task.cancel()

    async def _worker(self) -> None:
        try:
            while self.pending and not self.cancelled and not self.halted:
                key = self.pending.popleft()
                sample = await self._sample(key)
                self._record(sample)
        except Exception:
            self.halted = True  # e.g. on_sample raised: the other workers stop pulling keys
            raise

    def _record(self, sample: Sample) -> None:
        """Queue the sample for disk and count it; synchronous, so never half-done."""
        self.log.append(sample)
        self.done[sample.key] = sample
        self.counts[sample.outcome] += 1
        if self.on_sample is not None:
            self.on_sample(sample, self.progress())

    def progress(self) -> Progress:
        return Progress(
            done=len(self.done),
            total=self.total,
            passed=self.counts["pass"],
            failed=self.counts["fail"],
            errors=self.counts["error"],
            resumed=self.resumed,
            elapsed_s=time.monotonic() - self.started,
        )

    async def _call(
        self, provider: Provider, messages: list[Message], params: GenerationParams
    ) -> tuple[Completion, int]:
        """``provider.complete`` with retries; raises :class:`_CallFailed` when out of tries."""
        backstop = params.timeout * 1.25 + 2.0
        attempt = 0
        while True:
            attempt += 1
            try:
                try:
                    completion = await asyncio.wait_for(
                        provider.complete(messages, params), backstop
                    )
                except TimeoutError:
                    raise ProviderError(
                        f"{provider.model_id}: no response within {backstop:g}s (timeout)",
                        retryable=True,
                    ) from None
                return completion, attempt
            except ProviderError as exc:
                if not exc.retryable or attempt > self.config.retries:
                    raise _CallFailed(exc, attempt) from None
                await asyncio.sleep(
                    backoff_delay(
                        attempt,
                        exc.retry_after,
                        base=self.config.backoff_base_s,
                        cap=self.config.backoff_max_s,
                        retry_after_max=self.config.retry_after_max_s,
                    )
                )
            except Exception as exc:  # a provider bug: final, reported on the sample
                raise _CallFailed(exc, attempt) from None

    async def _judge(self, model: str | None, messages: list[Message]) -> str:
        spec = model or self.config.judge_model
        if spec is None:
            raise ProviderError("no judge model configured (--judge-model)")
        provider = await self.providers.judge(spec)
        params = GenerationParams(
            temperature=0.0,
            max_tokens=512,
            seed=self.config.params.seed,
            timeout=self.config.params.timeout,
        )
        try:
            completion, _ = await self._call(provider, messages, params)
        except _CallFailed as failed:
            raise ProviderError(self._clean(failed.error)) from None
        return completion.text

    def _clean(self, error: BaseException) -> str:
        if isinstance(error, UpskillHubError):
            text = str(error)
        else:
            text = f"{type(error).__name__}: {error}"
        text = self.redact(" ".join(text.split()))
        return text if len(text) <= _ERROR_MAX else text[: _ERROR_MAX - 1] + "…"

    async def _sample(self, key: SampleKey) -> Sample:
        from upskill_hub.evaluation.assertions import CheckContext, check_all, outcome_of

        model_id, case_id, run, arm_name = key
        arm: Arm = "with_skill" if arm_name == "with_skill" else "baseline"
        case = self.cases[case_id]
        messages, digest = self.messages[(case_id, arm)]
        try:
            completion, attempts = await self._call(
                self.by_id[model_id], messages, run_params(self.config.params, run)
            )
        except _CallFailed as failed:
            return Sample(
                model=model_id,
                case_id=case_id,
                run=run,
                arm=arm,
                prompt_hash=digest,
                outcome="error",
                error=self._clean(failed.error),
                attempts=failed.attempts,
                finished_at=utc_now(),
            )
        ctx = CheckContext(
            case=case,
            output_tokens=completion.usage.output_tokens,
            judge=self.judge,
            default_judge=self.config.judge_model is not None,
        )
        results = await check_all(case.assertions, completion.text, ctx)
        results = [AssertionResult(r.type, r.status, self.redact(r.reason)) for r in results]
        return Sample(
            model=model_id,
            case_id=case_id,
            run=run,
            arm=arm,
            prompt_hash=digest,
            outcome=outcome_of(results),
            output=self.redact(completion.text),
            assertions=results,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            latency_s=round(completion.latency_s, 4),
            attempts=attempts,
            finished_at=utc_now(),
        )


# --------------------------------------------------------------------------- the run


def _check_cases(cases: Sequence[TestCase]) -> list[TestCase]:
    cases = list(cases)
    if not cases:
        raise UsageError("no test cases: add skill_meta.json to the skill or pass --tests FILE")
    ids = [c.id for c in cases]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise UsageError(f"duplicate test case id(s): {', '.join(dupes)}")
    return cases


def run_params(params: GenerationParams, run: int) -> GenerationParams:
    """The parameters of run ``run`` (1-based): with a seed, run N samples with ``seed + N - 1``,
    so repeated runs at a temperature above 0 differ yet stay reproducible."""
    if params.seed is None or run == 1:
        return params
    return replace(params, seed=params.seed + run - 1)


def all_keys(
    models: Sequence[str], cases: Sequence[TestCase], runs: int, arms: Iterable[Arm]
) -> list[SampleKey]:
    """Every sample key of a run, in scheduling order: run, model, arm, case.

    Each run finishes a whole baseline-vs-skill comparison before the next starts, and the
    requests of one arm follow each other so that a local model (llama.cpp) reuses the KV cache
    of their long shared prefix (system prompt + skill) instead of re-reading it every time.
    """
    arm_list = list(arms)
    return [
        (model, case.id, run, arm)
        for run in range(1, runs + 1)
        for model in models
        for arm in arm_list
        for case in cases
    ]


def _order_key(models: Sequence[str], cases: Sequence[TestCase]) -> Callable[[Sample], Any]:
    model_index = {m: i for i, m in enumerate(models)}
    case_index = {c.id: i for i, c in enumerate(cases)}
    arm_index = {a: i for i, a in enumerate(ARMS)}
    return lambda s: (
        model_index.get(s.model, len(model_index)),
        case_index.get(s.case_id, len(case_index)),
        s.run,
        arm_index.get(s.arm, 2),
    )


def _check_resume(
    folder: RunFolder,
    info: dict[str, Any],
    model_ids: list[str],
    cases: list[TestCase],
    config: EvalConfig,
    skill_sha: str,
) -> None:
    where = f"--resume {folder.path}"
    if info.get("format") != FORMAT_VERSION:
        raise UsageError(f"{where}: unknown run folder format {info.get('format')!r}")
    stored_models = list(info.get("models", []))
    if set(stored_models) != set(model_ids):
        raise UsageError(
            f"{where}: the run used models {', '.join(stored_models)}, "
            f"not {', '.join(model_ids)} (omit --model to reuse the run's models)"
        )
    stored_cases = folder.read_tests()
    if [c.to_dict() for c in stored_cases] != [c.to_dict() for c in cases]:
        changed = sorted(
            {c.id for c in stored_cases}.symmetric_difference({c.id for c in cases})
        ) or [a.id for a, b in zip(stored_cases, cases, strict=False) if a.to_dict() != b.to_dict()]
        raise UsageError(
            f"{where}: the test cases differ from the run's tests.json "
            f"({', '.join(changed) or 'order'}); omit --tests to reuse them"
        )
    if int(info.get("runs", 0)) != config.runs:
        raise UsageError(f"{where}: the run has --runs {info.get('runs')}, not {config.runs}")
    if list(info.get("arms", [])) != list(config.arms):
        raise UsageError(f"{where}: the run's arms are {info.get('arms')}, not {list(config.arms)}")
    stored_params = info.get("params", {})
    for name in ("temperature", "max_tokens", "seed"):
        if stored_params.get(name) != getattr(config.params, name):
            raise UsageError(
                f"{where}: the run used {name}={stored_params.get(name)!r}, "
                f"not {getattr(config.params, name)!r}"
            )
    stored_sha = info.get("skill", {}).get("skill_md_sha256")
    if stored_sha and stored_sha != skill_sha:
        raise UsageError(f"{where}: SKILL.md changed since the run started; start a new run")


def config_from_run(path: Path) -> tuple[EvalConfig, list[TestCase]]:
    """The config and cases a run folder was started with (no API key: it was never stored)."""
    folder = RunFolder(Path(path))
    info = folder.read_info()
    if info.get("format") != FORMAT_VERSION:
        raise UsageError(f"{folder.path}: unknown run folder format {info.get('format')!r}")
    params = info.get("params", {})
    defaults = GenerationParams()
    config = EvalConfig(
        models=list(info.get("model_specs") or info.get("models") or []),
        runs=int(info.get("runs", 1)),
        concurrency=int(info.get("concurrency", 4)),
        params=GenerationParams(
            temperature=float(params.get("temperature", defaults.temperature)),
            max_tokens=int(params.get("max_tokens", defaults.max_tokens)),
            seed=params.get("seed"),
            timeout=float(params.get("timeout", defaults.timeout)),
        ),
        retries=int(info.get("retries", 3)),
        base_url=info.get("base_url"),
        no_baseline=list(info.get("arms", [])) == ["with_skill"],
        judge_model=info.get("judge_model"),
    )
    return config, folder.read_tests()


def build_summary(
    info: dict[str, Any],
    folder: RunFolder,
    samples: list[Sample],
    stats: list[ModelStats],
    expected: int,
    cancelled: bool,
) -> dict[str, Any]:
    """The content of summary.json."""
    done = sum(1 for s in samples if s.outcome != "error")
    skipped = sum(1 for s in samples for a in s.assertions if a.status == "skipped")
    return {
        "format": FORMAT_VERSION,
        "run_id": info["run_id"],
        "skill": info["skill"]["name"],
        "revision": info["skill"].get("revision"),
        "run_dir": str(folder.path),
        "complete": done == expected,
        "cancelled": cancelled,
        "samples": len(samples),
        "expected_samples": expected,
        "errors": sum(1 for s in samples if s.outcome == "error"),
        "skipped_assertions": skipped,
        "generated_at": utc_now(),
        "models": [m.to_dict(extended=True) for m in stats],
    }


async def run_eval(
    skill: SkillLike,
    cases: Sequence[TestCase],
    config: EvalConfig,
    *,
    run_dir: Path | None = None,
    output_root: Path = Path("runs"),
    resume_from: Path | None = None,
    on_sample: Callable[[Sample, Progress], None] | None = None,
    cancel: asyncio.Event | None = None,
    providers: dict[str, Provider] | None = None,
    repo_id: str | None = None,
    revision: str | None = None,
    skill_ref: str | None = None,
    write_chart: bool = True,
) -> EvalResult:
    """Evaluate ``skill`` on ``cases`` for every model in ``config``; see the module docstring.

    ``run_dir`` names a new folder to use (it must not exist or be empty); otherwise one is
    created under ``output_root``. ``resume_from`` continues an existing run folder (models,
    cases, runs, arms, temperature/max_tokens/seed and SKILL.md must match). ``providers`` maps
    entries of ``config.models`` to ready providers (the caller keeps ownership); the others are
    resolved here and closed at the end. ``on_sample`` is called in the event loop after each
    sample is queued for disk. ``repo_id``/``revision`` record a Hub skill's origin;
    ``skill_ref`` is how the reproduce command names the skill (default: repo_id@revision or
    the path).
    """
    config.validate()
    case_list = _check_cases(cases)
    if resume_from is not None and run_dir is not None:
        raise UsageError("give either a run folder to resume or a new run folder, not both")
    pool = _Providers(config, providers)
    try:
        return await _run(
            skill,
            case_list,
            config,
            pool,
            run_dir=run_dir,
            output_root=output_root,
            resume_from=resume_from,
            on_sample=on_sample,
            cancel=cancel,
            repo_id=repo_id,
            revision=revision,
            skill_ref=skill_ref,
            write_chart=write_chart,
        )
    finally:
        await pool.aclose()


async def _run(
    skill: SkillLike,
    cases: list[TestCase],
    config: EvalConfig,
    pool: _Providers,
    *,
    run_dir: Path | None,
    output_root: Path,
    resume_from: Path | None,
    on_sample: Callable[[Sample, Progress], None] | None,
    cancel: asyncio.Event | None,
    repo_id: str | None,
    revision: str | None,
    skill_ref: str | None,
    write_chart: bool,
) -> EvalResult:
    model_ids = pool.model_ids
    skill_sha = _skill_sha256(skill.skill_md_text)
    keys = all_keys(model_ids, cases, config.runs, config.arms)
    done: dict[SampleKey, Sample] = {}
    if resume_from is not None:
        folder = RunFolder(Path(resume_from))
        info = folder.read_info()
        _check_resume(folder, info, model_ids, cases, config, skill_sha)
        wanted = set(keys)
        done = {
            k: s
            for k, s in latest_by_key(folder.read_samples()).items()
            if k in wanted and s.outcome != "error"
        }
        # drop errored, duplicate and half-written lines before appending again
        folder.rewrite_samples(sorted(done.values(), key=_order_key(model_ids, cases)))
    else:
        if run_dir is not None:
            path = Path(run_dir)
            path.mkdir(parents=True, exist_ok=True)
            if any(path.iterdir()):
                raise UsageError(f"{path}: run folder is not empty (use --resume to continue it)")
        else:
            path = create_run_dir(output_root, skill.name)
        folder = RunFolder(path)
        ref = skill_ref or (f"{repo_id}@{revision}" if repo_id and revision else repo_id)
        ref = ref or str(skill.path)
        info = {
            "format": FORMAT_VERSION,
            "run_id": folder.path.name,
            "tool": {"name": "upskill-hub", "version": __version__},
            "skill": {
                "name": skill.name,
                "path": str(Path(skill.path).resolve()) if not repo_id else str(skill.path),
                "repo_id": repo_id,
                "revision": revision,
                "skill_md_sha256": skill_sha,
                "ref": ref,
            },
            "models": model_ids,
            "model_specs": list(config.models),
            "runs": config.runs,
            "arms": list(config.arms),
            "case_ids": [c.id for c in cases],
            "params": _params_dict(config.params),
            "retries": config.retries,
            "concurrency": config.concurrency,
            "base_url": public_url(config.base_url),
            "judge_model": config.judge_model,
            "started_at": utc_now(),
            "finished_at": None,
            "status": "running",
            "sessions": [],
            "reproduce": reproduce_command(ref, config.models, config, folder.tests_file),
            "resume": shlex.join(["upskill-hub", "eval", ref, "--resume", str(folder.path)]),
        }
        folder.write_tests(cases)
    session_info = {"started_at": utc_now(), "finished_at": None, "samples": 0}
    info["sessions"] = [*info.get("sessions", []), session_info]
    info["status"] = "running"
    folder.write_info(info)

    pending = [k for k in keys if k not in done]
    log = SampleLog(folder.samples_file)
    session = _Session(config, pool, cases, skill, pending, done, len(keys), log, on_sample, cancel)
    status = "interrupted"
    try:
        await session.run()
        status = "cancelled" if session.cancelled else "complete"
    finally:
        try:
            log.close()
        except OSError as exc:
            raise UpskillHubError(f"{folder.samples_file}: cannot write samples ({exc})") from exc
        finally:
            samples = sorted(session.done.values(), key=_order_key(model_ids, cases))
            session_info["finished_at"] = utc_now()
            session_info["samples"] = len(samples) - session.resumed
            info["finished_at"] = session_info["finished_at"]
            info["status"] = status
            folder.write_info(info)

    from upskill_hub.evaluation.statistics import summarize

    stats = summarize(samples)
    summary = build_summary(info, folder, samples, stats, len(keys), session.cancelled)
    folder.write_summary(summary)
    result = EvalResult(
        run_dir=folder.path,
        samples=samples,
        stats=stats,
        summary=summary,
        expected=len(keys),
        cancelled=session.cancelled,
    )
    if write_chart and samples:
        try:
            from upskill_hub.evaluation.chart import write_lift_chart

            write_lift_chart(summary["models"], folder.chart_file, title=f"{skill.name}: lift")
        except Exception as exc:  # the chart is a nicety; the numbers are in summary.json
            result.warnings.append(f"lift.png not written: {type(exc).__name__}: {exc}")
    return result


def evaluate(
    skill: SkillLike,
    cases: Sequence[TestCase],
    config: EvalConfig,
    *,
    run_dir: Path | None = None,
    output_root: Path = Path("runs"),
    resume_from: Path | None = None,
    on_sample: Callable[[Sample, Progress], None] | None = None,
    cancel: threading.Event | None = None,
    providers: dict[str, Provider] | None = None,
    repo_id: str | None = None,
    revision: str | None = None,
    skill_ref: str | None = None,
    write_chart: bool = True,
) -> EvalResult:
    """Blocking :func:`run_eval` for threads without an event loop (the Space's worker thread).

    ``on_sample`` runs in the calling thread as samples finish; setting the ``threading.Event``
    ``cancel`` from any thread cancels the run (noticed within 50 ms), which then returns with
    ``cancelled=True`` and the stats of what finished.
    """

    async def main() -> EvalResult:
        event = asyncio.Event()
        watcher: asyncio.Task[None] | None = None
        if cancel is not None:

            async def watch() -> None:
                while not cancel.is_set():
                    await asyncio.sleep(0.05)
                event.set()

            watcher = asyncio.create_task(watch())
        try:
            return await run_eval(
                skill,
                cases,
                config,
                run_dir=run_dir,
                output_root=output_root,
                resume_from=resume_from,
                on_sample=on_sample,
                cancel=event,
                providers=providers,
                repo_id=repo_id,
                revision=revision,
                skill_ref=skill_ref,
                write_chart=write_chart,
            )
        finally:
            if watcher is not None:
                watcher.cancel()

    return asyncio.run(main())
