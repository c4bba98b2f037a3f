"""Visible progress: a bar on a terminal, plain periodic lines in a log.

On a terminal a tqdm bar per run shows step, loss and ETA. When stderr is not a terminal (a
log file, CI, a batch scheduler) a bar would spray carriage returns, so a plain line is printed
every ``interval`` seconds instead. Either way the run's work folder also holds a heartbeat
(``status.json``) that ``evidence status`` reads, so a dead run is noticed without a terminal.
"""

from __future__ import annotations

import os
import time
from typing import Any, TextIO


class ProgressReporter:
    """Reports step/total, epoch and running loss of one run."""

    def __init__(self, name: str, stream: TextIO, *, interval: float = 10.0,
                 tty: bool | None = None) -> None:
        """``tty``: whether the output ends on a terminal, when ``stream`` cannot tell (a run's
        output goes through its log's pipe to the terminal: evidence.train.runlog)."""
        self.name = name
        self.stream = stream
        self.interval = interval
        self.started = time.monotonic()
        self.last_line = self.started
        self.bar: Any = None
        quiet = os.environ.get("EVIDENCE_PROGRESS", "auto") == "off"
        self.enabled = not quiet
        self.tty = self.enabled and (stream.isatty() if tty is None else tty)

    def update(self, step: int, total: int, epoch: int, loss: float) -> None:
        if not self.enabled:
            return
        if self.tty:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=step, desc=self.name, file=self.stream,
                                leave=False, dynamic_ncols=True)
            self.bar.n = step
            self.bar.set_postfix(epoch=epoch, loss=f"{loss:.4f}", refresh=False)
            self.bar.refresh()
            return
        now = time.monotonic()
        if now - self.last_line >= self.interval or step == total:
            rate = step / max(now - self.started, 1e-9)
            eta = (total - step) / rate if rate > 0 else float("inf")
            print(f"{self.name}: step {step}/{total} epoch {epoch} loss {loss:.4f} "
                  f"eta {eta:.0f}s", file=self.stream, flush=True)
            self.last_line = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
