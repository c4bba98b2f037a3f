"""The own-loop contract (train(ctx)): sealing, verify-by-load or its disclosure, contract errors."""

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
from conftest import doit

from evidence.core.errors import EXIT_INTERRUPTED
from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.store.runs import RunStore

pytestmark = pytest.mark.slow  # every test here trains through the runner in a subprocess

# Full-batch logistic regression in a hand-written loop; EVALUATE adds the verify-by-load hook.
LOOP = '''
import torch
from torch import nn


def make(ctx):
    torch.manual_seed(ctx.seed)
    return nn.Linear(ctx.info.n_features, ctx.info.n_classes)


@torch.no_grad()
def scores(model, ctx):
    out = {{"accuracy": {{}}, "loss": {{}}}}
    for split in ("train", "val", "test"):
        logits = model(torch.from_numpy(ctx.data[split].x))
        y = torch.from_numpy(ctx.data[split].y)
        out["accuracy"][split] = float((logits.argmax(1) == y).double().mean())
        out["loss"][split] = float(nn.functional.cross_entropy(logits, y))
    return out


def train(ctx):
    model = make(ctx)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(ctx.config["lr"]))
    start = 0
    state = ctx.restore()
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["epoch"]
    x, y = torch.from_numpy(ctx.data["train"].x), torch.from_numpy(ctx.data["train"].y)
    for epoch in range(start, int(ctx.config["epochs"])):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        ctx.log(epoch + 1, loss=loss.item())
        ctx.checkpoint({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch + 1}}, epoch + 1)
    return {RESULT}
'''
GOOD_RESULT = ('{"weights": model.state_dict(), "metrics": scores(model, ctx), '
               '"directions": {"accuracy": "higher", "loss": "lower"}, "selection_metric": "accuracy", '
               '"epochs": int(ctx.config["epochs"])}')
EVALUATE = '''

def evaluate(weights, ctx):
    model = make(ctx)
    model.load_state_dict(weights)
    return scores(model, ctx)
'''
EXPERIMENT = '''
trainer = "loop"
seeds = [0]
[data]
dataset = "iris"
[config]
epochs = 20
lr = 0.5
[checkpoint]
every_steps = 5
every_seconds = 0
'''


def run_one(root: Path) -> subprocess.CompletedProcess[str]:
    [spec] = expand_all(Project.at(root))
    (root / "spec.json").write_text(json.dumps(spec.to_json()))
    return subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                           "--spec", str(root / "spec.json")], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off"}, timeout=300)


def results_of(root: Path) -> dict[str, object]:
    [run] = list(RunStore(root / "runs").runs())
    return dict(json.loads((run.path / "results.json").read_text()))


def test_own_loop_with_evaluate_is_verified_by_load(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": EXPERIMENT,
                         "trainers/loop.py": LOOP.format(RESULT=GOOD_RESULT) + EVALUATE})
    done = run_one(root)
    assert done.returncode == 0, done.stderr
    results = results_of(root)
    assert results["loop"] == "own" and results["verify_by_load"] == "verified"
    assert results["epochs"] == 20 and results["steps"] == 20
    [run] = list(RunStore(root / "runs").runs())
    rows = [json.loads(line) for line in (run.path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == list(range(1, 21))


def test_a_loop_that_trains_nothing_records_zero_epochs_and_steps(make_project: Callable[..., Path]) -> None:
    """A persistence-style baseline returns ``"epochs": 0, "steps": 0``: results.json records
    exactly that (it recorded 1 and 1)."""
    result = GOOD_RESULT.replace('"epochs": int(ctx.config["epochs"])', '"epochs": 0, "steps": 0')
    root = make_project({"experiments/tiny.toml": EXPERIMENT.replace("epochs = 20", "epochs = 0"),
                         "trainers/loop.py": LOOP.format(RESULT=result) + EVALUATE})
    done = run_one(root)
    assert done.returncode == 0, done.stderr
    results = results_of(root)
    assert results["epochs"] == 0 and results["steps"] == 0, results


def test_own_loop_without_evaluate_says_so(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": EXPERIMENT,
                         "trainers/loop.py": LOOP.format(RESULT=GOOD_RESULT)})
    done = run_one(root)
    assert done.returncode == 0, done.stderr
    assert results_of(root)["verify_by_load"] == "not_possible"


def test_evaluate_that_disagrees_refuses_the_seal(make_project: Callable[..., Path]) -> None:
    drifting = EVALUATE.replace("model.load_state_dict(weights)",
                                "model.load_state_dict(weights)\n    model.bias.data[0] += 1.0")
    root = make_project({"experiments/tiny.toml": EXPERIMENT,
                         "trainers/loop.py": LOOP.format(RESULT=GOOD_RESULT) + drifting})
    done = run_one(root)
    assert done.returncode != 0
    assert "verify-by-load failed" in done.stderr and not list(RunStore(root / "runs").runs())


@pytest.mark.parametrize(("result", "message"), [
    ('{"weights": model.state_dict(), "metrics": scores(model, ctx)}',
     "missing ['directions', 'selection_metric']"),
    ('{"weights": model.state_dict(), "metrics": scores(model, ctx), "directions": {"accuracy": "up", '
     '"loss": "lower"}, "selection_metric": "accuracy"}', "must be 'higher' or 'lower'"),
    ('None', "must return a dict"),
    (GOOD_RESULT.replace('"epochs": int(ctx.config["epochs"])', '"epochs": -1'),
     "epochs=-1: must be a whole number >= 0"),
    (GOOD_RESULT.replace('"epochs": int(ctx.config["epochs"])', '"epochs": 2, "steps": 2.5'),
     "steps=2.5: must be a whole number >= 0"),
])
def test_a_return_value_off_the_contract_is_named(make_project: Callable[..., Path], result: str,
                                                   message: str) -> None:
    root = make_project({"experiments/tiny.toml": EXPERIMENT,
                         "trainers/loop.py": LOOP.format(RESULT=result)})
    done = run_one(root)
    assert done.returncode != 0
    assert "trainers/loop.py" in done.stderr and message in done.stderr, done.stderr


def test_deliver_discloses_runs_not_verified_by_load(tmp_path: Path) -> None:
    root = tmp_path / "paper"
    subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)], check=True,
                   capture_output=True)
    (root / "trainers" / "model.py").write_text(LOOP.format(RESULT=GOOD_RESULT))
    experiment = root / "experiments" / "main.toml"
    experiment.write_text(experiment.read_text().replace("epochs = 8", "epochs = 30"))
    result = doit(root, "deliver")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    findings = json.loads((root / "build/deliver/disclosures.json").read_text())["findings"]
    [finding] = [f for f in findings if f["id"].endswith("verify-by-load")]
    assert "no evaluate(weights, ctx) hook" in finding["message"]
    assert finding["claims"] == ["model_beats_control"]


def test_sigterm_asks_the_loop_to_checkpoint_and_stop_then_it_resumes_identically(
        make_project: Callable[..., Path]) -> None:
    pause = "        time.sleep(0.05)\n        optimizer.zero_grad()"
    slow = "import time\n" + LOOP.format(RESULT=GOOD_RESULT).replace("        optimizer.zero_grad()",
                                                                     pause) + EVALUATE
    files = {"experiments/tiny.toml": EXPERIMENT, "trainers/loop.py": slow}
    reference = make_project(files, name="reference")
    assert run_one(reference).returncode == 0

    root = make_project(files, name="interrupted")
    [spec] = expand_all(Project.at(root))
    (root / "spec.json").write_text(json.dumps(spec.to_json()))
    checkpoints = root / ".evidence" / "work" / spec.key[:16] / "checkpoints"
    process = subprocess.Popen([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                                "--spec", str(root / "spec.json")], cwd=root, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "EVIDENCE_PROGRESS": "off"})
    while process.poll() is None and not (checkpoints.is_dir() and list(checkpoints.glob("ckpt-*.blake3"))):
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert "interrupted by SIGTERM" in err and not list(RunStore(root / "runs").runs())
    done = run_one(root)
    assert done.returncode == 0 and "resuming" in done.stderr, done.stderr
    [ours], [theirs] = list(RunStore(root / "runs").runs()), list(RunStore(reference / "runs").runs())
    for name in ("results.json", "metrics.jsonl", "model.safetensors"):
        assert (ours.path / name).read_bytes() == (theirs.path / name).read_bytes(), name
