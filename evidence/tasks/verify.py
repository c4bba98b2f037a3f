"""doit wiring of ``verify``, kept apart from the statistics so that loading the task list
(every ``doit`` call) does not import scipy; the actions import :mod:`evidence.verify.report` when
they run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evidence.core.codedeps import ENGINE_DIR, code_stamp
from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.project import Project
from evidence.experiments.select import results_paths, select
from evidence.tasks.actions import task_action
from evidence.tasks.base import TaskDict, user_errors
from evidence.verify.comparisons import COMPARISONS_FILE, VerifyConfig, comparisons_path, load_config

#: The module that builds the report; its engine imports are derived (evidence.core.codedeps).
REPORT_MODULE = "evidence.verify.report"
#: Schemas the report's inputs and output are validated against (data files, not imports).
SCHEMAS = ("comparisons.schema.json", "verify_report.schema.json")


def report_dir(project: Project) -> Path:
    return project.verify_dir  # one definition: evidence.core.project


@task_action
def verify_action(project_root: str) -> None:
    """doit action: build and write the report; bad input or unreadable runs fail the task."""
    from evidence.verify.report import build_report, write_report

    project = Project.at(project_root)
    folder = report_dir(project)
    try:
        config = load_config(project)
        if config is None:
            raise BadInputError(comparisons_path(project), "not found: declare [[comparison]], "
                                "[[aggregate]] or [[expected_max]] entries to verify",
                                hint="see schemas/comparisons.schema.json")
        write_report(project, build_report(project, config))
    except EvidenceError:
        for stale in (folder / "report.json", folder / "summary.md"):
            stale.unlink(missing_ok=True)  # a failed build must not leave an old report to cite
        raise


def print_summary(project_root: str) -> None:
    """doit action: print summary.md (on every `doit verify`, rebuilt or not)."""
    print((report_dir(Project.at(project_root)) / "summary.md").read_text("utf-8"), end="")


def _deps(project: Project, config: VerifyConfig) -> list[str]:
    paths = {p for named in config.named()
             for p in results_paths(project, select(project, named.selection, source=config.source))}
    # an experiment's `deterministic = true` changes how verify compares its runs, not their keys
    experiments = {str(project.experiments_dir / f"{named.selection.experiment}.toml")
                   for named in config.named()}
    return [str(comparisons_path(project)), *sorted(paths), *sorted(experiments),
            code_stamp(project, REPORT_MODULE),
            *(str(ENGINE_DIR / "schemas" / name) for name in SCHEMAS)]


@user_errors
def task_verify(project: Project) -> Iterator[TaskDict]:
    """``verify:report`` builds build/verify/ when an input changed; ``verify:summary`` prints it."""
    config = load_config(project)
    folder = report_dir(project)
    yield {"name": None, "doc": "classify every comparison of comparisons.toml: effect, noise, "
           "insufficient evidence or suspected bug"}
    yield {"name": "report", "doc": f"{COMPARISONS_FILE} + sealed results -> build/verify/report.json",
           "actions": [(verify_action, [str(project.root)])],
           "file_dep": _deps(project, config) if config else [],
           "targets": [str(folder / "report.json"), str(folder / "summary.md")],
           **({} if config else {"uptodate": [False]}), "clean": True, "verbosity": 2}
    yield {"name": "summary", "doc": "print build/verify/summary.md",
           "actions": [(print_summary, [str(project.root)])], "task_dep": ["verify:report"],
           "uptodate": [False], "verbosity": 2}
