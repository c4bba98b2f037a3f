"""Two projects that are not the bundled example, each from `evidence init` plus documented edits.

* CSV regression (float targets): `evidence init --template files` and no edit at all.
* PNG images and the project's own loop (a CNN trained through a torch DataLoader): the default
  template plus a dataset loader, the images, the trainer and one `[data]` line
  (tests/own_projects.py); killed with SIGKILL mid-run and resumed bit-identically.

Both build with `doit deliver`; the wall time of each doit step is printed (pytest -s).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import doit
from own_projects import make_image_project

from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.store.runs import RunStore

pytestmark = pytest.mark.slow  # end to end: trains models and runs doit over projects

STEPS = ("train", "fsck", "figures", "tables", "verify", "deliver")


def init(root: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root), *args],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def git_dirty(root: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True,
                          text=True, check=True).stdout


def build_timed(root: Path, label: str) -> dict[str, float]:
    """Each doit step in order, as a user would type them; their wall times."""
    times = {}
    for step in STEPS:
        started = time.perf_counter()
        result = doit(root, step)
        times[step] = time.perf_counter() - started
        assert result.returncode == 0, (step, result.stdout[-3000:], result.stderr[-3000:])
    started = time.perf_counter()
    noop = doit(root, "deliver")
    times["deliver (no-op)"] = time.perf_counter() - started
    assert noop.returncode == 0
    print(f"\n{label}: " + ", ".join(f"doit {k} {v:.1f}s" for k, v in times.items()))
    return times


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "--project", str(root), *args],
                          capture_output=True, text=True, env={**os.environ, "EVIDENCE_PROGRESS": "off"})


def test_csv_regression_project_builds_from_init_alone(tmp_path: Path) -> None:
    root = tmp_path / "csv"
    init(root, "--template", "files")
    assert git_dirty(root) == ""  # init committed its template: training starts from a clean tree
    build_timed(root, "CSV regression (evidence init --template files, no edits)")

    results = [json.loads((run.path / "results.json").read_text())
               for run in RunStore(root / "runs").runs()]
    assert len(results) == 15 and all("n_classes" not in r["diagnostics"] for r in results)
    assert {r["metrics"]["rmse"]["direction"] for r in results} == {"lower"}
    linear = [r["metrics"]["rmse"]["values"]["test"] for r in results if r["group"] == "linear"]
    control = [r["metrics"]["rmse"]["values"]["test"] for r in results if r["group"] == "control"]
    assert max(linear) < min(control)  # the features predict the real-valued target
    disclosures = json.loads((root / "build/deliver/disclosures.json").read_text())
    assert not any(f["check"] == "git" for f in disclosures["findings"]), disclosures["findings"]
    ignored = subprocess.run(["git", "check-ignore", "-q", "build/deliver/paper.html"], cwd=root)
    assert ignored.returncode == 1  # the deliverable is not ignored: the README says it is committed

    # The CLI needs nothing from dodo.py or .evidence/ to find the project's dataset.
    shutil.rmtree(root / ".evidence")
    why = cli(root, "why", "train:main/linear-s0")
    assert why.returncode == 0 and "sealed" in why.stdout.lower(), why.stdout + why.stderr
    for args in (("gc",), ("status",)):
        done = cli(root, *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert "0 unreferenced" in cli(root, "gc").stdout


def _start(root: Path, spec_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                             "--spec", str(spec_path)], cwd=root, text=True,
                            env={**os.environ, "EVIDENCE_PROGRESS": "off"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _sealed(root: Path, key: str) -> dict[str, bytes]:
    run = RunStore(root / "runs").find(key)
    assert run is not None
    return {name: (run.path / name).read_bytes()
            for name in ("results.json", "metrics.jsonl", "model.safetensors", "spec.json")}


def test_own_loop_on_png_files_resumes_bit_identically_and_delivers(tmp_path: Path) -> None:
    roots = {}
    for name in ("reference", "killed"):
        roots[name] = tmp_path / name
        init(roots[name])
        make_image_project(roots[name], every_steps=3)
    spec = expand_all(Project.at(roots["reference"]))[0]
    assert spec.key == expand_all(Project.at(roots["killed"]))[0].key  # paths are not identity
    assert spec.identity["data"]["loader"]["file"] == "datasets/digits_png.py"
    for root in roots.values():
        (root / "spec.json").write_text(json.dumps(spec.to_json()))

    reference = _start(roots["reference"], roots["reference"] / "spec.json")
    _, err = reference.communicate(timeout=300)
    assert reference.returncode == 0, err

    checkpoints = roots["killed"] / ".evidence" / "work" / spec.key[:16] / "checkpoints"

    def newest() -> int:
        steps = [int(p.name[5:14]) for p in checkpoints.glob("ckpt-*.pt.blake3")] \
            if checkpoints.is_dir() else []
        return max(steps, default=0)

    kills = []
    for _ in range(2):  # SIGKILL after a checkpoint; again after the resumed run wrote a newer one
        before = newest()
        process = _start(roots["killed"], roots["killed"] / "spec.json")
        deadline = time.monotonic() + 120
        while process.poll() is None and newest() <= before and time.monotonic() < deadline:
            time.sleep(0.002)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills.append(newest())
        process.communicate()
    assert kills and kills[0] > 0, kills
    print(f"\nSIGKILLed after the checkpoints of steps {kills}")
    final = _start(roots["killed"], roots["killed"] / "spec.json")
    _, err = final.communicate(timeout=300)
    assert final.returncode == 0, err
    assert _sealed(roots["killed"], spec.key) == _sealed(roots["reference"], spec.key)
    provenance = json.loads((RunStore(roots["killed"] / "runs").find(spec.key).path  # type: ignore[union-attr]
                             / "provenance.json").read_text())
    assert provenance["resumes"] >= 1
    results = json.loads(_sealed(roots["reference"], spec.key)["results.json"])
    assert results["loop"] == "own" and results["verify_by_load"] == "verified"

    root = roots["reference"]
    (root / "spec.json").unlink()
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "my data, my loop"],
                   cwd=root, check=True)
    build_timed(root, "PNG files + own loop (evidence init + loader, images, trainer, one [data] line)")
    summary = json.loads((root / "build/deliver/claims.json").read_text())["claims"]
    assert [c["supported"] for c in summary] == [True], summary
