"""The standard set of doit tasks of an evidence project, for a one-line dodo.py.

``globals().update(standard_tasks(PROJECT))`` in a dodo.py defines ``task_train``,
``task_fsck``, ``task_figures``, ``task_tables``, ``task_verify`` and ``task_deliver``, each a
thin function with a docstring (doit shows it in ``doit list``) that calls the engine's
builder. A project that wants fewer or other tasks defines its own ``task_*`` functions
with the same builders instead.

When nothing changed since a call that found every task up to date, each creator yields the
tasks recorded in the project's up-to-date index instead (:mod:`evidence.tasks.quick`); the
builders, and the engine modules they import, are then not even imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from evidence.core.project import Project
from evidence.tasks import quick

Builder = Callable[[Project], Any]

#: (task name, "module:builder", whether its targets are tamper-evident, doc)
STANDARD: tuple[tuple[str, str, bool, str], ...] = (
    ("train", "evidence.tasks.train:task_train", False,
     "Train every run that is not already sealed in runs/."),
    ("fsck", "evidence.tasks.train:task_fsck", False,
     "Re-hash every sealed run; name each file whose digest differs."),
    ("figures", "evidence.tasks.artifacts:task_figures", True,
     "results.json -> source_data.csv -> figure + provenance sidecar, for figures/<name>/."),
    ("tables", "evidence.tasks.artifacts:task_tables", True,
     "results.json -> source_data.csv -> table.md/.tex + provenance sidecar, for tables/<name>/."),
    ("verify", "evidence.tasks.verify:task_verify", True,
     "Classify every comparison of comparisons.toml: effect, noise, insufficient evidence or bug."),
    ("deliver", "evidence.tasks.deliver:task_deliver", True,
     "Claims, reconcile, disclosure gate and paper -> build/deliver/."),
)


def builder_of(reference: str, guard: bool) -> Builder:
    """The builder named ``module:function``, with tamper-evident targets if ``guard``."""
    module, name = reference.split(":")
    builder: Builder = getattr(importlib.import_module(module), name)
    if guard:
        from evidence.tasks.base import guarded

        builder = guarded(builder)
    return builder


def standard_tasks(project: Project) -> dict[str, Callable[[], Any]]:
    """``{"task_<name>": creator}`` for every standard task of ``project``."""

    def creator(name: str, reference: str, guard: bool, doc: str) -> Callable[[], Any]:
        def task() -> Any:
            quick.BUILT.add(name)
            recorded = quick.fast_graph(project)
            if recorded is not None:
                return quick.recorded_tasks(recorded, name)
            return builder_of(reference, guard)(project)

        task.__doc__ = doc
        return task

    return {f"task_{entry[0]}": creator(*entry) for entry in STANDARD}
