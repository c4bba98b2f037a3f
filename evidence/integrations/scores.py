"""The default metrics of the integrations: a classifier's accuracy and loss on every split.

Why shared: ``train(ctx)`` must return, and ``evaluate(weights, ctx)`` must recompute from the
sealed weights, exactly the same numbers (verify-by-load); both go through :func:`classification`.
"""

from __future__ import annotations

import math
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


@torch.no_grad()
def diagnostics(logits_of: Callable[[torch.Tensor], torch.Tensor], ctx: Any) -> dict[str, float]:
    """What verify's sanity checks read (docs/contracts.md, "Diagnostics"): the classes and the
    chance loss log K, and how varied the test predictions are (entropy in nats of the
    predicted-class histogram, its maximum log K, the share of the most predicted class)."""
    logits = logits_of(torch.as_tensor(ctx.data["test"].x))
    k = int(logits.shape[1])
    counts = torch.bincount(logits.argmax(1), minlength=k).double()
    share = counts / counts.sum()
    nonzero = share[share > 0]
    return {"n_classes": float(k), "chance_loss": math.log(k),
            "prediction_entropy": float(-(nonzero * nonzero.log()).sum()),
            "max_prediction_entropy": math.log(k), "majority_prediction_share": float(share.max())}


def result(weights: dict[str, Any], metrics: dict[str, dict[str, float]], *, epochs: int,
           steps: int, diagnostics: dict[str, float] | None = None) -> dict[str, Any]:
    """The return value of ``train(ctx)`` for :func:`classification`'s metrics."""
    return {"weights": weights, "metrics": metrics, "directions": dict(DIRECTIONS),
            "selection_metric": "accuracy", "epochs": epochs, "steps": steps,
            "diagnostics": dict(diagnostics or {})}


def evaluate(module: torch.nn.Module, weights: dict[str, Any], ctx: Any) -> dict[str, dict[str, float]]:
    """Accuracy and loss of ``module`` with ``weights`` on every split (the verify-by-load hook)."""
    module.load_state_dict(weights)
    module.eval()
    try:
        return classification(module, ctx)
    finally:
        module.train()


def finish(module: torch.nn.Module, ctx: Any, *, epochs: int, steps: int) -> dict[str, Any]:
    """``train(ctx)``'s return value for a trained classifier: its metrics recomputed exactly as
    :func:`evaluate` will from the sealed weights, and the diagnostics verify reads."""
    weights = module.state_dict()
    metrics = evaluate(module, weights, ctx)
    module.eval()
    try:
        found = diagnostics(module, ctx)
    finally:
        module.train()
    return result(module.state_dict(), metrics, epochs=epochs, steps=steps, diagnostics=found)
