"""Build-system benchmark: evidence against plain doit, Snakemake and DVC on one task graph.

    python bench/harness.py --sizes 100 1000 10000 --repeats 5

For each size N it generates one project per tool (see ``bench/projects.py``): N train
tasks, N/10 figure tasks reading ten results each, one deliver task. **This measures the
build system, not training**: the evidence project's runs are sealed up front through the
engine's own store API (:meth:`evidence.store.runs.RunStore.seal`) under exactly the run keys its
experiment expands to, so ``doit deliver`` finds every run sealed; the peers' "training" is a
``cp``.

Measures (each a median of ``--repeats`` samples, tools interleaved round-robin within every
repeat, the starting tool rotating from one repeat to the next):

* **full build**: from a clean state (no outputs, no tool state). For the peers every task
  runs its trivial command; for evidence it is the presentation/deliver build over the
  pre-sealed store: every train task is checked (and found sealed), then every figure is
  built (source data + PNG), verify, claims, reconcile, disclose, paper, package.
* **no-op**: the same command again with nothing changed: ``doit deliver`` (evidence, plain
  doit), ``snakemake -n`` and ``snakemake --cores 1``, ``dvc status`` and ``dvc repro``.
* **incremental**: one input changed: for the peers one run's config (content toggles), for
  evidence one value of the experiment's grid (so exactly one run key changes; the run of the
  new key was sealed up front too), then the build command. evidence and plain doit run it
  with ``--reporter json``, whose record of every executed task's action time splits the wall
  time into the rebuilt tasks' own work and the build system's overhead (the issue's
  "at most 0.5 s beyond their own work").

Every sample records wall time (``time.perf_counter`` around the child), the peak RSS of the
child's process tree (``/usr/bin/time -f %M``) and how many tasks the tool reported running. A
command whose first sample takes longer than ``--slow`` seconds is not repeated. The results
go to ``bench/results.md`` (tables with medians, ratios against the plain-doit floor and
between tools, the exact commands, machine and date) and the raw samples to
``bench/.work/raw.json``.

The evidence engine is snapshotted (copied to ``<workdir>/engine/<digest>/``; from a git revision
with ``--engine-rev``) at start-up and every evidence command runs against that copy
(``PYTHONPATH``), so edits to the engine while the benchmark runs cannot change what is
measured. DVC and Snakemake are installed at pinned
versions into their own virtual environments under ``bench/.venvs/`` (gitignored); peers run
up to ``--peer-max-size`` and DVC up to ``--dvc-max-size`` (its full build at N=1,000 alone
took half an hour here).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import common
import projects

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
VENVS = BENCH / ".venvs"
DVC_VERSION = "3.67.1"
SNAKEMAKE_VERSION = "9.27.1"
PEERS = {"snakemake": ("snakemake", SNAKEMAKE_VERSION), "dvc": ("dvc", DVC_VERSION)}
TOOLS = ("evidence", "doit", "snakemake", "dvc")
TOOL_LABEL = {"evidence": "evidence", "doit": "plain doit", "snakemake": "Snakemake", "dvc": "DVC"}


# --------------------------------------------------------------------------- running things


@dataclass
class Sample:
    seconds: float
    rss_mib: float
    rc: int
    tasks_run: int
    timed_out: bool = False
    #: Seconds the tasks' own actions ran (doit's JSON reporter; NaN where not measured).
    work_s: float = float("nan")
    #: CPU seconds (user + system) of the command's process tree: less sensitive than the wall
    #: time to other programs sharing the machine.
    cpu_s: float = float("nan")


@dataclass
class Command:
    tool: str
    measure: str  # "full", "noop", "incremental"
    label: str  # as a user types it, run in the tool's project folder
    argv: list[str]
    samples: list[Sample] = field(default_factory=list)


TIME = Path("/usr/bin/time")


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[Sample, str]:
    """Run ``argv``; wall time, peak RSS of its process tree and its output.

    Peak RSS comes from ``/usr/bin/time -f %M`` (its ``wait4`` of the command). Reading
    ``wait4`` of a child forked straight from this process would not do: Linux carries the
    parent's resident size at fork into the child's ``ru_maxrss``.
    """
    # beside the project, not in it: a file that changes during every call would be an input
    # that changed to the project's up-to-date index (no user project has one)
    out_path = cwd.parent / f".bench-{cwd.name}-output.txt"
    rss_path = cwd.parent / f".bench-{cwd.name}-rss.txt"
    wrapped = [str(TIME), "-f", "%M", "-o", str(rss_path), *argv] if TIME.exists() else argv
    with out_path.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        box: dict[str, Any] = {}

        def reap() -> None:
            _, status, usage = os.wait4(proc.pid, 0)
            box["end"] = time.perf_counter()
            box["status"], box["usage"] = status, usage

        waiter = threading.Thread(target=reap, daemon=True)
        waiter.start()
        waiter.join(timeout)
        timed_out = waiter.is_alive()
        if timed_out:
            os.killpg(proc.pid, signal.SIGKILL)
            waiter.join()
        proc.returncode = os.waitstatus_to_exitcode(box["status"])
    output = out_path.read_text("utf-8", errors="replace")
    out_path.unlink()
    rss_kib = float(box["usage"].ru_maxrss)
    if TIME.exists():
        text = rss_path.read_text().split() if rss_path.exists() else []
        rss_kib = float(text[-1]) if text and text[-1].isdigit() else float("nan")
        rss_path.unlink(missing_ok=True)
    sample = Sample(seconds=box["end"] - start, rss_mib=rss_kib / 1024,
                    rc=proc.returncode, tasks_run=0, timed_out=timed_out,
                    cpu_s=box["usage"].ru_utime + box["usage"].ru_stime)
    return sample, output


#: doit group tasks (no actions of their own), left out of the counts of tasks run.
DOIT_GROUPS = {"evidence": {"train", "fsck", "figures", "tables", "verify", "deliver"},
               "doit": {"train", "figure"}}


def json_report(tool: str, output: str) -> tuple[int, float, list[str]] | None:
    """(tasks run, seconds their actions ran, names run) from doit's ``--reporter json``."""
    start = output.find('{"tasks"')
    if start < 0:
        return None
    try:
        report = json.loads(output[start:])
    except ValueError:
        return None
    ran = [t for t in report["tasks"] if t["result"] == "success" and t["name"] not in DOIT_GROUPS[tool]]
    return len(ran), sum(float(t["elapsed"] or 0.0) for t in ran), [t["name"] for t in ran]


def count_tasks(tool: str, output: str) -> int:
    """Tasks the tool says it ran (doit: '. name'; Snakemake: 'rule name:'; DVC: 'Running stage')."""
    lines = output.splitlines()
    if tool in ("evidence", "doit"):
        return sum(line.startswith(". ") for line in lines)
    if tool == "snakemake":
        return sum(line.startswith(("rule ", "localrule ")) and line.rstrip().endswith(":")
                   for line in lines)
    return sum(line.startswith("Running stage") for line in lines)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# --------------------------------------------------------------------------- environment


def ensure_peer(tool: str) -> Path:
    """The tool's executable in bench/.venvs/<tool>, installed at its pinned version if needed."""
    exe, version = PEERS[tool]
    venv = VENVS / tool
    path = venv / "bin" / exe
    if path.exists():
        found = subprocess.run([str(path), "--version"], capture_output=True, text=True).stdout.strip()
        if found.splitlines() and found.splitlines()[-1].strip() == version:
            return path
    print(f"installing {exe}=={version} into {venv.relative_to(REPO)} ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{exe}=={version}"], check=True)
    return path


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVIDENCE_", "PYTHON", "DOIT"))}
    env.update({"DVC_NO_ANALYTICS": "1", "PYTHONHASHSEED": "0", "LC_ALL": "C.UTF-8"})
    return env


# --------------------------------------------------------------------------- one size


class Size:
    """The projects of one size N and their commands."""

    def __init__(self, n: int, root: Path, tools: list[str], args: argparse.Namespace) -> None:
        self.n, self.root, self.tools, self.args = n, root, tools, args
        self.env = base_env()
        self.engine_env = {**self.env, "PYTHONPATH": str(args.engine)}
        self.exe = {tool: str(ensure_peer(tool)) for tool in tools if tool in PEERS}
        self.info: dict[str, Any] = {}

    def folder(self, tool: str) -> Path:
        return self.root / tool

    def env_of(self, tool: str) -> dict[str, str]:
        return self.engine_env if tool == "evidence" else self.env

    def generate(self) -> None:
        for tool in self.tools:
            folder = self.folder(tool)
            marker = folder / ".bench-ready"
            stamp = json.dumps({"version": projects.GENERATOR_VERSION, "n": self.n,
                                "git": self.args.git, "engine": self.engine_digest()}
                               if tool == "evidence" else
                               {"version": projects.GENERATOR_VERSION, "n": self.n})
            if marker.exists() and marker.read_text() == stamp and not self.args.regenerate:
                continue
            if folder.exists():
                subprocess.run(["chmod", "-R", "u+w", str(folder)], check=False)
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            start = time.perf_counter()
            made: dict[str, Any] = {}
            if tool == "evidence":
                made = projects.make_evidence(folder, self.n, git=self.args.git, workers=self.args.workers)
            elif tool == "doit":
                projects.make_doit(folder, self.n)
            elif tool == "snakemake":
                projects.make_snakemake(folder, self.n)
            else:
                projects.make_dvc(folder, self.n, self.exe["dvc"], self.env)
            what = f" ({made['sealed_now']:,} runs sealed through RunStore.seal)" if made else ""
            self.info[f"{tool} project generated{what}"] = f"{time.perf_counter() - start:.1f} s"
            print(f"  generated {tool} project in {time.perf_counter() - start:.1f} s", flush=True)
            marker.write_text(stamp)

    def engine_digest(self) -> str:
        from evidence.experiments.spec import engine_digest

        return engine_digest()

    # commands ------------------------------------------------------------------------------

    def doit(self) -> list[str]:
        return [sys.executable, "-m", "doit"]

    def commands(self) -> list[Command]:
        cmds: list[Command] = []
        for tool in self.tools:
            if tool in ("evidence", "doit"):
                argv = [*self.doit(), "deliver"]
                # the JSON reporter times each task's actions: the rest is the build system's
                timed = [*self.doit(), "--reporter", "json", "deliver"]
                cmds.append(Command(tool, "full", "doit deliver", timed))
                cmds.append(Command(tool, "noop", "doit deliver", argv))
                cmds.append(Command(tool, "incremental", "doit deliver", timed))
            elif tool == "snakemake":
                smk = self.exe[tool]
                cmds += [Command(tool, "full", "snakemake --cores 1", [smk, "--cores", "1"]),
                         Command(tool, "noop", "snakemake -n", [smk, "-n"]),
                         Command(tool, "noop", "snakemake --cores 1", [smk, "--cores", "1"]),
                         Command(tool, "incremental", "snakemake --cores 1", [smk, "--cores", "1"])]
            else:
                dvc = self.exe[tool]
                cmds += [Command(tool, "full", "dvc repro", [dvc, "repro"]),
                         Command(tool, "noop", "dvc status", [dvc, "status"]),
                         Command(tool, "noop", "dvc repro", [dvc, "repro"]),
                         Command(tool, "incremental", "dvc repro", [dvc, "repro"])]
        return cmds

    def clean(self, tool: str) -> None:
        folder = self.folder(tool)
        if tool == "evidence":
            projects.evidence_reset_state(folder)
            projects.evidence_clean(folder)
        else:
            projects.peer_reset_state(folder, self.n)
            {"doit": projects.doit_clean, "snakemake": projects.snakemake_clean,
             "dvc": projects.dvc_clean}[tool](folder)

    def is_built(self, tool: str) -> bool:
        folder = self.folder(tool)
        return (folder / "build" / "deliver" / "MANIFEST.json").exists() if tool == "evidence" \
            else (folder / "paper.md").exists()

    def toggle(self, tool: str) -> None:
        if tool == "evidence":
            projects.evidence_toggle(self.folder(tool))
        else:
            projects.peer_toggle(self.folder(tool), self.n)

    def execute(self, cmd: Command, timeout: float, *, record: bool = True) -> Sample:
        sample, output = run(cmd.argv, self.folder(cmd.tool), self.env_of(cmd.tool), timeout)
        sample.tasks_run = count_tasks(cmd.tool, output)
        ran_names: list[str] = []
        if "--reporter" in cmd.argv and (report := json_report(cmd.tool, output)) is not None:
            sample.tasks_run, sample.work_s, ran_names = report
        if sample.rc != 0 and not sample.timed_out:
            tail = "\n".join(output.splitlines()[-30:])
            raise SystemExit(f"N={self.n} {cmd.tool}: `{cmd.label}` failed with exit code "
                             f"{sample.rc}:\n{tail}")
        if cmd.tool == "evidence" and (any(line.startswith(". train:") for line in output.splitlines())
                                       or any(name.startswith("train:") for name in ran_names)):
            raise SystemExit(f"N={self.n} evidence: `{cmd.label}` started training, so the sealed runs "
                             "no longer match the experiment's keys; rerun with --regenerate")
        if record:
            cmd.samples.append(sample)
        status = " TIMEOUT" if sample.timed_out else ""
        work = f"  own work {sample.work_s:.3f} s" if sample.work_s == sample.work_s else ""
        print(f"    {cmd.measure:<11} {TOOL_LABEL[cmd.tool]:<10} {cmd.label:<22} {sample.seconds:8.3f} s "
              f"{sample.rss_mib:7.1f} MiB  tasks run {sample.tasks_run}{work}{status}", flush=True)
        return sample


def rotate(items: list[Any], k: int) -> list[Any]:
    k %= max(len(items), 1)
    return items[k:] + items[:k]


def bench_size(size: Size, repeats: int, full_repeats: int, timeout: float, *,
               prepare_only: bool = False, slow: float = float("inf")) -> list[Command]:
    """Full builds, then no-ops, then incremental builds, each round-robin over the tools.

    A command whose first sample takes longer than ``slow`` seconds is not repeated (its one
    sample stands; the report shows the sample count); for a no-op the warm-up run is then
    that sample.
    """
    cmds = size.commands()
    by = {m: [c for c in cmds if c.measure == m] for m in ("full", "noop", "incremental")}
    built: set[str] = set()

    def wanted(cmd: Command, r: int) -> bool:
        return r == 0 or (bool(cmd.samples) and cmd.samples[0].seconds <= slow)

    # full builds; the last one leaves every project built
    for r in range(full_repeats):
        for cmd in rotate(by["full"], r):
            if (r and cmd.tool not in built) or not wanted(cmd, r):
                continue  # timed out or too slow before: not repeated
            size.clean(cmd.tool)
            sample = size.execute(cmd, timeout)
            (built.add if not sample.timed_out else built.discard)(cmd.tool)
    for cmd in by["full"]:  # build whatever is not built (timed out, or no full-build samples asked)
        if prepare_only and size.is_built(cmd.tool):
            continue
        if cmd.tool not in built:
            if not cmd.samples:  # a timed-out build is finished where it stopped
                size.clean(cmd.tool)
            size.execute(cmd, 24 * 3600.0, record=False)
    if prepare_only:
        return cmds

    # no-op: one warm-up round (not recorded unless the command is too slow to repeat)
    for cmd in by["noop"]:
        warm = size.execute(cmd, timeout, record=False)
        if warm.seconds > slow:
            cmd.samples.append(warm)
    for r in range(repeats):
        for cmd in rotate(by["noop"], r):
            if not cmd.samples or cmd.samples[0].seconds <= slow:
                size.execute(cmd, timeout)

    # incremental: each repeat toggles one input per tool, then builds
    for r in range(repeats):
        for cmd in rotate(by["incremental"], r):
            if wanted(cmd, r):
                size.toggle(cmd.tool)
                size.execute(cmd, timeout)
    return cmds


# --------------------------------------------------------------------------- report


def fmt_s(x: float) -> str:
    if x != x:  # nan
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}"


def fmt_ratio(x: float) -> str:
    if x != x:
        return "–"
    if x < 0.1:
        return f"{x:.2g}×"
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×" if x < 100 else f"{x:.0f}×"


def measure_table(measure: str, results: dict[int, list[Command]], workdir: Path) -> list[str]:
    lines = ["| N | tool | command (in the tool's project folder) | median s | min–max s | samples "
             "| × plain doit | evidence speed-up | peak RSS MiB (median) | tasks run |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n, cmds in sorted(results.items()):
        rows = [c for c in cmds if c.measure == measure and c.samples]
        floor = next((median([s.seconds for s in c.samples]) for c in rows if c.tool == "doit"), float("nan"))
        ours = next((median([s.seconds for s in c.samples]) for c in rows if c.tool == "evidence"),
                    float("nan"))
        for c in rows:
            secs = [s.seconds for s in c.samples]
            med = median(secs)
            timed = any(s.timed_out for s in c.samples)
            tasks = sorted({s.tasks_run for s in c.samples})
            lines.append(
                f"| {n} | {TOOL_LABEL[c.tool]} | `{c.label}` | {fmt_s(med)}{' (timeout)' if timed else ''} "
                f"| {fmt_s(min(secs))}–{fmt_s(max(secs))} | {len(secs)} | {fmt_ratio(med / floor)} "
                f"| {'–' if c.tool == 'evidence' else fmt_ratio(med / ours)} "
                f"| {median([s.rss_mib for s in c.samples]):.0f} | {'/'.join(map(str, tasks))} |")
    return lines


def overhead_table(results: dict[int, list[Command]], measure: str = "incremental") -> list[str]:
    """Incremental (or full) builds of evidence and plain doit: wall time = the rebuilt tasks'
    own work (their actions, timed by doit's JSON reporter) + the build system's overhead."""
    lines = ["| N | tool | median wall s | median own work of the rebuilt tasks s | median overhead s "
             "| overhead min–max s | tasks run |", "|---:|---|---:|---:|---:|---:|---:|"]
    for n, cmds in sorted(results.items()):
        for c in cmds:
            if c.measure != measure or not c.samples or c.samples[0].work_s != c.samples[0].work_s:
                continue
            over = [s.seconds - s.work_s for s in c.samples]
            tasks = sorted({s.tasks_run for s in c.samples})
            lines.append(f"| {n} | {TOOL_LABEL[c.tool]} | {fmt_s(median([s.seconds for s in c.samples]))} "
                         f"| {fmt_s(median([s.work_s for s in c.samples]))} | {fmt_s(median(over))} "
                         f"| {fmt_s(min(over))}–{fmt_s(max(over))} | {'/'.join(map(str, tasks))} |")
    return lines


def incremental_overhead(results: dict[int, list[Command]], n: int, tool: str = "evidence",
                         measure: str = "incremental") -> float:
    """Median wall time minus own work of ``tool``'s incremental (or full) build at N (NaN if not
    timed)."""
    for c in results.get(n, []):
        if c.measure == measure and c.tool == tool and c.samples \
                and not math.isnan(c.samples[0].work_s):
            return median([s.seconds - s.work_s for s in c.samples])
    return float("nan")


def targets_table(results: dict[int, list[Command]]) -> list[str]:
    def med(n: int, tool: str, label: str | None = None) -> float:
        for c in results.get(n, []):
            if c.measure == "noop" and c.tool == tool and (label is None or c.label == label) and c.samples:
                return median([s.seconds for s in c.samples])
        return float("nan")

    def floor(n: int) -> float:
        return med(n, "doit")

    def full_work(n: int) -> float:
        for c in results.get(n, []):
            if c.measure == "full" and c.tool == "evidence" and c.samples:
                return median([s.work_s for s in c.samples])
        return float("nan")

    # issue #21's targets (the earlier round's, issue #8, were 1.5x, 10x Snakemake and < 3 s)
    rows = [("no-op `doit deliver` at N=1,000 within 1.2× plain doit", med(1000, "evidence"),
             1.2 * med(1000, "doit"), "≤ 1.2 × plain doit", floor(1000)),
            ("no-op at N=10,000 under 2 s", med(10000, "evidence"), 2.0, "≤ 2 s", floor(10000)),
            ("no-op at N=10,000 within 1.5× plain doit", med(10000, "evidence"), 1.5 * med(10000, "doit"),
             "≤ 1.5 × plain doit", floor(10000)),
            ("at least 10× faster than `snakemake -n` at N=1,000", med(1000, "evidence"),
             med(1000, "snakemake", "snakemake -n") / 10, "≤ Snakemake / 10", floor(1000)),
            *((f"incremental at N={n:,}: overhead beyond the rebuilt tasks' own work",
               incremental_overhead(results, n), 0.3, "≤ 0.3 s", incremental_overhead(results, n, "doit"))
              for n in sorted(results)),
            *((f"full build at N={n:,}: overhead beyond the tasks' own work",
               incremental_overhead(results, n, measure="full"), 0.1 * full_work(n), "≤ 10% of own work",
               incremental_overhead(results, n, "doit", measure="full"))
              for n in sorted(results))]
    lines = ["| target | evidence median s | bound s | bound | met | plain doit (the floor) s |",
             "|---|---:|---:|---|---|---:|"]
    for name, value, bound, text, base in rows:
        met = "–" if value != value or bound != bound else ("yes" if value <= bound else "**no**")
        if met == "**no**" and base == base and bound < base:
            met += " (bound below the plain-doit floor)"
        lines.append(f"| {name} | {fmt_s(value)} | {fmt_s(bound)} | {text} | {met} | {fmt_s(base)} |")
    return lines


def write_report(path: Path, results: dict[int, list[Command]], args: argparse.Namespace,
                 meta: dict[str, Any]) -> None:
    started = dt.datetime.fromisoformat(meta["started"])
    finished = dt.datetime.fromisoformat(meta.get("finished", meta["started"]))
    info = meta.get("info", {})
    workdir = common.rel(args.workdir)
    skipped = {n: sorted(set(args.tools) - {c.tool for c in cmds}) for n, cmds in results.items()}
    lines = [
        "## Build-system benchmark: evidence vs plain doit, Snakemake and DVC",
        "",
        "**This measures the build system, not training.** The evidence project's runs are sealed up",
        "front through the engine's own store API (`evidence.store.runs.RunStore.seal` on staging folders",
        "holding spec.json, results.json, metrics.jsonl, a small model.safetensors and provenance.json,",
        "under exactly the run keys the experiment expands to); the peers' \"training\" is a `cp`.",
        "",
        f"Produced by: `{meta['command']}` (from the repository root, with the project's",
        "`.venv` active); raw samples in `" + workdir + "/raw.json`.",
        "",
        "### Setup",
        "",
        f"* Date: {started.strftime('%Y-%m-%d %H:%M UTC')}; wall time of the whole run: "
        f"{(finished - started).total_seconds() / 60:.0f} min.",
        f"* Machine: {common.machine()}"
        " (a shared VM: timings are noisy, hence medians of interleaved repeats).",
        f"* Versions: evidence engine at commit {meta['engine']} (snapshotted at start-up),"
        f" doit {meta['doit']}, Snakemake {SNAKEMAKE_VERSION}, DVC {DVC_VERSION}"
        " (pinned; installed by the harness into `bench/.venvs/<tool>`).",
        f"* Graph per size N: N train tasks + N/10 figure tasks (ten results each) + 1 deliver task."
        f" Projects live in `{workdir}/<N>/<tool>/`; every command below runs in that folder.",
        f"* Samples: {args.repeats} per no-op and incremental command, {args.full_repeats} per full build,"
        " tools interleaved round-robin within each repeat (the starting tool rotates); one unrecorded"
        f" warm-up no-op per command. A command whose first sample took over {args.slow:g} s was not"
        " repeated (see *samples*; for a no-op the warm-up run is then the sample). The evidence project is "
        + ("a git repository (runs committed), as a user's project would be." if args.git else
           "not a git repository (--no-git)."),
        "* Columns: *× plain doit* is the row's median over the plain-doit median of the same N and"
        " measure; *evidence speed-up* is the row's median over the evidence median (how many times"
        " faster evidence is than that row); *tasks run* lists the distinct counts of tasks the tool"
        " reported running per sample; peak RSS is the largest resident size in the command's"
        " process tree (`/usr/bin/time -f %M`).",
    ]
    if any(skipped.values()):
        lines.append("* Not measured: " + "; ".join(f"N={n}: {', '.join(TOOL_LABEL[t] for t in ts)}"
                                                     for n, ts in sorted(skipped.items()) if ts)
                     + f" (peers are measured up to N={args.peer_max_size}, DVC up to N="
                     f"{max_size(args, 'dvc')}: their full builds beyond that take too long to repeat"
                     " here; DVC's full build at N=1,000 took 32 min in an earlier run).")
    lines += [
        "",
        "### No-op (nothing changed)",
        "",
        "evidence: `doit deliver` checks all N train tasks (sealed run present + manifest quick check),",
        "every figure task, verify, and the deliver chain; `deliver:summary` prints the one-screen",
        "summary on every call (uptodate=False), so evidence reports one task run on a no-op.",
        "The first no-op after a change takes the full path and records the project's up-to-date",
        "index (`evidence/core/upindex.py`); the next ones are answered from it (a warm-up no-op",
        "precedes the samples, and a no-op right after a build finds racily clean files and does not",
        "record, so the first sample may be a full-path one: see min–max).",
        "",
        *measure_table("noop", results, args.workdir),
        "",
        "#### Targets (issue #21)",
        "",
        *targets_table(results),
        "",
        "### Incremental (one input changed)",
        "",
        "evidence: one grid value of `experiments/bench.toml` toggles (N-1 <-> N), which changes exactly",
        "one run key; the run of the new key is already sealed, so no training happens and what is",
        "measured is the decision plus the rebuild of what depends on that run (one figure, then the",
        "deliver chain). Peers: one `config/run<N-1>.json` changes content; one train, one figure and the",
        "deliver task rerun. evidence and plain doit run with `--reporter json` here (the output",
        "format only), which times each task's actions: the table after the first splits the wall time",
        "into the rebuilt tasks' own work and the build system's overhead (start-up, loading and",
        "checking every task, saving state).",
        "",
        *measure_table("incremental", results, args.workdir),
        "",
        "#### Own work and overhead of the incremental build",
        "",
        "*Own work* is the summed time of the rebuilt tasks' actions as doit's JSON reporter records",
        "them; *overhead* is the wall time minus that: interpreter start-up, loading and checking every",
        "task, saving doit's state. Plain doit's overhead is the floor of any doit-based tool.",
        "",
        *overhead_table(results),
        "",
        "### Full build (from a clean state)",
        "",
        "evidence: the presentation/deliver build over the pre-sealed store (no training): all train",
        "tasks checked, N/10 figures built (source_data.csv + PNG + sidecars), verify, claims, reconcile,",
        "disclose, paper, package. Peers: every task's trivial command runs. evidence and plain doit",
        "run with `--reporter json` (own work and overhead below).",
        "",
        *measure_table("full", results, args.workdir),
        "",
        "#### Own work and overhead of the full build",
        "",
        *overhead_table(results, "full"),
        "",
    ]
    if info:
        lines += ["### Set-up costs (not part of any measurement)", ""]
        for n, entry in sorted(info.items()):
            lines.append(f"* N={n}: " + ", ".join(f"{k} {v}" for k, v in entry.items()))
        lines.append("")
    common.update_section("harness", "\n".join(lines), path)


# --------------------------------------------------------------------------- main


def max_size(args: argparse.Namespace, tool: str) -> int:
    """Largest N a peer is measured at (DVC's full build at N=1,000 alone takes half an hour)."""
    return min(args.peer_max_size, args.dvc_max_size) if tool == "dvc" else args.peer_max_size


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    p.add_argument("--repeats", type=int, default=5, help="samples per no-op / incremental command")
    p.add_argument("--full-repeats", type=int, default=None,
                   help="samples per full build (default: --repeats)")
    p.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    p.add_argument("--peer-max-size", type=int, default=1000,
                   help="largest N at which Snakemake and DVC are measured")
    p.add_argument("--dvc-max-size", type=int, default=1000,
                   help="largest N for DVC (its full build at N=1,000 takes about 30 min here)")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per command")
    p.add_argument("--slow", type=float, default=300.0,
                   help="a command whose first sample takes longer than this many seconds is not repeated")
    p.add_argument("--workdir", type=Path, default=BENCH / ".work")
    p.add_argument("--out", type=Path, default=BENCH / "results.md")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes sealing runs")
    p.add_argument("--no-git", dest="git", action="store_false",
                   help="do not make the evidence project a git repository")
    p.add_argument("--regenerate", action="store_true", help="rebuild cached projects")
    p.add_argument("--engine-rev", default=None,
                   help="measure the engine as committed at this git revision (default: the working tree)")
    p.add_argument("--report-only", action="store_true",
                   help="measure nothing: rewrite the report from <workdir>/raw.json of the last run")
    p.add_argument("--prepare-only", action="store_true",
                   help="generate and build the projects, measure nothing (for bench/profile_noop.py)")
    args = p.parse_args(argv)
    args.full_repeats = args.repeats if args.full_repeats is None else args.full_repeats
    for n in args.sizes:
        projects.check_size(n)
    return args


def load_raw(path: Path) -> tuple[dict[str, Any], dict[int, list[Command]]]:
    raw = json.loads(path.read_text("utf-8"))
    results = {int(n): [Command(c["tool"], c["measure"], c["label"], c["argv"],
                                [Sample(**s) for s in c["samples"]]) for c in cmds]
               for n, cmds in raw["results"].items()}
    return raw["meta"], results


def save_raw(path: Path, meta: dict[str, Any], results: dict[int, list[Command]]) -> None:
    path.write_text(json.dumps({"meta": meta, "results": {
        str(k): [{**asdict(c), "argv": c.argv[-2:]} for c in v] for k, v in results.items()}}, indent=1))


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    args.workdir = args.workdir.resolve()
    raw_path = args.workdir / "raw.json"
    if args.report_only:  # rewrite the report from the samples of the last run
        meta, results = load_raw(raw_path)
        write_report(args.out, results, args, meta)
        print(f"wrote {common.rel(args.out)} from {common.rel(raw_path)}")
        return 0
    meta: dict[str, Any] = {"command": common.command_line(), "started": dt.datetime.now(dt.UTC).isoformat(),
                            "engine": common.engine_state(args.engine_rev), "info": {}}
    args.engine = common.snapshot_engine(args.workdir, args.engine_rev)
    import doit

    meta["doit"] = ".".join(map(str, doit.__version__)) if isinstance(doit.__version__, tuple) \
        else str(doit.__version__)
    results: dict[int, list[Command]] = {}
    for n in args.sizes:
        tools = [t for t in args.tools if t not in PEERS or n <= max_size(args, t)]
        print(f"N={n}: {', '.join(tools)}", flush=True)
        size = Size(n, args.workdir / str(n), tools, args)
        size.generate()
        if size.info:
            meta["info"][str(n)] = size.info
        if args.prepare_only:
            bench_size(size, 0, 0, args.timeout, prepare_only=True)
            continue
        results[n] = bench_size(size, args.repeats, args.full_repeats, args.timeout, slow=args.slow)
        meta["finished"] = dt.datetime.now(dt.UTC).isoformat()
        save_raw(raw_path, meta, results)
        write_report(args.out, results, args, meta)
    if not args.prepare_only:
        print(f"wrote {common.rel(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
