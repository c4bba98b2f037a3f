"""Whether a recorded process still runs: status, stop, the teardown gate, leases and `show` ask it."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists. A process of another user (PermissionError) exists too: a run
    recorded by another account on a shared machine is still running, and must not look dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
