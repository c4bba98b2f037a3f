"""The project-level up-to-date index (evidence.core.upindex, evidence.tasks.quick).

A no-op answered from the index must print what the full path prints, and any change the full
path would act on must make the index step aside: an input edited, an output edited by hand, a
sealed run touched, doit's database changed (``doit forget``), the environment changed, a commit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import doit

from evidence.core import upindex
from evidence.core.project import Project
from evidence.tasks.quick import plain_run

RACY_WAIT = upindex.RACY_SECONDS + 0.2


def test_only_a_plain_run_may_take_the_fast_path() -> None:
    doit_main = "/venv/lib/python3.11/site-packages/doit/__main__.py"
    assert plain_run([doit_main])
    assert plain_run(["/usr/bin/doit", "deliver"])
    assert plain_run(["doit", "run", "-n", "2", "--reporter=json", "-v", "2", "train", "deliver"])
    assert plain_run(["doit", "-n2", "-k", "deliver"])
    assert not plain_run(["doit", "-a", "deliver"])  # always execute
    assert not plain_run(["doit", "--always-execute", "deliver"])
    assert not plain_run(["doit", "list"])
    assert not plain_run(["doit", "forget", "deliver"])
    assert not plain_run(["doit", "info", "train:x"])
    assert not plain_run(["doit", "--db-file", "other.db", "deliver"])
    assert not plain_run(["doit", "deliver", "x=1"])  # a doit variable
    assert not plain_run(["evidence", "repro"])  # doit inside another program


def trace(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, str, list[str]]:
    """Run doit with the index traced: (what the index said, stdout, tasks that ran)."""
    result = subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, text=True, capture_output=True,
                            env={**os.environ, "EVIDENCE_PROGRESS": "off", "EVIDENCE_INDEX_TRACE": "1",
                                 **(env or {})}, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("up-to-date index:")]
    ran = [line[3:] for line in result.stdout.splitlines() if line.startswith(".  ")]
    return (said[0] if said else ""), result.stdout, ran


def settle(root: Path) -> str:
    """A no-op on the full path (which records the index), then one answered by it."""
    for _ in range(3):  # until a call rebuilds nothing (a change may take a rebuild first)
        time.sleep(RACY_WAIT)  # what was just written is racily clean and not recorded
        said, out, ran = trace(root, "deliver")
        if ran == ["deliver:summary"]:
            break
    said, out, ran = trace(root, "deliver")
    assert said.startswith("up-to-date index: nothing changed"), said
    assert ran == ["deliver:summary"], ran
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("upindex") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    built = doit(root, "deliver")
    assert built.returncode == 0, built.stdout + built.stderr
    return root


@pytest.mark.slow
def test_a_no_op_from_the_index_prints_what_the_full_path_prints(project: Path) -> None:
    time.sleep(RACY_WAIT)
    _, full, _ = trace(project, "deliver", env={"EVIDENCE_INDEX": "0"})
    fast = settle(project)
    assert sorted(fast.splitlines()) == sorted(full.splitlines())
    said, _, _ = trace(project, "train")  # another selection from the same index
    assert said.startswith("up-to-date index: nothing changed"), said
    said, listing, _ = trace(project, "list")
    assert "not a plain" in said and "deliver" in listing


@pytest.mark.slow
def test_an_edited_input_is_rebuilt(project: Path) -> None:
    settle(project)
    source = next((project / "paper").glob("*.md.j2"))
    source.write_text(source.read_text("utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    said, _, ran = trace(project, "deliver")
    assert "changed" in said and "deliver:paper" in ran, (said, ran)


@pytest.mark.slow
def test_an_output_edited_by_hand_is_rebuilt(project: Path) -> None:
    settle(project)
    paper = project / "build" / "deliver" / "paper.html"
    text = paper.read_text("utf-8")
    paper.write_text(text.replace("<p>", "<p>Edited. ", 1), encoding="utf-8")
    said, out, ran = trace(project, "deliver")
    assert "changed" in said, said
    assert "deliver:paper" in ran or "deliver:package" in ran, (ran, out)
    assert "Edited." not in paper.read_text("utf-8")


@pytest.mark.slow
def test_doit_forget_makes_the_index_step_aside(project: Path) -> None:
    settle(project)
    assert doit(project, "forget", "deliver:paper").returncode == 0
    said, _, ran = trace(project, "deliver")
    assert "database" in said and "deliver:paper" in ran, (said, ran)


@pytest.mark.slow
def test_a_touched_run_a_changed_environment_or_a_new_file_step_aside(project: Path) -> None:
    settle(project)
    proj = Project.at(project)
    assert upindex.fresh(proj) is not None  # this process sees what doit saw
    os.environ["EVIDENCE_SOMETHING"] = "1"
    try:
        found, why = upindex.check(proj)
        assert found is None and "env" in why
    finally:
        del os.environ["EVIDENCE_SOMETHING"]
    run = next(p for p in proj.runs_dir.iterdir() if (p / "results.json").is_file())
    metrics = run / "metrics.jsonl"
    mode = metrics.stat().st_mode
    before = metrics.read_bytes()
    os.chmod(metrics, 0o644)
    try:
        metrics.write_bytes(before)  # same bytes, same size: only the stat says it was written
        found, why = upindex.check(proj)
        assert found is None and why.startswith(proj.relative(metrics) + " changed"), why
    finally:
        os.chmod(metrics, mode)
    settle(project)
    (proj.experiments_dir / "notes.txt").write_text("not an experiment\n", encoding="utf-8")
    found, why = upindex.check(proj)
    assert found is None and why.startswith("experiments changed"), why  # the folder's listing
    (proj.experiments_dir / "notes.txt").unlink()


@pytest.mark.slow
def test_the_index_watches_the_engine_and_every_declared_file(project: Path) -> None:
    settle(project)
    proj = Project.at(project)
    doc = json.loads(upindex.index_file(proj).read_text("utf-8"))
    paths = set(doc["paths"].split("\n"))
    engine = Path(upindex.__file__).resolve().parents[1]
    assert str(engine / "numerics" / "training.py") in paths
    assert str(proj.evidence_file) in paths
    assert any(p.startswith(str(proj.runs_dir) + os.sep) for p in paths)
    assert not any(os.sep + ".git" + os.sep + "objects" in p for p in paths)
    for record in doc["tasks"]:
        for position in (*record["file_dep"], *record["targets"]):
            assert 0 <= position < len(doc["paths"].split("\n"))


@pytest.mark.slow
def test_a_no_op_rewrites_only_the_database_record_and_keeps_doits_checker_name(project: Path) -> None:
    settle(project)
    proj = Project.at(project)
    index = upindex.index_file(proj)
    before = index.stat()
    said, _, ran = trace(project, "deliver")
    assert said.startswith("up-to-date index: nothing changed") and ran == ["deliver:summary"], (said, ran)
    after = index.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not rewritten
    recorded = json.loads(upindex.database_file(proj).read_text("utf-8"))
    assert recorded["table"] == json.loads(index.read_text("utf-8"))["table"]
    assert recorded["database"] == upindex.stat_of(str(upindex.doit_database(proj)))
    import sqlite3

    with sqlite3.connect(upindex.doit_database(proj)) as db:
        checkers = {json.loads(data).get("checker:") for (data,) in db.execute("select task_data from doit")}
    # doit rebuilds every task whose stored checker name differs: the fast path's checker keeps
    # the name of the MD5 checker whose states it saves
    assert checkers - {None} == {"MD5Checker"}
