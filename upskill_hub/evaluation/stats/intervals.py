"""The interval maths behind the statistics: Student's t, Wilson and Newcombe intervals, the
clustered interval of a pass rate, the paired t interval of the lift (with its spread floor),
the exact sign-flip test over cases, the cases a lift needs, the two-way clustered standard
error (a diagnostic), the case bootstrap and Holm's adjustment.

Pure functions of numbers (no samples, no tallies); :mod:`upskill_hub.evaluation.stats.summarize`
applies them to graded samples and explains the choices (reference.md section 10).
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import statistics as stats
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "MIN_DETECT_CASES",
    "PairedLift",
    "TwoWaySE",
    "cases_needed",
    "clustered_rate_interval",
    "holm_adjust",
    "least_true",
    "newcombe_interval",
    "paired_bootstrap_interval",
    "paired_lift",
    "ratio_interval",
    "sign_flip_p",
    "t_cdf",
    "t_quantile",
    "twoway_clustered_se",
    "wilson_interval",
]

# --------------------------------------------------------------------------- distributions


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-13:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta ``I_x(a, b)``."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
    front = math.exp(ln + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function."""
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """Student's t quantile (``t_quantile(0.975, 9)`` = 2.262), by bisection on :func:`t_cdf`."""
    if not 0 < p < 1:
        raise ValueError(f"p={p} outside (0, 1)")
    lo, hi = -1e4, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-10:
            break
    return (lo + hi) / 2


# --------------------------------------------------------------------------- intervals


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if p <= 0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1 else min(1.0, centre + half)
    return (lo, hi)


def wilson_interval(passed: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """95% (by default) Wilson score interval for ``passed / total``; ``(0, 1)`` when total is 0."""
    if total <= 0:
        return (0.0, 1.0)
    if not 0 <= passed <= total:
        raise ValueError(f"passed={passed} outside 0..total={total}")
    return _wilson(passed / total, total, z)


def newcombe_interval(
    passed_a: int, total_a: int, passed_b: int, total_b: int, z: float = 1.96
) -> tuple[float, float]:
    """Interval for ``p_b - p_a`` (Newcombe 1998, method 10); ``(-1, 1)`` if an arm is empty.

    It treats samples as independent: kept for comparison (the benchmark, stats_version 1
    runs), never used for a verdict.
    """
    if total_a <= 0 or total_b <= 0:
        return (-1.0, 1.0)
    pa, pb = passed_a / total_a, passed_b / total_b
    la, ua = wilson_interval(passed_a, total_a, z)
    lb, ub = wilson_interval(passed_b, total_b, z)
    diff = pb - pa
    lo = diff - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2)
    hi = diff + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2)
    return (max(-1.0, lo), min(1.0, hi))


def paired_bootstrap_interval(
    per_case: Sequence[tuple[float, float]],
    *,
    iterations: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(b) - mean(a)`` resampling whole cases.

    ``per_case`` holds ``(rate_a, rate_b)`` per case (each a pass rate over that case's runs).
    Deterministic for a given ``seed``. ``(-1, 1)`` without cases. For comparison only: with
    few cases it is too narrow (zero width when every case moved the same way).
    """
    if not per_case:
        return (-1.0, 1.0)
    diffs = [b - a for a, b in per_case]
    n = len(diffs)
    # rng.choices(diffs, k=n) without its per-call overhead: the same draws (it picks
    # diffs[floor(random() * n)]), so the same interval, ~1.7x faster (it runs as the eval ends)
    draw = random.Random(seed).random
    scale = float(n)
    floor = math.floor
    means = sorted(
        sum([diffs[floor(draw() * scale)] for _ in itertools.repeat(None, n)]) / n
        for _ in range(iterations)
    )
    tail = (1 - level) / 2
    lo = means[math.floor(tail * (iterations - 1))]
    hi = means[math.ceil((1 - tail) * (iterations - 1))]
    return (lo, hi)


#: With this many cases or fewer no lift can be shown: the half-width is at least 1.76 (3 cases).
MIN_DETECT_CASES = 3

_LATTICE_BITS = 1 << 26  # the exact test's work limit (an 8 MB integer): ~ cases x runs^2 x 2^cases


def sign_flip_p(diffs: Sequence[float]) -> float:
    """Exact two-sided sign-flip (randomization) p-value of ``mean(diffs) = 0``, over cases.

    If the skill changed nothing, each case's two arms are exchangeable, so each ``d_i`` is as
    likely as ``-d_i``: the p-value is the share of the ``2^n`` sign patterns whose
    ``|sum(+-d_i)|`` reaches the observed ``|sum(d_i)|``. 10 cases each up by 0.2 give
    ``2/1024 = 0.002``; 5 cases can never go below ``2/32 = 0.0625``.

    Per-case rates are fractions (passes over graded runs), so the ``d_i`` lie on a lattice of
    step ``1/L``; the sums' distribution is the polynomial ``prod(1 + x^(L|d_i|))``, computed
    exactly with one big integer (one coefficient per bit field). Differences that are not
    small fractions (or a lattice too large to enumerate) fall back to the normal
    approximation of the same randomization distribution.
    """
    fractions = [Fraction(d).limit_denominator(10_000) for d in diffs]
    if any(abs(float(f) - d) > 1e-9 for f, d in zip(fractions, diffs, strict=True)):
        return _sign_flip_normal(diffs)
    lcm = 1
    for f in fractions:
        lcm = lcm * f.denominator // math.gcd(lcm, f.denominator)
    steps = [int(f * lcm) for f in fractions]
    total = sum(steps)
    if total == 0:
        return 1.0
    sizes = [abs(x) for x in steps if x]
    span, count = sum(sizes), len(sizes)
    width = count + 1  # bits per coefficient: counts reach 2^count
    if (span + 1) * width > _LATTICE_BITS:
        return _sign_flip_normal(diffs)
    poly = 1  # coefficient e = number of sign patterns whose positive part sums to e
    for size in sizes:
        poly += poly << (size * width)
    # sum(+-x) = 2e - span reaches |total| when e >= (span + |total|) / 2; the sum of the
    # coefficients above that is the shifted number modulo 2^width - 1 (it stays below it)
    tail = (poly >> ((span + abs(total)) // 2 * width)) % ((1 << width) - 1)
    return min(1.0, 2 * tail / (1 << count))


def _sign_flip_normal(diffs: Sequence[float]) -> float:
    """The randomization distribution's normal approximation: ``z = sum(d) / sqrt(sum(d^2))``."""
    total = math.fsum(diffs)
    scale = math.sqrt(math.fsum(d * d for d in diffs))
    if scale == 0 or total == 0:
        return 1.0
    return min(1.0, math.erfc(abs(total) / scale / math.sqrt(2)))


@dataclass(frozen=True)
class PairedLift:
    """The lift over ``n`` paired cases, its interval and what this n can detect."""

    n: int
    lift: float
    ci95: tuple[float, float]
    se: float | None  # None with one case: no spread can be estimated
    sd: float | None
    p_value: float | None  # t test; with the 1/runs floor, at least the sign-flip p
    mde80: float | None  # minimum detectable lift at 80% power (two-sided, at ``level``), <= 1
    floored: bool = False  # the spread floor set the width
    sign_flip_p: float | None = None  # exact sign-flip test over the cases
    floor_step: float = 1.0  # the floor's discordant case differs by this much (1 or 1/runs)
    #: False when this design cannot show any lift: 3 or fewer cases, or an MDE above 100 pts
    detectable: bool = True


def paired_lift(
    diffs: Sequence[float], *, level: float = 0.95, runs: int = 1, sign_flip: bool = True
) -> PairedLift:
    """Paired t interval of ``mean(diffs)``, one difference per case (``d_i`` in [-1, 1]).

    ``SE = max(sd(d), floor) * sqrt(n / (n - 1)) / sqrt(n)``, critical value
    ``t(1 - a/2, n - 1)``. The ``sqrt(n / (n - 1))`` factor is the usual few-cluster (CR1)
    correction of clustered standard errors; without it the plain paired t covered 92% with 8
    cases in ``benchmarks/lift_coverage.py`` (skewed populations).

    **The spread floor.** When (nearly) every case moved the same way, ``sd(d)`` is (nearly)
    zero and a plain t interval collapses to a point: 40 of 40 flipped cases would give
    ``[1, 1]``, and 50 unchanged cases ``[0, 0]``, as if the next case could not differ. We
    floor ``sd(d)`` at the spread of ``n`` cases of which *one* differs from the others by a
    step ``s``: the variance of ``{c, ..., c, c - s}`` is ``s^2/n``, so ``sd >= s/sqrt(n)``.

    * By default ``s = 1``, a whole flip (a case whose pass rate moved by 1). With 3 of 3
      flipped cases this gives ``1 +- 4.303 * 0.408`` = ``[-0.76, 1]``, with 40 of 40
      ``[0.95, 1]`` and with 50 unchanged cases ``[-0.04, +0.04]``.
    * With ``runs`` graded runs per case (the fewest of any case in either arm) the smallest
      change a case can show is one run's flip, ``1/runs``. The floor drops to that step
      **only when the exact sign-flip test over the cases** (:func:`sign_flip_p`) rejects at the
      same level: the cases are then shown to have moved together, and what remains to model
      is one run flipping. 10 cases each up by 0.2 at 5 runs: ``p = 0.002``, floor
      ``0.2/sqrt(10)``, interval ``[0.15, 0.25]`` ("helps"), where the whole-flip floor gave
      ``[-0.04, 0.44]`` (t ``p = 0.09``). Without that test's agreement a uniform-looking
      sample keeps the whole-flip floor: dropping it unconditionally would let rare flips
      hide (8 unchanged cases at 5 runs would get ``[-0.06, 0.06]`` instead of
      ``[-0.32, 0.32]``, yet a skill that fixes 10% of cases leaves all 8 unchanged 43% of
      the time). The false verdicts and coverage this gives are measured in
      ``benchmarks/lift_coverage.py`` (README).

    The interval is clipped to [-1, 1]. With one case there is no interval: ``(-1, 1)``.
    ``mde80`` is ``(t(1 - a/2) + t(0.80)) * SE``, capped at 1; ``detectable`` is False with 3 or
    fewer cases or when the uncapped MDE exceeds 1 (no lift can be shown at this n).
    ``sign_flip=False`` (simulations) runs the exact test only where it can change the interval
    (``runs > 1`` and a spread below the whole-flip floor); ``sign_flip_p`` is None otherwise.
    """
    n = len(diffs)
    if n == 0:
        raise ValueError("paired_lift needs at least one case")
    if runs < 1:
        raise ValueError(f"runs={runs} must be at least 1")
    lift = math.fsum(diffs) / n
    if n == 1:
        return PairedLift(1, lift, (-1.0, 1.0), None, None, None, None, detectable=False)
    sd = stats.stdev(diffs)
    alpha = 1 - level
    matters = runs > 1 and sd < 1 / math.sqrt(n)
    flip_p = sign_flip_p(diffs) if sign_flip or matters else None
    step = 1.0 / runs if matters and flip_p is not None and flip_p < alpha else 1.0
    floor = step / math.sqrt(n)
    used = max(sd, floor)
    # few-cluster correction (CR1, as in clustered standard errors): sd * sqrt(n/(n-1))
    se = used * math.sqrt(n / (n - 1)) / math.sqrt(n)
    df = n - 1
    tq = t_quantile(1 - alpha / 2, df)
    ci = (max(-1.0, lift - tq * se), min(1.0, lift + tq * se))
    p_value = 2 * (1 - t_cdf(abs(lift) / se, df))
    if step < 1 and flip_p is not None:
        # the narrower interval stands on both tests: its p (what Holm adjusts) is the larger
        p_value = max(p_value, flip_p)
    mde = (tq + t_quantile(0.80, df)) * se
    return PairedLift(
        n,
        lift,
        ci,
        se,
        sd,
        min(1.0, p_value),
        min(1.0, mde),
        floored=sd < floor,
        sign_flip_p=flip_p,
        floor_step=step,
        detectable=n > MIN_DETECT_CASES and mde <= 1.0,
    )


def cases_needed(
    lift: float,
    *,
    sd: float,
    power: float = 0.80,
    level: float = 0.95,
    limit: int = 100_000,
) -> int | None:
    """About how many cases a paired eval needs to detect ``lift`` with probability ``power``:
    the fewest ``n`` (at least 4) whose ``(t(1 - a/2) + t(power)) * SE`` is at most ``lift``,
    with ``SE`` as in :func:`paired_lift` for a per-case spread ``sd`` (and the whole-flip
    floor). None when even ``limit`` cases would not do (``lift`` 0). The simulation behind
    :func:`upskill_hub.evaluation.stats.power.plan` is the exact figure; this is its closed form."""
    lift = abs(lift)
    if lift <= 0:
        return None

    def mde(n: int) -> float:
        df = n - 1
        se = max(sd, 1 / math.sqrt(n)) / math.sqrt(df)
        return (t_quantile(1 - (1 - level) / 2, df) + t_quantile(power, df)) * se

    return least_true(lambda n: mde(n) <= lift, MIN_DETECT_CASES, limit)  # mde falls with n


def least_true(test: Callable[[int], bool], lo: int, limit: int) -> int | None:
    """The least ``n`` in ``lo + 1 .. limit`` that passes ``test``, for a ``test`` that fails up
    to some ``n`` and passes from there on: tried at ``lo + 1``, then doubling (up to ``limit``),
    then by bisection. None when even ``limit`` fails."""
    hi = lo + 1
    while not test(hi):
        if hi >= limit:
            return None
        lo, hi = hi, min(limit, hi * 2)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if test(mid):
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class TwoWaySE:
    """The lift's standard error clustered two ways, by case and by (run, arm) (Cameron,
    Gelbach and Miller 2011), next to the one-way (case) figure: a diagnostic of shocks shared
    by every case of one run of one arm (a provider degrading for a minute)."""

    se: float
    se_case: float
    se_run_arm: float
    cases: int
    run_arm_clusters: int

    def to_dict(self) -> dict[str, float | int]:
        return {
            "se": round(self.se, 6),
            "se_case": round(self.se_case, 6),
            "se_run_arm": round(self.se_run_arm, 6),
            "cases": self.cases,
            "run_arm_clusters": self.run_arm_clusters,
        }


def twoway_clustered_se(
    per_case: Mapping[str, tuple[Collection[tuple[int, bool]], Collection[tuple[int, bool]]]],
) -> TwoWaySE | None:
    """Two-way clustered standard error of the paired lift from graded samples.

    ``per_case`` maps each case to its graded samples ``(run, passed)`` without and with the
    skill (re-iterable: read twice, never copied). The lift is
    ``mean_c(rate_with(c) - rate_without(c))`` over cases graded in both arms, a weighted sum
    of the outcomes (weight ``+-1/(n g)``, ``g`` the case's graded runs in that arm); each
    sample contributes ``e = w (y - m_arm)``. With ``V_G = G/(G-1) sum_g (sum_{i in g} e_i)^2``,
    ``V = V_case + V_run_arm - V_sample`` (one sample is the intersection of the two), and the
    larger one-way variance when that is not positive. None with fewer than 2 paired cases or
    2 (run, arm) clusters.
    """
    paired = {c: arms for c, arms in per_case.items() if len(arms[0]) and len(arms[1])}
    n = len(paired)
    if n < 2:
        return None
    means = [
        math.fsum(sum(p for _, p in arms[a]) / len(arms[a]) for arms in paired.values()) / n
        for a in (0, 1)
    ]
    by_case: list[float] = []
    by_run_arm: dict[tuple[int, int], float] = {}
    squares = 0.0
    samples = 0
    for arms in paired.values():
        case_sum = 0.0
        for a, outcomes in enumerate(arms):
            weight = (1 if a else -1) / (n * len(outcomes))
            for run, passed in outcomes:
                e = weight * (float(passed) - means[a])
                case_sum += e
                by_run_arm[(run, a)] = by_run_arm.get((run, a), 0.0) + e
                squares += e * e
                samples += 1
        by_case.append(case_sum)
    clusters = len(by_run_arm)
    if clusters < 2:
        return None

    def v(sums: Iterable[float], g: int) -> float:
        return g / (g - 1) * math.fsum(x * x for x in sums)

    v_case = v(by_case, n)
    v_run_arm = v(by_run_arm.values(), clusters)
    v_sample = samples / (samples - 1) * squares if samples > 1 else 0.0
    total = v_case + v_run_arm - v_sample
    if total <= 0:
        total = max(v_case, v_run_arm)
    return TwoWaySE(math.sqrt(total), math.sqrt(v_case), math.sqrt(v_run_arm), n, clusters)


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def clustered_rate_interval(
    per_case: Sequence[tuple[int, int]], *, level: float = 0.95
) -> tuple[tuple[float, float], float]:
    """Interval of a pass rate over clustered samples, and the effective n it used.

    ``per_case`` holds ``(passed, graded)`` per case. The rate is ``sum(passed)/sum(graded)``;
    its cluster-robust variance is ``k/(k-1) * sum((y_i - p m_i)^2) / M^2`` (k cases, M samples).
    The effective n is ``p(1-p)/variance``, kept between k (runs perfectly correlated) and M
    (independent); without spread (p = 0 or 1) it is k. The Wilson interval on that n uses
    ``t(1 - a/2, k - 1)`` (at least one degree of freedom) as its critical value.
    """
    cases = [(y, m) for y, m in per_case if m > 0]
    k = len(cases)
    total = sum(m for _, m in cases)
    if k == 0 or total == 0:
        return (0.0, 1.0), 0.0
    p = sum(y for y, _ in cases) / total
    n_eff = float(k)
    if k >= 2 and 0 < p < 1:
        var = k / (k - 1) * math.fsum((y - p * m) ** 2 for y, m in cases) / (total * total)
        # no spread between cases at all: the samples are as good as independent
        n_eff = min(float(total), max(float(k), p * (1 - p) / var)) if var > 0 else float(total)
    z = t_quantile(1 - (1 - level) / 2, max(1, k - 1))
    return _wilson(p, n_eff, z), n_eff


def ratio_interval(
    per_case: Sequence[tuple[float, float]], *, level: float = 0.95
) -> tuple[float, float] | None:
    """Interval of a ratio of sums over cases, ``R = sum(x_i) / sum(y_i)`` (cost per passed
    sample: ``x_i`` a case's cost, ``y_i`` its passes), or None with fewer than 2 cases or no
    ``y`` at all.

    The case jackknife on the log scale: ``R_(i)`` is the ratio without case ``i``,
    ``var = (k-1)/k * sum((log R_(i) - mean)^2)`` (k cases), and the interval
    ``R * exp(+-t(1 - a/2, k - 1) * sqrt(var))``: positive, skewed right as a ratio is, and
    wider than the delta method when a few cases carry much of the cost. When leaving a case
    out leaves no pass (or no cost) the delta method on the log scale stands in
    (``var(R) = k/(k-1) * sum((x_i - R y_i)^2) / Y^2``, divided by ``R^2``).
    ``benchmarks/cost_interval_coverage.py`` measures its coverage.
    """
    k = len(per_case)
    total_x = math.fsum(x for x, _ in per_case)
    total_y = math.fsum(y for _, y in per_case)
    if k < 2 or total_y <= 0:
        return None
    ratio = total_x / total_y
    if ratio <= 0:
        return (0.0, 0.0)
    t = t_quantile(1 - (1 - level) / 2, k - 1)
    logs = [
        math.log((total_x - x) / (total_y - y))
        for x, y in per_case
        if total_y - y > 0 and total_x - x > 0
    ]
    if len(logs) == k:
        mean = math.fsum(logs) / k
        var_log = (k - 1) / k * math.fsum((v - mean) ** 2 for v in logs)
    else:
        var = k / (k - 1) * math.fsum((x - ratio * y) ** 2 for x, y in per_case) / total_y**2
        var_log = var / ratio**2
    spread = t * math.sqrt(var_log)
    return ratio * math.exp(-spread), ratio * math.exp(spread)
