"""The client of the warm worker (:mod:`evidence.train.worker`): a run without interpreter start-up.

:func:`run_warm` hands one runner invocation to a worker whose identity matches this run (the
numerics profile's environment, the interpreter, torch, the engine's code; see :func:`worker_key`),
starting one if there is none. It sends the request with this process's stdin, stdout and
stderr (the run prints where a subprocess would) and the device-slot locks, forwards SIGINT
and SIGTERM to the run's process, and returns its exit code as ``subprocess.call`` would
(negative for a signal). It returns None when the worker cannot be used (no ``fork`` or Unix
sockets here, the worker failed to start, or it retired because its code changed under it):
nothing ran, and the caller starts a process as before.

Nothing here imports torch: this runs in the doit process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evidence.core.hashing import digest_json
from evidence.core.project import Project
from evidence.train.worker import LOCK_SUFFIX, remove_lock_file

#: Seconds a worker waits for its next run before it exits (``EVIDENCE_WARM_WORKER_IDLE``).
IDLE_SECONDS = 120.0
#: Seconds to wait for a new worker to import torch and listen.
START_SECONDS = 120.0
#: AF_UNIX socket paths longer than this are not portable (108 bytes on Linux, 104 on macOS).
MAX_SOCKET_PATH = 100


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("EVIDENCE_WARM_WORKER_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


def available() -> bool:
    """fork and Unix sockets with descriptor passing; not on macOS unless asked for
    (``EVIDENCE_WARM_WORKER=1``): forking a process that loaded Apple's frameworks is unsafe."""
    if sys.platform == "darwin" and os.environ.get("EVIDENCE_WARM_WORKER", "").strip() != "1":
        return False
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


def enabled(setting: bool = True) -> bool:
    """Whether a single-process local run goes to the warm worker: the setting
    (:attr:`evidence.core.settings.Settings.warm_worker`: ``[dispatch] warm_worker`` in
    evidence.toml, ``EVIDENCE_WARM_WORKER`` over it) and a platform that can fork."""
    return bool(setting) and available()


def torch_stamp() -> list[Any]:
    """Which torch a worker would import, without importing it: the path and stat of its version
    file (any install of torch rewrites it). Finding the package reads no module."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return []
    version = Path(spec.origin).with_name("version.py")
    try:
        st = version.stat()
    except OSError:
        return [str(version)]
    return [str(version), st.st_ino, st.st_size, st.st_mtime_ns]


def worker_key(profile_env: Mapping[str, str]) -> str:
    """What a worker is fixed to when it imports torch and the engine: the interpreter, torch,
    the numerics profile's variables (read once, at import), the import path and the engine's
    code (by each file's stat: an edit starts a new worker; the old one retires, see
    :mod:`evidence.train.worker`)."""
    code = code_stamps(Path(__file__).resolve().parents[1])
    return digest_json({"python": sys.executable, "torch": torch_stamp(),
                        "profile": dict(sorted(profile_env.items())),
                        "path": os.environ.get("PYTHONPATH", ""), "code": code})[:20]


def code_stamps(engine: Path) -> list[list[Any]]:
    """``[path, size, mtime_ns]`` of every Python file of the engine package at ``engine``: what
    a server that imported it is fixed to (the training worker's and the warm doit's keys)."""
    code: list[list[Any]] = []
    for folder, dirs, files in os.walk(engine):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                with contextlib.suppress(OSError):
                    st = os.stat(os.path.join(folder, name))
                    code.append([os.path.join(folder, name), st.st_size, st.st_mtime_ns])
    return code


def runtime_dir() -> Path | None:
    """This user's private folder for worker sockets (``$XDG_RUNTIME_DIR`` or the temp folder,
    ``evidence-<uid>``, mode 0700), or None if it cannot be made private.

    Not the project's folder: a socket there breaks copying the project (``shutil.copytree``,
    ``cp -r`` and rsync refuse it) and may not fit a socket path's ~100 bytes. Private, because a
    run's request carries its environment and open files: a socket someone else could have put
    at a guessable path must never be connected to.
    """
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    folder = Path(base) / f"evidence-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder


def socket_path(project: Project, key: str) -> Path | None:
    """The socket of this project's worker for ``key`` (one worker per project and identity)."""
    folder = runtime_dir()
    if folder is None:
        return None
    name = digest_json({"project": str(project.root), "key": key})[:24]
    path = folder / f"{name}.sock"
    return path if len(str(path)) <= MAX_SOCKET_PATH else None


def _connect(path: Path) -> socket.socket | None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    return conn


def _start(project: Project, path: Path, profile_env: Mapping[str, str]) -> socket.socket | None:
    """Connect to the worker at ``path``, starting it first if none answers (one starter at a
    time: parallel doit workers wait on a lock and then connect to the same worker)."""
    from filelock import FileLock

    conn = _connect(path)
    if conn is not None:
        return conn
    with FileLock(str(path) + LOCK_SUFFIX):
        conn = _connect(path)
        if conn is not None:
            return conn
        sweep_stale_locks(path.parent, keep=path)
        log = project.state_dir / "worker" / "worker.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        pid = _spawn(project, path, profile_env, log)
        deadline = time.monotonic() + START_SECONDS
        while pid is not None and time.monotonic() < deadline and _alive(pid):
            conn = _connect(path)
            if conn is not None:
                return conn
            time.sleep(0.02)
    print(f"the warm worker did not start (see {project.relative(log)}); starting the run's own "
          "process instead", file=sys.stderr, flush=True)
    return None


def sweep_stale_locks(folder: Path, keep: Path) -> list[Path]:
    """Remove the start locks of workers that are gone (no socket beside them, nobody holding
    them): a worker killed before it could remove its own leaves one; the removed paths."""
    removed = []
    for lock in sorted(folder.glob(f"*.sock{LOCK_SUFFIX}")):
        socket_file = lock.with_name(lock.name.removesuffix(LOCK_SUFFIX))
        if socket_file == keep or socket_file.exists():
            continue
        if remove_lock_file(str(lock)):
            removed.append(lock)
    return removed


def _spawn(project: Project, path: Path, profile_env: Mapping[str, str], log: Path) -> int | None:
    """Start a worker detached (its own session, a grandchild of this process: nothing here
    waits for it, and its exit leaves no zombie behind); its pid, or None."""
    with open(log, "ab") as out:
        try:
            started = subprocess.run(
                [sys.executable, "-m", "evidence.train.worker", "--socket", str(path),
                 "--idle", str(idle_seconds()), "--detach"],
                env={**os.environ, **profile_env}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=out, start_new_session=True, cwd=str(project.root), timeout=START_SECONDS,
                check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
    try:
        return int(started.stdout)
    except ValueError:
        return None


def _alive(pid: int) -> bool:
    """Whether our process ``pid`` still runs (a pid now someone else's counts as gone)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _lines(conn: socket.socket) -> Any:
    """The worker's replies, one JSON object per line."""
    buffer = b""
    while True:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)
        try:
            chunk = conn.recv(4096)
        except InterruptedError:
            continue
        except OSError:  # reset: the worker is gone, as at the end of the stream
            return
        if not chunk:
            return
        buffer += chunk


def run_warm(project: Project, argv: list[str], env: Mapping[str, str], profile_env: Mapping[str, str],
             pass_fds: list[int], outcome: Path, label: str = "") -> int | None:
    """Run ``python -m evidence.train.runner <argv>`` in a child of the warm worker; its exit code."""
    path = socket_path(project, worker_key(profile_env))
    if path is None:
        return None
    conn = _start(project, path, profile_env)
    if conn is None:
        return None
    request = {"argv": argv, "env": {**os.environ, **env, "EVIDENCE_LAUNCH_T0": repr(time.time())},
               "cwd": str(project.root)}
    with conn, contextlib.ExitStack() as cleanup:
        sys.stdout.flush()
        sys.stderr.flush()
        if _has_fd(sys.stdin):
            stdin = sys.stdin.fileno()
        else:
            stdin = os.open(os.devnull, os.O_RDONLY)
            cleanup.callback(os.close, stdin)
        try:
            socket.send_fds(conn, [json.dumps(request).encode() + b"\n"],
                            [stdin, _fd(sys.stdout, 1), _fd(sys.stderr, 2), *pass_fds])
        except OSError:
            return None
        replies = _lines(conn)
        try:
            first = next(replies, None)
        except ValueError:  # not a reply of a worker
            return None
        if not first or "pid" not in first:  # gone before forking, or retired: nothing ran
            return None
        pid = int(first["pid"])
        with _forwarding_signals(pid, label or "a run"), contextlib.suppress(ValueError):
            for reply in replies:
                if "exit" in reply:
                    return int(reply["exit"])
        return _after_worker_died(pid, outcome)


def _has_fd(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def _fd(stream: Any, default: int) -> int:
    """The descriptor behind ``stream`` (doit may have replaced sys.stdout with a capture)."""
    return stream.fileno() if _has_fd(stream) else default


@contextlib.contextmanager
def _forwarding_signals(pid: int, label: str) -> Any:
    """SIGINT and SIGTERM sent to this process go to the run's process (which checkpoints).

    The run is a child of the warm worker, not of doit: it is not in doit's process group, and
    outlives doit by the moment it takes to checkpoint. So the first signal also says so, with
    its pid (killing doit with SIGKILL says nothing, and the worker stops the run all the same)."""
    told: list[int] = []

    def forward(signum: int, _frame: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)
        if not told:
            told.append(signum)
            with contextlib.suppress(OSError, ValueError):
                print(f"{label} (pid {pid}, forked from the warm worker, so not in doit's process "
                      f"group) was sent {signal.Signals(signum).name} too: it writes a checkpoint and "
                      "stops; `evidence status` shows it while it does, `evidence stop` stops runs "
                      "still going, and `doit train` resumes it", file=sys.stderr, flush=True)

    previous = {}
    try:
        for handled in (signal.SIGINT, signal.SIGTERM):
            previous[handled] = signal.signal(handled, forward)
    except ValueError:  # not the main thread: signals stay as they were
        pass
    try:
        yield
    finally:
        for handled, handler in previous.items():
            signal.signal(handled, handler)


def _after_worker_died(pid: int, outcome: Path) -> int:
    """The worker went away before reporting: wait for the run's process, then read what the
    runner recorded (a run that left no record failed)."""
    while _alive(pid):
        time.sleep(0.1)
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return int(json.loads(outcome.read_text("utf-8"))["exit_code"])
    return 1
