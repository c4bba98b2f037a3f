"""Is a difference between two models a bug, a real effect, or noise? The ``verify`` verdict.

A build target calls :func:`classify` once per comparison with the :class:`~evidence.verify.stats.
Comparison` of the per-seed values and the ``results.json`` dicts of the runs behind them
(docs/formats.md). The verdict is one of four labels, decided in this order:

1. ``suspected_bug``: some sanity check failed, so the numbers are not evidence either way:
   a metric is NaN/inf or outside its declared range (:mod:`evidence.core.metrics`); every seed
   of a group gives bit-identical metrics (the seed is not applied); A does not beat its
   shuffled-label control; a shuffled-label control scores far better than chance (judged by
   its interval); predictions are (near-)constant; test beats train by an implausible margin
   (by default scaled to the metric: a fraction of a bounded metric's range, or of an unbounded
   metric's train value) or a test score is perfect (possible leakage); a classifier's initial
   loss is far from the chance loss log K. These come first because a broken run can produce a
   convincing "effect".
2. ``effect``: the Welch interval of the difference of means excludes zero, i.e. Welch's t-test
   rejects "no difference" at ``alpha`` (the interval and the test are one computation, so the
   printed interval and the label cannot disagree). ``direction_matches_claim`` says whether
   the side is the one claimed; the opposite side is still ``effect`` (there *is* a real
   difference; calling it noise would hide that) and the reason says the claim is contradicted.
3. ``noise``: only when the data *show* the difference is negligible: an equivalence test (TOST,
   two one-sided Welch tests at ``alpha``) against the comparison's declared smallest effect of
   interest ``margin`` rejects "|difference| >= margin". Without a declared margin nothing can
   be shown negligible, so a comparison is never called noise.
4. ``insufficient_evidence``: everything else: the interval includes zero but equivalence is
   not shown (an underpowered comparison looks exactly like this), or the interval is undefined.
   Too few seeds (``enough_seeds``) is this, not a bug: a side run once has no interval, and the
   reason suggests ``deterministic = true`` for a baseline run once that does not depend on the seed.
   The reason gives the seeds per group that the same rule would need, as an estimate from the
   effect size measured on these seeds.

A side that is a **fixed value** (a variant declared ``deterministic = true`` or shown to be by
:mod:`evidence.verify.determinism`, or a published number) has no seed-to-seed variation: the
interval in 2-4 is then the one-sample Student t interval of the seeded side's mean minus the
value (or Welch's from the published summary statistics), the rules are the same, its identical
seeds are expected (``seed_applied`` skips it; ``deterministic_agrees`` checks a declared one)
and the seed minimum applies to the seeded side only. Two fixed values differ exactly.

Why not the bootstrap and "the interval includes zero, so noise": at 5 seeds a bootstrap "95%"
interval covers 85% or less, and with a true effect of d = 1.2 and 5 seeds 44% of such verdicts
said "no difference beyond noise". Absence of evidence is not evidence of absence.

Every check is reported in ``Verdict.checks`` as ``{"name", "passed", "detail"}``, where
``passed`` is None when a check could not run (e.g. a regression run has no class diagnostics).
The thresholds of the checks are one :class:`Thresholds` object (``[thresholds]`` in
comparisons.toml sets them for a project).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from evidence.core.metrics import metric_range, out_of_range
from evidence.verify.determinism import fingerprint
from evidence.verify.stats import (
    MAX_SEEDS,
    METHOD_NAMES,
    TEST_NAMES,
    Comparison,
    Interval,
    equivalence_seeds_needed,
    seeds_needed,
    t_interval_mean,
    tost_p,
)
from evidence.verify.thresholds import DEFAULT_PERFECT_SCORES, DEFAULT_THRESHOLDS, Thresholds

Label = Literal["effect", "noise", "insufficient_evidence", "suspected_bug"]
Claim = Literal["a_better", "b_better", "differ"]
Check = dict[str, Any]
Side = Literal["a", "b", "none", "undefined"]

_MAX_LISTED = 3


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`classify`.

    ``reason`` is a full sentence with the numbers that decided the label; ``checks`` lists
    every check run, in order. ``direction_matches_claim`` is set only for ``effect``;
    ``seeds_needed`` (``insufficient_evidence`` and ``noise`` only) estimates the seeds per group
    the decision rule would need at the effect size measured here, to show an effect or, with a
    margin, equivalence, whichever the data point to (None where no finite number suffices);
    ``seeds_needed_note`` then says why no number is given.
    """

    label: Label
    reason: str
    checks: list[Check] = field(default_factory=list)
    direction_matches_claim: bool | None = None
    seeds_needed: int | None = None
    seeds_needed_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "reason": self.reason,
                "checks": [dict(c) for c in self.checks],
                "direction_matches_claim": self.direction_matches_claim,
                "seeds_needed": self.seeds_needed, "seeds_needed_note": self.seeds_needed_note}


# --------------------------------------------------------------------------- formatting


def _num(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else ("undefined" if math.isnan(x) else str(x))


def _signed(x: float) -> str:
    if x == 0.0:
        return "0"  # no sign on an exact zero (nor a -2.2e-16 from rounding: compare() zeroes it)
    return f"{x:+.4g}" if math.isfinite(x) else _num(x)


def _pct(x: float) -> str:
    return f"{100 * x:.4g}%"


def _ci(ci: Interval) -> str:
    if not ci.defined:
        return f"an undefined {_pct(ci.confidence)} CI ({ci.note})"
    return f"{_pct(ci.confidence)} CI [{_num(ci.low)}, {_num(ci.high)}] " \
           f"({METHOD_NAMES.get(ci.method, ci.method)})"


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


def check_metric_ranges(runs: Runs) -> Check:
    """Every metric value lies in its declared range (:mod:`evidence.core.metrics`).

    An accuracy of 1.3 or a negative loss is a bug in the metric, never a result; the runner
    refuses to seal one, and this catches runs sealed before that check or imported.
    """
    failures = [f"{who}: {'; '.join(problems)}" for who, result in _runs(runs)
                if (problems := out_of_range(result))]
    return _summarise("metric_in_range", failures, len(_runs(runs)), "metrics")


def check_seed_applied(runs: Runs, fixed: Mapping[str, str] | None = None) -> Check:
    """Runs with different seeds do not all give bit-identical metrics.

    Different seeds draw different initial weights and batch orders, so every metric on every
    split agreeing to the last bit across all seeds of a group means the seed never reached the
    model (a hard-coded seed, a cached model): the "seeds" are one run counted n times, and any
    interval built from them is a fiction (Welch's t is undefined at zero variance). Groups in
    ``fixed`` (name -> why: deterministic by declaration or shown to be,
    :mod:`evidence.verify.determinism`) are expected to agree and are not checked.
    """
    fixed = fixed or {}
    failures = []
    n_checked = 0
    for group, results in runs.items():
        seeds = {r.get("seed") for r in results}
        if group in fixed or len(results) < 2 or len(seeds) < 2:
            continue
        n_checked += 1
        prints = {fingerprint(r) for r in results}
        if len(prints) == 1 and next(iter(prints)):
            shown = ", ".join(f"{split} {name} = {_num(v)}" for name, split, v in next(iter(prints))
                              if split == "test")
            failures.append(f"all {len(results)} runs of {group} (seeds "
                            f"{', '.join(map(str, sorted(seeds, key=str)))}) give bit-identical "
                            f"metrics ({shown}): zero variance across seeds, so the seed is not "
                            "applied (a variant whose result does not depend on the seed by design "
                            "says so with deterministic = true in its experiment)")
    skipped = "; ".join(f"{name} is {why}, so its seeds are expected to agree"
                        for name, why in fixed.items() if name in runs)
    if not n_checked and skipped:
        return _check("seed_applied", None, f"skipped: {skipped}")
    check = _summarise("seed_applied", failures, n_checked, "several seeds")
    if skipped:
        check["detail"] += f" (not checked: {skipped})"
    return check


def check_fixed_agree(runs: Runs, declared: Sequence[str]) -> Check:
    """A group declared deterministic gives the same metrics for every seed, as it says it does.

    A variant declared ``deterministic = true`` is compared as one fixed value; if its seeds
    disagree the declaration is wrong (or the variant reads something that changes between
    runs), and the constant it stands for does not exist.
    """
    failures = []
    n_checked = 0
    for group in declared:
        results = runs.get(group, ())
        if len(results) < 2:
            continue
        n_checked += 1
        prints = {fingerprint(r) for r in results}
        if len(prints) > 1:
            failures.append(f"{group} is declared deterministic but its {len(results)} runs give "
                            f"{len(prints)} different sets of metrics, so it is not one fixed value")
    if not n_checked:
        return _check("deterministic_agrees", None, "skipped: no group declared deterministic "
                      "with two or more runs")
    if failures:
        return _check("deterministic_agrees", False, "; ".join(failures))
    return _check("deterministic_agrees", True, f"the runs of {', '.join(declared)} agree bit for bit, "
                  "as declared")


def _chance(results: Sequence[Mapping[str, Any]], metric: str) -> tuple[float, str] | None:
    """The score of a model that ignores its input, from the runs' diagnostics, if they agree.

    accuracy: 1 / n_classes; loss: the chance loss log K; any other metric: the diagnostic
    ``baseline_<metric>`` (e.g. a regression's RMSE when predicting the training mean).
    """
    key = {"accuracy": "n_classes", "loss": "chance_loss"}.get(metric, f"baseline_{metric}")
    found = {_number(r.get("diagnostics") or {}, key) for r in results}
    if len(found) != 1 or None in found:
        return None
    value = float(next(iter(found)))  # type: ignore[arg-type]
    if metric == "accuracy":
        return (1.0 / value, f"1/{value:g} classes") if value > 0 else None
    return value, f"diagnostics.{key}"


def check_control_at_chance(controls: Mapping[str, Sequence[Mapping[str, Any]]], *, metric: str,
                            split: str, direction: str, confidence: float = 0.95,
                            margin: float = 0.05) -> Check:
    """Every shuffled-label control scores near chance, judged by its interval, not its mean.

    A model trained on shuffled labels cannot learn the input-label relation, so its held-out
    score is chance (1/K for accuracy). A control whose whole Student-t interval lies more than
    ``margin`` (metric units) better than chance learned from something other than the labels:
    the labels were not shuffled, or the test labels leak into training. Then every comparison
    with it is meaningless, and the check fails "always, for any control": it does not need a
    claim about the control to exist. With one seed the point estimate is all there is (said so).
    """
    failures = []
    details = []
    n_checked = 0
    for name, results in controls.items():
        chance = _chance(results, metric)
        found = [((_metrics(r).get(metric) or {}).get("values") or {}).get(split) for r in results]
        values = [float(v) for v in found if isinstance(v, int | float) and _is_finite(v)]
        if chance is None or not values:
            continue
        n_checked += 1
        level, origin = chance
        ci = t_interval_mean(values, confidence=confidence)
        if ci.defined:
            nearest = ci.low if direction == "higher" else -ci.high
            what = f"its {split} {metric} {_num(ci.estimate)} has {_ci(ci)} over {len(values)} seeds"
        else:
            nearest = ci.estimate if direction == "higher" else -ci.estimate
            what = f"its {split} {metric} is {_num(ci.estimate)} ({ci.note}; judged on the value alone)"
        above = nearest - _oriented(level, direction)
        text = f"control '{name}': {what}; chance is {_num(level)} ({origin})"
        if above > margin + 1e-12:
            failures.append(f"the shuffled-label {text}, so even the nearest end of the interval is "
                            f"{_num(above)} better than chance (limit {_num(margin)}): the control "
                            "learned from something other than the labels")
        else:
            details.append(text)
    if n_checked and not failures:
        return _check("control_at_chance", True, "; ".join(details))
    return _summarise("control_at_chance", failures, n_checked,
                      f"a control with a chance level for {metric}")


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


def _leakage_limit(name: str, entry: Mapping[str, Any], train: float, *, margin: float | None,
                   fraction: float, relative: float) -> tuple[float, str]:
    """How far test may beat train on metric ``name`` before it looks like leakage, and how the
    limit is worded.

    A fixed margin in metric units cannot fit every metric: 0.05 is a large gap in accuracy but
    nothing in an RMSE of 70, where a mean predictor on a small test split beats its train RMSE by
    8 by chance. So by default the limit follows the metric's scale: ``fraction`` of a bounded
    metric's range (0.05 for accuracy in [0, 1]), or ``relative`` times the train value of an
    unbounded one. A ``margin`` the project sets is one absolute limit in metric units.
    """
    if margin is not None:
        return margin, f"limit {_num(margin)}"
    low, high = metric_range(name, entry)
    if math.isfinite(low) and math.isfinite(high):
        limit = fraction * (high - low)
        return limit, f"limit {_num(limit)}, {_pct(fraction)} of its range [{_num(low)}, {_num(high)}]"
    limit = relative * abs(train)
    return limit, f"limit {_num(limit)}, {_pct(relative)} of the train value"


def check_leakage(runs: Runs, *, metric: str | None = None, margin: float | None = None,
                  perfect_scores: Mapping[str, float] | None = None, fraction: float = 0.05,
                  relative: float = 0.25) -> list[Check]:
    """Two leakage signs: test beats train by more than a limit, or a perfect test score.

    A model almost never generalises *better* than it fits by much; test - train above the limit
    (oriented by the metric's direction; see :func:`_leakage_limit` for its scale) suggests test
    data in training or a swapped split. ``metric`` restricts the gap check to the compared metric
    (None: all). ``perfect_scores`` maps metric name to its perfect value (default accuracy 1.0).
    Runs of one group with the same values (a fixed value's identical seeds) are one sentence.
    """
    perfect = DEFAULT_PERFECT_SCORES if perfect_scores is None else perfect_scores
    gaps: dict[tuple[str, str], list[str]] = {}
    found: dict[tuple[str, str], str] = {}
    perfects: list[str] = []
    n_gap = n_perfect = 0
    for group, results in runs.items():
        for index, result in enumerate(results):
            who = str(result.get("label") or result.get("run_id") or f"#{index + 1}")
            for name, entry in _metrics(result).items():
                if not isinstance(entry, Mapping):
                    continue
                values = entry.get("values") or {}
                test, train = _number(values, "test"), _number(values, "train")
                if name in perfect and test is not None:
                    n_perfect += 1
                    if test == perfect[name]:
                        perfects.append(f"run '{who}' of {group} has a perfect test {name} of "
                                        f"{_num(test)}, possible leakage")
                if (metric is not None and name != metric) or test is None or train is None:
                    continue
                if result.get("role") == "control":
                    # A shuffled-label control fits noise: its train score is meaningless, so a
                    # test score above it says nothing about leakage.
                    continue
                n_gap += 1
                gap = _oriented(test - train, str(entry.get("direction", "higher")))
                limit, limit_text = _leakage_limit(name, entry, train, margin=margin,
                                                   fraction=fraction, relative=relative)
                if gap - limit > 1e-12:  # not 1.0 - 0.95 = 0.05000000000000004 > 0.05
                    key = (group, f"{name} {test!r} {train!r}")
                    gaps.setdefault(key, []).append(who)
                    found[key] = (f"better on test than on train by {_num(gap)} {name} (test "
                                  f"{_num(test)}, train {_num(train)}; {limit_text}), possible leakage")
    sentences = []
    for (group, _), names in gaps.items():
        total = len(runs[group])
        if len(names) == 1:
            who = f"run '{names[0]}' of {group} scores"
        elif len(names) == total:
            who = f"all {total} runs of {group} ({', '.join(names)}) score"
        else:
            who = f"{len(names)} runs of {group} ({', '.join(names)}) score"
        sentences.append(f"{who} {found[(group, _)]}")
    return [_summarise("train_test_gap", sentences, n_gap, "train and test values"),
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


def _seeds_text(n: int | None) -> str:
    return f"more than {MAX_SEEDS}" if n is None else f"about {n}"


def _pooled_sd(c: Comparison) -> float:
    """The spread the effect size is measured in: pooled over two seeded groups, else the seeded
    side's own (one sample against a fixed value)."""
    if c.groups == 1:
        return c.sd_a if c.sd_b == 0.0 else c.sd_b
    if min(c.n_a, c.n_b) < 2:
        return math.nan
    return math.sqrt(((c.n_a - 1) * c.sd_a**2 + (c.n_b - 1) * c.sd_b**2) / max(c.n_a + c.n_b - 2, 1))


def _summary_seeds(c: Comparison, *, margin: float | None,
                   thresholds: Thresholds) -> tuple[str, int | None]:
    """Seeds of A needed against a published mean with its spread (normal approximation).

    The reference's own standard error does not shrink with A's seeds: when |diff| / se_ref is
    below z_(1-alpha/2) + z_power no number of seeds of A is enough, and the sentence says so.
    """
    from evidence.verify.stats import t_quantile

    z = t_quantile(1 - thresholds.alpha / 2, 1e9) + t_quantile(thresholds.power, 1e9)
    se_ref_sq = max(c.diff_se**2 - c.sd_a**2 / max(c.n_a, 1), 0.0)
    if margin is not None or c.diff == 0.0 or not math.isfinite(c.sd_a) or c.sd_a == 0.0:
        return ("The seeds needed are not estimated against a published summary for this case.", None)
    room = (c.diff / z) ** 2 - se_ref_sq
    if room <= 0:
        return ("The published number's own uncertainty is too large for any number of seeds "
                "to settle this difference.", None)
    n = max(2, math.ceil(c.sd_a**2 / room))
    return (f"Detecting a difference of this size against the published summary ({_pct(thresholds.power)} "
            f"power at alpha {thresholds.alpha:g}) would need {_seeds_text(n if n <= MAX_SEEDS else None)} "
            "seeds (a normal approximation from the spread measured here).", n if n <= MAX_SEEDS else None)


def _power_sentence(c: Comparison, *, margin: float | None,
                    thresholds: Thresholds) -> tuple[str, int | None]:
    """Seeds per group the rule would need, worded as the estimate it is; and that number.

    To show an effect: Welch's test at alpha (:func:`evidence.verify.stats.seeds_needed`), or the
    one-sample t-test against a fixed value; to show equivalence within ``margin``: TOST
    (:func:`evidence.verify.stats.equivalence_seeds_needed`). Both from Hedges' g measured on these
    seeds, itself uncertain at a few seeds, so the number is an estimate, not a promise.
    """
    alpha, power = thresholds.alpha, thresholds.power
    g = c.hedges_g
    groups = c.groups
    if c.test == "exact":
        return ("", None)
    if c.test == "welch-summary":
        return _summary_seeds(c, margin=margin, thresholds=thresholds)
    per = "seeds per group" if groups == 2 else "seeds"
    if groups == 1:
        n_seeded = c.n_a if c.sd_b == 0.0 else c.n_b
        seeds = f"{n_seeded} seeds against the fixed value"
    else:
        seeds = f"{c.n_a} and {c.n_b} seeds" if c.n_a != c.n_b else f"{c.n_a} seeds per group"
    if math.isnan(g) and c.diff != 0.0:
        return ("The effect size (Hedges' g) is undefined for these seeds, so the seeds needed "
                "cannot be estimated (it needs two seeds per group and nonzero variance).", None)
    estimate = f"estimated from Hedges' g = {_num(0.0 if c.diff == 0.0 else g)} measured on {seeds}"
    sd = _pooled_sd(c)
    if margin is not None and math.isfinite(sd) and sd > 0:
        d = 0.0 if c.diff == 0.0 else c.diff / sd
        if abs(d) < margin / sd:
            n = equivalence_seeds_needed(d, margin / sd, alpha=alpha, power=power, groups=groups)
            return (f"Showing the difference is within +/-{_num(margin)} (TOST, {_pct(power)} "
                    f"power at alpha {alpha:g}) would need {_seeds_text(n)} {per} "
                    f"({estimate}).", n)
    if c.diff == 0.0:
        tail = "" if margin is not None else \
            "; only a declared smallest effect of interest (equivalence_margin) can show it negligible"
        return (f"The measured difference is exactly 0, so no number of seeds would make it "
                f"significant{tail}.", None)
    n = seeds_needed(g, alpha=alpha, power=power, groups=groups)
    test = "Welch's t-test" if groups == 2 else "the one-sample t-test"
    return (f"Detecting a difference of this size with {test} ({_pct(power)} power at "
            f"alpha {alpha:g}) would need {_seeds_text(n)} {per} ({estimate}).", n)


def _run_once_hint(names: Sequence[str]) -> str:
    """For a side run with one seed and not declared deterministic: how to compare it as the fixed
    value it probably is (a baseline run once is usually a rule, a closed-form fit or a pretrained
    model used as is, whose result does not depend on the seed)."""
    if not names:
        return ""
    who = " and ".join(names)
    was, are = ("was", "is") if len(names) == 1 else ("were", "are")
    return (f" {who} {was} run with one seed and {are} "
            "not declared deterministic; if its result does not depend on the seed by design (a rule, "
            "a closed-form fit, a pretrained model used as is), declare deterministic = true for that "
            "variant in its experiment and it is compared as a fixed value.")


def _group_is_control(results: Sequence[Mapping[str, Any]]) -> bool:
    return bool(results) and all(r.get("role") == "control" for r in results)


def _side(c: Comparison) -> Side:
    """Which model the comparison favours: by its interval, or by the exact difference when both
    sides are fixed values (no interval exists then)."""
    if c.test == "exact":
        if not math.isfinite(c.diff):
            return "undefined"
        better = _oriented(c.diff, c.direction)
        return "a" if better > 0 else "b" if better < 0 else "none"
    return _diff_side(c.diff_ci, c.direction)


def _describe(name: str, mean: float, fixed: str | None, n: int) -> str:
    """``cnn 0.9867 over 5 seeds`` (seeded) or ``persistence 21.5, a fixed value: declared
    deterministic ...``."""
    if fixed is None:
        return f"{name} {_num(mean)} over {n} seed{'s' if n != 1 else ''}"
    return f"{name} {_num(mean)}, {fixed}"


def classify(
    comparison: Comparison,
    *,
    claimed: Claim = "a_better",
    results_a: Sequence[Mapping[str, Any]] = (),
    results_b: Sequence[Mapping[str, Any]] = (),
    control: Comparison | None = None,
    results_control: Sequence[Mapping[str, Any]] = (),
    metric: str | None = None,
    split: str = "test",
    names: tuple[str, str, str] = ("A", "B", "control"),
    margin: float | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    fixed: Mapping[str, str] | None = None,
    declared: Sequence[str] = (),
) -> Verdict:
    """Label one comparison ``effect``, ``noise``, ``insufficient_evidence`` or ``suspected_bug``.

    ``comparison``: :func:`evidence.verify.stats.compare` of the per-seed values of A and B (or
    :func:`~evidence.verify.stats.compare_to_constant`, :func:`~evidence.verify.stats.
    compare_to_summary`, :func:`~evidence.verify.stats.compare_constants` where a side is a fixed
    value). ``results_a``/``results_b``/``results_control``: the results.json dicts of the runs
    (docs/formats.md), used for the bug checks (pass none to skip them). ``control``: A compared
    with A trained on shuffled labels, same metric and direction. ``metric``/``split``: the
    compared metric and split. ``names``: how the reason names A, B and the control.
    ``margin``: the smallest effect of interest (metric units, > 0) that "noise" must be shown
    to lie within; None: never noise. ``fixed``: the names of the sides that are fixed values,
    with how the reason describes them ("a fixed value: declared deterministic in ...", "as
    published in ..."): their identical seeds are expected, not a bug, and the seed minimum does
    not apply to them. ``declared``: the names among them declared deterministic, whose runs
    must then agree. See the module docstring for the decision order.
    """
    if claimed not in ("a_better", "b_better", "differ"):
        raise ValueError(f"claimed must be 'a_better', 'b_better' or 'differ', got {claimed!r}")
    if margin is not None and not margin > 0:
        raise ValueError(f"the equivalence margin must be positive, got {margin!r}")
    t = thresholds
    c = comparison
    fixed = dict(fixed or {})
    name_a, name_b, name_control = names
    runs: Runs = {name_a: results_a, name_b: results_b}
    # a group is a control by its runs' role, or by being the declared control: not by its name
    # (a B that happens to be called "control" is a model like any other)
    controls = {name: res for name, res in ((name_a, results_a), (name_b, results_b))
                if res and _group_is_control(res)}
    if results_control:
        controls[name_control] = results_control
    bug_checks = [
        check_finite_metrics(runs, c),
        check_metric_ranges({**runs, name_control: results_control}),
        check_seed_applied(runs, fixed),
        *([check_fixed_agree(runs, declared)] if declared else []),
        check_control(control, name_a=name_a),
        check_control_at_chance(controls, metric=metric or "", split=split, direction=c.direction,
                                confidence=1 - t.alpha, margin=t.control_margin)
        if metric else _check("control_at_chance", None, "skipped: no metric named"),
        check_predictions(runs, entropy_fraction=t.entropy_fraction,
                          majority_share=t.majority_share),
        *check_leakage(runs, metric=metric, margin=t.leakage_margin,
                       perfect_scores=t.perfect_scores, fraction=t.leakage_fraction,
                       relative=t.leakage_relative),
        check_initial_loss(runs, tolerance=t.initial_loss_tolerance),
    ]
    on = f" on {metric}" if metric else ""
    seeded = [n for n, name in ((c.n_a, name_a), (c.n_b, name_b)) if name not in fixed]
    n_min = min(seeded) if seeded else 0
    side = _side(c)
    test_name = TEST_NAMES.get(c.test, c.test)
    p_text = f"P({name_a} better) = {_num(c.prob_improvement)} with {_ci(c.prob_improvement_ci)}"
    if c.test == "welch":
        who = f"{name_a} {_num(c.mean_a)} vs {name_b} {_num(c.mean_b)}, {c.n_a} and {c.n_b} seeds"
    else:
        # each side says what it is beside its own number: "linear 57.5 over 5 seeds vs ols
        # 57.3, a fixed value: ..." (the seed count is the seeded side's, never the fixed one's)
        parts = [_describe(name, mean, fixed.get(name), n) for name, mean, n in
                 ((name_a, c.mean_a, c.n_a), (name_b, c.mean_b, c.n_b))]
        who = f"{parts[0]} vs {parts[1]}"
    if c.test == "exact":
        diff_text = f"the difference {_signed(c.diff)} ({who}) is exact: nothing varies with the seed"
    else:
        diff_text = f"the difference of means {_signed(c.diff)} ({who}) has {_ci(c.diff_ci)}"
    stat = "Welch t" if c.test in ("welch", "welch-summary") else "one-sample t"
    stats_text = f"{stat} = {_num(c.welch_t)}, p = {_num(c.welch_p)}; Hedges' g = {_num(c.hedges_g)}"
    tost = tost_p(c.diff, c.diff_se, c.welch_df, margin) \
        if margin is not None and c.test != "exact" else math.nan
    equivalence_detail = "skipped: no equivalence_margin declared" if margin is None else \
        (f"the exact difference {_signed(c.diff)} against +/-{_num(margin)}" if c.test == "exact"
         else f"TOST against +/-{_num(margin)}: p = {_num(tost)} (alpha {t.alpha:g})")
    exact_within = c.test == "exact" and margin is not None and abs(c.diff) < margin
    once_hint = _run_once_hint([name for n, name in ((c.n_a, name_a), (c.n_b, name_b))
                                if n == 1 and name not in fixed])
    checks = [
        *bug_checks,
        _check("enough_seeds", None if not seeded else n_min >= t.min_seeds,
               (f"{c.n_a} seeds for {name_a} and {c.n_b} for {name_b} (minimum {t.min_seeds})"
                if not fixed else
                "; ".join(f"{n} seeds for {name}" + (" (a fixed value)" if name in fixed else "")
                          for n, name in ((c.n_a, name_a), (c.n_b, name_b)))
                + f" (minimum {t.min_seeds} for a side that varies with the seed)")
               + once_hint),
        _check("difference_ci_excludes_zero", None if side == "undefined" else side in ("a", "b"),
               diff_text + (f" ({test_name})" if c.test != "welch" else "")),
        _check("equivalence_shown",
               None if margin is None or (math.isnan(tost) and c.test != "exact")
               else (exact_within if c.test == "exact" else tost < t.alpha), equivalence_detail),
        _check("prob_improvement", None, p_text),
    ]

    failed = [check for check in bug_checks if check["passed"] is False]
    if failed:
        details = "; ".join(f"{check['detail']} [{check['name']}]" for check in failed)
        return Verdict("suspected_bug",
                       f"Suspected bug in comparing {name_a} with {name_b}{on}: {details}. "
                       "Until this is explained the difference is not evidence either way.",
                       checks)

    only = f" Only {n_min} seed{'s' if n_min != 1 else ''}"
    few = (f"{only} in the smaller group (minimum {t.min_seeds})." if len(seeded) == 2
           else f"{only} (minimum {t.min_seeds})." if seeded else "") \
        if seeded and n_min < t.min_seeds else ""
    few += once_hint
    if exact_within:
        return Verdict("noise",
                       f"No difference between {name_a} and {name_b}{on} larger than the declared "
                       f"smallest effect of interest +/-{_num(margin or 0)}: {diff_text}, and it lies "
                       "inside the margin.", checks)
    if side in ("a", "b"):
        winner, loser = (name_a, name_b) if side == "a" else (name_b, name_a)
        matches = claimed == "differ" or (claimed == "a_better") == (side == "a")
        if c.test == "exact":
            text = f"{winner} is better than {loser}{on}: {diff_text}."
        else:
            text = (f"{winner} is better than {loser}{on}: {diff_text}, which excludes zero "
                    f"({stats_text}); {p_text}.")
        if not matches:
            claim = f"{name_a} is better than {name_b}" if claimed == "a_better" \
                else f"{name_b} is better than {name_a}"
            text = f"The claim that {claim} is contradicted: {text}"
        return Verdict("effect", text + few, checks, direction_matches_claim=matches)

    power_text, needed = _power_sentence(c, margin=margin, thresholds=t)
    note = power_text if needed is None and power_text else None
    power_text = f" {power_text}" if power_text else ""
    if c.test == "exact":
        return Verdict("insufficient_evidence",
                       f"{name_a} and {name_b} are equal{on}: {diff_text}; only a declared smallest "
                       "effect of interest (equivalence_margin) can call that negligible.", checks)
    if side == "undefined":
        why = "; ".join(c.notes) or c.diff_ci.note
        return Verdict("insufficient_evidence",
                       f"The comparison of {name_a} with {name_b}{on} has no defined interval "
                       f"({why}), so it cannot establish anything.{few}{power_text}", checks,
                       seeds_needed=needed, seeds_needed_note=note)

    if margin is not None and tost < t.alpha:
        inner = 1 - 2 * t.alpha
        method = "Student t" if c.test == "one-sample-t" else "Welch"
        return Verdict("noise",
                       f"No difference between {name_a} and {name_b}{on} larger than the declared "
                       f"smallest effect of interest +/-{_num(margin)}: {diff_text}; the "
                       f"{_pct(inner)} {method} interval lies inside +/-{_num(margin)}, so TOST shows "
                       f"equivalence (p = {_num(tost)} at alpha {t.alpha:g}; {stats_text}).{few}",
                       checks)

    why_not = ("no smallest effect of interest (equivalence_margin) is declared, so the data "
               "cannot show the difference is negligible either") if margin is None else \
        (f"TOST does not show it lies within the declared +/-{_num(margin)} either "
         f"(p = {_num(tost)} at alpha {t.alpha:g})")
    return Verdict("insufficient_evidence",
                   f"Not shown either way{on}: {diff_text}, which includes zero, so no difference "
                   f"is shown ({stats_text}); {why_not}. {p_text}.{power_text}", checks,
                   seeds_needed=needed, seeds_needed_note=note)
