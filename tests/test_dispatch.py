"""Cluster dispatch through submitit, tested with its LocalExecutor (real subprocesses).

A run trained as a submitit job must land in runs/ exactly as a local one (byte for byte on
the deterministic CPU path); a job that is preempted (SIGUSR2, what Slurm sends) checkpoints,
is requeued and resumes; failures map to doit failures with the runner's error; the Slurm
settings become the sbatch options the documentation promises.
"""

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
from conftest import TRAIN_DODO, doit

from evidence.core.errors import EXIT_INTERRUPTED
from evidence.core.project import Project
from evidence.core.settings import Settings
from evidence.experiments.spec import expand_all
from evidence.scale.dispatch import outcome_of, slurm_parameters
from evidence.store.runs import RunStore

SUBMITIT = """
[dispatch]
executor = "submitit-local"
poll_seconds = 0.1
"""

TWO_RUNS = """
trainer = "mlp"
seeds = [0, 1]
[data]
dataset = "digits"
[config]
epochs = 2
batch_size = 64
lr = 0.1
hidden = 16
[smoke]
batches = 1
"""

# About 100 steps with a checkpoint every 2: long enough to preempt at a chosen moment.
LONG_RUN = """
trainer = "mlp"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = 3
batch_size = 32
lr = 0.05
hidden = 256
[checkpoint]
every_steps = 2
every_seconds = 0
keep = 2
[smoke]
batches = 1
"""

BROKEN_TRAINER = '''
import torch
from torch import nn
from evidence.numerics.recipe import Recipe


def build(config, data):
    model = nn.Sequential(nn.Linear(63, 10))  # wrong: the digits have 64 features
    return Recipe(model=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                  epochs=config["epochs"], batch_size=config["batch_size"])
'''

EVIDENCE_FILES = ("model.safetensors", "results.json", "metrics.jsonl", "spec.json")


def evidence_bytes(root: Path) -> dict[str, dict[str, bytes]]:
    store = RunStore(root / "runs")
    return {run.run_id: {name: (run.path / name).read_bytes() for name in EVIDENCE_FILES}
            for run in store.runs()}


@pytest.mark.slow
def test_submitit_local_jobs_seal_runs_exactly_as_local_ones(make_project: Callable[..., Path]) -> None:
    files = {"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS}
    cluster = make_project({**files, "evidence.toml": SUBMITIT}, name="cluster")
    started = time.monotonic()
    result = doit(cluster, "-n", "2", "train")
    through_submitit = time.monotonic() - started
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr.count("submitted submitit-local job") == 2
    assert result.stderr.count("sealed tiny/") == 2  # the runner's own lines, from the job logs
    assert list((cluster / ".evidence" / "submitit").glob("*_result.pkl"))

    local = make_project(files, name="local")
    started = time.monotonic()
    plain = doit(local, "-n", "2", "train")
    print(f"doit -n 2 train, 2 runs: submitit-local {through_submitit:.1f}s, "
          f"local {time.monotonic() - started:.1f}s")
    assert plain.returncode == 0, plain.stderr
    assert "submitted" not in plain.stderr
    assert evidence_bytes(cluster) == evidence_bytes(local)
    assert len(evidence_bytes(cluster)) == 2 and RunStore(cluster / "runs").fsck().ok
    again = doit(cluster, "train")
    assert again.returncode == 0 and "submitted" not in again.stderr  # up to date: no job


@pytest.mark.slow
def test_a_preempted_job_is_requeued_and_resumes_bit_identical(make_project: Callable[..., Path]) -> None:
    reference = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": LONG_RUN}, name="ref")
    assert doit(reference, "train").returncode == 0
    root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": LONG_RUN,
                         "evidence.toml": SUBMITIT})
    [spec] = expand_all(Project.at(root))
    work = root / ".evidence" / "work" / spec.key[:16]
    env = {**os.environ, "EVIDENCE_PROGRESS": "off"}
    process = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (work / "status.json").exists() or not list((work / "checkpoints").glob("*.blake3")):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.01)
    runner = json.loads((work / "status.json").read_text())["pid"]
    job = int(Path(f"/proc/{runner}/stat").read_text().rsplit(")", 1)[1].split()[1])  # its parent
    os.kill(job, signal.SIGUSR2)  # what Slurm sends before a time limit or on preemption
    out, err = process.communicate(timeout=180)
    assert process.returncode == 0, out + err
    assert "resuming" in err
    run = RunStore(root / "runs").find(spec.key)
    assert run is not None and run.provenance["resumes"] >= 1
    assert evidence_bytes(root) == evidence_bytes(reference)
    logs = "".join(p.read_text() for p in (root / ".evidence" / "submitit").glob("*_log.*"))
    assert "this job is preempted" in logs and "Requeued job" in logs


@pytest.mark.slow
def test_a_failing_job_is_a_failed_task_with_the_runners_error(make_project: Callable[..., Path]) -> None:
    root = make_project({"dodo.py": TRAIN_DODO, "evidence.toml": SUBMITIT,
                         "experiments/tiny.toml": TWO_RUNS.replace('"mlp"', '"broken"')
                         .replace("seeds = [0, 1]", "seeds = [0]"),
                         "trainers/broken.py": BROKEN_TRAINER})
    result = doit(root, "train")
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert "training failed" in output and "nothing long ran" in output
    assert not (root / "runs").exists()


def test_outcomes_map_to_doit_outcomes(tmp_path: Path) -> None:
    outcome = tmp_path / "outcome.json"
    assert outcome_of("e/r", 0, outcome) is None
    assert "INTERRUPTED" in str(outcome_of("e/r", EXIT_INTERRUPTED, outcome))
    # torchrun exits 1 when a rank stops; rank 0's record says it was an interruption.
    outcome.write_text(json.dumps({"exit_code": EXIT_INTERRUPTED, "message": "interrupted"}))
    assert "INTERRUPTED" in str(outcome_of("e/r", 1, outcome))
    outcome.write_text(json.dumps({"exit_code": 1, "message": "ERROR: smoke check: boom"}))
    assert "smoke check: boom" in str(outcome_of("e/r", 1, outcome))
    assert "killed by signal 9" in str(outcome_of("e/r", -9, tmp_path / "missing.json"))


def test_slurm_settings_become_sbatch_options(tmp_path: Path) -> None:
    from submitit.slurm.slurm import _make_sbatch_string

    settings = Settings(dispatch={"executor": "slurm", "partition": "gpu", "timeout_min": 240,
                                  "mem_gb": 16, "account": "lab", "qos": "high",
                                  "setup": ["module load cuda/12"], "additional": {"exclude": "node7"}})
    params = slurm_parameters(settings, world_size=2, threads=4, cuda=True, label="digits/cnn-s0")
    text = _make_sbatch_string(command="python -m submitit.core._submit x", folder=tmp_path, **params)
    for line in ("--partition=gpu", "--time=240", "--gpus-per-node=2", "--cpus-per-task=8",
                 "--mem=16GB", "--signal=USR2@120", "--account=lab", "--qos=high",
                 "--exclude=node7", "--ntasks-per-node=1", "--job-name=evidence-digits-cnn-s0"):
        assert f"#SBATCH {line}" in text, line
    assert "module load cuda/12" in text
    cpu = slurm_parameters(Settings(dispatch={"cpus_per_task": 3}), 1, 2, False, "e/r")
    assert cpu["cpus_per_task"] == 3 and "gpus_per_node" not in cpu


@pytest.mark.skipif(shutil.which("srun") is not None, reason="this machine has Slurm")
def test_bad_dispatch_settings_are_clear_errors(make_project: Callable[..., Path]) -> None:
    root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS,
                         "evidence.toml": '[dispatch]\nexecutor = "kubernetes"\n'})
    bad = doit(root, "train")
    assert bad.returncode == 3
    assert "evidence.toml: field 'dispatch.executor'" in bad.stderr and "Traceback" not in bad.stderr
    (root / "evidence.toml").write_text('[dispatch]\nexecutor = "slurm"\npartition = "gpu"\n')
    no_slurm = doit(root, "train")
    assert no_slurm.returncode == 1
    assert "cannot use the 'slurm' executor" in no_slurm.stdout + no_slurm.stderr
    (root / "evidence.toml").unlink()
    env = subprocess.run([sys.executable, "-m", "doit", "train"], cwd=root, capture_output=True,
                         text=True, env={**os.environ, "EVIDENCE_EXECUTOR": "bogus"})
    assert env.returncode == 3 and "EVIDENCE_EXECUTOR" in env.stderr
