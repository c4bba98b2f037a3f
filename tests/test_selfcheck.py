"""The resume self-check of own loops (evidence.train.selfcheck): where it interrupts, and what it stops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from integration_projects import EXPERIMENT, NO_GENERATOR_LOOP

from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.store.runs import RunStore
from evidence.train.selfcheck import Offer, interruptions


def offers(rows: list[int]) -> list[Offer]:
    return [Offer(i, i + 1, "rng", n) for i, n in enumerate(rows)]


def test_it_interrupts_mid_epoch_before_an_epochs_rows_and_after_them() -> None:
    # the integration's pattern: offer, row + offer at the epoch's end (two batches an epoch)
    assert interruptions(offers([0, 1, 1, 2, 2, 3]), None, 5) == [0, 2, 3]
    # a loop offering after every batch, the epoch's last too, then logging the epoch's row
    assert interruptions(offers([0, 0, 1, 1, 2, 2]), None, 5) == [0, 1, 2]
    # a loop that logs nothing: only the first offer
    assert interruptions(offers([0, 0, 0, 0]), None, 3) == [0]
    # a loop that ended after two offers and logged after the second
    assert interruptions(offers([0, 0]), 1, 2) == [0, 1]


def run_one(root: Path) -> subprocess.CompletedProcess[str]:
    [spec] = expand_all(Project.at(root))
    (root / "spec.json").write_text(json.dumps(spec.to_json()))
    return subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                           "--spec", str(root / "spec.json")], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off"}, timeout=300)


@pytest.mark.slow
def test_dropout_with_a_loader_without_generator_is_stopped_before_the_run(
        make_project: Callable[..., Path]) -> None:
    files = {"experiments/tiny.toml": EXPERIMENT.format(trainer="loop", every_steps=1000, smoke=""),
             "trainers/loop.py": NO_GENERATOR_LOOP}
    root = make_project(files)
    done = run_one(root)
    assert done.returncode == 1, done.stderr
    assert "resume self-check failed: the global random state differs" in done.stderr, done.stderr
    assert "DataLoader without generator=" in done.stderr and "nothing long ran" in done.stderr
    assert not list(RunStore(root / "runs").runs())

    fixed = NO_GENERATOR_LOOP.replace("sampler=order.tolist())",
                                      "sampler=order.tolist(), generator=torch.Generator())")
    root = make_project({**files, "trainers/loop.py": fixed}, name="fixed")
    done = run_one(root)
    assert done.returncode == 0 and "resume self-check passed" in done.stderr, done.stderr
