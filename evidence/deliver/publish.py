"""Publishing the deliverable: build/deliver/ changes whole, and only when every step succeeded.

The deliver steps (paper, pdf, exports, package) write into a staging folder,
``build/deliver.staging/`` (:attr:`evidence.core.project.Project.deliver_staging_dir`); the
package step writes its MANIFEST.json there last and then publishes it: a copy of the staging
folder is made beside the deliverable (``build/deliver.new``) and swapped in by two renames
(the old one to ``build/deliver.old``, the new one into place, the old one removed). So a
template that fails to render, LaTeX that does not compile, an edited report the package step
refuses, or a delivery killed half way leaves build/deliver/ byte for byte what it was, and
what its manifest certifies. A swap interrupted between its two renames is finished backwards
(the old deliverable put back) by the next publish, or by :func:`recover`.

A copy, not hard links: a person editing a published file in place must not edit the staging
folder behind it (the edit is named and the build's copy published again).

Publishing replaces the folder whole, so a file a person put into build/deliver/ (one that its
manifest does not list and the build did not write) is refused by name before anything moves,
never deleted.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from evidence.core.errors import IntegrityError
from evidence.core.outputs import verified_digest
from evidence.core.project import Project

MANIFEST = "MANIFEST.json"


def _sibling(target: Path, suffix: str) -> Path:
    return target.with_name(target.name + suffix)


def recover(target: Path) -> None:
    """Undo a publish interrupted between its renames (the old deliverable back), and drop
    what an interrupted copy left."""
    old, new = _sibling(target, ".old"), _sibling(target, ".new")
    if not target.exists() and old.is_dir():
        os.rename(old, target)
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)


def foreign_files(project: Project, target: Path) -> list[str]:
    """Files of the published deliverable that neither its manifest lists nor the build wrote:
    put there by a person, so publishing (which replaces the folder) must not delete them."""
    try:
        listed = set(json.loads((target / MANIFEST).read_text("utf-8"))["files"])
    except (OSError, ValueError, KeyError, TypeError):
        listed = set()
    found = []
    for folder, dirs, files in os.walk(target):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            rel = path.relative_to(target).as_posix()
            if rel != MANIFEST and rel not in listed and verified_digest(project.root, path) is None:
                found.append(f"{project.relative(path)} was not written by the build")
    return found


def publish(project: Project, staging: Path, target: Path) -> None:
    """Make ``target`` a copy of ``staging`` (whose manifest was just written), atomically."""
    recover(target)
    foreign = foreign_files(project, target) if target.is_dir() else []
    if foreign:
        raise IntegrityError(foreign[0] + (f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else "")
                             + "; publishing replaces the deliverable whole and would delete it",
                             hint=f"move it out of {project.relative(target)}/, then run `doit deliver`")
    new, old = _sibling(target, ".new"), _sibling(target, ".old")
    shutil.copytree(staging, new, copy_function=shutil.copy2)
    replacing = target.exists()
    if replacing:
        os.rename(target, old)
    os.rename(new, target)
    if replacing:
        shutil.rmtree(old)
