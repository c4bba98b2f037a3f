"""Every run's own log: the stdout and stderr of its process, bounded, kept after the run.

Why: a library's progress bar made one 14-second run 1.7 MB of doit output, and a run that
crashed left nothing to read afterwards. While a run trains, its process's descriptors 1 and 2
go through a pipe to a reader thread that appends everything to ``.evidence/logs/<run_id>.log``
(one file per run, every attempt appended, capped at :data:`MAX_BYTES`: past the cap only the
last :data:`TAIL_BYTES` are kept, written when the run ends) and echoes it to the terminal,
except inside :meth:`RunLog.quiet` (an own loop's ``train(ctx)``): there the output goes to the
log only, and its last lines are shown when the loop is done, with the whole traceback when
it failed.
"""

from __future__ import annotations

import collections
import contextlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from evidence.core.errors import EvidenceError

#: Bytes of one run's log kept from its start; beyond, only the tail is kept.
MAX_BYTES = 4 << 20
#: Bytes of the end of the output always kept (written when the log was capped).
TAIL_BYTES = 256 << 10
#: Lines of a quiet section shown on the terminal after it (all of them up to a traceback).
SHOWN_LINES = 8
#: The in-band switch between echoing and quiet (a NUL never appears in text output).
_QUIET, _LOUD = b"\0evidence:quiet\0", b"\0evidence:loud\0"


class RunLog:
    """Tee the process's stdout and stderr into ``path`` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.echo = True
        self.terminal = False
        self.written = 0
        self.dropped = 0
        self.tail: collections.deque[bytes] = collections.deque()
        self.tail_bytes = 0
        self.quiet_lines: collections.deque[str] = collections.deque(maxlen=200)
        self._switched = threading.Event()
        self._saved: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._line_buffered = False

    def __enter__(self) -> RunLog:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._flush()
        self.terminal = os.isatty(2)  # what the run's output ends on (a progress bar or lines)
        self._saved = (os.dup(1), os.dup(2))
        read, write = os.pipe()
        self._file = open(self.path, "ab")  # closed by the reader thread
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._file.write(f"==> attempt started {stamp} (pid {os.getpid()})\n".encode())
        self._thread = threading.Thread(target=self._pump, args=(read,), daemon=True)
        self._thread.start()
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        # Descriptor 1 is a pipe now, so Python would block-buffer stdout while stderr stays
        # line-buffered: a loop's prints would reach the log after the warnings that followed them
        # (and out of the tail shown). Line by line, as on a terminal, keeps their order.
        self._line_buffered = _line_buffering(True)
        return self

    def __exit__(self, kind: object, error: BaseException | None, tb: object) -> None:
        self._flush()
        _line_buffering(self._line_buffered)
        assert self._saved is not None
        os.dup2(self._saved[0], 1)  # the pipe's last write ends: the reader sees its end
        os.dup2(self._saved[1], 2)
        if self._thread is not None:
            self._thread.join(timeout=10)  # a child process may still hold the pipe: do not hang
        for fd in self._saved:  # only now: the reader echoes through them to its last byte
            os.close(fd)
        if error is not None and not isinstance(error, EvidenceError | KeyboardInterrupt):
            with open(self.path, "a", encoding="utf-8") as log:  # a crash: the runner shows it too
                log.write("".join(traceback.format_exception(error)))

    @contextlib.contextmanager
    def quiet(self, show: bool = True) -> Iterator[None]:
        """Output goes to the log only; afterwards its last lines (a traceback whole) are shown
        (with ``show`` False only when it failed)."""
        self._switch(_QUIET)
        failed: BaseException | None = None
        try:
            yield
        except BaseException as error:
            failed = error
            if isinstance(error, Exception) and not isinstance(error, EvidenceError):
                traceback.print_exc()  # into the log, and shown below with the lines before it
            raise
        finally:
            self._switch(_LOUD)
            if show or failed is not None:
                self._show(failed)
            self.quiet_lines.clear()

    def _switch(self, marker: bytes) -> None:
        self._flush()
        self._switched.clear()
        os.write(1, marker)
        self._switched.wait(timeout=5)

    def _show(self, failed: BaseException | None) -> None:
        lines = list(self.quiet_lines)
        self.quiet_lines.clear()
        if failed is not None and not isinstance(failed, Exception):
            return  # a signal's stop or a self-check's probe end: nothing to show
        if failed is not None:
            start = max((i for i, line in enumerate(lines) if line.startswith("Traceback")), default=None)
            shown = lines[max(0, start - SHOWN_LINES):] if start is not None else lines[-SHOWN_LINES * 4:]
        else:
            shown = lines[-SHOWN_LINES:]
        if shown:
            sys.stderr.write(f"--- the loop's output, last {len(shown)} lines (all of it: {self.path}) ---\n")
            sys.stderr.write("".join(f"  | {line}\n" for line in shown))
            sys.stderr.flush()

    @staticmethod
    def _flush() -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()

    # -- the reader thread ------------------------------------------------------------------

    def _pump(self, read: int) -> None:
        partial = b""
        carry = b""
        try:
            while True:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                data = carry + chunk
                carry = b""
                for marker, echo in ((_QUIET, False), (_LOUD, True)):
                    while marker in data:
                        before, _, data = data.partition(marker)
                        partial = self._emit(before, partial)
                        self.echo = echo
                        self._switched.set()
                keep = _unfinished_marker(data)
                if keep:
                    data, carry = data[:-keep], data[-keep:]
                partial = self._emit(data, partial)
            self._emit(carry, partial)
        finally:
            os.close(read)
            self._close()

    def _emit(self, data: bytes, partial: bytes) -> bytes:
        """Write ``data`` to the log (and the terminal when echoing); the unfinished line back."""
        if not data:
            return partial
        if self.echo and self._saved is not None:
            with contextlib.suppress(OSError):
                os.write(self._saved[1], data)
        room = max(0, MAX_BYTES - self.written)
        if room:
            self._file.write(data[:room])
            self._file.flush()
            self.written += min(room, len(data))
        if len(data) > room:
            self.dropped += len(data) - room
            self.tail.append(data[room:])
            self.tail_bytes += len(data) - room
            while self.tail_bytes - len(self.tail[0]) >= TAIL_BYTES:
                self.tail_bytes -= len(self.tail.popleft())
        if self.echo:
            return b""
        text = partial + data
        *lines, rest = text.split(b"\n")
        for line in lines:
            self.quiet_lines.append(line.decode("utf-8", "replace").split("\r")[-1])
        return rest[-4096:]

    def _close(self) -> None:
        if self.dropped:
            tail = b"".join(self.tail)[-TAIL_BYTES:]
            skipped = self.dropped - len(tail)
            self._file.write(f"\n[... {skipped} bytes of output left out: the log keeps its first "
                             f"{MAX_BYTES} and last {len(tail)} bytes ...]\n".encode() + tail)
        self._file.close()


def _line_buffering(on: bool) -> bool:
    """Set ``sys.stdout``'s line buffering; what it was before (False where it cannot be set)."""
    before = bool(getattr(sys.stdout, "line_buffering", False))
    with contextlib.suppress(Exception):
        sys.stdout.reconfigure(line_buffering=on)  # type: ignore[union-attr]
    return before


def _unfinished_marker(data: bytes) -> int:
    """How many bytes at the end of ``data`` may be the start of a marker split across reads."""
    for marker in (_QUIET, _LOUD):
        for size in range(len(marker) - 1, 0, -1):
            if data.endswith(marker[:size]):
                return size
    return 0
