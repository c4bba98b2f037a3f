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
from evidence.experiments.select import Selection, select
from evidence.verify import stats
from evidence.verify.classify import classify
from evidence.verify.comparisons import (
    COMPARISONS_FILE,
    AggregateEntry,
    ComparisonEntry,
    ExpectedMaxEntry,
    Named,
    VerifyConfig,
    comparisons_path,
)

SCHEMA_VERSION = 1
#: How claims cite an entry: ``<prefix>:<id>`` -> the report's list of that kind.
REFERENCE_KINDS = {"verify": "comparisons", "aggregate": "aggregates", "expected_max": "expected_max"}
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


def read_runs(project: Project, named: Named, source: str) -> list[RunResult]:
    """The sealed runs of a selection; an error naming the missing runs if any is not trained."""
    out = []
    for chosen in select(project, named.selection, require_sealed=True, source=source):
        data = chosen.results_path.read_bytes()
        out.append(RunResult.from_results(json.loads(data), digest_bytes(data)))
    return out


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


def evaluate_comparison(entry: ComparisonEntry, a: Sequence[RunResult], b: Sequence[RunResult],
                        control: Sequence[RunResult] | None = None, *,
                        source: str = COMPARISONS_FILE) -> dict[str, Any]:
    """One report entry: A vs B (and A vs its control) compared and classified.

    The control comparison (A vs the shuffled-label control on the same metric and split) uses
    its own generator, ``rng_for("<id>/control")``, so adding a control never moves A-vs-B's
    intervals.
    """
    groups = [(entry.a, a), (entry.b, b), *([(entry.control, control)] if entry.control and control
                                            is not None else [])]
    direction = _direction(groups, entry.metric, source, entry.field)
    values_a = _values(a, entry.metric, entry.split)

    def compare(other: Sequence[RunResult], rng_id: str) -> stats.Comparison:
        with np.errstate(invalid="ignore", over="ignore"):
            return stats.compare(values_a, _values(other, entry.metric, entry.split),
                                 direction=direction, rng=stats.rng_for(rng_id),
                                 confidence=entry.confidence, n_resamples=entry.n_resamples)

    comparison = compare(b, entry.id)
    control_cmp = compare(control, f"{entry.id}/control") \
        if entry.control is not None and control is not None else None
    # The test's level is the interval's: the printed interval excludes zero iff the test rejects.
    thresholds = replace(entry.thresholds, alpha=round(1 - entry.confidence, 12),
                         min_seeds=entry.min_seeds)
    verdict = classify(comparison, claimed=entry.claimed,
                       results_a=[r.results for r in a], results_b=[r.results for r in b],
                       control=control_cmp, results_control=[r.results for r in control or ()],
                       metric=entry.metric, split=entry.split,
                       names=(entry.a.name, entry.b.name, entry.control.name if entry.control
                              else "control"),
                       margin=entry.equivalence_margin, thresholds=thresholds)
    return {
        "id": entry.id, "description": entry.description, "metric": entry.metric,
        "split": entry.split, "direction": direction, "claimed": entry.claimed,
        "min_seeds": entry.min_seeds, "confidence": entry.confidence,
        "n_resamples": entry.n_resamples, "equivalence_margin": entry.equivalence_margin,
        "thresholds": thresholds.to_dict(),
        "a": _group(entry.a, a, entry.metric, entry.split),
        "b": _group(entry.b, b, entry.metric, entry.split),
        "control": None if entry.control is None or control is None or control_cmp is None else {
            **_group(entry.control, control, entry.metric, entry.split),
            "numbers": control_cmp.to_dict()},
        "class": verdict.label, "reason": verdict.reason, "checks": verdict.checks,
        "direction_matches_claim": verdict.direction_matches_claim,
        "seeds_needed": verdict.seeds_needed, "numbers": comparison.to_dict(),
    }


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
        return stats.Interval(estimate, estimate, estimate, entry.confidence, stats.MEAN_CI_METHOD, 0,
                              "every value is equal, so the interval has zero width")
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
                       source: str = COMPARISONS_FILE) -> dict[str, Any]:
    """One report entry: a metric summarised over seeds (pooled over strata), with intervals.

    ``ci``, the interval a claim cites, is the Student-t interval of the mean (:func:`_mean_interval`).
    The IQM has no t interval: it gets bootstrap intervals, percentile and BCa, on the same
    resamples (``rng_for("aggregate:<id>")``); with several strata the resampling is stratified
    (:func:`evidence.verify.stats.stratified_bootstrap_ci`) so every stratum keeps its size.
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
    return {
        "id": entry.id, "description": entry.description, "metric": entry.metric,
        "split": entry.split, "direction": direction, "stratified": entry.stratified,
        "confidence": entry.confidence, "n_resamples": entry.n_resamples,
        "strata": [{**_group(named, runs, entry.metric, entry.split), "n": len(runs), "mean": m}
                   for named, runs, m in zip(entry.strata, strata, stratum_means, strict=True)],
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
    cache: dict[Selection, list[RunResult]] = {}

    def runs(named: Named) -> list[RunResult]:
        if named.selection not in cache:
            cache[named.selection] = read_runs(project, named, config.source)
        return cache[named.selection]

    comparisons = [evaluate_comparison(c, runs(c.a), runs(c.b), runs(c.control) if c.control else None,
                                       source=config.source) for c in config.comparisons]
    aggregates = [evaluate_aggregate(g, [runs(s) for s in g.strata], source=config.source)
                  for g in config.aggregates]
    expected = [evaluate_expected_max(e, runs(e.selection), source=config.source)
                for e in config.expected_max]
    path = comparisons_path(project)
    return {"schema_version": SCHEMA_VERSION, "comparisons_file": project.relative(path),
            "comparisons_digest": digest_file(path),
            "counts": {label: sum(c["class"] == label for c in comparisons) for label in LABELS},
            "comparisons": comparisons, "aggregates": aggregates, "expected_max": expected}


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
    return (f"- **{c['id']}** {label}: {c['split']} {c['metric']} ({better} is better) "
            f"{a} - {b} = {_n(n['diff'], True)} ({_ci_text(n['diff_ci'], True)}); "
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
    return text + "."


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


def report_dir(project: Project) -> Path:
    return project.verify_dir


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


def load_report(project: Project) -> dict[str, Any]:
    """The verify report of a project, validated against its schema."""
    path = report_dir(project) / "report.json"
    if not path.is_file():
        raise EvidenceError(f"{project.relative(path)} does not exist", hint="run `doit verify` first")
    report: dict[str, Any] = json.loads(path.read_text("utf-8"))
    validate(report, "verify_report", path)
    return report


def find_entry(report: Mapping[str, Any], reference: str) -> dict[str, Any]:
    """The entry a claim cites: ``verify:<comparison id>``, ``aggregate:<id>`` or ``expected_max:<id>``."""
    kind, _, entry_id = reference.partition(":")
    if kind not in REFERENCE_KINDS or not entry_id:
        raise EvidenceError(f"{reference!r} is not a verify reference; expected one of "
                            f"{', '.join(k + ':<id>' for k in REFERENCE_KINDS)}")
    entries = report[REFERENCE_KINDS[kind]]
    for entry in entries:
        if entry["id"] == entry_id:
            return dict(entry)
    known = ", ".join(e["id"] for e in entries) or "none"
    raise EvidenceError(f"the verify report has no {kind} entry {entry_id!r} (it has: {known})",
                        hint=f"declare it in {COMPARISONS_FILE} and run `doit verify`")
