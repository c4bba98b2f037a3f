"""Measured coverage of the intervals verify prints against a fixed value or a published number.

Why: issue 31 added three statistics (a seeded model against a deterministic baseline or a
published value alone: the one-sample Student t; against a published mean with its spread: Welch
from summary statistics; P(A better): score intervals instead of a bootstrap). Each is only as
honest as its coverage at the seed counts people use, so this simulates them (fixed seed) through
the engine's own functions and counts how often the nominal 95% interval covers the truth:

* ``one-sample t``: n seeds ~ Normal(0.90, 0.02) (and a right-skewed lognormal) against the
  constant 0.88; truth 0.02 (the skewed row: the lognormal's mean minus the constant);
* ``Welch (summary)``: n seeds of A against a published mean, sd and n_ref = 10 runs of B
  (simulated from Normal(0.88, 0.03) and summarised, as a paper reports them);
* ``P(better), Newcombe``: n vs n seeds, A ~ N(0.5, 1), B ~ N(0, 1): truth Phi(0.5 / sqrt 2);
* ``P(better), Wilson``: the share of n seeds of A above a constant: truth P(X > c);
* ``TOST size``: how often a one-sample comparison whose true difference sits exactly on the
  margin is called noise (must be <= alpha = 0.05).

tests/test_baselines.py asserts the one-sample row at n = 5 stays >= 0.93; this prints the table
and, with ``--write``, replaces the ``coverage-baselines`` section of bench/results.md.

    python bench/baseline_coverage.py [--reps 4000] [--write]
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

from evidence.verify import stats

NS = (3, 5, 10, 20)


def one_sample_coverage(n: int, reps: int, rng: np.random.Generator, *, skewed: bool = False) -> float:
    """Share of simulated data sets whose one-sample interval of mean - c covers the truth."""
    constant = 0.88
    if skewed:  # lognormal(mu, s): mean exp(mu + s^2 / 2); scaled to the same ballpark
        data = 0.8 + 0.1 * rng.lognormal(0.0, 0.5, (reps, n))
        truth = 0.8 + 0.1 * math.exp(0.5**2 / 2) - constant
    else:
        data = rng.normal(0.90, 0.02, (reps, n))
        truth = 0.90 - constant
    hits = [stats.compare_to_constant(x, constant, direction="higher").diff_ci.contains(truth)
            for x in data]
    return float(np.mean(hits))


def summary_coverage(n: int, reps: int, rng: np.random.Generator, n_ref: int = 10) -> float:
    """Welch from summary statistics: A's seeds against a published mean, sd and n."""
    hits = []
    for _ in range(reps):
        a = rng.normal(0.90, 0.01, n)
        b = rng.normal(0.88, 0.03, n_ref)
        se, df = stats.summary_se_df(sd=float(np.std(b, ddof=1)), n=n_ref)
        c = stats.compare_to_summary(a, float(np.mean(b)), se, df, direction="higher", n_b=n_ref,
                                     sd_b=float(np.std(b, ddof=1)))
        hits.append(c.diff_ci.contains(0.02))
    return float(np.mean(hits))


def newcombe_coverage(n: int, reps: int, rng: np.random.Generator) -> float:
    """P(A better) between n and n seeds: Newcombe's score interval, cached per estimate."""
    truth = float(sps.norm.cdf(0.5 / math.sqrt(2)))
    cache: dict[float, stats.Interval] = {}
    hits = []
    for _ in range(reps):
        a, b = rng.normal(0.5, 1.0, n), rng.normal(0.0, 1.0, n)
        p = stats.probability_of_improvement(a, b, direction="higher")
        if p not in cache:
            cache[p] = stats.prob_improvement_interval(p, n, n)
        hits.append(cache[p].contains(truth))
    return float(np.mean(hits))


def wilson_coverage(n: int, reps: int, rng: np.random.Generator) -> float:
    """P(a seed beats a constant): Wilson's interval of the share of n seeds above it."""
    truth = float(sps.norm.sf(-0.5))  # X ~ N(0.5, 1) above 0
    cache: dict[int, stats.Interval] = {}
    hits = []
    for _ in range(reps):
        wins = int(np.count_nonzero(rng.normal(0.5, 1.0, n) > 0))
        if wins not in cache:
            cache[wins] = stats.wilson_interval(wins, n)
        hits.append(cache[wins].contains(truth))
    return float(np.mean(hits))


def tost_size(n: int, reps: int, rng: np.random.Generator, margin: float = 0.01) -> float:
    """How often a true difference of exactly +margin is (wrongly) shown to lie within +/-margin."""
    shown = 0
    for _ in range(reps):
        c = stats.compare_to_constant(rng.normal(0.88 + margin, 0.01, n), 0.88, direction="higher")
        shown += stats.tost_p(c.diff, c.diff_se, c.welch_df, margin) < 0.05
    return shown / reps


ROWS: tuple[tuple[str, Callable[[int, int, np.random.Generator], float]], ...] = (
    ("mean - constant, one-sample t (normal seeds)", one_sample_coverage),
    ("mean - constant, one-sample t (skewed seeds)",
     lambda n, reps, rng: one_sample_coverage(n, reps, rng, skewed=True)),
    ("mean - published mean (sd, n = 10), Welch from summary", summary_coverage),
    ("P(A better), Newcombe score (n vs n)", newcombe_coverage),
    ("P(seed better than a constant), Wilson score", wilson_coverage),
    ("TOST at the margin: share called noise (size, <= 0.05)", tost_size),
)


def table(reps: int) -> list[tuple[str, list[float]]]:
    """Every row of the table: (what, [value at each n of NS])."""
    out = []
    for name, measure in ROWS:
        rng = np.random.default_rng(31)
        out.append((name, [measure(n, reps, rng) for n in NS]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4_000)
    parser.add_argument("--write", action="store_true", help="update bench/results.md")
    args = parser.parse_args()
    lines = [f"Coverage of nominal 95% intervals, {args.reps} simulated data sets per cell (seed 31)", "",
             "| quantity and method | " + " | ".join(f"n = {n}" for n in NS) + " |",
             "|---|" + "---:|" * len(NS)]
    for name, cells in table(args.reps):
        lines.append(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    print("\n".join(lines))
    if args.write:
        import common  # bench/common.py: on the path when this file runs as a script

        body = ["## Coverage against a fixed value or a published number (issue 31)", "",
                common.produced_by(None), "", *lines[2:], "",
                "Monte-Carlo standard error of a cell near 0.95: about 0.0034 at 4,000 data sets. "
                "The skewed row is a lognormal with sigma 0.5: the t interval undercovers there, as "
                "it does for any mean at a few strongly skewed seeds. Wilson's coverage oscillates "
                "with n, as binomial coverage does."]
        common.update_section("coverage-baselines", "\n".join(body))


if __name__ == "__main__":
    main()
