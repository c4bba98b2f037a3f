"""Training through a real Slurm cluster: a one-node cluster brought up for the session.

scripts/slurm_one_node.sh starts munge, slurmctld and slurmd in a temporary folder (CI installs
Debian's packages the way it installs Chromium). Where the packages are missing or the daemons
cannot start (no root, a container without the rights), every test here is skipped with the
script's reason. The runs are small digits MLPs; each test compares the runs sealed by Slurm
jobs with the same runs trained locally, byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPO, TINY_EXPERIMENT, TRAIN_DODO, doit

pytestmark = pytest.mark.slow

SLURM = '''
[dispatch]
executor = "slurm"
partition = "debug"
poll_seconds = 0.5
cpus_per_task = 1
timeout_min = 30
signal_delay_s = 30
'''
BOOM = "def build(config, data):\n    raise ValueError('planted: the trainer refuses this config')\n"
#: Long enough to be interrupted after its first checkpoint: 40 epochs of the paced MLP below.
LONG = TINY_EXPERIMENT.replace("seeds = [0, 1]", "seeds = [0]").split("[[variants]]")[0].replace(
    "epochs = 2", "epochs = 40").replace("every_steps = 5", "every_steps = 20").replace(
    'trainer = "mlp"', 'trainer = "paced"')
#: The example's MLP, paced where the test asks: with EVIDENCE_TEST_PACE_S set, every forward pass
#: sleeps that long, so a run interrupted after its first checkpoint cannot finish and seal before
#: the interruption reaches it (unpaced, the 900 steps take about a second, and a loaded machine
#: lost that race). Sleeping changes no number: the paced and unpaced runs seal the same bytes.
PACED = """
import os
import time

from trainers import mlp


def build(config, data):
    recipe = mlp.build(config, data)
    pace = float(os.environ.get("EVIDENCE_TEST_PACE_S", "0") or 0)
    if pace:
        recipe.model.register_forward_pre_hook(lambda module, inputs: time.sleep(pace))
    return recipe
"""
#: Seconds per forward pass for runs a test interrupts (about 8 s left after the first checkpoint).
PACE = {"EVIDENCE_TEST_PACE_S": "0.008"}
#: Slower still where the test interrupts and the run must not reach its end: about 26 s of
#: steps remain after the first checkpoint, against the seconds a loaded machine's Slurm takes to
#: pass a cancellation on (7 s of remaining steps lost that race once on a busy machine).
PACE_INTERRUPTED = {"EVIDENCE_TEST_PACE_S": "0.03"}


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    folder = tmp_path_factory.mktemp("slurm")
    script = REPO / "scripts" / "slurm_one_node.sh"
    started = subprocess.run(["bash", str(script), "start", str(folder)], capture_output=True, text=True,
                             timeout=120)
    if started.returncode != 0:
        pytest.skip(f"no one-node Slurm cluster here: {started.stderr.strip().splitlines()[-1:]}")
    conf = started.stdout.strip().splitlines()[-1].split("=", 1)[1]
    try:
        yield {"SLURM_CONF": conf}
    finally:
        subprocess.run(["bash", str(script), "stop", str(folder)], capture_output=True, timeout=60)


def slurm_doit(root: Path, env: dict[str, str], *args: str, timeout: float = 600,
               ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, text=True, capture_output=True,
                          timeout=timeout, env={**os.environ, **env, "EVIDENCE_PROGRESS": "off"})


def requeue(job_id: str, env: dict[str, str]) -> None:
    """``scontrol requeue``, then release the job at once: Slurm holds a requeued job until a
    begin time about two minutes away, which a real cluster waits out and a test need not."""
    env = {**os.environ, **env}
    done = subprocess.run(["scontrol", "requeue", job_id], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%T"], capture_output=True, text=True,
                               env=env).stdout.strip()
        if state == "PENDING":
            subprocess.run(["scontrol", "update", f"jobid={job_id}", "StartTime=now"], capture_output=True,
                           env=env)
            return
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} was not requeued")


def wait_until_gone(job_id: str, env: dict[str, str], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not subprocess.run(["squeue", "-h", "-j", job_id], capture_output=True, text=True,
                              env={**os.environ, **env}).stdout.strip():
            return
        time.sleep(1)
    raise AssertionError(f"job {job_id} still queued after {timeout} s")


def train_until_first_checkpoint(root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """Start ``doit train`` (one run through Slurm); return it and the job id once the run has
    written its first checkpoint.

    doit gets SIGINT's default disposition, as in a terminal: a suite started in the background
    (``./run_tests.sh &``, nohup) has SIGINT ignored, every child inherits that, and the Ctrl-C
    case then tested nothing (doit never saw the signal and the run sealed)."""
    import signal

    process = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    work = root / ".evidence" / "work"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not any(work.glob("*/checkpoints/*.pt")):
        time.sleep(0.2)
    assert any(work.glob("*/checkpoints/*.pt")), "no checkpoint was written"
    [job_id] = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True,
                              env=env).stdout.split()
    return process, job_id


def sealed_bytes(root: Path) -> dict[str, bytes]:
    return {f"{run.name}/{name}": (run / name).read_bytes()
            for run in sorted((root / "runs").iterdir()) if not run.name.startswith(".")
            for name in ("results.json", "metrics.jsonl", "model.safetensors")}


@pytest.fixture
def pair(make_project: Callable[..., Path]) -> Callable[[str], tuple[Path, Path]]:
    """(a project that trains through Slurm, the same project trained locally)."""

    def make(experiment: str) -> tuple[Path, Path]:
        local = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment,
                              "trainers/paced.py": PACED}, name="local")
        done = doit(local, "train")
        assert done.returncode == 0, done.stderr
        cluster_root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment,
                                     "trainers/paced.py": PACED, "evidence.toml": SLURM}, name="cluster")
        return cluster_root, local

    return make


def test_a_sweep_through_slurm_seals_bit_identical_runs_and_records_the_job(
        cluster: dict[str, str], pair: Callable[[str], tuple[Path, Path]]) -> None:
    root, local = pair(TINY_EXPERIMENT)
    start = time.perf_counter()
    done = slurm_doit(root, cluster, "-n", "2", "train")
    seconds = time.perf_counter() - start
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sacct" not in done.stderr and "submitted slurm job" in done.stderr
    assert sealed_bytes(root) == sealed_bytes(local) and len(sealed_bytes(root)) == 12
    for run in (root / "runs").iterdir():
        source = json.loads((run / "provenance.json").read_text())["source"]
        assert source["kind"] == "slurm" and source["job_id"] and source["partition"] == "debug"
        assert source["requeue_count"] == 0
    print(f"4 runs through Slurm (doit -n 2): {seconds:.1f} s")

    # a job requeued after it completed finds its run sealed and ends at once, training nothing
    job_id = json.loads(next((root / "runs").iterdir()).joinpath("provenance.json").read_text())[
        "source"]["job_id"]
    before = sealed_bytes(root)
    requeue(job_id, cluster)
    wait_until_gone(job_id, cluster)
    log = next((root / ".evidence" / "submitit").glob(f"{job_id}_*_log.err")).read_text()
    assert "cached tiny/" in log
    assert sealed_bytes(root) == before


def test_a_failing_job_brings_its_error_line_back(cluster: dict[str, str],
                                                  make_project: Callable[..., Path]) -> None:
    broken = TINY_EXPERIMENT.replace('trainer = "mlp"', 'trainer = "boom"').replace(
        "seeds = [0, 1]", "seeds = [0]").split("[[variants]]")[0]
    root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": broken, "evidence.toml": SLURM,
                         "trainers/boom.py": BOOM},
                        name="broken")
    done = slurm_doit(root, cluster, "train")
    assert done.returncode != 0
    assert "planted: the trainer refuses this config" in done.stdout + done.stderr
    assert not (root / "runs").exists() or not any((root / "runs").iterdir())


def test_a_preempted_job_is_requeued_resumes_and_seals_bit_identical(
        cluster: dict[str, str], pair: Callable[[str], tuple[Path, Path]]) -> None:
    root, local = pair(LONG)
    env = {**os.environ, **cluster, **PACE, "EVIDENCE_PROGRESS": "off"}
    doit_process, job_id = train_until_first_checkpoint(root, env)
    requeue(job_id, cluster)
    out, err = doit_process.communicate(timeout=600)
    assert doit_process.returncode == 0, out + err
    assert "preempted and requeued" in err
    assert sealed_bytes(root) == sealed_bytes(local)
    [run] = (root / "runs").iterdir()
    provenance = json.loads((run / "provenance.json").read_text())
    assert provenance["resumes"] >= 1 and provenance["source"]["requeue_count"] >= 1


def test_slurm_tools_are_on_path_when_the_cluster_runs(cluster: dict[str, str]) -> None:
    assert shutil.which("sbatch") and shutil.which("squeue")


def test_a_job_near_its_time_limit_checkpoints_is_requeued_and_finishes_bit_identical(
        cluster: dict[str, str], pair: Callable[[str], tuple[Path, Path]]) -> None:
    """Near ``--time`` Slurm sends SIGUSR2 (``signal_delay_s`` before it, give or take the minute
    Slurm's timer resolution allows). The test sends that signal itself after the first
    checkpoint, so the case does not depend on where Slurm's minute falls: submitit's handler
    asks the job to checkpoint, the runner writes one and stops, submitit requeues the job
    (counted against max_num_timeout) and the next attempt resumes."""
    root, local = pair(LONG)
    env = {**os.environ, **cluster, **PACE, "EVIDENCE_PROGRESS": "off"}
    doit_process, job_id = train_until_first_checkpoint(root, env)
    signalled = subprocess.run(["scancel", "--signal=USR2", "--full", job_id], capture_output=True,
                               text=True, env=env)
    assert signalled.returncode == 0, signalled.stderr
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # submitit requeues it; release Slurm's requeue hold
        state = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%T"], capture_output=True, text=True,
                               env=env).stdout.strip()
        if state == "PENDING":
            subprocess.run(["scontrol", "update", f"jobid={job_id}", "StartTime=now"], env=env,
                           capture_output=True)
            break
        time.sleep(0.3)
    out, err = doit_process.communicate(timeout=600)
    assert doit_process.returncode == 0, out + err
    assert sealed_bytes(root) == sealed_bytes(local)
    [run] = (root / "runs").iterdir()
    provenance = json.loads((run / "provenance.json").read_text())
    assert provenance["resumes"] >= 1 and provenance["source"]["requeue_count"] >= 1, err[-2000:]


def test_ctrl_c_on_doit_cancels_the_job_after_a_checkpoint_and_seals_nothing_half(
        cluster: dict[str, str], pair: Callable[[str], tuple[Path, Path]]) -> None:
    import signal

    root, local = pair(LONG)
    env = {**os.environ, **cluster, **PACE_INTERRUPTED, "EVIDENCE_PROGRESS": "off"}
    doit_process, job_id = train_until_first_checkpoint(root, env)
    doit_process.send_signal(signal.SIGINT)  # Ctrl-C
    out, err = doit_process.communicate(timeout=300)
    wait_until_gone(job_id, cluster)
    assert not (root / "runs").exists() or not [p for p in (root / "runs").iterdir()
                                                 if not p.name.startswith(".")], out[-2000:] + err[-3000:]
    assert any((root / ".evidence" / "work").glob("*/checkpoints/*.pt"))
    again = slurm_doit(root, cluster, "train")
    assert again.returncode == 0, again.stdout + again.stderr
    assert sealed_bytes(root) == sealed_bytes(local)
