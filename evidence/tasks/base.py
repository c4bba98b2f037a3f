"""What every task builder shares: DOIT_CONFIG and the two ways engine errors reach doit.

The engine below this package knows nothing of doit; its steps raise
:class:`~evidence.core.errors.EvidenceError`. Here that becomes doit's language:

* bad input found while tasks are *built* (a malformed experiment file, say) becomes doit's
  ``InvalidTask`` (:func:`user_errors`), which doit prints as one ``ERROR:`` line and exits with
  3 before any task runs;
* a step that fails while it *runs* becomes ``TaskFailed``: one line, the
  task fails, doit exits 1 (:func:`evidence.tasks.actions.task_action`). One decorator instead
  of a try/except in every action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any, TypeVar

from doit.exceptions import InvalidTask

from evidence.core.errors import EvidenceError
from evidence.core.memo import steady
from evidence.core.project import Project

TaskDict = dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])


def doit_config(project: Project, default_tasks: list[str] | None = None) -> dict[str, Any]:
    """DOIT_CONFIG for a project: sqlite3 backend (safe with parallel doit processes), the
    console reporter that records the up-to-date index after a no-op and the file checker that
    does not stat again what the index just checked (:mod:`evidence.tasks.quick`).

    Called while doit imports dodo.py, before doit reads anything else: the one moment at which
    a ``doit`` call can still be handed whole to a warm server that has the engine imported."""
    from evidence.tasks.quick import index_reporter, indexed_checker
    from evidence.tasks.warmdoit import hand_over

    hand_over(project)  # a warm doit (:mod:`evidence.tasks.warmdoit`) serves the call: never returns
    project.state_dir.mkdir(parents=True, exist_ok=True)
    return {
        "reporter": index_reporter(project),
        "check_file_uptodate": indexed_checker(project),
        "backend": "sqlite3",
        "dep_file": str(project.state_dir / "doit.sqlite3"),
        "default_tasks": default_tasks or ["train"],
        "verbosity": 2,
        "par_type": "process",
    }


def user_errors(builder: F) -> F:
    """Turn engine input errors raised while building tasks into doit's one-line errors."""

    @wraps(builder)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with steady():  # no action runs while doit builds tasks: check each file once
                result = builder(*args, **kwargs)
                if isinstance(result, Iterator):
                    return (task for task in list(result))  # doit wants a generator
                return result
        except EvidenceError as error:
            raise InvalidTask(str(error)) from None

    return wrapper  # type: ignore[return-value]


def guard_outputs(project: Project, task: TaskDict) -> TaskDict:
    """Make a task's targets tamper-evident (:mod:`evidence.core.outputs`).

    Its targets' digests are recorded when its actions succeed, and the task is out of date
    when a target no longer has the recorded digest: an output edited by hand is rebuilt from
    its inputs, never used or shipped as edited.
    """
    from evidence.core.outputs import TargetsIntact, record_outputs
    from evidence.tasks.moot import UnlessInputsChanged

    targets = [str(t) for t in task.get("targets", [])]
    if not targets or not task.get("actions"):
        return task
    return {**task, "actions": [*task["actions"], (record_outputs, [str(project.root), targets])],
            "uptodate": [*task.get("uptodate", []),
                         UnlessInputsChanged(TargetsIntact(project.root, targets))]}


def guarded(builder: Callable[[Project], Any]) -> Callable[[Project], Any]:
    """``builder`` with :func:`guard_outputs` applied to every task it yields."""

    @wraps(builder)
    def wrapper(project: Project) -> Any:
        result = builder(project)
        if isinstance(result, dict):
            return guard_outputs(project, result)
        return (guard_outputs(project, task) for task in result)

    return wrapper
