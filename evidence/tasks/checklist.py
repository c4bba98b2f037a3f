"""doit tasks of the paper checklist and the evidence page (both shipped in build/deliver/).

``deliver:checklist`` answers checklist items 7 and 8 from the claims, the verify report, the
figures' and tables' sidecars, the compute ledger and what ``.evidence/`` and the store record
beyond the sealed runs; ``deliver:evidence_page`` renders the table of the runs the claims use.
Both are rebuilt when their files change, when the store changes (a run damaged, sealed or
removed), and the checklist when the failed, interrupted or quarantined work it counts changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from evidence.core.codedeps import code_stamp, module_of
from evidence.core.project import Project
from evidence.deliver import checklist, evidencepage
from evidence.tasks.actions import task_action
from evidence.tasks.base import TaskDict
from evidence.tasks.moot import SavedValueCheck, UnlessInputsChanged


class WorkUnchanged(SavedValueCheck):
    """doit uptodate check: the failed, interrupted and quarantined work the checklist counts."""

    key = "beyond_the_store"

    def __init__(self, project: Project) -> None:
        self.project = project

    def current(self) -> Any:
        return checklist.beyond_the_store(self.project)


def checklist_tasks(project: Project, claims_file: str, compute_file: str, presentation: list[str],
                    audited_inputs: list[str], store_check: SavedValueCheck) -> Iterator[TaskDict]:
    """The two tasks; ``store_check`` is the deliver chain's check of the sealed store."""
    report = str(project.verify_dir / "report.json")
    out = project.checklist_dir
    yield {"name": "checklist", "doc": "NeurIPS checklist items 7 and 8 answered from the evidence "
                                       "-> build/checklist/checklist.md and .tex",
           "actions": [(task_action(checklist.checklist_action), [str(project.root)])],
           "file_dep": sorted({claims_file, compute_file, report, *presentation, *audited_inputs,
                               code_stamp(project, module_of(checklist.checklist_action))}),
           "uptodate": [UnlessInputsChanged(store_check), UnlessInputsChanged(WorkUnchanged(project))],
           "targets": [str(out / "checklist.md"), str(out / "checklist.tex")], "verbosity": 2}
    page = project.evidence_page_dir / evidencepage.PAGE
    yield {"name": "evidence_page",
           "doc": "the table of the runs the claims use -> build/evidence/evidence.html",
           "actions": [(task_action(evidencepage.evidence_page_action), [str(project.root)])],
           "file_dep": sorted({claims_file, report, *audited_inputs,
                               code_stamp(project, module_of(evidencepage.evidence_page_action))}),
           "uptodate": [UnlessInputsChanged(store_check)],
           "targets": [str(page)], "verbosity": 2}

