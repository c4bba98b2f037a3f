"""The warm worker (evidence.train.worker, evidence.scale.warm): runs forked from a process with
torch imported are the same runs, bit for bit, and each keeps its own crash and signal isolation."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit
from test_resume import RESUME_EXPERIMENT, SEALED_FILES, sealed_bytes, wait_for

from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.scale import warm
from evidence.store.runs import RunStore

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not warm.available(), reason="needs fork and Unix sockets")]


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


def test_a_forked_run_is_bit_identical_to_a_fresh_process(make_project: Callable[..., Path]) -> None:
    root = make_project()
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
