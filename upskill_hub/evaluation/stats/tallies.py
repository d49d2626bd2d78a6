"""Running tallies of graded samples: what the statistics and summary.json read of each sample,
kept as counts, sums and one float per answered sample instead of the samples themselves.

:func:`~upskill_hub.evaluation.stats.summarize.summarize` builds these from a list of samples; the
runner updates them as each sample finishes (:mod:`~upskill_hub.evaluation.run.memory`), so
both compute the same numbers by the same code. Each tally remembers the first position
(``index``) a model, a case or an error was seen at: the order the statistics report them in.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass

from upskill_hub.evaluation.types import Sample

__all__ = [
    "ArmTally",
    "ModelTally",
    "RunOutcomes",
    "SampleCounts",
    "checked",
    "graded_outcome",
    "prompt_rejected",
]


def prompt_rejected(sample: Sample) -> bool:
    """Whether an errored sample was refused for its prompt: only from the structured
    ``rejected`` field the provider set (HTTP 400/413 with a context-length or content-filter
    code, ``finish_reason: content_filter``, ``stop_reason: refusal``), never from the error's
    text. A rejection is a missing sample, like any other error: it is not graded, and the
    verdict's worst-case bounds count it against the claim."""
    return sample.outcome == "error" and sample.rejected is not None


def checked(sample: Sample) -> bool:
    """Whether a check ran on a non-error sample: some assertion passed, failed or errored.
    A sample whose every assertion was skipped (no judge model, no nvcc...) is not graded."""
    return any(a.status != "skipped" for a in sample.assertions)


def graded_outcome(sample: Sample) -> str:
    """``pass`` / ``fail`` / ``error`` (errors and prompt rejections: missing) / ``ungraded``
    (an answer on which no check ran)."""
    if sample.outcome == "error":
        return "error"
    return sample.outcome if checked(sample) else "ungraded"


def skipped_assertions(sample: Sample) -> int:
    return sum(1 for a in sample.assertions if a.status == "skipped")


class ArmTally:
    """One model's samples in one arm: counts, token sums and latencies of answered samples
    (and per case, ``case_tokens``: the answered samples' input, cached input, cache write and
    output token sums, what a case costs),
    ``case_id -> [passed, graded]`` (cases with graded samples only), ``case_id -> missing``
    (errors and prompt rejections per case) and, for the two-way clustered standard error, each
    graded sample's run and outcome (``2 * run + passed``)."""

    __slots__ = (
        "cache_write_tokens",
        "cached_input_tokens",
        "case_tokens",
        "cases",
        "graded",
        "input_tokens",
        "judge_skipped",
        "latencies",
        "missing",
        "outcomes",
        "output_tokens",
        "passed",
        "rejected",
        "samples",
        "seen",
        "skipped",
        "ungraded",
    )

    def __init__(self) -> None:
        self.samples = 0  # every sample, errors included
        self.graded = 0  # answers on which a check ran
        self.passed = 0
        self.rejected = 0  # errors refused for their prompt (missing, like other errors)
        self.ungraded = 0  # answers whose every check was skipped
        self.judge_skipped = 0  # of those, answers with a skipped judge check
        self.skipped = 0  # skipped assertions of graded samples
        self.input_tokens = 0  # sums over answered samples
        self.output_tokens = 0
        self.cached_input_tokens = 0
        self.cache_write_tokens = 0
        self.case_tokens: dict[str, list[int]] = {}  # case -> [input, cached, write, output]
        self.latencies = array("d")  # one per answered sample
        self.cases: dict[str, list[int]] = {}
        self.missing: dict[str, int] = {}  # errors and rejections per case
        self.outcomes: dict[str, array[int]] = {}  # case -> 2 * run + passed, per graded sample
        self.seen: set[str] = set()  # cases with any sample

    def add(self, sample: Sample) -> None:
        self.samples += 1
        self.seen.add(sample.case_id)
        graded = graded_outcome(sample)
        if graded == "error":
            self.rejected += prompt_rejected(sample)
            self.missing[sample.case_id] = self.missing.get(sample.case_id, 0) + 1
            return
        self.input_tokens += sample.input_tokens
        self.output_tokens += sample.output_tokens
        self.cached_input_tokens += sample.cached_input_tokens
        self.cache_write_tokens += sample.cache_write_tokens
        sums = self.case_tokens.get(sample.case_id)
        if sums is None:
            sums = self.case_tokens[sample.case_id] = [0, 0, 0, 0]
        sums[0] += sample.input_tokens
        sums[1] += sample.cached_input_tokens
        sums[2] += sample.cache_write_tokens
        sums[3] += sample.output_tokens
        self.latencies.append(sample.latency_s)
        if graded == "ungraded":
            self.ungraded += 1
            self.judge_skipped += any(a.type == "judge" for a in sample.assertions)
            return
        self.graded += 1
        row = self.cases.get(sample.case_id)
        if row is None:
            row = self.cases[sample.case_id] = [0, 0]
        row[0] += graded == "pass"
        row[1] += 1
        runs = self.outcomes.get(sample.case_id)
        if runs is None:
            runs = self.outcomes[sample.case_id] = array("i")
        runs.append(2 * sample.run + (graded == "pass"))
        self.passed += graded == "pass"
        self.skipped += skipped_assertions(sample)

    @property
    def answered(self) -> int:
        """Samples with an answer (graded or not)."""
        return len(self.latencies)

    @property
    def errors(self) -> int:
        """Errored samples other than prompt rejections."""
        return self.samples - self.answered - self.rejected

    def tally(self) -> dict[str, tuple[int, int]]:
        return {case: (p, g) for case, (p, g) in self.cases.items()}

    def run_outcomes(self) -> dict[str, RunOutcomes]:
        """Per case, its graded samples as ``(run, passed)`` (views, nothing copied)."""
        return {case: RunOutcomes(codes) for case, codes in self.outcomes.items()}


class RunOutcomes(Collection[tuple[int, bool]]):
    """One case's graded samples in one arm as ``(run, passed)``, read from the packed array
    each time they are iterated."""

    __slots__ = ("codes",)

    def __init__(self, codes: array[int]) -> None:
        self.codes = codes

    def __len__(self) -> int:
        return len(self.codes)

    def __iter__(self) -> Iterator[tuple[int, bool]]:
        for code in self.codes:
            yield code >> 1, bool(code & 1)

    def __contains__(self, item: object) -> bool:
        return any(pair == item for pair in self)


class ModelTally:
    """One model's arms, the runs seen, and where each case was first seen."""

    __slots__ = ("arms", "case_first", "first", "runs")

    def __init__(self, first: int) -> None:
        self.first = first
        self.runs: set[int] = set()
        self.case_first: dict[str, int] = {}
        self.arms: dict[str, ArmTally] = {}

    def add(self, sample: Sample, index: int) -> None:
        self.first = min(self.first, index)
        self.runs.add(sample.run)
        seen = self.case_first.get(sample.case_id)
        if seen is None or index < seen:
            self.case_first[sample.case_id] = index
        arm = self.arms.get(sample.arm)
        if arm is None:
            arm = self.arms[sample.arm] = ArmTally()
        arm.add(sample)

    def case_order(self) -> list[str]:
        """The cases in the order first seen."""
        return sorted(self.case_first, key=self.case_first.__getitem__)


def tally_models(samples: Iterable[Sample]) -> dict[str, ModelTally]:
    """One :class:`ModelTally` per model, the samples' positions as their order."""
    models: dict[str, ModelTally] = {}
    for index, sample in enumerate(samples):
        found = models.get(sample.model)
        if found is None:
            found = models[sample.model] = ModelTally(index)
        found.add(sample, index)
    return models


@dataclass
class SampleCounts:
    """What summary.json counts over all samples of a run."""

    samples: int = 0
    errors: int = 0
    rejected: int = 0  # errors refused for their prompt (among ``errors``): missing, not graded
    skipped: int = 0  # skipped assertions
    ungraded: int = 0  # answers on which no check ran (every assertion skipped)

    def add(self, sample: Sample) -> None:
        self.samples += 1
        self.errors += sample.outcome == "error"
        self.rejected += prompt_rejected(sample)
        self.skipped += skipped_assertions(sample)
        self.ungraded += graded_outcome(sample) == "ungraded"

    @classmethod
    def of(cls, samples: Iterable[Sample]) -> SampleCounts:
        counts = cls()
        for sample in samples:
            counts.add(sample)
        return counts
