"""Coverage of the lift interval: simulated evals with a known true lift.

    python benchmarks/lift_coverage.py              # 4,000 evals per setting (~1 min, one core)
    python benchmarks/lift_coverage.py --evals 500  # quicker, noisier

Each simulated eval draws ``cases`` test cases from a population, runs each ``runs`` times per
arm, and computes the lift interval with the shipped code
(:func:`upskill_hub.evaluation.statistics.paired_lift`: paired t over cases with the spread
floor and the few-cluster correction) and three alternatives: a plain paired t (neither), a
percentile case bootstrap (500 draws) and Newcombe's interval counting every run as
independent (what stats_version 1 used).
For each setting it prints how often the 95% interval held the true lift and its mean
half-width. Populations (per case: pass probability without -> with the skill):

* ``mixed``: 40% flip 0 -> 1, 30% always pass, 20% always fail, 10% noisy 0.3 -> 0.6
  (true lift 0.43);
* ``null``: 20% fixed 0 -> 1, 20% broken 1 -> 0, 30% always pass, 30% always fail (true lift 0);
* ``noisy``: p ~ U(0, 1) per case, p -> min(1, p + 0.2) (true lift 0.18);
* ``allflip``: every case flips 0 -> 1 (true lift 1; only the spread floor gives a width).

The shipping rule (issue "Lift you can trust"): coverage at least 93% in every setting with 8 or
more cases; the last line says whether it holds.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from upskill_hub.evaluation.statistics import newcombe_interval, paired_lift, t_quantile

# (name, [(share, p_without, p_with)] or "uniform", true lift)
POPULATIONS: dict[str, tuple[list[tuple[float, float, float]] | str, float]] = {
    "mixed": ([(0.4, 0.0, 1.0), (0.3, 1.0, 1.0), (0.2, 0.0, 0.0), (0.1, 0.3, 0.6)], 0.43),
    "null": ([(0.2, 0.0, 1.0), (0.2, 1.0, 0.0), (0.3, 1.0, 1.0), (0.3, 0.0, 0.0)], 0.0),
    "noisy": ("uniform", 0.18),
    "allflip": ([(1.0, 0.0, 1.0)], 1.0),
}
CASES = (3, 5, 8, 10, 20, 40)
RUNS = (1, 5, 10)


def draw_probabilities(
    rng: np.random.Generator, population: str, evals: int, cases: int
) -> tuple[np.ndarray, np.ndarray]:
    spec, _ = POPULATIONS[population]
    if spec == "uniform":
        p_a = rng.uniform(0, 1, size=(evals, cases))
        return p_a, np.minimum(1.0, p_a + 0.2)
    assert not isinstance(spec, str)
    shares = np.array([s for s, _, _ in spec])
    kinds = rng.choice(len(spec), size=(evals, cases), p=shares / shares.sum())
    return np.array([a for _, a, _ in spec])[kinds], np.array([b for _, _, b in spec])[kinds]


def simulate(
    population: str, cases: int, runs: int, evals: int, seed: int
) -> dict[str, tuple[float, float]]:
    """``method -> (coverage, mean half-width)`` over ``evals`` simulated evals."""
    rng = np.random.default_rng(seed)
    truth = POPULATIONS[population][1]
    p_a, p_b = draw_probabilities(rng, population, evals, cases)
    pass_a = rng.binomial(runs, p_a)  # passes per case, shape (evals, cases)
    pass_b = rng.binomial(runs, p_b)
    diffs = (pass_b - pass_a) / runs
    results: dict[str, list[tuple[float, float]]] = {"shipped": [], "t": [], "newcombe": []}
    tq = t_quantile(0.975, cases - 1) if cases > 1 else float("nan")
    for e in range(evals):
        d = diffs[e]
        results["shipped"].append(paired_lift(d.tolist()).ci95)
        mean, sd = float(d.mean()), float(d.std(ddof=1)) if cases > 1 else 0.0
        half = tq * sd / np.sqrt(cases)
        results["t"].append((max(-1.0, mean - half), min(1.0, mean + half)))
        total = cases * runs
        results["newcombe"].append(
            newcombe_interval(int(pass_a[e].sum()), total, int(pass_b[e].sum()), total)
        )
    # case bootstrap, vectorized: 500 resamples of whole cases per eval
    draws = 500
    idx = rng.integers(0, cases, size=(evals, draws, cases))
    means = np.take_along_axis(diffs[:, None, :].repeat(draws, axis=1), idx, axis=2).mean(axis=2)
    lo, hi = np.quantile(means, 0.025, axis=1), np.quantile(means, 0.975, axis=1)
    results["bootstrap"] = list(zip(lo.tolist(), hi.tolist(), strict=True))
    out = {}
    for method, intervals in results.items():
        arr = np.array(intervals)
        eps = 1e-9
        covered = (arr[:, 0] <= truth + eps) & (truth - eps <= arr[:, 1])
        out[method] = (float(covered.mean()), float(((arr[:, 1] - arr[:, 0]) / 2).mean()))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--evals", type=int, default=4000, help="simulated evals per setting")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    methods = ("shipped", "t", "bootstrap", "newcombe")
    print(f"95% lift interval: coverage % (mean half-width), {args.evals} evals per setting")
    print(
        "| population | true lift | cases | runs | shipped: paired t, floored | paired t "
        "| case bootstrap | Newcombe over runs |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    start = time.perf_counter()
    worst = 1.0
    seed = args.seed
    for population, (_, truth) in POPULATIONS.items():
        runs_list = (5,) if population == "allflip" else RUNS
        for cases in CASES:
            for runs in runs_list:
                seed += 1
                res = simulate(population, cases, runs, args.evals, seed)
                cells = [f"{res[m][0] * 100:.1f} ({res[m][1]:.2f})" for m in methods]
                print(
                    f"| {population} | {truth:+.2f} | {cases} | {runs} | "
                    + " | ".join(cells)
                    + " |"
                )
                if cases >= 8:
                    worst = min(worst, res["shipped"][0])
    elapsed = time.perf_counter() - start
    ok = worst >= 0.93
    print(
        f"\nlowest coverage of the shipped interval with >= 8 cases: {worst * 100:.1f}% "
        f"({'meets' if ok else 'FAILS'} the 93% rule); {elapsed:.0f}s"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
