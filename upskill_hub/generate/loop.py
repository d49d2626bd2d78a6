"""``generate``: a teacher writes a skill and its tests, students measure it, failures refine it.

The loop (every number is the runner's own statistics,
:mod:`upskill_hub.evaluation.stats.summarize`):

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
   the first best.

   **A skill that cannot be measured stops the run.** When a student has no graded sample in an
   arm (every request of that arm errored: a context overflow, a refused key...), the lift is
   unknown. Rather than accept or reject an unknown (and, worse, report ``all_passed`` because
   nothing *failed*), the loop raises :class:`~upskill_hub.errors.ProviderError`: ``generate``
   exits non-zero with one line naming the iteration, the student, the arm and the first error.
   Nothing is written to ``--output``; the work folder keeps every candidate and eval run. Such
   errors repeat on every candidate (same students, same limits), so going on would only spend
   teacher calls. Samples that errored while others were graded count as *not passing*.
4. **Stop.** After measuring candidate ``k`` (counting teacher-written candidates; iteration 0 is
   not counted), in this order:

   * ``max_iterations``: ``k`` reached ``--max-iterations``;
   * ``plateau``: the candidate did not improve on the best before it by more than that best's
     interval: ``lift_k - lift_best <= margin``, where ``margin`` is the mean over students of
     the half-width of the best's 95% lift interval (by test case) (``(hi - lo) / 2``). A rejected
     candidate never improves, so it also stops the loop. At small n the interval is wide: more
     ``--runs`` or cases resolve finer gains;
   * ``all_passed``: the best skill had graded with-skill samples and none failed or errored:
     nothing left to learn from;
   * otherwise the teacher gets the best skill, its results, the history and the complete
     failure evidence (:mod:`upskill_hub.generate.failures`) and writes candidate ``k + 1``.

5. **Write.** The best skill goes to ``OUTPUT/<name>`` with :func:`upskill_hub.skill.write_skill`
   and must pass :func:`upskill_hub.skill.validate_skill`. ``skill_meta.json`` holds the tests
   and the metadata: teacher, students, task, source (kind, format, sha256), the lift history per
   iteration (lift, interval, pass rates, accepted or not, why) and the stop reason.

Every candidate SKILL.md, the eval run folders and the teacher exchanges stay in a work folder
under ``--runs-dir`` (``generate.json``, ``teacher.jsonl``, ``iter-N/``): nothing is lost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub import __version__
from upskill_hub._sync import blocking
from upskill_hub.errors import InvalidSkillError, Param, ProviderError, UsageError
from upskill_hub.evaluation.eval_result import EvalResult
from upskill_hub.evaluation.run.info import skill_sha256
from upskill_hub.generate.config import GenerateConfig
from upskill_hub.generate.failures import failure_evidence
from upskill_hub.generate.generate_result import GenerateResult, IterationRecord, Origin, StopReason
from upskill_hub.generate.lift import aggregate, ci_text, fmt, history_text, results_text
from upskill_hub.generate.skill_files import copy_extra_files, same_path
from upskill_hub.generate.sources import Source, load_source
from upskill_hub.generate.teacher import (
    AnswerRules,
    Exchange,
    TeacherAnswer,
    ask_teacher,
    create_request,
    refine_request,
)
from upskill_hub.skill import Skill, TestCase, TestSuite, load_skill, validate_skill, write_skill

if TYPE_CHECKING:
    from upskill_hub.evaluation.providers.base import Provider
    from upskill_hub.evaluation.types import Sample

__all__ = ["generate", "run_generate"]


@dataclass
class _Measured:
    skill: Skill
    result: EvalResult
    record: IterationRecord


def _with_skill_counts(samples: Sequence[Sample]) -> tuple[int, int]:
    """``(not passing, graded)`` with-skill samples. An errored request did not pass either:
    it counts as not passing, so a skill is ``all_passed`` only with graded samples and no
    failed or errored one."""
    arm = [s for s in samples if s.arm == "with_skill"]
    return sum(1 for s in arm if s.outcome != "pass"), sum(1 for s in arm if s.outcome != "error")


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
        from upskill_hub.evaluation.run.folder import create_run_dir

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
            copy_extra_files(self.source.skill.path, folder)
        suite = TestSuite(cases=list(self.cases), metadata={})
        write_skill(folder, answer.frontmatter(base_fm), "\n" + answer.body, suite)
        report = validate_skill(folder)
        if not report.valid:  # check_answer validated the same text: a bug if this happens
            problems = "; ".join(f.message for f in report.errors)
            raise InvalidSkillError(f"{folder}: generated skill is invalid: {problems}")
        return load_skill(folder)

    async def _measure(self, skill: Skill, iteration: int, origin: Origin) -> _Measured:
        from upskill_hub.backoff import RetryPolicy
        from upskill_hub.evaluation.config import EvalConfig
        from upskill_hub.evaluation.runner import run_eval

        cfg = self.config
        eval_config = EvalConfig(
            models=list(cfg.students),
            runs=cfg.runs,
            concurrency=cfg.concurrency,
            params=cfg.student_params,
            retry=RetryPolicy(retries=cfg.retries),
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
        if lift is None:
            raise ProviderError(self._unmeasured(result, iteration))
        failed, graded = _with_skill_counts(result.samples)
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
            skill_sha256=skill_sha256(skill.skill_md_text),
            run_id=result.run_dir.name,
            failed_samples=failed,
            graded_samples=graded,
        )
        return _Measured(skill, result, record)

    def _unmeasured(self, result: EvalResult, iteration: int) -> str:
        """One line: which student and arm had no graded sample, and the first error."""
        arm, model = "with_skill", "?"
        for stats in result.stats:
            if stats.with_skill.answered == 0:
                arm, model = "with_skill", stats.model
                break
            if stats.baseline is None or stats.baseline.answered == 0:
                arm, model = "baseline", stats.model
                break
        errors = [s.error for s in result.samples if s.model == model and s.arm == arm and s.error]
        first = " ".join((errors[0] if errors else "no sample was graded").split())
        label = "with-skill" if arm == "with_skill" else "baseline"
        return (
            f"iteration {iteration} could not be measured: every {label} request of student "
            f"'{model}' failed (first error: {first}); nothing was written, the candidates and "
            f"eval runs are in {self.work}"
        )

    def _judge(self, cand: _Measured, best: _Measured | None) -> None:
        rec = cand.record
        if best is None:
            rec.accepted, rec.reason = True, "first measured skill"
        else:
            # _measure raises for a skill without a lift: both lifts are numbers here
            assert rec.lift is not None and best.record.lift is not None
            gain = rec.lift - best.record.lift
            margin = best.record.margin or 0.0
            rec.accepted = gain >= -1e-9
            rec.improved = gain > margin + 1e-9
            verdict = "accepted" if rec.accepted else "rejected: lift dropped"
            rec.reason = (
                f"{verdict}; lift {fmt(rec.lift)} vs best {fmt(best.record.lift)} "
                f"(iteration {best.record.iteration}): gain {fmt(gain)}, "
                f"{'more' if rec.improved else 'not more'} than the best's interval "
                f"half-width {margin * 100:.0f} pts"
            )
        self.history.append(rec)
        self.emit(
            f"iteration {rec.iteration}: lift {fmt(rec.lift)} {ci_text(rec.lift_ci95)} "
            f"(pass {fmt(rec.baseline_pass_rate, False)} -> "
            f"{fmt(rec.with_skill_pass_rate, False)}): {rec.reason}"
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
        from upskill_hub.evaluation.stats.power import too_few_tests_note

        too_few = too_few_tests_note(len(self.cases), cfg.runs)
        if too_few:  # the lifts below cannot tell a 20-pt gain from noise
            self.emit(too_few)
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
            if best.record.graded_samples > 0 and best.record.failed_samples == 0:
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
        if src is not None and same_path(target, src.path):
            return
        occupied = target.exists() and (not target.is_dir() or any(target.iterdir()))
        if occupied and not self.config.force:
            raise UsageError(
                f"{target}: already exists; choose another ",
                Param("output"),
                " or pass ",
                Param("force"),
            )

    def _write(self, best: _Measured, target: Path, stop: StopReason) -> GenerateResult:
        from upskill_hub.atomic_io import atomic_write_text
        from upskill_hub.evaluation.run.folder import utc_now

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
        if src is not None and not same_path(target, src.path):
            copy_extra_files(src.path, target)
        suite = TestSuite(cases=list(self.cases), metadata=metadata)
        write_skill(target, dict(best.skill.frontmatter), best.skill.body, suite)
        report = validate_skill(target)
        if not report.valid:
            problems = "; ".join(f.message for f in report.errors)
            raise InvalidSkillError(f"{target}: the written skill is invalid: {problems}")
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


async def run_generate(
    config: GenerateConfig,
    *,
    on_event: Callable[[str], None] | None = None,
    teacher: Provider | None = None,
    students: dict[str, Provider] | None = None,
) -> GenerateResult:
    """Run the loop of the module docstring. ``teacher``/``students`` may be given ready (the
    caller keeps them); the others are resolved with ``resolve_model`` and closed here."""
    from upskill_hub.evaluation.provider_pool import ProviderPool

    config.validate()
    source = load_source(config.source, trace_budget=config.trace_budget)
    task = config.task.strip() or default_task(source)
    pool = ProviderPool(
        config.students, base_url=config.base_url, api_key=config.api_key, given=students
    )
    try:
        url = config.teacher_base_url or config.base_url
        # a --base-url key goes only to a --base-url server, never to a vendor API
        teacher = pool.extra(
            config.teacher, base_url=url, api_key=config.api_key if url else None, given=teacher
        )
        gen = _Generator(
            config, source, task, teacher, dict(pool.by_spec), on_event or (lambda _m: None)
        )
        return await gen.run()
    finally:
        await pool.aclose()


generate = blocking(run_generate, "generate", """Blocking :func:`run_generate`.""")
