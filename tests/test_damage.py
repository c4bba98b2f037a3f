"""Every damaged or left-over state of the store is named and repaired; none is "cached".

One small project is trained once (module fixture); each test damages a copy of it the way a
crash, a full disk or a hand edit would, and checks what the next command says and does.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DODO, TINY_EXPERIMENT, doit, write_tree

from evidence.core.hashing import digest_json
from evidence.store import runs as store_module
from evidence.store.runs import RunStore

pytestmark = pytest.mark.slow  # trains a run

REPO = Path(__file__).resolve().parent.parent
ONE_RUN = TINY_EXPERIMENT.replace("seeds = [0, 1]", "seeds = [0]").split("[[variants]]")[0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damage") / "proj"
    (root / "trainers").mkdir(parents=True)
    for trainer in (REPO / "trainers").glob("*.py"):
        shutil.copy(trainer, root / "trainers" / trainer.name)
    write_tree(root, {"dodo.py": DODO, "experiments/tiny.toml": ONE_RUN})
    done = doit(root, "train")
    assert done.returncode == 0, done.stdout + done.stderr
    return root


@pytest.fixture
def copy(trained: Path, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(trained, root, symlinks=True)
    return root


def only_run(root: Path) -> Path:
    [run] = [p for p in (root / "runs").iterdir() if not p.name.startswith(".")]
    return run


def writable(path: Path) -> None:
    path.parent.chmod(0o755)
    if path.exists():
        path.chmod(0o644)


def test_a_file_of_the_wrong_size_is_quarantined_and_retrained(copy: Path) -> None:
    run = only_run(copy)
    original = (run / "results.json").read_bytes()
    writable(run / "results.json")
    (run / "results.json").write_bytes(original + b" ")
    done = doit(copy, "train")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"DAMAGED runs/{run.name}: size" in done.stderr and "cached" not in done.stdout + done.stderr
    assert (run / "results.json").read_bytes() == original  # trained again, bit-identical
    [moved] = [p for p in (copy / "runs" / ".quarantine").iterdir() if p.is_dir()]
    assert moved.name.startswith(run.name)
    again = doit(copy, "train")
    assert again.returncode == 0 and "DAMAGED" not in again.stderr


def test_a_run_without_its_manifest_is_retrained_under_its_own_id(copy: Path) -> None:
    run = only_run(copy)
    writable(run / "manifest.json")
    (run / "manifest.json").unlink()
    done = doit(copy, "train")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "manifest is missing" in done.stderr
    assert [p.name for p in (copy / "runs").iterdir() if not p.name.startswith(".")] == [run.name]
    assert RunStore(copy / "runs").quick_check(run.name) is None


def test_a_leftover_work_folder_of_a_sealed_run_is_not_a_dead_run(copy: Path) -> None:
    run = only_run(copy)
    work = copy / ".evidence" / "work" / run.name
    work.mkdir(parents=True)
    (work / "status.json").write_text(json.dumps({"run_id": run.name, "experiment": "tiny", "label": "x",
                                                  "pid": 999999, "state": "sealing", "updated_at": 0}))
    status = subprocess.run([sys.executable, "-m", "evidence.cli", "status"], cwd=copy, capture_output=True,
                            text=True, timeout=120)
    assert "DEAD" not in status.stdout and "sealed" in status.stdout
    done = doit(copy, "-a", "train")  # -a: run the (up-to-date) task: the runner cleans up
    assert done.returncode == 0, done.stdout + done.stderr
    assert not work.exists()


def test_a_leftover_incoming_copy_is_reported_and_replaced(copy: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    run = only_run(copy)
    store = RunStore(copy / "runs")
    # the state a kill or a full disk leaves during a publish across file systems
    staging = copy / "staging"
    shutil.copytree(run, staging)
    leftover = copy / "runs" / f".incoming-{run.name}"
    shutil.copytree(run, leftover)
    for path in [leftover, *leftover.iterdir()]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    report = store.fsck()
    assert any(".incoming-" in line for line in report.leftovers)
    for path in [run, *run.iterdir()]:
        path.chmod(stat.S_IRWXU)
    shutil.rmtree(run)
    for path in [staging, *staging.iterdir()]:
        path.chmod(stat.S_IRWXU)
    (staging / "manifest.json").unlink()
    real_rename = os.rename

    def across_file_systems(src: object, dst: object) -> None:
        if Path(str(src)) == staging:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_rename(src, dst)

    monkeypatch.setattr(store_module.os, "rename", across_file_systems)
    spec = json.loads((staging / "spec.json").read_text())
    sealed = store.seal(staging, run.name, spec["key"])
    assert sealed.path == run and not leftover.exists() and store.quick_check(run.name) is None


def test_fsck_names_a_changed_key_a_wrong_size_a_missing_required_file_and_a_symlink(copy: Path) -> None:
    run = only_run(copy)
    store = RunStore(copy / "runs")
    assert store.fsck().ok
    for path in [run, *run.iterdir()]:
        path.chmod(stat.S_IRWXU)
    manifest = json.loads((run / "manifest.json").read_text())
    key = manifest["key"]
    # a changed key digit in spec.json (and the manifest) no longer digests to itself
    spec = json.loads((run / "spec.json").read_text())
    assert digest_json(spec["identity"]) == key
    spec["identity"]["seed"] = 7
    (run / "spec.json").write_text(json.dumps(spec))
    manifest["files"]["spec.json"]["size"] = (run / "spec.json").stat().st_size
    # a file deleted together with its manifest entry
    (run / "metrics.jsonl").unlink()
    del manifest["files"]["metrics.jsonl"]
    # a recorded size one byte off
    manifest["files"]["results.json"]["size"] += 1
    (run / "manifest.json").write_text(json.dumps(manifest))
    (run / "link.json").symlink_to(run / "results.json")
    problems = {(f.file, f.problem.split(" ")[0]) for f in store.fsck().findings}
    assert ("spec.json", "its") in problems  # identity digests to something else
    assert ("metrics.jsonl", "a") in problems  # a sealed run must hold this file
    assert ("results.json", "size") in problems
    assert ("link.json", "is") in problems


def test_a_full_disk_while_writing_the_status_is_one_line(copy: Path) -> None:
    """The checkpoint error is what matters; the advisory status write must not crash after it."""
    from evidence.core.project import Project
    from evidence.experiments.spec import expand_all
    from evidence.train import runner

    project = Project.at(copy)
    [spec] = expand_all(project)
    execution = runner.Execution(project, spec, "0" * 16)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    original = runner.write_json_atomic
    runner.write_json_atomic = full  # type: ignore[assignment]
    try:
        execution.status("checkpointing")  # must not raise
    finally:
        runner.write_json_atomic = original  # type: ignore[assignment]
