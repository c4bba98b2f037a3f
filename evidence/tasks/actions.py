"""Engine steps as doit actions: an :class:`EvidenceError` becomes doit's one-line ``TaskFailed``.

Its own module because both the task builders (:mod:`evidence.tasks.base` and the builders)
and the no-op fast path (:mod:`evidence.tasks.quick`, which re-creates recorded actions) need it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from doit.exceptions import TaskFailed

from evidence.core.errors import EvidenceError


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

    action.evidence_step = step  # type: ignore[attr-defined]  # how tasks.quick records it
    return action
