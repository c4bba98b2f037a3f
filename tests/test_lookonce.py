"""One stat per file per status check (evidence.core.lookonce), with real doit.

A guarded task's status check used to stat each file dependency twice (the guard, then doit's
checker) and each target three times (the record check, the digest memo, doit's ``exists``).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain

from evidence.core import lookonce, memo
from evidence.core.project import Project
from evidence.tasks.base import guard_outputs
from evidence.tasks.quick import indexed_checker


def build(folder: Path, ran: list[str], *options: str) -> int:
    """``doit`` of one guarded task: two inputs -> two outputs, with evidence's checker."""
    project = Project.at(folder)
    deps = [str(folder / "a.txt"), str(folder / "b.txt")]
    outs = [str(folder / "x.txt"), str(folder / "y.txt")]

    def action() -> None:
        ran.append("ran")
        text = "".join(Path(d).read_text() for d in deps)
        for out in outs:
            Path(out).write_text(text)

    def task_step() -> dict[str, Any]:
        return guard_outputs(project, {"actions": [action], "file_dep": deps, "targets": outs,
                                       "verbosity": 0})

    loader = ModuleTaskLoader({"task_step": task_step,
                               "DOIT_CONFIG": {"dep_file": str(folder / "db.sqlite3"),
                                               "backend": "sqlite3",
                                               "check_file_uptodate": indexed_checker(project)}})
    return DoitMain(loader, extra_config={"GLOBAL": {}}).run(list(options or ("--reporter", "zero")))


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("one")
    (tmp_path / "b.txt").write_text("two")
    return tmp_path


def counted_stats(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()
    real = os.stat

    def counting(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        counts[os.fspath(path)] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    return counts


def test_a_status_check_stats_each_file_once(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "RACY_SECONDS", 0.0)  # as if the files were seconds old
    ran: list[str] = []
    assert build(folder, ran) == 0 and ran == ["ran"]
    assert build(folder, ran) == 0 and ran == ["ran"]  # up to date; the memos learn the outputs
    counts = counted_stats(monkeypatch)
    assert build(folder, ran) == 0 and ran == ["ran"]
    files = [str(folder / n) for n in ("a.txt", "b.txt", "x.txt", "y.txt")]
    assert {f: counts[f] for f in files} == {f: 1 for f in files}


def test_an_edited_target_and_a_changed_input_are_still_seen(folder: Path) -> None:
    ran: list[str] = []
    build(folder, ran)
    (folder / "y.txt").write_text("edited by hand")
    assert build(folder, ran) == 0 and ran == ["ran", "ran"]  # rebuilt from its inputs
    assert (folder / "y.txt").read_text() == "onetwo"
    (folder / "b.txt").write_text("three")
    assert build(folder, ran) == 0 and len(ran) == 3
    assert (folder / "x.txt").read_text() == "onethree"
    assert build(folder, ran) == 0 and len(ran) == 3


def test_a_missing_input_is_still_an_error_naming_it(folder: Path) -> None:
    ran: list[str] = []
    build(folder, ran)
    (folder / "a.txt").unlink()
    log = folder / "doit.log"
    assert build(folder, ran, "--output-file", str(log)) != 0 and ran == ["ran"]
    assert f"Dependent file '{folder / 'a.txt'}' does not exist" in log.read_text()


def test_answers_are_kept_for_their_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("1")
    owner, other = object(), object()
    with lookonce.looking(owner):
        first = lookonce.stat(path)
        path.write_text("22")
        assert lookonce.stat(path) is first  # inside the scope: the first answer
    assert lookonce.recall(owner, path) is first
    assert lookonce.recall(other, path) is lookonce.UNSEEN
    assert lookonce.stat(path).st_size == 2  # outside any scope: a fresh stat
    with lookonce.looking(other):
        pass
    assert lookonce.recall(owner, path) is lookonce.UNSEEN  # a new owner forgets the old one's
    lookonce.forget()


def test_a_missing_file_is_remembered_as_missing(tmp_path: Path) -> None:
    owner = object()
    with lookonce.looking(owner):
        with pytest.raises(FileNotFoundError):
            lookonce.stat(tmp_path / "gone")
        assert not lookonce.is_file(tmp_path / "gone")
    assert lookonce.recall(owner, tmp_path / "gone") is None
    lookonce.forget()
