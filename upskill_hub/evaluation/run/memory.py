"""What a run keeps in memory of its finished samples: running tallies, not the samples.

:class:`RunTally` is updated as each sample finishes (and with the samples a resume keeps).
It holds the statistics' tallies (:mod:`~upskill_hub.evaluation.stats.tallies`: counts per model,
arm and case, token sums, one latency per answered sample), agent usage counts, summary.json's
counts, the first error of each model and arm, and, per planned sample key, a few fixed-width
numbers in flat arrays (outcome, assertions passed and graded, latency, tokens, tool calls:
about 30 bytes) from which benchmark.json is written run by run in key order. No sample object
is kept. :class:`RunRecords` reads the compact records back from samples.jsonl when asked.

Key order (the order the runs are stored and reported in) is model, case, run, arm, as in
:func:`~upskill_hub.evaluation.run.order.sample_order`; a key's position in it is its index.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from upskill_hub.evaluation.agent.usage import AgentTally
from upskill_hub.evaluation.run.benchmark_json import (
    BENCHMARK_FILE,
    benchmark_chunks,
    benchmark_files,
    benchmark_head,
    eval_ids,
    in_means,
    run_entry,
    run_result,
    sample_checks,
)
from upskill_hub.evaluation.run.records import RunInfo
from upskill_hub.evaluation.stats.tallies import ModelTally, SampleCounts
from upskill_hub.evaluation.types import ARMS, Sample, SampleKey

__all__ = ["RunRecords", "RunTally"]


_OUTCOMES = ("pass", "fail", "error")
_CODE = {name: code for code, name in enumerate(_OUTCOMES)}
_GUIDE_ARM = {"with_skill": "with_skill", "baseline": "without_skill"}


class RunTally:
    """Running aggregates of one run's finished samples (see the module docstring)."""

    def __init__(self, models: Sequence[str], case_ids: Sequence[str], runs: int) -> None:
        self.model_ids = list(models)
        self.case_ids = list(case_ids)
        self.runs = runs
        self._model = {m: i for i, m in enumerate(self.model_ids)}
        self._case = {c: i for i, c in enumerate(self.case_ids)}
        self._arm: dict[str, int] = {a: i for i, a in enumerate(ARMS)}
        size = len(self.model_ids) * len(self.case_ids) * runs * len(ARMS)
        self.outcome = array("b", [-1]) * size  # -1: not finished, else an index of _OUTCOMES
        self.passed = array("i", [0]) * size  # assertions passed (benchmark.json)
        self.checked = array("i", [0]) * size  # assertions graded (skipped ones left out)
        self.seconds = array("d", [0.0]) * size
        self.tokens = array("q", [0]) * size
        self.tool_calls = array("i", [0]) * size
        self.models: dict[str, ModelTally] = {}
        self.agent = AgentTally()
        self.counts = SampleCounts()
        self.first_error: dict[tuple[str, str], tuple[int, str | None]] = {}

    def index(self, key: SampleKey) -> int | None:
        """The key's position in key order, None for a key outside the run."""
        model, case, run, arm = key
        m, c, a = self._model.get(model), self._case.get(case), self._arm.get(arm)
        if m is None or c is None or a is None or not 1 <= run <= self.runs:
            return None
        return ((m * len(self.case_ids) + c) * self.runs + run - 1) * len(ARMS) + a

    def key(self, index: int) -> SampleKey:
        rest, a = divmod(index, len(ARMS))
        rest, r = divmod(rest, self.runs)
        m, c = divmod(rest, len(self.case_ids))
        return (self.model_ids[m], self.case_ids[c], r + 1, ARMS[a])

    def has(self, key: SampleKey) -> bool:
        index = self.index(key)
        return index is not None and self.outcome[index] >= 0

    def add(self, sample: Sample) -> None:
        """Count a finished sample (one per key: a key counted already is an error)."""
        index = self.index(sample.key)
        if index is None:
            raise ValueError(f"sample {sample.key} is not a key of this run")
        if self.outcome[index] >= 0:
            raise ValueError(f"sample {sample.key} counted twice")
        self.outcome[index] = _CODE[sample.outcome]
        self.passed[index], self.checked[index] = sample_checks(sample)
        self.seconds[index] = sample.latency_s
        self.tokens[index] = sample.input_tokens + sample.output_tokens
        self.tool_calls[index] = len(sample.tool_calls)
        tally = self.models.get(sample.model)
        if tally is None:
            tally = self.models[sample.model] = ModelTally(index)
        tally.add(sample, index)
        self.agent.add(sample, index)
        self.counts.add(sample)
        if sample.outcome == "error":
            arm = (sample.model, sample.arm)
            first = self.first_error.get(arm)
            if first is None or index < first[0]:
                self.first_error[arm] = (index, sample.error)

    @property
    def count(self) -> int:
        return self.counts.samples

    @property
    def errors(self) -> int:
        return self.counts.errors

    def _indices(self, model: str) -> Iterator[int]:
        """The finished keys of one model, in key order."""
        m = self._model[model]
        block = len(self.case_ids) * self.runs * len(ARMS)
        outcome = self.outcome
        for index in range(m * block, (m + 1) * block):
            if outcome[index] >= 0:
                yield index

    def _values(self, model: str) -> dict[str, dict[str, array[float]]]:
        """benchmark.json's figures of one model's non-error runs, per arm, in key order."""
        values: dict[str, dict[str, array[float]]] = {}
        if model not in self._model:
            return {}
        error = _CODE["error"]
        for index in self._indices(model):
            if self.outcome[index] == error:
                continue
            result = self._result(index)
            if not in_means(result):
                continue
            arm = values.setdefault(_GUIDE_ARM[ARMS[index % len(ARMS)]], {})
            for metric in ("pass_rate", "time_seconds", "tokens"):
                arm.setdefault(metric, array("d")).append(float(result[metric]))
        return values

    def _result(self, index: int) -> dict[str, Any]:
        return run_result(
            self.passed[index],
            self.checked[index],
            self.seconds[index],
            self.tokens[index],
            self.tool_calls[index],
            self.outcome[index] == _CODE["error"],
        )

    def write_benchmark(self, run_dir: Path, info: RunInfo) -> Path:
        """Each model's benchmark file (benchmark.json for the first), as
        :func:`~upskill_hub.evaluation.run.benchmark_json.write_benchmark` writes them from the
        samples in key order, streamed run by run; returns benchmark.json's path."""
        from upskill_hub.atomic_io import atomic_write_chunks

        present = [m for m in self.model_ids if m in self.models]
        models = list(info.models or present)
        models += [m for m in present if m not in models]
        files = benchmark_files(models)
        cases = list(dict.fromkeys(info.case_ids))
        cases += [c for c in self.case_ids if c not in cases]
        ids = eval_ids(cases)
        arms = len(ARMS)
        with_first = sorted(range(arms), key=lambda a: ARMS[a] != "with_skill")

        def runs(model: str) -> Iterator[dict[str, Any]]:
            # key order (case, run, arm), each (case, run) with_skill first
            if model not in self._model:
                return
            m = self._model[model]
            block = len(self.case_ids) * self.runs * arms
            for pair in range(m * block, (m + 1) * block, arms):
                for a in with_first:
                    index = pair + a
                    if self.outcome[index] < 0:
                        continue
                    _, case, run, arm = self.key(index)
                    yield run_entry(case, model, arm, run, self._result(index), ids[case])

        chosen: list[str | None] = list(models) or [None]  # no sample: an empty file
        for model in chosen:
            head = benchmark_head(info, models, self._values, model)
            name = files.get(model, BENCHMARK_FILE) if model is not None else BENCHMARK_FILE
            chunks = benchmark_chunks(head, runs(model) if model is not None else iter(()))
            atomic_write_chunks(Path(run_dir) / name, chunks)
        return Path(run_dir) / BENCHMARK_FILE


class RunRecords:
    """The compact records (:func:`~upskill_hub.evaluation.run.samples.compact`) of a run's
    finished samples, in key order, read from samples.jsonl each time they are iterated (the
    run does not hold them; iterating holds them until the loop ends, to sort them)."""

    def __init__(self, samples_file: Path, tally: RunTally) -> None:
        self.samples_file = Path(samples_file)
        self.tally = tally

    def __len__(self) -> int:
        return self.tally.count

    def __iter__(self) -> Iterator[Sample]:
        from upskill_hub.evaluation.run.samples import compact, iter_samples

        found: dict[int, Sample] = {}
        for sample in iter_samples(self.samples_file):
            index = self.tally.index(sample.key)
            if index is not None and self.tally.outcome[index] >= 0:
                found[index] = compact(sample)  # the last line of a key wins
        for index in sorted(found):
            yield found[index]
