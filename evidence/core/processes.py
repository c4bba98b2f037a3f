"""Whether a recorded process still runs: status, stop, the teardown gate, leases and `show` ask it."""

from __future__ import annotations

import os
from pathlib import Path


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs. A process of another user (PermissionError) runs too: a run
    recorded by another account on a shared machine must not look dead. A zombie does not: a run
    killed a moment ago stays in the process table until its parent reaps it, and a second
    machine (or `evidence status`) asking then must see it gone, not holding its lease."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Linux's process state (``/proc/<pid>/stat``, the field after the name); elsewhere False."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]
