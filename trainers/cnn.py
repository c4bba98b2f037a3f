"""A small convolutional network on the 8x8 digit images.

Two 3x3 convolutions with max pooling, then a linear classifier. Config keys: ``channels``,
``dropout``, ``lr``, ``momentum``, ``weight_decay``, ``epochs``, ``batch_size``,
``grad_accum``, ``precision``.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from evidence.numerics.recipe import DataInfo, Recipe


def build(config: dict[str, Any], data: DataInfo) -> Recipe:
    side = int(round(data.n_features ** 0.5))
    if side * side != data.n_features:
        raise ValueError(f"cnn needs square images, got {data.n_features} features")
    channels = int(config.get("channels", 16))
    model = nn.Sequential(
        nn.Unflatten(1, (1, side, side)),
        nn.Conv2d(1, channels, kernel_size=3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(channels, 2 * channels, kernel_size=3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(float(config.get("dropout", 0.0))),
        nn.Linear(2 * channels * (side // 4) ** 2, data.n_classes),
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=float(config["lr"]),
                                momentum=float(config.get("momentum", 0.9)),
                                weight_decay=float(config.get("weight_decay", 0.0)))
    epochs = int(config["epochs"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    return Recipe(model=model, optimizer=optimizer, scheduler=scheduler, epochs=epochs,
                  batch_size=int(config["batch_size"]), grad_accum=int(config.get("grad_accum", 1)),
                  precision=str(config.get("precision", "fp32")))
