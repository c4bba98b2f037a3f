"""The resume invariant on a GPU: a run killed mid-way on CUDA resumes and seals bit-identical.

The same real path as ``test_resume.py`` (``python -m evidence.train.runner`` on the bundled MLP
and the digits data, a real SIGKILL, a real restart), with ``device = "cuda"`` in the experiment.
Each case trains one run twice in two fresh projects: once uninterrupted, and once killed by
SIGKILL after a checkpoint in its second epoch and started again. The sealed files must be the
same bytes (their manifest digests are compared and printed), the run must name CUDA in its key
and provenance, and the run processes must have trained under deterministic settings (PyTorch's
deterministic algorithms, cuBLAS's fixed workspace), as a probe trainer around the MLP records.

Two cases: without dropout (the model, optimizer and scheduler state carried through a
checkpoint onto the GPU) and with dropout (the random stream that draws the dropout masks,
which on CUDA is the GPU's generator, must continue where it stopped).

Skipped where PyTorch sees no GPU; CI has none.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from evidence.core.project import Project
from evidence.experiments.spec import RunSpec, expand_all
from evidence.store.runs import RunStore

pytestmark = [
    pytest.mark.slow,  # end to end: trains real models in real subprocesses
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (torch.cuda.is_available())"),
]

# The wide MLP of test_resume.py (about 2.5 MB of checkpoint every 2 steps, six epochs): long
# enough on a GPU for a kill in the second epoch to land well before the run seals.
CUDA_EXPERIMENT = """
trainer = "probe"
seeds = [0]
device = "cuda"
[data]
dataset = "digits"
[config]
epochs = 6
batch_size = 32
lr = 0.05
hidden = 1024
dropout = {dropout}
[checkpoint]
every_steps = 2
every_seconds = 0
keep = 2
[smoke]
batches = 1
[[variants]]
name = "wide"
"""

# The bundled MLP, unchanged; each build() (after the runner has set up its numerics) appends
# what the run process trains under to the file that CUDA_PROBE names.
PROBE_TRAINER = '''
import json
import os

import torch

from trainers.mlp import build as build_mlp


def build(config, data):
    recipe = build_mlp(config, data)
    path = os.environ.get("CUDA_PROBE")
    if path:
        record = {
            "pid": os.getpid(),
            "deterministic": torch.are_deterministic_algorithms_enabled(),
            "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
            "cublas_workspace": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
            "cuda_available": torch.cuda.is_available(),
            "float32_matmul_precision": torch.get_float32_matmul_precision(),
        }
        with open(path, "a") as handle:
            handle.write(json.dumps(record) + "\\n")
    return recipe
'''

SEALED_FILES = ("results.json", "metrics.jsonl", "model.safetensors", "spec.json")
_CHECKPOINT = re.compile(r"^ckpt-(\d{9})-e(\d{5})\.pt$")


def cuda_project(make_project: Callable[..., Path], name: str, dropout: float) -> tuple[RunSpec, Path, Path]:
    root = make_project({"experiments/tiny.toml": CUDA_EXPERIMENT.format(dropout=dropout),
                         "trainers/probe.py": PROBE_TRAINER}, name=name)
    [spec] = expand_all(Project.at(root))
    path = root / "spec.json"
    path.write_text(json.dumps(spec.to_json()))
    return spec, root, path


def start(root: Path, spec_path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "EVIDENCE_PROGRESS": "off", "CUDA_PROBE": str(root / "probe.jsonl")}
    return subprocess.Popen(
        [sys.executable, "-m", "evidence.train.runner", "--project", str(root), "--spec", str(spec_path)],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(root: Path, spec_path: Path) -> tuple[str, float]:
    began = time.monotonic()
    process = start(root, spec_path)
    _, err = process.communicate(timeout=240)
    assert process.returncode == 0, err
    return err, time.monotonic() - began


def checkpoints_after_first_epoch(folder: Path) -> list[tuple[int, int]]:
    """(step, completed epochs) of the complete checkpoints (digest written) past epoch one."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        match = _CHECKPOINT.match(path.name)
        if match and int(match.group(2)) >= 1 and path.with_name(path.name + ".blake3").exists():
            found.append((int(match.group(1)), int(match.group(2))))
    return found


def sealed_digests(root: Path, spec: RunSpec) -> dict[str, str]:
    run = RunStore(root / "runs").find(spec.key)
    assert run is not None, f"no sealed run for {spec.key[:16]} in {root}"
    assert not RunStore(root / "runs").fsck_run(run.run_id), "the sealed run does not verify"
    files = run.read_json("manifest.json")["files"]
    return {name: files[name]["digest"] for name in SEALED_FILES}


def probe_records(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / "probe.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("dropout", [0.0, 0.2], ids=["no-dropout", "dropout"])
def test_sigkill_on_cuda_resumes_bit_identical(make_project: Callable[..., Path], dropout: float) -> None:
    print(f"\ntorch {torch.__version__} (CUDA {torch.version.cuda}) on {torch.cuda.get_device_name(0)}; "
          f"dropout {dropout}")

    # The run key names the device: a GPU run is another run than the same spec on the CPU.
    spec, plain, plain_path = cuda_project(make_project, "uninterrupted", dropout)
    assert spec.identity["device"] == "cuda"
    cpu_root = make_project({"experiments/tiny.toml": CUDA_EXPERIMENT.format(dropout=dropout)
                             .replace('device = "cuda"\n', ""),
                             "trainers/probe.py": PROBE_TRAINER}, name="cpu")
    [cpu_spec] = expand_all(Project.at(cpu_root))
    assert "device" not in cpu_spec.identity and cpu_spec.key != spec.key

    # 1. Uninterrupted.
    _, plain_seconds = finish(plain, plain_path)
    reference = sealed_digests(plain, spec)

    # 2. Killed after a checkpoint of the second epoch, then started again.
    killed_spec, root, path = cuda_project(make_project, "killed", dropout)
    assert killed_spec.key == spec.key  # the same run in another project folder
    folder = root / ".evidence" / "work" / spec.key[:16] / "checkpoints"
    began = time.monotonic()
    process = start(root, path)
    deadline = time.monotonic() + 240
    while not checkpoints_after_first_epoch(folder):
        assert process.poll() is None, f"the run ended before the kill: {process.communicate()[1]}"
        assert time.monotonic() < deadline, "no checkpoint past the first epoch in 240 s"
        time.sleep(0.001)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    killed_seconds = time.monotonic() - began
    assert process.returncode == -signal.SIGKILL
    assert RunStore(root / "runs").find(spec.key) is None, "the run sealed before the kill landed"
    step, epoch = max(checkpoints_after_first_epoch(folder))
    err, resumed_seconds = finish(root, path)
    assert "resuming" in err, err
    resumed = sealed_digests(root, spec)

    print(f"killed at or after step {step} (epoch {epoch} done); seconds: uninterrupted "
          f"{plain_seconds:.1f}, killed {killed_seconds:.1f}, resumed {resumed_seconds:.1f}")
    for name in SEALED_FILES:
        print(f"  {name:18} uninterrupted {reference[name][:16]}  resumed {resumed[name][:16]}"
              f"  {'same' if reference[name] == resumed[name] else 'DIFFERENT'}")

    # The runs trained on the GPU, and the record says so.
    for where in (plain, root):
        provenance = RunStore(where / "runs").find(spec.key).provenance  # type: ignore[union-attr]
        devices = provenance["environment"]["devices"]
        assert devices["kind"] == "cuda" and devices["names"] == [torch.cuda.get_device_name(0)]
        assert provenance["compute"]["device_kind"] == "cuda"
        assert provenance["compute"]["peak_device_memory_bytes"]
        assert provenance["numerics"]["gpu"] and provenance["numerics"]["cuda"] == torch.version.cuda
        assert provenance["numerics"]["environment"]["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
        assert provenance["resumes"] == (1 if where == root else 0)
        assert json.loads((RunStore(where / "runs").find(spec.key).path / "spec.json")  # type: ignore[union-attr]
                          .read_text())["identity"]["device"] == "cuda"

    # Every run process (the smoke check, training, verify-by-load) built its model under
    # deterministic settings; the killed project's record holds two processes.
    for where, processes in ((plain, 1), (root, 2)):
        records = probe_records(where)
        assert len({r["pid"] for r in records}) == processes, records
        for record in records:
            assert record["cuda_available"] and record["deterministic"] and not record["warn_only"], record
            assert record["cublas_workspace"] == ":4096:8", record
    print(f"  probe (training process): {records[-1]}")

    different = [name for name in SEALED_FILES if reference[name] != resumed[name]]
    if different:
        a = RunStore(plain / "runs").find(spec.key).results  # type: ignore[union-attr]
        b = RunStore(root / "runs").find(spec.key).results  # type: ignore[union-attr]
        pytest.fail(f"resumed on CUDA, the sealed {', '.join(different)} differ from the uninterrupted "
                    f"run's (killed after step {step}); metrics uninterrupted {a['metrics']}, "
                    f"resumed {b['metrics']}")
