"""Reading the verify report (build/verify/report.json) without the statistics that wrote it.

The delivery steps (claims, disclosures, the checklist) read the report on every edit of the
paper; importing :mod:`evidence.verify.report` for that pulled in numpy and the statistics
(0.15 s of a one-sentence edit). The readers live here; the report module re-exports them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evidence.core.errors import EvidenceError
from evidence.core.project import Project
from evidence.core.schema import validate

#: The file that declares the comparisons (named in hints; see :mod:`evidence.verify.comparisons`).
COMPARISONS_FILE = "comparisons.toml"
#: How claims cite an entry: ``<prefix>:<id>`` -> the report's list of that kind.
REFERENCE_KINDS = {"verify": "comparisons", "aggregate": "aggregates", "expected_max": "expected_max",
                   "reference": "references"}


def report_dir(project: Project) -> Path:
    return project.verify_dir


def load_report(project: Project) -> dict[str, Any]:
    """The verify report of a project, validated against its schema."""
    path = report_dir(project) / "report.json"
    if not path.is_file():
        raise EvidenceError(f"{project.relative(path)} does not exist", hint="run `doit verify` first")
    report: dict[str, Any] = json.loads(path.read_text("utf-8"))
    validate(report, "verify_report", path)
    return report


def find_entry(report: Mapping[str, Any], reference: str) -> dict[str, Any]:
    """The entry a claim cites: ``verify:<comparison id>``, ``aggregate:<id>`` or ``expected_max:<id>``."""
    kind, _, entry_id = reference.partition(":")
    if kind not in REFERENCE_KINDS or not entry_id:
        raise EvidenceError(f"{reference!r} is not a verify reference; expected one of "
                            f"{', '.join(k + ':<id>' for k in REFERENCE_KINDS)}")
    entries = report[REFERENCE_KINDS[kind]]
    for entry in entries:
        if entry["id"] == entry_id:
            return dict(entry)
    known = ", ".join(e["id"] for e in entries) or "none"
    raise EvidenceError(f"the verify report has no {kind} entry {entry_id!r} (it has: {known})",
                        hint=f"declare it in {COMPARISONS_FILE} and run `doit verify`")
