"""A regression's baseline: its metrics when predicting the training mean, on real data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from sklearn.datasets import load_diabetes
from torch import nn

from evidence.numerics.data import Dataset, Split
from evidence.numerics.recipe import Recipe
from evidence.train.baseline import mean_baseline


def rmse_metrics(outputs: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
    error = outputs.reshape(targets.shape) - targets
    return {"rmse": float(torch.sqrt(torch.mean(error**2))), "mae": float(error.abs().mean())}


def diabetes(task: str = "regression") -> Dataset:
    x, y = load_diabetes(return_X_y=True)
    x, y = x.astype(np.float32), y.astype(np.float32)
    splits = {"train": Split(x[:300], y[:300]), "val": Split(x[300:370], y[300:370]),
              "test": Split(x[370:], y[370:])}
    return Dataset(name="diabetes", splits=splits, n_features=x.shape[1], n_classes=0, task=task)


def test_the_baseline_is_the_training_mean_scored_on_test() -> None:
    data = diabetes()
    model = nn.Linear(data.n_features, 1)  # outputs (n, 1); targets (n,)
    recipe = Recipe(model=model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1), epochs=1,
                    batch_size=32, loss=nn.functional.mse_loss, metrics=rmse_metrics,
                    directions={"rmse": "lower", "mae": "lower"}, selection_metric="rmse")
    found = mean_baseline(recipe, data)
    mean, test = float(data["train"].y.mean()), data["test"].y.astype(np.float64)
    assert found["baseline_rmse"] == pytest.approx(math.sqrt(np.mean((test - mean) ** 2)), rel=1e-5)
    assert found["baseline_mae"] == pytest.approx(np.mean(np.abs(test - mean)), rel=1e-5)
    assert mean_baseline(recipe, diabetes("classification")) == {}  # chance covers classifiers
