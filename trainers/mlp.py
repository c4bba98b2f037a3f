"""A multilayer perceptron on the flattened 8x8 digit images.

Config keys: ``hidden`` (units per hidden layer), ``layers`` (hidden layers, default 1),
``dropout``, ``lr``, ``momentum``, ``weight_decay``, ``epochs``, ``batch_size``,
``grad_accum``, ``precision``.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from evidence.numerics.recipe import DataInfo, Recipe


def build(config: dict[str, Any], data: DataInfo) -> Recipe:
    layers: list[nn.Module] = []
    width = data.n_features
    for _ in range(int(config.get("layers", 1))):
        layers += [nn.Linear(width, int(config["hidden"])), nn.ReLU(),
                   nn.Dropout(float(config.get("dropout", 0.0)))]
        width = int(config["hidden"])
    model = nn.Sequential(*layers, nn.Linear(width, data.n_classes))
    optimizer = torch.optim.SGD(model.parameters(), lr=float(config["lr"]),
                                momentum=float(config.get("momentum", 0.9)),
                                weight_decay=float(config.get("weight_decay", 0.0)))
    epochs = int(config["epochs"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    return Recipe(model=model, optimizer=optimizer, scheduler=scheduler, epochs=epochs,
                  batch_size=int(config["batch_size"]), grad_accum=int(config.get("grad_accum", 1)),
                  precision=str(config.get("precision", "fp32")))
