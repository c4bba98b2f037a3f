"""The cost of the own loop's resume self-check, against a training run of about a minute.

Usage: python bench/selfcheck_overhead.py [--target 60] [--repeats 3]

The run is `evidence init --template lightning`'s trainer (a LightningModule trained through
evidence.integrations.lightning) on scikit-learn's digits, one seed, its epochs chosen so that
training takes about ``--target`` seconds on this machine (calibrated from a short run first).
Each repeat trains the same spec twice through the real runner, in two fresh projects: with the
self-check (the default) and with ``[smoke] resume_check = false``. Reported per repeat: the
self-check's own time (the runner prints it), the wall time of both runs, and the overhead as
the self-check's time over the wall time of the run without it. Prints a Markdown table and the
medians.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXPERIMENT = """
trainer = "model"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = {epochs}
batch_size = 32
hidden = 128
dropout = 0.1
lr = 0.01
[checkpoint]
every_seconds = 30
{smoke}
"""


def project(parent: Path, name: str, epochs: int, check: bool) -> Path:
    root = parent / name
    subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root), "--template", "lightning",
                    "--no-git"], check=True, capture_output=True)
    smoke = "" if check else "[smoke]\nresume_check = false"
    (root / "experiments" / "main.toml").write_text(EXPERIMENT.format(epochs=epochs, smoke=smoke))
    return root


def train(root: Path) -> tuple[float, float | None]:
    """(wall seconds of the runner process, the self-check's seconds or None)."""
    sys.path.insert(0, str(REPO))
    from evidence.core.project import Project
    from evidence.experiments.spec import expand_all

    [spec] = expand_all(Project.at(root))
    (root / "spec.json").write_text(json.dumps(spec.to_json()))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root), "--spec",
                           str(root / "spec.json")], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off"})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"training failed in {root}:\n{done.stderr[-3000:]}")
    found = re.search(r"resume self-check passed in ([0-9.]+) s", done.stderr)
    return wall, float(found.group(1)) if found else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=60.0, help="seconds of training to aim for")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="selfcheck-bench-") as tmp:
        parent = Path(tmp)
        short_epochs = 5
        short, _ = train(project(parent, "calibrate-short", short_epochs, check=False))
        longer, _ = train(project(parent, "calibrate-long", 3 * short_epochs, check=False))
        per_epoch = max(1e-3, (longer - short) / (2 * short_epochs))
        fixed = max(0.0, short - short_epochs * per_epoch)
        epochs = max(1, round((args.target - fixed) / per_epoch))
        print(f"calibration: {per_epoch:.3f} s per epoch, {fixed:.1f} s fixed; {epochs} epochs "
              f"for about {args.target:.0f} s", flush=True)
        rows = []
        for repeat in range(args.repeats):
            order = [True, False] if repeat % 2 == 0 else [False, True]
            measured: dict[bool, tuple[float, float | None]] = {}
            for check in order:
                name = f"r{repeat}-{'on' if check else 'off'}"
                measured[check] = train(project(parent, name, epochs, check))
            (wall_on, seconds), (wall_off, _) = measured[True], measured[False]
            assert seconds is not None
            rows.append((wall_on, wall_off, seconds, seconds / wall_off))
            print(f"repeat {repeat + 1}: with the check {wall_on:.1f} s, without {wall_off:.1f} s, "
                  f"self-check {seconds:.2f} s = {100 * seconds / wall_off:.2f}%", flush=True)
    print("\n| repeat | wall with check s | wall without s | self-check s | overhead |")
    print("|---:|---:|---:|---:|---:|")
    for i, (on, off, seconds, share) in enumerate(rows, 1):
        print(f"| {i} | {on:.1f} | {off:.1f} | {seconds:.2f} | {100 * share:.2f}% |")
    print(f"\nmedian: self-check {statistics.median(r[2] for r in rows):.2f} s, overhead "
          f"{100 * statistics.median(r[3] for r in rows):.2f}% of a run of "
          f"{statistics.median(r[1] for r in rows):.0f} s ({epochs} epochs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
