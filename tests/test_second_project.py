"""A second, different project built from `evidence init` plus small edits.

Wine instead of digits, logistic regression instead of an MLP/CNN, and the Brier score (lower
is better) as the metric the claims rest on: nothing in the engine may assume the example's
trainer, dataset, metric names, figures or claims.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

TRAINER = '''
"""Multinomial logistic regression with a Brier-score metric (lower is better)."""

import torch
from torch import nn

from evidence.numerics.recipe import Recipe, classification_metrics


def metrics(logits, targets):
    probabilities = torch.softmax(logits, dim=1)
    onehot = nn.functional.one_hot(targets, probabilities.shape[1]).double()
    brier = ((probabilities.double() - onehot) ** 2).sum(dim=1).mean()
    return {**classification_metrics(logits, targets), "brier": float(brier)}


def build(config, data):
    model = nn.Linear(data.n_features, data.n_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(config["lr"]))
    return Recipe(model=model, optimizer=optimizer, epochs=int(config["epochs"]),
                  batch_size=int(config["batch_size"]), metrics=metrics,
                  directions={"accuracy": "higher", "loss": "lower", "brier": "lower"},
                  selection_metric="brier")
'''

CLAIMS = [
    {"id": "model_beats_control",
     "statement": "Logistic regression's Brier score is {value} lower than its control's (95% CI {ci}).",
     "evidence": {"ref": "verify:model_vs_control", "quantity": "diff"},
     "predicate": {"kind": "classification", "equals": "effect"},
     "format": {"style": "number", "decimals": 3}, "tolerance": 0.01,
     "figures": ["results"], "tables": ["results"]},
    {"id": "model_brier",
     "statement": "Logistic regression reaches a test Brier score of {value} (95% CI {ci}).",
     "evidence": {"ref": "aggregate:model_brier"},
     "predicate": {"kind": "less_than", "value": 0.2},
     "format": {"style": "number", "decimals": 3}, "tolerance": 0.01,
     "keywords": ["Brier score", "logistic regression"], "tables": ["results"]},
]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


def test_second_project_from_init(tmp_path: Path) -> None:
    root = tmp_path / "wine"
    subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)], check=True,
                   capture_output=True)
    # The edits a user makes (counted in the closing note of the issue).
    edit(root / "experiments/main.toml", 'dataset = "breast_cancer"', 'dataset = "wine"')
    (root / "trainers/model.py").write_text(TRAINER)
    edit(root / "comparisons.toml", 'metric = "accuracy"\nsplit = "test"\nclaimed',
         'metric = "brier"\nsplit = "test"\nclaimed')
    edit(root / "comparisons.toml", 'id = "model_accuracy"', 'id = "model_brier"')
    edit(root / "comparisons.toml", 'metric = "accuracy"\nsplit = "test"\n',
         'metric = "brier"\nsplit = "test"\n')
    evidence = json.loads((root / "EVIDENCE.json").read_text())
    evidence["title"] = "Logistic regression on wine"
    evidence["claims"] = CLAIMS
    (root / "EVIDENCE.json").write_text(json.dumps(evidence, indent=2))
    edit(root / "figures/results/figure.toml", 'metric = "accuracy"', 'metric = "brier"')
    edit(root / "figures/results/figure.toml", 'ylabel = "test accuracy"', 'ylabel = "test Brier score"')
    edit(root / "tables/results/table.toml", 'metric = "loss", header = "Test loss"',
         'metric = "brier", header = "Test Brier score"')
    edit(root / "paper/paper.md.j2", '{{ figure("results") }}',
         '{{ statement("model_brier") }}\n\n{{ figure("results") }}')

    result = doit(root, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "claims: 2/2 supported by their evidence" in result.stdout
    resolved = json.loads((root / "build/deliver/claims.json").read_text())["claims"]
    brier = next(c for c in resolved if c["id"] == "model_brier")
    beats = next(c for c in resolved if c["id"] == "model_beats_control")
    assert 0 < brier["value"] < 0.2
    assert beats["value"] < 0  # lower is better: the model's Brier score is below the control's
    report = json.loads((root / "build/verify/report.json").read_text())
    [comparison] = report["comparisons"]
    assert comparison["direction"] == "lower" and comparison["class"] == "effect"
    assert comparison["numbers"]["prob_improvement"] > 0.5  # oriented by direction
    disclosures = json.loads((root / "build/deliver/disclosures.json").read_text())
    # evidence init committed the template; the edits above were not committed: a dirty tree
    assert any(f["check"] == "git" for f in disclosures["findings"])

    # Reconcile works on this project's own claim and metric: a stale README number fails.
    readme = root / "README.md"
    readme.write_text(readme.read_text() + f"\nLogistic regression reaches a Brier score of "
                      f"{brier['value'] + 0.05:.3f} on wine.\n")
    stale = doit(root, "deliver")
    assert stale.returncode == 1
    assert "DRIFT README.md:" in stale.stdout and "model_brier" in stale.stdout
    readme.write_text(readme.read_text().replace(f"{brier['value'] + 0.05:.3f}", brier["formatted"]))
    fixed = doit(root, "deliver")
    assert fixed.returncode == 0, fixed.stdout[-2000:]
    assert "matching statements in documents: 1" in fixed.stdout


def test_a_claim_on_an_unknown_metric_is_a_clear_error(tmp_path: Path) -> None:
    root = tmp_path / "bad"
    subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)], check=True,
                   capture_output=True)
    edit(root / "comparisons.toml", 'metric = "accuracy"\nsplit = "test"\nclaimed',
         'metric = "f1"\nsplit = "test"\nclaimed')
    result = doit(root, "deliver")
    assert result.returncode in (1, 3)
    assert "f1" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
