"""The figures and tables the deliverable carries: copied from their folders, equal by content.

The paper step and the package step both copy them (the package step again, so that a copy
edited in between is restored); each figure's check is memoised by the stat of its sources, its
copies and their records, so an edit that keeps a copy's size and mtime is still seen.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from evidence.core import memo
from evidence.core.outputs import verified_digest
from evidence.core.project import Project
from evidence.deliver.assemble import _copy_presentation
from evidence.deliver.paper import PaperInputs


def age(*paths: Path) -> None:
    past = time.time() - 60
    for path in paths:
        os.utime(path, (past, past))


def _project(tmp_path: Path) -> tuple[Project, Path, PaperInputs]:
    folder = tmp_path / "figures" / "acc"
    folder.mkdir(parents=True)
    for name, text in {"figure.png": "\x89PNG drawing", "figure.toml": "kind = 'bar'\n",
                       "source_data.csv": "x,y\n1,2\n", "notes.txt": "not carried"}.items():
        (folder / name).write_text(text, "utf-8")
    age(*folder.iterdir())
    inputs = PaperInputs(claims={}, figures={"acc": {"name": "acc"}}, tables={}, disclosures=[])
    project = Project.at(tmp_path)
    return project, project.build_dir / "staging", inputs


def _same_size_edit(path: Path, text: str) -> None:
    """Rewrite a file with other bytes of the same size and put its mtime back."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text, "utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_the_copies_are_the_sources_and_an_edited_copy_is_restored(tmp_path: Path) -> None:
    project, out, inputs = _project(tmp_path)
    copy = out / "figures" / "acc" / "figure.png"
    _copy_presentation(project, inputs, out)
    assert sorted(p.name for p in (out / "figures" / "acc").iterdir()) == \
        ["figure.png", "figure.toml", "source_data.csv"]
    assert copy.read_bytes() == (tmp_path / "figures" / "acc" / "figure.png").read_bytes()
    assert verified_digest(project.root, copy) is not None  # recorded as the build's output

    # the same process (the package step after the paper step): the check just made is reused
    # while nothing changed, and a copy edited in between is seen all the same
    _same_size_edit(copy, "\x89PNG DRAWING")
    _copy_presentation(project, inputs, out)
    assert copy.read_text("utf-8") == "\x89PNG drawing"

    # a later process, every file out of the racily-clean window: answered by the stats
    age(*(out / "figures" / "acc").iterdir())
    _copy_presentation(project, inputs, out)
    memo.save_all()
    memo._REGISTRY.clear()
    inode = copy.stat().st_ino
    _copy_presentation(project, inputs, out)
    assert copy.stat().st_ino == inode  # unchanged: not copied again
    _same_size_edit(copy, "\x89PNG DRAWING")
    _copy_presentation(project, inputs, out)
    assert copy.read_text("utf-8") == "\x89PNG drawing"


def test_a_source_edited_added_or_removed_reaches_the_copies(tmp_path: Path) -> None:
    project, out, inputs = _project(tmp_path)
    source = tmp_path / "figures" / "acc"
    _copy_presentation(project, inputs, out)
    age(*(out / "figures" / "acc").iterdir())
    _copy_presentation(project, inputs, out)
    memo.save_all()
    memo._REGISTRY.clear()
    _same_size_edit(source / "source_data.csv", "x,y\n1,3\n")
    (source / "figure.pdf").write_bytes(b"%PDF new")
    (source / "figure.toml").unlink()
    _copy_presentation(project, inputs, out)
    copies = out / "figures" / "acc"
    assert sorted(p.name for p in copies.iterdir()) == ["figure.pdf", "figure.png", "source_data.csv"]
    assert (copies / "source_data.csv").read_text("utf-8") == "x,y\n1,3\n"
    assert (copies / "figure.pdf").read_bytes() == b"%PDF new"
    # a figure the paper no longer links to leaves the deliverable, its folder too
    _copy_presentation(project, PaperInputs(claims={}, figures={}, tables={}, disclosures=[]), out)
    assert (out / "figures").is_dir() and not any((out / "figures").iterdir())
