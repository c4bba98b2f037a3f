"""PyTorch Lightning through the own-loop contract: a user writes a ``LightningModule``, nothing else.

``fit(ctx, module, train_set, ...)`` is a whole ``train(ctx)``: it builds a quiet
``lightning.Trainer`` around four parts, each of which fixes something a Lightning project
otherwise gets silently wrong when a run is resumed:

* :class:`EngineCheckpointIO`, a ``CheckpointIO`` plugin: Lightning saves and loads checkpoint
  *files*, the engine takes and gives a dict. Saving hands Lightning's checkpoint dict to
  ``ctx.checkpoint`` (atomic, digest-verified, loaded with ``weights_only=True``); loading
  returns what ``ctx.restore()`` gave, under the path :data:`RESUME_PATH` that ``fit`` passes
  as ``ckpt_path``. Lightning's own ``ModelCheckpoint`` is switched off: a resume from its file
  would be one the engine never sees (counted and disclosed as "resumed outside the engine").
* :class:`EngineCallback`, a ``Checkpoint`` callback: it offers a checkpoint after every batch
  but an epoch's last (the cadence is the experiment's ``[checkpoint]``), and at the epoch's
  end *after* the module's ``on_train_epoch_end`` (Lightning runs checkpoint callbacks last
  there), so that a resume never skips an epoch-end hook; an offer after the last batch would
  resume past that hook and lose its row of metrics.jsonl. It logs every epoch's metrics
  (``trainer.callback_metrics``: what the module logged with ``self.log``) as one ``ctx.log`` row
  with ``epoch`` and ``step``, and re-installs the engine's SIGTERM handler over Lightning's, so
  that a SIGTERM writes a checkpoint at the next batch and the run stops INTERRUPTED.
* :class:`ResumableSampler`: the order of each epoch is a permutation drawn from (seed, epoch),
  and a resumed epoch skips the batches already done (Lightning restores its counters, not the
  data position of a plain ``DataLoader``).
* the ``DataLoader`` gets a ``generator=``: without one, every new iterator draws its base seed
  from the global RNG, a resumed run creates one iterator more, and dropout shifts.

Quiet defaults: no progress bar, no model summary, no logger files; the engine's run log keeps
whatever Lightning prints.
"""

from __future__ import annotations

import logging
import math
import signal
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import lightning.pytorch as pl
import torch
from lightning.fabric.plugins import CheckpointIO
from lightning.pytorch.callbacks import Checkpoint
from torch.utils.data import DataLoader, Dataset, Sampler

#: The ``ckpt_path`` under which ``fit`` asks Lightning to resume; it names no file: the plugin
#: answers it with the state ``ctx.restore()`` returned.
RESUME_PATH = "evidence-engine-checkpoint"


def plain(value: Any) -> Any:
    """``value`` in the types ``torch.load(weights_only=True)`` accepts: mappings become dicts
    (Lightning's ``AttributeDict`` hyper-parameters), tuples and lists keep their kind."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value


class EngineCheckpointIO(CheckpointIO):
    """Lightning's checkpoint files, mapped to ``ctx.checkpoint`` and ``ctx.restore``."""

    def __init__(self, ctx: Any, restored: dict[str, Any] | None) -> None:
        self.ctx = ctx
        self.restored = restored

    def save_checkpoint(self, checkpoint: dict[str, Any], path: Any, storage_options: Any = None) -> None:
        self.ctx.checkpoint(plain(checkpoint), int(checkpoint["global_step"]), force=True)

    def load_checkpoint(self, path: Any, map_location: Any = None,
                        weights_only: Any = None) -> dict[str, Any]:
        if self.restored is None or str(path) != RESUME_PATH:
            raise ValueError(f"{path}: a run trained through evidence resumes only from the engine's "
                             "checkpoint (ctx.restore()), not from a file")
        return self.restored

    def remove_checkpoint(self, path: Any) -> None:
        """Nothing to remove: the engine keeps and prunes its own checkpoints."""


class EngineCallback(Checkpoint):
    """Per-batch checkpoint offers, the epoch-end offer after the module's hook, metric rows.

    A mid-epoch checkpoint also holds what the module has logged so far this epoch
    (``self.log(..., on_epoch=True)`` sums and counts, which Lightning does not checkpoint):
    after a resume they are added back after the first batch, in the order an uninterrupted
    run adds them, so the epoch's row of metrics.jsonl is bit-identical.
    """

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.engine_sigterm = signal.getsignal(signal.SIGTERM)  # the engine's, before Lightning's
        self.trainer: pl.Trainer | None = None
        self.at_epoch_end = False
        self.pending: dict[str, dict[str, torch.Tensor]] = {}

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        self.trainer = trainer

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if callable(self.engine_sigterm):  # Lightning registered its own handler in fit()
            signal.signal(signal.SIGTERM, self.engine_sigterm)

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any,
                           batch: Any, batch_idx: int) -> None:
        if self.pending:
            self._add_restored_sums(trainer)
        if batch_idx + 1 >= trainer.num_training_batches:
            return  # the epoch's end is offered in on_train_epoch_end, after its hooks
        self._offer(trainer)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()
                   if not k.endswith("_step") and _number(v)}
        self.ctx.log(trainer.global_step, epoch=trainer.current_epoch + 1, **metrics)
        self.at_epoch_end = True
        try:
            self._offer(trainer)
        finally:
            self.at_epoch_end = False

    def state_dict(self) -> dict[str, Any]:
        if self.trainer is None or self.at_epoch_end:
            return {"epoch_sums": {}}
        sums = {}
        for key, metric in self.trainer.fit_loop.epoch_loop._results.items():
            if metric.is_tensor and metric.meta.on_epoch:
                entry = {"value": metric.value.detach().clone()}
                if metric.meta.is_mean_reduction:
                    entry["cumulated_batch_size"] = metric.cumulated_batch_size.detach().clone()
                sums[key] = entry
        return {"epoch_sums": sums}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.pending = dict(state_dict.get("epoch_sums", {}))

    def _add_restored_sums(self, trainer: pl.Trainer) -> None:
        results = trainer.fit_loop.epoch_loop._results
        for key, saved in self.pending.items():
            metric = results.get(key)
            if metric is None or not metric.is_tensor:
                continue
            if metric.meta.is_mean_reduction:
                metric.value = saved["value"] + metric.value
                metric.cumulated_batch_size = saved["cumulated_batch_size"] + metric.cumulated_batch_size
            elif metric.meta.is_max_reduction or metric.meta.is_min_reduction:
                metric.value = metric.meta.reduce_fx(saved["value"], metric.value)
            elif metric.meta.is_sum_reduction:
                metric.value = saved["value"] + metric.value
        self.pending = {}

    def _offer(self, trainer: pl.Trainer) -> None:
        self.ctx.checkpoint(lambda: self._state(trainer), int(trainer.global_step))

    @staticmethod
    def _state(trainer: pl.Trainer) -> dict[str, Any]:
        return plain(trainer._checkpoint_connector.dump_checkpoint(weights_only=False))


def _number(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


class ResumableSampler(Sampler[int]):
    """Each epoch a permutation drawn from (seed, epoch); a resumed epoch skips its done batches.

    Lightning calls ``set_epoch`` before every epoch. ``skip`` (set by :func:`fit` from the
    restored loop counters) is the number of samples of the resumed epoch already trained on.
    """

    def __init__(self, size: int, seed: int, shuffle: bool = True) -> None:
        self.size = size
        self.seed = seed
        self.shuffle = shuffle
        self.epoch = 0
        self.skip: dict[int, int] = {}

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def order(self, epoch: int) -> list[int]:
        if not self.shuffle:
            return list(range(self.size))
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + epoch)
        return torch.randperm(self.size, generator=generator).tolist()

    def __iter__(self) -> Iterator[int]:
        return iter(self.order(self.epoch)[self.skip.pop(self.epoch, 0):])

    def __len__(self) -> int:
        return self.size


def loader(data: Dataset[Any] | Sequence[Any], batch_size: int, seed: int, *, shuffle: bool = True,
           **kwargs: Any) -> DataLoader[Any]:
    """A ``DataLoader`` over ``data`` with a :class:`ResumableSampler` and a ``generator=``."""
    size = len(data)  # type: ignore[arg-type]
    return DataLoader(data, batch_size=batch_size,  # type: ignore[arg-type]
                      sampler=ResumableSampler(size, seed, shuffle),
                      generator=torch.Generator().manual_seed(seed), **kwargs)


def skip_done_batches(restored: dict[str, Any], train_data: DataLoader[Any]) -> None:
    """Tell ``train_data``'s :class:`ResumableSampler` how much of the restored epoch is done
    (Lightning restores its batch counters, and iterates the loader from its start)."""
    loops = restored.get("loops", {}).get("fit_loop", {})
    done = int(loops.get("epoch_loop.batch_progress", {}).get("current", {}).get("processed", 0))
    epoch = int(loops.get("epoch_progress", {}).get("current", {}).get("processed", 0))
    sampler = train_data.sampler
    batch_size = int(train_data.batch_size or 1)
    if isinstance(sampler, ResumableSampler) and 0 < done < math.ceil(len(sampler) / batch_size):
        sampler.skip[epoch] = done * batch_size


#: Trainer settings ``fit`` sets unless the caller passes its own.
QUIET = {"enable_progress_bar": False, "enable_model_summary": False, "logger": False,
         "deterministic": True, "accelerator": "cpu", "devices": 1, "num_sanity_val_steps": 0}


def fit(ctx: Any, module: pl.LightningModule, train_data: DataLoader[Any], val_data: Any = None, *,
        callbacks: Sequence[pl.Callback] = (), **trainer_kwargs: Any) -> pl.Trainer:
    """Train ``module`` on ``train_data`` (a :func:`loader`) through the engine; the fitted Trainer.

    ``trainer_kwargs`` go to ``lightning.Trainer`` (``max_epochs`` at least) over
    :data:`QUIET`; ``enable_checkpointing`` and ``plugins`` are the engine's.
    """
    for forbidden in ("enable_checkpointing", "plugins", "default_root_dir"):
        if forbidden in trainer_kwargs:
            raise ValueError(f"evidence.integrations.lightning.fit: {forbidden}= is set by the engine")
    sampler = getattr(train_data, "sampler", None)
    if not isinstance(sampler, ResumableSampler) or getattr(train_data, "generator", None) is None:
        raise ValueError("evidence.integrations.lightning.fit: the training DataLoader must come from "
                         "evidence.integrations.lightning.loader(...) (a resumable sampler and a "
                         "generator=), or a resumed run would see other data")
    restored = ctx.restore()
    if restored is not None:
        skip_done_batches(restored, train_data)
    settings = {**QUIET, **trainer_kwargs}
    for name in ("lightning.pytorch", "lightning.fabric"):  # start-up chatter: the run log has room
        logging.getLogger(name).setLevel(logging.WARNING)
    with warnings.catch_warnings():
        # the sampler resumes mid-epoch (ResumableSampler), which Lightning cannot see
        warnings.filterwarnings("ignore", message=".*resuming from a checkpoint that ended before")
        warnings.filterwarnings("ignore", message=".*isinstance\\(treespec, LeafSpec\\)")  # Lightning's own
        trainer = pl.Trainer(enable_checkpointing=True, plugins=[EngineCheckpointIO(ctx, restored)],
                             callbacks=[*callbacks, EngineCallback(ctx)],
                             default_root_dir=str(ctx.directory), **settings)
        trainer.fit(module, train_dataloaders=train_data, val_dataloaders=val_data,
                    ckpt_path=RESUME_PATH if restored is not None else None)
    return trainer


def train(ctx: Any, module: pl.LightningModule, *, epochs: int, batch_size: int,
          **trainer_kwargs: Any) -> dict[str, Any]:
    """A whole ``train(ctx)`` for a classifier: ``module`` (its ``forward`` gives logits) trained
    on ``ctx.data["train"]`` for ``epochs``; returns accuracy and loss on every split."""
    from torch.utils.data import TensorDataset

    from evidence.integrations import scores

    data = TensorDataset(torch.as_tensor(ctx.data["train"].x), torch.as_tensor(ctx.data["train"].y))
    trainer = fit(ctx, module, loader(data, batch_size, ctx.seed), max_epochs=epochs, **trainer_kwargs)
    return scores.finish(module, ctx, epochs=epochs, steps=trainer.global_step)


def evaluate(module: torch.nn.Module, weights: dict[str, Any], ctx: Any) -> dict[str, dict[str, float]]:
    """Accuracy and loss of ``module`` with ``weights`` on every split (the verify-by-load hook)."""
    from evidence.integrations import scores

    return scores.evaluate(module, weights, ctx)
