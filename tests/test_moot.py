"""Expensive uptodate checks are skipped exactly when doit runs the task anyway (real doit)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain

from evidence.tasks.moot import SavedValueCheck, UnlessInputsChanged


class CountingCheck:
    """A no-argument check that answers ``answer`` and counts its calls."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.answer


class Fingerprint(SavedValueCheck):
    key = "fingerprint"

    def __init__(self, source: Path) -> None:
        self.source = source
        self.computed = 0

    def current(self) -> str:
        self.computed += 1
        return self.source.read_text()


def build(folder: Path, check: Any, ran: list[str], extra: str | None = None) -> int:
    """``doit`` of one task with one file dependency (and ``extra``) and ``check`` wrapped."""
    dep, out = folder / "input.txt", folder / "output.txt"

    def action() -> None:
        ran.append("ran")
        out.write_text(dep.read_text())

    def task_step() -> dict[str, Any]:
        return {"actions": [action], "file_dep": [str(dep), *([extra] if extra else [])],
                "targets": [str(out)], "uptodate": [UnlessInputsChanged(check)], "verbosity": 0}

    loader = ModuleTaskLoader({"task_step": task_step,
                               "DOIT_CONFIG": {"dep_file": str(folder / "db.sqlite3"),
                                               "backend": "sqlite3"}})
    return DoitMain(loader, extra_config={"GLOBAL": {}}).run(["--reporter", "zero"])


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "input.txt").write_text("one")
    return tmp_path


def test_check_is_asked_while_the_inputs_are_unchanged(folder: Path) -> None:
    ran: list[str] = []
    check = CountingCheck(answer=True)
    assert build(folder, check, ran) == 0  # never succeeded: doit runs it, the check is moot
    assert (ran, check.calls) == (["ran"], 0)
    assert build(folder, check, ran) == 0
    assert (ran, check.calls) == (["ran"], 1)  # inputs unchanged: the check decides (up to date)
    check.answer = False
    assert build(folder, check, ran) == 0
    assert (ran, check.calls) == (["ran", "ran"], 2)  # and a False answer still runs the task


def test_check_is_skipped_when_an_input_changed(folder: Path) -> None:
    ran: list[str] = []
    check = CountingCheck()
    build(folder, check, ran)
    build(folder, check, ran)
    calls = check.calls
    (folder / "input.txt").write_text("a longer text")  # size differs
    build(folder, check, ran)
    assert check.calls == calls and len(ran) == 2
    before = (folder / "input.txt").stat()
    (folder / "input.txt").write_text("the same sizE")  # same size, other bytes: MD5 differs
    os.utime(folder / "input.txt", ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    build(folder, check, ran)
    assert check.calls == calls and len(ran) == 3


def test_touched_but_unchanged_input_still_asks_the_check(folder: Path) -> None:
    ran: list[str] = []
    check = CountingCheck()
    build(folder, check, ran)
    dep = folder / "input.txt"
    st = dep.stat()
    os.utime(dep, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))  # same bytes, new mtime
    build(folder, check, ran)
    assert check.calls == 1 and ran == ["ran"]  # doit finds it up to date: the check was needed


def test_skipped_value_check_still_saves_its_value(folder: Path) -> None:
    source = folder / "state.txt"
    source.write_text("v1")
    ran: list[str] = []
    check = Fingerprint(source)
    build(folder, check, ran)  # first success: value computed after the run and saved
    assert check.computed == 1
    build(folder, check, ran)  # compared with the saved value: equal, up to date
    assert ran == ["ran"] and check.computed == 2
    source.write_text("v2")
    build(folder, check, ran)  # the value moved: the task runs
    assert ran == ["ran", "ran"]
    build(folder, check, ran)  # and the new value was saved with that success
    assert ran == ["ran", "ran"]


def test_a_missing_dependency_is_doits_error_not_a_run(folder: Path) -> None:
    ran: list[str] = []
    check = CountingCheck()
    build(folder, check, ran)
    missing = str(folder / "not-there.txt")  # a new dependency set, one file of it missing
    assert build(folder, check, ran, extra=missing) != 0  # doit: "Dependent file ... does not exist"
    assert ran == ["ran"] and check.calls == 1  # asked, not skipped: doit decides, and refuses
