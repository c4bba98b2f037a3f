"""The training loop and evaluation: the numerics of a run.

This module is part of every run key (see :data:`evidence.experiments.spec.ENGINE_NUMERIC_MODULES`):
changing it changes what runs compute, so it changes which runs are cached.

Determinism on CPU comes from three things: every RNG is seeded from the run seed (torch,
numpy, python), PyTorch is told to use deterministic algorithms in a fixed number of threads,
and the data order of epoch ``e`` is a permutation drawn from ``default_rng([seed, e])``, a
pure function of the seed and the epoch. Resume is bit-identical because a checkpoint holds all
mutable state (weights, optimizer and scheduler state, every RNG, the position inside the
epoch and the running loss sum) and nothing else influences the next step.

Scale-out hooks leave the single-process path untouched: batches and evaluation inputs move to
the model's device (a no-op on the CPU, where ``Tensor.to`` returns the tensor itself), and
:func:`run_epochs` takes the step function as a parameter so that a distributed run can replace
it (see :mod:`evidence.train.distributed`) while the loop, the batch order and the RNG use stay the
same code.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from evidence.numerics.data import Dataset, Split
from evidence.numerics.recipe import Recipe
from evidence.numerics.stopping import EarlyStopping

EVAL_BATCH = 1024


def seed_everything(seed: int) -> None:
    """Seed torch, numpy's and python's global RNGs (trainers may use any of them)."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def configure_determinism(threads: int) -> None:
    """Deterministic kernels in a fixed number of threads.

    ``torch.use_deterministic_algorithms`` also imports the compiler stack to set its flag
    (seconds of start-up in every run); the engine never compiles, so only the kernel switch is
    set, and the public getter confirms it took effect.
    """
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None:  # pragma: no cover - a future torch without the private switch
        torch.use_deterministic_algorithms(True)
    else:
        setter(True)
    if not torch.are_deterministic_algorithms_enabled():  # pragma: no cover
        raise RuntimeError("could not enable PyTorch's deterministic algorithms")
    torch.set_num_threads(threads)


def rng_state() -> dict[str, Any]:
    """All global RNG states, in types that ``torch.load(weights_only=True)`` accepts.

    On a GPU that includes each CUDA device's generator: dropout on CUDA draws from it, not from
    the CPU generator, so a run resumed without it repeats the masks of its first steps and
    seals other weights than the uninterrupted run (found by tests/test_cuda.py on an H200).
    Read only once CUDA is in use: asking earlier would initialise CUDA in a CPU run.
    """
    kind, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    state: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "numpy": {"kind": kind, "keys": [int(k) for k in keys], "pos": int(pos),
                  "has_gauss": int(has_gauss), "cached_gaussian": float(cached)},
        "python": random.getstate(),
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore :func:`rng_state`'s states (a checkpoint's CUDA generators on the devices that
    exist here: a CPU checkpoint restores none, and a run's key pins its device kind)."""
    cuda = state.get("cuda")
    if cuda and torch.cuda.is_available():
        for index, generator in enumerate(cuda[:torch.cuda.device_count()]):
            torch.cuda.set_rng_state(generator, index)
    torch.set_rng_state(state["torch"])
    n = state["numpy"]
    np.random.set_state((n["kind"], np.array(n["keys"], dtype=np.uint32), n["pos"],
                         n["has_gauss"], n["cached_gaussian"]))
    py = state["python"]
    random.setstate((py[0], tuple(py[1]), py[2]))


def batch_order(n: int, batch_size: int, seed: int, epoch: int) -> list[np.ndarray]:
    """Index batches of epoch ``epoch``: a permutation that depends only on (seed, epoch)."""
    order = np.random.default_rng([seed, epoch]).permutation(n)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def steps_per_epoch(n: int, batch_size: int) -> int:
    return math.ceil(n / batch_size)


@dataclass
class Progress:
    """Where a run stands; saved in every checkpoint."""

    epoch: int = 0  # completed epochs
    batch: int = 0  # completed batches of the current epoch
    step: int = 0  # completed optimizer steps in total
    loss_sum: float = 0.0  # sum of batch losses of the current epoch (for the epoch mean)
    history: list[dict[str, Any]] = field(default_factory=list)
    initial_loss: float | None = None
    stopping: dict[str, Any] | None = None  # early-stopping state (None: no early stopping)

    def to_dict(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "batch": self.batch, "step": self.step,
                "loss_sum": self.loss_sum, "history": self.history,
                "initial_loss": self.initial_loss, "stopping": self.stopping}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Progress:
        return cls(epoch=int(raw["epoch"]), batch=int(raw["batch"]), step=int(raw["step"]),
                   loss_sum=float(raw["loss_sum"]), history=list(raw["history"]),
                   initial_loss=raw["initial_loss"], stopping=raw.get("stopping"))

    @property
    def stopped(self) -> bool:
        return bool(self.stopping and self.stopping.get("stopped"))


def model_device(model: torch.nn.Module) -> torch.device:
    """Where the model's parameters live (the CPU for a model without parameters)."""
    for parameter in model.parameters():
        return parameter.device
    return torch.device("cpu")


@torch.no_grad()
def predict(recipe: Recipe, split: Split) -> torch.Tensor:
    """Model outputs for a whole split, in evaluation mode, in fixed-size batches (on the CPU)."""
    was_training = recipe.model.training
    recipe.model.eval()
    device = model_device(recipe.model)
    x = torch.from_numpy(split.x)
    outputs = [recipe.model(x[i:i + EVAL_BATCH].to(device)) for i in range(0, len(x), EVAL_BATCH)]
    recipe.model.train(was_training)
    return torch.cat(outputs).cpu()


def evaluate(recipe: Recipe, split: Split) -> dict[str, float]:
    """The recipe's metrics on one split."""
    return dict(recipe.metrics(predict(recipe, split), torch.from_numpy(split.y)))


def prediction_diagnostics(recipe: Recipe, split: Split) -> dict[str, float]:
    """How varied the predictions are: entropy (nats) of the predicted-class histogram.

    A model whose predictions are (near-)constant has an entropy near zero and a majority
    share near one: a classic sign of collapse, whatever its accuracy says.
    """
    outputs = predict(recipe, split)
    if outputs.ndim != 2 or outputs.shape[1] < 2:
        return {}
    counts = torch.bincount(outputs.argmax(dim=1), minlength=outputs.shape[1]).double()
    share = counts / counts.sum()
    nonzero = share[share > 0]
    return {"prediction_entropy": float(-(nonzero * nonzero.log()).sum()),
            "max_prediction_entropy": math.log(outputs.shape[1]),
            "majority_prediction_share": float(share.max())}


def train_step(recipe: Recipe, x: torch.Tensor, y: torch.Tensor) -> float:
    device = model_device(recipe.model)
    x, y = x.to(device), y.to(device)
    recipe.model.train()
    recipe.optimizer.zero_grad(set_to_none=True)
    if recipe.grad_accum == 1 and recipe.precision == "fp32":
        loss = recipe.loss(recipe.model(x), y)
        loss.backward()
        recipe.optimizer.step()
        return float(loss.detach())
    return _accumulated_step(recipe, x, y)


def _accumulated_step(recipe: Recipe, x: torch.Tensor, y: torch.Tensor) -> float:
    """One optimizer step over ``grad_accum`` micro-batches of the batch, in ``precision``.

    Each micro-batch loss is weighted by its share of the batch, so the accumulated gradient is
    that of the batch mean (for a mean-reduced loss), as in one step over the whole batch. bf16
    runs the forward pass under autocast; weights, gradients and optimizer state stay fp32.
    """
    n = len(y)
    micro = math.ceil(n / recipe.grad_accum)
    total = 0.0
    for start in range(0, n, micro):
        xs, ys = x[start:start + micro], y[start:start + micro]
        with torch.autocast(device_type=xs.device.type, dtype=torch.bfloat16,
                            enabled=recipe.precision == "bf16"):
            loss = recipe.loss(recipe.model(xs), ys)
        weight = len(ys) / n
        (loss.float() * weight).backward()
        total += float(loss.detach()) * weight
    recipe.optimizer.step()
    return total


StepHook = Callable[[Progress, int], None]
#: One optimizer step on one global batch; returns the batch's mean loss.
StepFn = Callable[[Recipe, torch.Tensor, torch.Tensor], float]


def run_epochs(recipe: Recipe, data: Dataset, seed: int, progress: Progress,
               after_step: StepHook, after_epoch: StepHook,
               step_fn: StepFn = train_step, stopper: EarlyStopping | None = None) -> Progress:
    """Train from ``progress`` to the last epoch, calling the hooks after every step and epoch.

    The hooks checkpoint, report progress and react to signals; they must not touch any RNG.
    ``step_fn`` receives every *global* batch of the epoch's order; a distributed run passes one
    that trains on this process's share of it and returns the loss of the whole batch.
    With ``stopper``, the early-stopping state is updated from each epoch's validation metrics
    before ``after_epoch`` (so a checkpoint holds it) and training ends once it says stop.
    """
    train = data["train"]
    x_all, y_all = torch.from_numpy(train.x), torch.from_numpy(train.y)
    if progress.initial_loss is None:
        progress.initial_loss = float(evaluate(recipe, train).get("loss", float("nan")))
    total = recipe.epochs * steps_per_epoch(len(train.y), recipe.batch_size)
    while progress.epoch < recipe.epochs and not progress.stopped:
        batches = batch_order(len(train.y), recipe.batch_size, seed, progress.epoch)
        while progress.batch < len(batches):
            index = torch.from_numpy(batches[progress.batch])
            progress.loss_sum += step_fn(recipe, x_all[index], y_all[index])
            progress.batch += 1
            progress.step += 1
            after_step(progress, total)
        row: dict[str, Any] = {"epoch": progress.epoch + 1, "step": progress.step,
                               "train/loss": progress.loss_sum / len(batches)}
        row.update({f"val/{k}": v for k, v in evaluate(recipe, data["val"]).items()})
        if recipe.scheduler is not None:
            recipe.scheduler.step()
        progress.history.append(row)
        progress.epoch += 1
        progress.batch = 0
        progress.loss_sum = 0.0
        if stopper is not None:
            progress.stopping = stopper.update(progress.stopping, row, progress.epoch)
        after_epoch(progress, total)
    return progress


def final_evaluation(recipe: Recipe, data: Dataset) -> dict[str, dict[str, float]]:
    """Metrics on every split of the final model; the only time the test split is seen."""
    return {name: evaluate(recipe, data[name]) for name in ("train", "val", "test")}


def smoke_check(recipe: Recipe, data: Dataset, batches: int, overfit_steps: int) -> None:
    """A cheap check before the long run: a few real steps, an evaluation, finite losses.

    With ``overfit_steps`` the model must also be able to fit a single batch (its loss must fall
    below half of its starting value): a model that cannot overfit one batch will not learn.
    Raises RuntimeError with what went wrong; the caller builds a fresh model afterwards.
    """
    train = data["train"]
    order = batch_order(len(train.y), recipe.batch_size, 0, 0)
    for index in order[:batches]:
        loss = train_step(recipe, torch.from_numpy(train.x[index]), torch.from_numpy(train.y[index]))
        if not math.isfinite(loss):
            raise RuntimeError(f"smoke check: training loss is {loss} after one batch")
    metrics = evaluate(recipe, Split(data["val"].x[:64], data["val"].y[:64]))
    bad = {k: v for k, v in metrics.items() if not math.isfinite(v)}
    if bad:
        raise RuntimeError(f"smoke check: non-finite validation metrics {bad}")
    missing = set(recipe.directions) - set(metrics)
    if missing:
        raise RuntimeError(f"smoke check: metrics {sorted(missing)} are declared in "
                           f"Recipe.directions but not returned by Recipe.metrics")
    if overfit_steps:
        index = order[0]
        x, y = torch.from_numpy(train.x[index]), torch.from_numpy(train.y[index])
        first = train_step(recipe, x, y)
        last = first
        for _ in range(overfit_steps):
            last = train_step(recipe, x, y)
        if not last < 0.5 * first:
            raise RuntimeError(f"smoke check: cannot overfit one batch (loss {first:.4f} -> "
                               f"{last:.4f} after {overfit_steps} steps)")
