"""Presets by memory fit: auto picks by the budget and says why, resolves once, survives resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from conftest import doit

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments import presets
from evidence.experiments.spec import expand_all
from evidence.numerics import training
from evidence.numerics.recipe import Recipe
from evidence.store.runs import RunStore

PRESETS = """
default = "small"
safety_margin = 0.2

[presets.big]
description = "wide and whole batches"
batch_size = 256
grad_accum = 1
precision = "fp32"
hidden = 512

[presets.small]
batch_size = 16
grad_accum = 2
precision = "fp32"
hidden = 16
"""

AUTO = """
trainer = "mlp"
seeds = [0]
preset = "auto"
[data]
dataset = "digits"
[config]
epochs = 2
batch_size = 64
lr = 0.05
hidden = 8
[checkpoint]
every_steps = 2
every_seconds = 0
keep = 2
[smoke]
batches = 1
[[variants]]
name = "m"
"""


# Only the train task: these projects have no EVIDENCE.json, comparisons or paper.
TRAIN_DODO = """
from pathlib import Path

from evidence.tasks import base as tasks
from evidence.tasks import train as train_tasks
from evidence.core.project import Project

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = tasks.doit_config(PROJECT)


def task_train():
    return train_tasks.task_train(PROJECT)
"""


def auto_project(make_project: Callable[..., Path], name: str = "proj", experiment: str = AUTO) -> Path:
    return make_project({"presets.toml": PRESETS, "experiments/tiny.toml": experiment, "dodo.py": TRAIN_DODO},
                        name=name)


def test_auto_picks_smaller_preset_on_a_small_budget_and_says_why(
        make_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(presets.BUDGET_ENV, "1MiB")
    [spec] = expand_all(Project.at(auto_project(make_project)))
    preset = spec.execution["preset"]
    assert preset["name"] == "small" and preset["source"] == "auto"
    assert spec.config["hidden"] == 16 and spec.config["batch_size"] == 16 and spec.config["grad_accum"] == 2
    memory = preset["memory"]
    assert memory["budget_bytes"] == 2**20 and memory["budget_source"] == "EVIDENCE_MEMORY_BUDGET=1MiB"
    assert memory["needs"]["big"]["bytes"] > memory["usable_bytes"] >= memory["needs"]["small"]["bytes"]
    assert "'small' is the largest preset that fits" in preset["reason"]
    assert "'big' would need" in preset["reason"] and "20% safety margin" in preset["reason"]


def test_auto_picks_the_largest_that_fits_and_resolves_once(
        make_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = auto_project(make_project)
    monkeypatch.setenv(presets.BUDGET_ENV, "4GiB")
    [first] = expand_all(Project.at(root))
    assert first.execution["preset"]["name"] == "big" and first.config["hidden"] == 512
    cache = root / ".evidence" / "presets" / "tiny.json"
    assert json.loads(cache.read_text())["choice"]["name"] == "big"
    monkeypatch.setenv(presets.BUDGET_ENV, "1MiB")  # memory shrank: the stored choice stands
    [again] = expand_all(Project.at(root))
    assert again.key == first.key and again.execution["preset"]["memory"]["budget_bytes"] == 4 * 2**30
    cache.unlink()  # resolving again is explicit
    [fresh] = expand_all(Project.at(root))
    assert fresh.execution["preset"]["name"] == "small" and fresh.key != first.key


def test_default_explicit_and_bad_presets(make_project: Callable[..., Path]) -> None:
    root = auto_project(make_project, experiment=AUTO.replace('preset = "auto"\n', ""))
    [spec] = expand_all(Project.at(root))
    assert spec.execution["preset"]["source"] == "default" and spec.config["hidden"] == 16
    (root / "experiments/tiny.toml").write_text(AUTO.replace('"auto"', '"big"'))
    [spec] = expand_all(Project.at(root))
    assert spec.execution["preset"]["source"] == "explicit" and spec.config["batch_size"] == 256
    (root / "experiments/tiny.toml").write_text(AUTO.replace('"auto"', '"huge"'))
    with pytest.raises(BadInputError, match="unknown preset 'huge'") as error:
        expand_all(Project.at(root))
    assert error.value.field == "preset"
    (root / "presets.toml").write_text(PRESETS.replace('precision = "fp32"\nhidden = 512',
                                                       'precision = "fp8"\nhidden = 512'))
    with pytest.raises(BadInputError, match=r"presets\.toml") as error:
        expand_all(Project.at(root))
    assert error.value.field == "presets.big.precision"
    (root / "presets.toml").unlink()
    with pytest.raises(BadInputError, match=r"no presets\.toml"):
        expand_all(Project.at(root))


def test_trainer_estimate_memory_is_used(make_project: Callable[..., Path],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    trainer = ("from trainers.mlp import build\n\n\ndef estimate_memory(config, data):\n"
               "    return 10_000_000 if config['hidden'] > 100 else 1_000\n")
    root = make_project({"presets.toml": PRESETS, "trainers/sized.py": trainer,
                         "experiments/tiny.toml": AUTO.replace('trainer = "mlp"', 'trainer = "sized"')})
    monkeypatch.setenv(presets.BUDGET_ENV, "10MB")
    [spec] = expand_all(Project.at(root))
    needs = spec.execution["preset"]["memory"]["needs"]
    assert needs["big"]["bytes"] == 10_000_000 and needs["small"]["bytes"] == 1_000
    assert needs["big"]["method"] == ["trainers/sized.py estimate_memory()"]
    assert spec.execution["preset"]["name"] == "small"  # 10 MB does not fit 80% of 10 MB


def test_accumulation_matches_one_step_and_bf16_trains() -> None:
    def recipe(**knobs: object) -> Recipe:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
        return Recipe(model=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1), epochs=1,
                      batch_size=32, **knobs)  # type: ignore[arg-type]

    x, y = torch.randn(30, 8, generator=torch.Generator().manual_seed(1)), torch.arange(30) % 3
    whole, split = recipe(), recipe(grad_accum=4)
    loss_whole, loss_split = training.train_step(whole, x, y), training.train_step(split, x, y)
    assert loss_split == pytest.approx(loss_whole, rel=1e-5)
    for a, b in zip(whole.model.parameters(), split.model.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)
    half = recipe(precision="bf16", grad_accum=2)
    assert abs(training.train_step(half, x, y) - loss_whole) < 0.05


@pytest.mark.slow
def test_resumed_run_keeps_its_preset(make_project: Callable[..., Path]) -> None:
    experiment = AUTO.replace("epochs = 2", "epochs = 30")
    root = auto_project(make_project, experiment=experiment)
    env = {**os.environ, "EVIDENCE_PROGRESS": "off", presets.BUDGET_ENV: "4GiB"}
    process = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    work = root / ".evidence" / "work"
    deadline = 120.0
    start = time.monotonic()
    while not list(work.glob("*/checkpoints/ckpt-*.pt.blake3")) or not list(work.glob("*/status.json")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() - start < deadline
        time.sleep(0.01)
    [status] = work.glob("*/status.json")
    os.kill(json.loads(status.read_text())["pid"], signal.SIGTERM)
    process.communicate(timeout=120)
    started = json.loads((status.parent / "spec.json").read_text())
    assert started["execution"]["preset"]["name"] == "big"
    # Memory shrinks and the stored choice is gone: the run in progress still decides.
    (root / ".evidence" / "presets" / "tiny.json").unlink()
    again = subprocess.run([sys.executable, "-m", "doit", "train"], cwd=root, text=True, capture_output=True,
                           env={**env, presets.BUDGET_ENV: "1MiB"}, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "resuming" in again.stderr
    [run] = RunStore(root / "runs").runs()
    assert run.spec["key"] == started["key"]
    assert run.spec["execution"]["preset"]["name"] == "big" and run.results["config"]["hidden"] == 512
    assert run.provenance["preset"]["name"] == "big"
    assert "4.0 GiB" in run.provenance["preset"]["reason"]
    assert doit(root, "train").returncode == 0  # and stays up to date


def test_a_config_value_a_preset_replaces_is_named_every_time_the_experiment_loads(
        make_project: Callable[..., Path]) -> None:
    """[config] < preset < variant is documented, but nothing told the user that their explicit
    `hidden = 2048` lost to the default preset's 64: one WARNING line per field, on every load
    (the memoised expansion too), naming the experiment file, the field, the preset and both values."""
    experiment = AUTO.replace('preset = "auto"\n', "").replace("hidden = 8", "hidden = 2048")
    experiment = experiment.replace("batch_size = 64", "batch_size = 16")  # the same value: no warning
    root = auto_project(make_project, experiment=experiment)
    for _ in range(2):  # computed, then answered from the memo
        listed = doit(root, "list")
        assert listed.returncode == 0, listed.stderr
        lines = [line for line in listed.stderr.splitlines() if line.startswith("WARNING:")]
        assert len(lines) == 1, listed.stderr
        assert lines[0].startswith("WARNING: experiments/tiny.toml: field 'config.hidden': ")
        assert "2048" in lines[0] and "preset 'small'" in lines[0] and "16" in lines[0]
        assert "default" in lines[0]  # the experiment names no preset: say where it came from
    [spec] = expand_all(Project.at(root))
    assert spec.config["hidden"] == 16  # what trains: the order is unchanged, only now it is said
