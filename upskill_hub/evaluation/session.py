"""The samples of one eval session: a fixed pool of workers, retries, grading and recording.

Each model has its own queue (:class:`~upskill_hub.evaluation.model_queue.ModelQueue`) and at
most ``concurrency`` requests in flight (its workers pull its keys in scheduling order), so one
slow or rate-limited provider does not stall the others. A retryable :class:`ProviderError` is
retried with exponential backoff and jitter (honouring ``Retry-After``, which pauses that model)
under a hard timeout backstop: the request goes back into its model's queue until its delay is
over instead of holding a worker. A sample still failing after its retries is outcome ``error``
with a redacted message. Outputs, error messages and assertion reasons go
through :class:`upskill_hub.secrets.Redactor` before a sample is recorded; assertions see the
unredacted output. Each finished sample is queued for disk at once; the session then keeps only
its running tallies (:class:`~upskill_hub.evaluation.run.memory.RunTally`), so memory does not
grow with the outputs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from upskill_hub.errors import Param, ProviderError, UpskillHubError
from upskill_hub.evaluation.eval_result import Progress
from upskill_hub.evaluation.model_queue import ModelQueue
from upskill_hub.evaluation.prompts import build_messages, prompt_hash
from upskill_hub.evaluation.retry import RetriesExhausted, call_once, complete_with_retries
from upskill_hub.evaluation.run.folder import SampleLog, utc_now
from upskill_hub.evaluation.run.memory import RunTally
from upskill_hub.evaluation.run.order import run_params
from upskill_hub.evaluation.types import (
    Arm,
    AssertionResult,
    Completion,
    GenerationParams,
    Message,
    Sample,
    SampleKey,
)
from upskill_hub.secrets import Redactor
from upskill_hub.skill.testcases import TestCase

if TYPE_CHECKING:
    from upskill_hub.evaluation.config import EvalConfig, SkillLike
    from upskill_hub.evaluation.provider_pool import ProviderPool
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.run.plan import RunHooks

__all__ = ["Session", "SessionWork"]

_ERROR_MAX = 500


#: Replies are graded and stored up to this many characters (a 50 MB reply would otherwise
#: make a 100 MB samples.jsonl and dataset row).
MAX_REPLY_CHARS = 1_000_000


def capped_reply(text: str) -> tuple[str, str]:
    """(the text graded, the text stored): cut at :data:`MAX_REPLY_CHARS`, the stored copy
    saying so at its end."""
    if len(text) <= MAX_REPLY_CHARS:
        return text, text
    kept = text[:MAX_REPLY_CHARS]
    note = f"\n[upskill-hub: reply cut at {MAX_REPLY_CHARS:,} of {len(text):,} characters]"
    return kept, kept + note


@dataclass
class SessionWork:
    """What one session has to do: the keys still to run (in scheduling order), the samples a
    resumed run already holds (read once, to count them into ``tally``), how many samples the
    whole run has, and the tally of its finished samples."""

    pending: list[SampleKey]
    done: Collection[Sample]
    total: int
    tally: RunTally  # counts the finished samples (the resumed ones first)
    queues: dict[str, ModelQueue] | None = None  # given: each model's keys, instead of pending


class Session:
    """The samples of one run_eval call: the pool, retries, grading and recording."""

    def __init__(
        self,
        config: EvalConfig,
        providers: ProviderPool,
        *,
        skill: SkillLike,
        cases: list[TestCase],
        work: SessionWork,
        log: SampleLog,
        hooks: RunHooks,
    ) -> None:
        self.config = config
        self.providers = providers
        self.by_id = providers.by_id()
        self.cases = {c.id: c for c in cases}
        self.queues: dict[str, ModelQueue] = dict(work.queues or {})
        for key in work.pending:
            self.queues.setdefault(key[0], ModelQueue(())).pending.append(key)
        self.tasks: list[asyncio.Task[None]] = []
        done = work.done
        self.tally = work.tally
        self.total = work.total
        self.resumed = self.reported = len(done)
        self.log = log
        self.on_sample = hooks.on_sample
        self.cancel = hooks.cancel
        self.cancelled = False
        self.halted = False
        self.redact = Redactor([config.api_key])
        self.started = time.monotonic()
        self.counts = {"pass": 0, "fail": 0, "error": 0}
        for sample in done:  # counted, not kept
            self.counts[sample.outcome] += 1
            self.tally.add(sample)
        self.messages: dict[tuple[str, Arm], tuple[list[Message], str]] = {}
        self.agent = None
        if config.agent is not None:  # agent mode: skill loaded through tools
            from upskill_hub.evaluation.agent.arms import AgentArms

            self.agent = AgentArms.for_config(config, skill)
        for case in cases:
            for arm in config.arms:
                text = skill.skill_md_text if arm == "with_skill" else None
                msgs = (
                    self.agent.messages(case, arm)
                    if self.agent is not None
                    else build_messages(case, text, skill_name=skill.name)
                )
                self.messages[(case.id, arm)] = (msgs, prompt_hash(msgs))
        needs_judge = config.judge_model is not None or any(
            a.get("type") == "judge" and a.get("model") for c in cases for a in c.assertions
        )
        self.judge = self._judge if needs_judge else None

    async def run(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            self.cancelled = True
            return
        workers = self.tasks = [
            asyncio.create_task(self._worker(queue), name=f"eval-worker-{model}-{i}")
            for model, queue in self.queues.items()
            for i in range(min(self.config.concurrency, len(queue)))
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

    async def _worker(self, queue: ModelQueue) -> None:
        try:
            while not self.cancelled and not self.halted:
                key = await queue.next()
                if key is None:
                    return
                sample = await self._sample(key, queue)
                if sample is not None:  # None: it waits in the queue for its retry
                    line = self._record(key, sample)
                    await self.log.durable(line)  # on disk before it is reported done
                    self._report(sample)
        except Exception:
            self.halted = True  # e.g. on_sample raised: the other workers stop at once
            for task in self.tasks:
                if task is not asyncio.current_task():
                    task.cancel()
            raise

    def _record(self, key: SampleKey, sample: Sample) -> int:
        """Queue the sample for disk and count it; synchronous, so never half-done (a worker
        cancelled later still leaves it in samples.jsonl and the summary). Only its running
        tallies stay in memory. Returns its line number in the log."""
        line = self.log.append(sample)
        self.tally.add(sample)
        return line

    def _report(self, sample: Sample) -> None:
        """Count a sample that is on disk and tell the caller (``on_sample``)."""
        self.reported += 1
        self.counts[sample.outcome] += 1
        if self.on_sample is not None:
            self.on_sample(sample, self.progress())

    def progress(self) -> Progress:
        return Progress(
            done=self.reported,
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
        """``provider.complete`` with the run's retry policy (:class:`RetriesExhausted`)."""
        return await complete_with_retries(provider, messages, params, self.config.retry)

    async def _try(
        self,
        key: SampleKey,
        queue: ModelQueue,
        provider: Provider,
        messages: list[Message],
        params: GenerationParams,
    ) -> tuple[Completion, int] | None:
        """One try of a sample's request: (the completion, tries so far), or None when it was
        put back into ``queue`` to wait for its retry (:class:`RetriesExhausted` when final)."""
        attempt = queue.tries_so_far(key) + 1
        try:
            completion = await call_once(
                provider.model_id, lambda: provider.complete(messages, params), params.timeout
            )
        except ProviderError as exc:
            delay = self.config.retry.next_delay(attempt, exc.retryable, exc.retry_after)
            if delay is None:
                queue.finished(key)
                raise RetriesExhausted(exc, attempt) from None
            queue.retry_later(key, delay, attempts=attempt, pause=exc.retry_after is not None)
            return None
        except Exception as exc:  # a provider bug: final, reported on the sample
            queue.finished(key)
            raise RetriesExhausted(exc, attempt) from None
        queue.finished(key)
        return completion, attempt

    async def _judge(self, model: str | None, messages: list[Message]) -> str:
        spec = model or self.config.judge_model
        if spec is None:
            raise ProviderError("no judge model configured (", Param("judge_model"), ")")
        provider = await self.providers.judge(spec)
        params = GenerationParams(
            temperature=0.0,
            max_tokens=512,
            seed=self.config.params.seed,
            timeout=self.config.params.timeout,
        )
        try:
            completion, _ = await self._call(provider, messages, params)
        except RetriesExhausted as failed:
            raise ProviderError(self._clean(failed.error)) from None
        return completion.text

    def _clean(self, error: BaseException) -> str:
        if isinstance(error, UpskillHubError):
            text = str(error)
        else:
            text = f"{type(error).__name__}: {error}"
        text = self.redact(" ".join(text.split()))
        return text if len(text) <= _ERROR_MAX else text[: _ERROR_MAX - 1] + "…"

    async def _sample(self, key: SampleKey, queue: ModelQueue) -> Sample | None:
        from upskill_hub.evaluation.assertions import CheckContext, check_all, outcome_of

        model_id, case_id, run, arm_name = key
        arm: Arm = "with_skill" if arm_name == "with_skill" else "baseline"
        case = self.cases[case_id]
        messages, digest = self.messages[(case_id, arm)]
        trace = None
        try:
            if self.agent is not None:
                trace = await self.agent.run(
                    self.by_id[model_id], case, arm, messages, run_params(self.config.params, run)
                )
                completion, attempts = trace.completion, trace.attempts
            else:
                tried = await self._try(
                    key, queue, self.by_id[model_id], messages, run_params(self.config.params, run)
                )
                if tried is None:
                    return None
                completion, attempts = tried
        except RetriesExhausted as failed:
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
                rejected=getattr(failed.error, "rejection", None),
            )
        ctx = CheckContext(
            case=case,
            output_tokens=completion.usage.output_tokens,
            judge=self.judge,
            default_judge=self.config.judge_model is not None,
        )
        reply, stored = capped_reply(completion.text)
        results = await check_all(case.assertions, reply, ctx)
        results = [AssertionResult(r.type, r.status, self.redact(r.reason)) for r in results]
        sample = Sample(
            model=model_id,
            case_id=case_id,
            run=run,
            arm=arm,
            prompt_hash=digest,
            outcome=outcome_of(results),
            output=self.redact(stored),
            assertions=results,
            input_tokens=completion.usage.input_tokens,
            output_tokens=completion.usage.output_tokens,
            cached_input_tokens=completion.usage.cached_input_tokens,
            cache_write_tokens=completion.usage.cache_write_tokens,
            latency_s=round(completion.latency_s, 4),
            attempts=attempts,
            finished_at=utc_now(),
        )
        if trace is not None:
            from upskill_hub.evaluation.agent.arms import record_trace

            record_trace(sample, trace, self.redact)
        return sample
