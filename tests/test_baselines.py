"""Comparisons researchers really make (issue 31): a deterministic baseline, a published number,
and claims that cannot rest on a suspected bug or on insufficient evidence.

Results dicts are schema-valid results.json (tests/test_verify.py's builders); the statistics are
checked against scipy and by simulation; claim support is checked as a property over every
predicate the schema allows.
"""

from __future__ import annotations

import importlib.util
import json
import math
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from test_verify import comparison, config, runs

from evidence.core.project import Project
from evidence.deliver import disclose
from evidence.deliver.claims import resolve_claim
from evidence.deliver.paper import not_shown
from evidence.verify import stats
from evidence.verify.determinism import Fixed, parameter_count, trainer_declares
from evidence.verify.report import evaluate_comparison, render_summary

REPO = Path(__file__).resolve().parent.parent
DECLARED = Fixed("declared", "declared deterministic in experiments/exp.toml")
GRU = [0.912, 0.905, 0.918, 0.909, 0.915]  # a seeded model, 5 seeds
PERSISTENCE = [0.88] * 5  # a deterministic baseline: every seed the same


# --------------------------------------------------------------------------- statistics


def test_one_sample_interval_and_test_are_scipys() -> None:
    c = stats.compare_to_constant(GRU, 0.88, direction="higher")
    ref = sps.ttest_1samp(np.array(GRU) - 0.88, 0.0)
    ci = ref.confidence_interval(0.95)
    assert (c.diff_ci.low, c.diff_ci.high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert c.welch_t == pytest.approx(ref.statistic) and c.welch_p == pytest.approx(ref.pvalue)
    assert c.welch_df == 4 and c.test == "one-sample-t" and c.diff_ci.method == "student-t"
    # P(A better than a constant): 5 of 5 seeds beat it; Wilson, not a resampled [1, 1]
    assert c.prob_improvement == 1.0 and c.prob_improvement_ci.method == "wilson-score"
    assert c.prob_improvement_ci.low == pytest.approx(0.5655, abs=1e-4)
    # the constant on A's side: same numbers, oriented the other way
    flipped = stats.compare_to_constant(GRU, 0.88, direction="higher", constant_side="a")
    assert flipped.diff == pytest.approx(-c.diff) and flipped.prob_improvement == 0.0
    assert (flipped.diff_ci.low, flipped.diff_ci.high) == pytest.approx((-ci.high, -ci.low))


def test_welch_from_summary_statistics_is_scipys() -> None:
    published = {"mean": 0.90, "sd": 0.012, "n": 8}
    se, df = stats.summary_se_df(sd=published["sd"], n=published["n"])
    c = stats.compare_to_summary(GRU, published["mean"], se, df, direction="higher",
                                 n_b=published["n"], sd_b=published["sd"])
    ref = sps.ttest_ind_from_stats(np.mean(GRU), np.std(GRU, ddof=1), len(GRU), published["mean"],
                                   published["sd"], published["n"], equal_var=False)
    assert c.welch_t == pytest.approx(ref.statistic) and c.welch_p == pytest.approx(ref.pvalue)
    half = sps.t.ppf(0.975, c.welch_df) * c.diff_se
    assert (c.diff_ci.low, c.diff_ci.high) == pytest.approx((c.diff - half, c.diff + half))
    assert math.isnan(c.prob_improvement) and "per-run values" in c.prob_improvement_ci.note
    # a published 95% interval with its n is the same spread as its sd and n
    t = sps.t.ppf(0.975, 7)
    width = t * 0.012 / math.sqrt(8)
    assert stats.summary_se_df(interval=(0.90 - width, 0.90 + width), n=8) == pytest.approx((se, df))


def _load_bench() -> Any:
    path = REPO / "bench" / "baseline_coverage.py"
    spec = importlib.util.spec_from_file_location("baseline_coverage", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_sample_interval_covers_at_five_seeds_by_simulation() -> None:
    """3,000 simulated 5-seed models against a constant (fixed seed): the 95% one-sample interval
    covers the true difference at least 93% of the time (bench/baseline_coverage.py prints the
    whole table); and TOST at the margin calls it noise no more often than alpha allows."""
    bench = _load_bench()
    coverage = bench.one_sample_coverage(5, 3_000, np.random.default_rng(31))
    assert coverage >= 0.93, coverage
    size = bench.tost_size(5, 3_000, np.random.default_rng(31))
    assert size <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 3_000), size


# --------------------------------------------------------------------------- verdicts


def test_seeded_model_vs_deterministic_baseline_by_the_one_sample_rule() -> None:
    gru, persistence = runs("gru", GRU), runs("persistence", PERSISTENCE)
    # effect: the one-sample interval of mean - constant excludes zero
    out = evaluate_comparison(comparison(), gru, persistence, fixed_b=DECLARED)
    assert out["class"] == "effect" and out["direction_matches_claim"] is True
    assert out["numbers"]["test"] == "one-sample-t" and out["numbers"]["diff_ci"]["method"] == "student-t"
    assert "a fixed value: declared deterministic in experiments/exp.toml" in out["reason"]
    assert out["b"]["fixed"] == {"how": "declared", "detail": DECLARED.detail}
    seed_check = next(c for c in out["checks"] if c["name"] == "seed_applied")
    assert seed_check["passed"] is True  # the seeded side is still checked ...
    assert "not checked: b is a fixed value" in seed_check["detail"]  # ... the fixed one not
    # noise: within a declared margin, shown by TOST on the one-sample interval
    close = [0.8805, 0.8795, 0.8802, 0.8798, 0.8801]
    noise = evaluate_comparison(comparison(equivalence_margin=0.005), runs("gru", close), persistence,
                                fixed_b=DECLARED)
    assert noise["class"] == "noise" and "Student t interval lies inside +/-0.005" in noise["reason"]
    # insufficient evidence: the interval includes zero and no margin is declared
    vague = [0.90, 0.86, 0.89, 0.87, 0.885]
    open_ = evaluate_comparison(comparison(), runs("gru", vague), persistence, fixed_b=DECLARED)
    assert open_["class"] == "insufficient_evidence" and open_["seeds_needed"] is not None
    assert "the one-sample t-test" in open_["reason"] and "seeds (estimated" in open_["reason"]
    # the same identical seeds without the declaration: the guard still says the seed is not applied
    undeclared = evaluate_comparison(comparison(), gru, persistence)
    assert undeclared["class"] == "suspected_bug" and "[seed_applied]" in undeclared["reason"]


def test_a_declared_deterministic_variant_whose_seeds_differ_is_a_suspected_bug() -> None:
    out = evaluate_comparison(comparison(), runs("gru", GRU), runs("persistence", [0.88, 0.87, 0.88]),
                              fixed_b=DECLARED)
    assert out["class"] == "suspected_bug" and "[deterministic_agrees]" in out["reason"]
    assert "declared deterministic but its 3 runs give 2 different sets of metrics" in out["reason"]


def test_a_deterministic_baseline_run_once_and_two_fixed_values() -> None:
    once = evaluate_comparison(comparison(), runs("gru", GRU), runs("persistence", [0.88]),
                               fixed_b=DECLARED)
    assert once["class"] == "effect" and once["numbers"]["n_b"] == 1
    both = evaluate_comparison(comparison(), runs("rule", [0.9] * 3), runs("persistence", [0.88]),
                               fixed_a=DECLARED, fixed_b=DECLARED)
    assert both["numbers"]["test"] == "exact" and math.isnan(both["numbers"]["diff_ci"]["low"])
    assert both["class"] == "effect" and "is exact" in both["reason"]


def test_the_engine_establishes_determinism_only_with_the_trainers_word_or_no_parameters(
        tmp_path: Path) -> None:
    (tmp_path / "trainers").mkdir()
    (tmp_path / "trainers" / "persistence.py").write_text('"""Next year = this year."""\n'
                                                          "DETERMINISTIC = True\n")
    (tmp_path / "trainers" / "gru.py").write_text("DETERMINISTIC = False\n")
    (tmp_path / "trainers" / "other.py").write_text("x = 'DETERMINISTIC = True'\n")
    project = Project.at(tmp_path)
    assert trainer_declares(project, "persistence")
    assert not trainer_declares(project, "gru") and not trainer_declares(project, "other")
    assert not trainer_declares(project, "missing")

    def weights(folder: Path, header: dict[str, Any]) -> Path:
        folder.mkdir()
        data = json.dumps(header).encode()
        (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(data)) + data)
        return folder

    empty = weights(tmp_path / "empty", {"__metadata__": {"run_key": "k"}})
    real = weights(tmp_path / "real", {"w": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]}})
    assert parameter_count(empty) == 0 and parameter_count(real) == 12
    assert parameter_count(tmp_path) is None


# --------------------------------------------------------------------------- published numbers


def _reference_config(**reference: Any) -> Any:
    raw = {"reference": [{"id": "smith", "value": 0.90, "citation": "Smith et al. (2023), Table 2",
                          **reference}],
           "comparison": [{"id": "ours_vs_smith", "a": {"experiment": "exp", "where": {"group": "a"}},
                           "b": {"reference": "smith"}, "metric": "accuracy", "claimed": "a_better"}]}
    return config(raw)


def test_a_published_value_alone_is_a_constant_and_with_its_spread_a_summary() -> None:
    alone = _reference_config()
    entry = alone.comparisons[0]
    out = evaluate_comparison(entry, runs("a", GRU), [])
    assert out["numbers"]["test"] == "one-sample-t" and out["b"]["runs"] == []
    assert out["b"]["reference"]["citation"] == "Smith et al. (2023), Table 2"
    assert "a fixed value: published in Smith et al. (2023), Table 2" in out["reason"]
    spread = _reference_config(sd=0.012, n=8).comparisons[0]
    welch = evaluate_comparison(spread, runs("a", GRU), [])
    assert welch["numbers"]["test"] == "welch-summary"
    assert "as published in Smith et al. (2023), Table 2, sd 0.012 over 8 runs" in welch["reason"]
    report = {"comparisons_file": "comparisons.toml",
              "counts": {"effect": 1, "noise": 0, "insufficient_evidence": 1, "suspected_bug": 0},
              "comparisons": [stats.jsonable(out)], "aggregates": [], "expected_max": [],
              "references": [r.to_dict() for r in alone.references]}
    text = render_summary(report)
    assert "a - smith (b: Smith et al. (2023), Table 2)" in text
    # a claim on it counts the seeds that vary (5), not the published number's "1", and cites it
    claim = {"id": "c", "statement": "Ours vs {citation}: {value} over {n} seeds.",
             "evidence": {"ref": "verify:ours_vs_smith", "quantity": "improvement"}}
    resolved = resolve_claim(claim, report)
    assert resolved["n"] == 5 and resolved["citation"] == "Smith et al. (2023), Table 2"
    assert resolved["statement"].startswith("Ours vs Smith et al. (2023), Table 2: ")
    assert "## Published references" in text and "- **smith** 0.9: Smith et al. (2023), Table 2." in text


@pytest.mark.parametrize("reference, field", [
    ({"interval": [0.91, 0.95]}, "reference[0].interval"),
    ({"sd": 0.01, "n": 1}, "reference[0].n"),
])
def test_a_bad_reference_names_its_field(reference: dict[str, Any], field: str) -> None:
    from evidence.core.errors import BadInputError

    with pytest.raises(BadInputError) as error:
        _reference_config(**reference)
    assert field in str(error.value)


def test_a_comparison_citing_an_unknown_reference_names_it() -> None:
    from evidence.core.errors import BadInputError

    raw = {"comparison": [{"id": "x", "a": {"experiment": "exp"}, "b": {"reference": "nobody"},
                           "metric": "accuracy", "claimed": "a_better"}]}
    with pytest.raises(BadInputError, match="no \\[\\[reference\\]\\] has the id 'nobody'"):
        config(raw)


# --------------------------------------------------------------------------- claim support


def _report(entry: dict[str, Any]) -> dict[str, Any]:
    return {"comparisons": [stats.jsonable(entry)], "aggregates": [], "expected_max": [],
            "references": []}


_PREDICATES = st.one_of(
    st.none(),
    st.builds(lambda equals: {"kind": "classification", "equals": equals},
              st.sampled_from(["effect", "noise", "insufficient_evidence", "suspected_bug"])),
    st.builds(lambda kind, value, of: {"kind": kind, "value": value, "of": of},
              st.sampled_from(["greater_than", "less_than"]), st.floats(-2, 2, allow_nan=False),
              st.sampled_from(["value", "ci_low", "ci_high"])),
    st.builds(lambda target, tolerance, of: {"kind": "within", "target": target, "tolerance": tolerance,
                                             "of": of},
              st.floats(-2, 2, allow_nan=False), st.floats(0, 10, allow_nan=False),
              st.sampled_from(["value", "ci_low", "ci_high"])),
)
SUSPECT = evaluate_comparison(comparison(), runs("a", [0.9] * 5), runs("b", [0.8, 0.81, 0.79, 0.8, 0.82]))
OPEN = evaluate_comparison(comparison(), runs("a", [0.90, 0.86, 0.89, 0.87, 0.885]),
                           runs("b", [0.88, 0.87, 0.89, 0.875, 0.885]))


@settings(max_examples=150, deadline=None)
@given(predicate=_PREDICATES, which=st.sampled_from(["suspect", "open"]),
       quantity=st.sampled_from([None, "diff", "improvement", "prob_improvement", "hedges_g"]))
def test_no_predicate_makes_a_suspected_bug_or_insufficient_evidence_supported(
        predicate: dict[str, Any] | None, which: str, quantity: str | None) -> None:
    entry = SUSPECT if which == "suspect" else OPEN
    assert entry["class"] == ("suspected_bug" if which == "suspect" else "insufficient_evidence")
    cited = {"ref": "verify:a_vs_b", **({"quantity": quantity} if quantity else {})}
    claim: dict[str, Any] = {"id": "c", "statement": "A beats B by {value}.", "evidence": cited}
    if predicate is not None:
        claim["predicate"] = predicate
    resolved = resolve_claim(claim, _report(entry))
    assert resolved["supported"] is False
    assert resolved["decided_by"] == ("guard" if which == "suspect" else
                                      "margin" if predicate and predicate.get("equals") == "noise"
                                      else "interval")


def test_numeric_predicate_on_a_suspected_bug_was_the_hole() -> None:
    """ci_low > 0 held on a suspected bug (identical seeds): it no longer supports the claim."""
    claim = {"id": "c", "statement": "A beats B by {value}.", "evidence": {"ref": "verify:a_vs_b"},
             "predicate": {"kind": "greater_than", "value": 0, "of": "value"}}
    resolved = resolve_claim(claim, _report(SUSPECT))
    assert resolved["predicate"]["holds"] is True and resolved["supported"] is False
    assert "suspected_bug, which supports no claim whatever its predicate" in resolved["why"]
    assert "verify:" not in resolved["why_reader"] and "suspected_bug" not in resolved["why_reader"]


def test_an_aggregate_on_flagged_runs_supports_no_claim_but_keeps_its_predicate_otherwise() -> None:
    from evidence.verify.report import evaluate_aggregate

    raw = {"aggregate": [{"id": "g", "selection": {"experiment": "exp", "where": {"group": "g"}},
                          "metric": "accuracy", "n_resamples": 200}]}
    entry = config(raw).aggregates[0]
    flagged = stats.jsonable(evaluate_aggregate(entry, [runs("g", [0.9] * 5)]))
    assert flagged["class"] == "suspected_bug" and "[seed_applied]" in flagged["reason"]
    claim = {"id": "c", "statement": "{value}", "evidence": {"ref": "aggregate:g"},
             "predicate": {"kind": "greater_than", "value": 0.5}}
    report = {"comparisons": [], "aggregates": [flagged], "expected_max": [], "references": []}
    assert resolve_claim(claim, report)["supported"] is False
    fine = stats.jsonable(evaluate_aggregate(entry, [runs("g", GRU)]))
    report["aggregates"] = [fine]
    assert fine["class"] is None and resolve_claim(claim, report)["supported"] is True
    deterministic = stats.jsonable(evaluate_aggregate(entry, [runs("g", [0.9] * 5)], fixed=[DECLARED]))
    assert deterministic["class"] is None  # a fixed value's equal seeds are expected


# --------------------------------------------------------------------------- intervals


@settings(max_examples=200, deadline=None)
@given(n_a=st.integers(1, 18), n_b=st.integers(1, 18), data=st.data())
def test_no_zero_width_interval_from_fewer_than_twenty_runs(n_a: int, n_b: int, data: Any) -> None:
    if n_a + n_b >= 20:
        n_b = max(1, 19 - n_a)
    values = st.floats(0, 1, allow_nan=False)
    a = np.array(data.draw(st.lists(values, min_size=n_a, max_size=n_a)))
    b = np.array(data.draw(st.lists(values, min_size=n_b, max_size=n_b)))
    found = [stats.compare(a, b, direction="higher"), stats.compare_to_constant(a, 0.5, direction="higher"),
             stats.compare_constants(float(a[0]), float(b[0]), direction="higher")]
    intervals = [i for c in found for i in (c.diff_ci, c.prob_improvement_ci)]
    intervals += [stats.t_interval_mean(a), stats.wilson_interval(data.draw(st.integers(0, n_a)), n_a)]
    for k in range(0, 2 * n_a * n_b + 1):
        intervals.append(stats.prob_improvement_interval(k / (2 * n_a * n_b), n_a, n_b))
    # the bootstrap too (the IQM has no t interval): equal values, or nearly, give none
    for method in ("percentile", "bca"):
        intervals.append(stats.bootstrap_ci(a, stats.iqm, rng=np.random.default_rng(0), n_resamples=200,
                                            method=method))  # type: ignore[arg-type]
        intervals.append(stats.stratified_bootstrap_ci({"a": a, "b": b}, stats.iqm,
                                                       rng=np.random.default_rng(0), n_resamples=200,
                                                       method=method))  # type: ignore[arg-type]
    for interval in intervals:
        assert not interval.defined or interval.high > interval.low, interval


# --------------------------------------------------------------------------- disclosures


def test_the_wrong_direction_disclosure_names_the_direction(tmp_path: Path) -> None:
    linear = [0.80, 0.81, 0.79, 0.80, 0.82]
    control = [0.90, 0.91, 0.89, 0.92, 0.90]
    raw = {"comparison": [{"id": "linear_vs_control",
                           "a": {"experiment": "exp", "where": {"group": "linear"}},
                           "b": {"experiment": "exp", "where": {"group": "control"}},
                           "metric": "accuracy", "claimed": "a_better"}]}
    entry = evaluate_comparison(config(raw).comparisons[0], runs("linear", linear), runs("control", control))
    assert entry["class"] == "effect" and entry["direction_matches_claim"] is False
    claim = {"id": "linear_beats_control", "statement": "The linear model beats the control by {value}.",
             "evidence": {"ref": "verify:linear_vs_control"}, "format": {"style": "points"},
             "predicate": {"kind": "classification", "equals": "effect"}}
    report = {"comparisons": [stats.jsonable(entry)], "aggregates": [], "expected_max": [], "references": []}
    resolved = resolve_claim(claim, report)
    assert not resolved["supported"] and resolved["decided_by"] == "direction"
    audit = disclose._Audit(Project.at(tmp_path), {"claims": [resolved]}, report, 5)
    audit.claim_status()
    finding = audit.findings["claim_status:linear_beats_control"]
    # the reason a reviewer can check against the numbers beside it: the direction and the interval
    assert ("the direction is the opposite of the claim: the claim says linear is better than control, "
            "but control is better than linear (difference -10.0 points for linear over control, "
            "95% CI [") in finding.message
    assert "predicate fails" not in finding.message
    # the paper says it in its own words: no verify ids, no labels
    assert finding.reader.startswith("Not supported by its evidence: the data show the opposite "
                                     "direction: control is better than linear")
    for text in (finding.reader, not_shown(resolved)):
        assert "verify:" not in text and "effect" not in text.replace("effects", "")
    assert "the data show the opposite direction: control is better than linear" in not_shown(resolved)


# --------------------------------------------------------------------------- the outside test
# An outside tester, reading only the docs, ran verify on a regression project (`evidence init
# --template files`: diabetes, test RMSE, lower is better) with a closed-form least-squares
# baseline (ols), a mean predictor with no parameters (meanpred) and a seed-ignoring model. These
# are their situations, with their sealed numbers (test and train RMSE per run).

LINEAR = [57.102, 57.301, 57.560, 57.790, 57.770]  # 5 seeds; mean about 57.50, sd about 0.33
OLS = 57.3034  # closed-form least squares: the same for every seed
MEANPRED = (70.4846, 78.4612)  # (test, train): predicting the training mean, no parameters
NO_PARAMETERS = Fixed("established", "every seed gives bit-identical metrics and its sealed weights "
                      "hold no parameters")


def regression(group: str, tests: Sequence[float], *, train: Sequence[float] | None = None,
               role: str = "model") -> list[Any]:
    """Schema-valid results.json of regression runs: rmse (lower is better) on train, val, test."""
    from evidence.core.hashing import digest_json
    from evidence.core.schema import validate
    from evidence.verify.report import RunResult

    out = []
    for seed, test in enumerate(tests):
        fit = train[seed] if train is not None else test - 1.5  # a model fits train better
        key = digest_json([group, seed])
        results = {
            "schema_version": 1, "run_id": key[:16], "key": key, "experiment": "main",
            "label": f"{group}-s{seed}", "group": group, "role": role, "trainer": group, "seed": seed,
            "config": {}, "selection_metric": "rmse",
            "metrics": {"rmse": {"direction": "lower", "values": {"train": fit, "val": test, "test": test}}},
            "evaluations": [{"split": "test", "when": "final", "purpose": "report"}],
            "diagnostics": {}, "epochs": 1, "steps": 1,
        }
        validate(results, "results", "test results")
        out.append(RunResult.from_results(results, digest_json(results)))
    return out


def rmse_comparison(a: str, b: str, **overrides: Any) -> Any:
    return comparison(id=f"{a}_vs_{b}", a={"experiment": "main", "where": {"group": a}},
                      b={"experiment": "main", "where": {"group": b}}, metric="rmse", **overrides)


def _resolved(entry: dict[str, Any], claim_id: str = "c", **claim: Any) -> dict[str, Any]:
    cited = {"id": claim_id, "statement": "linear beats the baseline by {value}.",
             "evidence": {"ref": f"verify:{entry['id']}", "quantity": "improvement"}, **claim}
    return resolve_claim(cited, _report(entry))


def test_a_baseline_run_once_and_not_declared_is_insufficient_evidence_with_a_hint() -> None:
    """D1 + D8: too few seeds is insufficient evidence (not a bug, as the docs now say), the reason
    says how to declare the baseline deterministic, and the claim's reason does not call an
    undefined interval one "which includes zero"."""
    out = evaluate_comparison(rmse_comparison("linear", "ols_undeclared"), regression("linear", LINEAR),
                              regression("ols_undeclared", [OLS]))
    assert out["class"] == "insufficient_evidence"
    seeds = next(c for c in out["checks"] if c["name"] == "enough_seeds")
    assert seeds["passed"] is False and not [c for c in out["checks"] if c["passed"] is False
                                             and c["name"] != "enough_seeds"]
    hint = ("ols_undeclared was run with one seed and is not declared deterministic; if its result "
            "does not depend on the seed by design")
    assert hint in out["reason"] and "declare deterministic = true" in out["reason"]
    assert hint in seeds["detail"] and "Only 1 seed in the smaller group (minimum 5)." in out["reason"]
    resolved = _resolved(out)
    assert resolved["supported"] is False and resolved["decided_by"] == "interval"
    for text in (resolved["why"], resolved["why_reader"]):
        assert "no defined interval" in text and "includes zero" not in text, text


def test_an_iqm_over_equal_values_has_no_interval_and_the_summary_one_period() -> None:
    """D2 + the doubled period: 5 identical runs gave "IQM 57.45 ([57.45, 57.45], 95% CI,
    percentile bootstrap)" and "... not evidence.."."""
    from evidence.verify.report import evaluate_aggregate

    noseed = {"experiment": "main", "where": {"group": "noseed"}}
    raw = {"aggregate": [{"id": "noseed_rmse", "selection": noseed, "metric": "rmse", "n_resamples": 500}]}
    entry = config(raw).aggregates[0]
    out = stats.jsonable(evaluate_aggregate(entry, [regression("noseed", [57.45] * 5)]))
    for method in ("percentile", "bca"):
        iqm = out["intervals"]["iqm"][method]
        assert iqm["low"] is None and iqm["high"] is None and "every resample gives 57.45" in iqm["note"]
    labels = ("effect", "noise", "insufficient_evidence", "suspected_bug")
    report = {"comparisons_file": "comparisons.toml", "counts": dict.fromkeys(labels, 0), "comparisons": [],
              "aggregates": [out], "expected_max": [], "references": []}
    text = render_summary(report)
    line = next(x for x in text.splitlines() if x.startswith("- **noseed_rmse**"))
    assert "[57.45, 57.45]" not in line and "IQM 57.45 (CI undefined: every resample gives 57.45" in line
    assert line.endswith("these runs are not evidence.") and ".." not in line


def test_the_default_leakage_limit_follows_the_metrics_scale() -> None:
    """D4: a mean predictor whose test RMSE (70.48) is below its train RMSE (78.46) by chance was
    flagged as leakage against the absolute default 0.05, once per identical run."""
    mlp = [56.39, 55.80, 57.10, 55.95, 57.35]
    meanpred = regression("meanpred", [MEANPRED[0]] * 3, train=[MEANPRED[1]] * 3)
    out = evaluate_comparison(rmse_comparison("mlp", "meanpred"), regression("mlp", mlp), meanpred,
                              fixed_b=NO_PARAMETERS)
    gap = next(c for c in out["checks"] if c["name"] == "train_test_gap")
    assert gap["passed"] is True and out["class"] == "effect", out["reason"]
    # a gap of a quarter of the train value still is one (an unbounded metric: relative limit) ...
    swapped = regression("meanpred", [50.0] * 3, train=[MEANPRED[1]] * 3)
    flagged = evaluate_comparison(rmse_comparison("mlp", "meanpred"), regression("mlp", mlp), swapped,
                                  fixed_b=NO_PARAMETERS)
    assert flagged["class"] == "suspected_bug" and "25% of the train value" in flagged["reason"]
    # ... said once for the three identical runs of a fixed value, not three times
    assert flagged["reason"].count("better on test than on train") == 1
    assert "all 3 runs of meanpred (meanpred-s0, meanpred-s1, meanpred-s2) score better" in flagged["reason"]
    # a limit the project sets is one absolute limit in metric units, as before
    strict = evaluate_comparison(rmse_comparison("mlp", "meanpred", thresholds={"leakage_margin": 0.05}),
                                 regression("mlp", mlp), meanpred, fixed_b=NO_PARAMETERS)
    assert strict["class"] == "suspected_bug" and "limit 0.05)" in strict["reason"]
    # a bounded metric keeps its limit: 5% of accuracy's range [0, 1] is 0.05
    leaky = runs("b", [0.9] * 5)
    for run in leaky:
        run.results["metrics"]["accuracy"]["values"]["train"] = 0.83
    bounded = evaluate_comparison(comparison(), runs("a", GRU), leaky, fixed_b=DECLARED)
    assert "limit 0.05, 5% of its range [0, 1]" in bounded["reason"]


def test_the_papers_words_for_a_failed_guard_carry_no_run_labels_or_group_names() -> None:
    """D5: why_reader printed "all 5 runs of ols_undeclared (seeds 0, 1, 2, 3, 4) give ..." and
    "run 'meanpred-s0' of meanpred ..." into the paper."""
    out = evaluate_comparison(rmse_comparison("linear", "ols_undeclared"), regression("linear", LINEAR),
                              regression("ols_undeclared", [OLS] * 5))
    assert out["class"] == "suspected_bug"
    resolved = _resolved(out, predicate={"kind": "greater_than", "value": -100, "of": "ci_low"})
    assert resolved["decided_by"] == "guard" and "ols_undeclared" in resolved["why"]
    reader = resolved["why_reader"]
    assert reader == ("a sanity check on the runs failed (every seed gives bit-identical results, so "
                      "the seed does not reach the model), so the difference is not evidence either way")
    for word in ("ols_undeclared", "linear", "-s0", "seed_applied", "["):
        assert word not in reader
    # every guard verify runs has the paper's words; the evidence checks are no guard
    from evidence.deliver.claims import _GUARD_WORDS

    evidence_checks = {"enough_seeds", "difference_ci_excludes_zero", "equivalence_shown", "prob_improvement"}
    assert {c["name"] for c in out["checks"]} - evidence_checks <= set(_GUARD_WORDS)
    assert "difference of means" not in resolved["why"]  # an interval is not a failed guard


def test_seeds_needed_against_a_fixed_value_are_the_seeded_sides_not_per_group(tmp_path: Path) -> None:
    """D6 + the cosmetic: against a fixed value only one side varies, and "over 5 seeds of linear"
    stood after the baseline's description."""
    out = evaluate_comparison(rmse_comparison("linear", "ols"), regression("linear", LINEAR),
                              regression("ols", [OLS]), fixed_b=DECLARED)
    assert out["class"] == "insufficient_evidence" and out["seeds_needed"]
    assert "(linear 57.5 over 5 seeds vs ols 57.3, a fixed value: declared deterministic" in out["reason"]
    resolved = _resolved(out)
    needed = f"about {out['seeds_needed']} seeds of linear would be needed"
    for text in (resolved["why"], resolved["why_reader"]):
        assert needed in text and "per group" not in text, text
    report = _report(out)
    audit = disclose._Audit(Project.at(tmp_path), {"claims": [resolved]}, report, 5)
    audit.seeds()
    finding = audit.findings[f"seeds:verify:{out['id']}"]
    assert "5 seeds of linear against a fixed value" in finding.reader
    assert needed in finding.reader and "per group" not in finding.reader + finding.message


def test_a_published_value_with_sd_and_n_is_a_summary_in_the_disclosure_too(tmp_path: Path) -> None:
    """D7 + D9: the seeds disclosure called a published mean with its sd and n "a fixed value" and
    said no number of seeds could be estimated, where verify says the published number's own
    uncertainty is too large for any number of seeds; and a published value alone had no
    ``fixed`` in report.json."""
    from evidence.core.schema import validate

    raw = {"reference": [{"id": "ref_sd", "value": 58.0, "sd": 1.0, "n": 10,
                          "citation": "Smith et al. (2023), Table 2"},
                         {"id": "ref_value", "value": 58.0, "citation": "Efron et al. (2004), Table 1"}],
           "comparison": [{"id": f"linear_vs_{r}", "a": {"experiment": "main", "where": {"group": "linear"}},
                           "b": {"reference": r}, "metric": "rmse", "claimed": "a_better"}
                          for r in ("ref_sd", "ref_value")]}
    summary_entry, value_entry = config(raw).comparisons
    summary = stats.jsonable(evaluate_comparison(summary_entry, regression("linear", LINEAR), []))
    assert summary["numbers"]["test"] == "welch-summary" and summary["class"] == "insufficient_evidence"
    assert "too large for any number of seeds" in summary["reason"]
    assert "fixed" not in summary["b"]  # a published mean with its spread is a summary, not a constant
    assert "too large for any number of seeds" in summary["seeds_needed_note"]
    value = stats.jsonable(evaluate_comparison(value_entry, regression("linear", LINEAR), []))
    assert value["b"]["fixed"] == {"how": "published", "detail": "published in Efron et al. (2004), Table 1"}
    for entry in (summary, value):
        validate({"schema_version": 1, "comparisons_file": "comparisons.toml", "comparisons_digest": "0" * 64,
                  "counts": {"effect": 0, "noise": 0, "insufficient_evidence": 0, "suspected_bug": 0},
                  "comparisons": [entry], "aggregates": [], "expected_max": [], "references": []},
                 "verify_report", "report.json")
    resolved = _resolved(summary)
    audit = disclose._Audit(Project.at(tmp_path), {"claims": [resolved]}, _report(summary), 5)
    audit.seeds()
    finding = audit.findings["seeds:verify:linear_vs_ref_sd"]
    assert "a fixed value" not in finding.reader and "could not be estimated" not in finding.reader
    assert ("5 seeds of linear against the published mean with its spread of Smith et al. (2023), "
            "Table 2") in finding.reader
    assert "the published number's own uncertainty is too large for any number of seeds" in finding.reader
