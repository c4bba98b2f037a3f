"""Metric ranges: a value a metric cannot take is refused at seal time and flagged in verify."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.errors import RunFailedError
from evidence.core.metrics import metric_range, out_of_range, refuse_out_of_range
from evidence.store.runs import RunStore


def results(**values: float) -> dict[str, object]:
    return {"metrics": {name: {"direction": "higher", "values": {"train": v, "val": v, "test": v}}
                        for name, v in values.items()}}


def test_known_and_declared_ranges() -> None:
    assert metric_range("accuracy") == (0.0, 1.0)
    assert metric_range("loss") == (0.0, math.inf)
    assert metric_range("bleu") == (-math.inf, math.inf)  # unknown: unbounded, never refused
    assert metric_range("bleu", {"range": [0, 100]}) == (0.0, 100.0)
    assert metric_range("accuracy", {"range": [0, None]}) == (0.0, math.inf)


def test_out_of_range_names_split_metric_value_and_range() -> None:
    assert out_of_range(results(accuracy=0.97, loss=0.1)) == []
    found = out_of_range(results(accuracy=1.3, loss=-0.2))
    assert "test accuracy = 1.3 is outside its range [0, 1]" in found
    assert "val loss = -0.2 is outside its range [0, unbounded]" in found
    assert len(found) == 6
    with pytest.raises(RunFailedError, match=r"mlp/a-s0: refusing to seal: test accuracy = 1.3"):
        refuse_out_of_range(results(accuracy=1.3), "mlp/a-s0")


@pytest.mark.slow
def test_a_run_whose_accuracy_exceeds_one_is_not_sealed(make_project: Callable[..., Path]) -> None:
    # A trainer whose metric counts correct predictions instead of averaging them: accuracy 300.
    root = make_project({"trainers/counting.py": '''
        from typing import Any

        import torch

        from evidence.numerics.recipe import DataInfo, Recipe
        from trainers.mlp import build as build_mlp


        def counted(logits: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
            loss = torch.nn.functional.cross_entropy(logits, targets)
            return {"accuracy": float((logits.argmax(dim=1) == targets).sum()), "loss": float(loss)}


        def build(config: dict[str, Any], data: DataInfo) -> Recipe:
            recipe = build_mlp(config, data)
            recipe.metrics = counted
            return recipe
        ''', "experiments/tiny.toml": '''
        trainer = "counting"
        seeds = [0]

        [data]
        dataset = "digits"
        split_seed = 0

        [config]
        epochs = 1
        batch_size = 64
        lr = 0.1
        hidden = 16
        '''})
    out = doit(root, "train")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "refusing to seal" in text and "accuracy = " in text and "is outside its range [0, 1]" in text
    assert RunStore(root / "runs").run_ids() == []
