"""One stat per file per status check: what a check saw, handed to the next question about it.

Why it exists: deciding whether one guarded doit task is up to date asks about the same files
several times. The guard's :class:`~evidence.tasks.moot.UnlessInputsChanged` stats every file
dependency, :class:`~evidence.core.outputs.TargetsIntact` stats every target and its digest memo
stats it again, and then doit's own checker stats every target (``exists``) and every file
dependency (``info``). At 10,000 runs that was a quarter of a million repeated ``stat`` calls in
the first no-op after a build.

Nothing is written while one task's status is being decided (doit runs no action in between),
so the first answer is the answer. Two rules keep that true:

* :func:`looking` opens a scope for the duration of one check; inside it :func:`stat` answers a
  path it has seen from what it saw. The scope is closed before the check returns, so no task's
  action ever gets a remembered answer.
* What the scope saw is then kept only for its *owner* (doit's status-check call, identified by
  its frame object, held so that it cannot be reused): :func:`recall` answers the owner's later
  questions in the same status check, and nobody else's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: path -> its stat (None: it did not exist) in the open scope; None when no scope is open
_open: dict[str, os.stat_result | None] | None = None
#: (owner, what its last closed scope saw)
_kept: tuple[Any, dict[str, os.stat_result | None]] = (None, {})


@contextmanager
def looking(owner: Any) -> Iterator[None]:
    """Remember every :func:`stat` made inside, for :func:`recall` by ``owner`` afterwards.

    Nested scopes share the outer one. A new owner forgets what the previous one saw.
    """
    global _open, _kept
    if _open is not None:
        yield
        return
    seen: dict[str, os.stat_result | None] = _kept[1] if _kept[0] is owner else {}
    _open = seen
    try:
        yield
    finally:
        _open = None
        _kept = (owner, seen)


def stat(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.stat(path)``, answered from the open scope when it has seen ``path``."""
    seen = _open
    if seen is None:
        return os.stat(path)
    key = os.fspath(path)
    if key in seen:
        found = seen[key]
        if found is None:
            raise FileNotFoundError(2, "No such file or directory", key)
        return found
    try:
        found = seen[key] = os.stat(key)
    except FileNotFoundError:
        seen[key] = None
        raise
    return found


def is_file(path: str | os.PathLike[str]) -> bool:
    """``Path.is_file()`` through :func:`stat`."""
    import stat as st

    try:
        return st.S_ISREG(stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


#: what :func:`recall` returns for a path the owner's scope did not see
UNSEEN = object()


def recall(owner: Any, path: str | os.PathLike[str]) -> Any:
    """What ``owner``'s last scope saw of ``path`` (a stat, None if missing), else :data:`UNSEEN`."""
    if _kept[0] is not owner or owner is None:
        return UNSEEN
    return _kept[1].get(os.fspath(path), UNSEEN)


def forget() -> None:
    """Drop what was kept (tests; a long-lived process between doit calls)."""
    global _kept
    _kept = (None, {})
