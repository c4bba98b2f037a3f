"""Per-run overhead with and without the warm worker, on the bundled example's runs.

    python bench/warm_worker.py [--repeats 5] [--sweeps 2]

Copies ``experiments/digits.toml`` (20 runs), ``presets.toml`` and ``trainers/`` into a project
under ``bench/.work/warm/`` (as ``bench/training.py`` does) and trains for real, the two
launch modes interleaved (``EVIDENCE_WARM_WORKER=1``: each run is a child forked from the warm
worker, torch already imported; ``=0``: a fresh ``python -m evidence.train.runner`` per run):

* **one run**: ``doit train:digits/mlp-s0`` with an empty run store, ``--repeats`` times per
  mode; a first sample in a new project folder (so no worker of an earlier call answers) is
  reported apart as *cold*: it starts the worker (the measured folder's own worker is started
  by an unrecorded sample before the others);
* **forced, sealed**: ``doit -a train:digits/mlp-s0`` with the run sealed: doit runs the task,
  the runner finds the run in the store and stops; no training at all, so the whole command is
  overhead (doit, the launch, the runner's lock and store look-up, the process's exit);
* **sweep**: ``doit train`` of all 20 runs from an empty run store, ``--sweeps`` times per mode.

From each sealed run's ``provenance.json``: ``wall_seconds`` (the run's own time: smoke check,
training loop, verify-by-load and sealing) and ``launch.startup_seconds`` (from the dispatcher's
launch to the runner's start). *Overhead* is the whole ``doit`` command's wall time minus the
runs' own time: interpreter start-up, imports, doit building its task list, the launch, the
git state and sealing. Updates the ``warm-worker`` section of ``bench/results.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import common
from training import make_project

MODES = {"warm worker": "1", "process per run": "0"}


def empty_store(folder: Path) -> None:
    runs = folder / "runs"
    if runs.exists():
        subprocess.run(["chmod", "-R", "u+w", str(runs)], check=False)
        shutil.rmtree(runs)


def timed(folder: Path, env: dict[str, str], *args: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "doit", *args], cwd=folder, env=env, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"`doit {' '.join(args)}` failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return seconds


def sealed(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text("utf-8")) for p in sorted((folder / "runs").glob("*/provenance.json"))]


def sample(folder: Path, env: dict[str, str], *args: str) -> dict[str, float]:
    empty_store(folder)
    whole = timed(folder, env, *args)
    runs = sealed(folder)
    own = sum(float(r["wall_seconds"]) for r in runs)
    startup = [float(r.get("launch", {}).get("startup_seconds", float("nan"))) for r in runs]
    return {"whole": whole, "own": own, "overhead": whole - own, "runs": len(runs),
            "startup": statistics.median(startup)}


def forced(folder: Path, env: dict[str, str]) -> dict[str, float]:
    """``doit -a train:digits/mlp-s0`` with the run sealed: all of it is overhead."""
    if not sealed(folder):
        timed(folder, env, "train:digits/mlp-s0")
    whole = timed(folder, env, "-a", "train:digits/mlp-s0")
    return {"whole": whole, "own": 0.0, "overhead": whole, "runs": 1, "startup": float("nan")}


def row(label: str, samples: list[dict[str, float]]) -> str:
    def med(key: str) -> float:
        return statistics.median(s[key] for s in samples)

    runs = int(samples[0]["runs"])
    overheads = [s["overhead"] / runs for s in samples]
    startup = med("startup")
    return (f"| {label} | {runs} | {len(samples)} | {med('whole'):.2f} | {med('own') / runs:.3f} | "
            f"{'–' if startup != startup else f'{startup:.3f}'} | {statistics.median(overheads):.3f} | "
            f"{min(overheads):.3f}–{max(overheads):.3f} |")


def per_run_overhead(samples: list[dict[str, float]]) -> float:
    return statistics.median(s["overhead"] / s["runs"] for s in samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sweeps", type=int, default=2)
    common.add_run_options(parser)
    args = parser.parse_args(argv)
    engine = common.snapshot_engine(args.workdir, args.engine_rev)
    folder = args.workdir.resolve() / "warm" / "digits"
    make_project(folder, "default")
    base = common.engine_env(engine)
    envs = {name: {**base, "EVIDENCE_WARM_WORKER": flag} for name, flag in MODES.items()}
    timed(folder, envs["process per run"], "list")  # resolves the auto preset once, for both

    fresh = folder.with_name(f"cold-{os.getpid()}")  # a new project: no worker answers for it yet
    make_project(fresh, "default")
    timed(fresh, envs["warm worker"], "list")
    cold = sample(fresh, envs["warm worker"], "train:digits/mlp-s0")
    empty_store(fresh)
    shutil.rmtree(fresh)
    print(f"cold warm worker: {cold['whole']:.2f} s", flush=True)
    sample(folder, envs["warm worker"], "train:digits/mlp-s0")  # this folder's worker, unrecorded
    one: dict[str, list[dict[str, float]]] = {name: [] for name in MODES}
    sealed_one: dict[str, list[dict[str, float]]] = {name: [] for name in MODES}
    sweep: dict[str, list[dict[str, float]]] = {name: [] for name in MODES}
    names = list(MODES)
    for r in range(max(args.repeats, args.sweeps)):
        for name in names[r % 2:] + names[: r % 2]:
            if r < args.repeats:
                one[name].append(sample(folder, envs[name], "train:digits/mlp-s0"))
                print(f"one run   {r + 1}: {name:<16} {one[name][-1]['whole']:.2f} s", flush=True)
                sealed_one[name].append(forced(folder, envs[name]))
                print(f"forced    {r + 1}: {name:<16} {sealed_one[name][-1]['whole']:.2f} s", flush=True)
            if r < args.sweeps:
                sweep[name].append(sample(folder, envs[name], "train"))
                print(f"sweep     {r + 1}: {name:<16} {sweep[name][-1]['whole']:.1f} s", flush=True)

    lines = [
        "## Per-run overhead: the warm worker vs a process per run",
        "",
        common.produced_by(args.engine_rev) + " The bundled example's 20-run digits experiment "
        "(copies of `experiments/digits.toml`, `presets.toml` and `trainers/`), trained for real "
        "from an empty run store per sample, the two modes interleaved. *Own* is each run's "
        "recorded `wall_seconds` (smoke check, training loop, verify-by-load, sealing); *start-up* "
        "its recorded `launch.startup_seconds`; *overhead per run* is (whole `doit` wall time − the "
        "runs' own time) / runs: interpreter start-up, imports, doit's task list, the launch.",
        "",
        "| command, mode | runs | samples | whole s (median) | own s per run | start-up s per run (median) "
        "| overhead s per run (median) | min–max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        row("`doit train:digits/mlp-s0`, warm worker (cold: starts it)", [cold]),
    ]
    lines += [row(f"`doit train:digits/mlp-s0`, {name}", one[name]) for name in MODES]
    lines += [row(f"`doit -a train:digits/mlp-s0` (sealed: no training), {name}", sealed_one[name])
              for name in MODES]
    lines += [row(f"`doit train` (20 runs), {name}", sweep[name]) for name in MODES]
    warm, process = (statistics.median(s["whole"] for s in sweep[n]) for n in MODES)
    swept = {n: per_run_overhead(sweep[n]) for n in MODES}
    lines += ["", f"Sweep of 20 runs: {process:.1f} s with a process per run, {warm:.1f} s with the "
              f"warm worker ({process / warm:.1f}× faster); overhead per run "
              f"{swept['process per run']:.2f} s -> {swept['warm worker']:.2f} s. Target (issue): "
              f"per-run overhead ≤ 0.3 s warm: "
              f"{'**met**' if swept['warm worker'] <= 0.3 else '**not met**'} in the sweep; a single "
              f"`doit train:X` adds doit's own start-up and task list once "
              f"({per_run_overhead(sealed_one['warm worker']):.2f} s with nothing to train)."]
    print("\n".join(lines))
    common.update_section("warm-worker", "\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
