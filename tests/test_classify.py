"""Tests of evidence.verify.classify: one test per label and per suspected-bug trigger."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from evidence.verify import stats
from evidence.verify.classify import Thresholds, Verdict, classify
from evidence.verify.stats import Comparison

B = 2_000
CHANCE = math.log(10)


def _result(label: str, *, test: float = 0.9, train: float = 0.95, loss_test: float = 0.3,
            loss_train: float = 0.2, **diagnostics: float) -> dict[str, Any]:
    """A results.json dict (docs/formats.md) of a healthy 10-class classifier run."""
    diag = {"n_classes": 10, "initial_loss": 2.31, "chance_loss": CHANCE,
            "prediction_entropy": 2.25, "max_prediction_entropy": CHANCE,
            "majority_prediction_share": 0.12}
    diag.update(diagnostics)
    return {
        "schema_version": 1, "run_id": f"id-{label}", "label": label, "seed": 0,
        "metrics": {
            "accuracy": {"direction": "higher",
                         "values": {"train": train, "val": test, "test": test}},
            "loss": {"direction": "lower",
                     "values": {"train": loss_train, "val": loss_test, "test": loss_test}},
        },
        "diagnostics": diag,
    }


def _compare(a: list[float], b: list[float], direction: stats.Direction = "higher",
             name: str = "cmp") -> Comparison:
    return stats.compare(a, b, direction=direction)


# Clearly separated accuracies over 8 seeds: A about 0.90, B about 0.85.
A_ACC = [0.901, 0.897, 0.905, 0.899, 0.903, 0.896, 0.902, 0.900]
B_ACC = [0.851, 0.848, 0.856, 0.850, 0.853, 0.846, 0.852, 0.849]
RUNS_A = [_result(f"a-seed{i}", test=v) for i, v in enumerate(A_ACC)]
RUNS_B = [_result(f"b-seed{i}", test=v) for i, v in enumerate(B_ACC)]
EFFECT = _compare(A_ACC, B_ACC)


def _check(verdict: Verdict, name: str) -> dict[str, Any]:
    (found,) = [c for c in verdict.checks if c["name"] == name]
    return found


# --------------------------------------------------------------------------- labels


def test_effect_in_the_claimed_direction() -> None:
    control = _compare(A_ACC, [0.1, 0.11, 0.09, 0.1, 0.1, 0.12], name="control")
    v = classify(EFFECT, results_a=RUNS_A, results_b=RUNS_B, metric="accuracy",
                 control=control, names=("cnn", "mlp", "control"))
    assert v.label == "effect" and v.direction_matches_claim is True
    assert v.reason.startswith("cnn is better than mlp on accuracy")
    assert "excludes zero" in v.reason and "(Welch t)" in v.reason
    assert "Welch" in v.reason and "Hedges' g" in v.reason
    assert not [c for c in v.checks if c["passed"] is False], v.checks
    assert {c["name"] for c in v.checks} >= {"finite_metrics", "beats_shuffled_control",
                                            "prediction_diversity", "train_test_gap",
                                            "perfect_score", "initial_loss"}
    assert v.to_dict()["label"] == "effect"


def test_effect_for_a_lower_is_better_metric() -> None:
    # Losses: A lower (better) than B; the difference mean_a - mean_b is negative.
    c = _compare([0.20, 0.21, 0.19, 0.205, 0.195, 0.2], [0.30, 0.31, 0.29, 0.305, 0.295, 0.3],
                 direction="lower")
    assert c.diff < 0 and c.prob_improvement == 1.0
    v = classify(c, metric="loss")
    assert v.label == "effect" and v.direction_matches_claim is True
    assert "A is better than B on loss" in v.reason


def test_effect_in_the_opposite_direction_contradicts_the_claim() -> None:
    v = classify(EFFECT, claimed="b_better")
    assert v.label == "effect" and v.direction_matches_claim is False
    assert v.reason.startswith("The claim that B is better than A is contradicted")
    reversed_ = classify(_compare(B_ACC, A_ACC))  # A is the worse one, claim a_better
    assert reversed_.label == "effect" and reversed_.direction_matches_claim is False
    assert "B is better than A" in reversed_.reason
    assert classify(EFFECT, claimed="differ").direction_matches_claim is True


# Two models that look equal over 7 seeds, spread about 1.4 points.
EQUAL_A = [0.80, 0.82, 0.81, 0.79, 0.83, 0.80, 0.82]
EQUAL_B = [0.81, 0.80, 0.82, 0.80, 0.82, 0.79, 0.81]


def test_noise_only_inside_a_declared_equivalence_margin() -> None:
    c = _compare(EQUAL_A, EQUAL_B)
    v = classify(c, metric="accuracy", margin=0.02)  # two accuracy points matter, less does not
    assert v.label == "noise" and v.direction_matches_claim is None
    assert "larger than the declared smallest effect of interest +/-0.02" in v.reason
    assert "90% Welch interval lies inside +/-0.02" in v.reason and "TOST" in v.reason
    tost = stats.tost_p(c.diff, c.diff_se, c.welch_df, 0.02)
    assert tost < 0.05 and _check(v, "equivalence_shown")["passed"] is True
    assert _check(v, "difference_ci_excludes_zero")["passed"] is False


def test_equal_looking_without_a_margin_is_insufficient_evidence_not_noise() -> None:
    v = classify(_compare(EQUAL_A, EQUAL_B), metric="accuracy")
    assert v.label == "insufficient_evidence"
    assert "which includes zero, so no difference is shown" in v.reason
    assert "no smallest effect of interest (equivalence_margin) is declared" in v.reason
    assert _check(v, "equivalence_shown")["passed"] is None


def test_underpowered_equal_looking_comparison_is_insufficient_evidence() -> None:
    # 3 seeds each, spread about 1.5 points: the interval includes zero but is far too wide to
    # show that the difference is below one point, so neither effect nor noise is shown.
    c = _compare([0.80, 0.83, 0.81], [0.79, 0.82, 0.815])
    v = classify(c, metric="accuracy", margin=0.01, thresholds=Thresholds(min_seeds=5))
    assert v.label == "insufficient_evidence"
    assert "TOST does not show it lies within the declared +/-0.01" in v.reason
    pooled = math.sqrt((np.var([0.80, 0.83, 0.81], ddof=1) + np.var([0.79, 0.82, 0.815], ddof=1)) / 2)
    needed = stats.equivalence_seeds_needed(c.diff / pooled, 0.01 / pooled)
    assert needed is not None and needed > 3 and v.seeds_needed == needed
    assert f"would need about {needed} seeds per group" in v.reason
    assert "estimated from Hedges' g" in v.reason and "measured on 3 seeds per group" in v.reason
    assert _check(v, "enough_seeds")["passed"] is False


def test_insufficient_evidence_names_the_seeds_for_the_welch_rule() -> None:
    c = _compare([0.80, 0.83, 0.81, 0.82, 0.80], [0.79, 0.82, 0.805, 0.81, 0.80])
    v = classify(c)
    needed = stats.seeds_needed(c.hedges_g)
    assert v.label == "insufficient_evidence" and v.seeds_needed == needed
    assert needed is not None and needed > 5
    assert f"Welch's t-test (80% power at alpha 0.05) would need about {needed} seeds" in v.reason
    assert "measured on 5 seeds per group" in v.reason


def test_zero_difference_is_exactly_zero_and_says_why_no_seeds_suffice() -> None:
    c = _compare([0.80, 0.82, 0.81], [0.82, 0.80, 0.81])
    assert c.diff == 0.0 and c.diff_ci.estimate == 0.0  # not -2.2e-16
    v = classify(c)
    assert v.label == "insufficient_evidence" and v.seeds_needed is None
    assert "exactly 0, so no number of seeds would make it significant" in v.reason
    assert "e-16" not in v.reason and "10000" not in v.reason
    assert "the difference of means 0 (A 0.81 vs B 0.81" in v.reason


def test_one_seed_per_group_is_insufficient_not_an_effect() -> None:
    v = classify(_compare([0.9], [0.8]))
    assert v.label == "insufficient_evidence"
    assert "undefined" in v.reason


def test_a_mean_shift_without_a_consistent_ordering_is_judged_by_welch() -> None:
    # Half of A's seeds are slightly worse than every seed of B, half far better: Welch's
    # interval, which accounts for A's huge spread, decides; P(A better) is reported beside it.
    a = [0.9, 0.9, 0.9, 0.9, 0.9, 3.0, 3.0, 3.0, 3.0, 3.0]
    b = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0]
    c = _compare(a, b)
    assert c.diff_ci.method == "welch-t" and c.diff_ci.low > 0
    v = classify(c)
    assert v.label == "effect" and "P(A better) = 0.5" in v.reason


# --------------------------------------------------------------------------- suspected bugs


@pytest.mark.parametrize("bad", [math.nan, math.inf, None])
def test_bug_non_finite_metric(bad: float | None) -> None:
    runs = [dict(r) for r in RUNS_A]
    runs[2] = _result("a-seed2")
    runs[2]["metrics"]["loss"]["values"]["val"] = bad
    v = classify(EFFECT, results_a=runs, results_b=RUNS_B)
    assert v.label == "suspected_bug"
    assert f"run 'a-seed2' of A has val loss = {bad}" in v.reason
    assert "[finite_metrics]" in v.reason


def test_bug_non_finite_comparison_values() -> None:
    v = classify(_compare([0.9, math.nan, 0.91], [0.8, 0.81, 0.82]))
    assert v.label == "suspected_bug" and "the mean of A over seeds is nan" in v.reason


def test_bug_no_better_than_shuffled_label_control() -> None:
    control = _compare(A_ACC, [0.899, 0.902, 0.898, 0.904, 0.897, 0.901, 0.9, 0.903])
    v = classify(EFFECT, control=control)
    assert v.label == "suspected_bug"
    assert "A is no better than its shuffled-label control" in v.reason
    assert "includes zero" in v.reason
    worse = classify(EFFECT, control=_compare(B_ACC, A_ACC))
    assert worse.label == "suspected_bug" and "favours the control" in worse.reason
    fine = classify(EFFECT, control=_compare(A_ACC, [0.1, 0.11, 0.09, 0.1, 0.1, 0.12]))
    assert fine.label == "effect" and _check(fine, "beats_shuffled_control")["passed"] is True


def test_bug_near_constant_predictions_by_entropy() -> None:
    runs = [*RUNS_A[:-1], _result("collapsed", prediction_entropy=0.05)]
    v = classify(EFFECT, results_a=runs)
    assert v.label == "suspected_bug"
    assert "run 'collapsed' of A makes near-constant predictions" in v.reason
    assert "prediction entropy 0.05 nats is below 10% of the maximum 2.303 nats" in v.reason


def test_bug_near_constant_predictions_by_majority_share() -> None:
    runs = [*RUNS_B[:-1], _result("majority", majority_prediction_share=0.97)]
    v = classify(EFFECT, results_b=runs)
    assert v.label == "suspected_bug"
    assert "run 'majority' of B puts 97% of its predictions in one class" in v.reason
    assert "prediction entropy 2.25 nats" in v.reason
    relaxed = classify(EFFECT, results_b=runs, thresholds=Thresholds(majority_share=0.99))
    assert relaxed.label == "effect"


def test_bug_test_beats_train_possible_leakage() -> None:
    runs = [*RUNS_A[:-1], _result("leaky", test=0.95, train=0.88)]
    v = classify(EFFECT, results_a=runs, metric="accuracy")
    assert v.label == "suspected_bug"
    assert "run 'leaky' of A scores better on test than on train by 0.07 accuracy" in v.reason
    assert "possible leakage" in v.reason
    # A gap of exactly the margin (0.95 - 0.90, which is 0.05000000000000004 in binary) passes.
    at_margin = [*RUNS_A[:-1], _result("edge", test=0.95, train=0.90)]
    assert classify(EFFECT, results_a=at_margin, metric="accuracy").label == "effect"


def test_bug_test_loss_below_train_loss_is_oriented() -> None:
    # For loss (lower is better) "test beats train" means test loss < train loss - margin.
    runs = [*RUNS_A[:-1], _result("leaky", loss_test=0.1, loss_train=0.3)]
    v = classify(EFFECT, results_a=runs)
    assert v.label == "suspected_bug" and "by 0.2 loss" in v.reason
    higher_loss_on_test = [*RUNS_A[:-1], _result("ok", loss_test=0.9, loss_train=0.1)]
    assert classify(EFFECT, results_a=higher_loss_on_test).label == "effect"


def test_bug_perfect_test_accuracy() -> None:
    runs = [*RUNS_A[:-1], _result("perfect", test=1.0, train=1.0)]
    v = classify(EFFECT, results_a=runs)
    assert v.label == "suspected_bug"
    assert "run 'perfect' of A has a perfect test accuracy of 1" in v.reason
    assert "[perfect_score]" in v.reason


def test_bug_initial_loss_far_from_chance() -> None:
    runs = [*RUNS_A[:-1], _result("bad-init", initial_loss=4.8)]
    v = classify(EFFECT, results_a=runs)
    assert v.label == "suspected_bug"
    assert "run 'bad-init' of A starts at loss 4.8" in v.reason
    assert "off the chance loss 2.303 (limit 50%)" in v.reason
    assert classify(EFFECT, results_a=runs,
                    thresholds=Thresholds(initial_loss_tolerance=1.5)).label == "effect"


def test_bug_checks_without_diagnostics_are_skipped_not_passed() -> None:
    runs = [{"label": "regression", "metrics": {"mse": {"direction": "lower",
                                                        "values": {"train": 1.0, "test": 1.1}}}}]
    v = classify(EFFECT, results_a=runs)
    assert v.label == "effect"
    assert _check(v, "prediction_diversity")["passed"] is None
    assert "skipped" in _check(v, "initial_loss")["detail"]


def test_suspected_bug_takes_precedence_over_too_few_seeds() -> None:
    c = _compare([0.80, 0.83, 0.81], [0.79, 0.82, 0.815])
    v = classify(c, results_a=[_result("perfect", test=1.0)])
    assert v.label == "suspected_bug"


def test_claimed_must_be_known() -> None:
    with pytest.raises(ValueError, match="claimed must be"):
        classify(EFFECT, claimed="a_worse")  # type: ignore[arg-type]


def test_effect_size_is_consistent_with_numpy() -> None:
    # Sanity link between the verdict numbers and the data: Hedges' g > 0 for the effect.
    assert EFFECT.hedges_g > 0
    assert EFFECT.diff == pytest.approx(np.mean(A_ACC) - np.mean(B_ACC))


# --------------------------------------------------------------------------- planted bugs (issue 18)


def _control_run(label: str, accuracy: float, seed: int) -> dict[str, Any]:
    run = _result(label, test=accuracy, train=accuracy)
    return {**run, "role": "control", "seed": seed}


def test_planted_control_far_above_chance_is_a_suspected_bug() -> None:
    # A "shuffled-label" control that scores 0.90 on 10 classes learned from the labels.
    values = [0.90, 0.89, 0.91, 0.90, 0.895]
    controls = [_control_run(f"ctrl-s{i}", v, i) for i, v in enumerate(values)]
    model = [0.97, 0.975, 0.965, 0.97, 0.972]
    c = _compare(model, values)
    v = classify(c, metric="accuracy", results_a=[_result(f"m{i}", test=x) for i, x in enumerate(model)],
                 results_b=controls, names=("mlp", "control", "control"))
    assert v.label == "suspected_bug"
    assert "the shuffled-label control 'control': its test accuracy 0.899 has 95% CI [0.8898, 0.9082] " \
        "(Student t) over 5 seeds" in v.reason
    assert "chance is 0.1 (1/10 classes)" in v.reason
    assert "0.7898 better than chance (limit 0.05)" in v.reason and "[control_at_chance]" in v.reason
    # the same control given as a comparison's `control` is checked too, without any claim on it
    v2 = classify(_compare(model, [0.5, 0.51, 0.49, 0.5, 0.5]), metric="accuracy",
                  results_control=controls, control=c)
    assert v2.label == "suspected_bug" and "[control_at_chance]" in v2.reason


def test_a_control_at_chance_passes_by_its_interval() -> None:
    values = [0.1528, 0.0444, 0.1722, 0.1, 0.0889]  # the bundled example's control
    controls = [_control_run(f"ctrl-s{i}", v, i) for i, v in enumerate(values)]
    v = classify(_compare(A_ACC, values), metric="accuracy", results_b=controls)
    assert _check(v, "control_at_chance")["passed"] is True and v.label == "effect"


def test_planted_identical_seeds_are_a_suspected_bug() -> None:
    # Every seed bit-identical: the seed never reached the model.
    runs = [{**_result(f"same-s{i}", test=0.9), "seed": i} for i in range(5)]
    c = _compare([0.9] * 5, B_ACC[:5])
    v = classify(c, metric="accuracy", results_a=runs, results_b=RUNS_B[:5])
    assert v.label == "suspected_bug"
    assert ("all 5 runs of A (seeds 0, 1, 2, 3, 4) give bit-identical metrics (test accuracy = 0.9, "
            "test loss = 0.3): zero variance across seeds, so the seed is not applied") in v.reason
    assert "deterministic = true" in v.reason  # the way out, when the variant is deterministic by design


def test_planted_metric_out_of_range_is_a_suspected_bug() -> None:
    runs_a = [*RUNS_A[:-1], _result("bad-acc", test=1.3, train=1.3)]
    runs_b = [*RUNS_B[:-1], _result("neg-acc", test=-0.2)]
    v = classify(EFFECT, metric="accuracy", results_a=runs_a, results_b=runs_b)
    assert v.label == "suspected_bug"
    assert "run 'bad-acc' of A: test accuracy = 1.3 is outside its range [0, 1]; train accuracy " \
        "= 1.3 is outside its range [0, 1]; val accuracy = 1.3 is outside its range [0, 1]" in v.reason
    assert "run 'neg-acc' of B: test accuracy = -0.2 is outside its range [0, 1]" in v.reason
    assert "[metric_in_range]" in v.reason


def test_thresholds_are_one_frozen_object_settable_from_a_mapping() -> None:
    base = Thresholds.from_mapping({"control_margin": 0.1, "perfect_scores": {"f1": 1.0}})
    over = Thresholds.from_mapping({"power": 0.9}, base)
    assert (over.control_margin, over.power, dict(over.perfect_scores)) == (0.1, 0.9, {"f1": 1.0})
    with pytest.raises(ValueError, match="unknown threshold 'nope'"):
        Thresholds.from_mapping({"nope": 1})
    with pytest.raises(AttributeError):
        over.power = 0.5  # type: ignore[misc]
