"""This project's build: `doit deliver` trains, plots, verifies, audits and renders the paper.

Thin on purpose: the engine's task builders know the dependencies. `doit list` shows the
targets (train, fsck, figures, tables, verify, deliver); `doit` alone delivers. To add or drop
a target, define your own `task_*` functions with the builders in evidence.tasks.base,
evidence.tasks.train, evidence.tasks.artifacts, evidence.tasks.verify and evidence.tasks.deliver.
"""

from pathlib import Path

from evidence.core.project import Project
from evidence.tasks.base import doit_config
from evidence.tasks.standard import standard_tasks

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = doit_config(PROJECT, default_tasks=["deliver"])
globals().update(standard_tasks(PROJECT))
