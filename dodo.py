"""The bundled example: MLP vs CNN on handwritten digits, every number built from runs/.

Thin on purpose: the engine's task builders do the work; this file names the project and the
targets. ``doit list`` shows them; ``doit`` alone trains.
"""

from pathlib import Path

from evidence import deliver, figure_tasks, tasks, verify_tasks
from evidence.project import Project

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = tasks.doit_config(PROJECT, default_tasks=["deliver"])


def task_train():  # type: ignore[no-untyped-def]
    """Train every run that is not already sealed in runs/."""
    return tasks.task_train(PROJECT)


def task_fsck():  # type: ignore[no-untyped-def]
    """Re-hash every sealed run; name each file whose digest differs."""
    return tasks.task_fsck(PROJECT)


def task_verify():  # type: ignore[no-untyped-def]
    """Classify every comparison of comparisons.toml: effect, noise, insufficient evidence or bug."""
    return verify_tasks.task_verify(PROJECT)


def task_figures():  # type: ignore[no-untyped-def]
    """results.json -> source_data.csv -> figure + provenance sidecar, for figures/<name>/."""
    return figure_tasks.task_figures(PROJECT)


def task_tables():  # type: ignore[no-untyped-def]
    """results.json -> source_data.csv -> table.md/.tex + provenance sidecar, for tables/<name>/."""
    return figure_tasks.task_tables(PROJECT)


def task_deliver():  # type: ignore[no-untyped-def]
    """Claims, reconcile, disclosure gate and paper -> build/deliver/."""
    return deliver.task_deliver(PROJECT)
