"""How long ``evidence show`` takes on the harness's evidence project of N sealed runs.

    python bench/show.py --sizes 1000 10000 --repeats 5

The project is the one ``bench/projects.py`` writes for the harness (N runs of one experiment,
one per grid point, sealed through the store API; the harness's own folder is reused when it
exists, else the project is generated under ``<workdir>/show/<N>``). Timed, each as a fresh
``python -m evidence.cli`` process:

* *first look*: ``evidence show`` after its memos (``.evidence/cache/memo-show-*.json``) are
  deleted: every run's manifest and results.json read and checked once;
* *again*: the same command with nothing changed (the memos answer; no run file is read);
* ``--json``, ``--runs --sort accuracy`` and ``--where point=5,7`` with nothing changed.

Every repeat times the commands round-robin after one unmeasured warm-up. The section also
records whether torch was imported (``python -X importtime``). It replaces the ``show`` section of
``bench/results.md``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common
import projects

CASES = [("again", []), ("--json", ["--json"]),
         ("--runs --sort accuracy", ["--runs", "--sort", "accuracy"]),
         ("--where point=5,7", ["--where", "point=5,7"])]


def project_for(workdir: Path, n: int, workers: int) -> Path:
    """The harness's project of size ``n`` if it was prepared, else one generated here."""
    harness = workdir / str(n) / "evidence"
    if (harness / "runs").is_dir() and sum(1 for _ in (harness / "runs").iterdir()) >= n:
        return harness
    folder = workdir / "show" / str(n)
    if not ((folder / "runs").is_dir() and sum(1 for _ in (folder / "runs").iterdir()) >= n):
        projects.make_evidence(folder, n, git=False, workers=workers)
    return folder


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], folder: Path, env: dict[str, str]) -> tuple[tuple[float, float], str]:
    """((wall seconds, CPU seconds of the child), its output): on a shared machine the wall time
    includes waiting for a core, the CPU time does not."""
    start, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
    seconds, cpu_seconds = time.perf_counter() - start, _cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"`{' '.join(argv[1:])}` failed in {common.rel(folder)}:\n{done.stderr[-2000:]}")
    return (seconds, cpu_seconds), done.stdout


def forget_memos(folder: Path) -> None:
    for memo in (folder / ".evidence" / "cache").glob("memo-show-*.json"):
        memo.unlink()


def size_lines(n: int, folder: Path, env: dict[str, str], repeats: int) -> list[str]:
    show = [sys.executable, "-m", "evidence.cli", "show"]
    samples: dict[str, list[tuple[float, float]]] = {"first look": [], **{label: [] for label, _ in CASES}}
    for _, extra in CASES:  # warm-up (and the memos of an earlier engine replaced)
        timed([*show, *extra], folder, env)
    for r in range(repeats):
        forget_memos(folder)
        samples["first look"].append(timed(show, folder, env)[0])
        for label, extra in CASES[r % len(CASES):] + CASES[: r % len(CASES)]:
            samples[label].append(timed([*show, *extra], folder, env)[0])
    imports = subprocess.run([sys.executable, "-X", "importtime", *show[1:]], cwd=folder, env=env,
                             capture_output=True, text=True, check=True).stderr
    torch = any(line.rstrip().endswith("| torch") for line in imports.splitlines())
    head = timed([*show, "--width", "80"], folder, env)[1].splitlines()
    load = os.getloadavg()[0]
    lines = ["", f"### N = {n:,} ({n} sealed runs; load average {load:.1f} when measured)", "",
             "| command | median wall s | min–max wall s | median CPU s |", "|---|---:|---:|---:|"]
    for label, pairs in samples.items():
        walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
        shown = "evidence show" + ("" if label in ("first look", "again") else f" {label}")
        lines.append(f"| {shown} ({label if label in ('first look', 'again') else 'again'}) | "
                     f"{statistics.median(walls):.3f} | {min(walls):.3f}–{max(walls):.3f} | "
                     f"{statistics.median(cpus):.3f} |")
    lines += ["", f"torch imported: {'yes' if torch else 'no'} (`python -X importtime -m evidence.cli "
              "show`). The first lines it printed:", "", "```", *head[:8], "```"]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2, help="processes sealing runs")
    common.add_run_options(parser)
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve()
    engine = common.snapshot_engine(workdir, args.engine_rev)
    env = common.engine_env(engine)
    lines = ["## `evidence show`", "",
             common.produced_by(args.engine_rev) + " The harness's evidence project (N runs, one per"
             " grid point, sealed through the store API); each command a fresh process, medians of"
             " the repeats, the commands interleaved after one warm-up; CPU s is the child's user +"
             " system time (on a shared machine the wall time also counts waiting for a core)."
             " *First look*: its memos"
             " deleted before the command, so every run's manifest and results.json are read once."]
    for n in args.sizes:
        projects.check_size(n)
        folder = project_for(workdir, n, args.workers)
        lines += size_lines(n, folder, env, args.repeats)
        print("\n".join(lines[-20:]), flush=True)
    common.update_section("show", "\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
