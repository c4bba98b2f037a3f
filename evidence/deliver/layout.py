"""Where the paper step reads and writes: its own module so that the one-screen summary
(:mod:`evidence.deliver.summary`), which runs on every call, need not import the deliver steps."""

from __future__ import annotations

from pathlib import Path

from evidence.core.project import Project


def paper_sources(project: Project) -> list[Path]:
    return sorted(project.paper_dir.glob("*.j2")) if project.paper_dir.is_dir() else []


def paper_outputs(project: Project, out: Path | None = None) -> list[Path]:
    """What the paper step writes: ``<stem>.md`` and ``.html`` per Markdown source, and claims.tex,
    in ``out`` (the published deliverable unless given; the step itself writes into staging)."""
    out = project.deliver_dir if out is None else out
    pages = [out / f"{s.name.removesuffix('.md.j2')}.{ext}" for s in paper_sources(project)
             if s.name.endswith(".md.j2") for ext in ("html", "md")]
    return [*pages, out / "claims.tex"]
