"""PyTorch Lightning through evidence.integrations.lightning: interrupted runs seal bit-identically.

Real runner processes, real signals (the trainer sends them to itself at exact places: see
tests/integration_projects.py), a real LightningModule with dropout and a learning-rate schedule.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from integration_projects import (
    EXPERIMENT,
    HURRIED_PATH,
    LAST_BATCH_GLUE,
    LIGHTNING_TRAINER,
    needs_lightning,
)

from evidence.core.errors import EXIT_INTERRUPTED
from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.store.runs import RunStore

pytestmark = [pytest.mark.slow, needs_lightning]

SEALED = ("results.json", "metrics.jsonl", "model.safetensors")


def runner(root: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    [spec] = expand_all(Project.at(root))
    (root / "spec.json").write_text(json.dumps(spec.to_json()))
    return subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                           "--spec", str(root / "spec.json")], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off", **(env or {})}, timeout=600)


def sealed(root: Path) -> Path:
    [run] = list(RunStore(root / "runs").runs())
    return run.path


def project(make_project: Callable[..., Path], name: str, trainer: str = LIGHTNING_TRAINER,
            every_steps: int = 1, smoke: str = "") -> Path:
    return make_project({"experiments/tiny.toml": EXPERIMENT.format(trainer="lit", every_steps=every_steps,
                                                                    smoke=smoke),
                         "trainers/lit.py": trainer}, name=name)


def test_sigterm_and_sigkill_mid_epoch_and_at_epoch_ends_seal_bit_identically(
        make_project: Callable[..., Path], tmp_path: Path) -> None:
    reference = project(make_project, "reference")
    done = runner(reference)
    assert done.returncode == 0, done.stderr
    assert "resume self-check passed" in done.stderr
    rows = [json.loads(line) for line in (sealed(reference) / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1, 2, 3, 4] and all("train/loss" in r for r in rows)

    root = project(make_project, "interrupted")
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {"INTERRUPT": "term@mid,kill@end,term@end,kill@mid", "INTERRUPT_MARKS": str(marks)}
    outcomes = []
    for _ in range(4):
        attempt = runner(root, env)
        outcomes.append(attempt.returncode)
        if attempt.returncode == EXIT_INTERRUPTED:  # Lightning's own SIGTERM exit did not win
            assert "interrupted by SIGTERM" in attempt.stderr and "checkpoint written" in attempt.stderr
            status = json.loads(next((root / ".evidence" / "work").glob("*/status.json")).read_text())
            assert status["state"] == "interrupted"  # `evidence status`: not DEAD
    assert outcomes == [EXIT_INTERRUPTED, -9, EXIT_INTERRUPTED, -9]
    assert sorted(p.name for p in marks.iterdir()) == ["kill@end", "kill@mid", "term@end", "term@mid"]
    status = json.loads(next((root / ".evidence" / "work").glob("*/status.json")).read_text())
    assert status["state"] == "training"  # the SIGKILLed attempt; the SIGTERMed ones said interrupted
    done = runner(root, env)
    assert done.returncode == 0 and "resuming" in done.stderr, done.stderr
    for name in SEALED:
        assert (sealed(root) / name).read_bytes() == (sealed(reference) / name).read_bytes(), name
    provenance = json.loads((sealed(root) / "provenance.json").read_text())
    assert provenance["resumes"] == 4
    logs = list((root / ".evidence" / "logs").glob("*.log"))
    assert len(logs) == 1 and logs[0].read_text().count("==> attempt started") == 5


def test_self_check_stops_a_checkpoint_after_an_epochs_last_batch(make_project: Callable[..., Path]) -> None:
    root = project(make_project, "glue", LAST_BATCH_GLUE, every_steps=1000)
    done = runner(root)
    assert done.returncode == 1, done.stderr
    assert "resume self-check failed: a log row was lost" in done.stderr, done.stderr
    assert "epoch's last batch" in done.stderr and "nothing long ran" in done.stderr
    assert not list(RunStore(root / "runs").runs())


def test_self_check_stops_the_hurried_path(make_project: Callable[..., Path]) -> None:
    root = project(make_project, "hurried", HURRIED_PATH)
    done = runner(root)
    assert done.returncode == 1, done.stderr
    assert "never offered a checkpoint" in done.stderr and "ModelCheckpoint" in done.stderr
    assert not list(RunStore(root / "runs").runs())


def test_the_hurried_path_without_the_check_is_counted_and_disclosed(make_project: Callable[..., Path],
                                                                     tmp_path: Path) -> None:
    root = project(make_project, "hurried", HURRIED_PATH, smoke="[smoke]\nresume_check = false")
    env = {"INTERRUPT": "kill@mid", "INTERRUPT_MARKS": str(tmp_path)}
    killed = runner(root, env)
    assert killed.returncode == -9
    [attempts] = (root / ".evidence" / "work").glob("*/attempts.json")
    first = json.loads(attempts.read_text())["attempts"]
    assert len(first) == 1
    done = runner(root, env)
    assert done.returncode == 0, done.stderr
    assert "resumed outside the engine" in done.stderr
    results = json.loads((sealed(root) / "results.json").read_text())
    provenance = json.loads((sealed(root) / "provenance.json").read_text())
    assert results["resumed_outside_engine"] is True
    assert provenance["resumes"] == 1 and provenance["checkpoints_written"] == 0
    assert provenance["wall_seconds"] > first[0]["wall_seconds"]  # the killed attempt counts
