"""The warm doit: a ``doit`` call served by a fork of a process that has already imported the engine.

Why it exists: after one edit (a value, a sentence, a figure spec) most of a call's own work was
importing libraries: matplotlib and pandas for the one figure that is drawn again, scipy for
verify, the reconcile patterns, the provenance exports; together about a second on the edit
loop's machine, paid again on every call. This module pays it once per engine, the way the
training warm worker (:mod:`evidence.train.worker`) pays torch's import once per sweep.

* The **client** is :func:`hand_over`, called by :func:`evidence.tasks.base.doit_config` while
  ``doit`` imports the project's ``dodo.py``. When a warm server for this engine and
  environment listens, it sends the call (argv, environment, working folder, ``sys.path``,
  whether SIGINT is ignored) with this process's stdin, stdout and stderr, forwards SIGINT and
  SIGTERM to the call's process, and ends this process with that process's exit status. When
  none listens, it starts one in the background and returns: this call runs here, as it
  always did, and the next one is served warm.
* The **server** (```python -m evidence.tasks.warmdoit```) imports doit, the engine's task
  builders and delivery steps, and the libraries they use, then serves each call in a forked
  child that runs doit's own ``main`` on the client's arguments (the same fork server as the
  training worker: one thread, no torch, a child per call, the client's descriptors).

What a call does is unchanged: the child is a fresh copy of a process that has imported code and
never loaded a project, so every call builds its task list, reads doit's database and checks its
files exactly as a cold ``doit`` would; only imports are saved. A server serves only the engine
and environment it was started for: the socket's name is a digest of the interpreter, the
engine's files (path, size, mtime), ``PYTHONPATH`` and the environment variables read at import
(locale, matplotlib's, ``HOME``); the server also stats the files it imported before each fork
and retires when one changed (an edited engine, an upgraded library), and the call then runs
cold while a new server starts (once the engine's files have been left alone for
:data:`SETTLE_SECONDS`).

``EVIDENCE_WARM_DOIT=1`` turns it on (see :func:`enabled` for why it is not the default);
``EVIDENCE_WARM_DOIT_IDLE`` is how many seconds a server waits for its next call (default 900).
Calls that must run in this very process are
never handed over: another dodo file or folder (``-f``, ``-d``, ``-k``), the debugger
(``--pdb``), ``doit auto`` and ``strace``, an interpreter run with ``-X`` options, a tracer
or a profiler (coverage, cProfile).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

from evidence.core.hashing import digest_json
from evidence.core.project import Project

#: Seconds a server waits for its next call before it exits (``EVIDENCE_WARM_DOIT_IDLE``).
IDLE_SECONDS = 900.0
#: A server is started only for an engine whose newest file is at least this many seconds old:
#: while someone edits the engine (or a test edits a copy of it), every call has new code, and a
#: server per edit would only compete with the calls for the processor.
SETTLE_SECONDS = 10.0
#: The value of ``EVIDENCE_LAUNCH`` in a call served warm (such a call never hands over again).
LAUNCHED = "warm-doit"
#: doit commands that must run in the calling process (they watch files or trace it).
LOCAL_COMMANDS = frozenset({"auto", "strace", "tabcompletion"})
#: doit options that change which dodo file is loaded or where it runs, or read the terminal
#: (a forked call is not in the terminal's foreground process group: it may write there, and
#: reading would stop it).
LOCATION_OPTIONS = frozenset({"-f", "--file", "-d", "--dir", "-k", "--seek-file", "--pdb"})
#: Environment variables that shape what is imported (or how), besides ``PYTHON*``.
IMPORT_ENV_PREFIXES = ("PYTHON", "MPL", "LC_", "LANG", "OMP_", "MKL_", "OPENBLAS_")
IMPORT_ENV_NAMES = frozenset({"HOME", "TZ", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"})


def enabled() -> bool:
    """``EVIDENCE_WARM_DOIT=1`` (opt-in) and a platform that can fork and pass descriptors.

    Opt-in because a handed-over call's processes (doit, its -n workers, a run's subprocess) are
    the server's descendants, not the caller's: a signal to the caller's process group, a closed
    terminal or a cluster job's cgroup does not reach them directly (the server ends the call
    when its client goes away, but later than a process group kill would), and a server started
    outside a job's cgroup would do the job's work outside its limits."""
    from evidence.scale.warm import available

    setting = os.environ.get("EVIDENCE_WARM_DOIT", "0").strip().lower()
    return setting in {"1", "true", "yes", "on"} and available()


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("EVIDENCE_WARM_DOIT_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


def _is_doit_cli(argv: list[str]) -> bool:
    """Whether this process is doit's own command line (not doit driven from another program)."""
    return bool(argv) and (os.path.basename(argv[0]) == "doit"
                           or argv[0].replace(os.sep, "/").endswith("doit/__main__.py"))


def eligible(argv: list[str]) -> str | None:
    """Why this call must run in this process, or None when it may be handed over."""
    if os.environ.get("EVIDENCE_LAUNCH") == LAUNCHED:
        return "already served warm"
    if not _is_doit_cli(argv):
        return "not doit's command line"
    if argv[1:2] and argv[1] in LOCAL_COMMANDS:
        return f"`doit {argv[1]}` runs in its own process"
    if any(token.split("=", 1)[0] in LOCATION_OPTIONS for token in argv[1:]):
        return "another dodo file or folder"
    if sys._xoptions or sys.gettrace() is not None or sys.getprofile() is not None:
        return "a traced, profiled or -X interpreter"
    if threading.current_thread() is not threading.main_thread():
        return "not the main thread"
    return None


def engine_root() -> Path:
    """The folder holding the ``evidence`` package this process imported (a clone's own, say)."""
    return Path(__file__).resolve().parents[2]


def server_key() -> tuple[str, float]:
    """What a server is fixed to (interpreter, engine files, import path, import-time variables),
    and the newest engine file's age in seconds."""
    from evidence.scale.warm import code_stamps

    engine = engine_root() / "evidence"
    code = code_stamps(engine)
    newest = max((stamp[2] for stamp in code), default=0)
    env = {k: v for k, v in os.environ.items()
           if k.startswith(IMPORT_ENV_PREFIXES) or k in IMPORT_ENV_NAMES}
    key = digest_json({"python": sys.executable, "engine": str(engine), "code": code,
                       "env": dict(sorted(env.items()))})[:20]
    return key, time.time() - newest / 1e9


def socket_path(key: str) -> Path | None:
    """The socket of the server for ``key``: one per engine and environment, shared by projects."""
    from evidence.scale.warm import MAX_SOCKET_PATH, runtime_dir

    folder = runtime_dir()
    if folder is None:
        return None
    path = folder / f"doit-{key}.sock"
    return path if len(str(path)) <= MAX_SOCKET_PATH else None


def hand_over(project: Project) -> None:
    """Serve this ``doit`` call warm and end this process with its exit status; return (and let
    the call run here) when it cannot be served warm, after starting a server for the next.

    A no-op (the up-to-date index is fresh: :mod:`evidence.tasks.quick`) is not handed over: it
    imports nothing heavy, so a hand-over would only add a second process. Otherwise the call's
    process is told the index was not fresh here, so that it does not check it again."""
    if not enabled() or eligible(sys.argv) is not None:
        return
    from evidence.scale.warm import _connect
    from evidence.tasks.quick import fast_graph

    if fast_graph(project) is not None:
        return
    key, age = server_key()
    path = socket_path(key)
    if path is None:
        return
    conn = _connect(path)
    settled = age >= SETTLE_SECONDS  # an engine being edited would start a server per edit
    if conn is None:
        if settled:
            start_server(path)
        return
    code = _serve_remotely(conn, project)
    if code is None:  # retired (its code changed) or gone before forking: nothing ran
        if settled:
            start_server(path)
        return
    _exit_like(code)


def _serve_remotely(conn: socket.socket, project: Project) -> int | None:
    """Send this call; forward signals while it runs; its exit code (None: nothing ran)."""
    from evidence.scale.warm import _fd, _lines

    sigint_ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    request = {"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd(), "path": sys.path,
               "sigint_ignored": sigint_ignored, "index_not_fresh": str(project.root)}
    with conn:
        sys.stdout.flush()
        sys.stderr.flush()
        stdin_fd = _fd(sys.stdin, -1)
        opened = stdin_fd < 0
        if opened:
            stdin_fd = os.open(os.devnull, os.O_RDONLY)
        try:
            socket.send_fds(conn, [json.dumps(request).encode() + b"\n"],
                            [stdin_fd, _fd(sys.stdout, 1), _fd(sys.stderr, 2)])
        except OSError:
            return None
        finally:
            if opened:
                os.close(stdin_fd)
        replies = _lines(conn)
        try:
            first = next(replies, None)
        except ValueError:
            return None
        if not first or "pid" not in first:
            return None
        pid = int(first["pid"])
        with _forwarding(pid, sigint_ignored), contextlib.suppress(ValueError):
            for reply in replies:
                if "exit" in reply:
                    return int(reply["exit"])
        return 1  # the server went away mid-call: its child was ended with it


@contextlib.contextmanager
def _forwarding(pid: int, sigint_ignored: bool) -> Any:
    """SIGINT (Ctrl-C) and SIGTERM sent to this process go to the call's process, which handles
    them as doit would have here (a KeyboardInterrupt for SIGINT)."""

    def forward(signum: int, _frame: Any) -> None:
        # a Ctrl-C reaches the call's whole process group, as a terminal's does (doit's -n
        # workers, a run's own process); SIGTERM reaches doit alone, as `kill` would have
        if signum == signal.SIGINT:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signum)
                return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    previous = {}
    for handled in (signal.SIGTERM,) if sigint_ignored else (signal.SIGINT, signal.SIGTERM):
        previous[handled] = signal.signal(handled, forward)
    try:
        yield
    finally:
        for handled, handler in previous.items():
            signal.signal(handled, handler)


def _exit_like(code: int) -> None:
    """End this process as the call's process ended: its exit code, or the same signal."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    if code < 0:
        signum = -code
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        code = 128 + signum
    os._exit(code)


def start_server(path: Path) -> None:
    """Start a server for ``path`` in the background (its own session; nothing here waits for
    its imports). One starter at a time; a start already under way is left to finish."""
    from filelock import FileLock, Timeout

    from evidence.train.worker import LOCK_SUFFIX

    lock = FileLock(str(path) + LOCK_SUFFIX, timeout=0)
    try:
        lock.acquire()
    except (Timeout, OSError):
        return
    try:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(engine_root()), env.get("PYTHONPATH")) if p)
        env.pop("EVIDENCE_LAUNCH", None)
        with open(path.with_suffix(".log"), "ab") as log, contextlib.suppress(OSError,
                                                                              subprocess.SubprocessError):
            subprocess.run([sys.executable, "-m", "evidence.tasks.warmdoit", "--socket", str(path),
                            "--idle", str(idle_seconds()), "--detach"],
                           env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                           start_new_session=True, cwd=str(path.parent), timeout=30, check=False)
    finally:
        lock.release()


# -- the server ------------------------------------------------------------------------------

#: What a call imports on its way (doit, the builders, the delivery steps and their libraries).
PRELOAD = (
    "doit.doit_cmd", "doit.cmd_run", "doit.cmd_list", "doit.cmd_info", "doit.runner",
    "doit.dependency", "doit.reporter", "doit.loader", "doit.task", "doit.action",
    "evidence.tasks.standard", "evidence.tasks.train", "evidence.tasks.artifacts",
    "evidence.tasks.verify", "evidence.tasks.deliver", "evidence.tasks.checklist",
    "evidence.tasks.quick", "evidence.tasks.moot", "evidence.tasks.info",
    "evidence.store.survey", "evidence.core.outputs", "evidence.core.upindex",
    "evidence.present.render", "evidence.present.plotting", "evidence.present.tables",
    "evidence.verify.report", "evidence.verify.classify", "evidence.verify.stats",
    "evidence.deliver.assemble", "evidence.deliver.claims", "evidence.deliver.reconcile",
    "evidence.deliver.disclose", "evidence.deliver.checklist", "evidence.deliver.paper",
    "evidence.deliver.latex", "evidence.deliver.ledger", "evidence.deliver.manifest",
    "evidence.deliver.provexport", "evidence.deliver.publish", "evidence.deliver.evidencepage",
    "evidence.scale.dispatch", "evidence.scale.pull", "evidence.scale.warm",
    "matplotlib.pyplot", "pandas", "scipy.stats", "scipy.optimize", "scipy.special",
    "prov.model", "rocrate.rocrate",
)


def preload() -> list[str]:
    """Import :data:`PRELOAD` (a module that cannot be imported here is left to the call); the
    files whose change must retire the server: the top-level packages' own ``__init__`` files
    and the folders that hold installed distributions."""
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    from evidence.core import provenance

    provenance.environment()  # installed versions, read once here: every sidecar records them
    tops = {name.split(".")[0] for name in PRELOAD} - {"evidence"}
    files = [str(getattr(sys.modules[t], "__file__", "")) for t in sorted(tops)
             if t in sys.modules and getattr(sys.modules[t], "__file__", None)]
    # an install, upgrade or removal of any package adds or removes a *.dist-info folder there
    return files + [entry for entry in sys.path if entry and os.path.isdir(entry)
                    and any(name.endswith(".dist-info") for name in _names(entry))]


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def run_doit(_worker: Any, request: dict[str, Any]) -> NoReturn:
    """In the forked child: doit's ``main`` on the client's arguments, as in the client."""
    os.environ["EVIDENCE_LAUNCH"] = LAUNCHED
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # its own process group, which a forwarded Ctrl-C reaches whole
    # doit keeps the sys.stdout it found at import (``doit run``'s default output file): write
    # through those very objects, now on the client's descriptors, buffered as a terminal or a
    # pipe there would make them
    if sys.__stdout__ is not None and sys.__stderr__ is not None and sys.__stdin__ is not None:
        sys.__stdout__.reconfigure(line_buffering=os.isatty(1))
        sys.stdout, sys.stderr, sys.stdin = sys.__stdout__, sys.__stderr__, sys.__stdin__
    sys.path[:] = request["path"]
    sys.argv = list(request["argv"])
    if request.get("index_not_fresh"):  # the client just found it so: the full path, at once
        from evidence.tasks import quick

        quick.note_not_fresh(Path(request["index_not_fresh"]))
    signal.signal(signal.SIGINT, signal.SIG_IGN if request.get("sigint_ignored")
                  else signal.default_int_handler)
    from doit.doit_cmd import DoitMain

    from evidence.core import memo

    try:
        code = DoitMain().run(sys.argv[1:])
    finally:
        # the child ends with os._exit, which runs no exit handler: write back what the actions
        # memoised here, as a call's own process does at exit (memo.save_all is registered
        # there); without it every value an action stored (an export's fragments, the digests
        # of the outputs it wrote) was lost with the child, and the next call computed it again
        memo.save_all()
    raise SystemExit(code)  # as doit's own main: `forget` returns None


def main(argv: list[str] | None = None) -> int:
    """``python -m evidence.tasks.warmdoit --socket PATH [--idle SECONDS] [--detach]``."""
    import argparse

    from evidence.train import worker

    parser = argparse.ArgumentParser(prog="python -m evidence.tasks.warmdoit")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--idle", type=float, default=IDLE_SECONDS)
    parser.add_argument("--check", type=float, default=worker.CHECK_SECONDS)
    parser.add_argument("--detach", action="store_true")
    args = parser.parse_args(argv)
    if args.detach:
        worker._detach()
    libraries = preload()
    import gc

    gc.collect()
    gc.freeze()  # shared with every child: the collector must not touch (copy) it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        worker.Worker(args.socket, args.idle, args.check, serve=run_doit,
                      stamps=worker.loaded_files(extra=libraries)).serve()
    finally:
        worker.remove_lock_file(args.socket + worker.LOCK_SUFFIX)
        log = Path(args.socket).with_suffix(".log")
        with contextlib.suppress(OSError):
            if log.stat().st_size == 0:
                log.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
