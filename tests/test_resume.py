"""Survive anything: real subprocesses, real signals, bit-identical results after resume.

Every test here starts the real runner (``python -m evidence.train.runner``) on a small real
experiment, interrupts it with real signals at chosen or random moments, starts it again,
and compares the sealed files byte for byte with an uninterrupted run of the same spec.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.errors import EXIT_INTERRUPTED
from evidence.core.project import Project
from evidence.experiments.spec import RunSpec, expand_all
from evidence.store.runs import RunStore

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

# A wide MLP (about 2.5 MB of checkpoint) checkpointing every 2 steps: writes take long enough
# to be hit by a kill, and there are a few hundred steps to land on.
RESUME_EXPERIMENT = """
trainer = "mlp"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = 6
batch_size = 32
lr = 0.05
hidden = 1024
dropout = 0.2
[checkpoint]
every_steps = 2
every_seconds = 0
keep = 2
[smoke]
batches = 1
[[variants]]
name = "wide"
"""

# The same model with an evaluation that announces itself and takes a while, so a test can
# kill the process while it is evaluating.
SLOW_EVAL_TRAINER = '''
import os
import time

from evidence.numerics.recipe import classification_metrics
from trainers.mlp import build as build_mlp


def build(config, data):
    recipe = build_mlp(config, data)

    def metrics(outputs, targets):
        marker = os.environ.get("EVAL_MARKER")
        if marker:
            with open(marker, "a") as handle:
                handle.write("eval\\n")
            time.sleep(0.3)
        return classification_metrics(outputs, targets)

    recipe.metrics = metrics
    return recipe
'''

SEALED_FILES = ("results.json", "metrics.jsonl", "model.safetensors", "spec.json")


def only_spec(root: Path) -> tuple[RunSpec, Path]:
    [spec] = expand_all(Project.at(root))
    path = root / "spec.json"
    path.write_text(json.dumps(spec.to_json()))
    return spec, path


def start(root: Path, spec_path: Path, env: dict[str, str] | None = None,
          **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evidence.train.runner", "--project", str(root), "--spec", str(spec_path)],
        cwd=root, env={**os.environ, "EVIDENCE_PROGRESS": "off", **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)  # type: ignore[call-overload]


def wait_for(predicate: Callable[[], bool], process: subprocess.Popen[str], timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.001)
    raise AssertionError("timed out waiting")


def checkpoint_dir(root: Path, spec: RunSpec) -> Path:
    return root / ".evidence" / "work" / spec.key[:16] / "checkpoints"


def sealed_bytes(root: Path, spec: RunSpec) -> dict[str, bytes]:
    run = RunStore(root / "runs").find(spec.key)
    assert run is not None
    return {name: (run.path / name).read_bytes() for name in SEALED_FILES}


@pytest.fixture
def reference(make_project: Callable[..., Path]) -> dict[str, bytes]:
    """The sealed files of an uninterrupted run."""
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT}, name="reference")
    spec, path = only_spec(root)
    done = start(root, path)
    _, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    return sealed_bytes(root, spec)


def finish(root: Path, spec_path: Path, env: dict[str, str] | None = None) -> str:
    process = start(root, spec_path, env)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return err


def test_sigkill_at_many_points_ends_bit_identical(make_project: Callable[..., Path],
                                                   reference: dict[str, bytes]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT,
                         "trainers/slow_eval.py": SLOW_EVAL_TRAINER})
    spec, path = only_spec(root)
    folder = checkpoint_dir(root, spec)
    kinds = []

    # 1. In the middle of a checkpoint write: kill as soon as a temporary file appears.
    process = start(root, path)
    wait_for(lambda: folder.is_dir() and any(p.name.startswith(".") for p in folder.iterdir()),
             process)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".")]
    kinds.append("mid-write" if leftovers else "near-write")

    # 2.-4. At random moments after the first checkpoint (seeded: the test is repeatable).
    chooser = random.Random(1234)
    for _ in range(3):
        before = set(folder.glob("ckpt-*.pt.blake3")) if folder.is_dir() else set()
        process = start(root, path)
        # a checkpoint this start wrote (it resumed and trains), then a moment within a few steps:
        # on a fast machine the whole rest of the run takes well under a second
        wait_for(lambda: folder.is_dir() and bool(set(folder.glob("ckpt-*.pt.blake3")) - before),  # noqa: B023
                 process)
        time.sleep(chooser.uniform(0.0, 0.1))
        process.send_signal(signal.SIGKILL)
        process.communicate()
        if RunStore(root / "runs").find(spec.key) is not None:  # a fast machine: this start resumed
            break                                             # and sealed before the kill landed
        kinds.append("random")

    if RunStore(root / "runs").find(spec.key) is None:  # else the resumes count below tells
        assert "resuming" in finish(root, path)
    assert sealed_bytes(root, spec) == reference
    assert kinds[0] == "mid-write", "the first kill should land inside a checkpoint write"
    provenance = RunStore(root / "runs").find(spec.key).provenance  # type: ignore[union-attr]
    assert provenance["resumes"] >= 1


def test_sigkill_during_evaluation_ends_bit_identical(make_project: Callable[..., Path]) -> None:
    experiment = RESUME_EXPERIMENT.replace('trainer = "mlp"', 'trainer = "slow_eval"')
    files = {"experiments/tiny.toml": experiment, "trainers/slow_eval.py": SLOW_EVAL_TRAINER}
    plain = make_project(files, name="uninterrupted")
    plain_spec, plain_path = only_spec(plain)
    finish(plain, plain_path)
    root = make_project(files)
    spec, path = only_spec(root)
    marker = root / "eval.marker"
    process = start(root, path, {"EVAL_MARKER": str(marker)})
    # The smoke check evaluates once and the initial-loss evaluation once; kill in the
    # validation pass at the end of the first epoch.
    wait_for(lambda: marker.exists() and marker.read_text().count("eval") >= 3, process)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    finish(root, path)
    assert sealed_bytes(root, spec) == sealed_bytes(plain, plain_spec)


def test_sigterm_checkpoints_and_exits_75_then_resumes(make_project: Callable[..., Path],
                                                       reference: dict[str, bytes]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    spec, path = only_spec(root)
    folder = checkpoint_dir(root, spec)
    process = start(root, path)
    wait_for(lambda: folder.is_dir() and any(folder.glob("ckpt-*.pt.blake3")), process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert "interrupted by SIGTERM" in err and "resume" in err
    status = json.loads((folder.parent / "status.json").read_text())
    assert status["state"] == "interrupted"
    finish(root, path)
    assert sealed_bytes(root, spec) == reference


def test_corrupt_newest_checkpoint_falls_back_to_previous(make_project: Callable[..., Path],
                                                         reference: dict[str, bytes]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    spec, path = only_spec(root)
    folder = checkpoint_dir(root, spec)
    process = start(root, path)
    wait_for(lambda: folder.is_dir() and len(list(folder.glob("ckpt-*.pt.blake3"))) >= 2, process)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    newest = sorted(folder.glob("ckpt-*.pt"))[-1]
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF
    newest.write_bytes(bytes(data))
    err = finish(root, path)
    assert f"skipping checkpoint {newest.name}" in err and "corrupt" in err
    assert sealed_bytes(root, spec) == reference


def test_failed_checkpoint_write_keeps_previous_and_says_so(make_project: Callable[..., Path],
                                                           reference: dict[str, bytes]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    spec, path = only_spec(root)
    folder = checkpoint_dir(root, spec)
    process = start(root, path)
    wait_for(lambda: folder.is_dir() and any(folder.glob("ckpt-*.pt.blake3")), process)
    # "Disk full" for this process only: files may not grow past 1 kB from now on.
    resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (1024, 1024))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "writing checkpoint" in err and "File too large" in err and "is intact" in err
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    good = sorted(folder.glob("ckpt-*.pt"))
    assert good, "the previous checkpoint must survive"
    finish(root, path)
    assert sealed_bytes(root, spec) == reference


def test_doit_reports_interruption_and_second_doit_resumes(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": RESUME_EXPERIMENT})
    spec, _ = only_spec(root)
    status_file = root / ".evidence" / "work" / spec.key[:16] / "status.json"
    folder = checkpoint_dir(root, spec)
    env = {**os.environ, "EVIDENCE_PROGRESS": "off"}
    process = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: folder.is_dir() and any(folder.glob("ckpt-*.pt.blake3"))
             and status_file.exists(), process)
    runner_pid = json.loads(status_file.read_text())["pid"]
    os.kill(runner_pid, signal.SIGTERM)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert "INTERRUPTED by a signal" in out + err
    status = subprocess.run([sys.executable, "-m", "evidence.cli", "status"], cwd=root,
                            capture_output=True, text=True)
    assert "interrupted" in status.stdout
    again = doit(root, "train")
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stderr
    assert RunStore(root / "runs").find(spec.key) is not None
    assert "no runs in progress" in subprocess.run(
        [sys.executable, "-m", "evidence.cli", "status"], cwd=root, capture_output=True,
        text=True).stdout
