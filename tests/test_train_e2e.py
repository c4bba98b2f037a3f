"""`doit train` end to end on a temporary project with a tiny real config."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.store.runs import RunStore

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects


def executed(output: str) -> list[str]:
    """Task names doit ran ('.  name') as opposed to skipped as up to date ('-- name')."""
    # With -n 2 a child's output can run into doit's line, so match the marker anywhere.
    return sorted(re.findall(r"(?:^|(?<=[^\s.]))\.  ((?:train|figures|tables|verify|deliver|fsck)\S*)",
                             output, re.M))


def test_train_caches_reruns_exactly_the_affected_runs_and_fsck(
        make_project: Callable[..., Path]) -> None:
    root = make_project()
    first = doit(root, "train")
    assert first.returncode == 0, first.stderr
    assert len(executed(first.stdout)) == 4
    store = RunStore(root / "runs")
    assert len(store.run_ids()) == 4
    run = store.find(expand_all(Project.at(root))[0].key)
    assert run is not None
    results = run.results
    assert results["metrics"]["accuracy"]["direction"] == "higher"
    assert set(results["metrics"]["accuracy"]["values"]) == {"train", "val", "test"}
    assert results["metrics"]["accuracy"]["values"]["test"] > 0.5
    assert [e for e in results["evaluations"] if e["split"] == "test"] == \
        [{"split": "test", "when": "final", "purpose": "report"}]
    provenance = run.provenance
    assert provenance["git"]["commit"] is None  # the temp project is not a git repository
    assert provenance["environment"]["packages"]["torch"]
    assert len(run.metrics_history()) == 2
    assert not (root / ".evidence" / "work" / run.run_id).exists()

    again = doit(root, "train")
    assert again.returncode == 0 and executed(again.stdout) == []

    path = root / "experiments/tiny.toml"
    path.write_text(path.read_text().replace("config = { hidden = 32 }",
                                             "config = { hidden = 24 }"))
    changed = doit(root, "train")
    assert changed.returncode == 0, changed.stderr
    assert executed(changed.stdout) == ["train:tiny/wide-s0", "train:tiny/wide-s1"]
    assert len(store.run_ids()) == 6  # the old runs stay: evidence is never deleted

    assert doit(root, "fsck").returncode == 0
    target = run.path / "results.json"
    target.chmod(0o644)
    target.write_text(target.read_text().replace('"seed": 0', '"seed": 9'))
    check = doit(root, "fsck")
    assert check.returncode == 1
    assert f"{run.run_id}/results.json: digest" in check.stdout
    assert "1 with problems" in check.stdout
    # A run that fails the cheap check is not up to date; train refuses to overwrite it.


def test_bad_experiment_is_one_line_exit_3_and_writes_nothing(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": """
        trainer = "mlp"
        seeds = "0"
        [data]
        dataset = "digits"
        """})
    result = doit(root, "train")
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "tiny.toml: field 'seeds'" in lines[0] and "Traceback" not in result.stderr
    assert lines[0].startswith("ERROR: ")
    assert not (root / "runs").exists()


def test_parallel_training_with_two_processes(make_project: Callable[..., Path]) -> None:
    root = make_project()
    result = doit(root, "-n", "2", "train")
    assert result.returncode == 0, result.stderr
    store = RunStore(root / "runs")
    assert len(store.run_ids()) == 4
    assert store.fsck().ok
    keys = {json.loads((store.root / r / "spec.json").read_text())["key"] for r in store.run_ids()}
    assert keys == {s.key for s in expand_all(Project.at(root))}
