"""Tests of evidence.verify.stats: against scipy on fixed inputs, hand-derived cases, and properties."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from evidence.core.hashing import digest_bytes
from evidence.verify import stats

# Fixed, skewed data on a scale of about 1, so that BCa and percentile intervals differ.
X = np.random.default_rng(0).gamma(2.0, 0.5, size=15)
Y = np.random.default_rng(1).normal(0.8, 0.4, size=9)
B = 2_000


def _scipy_stat(statistic: stats.Statistic) -> Callable[..., np.ndarray]:
    """Adapt a last-axis statistic to scipy.stats.bootstrap's vectorised calling convention."""
    return lambda *samples, axis: statistic(np.concatenate(samples, axis=-1))


# --------------------------------------------------------------------------- rng


def test_rng_for_is_seeded_from_the_blake3_digest_of_the_identifier() -> None:
    seed = int(digest_bytes(b"digits/accuracy/cnn-vs-mlp")[:16], 16)
    expected = np.random.default_rng(seed).integers(0, 1000, 20)
    actual = stats.rng_for("digits/accuracy/cnn-vs-mlp").integers(0, 1000, 20)
    np.testing.assert_array_equal(actual, expected)
    other = stats.rng_for("digits/accuracy/cnn-vs-mlp2").integers(0, 1000, 20)
    assert not np.array_equal(actual, other)


# --------------------------------------------------------------------------- aggregates


def test_aggregates_on_hand_derived_cases() -> None:
    # IQM of 1..8: trim floor(0.25 * 8) = 2 values at each end, mean of [3, 4, 5, 6] = 4.5.
    assert float(stats.iqm(np.arange(1.0, 9.0))) == 4.5
    # [2, 4, 4, 4, 5, 5, 7, 9]: mean 40 / 8 = 5; squared deviations 9+1+1+1+0+0+4+16 = 32,
    # so sd = sqrt(32 / 7) (ddof=1), se = sd / sqrt(8) = sqrt(4 / 7); median (4 + 5) / 2 = 4.5.
    v = [2, 4, 4, 4, 5, 5, 7, 9]
    assert float(stats.mean(v)) == 5.0
    assert float(stats.sd(v)) == pytest.approx(math.sqrt(32 / 7), rel=1e-14)
    assert float(stats.se(v)) == pytest.approx(math.sqrt(4 / 7), rel=1e-14)
    assert float(stats.median(v)) == 4.5
    # The last axis is reduced: one value per row.
    rows = np.array([np.arange(1.0, 9.0), np.arange(1.0, 9.0) * 2])
    np.testing.assert_array_equal(stats.iqm(rows), [4.5, 9.0])


def test_sd_of_one_value_is_nan_without_a_warning() -> None:
    assert math.isnan(float(stats.sd([3.0])))
    assert math.isnan(float(stats.se([3.0])))
    with pytest.raises(ValueError, match="at least one value"):
        stats.mean([])


# --------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("statistic", [stats.mean, stats.median, stats.iqm])
@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"),
                                                      ("bca", "BCa")])
def test_bootstrap_ci_equals_scipy_with_the_same_resamples(statistic: stats.Statistic,
                                                           method: stats.CIMethod,
                                                           scipy_method: str) -> None:
    # Both draw integers(0, n, (B, n)) from the generator first, so the resamples are the same
    # and the intervals must agree to rounding, not just to Monte-Carlo error.
    ours = stats.bootstrap_ci(X, statistic, rng=np.random.default_rng(3), n_resamples=B,
                              method=method)
    ref = sps.bootstrap((X,), _scipy_stat(statistic), rng=np.random.default_rng(3),
                        n_resamples=B, method=scipy_method).confidence_interval
    assert ours.method == method
    assert ours.low == pytest.approx(ref.low, rel=1e-12)
    assert ours.high == pytest.approx(ref.high, rel=1e-12)
    assert ours.estimate == pytest.approx(float(statistic(X)), rel=1e-14)


def test_bootstrap_ci_agrees_with_scipy_within_monte_carlo_error_on_other_streams() -> None:
    # Independent resamples: the intervals differ only by Monte-Carlo error (B = 20_000).
    ours = stats.bootstrap_ci(X, stats.mean, rng=np.random.default_rng(11), n_resamples=20_000)
    ref = sps.bootstrap((X,), _scipy_stat(stats.mean), rng=np.random.default_rng(12),
                        n_resamples=20_000, method="BCa").confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=0.02)
    assert ours.high == pytest.approx(ref.high, abs=0.02)


def test_a_bootstrap_of_equal_values_gives_no_interval_never_a_zero_width_one() -> None:
    # every resample of equal values gives the same number: a "95% CI [2, 2]" would overstate
    # certainty (issue 31's outside test found IQM [57.45, 57.45] over 5 identical runs)
    for method in ("bca", "percentile"):
        ci = stats.bootstrap_ci([2.0, 2.0, 2.0, 2.0], stats.mean, rng=np.random.default_rng(0),
                                n_resamples=200, method=method)  # type: ignore[arg-type]
        assert not ci.defined and ci.method == "none" and ci.estimate == 2.0
        assert "every resample gives 2" in ci.note
    iqm = stats.bootstrap_ci([57.45] * 5, stats.iqm, rng=np.random.default_rng(0), n_resamples=500,
                             method="percentile")
    assert not iqm.defined and "every resample gives 57.45" in iqm.note


def test_bootstrap_ci_of_one_value_is_undefined() -> None:
    ci = stats.bootstrap_ci([2.0], stats.mean, rng=np.random.default_rng(0), n_resamples=200)
    assert math.isnan(ci.low) and math.isnan(ci.high)
    assert ci.method == "none" and not ci.defined and "one value" in ci.note


@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"),
                                                      ("bca", "BCa")])
def test_stratified_bootstrap_equals_scipy_multi_sample_bootstrap(method: stats.CIMethod,
                                                                  scipy_method: str) -> None:
    groups = {"task1": X, "task2": Y, "task3": np.arange(5.0)}
    ours = stats.stratified_bootstrap_ci(groups, stats.iqm, rng=np.random.default_rng(9),
                                         n_resamples=B, method=method)
    ref = sps.bootstrap(tuple(groups.values()), _scipy_stat(stats.iqm),
                        rng=np.random.default_rng(9), n_resamples=B,
                        method=scipy_method).confidence_interval
    assert ours.low == pytest.approx(ref.low, rel=1e-12)
    assert ours.high == pytest.approx(ref.high, rel=1e-12)


def test_stratified_bootstrap_keeps_every_group_at_its_size() -> None:
    # Group x is all 0 and group y all 1, so every stratified resample has 3 zeros and 2 ones
    # and the mean is exactly 2/5 in every resample; pooled resampling would vary.
    # (so it gives no interval: a zero-width one from five runs would overstate certainty).
    ci = stats.stratified_bootstrap_ci({"x": [0.0, 0.0, 0.0], "y": [1.0, 1.0]}, stats.mean,
                                       rng=np.random.default_rng(0), n_resamples=500)
    assert not ci.defined and "every resample gives 0.4 " in ci.note


def test_aggregate_fields_and_fallbacks() -> None:
    out = stats.aggregate(X)
    assert set(out) == {"n", "mean", "sd", "se", "median", "iqm", "ci_low", "ci_high",
                        "ci_method", "ci_note", "confidence"}
    assert out["ci_method"] == "student-t" and out["ci_note"] == ""
    assert out["n"] == 15 and out["sd"] == pytest.approx(np.std(X, ddof=1))
    half = sps.t.ppf(0.975, 14) * np.std(X, ddof=1) / math.sqrt(15)
    assert (out["ci_low"], out["ci_high"]) == pytest.approx((np.mean(X) - half, np.mean(X) + half))
    same = stats.aggregate([0.5] * 4)
    # four equal values: no interval at all, never a zero-width [0.5, 0.5]
    assert math.isnan(same["ci_low"]) and math.isnan(same["ci_high"]) and same["mean"] == 0.5
    assert same["ci_method"] == "none" and "every value is equal" in same["ci_note"]
    one = stats.aggregate([0.5])
    assert one["ci_method"] == "none" and math.isnan(one["ci_low"]) and math.isnan(one["sd"])
    diverged = stats.aggregate([0.5, math.nan, math.inf])
    assert math.isnan(diverged["mean"]) and diverged["ci_method"] == "none"
    assert stats.jsonable(one)["ci_low"] is None


def test_t_and_welch_intervals_equal_scipy() -> None:
    ci = stats.t_interval_mean(X, confidence=0.9)
    ref = sps.t.interval(0.9, 14, loc=np.mean(X), scale=sps.sem(X))
    assert (ci.low, ci.high) == pytest.approx(ref, rel=1e-12) and ci.method == "student-t"
    welch = stats.welch_interval(X, Y)
    res = sps.ttest_ind(X, Y, equal_var=False).confidence_interval(0.95)
    assert (welch.low, welch.high) == pytest.approx((res.low, res.high), rel=1e-12)
    assert welch.method == "welch-t" and stats.ci_label(0.95, welch.method) == "95% CI, Welch t"


def _coverage(n: int, kind: str, rng: np.random.Generator, reps: int) -> float:
    """Share of ``reps`` simulated normal data sets whose 95% interval covers the truth."""
    if kind == "mean":
        data = rng.normal(0.9, 0.02, (reps, n))
        return float(np.mean([stats.t_interval_mean(x).contains(0.9) for x in data]))
    a = rng.normal(0.90, 0.01, (reps, n))  # unequal spreads: Welch's case
    b = rng.normal(0.88, 0.03, (reps, n))
    return float(np.mean([stats.welch_interval(x, y).contains(0.02) for x, y in zip(a, b, strict=True)]))


COVERAGE_NS = (3, 5, 10, 20)


@pytest.mark.parametrize("kind", ["mean", "difference"])
def test_interval_coverage_at_small_n_by_simulation(kind: str) -> None:
    # The issue measured BCa at 84.5% (mean, n = 5) and 66% (difference, 2 vs 2). The intervals
    # used now must cover at least 93% at every seed count people use: 2,000 simulated data
    # sets per n (fixed seed), so the Monte-Carlo SE of a 95% coverage is about 0.5%.
    rng = np.random.default_rng(18)
    measured = {n: _coverage(n, kind, rng, 2_000) for n in COVERAGE_NS}
    assert all(c >= 0.93 for c in measured.values()), measured
    assert all(c <= 0.97 for c in measured.values()), measured  # not bought by being too wide


def test_seeds_needed_delivers_its_power_for_the_welch_rule_by_simulation() -> None:
    # The verdict's rule is "the Welch interval excludes zero"; seeds_needed promises 80% power
    # for it. Simulate the rule at the number it returns for d = 1.2 (the example's CNN vs MLP).
    n = stats.seeds_needed(1.2)
    assert n == 12
    rng = np.random.default_rng(7)
    a, b = rng.normal(1.2, 1.0, (2_000, n)), rng.normal(0.0, 1.0, (2_000, n))
    power = np.mean([stats.welch_interval(x, y).low > 0 for x, y in zip(a, b, strict=True)])
    assert 0.77 <= power <= 0.86, power


def test_tost_and_its_seeds_needed_by_simulation() -> None:
    # TOST at alpha 0.05 is the 90% Welch interval inside (-m, m); equivalence_seeds_needed
    # promises 80% power to show it for a true difference of 0 and a margin of 1 SD.
    n = stats.equivalence_seeds_needed(0.0, 1.0)
    assert n is not None and 15 <= n <= 22
    rng = np.random.default_rng(3)
    shown = []
    for _ in range(2_000):
        x, y = rng.normal(0, 1, n), rng.normal(0, 1, n)
        err, df = stats.welch_se_df(x, y)
        shown.append(stats.tost_p(float(np.mean(x) - np.mean(y)), err, df, 1.0) < 0.05)
    assert 0.76 <= np.mean(shown) <= 0.88
    assert stats.equivalence_seeds_needed(1.5, 1.0) is None  # outside the margin: never
    assert math.isnan(stats.tost_p(0.0, 0.0, math.nan, 1.0))


# --------------------------------------------------------------------------- comparison


def test_welch_equals_scipy_ttest_ind() -> None:
    ref = sps.ttest_ind(X, Y, equal_var=False)
    ours = stats.welch_t_test(X, Y)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)
    assert ours.df == pytest.approx(ref.df, rel=1e-12)
    c = stats.compare(X, Y, direction="higher")
    assert c.welch_p == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)


def test_welch_on_a_hand_derived_case() -> None:
    # a = [1, 2, 3], b = [4, 5, 6]: variances 1 and 1, so se = sqrt(1/3 + 1/3) = sqrt(2/3),
    # t = (2 - 5) / sqrt(2/3); df = (2/3)^2 / ((1/3)^2 / 2 * 2) = 4.
    ours = stats.welch_t_test([1, 2, 3], [4, 5, 6])
    assert ours.statistic == pytest.approx(-3 / math.sqrt(2 / 3), rel=1e-14)
    assert ours.df == pytest.approx(4.0, rel=1e-14)


@pytest.mark.parametrize("direction", ["higher", "lower"])
def test_probability_of_improvement_equals_mann_whitney_u(direction: stats.Direction) -> None:
    a, b = np.round(X, 1), np.round(Y, 1)  # rounding creates ties
    u = sps.mannwhitneyu(a, b) if direction == "higher" else sps.mannwhitneyu(b, a)
    expected = u.statistic / (a.size * b.size)
    assert stats.probability_of_improvement(a, b, direction=direction) == pytest.approx(
        expected, rel=1e-14)


def test_probability_of_improvement_hand_derived() -> None:
    # a = [1, 2, 3] vs b = [2, 2, 2]: 3 wins (3 > 2 three times), 3 ties (2 = 2) worth 1/2:
    # (3 + 1.5) / 9 = 4.5 / 9.
    assert stats.probability_of_improvement([1, 2, 3], [2, 2, 2], direction="higher") == 4.5 / 9
    # a = [3, 4] vs b = [1, 3]: higher: 3>1, 3=3 (1/2), 4>1, 4>3 = 3.5 of 4 pairs;
    # lower: only the tie counts, 0.5 of 4 pairs.
    assert stats.probability_of_improvement([3, 4], [1, 3], direction="higher") == 3.5 / 4
    assert stats.probability_of_improvement([3, 4], [1, 3], direction="lower") == 0.5 / 4


def test_hedges_g_hand_derived() -> None:
    # a = [1, 2, 3], b = [4, 5, 6]: pooled SD 1, d = -3; df = 4 and
    # J = Gamma(2) / (sqrt(2) Gamma(3/2)) = 1 / (sqrt(2) sqrt(pi) / 2) = sqrt(2 / pi).
    expected = -3 * math.sqrt(2 / math.pi)
    assert stats.hedges_g([1, 2, 3], [4, 5, 6], direction="higher") == pytest.approx(expected)
    assert stats.hedges_g([1, 2, 3], [4, 5, 6], direction="lower") == pytest.approx(-expected)


def _newcombe_by_grid(p: float, m: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Newcombe's (2006) method 5 written out independently: the thetas on a fine grid whose score
    statistic is within z (Hanley-McNeil variance with N/2 - 1 for both sample sizes)."""
    theta = np.linspace(0, 1, 2_000_001)
    half = (m + n) / 2 - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        v = theta * (1 - theta) / (m * n) * (1 + half * (1 - theta) / (2 - theta)
                                            + half * theta / (1 + theta))
    inside = theta[(p - theta) ** 2 <= z * z * v + 1e-15]
    return float(inside.min()), float(inside.max())


def test_compare_uses_welch_for_the_difference_and_newcombes_score_interval_for_p_better() -> None:
    c = stats.compare(X, Y, direction="higher")
    ref = sps.ttest_ind(X, Y, equal_var=False).confidence_interval(0.95)
    assert c.diff == pytest.approx(np.mean(X) - np.mean(Y), rel=1e-14)
    assert (c.diff_ci.low, c.diff_ci.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    # P(better): the Mann-Whitney probability with Newcombe's score interval, no resampling
    u = sps.mannwhitneyu(X, Y).statistic / (len(X) * len(Y))
    assert c.prob_improvement == pytest.approx(u)
    low, high = _newcombe_by_grid(u, len(X), len(Y))
    assert (c.prob_improvement_ci.low, c.prob_improvement_ci.high) == pytest.approx((low, high), abs=2e-6)
    assert c.prob_improvement_ci.method == "newcombe-score" and c.n_resamples == 0
    d = c.to_dict()
    assert d["diff_ci"]["method"] == "welch-t" and d["n_a"] == 15 and d["notes"] == []
    assert d["improvement"] == c.diff
    lower = stats.compare(X, Y, direction="lower")
    assert lower.improvement == -lower.diff


def test_compare_degenerate_inputs_give_nan_with_notes() -> None:
    flat = stats.compare([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], direction="higher")
    assert math.isnan(flat.welch_t) and math.isnan(flat.welch_p) and math.isnan(flat.hedges_g)
    assert any("zero variance" in note for note in flat.notes)
    assert not flat.diff_ci.defined and "zero variance" in flat.diff_ci.note
    assert flat.prob_improvement == 1.0
    single = stats.compare([1.0], [0.0, 0.5], direction="lower")
    assert not single.diff_ci.defined and not single.prob_improvement_ci.defined
    assert single.prob_improvement == 0.0 and math.isnan(single.sd_a)
    assert any("one value" in note for note in single.notes)
    bad = stats.compare([1.0, math.nan], [0.0, 0.5], direction="higher")
    assert math.isnan(bad.diff) and math.isnan(bad.prob_improvement)
    assert "NaN or infinite" in bad.notes[0]


# --------------------------------------------------------------------------- power


def test_seeds_needed_matches_cohens_tables() -> None:
    # Cohen (1988), Table 2.4.1, two-tailed alpha = .05, power .80: d = .5 -> 64, d = .8 -> 26.
    assert stats.seeds_needed(0.5) == 64
    assert stats.seeds_needed(-0.8) == 26
    n = stats.seeds_needed(0.3)
    assert n is not None
    assert stats.t_test_power(0.3, n) >= 0.8 > stats.t_test_power(0.3, n - 1)


def test_seeds_needed_edge_cases() -> None:
    assert stats.seeds_needed(0.0) is None
    assert stats.seeds_needed(0.01, max_n=100) is None
    assert stats.seeds_needed(50.0) == 2
    with pytest.raises(ValueError, match="NaN"):
        stats.seeds_needed(math.nan)


# --------------------------------------------------------------------------- expected max


def test_expected_max_validation_hand_derived() -> None:
    # Scores [1, 2, 3]; P(max of k draws <= v_(i)) = (i/3)^k.
    # k=1: the mean, 2. k=2: 1*(1/9) + 2*(4/9 - 1/9) + 3*(1 - 4/9) = 22/9.
    # k=3: 1*(1/27) + 2*(8/27 - 1/27) + 3*(1 - 8/27) = 72/27 = 8/3.
    np.testing.assert_allclose(stats.expected_max_validation([3, 1, 2]), [2, 22 / 9, 8 / 3],
                               rtol=1e-14)
    # Expected minimum, k=2: P(min = 1) = 1 - (2/3)^2 = 5/9, P(min = 2) = 4/9 - 1/9 = 3/9,
    # P(min = 3) = 1/9: 5/9 + 6/9 + 3/9 = 14/9. k=3: (19 + 2*7 + 3*1) / 27 = 4/3.
    np.testing.assert_allclose(stats.expected_max_validation([3, 1, 2], direction="lower"),
                               [2, 14 / 9, 4 / 3], rtol=1e-14)
    # Variance at k=1 is the population variance of [1, 2, 3], 2/3.
    assert stats.expected_max_validation_var([1, 2, 3])[0] == pytest.approx(2 / 3)


def test_expected_max_validation_equals_enumeration_of_all_draws() -> None:
    scores = np.array([0.3, 0.7, 0.7, 0.1])
    for k in (1, 2, 3, 4):
        best = [max(draw) for draw in itertools.product(scores, repeat=k)]
        assert stats.expected_max_validation(scores)[k - 1] == pytest.approx(np.mean(best))
        assert stats.expected_max_validation_var(scores)[k - 1] == pytest.approx(np.var(best))


# --------------------------------------------------------------------------- properties

_values = st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
                   min_size=3, max_size=20)


@settings(max_examples=40, deadline=None)
@given(values=_values, identifier=st.text(max_size=20))
def test_aggregate_ci_brackets_the_mean(values: list[float], identifier: str) -> None:
    if len(set(values)) < 2:
        return  # degenerate: the CI is the single value itself
    out = stats.aggregate(values)
    if out["ci_method"] == "none":  # a spread that underflows gives no interval, never a zero-width one
        assert math.isnan(out["ci_low"]) and "underflows" in out["ci_note"]
        return
    # The interval is mean +/- t SE; allow rounding at the scale of the data.
    tol = 1e-9 * (1 + max(abs(v) for v in values))
    assert out["ci_low"] - tol <= out["mean"] <= out["ci_high"] + tol


@settings(max_examples=20, deadline=None)
@given(values=_values, identifier=st.text(max_size=20))
def test_same_identifier_gives_the_same_interval(values: list[float], identifier: str) -> None:
    rng_a, rng_b = stats.rng_for(identifier), stats.rng_for(identifier)
    first = stats.bootstrap_ci(values, stats.iqm, rng=rng_a, n_resamples=300) if len(values) > 1 else None
    second = stats.bootstrap_ci(values, stats.iqm, rng=rng_b, n_resamples=300) if len(values) > 1 else None
    assert first == second


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40))
def test_expected_max_is_monotone_in_k(values: list[float]) -> None:
    higher = stats.expected_max_validation(values, direction="higher")
    lower = stats.expected_max_validation(values, direction="lower")
    assert np.all(np.diff(higher) >= 0)
    assert np.all(np.diff(lower) <= 0)
    assert higher[-1] <= max(values) and lower[-1] >= min(values)


def test_t_quantile_is_scipy_stats_t_ppf_bit_for_bit() -> None:
    """t_quantile evaluates scipy.special.stdtrit (what scipy.stats.t.ppf evaluates) so that an
    interval does not import scipy.stats; every interval the paper prints must stay the same bits."""
    from scipy import stats as scipy_stats

    for df in (1, 2, 3, 4, 5, 7, 9, 10.5, 13.7, 29, 100, 1000.25):
        for q in (0.5, 0.9, 0.95, 0.975, 0.995):
            assert stats.t_quantile(q, df) == float(scipy_stats.t.ppf(q, df))


def test_a_mean_interval_does_not_import_scipy_stats() -> None:
    import subprocess
    import sys

    code = ("import sys; from evidence.verify import stats; "
            "i = stats.t_interval_mean([1.0, 2.0, 4.0]); w = stats.welch_interval([1.0, 2.0], [3.0, 5.0]); "
            "print(i.low, w.low, 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "False"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40),
       st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=40))
def test_iqm_and_probability_of_improvement_are_scipys_to_the_bit(a: list[float], b: list[float]) -> None:
    """Computed without scipy.stats (whose import costs every delivery about a second): the IQM is
    trim_mean's own partition, P(better) the Mann-Whitney U from pairs, equal to the ranks' U."""
    x, y = np.asarray(a), np.asarray(b)
    assert stats.iqm(x) == sps.trim_mean(x, 0.25)
    ranks = sps.rankdata(np.concatenate([x, y]))
    u = float(np.sum(ranks[: len(x)]) - len(x) * (len(x) + 1) / 2)
    assert stats.probability_of_improvement(x, y, direction="higher") == u / (len(x) * len(y))


def test_power_tost_and_intervals_equal_their_scipy_stats_formulas_to_the_bit() -> None:
    """t_test_power, tost_power, tost_p and the Welch interval call scipy.special where they
    called scipy.stats; they must still give the numbers the scipy.stats formulas give."""
    for d, n in ((0.3, 5), (1.385, 5), (0.8, 12), (2.0, 3)):
        df, ncp = 2 * n - 2, d * math.sqrt(n / 2)
        crit = sps.t.ppf(0.975, df)
        assert stats.t_test_power(d, n) == float(sps.nct.sf(crit, df, ncp) + sps.nct.cdf(-crit, df, ncp))
        crit1 = sps.t.ppf(0.95, df)
        upper = sps.nct.cdf(-crit1, df, (d - 1.0) * math.sqrt(n / 2))
        lower = sps.nct.cdf(crit1, df, (d + 1.0) * math.sqrt(n / 2))
        assert stats.tost_power(d, 1.0, n) == max(0.0, float(upper) - float(lower))
    for diff, err, df in ((0.2, 0.1, 4.0), (-0.05, 0.3, 7.5), (1.1, 0.4, 30.0)):
        expected = max(float(sps.t.sf((diff + 1.0) / err, df)), float(sps.t.cdf((diff - 1.0) / err, df)))
        assert stats.tost_p(diff, err, df, 1.0) == expected
    se, df = stats.welch_se_df(X, Y)
    half = float(sps.t.ppf(0.975, df)) * se
    interval = stats.welch_interval(X, Y)
    assert (interval.low, interval.high) == (float(np.mean(X) - np.mean(Y)) - half,
                                             float(np.mean(X) - np.mean(Y)) + half)


def test_comparing_two_groups_does_not_import_scipy_stats() -> None:
    """A delivery compares groups on every edit; scipy.stats stays unimported on that path."""
    import subprocess
    import sys

    code = ("import sys\nfrom evidence.verify import stats\n"
            "stats.compare([0.98, 0.97, 0.99, 0.985, 0.975], [0.97, 0.96, 0.965, 0.97, 0.968], "
            "direction='higher')\n"
            "print('scipy.stats' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stderr
