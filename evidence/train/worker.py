"""The warm worker: a fork server with torch already imported, one forked child per run.

Why it exists: a run of the bundled example trains in ~0.2 s, but a fresh interpreter pays
about a second to import torch, another to import ``torch._dynamo`` when the first optimizer is
built, and half a second to shut down with torch loaded: for a sweep of small models nearly all
of the wall time was start-up. The worker pays that once. It imports torch, the runner and what
a run imports on its way (:func:`evidence.train.runner.import_run_dependencies`), then waits on
a Unix socket; each request (:mod:`evidence.scale.warm` is the client) forks a child that
becomes the run's process: it takes the client's stdin, stdout and stderr (and the device-slot
locks) over the socket, its environment and working folder, runs
:func:`evidence.train.runner.main`, and ends with ``os._exit`` once the runner has sealed (or
checkpointed) durably. Everything a run does is still in its own process: a run that crashes,
is killed or segfaults takes down only its child, and resume is the runner's, unchanged.

Fork safety: the worker never initialises CUDA and never runs a torch operation (no thread pool
exists to be inherited half-locked); it is one thread, so nothing holds a lock when it forks.
What is fixed at import (the numerics profile's environment, the interpreter, torch, the
engine's code) is the worker's identity: the client derives the socket's name from it, so a
worker never serves a run it was not started for. The worker checks it too: before each fork,
and every few seconds while idle, it stats the files of the engine modules it imported (and
torch's version file); when one changed it retires (removes its socket, answers ``retired``,
exits once its children are done), and the client starts the run some other way.

The protocol, one JSON line each way: the request ``{"argv", "env", "cwd"}`` with the client's
descriptors (``SCM_RIGHTS``); the replies ``{"pid": N}`` then ``{"exit": code}`` (negative for a
signal, as ``subprocess`` reports it), or ``{"retired": why}`` alone. A client that goes away
while its child runs (doit killed) makes the worker send the child SIGTERM: the runner
checkpoints and stops, as under an interactive Ctrl-C. A worker with no child and no request for
``--idle`` seconds removes its socket and exits (and the start lock beside it, unless a client
holds it).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Bytes of a request (JSON: argv, environment, working folder) the worker accepts.
MAX_REQUEST = 1 << 20
#: Descriptors a request may carry: stdin, stdout, stderr and the device-slot locks.
MAX_FDS = 64
#: Seconds between checks of the loaded code while nothing happens.
CHECK_SECONDS = 5.0


def preload() -> None:
    """Import what every run imports, so that no child pays for it (no torch op is run)."""
    from evidence.train import runner

    runner.import_run_dependencies()
    import evidence.experiments.trainers  # noqa: F401


def loaded_files(extra: list[str] | None = None) -> dict[str, tuple[int, int, int]]:
    """``path -> (inode, size, mtime_ns)`` of every file whose content this process holds in
    memory and a request depends on: the engine modules imported so far, and ``extra`` (by
    default torch's version file, rewritten by any install of torch)."""
    if extra is None:
        import torch

        extra = [str(Path(torch.__file__).with_name("version.py"))]
    paths = list(extra)
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if name and (module.__name__ == "evidence" or module.__name__.startswith("evidence.")):
            paths.append(name)
    stamps = {}
    for path in paths:
        with contextlib.suppress(OSError):
            st = os.stat(path)
            stamps[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return stamps


def changed(stamps: dict[str, tuple[int, int, int]]) -> str | None:
    """The first loaded file that is not what was imported (edited, replaced or removed)."""
    for path, stamp in stamps.items():
        try:
            st = os.stat(path)
        except OSError:
            return f"{path} was removed"
        if (st.st_ino, st.st_size, st.st_mtime_ns) != stamp:
            return f"{path} changed"
    return None


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One request: a JSON line and the descriptors sent with its first bytes (closed again if
    the request is incomplete or not JSON)."""
    data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, MAX_FDS)
    try:
        while not data.endswith(b"\n"):
            more = conn.recv(MAX_REQUEST)
            if not more:
                raise ConnectionError("the client went away mid-request")
            data += more
        return json.loads(data), list(fds)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _child(worker: Worker, conn: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: take the client's descriptors, environment and folder, run
    ``worker.serve_request`` on the request, never return."""
    code = 1
    try:
        worker.close_in_child()
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
        code = worker.serve_request(request)
    except SystemExit as stop:  # as the interpreter maps sys.exit's argument to a status
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:  # a forwarded Ctrl-C that the request did not handle itself
        code = 130
    except BaseException:  # the request's own process: report, and exit like an uncaught error would
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def run_runner(worker: Worker, request: dict[str, Any]) -> int:
    """A training worker's request: become the run's process and run the runner."""
    os.environ["EVIDENCE_LAUNCH"] = "warm-worker"
    from evidence.train import runner

    runner.FORKED_UNDER = worker.env
    sys.argv = ["python -m evidence.train.runner", *request["argv"]]
    return runner.main(request["argv"])


class Worker:
    """The accept / fork / reap loop (one thread: safe to fork from).

    It sleeps in ``select`` until a client connects, a client's connection closes, or a child
    ends (SIGCHLD wakes it through :func:`signal.set_wakeup_fd`): no polling, so an exit status
    reaches its client at once and an idle worker costs no CPU.
    """

    def __init__(self, path: str, idle: float, check: float = CHECK_SECONDS,
                 serve: Callable[[Worker, dict[str, Any]], int] = run_runner,
                 stamps: dict[str, tuple[int, int, int]] | None = None) -> None:
        self.path = path
        self.idle = idle
        self.check = check
        self.env = dict(os.environ)  # what torch and the engine were imported under
        self.stamps = loaded_files() if stamps is None else stamps
        self._serve = serve
        self.retired: str | None = None
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.wakeup, self.alarm = socket.socketpair()
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}  # child pid -> its client's connection
        self.last_active = time.monotonic()
        self.bound: int | None = None  # the inode of the socket this worker bound

    def serve_request(self, request: dict[str, Any]) -> int:
        """In a forked child: what this worker does with one request (its exit code)."""
        return self._serve(self, request)

    def serve(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        self.listener.bind(self.path)
        self.bound = os.stat(self.path).st_ino
        self.listener.listen(64)
        for end in (self.wakeup, self.alarm):
            end.setblocking(False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.alarm.fileno(), warn_on_full_buffer=False)
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.selector.register(self.wakeup, selectors.EVENT_READ)
        try:
            while self.children or (not self.retired and self._idle_left() > 0):
                timeout = None if self.children else max(0.0, min(self.check, self._idle_left()))
                for key, _ in self.selector.select(timeout=timeout):
                    if key.fileobj is self.listener:
                        self._accept()
                    elif key.fileobj is self.wakeup:
                        with contextlib.suppress(BlockingIOError):
                            self.wakeup.recv(4096)
                    else:
                        self._client_gone(key.fileobj)  # type: ignore[arg-type]
                self._reap()
                if not self.children and not self.retired:
                    self._check_code()
        finally:
            self._unlink(self.retired or "the worker exited")

    def _idle_left(self) -> float:
        return self.idle - (time.monotonic() - self.last_active)

    def _unlink(self, why: str = "the worker exited") -> None:
        """Stop listening: remove the socket (unless another worker has bound a new one there),
        then answer ``retired`` to every connection still waiting in the backlog (once the path
        is gone no new one can arrive, so no client is left to a reset connection)."""
        if self.listener.fileno() < 0:
            return
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self.bound:
                os.unlink(self.path)
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(self.listener)
        self.listener.setblocking(False)
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                break
            with conn, contextlib.suppress(OSError, ValueError, ConnectionError):
                conn.settimeout(1)
                _, fds = _receive(conn)
                for fd in fds:
                    os.close(fd)
                conn.sendall(json.dumps({"retired": why}).encode() + b"\n")
        self.listener.close()

    def _check_code(self) -> bool:
        """Retire if a file this process imported changed; True while the code is current."""
        if self.retired is None:
            self.retired = changed(self.stamps)
            if self.retired is not None:
                print(f"warm worker {os.getpid()} retires: {self.retired}", file=sys.stderr, flush=True)
                self._unlink(self.retired)  # new clients start a worker with the new code
        return self.retired is None

    def close_in_child(self) -> None:
        """Drop every descriptor of the worker's own (other runs' connections included: a child
        holding one would keep that client from seeing the worker go away)."""
        signal.set_wakeup_fd(-1)
        for conn in self.children.values():
            conn.close()
        for sock in (self.listener, self.wakeup, self.alarm):
            sock.close()
        self.selector.close()

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        self.last_active = time.monotonic()
        try:
            conn.settimeout(10)
            request, fds = _receive(conn)
        except (OSError, ValueError, ConnectionError):
            conn.close()
            return
        if not self._check_code():
            for fd in fds:
                os.close(fd)
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps({"retired": self.retired}).encode() + b"\n")
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            _child(self, conn, request, fds)
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


#: The lock file beside a worker's socket: the client holds it while it starts a worker.
LOCK_SUFFIX = ".lock"


def remove_lock_file(lock: str) -> bool:
    """Remove a worker's start lock file if nobody holds it; True when it is gone.

    Taken without waiting and unlinked while held: a client waiting on it then wins a lock on an
    unlinked file, which filelock sees (no links left) and retries on a new one, so two starters
    never both believe they hold it. One that is held (a worker is being started) stays.
    """
    from filelock import FileLock, Timeout

    held = FileLock(lock, timeout=0)
    try:
        held.acquire()
    except Timeout:
        return False
    except OSError:
        return not os.path.exists(lock)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)
    finally:
        held.release()
    return True


def _detach() -> None:
    """Go on in a forked copy of this process and let the original exit, printing the copy's pid:
    the client that started the worker waits for the original only (its start-up, not the
    worker's life), and the worker, orphaned, is reaped by the system when it exits. Nothing but
    the standard library is imported yet, so this fork is safe."""
    pid = os.fork()
    if pid:
        os.write(1, f"{pid}\n".encode())
        os._exit(0)
    os.dup2(2, 1)  # the log: the starter reads our pid until its pipe closes


def main(argv: list[str] | None = None) -> int:
    """``python -m evidence.train.worker --socket PATH [--idle SECONDS]`` (started by the client)."""
    parser = argparse.ArgumentParser(prog="python -m evidence.train.worker")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--idle", type=float, default=120.0)
    parser.add_argument("--check", type=float, default=CHECK_SECONDS,
                        help="seconds between checks of the loaded code while idle")
    parser.add_argument("--detach", action="store_true",
                        help="print the pid of a forked copy that serves, and exit at once")
    args = parser.parse_args(argv)
    if args.detach:
        _detach()
    preload()
    import gc

    gc.collect()
    gc.freeze()  # what is loaded now is shared with every child: the collector must not touch (copy) it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        Worker(args.socket, args.idle, args.check).serve()
    finally:  # its start lock, unless a client is starting a worker at this path right now
        remove_lock_file(args.socket + LOCK_SUFFIX)
    return 0


if __name__ == "__main__":
    sys.exit(main())
