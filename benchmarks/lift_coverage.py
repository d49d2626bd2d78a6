"""Coverage, false verdicts and power of the lift interval: simulated evals with a known true lift.

    python benchmarks/lift_coverage.py               # 2,000 evals per setting (~1.5 min, 1 core)
    python benchmarks/lift_coverage.py --evals 500   # quicker, noisier
    python benchmarks/lift_coverage.py --only beta,shock-arm

Each simulated eval draws ``cases`` test cases from a population, runs each ``runs`` times per
arm and judges it with the shipped code: :func:`upskill_hub.evaluation.stats.intervals.paired_lift`
with ``runs`` (paired t over cases, CR1 correction, the spread floor, which drops from a whole
flip to one run's flip only when the exact sign-flip test over the cases rejects), "helps" when
the interval lies above zero and "hurts" when below, as summary.json does. Next to it: the
previous rule (the whole-flip floor always, no sign-flip test: ``paired_lift(d)``) and
Newcombe's interval counting every run as independent (stats_version 1).

For each setting it prints how often the 95% interval held the true lift, its mean half-width,
and how often the verdict was "helps" / "hurts": at a true lift of 0 those are false verdicts
(the target is at most 2.5% each), otherwise "helps" is the power.

Populations (per case: pass probability without -> with the skill; "runs" draw independently
unless a shock is named):

* ``mixed``: 40% flip 0 -> 1, 30% always pass, 20% always fail, 10% noisy 0.3 -> 0.6;
* ``null``: 20% fixed 0 -> 1, 20% broken 1 -> 0, 30% always pass, 30% always fail (lift 0);
* ``noisy``: p ~ U(0, 1) per case, p -> min(1, p + 0.2);
* ``allflip``: every case flips 0 -> 1 (only the spread floor gives a width);
* ``beta``: Beta-mixture case difficulties, half Beta(0.5, 4) (floor), half Beta(4, 0.5)
  (ceiling); the skill adds 1 on the logit scale;
* ``beta-null``: the same difficulties, the skill changes nothing (lift 0);
* ``mixed-sign``: Beta-mixture difficulties, per-case logit effects ~ N(0.3, 1.5): partly
  harmful, heterogeneous;
* ``uniform-gain``: every case 0 -> 0.2 (a small gain everywhere, at the floor);
* ``rare-flips``: 70% always pass, 20% always fail, 10% flip 0 -> 1 (floor/ceiling rates);
* ``hidden-harm``: 10% broken 1 -> 0, 90% 0 -> 1/9: true lift 0, but a sample without a broken
  case looks like a small gain everywhere (a weak null no test over few cases can tell apart);
* ``shock-arm``: ``noisy``, plus a logit shock ~ N(0, 0.5) per run and arm (a provider degrading
  for a minute, hitting one arm's requests of that run);
* ``shock-shared``: the same shock shared by both arms of a run (both arms of a case and run in
  the same time slot, as the runner and ``--resume`` keep them): it cancels.

The rule (the last lines): with 8 or more cases, coverage at least 93% and each false verdict at
most 2.5% (+ simulation noise) in every population whose assumptions hold (independent cases,
both arms exchangeable under no effect: all but ``rare-flips``, ``hidden-harm`` and
``shock-arm``, which are reported as the limits they are). ``--errors`` adds the adversarial
errors check (samples through :func:`~upskill_hub.evaluation.stats.summarize.summarize`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from upskill_hub.evaluation.stats.intervals import newcombe_interval, paired_lift

Draw = Callable[[np.random.Generator, int, int], tuple[np.ndarray, np.ndarray]]


def _discrete(spec: list[tuple[float, float, float]]) -> Draw:
    shares = np.array([s for s, _, _ in spec])
    a = np.array([x for _, x, _ in spec])
    b = np.array([y for _, _, y in spec])

    def draw(rng: np.random.Generator, evals: int, cases: int) -> tuple[np.ndarray, np.ndarray]:
        kinds = rng.choice(len(spec), size=(evals, cases), p=shares / shares.sum())
        return a[kinds], b[kinds]

    return draw


def _expit(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return np.log(p / (1 - p))


def _beta_mixture(rng: np.random.Generator, evals: int, cases: int) -> np.ndarray:
    low = rng.random((evals, cases)) < 0.5
    return np.where(low, rng.beta(0.5, 4, (evals, cases)), rng.beta(4, 0.5, (evals, cases)))


def _beta(effect: float) -> Draw:
    def draw(rng: np.random.Generator, evals: int, cases: int) -> tuple[np.ndarray, np.ndarray]:
        p = _beta_mixture(rng, evals, cases)
        return p, _expit(_logit(p) + effect)

    return draw


def _mixed_sign(rng: np.random.Generator, evals: int, cases: int) -> tuple[np.ndarray, np.ndarray]:
    p = _beta_mixture(rng, evals, cases)
    return p, _expit(_logit(p) + rng.normal(0.3, 1.5, (evals, cases)))


def _noisy(rng: np.random.Generator, evals: int, cases: int) -> tuple[np.ndarray, np.ndarray]:
    p = rng.uniform(0, 1, size=(evals, cases))
    return p, np.minimum(1.0, p + 0.2)


# name -> (draw, shock: None / "arm" / "shared", true lift or None (computed), in the rule)
POPULATIONS: dict[str, tuple[Draw, str | None, float | None, bool]] = {
    "mixed": (
        _discrete([(0.4, 0, 1), (0.3, 1, 1), (0.2, 0, 0), (0.1, 0.3, 0.6)]),
        None,
        0.43,
        True,
    ),
    "null": (_discrete([(0.2, 0, 1), (0.2, 1, 0), (0.3, 1, 1), (0.3, 0, 0)]), None, 0.0, True),
    "noisy": (_noisy, None, 0.18, True),
    "allflip": (_discrete([(1.0, 0, 1)]), None, 1.0, True),
    "beta": (_beta(1.0), None, None, True),
    "beta-null": (_beta(0.0), None, 0.0, True),
    "mixed-sign": (_mixed_sign, None, None, True),
    "uniform-gain": (_discrete([(1.0, 0, 0.2)]), None, 0.2, True),
    "rare-flips": (_discrete([(0.7, 1, 1), (0.2, 0, 0), (0.1, 0, 1)]), None, 0.1, False),
    "hidden-harm": (_discrete([(0.1, 1, 0), (0.9, 0, 1 / 9)]), None, 0.0, False),
    "shock-arm": (_noisy, "arm", None, False),
    "shock-shared": (_noisy, "shared", None, True),
}
CASES = (3, 5, 8, 10, 20, 40)
RUNS = (1, 3, 5, 10)
SHOCK_SD = 0.5


def _passes(
    rng: np.random.Generator, p_a: np.ndarray, p_b: np.ndarray, runs: int, shock: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """Passes per case and arm, shape (evals, cases)."""
    if shock is None:
        return rng.binomial(runs, p_a), rng.binomial(runs, p_b)
    evals = p_a.shape[0]
    s_a = rng.normal(0, SHOCK_SD, (evals, 1, runs))
    s_b = s_a if shock == "shared" else rng.normal(0, SHOCK_SD, (evals, 1, runs))
    q_a = _expit(_logit(p_a)[:, :, None] + s_a)
    q_b = _expit(_logit(p_b)[:, :, None] + s_b)
    return (
        (rng.random(q_a.shape) < q_a).sum(axis=2),
        (rng.random(q_b.shape) < q_b).sum(axis=2),
    )


def true_lift(name: str, runs: int) -> float:
    """The population's lift: given, or by Monte Carlo (500,000 cases, fixed seed)."""
    draw, shock, given, _ = POPULATIONS[name]
    if given is not None and shock is None:
        return given
    rng = np.random.default_rng(7)
    p_a, p_b = draw(rng, 500, 1000)
    if shock is None:
        return float((p_b - p_a).mean())
    s_a = rng.normal(0, SHOCK_SD, p_a.shape)
    s_b = s_a if shock == "shared" else rng.normal(0, SHOCK_SD, p_a.shape)
    return float((_expit(_logit(p_b) + s_b) - _expit(_logit(p_a) + s_a)).mean())


def simulate(name: str, cases: int, runs: int, evals: int, seed: int) -> dict[str, Any]:
    """Coverage, mean half-width and verdict rates of the shipped and the previous rule."""
    draw, shock, _, _ = POPULATIONS[name]
    truth = true_lift(name, runs)
    rng = np.random.default_rng(seed)
    p_a, p_b = draw(rng, evals, cases)
    pass_a, pass_b = _passes(rng, p_a, p_b, runs, shock)
    diffs = (pass_b - pass_a) / runs
    out: dict[str, Any] = {"truth": truth}
    eps = 1e-9
    for rule, k in (("shipped", runs), ("previous", 1)):
        ci = np.array([paired_lift(d.tolist(), runs=k, sign_flip=False).ci95 for d in diffs])
        covered = (ci[:, 0] <= truth + eps) & (truth - eps <= ci[:, 1])
        out[rule] = {
            "coverage": float(covered.mean()),
            "half_width": float(((ci[:, 1] - ci[:, 0]) / 2).mean()),
            "helps": float((ci[:, 0] > 0).mean()),
            "hurts": float((ci[:, 1] < 0).mean()),
        }
    total = cases * runs
    nc = np.array(
        [
            newcombe_interval(int(a.sum()), total, int(b.sum()), total)
            for a, b in zip(pass_a, pass_b, strict=True)
        ]
    )
    out["newcombe"] = float(((nc[:, 0] <= truth + eps) & (truth - eps <= nc[:, 1])).mean())
    return out


def errors_check(evals: int, seed: int) -> list[str]:
    """Adversarial errors through the whole verdict path (:func:`summarize`): under no effect
    (``null``), 5% of each arm's samples error, placed on baseline passes and with-skill fails
    (the placement that buys a lift). Prints how often the verdict was "helps"."""
    from upskill_hub.evaluation.stats.summarize import summarize
    from upskill_hub.evaluation.types import AssertionResult, Sample

    lines = []
    draw = POPULATIONS["null"][0]
    for cases, runs in ((20, 5), (50, 5)):
        rng = np.random.default_rng(seed + cases)
        p_a, p_b = draw(rng, evals, cases)
        verdicts: dict[str, int] = {}
        for e in range(evals):
            samples = []
            outcomes = {
                arm: rng.random((cases, runs)) < p[e][:, None]
                for arm, p in (("baseline", p_a), ("with_skill", p_b))
            }
            budget = max(1, round(0.05 * cases * runs))
            for arm, target in (("baseline", True), ("with_skill", False)):
                spots = np.argwhere(outcomes[arm] == target)
                rng.shuffle(spots)
                errored = {(int(c), int(r)) for c, r in spots[:budget]}
                for c in range(cases):
                    for r in range(runs):
                        bad = (c, r) in errored
                        ok = bool(outcomes[arm][c, r])
                        samples.append(
                            Sample(
                                model="m",
                                case_id=f"c{c}",
                                run=r + 1,
                                arm=arm,  # type: ignore[arg-type]
                                prompt_hash="h",
                                outcome="error" if bad else ("pass" if ok else "fail"),
                                assertions=[]
                                if bad
                                else [AssertionResult("contains", "pass" if ok else "fail")],
                                error="m: server error (500)" if bad else None,
                                output_tokens=0 if bad else 10,
                            )
                        )
            (stats,) = summarize(samples)
            key = stats.verdict.split(":")[0]
            verdicts[key] = verdicts.get(key, 0) + 1
        shares = ", ".join(f"{k} {v / evals * 100:.1f}%" for k, v in sorted(verdicts.items()))
        lines.append(f"| null + adversarial errors (5%) | {cases} | {runs} | {shares} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--evals", type=int, default=2000, help="simulated evals per setting")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--only", default="", help="comma-separated populations")
    parser.add_argument("--errors", action="store_true", help="also the adversarial errors check")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(POPULATIONS)
    unknown = [n for n in names if n not in POPULATIONS]
    if unknown:
        parser.error(f"unknown population(s): {', '.join(unknown)}")
    print(f"95% lift interval and verdicts, {args.evals} simulated evals per setting")
    print(
        "| population | true lift | cases | runs | coverage % (half-width) | helps % | hurts % "
        "| previous rule: coverage %, helps % | Newcombe over runs: coverage % |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    start = time.perf_counter()
    worst_cov, worst_false = 1.0, 0.0
    where_cov = where_false = ""
    seed = args.seed
    for name in names:
        _, shock, _, in_rule = POPULATIONS[name]
        runs_list = (5,) if name in ("allflip", "uniform-gain") or shock else RUNS
        for cases in CASES:
            for runs in runs_list:
                seed += 1
                res = simulate(name, cases, runs, args.evals, seed)
                s, p = res["shipped"], res["previous"]
                truth = res["truth"]
                print(
                    f"| {name} | {truth:+.3f} | {cases} | {runs} | "
                    f"{s['coverage'] * 100:.1f} ({s['half_width']:.2f}) | "
                    f"{s['helps'] * 100:.1f} | {s['hurts'] * 100:.1f} | "
                    f"{p['coverage'] * 100:.1f}, {p['helps'] * 100:.1f} | "
                    f"{res['newcombe'] * 100:.1f} |",
                    flush=True,
                )
                if in_rule and cases >= 8 and s["coverage"] < worst_cov:
                    worst_cov, where_cov = s["coverage"], f"{name} {cases}x{runs}"
                if in_rule and abs(truth) < 1e-12:
                    false = max(s["helps"], s["hurts"])
                    if false > worst_false:
                        worst_false, where_false = false, f"{name} {cases}x{runs}"
    if args.errors:
        print("\n| population | cases | runs | verdicts |\n|---|---:|---:|---|")
        for line in errors_check(max(100, args.evals // 4), args.seed):
            print(line, flush=True)
    elapsed = time.perf_counter() - start
    # simulation noise: 2 standard errors of a 2.5% rate over args.evals evals
    slack = 2 * (0.025 * 0.975 / args.evals) ** 0.5
    ok_cov = worst_cov >= 0.93
    ok_false = worst_false <= 0.025 + slack
    print(
        f"\nlowest coverage with >= 8 cases (populations in the rule): {worst_cov * 100:.1f}% "
        f"({where_cov}; {'meets' if ok_cov else 'FAILS'} the 93% rule)"
    )
    print(
        f"highest false 'helps' or 'hurts' at a true lift of 0 (populations in the rule): "
        f"{worst_false * 100:.1f}% ({where_false or '-'}; "
        f"{'meets' if ok_false else 'FAILS'} 2.5% + {slack * 100:.1f} noise); {elapsed:.0f}s"
    )
    return 0 if ok_cov and ok_false else 1


if __name__ == "__main__":
    sys.exit(main())
