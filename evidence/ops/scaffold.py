"""``evidence init``: a new project that builds end to end at once.

The template lives in ``evidence/templates/project`` (installed with the package). Every file
is copied as is, except ``gitignore`` which becomes ``.gitignore`` (a dot-file would be dropped
by some packaging tools). Nothing is ever overwritten: an existing file is an error, and the
check happens before the first file is written, so a refused init leaves the folder as it was.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

from evidence.core.errors import BadInputError

RENAMES = {"gitignore": ".gitignore"}
#: Paper layouts ``evidence init --paper`` offers: the Markdown template, LaTeX sources, or both.
PAPER_LAYOUTS = ("markdown", "latex", "both")
MARKDOWN_PAPER = "paper/paper.md.j2"


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    found = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name == "__pycache__":
            continue
        name = f"{prefix}{RENAMES.get(child.name, child.name)}"
        if child.is_dir():
            found.extend(_walk(child, f"{name}/"))
        else:
            found.append((name, child))
    return found


def template_files(paper: str = "markdown") -> list[tuple[str, Traversable]]:
    """(relative path in the new project, template file), in a stable order.

    ``paper``: ``markdown`` (paper/paper.md.j2, rendered to paper.md and paper.html), ``latex``
    (paper/paper.tex, compiled to paper.pdf, from ``templates/latex``) or ``both``.
    """
    if paper not in PAPER_LAYOUTS:
        raise BadInputError("--paper", f"unknown paper layout {paper!r}; use one of "
                            f"{', '.join(PAPER_LAYOUTS)}")
    templates = resources.files("evidence") / "templates"
    files = _walk(templates / "project")
    if paper == "latex":
        files = [(name, source) for name, source in files if name != MARKDOWN_PAPER]
    if paper in ("latex", "both"):
        files += _walk(templates / "latex")
    return sorted(files, key=lambda item: item[0])


def init_project(folder: Path, paper: str = "markdown") -> list[str]:
    """Create a new project in ``folder`` (which may exist but must not hold any template file)."""
    files = template_files(paper)
    clashes = [name for name, _ in files if (folder / name).exists()]
    if clashes:
        raise BadInputError(folder, f"refusing to overwrite {', '.join(clashes[:5])}",
                            hint="choose an empty or new folder")
    for name, source in files:
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
    (folder / "runs").mkdir(exist_ok=True)
    return [name for name, _ in files]
