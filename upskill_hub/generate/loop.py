"""``generate``: a teacher writes a skill and its tests, students measure it, failures refine it.

The loop (every number is the runner's own statistics, :mod:`upskill_hub.evaluation.statistics`):

1. **Iteration 1.** The teacher writes the skill and its test cases from the task (and the
   condensed trace, or the skill to improve). With ``--from SKILL`` the skill keeps its name and
   its existing tests stay as a regression suite; the teacher may add tests, and may drop an
   existing one only with a reason, recorded in the metadata. The suite is then **fixed**: every
   later iteration is measured on the same cases, so lifts compare.
2. **Measure.** Each candidate is evaluated on every student, with and without the skill
   (:func:`upskill_hub.evaluation.runner.run_eval`, one run folder per iteration). With
   ``--from SKILL`` the original skill is measured first, as iteration 0.
3. **Accept.** A candidate's lift is the mean over students of each student's lift (with-skill
   pass rate minus baseline pass rate). It is *accepted*, and becomes the best, when its lift is
   not below the best lift so far (ties go to the newer candidate). The first measured skill is
   the first best. A candidate without a lift (its requests failed) is rejected.
4. **Stop.** After measuring candidate ``k`` (counting teacher-written candidates; iteration 0 is
   not counted), in this order:

   * ``max_iterations``: ``k`` reached ``--max-iterations``;
   * ``plateau``: the candidate did not improve on the best before it by more than that best's
     interval: ``lift_k - lift_best <= margin``, where ``margin`` is the mean over students of
     the half-width of the best's Newcombe 95% lift interval (``(hi - lo) / 2``). A rejected
     candidate never improves, so it also stops the loop. At small n the interval is wide: more
     ``--runs`` or cases resolve finer gains;
   * ``all_passed``: the best skill failed no with-skill sample: nothing left to learn from;
   * otherwise the teacher gets the best skill, its results, the history and the complete
     failure evidence (:mod:`upskill_hub.generate.evidence`) and writes candidate ``k + 1``.

5. **Write.** The best skill goes to ``OUTPUT/<name>`` with :func:`upskill_hub.skill.write_skill`
   and must pass :func:`upskill_hub.skill.validate_skill`. ``skill_meta.json`` holds the tests
   and the metadata: teacher, students, task, source (kind, format, sha256), the lift history per
   iteration (lift, interval, pass rates, accepted or not, why) and the stop reason.

Every candidate SKILL.md, the eval run folders and the teacher exchanges stay in a work folder
under ``--runs-dir`` (``generate.json``, ``teacher.jsonl``, ``iter-N/``): nothing is lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from upskill_hub import __version__
from upskill_hub.errors import InvalidSkill, ProviderError, UsageError
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.generate.evidence import DEFAULT_EVIDENCE_BUDGET, failure_evidence
from upskill_hub.generate.sources import Source, load_source
from upskill_hub.generate.teacher import (
    DEFAULT_REPAIRS,
    DEFAULT_TEACHER_PARAMS,
    AnswerRules,
    Exchange,
    TeacherAnswer,
    ask_teacher,
    create_request,
    refine_request,
)
from upskill_hub.generate.traces import DEFAULT_TRACE_BUDGET
from upskill_hub.skill import Skill, TestCase, TestSuite, load_skill, validate_skill, write_skill
from upskill_hub.skill.model import SKILL_FILENAME, list_files
from upskill_hub.skill.testcases import META_FILENAME

if TYPE_CHECKING:
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.runner import EvalResult
    from upskill_hub.evaluation.statistics import ModelStats

Origin = Literal["original", "generated", "improved", "refined"]
StopReason = Literal["max_iterations", "plateau", "all_passed"]

__all__ = [
    "GenerateConfig",
    "GenerateResult",
    "IterationRecord",
    "aggregate",
    "generate",
    "run_generate",
]


@dataclass
class GenerateConfig:
    """How to generate. ``api_key`` goes only to ``--base-url`` servers and is never written."""

    task: str = ""
    source: Path | None = None
    teacher: str = "opus"
    students: list[str] = field(default_factory=lambda: ["local"])
    runs: int = 1
    max_iterations: int = 3
    output: Path = Path("skills")
    work_root: Path = Path("runs")
    base_url: str | None = None
    teacher_base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    student_params: GenerationParams = field(default_factory=GenerationParams)
    teacher_params: GenerationParams = DEFAULT_TEACHER_PARAMS
    concurrency: int = 4
    retries: int = 3
    judge_model: str | None = None
    repairs: int = DEFAULT_REPAIRS
    trace_budget: int = DEFAULT_TRACE_BUDGET
    evidence_budget: int = DEFAULT_EVIDENCE_BUDGET
    force: bool = False

    def validate(self) -> None:
        if not self.task.strip() and self.source is None:
            raise UsageError("give a TASK (or --from a trace or skill folder)")
        if self.max_iterations < 1:
            raise UsageError(f"--max-iterations must be at least 1 (got {self.max_iterations})")
        if self.runs < 1:
            raise UsageError(f"--runs must be at least 1 (got {self.runs})")
        if not self.students:
            raise UsageError("no student model (--student)")
        dupes = sorted({s for s in self.students if self.students.count(s) > 1})
        if dupes:
            raise UsageError(f"--student given twice: {', '.join(dupes)}")
        if self.repairs < 0:
            raise UsageError("repairs must be 0 or more")


@dataclass
class IterationRecord:
    """One measured skill: its numbers, whether it was accepted, and why."""

    iteration: int
    origin: Origin
    lift: float | None
    lift_ci95: tuple[float, float] | None
    margin: float | None
    baseline_pass_rate: float | None
    with_skill_pass_rate: float | None
    per_student: list[dict[str, Any]]
    accepted: bool
    improved: bool | None
    reason: str
    skill_sha256: str
    run_id: str
    failed_samples: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {
            "iteration": self.iteration,
            "origin": self.origin,
            "lift": r(self.lift),
            "lift_ci95": None if self.lift_ci95 is None else [r(v) for v in self.lift_ci95],
            "margin": r(self.margin),
            "pass_rates": {
                "baseline": r(self.baseline_pass_rate),
                "with_skill": r(self.with_skill_pass_rate),
            },
            "per_student": self.per_student,
            "accepted": self.accepted,
            "improved": self.improved,
            "reason": self.reason,
            "skill_sha256": self.skill_sha256,
            "run_id": self.run_id,
            "failed_samples": self.failed_samples,
            "notes": self.notes,
        }


@dataclass
class GenerateResult:
    """Where the skill went and how it got there."""

    skill_dir: Path
    name: str
    history: list[IterationRecord]
    best_iteration: int
    stop_reason: StopReason
    work_dir: Path
    tests: int
    dropped_tests: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def best(self) -> IterationRecord:
        return next(r for r in self.history if r.iteration == self.best_iteration)

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill_dir": str(self.skill_dir),
            "name": self.name,
            "best_iteration": self.best_iteration,
            "lift": self.best.to_dict()["lift"],
            "lift_ci95": self.best.to_dict()["lift_ci95"],
            "stop_reason": self.stop_reason,
            "tests": self.tests,
            "dropped_tests": [{"id": k, "reason": v} for k, v in self.dropped_tests.items()],
            "work_dir": str(self.work_dir),
            "history": [r.to_dict() for r in self.history],
            "warnings": self.warnings,
        }


@dataclass
class _Measured:
    skill: Skill
    result: EvalResult
    record: IterationRecord


# --------------------------------------------------------------------------- numbers


def aggregate(
    stats: list[ModelStats],
) -> tuple[float | None, tuple[float, float] | None, float | None, float | None, float | None]:
    """Mean over students of lift, interval bounds, interval half-width and both pass rates."""

    def mean(values: list[float | None]) -> float | None:
        if not values or any(v is None for v in values):
            return None
        return sum(v for v in values if v is not None) / len(values)

    lift = mean([s.lift for s in stats])
    cis = [s.lift_ci95 for s in stats]
    ci: tuple[float, float] | None = None
    margin = None
    if cis and all(c is not None for c in cis):
        bounds = [c for c in cis if c is not None]
        ci = (sum(c[0] for c in bounds) / len(bounds), sum(c[1] for c in bounds) / len(bounds))
        margin = sum((c[1] - c[0]) / 2 for c in bounds) / len(bounds)
    base = mean([s.baseline.pass_rate if s.baseline else None for s in stats])
    with_ = mean([s.with_skill.pass_rate for s in stats])
    return lift, ci, margin, base, with_


def _fmt(x: float | None, signed: bool = True) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.2f}" if signed else f"{x:.2f}"


def _ci(ci: tuple[float, float] | None) -> str:
    return "n/a" if ci is None else f"[{ci[0]:+.2f}, {ci[1]:+.2f}]"


def results_text(stats: list[ModelStats]) -> str:
    lines = []
    for s in stats:
        base = s.baseline
        base_text = f"{base.passed}/{base.total}" if base else "n/a"
        lines.append(
            f"- {s.model}: baseline {base_text}, with skill {s.with_skill.passed}/"
            f"{s.with_skill.total}, lift {_fmt(s.lift)} {_ci(s.lift_ci95)}"
        )
    return "\n".join(lines)


def history_text(history: list[IterationRecord], answers: dict[int, TeacherAnswer]) -> str:
    lines = []
    for rec in history:
        verdict = "accepted" if rec.accepted else "REJECTED (lift dropped: do not repeat it)"
        line = (
            f"- iteration {rec.iteration} ({rec.origin}): lift {_fmt(rec.lift)} "
            f"{_ci(rec.lift_ci95)}, pass rate {_fmt(rec.baseline_pass_rate, False)} -> "
            f"{_fmt(rec.with_skill_pass_rate, False)}; {verdict}"
        )
        answer = answers.get(rec.iteration)
        if answer is not None and answer.notes.strip():
            line += f"; teacher's notes: {' '.join(answer.notes.split())}"
        lines.append(line)
    return "\n".join(lines) or "(none)"


# --------------------------------------------------------------------------- the loop


def default_task(source: Source) -> str:
    if source.skill is not None:
        return f"Improve the skill '{source.skill.name}': {source.skill.description}"
    return "Write a skill for the kind of task done in this trace."


class _Generator:
    def __init__(
        self,
        config: GenerateConfig,
        source: Source,
        task: str,
        teacher: Provider,
        students: dict[str, Provider],
        emit: Callable[[str], None],
    ) -> None:
        self.config = config
        self.source = source
        self.task = task
        self.teacher = teacher
        self.students = students
        self.emit = emit
        self.history: list[IterationRecord] = []
        self.answers: dict[int, TeacherAnswer] = {}
        self.cases: list[TestCase] = []
        self.dropped: dict[str, str] = {}
        self.transcript: list[Exchange] = []
        self.work = self._work_dir()

    def _work_dir(self) -> Path:
        from upskill_hub.evaluation.run_dir import create_run_dir

        hint = self.source.skill.name if self.source.skill else "skill"
        return create_run_dir(self.config.work_root, f"generate-{hint}")

    # ---- teacher

    async def _ask(self, request: str, rules: AnswerRules, iteration: int) -> TeacherAnswer:
        self.emit(f"iteration {iteration}: asking the teacher ({self.teacher.model_id})")
        start = len(self.transcript)
        try:
            return await ask_teacher(
                self.teacher,
                request,
                rules,
                params=self.config.teacher_params,
                repairs=self.config.repairs,
                retries=self.config.retries,
                transcript=self.transcript,
            )
        finally:
            self._save_transcript(start, iteration)

    def _save_transcript(self, start: int, iteration: int) -> None:
        from upskill_hub.atomic_io import append_line

        for n, ex in enumerate(self.transcript[start:], 1):
            row = {
                "iteration": iteration,
                "attempt": n,
                "messages": [{"role": m.role, "content": m.content} for m in ex.messages],
                "answer": ex.answer,
                "errors": ex.errors,
            }
            append_line(self.work / "teacher.jsonl", json.dumps(row, ensure_ascii=False))
        for ex in self.transcript[start:]:
            if ex.errors:
                self.emit(f"  teacher answer invalid ({len(ex.errors)} problem(s)); sent back")

    # ---- measuring

    def _stage(self, iteration: int, answer: TeacherAnswer, base_fm: dict[str, Any]) -> Skill:
        folder = self.work / f"iter-{iteration}" / answer.name
        if self.source.skill is not None:
            _copy_extra_files(self.source.skill.path, folder)
        suite = TestSuite(cases=list(self.cases), metadata={})
        write_skill(folder, answer.frontmatter(base_fm), "\n" + answer.body, suite)
        report = validate_skill(folder)
        if not report.valid:  # check_answer validated the same text: a bug if this happens
            problems = "; ".join(f.message for f in report.errors)
            raise InvalidSkill(f"{folder}: generated skill is invalid: {problems}")
        return load_skill(folder)

    async def _measure(self, skill: Skill, iteration: int, origin: Origin) -> _Measured:
        from upskill_hub.evaluation.runner import EvalConfig, run_eval

        cfg = self.config
        eval_config = EvalConfig(
            models=list(cfg.students),
            runs=cfg.runs,
            concurrency=cfg.concurrency,
            params=cfg.student_params,
            retries=cfg.retries,
            base_url=cfg.base_url,
            api_key=cfg.api_key,
            judge_model=cfg.judge_model,
        )
        total = len(cfg.students) * len(self.cases) * cfg.runs * 2
        self.emit(f"iteration {iteration}: evaluating {total} samples")
        result = await run_eval(
            skill,
            self.cases,
            eval_config,
            run_dir=self.work / f"iter-{iteration}" / "eval",
            providers=self.students,
            write_chart=False,
        )
        if result.samples and all(s.outcome == "error" for s in result.samples):
            first = next((s.error for s in result.samples if s.error), "unknown error")
            raise ProviderError(f"every student request failed: {first}")
        lift, ci, margin, base, with_ = aggregate(result.stats)
        record = IterationRecord(
            iteration=iteration,
            origin=origin,
            lift=lift,
            lift_ci95=ci,
            margin=margin,
            baseline_pass_rate=base,
            with_skill_pass_rate=with_,
            per_student=[
                {
                    k: v
                    for k, v in s.to_dict().items()
                    if k in ("model", "lift", "lift_ci95", "verdict")
                }
                | {
                    "baseline_pass_rate": s.baseline.to_dict()["pass_rate"] if s.baseline else None,
                    "with_skill_pass_rate": s.with_skill.to_dict()["pass_rate"],
                }
                for s in result.stats
            ],
            accepted=False,
            improved=None,
            reason="",
            skill_sha256="sha256:" + hashlib.sha256(skill.skill_md_text.encode()).hexdigest(),
            run_id=result.run_dir.name,
            failed_samples=sum(
                1 for s in result.samples if s.arm == "with_skill" and s.outcome == "fail"
            ),
        )
        return _Measured(skill, result, record)

    def _judge(self, cand: _Measured, best: _Measured | None) -> None:
        rec = cand.record
        if best is None:
            rec.accepted, rec.reason = True, "first measured skill"
        elif rec.lift is None:
            rec.accepted, rec.improved = False, False
            rec.reason = "no lift: requests failed in an arm"
        elif best.record.lift is None:
            rec.accepted, rec.improved, rec.reason = True, True, "the best had no lift"
        else:
            gain = rec.lift - best.record.lift
            margin = best.record.margin or 0.0
            rec.accepted = gain >= -1e-9
            rec.improved = gain > margin + 1e-9
            verdict = "accepted" if rec.accepted else "rejected: lift dropped"
            rec.reason = (
                f"{verdict}; lift {_fmt(rec.lift)} vs best {_fmt(best.record.lift)} "
                f"(iteration {best.record.iteration}): gain {_fmt(gain)}, "
                f"{'more' if rec.improved else 'not more'} than the best's interval "
                f"half-width {margin:.2f}"
            )
        self.history.append(rec)
        self.emit(
            f"iteration {rec.iteration}: lift {_fmt(rec.lift)} {_ci(rec.lift_ci95)} "
            f"(pass {_fmt(rec.baseline_pass_rate, False)} -> "
            f"{_fmt(rec.with_skill_pass_rate, False)}): {rec.reason}"
        )

    # ---- the run

    async def run(self) -> GenerateResult:
        cfg = self.config
        src_skill = self.source.skill
        judge_available = cfg.judge_model is not None
        students = [p.model_id for p in self.students.values()]
        if src_skill is not None:
            existing = src_skill.tests
            rules = AnswerRules(
                phase="improve",
                existing_ids=tuple(c.id for c in existing),
                fixed_name=src_skill.name,
                judge_available=judge_available,
                base_frontmatter=dict(src_skill.frontmatter),
            )
            request = create_request(
                self.task,
                students=students,
                judge=cfg.judge_model,
                skill_name=src_skill.name,
                skill_text=src_skill.skill_md_text,
                existing_tests=existing,
            )
        else:
            existing = []
            rules = AnswerRules(phase="create", judge_available=judge_available)
            condensed = self.source.condensed
            trace = self.source.trace
            header = ""
            if trace is not None and condensed is not None:
                counts = ", ".join(f"{n} {k}" for k, n in trace.counts.items())
                header = f"Format: {trace.format}; {len(trace.events)} events ({counts})."
                if condensed.shortened:
                    header += (
                        f" The trace was CONDENSED from {condensed.original_chars} to "
                        f"{len(condensed.text)} characters to fit ({'; '.join(condensed.notes)}); "
                        "cuts are marked in the text."
                    )
            request = create_request(
                self.task,
                students=students,
                judge=cfg.judge_model,
                trace_text=condensed.text if condensed else None,
                trace_header=header,
            )
        answer = await self._ask(request, rules, 1)
        self.answers[1] = answer
        self.dropped = dict(answer.dropped)
        self.cases = [c for c in existing if c.id not in answer.dropped] + answer.tests
        name = answer.name
        target = cfg.output / name
        self._check_target(target)
        self.emit(
            f"skill '{name}': {len(self.cases)} tests ({len(answer.tests)} new"
            + (f", {len(self.dropped)} dropped" if self.dropped else "")
            + ")"
        )
        base_fm = dict(src_skill.frontmatter) if src_skill else {}

        best: _Measured | None = None
        if src_skill is not None:
            original = await self._measure(src_skill, 0, "original")
            self._judge(original, None)
            best = original
        cand = await self._measure(
            self._stage(1, answer, base_fm), 1, "improved" if src_skill else "generated"
        )
        cand.record.notes = list(answer.ignored)
        self._judge(cand, best)
        if cand.record.accepted:
            best = cand
        assert best is not None
        k = 1
        stop: StopReason
        while True:
            if k >= cfg.max_iterations:
                stop = "max_iterations"
                break
            if cand.record.improved is False:
                stop = "plateau"
                break
            if best.record.failed_samples == 0:
                stop = "all_passed"
                break
            k += 1
            evidence = failure_evidence(best.result.samples, self.cases, budget=cfg.evidence_budget)
            if evidence.shortened:
                self.emit(
                    f"iteration {k}: failure evidence shortened: {len(evidence.shown_cases)} "
                    f"of {evidence.total_cases} failing cases shown whole"
                )
            request = refine_request(
                task=self.task,
                skill_text=best.skill.skill_md_text,
                iteration=k,
                results=results_text(best.result.stats),
                history=history_text(self.history, self.answers),
                evidence=evidence.text,
                students=students,
                judge=cfg.judge_model,
                cases=self.cases,
            )
            refine_rules = AnswerRules(
                phase="refine",
                fixed_name=name,
                judge_available=judge_available,
                base_frontmatter=base_fm,
            )
            answer = await self._ask(request, refine_rules, k)
            self.answers[k] = answer
            cand = await self._measure(self._stage(k, answer, base_fm), k, "refined")
            cand.record.notes = list(answer.ignored)
            if evidence.shortened:
                cand.record.notes.append(
                    f"evidence shortened: {len(evidence.shown_cases)} of "
                    f"{evidence.total_cases} failing cases shown; left out: "
                    + ", ".join(evidence.omitted_cases)
                )
            self._judge(cand, best)
            if cand.record.accepted:
                best = cand
        self.emit(f"stopped: {stop}; best is iteration {best.record.iteration}")
        return self._write(best, target, stop)

    def _check_target(self, target: Path) -> None:
        src = self.source.skill
        if src is not None and _same(target, src.path):
            return
        occupied = target.exists() and (not target.is_dir() or any(target.iterdir()))
        if occupied and not self.config.force:
            raise UsageError(f"{target}: already exists; choose another --output or pass --force")

    def _write(self, best: _Measured, target: Path, stop: StopReason) -> GenerateResult:
        from upskill_hub.atomic_io import atomic_write_text
        from upskill_hub.evaluation.run_dir import utc_now

        src = self.source.skill
        metadata: dict[str, Any] = dict(src.suite.metadata) if src and src.suite else {}
        previous_drops = [d for d in metadata.get("dropped_tests", []) if isinstance(d, dict)]
        best_rec = best.record
        metadata.update(
            {
                "version": str(metadata.get("version", "0.1.0")),
                "generated_by": f"upskill-hub {__version__} generate",
                "generated_at": utc_now(),
                "source_task": self.task,
                "teacher": self.teacher.model_id,
                "students": [p.model_id for p in self.students.values()],
                "runs": self.config.runs,
                "source": self.source.describe(),
                "source_hash": self.source.sha256,
                "test_pass_rate": best_rec.with_skill_pass_rate,
                "lift": best_rec.lift,
                "best_iteration": best_rec.iteration,
                "stop_reason": stop,
                "lift_history": [r.to_dict() for r in self.history],
                "dropped_tests": previous_drops
                + [{"id": i, "reason": r, "iteration": 1} for i, r in self.dropped.items()],
            }
        )
        license_ = best.skill.license
        if license_ and "license" not in metadata:
            metadata["license"] = license_
        if src is not None and not _same(target, src.path):
            _copy_extra_files(src.path, target)
        suite = TestSuite(cases=list(self.cases), metadata=metadata)
        write_skill(target, dict(best.skill.frontmatter), best.skill.body, suite)
        report = validate_skill(target)
        if not report.valid:
            problems = "; ".join(f.message for f in report.errors)
            raise InvalidSkill(f"{target}: the written skill is invalid: {problems}")
        result = GenerateResult(
            skill_dir=target,
            name=best.skill.name,
            history=self.history,
            best_iteration=best_rec.iteration,
            stop_reason=stop,
            work_dir=self.work,
            tests=len(self.cases),
            dropped_tests=dict(self.dropped),
            warnings=[f"{f.rule}: {f.message}" for f in report.warnings],
        )
        atomic_write_text(
            self.work / "generate.json",
            json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n",
        )
        return result


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _copy_extra_files(src: Path, dest: Path) -> None:
    """Copy a skill's files other than SKILL.md and skill_meta.json (scripts, references...)."""
    for rel in list_files(src):
        if rel in (SKILL_FILENAME, META_FILENAME):
            continue
        path = src / rel
        if path.is_symlink() or not path.is_file():
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out)


async def run_generate(
    config: GenerateConfig,
    *,
    on_event: Callable[[str], None] | None = None,
    teacher: Provider | None = None,
    students: dict[str, Provider] | None = None,
) -> GenerateResult:
    """Run the loop of the module docstring. ``teacher``/``students`` may be given ready (the
    caller keeps them); the others are resolved with ``resolve_model`` and closed here."""
    from upskill_hub.evaluation.providers.resolve import resolve_model

    config.validate()
    source = load_source(config.source, trace_budget=config.trace_budget)
    task = config.task.strip() or default_task(source)
    owned: list[Provider] = []
    try:
        given = dict(students or {})
        pool: dict[str, Provider] = {}
        for spec in config.students:
            provider = given.get(spec)
            if provider is None:
                provider = resolve_model(spec, base_url=config.base_url, api_key=config.api_key)
                owned.append(provider)
            pool[spec] = provider
        if teacher is None:
            url = config.teacher_base_url or config.base_url
            # a --base-url key goes only to a --base-url server, never to a vendor API
            teacher = resolve_model(
                config.teacher, base_url=url, api_key=config.api_key if url else None
            )
            owned.append(teacher)
        gen = _Generator(config, source, task, teacher, pool, on_event or (lambda _m: None))
        return await gen.run()
    finally:
        for provider in owned:
            with contextlib.suppress(Exception):
                await provider.aclose()


def generate(
    config: GenerateConfig, *, on_event: Callable[[str], None] | None = None
) -> GenerateResult:
    """Blocking :func:`run_generate`."""
    import asyncio

    return asyncio.run(run_generate(config, on_event=on_event))
