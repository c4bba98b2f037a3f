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
import datetime as dt
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common

#: ``python -m cProfile -o FILE <script>`` needs a script: doit's ``__main__`` as a file.
DOIT_MAIN = common.BENCH / "whatif.py"  # with no --patches it is plain ``doit``

#: (label, file suffix, function name); a label's leading spaces show nesting.
COSTS: tuple[tuple[str, str, str], ...] = (
    ("Python imports (all modules, start-up and lazy)", "<frozen importlib._bootstrap>", "_find_and_load"),
    ("doit: load tasks (every task builder runs)", "doit/loader.py", "load_tasks"),
    ("  train tasks built (experiment expansion + RunStore.find per run)", "evidence/tasks.py",
     "train_tasks"),
    ("  figure tasks built (select + run_files per figure)", "evidence/figure_tasks.py", "artifact_tasks"),
    ("  verify tasks built", "evidence/verify_tasks.py", "task_verify"),
    ("  deliver tasks built (figure_index reads every sidecar)", "evidence/deliver.py", "task_deliver"),
    ("doit: status of every task", "doit/dependency.py", "get_status"),
    ("  train uptodate: sealed_and_intact (find + quick_check)", "evidence/tasks.py", "sealed_and_intact"),
    ("  disclose uptodate: run_files_fingerprint (stat of every run file)", "evidence/deliver.py",
     "run_files_fingerprint"),
    ("  doit file_dep check (stat; md5 when the mtime moved)", "doit/dependency.py", "check_modified"),
    ("deliver:package action (uptodate=False: runs on every no-op)", "evidence/deliver.py",
     "package_action"),
    ("doit: save task state (sqlite)", "doit/dependency.py", "close"),
    ("RunStore.find (a glob over runs/ per call)", "evidence/store.py", "find"),
    ("RunStore.quick_check (manifest parse + schema + stat per file)", "evidence/store.py", "quick_check"),
    ("JSON Schema validation (every validate call)", "evidence/schema.py", "validate"),
    ("experiment expansion (spec.expand)", "evidence/spec.py", "expand"),
    ("run key digests (RunSpec.key: canonical JSON + BLAKE3)", "evidence/spec.py", "key"),
    ("select() (match every spec of the experiment)", "evidence/select.py", "select"),
    ("JSON parsing (json.loads)", "json/__init__.py", "loads"),
    ("TOML parsing (tomllib.loads)", "tomllib/_parser.py", "loads"),
    ("git (GitPython, provenance.git_state)", "evidence/provenance.py", "git_state"),
    ("data identity (split digest cache)", "evidence/data.py", "data_identity"),
    ("file digests (hashing.digest_file)", "evidence/hashing.py", "digest_file"),
)


def doit_deliver(folder: Path, env: dict[str, str], profile: Path | None = None, patches: str = "") -> float:
    """One ``doit deliver`` in ``folder`` (through bench/whatif.py when ``patches`` are given)."""
    argv = [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else [])]
    if patches:
        argv += [str(common.BENCH / "whatif.py"), "--patches", patches]
    else:
        argv += [str(DOIT_MAIN)] if profile else ["-m", "doit"]
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


def prepare(workdir: Path, n: int, rev: str | None) -> Path:
    """The harness's project for N, (re)generated and built for this engine if need be.

    The harness regenerates a project whose runs were sealed under another engine's keys, so a
    no-op below never starts training.
    """
    subprocess.run([sys.executable, str(common.BENCH / "harness.py"), "--sizes", str(n),
                    "--tools", "evidence", "--prepare-only", "--workdir", str(workdir),
                    *(["--engine-rev", rev] if rev else [])], check=True)
    return workdir / str(n) / "evidence"


def profile_size(n: int, folder: Path, env: dict[str, str], args: argparse.Namespace) -> list[str]:
    doit_deliver(folder, env, patches=args.patches)  # warm-up (and settle anything left to do)
    walls = [doit_deliver(folder, env, patches=args.patches) for _ in range(args.repeats)]
    wall = statistics.median(walls)
    suffix = "-" + args.patches.replace(",", "-") if args.patches else ""
    prof = args.workdir.resolve() / f"noop-{n}{suffix}.prof"
    profiled = doit_deliver(folder, env, profile=prof, patches=args.patches)
    stats = pstats.Stats(str(prof))
    total = stats.total_tt  # type: ignore[attr-defined]
    imports_total, imports = import_times(folder, env, 8)
    print(f"N={n}: no-op median {wall:.2f} s (profiled run {profiled:.2f} s)", flush=True)
    lines = [
        "",
        f"### N = {n:,} ({n} runs, {n // 10} figures)"
        + (f", with the prototype patches `{args.patches}`" if args.patches else ""),
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


LADDER = ("", "find", "find,quick", "find,quick,key", "find,quick,key,select")


def ladder_size(n: int, folder: Path, env: dict[str, str], args: argparse.Namespace) -> list[str]:
    """No-op wall time with the prototype patches added one by one (interleaved round-robin)."""
    steps = [p for p in LADDER if p or n <= args.baseline_max_size]
    for patches in steps:
        doit_deliver(folder, env, patches=patches)  # warm-up
    walls: dict[str, list[float]] = {p: [] for p in steps}
    for r in range(args.repeats):
        for patches in steps[r % len(steps):] + steps[: r % len(steps)]:
            walls[patches].append(doit_deliver(folder, env, patches=patches))
            print(f"N={n} [{patches or 'engine as is'}]: {walls[patches][-1]:.2f} s", flush=True)
    lines = ["", f"### N = {n:,}", "", "| engine | no-op median s | min–max s | vs previous row |",
             "|---|---:|---:|---:|"]
    previous = None
    for patches in steps:
        med = statistics.median(walls[patches])
        gain = f"{previous / med:.1f}× faster" if previous else "–"
        lines.append(f"| {'+ ' + patches.split(',')[-1] if patches else 'as is'} | {med:.2f} | "
                     f"{min(walls[patches]):.2f}–{max(walls[patches]):.2f} | {gain} |")
        previous = med
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=3, help="unprofiled no-ops timed per size")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--patches", default="",
                        help="profile with these prototype patches of bench/whatif.py (comma-separated)")
    parser.add_argument("--ladder", action="store_true",
                        help="instead of profiling, time no-ops with the prototype patches added one by one")
    parser.add_argument("--baseline-max-size", type=int, default=1000,
                        help="largest N at which --ladder also times the unpatched engine")
    parser.add_argument("--section", default=None, help="section of the results file to replace")
    parser.add_argument("--workdir", type=Path, default=common.BENCH / ".work")
    parser.add_argument("--out", type=Path, default=common.RESULTS)
    parser.add_argument("--engine-rev", default=None,
                        help="use the engine as committed at this git revision (default: the working tree)")
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve()
    engine = common.snapshot_engine(workdir, args.engine_rev)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVIDENCE_", "PYTHON"))}
    env["PYTHONPATH"] = str(engine)
    stamp = (f"Produced by: `{common.command_line()}`;"
             f" {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')}; {common.machine()};"
             f" engine at commit {common.engine_state(args.engine_rev)}.")
    if args.ladder:
        lines = ["## What the proposed engine changes would gain: prototype patches, no-op `doit deliver`",
                 "", stamp + " The patches (`bench/whatif.py`, monkeypatched in memory, no engine file"
                 " touched) are added one by one: `find` = RunStore.find from one cached listing of"
                 " runs/; `quick` = quick_check without JSON Schema validation; `key` = RunSpec.key"
                 " computed once; `select` = selections answered from an index of specs by filter"
                 " value. Median of the repeats, variants interleaved."]
        for n in args.sizes:
            lines += ladder_size(n, prepare(workdir, n, args.engine_rev), env, args)
        section = args.section or "whatif"
    else:
        title = "## Profile of a no-op `doit deliver` (evidence, synthetic project)"
        if args.patches:
            title += f", with the prototype patches `{args.patches}` of bench/whatif.py"
        lines = [title, "",
                 stamp + " The project is the harness's (N runs, N/10 figures), fully built; the"
                 " profiled command is `python -m cProfile -o <file> -m doit deliver` in it. Rows"
                 " overlap (an indented row is part of the row above it, and the bottom rows cut"
                 " across the top ones); `≈ s` scales the profiled seconds to the unprofiled median"
                 " wall time."]
        for n in args.sizes:
            lines += profile_size(n, prepare(workdir, n, args.engine_rev), env, args)
        section = args.section or ("profile" if not args.patches else "profile-patched")
    common.update_section(section, "\n".join(lines), args.out)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
