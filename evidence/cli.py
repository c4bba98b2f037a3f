"""The ``evidence`` command: what doit's task model does not cover.

doit builds targets; some operations are not targets: looking at runs in progress, forcing a
fresh run of a sealed key, listing sealed runs no experiment refers to. Each subcommand is a
small function; user errors print one ``ERROR:`` line and exit with the error's code.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import gc
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evidence.core.errors import EXIT_BAD_INPUT, EvidenceError
from evidence.core.processes import pid_alive
from evidence.core.project import Project

if TYPE_CHECKING:
    from evidence.remote.store import RemoteStore

Command = Callable[[argparse.Namespace], int]


def _project(args: argparse.Namespace) -> Project:
    return Project.at(args.project)


def _work_records(project: Project) -> list[tuple[Path, dict[str, Any]]]:
    """Every run work folder with its status record (``status.json``), in name order."""
    work = project.work_dir
    found = []
    for status_file in sorted(work.glob("*/status.json")) if work.is_dir() else []:
        try:
            status = json.loads(status_file.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(status, dict):
            found.append((status_file.parent, status))
    return found


def _declared_run_ids(project: Project) -> set[str]:
    """The run ids (first generation) of every run an experiment declares now."""
    from evidence.experiments.spec import expand_all
    from evidence.store.runs import run_id_for

    return {run_id_for(spec.key) for spec in expand_all(project)}


def _stale(folder: Path, status: dict[str, Any], declared: set[str]) -> bool:
    """A work folder of a run no experiment declares any more (a rerun ``<id>-2`` counts as
    its key's), whose process is not running: its record describes nothing current."""
    pid = int(status.get("pid", 0) or 0)
    return folder.name.split("-")[0] not in declared and not (pid and pid_alive(pid))


def cmd_status(args: argparse.Namespace) -> int:
    """List runs in progress: step, last checkpoint, heartbeat age, and whether it is alive.

    Work folders of runs no experiment declares any more (a failure before the experiment was
    fixed) are not listed as if current: they are counted, and ``evidence gc`` lists them."""
    project = _project(args)
    rows = []
    try:
        declared: set[str] | None = _declared_run_ids(project)
    except EvidenceError as error:  # a broken experiment must not hide the runs in progress
        print(f"(every work folder listed: the experiments do not expand: {error})")
        declared = None
    stale: dict[str, int] = {}
    for folder, status in _work_records(project):
        if declared is not None and _stale(folder, status, declared):
            kind = "failure record" if status.get("state") == "failed" else "work folder"
            stale[kind] = stale.get(kind, 0) + 1
            continue
        age = time.time() - float(status.get("updated_at", 0))
        pid = int(status.get("pid", 0))
        alive = pid_alive(pid) if pid else False
        recorded = str(status.get("state", "?"))
        if (project.runs_dir / folder.name / "manifest.json").is_file():
            state = "sealed (its work folder was left by a kill after sealing: safe to delete)"
        elif alive:
            state = recorded
        elif recorded == "failed":
            state = f"FAILED: {status.get('error', '')}"
        elif recorded == "interrupted":
            state = "interrupted (resume with `doit train`)"
        else:
            state = "DEAD (resume with `doit train`)"
        if alive and age > args.stale_after:
            state = f"STALLED ({status.get('state')})"
        step = status.get("step", status.get("last_checkpoint"))
        total = status.get("total_steps")
        shown_step = "-" if step is None else f"{step}/{total}" if total else str(step)
        checkpoint = status.get("last_checkpoint")
        rows.append((f"{status.get('experiment')}/{status.get('label')}", folder.name,
                     str(pid) if alive else "-", shown_step,
                     "none yet" if checkpoint is None else str(checkpoint), f"{age:.0f}s", state))
    if not rows:
        print("no runs in progress")
    else:
        header = ("run", "id", "pid", "step", "checkpoint", "heartbeat", "state")
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    for kind, count in sorted(stale.items()):
        print(f"{count} {kind}{'' if count == 1 else 's'} of a run no experiment declares any more "
              "(`evidence gc` lists them, `evidence gc --delete` removes them)")
    return 0


def _run_process(pid: int) -> bool:
    """Whether ``pid`` is a run of this engine (a runner, or a child forked from the warm worker),
    not a process that reused the pid of a run that has ended."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid_alive(pid)  # no /proc (macOS): the recorded pid of a live run is all we have
    return b"evidence" in cmdline


def cmd_stop(args: argparse.Namespace) -> int:
    """Stop runs in progress cleanly: SIGTERM, so each writes a checkpoint and exits as interrupted
    (the next `doit train` resumes it); PATTERN selects runs by name, e.g. 'digits/cnn-*'."""
    import signal

    project = _project(args)
    work = project.work_dir
    chosen = []
    for status_file in sorted(work.glob("*/status.json")) if work.is_dir() else []:
        try:
            status = json.loads(status_file.read_text("utf-8"))
            pid = int(status.get("pid", 0))
        except (OSError, ValueError, TypeError):
            continue
        name = f"{status.get('experiment')}/{status.get('label')}"
        if pid and status.get("state") not in ("failed", "interrupted", "sealed") \
                and fnmatch.fnmatch(name, args.pattern) and _run_process(pid):
            chosen.append((name, pid, status_file))
    if not chosen:
        which = "" if args.pattern == "*" else f" matches {args.pattern!r}"
        print(f"no run in progress{which}" if which else "no runs in progress")
        return 0
    for name, pid, _ in chosen:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        print(f"stopping {name} (pid {pid}): SIGTERM, it writes a checkpoint and exits")
    deadline = time.monotonic() + args.timeout
    still = []
    for name, pid, status_file in chosen:
        while pid_alive(pid) and _run_process(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if pid_alive(pid) and _run_process(pid):
            still.append(pid)
            print(f"{name} (pid {pid}) is still running after {args.timeout:.0f} s; `kill -9 {pid}` "
                  "stops it at once (the next `doit train` resumes from its last checkpoint)")
            continue
        try:
            status = json.loads(status_file.read_text("utf-8"))
        except (OSError, ValueError):
            status = {}
        at = status.get("last_checkpoint")
        print(f"stopped {name} (pid {pid}): {status.get('state', 'ended')}"
              + (f", last checkpoint at step {at}" if at is not None else "")
              + "; `doit train` resumes it")
    return 1 if still else 0


def cmd_fsck(args: argparse.Namespace) -> int:
    """Re-hash sealed runs (all, or the given ids); exit 1 if any file differs."""
    from evidence.tasks.train import fsck_action

    failed = fsck_action(str(_project(args).root))
    return 1 if failed else 0


def cmd_rerun(args: argparse.Namespace) -> int:
    """Train runs again even though they are sealed; each gets a new run id beside the old one."""
    from evidence.experiments.spec import expand_all
    from evidence.scale.dispatch import dispatch
    from evidence.store.runs import RunStore

    project = _project(args)
    chosen, keys = [], set()
    for spec in expand_all(project):  # a run two experiments share is trained once
        if fnmatch.fnmatch(spec.task_name, args.pattern) and spec.key not in keys:
            keys.add(spec.key)
            chosen.append(spec)
    if not chosen:
        raise EvidenceError(f"no run matches {args.pattern!r}", hint="see `doit list --all`")
    for spec in chosen:
        # through the dispatcher, as `doit train` does: the run's own process starts under its
        # numerics profile (this one imported torch without it) and the configured executor
        failure = dispatch(str(project.root), spec.to_json(), spec.key, force=True)
        if failure is not None:
            raise EvidenceError(failure)
        run = RunStore(project.runs_dir).find(spec.key)
        print(f"sealed {spec.task_name} -> runs/{run.run_id if run else '?'} (new run id; the old run "
              "is kept)")
    return 0


def _remote(project: Project) -> RemoteStore:
    """The project's remote store, or an error saying how to name one."""
    from evidence.remote.location import open_remote
    from evidence.remote.store import RemoteStore

    location = open_remote(project)
    if location is None:
        raise EvidenceError("this project has no remote", hint="set [remote] url = ... in evidence.toml "
                            "(or EVIDENCE_REMOTE); see docs/scale-out.md")
    return RemoteStore(location)


def _rate(transfer: object) -> str:
    sent, seconds = getattr(transfer, "bytes_sent", 0), getattr(transfer, "seconds", 0.0)
    rate = sent / seconds / 1e6 if seconds > 0 else 0.0
    objects = getattr(transfer, "objects_sent", 0)
    return f"{sent} bytes in {objects} object(s), {seconds:.2f} s ({rate:.2f} MB/s)"


def cmd_push(args: argparse.Namespace) -> int:
    """Send sealed runs (all, or the given ids) and stopped runs' newest checkpoints to the remote."""
    from evidence.remote.push import push_checkpoints, push_runs

    project = _project(args)
    store = _remote(project)
    report = push_runs(project, store, args.run_ids or None)
    if report.stopped is None and not args.run_ids:
        push_checkpoints(project, store)
    skipped = report.transfer.objects_skipped
    print(f"push: {len(report.pushed)} pushed, {len(report.present)} already on the remote, "
          f"{len(report.refused)} refused; sent {_rate(report.transfer)}; {skipped} object(s) "
          f"({report.transfer.bytes_skipped} bytes) already there")
    if report.stopped and not report.stopped.startswith("push stopped"):
        print(f"ERROR: {report.stopped}", file=sys.stderr)
    return 0 if report.ok else 1


def cmd_pull(args: argparse.Namespace) -> int:
    """Import runs from the remote (all this project declares, or the given ids), verified as
    `evidence import` verifies: digests, key, identity and by load."""
    from evidence.scale.pull import pull_runs

    project = _project(args)
    report = pull_runs(project, _remote(project), args.run_ids or None,
                       accept_any=args.any)
    for line in report.lines:
        print(line)
    print(f"pull: {len(report.imported)} imported, {len(report.present)} already here, "
          f"{len(report.rejected)} rejected; fetched {_rate(report.transfer)}")
    if report.stopped and not report.stopped.startswith("pull stopped"):
        print(f"ERROR: {report.stopped}", file=sys.stderr)
    return 0 if report.ok else 1


def cmd_remote(args: argparse.Namespace) -> int:
    """The teardown gate: is every run sealed here, and every stopped run's newest checkpoint, on
    the remote? Exit 1 (naming what is missing) when this machine is not safe to destroy."""
    from evidence.remote.gate import check

    project = _project(args)
    store = _remote(project)
    gate = check(project, store, deep=args.deep)
    for line in gate.missing:
        print(f"  {line}")
    print(gate.headline())
    return 0 if gate.safe else 1


def cmd_gc(args: argparse.Namespace) -> int:
    """List sealed runs, and work folders of runs (a failure record, a dead run's checkpoints),
    that no experiment declares; delete them only with --delete."""
    import shutil

    if args.remote:
        return _gc_remote(args)

    from evidence.experiments.spec import expand_all
    from evidence.store.runs import RunStore, run_id_for

    project = _project(args)
    store = RunStore(project.runs_dir)
    wanted = {spec.key for spec in expand_all(project)}
    declared = {run_id_for(key) for key in wanted}
    stale = [(folder, status) for folder, status in _work_records(project)
             if _stale(folder, status, declared)]
    for folder, status in stale:
        what = f"failed: {status.get('error', '')}" if status.get("state") == "failed" \
            else str(status.get("state", "?"))
        print(f"{'deleting' if args.delete else 'stale'} {project.relative(folder)} "
              f"({status.get('experiment', '?')}/{status.get('label', '?')}, {what})")
        if args.delete:
            shutil.rmtree(folder)
    if stale:
        print(f"{len(stale)} stale work folder(s) of runs no experiment declares any more"
              + ("" if args.delete else "; run `evidence gc --delete` to remove them"))
    orphans = []
    for run in store.runs():
        try:
            key = run.spec["key"]
        except (OSError, ValueError, KeyError):
            key = None
        if key not in wanted:
            orphans.append(run)
    for run in orphans:
        print(f"{'deleting' if args.delete else 'unreferenced'} runs/{run.run_id} "
              f"({run.spec.get('experiment', '?')}/{run.spec.get('label', '?')})")
        if args.delete:
            for path in [run.path, *run.path.rglob("*")]:
                path.chmod(0o755 if path.is_dir() else 0o644)
            shutil.rmtree(run.path)
    print(f"{len(orphans)} unreferenced run(s)" + ("" if args.delete else
                                                   "; run `evidence gc --delete` to remove them"))
    return 0


def _gc_remote(args: argparse.Namespace) -> int:
    """gc on the remote: runs no experiment here declares (never one a claim uses), mirrored
    checkpoints of runs sealed there, and objects nothing references any more."""
    from evidence.remote.retention import collect

    project = _project(args)
    plan = collect(project, _remote(project), delete=args.delete)
    for line in plan.lines:
        print(line)
    print(plan.summary + ("" if args.delete else "; run `evidence gc --remote --delete` to remove them"))
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Scaffold a new project: a thin dodo.py, an experiment, a trainer template, a figure, a
    table, comparisons, an EVIDENCE.json with one claim, a paper template and a README."""
    from evidence.ops.scaffold import init_project

    created = init_project(Path(args.folder), args.template, git=not args.no_git, paper=args.paper)
    for path in created:
        print(f"created {path}")
    print(f"next: cd {args.folder} && doit deliver   (then read README.md: what to edit first)")
    return 0


def cmd_schemas(args: argparse.Namespace) -> int:
    """Print the folder holding the JSON Schemas of every file the engine reads or writes."""
    from importlib import resources

    print(resources.files("evidence") / "schemas")
    return 0


def cmd_repro(args: argparse.Namespace) -> int:
    """Rebuild everything in a clean workspace and report whether the paper reproduces."""
    from evidence.ops.repro import Scope, reproduce

    if args.presentation:
        scope = Scope("presentation")
    elif args.experiment:
        scope = Scope("experiment", args.experiment)
    elif args.claim:
        scope = Scope("claim", args.claim)
    else:
        scope = Scope("full")
    result = reproduce(_project(args), scope, jobs=args.jobs)
    print((_project(args).repro_dir / "report.md").read_text("utf-8"))
    verdict = result.get("runs_verdict")
    headline = ("NOT REPRODUCED" if not result["reproduced"]
                else "REPRODUCED bit-identically" if verdict == "bit-identically"
                else "REPRODUCED within tolerance" if verdict == "within tolerance"
                else "REPRODUCED (claims; no run retrained)" if verdict == "reused"
                else "REPRODUCED (claims; some runs differ beyond float rounding)")
    print(f"{headline}: {result['summary']}")
    return 0 if result["reproduced"] else 1


def cmd_why(args: argparse.Namespace) -> int:
    """Say why a task would rebuild: which input changed (old and new), or which run is missing."""
    from evidence.ops.why import why

    for line in why(_project(args), args.task):
        print(line)
    return 0


def _width(args: argparse.Namespace) -> int:
    import shutil

    return int(args.width) if args.width else shutil.get_terminal_size((80, 24)).columns


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a command builds thousands of small acyclic objects:
    at 10,000 runs the collector's passes over the parsed memos took a third of `evidence show`."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def cmd_show(args: argparse.Namespace) -> int:
    """The runs as a table: per variant over seeds (or per run), config values that differ,
    each metric's mean with its Student-t interval and n, status, and comparison verdicts."""
    with _collector_paused():
        return _show(args)


def _show(args: argparse.Namespace) -> int:
    from evidence.ops import show
    from evidence.verify.runtable import build_table

    table = build_table(_project(args), experiments=args.experiment, where=args.where,
                        per_run=args.runs, splits=args.split, metrics=args.metric, sort=args.sort)
    if args.json:
        sys.stdout.write(show.render_json(table))
    elif args.csv:
        sys.stdout.write(show.render_csv(table))
    elif args.md:
        sys.stdout.write(show.render_markdown(table))
    else:
        sys.stdout.write(show.render_text(table, _width(args)))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """What differs between two runs, variants or experiments: identity and metric deltas."""
    from evidence.ops import show
    from evidence.verify.rundiff import diff

    with _collector_paused():
        result = diff(_project(args), args.a, args.b, splits=args.split)
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n")
    else:
        sys.stdout.write(show.render_diff(result, _width(args)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Pack sealed runs (ids, or --experiment NAME) into a deterministic .tar.gz with ARCHIVE.json."""
    from evidence.scale.federation import export_runs, select_runs

    project = _project(args)
    if not args.run_ids and not args.experiment:
        raise EvidenceError("name run ids or --experiment NAME", hint="see `evidence status`")
    archive = export_runs(project, select_runs(project, args.run_ids, args.experiment),
                          Path(args.output))
    for run in archive["runs"]:
        print(f"exported runs/{run['run_id']} ({run['experiment']}/{run['label']})")
    print(f"{args.output}: {len(archive['runs'])} run(s)")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Import runs sealed elsewhere (folder or archive): verify digests, identity and by load."""
    from evidence.scale.federation import import_source

    report = import_source(_project(args), Path(args.source), accept_any=args.any)
    for line in report.lines:
        print(line)
    print(f"import: {len(report.imported)} imported, {len(report.skipped)} already present, "
          f"{len(report.rejected)} rejected")
    return 1 if report.rejected else 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    """Reconcile documents against the claims now, without a delivery: every finding, or --json."""
    from evidence.deliver.assemble import quick_reconcile
    from evidence.deliver.reconcile import KINDS

    project = _project(args)
    doc = quick_reconcile(project, [Path(f) for f in args.files] or None)
    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        for record in doc["findings"]:
            if record["kind"] == "match" and not args.all:
                continue
            where = f"{record['file']}:{record['line']}:{record['column']}"
            claim = f" {record['claim']} ({record['quantity']})" if record["claim"] else ""
            print(f"{record['kind'].upper()}{' (waived)' if record['waived'] else ''} {where}:{claim} "
                  f"{record['stated']!r}: {record['reason']}")
        counts = ", ".join(f"{doc['counts'][k]} {k}" for k in KINDS if doc["counts"].get(k))
        print(f"reconcile: {doc['failing']} failing finding(s); {counts or 'nothing stated'}")
    return 1 if doc["failing"] else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evidence", description=__doc__.splitlines()[0])
    parser.add_argument("--project", default=".", help="project root (default: .)")
    sub = parser.add_subparsers(dest="command", required=True)
    status = sub.add_parser("status", help=cmd_status.__doc__)
    status.add_argument("--stale-after", type=float, default=120.0,
                        help="seconds without a heartbeat before a live run counts as stalled")
    status.set_defaults(func=cmd_status)
    stop = sub.add_parser("stop", help=cmd_stop.__doc__)
    stop.add_argument("pattern", nargs="?", default="*", help="run name or glob (default: every run)")
    stop.add_argument("--timeout", type=float, default=120.0,
                      help="seconds to wait for each run to checkpoint and exit")
    stop.set_defaults(func=cmd_stop)
    sub.add_parser("fsck", help=cmd_fsck.__doc__).set_defaults(func=cmd_fsck)
    show = sub.add_parser("show", help=cmd_show.__doc__)
    show.add_argument("--runs", action="store_true", help="one row per run instead of per variant")
    show.add_argument("--experiment", action="append", help="only this experiment (repeatable)")
    show.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                      help="only rows whose config value or field (group, variant, role, label, seed, "
                           "status) is VALUE; VALUE may list alternatives: group=mlp,cnn (repeatable)")
    show.add_argument("--split", action="append", help="split(s) to show (default: test)")
    show.add_argument("--metric", action="append", help="only this metric (repeatable)")
    show.add_argument("--sort", metavar="[SPLIT/]METRIC",
                      help="best first, in the metric's own direction (higher or lower is better)")
    show.add_argument("--width", type=int, help="columns of text output (default: the terminal's, else 80)")
    form = show.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true")
    form.add_argument("--csv", action="store_true")
    form.add_argument("--md", action="store_true", help="a Markdown table")
    show.set_defaults(func=cmd_show)
    diff = sub.add_parser("diff", help=cmd_diff.__doc__)
    diff.add_argument("a", help="a run id, EXPERIMENT/LABEL, EXPERIMENT/GROUP, EXPERIMENT/VARIANT "
                                "or EXPERIMENT")
    diff.add_argument("b", help="the same kinds of name")
    diff.add_argument("--split", action="append", help="only these splits (default: every split)")
    diff.add_argument("--width", type=int, help="columns of text output (default: the terminal's, else 80)")
    diff.add_argument("--json", action="store_true")
    diff.set_defaults(func=cmd_diff)
    export = sub.add_parser("export", help=cmd_export.__doc__)
    export.add_argument("run_ids", nargs="*", help="sealed run ids")
    export.add_argument("--experiment", help="every sealed run of experiments/NAME.toml")
    export.add_argument("-o", "--output", required=True, help="archive to write (.tar.gz)")
    export.set_defaults(func=cmd_export)
    imp = sub.add_parser("import", help=cmd_import.__doc__)
    imp.add_argument("source", help="an archive written by `evidence export`, or a folder of runs")
    imp.add_argument("--any", action="store_true",
                     help="also accept runs whose identity no experiment of this project declares")
    imp.set_defaults(func=cmd_import)
    rerun = sub.add_parser("rerun", help=cmd_rerun.__doc__)
    rerun.add_argument("pattern", help="task name or glob, e.g. 'digits/cnn-*'")
    rerun.set_defaults(func=cmd_rerun)
    gc = sub.add_parser("gc", help=cmd_gc.__doc__)
    gc.add_argument("--delete", action="store_true")
    gc.add_argument("--remote", action="store_true",
                    help="collect on the remote instead of runs/ (dry run unless --delete)")
    gc.set_defaults(func=cmd_gc)
    push = sub.add_parser("push", help=cmd_push.__doc__)
    push.add_argument("run_ids", nargs="*", help="sealed run ids (default: every sealed run)")
    push.set_defaults(func=cmd_push)
    pull = sub.add_parser("pull", help=cmd_pull.__doc__)
    pull.add_argument("run_ids", nargs="*", help="run ids (default: every published run this "
                      "project declares)")
    pull.add_argument("--any", action="store_true",
                      help="also accept runs whose identity no experiment of this project declares")
    pull.set_defaults(func=cmd_pull)
    remote = sub.add_parser("remote", help="the remote named in evidence.toml")
    remote_sub = remote.add_subparsers(dest="remote_command", required=True)
    remote_status = remote_sub.add_parser("status", help=cmd_remote.__doc__)
    remote_status.add_argument("--deep", action="store_true",
                               help="also re-read and re-hash every object of this machine's runs")
    remote_status.set_defaults(func=cmd_remote)
    init = sub.add_parser("init", help="scaffold a new project in FOLDER")
    init.add_argument("folder")
    init.add_argument("--paper", choices=("markdown", "latex", "both"), default="markdown",
                      help="the paper as a Markdown template (paper.md/.html), LaTeX sources "
                           "(paper.tex -> paper.pdf, citing claims.tex), or both")
    init.add_argument("--template", choices=("table", "files", "lightning", "hf"), default="table",
                      help="table: a classifier on a built-in scikit-learn table; files: your own "
                      "data from CSV/files (a dataset loader and a float-target regression); "
                      "lightning / hf: the classifier as a LightningModule / for the Hugging Face "
                      "Trainer (needs evidence[lightning] / evidence[hf])")
    init.add_argument("--no-git", action="store_true",
                      help="do not make the folder a git repository with the template committed")
    init.set_defaults(func=cmd_init)
    sub.add_parser("schemas", help=cmd_schemas.__doc__).set_defaults(func=cmd_schemas)
    rec = sub.add_parser("reconcile", help=cmd_reconcile.__doc__)
    rec.add_argument("files", nargs="*", help="documents to check (default: the project's reconcile list "
                     "and captions)")
    rec.add_argument("--json", action="store_true", help="print reconcile.json's document")
    rec.add_argument("--all", action="store_true", help="also list the matching statements")
    rec.set_defaults(func=cmd_reconcile)
    why = sub.add_parser("why", help=cmd_why.__doc__)
    why.add_argument("task", help="a doit task, e.g. train:digits/cnn-s0 or figures:test_accuracy/render")
    why.set_defaults(func=cmd_why)
    repro = sub.add_parser("repro", help=cmd_repro.__doc__)
    which = repro.add_mutually_exclusive_group()
    which.add_argument("--presentation", action="store_true",
                       help="reuse the committed runs that pass fsck; rebuild figures, tables, paper")
    which.add_argument("--experiment", help="retrain only this experiment's runs")
    which.add_argument("--claim", help="retrain only the runs this claim rests on")
    repro.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    repro.set_defaults(func=cmd_repro)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Command = args.func
    try:
        return func(args)
    except EvidenceError as error:
        print(error.format(), file=sys.stderr)
        return error.exit_code
    except FileNotFoundError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())

