"""The numerics behind ``verify``: aggregates over seeds, bootstrap intervals, A-vs-B comparisons,
power analysis and expected validation performance.

Everything here is a pure function of its inputs. Functions that draw random numbers take an
explicit ``rng: np.random.Generator`` and use nothing else (no global NumPy state, no
``random_state=None``), so an interval is a deterministic function of the data and the generator;
:func:`rng_for` derives that generator from a stable identifier such as a comparison id, which
makes a rebuilt report print the same interval every time.

Which interval for which quantity (one method per quantity, wherever it is printed):

* the mean of per-seed values: **Student t** (:func:`t_interval_mean`), mean +/- t_{n-1} SE;
* a difference of two means: **Welch t** (:func:`welch_interval`), unequal variances,
  Welch-Satterthwaite df; the same test decides ``effect`` in :mod:`evidence.verify.classify`;
* a seeded model against a fixed value (a deterministic variant, a published number): the
  one-sample **Student t** interval of mean - value (:func:`compare_to_constant`); against a
  published mean with its spread: **Welch t from summary statistics** (:func:`compare_to_summary`);
* P(A better): a **score interval** (Newcombe's for two groups, Wilson's against a fixed value),
  which is never zero width at a few seeds, unlike a bootstrap of 5 vs 5 separated values;
* the IQM, which has no t interval: the bootstrap (percentile or BCa).

Why t and not the bootstrap for means: at the seed counts people use (3-10), the bootstrap
interval of a mean is too narrow, because resampling n values never shows more spread than
those n. Measured by simulation on normal data, a "95%" BCa interval of a mean covers about 85%
at n = 5, and a BCa difference interval about 66% at 2 vs 2 seeds; the t and Welch intervals
cover 94-96% at the same sizes (tests/test_stats.py measures it). The t intervals are exact
for normal seeds and robust to moderate skew; they assume nothing else.

Conventions (after google-research/rliable):

* a *statistic* is a callable ``statistic(x) -> y`` that reduces the **last** axis: ``x`` has
  shape ``(..., n)`` and ``y`` shape ``(...)``. :func:`mean`, :func:`median`, :func:`iqm`,
  :func:`sd` and :func:`se` are statistics. This lets the bootstrap evaluate all resamples in
  one vectorised call with ``x`` of shape ``(n_resamples, n)``.
* values are per-seed scores in the metric's own unit (accuracy as a fraction, loss in nats...);
  every difference and interval is in that same unit.
* ``direction`` is ``"higher"`` or ``"lower"``: which way is better (see docs/formats.md).
* undefined quantities (a standard deviation from one seed, a t statistic with zero variance)
  are ``NaN`` and the result says why in a ``note``; nothing here warns or raises on such data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from evidence.core.hashing import digest_bytes

if TYPE_CHECKING:
    from types import ModuleType


def _sps() -> ModuleType:
    """``scipy.stats``, imported on first use.

    Importing it costs about a second here (it parses the docstrings of every distribution),
    and most callers never need it: Student's t and the noncentral t's CDF come from
    ``scipy.special`` (``stdtr``, ``stdtrit``, ``nctdtr``: the functions ``scipy.stats`` calls,
    so the numbers are the same to the bit), which an edit-and-deliver loop imports in a tenth
    of the time. Left here: the IQM's trimmed mean, ranks, and the noncentral t's survival
    function (whose complement scipy.stats computes more accurately than ``1 - nctdtr``).
    """
    from scipy import stats

    return stats

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
Direction = Literal["higher", "lower"]
CIMethod = Literal["percentile", "bca"]
#: The interval of a mean and of a difference of means, and how captions name them.
MEAN_CI_METHOD = "student-t"
DIFF_CI_METHOD = "welch-t"
METHOD_NAMES = {"student-t": "Student t", "welch-t": "Welch t", "percentile": "percentile bootstrap",
                "bca": "BCa bootstrap", "newcombe-score": "Newcombe score",
                "wilson-score": "Wilson score", "none": "undefined"}
#: Which test a :class:`Comparison` made, and how a reason names it.
TEST_NAMES = {"welch": "Welch t", "one-sample-t": "one-sample t",
              "welch-summary": "Welch t from summary statistics", "exact": "exact"}


def ci_label(confidence: float, method: str) -> str:
    """How a caption or a report names an interval: ``"95% CI, Welch t"``."""
    return f"{100 * confidence:g}% CI, {METHOD_NAMES.get(method, method)}"
#: A statistic reduces the last axis: shape (..., n) -> (...).
Statistic = Callable[[FloatArray], FloatArray]
_MultiStatistic = Callable[[Sequence[FloatArray]], FloatArray]

#: Largest per-group sample size :func:`seeds_needed` searches.
MAX_SEEDS = 10_000


def rng_for(identifier: str) -> np.random.Generator:
    """A generator seeded from a stable identifier (e.g. ``"digits/accuracy/cnn-vs-mlp"``).

    The seed is the first 16 hex digits (64 bits) of the BLAKE3 digest of the UTF-8 string, so
    the same comparison always gets the same bootstrap resamples, on any machine and in any
    process, and different comparisons get unrelated ones.
    """
    return np.random.default_rng(int(digest_bytes(identifier.encode("utf-8"))[:16], 16))


def _as_array(values: npt.ArrayLike) -> FloatArray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError("a statistic needs at least one value along the last axis")
    return x


def _as_1d(values: npt.ArrayLike, name: str = "values") -> FloatArray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of per-seed values, "
                         f"got shape {x.shape}")
    return x


# --------------------------------------------------------------------------- aggregates


def mean(values: npt.ArrayLike) -> FloatArray:
    """Arithmetic mean over the last axis; shape (..., n) -> (...), in the values' unit."""
    return np.asarray(np.mean(_as_array(values), axis=-1), dtype=np.float64)


def sd(values: npt.ArrayLike) -> FloatArray:
    """Sample standard deviation (ddof=1) over the last axis; NaN where n < 2.

    ddof=1 because seeds are a sample from the distribution of training outcomes, and the
    spread of that distribution is what a reader wants to know.
    """
    x = _as_array(values)
    if x.shape[-1] < 2:
        return np.full(x.shape[:-1], np.nan)
    return np.asarray(np.std(x, axis=-1, ddof=1), dtype=np.float64)


def se(values: npt.ArrayLike) -> FloatArray:
    """Standard error of the mean, sd / sqrt(n), over the last axis; NaN where n < 2."""
    x = _as_array(values)
    return np.asarray(sd(x) / math.sqrt(x.shape[-1]), dtype=np.float64)


def median(values: npt.ArrayLike) -> FloatArray:
    """Median over the last axis; shape (..., n) -> (...)."""
    return np.asarray(np.median(_as_array(values), axis=-1), dtype=np.float64)


def iqm(values: npt.ArrayLike) -> FloatArray:
    """Interquartile mean over the last axis: the mean of the middle 50% of values.

    As in rliable (Agarwal et al. 2021): ``scipy.stats.trim_mean(x, 0.25)``, which drops
    ``floor(0.25 n)`` values at each end. It is robust to a few outlier seeds (unlike the
    mean) yet uses half the data (unlike the median).
    """
    x = _as_array(values)
    if x.size == 0:
        return np.asarray(np.full(x.shape[:-1], np.nan), dtype=np.float64)
    # scipy.stats.trim_mean's own steps (the same partition, so the same bits), without the
    # import of scipy.stats that it would cost every delivery
    n = x.shape[-1]
    low = int(0.25 * n)
    kept = np.partition(x, (low, n - low - 1), axis=-1)[..., low:n - low]
    means = np.asarray(np.mean(kept, axis=-1), dtype=np.float64)
    return np.where(np.isnan(x).any(axis=-1), np.nan, means)  # a NaN propagates, as in scipy


# --------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True)
class Interval:
    """A bootstrap confidence interval for one statistic, in the statistic's unit.

    ``method`` is the method actually used ("percentile", "bca", or "none" when the interval is
    undefined and ``low``/``high`` are NaN); ``note`` says why it differs from the one asked for.
    """

    low: float
    high: float
    estimate: float
    confidence: float
    method: str
    n_resamples: int
    note: str = ""

    @property
    def defined(self) -> bool:
        """Whether both ends are finite numbers."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the closed interval (False if the interval is undefined)."""
        return self.defined and self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _undefined(estimate: float, confidence: float, n_resamples: int, note: str) -> Interval:
    return Interval(math.nan, math.nan, estimate, confidence, "none", n_resamples, note)


def _draw_indices(sizes: Sequence[int], n_resamples: int,
                  rng: np.random.Generator) -> list[IntArray]:
    """Resample indices, one (n_resamples, n_j) array per sample, drawn in sample order.

    The draw order matches ``scipy.stats.bootstrap`` (one ``integers(0, n, (B, n))`` call per
    sample), so with the same generator state both see identical resamples.
    """
    return [rng.integers(0, n, (n_resamples, n)) for n in sizes]


def _bca_levels(samples: Sequence[FloatArray], statistic: _MultiStatistic,
                theta_b: FloatArray, estimate: float,
                alpha: float) -> tuple[FloatArray | None, str]:
    """The BCa-adjusted quantile levels (Efron 1987; Efron & Tibshirani 1993, eq. 14.14-14.15).

    Bias correction z0 from the share of bootstrap estimates below the estimate (ties count
    one half); acceleration from the jackknife, generalised to several independent samples by
    leaving out one observation of one sample at a time (Efron & Tibshirani 1993, eq. 15.36,
    as scipy does). Returns ``(None, why)`` where BCa is undefined.
    """
    n_b = theta_b.shape[-1]
    p0 = (np.count_nonzero(theta_b < estimate) + np.count_nonzero(theta_b <= estimate)) / (2 * n_b)
    if not 0.0 < p0 < 1.0:
        return None, "the estimate lies outside the bootstrap distribution"
    z0 = float(special.ndtri(p0))
    influences: list[tuple[int, FloatArray]] = []
    for j, sample in enumerate(samples):
        n = sample.shape[-1]
        if n < 2:
            continue  # (n - 1) = 0 weights this sample's jackknife terms to zero
        keep = ~np.eye(n, dtype=bool)
        leave_one_out = np.broadcast_to(np.arange(n), (n, n))[keep].reshape(n, n - 1)
        args = [np.broadcast_to(other, (n, other.shape[-1])) for other in samples]
        args[j] = sample[leave_one_out]
        theta_i = np.asarray(statistic(args), dtype=np.float64)
        influences.append((n, (n - 1) * (np.mean(theta_i) - theta_i)))
    # a_hat is scale-free; dividing by the largest |u| keeps u^3 and (sum u^2)^1.5 from
    # underflowing or overflowing on data of tiny or huge magnitude.
    scale = max((float(np.max(np.abs(u))) for _, u in influences), default=0.0)
    if not math.isfinite(scale) or scale == 0.0:
        return None, "the jackknife estimates are all equal, so the acceleration is undefined"
    nums = sum(float(np.sum((u / scale) ** 3)) / n**3 for n, u in influences)
    dens = sum(float(np.sum((u / scale) ** 2)) / n**2 for n, u in influences)
    a_hat = 1 / 6 * nums / dens ** (3 / 2)
    z_alpha = float(special.ndtri(alpha))
    num = z0 + np.array([z_alpha, -z_alpha])
    denom = 1 - a_hat * num
    if np.any(denom <= 0):
        return None, f"the acceleration a = {a_hat:.3g} is too large for this confidence level"
    return np.asarray(special.ndtr(z0 + num / denom), dtype=np.float64), ""


def _bootstrap(samples: Sequence[FloatArray], statistic: _MultiStatistic, *,
               indices: Sequence[IntArray], confidence: float, method: CIMethod) -> Interval:
    """Interval for ``statistic(samples)`` from the resamples given by ``indices``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if method not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    n_resamples = int(indices[0].shape[0])
    estimate = float(statistic(samples))
    theta_b = np.asarray(statistic([s[i] for s, i in zip(samples, indices, strict=True)]),
                         dtype=np.float64)
    if not (math.isfinite(estimate) and np.all(np.isfinite(theta_b))):
        return _undefined(estimate, confidence, n_resamples,
                          "the statistic is not finite on the data or on some resamples")
    alpha = (1 - confidence) / 2
    levels: FloatArray = np.array([alpha, 1 - alpha])
    used = "percentile"
    note = ""
    if method == "bca":
        bca, why = _bca_levels(samples, statistic, theta_b, estimate, alpha)
        if bca is None:
            note = f"BCa is undefined here ({why}); used the percentile interval"
        else:
            levels, used = bca, "bca"
    low, high = np.quantile(theta_b, levels)
    if not float(high) > float(low):
        # e.g. the IQM of five equal values: every resample gives the same number, and a
        # "95% CI [57.45, 57.45]" from a handful of runs would claim a certainty they cannot give
        return _undefined(estimate, confidence, n_resamples,
                          f"every resample gives {float(low):.6g} (the values are (nearly) all "
                          "equal), so the bootstrap has no spread to turn into an interval")
    return Interval(float(low), float(high), estimate, confidence, used, n_resamples, note)


def bootstrap_ci(values: npt.ArrayLike, statistic: Statistic, *, rng: np.random.Generator,
                 confidence: float = 0.95, n_resamples: int = 10_000,
                 method: CIMethod = "bca") -> Interval:
    """Bootstrap confidence interval for ``statistic`` of per-seed ``values`` (shape (n,)).

    Resamples are drawn as one (n_resamples, n) index array from ``rng`` and the statistic is
    evaluated on all of them in one call. ``method="percentile"`` takes the alpha/2 and
    1 - alpha/2 quantiles (linear interpolation) of the bootstrap distribution; ``"bca"``
    (default) shifts those levels for bias and skew (bias-corrected and accelerated, Efron
    1987, jackknife acceleration). Its accuracy is asymptotic: at a handful of seeds every
    bootstrap interval undercovers (about 85% for a "95%" interval of a mean at n = 5), so
    means and differences of means use :func:`t_interval_mean` and :func:`welch_interval`
    instead; the bootstrap serves statistics without a t interval (IQM, P(A better)). Where BCa is
    undefined the percentile interval is returned and ``note`` says so. With n = 1 there is no
    sampling variation to resample, and where every resample gives the same value (all values
    equal) a zero-width interval would overstate certainty: the interval is NaN in both cases.
    """
    x = _as_1d(values)
    estimate = float(statistic(x))
    if x.size < 2:
        return _undefined(estimate, confidence, n_resamples,
                          "one value has no sampling distribution to resample")
    indices = _draw_indices([x.size], n_resamples, rng)
    return _bootstrap([x], lambda s: statistic(s[0]), indices=indices,
                      confidence=confidence, method=method)


def stratified_bootstrap_ci(groups: Mapping[str, npt.ArrayLike], statistic: Statistic, *,
                            rng: np.random.Generator, confidence: float = 0.95,
                            n_resamples: int = 10_000, method: CIMethod = "bca") -> Interval:
    """Bootstrap interval with resampling *within* each group (task or dataset) independently.

    ``groups`` maps a group name to its per-seed values (shape (n_g,)). Each resample draws
    n_g values with replacement from every group, so every group keeps its size and weight;
    this is rliable's stratified bootstrap, which avoids resamples that over- or under-represent
    a task. The statistic receives the **concatenation** of the groups' resamples along the last
    axis (shape (..., sum n_g), groups in mapping order), as rliable's aggregate metrics do over
    the flattened runs-by-tasks matrix; so :func:`iqm` gives the IQM over all runs of all tasks.
    Groups are resampled in mapping order. BCa uses the multi-sample jackknife.
    """
    if not groups:
        raise ValueError("stratified_bootstrap_ci needs at least one group")
    samples = [_as_1d(v, f"group {k!r}") for k, v in groups.items()]
    estimate = float(statistic(np.concatenate(samples)))
    if all(s.size < 2 for s in samples):
        return _undefined(estimate, confidence, n_resamples,
                          "every group has one value, so there is nothing to resample")
    indices = _draw_indices([s.size for s in samples], n_resamples, rng)
    return _bootstrap(samples, lambda ss: statistic(np.concatenate(ss, axis=-1)),
                      indices=indices, confidence=confidence, method=method)


def t_quantile(q: float, df: float) -> float:
    """The q quantile of Student's t with ``df`` degrees of freedom.

    ``scipy.special.stdtrit`` is the function ``scipy.stats.t.ppf`` evaluates (the same bits,
    tests/test_stats.py checks it), without importing ``scipy.stats``: ``evidence show`` prints
    an interval per row and must answer in well under a second.
    """
    return float(special.stdtrit(df, q))


def t_interval_mean(values: npt.ArrayLike, *, confidence: float = 0.95) -> Interval:
    """Student-t interval of the mean of per-seed ``values`` (shape (n,)): mean +/- t SE.

    t is the 1 - alpha/2 quantile of Student's t with n - 1 degrees of freedom, which widens the
    interval exactly as much as estimating the SD from n seeds demands; coverage is the nominal
    one for normal seeds at every n >= 2. Undefined (NaN, with a note) for one value or
    non-finite values, and when every value is equal (never a zero-width interval: identical
    seeds mean the seed is not applied, which :mod:`evidence.verify.classify` flags, or a
    deterministic variant, which has no interval to give).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x = _as_1d(values)
    with np.errstate(invalid="ignore", over="ignore"):
        estimate = float(np.mean(x))
    if not np.all(np.isfinite(x)):
        return Interval(math.nan, math.nan, estimate, confidence, "none", 0,
                        "some values are NaN or infinite")
    if x.size < 2:
        return Interval(math.nan, math.nan, estimate, confidence, "none", 0,
                        "one value has no spread to estimate")
    half = t_quantile(0.5 + confidence / 2, x.size - 1) * float(se(x))
    if half == 0.0:  # never a zero-width interval from a few equal values
        note = "every value is equal, so there is no spread to estimate an interval from" \
            if np.all(x == x[0]) else "the spread underflows to zero in floating point"
        return Interval(math.nan, math.nan, estimate, confidence, "none", 0, note)
    return Interval(estimate - half, estimate + half, estimate, confidence, MEAN_CI_METHOD, 0)


def welch_se_df(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[float, float]:
    """Standard error of mean(a) - mean(b) without pooling, and its Welch-Satterthwaite df.

    NaN for a group with fewer than two values; df NaN when both variances are zero.
    """
    x, y = _as_1d(a, "a"), _as_1d(b, "b")
    if min(x.size, y.size) < 2:
        return math.nan, math.nan
    vn1 = float(np.var(x, ddof=1)) / x.size
    vn2 = float(np.var(y, ddof=1)) / y.size
    if vn1 + vn2 == 0.0:
        return 0.0, math.nan
    df = (vn1 + vn2) ** 2 / (vn1**2 / (x.size - 1) + vn2**2 / (y.size - 1))
    return math.sqrt(vn1 + vn2), df


def welch_interval(a: npt.ArrayLike, b: npt.ArrayLike, *, confidence: float = 0.95) -> Interval:
    """Welch interval of mean(a) - mean(b): diff +/- t_df SE with Welch-Satterthwaite df.

    It is the interval that inverts Welch's t-test (:func:`welch_t_test`): it excludes zero
    exactly when the test rejects at 1 - ``confidence``, so the printed interval and the verdict
    can never disagree. Unlike the pooled t interval it stays valid when the groups' spreads
    differ (a control's spread is often far from a model's). Undefined (NaN, with a note) with
    fewer than two values in a group, non-finite values, or zero variance in both groups.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x, y = _as_1d(a, "a"), _as_1d(b, "b")
    with np.errstate(invalid="ignore", over="ignore"):
        diff = float(np.mean(x)) - float(np.mean(y))
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return Interval(math.nan, math.nan, diff, confidence, "none", 0,
                        "some values are NaN or infinite")
    if min(x.size, y.size) < 2:
        return Interval(math.nan, math.nan, diff, confidence, "none", 0,
                        "a group with one value has no spread to estimate")
    err, df = welch_se_df(x, y)
    if err == 0.0:
        return Interval(math.nan, math.nan, diff, confidence, "none", 0,
                        "both groups have zero variance, so the interval is undefined")
    half = t_quantile(0.5 + confidence / 2, df) * err
    return Interval(diff - half, diff + half, diff, confidence, DIFF_CI_METHOD, 0)


def tost_p(diff: float, err: float, df: float, margin: float) -> float:
    """Two one-sided tests (Schuirmann 1987): p-value for |true difference| < ``margin``.

    H0 is "the difference is at least ``margin`` in either direction"; p = max of the two
    one-sided Welch t p-values. p < alpha is the same as the 1 - 2 alpha Welch interval lying
    inside (-margin, +margin): only then has the data *shown* the difference to be negligible.
    NaN when the standard error or df is undefined or the margin is not positive.
    """
    if not (margin > 0 and math.isfinite(err) and err > 0 and math.isfinite(df)):
        return math.nan
    lower = float(special.stdtr(df, -(diff + margin) / err))  # H0: diff <= -margin
    upper = float(special.stdtr(df, (diff - margin) / err))  # H0: diff >= +margin
    return max(lower, upper)


def aggregate(values: npt.ArrayLike, *, confidence: float = 0.95) -> dict[str, Any]:
    """Summary of per-seed values (shape (n,)) for a results table: one dict of plain numbers.

    Keys: ``n``, ``mean``, ``sd`` (ddof=1), ``se``, ``median``, ``iqm``, ``ci_low``/``ci_high``
    (the Student-t interval of the mean, :func:`t_interval_mean`), ``ci_method``
    ("student-t", or "none" where undefined), ``ci_note`` (why undefined or degenerate, or ""),
    ``confidence``. Undefined numbers are NaN (use :func:`jsonable` before writing JSON).
    """
    x = _as_1d(values)
    # NaN or inf seeds (a diverged run) must give NaN summaries, not RuntimeWarnings.
    with np.errstate(invalid="ignore", over="ignore"):
        ci = t_interval_mean(x, confidence=confidence)
        return {
            "n": int(x.size), "mean": float(mean(x)), "sd": float(sd(x)), "se": float(se(x)),
            "median": float(median(x)), "iqm": float(iqm(x)),
            "ci_low": ci.low, "ci_high": ci.high, "ci_method": ci.method, "ci_note": ci.note,
            "confidence": confidence,
        }


def jsonable(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (JSON null), recursively.

    Canonical JSON (:mod:`evidence.core.hashing`) rejects NaN; the results here use NaN for
    "undefined", so pass them through this before writing.
    """
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


# --------------------------------------------------------------------------- comparison


class WelchTest(NamedTuple):
    """Welch's unequal-variance t-test: t statistic, Welch-Satterthwaite df, two-sided p."""

    statistic: float
    df: float
    pvalue: float
    note: str = ""


def welch_t_test(a: npt.ArrayLike, b: npt.ArrayLike) -> WelchTest:
    """Welch's two-sided t-test of mean(a) = mean(b); a: shape (n_a,), b: shape (n_b,).

    Equal to ``scipy.stats.ttest_ind(a, b, equal_var=False)`` where that is defined; NaN (with
    a note, and without scipy's precision-loss warning) when a group has fewer than two values
    or both groups have zero variance.
    """
    x, y = _as_1d(a, "a"), _as_1d(b, "b")
    n1, n2 = x.size, y.size
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return WelchTest(math.nan, math.nan, math.nan, "the values are not all finite")
    if min(n1, n2) < 2:
        return WelchTest(math.nan, math.nan, math.nan,
                         "Welch's t-test needs at least two values per group")
    vn1 = float(np.var(x, ddof=1)) / n1
    vn2 = float(np.var(y, ddof=1)) / n2
    if vn1 + vn2 == 0.0:
        return WelchTest(math.nan, math.nan, math.nan,
                         "both groups have zero variance, so the t statistic is undefined")
    df = (vn1 + vn2) ** 2 / (vn1**2 / (n1 - 1) + vn2**2 / (n2 - 1))
    t = (float(np.mean(x)) - float(np.mean(y))) / math.sqrt(vn1 + vn2)
    p = 2 * float(special.stdtr(df, -abs(t)))
    return WelchTest(t, df, p)


#: Pairs compared per chunk in :func:`_mann_whitney_u` (bounds its memory for many seeds).
_PAIRS_PER_CHUNK = 4_000_000


def _mann_whitney_u(a: FloatArray, b: FloatArray) -> FloatArray:
    """The Mann-Whitney U of A along the last axis: pairs with a > b, ties counted as one half.

    Counted pair by pair (in chunks of rows) rather than from ``scipy.stats.rankdata``: the
    same value to the bit (a count of halves is exact in floating point), and no import of
    ``scipy.stats`` on the path of every delivery. A slice holding a NaN gives NaN, as
    rankdata's default does.
    """
    lead = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    n_a, n_b = a.shape[-1], b.shape[-1]
    rows_a = np.broadcast_to(a, (*lead, n_a)).reshape(-1, n_a)
    rows_b = np.broadcast_to(b, (*lead, n_b)).reshape(-1, n_b)
    u = np.empty(rows_a.shape[0], dtype=np.float64)
    step = max(1, _PAIRS_PER_CHUNK // max(1, n_a * n_b))
    for start in range(0, len(u), step):
        x = rows_a[start:start + step, :, None]
        y = rows_b[start:start + step, None, :]
        u[start:start + step] = np.sum(x > y, axis=(-2, -1)) + 0.5 * np.sum(x == y, axis=(-2, -1))
    u[np.isnan(rows_a).any(axis=-1) | np.isnan(rows_b).any(axis=-1)] = np.nan
    return u.reshape(lead)


def _prob_improvement_stat(direction: Direction) -> _MultiStatistic:
    """P(A better than B) as a statistic of two samples of shapes (..., n_a) and (..., n_b)."""

    def statistic(samples: Sequence[FloatArray]) -> FloatArray:
        a, b = samples
        n_a, n_b = a.shape[-1], b.shape[-1]
        u_a = _mann_whitney_u(a, b)
        u = u_a if direction == "higher" else n_a * n_b - u_a
        return np.asarray(u / (n_a * n_b), dtype=np.float64)

    return statistic


def probability_of_improvement(a: npt.ArrayLike, b: npt.ArrayLike, *,
                               direction: Direction) -> float:
    """P(A better than B): the share of (seed of A, seed of B) pairs where A wins, ties 1/2.

    Equals the Mann-Whitney U statistic of A divided by n_a n_b (Agarwal et al. 2021 use it as
    "probability of improvement"). With ``direction="lower"`` a win means a smaller value.
    0.5 means no tendency either way; it ignores how *much* better, so one outlier seed cannot
    move it far.
    """
    _check_direction(direction)
    return float(_prob_improvement_stat(direction)([_as_1d(a, "a"), _as_1d(b, "b")]))


def hedges_g(a: npt.ArrayLike, b: npt.ArrayLike, *, direction: Direction) -> float:
    """Hedges' g: standardised mean difference, positive when A is better.

    Cohen's d = (mean_a - mean_b) / pooled SD (pooled with n - 1 weights), negated for
    ``direction="lower"``, times the exact small-sample bias correction
    J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)), df = n_a + n_b - 2 (Hedges 1981).
    Unitless. NaN when a group has fewer than two values or the pooled SD is zero.
    """
    _check_direction(direction)
    x, y = _as_1d(a, "a"), _as_1d(b, "b")
    if min(x.size, y.size) < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return math.nan
    df = x.size + y.size - 2
    pooled = ((x.size - 1) * float(np.var(x, ddof=1))
              + (y.size - 1) * float(np.var(y, ddof=1))) / df
    if pooled == 0.0:
        return math.nan
    d = (float(np.mean(x)) - float(np.mean(y))) / math.sqrt(pooled)
    j = math.exp(math.lgamma(df / 2) - 0.5 * math.log(df / 2) - math.lgamma((df - 1) / 2))
    return j * d if direction == "higher" else -j * d


def _check_direction(direction: str) -> None:
    if direction not in ("higher", "lower"):
        raise ValueError(f"direction must be 'higher' or 'lower', got {direction!r}")


def _score_interval(estimate: float, variance: Callable[[float], float], *, confidence: float,
                    method: str, note: str = "") -> Interval:
    """The score interval of a probability: every theta with (estimate - theta)^2 <= z^2 V(theta).

    Unlike estimate +/- z SE(estimate) it uses the variance *at the candidate* theta, which is
    positive inside (0, 1), so an estimate of 1 still gets a lower end below 1 (Wilson 1927;
    Newcombe 2006 for the Mann-Whitney probability). Never zero width for 0 < confidence < 1.
    """
    from scipy.optimize import brentq

    z = float(special.ndtri(0.5 + confidence / 2))

    def excess(theta: float) -> float:
        return (estimate - theta) ** 2 - z * z * variance(theta)

    tiny = 1e-12
    low = 0.0 if estimate <= tiny or excess(0.0) <= 0 else \
        float(brentq(excess, 0.0, max(estimate - tiny, tiny / 2), xtol=1e-12))
    high = 1.0 if estimate >= 1 - tiny or excess(1.0) <= 0 else \
        float(brentq(excess, min(estimate + tiny, 1 - tiny / 2), 1.0, xtol=1e-12))
    return Interval(low, high, estimate, confidence, method, 0, note)


def wilson_interval(successes: float, n: int, *, confidence: float = 0.95) -> Interval:
    """Wilson score interval of a proportion: ``successes`` (ties may count one half) of ``n``.

    Used for P(A better than a fixed value): each seed either beats the constant or not, so the
    share is a binomial proportion. At 5 of 5 the 95% interval is [0.57, 1], not the [1, 1] a
    resample of five values gives.
    """
    if n < 1:
        raise ValueError("a proportion needs at least one trial")
    estimate = successes / n
    return _score_interval(estimate, lambda t: t * (1 - t) / n, confidence=confidence,
                           method="wilson-score")


def prob_improvement_interval(estimate: float, n_a: int, n_b: int, *,
                              confidence: float = 0.95) -> Interval:
    """Interval of P(A better than B) (the Mann-Whitney probability) from n_a and n_b seeds.

    Newcombe's (2006) method 5, a Wilson-type score interval: the Hanley-McNeil variance
    theta (1 - theta) / (n_a n_b) [1 + (N* - 1)(1 - theta)/(2 - theta) + (N* - 1) theta/(1 + theta)]
    with N* = (n_a + n_b)/2, inverted as in :func:`_score_interval`. Why not the bootstrap: at a
    handful of seeds completely separated groups resample to P = 1 every time, which printed a
    zero-width "95% CI [1, 1]" from ten numbers. Newcombe measured this interval's coverage close
    to nominal down to 5 per group; bench/pbetter_coverage.py measures it here.
    """
    if min(n_a, n_b) < 1:
        raise ValueError("each group needs at least one value")
    half = (n_a + n_b) / 2 - 1

    def variance(t: float) -> float:
        if t <= 0.0 or t >= 1.0:
            return 0.0
        return t * (1 - t) / (n_a * n_b) * (1 + half * (1 - t) / (2 - t) + half * t / (1 + t))

    return _score_interval(estimate, variance, confidence=confidence, method="newcombe-score")


@dataclass(frozen=True)
class Comparison:
    """A vs B over seeds, in the metric's unit; see :func:`compare`.

    ``diff`` = mean_a - mean_b is *not* oriented (for a loss, negative means A is better);
    ``improvement`` is the same difference oriented so that positive means A is better, and
    ``prob_improvement`` and ``hedges_g`` are oriented too (A better > 0.5, > 0). ``diff_ci`` is
    the interval of the difference; ``diff_se`` and ``welch_df`` its standard error and degrees of
    freedom, from which an equivalence test (:func:`tost_p`) is computed; ``welch_t`` and
    ``welch_p`` the test statistic and two-sided p. ``test`` says which test made them (the field
    names are Welch's, the common case): ``welch`` (two groups of seeds), ``one-sample-t`` (one
    side is a fixed value: a deterministic variant or a published number without its spread,
    :func:`compare_to_constant`), ``welch-summary`` (B is a published mean with its spread and
    n, :func:`compare_to_summary`) or ``exact`` (both sides are fixed values).
    """

    direction: Direction
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    sd_a: float
    sd_b: float
    diff: float
    diff_ci: Interval
    diff_se: float
    welch_t: float
    welch_df: float
    welch_p: float
    prob_improvement: float
    prob_improvement_ci: Interval
    hedges_g: float
    confidence: float
    n_resamples: int
    notes: tuple[str, ...] = field(default=())
    test: str = "welch"

    @property
    def improvement(self) -> float:
        """mean_a - mean_b oriented by ``direction``: positive when A is better."""
        return self.diff if self.direction == "higher" else -self.diff

    @property
    def groups(self) -> int:
        """How many groups vary with the seed: 2 (Welch), 1 (against a fixed value) or 0."""
        return {"welch": 2, "welch-summary": 2, "one-sample-t": 1}.get(self.test, 0)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (intervals as nested dicts, notes as a list); NaN stays NaN."""
        out = asdict(self)
        out["notes"] = list(self.notes)
        out["improvement"] = self.improvement
        return out


def _zero_rounding(diff: float, *values: FloatArray | float) -> float:
    """A difference within rounding of zero (1e-12 of the values' magnitude) is exactly 0.0."""
    scale = max(float(np.max(np.abs(v))) for v in values)
    return 0.0 if abs(diff) <= 1e-12 * scale else diff


def compare(a: npt.ArrayLike, b: npt.ArrayLike, *, direction: Direction,
            confidence: float = 0.95) -> Comparison:
    """Compare per-seed values of A (shape (n_a,)) and B (shape (n_b,)).

    * ``diff`` = mean_a - mean_b with the Welch interval (:func:`welch_interval`; the seeds of A
      and B are not paired), whose coverage is right at small n where the bootstrap's is not;
    * Welch's t-test (no equal-variance assumption; two-sided p), the same test;
    * P(A better) (:func:`probability_of_improvement`) with Newcombe's score interval
      (:func:`prob_improvement_interval`), which has no zero-width end at a few seeds;
    * Hedges' g (:func:`hedges_g`).

    Degenerate data do not raise: undefined numbers are NaN and ``notes`` says why (intervals
    need two values per group). A difference within rounding of zero (|diff| below 1e-12 of the
    values' magnitude, e.g. -2.2e-16 from identical means) is recorded as exactly 0.0.
    """
    _check_direction(direction)
    x, y = _as_1d(a, "a"), _as_1d(b, "b")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return _non_finite_comparison(x, y, direction, confidence, 0)
    notes: list[str] = []
    welch = welch_t_test(x, y)
    if welch.note:
        notes.append(welch.note)
    p_imp = probability_of_improvement(x, y, direction=direction)
    g = hedges_g(x, y, direction=direction)
    if math.isnan(g):
        notes.append("Hedges' g is undefined (fewer than two values in a group, or zero "
                     "pooled standard deviation)")
    diff = _zero_rounding(float(np.mean(x) - np.mean(y)), x, y)
    diff_ci = welch_interval(x, y, confidence=confidence)
    diff_ci = replace(diff_ci, estimate=diff)
    if min(x.size, y.size) < 2:
        why = "a group with one value has no spread to estimate"
        notes.append(f"the intervals are undefined: {why}")
        p_ci = _undefined(p_imp, confidence, 0, why)
    else:
        p_ci = prob_improvement_interval(p_imp, x.size, y.size, confidence=confidence)
    diff_se, _ = welch_se_df(x, y)
    return Comparison(
        direction=direction, n_a=int(x.size), n_b=int(y.size),
        mean_a=float(np.mean(x)), mean_b=float(np.mean(y)),
        sd_a=float(sd(x)), sd_b=float(sd(y)), diff=diff, diff_ci=diff_ci, diff_se=diff_se,
        welch_t=welch.statistic, welch_df=welch.df, welch_p=welch.pvalue,
        prob_improvement=p_imp, prob_improvement_ci=p_ci, hedges_g=g,
        confidence=confidence, n_resamples=0, notes=tuple(notes),
    )


def one_sample_g(values: npt.ArrayLike, constant: float) -> float:
    """Standardised distance of the mean from a constant, (mean - c) / sd, times Hedges' J(n - 1).

    The one-sample counterpart of :func:`hedges_g` (not oriented). NaN for fewer than two values
    or zero spread.
    """
    x = _as_1d(values)
    if x.size < 2 or not np.all(np.isfinite(x)):
        return math.nan
    spread = float(np.std(x, ddof=1))
    if spread == 0.0:
        return math.nan
    df = x.size - 1
    j = math.exp(math.lgamma(df / 2) - 0.5 * math.log(df / 2) - math.lgamma((df - 1) / 2)) \
        if df > 1 else 1.0
    return j * (float(np.mean(x)) - constant) / spread


def compare_to_constant(values: npt.ArrayLike, constant: float, *, direction: Direction,
                        constant_side: Literal["a", "b"] = "b", n_constant: int = 1,
                        confidence: float = 0.95) -> Comparison:
    """Seeded runs against a fixed value: a deterministic variant or a published number alone.

    The fixed side has no seed-to-seed variation, so the only uncertainty is the seeded side's:
    the interval of mean - constant is the one-sample **Student t** interval (n - 1 df), and the
    test is the one-sample t-test (a Welch interval would be undefined: one group has zero
    variance). ``constant_side`` says which of A and B is fixed (``diff`` stays mean_a - mean_b);
    ``n_constant`` is how many (identical) runs the fixed side has, for the record. P(A better) is
    the share of seeds on the better side of the constant (ties one half) with its Wilson
    interval; Hedges' g is :func:`one_sample_g`, oriented.
    """
    _check_direction(direction)
    x = _as_1d(values)
    c = float(constant)
    sign = 1.0 if constant_side == "b" else -1.0  # diff = sign * (mean(x) - c)
    with np.errstate(invalid="ignore", over="ignore"):
        mean_x = float(np.mean(x))
    means = (mean_x, c) if constant_side == "b" else (c, mean_x)
    ns = (int(x.size), n_constant) if constant_side == "b" else (n_constant, int(x.size))
    sds = (float(sd(x)), 0.0) if constant_side == "b" else (0.0, float(sd(x)))
    notes: list[str] = []
    if not (np.all(np.isfinite(x)) and math.isfinite(c)):
        why = "some values are NaN or infinite"
        nan = math.nan
        return Comparison(direction, ns[0], ns[1], *means, *sds, diff=sign * (mean_x - c),
                          diff_ci=_undefined(nan, confidence, 0, why), diff_se=nan, welch_t=nan,
                          welch_df=nan, welch_p=nan, prob_improvement=nan,
                          prob_improvement_ci=_undefined(nan, confidence, 0, why), hedges_g=nan,
                          confidence=confidence, n_resamples=0,
                          notes=(f"{why}; every statistic is undefined",), test="one-sample-t")
    diff = _zero_rounding(sign * (mean_x - c), x, c)
    shifted = t_interval_mean(x - c, confidence=confidence)
    if shifted.defined and shifted.high > shifted.low:
        low, high = (shifted.low, shifted.high) if sign > 0 else (-shifted.high, -shifted.low)
        diff_ci = Interval(low, high, diff, confidence, MEAN_CI_METHOD, 0)
    else:
        why = shifted.note or "the seeded side has zero variance"
        if x.size >= 2 and not shifted.note:
            why = "every seed gives the same value, so the interval is undefined"
        diff_ci = _undefined(diff, confidence, 0, why if x.size >= 2 else
                             "one value has no spread to estimate")
        notes.append(f"the interval is undefined: {diff_ci.note}")
    err = float(se(x)) if x.size >= 2 else math.nan
    df = float(x.size - 1) if x.size >= 2 else math.nan
    if math.isfinite(err) and err > 0:
        t = diff / err
        p = 2 * float(special.stdtr(df, -abs(t)))
    else:
        t = p = math.nan
    oriented = x - c if direction == "higher" else c - x
    wins = float(np.count_nonzero(oriented > 0) + 0.5 * np.count_nonzero(oriented == 0))
    share = wins / x.size
    p_x = wilson_interval(wins, int(x.size), confidence=confidence)
    if constant_side == "a":  # A is the constant: A better = the seed is worse than it
        share = 1 - share
        p_x = Interval(1 - p_x.high, 1 - p_x.low, share, confidence, p_x.method, 0, p_x.note)
    g = one_sample_g(x, c)
    g = sign * g if direction == "higher" else -sign * g
    return Comparison(
        direction=direction, n_a=ns[0], n_b=ns[1], mean_a=means[0], mean_b=means[1],
        sd_a=sds[0], sd_b=sds[1], diff=diff, diff_ci=diff_ci, diff_se=err, welch_t=t,
        welch_df=df, welch_p=p, prob_improvement=share, prob_improvement_ci=p_x, hedges_g=g,
        confidence=confidence, n_resamples=0, notes=tuple(notes), test="one-sample-t")


def summary_se_df(*, sd: float | None = None, n: int | None = None,
                  interval: tuple[float, float] | None = None,
                  confidence: float = 0.95) -> tuple[float, float]:
    """Standard error and degrees of freedom of a published mean from what the paper gives.

    ``sd`` and ``n``: se = sd / sqrt(n), df = n - 1. An ``interval`` (a symmetric interval of
    the mean at ``confidence``) with ``n``: se = half-width / t_{n-1}; without ``n``: half-width
    / z and infinite df (a normal interval). Raises ValueError when neither is given.
    """
    if sd is not None and n is not None:
        if n < 2:
            raise ValueError("a published sd needs n >= 2")
        return float(sd) / math.sqrt(n), float(n - 1)
    if interval is not None:
        half = (float(interval[1]) - float(interval[0])) / 2
        if n is not None and n >= 2:
            return half / t_quantile(0.5 + confidence / 2, n - 1), float(n - 1)
        return half / float(special.ndtri(0.5 + confidence / 2)), math.inf
    raise ValueError("a published spread needs sd and n, or an interval")


def compare_to_summary(a: npt.ArrayLike, mean_b: float, se_b: float, df_b: float, *,
                       direction: Direction, n_b: int | None = None, sd_b: float | None = None,
                       confidence: float = 0.95) -> Comparison:
    """Seeded runs of A against a published mean with its spread: Welch from summary statistics.

    The Welch interval needs only each side's mean, standard error and degrees of freedom:
    se = sqrt(s_a^2 / n_a + se_b^2), Welch-Satterthwaite df (an infinite ``df_b``, from a
    normal interval, adds nothing to the denominator). P(A better) needs B's runs, which a paper
    does not give: it is undefined and the note says so. Hedges' g needs B's sd and n.
    """
    _check_direction(direction)
    x = _as_1d(a, "a")
    nan = math.nan
    with np.errstate(invalid="ignore", over="ignore"):
        mean_a = float(np.mean(x))
    diff = mean_a - float(mean_b)
    why_p = "P(A better) needs the reference's per-run values, which a published summary does not give"
    p_ci = _undefined(nan, confidence, 0, why_p)
    notes = [why_p]
    if x.size < 2 or not np.all(np.isfinite(x)) or not (se_b >= 0 and math.isfinite(se_b)):
        why = "A needs two finite values for its spread" if x.size < 2 or not np.all(np.isfinite(x)) \
            else "the reference's standard error is undefined"
        return Comparison(direction, int(x.size), int(n_b or 1), mean_a, float(mean_b), nan,
                          nan if sd_b is None else float(sd_b), diff, _undefined(diff, confidence, 0, why),
                          nan, nan, nan, nan, nan, p_ci, nan, confidence, 0,
                          (*notes, f"the interval is undefined: {why}"), "welch-summary")
    va = float(np.var(x, ddof=1)) / x.size
    vb = float(se_b) ** 2
    err = math.sqrt(va + vb)
    tail_b = 0.0 if not math.isfinite(df_b) else vb**2 / df_b
    denominator = va**2 / (x.size - 1) + tail_b
    df = (va + vb) ** 2 / denominator if denominator > 0 else math.inf
    diff = _zero_rounding(diff, x, float(mean_b))
    if err == 0.0:
        ci = _undefined(diff, confidence, 0, "both sides have zero spread, so the interval is undefined")
        t = p = nan
    else:
        half = t_quantile(0.5 + confidence / 2, df) * err if math.isfinite(df) else \
            float(special.ndtri(0.5 + confidence / 2)) * err
        ci = Interval(diff - half, diff + half, diff, confidence, DIFF_CI_METHOD, 0)
        t = diff / err
        p = 2 * float(special.stdtr(df, -abs(t))) if math.isfinite(df) else 2 * float(special.ndtr(-abs(t)))
    g = nan
    if sd_b is not None and n_b is not None and n_b >= 2:
        pooled = ((x.size - 1) * float(np.var(x, ddof=1)) + (n_b - 1) * float(sd_b) ** 2) \
            / (x.size + n_b - 2)
        if pooled > 0:
            dfg = x.size + n_b - 2
            j = math.exp(math.lgamma(dfg / 2) - 0.5 * math.log(dfg / 2) - math.lgamma((dfg - 1) / 2))
            g = j * diff / math.sqrt(pooled) * (1 if direction == "higher" else -1)
    return Comparison(direction, int(x.size), int(n_b or 1), mean_a, float(mean_b),
                      float(sd(x)), nan if sd_b is None else float(sd_b), diff, ci, err, t, df, p,
                      nan, p_ci, g, confidence, 0, tuple(notes), "welch-summary")


def compare_constants(value_a: float, value_b: float, *, direction: Direction, n_a: int = 1,
                      n_b: int = 1, confidence: float = 0.95) -> Comparison:
    """Two fixed values (both sides deterministic): the difference is exact, it has no interval.

    Nothing varies with the seed, so there is no sampling distribution: the interval is undefined
    (never a zero-width one) and the note says the difference is exact.
    """
    _check_direction(direction)
    diff = _zero_rounding(float(value_a) - float(value_b), float(value_a), float(value_b))
    why = "both sides are deterministic, so the difference is exact and has no sampling interval"
    better = (value_a > value_b) if direction == "higher" else (value_a < value_b)
    share = 0.5 if diff == 0.0 else float(better)
    nan = math.nan
    return Comparison(direction, n_a, n_b, float(value_a), float(value_b), 0.0, 0.0, diff,
                      _undefined(diff, confidence, 0, why), 0.0, nan, nan, nan, share,
                      _undefined(share, confidence, 0, why), nan, confidence, 0, (why,), "exact")


def _non_finite_comparison(x: FloatArray, y: FloatArray, direction: Direction,
                           confidence: float, n_resamples: int) -> Comparison:
    """A comparison of data containing NaN or inf: the means as they are, the rest NaN."""
    why = "some values are NaN or infinite"
    with np.errstate(invalid="ignore", over="ignore"):
        mean_a, mean_b = float(np.mean(x)), float(np.mean(y))
        diff = mean_a - mean_b
    nan = math.nan
    return Comparison(
        direction=direction, n_a=int(x.size), n_b=int(y.size), mean_a=mean_a, mean_b=mean_b,
        sd_a=nan, sd_b=nan, diff=diff, diff_ci=_undefined(diff, confidence, 0, why), diff_se=nan,
        welch_t=nan, welch_df=nan, welch_p=nan, prob_improvement=nan,
        prob_improvement_ci=_undefined(nan, confidence, n_resamples, why), hedges_g=nan,
        confidence=confidence, n_resamples=n_resamples,
        notes=(f"{why}; every statistic is undefined",),
    )


# --------------------------------------------------------------------------- power


def _df_root(n: int, groups: int) -> tuple[int, float]:
    """Degrees of freedom and the noncentrality factor of a t-test with n per group.

    Two groups of n: df = 2n - 2, ncp = d sqrt(n / 2). One group against a fixed value:
    df = n - 1, ncp = d sqrt(n).
    """
    if groups not in (1, 2):
        raise ValueError(f"groups must be 1 or 2, got {groups}")
    return (2 * n - 2, math.sqrt(n / 2)) if groups == 2 else (n - 1, math.sqrt(n))


def t_test_power(effect_size_d: float, n_per_group: int, *, alpha: float = 0.05,
                 groups: int = 2) -> float:
    """Power of a two-sided t-test at effect size d: two samples of n (equal variances), or
    (``groups=1``) one sample of n against a fixed value.

    Exact, via the noncentral t distribution: with df = 2n - 2 and noncentrality
    d sqrt(n / 2) (one sample: n - 1 and d sqrt(n)), power = P(T > t_crit) + P(T < -t_crit) for
    T ~ nct(df, ncp) and t_crit the 1 - alpha/2 quantile of the central t(df).
    """
    if n_per_group < 2:
        raise ValueError("a t-test needs at least 2 per group")
    df, root = _df_root(n_per_group, groups)
    ncp = abs(effect_size_d) * root
    crit = float(special.stdtrit(df, 1 - alpha / 2))
    return float(_sps().nct.sf(crit, df, ncp) + special.nctdtr(df, ncp, -crit))


def seeds_needed(effect_size_d: float, *, alpha: float = 0.05, power: float = 0.8,
                 max_n: int = MAX_SEEDS, groups: int = 2) -> int | None:
    """Seeds per group to detect ``effect_size_d`` (Cohen's d or Hedges' g, sign ignored).

    This is the power of the rule :mod:`evidence.verify.classify` applies (a Welch interval
    that excludes zero, i.e. Welch's t-test at ``alpha``): with equal group sizes and spreads
    Welch's test is the two-sample t-test below up to its slightly smaller df; the tests check
    by simulation that Welch's rule reaches the power promised.

    Method: two-sample t-test power analysis, noncentral t (see :func:`t_test_power`): the
    smallest n >= 2 per group whose two-sided power at level ``alpha`` reaches ``power``.
    Power grows with n, so the search doubles n upward from 2 and then bisects, which finds
    the same n as stepping up one at a time. E.g. d = 0.5 needs 64 per group (Cohen 1988).

    ``groups=1``: seeds of one model compared with a fixed value (one-sample t-test).

    Returns None when no finite n suffices (d = 0) or n would exceed ``max_n``; raises
    ValueError for a NaN effect size or an invalid alpha/power.
    """
    if math.isnan(effect_size_d):
        raise ValueError("the effect size is NaN; it is undefined for these data")
    if not (0.0 < alpha < 1.0 and 0.0 < power < 1.0):
        raise ValueError(f"alpha and power must be in (0, 1), got {alpha} and {power}")
    d = abs(effect_size_d)
    if d == 0.0:
        return None
    if math.isinf(d):
        return 2
    lo, hi = 1, 2  # invariant: power(lo) < target (lo = 1 means "below the minimum")
    while t_test_power(d, hi, alpha=alpha, groups=groups) < power:
        if hi >= max_n:
            return None
        lo, hi = hi, min(2 * hi, max_n)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if t_test_power(d, mid, alpha=alpha, groups=groups) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def tost_power(effect_d: float, margin_d: float, n_per_group: int, *, alpha: float = 0.05,
               groups: int = 2) -> float:
    """Approximate power of TOST at level ``alpha`` to show |difference| < margin.

    Both arguments are in SD units (the true difference d and the margin m over the common SD),
    two groups of n. With df = 2n - 2, noncentralities (d -/+ m) sqrt(n/2) and the one-sided
    critical t_c, power = P(T_upper < -t_c) - P(T_lower <= t_c) (both T noncentral t), clipped at
    0: the standard noncentral-t approximation (e.g. Phillips 1990), which treats the two tests'
    shared SD estimate as independent; simulation in the tests checks it is close.
    """
    if n_per_group < 2:
        raise ValueError("a t-test needs at least 2 per group")
    if margin_d <= 0:
        return 0.0
    df, root = _df_root(n_per_group, groups)
    crit = float(special.stdtrit(df, 1 - alpha))
    upper = float(special.nctdtr(df, (abs(effect_d) - margin_d) * root, -crit))
    lower = float(special.nctdtr(df, (abs(effect_d) + margin_d) * root, crit))
    return max(0.0, upper - lower)


def equivalence_seeds_needed(effect_d: float, margin_d: float, *, alpha: float = 0.05,
                             power: float = 0.8, max_n: int = MAX_SEEDS,
                             groups: int = 2) -> int | None:
    """Seeds per group for TOST to show |difference| < margin with ``power`` (SD units).

    The smallest n >= 2 with :func:`tost_power` >= ``power``, searched by doubling then
    bisection (power grows with n when |d| < m). None when |d| >= m (the difference is not
    inside the margin, so no number of seeds shows equivalence) or n would exceed ``max_n``.
    """
    if math.isnan(effect_d) or math.isnan(margin_d):
        raise ValueError("the effect size or the margin is NaN; it is undefined for these data")
    if abs(effect_d) >= margin_d:
        return None
    lo, hi = 1, 2
    while tost_power(effect_d, margin_d, hi, alpha=alpha, groups=groups) < power:
        if hi >= max_n:
            return None
        lo, hi = hi, min(2 * hi, max_n)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if tost_power(effect_d, margin_d, mid, alpha=alpha, groups=groups) >= power:
            hi = mid
        else:
            lo = mid
    return hi


# --------------------------------------------------------------------------- expected max


def _sorted_scores(scores: npt.ArrayLike, direction: Direction) -> FloatArray:
    _check_direction(direction)
    x = _as_1d(scores, "scores")
    if not np.all(np.isfinite(x)):
        raise ValueError("scores must be finite")
    # The expected minimum of x is minus the expected maximum of -x.
    return np.sort(x if direction == "higher" else -x)


def expected_max_validation(scores: npt.ArrayLike, *,
                            direction: Direction = "higher") -> FloatArray:
    """Expected validation performance (Dodge et al. 2019, "Show Your Work", EMNLP).

    ``scores``: shape (n,), the validation score of each of n hyperparameter trials. Returns
    shape (n,): element k-1 is the expected best score among k trials drawn i.i.d. with
    replacement from the empirical distribution, E[max] = sum_i v_(i) ((i/n)^k - ((i-1)/n)^k)
    with v_(1) <= ... <= v_(n). Element 0 is the mean, element n-1 approaches the best score.
    For ``direction="lower"`` it is the expected minimum. It answers "how good would this
    method look with a budget of k trials?", so methods tuned with different budgets can be
    compared fairly.

    Computed in the equivalent summation-by-parts form
    v_(n) - sum_{i<n} (v_(i+1) - v_(i)) (i/n)^k, whose terms shrink with k, so the curve is
    non-decreasing in k even in floating point (non-increasing for "lower").
    """
    v = _sorted_scores(scores, direction)
    n = v.size
    gaps = np.diff(v)  # shape (n - 1,), all >= 0
    cdf = np.arange(1, n) / n  # F(v_(i)) for i < n
    out = np.empty(n)
    for k in range(1, n + 1):
        out[k - 1] = v[-1] - float(np.sum(gaps * cdf**k))
    return out if direction == "higher" else -out


def expected_max_validation_var(scores: npt.ArrayLike, *,
                                direction: Direction = "higher") -> FloatArray:
    """Variance of the best-of-k score, shape (n,), for k = 1..n (same setting as above).

    E[max^2] - E[max]^2 with the same order-statistic weights; the square root gives the
    +/- band Dodge et al. plot around the expected-max curve. Clipped at 0 against rounding.
    """
    v = _sorted_scores(scores, direction)
    n = v.size
    upper = np.arange(1, n + 1) / n
    lower = np.arange(0, n) / n
    out = np.empty(n)
    for k in range(1, n + 1):
        w = upper**k - lower**k
        first = float(np.sum(w * v))
        out[k - 1] = max(float(np.sum(w * v**2)) - first**2, 0.0)
    return out
