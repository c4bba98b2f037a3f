"""This project's build: `doit deliver` trains, plots, verifies, audits and renders the paper.

Thin on purpose: the engine's task builders know the dependencies. `doit list` shows the
targets (train, fsck, figures, tables, verify, deliver); `doit` alone delivers. To add or drop
a target, define your own `task_*` functions with the builders in evidence.tasks,
evidence.figure_tasks, evidence.verify_tasks and evidence.deliver.
"""

from pathlib import Path

from evidence.project import Project
from evidence.tasks import doit_config
from evidence.taskset import standard_tasks

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = doit_config(PROJECT, default_tasks=["deliver"])
globals().update(standard_tasks(PROJECT))
