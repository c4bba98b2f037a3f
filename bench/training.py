"""Training path: checkpoint overhead and `doit -n 2` vs `-n 1` on the bundled example.

    python bench/training.py [--repeats 3]

Copies the repository's ``experiments/digits.toml`` (the bundled example's 20 runs: MLP, wide
MLP, CNN and the shuffled-label control, five seeds each), ``presets.toml`` (the experiment
picks its preset by memory fit) and ``trainers/`` into temporary
projects under ``bench/.work/training/`` with a one-task ``dodo.py`` (``task_train`` only) and
an empty run store (:func:`reset`: the engine's memos and warm worker kept), and trains all 20
runs for real (``doit train``: one ``python -m evidence.train.runner`` process per run) in three
configurations, interleaved round-robin:

* ``default -n 1``: the experiment's own cadence (``every_seconds = 30``; each run is shorter
  than that, so it writes no periodic checkpoint), serial;
* ``default -n 2``: the same with ``doit -n 2 train`` (two runs at a time);
* ``dense -n 1``: ``[checkpoint] every_steps = 50`` (a checkpoint every 50 optimizer steps), so
  the overhead share says something.

Checkpoint overhead comes from each sealed run's ``provenance.json``: ``checkpoint_seconds``
(summed time spent writing checkpoints), ``checkpoints_written`` and ``wall_seconds`` (the
runner's wall time from the start of the run, after its imports). The wall time of the whole
``doit`` command (process start-up, imports, smoke checks, sealing included) is measured
around it, with the time until doit started the first run and the time from the last seal to the
exit (the serial ends that ``-n 2`` cannot overlap). Each project's warm worker
(:mod:`evidence.scale.warm`, which outlives a sweep by its idle time) is started by one untimed
sweep first, so every sample finds it running, as a researcher's second sweep does. Updates the
``training`` section of ``bench/results.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import common

DODO = '''"""Training benchmark: the train task of the bundled example only."""

from pathlib import Path

from evidence.tasks import base as tasks
from evidence.tasks import train as train_tasks
from evidence.core.project import Project

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = tasks.doit_config(PROJECT)


def task_train():
    return train_tasks.task_train(PROJECT)
'''

CONFIGS = {"default -n 1": ("default", 1), "default -n 2": ("default", 2), "dense -n 1": ("dense", 1)}


def make_project(folder: Path, cadence: str) -> None:
    if folder.exists():
        subprocess.run(["chmod", "-R", "u+w", str(folder)], check=False)
        shutil.rmtree(folder)
    (folder / "experiments").mkdir(parents=True)
    shutil.copytree(common.REPO / "trainers", folder / "trainers",
                    ignore=shutil.ignore_patterns("__pycache__"))
    text = (common.REPO / "experiments" / "digits.toml").read_text("utf-8")
    if cadence == "dense":
        text, count = re.subn(r"(?m)^\[checkpoint\]\n", "[checkpoint]\nevery_steps = 50\n", text)
        if count != 1:
            raise SystemExit("experiments/digits.toml has no [checkpoint] table to make denser")
    (folder / "experiments" / "digits.toml").write_text(text, "utf-8")
    (folder / "dodo.py").write_text(DODO, "utf-8")
    shutil.copyfile(common.REPO / "presets.toml", folder / "presets.toml")  # digits.toml: preset = "auto"


#: What a researcher's next sweep still finds in ``.evidence/``: the memos (the data's identity,
#: the code stamps), the warm worker, the chosen presets and devices. Everything else (the run
#: store, doit's database, run work folders and outcomes) is the sweep's own and starts empty.
KEPT_STATE = frozenset({"cache", "worker", "presets", "devices", "locks"})


def reset(folder: Path) -> None:
    """An empty run store and a fresh doit state, the engine's caches and warm worker kept (as they
    are for a researcher's second sweep: wiping them made every sample pay the data's identity,
    2.5 s, and a cold worker, which no sweep after the first pays)."""
    paths = [folder / "runs"]
    state = folder / ".evidence"
    if state.is_dir():
        paths += [p for p in state.iterdir() if p.name not in KEPT_STATE]
    for path in paths:
        if path.is_dir():
            subprocess.run(["chmod", "-R", "u+w", str(path)], check=False)
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def train(folder: Path, jobs: int, env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, s until doit printed the first run's title, s from the last seal to the exit): the
    two serial ends of a sweep that ``-n 2`` cannot overlap (the first only with ``-n 1``, see
    :func:`first_started`)."""
    argv = [sys.executable, "-m", "doit", *(["-n", str(jobs)] if jobs > 1 else []), "train"]
    start = time.perf_counter()
    first = last = float("nan")
    lines: list[str] = []
    with subprocess.Popen(argv, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            now = time.perf_counter() - start
            lines.append(line)
            if line.startswith(".  train:") and first != first:
                first = now
            if line.startswith("sealed "):
                last = now
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"`doit train` failed in {common.rel(folder)}:\n{''.join(lines)[-6000:]}")
    return seconds, first, seconds - last


def first_started(name: str, ends: list[tuple[float, float]]) -> str:
    """The median start of the first run, where doit says it: its parallel runner prints a task's
    title only when the task's result comes back (after the sweep), so for ``-n 2`` it is not known."""
    return f"{statistics.median(e[0] for e in ends):.2f}" if CONFIGS[name][1] == 1 else "–"


def provenance(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text("utf-8")) for p in sorted((folder / "runs").glob("*/provenance.json"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    common.add_run_options(parser)
    args = parser.parse_args(argv)
    engine = common.snapshot_engine(args.workdir, args.engine_rev)
    env = common.engine_env(engine)
    root = args.workdir.resolve() / "training"
    folders = {"default": root / "default", "dense": root / "dense"}
    for cadence, folder in folders.items():
        make_project(folder, cadence)
    walls: dict[str, list[float]] = {name: [] for name in CONFIGS}
    ends: dict[str, list[tuple[float, float]]] = {name: [] for name in CONFIGS}
    records: dict[str, list[dict[str, Any]]] = {name: [] for name in CONFIGS}
    names = list(CONFIGS)
    for folder in folders.values():  # untimed: start each project's warm worker, so that no
        reset(folder)                # sample pays the one-off torch import of a cold one
        train(folder, 1, env)
    for r in range(args.repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            cadence, jobs = CONFIGS[name]
            reset(folders[cadence])
            seconds, first, tail = train(folders[cadence], jobs, env)
            ends[name].append((first, tail))
            runs = provenance(folders[cadence])
            if len(runs) != 20:
                raise SystemExit(f"{name}: expected 20 sealed runs, found {len(runs)}")
            walls[name].append(seconds)
            records[name].extend(runs)
            print(f"repeat {r + 1}: {name:<13} {seconds:7.1f} s (first title at {first:.2f} s, "
                  f"{tail:.2f} s after the last seal)", flush=True)

    def share(runs: list[dict[str, Any]]) -> tuple[float, float, float, float]:
        ckpt = sum(float(p.get("checkpoint_seconds", 0.0)) for p in runs)
        wall = sum(float(p["wall_seconds"]) for p in runs)
        per_run = statistics.median(float(p.get("checkpoint_seconds", 0.0)) / float(p["wall_seconds"])
                                    for p in runs)
        written = statistics.mean(int(p.get("checkpoints_written", 0)) for p in runs)
        return ckpt / wall, per_run, written, wall / len(runs)

    lines = [
        "## Training path: checkpoint overhead and `doit -n 2` vs `-n 1`",
        "",
        common.produced_by(args.engine_rev) +
        " The bundled example's 20-run digits experiment"
        " (copies of `experiments/digits.toml`, `presets.toml` and `trainers/`, an empty run store"
        " and doit state per sample, the engine's memos and warm worker kept as a second sweep finds"
        " them),"
        " trained for real by `doit train`; medians over the repeats, configurations interleaved.",
        "",
        "| configuration | `doit` wall s (median) | min–max s | runner wall s per run (mean) "
        "| checkpoints per run | checkpoint share (sum ckpt s / sum wall s) | median per-run share "
        "| s until the first run started (median) | s after the last seal (median) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in CONFIGS:
        total, per_run, written, mean_wall = share(records[name])
        lines.append(f"| `{name}` | {statistics.median(walls[name]):.1f} | {min(walls[name]):.1f}–"
                     f"{max(walls[name]):.1f} | {mean_wall:.2f} | {written:.1f} | {total:.2%} | "
                     f"{per_run:.2%} | {first_started(name, ends[name])} "
                     f"| {statistics.median(e[1] for e in ends[name]):.2f} |")
    one, two = statistics.median(walls["default -n 1"]), statistics.median(walls["default -n 2"])
    lines += ["", f"`doit -n 2 train` vs `doit train` (-n 1): {one:.1f} s -> {two:.1f} s, a speed-up of "
              f"{one / two:.2f}× on {os.cpu_count()} cores (ideal: {min(2, os.cpu_count() or 1)}×)."]
    print("\n".join(lines))
    common.update_section("training", "\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
