"""Early stopping on a validation plateau: the rule, its resumable state, and what it saved.

An experiment opts in with a table (schema ``experiment``)::

    [early_stopping]
    metric = "accuracy"   # a metric the recipe declares; its direction says which way is better
    min_epochs = 3        # never stop before this many epochs
    max_epochs = 30       # the full budget (default: the config's ``epochs``)
    min_delta = 0.001     # an epoch improves only if it beats the best so far by more than this
    patience = 3          # stop after this many epochs in a row without improvement

The resolved table becomes ``config["early_stopping"]`` of every run of the experiment, so it
is part of the run key, and ``max_epochs`` becomes ``config["epochs"]`` (a trainer's schedule
then spans the full budget). After each epoch the loop updates :class:`EarlyStopping`'s state
from the epoch's validation metrics; the state lives in the training progress and so in every
checkpoint, and a resumed run continues from it: a killed and resumed run stops at the same
epoch with the same weights as an uninterrupted one. The final model is the one of the epoch
the run stopped at (the best epoch is recorded, not restored).

This module is part of the engine's numerical code (it decides how long a run trains); it does
not import torch, so expanding experiments stays cheap.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evidence.core.errors import BadInputError

DEFAULTS: dict[str, Any] = {"metric": "accuracy", "min_epochs": 1, "min_delta": 0.0, "patience": 3}


def resolve_config(block: Mapping[str, Any] | None, config: Mapping[str, Any], source: object,
                   ) -> dict[str, Any]:
    """``config`` with the experiment's ``[early_stopping]`` resolved into it (unchanged if none)."""
    if not block:
        return dict(config)
    resolved = {**DEFAULTS, **block}
    if "max_epochs" not in resolved:
        if "epochs" not in config:
            raise BadInputError(source, "early stopping needs a budget: set early_stopping.max_epochs "
                                "or config.epochs", field="early_stopping.max_epochs")
        resolved["max_epochs"] = int(config["epochs"])
    if int(resolved["min_epochs"]) > int(resolved["max_epochs"]):
        raise BadInputError(source, f"min_epochs ({resolved['min_epochs']}) is larger than max_epochs "
                            f"({resolved['max_epochs']})", field="early_stopping.min_epochs")
    return {**config, "epochs": int(resolved["max_epochs"]), "early_stopping": resolved}


@dataclass(frozen=True)
class EarlyStopping:
    """The plateau rule; its state is a plain dict (kept in the progress, hence in checkpoints)."""

    metric: str
    direction: str
    min_epochs: int
    max_epochs: int
    min_delta: float
    patience: int

    @classmethod
    def from_config(cls, block: Mapping[str, Any] | None, directions: Mapping[str, str],
                    source: str) -> EarlyStopping | None:
        if not block:
            return None
        metric = str(block["metric"])
        if metric not in directions:
            raise ValueError(f"{source}: early_stopping.metric {metric!r} is not a metric of the recipe "
                             f"(it declares {sorted(directions)})")
        return cls(metric=metric, direction=directions[metric], min_epochs=int(block["min_epochs"]),
                   max_epochs=int(block["max_epochs"]), min_delta=float(block["min_delta"]),
                   patience=int(block["patience"]))

    def settings(self) -> dict[str, Any]:
        return {"metric": self.metric, "direction": self.direction, "min_epochs": self.min_epochs,
                "max_epochs": self.max_epochs, "min_delta": self.min_delta, "patience": self.patience}

    def update(self, state: Mapping[str, Any] | None, row: Mapping[str, Any], epoch: int) -> dict[str, Any]:
        """The state after completed epoch ``epoch`` (1-based) with validation metrics in ``row``."""
        new = dict(state or {"best_value": None, "best_epoch": None, "bad_epochs": 0, "stopped": False,
                             "stopped_epoch": None, "reason": None})
        value = float(row[f"val/{self.metric}"])
        best = new["best_value"]
        better = best is None or (value > best + self.min_delta if self.direction == "higher"
                                  else value < best - self.min_delta)
        if better:
            new.update(best_value=value, best_epoch=epoch, bad_epochs=0)
        else:
            new["bad_epochs"] = int(new["bad_epochs"]) + 1
        if epoch >= self.min_epochs and new["bad_epochs"] >= self.patience and epoch < self.max_epochs:
            new.update(stopped=True, stopped_epoch=epoch, reason="plateau")
        elif epoch >= self.max_epochs:
            new.update(stopped=True, stopped_epoch=epoch, reason="max_epochs")
        return new

    def record(self, state: Mapping[str, Any] | None, epochs_run: int) -> dict[str, Any]:
        """results.json's ``early_stopping``: the settings, where it stopped and why, the epochs saved."""
        state = state or {}
        return {**self.settings(), "stopped_epoch": state.get("stopped_epoch") or epochs_run,
                "best_epoch": state.get("best_epoch"), "best_value": state.get("best_value"),
                "reason": state.get("reason") or "max_epochs", "epochs_run": epochs_run,
                "epochs_saved": self.max_epochs - epochs_run,
                "share_saved": (self.max_epochs - epochs_run) / self.max_epochs}


def spread(values: Sequence[float]) -> dict[str, float] | None:
    """min, median and max of measured values (a savings claim is a range, never one number)."""
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}
