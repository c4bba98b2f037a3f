"""The no-op fast path: the task list from the project-level up-to-date index.

:mod:`evidence.core.upindex` says whether anything changed since a doit call found every task up
to date. This module is its doit side:

* :class:`IndexReporter` (doit's console reporter, set in ``DOIT_CONFIG`` by
  :func:`evidence.tasks.base.doit_config`) records the index at the end of a call in which
  nothing ran but the tasks that run on every call, and failed nothing;
* :func:`indexed_checker` (doit's ``check_file_uptodate``, also set by
  :func:`evidence.tasks.base.doit_config`) is doit's MD5 checker, except on the fast path, where
  it answers "unchanged" for every file dependency and "present" for every target without a
  stat: the index has just found each of them with the signature it had when doit last found
  them all unchanged;
* :func:`fast_graph` is asked once per doit call, before the first task builder runs: when the
  call is a plain ``doit [run] [TASK...]`` and the index is fresh, the standard task creators
  (:mod:`evidence.tasks.standard`) yield the recorded tasks (same names, documentation and task
  dependencies; each up to date) instead of building them from the project.

A recorded task keeps its file dependencies and targets (doit still compares them with its
database, exactly as it would have: plain doit pays that much too); what the index answers are
the evidence checks beyond doit's, which are the expensive part (is the sealed run intact, is
every target what the build wrote, is the deliverable what its manifest certifies). A task that
runs on every call (``deliver:summary``, ``fsck``) keeps its real action, recorded by reference
(module, name and JSON arguments). Any other recorded task never runs on the fast path: its
action refuses, loudly, should doit ever call it. What doit prints is the same either way: one
``--`` line per up-to-date task, then what the always-run tasks print.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from doit.dependency import MD5Checker
from doit.exceptions import TaskFailed
from doit.reporter import ConsoleReporter

from evidence.core import lookonce, upindex
from evidence.core.project import Project
from evidence.tasks.actions import task_action

#: doit commands that load tasks; only ``run`` (the default) may take the fast path.
DOIT_COMMANDS = frozenset({"run", "list", "info", "forget", "clean", "ignore", "reset-dep", "dumpdb",
                           "strace", "auto", "help", "tabcompletion"})
#: ``doit run`` options that do not change which task is up to date; with a value / without.
VALUED = frozenset({"-n", "--process", "-P", "--parallel-type", "-v", "--verbosity", "-r",
                    "--reporter", "-f", "--file", "-d", "--dir", "-o", "--output-file"})
FLAGS = frozenset({"-k", "--continue", "--seek-file", "-s", "--single"})


def plain_run(argv: list[str]) -> bool:
    """Whether ``argv`` is ``doit [run] [safe options] [TASK...]``: never ``-a`` (always
    execute), another command, another database, or task arguments."""
    if not argv or not (os.path.basename(argv[0]) == "doit"
                        or argv[0].replace(os.sep, "/").endswith("doit/__main__.py")):
        return False  # doit called from inside another program: its arguments are not argv
    tokens = argv[1:]
    if tokens and tokens[0] in DOIT_COMMANDS:
        if tokens[0] != "run":
            return False
        tokens = tokens[1:]
    skip = False
    for token in tokens:
        if skip:
            skip = False
            continue
        if token.startswith("-"):
            name = token.split("=", 1)[0]
            if name in VALUED:
                skip = "=" not in token
            elif not (name in FLAGS or (name[:2] in VALUED and len(name) > 2 and name[1] != "-")):
                return False
        elif "=" in token:
            return False  # a doit variable or a task parameter
    return True


_FAST: dict[Any, upindex.Fresh | None] = {}
#: Basenames whose tasks :mod:`evidence.tasks.standard` built in this process: only those can be
#: stood in for (a dodo.py's own ``task_*`` functions are not).
BUILT: set[str] = set()


def fast_graph(project: Project) -> upindex.Fresh | None:
    """The recorded graph when this call may take the fast path (decided once per process)."""
    if project.root not in _FAST:
        found, why = upindex.check(project) if plain_run(sys.argv) else \
            (None, "not a plain `doit [run] [TASK...]` call")
        _FAST[project.root] = found
        if os.environ.get("EVIDENCE_INDEX_TRACE"):
            print(f"up-to-date index: {why}", file=sys.stderr)
    return _FAST[project.root]


def note_not_fresh(root: Any) -> None:
    """Take the full path for the project at ``root`` in this process without checking the index
    (the warm doit's client has just checked it: :mod:`evidence.tasks.warmdoit`). Always safe:
    the full path is what the fast path stands in for."""
    _FAST[root] = None


def indexed_checker(project: Project) -> type[MD5Checker]:
    """doit's file checker for ``project`` (see the module docstring)."""

    class IndexedMD5Checker(MD5Checker):
        """MD5Checker; on the fast path a file dependency is what the index just saw."""

        def exists(self, file_path: str) -> bool:
            if _FAST.get(project.root) is not None:
                return True  # every target existed when the index was recorded, and still does
            seen = lookonce.recall(sys._getframe(1), file_path)  # this status check's guard stat it
            if seen is not lookonce.UNSEEN:
                return seen is not None
            return bool(super().exists(file_path))

        def info(self, file_path: str) -> Any:
            if _FAST.get(project.root) is not None:
                return None  # not needed: check_modified answers without it
            seen = lookonce.recall(sys._getframe(1), file_path)
            if seen is None:
                raise self.CheckerError(f"{file_path} does not exist")
            if seen is not lookonce.UNSEEN:
                return seen
            return super().info(file_path)

        def check_modified(self, file_path: str, file_stat: Any, state: Any) -> bool:
            if _FAST.get(project.root) is not None:
                return False
            return bool(super().check_modified(file_path, file_stat, state))

    # doit stores the checker's class name with every task and rebuilds every task whose stored
    # name differs (an upgrade cost 285 s of rebuilt figures at 10,000 runs): this is the MD5
    # checker, saving its states, so it keeps that name
    IndexedMD5Checker.__name__ = IndexedMD5Checker.__qualname__ = MD5Checker.__name__
    return IndexedMD5Checker


# -- recording -------------------------------------------------------------------------------


def always_runs(task: Any) -> bool:
    """doit runs this task on every call: an uptodate of False, or no dependency at all."""
    if any(utd is False for utd, _, _ in task.uptodate):
        return True
    return not task.file_dep and not task.uptodate


def _reference(action: Any) -> dict[str, Any] | None:
    """A Python action as (module, name, JSON arguments), or None if it cannot be one."""
    function = getattr(action, "py_callable", None)
    if function is None or action.kwargs:
        return None
    step = getattr(function, "evidence_step", None)
    target = step if step is not None else function
    module, name = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
    if not module or "<" in name:
        return None
    try:
        json.dumps(list(action.args))
        if _resolve(module, name, step is not None) is None:
            return None
    except (TypeError, ValueError, ImportError, AttributeError):
        return None
    return {"module": module, "name": name, "step": step is not None, "args": list(action.args)}


def _resolve(module: str, name: str, step: bool) -> Any:
    found: Any = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    if step:
        inner = getattr(found, "evidence_step", found)
        return task_action(inner)
    return found


def describe(task: Any) -> dict[str, Any] | None:
    """What the fast path needs of ``task``; None for a task it cannot stand in for."""
    if (task.setup_tasks or task.calc_dep or task.getargs or task.teardown or task.pos_arg
            or task.custom_title or task.params):
        return None
    record: dict[str, Any] = {"name": task.name, "doc": task.doc, "deps": list(task.task_dep),
                              "sub": task.subtask_of, "group": bool(task.has_subtask),
                              "verbosity": task.verbosity, "always": always_runs(task),
                              "file_dep": sorted(task.file_dep), "targets": list(task.targets)}
    if record["always"] and task.actions:
        refs = [_reference(a) for a in task.actions]
        if any(r is None for r in refs):
            return None
        record["actions"] = refs
    return record


def index_reporter(project: Project) -> type[ConsoleReporter]:
    """doit's console reporter that records the index after a call that changed nothing."""

    class IndexReporter(ConsoleReporter):
        desc = "console output (records the up-to-date index after a no-op)"

        def initialize(self, tasks: dict[str, Any], selected_tasks: list[str]) -> None:
            super().initialize(tasks, selected_tasks)
            self.tasks = tasks
            self.executed: set[str] = set()
            self.skipped: set[str] = set()
            self.spoiled = False

        def execute_task(self, task: Any) -> None:
            super().execute_task(task)
            self.executed.add(task.name)

        def skip_uptodate(self, task: Any) -> None:
            super().skip_uptodate(task)
            self.skipped.add(task.name)

        def skip_ignore(self, task: Any) -> None:
            super().skip_ignore(task)
            self.spoiled = True

        def complete_run(self) -> None:
            super().complete_run()
            if not (self.failures or self.runtime_errors or self.spoiled):
                record_if_quiet(project, self.tasks, self.executed, self.skipped)

    return IndexReporter


def record_if_quiet(project: Project, tasks: dict[str, Any], executed: set[str],
                    skipped: set[str]) -> None:
    """Record the index if every task was up to date and only always-run tasks ran."""
    if not upindex.enabled() or not plain_run(sys.argv):
        return
    fresh = _FAST.get(project.root)
    if fresh is not None:  # the fast path (no task but the always-run ones can have run): only
        upindex.record_database(project, fresh.table)  # doit's database changed
        return
    described = []
    for task in tasks.values():
        always = always_runs(task)
        if task.name.split(":", 1)[0] not in BUILT:
            return  # a task the fast path could not build: never take it
        if (task.name in executed and not always) or (not always and task.name not in skipped):
            return  # something was rebuilt, or not looked at: not a no-op of the whole graph
        record = describe(task)
        if record is None:
            return
        described.append(record)
    declared = {p for task in tasks.values() for p in (*task.file_dep, *task.targets)}
    paths = upindex.watched_paths(project, declared)
    position = {path: i for i, path in enumerate(paths)}
    for record in described:  # file lists as positions in the watched paths: a tenth of the size
        for field in ("file_dep", "targets"):
            record[field] = [position[os.path.abspath(p)] for p in record[field]]
    upindex.record(project, paths, described)


# -- the fast path ---------------------------------------------------------------------------


def call_recorded(module: str, name: str, step: bool, *args: Any) -> Any:
    """Run a recorded action, importing its module only now (most fast-path calls run one)."""
    return _resolve(module, name, step)(*args)


def _not_on_the_fast_path(name: str) -> TaskFailed:
    return TaskFailed(f"{name}: the up-to-date index stood in for this task, which doit then ran; "
                      "this is a bug: run again with EVIDENCE_INDEX=0 and report it")


def _dict(record: dict[str, Any], basename: str, paths: list[str]) -> dict[str, Any]:
    """The task dict of a recorded task: its file dependencies and targets as recorded (doit
    compares them with its database, as it would have), its uptodate checks answered."""
    task: dict[str, Any] = {"doc": record["doc"], "verbosity": record["verbosity"]}
    if record["file_dep"]:
        task["file_dep"] = [paths[i] for i in record["file_dep"]]
    if record["targets"]:
        task["targets"] = [paths[i] for i in record["targets"]]
    deps = [d for d in record["deps"] if not (record["group"] and d.startswith(basename + ":"))]
    if deps:
        task["task_dep"] = deps
    if record["always"]:
        task["actions"] = [(call_recorded, [a["module"], a["name"], a["step"], *a["args"]])
                           for a in record.get("actions", [])]
        task["uptodate"] = [False]
    elif not record["group"]:
        task["actions"] = [(_not_on_the_fast_path, [record["name"]])]
        task["uptodate"] = [True]
    return task


def recorded_tasks(fresh: upindex.Fresh, basename: str) -> Iterator[dict[str, Any]] | dict[str, Any]:
    """The recorded tasks of ``basename``, as its task creator would yield them."""
    own = [r for r in fresh.tasks if r["name"] == basename or r["sub"] == basename]
    top = next((r for r in own if r["name"] == basename), None)
    if top is not None and not top["group"]:
        return _dict(top, basename, fresh.paths)

    def generate() -> Iterator[dict[str, Any]]:
        yield {"name": None, "doc": top["doc"] if top else None}
        for record in own:
            if record["sub"] == basename:
                yield {"name": record["name"].split(":", 1)[1], **_dict(record, basename, fresh.paths)}

    return generate()
