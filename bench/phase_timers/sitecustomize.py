"""Phase timers for one doit call: put this folder on PYTHONPATH and set EDITLOOP_TIMES=1.

    EDITLOOP_TIMES=1 PYTHONPATH=<engine>:bench/phase_timers python -m doit --reporter json deliver

At exit, one line on stderr: the wall seconds of doit's task loading (every task creator),
status checks, task execution, saving values and its database, and of each memo file written
(``evidence.core.memo.Memo.save``; memos are written when task loading ends and at exit). Used
for bench/results.md's edit-loop notes; not part of the engine.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import time
from typing import Any

if os.environ.get("EDITLOOP_TIMES"):
    START = time.perf_counter()
    TOTALS: dict[str, float] = {}

    def _add(label: str, seconds: float) -> None:
        TOTALS[label] = TOTALS.get(label, 0.0) + seconds

    def _wrap(module: str, owner: str | None, name: str, label: str) -> None:
        found: Any = importlib.import_module(module)
        target = getattr(found, owner) if owner else found
        original = getattr(target, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            begin = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                _add(label, time.perf_counter() - begin)

        setattr(target, name, timed)

    _wrap("doit.loader", None, "load_tasks", "load_tasks")
    _wrap("doit.dependency", "Dependency", "get_status", "get_status")
    _wrap("doit.dependency", "Dependency", "close", "db_close")
    _wrap("doit.task", "Task", "execute", "actions")
    _wrap("doit.task", "Task", "save_extra_values", "save_values")

    from evidence.core import memo as _memo

    _save = _memo.Memo.save

    def _timed_save(self: Any) -> None:
        begin = time.perf_counter()
        try:
            _save(self)
        finally:
            took = time.perf_counter() - begin
            _add("memo_save", took)
            if took > 0.005:
                _add("save:" + self.path.name, took)

    _memo.Memo.save = _timed_save  # type: ignore[method-assign]

    def _report() -> None:
        TOTALS["total_in_process"] = time.perf_counter() - START
        print("EDITLOOP " + " ".join(f"{k}={v:.3f}" for k, v in TOTALS.items()), file=sys.stderr)

    atexit.register(_report)
    atexit.unregister(_memo.save_all)  # memos written at exit are timed (exit handlers run last-in first)
    atexit.register(_memo.save_all)
