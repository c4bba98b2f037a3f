"""Where a project keeps things.

A project is a folder with ``dodo.py``, ``experiments/``, ``trainers/``, ``figures/``,
``paper/`` and ``EVIDENCE.json``; the engine keeps its own state under ``.evidence/``
(work folders of runs in progress, locks, caches, doit's database). Paths are derived here
and nowhere else, and every name that comes from a user file is checked with
:func:`safe_name` before it becomes part of a path.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from evidence.core.errors import BadInputError

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def safe_name(name: str, *, source: object, field: str) -> str:
    """Return ``name`` if it is a single safe path component, else raise BadInputError.

    Rejects separators, ``..``, hidden names and anything that is not letters, digits, ``_``,
    ``.`` or ``-``: user strings never reach the file system unchecked.
    """
    if not isinstance(name, str) or not _SAFE_NAME.match(name) or ".." in name:
        raise BadInputError(source, f"{name!r} is not a safe name (letters, digits, '_', '.', "
                            "'-'; no path separators)", field=field)
    return name


#: Files a figure or table step writes into its folder (the spec and plot code there are inputs).
#: The folder a figure or table step renders into before publishing (beside the spec).
STAGING_PREFIX = ".staging-"
GENERATED_ARTIFACT_FILES = frozenset({
    "source_data.csv", "figure.png", "figure.pdf", "figure.svg", "table.md", "table.tex",
})


#: Top-level folders the engine reads whole: a new file in one is a new input (an experiment, a
#: trainer module, a loader, a figure spec, a paper source, a document reconcile checks by
#: default) even before git tracks it.
READ_WHOLE_FOLDERS = frozenset({"experiments", "trainers", "datasets", "figures", "tables", "paper",
                                "docs", "notes"})
#: Files at a project's root the engine reads by name (dodo.py, EVIDENCE.json, comparisons.toml,
#: presets.toml, prices.toml, evidence.toml) or reconciles (README.md): inputs even untracked.
READ_ROOT_FILES = frozenset({"dodo.py", "EVIDENCE.json", "comparisons.toml", "presets.toml", "prices.toml",
                             "evidence.toml", "README.md"})


@dataclass(frozen=True)
class Project:
    """The folders of one project, all derived from its root."""

    root: Path

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> Project:
        return cls(Path(root).resolve())

    @property
    def experiments_dir(self) -> Path:
        return self.root / "experiments"

    @property
    def trainers_dir(self) -> Path:
        return self.root / "trainers"

    @property
    def runs_dir(self) -> Path:
        """The sealed run store: evidence."""
        return self.root / os.environ.get("EVIDENCE_RUNS", "runs")

    @property
    def state_dir(self) -> Path:
        """Engine state that is not evidence: work folders, locks, caches."""
        return self.root / ".evidence"

    @property
    def work_dir(self) -> Path:
        """Durable work folders of runs in progress (checkpoints live here, outside the store)."""
        override = os.environ.get("EVIDENCE_WORK")
        return Path(override) if override else self.state_dir / "work"

    @property
    def cache_dir(self) -> Path:
        return self.state_dir / "cache"

    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"

    @property
    def tables_dir(self) -> Path:
        return self.root / "tables"

    @property
    def paper_dir(self) -> Path:
        return self.root / "paper"

    @property
    def build_dir(self) -> Path:
        """Generated reports and the deliverable."""
        return self.root / "build"

    # The build's steps, one folder each: every path under build/ is named here and nowhere else.
    @property
    def claims_dir(self) -> Path:
        return self.build_dir / "claims"

    @property
    def verify_dir(self) -> Path:
        return self.build_dir / "verify"

    @property
    def reconcile_dir(self) -> Path:
        return self.build_dir / "reconcile"

    @property
    def disclosures_dir(self) -> Path:
        return self.build_dir / "disclosures"

    @property
    def compute_dir(self) -> Path:
        return self.build_dir / "compute"

    @property
    def checklist_dir(self) -> Path:
        """The paper checklist answered from the evidence (evidence.deliver.checklist)."""
        return self.build_dir / "checklist"

    @property
    def evidence_page_dir(self) -> Path:
        """The evidence page: the table of the runs the claims use (evidence.deliver.evidencepage)."""
        return self.build_dir / "evidence"

    @property
    def deliver_dir(self) -> Path:
        """The deliverable (committed with the project)."""
        return self.build_dir / "deliver"

    @property
    def deliver_staging_dir(self) -> Path:
        """Where the deliver steps write the next deliverable; published as build/deliver/ (a
        copy, by one rename) only when every step succeeded (:mod:`evidence.deliver.publish`)."""
        return self.build_dir / "deliver.staging"

    @property
    def repro_dir(self) -> Path:
        return self.build_dir / "repro"

    @property
    def evidence_file(self) -> Path:
        return self.root / "EVIDENCE.json"

    @property
    def generated_folders(self) -> frozenset[str]:
        """Top-level folders whose every file the engine writes: build/, the state, the run store."""
        return frozenset({self.build_dir.name, self.state_dir.name, self.runs_dir.name})

    def is_generated(self, rel: str) -> bool:
        """Whether the project-relative POSIX path ``rel`` is written by the build, not by a person.

        Generated: everything under build/, the run store and the engine state, and the files
        a figure or table step writes beside its spec (data, images, tables, sidecars). What is
        left is input: code, configs, specs, paper sources, documents. "Dirty" (uncommitted
        changes) is about inputs only; a rebuilt output is not a change of the science.
        """
        parts = rel.split("/")
        if parts[0] in self.generated_folders:
            return True
        if len(parts) >= 3 and parts[0] in {"figures", "tables"} and parts[2].startswith(STAGING_PREFIX):
            return True  # a render's staging folder (a figure's own provenance looked at it)
        if len(parts) == 3 and parts[0] in {"figures", "tables"}:
            return parts[2] in GENERATED_ARTIFACT_FILES or parts[2].endswith(".provenance.json")
        return False

    def relative(self, path: Path) -> str:
        """``path`` relative to the project root, POSIX style (for records and messages).

        Symlinks are resolved only when the plain absolute path is not under the root: resolving
        every path cost a delivery of 1,000 runs a second of ``realpath`` calls."""
        plain, root = os.path.abspath(path), str(self.root)
        if plain.startswith(root + os.sep):
            return Path(plain[len(root) + 1:]).as_posix()
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return Path(path).as_posix()


def import_project_module(root: Path, path: Path, name: str, what: str) -> ModuleType:
    """Import a module of the project (a trainer, a dataset loader) from its file as ``name``.

    The project root goes on ``sys.path`` so the module can import its siblings
    (``from trainers import common``); ``what`` names the module in the error.
    """
    import importlib.util
    import sys

    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BadInputError(path, f"cannot import {what}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
