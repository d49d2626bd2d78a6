"""Which samples a run holds, in what order they run and are stored, and each run's params."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from upskill_hub.evaluation.types import ARMS, Arm, GenerationParams, Sample, SampleKey
from upskill_hub.skill.testcases import TestCase

__all__ = ["all_keys", "model_keys", "run_params", "sample_order"]


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


def model_keys(
    model: str,
    cases: Sequence[TestCase],
    runs: int,
    arms: Iterable[Arm],
    skip: Container[SampleKey] = (),
) -> Iterator[SampleKey]:
    """One model's keys of :func:`all_keys`, in the same order, generated one at a time
    (those in ``skip`` left out)."""
    arm_list = list(arms)
    for run in range(1, runs + 1):
        for arm in arm_list:
            for case in cases:
                key = (model, case.id, run, arm)
                if key not in skip:
                    yield key


def sample_order(models: Sequence[str], cases: Sequence[TestCase]) -> Callable[[Sample], Any]:
    """The sort key of stored samples: model, case, run, arm."""
    model_index = {m: i for i, m in enumerate(models)}
    case_index = {c.id: i for i, c in enumerate(cases)}
    arm_index = {a: i for i, a in enumerate(ARMS)}
    return lambda s: (
        model_index.get(s.model, len(model_index)),
        case_index.get(s.case_id, len(case_index)),
        s.run,
        arm_index.get(s.arm, 2),
    )
