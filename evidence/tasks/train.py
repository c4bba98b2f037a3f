"""doit tasks of the evidence layer: ``train`` (one subtask per run) and ``fsck``.

A ``train`` subtask is up to date exactly when a sealed run of its key exists and passes the
cheap check (manifest parses, files present with their sizes); no file is re-hashed on a
no-op, the full re-hash is the ``fsck`` target. A run's code dependencies are its key: the
numerical engine code and the trainer's sources are digested into it (docs/architecture.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from doit.exceptions import TaskFailed

from evidence.core.errors import EvidenceError
from evidence.core.project import Project
from evidence.core.settings import load_settings
from evidence.experiments.spec import RunSpec, expand_all
from evidence.store.runs import RunStore, run_id_for
from evidence.tasks.actions import task_action
from evidence.tasks.base import TaskDict, user_errors


def spec_file(project: Project, spec: RunSpec) -> Path:
    return project.state_dir / "specs" / f"{spec.key}.json"


def run_spec(project_root: str, spec_json: dict[str, Any], key: str, force: bool = False,
             ) -> TaskFailed | None:
    """doit action: train one run in its own process (or cluster job), mapping its outcome to
    doit's; where it runs is :mod:`evidence.scale.dispatch`'s business (``evidence.toml``)."""
    from evidence.scale.dispatch import dispatch
    from evidence.scale.pull import pull_for_training

    try:
        if not force:  # sealed on the remote by another machine: import it, do not train it
            pulled = pull_for_training(Project.at(project_root), key,
                                       f"{spec_json['experiment']}/{spec_json['label']}")
            if pulled:
                print(pulled)
                return None
        failure = dispatch(project_root, spec_json, key, force)
    except EvidenceError as error:
        return TaskFailed(error.format())
    return None if failure is None else TaskFailed(failure)


def train_tasks(project: Project, specs: list[RunSpec] | None = None) -> Iterator[TaskDict]:
    """One doit subtask per run spec, named ``<experiment>/<label>``.

    Whether a run is up to date is decided here, from one survey of the store
    (:mod:`evidence.store.survey`), and handed to doit as a plain boolean: only this task can seal
    its run, so the answer cannot change between now and when doit looks at the task, and a
    boolean spares doit a call (and a signature inspection) per run on every no-op.
    """
    from evidence.store.survey import survey

    store = RunStore(project.runs_dir)
    load_settings(project)  # a malformed evidence.toml is bad input before anything runs
    surveyed = survey(project)
    runs_dir = str(project.runs_dir)
    first: dict[str, RunSpec] = {}
    for spec in specs if specs is not None else expand_all(project):
        key = spec.key
        generations = store.generations(key)
        run_id = run_id_for(key, generations[-1] if generations else 1)
        sealed = bool(generations) and surveyed.intact(run_id)
        if key in first:  # another experiment declares this very run: it is trained once
            yield same_run_task(project, spec, first[key], run_id, sealed)
            continue
        first[key] = spec
        yield {
            "name": spec.task_name,
            "doc": f"train {spec.trainer} ({spec.group}, seed {spec.seed}) -> runs/{run_id}",
            "actions": [(run_spec, [str(project.root), spec.to_json(), key])],
            "uptodate": [sealed],
            "targets": [os.path.join(runs_dir, run_id, "results.json")],
            "verbosity": 2,
        }


def same_run_task(project: Project, spec: RunSpec, original: RunSpec, run_id: str,
                  sealed: bool) -> TaskDict:
    """The task of a run that an earlier experiment already declares with the same identity.

    Two experiments that differ only in what is not the run's identity (``[checkpoint]``,
    ``[smoke]``, the experiment's name) declare the same run: the same key, the same sealed run.
    It is trained once, by the first experiment's task; this one depends on it and, when that
    trains, says so in one line. Refusing would make a shared baseline impossible; two tasks with
    one target is what doit refuses ("Two different tasks can't have a common target").
    """
    line = (f"train:{spec.task_name} is the same run as train:{original.task_name} "
            f"({project.relative(project.experiments_dir / (spec.experiment + '.toml'))} and "
            f"{project.relative(project.experiments_dir / (original.experiment + '.toml'))} declare "
            f"identical identities, key {spec.key[:12]}…): trained once, as runs/{run_id}")
    return {"name": spec.task_name, "doc": f"same run as train:{original.task_name} -> runs/{run_id}",
            "actions": [(_say, [line])], "task_dep": [f"train:{original.task_name}"],
            "uptodate": [sealed], "verbosity": 2}


def _say(line: str) -> None:
    print(line)


@user_errors
def task_train(project: Project) -> Iterator[TaskDict]:
    yield {"name": None, "doc": "train every run that is not already sealed in runs/"}
    yield from train_tasks(project)


# -- fsck ------------------------------------------------------------------------------------


@task_action
def fsck_action(project_root: str) -> None:
    """doit action: re-hash every sealed run and name every file that differs."""
    project = Project.at(project_root)
    report = RunStore(project.runs_dir).fsck()
    for finding in report.findings:
        print(f"CORRUPT {project.relative(project.runs_dir)}/{finding}")
    for leftover in report.leftovers:
        print(f"LEFTOVER {leftover}")
    bad = report.bad_runs()
    print(f"fsck: {len(report.checked)} sealed runs checked, {len(bad)} with problems, "
          f"{len(report.findings)} finding(s)")
    deliverable = deliverable_findings(project)
    if bad:
        raise EvidenceError(f"{len(bad)} sealed run(s) failed the integrity check; re-train them "
                            "with `evidence rerun` or restore them from a copy")
    if deliverable:
        raise EvidenceError(f"{len(deliverable)} file(s) of {project.relative(project.deliver_dir)}/ differ "
                            "from its MANIFEST.json", hint="run `doit deliver` to rebuild the deliverable")


def deliverable_findings(project: Project) -> list[str]:
    """The deliverable checked against its MANIFEST.json (nothing to check before a delivery)."""
    from evidence.deliver.manifest import manifest_problems

    out = project.deliver_dir
    if not out.is_dir():
        return []
    problems = manifest_problems(out)
    for problem in problems:
        print(f"CORRUPT {project.relative(out)}/{problem}")
    print(f"fsck: {project.relative(out)}/ checked against its MANIFEST.json, {len(problems)} finding(s)")
    return problems


def task_fsck(project: Project) -> TaskDict:
    return {"doc": "re-hash every sealed run and the deliverable; name each file whose digest differs",
            "actions": [(fsck_action, [str(project.root)])], "uptodate": [False],
            "verbosity": 2}
