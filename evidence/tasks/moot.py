"""Expensive uptodate checks, skipped when doit will run the task anyway.

Why it exists: doit evaluates every ``uptodate`` entry of a task before it looks at the task's
file dependencies, and never stops early. Some of ours are the dearest work of a call that is
not a no-op: :class:`~evidence.tasks.deliver.DeliverableIntact` checks every file of
``build/deliver/`` against its manifest (a quarter of a second at 1,000 runs), the git state
behind the disclosure of uncommitted inputs spawns git, and every guarded task checks its
targets against their records. When one of the task's file dependencies changed since its last
success doit runs the task whatever those checks say; computing them is pure overhead (it was
most of the overhead of an incremental build beyond plain doit's).

:class:`UnlessInputsChanged` wraps such a check (a doit :class:`~doit.dependency.UptodateCalculator`,
the extension point doit offers for checks that need its database). It answers "run" without
calling the check when a file dependency *certainly* changed, by doit's own rule
(:class:`doit.dependency.MD5Checker`: the mtime moved and the size or the MD5 differs, or no
state was saved for it, or the set of file dependencies is not the one saved). When that cannot
be told (another checker's states), or when a file dependency is missing (doit reports it, naming
the file, instead of running the task) the check runs as before: skipping is an optimisation
that can only ever agree with doit.

A check that saves a value with the task's result (the store fingerprint, the uncommitted
inputs) still saves it: :class:`SavedValueCheck` computes it once the task has run instead.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from typing import Any

from doit.dependency import UptodateCalculator, get_file_md5

from evidence.core import lookonce


class SavedValueCheck:
    """An uptodate check that compares one value with the one saved at the task's last success.

    Subclasses name the value (:attr:`key`) and compute it (:meth:`current`); the value is
    saved with the task's result whether or not the comparison was made.
    """

    key = "value"

    def current(self) -> Any:
        raise NotImplementedError

    def __call__(self, task: Any, values: Mapping[str, Any]) -> bool:
        now = self.current()
        task.value_savers.append(lambda: {self.key: now})
        return bool(values.get(self.key) == now)

    def save_later(self, task: Any) -> None:
        """Save the value, computed after the task has run (its check was not needed)."""
        task.value_savers.append(lambda: {self.key: self.current()})


def certainly_changed(get_value: Callable[[str, str], Any], task: Any) -> bool:
    """Whether doit's MD5 checker will find a file dependency of ``task`` changed.

    False whenever a file dependency is missing: doit then reports it (an error naming the
    file) rather than running the task, and that must stay what happens.
    """
    file_deps = task.file_dep
    if not file_deps:
        return False
    previous = get_value(task.name, "deps:")
    changed = bool(previous) and set(previous) != set(file_deps)  # another set than at the last success
    for dep in file_deps:
        try:
            st = lookonce.stat(dep)
        except OSError:
            return False
        if changed:
            continue  # known: only whether every dependency exists is left to see
        state = get_value(task.name, dep)
        if state is None:
            changed = True  # never recorded (the task never succeeded with it): doit runs it
        elif not (isinstance(state, list | tuple) and len(state) == 3):
            return False  # not the MD5 checker's state: let the check decide
        elif st.st_mtime != state[0] and (st.st_size != state[1] or _md5(dep) != state[2]):
            changed = True
    return changed


def _md5(path: str) -> str | None:
    try:
        return str(get_file_md5(path))
    except OSError:
        return None


class UnlessInputsChanged(UptodateCalculator):
    """``check``, unless a file dependency of the task certainly changed (see the module
    docstring). ``check`` takes ``(task, values)`` or nothing."""

    #: doit asks ``inspect.signature`` of every uptodate callable on every status check, which
    #: for a callable object resolves ``__call__`` each time (0.38 s profiled over the 2,000 guarded tasks
    #: of a 10,000-run project); stating it once answers at once.
    __signature__ = inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                       for name in ("task", "values")])

    def __init__(self, check: Callable[..., bool]) -> None:
        super().__init__()
        self.check = check
        self.with_task = len(inspect.signature(check).parameters) == 2

    def __call__(self, task: Any, values: Mapping[str, Any]) -> bool:
        # what this check stats, doit's checker asks again in the same status check (its
        # ``exists`` of every target, ``info`` of every file dependency): the caller's frame is
        # that status check, and the answers are kept for it alone (evidence.core.lookonce)
        with lookonce.looking(sys._getframe(1)):
            if self.get_val is not None and certainly_changed(self.get_val, task):
                if isinstance(self.check, SavedValueCheck):
                    self.check.save_later(task)
                return False
            return bool(self.check(task, values) if self.with_task else self.check())
