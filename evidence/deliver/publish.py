"""Publishing the deliverable: build/deliver/ changes only when every step succeeded, and only
where the build changed it.

The deliver steps (paper, pdf, exports, package) write into a staging folder,
``build/deliver.staging/`` (:attr:`evidence.core.project.Project.deliver_staging_dir`); the
package step writes its MANIFEST.json there last and then publishes it. So a template that fails
to render, LaTeX that does not compile, or an edited report the package step refuses leaves
build/deliver/ byte for byte what it was, and what its manifest certifies.

Publishing brings build/deliver/ up to the staged manifest file by file, in O(what changed): a
file whose digest already equals the staged one (kept by its stat signature, see
:mod:`evidence.core.treestat`) is left alone, a changed or new one is copied in by a
rename, one the new manifest no longer lists is removed, and MANIFEST.json is replaced last. (A
copy of the whole staging folder swapped in by renames made every one-value edit copy 3,000
files at 1,000 runs: 1.9 of its 2.5 s.) Before the first file moves, a journal,
``build/deliver.publishing``, names the files of the new manifest; it is removed when the
manifest is in place. A publish killed half way leaves the journal: the deliverable no longer
matches its manifest (``doit fsck`` says a publish was interrupted), and the next ``doit
deliver`` finishes it forward from the staging folder, which still holds the whole verified
deliverable. Nothing in staging is lost, and nothing half-written is ever a published file:
each file arrives by a rename.

A copy, not hard links: a person editing a published file in place must not edit the staging
folder behind it (the edit is named and the build's copy published again).

A file a person put into build/deliver/ (one that neither its manifest nor the publish under
way lists, and the build did not write) is refused by name before anything moves, never deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from evidence.core import treestat
from evidence.core.errors import IntegrityError
from evidence.core.hashing import copy_atomic, digest_file, write_json_atomic
from evidence.core.outputs import verified_digest
from evidence.core.project import Project
from evidence.core.treestat import walk

MANIFEST = "MANIFEST.json"


def _sibling(target: Path, suffix: str) -> Path:
    return target.with_name(target.name + suffix)


def journal_path(target: Path) -> Path:
    """The journal of a publish under way into ``target`` (exists only while one is, or after
    one was killed)."""
    return _sibling(target, ".publishing")


def recover(target: Path) -> None:
    """Undo a whole-folder swap that an earlier version of this module left between its two
    renames (the old deliverable put back), and drop what an interrupted copy left."""
    old, new = _sibling(target, ".old"), _sibling(target, ".new")
    if not target.exists() and old.is_dir():
        os.rename(old, target)
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)


def _journal_names(target: Path) -> set[str]:
    try:
        return set(json.loads(journal_path(target).read_text("utf-8"))["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def foreign_files(project: Project, target: Path, names: list[str] | None = None) -> list[str]:
    """Files of the published deliverable that neither its manifest nor an interrupted publish
    lists, and the build did not write: put there by a person, never deleted. ``names``: the
    files of ``target`` (:func:`evidence.core.treestat.walk`), if the caller has them."""
    try:
        listed = set(json.loads((target / MANIFEST).read_text("utf-8"))["files"])
    except (OSError, ValueError, KeyError, TypeError):
        listed = set()
    listed |= _journal_names(target)
    return [f"{project.relative(target / name)} was not written by the build"
            for name in (walk(target) if names is None else names)
            if name != MANIFEST and name not in listed
            and verified_digest(project.root, target / name) is None]


def _stale_or_changed(project: Project, target: Path, names: list[str],
                      wanted: dict[str, dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(the published files the new manifest does not list, the listed files whose published
    bytes differ from the staged ones). A published file's digest is kept by its stat
    (:class:`evidence.core.treestat.TreeState`): one stat per unchanged file."""
    present = set(names)
    stale = [name for name in names if name != MANIFEST and name not in wanted]
    tree = treestat.of(project, target, "published-digests")
    started = treestat.now_ns()
    changed = []
    prefix = str(target) + os.sep
    for name, entry in wanted.items():
        if name not in present:
            changed.append(name)
            continue
        stat = treestat.stat_of(prefix + name)
        if stat is None or stat[0] != entry.get("size"):
            changed.append(name)
            continue
        known, digest = tree.known(name, stat)
        if not known:
            digest = digest_file(target / name)
            tree.put(name, stat, digest, started)
        if digest != entry.get("digest"):
            changed.append(name)
    tree.keep_only(present)
    tree.save()
    return stale, changed


def _copy_in(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    copy_atomic(source, target)


def _prune_empty(target: Path) -> None:
    """Remove the folders left empty (bottom-up: a folder whose subfolders just went is empty)."""
    for folder, _dirs, files in os.walk(target, topdown=False):
        if not files and folder != str(target):
            with contextlib.suppress(OSError):  # not empty: rmdir refuses
                os.rmdir(folder)


def publish(project: Project, staging: Path, target: Path) -> list[str]:
    """Bring ``target`` up to ``staging`` (whose manifest was just written); returns the names
    of the files copied in or removed (MANIFEST.json not counted)."""
    recover(target)
    names = walk(target) if target.is_dir() else []
    foreign = foreign_files(project, target, names)
    if foreign:
        raise IntegrityError(foreign[0] + (f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else "")
                             + "; publishing replaces the deliverable and would delete it",
                             hint=f"move it out of {project.relative(target)}/, then run `doit deliver`")
    wanted: dict[str, dict[str, Any]] = json.loads((staging / MANIFEST).read_text("utf-8"))["files"]
    stale, changed = _stale_or_changed(project, target, names, wanted)
    if not changed and not stale and _current_manifest(staging, target):
        return []
    journal = journal_path(target)
    target.mkdir(parents=True, exist_ok=True)
    write_json_atomic(journal, {"files": sorted(wanted)})
    for name in changed:
        _copy_in(staging / name, target / name)
    for name in stale:
        (target / name).unlink(missing_ok=True)
    if stale:
        _prune_empty(target)
    _copy_in(staging / MANIFEST, target / MANIFEST)
    journal.unlink()
    return sorted(changed + stale)


def _current_manifest(staging: Path, target: Path) -> bool:
    try:
        return (staging / MANIFEST).read_bytes() == (target / MANIFEST).read_bytes()
    except OSError:
        return False
