"""The bundled example: MLP vs CNN on handwritten digits, every number built from runs/.

Thin on purpose: the engine's task builders know the dependencies. `doit list` shows the
targets (train, fsck, figures, tables, verify, deliver); `doit` alone delivers.
"""

from pathlib import Path

from evidence.core.project import Project
from evidence.tasks.base import doit_config
from evidence.tasks.standard import standard_tasks

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = doit_config(PROJECT, default_tasks=["deliver"])
globals().update(standard_tasks(PROJECT))
