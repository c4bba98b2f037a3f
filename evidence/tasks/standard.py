"""The standard set of doit tasks of an evidence project, for a one-line dodo.py.

``globals().update(standard_tasks(PROJECT))`` in a dodo.py defines ``task_train``,
``task_fsck``, ``task_figures``, ``task_tables``, ``task_verify`` and ``task_deliver``, each a
thin function with a docstring (doit shows it in ``doit list``) that calls the engine's
builder. A project that wants fewer or other tasks defines its own ``task_*`` functions
with the same builders instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evidence.core.project import Project
from evidence.tasks import artifacts as figure_tasks
from evidence.tasks import deliver, train
from evidence.tasks import verify as verify_tasks

Builder = Callable[[Project], Any]

STANDARD: tuple[tuple[str, Builder, str], ...] = (
    ("train", train.task_train, "Train every run that is not already sealed in runs/."),
    ("fsck", train.task_fsck, "Re-hash every sealed run; name each file whose digest differs."),
    ("figures", figure_tasks.task_figures,
     "results.json -> source_data.csv -> figure + provenance sidecar, for figures/<name>/."),
    ("tables", figure_tasks.task_tables,
     "results.json -> source_data.csv -> table.md/.tex + provenance sidecar, for tables/<name>/."),
    ("verify", verify_tasks.task_verify,
     "Classify every comparison of comparisons.toml: effect, noise, insufficient evidence or bug."),
    ("deliver", deliver.task_deliver, "Claims, reconcile, disclosure gate and paper -> build/deliver/."),
)


def standard_tasks(project: Project) -> dict[str, Callable[[], Any]]:
    """``{"task_<name>": creator}`` for every standard task of ``project``."""

    def creator(builder: Builder, doc: str) -> Callable[[], Any]:
        def task() -> Any:
            return builder(project)

        task.__doc__ = doc
        return task

    return {f"task_{name}": creator(builder, doc) for name, builder, doc in STANDARD}
