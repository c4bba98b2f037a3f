"""``doit verify``: is this number a bug, a real effect, or noise?

A paper's comparisons ("the CNN beats the MLP") are declared once, in ``comparisons.toml`` at
the project root (schema ``comparisons``; parsed by :mod:`evidence.verify.comparisons`), by
*selection* (experiment + filters), never by run id. ``doit verify`` reads the sealed runs'
results.json and writes ``build/verify/report.json`` (schema ``verify_report``, the numbers
claims cite as ``verify:<id>``, ``aggregate:<id>`` and ``expected_max:<id>``) and
``build/verify/summary.md``, then prints the summary.

Why it is built this way:

* **One interval per quantity, with coverage that holds at a few seeds.** The mean is given
  with its Student-t interval, a difference of means with its Welch interval (the same test
  that decides "effect"); the bootstrap serves only P(A better) and the IQM. The summary names
  the method beside every interval ("95% CI, Welch t").
* **The report is a pure function of its inputs.** Every random draw comes from
  :func:`evidence.verify.stats.rng_for` of the entry's id, and the report holds no timestamps, so the
  same runs always give the same bytes and a rebuilt report never moves a published interval.
* **Direction comes from the evidence.** Which way is better is read from each run's
  ``metrics.<name>.direction``; runs that disagree are an error, never silently reconciled.
* **Audit, then disclose; never block.** A comparison classified as noise or as a suspected
  bug is reported, not a build failure: the claims layer decides what a label means for a
  claim. The task fails only on bad input (exit 3 when it can be seen before anything runs)
  and on runs that cannot be read.
* **Exact dependencies.** The task depends on comparisons.toml, on every results.json it reads
  (which are the train tasks' targets, so ``doit verify`` trains what is missing first) and on
  the statistics code, so it rebuilds exactly when a number could change.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.hashing import digest_bytes, digest_file, write_bytes_atomic, write_json_atomic
from evidence.core.project import Project
from evidence.core.schema import validate
from evidence.experiments.select import SelectedRun, Selection, select
from evidence.verify import stats
from evidence.verify.classify import (
    Check,
    check_finite_metrics,
    check_fixed_agree,
    check_metric_ranges,
    check_seed_applied,
    classify,
)
from evidence.verify.comparisons import (
    COMPARISONS_FILE,
    AggregateEntry,
    ComparisonEntry,
    ExpectedMaxEntry,
    Named,
    ReferenceEntry,
    VerifyConfig,
    comparisons_path,
)
from evidence.verify.determinism import Fixed, fixed_group
from evidence.verify.reportfile import load_report, report_dir

SCHEMA_VERSION = 1
LABELS = ("effect", "noise", "insufficient_evidence", "suspected_bug")


# --------------------------------------------------------------------------- reading runs


@dataclass(frozen=True)
class RunResult:
    """One sealed run's results.json as read, with the digest of the exact bytes read."""

    run_id: str
    label: str
    seed: int
    results: Mapping[str, Any]
    digest: str

    @classmethod
    def from_results(cls, results: Mapping[str, Any], digest: str = "") -> RunResult:
        return cls(str(results.get("run_id", "")), str(results.get("label", "")),
                   int(results.get("seed", 0)), results, digest)


def read_selected(project: Project, named: Named,
                  source: str) -> tuple[list[SelectedRun], list[RunResult]]:
    """The sealed runs of a selection and their results; an error naming any run not trained."""
    chosen = select(project, named.selection, require_sealed=True, source=source)
    out = []
    for run in chosen:
        data = run.results_path.read_bytes()
        out.append(RunResult.from_results(json.loads(data), digest_bytes(data)))
    return chosen, out


def read_runs(project: Project, named: Named, source: str) -> list[RunResult]:
    """The sealed runs of a selection; an error naming the missing runs if any is not trained."""
    return read_selected(project, named, source)[1]


def _direction(groups: Sequence[tuple[Named, Sequence[RunResult]]], metric: str, source: str,
               field: str) -> stats.Direction:
    """The metric's direction as every run records it; an error if a run lacks it or runs disagree."""
    seen: dict[str, list[str]] = {}
    for named, runs in groups:
        for run in runs:
            entry = run.results.get("metrics", {}).get(metric)
            if not isinstance(entry, Mapping):
                have = ", ".join(sorted(run.results.get("metrics", {}))) or "none"
                raise BadInputError(source, f"run {run.label!r} of {named.name} has no metric "
                                    f"{metric!r} (it has: {have})", field=f"{field}.metric")
            seen.setdefault(str(entry.get("direction")), []).append(f"{named.name}/{run.label}")
    if len(seen) != 1 or next(iter(seen)) not in ("higher", "lower"):
        detail = "; ".join(f"{d} for {', '.join(who[:3])}" for d, who in sorted(seen.items()))
        raise EvidenceError(f"{source}: field '{field}.metric': the runs disagree on which way "
                            f"{metric!r} is better ({detail})",
                            hint="compare only runs whose trainers define the metric the same way")
    return cast(stats.Direction, next(iter(seen)))


def _value(run: RunResult, metric: str, split: str) -> float:
    """The run's value; NaN where the runner recorded a non-finite value as its 0.0 placeholder."""
    value = float(run.results["metrics"][metric]["values"][split])
    flagged = (run.results.get("diagnostics") or {}).get(f"nonfinite_{metric}")
    return math.nan if flagged and value == 0.0 else value


def _records(runs: Sequence[RunResult], metric: str, split: str) -> list[dict[str, Any]]:
    return [{"run_id": r.run_id, "label": r.label, "seed": r.seed, "value": _value(r, metric, split),
             "results_digest": r.digest} for r in runs]


def _group(named: Named, runs: Sequence[RunResult], metric: str, split: str) -> dict[str, Any]:
    return {"name": named.name, "selection": named.selection.to_dict(),
            "runs": _records(runs, metric, split)}


def _values(runs: Sequence[RunResult], metric: str, split: str) -> stats.FloatArray:
    return np.array([_value(r, metric, split) for r in runs], dtype=np.float64)


# --------------------------------------------------------------------------- evaluation


def _fixed_phrase(fixed: Fixed) -> str:
    return f"a fixed value: {fixed.detail}"


def _reference_phrase(ref: ReferenceEntry) -> str:
    """How a reason names a published number: "as published in <citation>, sd 0.01 over 5 runs"."""
    spread = ""
    if ref.sd is not None and ref.n is not None:
        spread = f", sd {_n(ref.sd)} over {ref.n} runs"
    elif ref.interval is not None:
        over = f" over {ref.n} runs" if ref.n is not None else ""
        spread = f", {100 * ref.confidence:g}% CI [{_n(ref.interval[0])}, {_n(ref.interval[1])}]{over}"
    kind = "as published" if ref.has_spread else "a fixed value: published"
    return f"{kind} in {ref.citation}{spread}"


def _compare_sides(values_a: stats.FloatArray, fixed_a: bool, values_b: stats.FloatArray,
                   fixed_b: bool, *, direction: stats.Direction, confidence: float) -> stats.Comparison:
    """The statistics that fit what varies: Welch for two seeded groups, one-sample t against a
    fixed side, the exact difference of two fixed values."""
    with np.errstate(invalid="ignore", over="ignore"):
        if fixed_a and fixed_b:
            return stats.compare_constants(float(np.mean(values_a)), float(np.mean(values_b)),
                                           direction=direction, n_a=values_a.size, n_b=values_b.size,
                                           confidence=confidence)
        if fixed_b:
            return stats.compare_to_constant(values_a, float(np.mean(values_b)), direction=direction,
                                             constant_side="b", n_constant=values_b.size,
                                             confidence=confidence)
        if fixed_a:
            return stats.compare_to_constant(values_b, float(np.mean(values_a)), direction=direction,
                                             constant_side="a", n_constant=values_a.size,
                                             confidence=confidence)
        return stats.compare(values_a, values_b, direction=direction, confidence=confidence)


def _compare_reference(values_a: stats.FloatArray, ref: ReferenceEntry, *, direction: stats.Direction,
                       confidence: float) -> stats.Comparison:
    """A's seeds against a published number: Welch from summary statistics when the paper gives
    the spread, else the one-sample t-test against the value."""
    with np.errstate(invalid="ignore", over="ignore"):
        if ref.has_spread:
            se, df = stats.summary_se_df(sd=ref.sd, n=ref.n, interval=ref.interval,
                                         confidence=ref.confidence)
            return stats.compare_to_summary(values_a, ref.value, se, df, direction=direction,
                                            n_b=ref.n, sd_b=ref.sd, confidence=confidence)
        return stats.compare_to_constant(values_a, ref.value, direction=direction, constant_side="b",
                                         confidence=confidence)


def evaluate_comparison(entry: ComparisonEntry, a: Sequence[RunResult], b: Sequence[RunResult],
                        control: Sequence[RunResult] | None = None, *,
                        source: str = COMPARISONS_FILE, fixed_a: Fixed | None = None,
                        fixed_b: Fixed | None = None) -> dict[str, Any]:
    """One report entry: A vs B (and A vs its control) compared and classified.

    ``fixed_a``/``fixed_b``: the side is a fixed value (a deterministic variant,
    :mod:`evidence.verify.determinism`), compared by the one-sample statistics. A comparison whose
    B is a ``[[reference]]`` has no runs of B (``b`` is empty) and uses the published number.
    The control comparison (A vs the shuffled-label control on the same metric and split) is
    computed the same way; nothing here draws random numbers.
    """
    ref = entry.reference
    b_name = entry.b_name
    groups = [(entry.a, a), *([(entry.b, b)] if entry.b is not None else []),
              *([(entry.control, control)] if entry.control and control is not None else [])]
    direction = _direction(groups, entry.metric, source, entry.field)
    values_a = _values(a, entry.metric, entry.split)
    fixed: dict[str, str] = {}
    if fixed_a is not None:
        fixed[entry.a.name] = _fixed_phrase(fixed_a)
    if ref is not None:
        comparison = _compare_reference(values_a, ref, direction=direction, confidence=entry.confidence)
        fixed[b_name] = _reference_phrase(ref)
    else:
        if fixed_b is not None:
            fixed[b_name] = _fixed_phrase(fixed_b)
        comparison = _compare_sides(values_a, fixed_a is not None, _values(b, entry.metric, entry.split),
                                    fixed_b is not None, direction=direction, confidence=entry.confidence)
    control_cmp = _compare_sides(values_a, fixed_a is not None,
                                 _values(control, entry.metric, entry.split), False,
                                 direction=direction, confidence=entry.confidence) \
        if entry.control is not None and control is not None else None
    declared = [name for name, f in ((entry.a.name, fixed_a), (b_name, fixed_b))
                if f is not None and f.how == "declared"]
    # The test's level is the interval's: the printed interval excludes zero iff the test rejects.
    thresholds = replace(entry.thresholds, alpha=round(1 - entry.confidence, 12),
                         min_seeds=entry.min_seeds)
    verdict = classify(comparison, claimed=entry.claimed,
                       results_a=[r.results for r in a], results_b=[r.results for r in b],
                       control=control_cmp, results_control=[r.results for r in control or ()],
                       metric=entry.metric, split=entry.split,
                       names=(entry.a.name, b_name, entry.control.name if entry.control
                              else "control"),
                       margin=entry.equivalence_margin, thresholds=thresholds, fixed=fixed,
                       declared=declared)
    if entry.b is not None:
        b_group = _group(entry.b, b, entry.metric, entry.split)
    else:
        assert ref is not None
        b_group = {"name": b_name, "reference": ref.to_dict(), "runs": []}
    a_group = _group(entry.a, a, entry.metric, entry.split)
    if ref is not None and not ref.has_spread:  # a published value alone is a fixed value
        fixed_b = Fixed("published", f"published in {ref.citation}")
    for group, f in ((a_group, fixed_a), (b_group, fixed_b)):
        if f is not None:
            group["fixed"] = f.to_dict()
    return {
        "id": entry.id, "description": entry.description, "metric": entry.metric,
        "split": entry.split, "direction": direction, "claimed": entry.claimed,
        "min_seeds": entry.min_seeds, "confidence": entry.confidence,
        "n_resamples": entry.n_resamples, "equivalence_margin": entry.equivalence_margin,
        "thresholds": thresholds.to_dict(),
        "a": a_group,
        "b": b_group,
        "control": None if entry.control is None or control is None or control_cmp is None else {
            **_group(entry.control, control, entry.metric, entry.split),
            "numbers": control_cmp.to_dict()},
        "class": verdict.label, "reason": verdict.reason, "checks": verdict.checks,
        "direction_matches_claim": verdict.direction_matches_claim,
        "seeds_needed": verdict.seeds_needed, "seeds_needed_note": verdict.seeds_needed_note,
        "numbers": comparison.to_dict(),
    }


def aggregate_guards(named: Sequence[Named], strata: Sequence[Sequence[RunResult]],
                     fixed: Sequence[Fixed | None]) -> tuple[list[Check], str | None]:
    """The guards that apply to runs on their own: finite metrics, metrics in range, seeds applied
    (except where a stratum is a fixed value) and a declared-deterministic stratum that agrees.

    Returns the checks and, when one failed, the reason a claim on the aggregate cannot rest on it.
    """
    runs = {n.name: [r.results for r in rs] for n, rs in zip(named, strata, strict=True)}
    phrases = {n.name: _fixed_phrase(f) for n, f in zip(named, fixed, strict=True) if f is not None}
    declared = [n.name for n, f in zip(named, fixed, strict=True) if f is not None and f.how == "declared"]
    checks = [check_finite_metrics(runs), check_metric_ranges(runs), check_seed_applied(runs, phrases),
              *([check_fixed_agree(runs, declared)] if declared else [])]
    failed = [c for c in checks if c["passed"] is False]
    if not failed:
        return checks, None
    details = "; ".join(f"{c['detail']} [{c['name']}]" for c in failed)
    return checks, (f"Suspected bug in the runs of {' + '.join(runs)}: {details}. Until this is "
                    "explained these runs are not evidence.")


def _bootstrap_interval(entry: AggregateEntry, samples: Sequence[stats.FloatArray],
                        statistic: stats.Statistic, method: stats.CIMethod) -> stats.Interval:
    """A (stratified, for several strata) bootstrap interval; the same resamples for every call."""
    n = sum(s.size for s in samples)
    if method == "bca" and n < 3:  # the jackknife of 2 values is meaningless
        found = _bootstrap_interval(entry, samples, statistic, "percentile")
        return found if not found.defined else replace(
            found, note=f"n = {n} < 3 is too few for BCa; used percentile")
    rng = stats.rng_for(f"aggregate:{entry.id}")
    if len(samples) == 1:
        return stats.bootstrap_ci(samples[0], statistic, rng=rng, confidence=entry.confidence,
                                  n_resamples=entry.n_resamples, method=method)
    strata = {s.name: x for s, x in zip(entry.strata, samples, strict=True)}
    return stats.stratified_bootstrap_ci(strata, statistic, rng=rng, confidence=entry.confidence,
                                         n_resamples=entry.n_resamples, method=method)


def _mean_interval(entry: AggregateEntry, samples: Sequence[stats.FloatArray]) -> stats.Interval:
    """The Student-t interval of the pooled mean; with several strata, stratum by stratum.

    The pooled mean is sum_s (n_s / N) mean_s, so its variance is sum_s (n_s / N)^2 s_s^2 / n_s
    and its degrees of freedom are Welch-Satterthwaite's over the strata (as for a difference).
    """
    if len(samples) == 1:
        return stats.t_interval_mean(samples[0], confidence=entry.confidence)
    n = sum(x.size for x in samples)
    estimate = float(np.mean(np.concatenate(samples)))
    if any(x.size < 2 for x in samples) or not all(np.all(np.isfinite(x)) for x in samples):
        return stats.Interval(math.nan, math.nan, estimate, entry.confidence, "none", 0,
                              "every stratum needs two finite values for its spread")
    parts = [(x.size / n) ** 2 * float(np.var(x, ddof=1)) / x.size for x in samples]
    variance = sum(parts)
    if variance == 0.0:
        return stats.Interval(math.nan, math.nan, estimate, entry.confidence, "none", 0,
                              "every value is equal, so there is no spread to estimate an interval from")
    df = variance**2 / sum(p**2 / (x.size - 1) for p, x in zip(parts, samples, strict=True))
    half = float(stats.t_quantile(0.5 + entry.confidence / 2, df)) * math.sqrt(variance)
    return stats.Interval(estimate - half, estimate + half, estimate, entry.confidence,
                          stats.MEAN_CI_METHOD, 0)


def _reference(entry: AggregateEntry, runs: Sequence[RunResult], source: str) -> tuple[float, str] | None:
    """The reference value and where it came from; "chance" is read from the runs' diagnostics."""
    if entry.reference is None:
        return None
    if not isinstance(entry.reference, str):
        return float(entry.reference), "comparisons.toml"
    if entry.reference == "baseline":
        name = f"baseline_{entry.metric}"
        values = {(r.results.get("diagnostics") or {}).get(name) for r in runs}
        value = next(iter(values))
        if len(values) != 1 or not isinstance(value, int | float):
            raise BadInputError(source, f"reference = \"baseline\" needs runs that agree on "
                                f"diagnostics.{name}, the {entry.metric} of predicting the training "
                                f"mean (found {sorted(map(str, values))})", field=f"{entry.field}.reference")
        return float(value), f"baseline: predicting the training mean (diagnostics.{name})"
    key = {"accuracy": "n_classes", "loss": "chance_loss"}.get(entry.metric)
    found = {(r.results.get("diagnostics") or {}).get(key) for r in runs} if key else {None}
    k = next(iter(found))
    if key is None or len(found) != 1 or not isinstance(k, int | float):
        found_text = sorted(map(str, found))
        raise BadInputError(source, f"reference = \"chance\" needs the metric accuracy or loss and runs "
                            f"that agree on diagnostics.{key or 'n_classes'} (found {found_text})",
                            field=f"{entry.field}.reference")
    if entry.metric == "accuracy":
        return 1.0 / k, f"chance: 1/n_classes with n_classes = {k:g} from the runs' diagnostics"
    return float(k), "chance: the chance loss log K from the runs' diagnostics"


def evaluate_aggregate(entry: AggregateEntry, strata: Sequence[Sequence[RunResult]], *,
                       source: str = COMPARISONS_FILE,
                       fixed: Sequence[Fixed | None] | None = None) -> dict[str, Any]:
    """One report entry: a metric summarised over seeds (pooled over strata), with intervals.

    ``ci``, the interval a claim cites, is the Student-t interval of the mean (:func:`_mean_interval`).
    The IQM has no t interval: it gets bootstrap intervals, percentile and BCa, on the same
    resamples (``rng_for("aggregate:<id>")``); with several strata the resampling is stratified
    (:func:`evidence.verify.stats.stratified_bootstrap_ci`) so every stratum keeps its size.
    ``checks``, ``class`` and ``reason``: the guards on the runs themselves
    (:func:`aggregate_guards`); a failed one makes the entry a ``suspected_bug``, which no claim
    can rest on. ``fixed``: per stratum, whether it is a fixed value (its seeds agree by design).
    """
    direction = _direction(list(zip(entry.strata, strata, strict=True)), entry.metric, source, entry.field)
    samples = [_values(runs, entry.metric, entry.split) for runs in strata]
    pooled = np.concatenate(samples)
    with np.errstate(invalid="ignore", over="ignore"):
        intervals = {"mean": {stats.MEAN_CI_METHOD: _mean_interval(entry, samples).to_dict()},
                     "iqm": {m: _bootstrap_interval(entry, samples, stats.iqm, m).to_dict()
                             for m in ("percentile", "bca")}}
        summary = {"n": int(pooled.size), "mean": float(stats.mean(pooled)), "sd": float(stats.sd(pooled)),
                   "se": float(stats.se(pooled)), "median": float(stats.median(pooled)),
                   "iqm": float(stats.iqm(pooled))}
        stratum_means = [float(stats.mean(x)) for x in samples]
    ci = intervals["mean"][stats.MEAN_CI_METHOD]
    reference = None
    found = _reference(entry, [r for runs in strata for r in runs], source)
    if found is not None:
        value, origin = found
        defined = math.isfinite(ci["low"]) and math.isfinite(ci["high"])
        reference = {"value": value, "source": origin, "mean_minus_reference": summary["mean"] - value,
                     "ci_contains": ci["low"] <= value <= ci["high"] if defined else None,
                     "ci_max_distance": max(abs(ci["low"] - value), abs(ci["high"] - value))
                     if defined else math.nan}
    checks, bug = aggregate_guards(entry.strata, strata, list(fixed or [None] * len(strata)))
    return {
        "id": entry.id, "description": entry.description, "metric": entry.metric,
        "split": entry.split, "direction": direction, "stratified": entry.stratified,
        "checks": checks, "class": "suspected_bug" if bug else None, "reason": bug,
        "confidence": entry.confidence, "n_resamples": entry.n_resamples,
        "strata": [{**_group(named, runs, entry.metric, entry.split), "n": len(runs), "mean": m,
                    **({"fixed": f.to_dict()} if f is not None else {})}
                   for named, runs, m, f in zip(entry.strata, strata, stratum_means,
                                                fixed or [None] * len(strata), strict=True)],
        **summary, "ci": ci, "intervals": intervals, "reference": reference,
    }


def evaluate_expected_max(entry: ExpectedMaxEntry, runs: Sequence[RunResult], *,
                          source: str = COMPARISONS_FILE) -> dict[str, Any]:
    """One report entry: expected best score of k trials, k = 1..n (Dodge et al. 2019).

    Every selected run is one trial. The metric defaults to the runs' ``selection_metric``
    (they must agree). Trials with a non-finite score cannot be ranked; they are left out and
    the ``notes`` say so, because leaving them out flatters the curve.
    """
    metric = entry.metric
    if metric is None:
        chosen = {str(r.results.get("selection_metric")) for r in runs}
        if len(chosen) != 1:
            raise BadInputError(source, f"the runs disagree on their selection_metric ({sorted(chosen)}); "
                                "name the metric", field=f"{entry.field}.metric")
        metric = chosen.pop()
    direction = _direction([(entry.selection, runs)], metric, source, entry.field)
    records = _records(runs, metric, entry.split)
    finite = [r for r in records if math.isfinite(r["value"])]
    notes = []
    if len(finite) < len(records):
        notes.append(f"{len(records) - len(finite)} trial(s) with a non-finite {metric} are left out, "
                     "which overstates the expected maximum")
    if entry.split == "test":
        notes.append("the trials are scored on the test split: choosing by test performance "
                     "overstates what a validation-selected model would reach")
    table: list[dict[str, Any]] = []
    best = None
    if finite:
        scores = np.array([r["value"] for r in finite])
        expected = stats.expected_max_validation(scores, direction=direction)
        variance = stats.expected_max_validation_var(scores, direction=direction)
        table = [{"k": k + 1, "expected": float(e), "variance": float(v), "sd": math.sqrt(float(v))}
                 for k, (e, v) in enumerate(zip(expected, variance, strict=True))]
        index = int(np.argmax(scores) if direction == "higher" else np.argmin(scores))
        best = {"label": finite[index]["label"], "run_id": finite[index]["run_id"],
                "value": finite[index]["value"]}
    return {"id": entry.id, "description": entry.description, "metric": metric,
            "split": entry.split, "direction": direction, "n_trials": len(finite),
            "selection": entry.selection.selection.to_dict(), "runs": records, "best": best,
            "table": table, "notes": notes}


def build_report(project: Project, config: VerifyConfig) -> dict[str, Any]:
    """The whole report (NaN still NaN); reads each selection's runs once."""
    cache: dict[Selection, tuple[list[SelectedRun], list[RunResult]]] = {}
    fixed_cache: dict[Selection, Fixed | None] = {}

    def runs(named: Named) -> list[RunResult]:
        if named.selection not in cache:
            cache[named.selection] = read_selected(project, named, config.source)
        return cache[named.selection][1]

    def fixed(named: Named | None) -> Fixed | None:
        if named is None:
            return None
        if named.selection not in fixed_cache:
            runs(named)
            chosen, results = cache[named.selection]
            fixed_cache[named.selection] = fixed_group(project, chosen, [r.results for r in results])
        return fixed_cache[named.selection]

    comparisons = [evaluate_comparison(c, runs(c.a), runs(c.b) if c.b is not None else [],
                                       runs(c.control) if c.control else None,
                                       source=config.source, fixed_a=fixed(c.a), fixed_b=fixed(c.b))
                   for c in config.comparisons]
    aggregates = [evaluate_aggregate(g, [runs(s) for s in g.strata], source=config.source,
                                     fixed=[fixed(s) for s in g.strata])
                  for g in config.aggregates]
    expected = [evaluate_expected_max(e, runs(e.selection), source=config.source)
                for e in config.expected_max]
    path = comparisons_path(project)
    return {"schema_version": SCHEMA_VERSION, "comparisons_file": project.relative(path),
            "comparisons_digest": digest_file(path),
            "counts": {label: sum(c["class"] == label for c in comparisons) for label in LABELS},
            "comparisons": comparisons, "aggregates": aggregates, "expected_max": expected,
            "references": [r.to_dict() for r in config.references]}


# --------------------------------------------------------------------------- summary


def _n(x: float | None, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "undefined"
    return f"{x:+.4g}" if signed else f"{x:.4g}"


def _ci_text(ci: Mapping[str, Any], signed: bool = False) -> str:
    """``[+0.1, +0.9], 95% CI, Welch t``: the interval and the method that made it."""
    if ci["low"] is None or ci["high"] is None:
        return f"CI undefined: {ci['note']}" if ci.get("note") else "CI undefined"
    label = stats.ci_label(ci["confidence"], ci["method"])
    return f"[{_n(ci['low'], signed)}, {_n(ci['high'], signed)}], {label}"


def _comparison_line(c: Mapping[str, Any]) -> str:
    n, a, b = c["numbers"], c["a"]["name"], c["b"]["name"]
    label = c["class"]
    if label == "effect":
        label += " (as claimed)" if c["direction_matches_claim"] else " (CONTRADICTS the claim)"
    better = "higher" if c["direction"] == "higher" else "lower"
    ref = c["b"].get("reference")
    cited = f" (b: {ref['citation']})" if ref else ""
    return (f"- **{c['id']}** {label}: {c['split']} {c['metric']} ({better} is better) "
            f"{a} - {b}{cited} = {_n(n['diff'], True)} ({_ci_text(n['diff_ci'], True)}); "
            f"P({a} better than {b}) = {_n(n['prob_improvement'])} "
            f"({_ci_text(n['prob_improvement_ci'])}). {c['reason']}")


def _aggregate_line(g: Mapping[str, Any]) -> str:
    names = " + ".join(s["name"] for s in g["strata"])
    text = (f"- **{g['id']}** {g['split']} {g['metric']} over {g['n']} runs of {names}"
            f"{' (stratified bootstrap)' if g['stratified'] else ''}: mean {_n(g['mean'])} "
            f"({_ci_text(g['ci'])}), SD {_n(g['sd'])}, SE {_n(g['se'])}, "
            f"median {_n(g['median'])}, IQM {_n(g['iqm'])} ({_ci_text(g['intervals']['iqm']['bca'])})")
    ref = g["reference"]
    if ref is not None:
        verb = {True: "contains", False: "excludes", None: "is undefined, so says nothing about"}
        text += (f"; reference {_n(ref['value'])} ({ref['source']}): the CI "
                 f"{verb[ref['ci_contains']]} it and lies within +/-{_n(ref['ci_max_distance'])} of it")
    if g.get("class") == "suspected_bug":
        text += f". **suspected_bug**: {g['reason']}"
    return text if text.endswith(".") else text + "."  # the reason ends its own sentence


def _reference_line(r: Mapping[str, Any]) -> str:
    spread = ""
    if r.get("sd") is not None:
        spread = f", sd {_n(r['sd'])} over {r['n']} runs"
    elif r.get("interval"):
        over = f" over {r['n']} runs" if r.get("n") else ""
        spread = f", {100 * r['confidence']:g}% CI [{_n(r['interval'][0])}, {_n(r['interval'][1])}]{over}"
    elif r.get("n"):
        spread = f", over {r['n']} runs (no spread published)"
    url = f" <{r['url']}>" if r.get("url") else ""
    return f"- **{r['id']}** {_n(r['value'])}{spread}: {r['citation']}{url}."


def render_summary(report: Mapping[str, Any]) -> str:
    """summary.md: one line per comparison and aggregate, one table per expected-max entry."""
    counts = ", ".join(f"{report['counts'][label]} {label}" for label in LABELS)
    lines = ["# Verify summary", "",
             f"{len(report['comparisons'])} comparison(s) from {report['comparisons_file']}: {counts}. "
             "The numbers are in build/verify/report.json.", ""]
    if report["comparisons"]:
        lines += ["## Comparisons", "", *map(_comparison_line, report["comparisons"]), ""]
    if report["aggregates"]:
        lines += ["## Aggregates over seeds", "", *map(_aggregate_line, report["aggregates"]), ""]
    if report.get("references"):
        lines += ["## Published references", "", *map(_reference_line, report["references"]), ""]
    for e in report["expected_max"]:
        lines += [f"## Expected validation performance: {e['id']}", "",
                  f"Expected best {e['split']} {e['metric']} ({e['direction']} is better) among k of "
                  f"{e['n_trials']} trials of {e['selection']['experiment']} (Dodge et al. 2019)"
                  + (f"; best trial {e['best']['label']} = {_n(e['best']['value'])}" if e["best"] else "")
                  + "".join(f"; {note}" for note in e["notes"]) + ".", "",
                  "| k | expected best | SD |", "|---:|---:|---:|",
                  *(f"| {row['k']} | {_n(row['expected'])} | {_n(row['sd'])} |" for row in e["table"]), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- files and lookup


def write_report(project: Project, report: Mapping[str, Any]) -> tuple[Path, Path]:
    """Validate, write report.json and summary.md atomically, then re-open and check the report."""
    data = stats.jsonable(report)
    validate(data, "verify_report", "the verify report (a bug in evidence.verify.report)")
    folder = report_dir(project)
    folder.mkdir(parents=True, exist_ok=True)
    json_path, md_path = folder / "report.json", folder / "summary.md"
    write_json_atomic(json_path, data)
    write_bytes_atomic(md_path, render_summary(data).encode("utf-8"))
    if load_report(project) != data:  # trust the artifact, not the write call
        raise EvidenceError(f"{project.relative(json_path)} does not read back as written")
    return json_path, md_path
