"""Your model: edit `build` (see docs/contracts.md in the engine for the full contract).

The engine owns the training loop, so that checkpointing, bit-identical resume, signal
handling, the smoke check and verify-by-load work for every trainer. A trainer only says
*what* to train:

    build(config, data) -> Recipe

* ``config``: the run's resolved config from experiments/*.toml (base, variant, grid point);
* ``data``: an ``evidence.numerics.recipe.DataInfo`` (n_features, n_classes, split sizes and digests).

Return a ``Recipe(model, optimizer, epochs, batch_size, scheduler=None, loss=..., metrics=...,
directions=...)``. The defaults are a classifier's: cross-entropy loss, metrics "accuracy"
(higher is better) and "loss" (lower is better). For other metrics pass ``metrics`` (a function
of a whole split's outputs and targets returning named floats) and ``directions`` (each
metric -> "higher" or "lower"; the engine never assumes one).

A trainer may instead keep its own loop: define ``train(ctx)`` (and, for verify-by-load,
``evaluate(weights, ctx)``) instead of ``build``; see docs/contracts.md, "Your own loop".
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from evidence.numerics.recipe import DataInfo, Recipe


def build(config: dict[str, Any], data: DataInfo) -> Recipe:
    # A linear classifier (multinomial logistic regression). Replace with your model.
    model = nn.Linear(data.n_features, data.n_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(config["lr"]))
    return Recipe(model=model, optimizer=optimizer, epochs=int(config["epochs"]),
                  batch_size=int(config["batch_size"]))
