"""The bundled example: MLP vs CNN on handwritten digits, every number built from runs/.

Thin on purpose: the engine's task builders do the work; this file names the project and the
targets. ``doit list`` shows them; ``doit`` alone trains.
"""

from pathlib import Path

from evidence import tasks
from evidence.project import Project

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = tasks.doit_config(PROJECT)


def task_train():  # type: ignore[no-untyped-def]
    """Train every run that is not already sealed in runs/."""
    return tasks.task_train(PROJECT)


def task_fsck():  # type: ignore[no-untyped-def]
    """Re-hash every sealed run; name each file whose digest differs."""
    return tasks.task_fsck(PROJECT)
