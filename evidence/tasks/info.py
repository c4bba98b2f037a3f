"""``doit info`` in this process, for ``evidence why`` on tasks other than train tasks.

Here because this package is the only one that talks to doit: asking doit in-process spares a
second interpreter (and a second task-list construction) per question.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout

from evidence.core.errors import EvidenceError
from evidence.core.project import Project


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
        raise EvidenceError(f"no task named {task!r} in {project.root / 'dodo.py'}",
                            hint="`doit list --all` names every task")
    if code == 3:
        raise EvidenceError(f"`doit info {task}` failed:\n{text.strip()}")
    return text.strip().splitlines()
