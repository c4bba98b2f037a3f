"""Early stopping: the plateau rule, its record in results.json, and bit-identical resume."""

from __future__ import annotations

import json
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO
from test_resume import finish, only_spec, sealed_bytes, start, wait_for

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments.trainers import load_trainer
from evidence.numerics import training
from evidence.numerics.data import DataConfig, load
from evidence.numerics.recipe import DataInfo
from evidence.numerics.stopping import EarlyStopping, resolve_config, spread

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

RULE = EarlyStopping(metric="accuracy", direction="higher", min_epochs=3, max_epochs=10, min_delta=0.01,
                     patience=2)


def run_rule(rule: EarlyStopping, values: list[float]) -> dict[str, object]:
    state = None
    for epoch, value in enumerate(values, 1):
        state = rule.update(state, {f"val/{rule.metric}": value}, epoch)
        if state["stopped"]:
            break
    assert state is not None
    return state


def test_plateau_rule() -> None:
    # improves, then two epochs within min_delta of the best: stops after epoch 4
    state = run_rule(RULE, [0.5, 0.8, 0.805, 0.79, 0.95])
    assert state == {"best_value": 0.8, "best_epoch": 2, "bad_epochs": 2, "stopped": True,
                     "stopped_epoch": 4, "reason": "plateau"}
    # never before min_epochs: a plateau from epoch 1 stops at epoch 3
    assert run_rule(RULE, [0.5, 0.5, 0.5, 0.5])["stopped_epoch"] == 3
    # a steady improver runs the whole budget
    state = run_rule(RULE, [0.1 * i for i in range(1, 11)])
    assert state["reason"] == "max_epochs" and state["stopped_epoch"] == 10
    lower = EarlyStopping("loss", "lower", 1, 10, 0.0, 1)
    assert run_rule(lower, [1.0, 0.9, 0.95])["stopped_epoch"] == 3
    record = RULE.record(run_rule(RULE, [0.5, 0.8, 0.805, 0.79]), 4)
    assert record["epochs_saved"] == 6 and record["share_saved"] == pytest.approx(0.6)


def test_config_resolution() -> None:
    config = resolve_config({"metric": "accuracy", "max_epochs": 20}, {"epochs": 5, "lr": 0.1}, "x.toml")
    assert config["epochs"] == 20 and config["early_stopping"]["patience"] == 3
    assert resolve_config(None, {"epochs": 5}, "x.toml") == {"epochs": 5}
    with pytest.raises(BadInputError, match="min_epochs"):
        resolve_config({"metric": "accuracy", "min_epochs": 9}, {"epochs": 5}, "x.toml")
    assert spread([0.2, 0.6, 0.4]) == {"min": 0.2, "median": 0.4, "max": 0.6, "n": 3}


def test_stopped_progress_trains_no_further() -> None:
    """A checkpoint taken after the stop decision resumes into the final evaluation, not more epochs."""
    data = load(DataConfig.from_mapping({"dataset": "iris"}, "test"))

    def never(*_: object) -> float:
        raise AssertionError("trained after the stop decision")

    info = DataInfo("iris", data.n_features, data.n_classes, data.task, {}, dict(data.digests))
    mlp = load_trainer(Project.at(REPO), "mlp")
    recipe = mlp.build({"hidden": 4, "lr": 0.1, "epochs": 10, "batch_size": 16}, info)
    progress = training.Progress(epoch=3, stopping={"stopped": True, "stopped_epoch": 3, "reason": "plateau"},
                                 initial_loss=1.0)
    assert training.run_epochs(recipe, data, 0, progress, lambda p, t: None, lambda p, t: None,
                               never, RULE).epoch == 3


ES_EXPERIMENT = """
trainer = "mlp"
seeds = [0]
[data]
dataset = "digits"
[config]
batch_size = 32
lr = 0.05
hidden = 512
dropout = 0.2
[early_stopping]
metric = "accuracy"
min_epochs = 3
max_epochs = 40
min_delta = 0.005
patience = 2
[checkpoint]
every_steps = 3
every_seconds = 0
keep = 2
[smoke]
batches = 1
[[variants]]
name = "es"
"""


def test_stops_on_a_plateau_is_recorded_and_resumes_bit_identical(make_project: Callable[..., Path]) -> None:
    plain = make_project({"experiments/tiny.toml": ES_EXPERIMENT}, name="uninterrupted")
    plain_spec, plain_path = only_spec(plain)
    finish(plain, plain_path)
    reference = sealed_bytes(plain, plain_spec)
    results = json.loads(reference["results.json"])
    record = results["early_stopping"]
    assert record["reason"] == "plateau" and record["max_epochs"] == 40
    assert 3 <= record["stopped_epoch"] < 40 and record["stopped_epoch"] - record["best_epoch"] == 2
    assert results["epochs"] == record["epochs_run"] == record["stopped_epoch"]
    assert record["epochs_saved"] == 40 - record["stopped_epoch"]
    assert {"split": "val", "when": "every_epoch", "purpose": "selection"} in results["evaluations"]
    history = [json.loads(line) for line in reference["metrics.jsonl"].splitlines()]
    assert len(history) == record["stopped_epoch"]
    assert history[record["best_epoch"] - 1]["val/accuracy"] == record["best_value"]
    assert all(h["val/accuracy"] <= record["best_value"] + 0.005 for h in history[record["best_epoch"]:])

    root = make_project({"experiments/tiny.toml": ES_EXPERIMENT})
    spec, path = only_spec(root)
    assert spec.key == plain_spec.key
    folder = root / ".evidence" / "work" / spec.key[:16] / "checkpoints"
    chooser = random.Random(7)
    for _ in range(3):  # kill at seeded random moments after a checkpoint, resume each time
        process = start(root, path)
        wait_for(lambda: folder.is_dir() and any(folder.glob("ckpt-*.pt.blake3")), process)
        time.sleep(chooser.uniform(0.0, 0.4))
        process.send_signal(signal.SIGKILL)
        process.communicate()
    err = finish(root, path)
    assert "resuming" in err
    assert sealed_bytes(root, spec) == reference
