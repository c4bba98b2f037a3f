"""A folder's per-file answers are reused only while each file's stat is unchanged.

:mod:`evidence.core.treestat` answers "is this the copy the build wrote" and "what is the digest
of this published file" for thousands of files per delivery step by one stat each. These tests
hold it to the memo's rules: an edit that restores the size and mtime is still seen (the change
time moves), a racily clean file's answer is not written down, answers found in another folder
(a copied project) are not used, and a whole delivery flow still names an edited copy.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from evidence.core import treestat
from evidence.core.outputs import record_outputs, verified_digests
from evidence.core.project import Project


def old(path: Path) -> None:
    """Back-date ``path`` past the racily-clean window (as a file written minutes ago)."""
    past = time.time() - 60
    os.utime(path, (past, past))


def test_an_answer_is_reused_until_the_file_changes_even_with_size_and_mtime_restored(tmp_path: Path) -> None:
    project = Project.at(tmp_path)
    folder = tmp_path / "out"
    (folder / "runs" / "a").mkdir(parents=True)
    file = folder / "runs" / "a" / "results.json"
    file.write_text('{"acc": 0.91}')
    old(file)
    state = treestat.TreeState(project, folder, "t")
    stat = treestat.stat_of(str(file))
    state.put("runs/a/results.json", stat, "answer", time.time_ns())
    state.save()
    again = treestat.TreeState(project, folder, "t")
    assert again.known("runs/a/results.json", treestat.stat_of(str(file))) == (True, "answer")
    before = os.stat(file)
    file.write_text('{"acc": 0.19}')  # same size
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the mtime put back
    assert treestat.stat_of(str(file))[:2] == (before.st_size, before.st_mtime_ns)
    assert again.known("runs/a/results.json", treestat.stat_of(str(file)))[0] is False


def test_a_racily_clean_answer_is_kept_for_this_process_only(tmp_path: Path) -> None:
    project = Project.at(tmp_path)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "x.txt").write_text("fresh")
    stat = treestat.stat_of(str(folder / "x.txt"))
    state = treestat.TreeState(project, folder, "t")
    state.put("x.txt", stat, "answer", time.time_ns())
    assert state.known("x.txt", stat) == (True, "answer")
    state.save()
    assert treestat.TreeState(project, folder, "t").known("x.txt", stat)[0] is False


def test_answers_found_in_another_folder_are_not_used(tmp_path: Path) -> None:
    root = tmp_path / "project"
    folder = root / "out"
    folder.mkdir(parents=True)
    (folder / "x.txt").write_text("kept")
    old(folder / "x.txt")
    state = treestat.TreeState(Project.at(root), folder, "t")
    state.put("x.txt", treestat.stat_of(str(folder / "x.txt")), "answer", time.time_ns())
    state.save()
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)  # the state file travels with the project's .evidence/
    copied = treestat.TreeState(Project.at(copy), copy / "out", "t")
    assert copied.known("x.txt", treestat.stat_of(str(copy / "out" / "x.txt")))[0] is False


def test_walk_lists_files_in_manifest_order(tmp_path: Path) -> None:
    for name in ("b.txt", "a/z.txt", "a-b/c.txt", "a/b/c.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    assert treestat.walk(tmp_path) == sorted(["b.txt", "a/z.txt", "a-b/c.txt", "a/b/c.txt"],
                                             key=lambda n: n.split("/"))


def test_verified_digests_name_an_edited_copy_after_it_was_verified(tmp_path: Path) -> None:
    """The bulk answer agrees with the file-by-file one: an output edited after it was verified
    (and its mtime restored) is no longer what the build wrote."""
    project = Project.at(tmp_path)
    folder = tmp_path / "build" / "deliver.staging"
    (folder / "runs" / "r1").mkdir(parents=True)
    copy = folder / "runs" / "r1" / "spec.json"
    copy.write_text('{"seed": 1}')
    old(copy)
    record_outputs(tmp_path, [copy])
    first = verified_digests(tmp_path, folder, ["runs/r1/spec.json", "runs/r1/missing.json"])
    assert first["runs/r1/spec.json"][0] is not None and first["runs/r1/missing.json"] == (None, None)
    again = verified_digests(tmp_path, folder, ["runs/r1/spec.json"])  # answered by one stat
    assert again == {"runs/r1/spec.json": first["runs/r1/spec.json"]}
    before = os.stat(copy)
    copy.write_text('{"seed": 7}')
    os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert verified_digests(tmp_path, folder, ["runs/r1/spec.json"])["runs/r1/spec.json"][0] is None
    assert project.cache_dir.is_dir()
