"""The warm doit (evidence.tasks.warmdoit): a `doit` call served by a fork of a warm server is
the same call, with the same output, exit status and signals, and a changed engine is never
served by a server that imported the old one."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evidence.scale import warm

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not warm.available(), reason="needs fork and Unix sockets")

DODO = '''
import os, sys, time
from pathlib import Path

from evidence.core.project import Project
from evidence.tasks.base import doit_config

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = doit_config(PROJECT, default_tasks=["probe"])


def show():
    print("launch=%s cwd=%s" % (os.environ.get("EVIDENCE_LAUNCH"), os.getcwd()))
    print("marker=%s" % os.environ.get("PROBE_MARKER"))


def fail():
    print("failing on purpose")
    return False


def sleep():
    print("pid=%d" % os.getpid(), flush=True)
    try:
        time.sleep(60)
    except KeyboardInterrupt:
        print("interrupted in the action", flush=True)
        raise


def task_probe():
    return {"actions": [show], "uptodate": [False], "verbosity": 2}


def task_fails():
    return {"actions": [fail], "uptodate": [False], "verbosity": 2}


def task_sleeps():
    return {"actions": [sleep], "uptodate": [False], "verbosity": 2}


def memoise():
    from evidence.core import memo

    source = PROJECT.root / "source.txt"
    source.write_text(os.environ["PROBE_MARKER"], encoding="utf-8")
    os.utime(source, ns=(10**18, 10**18))  # long before the value: not racily clean
    memo.of(PROJECT, "probe").store("marker", [source], os.environ["PROBE_MARKER"], time.time_ns())
    print("launch=%s memoised" % os.environ.get("EVIDENCE_LAUNCH"))


def task_memoise():
    return {"actions": [memoise], "uptodate": [False], "verbosity": 2}
'''


def _doit() -> str:
    return str(Path(sys.executable).parent / "doit")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "dodo.py").write_text(DODO, encoding="utf-8")
    return root


@pytest.fixture
def engine(tmp_path: Path) -> dict[str, str]:
    """An environment whose engine is a private copy (its own server; editable by the test)."""
    copy = tmp_path / "engine"
    shutil.copytree(REPO / "evidence", copy / "evidence",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return {**os.environ, "PYTHONPATH": str(copy), "EVIDENCE_WARM_DOIT": "1",
            "EVIDENCE_WARM_DOIT_IDLE": "30"}


def _call(root: Path, env: dict[str, str], *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_doit(), *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120, **kw)  # type: ignore[call-overload, no-any-return]


def _unaddressed(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "0x…", text)  # a function's address in doit's failure message


def _served_warm(root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Call until a server answers (the first call starts one in the background)."""
    deadline = time.monotonic() + 60
    while True:
        done = _call(root, env, "probe")
        if "launch=warm-doit" in done.stdout or time.monotonic() > deadline:
            return done
        time.sleep(0.3)


def test_a_call_served_warm_is_the_same_call(project: Path, engine: dict[str, str]) -> None:
    cold = _call(project, {**engine, "EVIDENCE_WARM_DOIT": "0", "PROBE_MARKER": "x"}, "probe")
    assert cold.returncode == 0 and "launch=None" in cold.stdout, cold.stdout + cold.stderr
    served = _served_warm(project, engine)
    assert "launch=warm-doit" in served.stdout, served.stdout + served.stderr
    # this call's environment and folder, not the server's
    hot = _call(project, {**engine, "PROBE_MARKER": "x"}, "probe")
    assert hot.returncode == 0
    assert hot.stdout == cold.stdout.replace("launch=None", "launch=warm-doit")
    assert hot.stderr == cold.stderr
    # exit statuses are doit's: a failed task (1), an unknown task (3)
    for args, code in ((("fails",), 1), (("no_such_task",), 3)):
        cold_done = _call(project, {**engine, "EVIDENCE_WARM_DOIT": "0"}, *args)
        hot_done = _call(project, engine, *args)
        assert (cold_done.returncode, hot_done.returncode) == (code, code), hot_done.stdout + hot_done.stderr
        assert _unaddressed(hot_done.stdout) == _unaddressed(cold_done.stdout)
    # another dodo file is never handed over
    other = _call(project.parent, engine, "-f", str(project / "dodo.py"), "probe")
    assert "launch=None" in other.stdout, other.stdout + other.stderr


def test_a_changed_engine_is_never_served_by_the_old_server(project: Path, engine: dict[str, str]) -> None:
    assert "launch=warm-doit" in _served_warm(project, engine).stdout
    edited = Path(engine["PYTHONPATH"]) / "evidence" / "deliver" / "reconcile.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    after = _call(project, engine, "probe")
    assert after.returncode == 0 and "launch=None" in after.stdout, after.stdout + after.stderr
    assert "launch=warm-doit" in _served_warm(project, engine).stdout  # a new server, new code


def _started(proc: subprocess.Popen[str]) -> int:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    while line and not line.startswith("pid="):
        line = proc.stdout.readline()
    assert line.startswith("pid="), line
    return int(line.split("=")[1])


def _gone(pid: int, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as in a terminal (a background suite ignores it)


@pytest.mark.parametrize("warm_on", ["0", "1"])
def test_ctrl_c_reaches_the_action_served_warm_or_not(project: Path, engine: dict[str, str],
                                                       warm_on: str) -> None:
    env = {**engine, "EVIDENCE_WARM_DOIT": warm_on}
    if warm_on == "1":
        assert "launch=warm-doit" in _served_warm(project, env).stdout
    proc = subprocess.Popen([_doit(), "sleeps"], cwd=project, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=_sigint_default)
    pid = _started(proc)
    time.sleep(1.0)  # into the action's sleep, past its print
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)  # closes its pipe
    assert "interrupted in the action" in out, out
    assert proc.returncode != 0
    assert _gone(pid)


def test_killing_the_client_ends_the_call(project: Path, engine: dict[str, str]) -> None:
    assert "launch=warm-doit" in _served_warm(project, engine).stdout
    proc = subprocess.Popen([_doit(), "sleeps"], cwd=project, env=engine, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    pid = _started(proc)
    assert pid != proc.pid  # the action runs in the server's child, not in the client
    proc.kill()
    proc.wait(timeout=30)
    assert proc.stdout is not None
    proc.stdout.close()
    assert _gone(pid), "the call's process outlived its client"


def test_what_an_action_memoised_outlives_a_call_served_warm(project: Path, engine: dict[str, str]) -> None:
    """A warm doit's child ends with os._exit, which runs no exit handler: the memos the call's
    actions stored are written back all the same, as a call's own process writes them at exit."""
    import json

    assert "launch=warm-doit" in _served_warm(project, engine).stdout
    done = _call(project, {**engine, "PROBE_MARKER": "kept"}, "memoise")
    assert done.returncode == 0 and "launch=warm-doit memoised" in done.stdout, done.stdout + done.stderr
    stored = json.loads((project / ".evidence" / "cache" / "memo-probe.json").read_text("utf-8"))
    assert stored["entries"]["marker"]["value"] == "kept"
