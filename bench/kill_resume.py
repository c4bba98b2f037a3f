"""Kill a real training run at random moments with SIGKILL, resume it, and count bit-identical ends.

Usage: python bench/kill_resume.py [--kills 20] [--seed 0]

One uninterrupted reference run is trained first. Then, for each trial, a fresh project trains
the same spec while this script SIGKILLs the runner at a random moment (uniform over the run's
duration after start-up, so some kills land in checkpoint writes, some in evaluation, some in
the smoke pass or before the first checkpoint), restarts it (a second random kill half the
time), lets it finish, and compares results.json, metrics.jsonl and model.safetensors byte for
byte with the reference. Prints one line per trial and the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXPERIMENT = """
trainer = "mlp"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = 6
batch_size = 32
lr = 0.05
hidden = 512
dropout = 0.2
[checkpoint]
every_steps = 5
every_seconds = 0
keep = 2
[smoke]
batches = 1
[[variants]]
name = "kill"
"""
FILES = ("results.json", "metrics.jsonl", "model.safetensors")


def make_project(root: Path) -> Path:
    (root / "trainers").mkdir(parents=True)
    (root / "experiments").mkdir()
    for trainer in (REPO / "trainers").glob("*.py"):
        shutil.copy(trainer, root / "trainers" / trainer.name)
    (root / "experiments" / "k.toml").write_text(EXPERIMENT)
    sys.path.insert(0, str(REPO))
    from evidence.core.project import Project
    from evidence.experiments.spec import expand_all

    [spec] = expand_all(Project.at(root))
    path = root / "spec.json"
    path.write_text(json.dumps(spec.to_json()))
    return path


def start(root: Path, spec: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                             "--spec", str(spec)], cwd=root, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "EVIDENCE_PROGRESS": "off"})


def sealed(root: Path) -> dict[str, bytes]:
    [run] = [p for p in (root / "runs").iterdir() if p.is_dir()]
    return {name: (run / name).read_bytes() for name in FILES}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    chooser = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        reference_root = Path(tmp) / "reference"
        spec = make_project(reference_root)
        began = time.monotonic()
        subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(reference_root),
                        "--spec", str(spec)], check=True, cwd=reference_root, capture_output=True)
        duration = time.monotonic() - began
        reference = sealed(reference_root)
        identical = 0
        for trial in range(args.kills):
            root = Path(tmp) / f"trial{trial}"
            spec = make_project(root)
            moments = []
            for _ in range(1 + (chooser.random() < 0.5)):
                process = start(root, spec)
                moment = chooser.uniform(0.5, duration)
                time.sleep(moment)
                process.send_signal(signal.SIGKILL)
                process.wait()
                moments.append(f"{moment:.2f}s")
            leftovers = list((root / ".evidence" / "work").glob("*/checkpoints/.*"))
            subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                            "--spec", str(spec)], check=True, cwd=root, capture_output=True)
            same = sealed(root) == reference
            identical += same
            print(f"trial {trial:2d}: SIGKILL at {', '.join(moments)}"
                  f"{' (mid-write)' if leftovers else ''} -> {'bit-identical' if same else 'DIFFERS'}",
                  flush=True)
        print(f"{identical}/{args.kills} killed-and-resumed runs bit-identical to the uninterrupted run "
              f"(run length {duration:.1f}s)")
        return 0 if identical == args.kills else 1


if __name__ == "__main__":
    sys.exit(main())
