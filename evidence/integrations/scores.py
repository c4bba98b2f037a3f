"""The default metrics of the integrations: a classifier's accuracy and loss on every split.

Why shared: ``train(ctx)`` must return, and ``evaluate(weights, ctx)`` must recompute from the
sealed weights, exactly the same numbers (verify-by-load); both go through :func:`classification`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

#: The directions of :func:`classification`'s metrics.
DIRECTIONS = {"accuracy": "higher", "loss": "lower"}


@torch.no_grad()
def classification(logits_of: Callable[[torch.Tensor], torch.Tensor],
                   ctx: Any) -> dict[str, dict[str, float]]:
    """``{"accuracy": {split: v}, "loss": {split: v}}`` over train, val and test (whole splits)."""
    out: dict[str, dict[str, float]] = {"accuracy": {}, "loss": {}}
    for split in ("train", "val", "test"):
        x = torch.as_tensor(ctx.data[split].x)
        y = torch.as_tensor(ctx.data[split].y)
        logits = logits_of(x)
        out["accuracy"][split] = float((logits.argmax(1) == y).double().mean())
        out["loss"][split] = float(torch.nn.functional.cross_entropy(logits, y))
    return out


def result(weights: dict[str, Any], metrics: dict[str, dict[str, float]], *, epochs: int,
           steps: int) -> dict[str, Any]:
    """The return value of ``train(ctx)`` for :func:`classification`'s metrics."""
    return {"weights": weights, "metrics": metrics, "directions": dict(DIRECTIONS),
            "selection_metric": "accuracy", "epochs": epochs, "steps": max(1, steps)}
