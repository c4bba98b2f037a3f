"""The edit loop: what one changed input costs, for two engines and plain doit, interleaved.

    python bench/editloop.py --size 1000 --repeats 5 --before REV [--after REV]

Uses the evidence and plain-doit projects of ``bench/harness.py`` (``<workdir>/<N>/``; made with
``--prepare-only`` if missing). The evidence project is copied once per engine
(``<workdir>/<N>/evidence@<engine>``: each engine keeps its own doit database, memos and
up-to-date index), and every sample of every engine and of plain doit is taken in one
round-robin, so a busy machine slows them alike. What one repeat does, per project:

* **one experiment value changed**: the harness's toggle (one grid value, one run key), then
  ``doit --reporter json deliver`` (plain doit: one run's config changes);
* **the first no-op after a build**: after the racily-clean window (2 s) has passed, so that
  the call takes the full path and records the up-to-date index (no-ops run with doit's console
  reporter, which is what records the index; their own work is then not split out);
* **no-op**: the next ``doit deliver``, answered from the index;
* **one sentence of the paper template changed**: a sentence of ``paper/paper.md.j2`` toggles
  (after that no-op: a researcher looked at the paper, then edits it);
* **one figure spec changed**: then the y label of ``figures/b00001/figure.toml`` toggles.

The wall time of a busy machine says little; the CPU time (user + system) of the command's
process tree is reported beside it.

doit's JSON reporter times each rebuilt task's actions: *own work*; the rest of the wall time is
*overhead* (start-up, the task list, status checks, saving state). Results replace the
``edit-loop`` section of ``bench/results.md`` (``edit-loop-<N>`` for another N), which ends with
issue #35's targets at that N.
"""

from __future__ import annotations

import argparse
import datetime as dt
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
import harness
import projects

#: Largest N at which Snakemake is measured (its edit at N=10,000 takes minutes).
SNAKEMAKE_MAX = 1000
SENTENCE = ("This sentence is the one the benchmark edits.", "This sentence is the one the benchmark edited.")
YLABEL = ('ylabel = "test accuracy"', 'ylabel = "accuracy on the test split"')
#: (measure, label in the report); the order of one repeat.
MEASURES = (("experiment", "one experiment value changed"),
            ("first-noop", "the first no-op after a build (full path, records the index)"),
            ("noop", "no-op"),
            ("sentence", "one sentence of the paper template changed"),
            ("figspec", "one figure spec changed"))


def toggle_text(path: Path, pair: tuple[str, str], append: bool = False) -> None:
    text = path.read_text("utf-8")
    if pair[0] in text:
        text = text.replace(pair[0], pair[1])
    elif pair[1] in text:
        text = text.replace(pair[1], pair[0])
    elif append:
        text = text.rstrip("\n") + "\n\n" + pair[0] + "\n"
    else:
        raise SystemExit(f"{path}: neither {pair[0]!r} nor {pair[1]!r} found")
    projects.replace_text(path, text)


def prepare(size: harness.Size, engines: dict[str, Path]) -> dict[str, Path]:
    """One copy of the built evidence project per engine, built and indexed with that engine."""
    folders = {}
    source = size.folder("evidence")
    for name in engines:
        folder = size.root / f"evidence@{name}"
        if not folder.exists():
            subprocess.run(["cp", "-a", str(source), str(folder)], check=True)
            for state in ("doit.sqlite3", "upindex.json", "upindex-signatures.bin",
                          "upindex-database.json"):
                (folder / ".evidence" / state).unlink(missing_ok=True)
            shutil.rmtree(folder / ".evidence" / "cache", ignore_errors=True)
        toggle_text(folder / "paper" / "paper.md.j2", SENTENCE, append=True)
        folders[name] = folder
    return folders


def run_one(argv: list[str], folder: Path, env: dict[str, str]) -> dict[str, Any]:
    sample, output = harness.run(argv, folder, env, 3600.0)
    if sample.rc != 0:
        raise SystemExit(f"{folder.name}: `{' '.join(argv[-3:])}` failed ({sample.rc}):\n{output[-3000:]}")
    tool = "evidence" if "evidence" in folder.name else "snakemake" if "snakemake" in folder.name \
        else "doit"
    report = harness.json_report(tool, output) if tool != "snakemake" else None
    ran, work, names = report if report is not None else \
        (harness.count_tasks(tool, output), float("nan"), [])
    if any(n.startswith("train:") for n in names) and "evidence" in folder.name:
        raise SystemExit(f"{folder.name}: training started; regenerate the projects (harness --regenerate)")
    return {"seconds": sample.seconds, "work": work, "ran": ran, "cpu": sample.cpu_s,
            "render": render_seconds(output)}


def render_seconds(output: str) -> float:
    """Seconds the rebuilt figure renders took (doit's JSON reporter), NaN without a report: the
    figure-spec row's bound is that render plus a fixed allowance."""
    start = output.find('{"tasks"')
    try:
        tasks = json.loads(output[start:])["tasks"] if start >= 0 else None
    except ValueError:
        tasks = None
    if tasks is None:
        return float("nan")
    return sum(float(t["elapsed"] or 0.0) for t in tasks
               if t["result"] == "success" and t["name"].endswith("/render"))


def main(argv: list[str] | None = None) -> int:
    # the edit loop as a researcher runs it: with the warm doit (opt-in; an engine without it
    # ignores the variable), as the sections of bench/results.md were measured
    os.environ.setdefault("EVIDENCE_WARM_DOIT", "1")
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--before", required=True, help="git revision of the engine before")
    p.add_argument("--after", default=None,
                   help="git revision of the engine after (default: the working tree)")
    p.add_argument("--workdir", type=Path, default=harness.BENCH / ".work")
    p.add_argument("--out", type=Path, default=common.RESULTS)
    args = p.parse_args(argv)
    args.workdir = args.workdir.resolve()
    started = dt.datetime.now(dt.UTC)
    load_at_start = os.getloadavg()
    engines = {"before": common.snapshot_engine(args.workdir, args.before),
               "after": common.snapshot_engine(args.workdir, args.after)}
    states = {"before": common.engine_state(args.before), "after": common.engine_state(args.after)}
    # Snakemake answers the experiment row's bound (≥ 2x faster than Snakemake) in the same round
    tools = ["evidence", "doit", *(["snakemake"] if args.size <= SNAKEMAKE_MAX else [])]
    harness_args = harness.parse(["--sizes", str(args.size), "--tools", *tools,
                                  "--workdir", str(args.workdir)])
    harness_args.engine = engines["after"]
    size = harness.Size(args.size, args.workdir / str(args.size), tools, harness_args)
    size.generate()
    harness.bench_size(size, 0, 0, 3600.0, prepare_only=True)
    folders = prepare(size, engines)
    timed = [sys.executable, "-m", "doit", "--reporter", "json", "deliver"]
    plain = [sys.executable, "-m", "doit", "deliver"]
    # the harness's environment drops every EVIDENCE_* variable: the warm doit's is passed on
    warm = {"EVIDENCE_WARM_DOIT": os.environ["EVIDENCE_WARM_DOIT"]}
    envs = {name: {**size.env, **warm, "PYTHONPATH": str(engine)} for name, engine in engines.items()}
    for name, folder in folders.items():  # settle: build the state and record the index
        for _ in range(2):
            run_one(plain, folder, envs[name])
        time.sleep(harness_racy())
        run_one(plain, folder, envs[name])
    samples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    targets = [*((name, folders[name], envs[name]) for name in folders),
               *((peer, size.folder(peer), size.env_of(peer)) for peer in tools[1:])]
    snakemake = [size.exe["snakemake"], "--cores", "1"] if "snakemake" in tools else []
    for r in range(args.repeats):
        for measure, _ in MEASURES:
            for name, folder, env in harness.rotate(targets, r):
                if name in ("doit", "snakemake") and measure in ("sentence", "figspec", "first-noop"):
                    continue  # no counterpart in the peers' projects
                if measure == "experiment":
                    if name in ("doit", "snakemake"):
                        projects.peer_toggle(folder, args.size)
                    else:
                        projects.evidence_toggle(folder)
                elif measure == "sentence":
                    toggle_text(folder / "paper" / "paper.md.j2", SENTENCE)
                elif measure == "figspec":
                    toggle_text(folder / "figures" / "b00001" / "figure.toml", YLABEL)
                elif measure == "first-noop":
                    time.sleep(harness_racy())
                # the index is recorded by evidence's console reporter: the no-ops run without --reporter
                argv = snakemake if name == "snakemake" else \
                    plain if measure in ("first-noop", "noop") else timed
                got = run_one(argv, folder, env)
                samples.setdefault((name, measure), []).append(got)
                work = f" own work {got['work']:.3f}" if got["work"] == got["work"] else ""
                print(f"  {measure:<11} {name:<7} {got['seconds']:7.3f} s{work}  cpu {got['cpu']:.3f} s"
                      f"  ran {got['ran']}", flush=True)
    load = os.getloadavg()
    (args.workdir / "editloop-raw.json").write_text(json.dumps(
        {"samples": {f"{k[0]}:{k[1]}": v for k, v in samples.items()}, "load": [load_at_start, load]}))
    write_report(args, samples, states, started, (load_at_start, load))
    return 0


def harness_racy() -> float:
    """Seconds after which nothing just written is racily clean (see evidence.core.upindex)."""
    return 2.5


def med(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def write_report(args: argparse.Namespace, samples: dict[tuple[str, str], list[dict[str, Any]]],
                 states: dict[str, str], started: dt.datetime,
                 load: tuple[tuple[float, ...], tuple[float, ...]]) -> None:
    fmt = harness.fmt_s
    lines = ["## The edit loop: one changed input, two engines and plain doit interleaved", "",
             f"Produced by: `{common.command_line()}`; {started.strftime('%Y-%m-%d %H:%M UTC')}; "
             f"{common.machine()}. Engines: *before* {states['before']}, *after* {states['after']}. "
             f"The harness's projects at N={args.size:,} ({args.size:,} runs, {args.size // 10} figures); "
             "one copy of "
             "the evidence project per engine; every sample of both engines and of plain doit taken in one "
             f"round-robin, {args.repeats} repeats; medians. *Overhead* is the wall time minus the rebuilt "
             "tasks' own work (doit's JSON reporter). Load average (1, 5, 15 min) at the start "
             f"{', '.join(f'{x:.1f}' for x in load[0])}, at the end {', '.join(f'{x:.1f}' for x in load[1])} "
             f"on {os.cpu_count()} cores: compare rows only within this table.", "",
             "| row | engine | median wall s | own work s | overhead s | overhead min–max s "
             "| after / before (wall) | median CPU s | after / before (CPU) | tasks run |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for measure, label in MEASURES:
        names = ("before", "after", "doit", "snakemake")
        walls = {name: med([s["seconds"] for s in samples.get((name, measure), [])]) for name in names}
        cpus = {name: med([s.get("cpu", float("nan")) for s in samples.get((name, measure), [])])
                for name in names}
        for name in names:
            got = samples.get((name, measure))
            if not got:
                continue
            over = [s["seconds"] - s["work"] for s in got if s["work"] == s["work"]]
            ratio = f"{walls['after'] / walls['before']:.2f}×" if name == "after" else ""
            cpu_ratio = f"{cpus['after'] / cpus['before']:.2f}×" if name == "after" else ""
            lines.append(f"| {label} | {harness.TOOL_LABEL.get(name, name)} | {fmt(walls[name])} "
                         f"| {fmt(med([s['work'] for s in got]))} | {fmt(med(over))} "
                         f"| {fmt(min(over)) if over else '–'}–{fmt(max(over)) if over else '–'} | {ratio} "
                         f"| {fmt(cpus[name])} | {cpu_ratio} "
                         f"| {'/'.join(map(str, sorted({s['ran'] for s in got})))} |")
    lines += ["", *targets_table(args.size, samples)]
    # one section per N: N=1,000 keeps the name it always had
    section = "edit-loop" if args.size == 1000 else f"edit-loop-{args.size}"
    common.update_section(section, "\n".join(lines) + "\n", args.out)


#: Issue #35's bounds by N: (row, bound, what is compared).
BOUNDS = {1000: {"experiment": 1.2, "overhead": 0.3, "noop": 1.2, "sentence": 1.0, "figspec": 0.3,
                 "first-noop": 2.0},
          10000: {"experiment": 2.5, "overhead": 1.0, "noop": 1.3, "sentence": 1.5, "figspec": 1.0,
                  "first-noop": 2.0}}


def targets_table(size: int, samples: dict[tuple[str, str], list[dict[str, Any]]]) -> list[str]:
    """The issue's targets at this N, for both engines, from the samples above (medians)."""
    bounds = BOUNDS.get(size)
    if bounds is None:
        return []

    def m(name: str, measure: str, key: str = "seconds") -> float:
        return med([s.get(key, float("nan")) for s in samples.get((name, measure), [])])

    def row_values(name: str) -> dict[str, float]:
        return {
            "experiment": m(name, "experiment"),
            "overhead": med([s["seconds"] - s["work"] for s in samples.get((name, "experiment"), [])]),
            "noop": m(name, "noop") / m("doit", "noop"),
            "sentence": m(name, "sentence"),
            "figspec": med([s["seconds"] - s.get("render", float("nan"))
                            for s in samples.get((name, "figspec"), [])]),
            "first-noop": m(name, "first-noop") / m(name, "noop"),
        }

    labels = {"experiment": ("one experiment value changed, wall", "≤ {b} s", "s"),
              "overhead": ("overhead beyond the rebuilt tasks' own work (experiment value)", "≤ {b} s", "s"),
              "noop": ("no-op, × plain doit", "≤ {b}×", "×"),
              "sentence": ("one sentence of the paper template changed, wall", "≤ {b} s", "s"),
              "figspec": ("one figure spec changed: wall minus that figure's render", "≤ {b} s", "s"),
              "first-noop": ("the first no-op after a build, × the no-op", "≤ {b}×", "×")}
    before, after = row_values("before"), row_values("after")
    out = [f"Targets of issue #35 at N={size:,}, from the rows above:", "",
           "| target | before | after | bound | met |", "|---|---:|---:|---|---|"]
    for key, (label, bound, unit) in labels.items():
        b = bounds[key]
        fmt = (lambda v: f"{v:.2f}×") if unit == "×" else (lambda v: harness.fmt_s(v) + " s")
        out.append(f"| {label} | {fmt(before[key])} | {fmt(after[key])} | {bound.format(b=b)} "
                   f"| {'yes' if after[key] <= b else '**no**'} |")
    snakemake = m("snakemake", "experiment")
    if snakemake == snakemake:  # measured in the same round
        ratios = {name: snakemake / m(name, "experiment") for name in ("before", "after")}
        out.append(f"| one experiment value changed: Snakemake's wall / evidence's "
                   f"(Snakemake {harness.fmt_s(snakemake)} s) | {ratios['before']:.2f}× "
                   f"| {ratios['after']:.2f}× | ≥ 2× | {'yes' if ratios['after'] >= 2 else '**no**'} |")
    return out


if __name__ == "__main__":
    sys.exit(main())
