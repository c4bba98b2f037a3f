"""Shared fixtures: a temporary project tree built from a dict, and a doit driver.

Tests use the real engine, the real trainers of the bundled example and real (small) data;
only the sizes are shrunk (two epochs, a few seeds) so a run trains in well under a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Each test project gets its own warm worker; let them go soon after the test, not in two minutes.
os.environ.setdefault("EVIDENCE_WARM_WORKER_IDLE", "10")
# The warm doit (evidence.tasks.warmdoit, opt-in) is on only in its own tests; its servers go a
# minute after their last call.
os.environ.setdefault("EVIDENCE_WARM_DOIT_IDLE", "60")

TINY_EXPERIMENT = """
trainer = "mlp"
seeds = [0, 1]

[data]
dataset = "digits"
split_seed = 0

[config]
epochs = 2
batch_size = 64
lr = 0.1
hidden = 16

[checkpoint]
every_steps = 5
keep = 2

[smoke]
batches = 1

[[variants]]
name = "small"

[[variants]]
name = "wide"
config = { hidden = 32 }
"""

DODO = '''
from pathlib import Path

from evidence.core.project import Project
from evidence.tasks.standard import standard_tasks
from evidence.tasks.base import doit_config

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = doit_config(PROJECT)
globals().update(standard_tasks(PROJECT))
'''


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[..., Path]:
    """Build a project under tmp_path: the example's trainers plus the given files."""

    def make(files: dict[str, str] | None = None, *, name: str = "proj") -> Path:
        root = tmp_path / name
        (root / "trainers").mkdir(parents=True)
        for trainer in (REPO / "trainers").glob("*.py"):
            shutil.copy(trainer, root / "trainers" / trainer.name)
        write_tree(root, {"dodo.py": DODO, "experiments/tiny.toml": TINY_EXPERIMENT,
                          **(files or {})})
        return root

    return make


def doit(root: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run doit in ``root`` as a user would, in a fresh process."""
    env = {**os.environ, "EVIDENCE_PROGRESS": "off"}
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, env=env, text=True,
                          capture_output=True, timeout=timeout)


# Only the train and fsck tasks: what the scale-out tests exercise, and quick for doit to load.
TRAIN_DODO = '''
from pathlib import Path

from evidence.tasks import base as tasks
from evidence.tasks import train as train_tasks
from evidence.core.project import Project

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = tasks.doit_config(PROJECT)


def task_train():
    return train_tasks.task_train(PROJECT)


def task_fsck():
    return train_tasks.task_fsck(PROJECT)
'''
