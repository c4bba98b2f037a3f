"""The runner's guards: smoke check, verify-by-load, locking, forced re-runs, progress."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.progress import ProgressReporter
from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.store.runs import RunStore

ONE_RUN = """
trainer = "{trainer}"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = 2
batch_size = 64
lr = {lr}
hidden = 16
[smoke]
batches = 2
overfit_steps = {overfit}
"""

BROKEN_SHAPE_TRAINER = '''
import torch
from torch import nn
from evidence.numerics.recipe import Recipe


def build(config, data):
    model = nn.Sequential(nn.Linear(63, 10))  # wrong: the digits have 64 features
    return Recipe(model=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                  epochs=config["epochs"], batch_size=config["batch_size"])
'''

# A model whose forward pass depends on state that its state_dict does not save: the numbers
# logged in the training process cannot be reproduced from the saved weights.
HIDDEN_STATE_TRAINER = '''
import torch
from torch import nn
from evidence.numerics.recipe import Recipe


class Drifting(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.register_buffer("offset", torch.zeros(n_out), persistent=False)

    def forward(self, x):
        if self.training:
            self.offset += torch.linspace(0.0, 0.05, self.offset.numel())
        return self.linear(x) + self.offset


def build(config, data):
    model = Drifting(data.n_features, data.n_classes)
    return Recipe(model=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                  epochs=config["epochs"], batch_size=config["batch_size"])
'''


def experiment(trainer: str = "mlp", lr: float = 0.1, overfit: int = 0) -> str:
    return ONE_RUN.format(trainer=trainer, lr=lr, overfit=overfit)


@pytest.mark.slow
def test_smoke_check_catches_a_shape_error_before_training(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": experiment("broken"),
                         "trainers/broken.py": BROKEN_SHAPE_TRAINER})
    started = time.monotonic()
    result = doit(root, "train")
    assert result.returncode == 1
    assert "smoke check" in result.stderr or "mat1 and mat2" in result.stderr
    assert "nothing long ran" in result.stderr
    assert time.monotonic() - started < 60
    assert not (root / "runs").exists()


@pytest.mark.slow
def test_overfit_one_batch_check(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": experiment(lr=0.0, overfit=20)})
    result = doit(root, "train")
    assert result.returncode == 1
    assert "cannot overfit one batch" in result.stderr
    status = subprocess.run([sys.executable, "-m", "evidence.cli", "status"], cwd=root,
                            capture_output=True, text=True)
    assert "FAILED: " in status.stdout and "cannot overfit" in status.stdout


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", *args], cwd=root, capture_output=True,
                          text=True)


@pytest.mark.slow
def test_a_failure_of_a_run_no_experiment_declares_any_more_is_stale(
        make_project: Callable[..., Path]) -> None:
    """After the experiment is fixed (its key changed), `evidence status` no longer lists the old
    key's failure as if it were current; it counts it, and `evidence gc` lists and removes it."""
    root = make_project({"experiments/tiny.toml": experiment(lr=0.0, overfit=20)})
    assert doit(root, "train").returncode == 1
    old = next(iter((root / ".evidence" / "work").iterdir())).name
    assert "FAILED: " in cli(root, "status").stdout
    (root / "experiments" / "tiny.toml").write_text(experiment(lr=0.1, overfit=0))  # the fix

    status = cli(root, "status")
    assert status.returncode == 0 and "FAILED" not in status.stdout, status.stdout
    assert "1 failure record of a run no experiment declares any more" in status.stdout
    assert "evidence gc" in status.stdout
    listed = cli(root, "gc")
    assert f"stale .evidence/work/{old}" in listed.stdout and "cannot overfit" in listed.stdout
    assert "1 stale work folder" in listed.stdout
    assert (root / ".evidence" / "work" / old).is_dir()  # listing deletes nothing
    deleted = cli(root, "gc", "--delete")
    assert deleted.returncode == 0 and not (root / ".evidence" / "work" / old).exists()
    assert "no runs in progress" in cli(root, "status").stdout


@pytest.mark.slow
def test_verify_by_load_refuses_to_seal_a_mismatch(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": experiment("hidden_state"),
                         "trainers/hidden_state.py": HIDDEN_STATE_TRAINER})
    result = doit(root, "train")
    assert result.returncode == 1
    assert "verify-by-load failed" in result.stderr
    assert "not sealed" in result.stderr
    assert not (root / "runs").exists() or not RunStore(root / "runs").run_ids()


@pytest.mark.slow
def test_two_doit_processes_never_train_a_run_twice(make_project: Callable[..., Path]) -> None:
    root = make_project()
    env = {**os.environ, "EVIDENCE_PROGRESS": "off"}
    processes = [subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=root, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert all(p.returncode == 0 for p in processes), outputs
    stderr = "".join(err for _, err in outputs)
    assert stderr.count("sealed tiny/") == 4
    store = RunStore(root / "runs")
    assert len(store.run_ids()) == 4 and all("-" not in r for r in store.run_ids())
    assert store.fsck().ok


@pytest.mark.slow
def test_rerun_mints_a_new_run_id_and_keeps_the_old(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": experiment()})
    assert doit(root, "train").returncode == 0
    [spec] = expand_all(Project.at(root))
    store = RunStore(root / "runs")
    old = store.find(spec.key)
    assert old is not None
    rerun = subprocess.run([sys.executable, "-m", "evidence.cli", "rerun", "tiny/*"], cwd=root,
                           capture_output=True, text=True, env={**os.environ,
                                                                "EVIDENCE_PROGRESS": "off"})
    assert rerun.returncode == 0, rerun.stderr
    new = store.find(spec.key)
    assert new is not None and new.run_id == old.run_id + "-2"
    assert old.path.exists()
    # Deterministic on CPU: the forced re-run computes the same numbers.
    assert (new.path / "model.safetensors").read_bytes() == \
        (old.path / "model.safetensors").read_bytes()
    assert doit(root, "train").returncode == 0
    assert store.run_ids() == sorted([old.run_id, new.run_id])


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_and_lines_in_a_log() -> None:
    terminal = FakeTerminal()
    bar = ProgressReporter("exp/run", terminal)
    for step in range(1, 11):
        bar.update(step, 10, 0, 0.5)
    bar.close()
    assert "exp/run" in terminal.getvalue() and "10/10" in terminal.getvalue()
    log = io.StringIO()
    lines = ProgressReporter("exp/run", log, interval=3600)
    for step in range(1, 11):
        lines.update(step, 10, 1, 0.25)
    assert log.getvalue().splitlines() == ["exp/run: step 10/10 epoch 1 loss 0.2500 eta 0s"]


def test_a_killed_process_not_yet_reaped_is_not_alive() -> None:
    """A zombie (killed, its parent not yet waiting) counts as gone: a lease or a status asking at
    that moment must not see a dead run as training (the remote's lease once did)."""
    import signal
    import subprocess
    import sys
    import time

    from evidence.core.processes import pid_alive

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert pid_alive(child.pid)
        child.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while pid_alive(child.pid) and time.monotonic() < deadline:  # not reaped: still a zombie
            time.sleep(0.05)
        assert not pid_alive(child.pid)
        assert child.poll() is not None  # reaped only now
    finally:
        child.kill()
        child.wait()
    assert not pid_alive(0) and not pid_alive(-1)
