"""How often ``results reproduce`` says "agrees": simulated original runs and replications.

    python benchmarks/replication_agreement.py             # 1,000 pairs per setting (~1 min)
    python benchmarks/replication_agreement.py --sims 300  # quicker, noisier

Each simulated pair: an original run of ``N`` cases × ``R`` runs per arm, then a replication
of a seeded random subset of ``n`` of the same cases × ``r`` runs, judged with the shipped
code: the lift intervals by :func:`upskill_hub.evaluation.stats.intervals.paired_lift` (as
summary.json), then :func:`upskill_hub.publish.reproduce.agreement` on the two runs' rows and
samples, as ``results reproduce`` does.

Two questions per population and design:

* **same model** (the replication draws from the same per-case pass probabilities): the share
  judged "agrees"; one minus it is the false-disagreement rate;
* **other model** (the replication's model gains nothing from the skill: its with-skill arm
  draws the baseline probabilities): the share judged "disagrees", the power to catch a figure
  a model did not earn.

Populations (per case: pass probability without -> with the skill):

* ``flips``: 60% flip 0 -> 1, 20% always pass, 20% always fail (deterministic cases);
* ``mixed``: 40% flip 0 -> 1, 30% always pass, 20% always fail, 10% noisy 0.3 -> 0.6;
* ``noisy``: p ~ U(0, 1) per case, p -> min(1, p + 0.3) (every case flaky).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from upskill_hub.evaluation.stats.intervals import paired_lift
from upskill_hub.publish.reproduce import agreement
from upskill_hub.registry.evidence.index import AGREEMENT_RATE

Pair = tuple[float, float]


def _flips(rng: random.Random) -> Pair:
    u = rng.random()
    return (0.0, 1.0) if u < 0.6 else (1.0, 1.0) if u < 0.8 else (0.0, 0.0)


def _mixed(rng: random.Random) -> Pair:
    u = rng.random()
    if u < 0.4:
        return (0.0, 1.0)
    if u < 0.7:
        return (1.0, 1.0)
    return (0.0, 0.0) if u < 0.9 else (0.3, 0.6)


def _noisy(rng: random.Random) -> Pair:
    p = rng.random()
    return (p, min(1.0, p + 0.3))


POPULATIONS: dict[str, Callable[[random.Random], Pair]] = {
    "flips": _flips,
    "mixed": _mixed,
    "noisy": _noisy,
}
#: (original cases, original runs, replication cases, replication runs)
DESIGNS = ((40, 3, 40, 3), (40, 3, 10, 1), (40, 3, 10, 3), (40, 1, 10, 1), (20, 5, 5, 1))


Run = tuple[list[dict[str, object]], list[dict[str, object]]]


def _run(rng: random.Random, cases: list[tuple[str, Pair]], runs: int) -> Run:
    """Summary rows and samples (as the dataset's rows) of one simulated run."""
    samples: list[dict[str, object]] = []
    diffs = []
    for case_id, (p0, p1) in cases:
        passed = {}
        for arm, p in (("baseline", p0), ("with_skill", p1)):
            outcomes = ["pass" if rng.random() < p else "fail" for _ in range(runs)]
            samples += [
                {"model": "m", "case_id": case_id, "arm": arm, "outcome": o} for o in outcomes
            ]
            passed[arm] = outcomes.count("pass")
        diffs.append((passed["with_skill"] - passed["baseline"]) / runs)
    result = paired_lift(diffs, runs=runs)
    low, high = result.ci95
    row = {"model": "m", "lift": result.lift, "lift_ci_low": low, "lift_ci_high": high}
    return [row], samples


def judge(
    draw: Callable[[random.Random], Pair], design: tuple[int, int, int, int], sims: int, seed: int
) -> tuple[float, float, float]:
    """(agrees when the same model replicates, disagrees when another model does, mean case
    agreement of the same model)."""
    big_n, big_r, n, r = design
    rng = random.Random(seed)
    same = other = 0
    rates = 0.0
    for _ in range(sims):
        cases = [(f"c{i}", draw(rng)) for i in range(big_n)]
        o_rows, o_samples = _run(rng, cases, big_r)
        subset = rng.sample(cases, n)
        for kind in ("same", "other"):
            pool = subset if kind == "same" else [(c, (p0, p0)) for c, (p0, _) in subset]
            rows, samples = _run(rng, pool, r)
            found = agreement(o_rows, o_samples, "m", rows, samples, "m", r)
            if kind == "same":
                same += found.agrees
                rates += found.case_agreement or 0.0
            else:
                other += not found.agrees
    return same / sims, other / sims, rates / sims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"agreement rate {AGREEMENT_RATE:.0%}; {args.sims} simulated pairs per row")
    header = (
        f"{'population':<8} {'original':>9} {'replication':>11} {'same: agrees':>13} "
        f"{'mean case agr.':>15} {'other: disagrees':>17}"
    )
    print(header)
    for name, draw in POPULATIONS.items():
        for design in DESIGNS:
            same, other, rate = judge(draw, design, args.sims, args.seed)
            big_n, big_r, n, r = design
            print(
                f"{name:<8} {f'{big_n}x{big_r}':>9} {f'{n}x{r}':>11} {same:>13.1%} "
                f"{rate:>15.1%} {other:>17.1%}"
            )
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
