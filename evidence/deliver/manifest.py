"""The deliverable's MANIFEST.json: written only over files the build wrote, checked before it ships.

A manifest certifies every file of ``build/deliver/`` by digest. It must never certify a file
edited by hand, so :func:`write_manifest` first checks each file against the digest the build
recorded when it wrote it (:mod:`evidence.core.outputs`) and refuses, naming the file, if one
differs or was not written by the build at all. :func:`manifest_problems` checks a deliverable
against its manifest (``doit fsck``, ``evidence repro``): a changed, missing or unlisted file is
named. The manifest also records the git state of the inputs the deliverable was built from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from evidence.core.errors import IntegrityError
from evidence.core.hashing import digest_file, write_json_atomic
from evidence.core.outputs import record_outputs, recorded_state, verified_digests
from evidence.core.project import Project
from evidence.core.provenance import git_state

MANIFEST = "MANIFEST.json"


def source_state(project: Project) -> dict[str, Any]:
    """The git state of the inputs (stable across commits that only add outputs)."""
    state = git_state(project.root)
    return {"inputs_commit": state.get("inputs_commit"), "dirty": state.get("dirty"),
            "dirty_files": state.get("dirty_files", [])}


def unrecorded_or_edited(project: Project, out: Path) -> list[str]:
    """Files of the deliverable that the build did not write as they are now."""
    return _checked(project, out)[1]


def _checked(project: Project, out: Path, certified: dict[str, str] | None = None,
             ) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """(name in the deliverable -> (digest, size) of each file the build wrote as it is now, or
    for a carried-over PDF the certified one; the other files named as problems).

    A file unchanged since it was last found to agree with its record answers by one stat
    (:func:`evidence.core.outputs.verified_digests`): the manifest need not read every record
    nor hash the deliverable again. Only the others are read (and hashed if their stat changed).
    """
    from evidence.core.treestat import walk

    problems = []
    found: dict[str, tuple[str, int]] = {}
    names = [name for name in walk(out) if name != MANIFEST]
    for name, (digest, size) in verified_digests(project.root, out, names).items():
        if size is None:  # gone while checked, or not a file
            continue
        if digest is None:
            path = out / name
            recorded, edited = recorded_state(project.root, path)
            if certified is None:
                certified = certified_files(out)
            if edited is not None:
                problems.append(edited.describe(project.root))
                continue
            if recorded is None and not _carried_over(path, out, certified):
                problems.append(f"{project.relative(path)} was not written by the build")
                continue
            digest = recorded if recorded is not None else certified[name]
            size = os.stat(path).st_size
        found[name] = (digest, size)
    return found, problems


def certified_files(out: Path) -> dict[str, str]:
    """name -> digest that the deliverable's current MANIFEST.json certifies."""
    try:
        files = json.loads((out / MANIFEST).read_text("utf-8"))["files"]
        return {name: str(entry["digest"]) for name, entry in files.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _carried_over(path: Path, out: Path, certified: dict[str, str]) -> bool:
    """A PDF this machine cannot build (no TeX toolchain), exactly as the manifest certified it:
    a fresh clone of a committed deliverable keeps its paper.pdf instead of failing delivery.
    Only bytes already certified pass; an edited PDF still differs from its digest."""
    from evidence.deliver.latex import toolchain

    name = path.relative_to(out).as_posix()
    return (path.suffix == ".pdf" and toolchain() is None and name in certified
            and digest_file(path) == certified[name])


def write_manifest(project: Project, out: Path, *, certified: dict[str, str] | None = None,
                   ) -> dict[str, Any]:
    """MANIFEST.json over every file of ``out``; refuses if any was not written by the build.

    ``certified``: name -> digest of what the published deliverable's manifest certifies (a PDF
    carried over from it passes as certified); by default ``out``'s own manifest."""
    digests, problems = _checked(project, out, certified)
    if problems:
        raise IntegrityError(f"{problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1
                                                else "") + "; the manifest certifies only what the "
                             "build wrote", hint=f"delete {project.relative(out)}/ and run `doit deliver`")
    # every file was just checked against what the build recorded when it wrote it
    files = {name: {"digest": digest, "size": size} for name, (digest, size) in digests.items()}
    doc = {"schema_version": 1, "algorithm": "blake3", "source": source_state(project), "files": files}
    write_json_atomic(out / MANIFEST, doc)
    record_outputs(project.root, [out / MANIFEST])
    return doc


def manifest_problems(out: Path, trusted_stat: Project | None = None) -> list[str]:
    """Every file of the deliverable ``out`` that differs from its MANIFEST.json, by name.

    Every file is hashed, unless ``trusted_stat`` names the project whose digests of published
    files, kept by stat (:class:`evidence.core.treestat.TreeState`, filled by the publish and by
    this check), may answer for a file whose size, mtime, inode and ctime are unchanged since it
    was hashed: the deliver chain's uptodate check, which runs on every call that takes the full
    path. ``doit fsck`` and ``evidence repro`` hash every byte.
    """
    from evidence.core import treestat
    from evidence.deliver.publish import journal_path

    path = out / MANIFEST
    try:
        manifest = json.loads(path.read_text("utf-8"))
        listed = manifest["files"]
    except FileNotFoundError:
        return [f"{MANIFEST} is missing"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [f"{MANIFEST} is unreadable: {error}"]
    problems = []
    journal = journal_path(out)
    if journal.is_file():
        problems.append(f"a publish into {out.name}/ was interrupted (its journal {journal.name} "
                        "is left); `doit deliver` finishes it")
    tree = None if trusted_stat is None else treestat.of(trusted_stat, out, "published-digests")
    started = treestat.now_ns()
    present = {name for name in treestat.walk(out) if name != MANIFEST}
    prefix = str(out) + os.sep
    for name, entry in sorted(listed.items()):
        stat = treestat.stat_of(prefix + name) if name in present else None
        if stat is None:
            problems.append(f"{name} is listed in {MANIFEST} but missing")
            continue
        if stat[0] != entry.get("size"):
            problems.append(f"{name} differs from its digest in {MANIFEST}")
            continue
        known, digest = (False, None) if tree is None else tree.known(name, stat)
        if not known:
            digest = digest_file(out / name)
            if tree is not None:
                tree.put(name, stat, digest, started)
        if digest != entry.get("digest"):
            problems.append(f"{name} differs from its digest in {MANIFEST}")
    problems += [f"{name} is not listed in {MANIFEST}" for name in sorted(present - set(listed))]
    if tree is not None:
        tree.save()
    return problems
