"""doit tasks of delivery: claims -> reconcile -> disclose -> compute -> paper -> exports -> package.

Each step is an engine function in :mod:`evidence.deliver` that raises on failure; here it gets
its doit wrapper (:func:`~evidence.tasks.actions.task_action`) and its dependencies: the files it
reads, and its code, derived from the imports of the module that defines it
(:mod:`evidence.core.codedeps`), so editing any code a step runs makes exactly that step stale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from evidence.core.codedeps import code_stamp, module_of
from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.project import Project
from evidence.deliver import assemble as steps
from evidence.deliver import claims
from evidence.deliver.layout import paper_outputs, paper_sources
from evidence.deliver.reconcile import read_document
from evidence.deliver.summary import summary_action
from evidence.tasks.actions import task_action
from evidence.tasks.base import TaskDict, user_errors
from evidence.tasks.checklist import checklist_tasks
from evidence.tasks.moot import SavedValueCheck, UnlessInputsChanged


def step(action: Callable[[str], None], project: Project) -> TaskDict:
    """The ``actions`` of a deliver step and, under ``code``, the engine files its action runs
    (:func:`task_deliver` merges them into ``file_dep``)."""
    return {"actions": [(task_action(action), [str(project.root)])],
            "code": [code_stamp(project, module_of(action))]}


def run_files_fingerprint(project: Project) -> str:
    """Fingerprint (names, sizes, mtimes) of every sealed file: disclose reruns on tampering.

    From the store's survey (:mod:`evidence.store.survey`), taken once per doit process and again
    after a run is published.
    """
    from evidence.store.survey import survey

    return survey(project).fingerprint


class StoreUnchanged(SavedValueCheck):
    """doit uptodate check: the sealed store looks as it did at the task's last success.

    The fingerprint is taken when doit checks the task, i.e. after the tasks it depends on (the
    training) have run, and saved with the task's result for the next check; a value computed
    while tasks are created would describe the store before training.
    """

    key = "store_fingerprint"

    def __init__(self, project: Project) -> None:
        self.project = project

    def current(self) -> str:
        return run_files_fingerprint(self.project)


class PricesUnchanged(SavedValueCheck):
    """doit uptodate check: which prices are stale today is what it was at the last success."""

    key = "stale_prices"

    def __init__(self, project: Project) -> None:
        self.project = project

    def current(self) -> list[str]:
        from evidence.deliver.prices import load_prices, stale_prices

        try:
            return [p["key"] for p in stale_prices(load_prices(self.project))]
        except EvidenceError:
            return ["(unreadable)"]


class DeliverableIntact:
    """doit uptodate check: build/deliver/ is what its MANIFEST.json certifies, file by file."""

    def __init__(self, project: Project, out: Path) -> None:
        self.project = project
        self.out = out

    def __call__(self) -> bool:
        from evidence.deliver.manifest import manifest_problems

        problems = manifest_problems(self.out, trusted_stat=self.project)
        for problem in problems if (self.out / "MANIFEST.json").is_file() else []:
            print(f"CHANGED {problem}")
        return not problems


def pdf_task(project: Project, claims_file: str, disclosures_file: str,
             presentation: list[str]) -> TaskDict:
    """paper/*.tex -> build/deliver/*.pdf; without a TeX toolchain, one line and no target."""
    from doit.tools import config_changed

    from evidence.deliver import latex

    tool = latex.toolchain()
    targets = [str(p) for p in latex.pdf_targets(project)] if tool else []
    return {"name": "pdf", "doc": "paper/*.tex + claims.tex + figures and tables -> build/deliver/*.pdf",
            **step(steps.pdf_action, project),
            "file_dep": sorted({claims_file, disclosures_file, *presentation,
                                *(str(p) for p in latex.latex_sources(project))}),
            "task_dep": ["deliver:paper"],
            # which toolchain (or none) is part of the result: installing one builds the PDF
            "uptodate": [config_changed({"toolchain": tool and tool[0]})],
            "targets": targets, "verbosity": 2}


class InputsStateUnchanged(SavedValueCheck):
    """doit uptodate check: which inputs are uncommitted is what it was at the last success (the
    disclosure of a dirty tree at delivery follows the working tree)."""

    key = "dirty_inputs"

    def __init__(self, project: Project) -> None:
        self.project = project

    def current(self) -> list[str]:
        from evidence.core.provenance import git_state

        return list(git_state(self.project.root).get("dirty_files") or [])


def _evidence_deps(project: Project) -> list[str]:
    return [str(project.evidence_file), str(project.verify_dir / "report.json")]


@task_action
def _missing_evidence(project_root: str) -> None:
    path = Project.at(project_root).evidence_file
    raise BadInputError(path, "EVIDENCE.json is missing; declare the paper's claims there (see "
                        "docs/contracts.md, or `evidence init` for a working example)")


@user_errors
def task_deliver(project: Project) -> Iterator[TaskDict]:
    """claims -> reconcile -> disclose -> paper -> package, with exact dependencies."""
    for task in deliver_tasks(project):
        code = task.pop("code", [])
        if code:
            task["file_dep"] = sorted({*task.get("file_dep", []), *code})
        yield task


def deliver_tasks(project: Project) -> Iterator[TaskDict]:
    """The deliver subtasks; a step's ``code`` (see :func:`step`) is still apart from its file_dep."""
    from evidence.present.artifacts import presentation_files

    if not project.evidence_file.exists():
        # No claims yet: the other targets (train, figures, verify) must still work; asking for
        # this one says what is missing.
        yield {"name": None, "doc": "claims, reconcile, disclosure gate and paper -> build/deliver/"}
        yield {"name": "claims", "doc": "EVIDENCE.json is missing",
               "actions": [(_missing_evidence, [str(project.root)])], "uptodate": [False]}
        return
    evidence = claims.load_evidence(project)
    claims_file = str(claims.claims_path(project))
    docs = [str(p) for p in steps.documents(project, evidence)]
    sources = [str(p) for p in paper_sources(project)]
    for path in {*docs, *sources}:  # a document that is not UTF-8 is bad input: exit 3, one line
        read_document(Path(path))
    presentation = [str(p) for p in presentation_files(project)]
    from evidence.experiments.spec import ENGINE_NUMERIC_MODULES, NUMERICS_DIR, experiment_files

    audited_inputs = [*(str(p) for p in experiment_files(project)),
                      *(str(NUMERICS_DIR / name) for name in ENGINE_NUMERIC_MODULES)]
    disclosures_file = str(project.disclosures_dir / "disclosures.json")
    compute_file = str(project.compute_dir / "compute.json")
    priced = [str(p) for p in (project.root / "prices.toml", project.root / "presets.toml") if p.is_file()]
    if priced:  # a malformed prices.toml is bad input before anything runs (one ERROR: line, exit 3)
        from evidence.core import memo
        from evidence.deliver.prices import PRICES_FILE, load_prices

        prices = project.root / PRICES_FILE
        if prices.is_file():
            memo.validated(project, prices, "prices", lambda: load_prices(project))
    yield {"name": None, "doc": "claims, reconcile, disclosure gate and paper -> build/deliver/"}
    yield {"name": "claims", "doc": "EVIDENCE.json + verify report -> build/claims/claims.json",
           **step(steps.claims_action, project), "file_dep": [*_evidence_deps(project)],
           "task_dep": ["verify:report"], "targets": [claims_file], "verbosity": 2}
    yield {"name": "reconcile", "doc": "numbers in documents vs their evidence; drift fails the build",
           **step(steps.reconcile_action, project),
           "file_dep": sorted({claims_file, *docs, *sources, str(project.evidence_file),
                               *(str(p) for p in steps.hand_typed_sources(project))}),
           "targets": [str(project.reconcile_dir / "report.json"), str(project.reconcile_dir / "report.md"),
                       str(project.reconcile_dir / "reconcile.json")],
           "verbosity": 2}
    yield {"name": "disclose", "doc": "audit the evidence behind every claim -> DISCLOSURES.md",
           **step(steps.disclose_action, project),
           "file_dep": sorted({claims_file, *_evidence_deps(project), *sources, *presentation,
                               *audited_inputs, *priced, str(project.reconcile_dir / "reconcile.json")}),
           "task_dep": ["figures", "tables", "deliver:reconcile"],
           "uptodate": [UnlessInputsChanged(check) for check in
                        (StoreUnchanged(project), PricesUnchanged(project), InputsStateUnchanged(project))],
           "targets": [disclosures_file, str(project.disclosures_dir / "DISCLOSURES.md")], "verbosity": 2}
    yield {"name": "compute", "doc": "compute and cost of every sealed run -> build/compute/compute.json",
           **step(steps.compute_action, project),
           "file_dep": sorted({claims_file, *priced, *audited_inputs}),
           "uptodate": [UnlessInputsChanged(StoreUnchanged(project))],
           # The compute statement covers every declared run, so delivering trains them all.
           "task_dep": ["train"],
           "targets": [compute_file, str(project.compute_dir / "compute.md")], "verbosity": 2}
    staging = steps.staging_dir(project)
    papers = [str(p) for p in paper_outputs(project, staging)]
    from evidence.deliver import latex

    pdfs = [str(p) for p in latex.pdf_targets(project)] if latex.toolchain() else []
    yield {"name": "paper", "doc": "paper/*.md.j2 -> build/deliver/paper.md and paper.html",
           **step(steps.paper_action, project),
           "file_dep": sorted({claims_file, disclosures_file, compute_file, *sources, *presentation}),
           "task_dep": ["deliver:reconcile"],
           "targets": papers, "verbosity": 2}
    yield pdf_task(project, claims_file, disclosures_file, presentation)
    yield from checklist_tasks(project, claims_file, compute_file, presentation, audited_inputs,
                               StoreUnchanged(project))
    out = steps.deliver_dir(project)
    yield {"name": "exports", "doc": "PROV-JSON and RO-Crate of the deliverable, each validated",
           **step(steps.exports_action, project),
           "file_dep": sorted({claims_file, disclosures_file, compute_file, *presentation,
                               *_evidence_deps(project), str(project.reconcile_dir / "report.json"),
                               *papers, *pdfs}),
           "task_dep": ["deliver:paper", "deliver:disclose", "deliver:reconcile", "deliver:pdf",
                        "deliver:checklist", "deliver:evidence_page"],
           "uptodate": [UnlessInputsChanged(StoreUnchanged(project))],
           "targets": [str(staging / "prov.json"), str(staging / "ro-crate-metadata.json")], "verbosity": 2}
    exported = [str(staging / "prov.json"), str(staging / "ro-crate-metadata.json")]
    # What the package step publishes: every file the steps before it wrote into staging, under
    # build/deliver/ (a published copy edited by hand is named, and the build's copy published again).
    published = [str(out / Path(p).relative_to(staging)) for p in [*papers, *pdfs, *exported]]
    yield {"name": "package", "doc": "the deliverable and its manifest, published as build/deliver/",
           **step(steps.package_action, project),
           "file_dep": sorted({*map(str, steps.assembled_files(project)), *papers, *pdfs, *exported,
                               *presentation}),
           "task_dep": ["deliver:paper", "deliver:disclose", "deliver:reconcile", "deliver:compute",
                        "deliver:exports", "deliver:pdf"],
           # every file of the deliverable as its manifest says, else the package step runs and
           # refuses (naming the file) to certify what the build did not write
           "uptodate": [UnlessInputsChanged(DeliverableIntact(project, out))],
           "targets": [str(out / "MANIFEST.json"), *published,
                       *(str(out / t.relative_to(staging)) for t in steps.assembled_files(project).values())],
           "verbosity": 2}
    yield {"name": "summary", "doc": "print the one-screen summary of the deliverable",
           **step(summary_action, project), "task_dep": ["deliver:package"],
           "uptodate": [False], "verbosity": 2}
