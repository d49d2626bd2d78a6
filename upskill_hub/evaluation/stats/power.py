"""Planning an eval: how likely a design (cases x runs) is to call a lift "helps", and how many
cases a lift needs, by simulating evals and judging each with the shipped code.

Each simulated eval draws ``cases`` cases from a :class:`Population` (per case, the pass
probability without and with the skill), runs each ``runs`` times per arm, and judges it with
:func:`~upskill_hub.evaluation.stats.intervals.paired_lift` exactly as summary.json does
("helps" when the lift interval lies above zero; the floor and the sign-flip test included).
The probability of "helps" is the share of simulated evals judged so; the cases needed for a
power (80% by default) is the fewest cases reaching it (searched by doubling, then bisection;
each n uses the same random draws, so the estimate rises smoothly with n).

Populations:

* :func:`population_for_lift`: the default model for an expected lift ``L``. Baseline pass
  rates spread evenly over (0, 1); the skill closes a share ``2L`` of each case's gap to 1
  (``p -> p + 2L(1 - p)``; above ``L = 0.5`` every case passes with the skill and baseline rates
  spread over ``(0, 2(1 - L))``); a negative ``L`` mirrors it. Noisy cases, not all-or-nothing
  flips: a skill that flips whole cases is easier to see (``benchmarks/lift_coverage.py``).
* :func:`population_from_run`: a pilot run folder's own cases (their observed pass rates per
  arm), drawn with replacement.

Pure Python (``random``), deterministic for a seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from upskill_hub.errors import Param, UsageError
from upskill_hub.evaluation.stats.intervals import MIN_DETECT_CASES, least_true, paired_lift

__all__ = [
    "Plan",
    "Population",
    "Power",
    "describe",
    "plan",
    "population_for_lift",
    "population_from_run",
    "power_of",
    "too_few_tests_note",
]

#: The power :func:`plan` finds the cases for, and the lift ``generate`` judges its tests by.
TARGET_POWER = 0.80
NOTE_LIFT = 0.20
_GRID = 200  # cases of the default population (evenly spaced baseline rates)
MAX_CASES = 2000  # the search stops here ("more than 2000")


@dataclass(frozen=True)
class Population:
    """Cases to draw from: ``(p_without, p_with)`` each, drawn uniformly with replacement."""

    pairs: tuple[tuple[float, float], ...]
    source: str  # how it was made, for the report

    @property
    def lift(self) -> float:
        """The true lift of a case drawn from it."""
        return sum(b - a for a, b in self.pairs) / len(self.pairs)


def population_for_lift(lift: float) -> Population:
    """The default population with true lift ``lift`` (in [-1, 1]; see the module docstring)."""
    if not -1.0 <= lift <= 1.0:
        raise UsageError(Param("lift"), f" {lift:g} must be between -1 and 1 (a pass-rate change)")
    size = abs(lift)
    grid = [(i + 0.5) / _GRID for i in range(_GRID)]
    if size <= 0.5:
        pairs = [(p, p + 2 * size * (1 - p)) for p in grid]
    else:
        top = 2 * (1 - size)
        pairs = [(p * top, 1.0) for p in grid]
    if lift < 0:
        pairs = [(b, a) for a, b in pairs]
    return Population(tuple(pairs), f"expected lift {lift * 100:+.0f} pts (default model)")


def population_from_run(pilot: Path, model: str | None = None) -> Population:
    """A pilot run's cases: per case graded in both arms, its pass rate without and with the
    skill (errors left out, as the statistics do), for ``model`` (default: the run's first)."""
    from upskill_hub.evaluation.run.folder import RunFolder
    from upskill_hub.evaluation.run.samples import iter_samples
    from upskill_hub.evaluation.stats.tallies import tally_models

    run_dir = Path(pilot)
    folder = RunFolder(run_dir)
    if not folder.samples_file.is_file():
        raise UsageError(Param("pilot"), f" {run_dir}: not a run folder (no samples.jsonl)")
    models = tally_models(iter_samples(folder.samples_file))
    if not models:
        raise UsageError(Param("pilot"), f" {run_dir}: the run has no samples")
    name = model or min(models, key=lambda m: models[m].first)
    if name not in models:
        raise UsageError(
            Param("model"), f" {name} is not in {run_dir} (it has {', '.join(sorted(models))})"
        )
    arms = models[name].arms
    base = arms["baseline"].tally() if "baseline" in arms else {}
    skill = arms["with_skill"].tally() if "with_skill" in arms else {}
    pairs = tuple(
        (base[c][0] / base[c][1], skill[c][0] / skill[c][1])
        for c in models[name].case_order()
        if c in base and c in skill
    )
    if len(pairs) < 2:
        raise UsageError(
            Param("pilot"),
            f" {run_dir}: {len(pairs)} case(s) of {name} graded in both arms; a pilot needs 2",
        )
    return Population(pairs, f"pilot {run_dir} ({name}, {len(pairs)} cases)")


@dataclass(frozen=True)
class Power:
    """How often simulated evals of one design were judged each way."""

    cases: int
    runs: int
    sims: int
    helps: float
    hurts: float
    too_few: float  # share whose design could show no lift (3 or fewer cases, MDE above 100)


def _draw(rng: random.Random, p: float, runs: int) -> int:
    draw = rng.random
    return sum(1 for _ in range(runs) if draw() < p)


def power_of(
    population: Population, n_cases: int, runs: int, *, sims: int = 1000, seed: int = 0
) -> Power:
    """Simulate ``sims`` evals of ``n_cases`` x ``runs``; judge each with :func:`paired_lift`."""
    cases = n_cases
    if cases < 1:
        raise UsageError(Param("n_cases"), f" {cases} must be at least 1")
    if runs < 1:
        raise UsageError(Param("runs"), f" {runs} must be at least 1")
    rng = random.Random(seed)
    pairs = population.pairs
    helps = hurts = too_few = 0
    for _ in range(sims):
        diffs = []
        for _ in range(cases):
            a, b = pairs[int(rng.random() * len(pairs))]
            diffs.append((_draw(rng, b, runs) - _draw(rng, a, runs)) / runs)
        result = paired_lift(diffs, runs=runs, sign_flip=False)
        lo, hi = result.ci95
        helps += lo > 0
        hurts += hi < 0
        too_few += lo <= 0 <= hi and not result.detectable
    return Power(cases, runs, sims, helps / sims, hurts / sims, too_few / sims)


@dataclass(frozen=True)
class Plan:
    """What a design can show: the chance of "helps" at ``cases`` x ``runs`` and the cases the
    target power needs (None: more than :data:`MAX_CASES`)."""

    population: str
    lift: float
    cases: int
    runs: int
    sims: int
    p_helps: float
    p_hurts: float
    target_power: float
    cases_needed: int | None

    @property
    def too_few(self) -> bool:
        """Whether ``cases`` fall short of the target power."""
        return self.p_helps < self.target_power

    def to_dict(self) -> dict[str, Any]:
        return {
            "population": self.population,
            "lift": round(self.lift, 6),
            "cases": self.cases,
            "runs": self.runs,
            "simulated_evals": self.sims,
            "p_helps": round(self.p_helps, 4),
            "p_hurts": round(self.p_hurts, 4),
            "target_power": self.target_power,
            "cases_needed": self.cases_needed,
            "cases_needed_limit": MAX_CASES,
        }


def _cases_needed(
    population: Population, runs: int, target: float, sims: int, seed: int
) -> int | None:
    """The fewest cases whose simulated P(helps) reaches ``target`` (same draws for every n)."""

    def enough(n: int) -> bool:
        return power_of(population, n, runs, sims=sims, seed=seed).helps >= target

    if population.lift <= 0:
        return None
    return least_true(enough, MIN_DETECT_CASES, MAX_CASES)  # MIN_DETECT_CASES: known too few


def plan(
    population: Population,
    n_cases: int,
    runs: int,
    *,
    target_power: float = TARGET_POWER,
    sims: int = 1000,
    seed: int = 0,
) -> Plan:
    """The chance that ``n_cases`` x ``runs`` is judged "helps" under ``population``, and the
    cases ``target_power`` needs at ``runs``."""
    cases = n_cases
    if not 0 < target_power < 1:
        raise UsageError(Param("target_power"), f" {target_power:g} must be between 0 and 1")
    if sims < 10:
        raise UsageError(Param("sims"), f" {sims} must be at least 10")
    found = power_of(population, cases, runs, sims=sims, seed=seed)
    needed = _cases_needed(population, runs, target_power, sims, seed)
    return Plan(
        population.source,
        population.lift,
        cases,
        runs,
        sims,
        found.helps,
        found.hurts,
        target_power,
        needed,
    )


def too_few_tests_note(cases: int, runs: int, *, lift: float = NOTE_LIFT) -> str | None:
    """One line when ``cases`` tests at ``runs`` runs are too few to judge a ``lift``-sized
    gain (under 80% power in :func:`plan`'s default model), else None. ``generate`` prints it."""
    population = population_for_lift(lift)
    if power_of(population, cases, runs, sims=300).helps >= TARGET_POWER:
        return None  # enough: no need to search for the cases
    found = plan(population, cases, runs, sims=300)
    need = f"about {found.cases_needed}" if found.cases_needed else f"more than {MAX_CASES}"
    return (
        f"{cases} tests x {runs} run(s) are too few to judge a {lift * 100:.0f}-pt lift: "
        f"'helps' in {found.p_helps * 100:.0f}% of simulated evals; {need} tests reach "
        f"{found.target_power * 100:.0f}%"
    )


def describe(found: Plan) -> Sequence[str]:
    """The plan as lines of text (what the CLI prints)."""
    need = (
        f"{found.cases_needed}"
        if found.cases_needed
        else ("none: no positive lift to detect" if found.lift <= 0 else f"more than {MAX_CASES}")
    )
    return [
        f"population: {found.population}; true lift {found.lift * 100:+.1f} pts",
        f"{found.cases} cases x {found.runs} runs: 'helps' in {found.p_helps * 100:.1f}% of "
        f"{found.sims} simulated evals ('hurts' in {found.p_hurts * 100:.1f}%)",
        f"cases needed for {found.target_power * 100:.0f}% power at {found.runs} runs: {need}",
    ]
