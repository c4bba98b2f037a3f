"""Messages that send a new user the right way (issue 29, items 11 and 12): an error names the
file the user must edit, not the engine's view of the problem."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TINY_EXPERIMENT, doit

from evidence.ops.scaffold import init_project


def test_a_renamed_experiment_is_named_by_the_specs_that_still_refer_to_it(tmp_path: Path) -> None:
    root = tmp_path / "p"
    init_project(root, git=False)
    (root / "experiments/main.toml").rename(root / "experiments/renamed.toml")
    for target in ("figures", "verify", "list"):
        done = doit(root, target)
        assert done.returncode == 3, done.stdout + done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR:")]
        assert len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
        error = errors[0]
        # every spec that still says experiment = "main", by its project-relative path
        for spec in ("figures/results/figure.toml", "tables/results/table.toml", "comparisons.toml"):
            assert spec in error, error
        assert "experiments/main.toml" in error and "renamed" in error  # what exists instead
        assert str(root) not in error


@pytest.mark.slow
def test_two_experiments_declaring_the_same_run_share_it(make_project: Callable[..., Path]) -> None:
    """Issue 29, item 12: two experiments that differ only in [checkpoint] declare the same runs
    (identical identity, hence the same key). doit said "Two different tasks can't have a common
    target"; the run is now trained once, and the second experiment's task says whose it is."""
    second = TINY_EXPERIMENT.replace("every_steps = 5", "every_steps = 7")
    root = make_project({"experiments/again.toml": second})
    done = doit(root, "train")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "common target" not in done.stdout + done.stderr
    notes = [line for line in done.stdout.splitlines() if "same run as" in line]
    # experiments are read in name order: again.toml declares the run first
    assert any("train:tiny/wide-s0 is the same run as train:again/wide-s0" in line
               and "experiments/again.toml" in line and "experiments/tiny.toml" in line for line in notes)
    assert len(list((root / "runs").glob("*/manifest.json"))) == 4  # trained once each
    listed = doit(root, "list", "--all").stdout
    assert "train:again/wide-s0" in listed and "train:tiny/wide-s0" in listed
    again = doit(root, "train")
    assert again.returncode == 0 and "same run as" not in again.stdout  # a no-op says nothing
