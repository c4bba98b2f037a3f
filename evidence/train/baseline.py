"""What a regression model must beat: the score of predicting the training mean.

Why: a classifier has a chance level (1/K accuracy, log K loss) to be compared with; a
regression has none unless one is recorded. The natural floor is the constant prediction a
model would fall back to if it learned nothing from the inputs: the mean target of the training
split. Each of the recipe's metrics of that constant, on the test split, is recorded as the
diagnostic ``baseline_<metric>`` (e.g. ``baseline_rmse``), which ``reference = "baseline"`` in
comparisons.toml and the shuffled-target control check of ``verify`` read.
"""

from __future__ import annotations

from typing import Any

import torch


def mean_baseline(recipe: Any, dataset: Any) -> dict[str, float]:
    """``{"baseline_<metric>": value}`` on the test split for a regression dataset, else ``{}``.

    The constant has the shape of the model's own test outputs (so a metric written for those
    outputs accepts it), filled with the training targets' mean (per output column).
    """
    if getattr(dataset, "task", None) != "regression":
        return {}
    from evidence.numerics import training

    test, train = dataset["test"], dataset["train"]
    outputs = training.predict(recipe, test)
    mean = torch.as_tensor(train.y, dtype=outputs.dtype).mean(dim=0)
    with torch.no_grad():
        constant = torch.zeros_like(outputs) + mean  # (k,) or () broadcasts over the rows
    values = recipe.metrics(constant, torch.from_numpy(test.y))
    return {f"baseline_{name}": float(value) for name, value in values.items()}
