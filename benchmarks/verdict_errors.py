"""Verdicts under errors: how often errors and prompt rejections buy a false "helps", and how
often they cost a true one, with the shipped rule (worst-case bounds) beside the rule before it.

    python benchmarks/verdict_errors.py               # 1,000 evals per setting (~1 min)
    python benchmarks/verdict_errors.py --evals 200   # quicker, noisier

Each simulated eval draws ``cases`` test cases, runs each ``runs`` times per arm, then damages
some samples as the setting says and computes the verdict with the shipped code
(:func:`upskill_hub.evaluation.stats.summarize.decide` on the per-case counts: the paired t interval
of the lift over the samples that were graded, and the verdict only if it survives every missing
sample filled against it). ``before`` is the rule of stats_version 2: a prompt rejection graded
as a fail of its arm, other errors left out, and "not comparable" when the arms' error counts
differed by at least 2 samples and 5% of an arm.

Populations (per case: pass probability without -> with the skill):

* ``same``: p ~ U(0, 1), the same in both arms (true lift 0);
* ``mixed``: 40% flip 0 -> 1, 30% always pass, 20% always fail, 10% 0.3 -> 0.6 (true lift 0.43).

Settings:

* ``no errors``: the reference;
* ``filter 10% of baseline passes``: a provider withholds 10% of the baseline's passing answers
  (``finish_reason: content_filter``): a rejection;
* ``server errors on 10% of baseline passes``: errors left after retries (a 5xx, or a 429 that
  does not say "too many tokens": before, a 429 that did was graded like the filter above);
* ``3% random errors, one arm``: errors on random with-skill samples;
* ``3% errors on baseline passes and skill fails``: the same number of errors in each arm, placed
  where they inflate the lift;
* ``one case errors in every with-skill run``: the hardest case for the skill is lost in one arm.

Reported per setting: the share of evals whose verdict is ``helps``, and ``not comparable``.
With ``same`` every "helps" is false; with ``mixed`` "helps" is the power.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from upskill_hub.evaluation.stats.intervals import paired_lift
from upskill_hub.evaluation.stats.summarize import (
    HELPS,
    NOT_COMPARABLE,
    CaseCounts,
    LiftEvidence,
    decide,
    verdict_of,
)

# per (eval) sample arrays: pass[arm][case, run] (bool), state[arm][case, run]: 0 graded,
# 1 error, 2 rejected
Damage = Callable[[np.random.Generator, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]


def draw(
    rng: np.random.Generator, population: str, cases: int, runs: int
) -> tuple[np.ndarray, np.ndarray]:
    if population == "same":
        p = rng.uniform(0, 1, size=cases)
        p_a, p_b = p, p
    else:
        spec = [(0.4, 0.0, 1.0), (0.3, 1.0, 1.0), (0.2, 0.0, 0.0), (0.1, 0.3, 0.6)]
        kinds = rng.choice(len(spec), size=cases, p=[s for s, _, _ in spec])
        p_a = np.array([a for _, a, _ in spec])[kinds]
        p_b = np.array([b for _, _, b in spec])[kinds]
    base = rng.random((cases, runs)) < p_a[:, None]
    skill = rng.random((cases, runs)) < p_b[:, None]
    return base, skill


def _some(rng: np.random.Generator, mask: np.ndarray, share: float) -> np.ndarray:
    return mask & (rng.random(mask.shape) < share)


def filter_base_passes(rng, base, skill, base_state, skill_state) -> None:
    base_state[_some(rng, base, 0.10)] = 2


def throttle_base_passes(rng, base, skill, base_state, skill_state) -> None:
    base_state[_some(rng, base, 0.10)] = 1


def random_skill_errors(rng, base, skill, base_state, skill_state) -> None:
    skill_state[rng.random(skill.shape) < 0.03] = 1


def adversarial_equal_errors(rng, base, skill, base_state, skill_state) -> None:
    n = max(1, round(0.03 * base.size))
    for state, where in ((base_state, base), (skill_state, ~skill)):
        spots = np.flatnonzero(where)
        if len(spots):
            state.flat[rng.choice(spots, size=min(n, len(spots)), replace=False)] = 1


def hardest_case_lost(rng, base, skill, base_state, skill_state) -> None:
    worst = int(np.argmin(skill.sum(axis=1) - base.sum(axis=1)))
    skill_state[worst, :] = 1


def no_errors(rng, base, skill, base_state, skill_state) -> None:
    pass


SETTINGS: dict[str, Damage] = {
    "no errors": no_errors,
    "filter 10% of baseline passes": filter_base_passes,
    "server errors on 10% of baseline passes": throttle_base_passes,
    "3% random errors, one arm": random_skill_errors,
    "3% errors on baseline passes and skill fails": adversarial_equal_errors,
    "one case errors in every with-skill run": hardest_case_lost,
}


def shipped(base, skill, base_state, skill_state, runs: int) -> str:
    counts = []
    for i in range(base.shape[0]):
        bg, sg = base_state[i] == 0, skill_state[i] == 0
        size = base.shape[1]
        counts.append(
            CaseCounts(
                f"c{i}",
                int((base[i] & bg).sum()),
                int(bg.sum()),
                size - int(bg.sum()),
                int((skill[i] & sg).sum()),
                int(sg.sum()),
                size - int(sg.sum()),
            )
        )
    decision = decide(LiftEvidence(tuple(counts), runs))
    return "no data" if decision is None else decision.verdict


def before(base, skill, base_state, skill_state, runs: int) -> str:
    """stats_version 2: rejections graded as fails, errors left out, the error-count rule."""
    diffs = []
    for i in range(base.shape[0]):
        bg, sg = base_state[i] != 1, skill_state[i] != 1
        if not bg.any() or not sg.any():
            continue
        b = (base[i] & (base_state[i] == 0)).sum() / bg.sum()
        s = (skill[i] & (skill_state[i] == 0)).sum() / sg.sum()
        diffs.append(float(s - b))
    if len(diffs) < 2:
        return "too few"
    errors = [int((state == 1).sum()) for state in (base_state, skill_state)]
    diff = abs(errors[0] - errors[1])
    if diff >= 2 and diff / max(base.size, 1) >= 0.05:
        return NOT_COMPARABLE
    return verdict_of(paired_lift(diffs).ci95)


def run_setting(
    setting: str, population: str, cases: int, runs: int, evals: int, seed: int
) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    tally = {"before": [0, 0], "shipped": [0, 0]}
    for _ in range(evals):
        base, skill = draw(rng, population, cases, runs)
        base_state = np.zeros(base.shape, dtype=np.int8)
        skill_state = np.zeros(skill.shape, dtype=np.int8)
        SETTINGS[setting](rng, base, skill, base_state, skill_state)
        for name, rule in (("before", before), ("shipped", shipped)):
            verdict = rule(base, skill, base_state, skill_state, runs)
            tally[name][0] += verdict == HELPS
            tally[name][1] += verdict.startswith(NOT_COMPARABLE)
    return {k: (100 * h / evals, 100 * n / evals) for k, (h, n) in tally.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print(
        "| setting | population | cases × runs | helps: before | helps: shipped "
        "| not comparable: before | not comparable: shipped |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    designs = [(20, 5), (50, 5)]
    for setting in SETTINGS:
        for population in ("same", "mixed"):
            for cases, runs in designs:
                got = run_setting(setting, population, cases, runs, args.evals, args.seed)
                (hb, nb), (hs, ns) = got["before"], got["shipped"]
                print(
                    f"| {setting} | {population} | {cases} × {runs} | {hb:.1f} | {hs:.1f} "
                    f"| {nb:.1f} | {ns:.1f} |",
                    flush=True,
                )
    print(f"\n{args.evals} evals per setting, {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
