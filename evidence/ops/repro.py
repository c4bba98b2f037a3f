"""Reproduce the paper from a clean copy and report, claim by claim, whether it holds.

Reproduction is not re-running: the committed evidence (``runs/``, figures, tables and the
deliverable in ``build/deliver/``) is the *original*; a reproduction builds everything again in a
separate workspace (``build/repro/work``) from the project's inputs only (experiments,
trainers, specs, EVIDENCE.json, paper sources), into a fresh run store, and then compares:

* every run: results and weights bit-identical, or the size of the difference (largest
  metric difference, largest weight difference);
* every claim: the reproduced value within the claim's tolerance, and its classification
  (effect, noise, insufficient evidence, suspected bug) unchanged;
* every figure and table file: byte-identical or not;
* the environment (Python, library versions, machine) of the original runs and of the
  reproduction; when they differ the report says so next to each difference.

Quick paths: ``presentation`` reuses the committed runs that pass the integrity check and
rebuilds only the presentation layer; ``experiment``/``claim`` retrain only the runs of one
experiment or of one claim (the other runs are copied and marked as reused).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidence.core.errors import EvidenceError
from evidence.core.hashing import write_bytes_atomic, write_json_atomic
from evidence.core.project import Project
from evidence.core.provenance import environment
from evidence.numerics import profile as numerics_profile
from evidence.store.runs import RunStore, SealedRun

GENERATED_DIRS = ("runs", "build", ".evidence")
#: A run that is not bit-identical but whose metrics and weights differ by no more than this is
#: "the same within float rounding": the size of last-bit differences accumulated by a training
#: run, far below any difference a claim's tolerance can see.
ROUNDING_METRIC = 1e-6
ROUNDING_WEIGHT = 1e-3
#: Inputs of a figure or table folder; everything else in it is generated.
PRESENTATION_INPUTS = (".toml", ".py")
COMPARED_SUFFIXES = (".png", ".pdf", ".svg", ".csv", ".md", ".tex")


@dataclass
class Scope:
    """What to reproduce: everything, only the presentation layer, or one experiment/claim."""

    mode: str = "full"  # full | presentation | experiment | claim
    target: str | None = None


@dataclass
class Comparison:
    runs: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)


def _project_files(project: Project) -> list[Path]:
    """The project's inputs: tracked files (or all files) minus runs, build output and state."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=project.root, capture_output=True,
                                check=True).stdout.decode().split("\0")
        paths = [project.root / p for p in listed if p]
    except (OSError, subprocess.CalledProcessError):
        paths = [p for p in project.root.rglob("*") if p.is_file()]
    chosen = []
    for path in paths:
        rel = path.relative_to(project.root)
        top = rel.parts[0]
        if top in GENERATED_DIRS or top.startswith(".venv") or top == ".git" or not path.is_file():
            continue
        if top in ("figures", "tables") and len(rel.parts) == 3 and path.suffix not in PRESENTATION_INPUTS:
            continue
        chosen.append(path)
    return sorted(chosen)


def prepare_workspace(project: Project, workspace: Path, reuse: Sequence[SealedRun]) -> Project:
    """A fresh copy of the project's inputs, plus copies of the sealed runs to reuse."""
    if workspace.exists():
        for path in workspace.rglob("*"):
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(workspace)
    workspace.mkdir(parents=True)
    for path in _project_files(project):
        target = workspace / path.relative_to(project.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    for run in reuse:
        shutil.copytree(run.path, workspace / "runs" / run.run_id)
    return Project.at(workspace)


def _runs_to_reuse(project: Project, scope: Scope) -> list[SealedRun]:
    from evidence.experiments.spec import expand_all

    store = RunStore(project.runs_dir)
    if scope.mode == "full":
        return []
    specs = expand_all(project)
    if scope.mode == "presentation":
        fresh_keys: set[str] = set()
    elif scope.mode == "experiment":
        fresh_keys = {s.key for s in specs if s.experiment == scope.target}
        if not fresh_keys:
            raise EvidenceError(f"no experiment {scope.target!r}", hint="see experiments/*.toml")
    else:
        claims = _load_json(project.deliver_dir / "claims.json")["claims"]
        claim = next((c for c in claims if c["id"] == scope.target), None)
        if claim is None:
            raise EvidenceError(f"no claim {scope.target!r} in the committed deliverable",
                                hint="see EVIDENCE.json")
        fresh_ids = {r["run_id"] for r in claim["runs"]}
        fresh_keys = {s.key for s in specs if (run := store.find(s.key)) and run.run_id in fresh_ids}
    reuse = []
    for spec in specs:
        run = store.find(spec.key)
        if spec.key in fresh_keys or run is None:
            continue
        problems = store.fsck_run(run.run_id)
        if problems:  # a run that fails the integrity check is retrained, never reused
            continue
        reuse.append(run)
    return reuse


def _load_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def build(workspace: Project, jobs: int) -> int:
    """Run ``doit deliver`` in the workspace; the exit code of doit."""
    env = {**os.environ, "EVIDENCE_PROGRESS": os.environ.get("EVIDENCE_PROGRESS", "off")}
    env.pop("EVIDENCE_RUNS", None)
    command = [sys.executable, "-m", "doit", "-n", str(jobs), "deliver"]
    return subprocess.call(command, cwd=workspace.root, env=env)


def _weights_difference(a: Path, b: Path) -> float:
    from safetensors.torch import load_file

    left, right = load_file(str(a)), load_file(str(b))
    if set(left) != set(right):
        return math.inf
    worst = 0.0
    for name, tensor in left.items():
        other = right[name]
        if tensor.shape != other.shape:
            return math.inf
        worst = max(worst, float((tensor.double() - other.double()).abs().max()) if tensor.numel() else 0.0)
    return worst


def compare_runs(original: Project, repro: Project, reused: set[str]) -> list[dict[str, Any]]:
    rows = []
    source = RunStore(original.runs_dir)
    for run in RunStore(repro.runs_dir).runs():
        key = run.spec["key"]
        label = f"{run.spec['experiment']}/{run.spec['label']}"
        before = source.find(key)
        row: dict[str, Any] = {"run": label, "key": key, "run_id": run.run_id,
                               "reused": run.run_id in reused}
        if before is None:
            row.update(identical=False, problem="no committed run with this key")
            rows.append(row)
            continue
        same = {name: (before.path / name).read_bytes() == (run.path / name).read_bytes()
                for name in ("results.json", "metrics.jsonl", "model.safetensors")}
        row["identical"] = all(same.values())
        if not row["identical"]:
            old, new = before.results["metrics"], run.results["metrics"]
            row["max_metric_difference"] = max(
                (abs(old[m]["values"][s] - new[m]["values"][s]) for m in old for s in old[m]["values"]
                 if m in new), default=math.inf)
            row["max_weight_difference"] = _weights_difference(before.path / "model.safetensors",
                                                               run.path / "model.safetensors")
            row["files_differ"] = sorted(name for name, ok in same.items() if not ok)
            row["host_differences"] = numerics_profile.explain(before.provenance.get("numerics"),
                                                               run.provenance.get("numerics"))
        row["verdict"] = _verdict(row)
        rows.append(row)
    return sorted(rows, key=lambda r: r["run"])


def _verdict(row: Mapping[str, Any]) -> str:
    """identical / rounding (same within float rounding) / different (beyond that)."""
    if row.get("identical"):
        return "identical"
    if "problem" in row:
        return "different"
    small = (row["max_metric_difference"] <= ROUNDING_METRIC
             and row["max_weight_difference"] <= ROUNDING_WEIGHT)
    return "rounding" if small else "different"


def compare_claims(original: Project, repro: Project) -> list[dict[str, Any]]:
    before = {c["id"]: c for c in _load_json(original.deliver_dir / "claims.json")["claims"]}
    path = repro.deliver_dir / "claims.json"
    after = {c["id"]: c for c in _load_json(path)["claims"]} if path.exists() else {}
    rows = []
    for claim_id, old in sorted(before.items()):
        new = after.get(claim_id)
        if new is None:
            rows.append({"claim": claim_id, "reproduced": False, "problem": "not rebuilt"})
            continue
        difference = abs(new["value"] - old["value"]) if None not in (new["value"], old["value"]) \
            else math.inf
        within = difference <= float(old["tolerance"]) + 1e-12
        same_class = new["classification"] == old["classification"]
        rows.append({"claim": claim_id, "original": old["value"], "reproduced_value": new["value"],
                     "difference": difference, "tolerance": old["tolerance"],
                     "within_tolerance": within, "classification": old["classification"],
                     "reproduced_classification": new["classification"],
                     "classification_unchanged": same_class, "reproduced": within and same_class})
    return rows


def compare_files(original: Project, repro: Project) -> list[dict[str, Any]]:
    rows = []
    for kind in ("figures", "tables"):
        root = original.root / kind
        for path in sorted(root.glob("*/*")) if root.is_dir() else []:
            if path.suffix not in COMPARED_SUFFIXES:
                continue
            rel = path.relative_to(original.root)
            other = repro.root / rel
            rows.append({"file": rel.as_posix(), "identical": other.is_file()
                         and other.read_bytes() == path.read_bytes(),
                         "missing": not other.is_file()})
    return rows


#: Files of the deliverable that a presentation-only rebuild (same runs) must reproduce byte for byte.
EXACT_DELIVERABLE_FILES = ("paper.md", "paper.html", "claims.json", "claims.tex")


def compare_deliverable(original: Project, repro: Project, *, exact: bool) -> list[str]:
    """Problems of the committed deliverable: files that differ from its MANIFEST.json and, when
    the rebuild used the same runs (``exact``), papers that the rebuild does not reproduce."""
    from evidence.deliver.manifest import manifest_problems

    out = original.deliver_dir
    problems = [f"{original.relative(out)}/{p}" for p in manifest_problems(out)]
    for name in EXACT_DELIVERABLE_FILES if exact else ():
        committed, rebuilt = out / name, repro.deliver_dir / name
        if committed.is_file() and (not rebuilt.is_file() or rebuilt.read_bytes() != committed.read_bytes()):
            problems.append(f"{original.relative(committed)} is not what the rebuild writes")
    return problems


def _numeric_environment(env: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of an environment that can change a number: Python, machine, packages, CPU kernels."""
    devices = env.get("devices") or {}
    return {"python": env.get("python"), "machine": env.get("machine"),
            "packages": env.get("packages") or {}, "cpu_capability": devices.get("cpu_capability")}


def compare_environments(original: Project, reproduction: Project | None = None,
                         reused: set[str] | None = None) -> dict[str, Any]:
    """Original runs' environments vs this machine's, field by field.

    "This machine" is what the reproduction's own runs recorded when there are any: they ran
    under their numerics profile, so their CPU capability is the one the profile pinned (this
    process, which imported torch without one, would report the host's native level).
    """
    here = None
    if reproduction is not None:
        for run in RunStore(reproduction.runs_dir).runs():
            if run.run_id not in (reused or set()):  # trained here, not copied from the original
                here = _numeric_environment(run.provenance["environment"])
                break
    if here is None:
        import torch

        here = _numeric_environment({**environment(), "devices": {
            "cpu_capability": torch.backends.cpu.get_cpu_capability()}})
    seen: dict[str, dict[str, Any]] = {}
    for run in RunStore(original.runs_dir).runs():
        fingerprint = _numeric_environment(run.provenance["environment"])
        seen[json.dumps(fingerprint, sort_keys=True)] = fingerprint
    differences = []
    for fingerprint in seen.values():
        for key in ("python", "machine", "cpu_capability"):
            if fingerprint[key] is not None and fingerprint[key] != here[key]:
                differences.append(f"{key}: original {fingerprint[key]}, reproduction {here[key]}")
        for name, version in sorted(fingerprint["packages"].items()):
            if here["packages"].get(name) != version:
                differences.append(f"{name}: original {version}, reproduction {here['packages'].get(name)}")
    return {"same": not differences, "differences": sorted(set(differences)),
            "original_environments": len(seen)}


def report_markdown(result: Mapping[str, Any]) -> str:
    lines = ["# Reproduction report", "", f"**{result['summary']}**", "",
             f"Scope: {result['scope']['mode']}" + (f" ({result['scope']['target']})"
                                                    if result['scope']['target'] else ""), ""]
    env = result["environment"]
    env_note = "same environment as the original runs" if env["same"] else \
        "the environment DIFFERS from the original runs: " + "; ".join(env["differences"])
    lines += [f"Environment: {env_note}.", "", "## Claims", ""]
    for row in result["claims"]:
        mark = "reproduced" if row["reproduced"] else "NOT reproduced"
        if "problem" in row:
            lines.append(f"- {row['claim']}: {mark} ({row['problem']})")
            continue
        lines.append(f"- {row['claim']}: {mark}: {row['original']:.6g} -> {row['reproduced_value']:.6g} "
                     f"(difference {row['difference']:.3g}, tolerance {row['tolerance']:g}); class "
                     f"{row['classification']} -> {row['reproduced_classification']}")
    lines += ["", "## Runs", ""]
    for row in result["runs"]:
        if row.get("reused"):
            lines.append(f"- {row['run']}: reused (integrity-checked, not retrained)")
        elif row["identical"]:
            lines.append(f"- {row['run']}: bit-identical")
        else:
            detail = row.get("problem") or (f"max metric difference {row['max_metric_difference']:.3g}, "
                                            f"max weight difference {row['max_weight_difference']:.3g}")
            hosts = row.get("host_differences") or []
            why = ("; explained by the host: " + "; ".join(hosts)) if hosts else \
                ("; no host difference recorded explains it" if "problem" not in row else "")
            kind = "same within float rounding" if row.get("verdict") == "rounding" else "DIFFERS"
            lines.append(f"- {row['run']}: {kind}: {detail}{why}")
    lines += ["", "## The committed deliverable", ""]
    lines += [f"- {p}" for p in result.get("deliverable", [])] or ["- every file as its MANIFEST.json says"]
    lines += ["", "## Figures and tables", ""]
    for row in result["files"]:
        lines.append(f"- {row['file']}: {'byte-identical' if row['identical'] else 'DIFFERS'}")
    return "\n".join(lines) + "\n"


def reproduce(project: Project, scope: Scope, *, jobs: int = 2) -> dict[str, Any]:
    """Build the workspace, run it, compare, write build/repro/report.{json,md}."""
    if not (project.deliver_dir / "claims.json").is_file():
        raise EvidenceError("there is no committed deliverable to compare with (build/deliver/)",
                            hint="run `doit deliver` and commit runs/, figures/, tables/ and build/deliver/")
    reuse = _runs_to_reuse(project, scope)
    workspace = prepare_workspace(project, project.repro_dir / "work", reuse)
    code = build(workspace, jobs)
    reused_ids = {r.run_id for r in reuse}
    runs = compare_runs(project, workspace, reused_ids)
    claims = compare_claims(project, workspace)
    files = compare_files(project, workspace)
    if scope.mode == "claim":
        claims = [c for c in claims if c["claim"] == scope.target]
    fresh = [r for r in runs if not r["reused"]]
    # byte for byte only when every run was reused: a retrained run has its own timings, which
    # the compute statement cites
    deliverable = compare_deliverable(project, workspace,
                                      exact=scope.mode == "presentation" and not fresh)
    result: dict[str, Any] = {
        "schema_version": 1, "scope": {"mode": scope.mode, "target": scope.target},
        "build_exit_code": code, "runs": runs, "claims": claims, "files": files,
        "deliverable": deliverable, "environment": compare_environments(project, workspace, reused_ids),
    }
    n_claims = sum(c["reproduced"] for c in claims)
    rounding = sum(r.get("verdict") == "rounding" for r in fresh)
    beyond = sum(r.get("verdict") == "different" for r in fresh)
    identical = sum(r["identical"] for r in fresh)
    result["runs_verdict"] = ("reused" if not fresh else "bit-identically" if identical == len(fresh)
                              else "within tolerance" if beyond == 0 else "not")
    summary = (f"{identical}/{len(fresh)} runs bit-identical"
               + (f", {rounding} same within float rounding" if rounding else "")
               + (f", {beyond} different beyond rounding" if beyond else "") + ", "
               f"{n_claims}/{len(claims)} claims reproduced, "
               f"{sum(f['identical'] for f in files)}/{len(files)} figure and table files "
               f"identical" + (f", {len(reused_ids)} runs reused" if reused_ids else ""))
    if deliverable:
        summary += f"; the committed deliverable has {len(deliverable)} problem(s)"
    result["summary"] = summary
    result["reproduced"] = code == 0 and n_claims == len(claims) and not deliverable
    out = project.repro_dir
    write_json_atomic(out / "report.json", _finite(result))
    write_bytes_atomic(out / "report.md", report_markdown(result).encode("utf-8"))
    return result


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
