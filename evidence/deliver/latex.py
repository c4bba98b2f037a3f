"""The LaTeX form of the paper: claims.tex for any project, the PDF where a TeX toolchain exists.

A project may keep its paper as LaTeX sources in ``paper/`` (``*.tex`` with its own class, style
and bibliography files) beside, or instead of, the Markdown template. The sources ``\\input``
``claims.tex`` (every claim as macros, :mod:`evidence.deliver.claimstex`), tables as
``tables/<name>/table.tex`` and figures as ``figures/<name>/figure.pdf``: the build stages exactly
that layout in ``build/latex/`` and compiles each main source (one with ``\\documentclass``) with
latexmk + pdflatex, or tectonic, into ``build/deliver/<name>.pdf``.

Without a toolchain delivery still works and says so in one line. The PDF is reproducible:
pdfTeX and tectonic take their timestamps from ``SOURCE_DATE_EPOCH``, set to the date of the
last commit of the inputs, so an unchanged clone rebuilds the same bytes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from evidence.core.errors import EvidenceError
from evidence.core.hashing import write_bytes_atomic
from evidence.core.outputs import record_outputs
from evidence.core.project import Project

#: Files of paper/ a LaTeX build uses (sources, classes, styles, bibliographies).
SOURCE_SUFFIXES = (".tex", ".bib", ".cls", ".sty", ".bst", ".bbx", ".cbx")
_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.MULTILINE)
_ERROR_LINE = re.compile(r"^(?:\./)?([^\s:]+\.tex):(\d+): (.*)$", re.MULTILINE)
NO_TOOLCHAIN = ("pdf: not built: no TeX toolchain on PATH (latexmk + pdflatex, or tectonic); "
                "claims.tex and the rest of the deliverable are built")


def toolchain() -> list[str] | None:
    """The command that compiles a main source to PDF, or None when no toolchain is installed."""
    if shutil.which("latexmk") and shutil.which("pdflatex"):
        # -g: always compile. latexmk's own up-to-date check does not see SOURCE_DATE_EPOCH, so a
        # PDF left in build/latex/ from an earlier commit kept that commit's date; doit decides
        # when this step runs, latexmk must not second-guess it.
        return ["latexmk", "-g", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]
    if shutil.which("tectonic"):
        return ["tectonic", "--keep-logs"]
    return None


def latex_sources(project: Project) -> list[Path]:
    """Every file of paper/ that a LaTeX build reads."""
    folder = project.paper_dir
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def main_sources(project: Project) -> list[Path]:
    """The sources to compile: ``paper/*.tex`` with a ``\\documentclass`` line."""
    return [p for p in latex_sources(project) if p.suffix == ".tex"
            and _DOCUMENTCLASS.search(p.read_text("utf-8", errors="replace"))]


def pdf_targets(project: Project) -> list[Path]:
    return [project.deliver_staging_dir / f"{p.stem}.pdf" for p in main_sources(project)]


def latex_dir(project: Project) -> Path:
    return project.build_dir / "latex"


def source_date_epoch(project: Project) -> str:
    """Seconds of the last commit of the inputs (0 outside git): the PDF's only timestamp."""
    from evidence.core.provenance import committed_time, inputs_commit

    commit = inputs_commit(project.root)
    return str(committed_time(project.root, commit)) if commit else "0"


def stage(project: Project, figures: dict[str, Path], tables: dict[str, Path]) -> Path:
    """build/latex/ as the sources expect it: paper files, claims.tex, figures/ and tables/."""
    work = latex_dir(project)
    work.mkdir(parents=True, exist_ok=True)
    for source in latex_sources(project):
        shutil.copyfile(source, work / source.name)
    shutil.copyfile(project.deliver_staging_dir / "claims.tex", work / "claims.tex")
    for kind, entries in (("figures", figures), ("tables", tables)):
        for name, path in entries.items():
            target = work / kind / name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    return work


def first_error(log: str) -> str:
    """The first ``file:line: message`` of a LaTeX log, else its last lines."""
    found = _ERROR_LINE.search(log)
    if found:
        return f"paper/{found[1]}:{found[2]}: {found[3]}"
    return " | ".join(line for line in log.strip().splitlines()[-4:] if line.strip())


def compile_pdf(project: Project, figures: dict[str, Path], tables: dict[str, Path]) -> list[Path]:
    """Compile every main source into build/deliver/; returns the PDFs (none without a toolchain)."""
    command = toolchain()
    mains = main_sources(project)
    if not mains:
        return []
    if command is None:
        print(NO_TOOLCHAIN)
        return []
    work = stage(project, figures, tables)
    env = {**os.environ, "SOURCE_DATE_EPOCH": source_date_epoch(project), "FORCE_SOURCE_DATE": "1",
           "TEXINPUTS": f"{work}{os.pathsep}"}
    built = []
    for main in mains:
        started = time.perf_counter()
        result = subprocess.run([*command, main.name], cwd=work, env=env, capture_output=True,
                                text=True, errors="replace", timeout=600)
        pdf = work / f"{main.stem}.pdf"
        if result.returncode != 0 or not pdf.is_file():
            log_file = work / f"{main.stem}.log"
            log = log_file.read_text("utf-8", errors="replace") if log_file.is_file() else result.stdout
            raise EvidenceError(f"LaTeX failed on {project.relative(main)}: {first_error(log)}",
                                hint=f"the full log is {project.relative(work / (main.stem + '.log'))}")
        target = project.deliver_staging_dir / pdf.name
        write_bytes_atomic(target, pdf.read_bytes())
        record_outputs(project.root, [target])
        built.append(target)
        print(f"pdf: {project.relative(target)} ({command[0]}, {time.perf_counter() - started:.1f} s)")
    return built
