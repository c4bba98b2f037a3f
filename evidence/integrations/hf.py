"""The Hugging Face ``transformers.Trainer`` through the own-loop contract.

The Trainer resumes from a checkpoint *folder* (``resume_from_checkpoint``: weights, optimizer,
scheduler, RNG states, ``trainer_state.json``) and restores exactly what it saved, data position
included. So the engine keeps that folder, not a re-implementation of it:

* :class:`EngineCallback`, a ``TrainerCallback``, asks ``ctx.checkpoint_due`` after every step
  (the experiment's ``[checkpoint]`` cadence, or a signal) and sets ``control.should_save``; in
  ``on_save`` it hands the folder the Trainer just wrote to ``ctx.checkpoint`` (its files as
  byte tensors: atomic, digest-verified, loaded with ``weights_only=True``) and removes it. An
  epoch's last step is not offered there but after the epoch's end and its log row: a resume
  from a checkpoint of the last step starts the next epoch and would lose that epoch's row.
* the running loss the Trainer averages between two log rows is not in its checkpoint; the
  callback adds it, and puts it back at ``on_train_begin`` of a resumed run, so the row of a
  resumed epoch is bit-identical.
* on a resume, :func:`fit` writes what ``ctx.restore()`` returned back into a folder under
  ``ctx.directory`` and passes it as ``resume_from_checkpoint``.
* every log row (``logging_strategy = "epoch"`` by default) becomes a ``ctx.log`` row with an
  integer ``epoch``; ``loss`` is named ``train/loss``; the Trainer's timing summary is left out
  (it differs between runs).

Quiet defaults: no progress bars, no report_to integrations, no saving by the Trainer itself.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import Trainer, TrainerCallback, TrainingArguments

#: Files of the Trainer's checkpoint folder the engine does not keep: the pickled
#: TrainingArguments (its paths differ between attempts, and a resume never reads it).
NOT_KEPT = ("training_args.bin",)
#: Log keys that measure time or throughput: they differ between any two runs.
TIMING = ("runtime", "per_second", "total_flos")


class EngineCallback(TrainerCallback):
    """Checkpoint offers and log rows for the engine (see the module docstring)."""

    def __init__(self, ctx: Any, restored_extra: dict[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.trainer: Trainer | None = None
        self.restored_extra = restored_extra
        self.steps_per_epoch = 0

    def on_train_begin(self, args: TrainingArguments, state: Any, control: Any, **kwargs: Any) -> None:
        loader = kwargs.get("train_dataloader")
        accumulation = max(1, int(args.gradient_accumulation_steps))
        self.steps_per_epoch = max(1, len(loader) // accumulation) if loader is not None else 0
        if self.restored_extra is not None and self.trainer is not None:
            self.trainer._tr_loss = self.restored_extra["tr_loss"].to(args.device)
            self.trainer._globalstep_last_logged = int(self.restored_extra["last_logged"])

    def on_step_end(self, args: TrainingArguments, state: Any, control: Any, **kwargs: Any) -> None:
        if self.steps_per_epoch and state.global_step % self.steps_per_epoch == 0:
            return  # the epoch's end is offered after its row (on_epoch_end)
        if self.ctx.checkpoint_due(state.global_step):
            control.should_save = True

    def on_epoch_end(self, args: TrainingArguments, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step < state.max_steps and self.ctx.checkpoint_due(state.global_step):
            control.should_save = True

    def on_log(self, args: TrainingArguments, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> None:
        logs = dict(logs or {})
        if any(word in key for key in logs for word in TIMING):
            return  # the Trainer's closing summary
        row: dict[str, Any] = {}
        for key, value in logs.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                continue
            row["train/loss" if key == "loss" else key] = value
        if "epoch" in row:
            epoch = float(row["epoch"])
            row["epoch"] = round(epoch) if abs(epoch - round(epoch)) < 1e-6 else epoch
        self.ctx.log(state.global_step, **row)

    def on_save(self, args: TrainingArguments, state: Any, control: Any, **kwargs: Any) -> None:
        folder = Path(str(args.output_dir)) / f"checkpoint-{state.global_step}"
        try:
            files = {str(p.relative_to(folder)): _bytes(p) for p in sorted(folder.rglob("*"))
                     if p.is_file() and p.name not in NOT_KEPT}
            assert self.trainer is not None
            extra = {"tr_loss": self.trainer._tr_loss.detach().cpu().clone(),
                     "last_logged": int(self.trainer._globalstep_last_logged)}
            self.ctx.checkpoint({"files": files, "extra": extra}, state.global_step, force=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _bytes(path: Path) -> torch.Tensor:
    return torch.frombuffer(bytearray(path.read_bytes()), dtype=torch.uint8)


def restore_folder(restored: dict[str, Any], directory: Path) -> Path:
    """Write the checkpoint folder ``restored`` holds under ``directory``; its path."""
    folder = directory / "resume" / "checkpoint"
    if folder.exists():
        shutil.rmtree(folder)
    for name, data in restored["files"].items():
        target = (folder / name).resolve()
        if folder.resolve() not in target.parents:
            raise ValueError(f"checkpoint file {name!r} would be written outside {folder}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.numpy().tobytes())
    return folder


#: TrainingArguments ``fit`` sets unless the caller passes its own.
QUIET = {"disable_tqdm": True, "report_to": "none", "logging_strategy": "epoch",
         "dataloader_num_workers": 0}


def fit(ctx: Any, model: nn.Module, train_dataset: Any, *, eval_dataset: Any = None,
        trainer_class: type[Trainer] = Trainer, callbacks: list[TrainerCallback] | None = None,
        **training_args: Any) -> Trainer:
    """Train ``model`` with a ``transformers.Trainer`` through the engine; the trained Trainer.

    ``training_args`` go to ``TrainingArguments`` over :data:`QUIET` (``num_train_epochs``,
    ``per_device_train_batch_size``, ``learning_rate`` ...); ``output_dir``, ``save_strategy``
    and ``seed`` are the engine's.
    """
    for forbidden in ("output_dir", "save_strategy", "seed", "data_seed"):
        if forbidden in training_args:
            raise ValueError(f"evidence.integrations.hf.fit: {forbidden}= is set by the engine")
    restored = ctx.restore()
    resume = restore_folder(restored, Path(ctx.directory)) if restored is not None else None
    settings = {**QUIET, "use_cpu": torch.device(ctx.device).type == "cpu", **training_args}
    args = TrainingArguments(output_dir=str(Path(ctx.directory) / "trainer"), save_strategy="no",
                             seed=int(ctx.seed), **settings)
    callback = EngineCallback(ctx, restored["extra"] if restored is not None else None)
    trainer = trainer_class(model=model, args=args, train_dataset=train_dataset, eval_dataset=eval_dataset,
                            callbacks=[*(callbacks or []), callback])
    callback.trainer = trainer
    trainer.train(resume_from_checkpoint=str(resume) if resume is not None else None)
    return trainer


class Classifier(nn.Module):
    """A module giving logits, wrapped for the Trainer: ``forward(x, labels)`` -> loss and logits."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        logits = self.module(x)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(logits, labels)
        return out


class Rows(torch.utils.data.Dataset[dict[str, torch.Tensor]]):
    """A split of ``ctx.data`` as the Trainer's dicts: ``{"x": features, "labels": class}``."""

    def __init__(self, split: Any) -> None:
        self.x = torch.as_tensor(split.x)
        self.y = torch.as_tensor(split.y)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {"x": self.x[index], "labels": self.y[index]}


def train(ctx: Any, module: nn.Module, *, epochs: int, batch_size: int, learning_rate: float,
          **training_args: Any) -> dict[str, Any]:
    """A whole ``train(ctx)`` for a classifier ``module`` (giving logits) on ``ctx.data``."""
    from evidence.integrations import scores

    model = Classifier(module)
    trainer = fit(ctx, model, Rows(ctx.data["train"]), num_train_epochs=epochs,
                  per_device_train_batch_size=batch_size, learning_rate=learning_rate, **training_args)
    return scores.finish(module, ctx, epochs=epochs, steps=int(trainer.state.global_step))


def evaluate(module: nn.Module, weights: dict[str, Any], ctx: Any) -> dict[str, dict[str, float]]:
    """Accuracy and loss of ``module`` with ``weights`` on every split (the verify-by-load hook)."""
    from evidence.integrations import scores

    return scores.evaluate(module, weights, ctx)
