"""`evidence why`: the reason a task would rebuild, in the user's terms."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit

from evidence.ops.why import differences


def test_differences_name_each_changed_leaf() -> None:
    old = {"config": {"lr": 0.1, "hidden": 32}, "seed": 0, "engine_digest": "a" * 64}
    new = {"config": {"lr": 0.1, "hidden": 24, "dropout": 0.2}, "seed": 0, "engine_digest": "b" * 64}
    assert list(differences(old, new)) == [
        "config.dropout: added (0.2)", "config.hidden: 32 -> 24",
        "engine_digest: aaaaaaaaaaaa… -> bbbbbbbbbbbb…"]


def why(root: Path, task: str) -> str:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "why", task], cwd=root,
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_why_a_train_task_would_rebuild(make_project: Callable[..., Path]) -> None:
    root = make_project()
    assert "no sealed run of tiny/wide-s0" in why(root, "train:tiny/wide-s0")
    assert doit(root, "train").returncode == 0
    assert why(root, "train:tiny/wide-s0").startswith("up to date: sealed run runs/")
    path = root / "experiments/tiny.toml"
    path.write_text(path.read_text().replace("config = { hidden = 32 }", "config = { hidden = 24 }"))
    text = why(root, "train:tiny/wide-s0")
    assert "would train: the key changed since runs/" in text
    assert "config.hidden: 32 -> 24" in text
    assert "up to date" in why(root, "train:tiny/small-s0")


@pytest.mark.slow
def test_why_any_other_task_is_what_doit_info_says(make_project: Callable[..., Path]) -> None:
    root = make_project()
    text = why(root, "fsck")
    assert text.startswith("fsck") and "status     : run" in text  # fsck always runs
    assert "uptodate" in text
    unknown = subprocess.run([sys.executable, "-m", "evidence.cli", "why", "figures:nope"], cwd=root,
                             capture_output=True, text=True)
    assert unknown.returncode != 0 and "no task named 'figures:nope'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


@pytest.mark.slow
def test_why_a_group_explains_its_subtasks(make_project: Callable[..., Path]) -> None:
    """`why train` on an up-to-date project says so instead of doit's "status: run ... The task
    has no dependencies"; with one run stale it names that run and why (issue 29, item 13)."""
    root = make_project()
    assert doit(root, "train").returncode == 0
    text = why(root, "train")
    assert "no dependencies" not in text and "status" not in text
    assert text.startswith("train: up to date") and "4 task(s)" in text
    path = root / "experiments/tiny.toml"
    path.write_text(path.read_text().replace("config = { hidden = 32 }", "config = { hidden = 24 }"))
    text = why(root, "train")
    assert "would run 2 of 4" in text
    assert "train:tiny/wide-s0" in text and "config.hidden: 32 -> 24" in text
    assert "train:tiny/small-s0" not in text.split("up to date:")[0]


def test_why_of_no_such_task_is_bad_input(make_project: Callable[..., Path]) -> None:
    root = make_project()
    done = subprocess.run([sys.executable, "-m", "evidence.cli", "why", "nosuch"], cwd=root,
                          capture_output=True, text=True)
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("ERROR: no task named 'nosuch'") and "Traceback" not in done.stderr
