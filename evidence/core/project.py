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
    def deliver_dir(self) -> Path:
        """The deliverable (committed with the project)."""
        return self.build_dir / "deliver"

    @property
    def repro_dir(self) -> Path:
        return self.build_dir / "repro"

    @property
    def evidence_file(self) -> Path:
        return self.root / "EVIDENCE.json"

    def relative(self, path: Path) -> str:
        """``path`` relative to the project root, POSIX style (for records and messages)."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()
