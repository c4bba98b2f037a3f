"""Measured coverage of the "95%" intervals ``verify`` prints, at the seed counts people use.

Why: an interval is only as honest as its coverage. This simulates normal per-seed scores
(2,000 data sets per cell, fixed seed), builds each interval and counts how often it covers the
true value: the Student-t interval of a mean and the Welch interval of a difference (what the
engine prints), beside the BCa and percentile bootstrap (what it printed before) for contrast.
tests/test_stats.py asserts the t and Welch rows stay >= 0.93; this prints the whole table.

    python bench/coverage.py [--reps 2000]
"""

from __future__ import annotations

import argparse

import numpy as np

from evidence.verify import stats

NS = (3, 5, 10, 20)


def _mean_cover(method: str, x: np.ndarray, truth: float, rng: np.random.Generator) -> bool:
    if method == "student-t":
        return stats.t_interval_mean(x).contains(truth)
    return stats.bootstrap_ci(x, stats.mean, rng=rng, n_resamples=2_000,
                              method=method).contains(truth)  # type: ignore[arg-type]


def _diff_cover(method: str, a: np.ndarray, b: np.ndarray, truth: float,
                rng: np.random.Generator) -> bool:
    if method == "welch-t":
        return stats.welch_interval(a, b).contains(truth)
    indices = [rng.integers(0, a.size, (2_000, a.size)), rng.integers(0, b.size, (2_000, b.size))]
    # the bootstrap difference interval the engine printed before, for contrast only
    boot = stats._bootstrap(
        [a, b], lambda s: np.mean(s[0], axis=-1) - np.mean(s[1], axis=-1), indices=indices,
        confidence=0.95, method=method)  # type: ignore[arg-type]
    return boot.contains(truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2_000)
    reps = parser.parse_args().reps
    print(f"Coverage of nominal 95% intervals, {reps} simulated normal data sets per cell\n")
    print("| quantity | method | " + " | ".join(f"n = {n}" for n in NS) + " |")
    print("|---|---|" + "---:|" * len(NS))
    for method in ("student-t", "bca", "percentile"):
        rng = np.random.default_rng(18)
        cells = []
        for n in NS:
            data = rng.normal(0.9, 0.02, (reps, n))
            cells.append(np.mean([_mean_cover(method, x, 0.9, rng) for x in data]))
        print(f"| mean | {stats.METHOD_NAMES[method]} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    for method in ("welch-t", "bca", "percentile"):
        rng = np.random.default_rng(18)
        cells = []
        for n in NS:
            a, b = rng.normal(0.90, 0.01, (reps, n)), rng.normal(0.88, 0.03, (reps, n))
            cells.append(np.mean([_diff_cover(method, x, y, 0.02, rng) for x, y in zip(a, b, strict=True)]))
        print(f"| difference (n vs n) | {stats.METHOD_NAMES[method]} | "
              + " | ".join(f"{c:.3f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
