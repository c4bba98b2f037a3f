"""Per-run overhead with and without the warm worker, on the bundled example's runs.

    python bench/warm_worker.py [--repeats 5] [--sweeps 2]

Copies ``experiments/digits.toml`` (20 runs), ``presets.toml`` and ``trainers/`` into a project
under ``bench/.work/warm/`` (as ``bench/training.py`` does) and trains for real, the two
launch modes interleaved (``EVIDENCE_WARM_WORKER=1``: each run is a child forked from the warm
worker, torch already imported; ``=0``: a fresh ``python -m evidence.train.runner`` per run):

* **one run**: ``doit train:digits/mlp-s0`` with an empty run store, ``--repeats`` times per
  mode; the first warm sample after the worker's socket is removed is reported apart as
  *cold* (it starts the worker);
* **sweep**: ``doit train`` of all 20 runs from an empty run store, ``--sweeps`` times per mode.

From each sealed run's ``provenance.json``: ``wall_seconds`` (the run's own time: smoke check,
training loop, verify-by-load and sealing) and ``launch.startup_seconds`` (from the dispatcher's
launch to the runner's start). *Overhead* is the whole ``doit`` command's wall time minus the
runs' own time: interpreter start-up, imports, doit building its task list, the launch. Updates
the ``warm-worker`` section of ``bench/results.md``.
"""

from __future__ import annotations

import argparse
import json
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


def row(label: str, samples: list[dict[str, float]]) -> str:
    def med(key: str) -> float:
        return statistics.median(s[key] for s in samples)

    runs = int(samples[0]["runs"])
    overheads = [s["overhead"] / runs for s in samples]
    return (f"| {label} | {runs} | {len(samples)} | {med('whole'):.2f} | {med('own') / runs:.3f} | "
            f"{med('startup'):.3f} | {statistics.median(overheads):.3f} | {min(overheads):.3f}–"
            f"{max(overheads):.3f} |")


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

    shutil.rmtree(folder / ".evidence" / "worker", ignore_errors=True)
    cold = sample(folder, envs["warm worker"], "train:digits/mlp-s0")
    print(f"cold warm worker: {cold['whole']:.2f} s", flush=True)
    one: dict[str, list[dict[str, float]]] = {name: [] for name in MODES}
    sweep: dict[str, list[dict[str, float]]] = {name: [] for name in MODES}
    names = list(MODES)
    for r in range(max(args.repeats, args.sweeps)):
        for name in names[r % 2:] + names[: r % 2]:
            if r < args.repeats:
                one[name].append(sample(folder, envs[name], "train:digits/mlp-s0"))
                print(f"one run   {r + 1}: {name:<16} {one[name][-1]['whole']:.2f} s", flush=True)
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
        "| command, mode | runs | samples | whole s (median) | own s per run | start-up s per run "
        "| overhead s per run (median) | min–max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        row("`doit train:digits/mlp-s0`, warm worker (cold: starts it)", [cold]),
    ]
    lines += [row(f"`doit train:digits/mlp-s0`, {name}", one[name]) for name in MODES]
    lines += [row(f"`doit train` (20 runs), {name}", sweep[name]) for name in MODES]
    warm, process = (statistics.median(s["whole"] for s in sweep[n]) for n in MODES)
    lines += ["", f"Sweep of 20 runs: {process:.1f} s with a process per run, {warm:.1f} s with the "
              f"warm worker ({process / warm:.1f}× faster)."]
    print("\n".join(lines))
    common.update_section("warm-worker", "\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
