"""One run, two processes: DDP on the CPU (gloo) through torchrun, with real signals.

A world-size-2 run must seal exactly like a local one (verify-by-load on rank 0 included),
compute the same mathematics as world size 1 (each global batch split across the ranks, the
gradients all-reduced), and survive a SIGKILL of the whole process group and a SIGTERM of a
single rank: all ranks stop at the same step, rank 0 checkpoints, and the restarted run ends
bit-identical to an uninterrupted one.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from conftest import TRAIN_DODO, doit

from evidence.core.errors import EXIT_INTERRUPTED
from evidence.core.project import Project
from evidence.experiments.spec import RunSpec, expand_all
from evidence.scale.dispatch import launch_command
from evidence.store.runs import RunStore
from evidence.train.distributed import shard_bounds

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

# Long enough (about 100 steps, a checkpoint every 4) to be interrupted at a chosen moment.
DDP_EXPERIMENT = """
trainer = "mlp"
seeds = [0]
world_size = {world}
[data]
dataset = "digits"
[config]
epochs = 3
batch_size = 32
lr = 0.05
hidden = 256
[checkpoint]
every_steps = 4
every_seconds = 0
keep = 2
[smoke]
batches = 1
"""

SEALED_FILES = ("results.json", "metrics.jsonl", "model.safetensors", "spec.json")


def experiment(world: int) -> str:
    return DDP_EXPERIMENT.format(world=world)


def only_spec(root: Path) -> tuple[RunSpec, Path]:
    [spec] = expand_all(Project.at(root))
    path = root / "spec.json"
    path.write_text(json.dumps(spec.to_json()))
    return spec, path


def sealed(root: Path, spec: RunSpec) -> dict[str, bytes]:
    run = RunStore(root / "runs").find(spec.key)
    assert run is not None
    return {name: (run.path / name).read_bytes() for name in SEALED_FILES}


def start(root: Path, spec: RunSpec, spec_path: Path) -> subprocess.Popen[str]:
    """The runner as the doit action starts it (torchrun for world size > 1), in its own group."""
    command = launch_command(sys.executable, int(spec.identity["world_size"]),
                             ["--project", str(root), "--spec", str(spec_path),
                              "--outcome", str(root / "outcome.json")])
    return subprocess.Popen(command, cwd=root, env={**os.environ, "EVIDENCE_PROGRESS": "off",
                                                     "OMP_NUM_THREADS": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def wait_for(predicate: Callable[[], bool], process: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.005)
    raise AssertionError("timed out waiting")


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def test_shards_cover_each_batch_once() -> None:
    for n in (1, 2, 5, 32, 33):
        for world in (1, 2, 3, 8):
            bounds = [shard_bounds(n, r, world) for r in range(world)]
            assert bounds[0][0] == 0 and bounds[-1][1] == n
            assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
            sizes = [hi - lo for lo, hi in bounds]
            assert max(sizes) - min(sizes) <= 1


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunSpec, dict[str, bytes]]:
    """A world-size-2 run trained by `doit train` (the action launches torchrun), uninterrupted."""
    from conftest import REPO, write_tree

    root = tmp_path_factory.mktemp("ddp") / "reference"
    (root / "trainers").mkdir(parents=True)
    for trainer in (REPO / "trainers").glob("*.py"):
        (root / "trainers" / trainer.name).write_bytes(trainer.read_bytes())
    write_tree(root, {"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment(2)})
    started = time.monotonic()
    result = doit(root, "train")
    assert result.returncode == 0, result.stdout + result.stderr
    print(f"world size 2 through doit: {time.monotonic() - started:.1f}s")
    [spec] = expand_all(Project.at(root))
    return root, spec, sealed(root, spec)


def test_world_size_2_seals_and_computes_world_size_1_mathematics(
        make_project: Callable[..., Path], reference: tuple[Path, RunSpec, dict[str, bytes]]) -> None:
    root, spec, _ = reference
    store = RunStore(root / "runs")
    run = store.find(spec.key)
    assert run is not None and store.fsck().ok
    assert spec.identity["world_size"] == 2
    devices = run.provenance["environment"]["devices"]
    assert devices["world_size"] == 2 and devices["backend"] == "gloo" and devices["kind"] == "cpu"
    assert not (root / ".evidence" / "work" / run.run_id).exists()

    single = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment(1)})
    one, path = only_spec(single)
    assert one.key != spec.key  # the world size is part of the key
    process = start(single, one, path)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    ddp_rows = run.metrics_history()
    one_rows = [json.loads(line) for line in sealed(single, one)["metrics.jsonl"].splitlines()]
    assert len(ddp_rows) == len(one_rows) == 3
    # Same optimisation steps summed in another order: equal to float32 rounding, not bitwise.
    for a, b in zip(ddp_rows, one_rows, strict=True):
        for name in ("train/loss", "val/loss"):
            assert a[name] == pytest.approx(b[name], rel=1e-4), name
        assert a["step"] == b["step"]


def test_killed_group_and_sigterm_on_one_rank_resume_bit_identical(
        make_project: Callable[..., Path], reference: tuple[Path, RunSpec, dict[str, bytes]]) -> None:
    root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment(2)})
    spec, path = only_spec(root)
    work = root / ".evidence" / "work" / spec.key[:16]
    folder = work / "checkpoints"

    # 1. SIGKILL every process (both ranks, then the launcher) after a checkpoint: power loss.
    #    torchrun starts each rank in its own session, so each group is killed.
    process = start(root, spec, path)
    wait_for(lambda: folder.is_dir() and any(folder.glob("ckpt-*.pt.blake3")), process)
    for rank in children(process.pid):
        os.killpg(rank, signal.SIGKILL)
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert any(folder.glob("ckpt-*.pt.blake3"))

    # 2. Restart; once it resumed and checkpointed again, SIGTERM rank 1 only.
    first = {p.name for p in folder.glob("ckpt-*.pt")}
    process = start(root, spec, path)
    wait_for(lambda: bool({p.name for p in folder.glob("ckpt-*.pt.blake3")}
                          - {n + ".blake3" for n in first}), process)
    ranks = [c for c in children(process.pid)]
    assert len(ranks) == 2
    status = json.loads((work / "status.json").read_text())
    rank1 = next(pid for pid in ranks if pid != status["pid"])
    os.kill(rank1, signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode != 0
    outcome = json.loads((root / "outcome.json").read_text())
    assert outcome["exit_code"] == EXIT_INTERRUPTED and "interrupted by SIGTERM" in outcome["message"]
    status = json.loads((work / "status.json").read_text())
    assert status["state"] == "interrupted"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]

    # 3. Finish; the sealed evidence equals the uninterrupted run's, byte for byte.
    process = start(root, spec, path)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert "resuming" in err
    assert sealed(root, spec) == reference[2]
    run = RunStore(root / "runs").find(spec.key)
    assert run is not None and run.provenance["resumes"] >= 2


def test_a_run_launched_with_the_wrong_world_size_is_refused(make_project: Callable[..., Path]) -> None:
    root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment(2)})
    _spec, path = only_spec(root)
    result = subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                             "--spec", str(path)], cwd=root, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1
    assert "world_size 2 but it was launched with 1" in result.stderr
    assert "torchrun --nproc_per_node=2" in result.stderr
    assert not (root / "runs").exists()


@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2,
                    reason="needs two CUDA devices (nccl)")
def test_world_size_2_on_cuda_with_nccl(make_project: Callable[..., Path]) -> None:
    gpu = experiment(2).replace("world_size = 2", 'world_size = 2\ndevice = "cuda"')
    root = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": gpu})
    result = doit(root, "train")
    assert result.returncode == 0, result.stdout + result.stderr
    [spec] = expand_all(Project.at(root))
    run = RunStore(root / "runs").find(spec.key)
    assert run is not None
    devices = run.provenance["environment"]["devices"]
    assert devices["kind"] == "cuda" and devices["backend"] == "nccl" and devices["world_size"] == 2
    assert RunStore(root / "runs").fsck().ok
