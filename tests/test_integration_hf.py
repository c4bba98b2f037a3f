"""The Hugging Face Trainer through evidence.integrations.hf: interrupted runs seal bit-identically.

Real runner processes, real signals sent by the trainer to itself at exact places (see
tests/integration_projects.py), a model with dropout built in the test (nothing downloaded).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from integration_projects import EXPERIMENT, HF_TRAINER, TINY_BERT_TRAINER, needs_transformers
from test_integration_lightning import SEALED, runner, sealed

from evidence.core.errors import EXIT_INTERRUPTED

pytestmark = [pytest.mark.slow, needs_transformers]


def project(make_project: Callable[..., Path], name: str) -> Path:
    return make_project({"experiments/tiny.toml": EXPERIMENT.format(trainer="hft", every_steps=1, smoke=""),
                         "trainers/hft.py": HF_TRAINER}, name=name)


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
    outcomes = [runner(root, env) for _ in range(4)]
    assert [o.returncode for o in outcomes] == [EXIT_INTERRUPTED, -9, EXIT_INTERRUPTED, -9], \
        [o.stderr[-2000:] for o in outcomes]
    done = runner(root, env)
    assert done.returncode == 0 and "resuming" in done.stderr, done.stderr
    for name in SEALED:
        assert (sealed(root) / name).read_bytes() == (sealed(reference) / name).read_bytes(), name
    assert json.loads((sealed(root) / "provenance.json").read_text())["resumes"] == 4


def test_a_tiny_bert_from_a_config_passes_the_self_check_and_seals_verified(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": EXPERIMENT.format(trainer="bert", every_steps=4, smoke=""),
                         "trainers/bert.py": TINY_BERT_TRAINER})
    done = runner(root)
    assert done.returncode == 0, done.stderr
    assert "resume self-check passed" in done.stderr
    results = json.loads((sealed(root) / "results.json").read_text())
    assert results["verify_by_load"] == "verified" and results["steps"] == 4 * 6
    rows = [json.loads(line) for line in (sealed(root) / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1, 2, 3, 4]
