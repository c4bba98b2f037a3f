"""``evidence diff A B``: what differs between two results, and by how much.

``evidence why`` explains why a task would rebuild; this explains two results. A and B are each
a run (its id, or ``experiment/label``), a variant (``experiment/group``: every seed of one
configuration; ``experiment/variant`` for every grid point of a variant) or a whole experiment.

* **Identity**: every field of the run key (:mod:`evidence.experiments.spec`) whose values differ:
  config fields, the trainer and its code digest, the engine's numerical-code digest, the data
  and split digests, the numerics profile, world size, protocol. The seed is left out (seeds
  are what a side varies over). Beside it, what the runs *recorded* but is not in the key
  (``provenance.json``: the Python, torch and engine versions, the CPU capability, the commit).
* **Metrics**: the difference of the means, with the Welch interval of the difference (the one
  ``doit verify`` decides "effect" with, :func:`evidence.verify.stats.welch_interval`) when both
  sides have at least two runs with a value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.store.runs import RunStore
from evidence.verify.runtable import RunRow, flatten, run_rows, undeclared_row

_RUN_ID = re.compile(r"^[0-9a-f]{16}(?:-\d+)?$")
#: What a run recorded about where it ran (provenance.json), shown apart from its identity.
RECORDED = {"python": ("environment", "python"), "torch": ("environment", "torch"),
            "evidence": ("environment", "packages", "evidence"),
            "cpu_capability": ("environment", "devices", "cpu_capability"),
            "device": ("environment", "devices", "kind"), "machine": ("environment", "machine"),
            "git_commit": ("git", "commit")}


@dataclass
class Side:
    """One side of a diff: what the name resolved to and its runs."""

    name: str
    kind: str  # "run", "variant" or "experiment"
    runs: list[RunRow]


def _with_identities(project: Project, side: Side) -> Side:
    """The side's runs with their full identity (from the experiments' expansion, by key)."""
    from evidence.experiments.spec import expand_cached

    missing = {r.experiment for r in side.runs if not r.identity}
    identities = {s.key: s.identity for name in sorted(missing)
                  if (path := project.experiments_dir / f"{name}.toml").is_file()
                  for s in expand_cached(project, path)}
    for row in side.runs:
        if not row.identity:
            row.identity = identities.get(row.key, {})
    return side


def resolve(project: Project, name: str, runs: Sequence[RunRow]) -> Side:
    """A run id, ``experiment/label``, ``experiment/group``, ``experiment/variant`` or ``experiment``."""
    if _RUN_ID.match(name):
        declared = [r for r in runs if r.run_id == name]
        if declared:
            return Side(name, "run", declared)
        if RunStore(project.runs_dir).path(name).is_dir():
            return Side(name, "run", [undeclared_row(project, name)])
        raise BadInputError(name, f"no run {name} in {project.relative(project.runs_dir)}/")
    experiment, _, rest = name.partition("/")
    mine = [r for r in runs if r.experiment == experiment]
    if not mine:
        known = ", ".join(sorted({r.experiment for r in runs})) or "none"
        raise BadInputError(name, f"no experiment {experiment!r} (experiments: {known})")
    if not rest:
        return Side(name, "experiment", mine)
    for kind, matched in (("variant", [r for r in mine if r.group == rest]),
                          ("run", [r for r in mine if r.label == rest]),
                          ("variant", [r for r in mine if r.variant == rest])):
        if matched:
            return Side(name, kind, matched)
    groups = sorted({r.group for r in mine})
    raise BadInputError(name, f"experiment {experiment!r} has no group, run label or variant {rest!r} "
                        f"(groups: {', '.join(groups[:12])}{', ...' if len(groups) > 12 else ''})")


def _values(side: Side, fields: Mapping[str, Any]) -> dict[str, list[str]]:
    seen: dict[str, set[str]] = {}
    for flat in fields[side.name]:
        for key, value in flat.items():
            seen.setdefault(key, set()).add(json.dumps(value, sort_keys=True))
    return {k: sorted(v) for k, v in seen.items()}


def _identity(row: RunRow) -> dict[str, Any]:
    flat = flatten({k: v for k, v in row.identity.items() if k != "seed"})
    return flat


def _recorded(project: Project, row: RunRow) -> dict[str, Any]:
    if row.status not in ("sealed", "damaged"):
        return {}
    try:
        provenance = json.loads((project.runs_dir / row.run_id / "provenance.json").read_bytes())
    except (OSError, ValueError):
        return {}
    found = {}
    for name, path in RECORDED.items():
        value: Any = provenance
        for part in path:
            value = value.get(part) if isinstance(value, Mapping) else None
        if value is not None:
            found[name] = value
    return found


def _compare(a: Side, b: Side, fields: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    va, vb = _values(a, fields), _values(b, fields)
    out = []
    for key in sorted(set(va) | set(vb)):
        left, right = va.get(key, []), vb.get(key, [])
        if left != right:
            out.append({"field": key, "a": [json.loads(v) for v in left],
                        "b": [json.loads(v) for v in right]})
    return out


def _difference(a: float, b: float) -> float:
    """a - b, with the last-bit noise of two equal means (1e-16) reported as the 0 it is."""
    diff = a - b
    return 0.0 if abs(diff) <= 1e-12 * max(1.0, abs(a), abs(b)) else diff


def metric_deltas(a: Side, b: Side, splits: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per metric and split both sides report: means, n, the difference and its Welch interval."""
    from evidence.verify.runtable import summarize

    def values(side: Side, metric: str, split: str) -> list[float]:
        return [v for r in side.runs if r.status == "sealed"
                if (v := r.metrics.get(metric, {}).get("values", {}).get(split)) is not None]

    directions: dict[str, str] = {}
    for row in [*a.runs, *b.runs]:
        for metric, reported_metric in row.metrics.items():
            directions.setdefault(metric, reported_metric["direction"])
    found = []
    for metric in sorted(directions):
        reported = {s for r in [*a.runs, *b.runs] for s in r.metrics.get(metric, {}).get("values", {})}
        split_names = sorted(reported, key=lambda s: ({"train": 0, "val": 1, "test": 2}.get(s, 3), s))
        for split in split_names:
            if splits and split not in splits:
                continue
            xa, xb = values(a, metric, split), values(b, metric, split)
            if not xa or not xb:
                continue
            sa, sb = summarize(xa), summarize(xb)
            entry: dict[str, Any] = {"metric": metric, "split": split, "direction": directions[metric],
                                     "a": sa.to_dict(), "b": sb.to_dict(),
                                     "diff": _difference(sa.mean or 0.0, sb.mean or 0.0),
                                     "ci_low": None, "ci_high": None, "method": "none",
                                     "note": "one run on a side: no interval of the difference"}
            if len(xa) >= 2 and len(xb) >= 2:
                from evidence.verify import stats

                interval = stats.welch_interval(xa, xb)
                defined = math.isfinite(interval.low) and math.isfinite(interval.high)
                entry.update(ci_low=interval.low if defined else None,
                             ci_high=interval.high if defined else None,
                             method=interval.method, note=interval.note)
            found.append(entry)
    return found


def diff(project: Project, name_a: str, name_b: str, *,
         splits: Sequence[str] | None = None) -> dict[str, Any]:
    """The diff of two results as JSON values (``evidence diff --json``)."""
    if name_a == name_b:
        raise BadInputError(name_b, "names the same result as A")
    runs = run_rows(project)
    a = _with_identities(project, resolve(project, name_a, runs))
    b = _with_identities(project, resolve(project, name_b, runs))
    identity = {a.name: [_identity(r) for r in a.runs], b.name: [_identity(r) for r in b.runs]}
    recorded = {a.name: [_recorded(project, r) for r in a.runs],
                b.name: [_recorded(project, r) for r in b.runs]}

    def side(s: Side) -> dict[str, Any]:
        return {"name": s.name, "kind": s.kind, "runs": len(s.runs),
                "groups": len({(r.experiment, r.group) for r in s.runs}),
                "sealed": sum(r.status == "sealed" for r in s.runs),
                "run_ids": [r.run_id for r in s.runs]}

    return {"schema_version": 1, "a": side(a), "b": side(b),
            "identity": _compare(a, b, identity), "recorded": _compare(a, b, recorded),
            "metrics": metric_deltas(a, b, splits)}
