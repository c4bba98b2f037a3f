"""The trainer contract: what a trainer module gives the engine.

A trainer is a module ``trainers/<name>.py`` with one entry point::

    def build(config: dict, data: DataInfo) -> Recipe

``config`` is the run's resolved config (base config, variant and grid overrides) and
``data`` says what the model must fit (number of features and classes, the split digests).
The trainer returns a :class:`Recipe`: the model, its optimizer and scheduler, and how long
and in which batch size to train. The engine owns the loop, so that checkpointing, bit-identical
resume, signal handling, the smoke check and verify-by-load work the same for every trainer.

A recipe may replace the loss and the metrics (for instance a regression with a lower-is-better
error); it must then declare every metric's direction, because the engine never assumes one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
MetricsFn = Callable[[torch.Tensor, torch.Tensor], dict[str, float]]


@dataclass(frozen=True)
class DataInfo:
    """What a trainer may know about the data: shapes, classes and split digests."""

    dataset: str
    n_features: int
    n_classes: int
    task: str
    split_sizes: dict[str, int]
    split_digests: dict[str, str]


def classification_metrics(logits: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
    """Accuracy (fraction correct, higher is better) and mean cross-entropy in nats (lower)."""
    loss = nn.functional.cross_entropy(logits, targets, reduction="mean")
    accuracy = (logits.argmax(dim=1) == targets).double().mean()
    return {"accuracy": float(accuracy), "loss": float(loss)}


CLASSIFICATION_DIRECTIONS = {"accuracy": "higher", "loss": "lower"}
#: Training precisions the engine's loop supports.
PRECISIONS = ("fp32", "bf16")


@dataclass
class Recipe:
    """Everything the engine needs to train and evaluate one run.

    ``scheduler`` (optional) is stepped once per epoch. ``batch_size`` is the batch of one
    optimizer step; with ``grad_accum`` > 1 the engine splits it into that many micro-batches
    and accumulates their gradients (less memory, the same effective batch), and with
    ``precision = "bf16"`` it runs the training forward pass under bfloat16 autocast (the
    presets of presets.toml set both through the config). ``loss`` maps (outputs, targets) to a
    scalar tensor. ``metrics`` maps the outputs and targets of a whole split to named floats,
    and ``directions`` says for each metric whether higher or lower is better.
    """

    model: nn.Module
    optimizer: torch.optim.Optimizer
    epochs: int
    batch_size: int
    scheduler: Any = None
    loss: LossFn = nn.functional.cross_entropy
    metrics: MetricsFn = classification_metrics
    directions: dict[str, str] = field(default_factory=lambda: dict(CLASSIFICATION_DIRECTIONS))
    #: Metric used to select among configurations on the validation split.
    selection_metric: str = "accuracy"
    grad_accum: int = 1
    precision: str = "fp32"

    def check(self, source: str) -> None:
        """Check the recipe against the contract; raises TypeError/ValueError naming ``source``."""
        if not isinstance(self.model, nn.Module):
            raise TypeError(f"{source}: build() must return Recipe.model as a torch.nn.Module")
        if not isinstance(self.optimizer, torch.optim.Optimizer):
            raise TypeError(f"{source}: Recipe.optimizer must be a torch.optim.Optimizer")
        if self.epochs < 1 or self.batch_size < 1 or self.grad_accum < 1:
            raise ValueError(f"{source}: Recipe.epochs, batch_size and grad_accum must be >= 1")
        if self.precision not in PRECISIONS:
            raise ValueError(f"{source}: Recipe.precision must be one of {PRECISIONS}, got "
                             f"{self.precision!r}")
        bad = {k: v for k, v in self.directions.items() if v not in ("higher", "lower")}
        if bad:
            raise ValueError(f"{source}: metric directions must be 'higher' or 'lower', got {bad}")
        if self.selection_metric not in self.directions:
            raise ValueError(f"{source}: selection_metric {self.selection_metric!r} has no "
                             f"direction in Recipe.directions {sorted(self.directions)}")


def chance_loss(n_classes: int) -> float:
    """Cross-entropy of a uniform prediction over ``n_classes``: log K nats."""
    return math.log(n_classes)
