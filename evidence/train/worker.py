"""The warm worker: a fork server with torch already imported, one forked child per run.

Why it exists: a run of the bundled example trains in ~0.2 s, but a fresh interpreter pays
about a second to import torch, another to import ``torch._dynamo`` when the first optimizer is
built, and half a second to shut down with torch loaded: for a sweep of small models nearly all
of the wall time was start-up. The worker pays that once. It imports torch, the runner and
dynamo, then waits on a Unix socket; each request (:mod:`evidence.scale.warm` is the client)
forks a child that becomes the run's process: it takes the client's stdin, stdout and stderr
(and the device-slot locks) over the socket, its environment and working folder, runs
:func:`evidence.train.runner.main`, and ends with ``os._exit`` once the runner has sealed (or
checkpointed) durably. Everything a run does is still in its own process: a run that crashes,
is killed or segfaults takes down only its child, and resume is the runner's, unchanged.

Fork safety: the worker never initialises CUDA and never runs a torch operation (no thread pool
exists to be inherited half-locked); it is one thread, so nothing holds a lock when it forks.
What is fixed at import (the numerics profile's environment, the interpreter, the engine's
code) is the worker's identity: the client derives the socket's name from it, so a worker never
serves a run it was not started for, and an engine edit starts a new one.

A client that goes away while its child runs (doit killed) makes the worker send the child
SIGTERM: the runner checkpoints and stops, as under an interactive Ctrl-C. A worker with no
child and no request for ``--idle`` seconds removes its socket and exits.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import signal
import socket
import sys
import time
import traceback
from typing import Any

#: Bytes of a request (JSON: argv, environment, working folder) the worker accepts.
MAX_REQUEST = 1 << 20
#: Descriptors a request may carry: stdin, stdout, stderr and the device-slot locks.
MAX_FDS = 64


def preload() -> None:
    """Import what every run imports, so that no child pays for it (no torch op is run)."""
    import torch
    import torch._dynamo  # imported by the first optimizer otherwise: ~1 s per run
    import torch.optim

    import evidence.experiments.trainers
    import evidence.numerics.training
    import evidence.train.runner  # noqa: F401

    del torch


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One request: a JSON line and the descriptors sent with its first bytes."""
    data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, MAX_FDS)
    while not data.endswith(b"\n"):
        more = conn.recv(MAX_REQUEST)
        if not more:
            raise ConnectionError("the client went away mid-request")
        data += more
    return json.loads(data), list(fds)


def _child(request: dict[str, Any], fds: list[int], listener: socket.socket, conn: socket.socket) -> None:
    """In the forked child: become the run's process, run the runner, never return."""
    code = 1
    try:
        listener.close()
        conn.close()
        for handled in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(handled, signal.SIG_DFL)
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds[:3]:
            if fd > 2:
                os.close(fd)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115  (the process's own descriptors)
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        os.environ["EVIDENCE_LAUNCH"] = "warm-worker"
        from evidence.train import runner

        sys.argv = ["python -m evidence.train.runner", *request["argv"]]
        code = runner.main(request["argv"])
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # the run's own process: report, and exit like an uncaught error would
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


class Worker:
    """The accept / fork / reap loop (one thread: safe to fork from)."""

    def __init__(self, path: str, idle: float) -> None:
        self.path = path
        self.idle = idle
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}  # child pid -> its client's connection
        self.last_active = time.monotonic()

    def serve(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        self.listener.bind(self.path)
        self.listener.listen(64)
        self.selector.register(self.listener, selectors.EVENT_READ)
        try:
            while self.children or time.monotonic() - self.last_active < self.idle:
                for key, _ in self.selector.select(timeout=0.05):
                    if key.fileobj is self.listener:
                        self._accept()
                    else:
                        self._client_gone(key.fileobj)  # type: ignore[arg-type]
                self._reap()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        self.last_active = time.monotonic()
        try:
            conn.settimeout(10)
            request, fds = _receive(conn)
        except (OSError, ValueError, ConnectionError):
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            _child(request, fds, self.listener, conn)
        for fd in fds:
            os.close(fd)
        conn.settimeout(None)
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        self.children[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ)

    def _client_gone(self, conn: socket.socket) -> None:
        """A connection with a running child became readable: its client ended or died."""
        with contextlib.suppress(OSError):
            if conn.recv(1):
                return
        for pid, owner in self.children.items():
            if owner is conn:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)  # the runner checkpoints and stops
        self.selector.unregister(conn)

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            self.last_active = time.monotonic()
            if conn is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps({"exit": code}).encode() + b"\n")
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(conn)
            conn.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m evidence.train.worker --socket PATH [--idle SECONDS]`` (started by the client)."""
    parser = argparse.ArgumentParser(prog="python -m evidence.train.worker")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--idle", type=float, default=120.0)
    args = parser.parse_args(argv)
    preload()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    Worker(args.socket, args.idle).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
