"""``doit info`` in this process, for ``evidence why`` on tasks other than train tasks.

Here because this package is the only one that talks to doit: asking doit in-process spares a
second interpreter (and a second task-list construction) per question.

A group task (``train``, ``deliver``, ``figures``) has no actions and no dependencies of its own,
so doit's answer for it is always "run: the task has no dependencies", which says nothing. For
a group, :func:`task_statuses` asks doit about every task under it instead, in one load of the
task list, and the caller says which are up to date and why the others are not.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any

from evidence.core.errors import EvidenceError, UnknownNameError
from evidence.core.project import Project


@dataclass(frozen=True)
class TaskStatus:
    """One task's status as doit sees it: ``up-to-date``, ``run`` or ``error``, and why."""

    name: str
    status: str
    reasons: tuple[str, ...]
    always: bool  # builds nothing and says uptodate=False: it runs every time by design (a summary)


def _why_command(project_root: str) -> Any:
    """A doit command that records the status of a task, or of every task under a group."""
    from doit.cmd_info import Info

    class Why(Info):
        name = "evidence-why"
        found: list[TaskStatus] | None = None
        group = False

        def _execute(self, pos_args: list[str], hide_status: bool = False) -> int:
            tasks = {t.name: t for t in self.task_list}
            wanted = pos_args[0]
            if wanted not in tasks:
                Why.found = None
                return 0
            leaves: list[Any] = []
            seen: set[str] = set()

            def walk(task: Any) -> None:
                if task.name in seen:
                    return
                seen.add(task.name)
                if task.actions:
                    leaves.append(task)
                    return
                for dep in task.task_dep:
                    if dep in tasks and (dep.startswith(task.name + ":") or not tasks[dep].actions):
                        walk(tasks[dep])

            walk(tasks[wanted])
            Why.group = not tasks[wanted].actions
            if not Why.group:
                leaves = [tasks[wanted]]
            found = []
            for task in leaves:
                status = self.dep_manager.get_status(task, tasks, get_log=True)
                # a task that builds nothing (no targets) and says uptodate=False: by design
                always = not task.targets and any(
                    utd is False for utd, _, _ in status.reasons.get("uptodate_false", []))
                reasons = () if status.status == "up-to-date" else tuple(
                    explain(status.reasons, project_root))
                found.append(TaskStatus(task.name, status.status, reasons, always))
            Why.found = found
            return 0

    return Why


def _check_name(check: Any) -> str:
    """An uptodate check in words: the first line of its docstring, else its class name."""
    inner = getattr(check, "check", check)
    doc = (getattr(type(inner), "__doc__", None) or "").strip().splitlines()
    text = doc[0].removeprefix("doit uptodate check: ").rstrip(".") if doc else type(inner).__name__
    return text or type(inner).__name__


def explain(reasons: dict[str, Any], root: str) -> list[str]:
    """doit's reasons for running a task, in words and project-relative paths (doit prints its
    check objects' reprs: ``<...UnlessInputsChanged object at 0x...>``)."""
    def rel(path: str) -> str:
        return os.path.relpath(path, root) if os.path.isabs(path) else path

    lines = []
    changed = reasons.get("changed_file_dep") or []
    if reasons.get("has_no_dependencies"):
        lines.append("it has no dependencies, so it runs every time")
    for what, label in (("changed_file_dep", "changed"), ("missing_file_dep", "missing input"),
                        ("added_file_dep", "a new input"), ("removed_file_dep", "no longer an input"),
                        ("missing_target", "missing output")):
        for path in reasons.get(what) or []:
            lines.append(f"{label}: {rel(str(path))}")
    for check, _, _ in reasons.get("uptodate_false") or []:
        if check is False:
            lines.append("it runs every time by design (uptodate = False)")
        elif not changed:  # with a changed input, the check was not even asked (tasks.moot)
            lines.append(f"no longer true: {_check_name(check)}")
    if reasons.get("checker_changed"):
        lines.append("doit's file checker changed since the last run")
    return lines or ["doit gives no reason"]


def task_statuses(project: Project, task: str) -> tuple[bool, list[TaskStatus]]:
    """(whether ``task`` is a group, the status of it or of every task under it), from doit."""
    from doit.cmd_base import DodoTaskLoader
    from doit.doit_cmd import DoitMain

    command = _why_command(str(project.root))

    class Main(DoitMain):
        def get_cmds(self) -> Any:
            cmds = super().get_cmds()
            cmds[command.name] = command
            return cmds

    out = io.StringIO()
    cwd = os.getcwd()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            code = Main(DodoTaskLoader()).run([command.name, "--file", str(project.root / "dodo.py"), task])
    finally:
        os.chdir(cwd)
    if code != 0:
        raise EvidenceError(f"doit could not load the tasks of {project.root / 'dodo.py'}:\n"
                            f"{out.getvalue().strip()}")
    if command.found is None:
        raise UnknownNameError(f"no task named {task!r} in {project.root / 'dodo.py'}",
                               hint="`doit list --all` names every task")
    return command.group, command.found


def doit_info(project: Project, task: str) -> list[str]:
    """``doit info TASK`` for the project, run in this process; its output lines."""
    from doit.cmd_base import DodoTaskLoader
    from doit.doit_cmd import DoitMain

    out = io.StringIO()
    cwd = os.getcwd()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            code = DoitMain(DodoTaskLoader()).run(["info", "--file", str(project.root / "dodo.py"), task])
    finally:
        os.chdir(cwd)
    text = out.getvalue()
    if code == 3 and f"KeyError: {task!r}" in text:
        raise UnknownNameError(f"no task named {task!r} in {project.root / 'dodo.py'}",
                               hint="`doit list --all` names every task")
    if code == 3:
        raise EvidenceError(f"`doit info {task}` failed:\n{text.strip()}")
    return text.strip().splitlines()
