"""What an eval reports: :class:`Progress` after each sample and :class:`EvalResult` at the end."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub.evaluation.types import Sample

if TYPE_CHECKING:
    from upskill_hub.evaluation.run.memory import RunRecords
    from upskill_hub.evaluation.run.records import RunSummary
    from upskill_hub.evaluation.stats.summarize import ModelStats

__all__ = ["EvalResult", "Progress"]


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
    """What :func:`~upskill_hub.evaluation.runner.run_eval` returns.

    ``records`` give one compact sample per finished key, in key order (no output, assertion
    reasons or finish time), read from the run folder's samples.jsonl each time they are
    iterated; ``len(records)`` and the counts here come from the run's tallies, so the result
    holds no sample. ``summary`` is the run's summary.json as written. ``samples`` are the same
    samples in full, read on first use (and then kept); :meth:`iter_samples` streams them one at
    a time instead.
    """

    run_dir: Path
    records: RunRecords
    stats: list[ModelStats]
    summary: RunSummary
    expected: int
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)
    _full: list[Sample] | None = field(default=None, init=False, repr=False, compare=False)

    def iter_samples(self) -> Iterator[Sample]:
        """The run's finished samples in full (outputs, assertion reasons), streamed from
        samples.jsonl one line at a time, in file order."""
        from upskill_hub.evaluation.run.folder import SAMPLES_FILE
        from upskill_hub.evaluation.run.samples import iter_samples

        tally = self.records.tally
        for sample in iter_samples(self.run_dir / SAMPLES_FILE):
            if tally.has(sample.key):
                yield sample

    @property
    def samples(self) -> list[Sample]:
        """One full sample per finished key, in key order (read from the run folder once)."""
        if self._full is None:
            tally = self.records.tally
            found = {tally.index(s.key): s for s in self.iter_samples()}
            self._full = [found[i] for i in sorted(i for i in found if i is not None)]
        return self._full

    @property
    def errors(self) -> int:
        return self.records.tally.errors

    def unmeasured(self) -> str | None:
        """One line naming the first model with an arm where no sample was graded (every request
        failed, or none ran) and that arm's first error; None when every arm has a result."""
        for stats in self.stats:
            for arm, numbers in (("baseline", stats.baseline), ("with skill", stats.with_skill)):
                if numbers is None or numbers.answered > 0:
                    continue
                key = arm.replace(" ", "_")
                first = self.records.tally.first_error.get((stats.model, key), (0, None))[1]
                failed = numbers.errors + numbers.rejected
                what = f"every request of the {arm} arm failed ({failed} errors)"
                if not failed:
                    what = f"no sample of the {arm} arm ran"
                line = f"{stats.model}: {what}"
                if first:
                    line += f"; first error: {first}"
                return " ".join(line.split())
        return None

    @property
    def missing(self) -> int:
        """Keys without a finished, non-error sample (what a resume would run)."""
        tally = self.records.tally
        return self.expected - (tally.count - tally.errors)
