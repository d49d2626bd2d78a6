"""An evaluation streamed to the page: the runner in a worker thread, updates as samples finish.

:func:`stream_eval` is the whole "Run evaluation" button: check the form, take the visitor's
slot, load the skill, run, and yield an :class:`EvalView` after each batch of finished samples
and once at the end. It never raises: a failure becomes ``EvalView.error``, one readable,
secret-free sentence. Closing the generator (the visitor left) cancels the run.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from upskill_hub.errors import UsageError
from upskill_hub.evaluation.assertions.tool_slots import HOSTED_MAX_TIMEOUT_S, compile_policy
from upskill_hub.evaluation.eval_result import EvalResult, Progress
from upskill_hub.evaluation.run.folder import FRONTIER_CHART_FILE
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.types import Sample
from upskill_hub.secrets import Redactor
from upskill_hub.space_support import tables
from upskill_hub.space_support.form import EvalForm, check_size, plan_eval
from upskill_hub.space_support.messages import describe_error, log_failure
from upskill_hub.space_support.network import Resolver
from upskill_hub.space_support.settings import SpaceSettings
from upskill_hub.space_support.skills import load_choice


class VisitorGate:
    """At most ``limit`` evaluations at once per visitor (a user name, IP or session id)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._running: dict[str, int] = {}

    def try_enter(self, visitor: str) -> bool:
        with self._lock:
            if self._running.get(visitor, 0) >= self.limit:
                return False
            self._running[visitor] = self._running.get(visitor, 0) + 1
            return True

    def leave(self, visitor: str) -> None:
        with self._lock:
            left = self._running.get(visitor, 0) - 1
            if left > 0:
                self._running[visitor] = left
            else:
                self._running.pop(visitor, None)

    def running(self, visitor: str) -> int:
        with self._lock:
            return self._running.get(visitor, 0)


def visitor_id(
    username: str | None, headers: dict[str, str] | None, client_host: str | None, session: str
) -> str:
    """Who is asking: the signed-in user, else the address the Space's proxy saw, else the client.

    ``X-Forwarded-For`` is a list each proxy appends to: its first entries are whatever the
    client sent (anyone can claim any address there), only the last is added by the proxy in
    front of the Space. So the per-visitor cap keys on the last hop.
    """
    if username:
        return f"user:{username}"
    hops = [h.strip() for h in ((headers or {}).get("x-forwarded-for") or "").split(",")]
    forwarded = next((h for h in reversed(hops) if h), "")
    if forwarded:
        return f"ip:{forwarded}"
    if client_host:
        return f"ip:{client_host}"
    return f"session:{session}"


@dataclass
class EvalView:
    """Everything the page shows of one evaluation at one moment."""

    status: str = ""
    done: int = 0
    total: int = 0
    summary: list[list[str]] = field(default_factory=list)
    cases_html: str = ""
    chart: Path | None = None
    #: frontier.png (pass rate against cost per passed case), when the run was priced
    frontier_chart: Path | None = None
    run_dir: Path | None = None
    finished: bool = False
    error: str | None = None

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


class _Worker:
    """``evaluate`` in a daemon thread; finished samples and the end come through a queue."""

    def __init__(self, *, compile_owner: str = "", hosted: bool = False, **kwargs: Any) -> None:
        self.kwargs = kwargs
        # compile checks (h2-sandbox): a fair share of compile slots per visitor, and on a
        # hosted Space a skill's compile timeout is capped; cancelling kills running compiles.
        self.compile_owner = compile_owner
        self.compile_timeout_cap = HOSTED_MAX_TIMEOUT_S if hosted else None
        self.cancel = threading.Event()
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="space-eval", daemon=True)

    def _on_sample(self, sample: Sample, progress: Progress) -> None:
        self.events.put(("sample", (sample, progress)))

    def _run(self) -> None:
        try:
            with compile_policy(self.compile_owner, self.compile_timeout_cap):
                result = evaluate(on_sample=self._on_sample, cancel=self.cancel, **self.kwargs)
        except BaseException as exc:  # reported to the page, never lost
            self.events.put(("error", exc))
        else:
            self.events.put(("done", result))


def stream_eval(
    form: EvalForm,
    settings: SpaceSettings,
    *,
    gate: VisitorGate,
    visitor: str,
    bundled: dict[str, Path],
    oauth_token: str | None = None,
    resolver: Resolver | None = None,
    min_interval_s: float = 0.3,
) -> Iterator[EvalView]:
    """Run the evaluation the form asks for, yielding what the page should show."""
    redactor = Redactor([form.api_key, oauth_token])
    if not gate.try_enter(visitor):
        yield EvalView(
            error=f"You already have {gate.limit} evaluation(s) running here; wait for it to "
            "finish (or reload the page to cancel it) before starting another."
        )
        return
    worker: _Worker | None = None
    try:
        try:
            plan = plan_eval(form, settings, oauth_token=oauth_token, resolver=resolver)
            redactor = Redactor(plan.secrets)
            yield EvalView(status=f"Loading skill `{plan.skill}`…")
            chosen = load_choice(
                plan.skill,
                bundled,
                hosted=settings.hosted,
                token=oauth_token if settings.hosted else None,
            )
            cases = chosen.skill.tests
            if not cases:
                raise UsageError(
                    f"Skill {chosen.skill.name!r} has no test cases (skill_meta.json); "
                    "there is nothing to measure"
                )
            check_size(plan, cases, settings)
        except Exception as exc:
            log_failure("preparing an evaluation", exc, redactor)
            yield EvalView(error=describe_error(exc, redactor), finished=True)
            return
        worker = _Worker(
            compile_owner=visitor,
            hosted=settings.hosted,
            skill=chosen.skill,
            cases=cases,
            config=plan.config,
            output_root=settings.output_root,
            repo_id=chosen.repo_id,
            revision=chosen.commit,
            skill_ref=chosen.ref,
        )
        yield from _follow(
            worker, chosen.skill.name, plan.model_spec, cases, settings, redactor, min_interval_s
        )
    finally:
        if worker is not None:
            worker.cancel.set()  # the visitor left or the run ended: stop any request in flight
        gate.leave(visitor)


def _follow(
    worker: _Worker,
    skill_name: str,
    model: str,
    cases: list[Any],
    settings: SpaceSettings,
    redactor: Redactor,
    min_interval_s: float,
) -> Iterator[EvalView]:
    samples: list[Sample] = []
    progress: Progress | None = None
    total = len(cases) * worker.kwargs["config"].runs * len(worker.kwargs["config"].arms)
    started = time.monotonic()
    last_yield = 0.0
    timed_out = False
    worker.thread.start()
    yield EvalView(status=tables.progress_line(None, skill=skill_name, model=model), total=total)
    while True:
        if not timed_out and time.monotonic() - started > settings.deadline_s:
            timed_out = True
            worker.cancel.set()
        try:
            kind, payload = worker.events.get(timeout=0.1)
        except queue.Empty:
            continue
        if kind == "sample":
            sample, progress = payload
            samples.append(sample)
            now = time.monotonic()
            if now - last_yield >= min_interval_s:
                last_yield = now
                yield _partial(samples, progress, cases, skill_name, model, redactor)
            continue
        if kind == "error":
            log_failure("an evaluation", payload, redactor)
            yield EvalView(
                error=describe_error(payload, redactor),
                finished=True,
                summary=tables.live_summary_rows(samples),
                cases_html=tables.cases_html(cases, samples, redact=redactor),
            )
            return
        yield _final(payload, cases, skill_name, model, redactor, timed_out, settings)
        return


def _partial(
    samples: list[Sample],
    progress: Progress,
    cases: list[Any],
    skill_name: str,
    model: str,
    redactor: Redactor,
) -> EvalView:
    return EvalView(
        status=tables.progress_line(progress, skill=skill_name, model=model),
        done=progress.done,
        total=progress.total,
        summary=tables.live_summary_rows(samples),
        cases_html=tables.cases_html(cases, samples, redact=redactor),
    )


def _final(
    result: EvalResult,
    cases: list[Any],
    skill_name: str,
    model: str,
    redactor: Redactor,
    timed_out: bool,
    settings: SpaceSettings,
) -> EvalView:
    models = result.summary.models
    rows = tables.summary_rows(models)
    verdict = tables.verdict_label(str(models[0]["verdict"])) if models else "no result"
    lines = [f"**Done**: `{skill_name}` on `{model}`: {verdict}."]
    if result.cancelled:
        why = f"it reached the {settings.deadline_s:.0f}s limit" if timed_out else "it was stopped"
        lines = [f"**Stopped** ({why}); results of the {len(result.samples)} finished samples."]
    digest = tables.error_digest(result.samples, redactor)
    if digest:
        lines.append(digest)
    chart = result.run_dir / "lift.png"
    frontier = result.run_dir / FRONTIER_CHART_FILE
    return EvalView(
        status="\n\n".join(lines),
        done=len(result.samples),
        total=result.expected,
        summary=rows,
        cases_html=tables.cases_html(cases, result.samples, redact=redactor),
        chart=chart if chart.is_file() else None,
        frontier_chart=frontier if frontier.is_file() else None,
        run_dir=result.run_dir,
        finished=True,
        error=None,
    )
