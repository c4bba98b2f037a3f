"""Your model: edit `build` (see docs/contracts.md in the engine for the full contract).

The engine owns the training loop, so that checkpointing, bit-identical resume, signal
handling, the smoke check and verify-by-load work for every trainer. A trainer only says
*what* to train:

    build(config, data) -> Recipe

* ``config``: the run's resolved config from experiments/*.toml (base, variant, grid point);
* ``data``: an ``evidence.numerics.loaders.ProjectDataInfo`` (task, n_features, input_shape,
  target_shape, n_classes = None for regression, split sizes and digests).

A regression recipe replaces the classifier defaults: the loss (mean squared error), the
metrics (computed on a whole split's outputs and targets) and each metric's direction.
Targets arrive as float32 of shape (n,): the model's output is flattened to match.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from evidence.numerics.recipe import Recipe


def regression_metrics(outputs: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
    """Root mean squared error and mean squared error ("loss"), both lower is better."""
    mse = nn.functional.mse_loss(outputs.double(), targets.double())
    return {"rmse": float(mse.sqrt()), "loss": float(mse)}


def build(config: dict[str, Any], data: Any) -> Recipe:
    hidden = int(config.get("hidden", 0))
    if hidden:  # a small MLP
        body: list[nn.Module] = [nn.Linear(data.n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1)]
    else:  # linear regression
        body = [nn.Linear(data.n_features, 1)]
    model = nn.Sequential(nn.Flatten(), *body, nn.Flatten(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=float(config["lr"]))
    return Recipe(model=model, optimizer=optimizer, epochs=int(config["epochs"]),
                  batch_size=int(config["batch_size"]), loss=nn.functional.mse_loss,
                  metrics=regression_metrics, directions={"rmse": "lower", "loss": "lower"},
                  selection_metric="rmse")
