"""The warm worker (evidence.train.worker, evidence.scale.warm): runs forked from a process with
torch imported are the same runs, bit for bit, and each keeps its own crash and signal isolation;
a worker serves only the code and the numerics profile it imported."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, TINY_EXPERIMENT, doit
from test_resume import RESUME_EXPERIMENT, SEALED_FILES, sealed_bytes, wait_for

from evidence.core.errors import BadInputError
from evidence.core.hashing import write_json_atomic
from evidence.core.project import Project
from evidence.core.settings import load_settings
from evidence.experiments.spec import expand_all
from evidence.numerics import profile as numerics_profile
from evidence.scale import warm
from evidence.scale.dispatch import run_arguments
from evidence.store.runs import RunStore

pytestmark = pytest.mark.skipif(not warm.available(), reason="needs fork and Unix sockets")
slow = pytest.mark.slow


def workers(root: Path) -> set[int]:
    """Pids of the warm workers serving ``root`` (started in it; forked children are runs)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().split(b"\0")
                cwd = os.readlink(entry / "cwd")
                parent = (entry / "stat").read_text().split(")")[-1].split()[1]
                parent_cmd = (Path("/proc") / parent / "cmdline").read_bytes()
            except OSError:
                continue
            if (b"evidence.train.worker" in cmd and cwd == str(root.resolve())
                    and b"evidence.train.worker" not in parent_cmd):
                found.add(int(entry.name))
    return found


def provenance(root: Path, key: str) -> dict[str, object]:
    run = RunStore(root / "runs").find(key)
    assert run is not None
    return dict(json.loads((run.path / "provenance.json").read_text()))


@slow
@pytest.mark.parametrize("threads", [1, 2])
def test_a_forked_run_is_bit_identical_to_a_fresh_process(make_project: Callable[..., Path],
                                                          threads: int) -> None:
    """Two threads as well: the worker imported torch under OMP_NUM_THREADS=2 and ran no torch
    operation, so the child's own thread pool starts clean (no hang, the same bytes)."""
    root = make_project({"experiments/tiny.toml": f"threads = {threads}\n" + TINY_EXPERIMENT})
    spec = next(s for s in expand_all(Project.at(root)) if s.task_name == "tiny/small-s0")
    warm_run = doit(root, "train:tiny/small-s0")
    assert warm_run.returncode == 0, warm_run.stdout + warm_run.stderr
    forked = sealed_bytes(root, spec)
    assert provenance(root, spec.key)["launch"]["how"] == "warm-worker"  # type: ignore[index]
    subprocess.run(["chmod", "-R", "u+w", str(root / "runs")], check=True)
    subprocess.run(["rm", "-rf", str(root / "runs")], check=True)
    env = {**os.environ, "EVIDENCE_PROGRESS": "off", "EVIDENCE_WARM_WORKER": "0"}
    fresh = subprocess.run([sys.executable, "-m", "doit", "train:tiny/small-s0"], cwd=root, env=env,
                           capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    assert provenance(root, spec.key)["launch"]["how"] == "process"  # type: ignore[index]
    assert sealed_bytes(root, spec) == forked
    assert set(forked) == set(SEALED_FILES)


def _start_training(root: Path) -> tuple[subprocess.Popen[str], Path]:
    [spec] = expand_all(Project.at(root))
    status = root / ".evidence" / "work" / spec.key[:16] / "status.json"
    folder = root / ".evidence" / "work" / spec.key[:16] / "checkpoints"
    process = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=root,
                               env={**os.environ, "EVIDENCE_PROGRESS": "off"}, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for(lambda: status.exists() and folder.is_dir() and any(folder.glob("ckpt-*.pt.blake3")), process)
    return process, status


@slow
def test_a_killed_run_fails_alone_and_resumes_through_the_same_worker(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    process, status = _start_training(root)
    before = workers(root)
    assert before, "the run should have been forked from a warm worker"
    os.kill(json.loads(status.read_text())["pid"], signal.SIGKILL)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "killed by signal 9" in out + err
    again = doit(root, "train")
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stderr
    assert workers(root) == before  # the worker outlived its child


@slow
def test_a_client_that_dies_stops_its_run_which_then_resumes(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    process, status = _start_training(root)
    process.kill()  # doit dies without a word: the worker tells the run to checkpoint and stop
    process.communicate(timeout=60)
    deadline = time.monotonic() + 60
    while json.loads(status.read_text()).get("state") not in ("interrupted",) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert json.loads(status.read_text())["state"] == "interrupted"
    again = doit(root, "train")
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stderr


@slow
def test_sigterm_to_the_client_checkpoints_the_run_which_then_resumes(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    process, status = _start_training(root)
    assert workers(root), "the run should have been forked from a warm worker"
    os.kill(process.pid, signal.SIGTERM)  # doit, not the run: the client forwards it
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1 and "INTERRUPTED by a signal" in out + err
    assert json.loads(status.read_text())["state"] == "interrupted"
    again = doit(root, "train")
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stderr


@slow
def test_an_idle_worker_exits_and_removes_its_socket(tmp_path: Path) -> None:
    path = tmp_path / "w.sock"
    worker = subprocess.Popen([sys.executable, "-m", "evidence.train.worker", "--socket", str(path),
                               "--idle", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(path.exists, worker, timeout=120)  # type: ignore[arg-type]
    assert worker.wait(timeout=60) == 0
    assert not path.exists()


def test_the_worker_is_keyed_and_its_socket_private(tmp_path: Path) -> None:
    profile = {"OMP_NUM_THREADS": "1"}
    key = warm.worker_key(profile)
    assert key == warm.worker_key(profile)
    assert key != warm.worker_key({"OMP_NUM_THREADS": "2"})
    path = warm.socket_path(Project.at(tmp_path / ("x" * 120)), key)
    assert path is not None and len(str(path)) <= warm.MAX_SOCKET_PATH
    assert path.parent.stat().st_mode & 0o077 == 0  # private to this user


def test_the_key_names_the_torch_a_worker_would_import() -> None:
    import torch

    stamp = warm.torch_stamp()
    assert stamp[0] == str(Path(torch.__file__).with_name("version.py"))
    assert len(stamp) == 4  # path, inode, size, mtime: a reinstall of torch starts a new worker


def test_the_setting_and_its_environment_override_are_validated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project.at(tmp_path)
    monkeypatch.delenv("EVIDENCE_WARM_WORKER", raising=False)
    assert load_settings(project).warm_worker
    (tmp_path / "evidence.toml").write_text("[dispatch]\nwarm_worker = false\n")
    assert not load_settings(project).warm_worker
    monkeypatch.setenv("EVIDENCE_WARM_WORKER", "on")  # the environment wins for one invocation
    assert load_settings(project).warm_worker
    monkeypatch.setenv("EVIDENCE_WARM_WORKER", "0")
    assert not load_settings(project).warm_worker and not warm.enabled(load_settings(project).warm_worker)
    monkeypatch.setenv("EVIDENCE_WARM_WORKER", "maybe")
    with pytest.raises(BadInputError, match="EVIDENCE_WARM_WORKER"):
        load_settings(project)
    (tmp_path / "evidence.toml").write_text("[dispatch]\nwarm_worker = \"no\"\n")
    monkeypatch.delenv("EVIDENCE_WARM_WORKER")
    with pytest.raises(BadInputError, match="warm_worker"):
        load_settings(project)


@slow
def test_preloading_starts_no_thread_and_no_cuda() -> None:
    """What makes forking safe: after the worker's imports the process runs exactly the threads
    ``import torch`` started (no thread pool of a torch operation) and CUDA is not initialised."""
    check = ("import os, torch\n"
             "before = len(os.listdir('/proc/self/task'))\n"
             "from evidence.train import worker\n"
             "worker.preload()\n"
             "assert len(os.listdir('/proc/self/task')) == before, 'a thread was started'\n"
             "assert not torch.cuda.is_initialized()\n")
    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc")
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _start_worker(path: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """A worker in the socket's folder (``-m`` imports from the working folder first)."""
    worker = subprocess.Popen([sys.executable, "-m", "evidence.train.worker", "--socket", str(path),
                               "--idle", "60", *args], env=env, text=True, cwd=path.parent,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wait_for(path.exists, worker, timeout=120)
    return worker


def _ask(path: Path, request: dict[str, object]) -> list[dict[str, object]]:
    """Send one request (with this process's stdio) and read the worker's replies to the end."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(path))
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        data = b""
        while chunk := conn.recv(4096):
            data += chunk
    return [json.loads(line) for line in data.splitlines()]


def _engine_copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the engine to edit, and an environment that imports it."""
    engine = tmp_path / "engine"
    shutil.copytree(REPO / "evidence", engine / "evidence",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return engine, {**os.environ, "PYTHONPATH": str(engine)}


@slow
def test_an_engine_edit_retires_the_worker_at_the_next_request(tmp_path: Path) -> None:
    engine, env = _engine_copy(tmp_path)
    path = tmp_path / "w.sock"
    worker = _start_worker(path, env, "--check", "3600")  # only a request looks
    assert _ask(path, {"argv": ["--help"], "env": dict(env), "cwd": str(tmp_path)})[0]["pid"]
    runner = engine / "evidence" / "train" / "runner.py"
    runner.write_text(runner.read_text() + "\n# edited\n")
    [reply] = _ask(path, {"argv": ["--help"], "env": dict(env), "cwd": str(tmp_path)})
    assert "runner.py changed" in str(reply["retired"])  # nothing was forked
    out, _ = worker.communicate(timeout=30)
    assert worker.returncode == 0 and "retires" in out
    assert not path.exists()


@slow
def test_an_idle_worker_retires_when_its_code_changes(tmp_path: Path) -> None:
    engine, env = _engine_copy(tmp_path)
    path = tmp_path / "w.sock"
    worker = _start_worker(path, env, "--check", "0.1")
    (engine / "evidence" / "core" / "hashing.py").unlink()
    out, _ = worker.communicate(timeout=30)  # long before its idle minute
    assert worker.returncode == 0 and "hashing.py was removed" in out
    assert not path.exists()


@slow
def test_a_forked_run_never_re_executes_itself(make_project: Callable[..., Path],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    """A worker whose torch was imported without the run's numerics profile (here: a worker
    asked for by the wrong key) fails the run; it does not exec a fresh interpreter."""
    root = make_project()
    spec = next(s for s in expand_all(Project.at(root)) if s.task_name == "tiny/small-s0")
    profile_env = numerics_profile.environment(spec.identity["numerics"])
    assert profile_env, "the tiny experiment runs under the portable profile"
    for name in profile_env:
        monkeypatch.delenv(name, raising=False)
    project = Project.at(root)
    spec_path, outcome = project.state_dir / "spec.json", project.state_dir / "outcome.json"
    write_json_atomic(spec_path, spec.to_json())
    code = warm.run_warm(project, run_arguments(project, spec_path, outcome, False),
                         {**profile_env, "EVIDENCE_PROGRESS": "off"}, {}, [], outcome)
    err = capfd.readouterr().err
    assert code == 1, err
    assert "the warm worker imported torch without the run's numerics profile" in err
    assert RunStore(root / "runs").find(spec.key) is None


@slow
def test_a_worker_leaves_no_lock_file_behind_and_stale_ones_are_swept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29, item 17: every worker left its ``.sock.lock`` in the runtime folder for good
    (83 after an hour of a few projects). The worker removes it when it exits; a start-up sweeps
    those of workers that are gone."""
    import tempfile

    runtime = Path(tempfile.mkdtemp(prefix="ev", dir="/tmp"))  # short: a socket path has ~100 bytes
    try:
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        monkeypatch.setenv("EVIDENCE_WARM_WORKER_IDLE", "1")
        project = Project.at(tmp_path / "proj")
        project.root.mkdir()
        folder = warm.runtime_dir()
        assert folder is not None
        stale = folder / "0123456789abcdef01234567.sock.lock"  # a worker long gone left it
        stale.write_text("")
        path = warm.socket_path(project, warm.worker_key({}))
        assert path is not None
        conn = warm._start(project, path, {})
        assert conn is not None
        conn.close()
        assert not stale.exists()  # swept when the worker was started
        deadline = time.monotonic() + 60
        while path.exists() and time.monotonic() < deadline:  # idle for a second, then it exits
            time.sleep(0.05)
        assert not path.exists()
        while any(folder.iterdir()) and time.monotonic() < deadline:  # the lock goes after the socket
            time.sleep(0.05)
        assert sorted(p.name for p in folder.iterdir()) == []
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


LONG_EXPERIMENT = RESUME_EXPERIMENT.replace("epochs = 6", "epochs = 400")


def evidence_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", *args], cwd=root, capture_output=True,
                          text=True, timeout=300)


@slow
def test_status_shows_each_runs_pid_and_stop_interrupts_it(make_project: Callable[..., Path]) -> None:
    """Issue 29, item 16: `evidence status` names the pid of each run in progress, and
    `evidence stop PATTERN` stops it cleanly (SIGTERM: a checkpoint, then exit as interrupted)."""
    root = make_project({"experiments/tiny.toml": LONG_EXPERIMENT})
    process, status = _start_training(root)
    try:
        pid = int(json.loads(status.read_text())["pid"])
        shown = evidence_cli(root, "status")
        assert shown.returncode == 0, shown.stderr
        header, *rows = shown.stdout.splitlines()
        assert "pid" in header.split()
        assert any(str(pid) in row.split() and "tiny/wide-s0" in row for row in rows), shown.stdout
        assert evidence_cli(root, "stop", "nosuch/*").stdout.startswith("no run in progress matches")
        stopped = evidence_cli(root, "stop", "tiny/*")
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert f"stopped tiny/wide-s0 (pid {pid})" in stopped.stdout and "doit train" in stopped.stdout
        assert json.loads(status.read_text())["state"] == "interrupted"
        out, err = process.communicate(timeout=120)
        assert process.returncode == 1 and "INTERRUPTED" in out + err
    finally:
        if process.poll() is None:
            process.kill()


@slow
def test_an_interrupted_doit_says_what_happens_to_its_runs(make_project: Callable[..., Path]) -> None:
    """A run forked from the warm worker is not in doit's process group: when doit is stopped,
    a line says which run (its pid) was told to stop, and how to see or stop it."""
    root = make_project({"experiments/tiny.toml": LONG_EXPERIMENT})
    process, status = _start_training(root)
    pid = int(json.loads(status.read_text())["pid"])
    os.kill(process.pid, signal.SIGTERM)  # doit (its group is this test's: not the whole group)
    out, err = process.communicate(timeout=120)
    said = [line for line in (out + err).splitlines() if f"pid {pid}" in line]
    assert said and "tiny/wide-s0" in said[0] and "evidence status" in said[0], out + err
    assert "doit train" in said[0]
