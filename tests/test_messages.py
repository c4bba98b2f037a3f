"""Messages that send a new user the right way (issue 29, items 11 and 12): an error names the
file the user must edit, not the engine's view of the problem."""

from __future__ import annotations

from pathlib import Path

from conftest import doit

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
