"""What every task builder shares: DOIT_CONFIG and the two ways engine errors reach doit.

The engine below this package knows nothing of doit; its steps raise
:class:`~evidence.core.errors.EvidenceError`. Here that becomes doit's language:

* bad input found while tasks are *built* (a malformed experiment file, say) becomes doit's
  ``InvalidTask`` (:func:`user_errors`), which doit prints as one ``ERROR:`` line and exits with
  3 before any task runs;
* a step that fails while it *runs* becomes ``TaskFailed`` (:func:`task_action`): one line, the
  task fails, doit exits 1. One decorator instead of a try/except in every action.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any, TypeVar

from doit.exceptions import InvalidTask, TaskFailed

from evidence.core.errors import EvidenceError
from evidence.core.memo import steady
from evidence.core.project import Project

TaskDict = dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])


def doit_config(project: Project, default_tasks: list[str] | None = None) -> dict[str, Any]:
    """DOIT_CONFIG for a project: sqlite3 backend (safe with parallel doit processes)."""
    project.state_dir.mkdir(parents=True, exist_ok=True)
    return {
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


def task_action(step: Callable[..., Any]) -> Callable[..., TaskFailed | None]:
    """doit action around an engine step: an :class:`EvidenceError` fails the task with its one
    line (the error's own ``format()``, with its hint), anything else propagates as a bug."""

    @wraps(step)
    def action(*args: Any) -> TaskFailed | None:
        try:
            step(*args)
        except EvidenceError as error:
            return TaskFailed(error.format())
        return None

    return action

