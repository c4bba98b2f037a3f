"""Code dependencies are derived, not listed: editing an engine module makes exactly the tasks
whose code imports it out of date.

The end-to-end test copies the engine and the bundled example (its sealed runs included) into a
temporary folder, delivers once, then appends a comment to each engine module in turn and asks
doit which tasks would run. The expected set is computed here from the modules' imports (read
with :mod:`ast`, independently of :mod:`evidence.core.codedeps`):

* a figure or table step, the verify report and each deliver step are stale exactly when the
  edited module is in the import closure of the module that does the step's work;
* a train task is stale exactly when a module of the run key changed (the four numerics
  modules, keyed by content: see docs/architecture.md); the disclosure audit and the compute
  ledger read those too;
* tasks that always run (the printed summaries) and group tasks are left out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from test_architecture import ENGINE, MODULES, REPO, ast_imports

from evidence.core import codedeps

EXAMPLE = ("dodo.py", "EVIDENCE.json", "comparisons.toml", "presets.toml", "prices.toml", "README.md",
           "experiments", "trainers", "figures", "tables", "paper", "runs")
NUMERICS = {"evidence.numerics.data", "evidence.numerics.recipe", "evidence.numerics.training",
            "evidence.numerics.stopping"}
ALWAYS_RUN = {"verify:summary", "deliver:summary"}


@cache  # the repository's modules do not change during a test (the edits are to a copy)
def ast_closure(module: str) -> frozenset[str]:
    seen: set[str] = set()
    todo = [module]
    parts = module.split(".")
    todo += [".".join(parts[:i]) for i in range(1, len(parts))]
    while todo:
        current = todo.pop()
        if current in seen or current not in MODULES:
            continue
        seen.add(current)
        for imported in ast_imports(current):
            pieces = imported.split(".")
            todo += [".".join(pieces[:i]) for i in range(1, len(pieces) + 1)]
    return frozenset(seen)


def step_module(task: str) -> str | None:
    if task.startswith(("figures:", "tables:")):
        return "evidence.present.artifacts" if task.endswith("/source_data") else "evidence.present.render"
    if task == "verify:report":
        return "evidence.verify.report"
    if task == "deliver:checklist":
        return "evidence.deliver.checklist"
    if task == "deliver:evidence_page":
        return "evidence.deliver.evidencepage"
    if task.startswith("deliver:"):
        return "evidence.deliver.assemble"
    return None


def expected_stale(tasks: list[str], edited: str) -> set[str]:
    stale = set()
    for task in tasks:
        module = step_module(task)
        if module is not None and edited in ast_closure(module):
            stale.add(task)
        if edited in NUMERICS and (task.startswith("train:") or task in (
                "deliver:disclose", "deliver:compute", "deliver:checklist", "deliver:evidence_page")):
            stale.add(task)
    return stale


def test_step_modules_closures_agree_with_codedeps() -> None:
    for module in ("evidence.present.artifacts", "evidence.present.render", "evidence.verify.report",
                   "evidence.deliver.assemble", "evidence.deliver.checklist",
                   "evidence.deliver.evidencepage"):
        assert set(codedeps.closure(module)) == ast_closure(module), module


def statuses(project: Path, env: dict[str, str]) -> dict[str, str]:
    listed = subprocess.run([sys.executable, "-m", "doit", "list", "--all", "--status"], cwd=project,
                            env=env, capture_output=True, text=True, timeout=600)
    assert listed.returncode == 0, listed.stderr + listed.stdout
    found = {}
    for line in listed.stdout.splitlines():
        status, _, name = line.partition(" ")
        task = name.split()[0] if name else ""
        if status in ("R", "U") and ":" in task:  # subtasks; a group task has no action of its own
            found[task] = status
    return found


@pytest.mark.slow
def test_editing_an_engine_module_makes_exactly_its_importers_stale(tmp_path: Path) -> None:
    engine = tmp_path / "engine"
    shutil.copytree(ENGINE, engine / "evidence", ignore=shutil.ignore_patterns("__pycache__"))
    project = tmp_path / "project"
    project.mkdir()
    for name in EXAMPLE:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, project / name, symlinks=True)
        elif source.is_file():
            shutil.copy2(source, project / name)
    env = {**os.environ, "PYTHONPATH": str(engine), "PYTHONDONTWRITEBYTECODE": "1"}
    delivered = subprocess.run([sys.executable, "-m", "doit", "deliver"], cwd=project, env=env,
                               capture_output=True, text=True, timeout=1200)
    assert delivered.returncode == 0, delivered.stdout[-3000:] + delivered.stderr[-3000:]
    baseline = statuses(project, env)
    assert {t for t, s in baseline.items() if s == "R"} <= ALWAYS_RUN, baseline

    wrong = []
    for module, path in sorted(MODULES.items()):
        copy = engine / path.relative_to(REPO)
        original = copy.read_bytes()
        copy.write_bytes(original + b"\n# an edit that changes no behaviour\n")
        try:
            now = statuses(project, env)
        finally:
            copy.write_bytes(original)
        stale = {t for t, s in now.items() if s == "R"} - ALWAYS_RUN
        want = expected_stale(sorted(now), module) - ALWAYS_RUN
        if stale != want:
            wrong.append(f"{module}: stale {sorted(stale - want)} not expected; "
                         f"expected {sorted(want - stale)} not stale")
    assert not wrong, "\n".join(wrong)
