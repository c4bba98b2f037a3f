"""``doit deliver``: claims, reconcile, the disclosure gate and the paper, as build targets.

The chain, each step a doit task with exact dependencies:

* ``claims``: EVIDENCE.json + the verify report -> ``build/claims/claims.json`` (every claim
  resolved: value, interval, classification, runs, predicate);
* ``reconcile``: every human-written document vs the resolved claims -> a drift report; a
  document stating a number that no longer matches its evidence fails the build, like a
  compile error, unless an explicit waiver in EVIDENCE.json says why;
* ``disclose``: audits the evidence behind every claim -> DISCLOSURES.md and
  disclosures.json; it discloses and never blocks;
* ``compute``: the compute and cost ledger of every sealed run -> ``build/compute/compute.json``
  and ``compute.md`` (:mod:`evidence.deliver.ledger`; the paper cites it with ``compute_statement()`` and
  ``compute_table()``);
* ``paper``: the Jinja2 sources -> Markdown and HTML in ``build/deliver/``;
* ``exports``: W3C PROV-JSON (``prov.json``) and an RO-Crate (``ro-crate-metadata.json``) of the
  deliverable, each validated (:mod:`evidence.deliver.provexport`);
* ``deliver``: assembles the deliverable folder (paper, figures, tables, claims, verify report,
  disclosures, reconcile report, compute ledger, provenance exports) with a manifest of every
  file's digest and prints a summary.

The paper, pdf, exports and package steps write into ``build/deliver.staging/``; the package
step publishes it as ``build/deliver/`` (:mod:`evidence.deliver.publish`) only when everything
before it succeeded, so no failing step leaves build/deliver/ different from its manifest.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evidence.core import memo
from evidence.core.errors import BadInputError, DriftError, EvidenceError
from evidence.core.hashing import copy_atomic, write_bytes_atomic, write_json_atomic
from evidence.core.outputs import (
    check_output,
    forget_outputs,
    read_checked_json,
    record_outputs,
    verified_digest,
)
from evidence.core.project import Project
from evidence.core.schema import validate
from evidence.deliver import claims as claims_module
from evidence.deliver import reconcile
from evidence.deliver.layout import paper_sources

HAND_TYPED = claims_module.HAND_TYPED


def deliver_dir(project: Project) -> Path:
    """The published deliverable (written only by :func:`package_action`'s publish)."""
    return project.deliver_dir


def staging_dir(project: Project) -> Path:
    """Where the deliver steps write; published as :func:`deliver_dir` when all succeeded."""
    return project.deliver_staging_dir


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _read_output(project: Project, path: Path) -> Any:
    """A JSON output of an earlier step, refused (naming it) if it was edited after it was written."""
    return read_checked_json(project.root, path)


# -- claims ----------------------------------------------------------------------------------


def claims_action(project_root: str) -> None:
    project = Project.at(project_root)
    path = claims_module.claims_path(project)
    try:
        resolved = claims_module.resolve_all(project)
        validate(resolved, "claims", path)
    except EvidenceError:
        path.unlink(missing_ok=True)  # no stale claims for the paper to cite
        raise
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, resolved)
    supported = sum(c["supported"] for c in resolved["claims"])
    print(f"claims: {supported}/{len(resolved['claims'])} supported by their evidence")


# -- reconcile -------------------------------------------------------------------------------


def _waivers(evidence: Mapping[str, Any]) -> list[reconcile.Waiver]:
    return [reconcile.Waiver(file_glob=w["file"], line=w.get("line"), claim_id=w["claim"],
                             reason=w["reason"]) for w in evidence.get("waivers", [])]


def documents(project: Project, evidence: Mapping[str, Any]) -> list[Path]:
    """Human-written documents to reconcile (globs from EVIDENCE.json, else the defaults)."""
    config = evidence.get("reconcile", {})
    include = tuple(config.get("include", reconcile.DEFAULT_INCLUDE))
    return reconcile.collect_documents(project.root, include, tuple(config.get("exclude", ())))


def hand_typed_numbers(project: Project, waivers: list[reconcile.Waiver], resolved: Mapping[str, Any],
                       sources: Sequence[Path] | None = None,
                       ) -> tuple[list[reconcile.HandTypedNumber], list[reconcile.HandTypedNumber]]:
    """Hand-typed numbers of the paper sources (Jinja templates and LaTeX files alike; ``sources``:
    only these of them), split into (unwaived, waived)."""
    quantities = claims_module.claim_quantities(resolved)
    found = [number for source in (hand_typed_sources(project) if sources is None else sources)
             for number in reconcile.hand_typed_numbers(Path(project.relative(source)),
                                                        reconcile.read_document(source), quantities)]
    waived = [n for n in found if any(w.claim_id == HAND_TYPED and fnmatch.fnmatch(n.file, w.file_glob)
                                      and w.line in (None, n.line) for w in waivers)]
    return [n for n in found if n not in waived], waived


def hand_typed_sources(project: Project) -> list[Path]:
    """Every paper source a number must not be typed into: templates and ``paper/**/*.tex``."""
    tex = sorted(project.paper_dir.rglob("*.tex")) if project.paper_dir.is_dir() else []
    return sorted({*paper_sources(project), *tex})


def strict(evidence: Mapping[str, Any]) -> bool:
    """``reconcile.require_binding``: every number stating a claim must be bound to it."""
    return bool(evidence.get("reconcile", {}).get("require_binding", False))


def reconcile_findings(project: Project, evidence: Mapping[str, Any], resolved: Mapping[str, Any],
                       paths: list[Path] | None = None) -> list[reconcile.Finding]:
    """The findings of the project's documents and captions (or of ``paths`` only)."""
    quantities = claims_module.claim_quantities(resolved)
    waivers = [w for w in _waivers(evidence) if w.claim_id != HAND_TYPED]
    findings = reconcile.scan_documents(documents(project, evidence) if paths is None else paths,
                                        quantities, root=project.root, waivers=waivers,
                                        strict=strict(evidence))
    if paths is None:
        for name, text in caption_documents(project):
            findings.extend(reconcile.scan_text(name, text, quantities, waivers, strict=strict(evidence)))
    return sorted(findings)


def quick_reconcile(project: Project, paths: list[Path] | None = None) -> dict[str, Any]:
    """Reconcile without a delivery: the project's documents (or only ``paths``, which may lie
    anywhere) against the claims resolved now from EVIDENCE.json and the verify report, as
    reconcile.json's document. Paper sources among them (templates, ``paper/**/*.tex``) also
    report their hand-typed numbers. Nothing is written."""
    evidence = claims_module.load_evidence(project)
    resolved = claims_module.resolve_all(project)
    waivers = _waivers(evidence)
    for path in paths or []:
        if not path.is_file():
            raise BadInputError(path, "no such document")
    findings = reconcile_findings(project, evidence, resolved, paths)
    sources = {p.resolve() for p in hand_typed_sources(project)}
    chosen = sources if paths is None else {p.resolve() for p in paths} & sources
    unwaived, waived = hand_typed_numbers(project, waivers, resolved, sorted(chosen))
    return reconcile.findings_json(findings, unwaived, waived)


#: How a paper template cites a claim (its words then need no keywords to be checked).
_TEMPLATE_CITATION = re.compile(r"\b(?:claim|ci|n|statement|disclosures)\(\s*[\"']([\w.\-]+)[\"']")


def caption_documents(project: Project) -> list[tuple[str, str]]:
    """(path, text) of every figure and table spec, with only their captions and titles kept
    (at their own line numbers): a caption states numbers to readers like any sentence."""
    import tomllib

    found = []
    for folder, spec in ((project.figures_dir, "figure.toml"), (project.tables_dir, "table.toml")):
        for path in sorted(folder.glob(f"*/{spec}")) if folder.is_dir() else []:
            text = reconcile.read_document(path)
            try:
                raw = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                continue  # the figure step names the malformed spec
            lines = [""] * (text.count("\n") + 1)
            for key in ("caption", "title"):
                value = raw.get(key)
                if isinstance(value, str) and value.strip():
                    first = value.strip().splitlines()[0]
                    at = next((i for i, line in enumerate(text.split("\n")) if first in line), 0)
                    for offset, part in enumerate(value.strip().splitlines()):
                        if at + offset < len(lines):
                            lines[at + offset] = part
            found.append((project.relative(path), "\n".join(lines)))
    return found


def cited_in_sources(project: Project) -> set[str]:
    """Claims the paper sources cite through the template functions or the LaTeX macros."""
    from evidence.deliver.texnames import cited_macros, macro_index

    cited: set[str] = set()
    resolved = _read_json(claims_module.claims_path(project))
    macros = macro_index([c["id"] for c in resolved["claims"]])
    tex = sorted(project.paper_dir.rglob("*.tex")) if project.paper_dir.is_dir() else []
    for source in [*paper_sources(project), *tex]:
        text = reconcile.read_document(source)
        cited.update(_TEMPLATE_CITATION.findall(text))
        cited.update(macros[name][0] for _, name in cited_macros(text) if name in macros)
    return cited


def reconcile_action(project_root: str) -> None:
    """Drift between documents and evidence fails the build; waivers are listed; claims that no
    document checks are named."""
    project = Project.at(project_root)
    evidence = claims_module.load_evidence(project)
    resolved = _read_output(project, claims_module.claims_path(project))
    waivers = _waivers(evidence)
    number_waivers = [w for w in waivers if w.claim_id != HAND_TYPED]
    findings = reconcile_findings(project, evidence, resolved)
    hand_typed, hand_waived = hand_typed_numbers(project, waivers, resolved)
    cited = reconcile.cited_claims(findings) | cited_in_sources(project)
    never_cited = sorted(c["id"] for c in resolved["claims"] if c["id"] not in cited)
    unused = [w for w in reconcile.unused_waivers(findings, number_waivers)]
    unused += [w for w in waivers if w.claim_id == HAND_TYPED
               and not any(fnmatch.fnmatch(n.file, w.file_glob) and w.line in (None, n.line)
                           for n in hand_waived)]
    folder = project.reconcile_dir
    folder.mkdir(parents=True, exist_ok=True)
    report = reconcile.format_report(findings, hand_typed)
    report += _extra_report(never_cited, unused, hand_waived)
    write_bytes_atomic(folder / "report.md", report.encode("utf-8"))
    # every finding, machine-readable (schemas/reconcile.schema.json); written on failure too
    write_json_atomic(folder / "reconcile.json", reconcile.findings_json(findings, hand_typed, hand_waived))
    drift = reconcile.drift_findings(findings)
    waived = [f for f in findings if f.waived]
    write_json_atomic(folder / "report.json", {
        "schema_version": 1,
        "drift": [_finding_dict(f) for f in drift],
        "waived": [_finding_dict(f) for f in waived],
        "waived_hand_typed": [{"file": n.file, "line": n.line, "text": n.text} for n in hand_waived],
        "matches": [_finding_dict(f) for f in findings if f.kind == "match" and not f.waived],
        "hand_typed": [{"file": n.file, "line": n.line, "text": n.text} for n in hand_typed],
        "never_cited": never_cited,
        "unused_waivers": [{"file": w.file_glob, "line": w.line, "claim": w.claim_id, "reason": w.reason}
                           for w in unused]})
    for finding in drift:
        print(reconcile.finding_line(finding))
    for finding in findings:
        if finding.kind == "overstated_precision":
            print(reconcile.finding_line(finding))
    for number in hand_typed:
        print(f"HAND-TYPED {number.file}:{number.line}: {number.text!r} is not produced by any claim, "
              "figure or table")
    for claim_id in never_cited:
        print(f"NEVER CITED claim {claim_id}: no document states it (cite it as "
              f"[value](#claim:{claim_id}), through the paper's template functions or its LaTeX macro)")
    for waiver in unused:
        print(f"UNUSED WAIVER for {waiver.claim_id} in {waiver.file_glob}"
              f"{f':{waiver.line}' if waiver.line else ''}: it waives nothing; remove it")
    if drift or hand_typed:
        (folder / "report.json").unlink()  # no up-to-date record of a failed check
        raise DriftError(f"reconcile: {len(drift)} finding(s) (drifted numbers, unsupported wording, "
                         f"unbound numbers), {len(hand_typed)} hand-typed "
                         "number(s) in the paper sources; update the documents to the evidence, or "
                         "add a waiver with its reason to EVIDENCE.json")
    print(f"reconcile: {sum(f.kind == 'match' for f in findings)} number(s) in documents match their "
          f"evidence ({sum(f.bound for f in findings)} cited explicitly), "
          f"{len(waived) + len(hand_waived)} waived, no drift")


def _extra_report(never_cited: list[str], unused: list[reconcile.Waiver],
                  hand_waived: list[reconcile.HandTypedNumber]) -> str:
    lines = ["", "## Claims no document cites", ""]
    lines += [f"- `{c}`" for c in never_cited] or ["None."]
    lines += ["", "## Waivers that waive nothing", ""]
    lines += [f"- `{w.claim_id}` in `{w.file_glob}`: {w.reason}" for w in unused] or ["None."]
    lines += ["", "## Waived hand-typed numbers", ""]
    lines += [f"- `{n.file}:{n.line}`: {n.text}" for n in hand_waived] or ["None."]
    return "\n".join(lines) + "\n"


def _finding_dict(finding: reconcile.Finding) -> dict[str, Any]:
    return {"file": finding.file, "line": finding.line, "claim": finding.claim_id,
            "stated": finding.stated, "expected": finding.expected, "waived": finding.waived,
            "reason": finding.waiver_reason, "bound": finding.bound, "why": finding.why,
            "kind": finding.kind, "quantity": finding.quantity}


# -- disclose --------------------------------------------------------------------------------


def disclose_action(project_root: str) -> None:
    from evidence.deliver import disclose
    from evidence.verify.reportfile import load_report

    project = Project.at(project_root)
    evidence = claims_module.load_evidence(project)
    resolved = _read_output(project, claims_module.claims_path(project))
    waivers = _waivers(evidence)
    hand_typed, hand_waived = hand_typed_numbers(project, waivers, resolved)
    reconciled = project.reconcile_dir / "reconcile.json"
    overstated = [f for f in _read_output(project, reconciled)["findings"]
                  if f["kind"] == "overstated_precision"] if reconciled.is_file() else []
    findings = disclose.audit(project, resolved, load_report(project), hand_typed=hand_typed,
                              waivers=waivers, hand_waived=hand_waived, overstated=overstated,
                              min_seeds=int(evidence.get("disclosure", {}).get("min_seeds", 5)))
    disclose.write_disclosures(project, findings, project.disclosures_dir,
                               resolved_claims=resolved)
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.severity] = counts.get(finding.severity, 0) + 1
    print("disclosures: " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none"))


def run_files_fingerprint(project: Project) -> str:
    """Fingerprint (names, sizes, mtimes) of every sealed file: disclose reruns on tampering.

    From the store's survey (:mod:`evidence.store.survey`), taken once per doit process and again
    after a run is published.
    """
    from evidence.store.survey import survey

    return survey(project).fingerprint


# -- paper -----------------------------------------------------------------------------------


def paper_inputs(project: Project) -> Any:
    from evidence.deliver.paper import PaperInputs
    from evidence.present.artifacts import figure_index, table_index

    resolved = _read_output(project, claims_module.claims_path(project))
    disclosures = _read_output(project, project.disclosures_dir / "disclosures.json")
    figures = {f["name"]: f for f in figure_index(project) if f["built"]}
    tables = {t["name"]: {**t, "markdown": str(project.root / t["markdown"])}
              for t in table_index(project) if t["built"]}
    return PaperInputs(claims={c["id"]: c for c in resolved["claims"]}, figures=figures,
                       tables=tables, disclosures=disclosures["findings"],
                       title=resolved.get("title", ""), extra=compute_helpers(project),
                       authors=tuple(claims_module.load_evidence(project).get("authors", [])))


def compute_helpers(project: Project) -> dict[str, Any]:
    """``compute_statement()`` and ``compute_table()`` for the paper, from the compute ledger."""
    from evidence.deliver import ledger

    path = ledger.compute_dir(project) / "compute.json"
    doc = _read_output(project, path) if path.is_file() else None

    def need() -> Any:
        if doc is None:
            raise BadInputError(path, "the compute ledger is missing", hint="run `doit deliver`")
        return doc

    return {"compute_statement": lambda: ledger.statement(need()),
            "compute_table": lambda: ledger.experiment_table(need())}


def paper_action(project_root: str) -> None:
    from evidence.deliver.paper import markdown_to_html, render_markdown

    project = Project.at(project_root)
    out = staging_dir(project)
    inputs = paper_inputs(project)
    from evidence.deliver.latex import main_sources

    sources = [s for s in paper_sources(project) if s.name.endswith(".md.j2")]
    if not sources and not main_sources(project):
        raise BadInputError(project.paper_dir,
                            "no paper source (*.md.j2, or *.tex with \\documentclass) found")
    out.mkdir(parents=True, exist_ok=True)
    write_claims_tex(project, inputs, out)
    for source in sources:
        stem = source.name.removesuffix(".md.j2")
        text = render_markdown(source, inputs)
        write_bytes_atomic(out / f"{stem}.md", text.encode("utf-8"))
        write_bytes_atomic(out / f"{stem}.html",
                           markdown_to_html(text, inputs.title).encode("utf-8"))
        record_outputs(project.root, [out / f"{stem}.md", out / f"{stem}.html"])
        print(f"paper: {project.relative(out / (stem + '.md'))} and .html")
    _copy_presentation(project, inputs, out)


def write_claims_tex(project: Project, inputs: Any, out: Path) -> None:
    """build/deliver/claims.tex: every claim as LaTeX macros, with its disclosures."""
    from evidence.deliver.claimstex import claims_tex

    target = out / "claims.tex"
    text = claims_tex(list(inputs.claims.values()), inputs.disclosures, inputs.title)
    write_bytes_atomic(target, text.encode("utf-8"))
    record_outputs(project.root, [target])
    print(f"paper: {project.relative(target)} ({len(inputs.claims)} claim(s) as LaTeX macros)")


def pdf_action(project_root: str) -> None:
    """paper/*.tex -> build/deliver/*.pdf where a TeX toolchain exists (one line where none does)."""
    from evidence.deliver.latex import compile_pdf

    project = Project.at(project_root)
    inputs = paper_inputs(project)
    figures = {name: Path(project.root / f["images"]["pdf"]) for name, f in inputs.figures.items()
               if f["images"].get("pdf")}
    tables = {name: project.root / "tables" / name / "table.tex" for name in inputs.tables
              if (project.root / "tables" / name / "table.tex").is_file()}
    compile_pdf(project, figures, tables)


#: The files of a figure's or table's folder that the deliverable carries.
PRESENTATION_SUFFIXES = (".png", ".pdf", ".svg", ".csv", ".json", ".md", ".tex", ".toml", ".py")


def _copy_presentation(project: Project, inputs: Any, out: Path) -> None:
    """Copy the figures and tables the paper links to into the deliverable."""
    for kind, entries in (("figures", inputs.figures), ("tables", inputs.tables)):
        target_root = os.path.join(out, kind)
        wanted: set[str] = set()
        folders: list[tuple[str, list[tuple[str, str]]]] = []
        for name in entries:
            source, target = os.path.join(project.root, kind, name), os.path.join(target_root, name)
            with os.scandir(source) as listing:  # is_file() of a listing entry needs no stat
                names = sorted(e.name for e in listing
                               if e.is_file() and os.path.splitext(e.name)[1] in PRESENTATION_SUFFIXES)
            pairs = [(os.path.join(target, file), os.path.join(source, file)) for file in names]
            wanted.update(t for t, _ in pairs)
            folders.append((target, pairs))
        # drop what the paper no longer links to (and the folders that leaves empty)
        for folder, _, files in os.walk(target_root, topdown=False):
            for file in files:
                stale = os.path.join(folder, file)
                if stale not in wanted and os.path.isfile(stale):
                    os.unlink(stale)
                    forget_outputs(project.root, [Path(stale)])
            if folder != target_root and not os.listdir(folder):
                os.rmdir(folder)
        for folder, pairs in folders:
            _copy_folder(project, folder, pairs)


def _copy_folder(project: Project, folder: str, pairs: list[tuple[str, str]]) -> None:
    """Each (copy, source) pair of one figure's or table's folder made equal by content.

    Compared by content, not by size and mtime: a copy edited by hand (whatever its mtime) is
    replaced by the source; an unchanged one is neither written nor recorded again. The folder's
    answer is memoised by the stat of every source, copy and copy's record (size, mtime, inode,
    ctime: no edit keeps all four), so an unchanged folder is checked by those stats alone: the
    paper and the package steps both copy (the package step again, so that a copy edited between
    them is restored), and two digest lookups per file per step were most of 38 ms a step at 100
    figures. A folder copied just now is racily clean: its answer holds for this process only
    (the package step after the paper step), and the next call checks it file by file again."""
    from evidence.core.hashing import digest_json
    from evidence.core.outputs import record_file

    def check() -> bool:
        fresh: list[Path] = []
        for target, source in pairs:
            if verified_digest(project.root, target) != memo.digest(project, Path(source)):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                copy_atomic(source, target)
                fresh.append(Path(target))
        record_outputs(project.root, fresh)
        return True

    def files() -> list[str | Path]:
        return [file for target, source in pairs
                for file in (source, target, record_file(project.root, target))]

    memo.of(project, "presentation-copies").get(f"{folder}:{digest_json(pairs)[:16]}", files, check)


# -- compute, exports ------------------------------------------------------------------------


def compute_action(project_root: str) -> None:
    from evidence.deliver import ledger

    project = Project.at(project_root)
    doc = ledger.write_ledger(project)
    total = doc["total"]
    print(f"compute: {total['runs']} runs, {ledger.hours_text(doc, total['device_hours'])}, "
          f"cost {ledger.cost_text(total['cost'])} -> {project.relative(ledger.compute_dir(project))}/")


def exports_action(project_root: str) -> None:
    from evidence.deliver import provexport

    project = Project.at(project_root)
    assemble(project)
    done = provexport.export(project, staging_dir(project))
    print(f"exports: {project.relative(done.prov)} (PROV-JSON, valid) and {project.relative(done.crate)} "
          f"(RO-Crate, Process Run Crate profile, read back); {done.built} of the {done.fragments} "
          "parts of runs, figures and tables built, the others unchanged")


# -- deliver ---------------------------------------------------------------------------------


def package_action(project_root: str) -> None:
    """Assemble the deliverable in staging, write its manifest (every file by digest), publish it."""
    from evidence.deliver.manifest import certified_files, write_manifest
    from evidence.deliver.publish import publish, recover

    project = Project.at(project_root)
    out = assemble(project)
    # the figure and table copies again from their sources: a copy edited by hand is restored
    _copy_presentation(project, paper_inputs(project), out)
    published = deliver_dir(project)
    recover(published)
    certified = certified_files(published)
    carry_over_pdfs(project, published, certified, out)
    files = write_manifest(project, out, certified=certified)["files"]
    moved = publish(project, out, published)
    print(f"package: {project.relative(published)}/ ({len(files)} files) and its MANIFEST.json, "
          f"published from {project.relative(out)}/ ({len(moved)} file(s) copied in or removed)")


def carry_over_pdfs(project: Project, published: Path, certified: dict[str, str], out: Path) -> None:
    """Without a TeX toolchain, the published PDFs its manifest certifies go into the next
    deliverable as they are (a fresh clone keeps its committed paper.pdf)."""
    from evidence.core.hashing import digest_file
    from evidence.deliver.latex import main_sources, toolchain

    if toolchain() is not None:
        return
    for main in main_sources(project):
        name = f"{main.stem}.pdf"
        source, target = published / name, out / name
        if not target.exists() and source.is_file() and certified.get(name) == digest_file(source):
            copy_atomic(source, target)


def assembled_files(project: Project) -> dict[Path, Path]:
    """Report -> its copy in the deliverable folder."""
    from evidence.deliver.ledger import compute_dir

    out = staging_dir(project)
    return {project.claims_dir / "claims.json": out / "claims.json",
            project.verify_dir / "report.json": out / "verify" / "report.json",
            project.verify_dir / "summary.md": out / "verify" / "summary.md",
            project.disclosures_dir / "DISCLOSURES.md": out / "DISCLOSURES.md",
            project.disclosures_dir / "disclosures.json": out / "disclosures.json",
            project.reconcile_dir / "report.md": out / "reconcile.md",
            project.reconcile_dir / "reconcile.json": out / "reconcile.json",
            compute_dir(project) / "compute.json": out / "compute.json",
            compute_dir(project) / "compute.md": out / "compute.md",
            project.checklist_dir / "checklist.md": out / "checklist.md",
            project.checklist_dir / "checklist.tex": out / "checklist.tex",
            project.evidence_page_dir / "evidence.html": out / "evidence.html",
            project.evidence_file: out / "EVIDENCE.json"}


def assemble(project: Project) -> Path:
    """Copy the reports into the staging folder (the paper task wrote the paper, figures, tables)."""
    for source, target in assembled_files(project).items():
        target.parent.mkdir(parents=True, exist_ok=True)
        check_output(project.root, source)  # an edited report is not shipped
        copy_atomic(source, target)
        record_outputs(project.root, [target])
    return staging_dir(project)
