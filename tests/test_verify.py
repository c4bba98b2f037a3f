"""Tests of evidence.verify.report and evidence.verify.comparisons on results.json dicts in the real format.

Every results dict here is validated against schemas/results.schema.json, so the verify code sees
exactly what a sealed run holds; the project-level checks use a tiny real project.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.hashing import digest_json
from evidence.core.project import Project
from evidence.core.schema import validate
from evidence.verify import stats
from evidence.verify.comparisons import load_config, parse_config
from evidence.verify.report import (
    RunResult,
    evaluate_aggregate,
    evaluate_comparison,
    evaluate_expected_max,
    load_report,
    render_summary,
    write_report,
)
from evidence.verify.reportfile import find_entry

B = 2_000
A_ACC = [0.951, 0.948, 0.955, 0.950, 0.953, 0.949]
B_ACC = [0.901, 0.897, 0.905, 0.899, 0.903, 0.896]
CTRL_ACC = [0.10, 0.11, 0.09, 0.12, 0.08, 0.10]


def result(group: str, seed: int, acc: float, *, loss: float = 0.3, loss_direction: str = "lower",
           experiment: str = "exp", role: str = "model", **diagnostics: float) -> dict[str, Any]:
    """A schema-valid results.json of a healthy 10-class classifier run."""
    diag = {"n_classes": 10, "initial_loss": 2.31, "chance_loss": math.log(10),
            "prediction_entropy": 2.25, "max_prediction_entropy": math.log(10),
            "majority_prediction_share": 0.12, **diagnostics}
    out = {
        "schema_version": 1, "run_id": digest_json([group, seed])[:16], "key": digest_json([group, seed]),
        "experiment": experiment, "label": f"{group}-s{seed}", "group": group, "role": role,
        "trainer": "mlp", "seed": seed, "config": {"hidden": 16}, "selection_metric": "accuracy",
        "metrics": {
            "accuracy": {"direction": "higher", "values": {"train": min(acc + 0.02, 1.0), "val": acc,
                                                           "test": acc}},
            "loss": {"direction": loss_direction, "values": {"train": loss, "val": loss, "test": loss}},
        },
        "evaluations": [{"split": "test", "when": "final", "purpose": "report"}],
        "diagnostics": diag, "epochs": 2, "steps": 10,
    }
    validate(out, "results", "test results")
    return out


def runs(group: str, accs: Sequence[float], **kwargs: Any) -> list[RunResult]:
    return [RunResult.from_results(r, digest_json(r))
            for r in (result(group, i, a, **kwargs) for i, a in enumerate(accs))]


def config(text: dict[str, Any]) -> Any:
    return parse_config(text, "comparisons.toml")


def comparison(**overrides: Any) -> Any:
    raw = {"id": "a_vs_b", "a": {"experiment": "exp", "where": {"group": "a"}},
           "b": {"experiment": "exp", "where": {"group": "b"}}, "metric": "accuracy",
           "claimed": "a_better", "n_resamples": B, **overrides}
    return config({"comparison": [raw]}).comparisons[0]


# --------------------------------------------------------------------------- comparisons.toml


def test_parse_applies_defaults_and_names_selections() -> None:
    parsed = config({
        "comparison": [{"id": "x", "a": {"experiment": "exp", "where": {"group": "a"}},
                        "b": {"experiment": "exp", "where": {"group": "b", "lr": [0.1, 0.3]},
                              "name": "tuned"},
                        "metric": "accuracy", "claimed": "differ"}],
        "aggregate": [{"id": "g", "metric": "accuracy",
                       "selection": [{"experiment": "d1"}, {"experiment": "d2"}]}],
        "expected_max": [{"id": "e", "selection": {"experiment": "sweep"}}],
    })
    c = parsed.comparisons[0]
    assert (c.split, c.min_seeds, c.confidence, c.n_resamples) == ("test", 5, 0.95, 10_000)
    assert (c.a.name, c.b.name, c.control) == ("a", "tuned", None)
    g = parsed.aggregates[0]
    assert g.stratified and [s.name for s in g.strata] == ["d1", "d2"] and g.split == "test"
    e = parsed.expected_max[0]
    assert (e.metric, e.split) == (None, "val")
    assert [n.field for n in parsed.named()] == ["comparison[0].a", "comparison[0].b",
                                                 "aggregate[0].selection[0]",
                                                 "aggregate[0].selection[1]", "expected_max[0].selection"]


@pytest.mark.parametrize(("raw", "field"), [
    ({"comparison": [{"id": "x", "a": {"experiment": "e"}, "b": {"experiment": "e"},
                      "metric": "accuracy", "claimed": "a_beter"}]}, "comparison[0].claimed"),
    ({"comparison": [{"id": "x", "a": {"experiment": "e"}, "b": {"experiment": "e"},
                      "claimed": "a_better"}]}, "comparison[0].metric"),
    ({"comparison": [{"id": "x", "a": {"experiment": "e", "wher": {}}, "b": {"experiment": "e"},
                      "metric": "accuracy", "claimed": "a_better"}]}, "comparison[0].a"),
    ({"comparison": [{"id": "../x", "a": {"experiment": "e"}, "b": {"experiment": "e"},
                      "metric": "accuracy", "claimed": "a_better"}]}, "comparison[0].id"),
    ({"aggregate": [{"id": "g", "metric": "accuracy", "selection": [{"experiment": "e", "where": 3}]}]},
     "aggregate[0].selection[0].where"),
    ({"aggregate": [{"id": "g", "metric": "accuracy", "selection": {"experiment": "e"}},
                    {"id": "g", "metric": "loss", "selection": {"experiment": "e"}}]}, "aggregate[1].id"),
    ({"aggregate": [{"id": "g", "metric": "accuracy", "selection": [{"experiment": "e"},
                                                                   {"experiment": "e"}]}]},
     "aggregate[0].selection[1].name"),
    ({"expected_max": [{"id": "e", "selection": {"experiment": "e"}, "split": "dev"}]},
     "expected_max[0].split"),
])
def test_parse_errors_name_the_file_and_the_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(BadInputError) as caught:
        config(raw)
    assert caught.value.field == field, str(caught.value)
    assert str(caught.value).startswith(f"comparisons.toml: field '{field}'")


def test_load_config_checks_selections_against_the_project(make_project: Callable[..., Path]) -> None:
    cmp = '''
        [[comparison]]
        id = "x"
        a = {{ experiment = "tiny", where = {{ group = "wide" }} }}
        b = {{ experiment = "{experiment}", where = {{ group = "{group}" }} }}
        metric = "accuracy"
        claimed = "a_better"
        '''
    assert load_config(Project.at(make_project(name="none"))) is None
    root = make_project({"comparisons.toml": cmp.format(experiment="tiny", group="small")}, name="ok")
    parsed = load_config(Project.at(root))
    assert parsed is not None and parsed.comparisons[0].b.name == "small"
    for experiment, group, field, words in (("tiy", "small", "comparison[0].b.experiment",
                                             "there is no experiments/tiy.toml"),
                                            ("tiny", "smal", "comparison[0].b.where", "match no run"),
                                            ("tiny", "wide", "comparison[0].b", "same runs as a")):
        root = make_project({"comparisons.toml": cmp.format(experiment=experiment, group=group)},
                            name=f"bad-{experiment}-{group}")
        with pytest.raises(BadInputError) as caught:
            load_config(Project.at(root))
        assert caught.value.field == field and words in str(caught.value)
        # named project-relative when the error is about a missing experiment (issue 29, item 11)
        assert caught.value.path in (str(root / "comparisons.toml"), "comparisons.toml")


# --------------------------------------------------------------------------- comparisons


def test_effect_with_control_and_the_record_of_every_run() -> None:
    entry = comparison(control={"experiment": "exp", "where": {"group": "ctrl"}})
    a, b, ctrl = runs("a", A_ACC), runs("b", B_ACC), runs("ctrl", CTRL_ACC, role="control")
    out = evaluate_comparison(entry, a, b, ctrl)
    assert out["class"] == "effect" and out["direction_matches_claim"] is True
    assert out["direction"] == "higher" and out["numbers"]["diff"] == pytest.approx(0.05, abs=1e-3)
    assert [r["value"] for r in out["a"]["runs"]] == A_ACC
    assert out["a"]["runs"][0]["results_digest"] == a[0].digest
    control_check = next(c for c in out["checks"] if c["name"] == "beats_shuffled_control")
    assert control_check["passed"] is True
    # The control comparison is A vs the control, with its own generator.
    expected = stats.compare(A_ACC, CTRL_ACC, direction="higher")
    assert out["control"]["numbers"] == expected.to_dict()
    assert out["numbers"] == stats.compare(A_ACC, B_ACC, direction="higher").to_dict()


def test_the_same_inputs_give_the_same_numbers_whatever_the_id() -> None:
    a, b = runs("a", A_ACC), runs("b", B_ACC)
    first = evaluate_comparison(comparison(), a, b)
    assert evaluate_comparison(comparison(), a, b) == first
    # neither the Welch interval nor P(better)'s score interval draws random numbers
    c, d = [0.9, 0.91, 0.93, 0.88, 0.9, 0.92], [0.89, 0.9, 0.92, 0.91, 0.88, 0.9]
    one = evaluate_comparison(comparison(), runs("a", c), runs("b", d))
    other = evaluate_comparison(comparison(id="renamed"), runs("a", c), runs("b", d))
    assert other["numbers"] == one["numbers"]


def test_direction_is_read_from_the_results() -> None:
    """The same loss values: lower-is-better makes A (smaller loss) the better model."""
    a_loss, b_loss = [0.20, 0.21, 0.19, 0.22, 0.20, 0.21], [0.30, 0.31, 0.29, 0.32, 0.30, 0.33]
    a = [RunResult.from_results(result("a", i, 0.9, loss=v)) for i, v in enumerate(a_loss)]
    b = [RunResult.from_results(result("b", i, 0.9, loss=v)) for i, v in enumerate(b_loss)]
    lower = evaluate_comparison(comparison(metric="loss"), a, b)
    assert lower["direction"] == "lower"
    assert lower["numbers"]["diff"] < 0  # mean_a - mean_b is not oriented ...
    assert lower["numbers"]["prob_improvement"] == 1.0  # ... P(A better) is
    assert lower["class"] == "effect" and lower["direction_matches_claim"] is True

    a_up = [RunResult.from_results(result("a", i, 0.9, loss=v, loss_direction="higher"))
            for i, v in enumerate(a_loss)]
    b_up = [RunResult.from_results(result("b", i, 0.9, loss=v, loss_direction="higher"))
            for i, v in enumerate(b_loss)]
    higher = evaluate_comparison(comparison(metric="loss"), a_up, b_up)
    assert higher["direction"] == "higher" and higher["numbers"]["prob_improvement"] == 0.0
    assert higher["class"] == "effect" and higher["direction_matches_claim"] is False
    assert "contradicted" in higher["reason"]


def test_runs_that_disagree_on_the_direction_are_an_error() -> None:
    a = runs("a", A_ACC)
    b = [RunResult.from_results(result("b", i, 0.9, loss_direction="higher")) for i in range(3)]
    with pytest.raises(EvidenceError, match="disagree on which way 'loss' is better"):
        evaluate_comparison(comparison(metric="loss"), a, b)


def test_a_metric_the_runs_do_not_have_names_the_field() -> None:
    with pytest.raises(BadInputError) as caught:
        evaluate_comparison(comparison(metric="f1"), runs("a", A_ACC), runs("b", B_ACC))
    assert caught.value.field == "comparison[0].metric"
    assert "has no metric 'f1' (it has: accuracy, loss)" in str(caught.value)


def test_too_few_seeds_is_insufficient_evidence_with_the_seeds_needed() -> None:
    out = evaluate_comparison(comparison(), runs("a", [0.90, 0.93, 0.91]), runs("b", [0.91, 0.89, 0.90]))
    assert out["class"] == "insufficient_evidence"
    assert isinstance(out["seeds_needed"], int) and out["seeds_needed"] > 3
    assert f"would need about {out['seeds_needed']} seeds per group" in out["reason"]
    assert next(c for c in out["checks"] if c["name"] == "enough_seeds")["passed"] is False


def test_noise_needs_a_declared_equivalence_margin() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.9, 0.01, 10).tolist(), rng.normal(0.9, 0.01, 10).tolist()
    out = evaluate_comparison(comparison(claimed="differ"), runs("a", a), runs("b", b))
    assert out["class"] == "insufficient_evidence" and out["equivalence_margin"] is None
    within = evaluate_comparison(comparison(claimed="differ", equivalence_margin=0.02), runs("a", a),
                                 runs("b", b))
    assert within["class"] == "noise", within["reason"]
    assert within["equivalence_margin"] == 0.02 and "TOST shows equivalence" in within["reason"]
    assert within["thresholds"]["alpha"] == pytest.approx(0.05)


def test_thresholds_come_from_comparisons_toml() -> None:
    raw = {"thresholds": {"control_margin": 0.2, "power": 0.9},
           "comparison": [{"id": "x", "a": {"experiment": "exp", "where": {"group": "a"}},
                           "b": {"experiment": "exp", "where": {"group": "b"}}, "metric": "accuracy",
                           "claimed": "a_better", "thresholds": {"power": 0.95}}]}
    entry = config(raw).comparisons[0]
    assert (entry.thresholds.control_margin, entry.thresholds.power) == (0.2, 0.95)
    with pytest.raises(BadInputError) as caught:
        config({**raw, "thresholds": {"alpha": 0.1}})
    assert caught.value.field.startswith("thresholds")


def test_losing_to_the_control_and_a_non_finite_metric_are_suspected_bugs() -> None:
    entry = comparison(control={"experiment": "exp", "where": {"group": "ctrl"}})
    out = evaluate_comparison(entry, runs("a", CTRL_ACC), runs("b", CTRL_ACC[::-1]),
                              runs("ctrl", A_ACC, role="control"))
    assert out["class"] == "suspected_bug" and "[beats_shuffled_control]" in out["reason"]

    # The runner stores a NaN metric as 0.0 and flags it; verify reads it as NaN (JSON null).
    a = runs("a", A_ACC)
    a[0] = RunResult.from_results(result("a", 0, 0.0, nonfinite_accuracy=1.0))
    bug = evaluate_comparison(comparison(), a, runs("b", B_ACC))
    assert bug["class"] == "suspected_bug" and "nonfinite_accuracy" in bug["reason"]
    assert math.isnan(bug["a"]["runs"][0]["value"])
    assert stats.jsonable(bug)["a"]["runs"][0]["value"] is None


# --------------------------------------------------------------------------- aggregates


def aggregate(**overrides: Any) -> Any:
    raw = {"id": "agg", "metric": "accuracy", "n_resamples": B,
           "selection": {"experiment": "exp", "where": {"group": "ctrl"}}, **overrides}
    return config({"aggregate": [raw]}).aggregates[0]


def test_aggregate_with_chance_reference() -> None:
    out = evaluate_aggregate(aggregate(reference="chance"), [runs("ctrl", CTRL_ACC, role="control")])
    assert out["n"] == 6 and out["mean"] == pytest.approx(np.mean(CTRL_ACC))
    assert out["sd"] == pytest.approx(np.std(CTRL_ACC, ddof=1))
    assert out["ci"] == out["intervals"]["mean"]["student-t"] and out["ci"]["method"] == "student-t"
    assert out["ci"] == stats.t_interval_mean(CTRL_ACC).to_dict()
    expected = stats.bootstrap_ci(CTRL_ACC, stats.iqm, rng=stats.rng_for("aggregate:agg"),
                                  n_resamples=B, method="percentile")
    assert out["intervals"]["iqm"]["percentile"] == expected.to_dict()
    ref = out["reference"]
    assert ref["value"] == pytest.approx(0.1) and "n_classes = 10" in ref["source"]
    assert ref["ci_contains"] is True
    assert ref["ci_max_distance"] == pytest.approx(max(0.1 - out["ci"]["low"], out["ci"]["high"] - 0.1))
    with pytest.raises(BadInputError, match="reference"):
        evaluate_aggregate(aggregate(metric="loss", reference="chance"),
                           [[RunResult.from_results({**result("c", 0, 0.1), "diagnostics": {}})]])


def test_a_reference_that_does_not_apply_fails_at_load_time() -> None:
    with pytest.raises(BadInputError) as caught:
        aggregate(metric="rmse", reference="chance")
    assert caught.value.field == "aggregate[0].reference"
    assert "applies only to the metrics accuracy and loss" in str(caught.value)
    assert 'reference = "baseline"' in str(caught.value)
    baseline = aggregate(metric="accuracy", reference="baseline")
    run = result("c", 0, 0.4)
    run["diagnostics"]["baseline_accuracy"] = 0.3
    out = evaluate_aggregate(baseline, [[RunResult.from_results(run), RunResult.from_results(
        {**run, "seed": 1, "label": "c1"})]])
    assert out["reference"]["value"] == 0.3 and "predicting the training mean" in out["reference"]["source"]


def test_aggregate_over_several_strata_is_a_stratified_bootstrap() -> None:
    strata = [{"experiment": "d1", "where": {"group": "a"}}, {"experiment": "d2", "where": {"group": "b"}}]
    out = evaluate_aggregate(aggregate(selection=strata, reference=0.9), [runs("a", A_ACC), runs("b", B_ACC)])
    assert out["stratified"] and [s["n"] for s in out["strata"]] == [6, 6]
    expected = stats.stratified_bootstrap_ci({"a": A_ACC, "b": B_ACC}, stats.iqm,
                                             rng=stats.rng_for("aggregate:agg"), n_resamples=B)
    assert out["intervals"]["iqm"]["bca"] == expected.to_dict()
    assert out["reference"]["source"] == "comparisons.toml"


def test_two_values_get_the_wide_t_interval_and_the_iqm_falls_back_to_percentile() -> None:
    out = evaluate_aggregate(aggregate(), [runs("ctrl", [0.1, 0.2])])
    half = float(stats.t_quantile(0.975, 1)) * 0.05  # t_1 = 12.7: two seeds say little
    assert out["ci"]["method"] == "student-t"
    assert (out["ci"]["low"], out["ci"]["high"]) == pytest.approx((0.15 - half, 0.15 + half))
    iqm = out["intervals"]["iqm"]["bca"]
    assert iqm["method"] == "percentile" and "too few for BCa" in iqm["note"]


def test_stratified_mean_interval_pools_the_strata_variances() -> None:
    strata = [{"experiment": "d1", "where": {"group": "a"}}, {"experiment": "d2", "where": {"group": "b"}}]
    out = evaluate_aggregate(aggregate(selection=strata), [runs("a", A_ACC), runs("b", B_ACC)])
    parts = [(6 / 12) ** 2 * np.var(x, ddof=1) / 6 for x in (A_ACC, B_ACC)]
    df = sum(parts) ** 2 / sum(p**2 / 5 for p in parts)
    half = float(stats.t_quantile(0.975, df)) * math.sqrt(sum(parts))
    mean = np.mean(A_ACC + B_ACC)
    assert (out["ci"]["low"], out["ci"]["high"]) == pytest.approx((mean - half, mean + half))


# --------------------------------------------------------------------------- expected max


def test_expected_max_table_and_metric_default() -> None:
    entry = config({"expected_max": [{"id": "sweep", "selection": {"experiment": "exp"}}]}).expected_max[0]
    scores = [0.5, 0.9, 0.7, 0.8]
    out = evaluate_expected_max(entry, runs("grid", scores))
    assert out["metric"] == "accuracy" and out["split"] == "val" and out["n_trials"] == 4
    assert [row["k"] for row in out["table"]] == [1, 2, 3, 4]
    np.testing.assert_allclose([row["expected"] for row in out["table"]],
                               stats.expected_max_validation(scores))
    np.testing.assert_allclose([row["variance"] for row in out["table"]],
                               stats.expected_max_validation_var(scores))
    assert out["table"][0]["expected"] == pytest.approx(np.mean(scores))
    assert out["best"]["label"] == "grid-s1" and out["notes"] == []

    loss = evaluate_expected_max(
        config({"expected_max": [{"id": "l", "selection": {"experiment": "exp"}, "metric": "loss",
                                  "split": "test"}]}).expected_max[0],
        [RunResult.from_results(result("g", i, 0.9, loss=v)) for i, v in enumerate([0.4, 0.2, 0.3])])
    assert loss["direction"] == "lower" and loss["best"]["value"] == 0.2
    assert loss["table"][-1]["expected"] < loss["table"][0]["expected"]
    assert any("test split" in note for note in loss["notes"])


def test_expected_max_needs_one_selection_metric() -> None:
    entry = config({"expected_max": [{"id": "sweep", "selection": {"experiment": "exp"}}]}).expected_max[0]
    mixed = runs("grid", [0.5, 0.9])
    mixed[1] = RunResult.from_results({**result("grid", 1, 0.9), "selection_metric": "loss"})
    with pytest.raises(BadInputError, match="selection_metric"):
        evaluate_expected_max(entry, mixed)


# --------------------------------------------------------------------------- the report


def full_report() -> dict[str, Any]:
    ctrl = runs("ctrl", CTRL_ACC, role="control")
    entry = comparison(control={"experiment": "exp", "where": {"group": "ctrl"}})
    sweep = config({"expected_max": [{"id": "sweep", "selection": {"experiment": "exp"}}]}).expected_max[0]
    comparisons = [evaluate_comparison(entry, runs("a", A_ACC), runs("b", B_ACC), ctrl),
                   evaluate_comparison(comparison(id="few"), runs("a", A_ACC[:2]), runs("b", A_ACC[2:4]))]
    return {"schema_version": 1, "comparisons_file": "comparisons.toml", "comparisons_digest": "0" * 64,
            "counts": {label: sum(c["class"] == label for c in comparisons)
                       for label in ("effect", "noise", "insufficient_evidence", "suspected_bug")},
            "comparisons": comparisons,
            "aggregates": [evaluate_aggregate(aggregate(reference="chance"), [ctrl])],
            "expected_max": [evaluate_expected_max(sweep, runs("grid", [0.5, 0.9, 0.7]))]}


def test_report_validates_is_byte_identical_and_entries_are_found(tmp_path: Path) -> None:
    project = Project.at(tmp_path)
    json_path, md_path = write_report(project, full_report())
    first = json_path.read_bytes()
    report = load_report(project)
    validate(report, "verify_report", json_path)
    assert b"NaN" not in first and b"Infinity" not in first
    write_report(project, full_report())
    assert json_path.read_bytes() == first

    assert find_entry(report, "verify:a_vs_b")["class"] == "effect"
    assert find_entry(report, "aggregate:agg")["reference"]["ci_contains"] is True
    assert find_entry(report, "expected_max:sweep")["n_trials"] == 3
    with pytest.raises(EvidenceError, match=r"no verify entry 'nope' \(it has: a_vs_b, few\)"):
        find_entry(report, "verify:nope")
    with pytest.raises(EvidenceError, match="not a verify reference"):
        find_entry(report, "figure:x")
    assert md_path.read_text() == render_summary(report)


def test_load_report_without_a_report_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(EvidenceError, match="doit verify"):
        load_report(Project.at(tmp_path))


def test_summary_has_one_line_per_comparison() -> None:
    report = stats.jsonable(full_report())
    text = render_summary(report)
    lines = [line for line in text.splitlines() if line.startswith("- **")]
    effect, few = lines[0], lines[1]
    assert effect.startswith("- **a_vs_b** effect (as claimed): test accuracy (higher is better) "
                             "a - b = +0.05")
    assert "([+0.04683, +0.05484], 95% CI, Welch t)" in effect
    assert "P(a better than b) = 1 ([0.6892, 1], 95% CI, Newcombe score)" in effect
    assert effect.endswith(report["comparisons"][0]["reason"])
    assert few.startswith("- **few** insufficient_evidence")
    assert "**agg** test accuracy over 6 runs of ctrl" in text and "| 3 |" in text


def test_below_min_seeds_the_welch_interval_decides_and_p_better_is_not_zero_width() -> None:
    """2 vs 2 seeds, completely separated by chance-sized gaps: a bootstrap of P(better) said
    [1, 1]; the score interval says how little four numbers show."""
    a, b = runs("a", [0.84, 0.86]), runs("b", [0.79, 0.83])
    out = evaluate_comparison(comparison(), a, b)
    p_ci = out["numbers"]["prob_improvement_ci"]
    assert p_ci["high"] == 1.0 and p_ci["low"] < 0.5 and out["numbers"]["welch_p"] > 0.05
    assert out["class"] == "insufficient_evidence"
    assert "(Welch t), which includes zero, so no difference is shown" in out["reason"]
    clear = evaluate_comparison(comparison(), runs("a", [0.95, 0.96]), runs("b", [0.10, 0.11]))
    assert clear["class"] == "effect" and "Only 2 seeds in the smaller group" in clear["reason"]
