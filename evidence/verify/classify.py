"""Is a difference between two models a bug, a real effect, or noise? The ``verify`` verdict.

A build target calls :func:`classify` once per comparison with the :class:`~evidence.verify.stats.
Comparison` of the per-seed values and the ``results.json`` dicts of the runs behind them
(docs/formats.md). The verdict is one of four labels, decided in this order:

1. ``suspected_bug``: some sanity check failed, so the numbers are not evidence either way:
   a metric is NaN/inf; A does not beat its shuffled-label control; predictions are
   (near-)constant; test beats train by an implausible margin or a test score is perfect
   (possible leakage); a classifier's initial loss is far from the chance loss log K
   (a broken output layer or loss). These come first because a broken run can produce a
   convincing-looking "effect".
2. ``insufficient_evidence``: fewer than ``min_seeds`` seeds in a group and the intervals do
   not establish an effect, or they do but Welch's t-test does not confirm it at ``alpha``;
   the reason says how many seeds would be needed. Below ``min_seeds`` the bootstrap alone is
   not trusted: resampling n values never shows more spread than those n, so with 2 vs 2
   seeds a complete separation, which chance produces 1 time in 6, gives P(A better) the
   interval [1, 1]. The t-test accounts for the small sample.
3. ``effect``: the bootstrap CI of the mean difference excludes zero *and* the CI of
   P(A better) excludes 0.5 on the same side, i.e. both the size and the per-seed ordering
   agree. If that side is the one claimed, ``direction_matches_claim`` is True. If it is the
   opposite side the label is still ``effect`` (there *is* a real difference; calling it
   noise would hide that) with ``direction_matches_claim=False`` and a reason that says the
   claim is contradicted; a build gate should fail on that flag.
4. ``noise``: the CI of the difference includes zero.

The remaining case, a difference CI that excludes zero while the P(A better) CI includes 0.5
(a mean shift carried by a few seeds, not a consistent ordering), is labelled
``insufficient_evidence``: neither "effect" nor "no difference" is supported, and more seeds
would tell them apart.

Every check is reported in ``Verdict.checks`` as ``{"name", "passed", "detail"}``, where
``passed`` is None when a check could not run (e.g. a regression run has no class diagnostics).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from evidence.verify.stats import MAX_SEEDS, Comparison, Interval, seeds_needed

Label = Literal["effect", "noise", "insufficient_evidence", "suspected_bug"]
Claim = Literal["a_better", "b_better", "differ"]
Check = dict[str, Any]
Side = Literal["a", "b", "none", "undefined"]

#: Test-split values that are suspicious in themselves: a perfect score hints at leakage.
DEFAULT_PERFECT_SCORES: Mapping[str, float] = {"accuracy": 1.0}
_MAX_LISTED = 3


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`classify`.

    ``reason`` is a full sentence with the numbers that decided the label; ``checks`` lists
    every check run, in order. ``direction_matches_claim`` is set only for ``effect``;
    ``seeds_needed`` is the per-group number of seeds a two-sample t-test power analysis asks
    for at the observed effect size (None where not computed or no finite number suffices).
    """

    label: Label
    reason: str
    checks: list[Check] = field(default_factory=list)
    direction_matches_claim: bool | None = None
    seeds_needed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "reason": self.reason,
                "checks": [dict(c) for c in self.checks],
                "direction_matches_claim": self.direction_matches_claim,
                "seeds_needed": self.seeds_needed}


# --------------------------------------------------------------------------- formatting


def _num(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else ("undefined" if math.isnan(x) else str(x))


def _signed(x: float) -> str:
    return f"{x:+.4g}" if math.isfinite(x) else _num(x)


def _pct(x: float) -> str:
    return f"{100 * x:.4g}%"


def _ci(ci: Interval) -> str:
    if not ci.defined:
        return f"an undefined {_pct(ci.confidence)} CI ({ci.note})"
    return f"{_pct(ci.confidence)} CI [{_num(ci.low)}, {_num(ci.high)}] ({ci.method} bootstrap)"


def _check(name: str, passed: bool | None, detail: str) -> Check:
    return {"name": name, "passed": passed, "detail": detail}


def _summarise(name: str, failures: list[str], n_checked: int, what: str) -> Check:
    if n_checked == 0:
        return _check(name, None, f"skipped: no run reports {what}")
    if not failures:
        return _check(name, True, f"all {n_checked} runs pass")
    listed = "; ".join(failures[:_MAX_LISTED])
    more = len(failures) - _MAX_LISTED
    return _check(name, False, listed + (f" (and {more} more)" if more > 0 else ""))


# --------------------------------------------------------------------------- run access

Runs = Mapping[str, Sequence[Mapping[str, Any]]]


def _runs(runs: Runs) -> list[tuple[str, Mapping[str, Any]]]:
    """(description, results.json dict) for every run, e.g. ("run 'cnn-seed3' of A", {...})."""
    out = []
    for group, results in runs.items():
        for index, result in enumerate(results):
            name = result.get("label") or result.get("run_id") or f"#{index + 1}"
            out.append((f"run '{name}' of {group}", result))
    return out


def _is_finite(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def _number(mapping: Mapping[str, Any], key: str) -> float | None:
    value = mapping.get(key)
    if value is None or not _is_finite(value):
        return None
    return float(value)


def _metrics(result: Mapping[str, Any]) -> Mapping[str, Any]:
    metrics = result.get("metrics")
    return metrics if isinstance(metrics, Mapping) else {}


# --------------------------------------------------------------------------- bug checks


def check_finite_metrics(runs: Runs, comparison: Comparison | None = None) -> Check:
    """Every metric value of every split is a finite number (None counts as missing/NaN).

    JSON cannot hold NaN, so the runner stores a non-finite value as 0.0 and sets the
    diagnostic ``nonfinite_<metric>``; that flag counts as a non-finite value too.
    """
    failures = []
    all_runs = _runs(runs)
    for who, result in all_runs:
        for metric, entry in _metrics(result).items():
            values = entry.get("values", {}) if isinstance(entry, Mapping) else {}
            for split, value in values.items():
                if not _is_finite(value):
                    failures.append(f"{who} has {split} {metric} = {value}")
        for key, flag in sorted((result.get("diagnostics") or {}).items()):
            if key.startswith("nonfinite_") and flag:
                failures.append(f"{who} recorded a non-finite {key.removeprefix('nonfinite_')} "
                                f"(diagnostics.{key}; its stored 0.0 is a placeholder)")
    if comparison is not None:
        for label, value in (("A", comparison.mean_a), ("B", comparison.mean_b)):
            if not math.isfinite(value):
                failures.append(f"the mean of {label} over seeds is {value}")
    if comparison is None:
        return _summarise("finite_metrics", failures, len(all_runs), "metrics")
    if failures:
        return _summarise("finite_metrics", failures, len(all_runs) + 1, "metrics")
    return _check("finite_metrics", True, f"the compared values and all {len(all_runs)} runs' "
                  "metrics are finite")


def check_control(control: Comparison | None, *, name_a: str = "A") -> Check:
    """A beats its shuffled-label control: the A-vs-control difference CI is on A's side.

    A model that cannot beat the same model trained on shuffled labels has learned nothing
    from the labels (or the evaluation ignores them). ``control`` compares A (as "a") with
    the control (as "b") in the metric's direction.
    """
    if control is None:
        return _check("beats_shuffled_control", None, "skipped: no control comparison given")
    side = _diff_side(control.diff_ci, control.direction)
    text = f"the difference between {name_a} and its shuffled-label control is " \
           f"{_signed(control.diff)} with {_ci(control.diff_ci)}"
    if side == "a":
        return _check("beats_shuffled_control", True, text)
    if side == "undefined":
        better = _oriented(control.diff, control.direction) > 0
        return _check("beats_shuffled_control", better,
                      f"{text}; judged on the point estimate alone, which is "
                      f"{'better' if better else 'not better'}")
    how = "includes zero" if side == "none" else "favours the control"
    return _check("beats_shuffled_control", False,
                  f"{name_a} is no better than its shuffled-label control: {text}, which {how}")


def check_predictions(runs: Runs, *, entropy_fraction: float = 0.1,
                      majority_share: float = 0.95) -> Check:
    """Predictions are not (near-)constant: entropy and majority share (diagnostics, nats).

    Fails if prediction_entropy < entropy_fraction * max_prediction_entropy (log K when the
    maximum is not recorded) or majority_prediction_share > majority_share: a model that
    predicts one class has collapsed, whatever its accuracy on an imbalanced test set.
    """
    failures = []
    n_checked = 0
    for who, result in _runs(runs):
        diag = result.get("diagnostics") or {}
        entropy = _number(diag, "prediction_entropy")
        maximum = _number(diag, "max_prediction_entropy")
        n_classes = _number(diag, "n_classes")
        if maximum is None and n_classes is not None and n_classes > 1:
            maximum = math.log(n_classes)
        share = _number(diag, "majority_prediction_share")
        if (entropy is None or maximum is None) and share is None:
            continue
        n_checked += 1
        if entropy is not None and maximum is not None and entropy < entropy_fraction * maximum:
            failures.append(f"{who} makes near-constant predictions: prediction entropy "
                            f"{_num(entropy)} nats is below {_pct(entropy_fraction)} of the "
                            f"maximum {_num(maximum)} nats")
        elif share is not None and share > majority_share:
            entropy_text = f" (prediction entropy {_num(entropy)} nats)" if entropy is not None \
                else ""
            failures.append(f"{who} puts {_pct(share)} of its predictions in one class, above "
                            f"{_pct(majority_share)}{entropy_text}")
    return _summarise("prediction_diversity", failures, n_checked, "prediction diagnostics")


def _oriented(x: float, direction: str) -> float:
    return x if direction == "higher" else -x


def check_leakage(runs: Runs, *, metric: str | None = None, margin: float = 0.05,
                  perfect_scores: Mapping[str, float] | None = None) -> list[Check]:
    """Two leakage signs: test beats train by more than ``margin``, or a perfect test score.

    A model almost never generalises *better* than it fits; test - train > margin (oriented
    by the metric's direction, in the metric's unit) suggests test data in training or a
    swapped split. ``metric`` restricts the gap check to the compared metric (None: all).
    ``perfect_scores`` maps metric name to its perfect value (default accuracy 1.0).
    """
    perfect = DEFAULT_PERFECT_SCORES if perfect_scores is None else perfect_scores
    gaps: list[str] = []
    perfects: list[str] = []
    n_gap = n_perfect = 0
    for who, result in _runs(runs):
        for name, entry in _metrics(result).items():
            if not isinstance(entry, Mapping):
                continue
            values = entry.get("values") or {}
            test, train = _number(values, "test"), _number(values, "train")
            if name in perfect and test is not None:
                n_perfect += 1
                if test == perfect[name]:
                    perfects.append(f"{who} has a perfect test {name} of {_num(test)}, "
                                    "possible leakage")
            if (metric is not None and name != metric) or test is None or train is None:
                continue
            if result.get("role") == "control":
                # A shuffled-label control fits noise: its train score is meaningless, so a
                # test score above it says nothing about leakage.
                continue
            n_gap += 1
            gap = _oriented(test - train, str(entry.get("direction", "higher")))
            if gap - margin > 1e-12:  # not 1.0 - 0.95 = 0.05000000000000004 > 0.05
                gaps.append(f"{who} scores better on test than on train by {_num(gap)} {name} "
                            f"(test {_num(test)}, train {_num(train)}; limit {_num(margin)}), "
                            "possible leakage")
    return [_summarise("train_test_gap", gaps, n_gap, "train and test values"),
            _summarise("perfect_score", perfects, n_perfect, "a metric with a perfect value")]


def check_initial_loss(runs: Runs, *, tolerance: float = 0.5) -> Check:
    """A classifier's loss before training is near the chance loss log K (nats).

    With a sensible initialisation the first loss is about -log(1/K); more than
    ``tolerance`` (a fraction of the chance loss) away points at a broken output layer or loss
    (softmax applied twice, wrong label encoding, logits scaled by mistake).
    """
    failures = []
    n_checked = 0
    for who, result in _runs(runs):
        diag = result.get("diagnostics") or {}
        initial = _number(diag, "initial_loss")
        chance = _number(diag, "chance_loss")
        n_classes = _number(diag, "n_classes")
        if chance is None and n_classes is not None and n_classes > 1:
            chance = math.log(n_classes)
        if initial is None or chance is None or chance <= 0:
            continue
        n_checked += 1
        off = abs(initial - chance) / chance
        if off > tolerance:
            failures.append(f"{who} starts at loss {_num(initial)}, {_pct(off)} off the chance "
                            f"loss {_num(chance)} (limit {_pct(tolerance)})")
    return _summarise("initial_loss", failures, n_checked, "initial and chance loss")


# --------------------------------------------------------------------------- evidence


def _diff_side(ci: Interval, direction: str) -> Side:
    """Which model the difference CI (mean_a - mean_b) favours, oriented by direction."""
    if not ci.defined:
        return "undefined"
    low, high = (ci.low, ci.high) if direction == "higher" else (-ci.high, -ci.low)
    return "a" if low > 0 else "b" if high < 0 else "none"


def _p_side(ci: Interval) -> Side:
    """Which model the P(A better) CI favours."""
    if not ci.defined:
        return "undefined"
    return "a" if ci.low > 0.5 else "b" if ci.high < 0.5 else "none"


def _power_sentence(comparison: Comparison, *, alpha: float,
                    power: float) -> tuple[str, int | None]:
    g = comparison.hedges_g
    method = "two-sample t-test power analysis, noncentral t"
    if comparison.diff == 0.0 or g == 0.0:
        return ("The observed effect is exactly zero, so no finite number of seeds suffices to "
                f"detect it ({method}).", None)
    if math.isnan(g):
        return ("The effect size (Hedges' g) is undefined for these seeds, so the number of "
                f"seeds needed cannot be computed ({method}; it needs at least two seeds per "
                "group and nonzero variance).", None)
    n = seeds_needed(g, alpha=alpha, power=power)
    target = f"more than {MAX_SEEDS}" if n is None else str(n)
    return (f"Detecting an effect of the observed size (Hedges' g = {_num(g)}) with "
            f"{_pct(power)} power at alpha {alpha:g} needs {target} seeds per group ({method}).",
            n)


def classify(
    comparison: Comparison,
    *,
    claimed: Claim = "a_better",
    min_seeds: int = 5,
    results_a: Sequence[Mapping[str, Any]] = (),
    results_b: Sequence[Mapping[str, Any]] = (),
    control: Comparison | None = None,
    metric: str | None = None,
    name_a: str = "A",
    name_b: str = "B",
    alpha: float = 0.05,
    power: float = 0.8,
    entropy_fraction: float = 0.1,
    majority_share: float = 0.95,
    leakage_margin: float = 0.05,
    perfect_scores: Mapping[str, float] | None = None,
    initial_loss_tolerance: float = 0.5,
) -> Verdict:
    """Label one comparison ``effect``, ``noise``, ``insufficient_evidence`` or ``suspected_bug``.

    ``comparison``: :func:`evidence.verify.stats.compare` of the per-seed values of A and B.
    ``results_a``/``results_b``: the results.json dicts of A's and B's runs (docs/formats.md),
    used for the bug checks (pass none to skip them). ``control``: A compared with A trained
    on shuffled labels, same metric and direction. ``metric``: the compared metric's name, for
    the reason and the train/test gap check. ``name_a``/``name_b`` name the models in the
    reason. The remaining keywords are the check thresholds (see the ``check_*`` functions)
    and the power analysis settings. See the module docstring for the decision order.
    """
    if claimed not in ("a_better", "b_better", "differ"):
        raise ValueError(f"claimed must be 'a_better', 'b_better' or 'differ', got {claimed!r}")
    runs: Runs = {name_a: results_a, name_b: results_b}
    bug_checks = [
        check_finite_metrics(runs, comparison),
        check_control(control, name_a=name_a),
        check_predictions(runs, entropy_fraction=entropy_fraction,
                          majority_share=majority_share),
        *check_leakage(runs, metric=metric, margin=leakage_margin,
                       perfect_scores=perfect_scores),
        check_initial_loss(runs, tolerance=initial_loss_tolerance),
    ]
    c = comparison
    on = f" on {metric}" if metric else ""
    n_min = min(c.n_a, c.n_b)
    diff_side = _diff_side(c.diff_ci, c.direction)
    p_side = _p_side(c.prob_improvement_ci)
    p_text = f"P({name_a} better) = {_num(c.prob_improvement)} with {_ci(c.prob_improvement_ci)}"
    diff_text = (f"the difference of means {_signed(c.diff)} ({name_a} {_num(c.mean_a)} vs "
                 f"{name_b} {_num(c.mean_b)}, {c.n_a} and {c.n_b} seeds) has {_ci(c.diff_ci)}")
    checks = [
        *bug_checks,
        _check("enough_seeds", n_min >= min_seeds,
               f"{c.n_a} seeds for {name_a} and {c.n_b} for {name_b} (minimum {min_seeds})"),
        _check("difference_ci_excludes_zero",
               None if diff_side == "undefined" else diff_side in ("a", "b"), diff_text),
        _check("prob_improvement_ci_excludes_half",
               None if p_side == "undefined" else p_side in ("a", "b"), p_text),
    ]

    failed = [check for check in bug_checks if check["passed"] is False]
    if failed:
        details = "; ".join(f"{check['detail']} [{check['name']}]" for check in failed)
        return Verdict("suspected_bug",
                       f"Suspected bug in comparing {name_a} with {name_b}{on}: {details}. "
                       "Until this is explained the difference is not evidence either way.",
                       checks)

    established = diff_side == p_side and diff_side in ("a", "b")
    power_text, needed = _power_sentence(c, alpha=alpha, power=power)
    # Below min_seeds an interval-established effect must also pass Welch's test (see above).
    confirmed = established and (n_min >= min_seeds or c.welch_p < alpha)
    if n_min < min_seeds and not confirmed:
        state = "so nothing can be concluded from it" if diff_side == "undefined" else \
            "which includes zero" if diff_side == "none" else \
            "which excludes zero, but P(better) does not agree" if not established else \
            (f"which excludes zero, and P(better) agrees, but bootstrap intervals from so few "
             f"seeds are too narrow and Welch's t-test does not confirm it (p = {_num(c.welch_p)} "
             f"at alpha {alpha:g})")
        return Verdict("insufficient_evidence",
                       f"Too few seeds to decide{on} (the minimum is {min_seeds} per group): "
                       f"{diff_text}, {state}; {p_text}. {power_text}", checks,
                       seeds_needed=needed)

    stats_text = f"Welch t = {_num(c.welch_t)}, p = {_num(c.welch_p)}; " \
                 f"Hedges' g = {_num(c.hedges_g)}"
    if established:
        winner, loser = (name_a, name_b) if diff_side == "a" else (name_b, name_a)
        matches = claimed == "differ" or (claimed == "a_better") == (diff_side == "a")
        where = "above" if p_side == "a" else "below"
        text = (f"{winner} is better than {loser}{on}: {diff_text}, which excludes zero, and "
                f"{p_text}, entirely {where} 0.5 ({stats_text}).")
        if not matches:
            claim = f"{name_a} is better than {name_b}" if claimed == "a_better" \
                else f"{name_b} is better than {name_a}"
            text = f"The claim that {claim} is contradicted: {text}"
        if n_min < min_seeds:
            text += f" The effect is clear despite only {n_min} seeds in the smaller group " \
                    f"(minimum {min_seeds})."
        return Verdict("effect", text, checks, direction_matches_claim=matches)

    if diff_side == "none":
        return Verdict("noise",
                       f"No difference between {name_a} and {name_b}{on} beyond seed-to-seed "
                       f"noise: {diff_text}, which includes zero; {p_text}; {stats_text}. "
                       f"{power_text}", checks, seeds_needed=needed)

    if diff_side == "undefined":
        why = "; ".join(c.notes) or c.diff_ci.note
        return Verdict("insufficient_evidence",
                       f"The comparison of {name_a} with {name_b}{on} has no defined interval "
                       f"({why}), so it cannot establish anything. {power_text}", checks,
                       seeds_needed=needed)

    # The difference CI excludes zero but P(A better) does not agree: a mean shift carried by
    # a few seeds rather than a consistent ordering. Neither label "effect" nor "noise" fits.
    more = power_text if needed is None or needed > n_min else \
        "More seeds would show whether the ordering is consistent."
    return Verdict("insufficient_evidence",
                   f"Inconclusive{on}: {diff_text}, which excludes zero, but {p_text}, which "
                   f"does not lie on the same side of 0.5, so the mean difference is not a "
                   f"consistent per-seed ordering (a few seeds may carry it; {stats_text}). "
                   f"{more}", checks, seeds_needed=needed)
