"""Where the time of a no-op ``doit deliver`` goes, on the harness's synthetic evidence project.

    python bench/profile_noop.py --sizes 1000 10000

For each size it uses the project ``bench/harness.py`` generates (``<workdir>/<N>/evidence``;
made with ``--prepare-only`` if missing), runs one unmeasured no-op, times ``--repeats`` plain
no-ops, then one under ``cProfile`` (``python -m cProfile -o ... -m doit deliver``) and one
``python -X importtime`` import of ``dodo.py`` (the start-up imports, before any task is
built). It reports the cumulative time of the engine's and doit's main cost centres (these
overlap: a row includes the rows indented under it), the top functions by own time, and the
largest imports, and updates the ``profile`` section of ``bench/results.md``. cProfile slows
Python code down (about 1.5-2x here), so the profiled seconds are also shown scaled to the
unprofiled wall time (``≈ s``: the row's share of the profiled total times the median wall).
"""

from __future__ import annotations

import argparse
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common

#: (label, file suffix, function name); a label's leading spaces show nesting.
COSTS: tuple[tuple[str, str, str], ...] = (
    ("Python imports (all modules, start-up and lazy)", "<frozen importlib._bootstrap>", "_find_and_load"),
    ("doit: load tasks (every task creator runs)", "doit/loader.py", "load_tasks"),
    ("  up-to-date index check (one stat per watched path)", "evidence/core/upindex.py", "check"),
    ("    stat table of the watched paths", "evidence/core/upindex.py", "stat_table"),
    ("  tasks from the index (fast path)", "evidence/tasks/quick.py", "generate"),
    ("  train tasks built (full path: cached expansion + one survey of runs/)", "evidence/tasks/train.py",
     "train_tasks"),
    ("    store survey (listing + memoised manifest sizes + stat per file)", "evidence/store/survey.py",
     "survey"),
    ("  figure tasks built (full path)", "evidence/tasks/artifacts.py", "artifact_tasks"),
    ("  deliver tasks built (full path)", "evidence/tasks/deliver.py", "deliver_tasks"),
    ("doit: status of every task", "doit/dependency.py", "get_status"),
    ("  doit file_dep check (answered by the index on the fast path)", "doit/dependency.py",
     "check_modified"),
    ("  uptodate checks skipped or computed (tasks/moot.py)", "evidence/tasks/moot.py", "__call__"),
    ("deliver:summary action (the one task that runs on a no-op)", "evidence/deliver/summary.py",
     "summary_action"),
    ("doit: save task state (sqlite)", "doit/dependency.py", "close"),
    ("index or doit-database record written", "evidence/tasks/quick.py", "record_if_quiet"),
    ("stat-keyed memo lookups (memo.Memo.get)", "evidence/core/memo.py", "get"),
    ("JSON Schema validation (every validate call)", "evidence/core/schema.py", "validate"),
    ("experiment expansion, uncached (spec.expand)", "evidence/experiments/spec.py", "expand"),
    ("select() (answered from the spec index)", "evidence/experiments/select.py", "select"),
    ("JSON parsing (json.loads)", "json/__init__.py", "loads"),
    ("git (GitPython, provenance.git_state)", "evidence/core/provenance.py", "git_state"),
    ("file digests (hashing.digest_file)", "evidence/core/hashing.py", "digest_file"),
)


def doit_deliver(folder: Path, env: dict[str, str], profile: Path | None = None) -> float:
    """One ``doit deliver`` in ``folder``, under cProfile when ``profile`` names its output file."""
    argv = [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else []), "-m", "doit"]
    start = time.perf_counter()
    done = subprocess.run([*argv, "deliver"], cwd=folder, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if any(line.startswith(". train:") for line in done.stdout.splitlines()):
        raise SystemExit(f"`doit deliver` trained runs in {common.rel(folder)}: its runs were sealed under "
                         "another engine's keys; regenerate it with bench/harness.py --regenerate")
    if done.returncode != 0:
        raise SystemExit(f"`doit deliver` failed in {common.rel(folder)}:\n{done.stdout[-2000:]}"
                         f"{done.stderr[-2000:]}")
    return seconds


def cost_rows(stats: pstats.Stats) -> list[tuple[str, int, float]]:
    table = stats.stats  # type: ignore[attr-defined]
    rows = []
    for label, suffix, name in COSTS:
        calls, cum = 0, 0.0
        for (filename, _, function), (_, ncalls, _, cumtime, _) in table.items():
            if function == name and filename.replace(os.sep, "/").endswith(suffix):
                calls += ncalls
                cum += cumtime
        rows.append((label, calls, cum))
    return rows


def top_own(stats: pstats.Stats, limit: int) -> list[tuple[str, int, float]]:
    table = stats.stats  # type: ignore[attr-defined]
    entries = sorted(table.items(), key=lambda kv: kv[1][2], reverse=True)[:limit]
    out = []
    for (filename, line, function), (_, ncalls, tottime, _, _) in entries:
        where = re.sub(r"^.*?(site-packages/|/lib/python3\.\d+/)", "", filename.replace(os.sep, "/"))
        where = re.sub(r"^.*/evidence/", "evidence/", where)
        out.append((f"{where}:{line}({function})", ncalls, tottime))
    return out


def import_times(folder: Path, env: dict[str, str], limit: int) -> tuple[float, list[tuple[str, float]]]:
    """Start-up imports (``import dodo`` as doit does, no task built): total, and own time by package."""
    code = "import doit.doit_cmd, doit.loader, sys; sys.path.insert(0, '.'); import dodo"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=folder, env=env,
                          capture_output=True, text=True)
    packages: dict[str, float] = {}
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3:
            continue
        try:
            own = int(parts[0].split(":", 1)[1].strip()) / 1e6
        except ValueError:
            continue  # the header line
        package = parts[2].strip().split(".")[0]
        packages[package] = packages.get(package, 0.0) + own
    total = sum(packages.values())
    return total, sorted(packages.items(), key=lambda kv: kv[1], reverse=True)[:limit]


def profile_size(n: int, folder: Path, env: dict[str, str], args: argparse.Namespace) -> list[str]:
    doit_deliver(folder, env)  # warm-up (and settle anything left to do)
    walls = [doit_deliver(folder, env) for _ in range(args.repeats)]
    wall = statistics.median(walls)
    prof = args.workdir.resolve() / f"noop-{n}.prof"
    profiled = doit_deliver(folder, env, profile=prof)
    stats = pstats.Stats(str(prof))
    total = stats.total_tt  # type: ignore[attr-defined]
    imports_total, imports = import_times(folder, env, 8)
    print(f"N={n}: no-op median {wall:.2f} s (profiled run {profiled:.2f} s)", flush=True)
    lines = [
        "",
        f"### N = {n:,} ({n} runs, {n // 10} figures)",
        "",
        f"No-op wall time: median {wall:.2f} s of {args.repeats} (min {min(walls):.2f}, max"
        f" {max(walls):.2f}); under cProfile {profiled:.2f} s (profiled total {total:.2f} s).",
        "",
        "| cost centre | calls | profiled s | share | ≈ s |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, calls, cum in cost_rows(stats):
        indent = "&nbsp;&nbsp;&nbsp;&nbsp;" if label.startswith("  ") else ""
        lines.append(f"| {indent}{label.strip()} | {calls:,} | {cum:.2f} | {cum / total:.0%} "
                     f"| {cum / total * wall:.2f} |")
    lines += ["", f"Top {args.top} functions by own time:", "",
              "| function | calls | own s (profiled) |", "|---|---:|---:|"]
    lines += [f"| `{name}` | {calls:,} | {own:.2f} |" for name, calls, own in top_own(stats, args.top)]
    lines += ["", "Start-up imports (`import dodo` under `-X importtime`, before any task is built):"
              f" {imports_total:.2f} s; own import time by package: "
              + ", ".join(f"`{name}` {secs:.2f} s" for name, secs in imports) + "."]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=3, help="unprofiled no-ops timed per size")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--section", default=None, help="section of the results file to replace")
    common.add_run_options(parser)
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve()
    engine = common.snapshot_engine(workdir, args.engine_rev)
    env = common.engine_env(engine)
    stamp = common.produced_by(args.engine_rev)
    lines = ["## Profile of a no-op `doit deliver` (evidence, synthetic project)", "",
             stamp + " The project is the harness's (N runs, N/10 figures), fully built; the"
             " profiled command is `python -m cProfile -o <file> -m doit deliver` in it. Rows"
             " overlap (an indented row is part of the row above it, and the bottom rows cut"
             " across the top ones); `≈ s` scales the profiled seconds to the unprofiled median"
             " wall time."]
    for n in args.sizes:
        lines += profile_size(n, common.prepare_evidence(workdir, n, args.engine_rev), env, args)
    section = args.section or "profile"
    common.update_section(section, "\n".join(lines), args.out)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
