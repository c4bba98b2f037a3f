"""The one-screen summary a ``doit deliver`` prints on every call, even a no-op.

Its own small module because it runs on every call: importing the deliver steps (reconcile,
claims, the ledger) for it cost a no-op more than printing it does. For the same reason the
text is memoised (:mod:`evidence.core.memo`) by the stat signature of every file it is read
from, and of their output records: an unchanged deliverable prints the text it printed before,
without reading or checking a file; any edit (an output edited by hand included) reads and
checks them all again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evidence.core import memo
from evidence.core.errors import EvidenceError
from evidence.core.outputs import read_checked_json, record_file
from evidence.core.project import Project
from evidence.deliver.layout import paper_outputs


def _read_output(project: Project, path: Path) -> Any:
    """A JSON output of an earlier step, refused (naming it) if it was edited after it was written."""
    return read_checked_json(project.root, path)


def summary_action(project_root: str) -> None:
    """Print the one-screen summary of the deliverable (on every ``doit deliver``)."""
    project = Project.at(project_root)
    try:
        print(memo.of(project, "summary").get("summary", lambda: summary_inputs(project),
                                              lambda: summary(project)))
    except (OSError, ValueError, KeyError) as error:
        raise EvidenceError(f"cannot summarise {project.relative(project.deliver_dir)}: {error}") from None


def summary_inputs(project: Project) -> list[Path]:
    """Every file and folder :func:`summary` reads or lists, and the output record of each file
    it reads (what the check that refuses a hand-edited output compares it with)."""
    read = [project.claims_dir / "claims.json", project.disclosures_dir / "disclosures.json",
            project.reconcile_dir / "report.json", project.deliver_dir / "compute.json"]
    return [*read, *(record_file(project.root, path) for path in read), *paper_outputs(project),
            project.deliver_dir, project.paper_dir]


def summary(project: Project) -> str:
    """The one-screen summary of a delivery."""
    resolved = _read_output(project, project.claims_dir / "claims.json")
    disclosures = _read_output(project, project.disclosures_dir / "disclosures.json")["findings"]
    reconciled = _read_output(project, project.reconcile_dir / "report.json")
    lines = ["", "=" * 72, f"DELIVERED: {resolved.get('title', '')}", "=" * 72]
    supported = [c for c in resolved["claims"] if c["supported"]]
    lines.append(f"claims: {len(supported)}/{len(resolved['claims'])} supported by their evidence")
    for claim in resolved["claims"]:
        mark = "ok " if claim["supported"] else "NOT"
        label = f" [{claim['classification']}]" if claim["classification"] else ""
        n_disc = sum(d.get("scope") == "claim" and claim["id"] in d.get("claims", [])
                     for d in disclosures)
        lines.append(f"  {mark} {claim['id']}: {claim['formatted']} {claim['ci_formatted']}{label}"
                     f"{f'  ({n_disc} disclosure(s))' if n_disc else ''}")
    counts: dict[str, int] = {}
    for d in disclosures:
        counts[d["severity"]] = counts.get(d["severity"], 0) + 1
    lines.append("disclosures: " + (", ".join(f"{counts[s]} {s}" for s in ("serious", "warning", "info")
                                              if s in counts) or "none")
                 + f" -> {project.relative(project.deliver_dir / 'DISCLOSURES.md')}")
    # the count reconcile printed: waived statements of claims and waived hand-typed numbers
    waived = len(reconciled["waived"]) + len(reconciled.get("waived_hand_typed", []))
    lines.append(f"drift: {len(reconciled['drift'])} number(s); waived: {waived}; "
                 f"matching statements in documents: {len(reconciled['matches'])}")
    written = (*paper_outputs(project), *sorted(project.deliver_dir.glob("*.pdf")))
    papers = [project.relative(p) for p in written if p.is_file()]
    lines.append(f"paper: {', '.join(papers)}; manifest: "
                 f"{project.relative(project.deliver_dir / 'MANIFEST.json')}")
    compute = project.deliver_dir / "compute.json"
    if compute.is_file():
        from evidence.deliver.ledger import cost_text, hours_text

        doc = _read_output(project, compute)
        total = doc["total"]
        lines.append(f"compute: {total['runs']} runs, {hours_text(doc, total['device_hours'])}, "
                     f"cost {cost_text(total['cost'])} -> {project.relative(compute.with_suffix('.md'))}; "
                     "provenance: prov.json, ro-crate-metadata.json")
    return "\n".join(lines)
