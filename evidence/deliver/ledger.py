"""The compute ledger: what each run used, and the compute statement of the deliverable.

**Recorded per run** (``provenance.json`` → ``compute``, written by the runner at seal): the
device kind (``cpu`` or ``cuda``) and model name, the device count (cores, i.e. the threads of
every process, for cpu; GPUs for cuda), wall seconds over every attempt (resumes included),
device-hours (wall seconds x device count / 3600), and the peak memory: the largest resident
set of the training process (``getrusage(RUSAGE_SELF).ru_maxrss``) and, on CUDA,
``torch.cuda.max_memory_allocated``, each the maximum over all attempts (the checkpoint carries
the peak so far). Runs sealed before the ledger existed have no ``compute`` block; their
device-hours are derived from ``wall_seconds``, ``threads`` and ``environment.devices`` and
their peak memory is "not recorded".

**Reported** (``doit deliver`` → ``build/compute/compute.json`` and ``compute.md``, copied into
the deliverable; in the paper through ``{{ compute_statement() }}`` and
``{{ compute_table() }}``): every sealed run in ``runs/``, per experiment and in total, with
cost at the dated prices of ``prices.toml`` (:mod:`evidence.deliver.prices`), and the share of the
compute spent on runs that no claim uses (NeurIPS checklist Q8: the full compute of the
project, not only that of the reported experiments). A run no claim uses is either
*declared* (an experiment still defines it, but no claim cites it) or *superseded* (trained
under an earlier config or code; no experiment defines it any more). Savings from early
stopping are measured per run (epochs not run against ``max_epochs``) and reported per group
of seeds as a range (min–max and median), never as one assumed percentage.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from evidence.core.hashing import write_bytes_atomic, write_json_atomic
from evidence.core.project import Project
from evidence.deliver.prices import format_money, price_for
from evidence.numerics.stopping import spread
from evidence.train.meter import run_compute

SCHEMA_VERSION = 1
STATUSES = ("cited", "declared", "superseded")

def compute_of(provenance: Mapping[str, Any]) -> dict[str, Any]:
    """The compute block of a provenance record; derived for runs sealed before it existed."""
    block = provenance.get("compute")
    if isinstance(block, Mapping):
        return {**block, "recorded": True}
    devices = (provenance.get("environment") or {}).get("devices") or {}
    derived = run_compute({"wall_seconds": provenance.get("wall_seconds", 0.0)}, devices,
                          int(provenance.get("threads", 1) or 1))
    return {**derived, "recorded": False}


# -- the ledger (deliver) --------------------------------------------------------------------


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def run_rows(project: Project, cited: Mapping[str, Sequence[str]], current: set[str],
             prices: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """One row per sealed run of the store: compute, cost, and whether a claim uses it."""
    from evidence.core import memo as memos

    rows = []
    root = project.runs_dir
    memo = memos.of(project, "ledger-runs")
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        # What the ledger needs of a sealed run, memoised by the stat of the three files it
        # reads: at 10,000 runs, parsing 30,000 JSON files on every rebuild took seconds.
        facts = memo.get(folder.name, partial(_run_fact_files, folder), partial(_run_facts, folder))
        if facts is None:
            continue
        compute, spec, early_stopping = facts["compute"], facts["spec"], facts["early_stopping"]
        priced = price_for(prices, compute["device_kind"], compute.get("device_name"))
        run_id = folder.name
        status = "cited" if run_id in cited else "declared" if run_id in current else "superseded"
        rows.append({"run_id": run_id, "experiment": str(spec.get("experiment")),
                     "label": str(spec.get("label")), "group": str(spec.get("group")),
                     "status": status, "claims": sorted(cited.get(run_id, ())),
                     **{k: compute.get(k) for k in ("device_kind", "device_name", "device_count",
                                                    "wall_seconds", "device_hours",
                                                    "peak_host_memory_bytes",
                                                    "peak_device_memory_bytes", "recorded")},
                     "price": priced[0] if priced else None,
                     "cost": round(float(compute["device_hours"]) * float(priced[1]["per_hour"]), 8)
                     if priced else None,
                     "currency": priced[1]["currency"] if priced else None,
                     "early_stopping": early_stopping, "startup_seconds": facts.get("startup_seconds")})
    if root.is_dir():
        memo.forget(p.name for p in root.iterdir())
    memo.save()
    return rows


def _run_fact_files(folder: Path) -> list[Path]:
    return [folder / name for name in ("provenance.json", "spec.json", "results.json")]


def _run_facts(folder: Path) -> dict[str, Any] | None:
    provenance, spec = _json(folder / "provenance.json"), _json(folder / "spec.json")
    if not isinstance(provenance, Mapping) or not isinstance(spec, Mapping):
        return None
    results = _json(folder / "results.json") or {}
    launch = provenance.get("launch")
    return {"compute": compute_of(provenance),
            "startup_seconds": launch.get("startup_seconds") if isinstance(launch, Mapping) else None,
            "spec": {k: spec.get(k) for k in ("experiment", "label", "group")},
            "early_stopping": results.get("early_stopping") if isinstance(results, Mapping) else None}


def _sum(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    hours: dict[str, float] = defaultdict(float)
    cost: dict[str, float] = defaultdict(float)
    for r in rows:
        hours[r["device_kind"]] += float(r["device_hours"])
        if r["cost"] is not None:
            cost[r["currency"]] += float(r["cost"])
    peaks_ = [r["peak_host_memory_bytes"] for r in rows if r["peak_host_memory_bytes"] is not None]
    return {"runs": len(rows), "wall_seconds": round(sum(float(r["wall_seconds"]) for r in rows), 3),
            "device_hours": {k: round(v, 6) for k, v in sorted(hours.items())},
            "cost": {k: round(v, 8) for k, v in sorted(cost.items())},
            "unpriced_runs": sum(r["cost"] is None for r in rows),
            "not_recorded_runs": sum(not r["recorded"] for r in rows),
            "max_peak_host_memory_bytes": max(peaks_) if peaks_ else None,
            # start-up of the runs' processes, outside wall_seconds and device-hours; runs sealed
            # before it was recorded are left out of it
            "startup_seconds": round(sum(float(r["startup_seconds"]) for r in rows
                                         if r.get("startup_seconds") is not None), 3),
            "startup_recorded_runs": sum(r.get("startup_seconds") is not None for r in rows)}


def _share(part: Mapping[str, Any], whole: Mapping[str, Any]) -> dict[str, float]:
    return {k: (part["device_hours"].get(k, 0.0) / v if v else 0.0) for k, v in whole["device_hours"].items()}


def early_stopping_savings(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per experiment and group: epochs run and the measured share of the budget saved, as ranges."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["early_stopping"] and r["status"] != "superseded":
            groups[r["experiment"], r["group"]].append(r)
    found = []
    for (experiment, group), members in sorted(groups.items()):
        stops = [m["early_stopping"] for m in members]
        saved_hours = [float(m["device_hours"]) / s["epochs_run"] * s["epochs_saved"]
                       for m, s in zip(members, stops, strict=True)]
        reasons: dict[str, int] = defaultdict(int)
        for s in stops:
            reasons[s["reason"]] += 1
        found.append({"experiment": experiment, "group": group, "n": len(members),
                      "max_epochs": sorted({s["max_epochs"] for s in stops}),
                      "epochs_run": spread([s["epochs_run"] for s in stops]),
                      "share_saved": spread([s["share_saved"] for s in stops]),
                      "device_hours_saved": spread(saved_hours), "reasons": dict(sorted(reasons.items())),
                      "runs": sorted(m["run_id"] for m in members)})
    return found


def build_ledger(project: Project, claims: Mapping[str, Any] | None, prices: Mapping[str, Any] | None,
                 current: set[str]) -> dict[str, Any]:
    """compute.json as a value; ``current``: run ids the experiments define now."""
    cited: dict[str, list[str]] = defaultdict(list)
    for claim in (claims or {}).get("claims", []):
        for run in claim.get("runs", []):
            cited[str(run["run_id"])].append(str(claim["id"]))
    rows = run_rows(project, cited, current, prices)
    total = _sum(rows)
    unused = _sum(r for r in rows if r["status"] != "cited")
    by_experiment = defaultdict(list)
    for r in rows:
        by_experiment[r["experiment"]].append(r)
    used_prices = sorted({r["price"] for r in rows if r["price"]})
    table = (prices or {}).get("prices", {})
    return {"schema_version": SCHEMA_VERSION,
            "prices": {"file": "prices.toml" if prices else None,
                       "max_age_days": (prices or {}).get("max_age_days"),
                       "used": {k: dict(table[k]) for k in used_prices}},
            "total": total,
            "unused": {**unused, "share": _share(unused, total),
                       "by_status": {s: _sum(r for r in rows if r["status"] == s) for s in STATUSES[1:]}},
            "experiments": [{"experiment": name, **_sum(members),
                             "cited_runs": sum(m["status"] == "cited" for m in members)}
                            for name, members in sorted(by_experiment.items())],
            "early_stopping": early_stopping_savings(rows),
            "runs": rows}


# -- text --------------------------------------------------------------------------------------


def duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _hours(value: float) -> str:
    return f"{value:.3g}"


def _unit(doc: Mapping[str, Any], kind: str) -> str:
    price = doc["prices"]["used"].get(kind, {})
    return str(price.get("unit") or ("core" if kind == "cpu" else "GPU" if kind == "cuda" else "device"))


def hours_text(doc: Mapping[str, Any], hours: Mapping[str, float]) -> str:
    return ", ".join(f"{_hours(v)} {_unit(doc, k)}-hours ({k})" for k, v in hours.items()) or "no compute"


def cost_text(cost: Mapping[str, float]) -> str:
    return " + ".join(format_money(v, k) for k, v in cost.items()) or "n/a"


def _percent(share: float) -> str:
    return "<1%" if 0 < share < 0.005 else f"{100 * share:.0f}%"


def _range(values: Mapping[str, Any] | None, fmt: str = "{:.0%}") -> str:
    if not values:
        return "n/a"
    low, mid, high = (fmt.format(values[k]) for k in ("min", "median", "max"))
    return f"{low}–{high} (median {mid})" if low != high else f"{low} for every seed"


def statement(doc: Mapping[str, Any]) -> str:
    """The compute statement (Markdown): total, cost, unused share, early-stopping savings."""
    total, unused = doc["total"], doc["unused"]
    # no bold "Compute." lead-in: the paper and compute.md both put it under a "Compute" heading
    parts = [f"The {total['runs']} sealed training runs of this project (runs/) used "
             f"{hours_text(doc, total['device_hours'])}, {duration(total['wall_seconds'])} of wall-clock "
             "time in total"]
    if total["max_peak_host_memory_bytes"] is not None:
        from evidence.experiments.presets import format_bytes

        peak = format_bytes(total["max_peak_host_memory_bytes"])
        parts[-1] += f"; the largest peak host memory of a run was {peak}"
    parts[-1] += "."
    if total.get("startup_recorded_runs"):
        parts.append(f"Starting the runs' processes took {duration(total['startup_seconds'])} more "
                     f"({total['startup_recorded_runs']} runs recorded it), not counted above.")
    if doc["prices"]["used"]:
        prices = "; ".join(f"{k}: {format_money(p['per_hour'], p['currency'])} per {_unit(doc, k)}-hour, "
                           f"checked {p['checked']}, source: {html.escape(str(p['source']), quote=False)}"
                           for k, p in doc["prices"]["used"].items())
        unpriced = f" ({total['unpriced_runs']} runs on unpriced devices excluded)" \
            if total["unpriced_runs"] else ""
        parts.append(f"At the dated prices of prices.toml ({prices}) this cost {cost_text(total['cost'])}"
                     f"{unpriced}.")
    else:
        parts.append("No prices.toml gives prices, so no cost is stated.")
    cited = total["runs"] - unused["runs"]
    share = ", ".join(f"{_percent(v)} of the {k} compute" for k, v in unused["share"].items()) or "none"
    declared, superseded = unused["by_status"]["declared"]["runs"], unused["by_status"]["superseded"]["runs"]
    unused_cost = f" ({cost_text(unused['cost'])})" if unused["cost"] else ""
    if unused["runs"]:
        parts.append(f"Runs that no claim uses ({declared} defined by the experiments but not cited, "
                     f"{superseded} superseded by later code or configurations) took {share}{unused_cost}; "
                     f"the {cited} runs the claims use took the rest.")
    else:
        parts.append(f"Every one of the {cited} runs is used by a claim.")
    if total["not_recorded_runs"]:
        parts.append(f"{total['not_recorded_runs']} runs predate the ledger: their device-hours are derived "
                     "from their recorded wall-clock time and threads, their peak memory is not recorded.")
    for entry in doc["early_stopping"]:
        budget = "/".join(str(m) for m in entry["max_epochs"])
        parts.append(f"Early stopping ({entry['experiment']}/{entry['group']}, {entry['n']} seeds) ran "
                     f"{_range(entry['epochs_run'], '{:.0f}')} of {budget} epochs, saving "
                     f"{_range(entry['share_saved'])} of the epoch budget per seed, about "
                     f"{_range(entry['device_hours_saved'], '{:.2g}')} device-hours per run "
                     "(measured per run, not assumed).")
    return " ".join(parts)


def experiment_table(doc: Mapping[str, Any]) -> str:
    """Per experiment and in total: runs, runs cited, wall-clock, device-hours, peak memory, cost."""
    from evidence.experiments.presets import format_bytes

    lines = ["| Experiment | Runs | Cited by claims | Wall-clock | Device-hours | Peak host memory | Cost |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for e in [*doc["experiments"], {**doc["total"], "experiment": "**Total**",
                                    "cited_runs": doc["total"]["runs"] - doc["unused"]["runs"]}]:
        hours = ", ".join(f"{_hours(v)} ({k})" for k, v in e["device_hours"].items())
        lines.append(f"| {e['experiment']} | {e['runs']} | {e['cited_runs']} | "
                     f"{duration(e['wall_seconds'])} | {hours} | "
                     f"{format_bytes(e['max_peak_host_memory_bytes'])} | {cost_text(e['cost'])} |")
    return "\n".join(lines)


def markdown(doc: Mapping[str, Any]) -> str:
    """compute.md: the statement, the experiment table, early stopping, then every run."""
    from evidence.experiments.presets import format_bytes

    lines = ["# Compute", "", statement(doc), "", experiment_table(doc), ""]
    if doc["early_stopping"]:
        lines += ["## Early stopping", "", "| Experiment/group | Seeds | Epochs run | Budget saved | "
                  "Device-hours saved per run | Stopped by |", "|---|---:|---|---|---|---|"]
        for e in doc["early_stopping"]:
            reasons = ", ".join(f"{k}: {v}" for k, v in e["reasons"].items())
            lines.append(f"| {e['experiment']}/{e['group']} | {e['n']} | "
                         f"{_range(e['epochs_run'], '{:.0f}')} | {_range(e['share_saved'])} | "
                         f"{_range(e['device_hours_saved'], '{:.2g}')} | {reasons} |")
        lines.append("")
    lines += ["## Runs", "", "| Run | Experiment/label | Status | Device | Wall-clock | Device-hours | "
              "Peak host memory | Cost |", "|---|---|---|---|---:|---:|---:|---:|"]
    for r in doc["runs"]:
        device = f"{r['device_count']} x {r['device_kind']}"
        if r["device_name"]:
            device += f" ({r['device_name']})"
        lines.append(f"| {r['run_id']} | {r['experiment']}/{r['label']} | {r['status']} | {device} | "
                     f"{duration(float(r['wall_seconds']))} | {_hours(float(r['device_hours']))} | "
                     f"{format_bytes(r['peak_host_memory_bytes'])} | "
                     f"{format_money(r['cost'], r['currency'])} |")
    return "\n".join(lines) + "\n"


def compute_dir(project: Project) -> Path:
    return project.compute_dir


def write_ledger(project: Project) -> dict[str, Any]:
    """build/compute/compute.json and compute.md from the store, the claims and prices.toml."""
    from evidence.core.schema import validate
    from evidence.deliver.claims import claims_path
    from evidence.deliver.prices import load_prices
    from evidence.experiments.spec import expand_all
    from evidence.store.runs import RunStore

    store = RunStore(project.runs_dir)
    current = {run.run_id for spec in expand_all(project) if (run := store.find(spec.key))}
    claims = _json(claims_path(project))
    doc = build_ledger(project, claims, load_prices(project), current)
    validate(doc, "compute", "the compute ledger (a bug in evidence.deliver.ledger)")
    out = compute_dir(project)
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "compute.json", doc)
    write_bytes_atomic(out / "compute.md", markdown(doc).encode("utf-8"))
    return doc
