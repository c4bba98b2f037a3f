"""Trainers of the integration tests: Lightning and Hugging Face projects, good and subtly wrong.

The interrupting trainers stop *themselves* with a real signal at a chosen place (``INTERRUPT``
in the environment: ``term@mid``, ``kill@end`` ..., each fired once, recorded in a marker
file), so that a test can hit "mid-epoch" and "at an epoch boundary" exactly; the environment
is not part of the run key, so the interrupted run and the reference have the same key.
"""

from __future__ import annotations

import importlib.util

import pytest

needs_lightning = pytest.mark.skipif(importlib.util.find_spec("lightning") is None,
                                     reason="lightning is not installed (pip install evidence[lightning])")
needs_transformers = pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None or importlib.util.find_spec("accelerate") is None,
    reason="transformers/accelerate are not installed (pip install evidence[hf])")

# Shared by the interrupting trainers: fire the next pending interruption when ``where`` (mid:
# after the 2nd batch of epoch 2; end: after epoch 2's last batch) and ``when`` (before: the
# signal arrives before the engine's offer at that place; after: once that offer was written).
INTERRUPTS = '''
import os
import signal
from pathlib import Path


def interrupt(where, when):
    """Send this process the next pending signal of INTERRUPT=kind@where,... at ``where``."""
    marks = Path(os.environ.get("INTERRUPT_MARKS", "/nonexistent"))
    for item in filter(None, os.environ.get("INTERRUPT", "").split(",")):
        kind, at = item.split("@")
        mark = marks / item
        if mark.exists():
            continue
        if at != where or (kind == "term") != (when == "before"):
            return
        mark.write_text("fired")
        os.kill(os.getpid(), signal.SIGTERM if kind == "term" else signal.SIGKILL)
        return
'''

# A LightningModule with dropout, trained through evidence.integrations.lightning; hooks that
# interrupt the run where the test asks (only in the real run: the probe sees 64 samples).
LIGHTNING_TRAINER = INTERRUPTS + '''
import lightning.pytorch as pl
import torch
from torch import nn

from evidence.integrations import lightning as integration


class Model(pl.LightningModule):
    def __init__(self, n_features, n_classes, hidden, lr):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Dropout(0.3),
                                 nn.Linear(hidden, n_classes))
        self.lr = lr
        self.real = False

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train/loss", loss, on_step=False, on_epoch=True)
        if self.real and self.current_epoch >= 1 and batch_idx == 1:
            interrupt("mid", "before")
        return loss

    def on_train_batch_start(self, batch, batch_idx):
        if self.real and self.current_epoch >= 1 and batch_idx == 2:
            interrupt("mid", "after")

    def on_train_epoch_end(self):
        if self.real and self.current_epoch >= 1:
            interrupt("end", "before")

    def on_train_epoch_start(self):
        if self.real and self.current_epoch >= 2:
            interrupt("end", "after")

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.lr)
        return {"optimizer": optimizer,
                "lr_scheduler": torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)}


def make_model(ctx):
    torch.manual_seed(ctx.seed)
    return Model(ctx.info.n_features, ctx.info.n_classes, int(ctx.config["hidden"]),
                 float(ctx.config["lr"]))


def train(ctx):
    model = make_model(ctx)
    model.real = len(ctx.data["train"].y) > 64
    return integration.train(ctx, model, epochs=int(ctx.config["epochs"]),
                             batch_size=int(ctx.config["batch_size"]))


def evaluate(weights, ctx):
    return integration.evaluate(make_model(ctx), weights, ctx)
'''

EXPERIMENT = '''
trainer = "{trainer}"
seeds = [0]
[data]
dataset = "iris"
[config]
epochs = 4
batch_size = 16
hidden = 16
lr = 0.05
[checkpoint]
every_steps = {every_steps}
every_seconds = 0
{smoke}
'''

# A hand-written loop with dropout whose DataLoader has a seeded order but no generator=: each
# new iterator draws its base seed from the global RNG, so a resumed epoch shifts dropout.
NO_GENERATOR_LOOP = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_model(ctx):
    torch.manual_seed(ctx.seed)
    return nn.Sequential(nn.Linear(ctx.info.n_features, 16), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(16, ctx.info.n_classes))


def train(ctx):
    model = make_model(ctx)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    epoch, batch, step = 0, 0, 0
    state = ctx.restore()
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        epoch, batch, step = state["epoch"], state["batch"], state["step"]
    data = TensorDataset(torch.from_numpy(ctx.data["train"].x), torch.from_numpy(ctx.data["train"].y))
    while epoch < 4:
        order = torch.randperm(len(data), generator=torch.Generator().manual_seed(ctx.seed * 1000 + epoch))
        for index, (x, y) in enumerate(DataLoader(data, batch_size=16, sampler=order.tolist())):
            if index < batch:
                continue
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            step += 1
            ctx.checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": epoch, "batch": index + 1, "step": step}, step)
        epoch, batch = epoch + 1, 0
        ctx.log(step, epoch=epoch)
    with torch.no_grad():
        model.eval()
        acc = {s: float((model(torch.from_numpy(ctx.data[s].x)).argmax(1)
                         == torch.from_numpy(ctx.data[s].y)).double().mean())
               for s in ("train", "val", "test")}
    return {"weights": model.state_dict(), "metrics": {"accuracy": acc}, "directions": {"accuracy": "higher"},
            "selection_metric": "accuracy", "epochs": 4, "steps": step}
'''

# Lightning glue as a user first writes it: the engine's CheckpointIO and sampler, but a plain
# callback offering a checkpoint after *every* batch (the epoch's last too), and the epoch's row
# logged in the module's on_train_epoch_end, which a resume from that last checkpoint skips.
LAST_BATCH_GLUE = '''
import lightning.pytorch as pl
import torch
from torch import nn
from torch.utils.data import TensorDataset

from evidence.integrations import lightning as integration


class Model(pl.LightningModule):
    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx
        self.net = nn.Linear(ctx.info.n_features, ctx.info.n_classes)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self.net(x), y)

    def on_train_epoch_end(self):
        self.ctx.log(self.trainer.global_step, epoch=self.current_epoch + 1)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


class EveryBatch(pl.Callback):
    def __init__(self, ctx):
        self.ctx = ctx

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.ctx.checkpoint(lambda: integration.plain(trainer._checkpoint_connector.dump_checkpoint()),
                            trainer.global_step)


def train(ctx):
    torch.manual_seed(ctx.seed)
    model = Model(ctx)
    data = TensorDataset(torch.from_numpy(ctx.data["train"].x), torch.from_numpy(ctx.data["train"].y))
    loader = integration.loader(data, 16, ctx.seed)
    state = ctx.restore()
    if state is not None:
        integration.skip_done_batches(state, loader)
    trainer = pl.Trainer(max_epochs=4, plugins=[integration.EngineCheckpointIO(ctx, state)],
                         callbacks=[EveryBatch(ctx)], enable_checkpointing=False, logger=False,
                         enable_progress_bar=False, enable_model_summary=False, deterministic=True)
    trainer.fit(model, loader, ckpt_path=integration.RESUME_PATH if state is not None else None)
    return {"weights": model.state_dict(), "metrics": {"loss": {"train": 0.0, "val": 0.0, "test": 0.0}},
            "directions": {"loss": "lower"}, "selection_metric": "loss", "epochs": 4}
'''

# The hurried path: Lightning's own ModelCheckpoint in ctx.directory and ckpt_path="last"; the
# engine neither writes nor restores anything.
HURRIED_PATH = INTERRUPTS + '''
import lightning.pytorch as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from lightning.pytorch.callbacks import ModelCheckpoint


class Model(pl.LightningModule):
    def __init__(self, ctx):
        super().__init__()
        self.net = nn.Linear(ctx.info.n_features, ctx.info.n_classes)
        self.real = len(ctx.data["train"].y) > 64

    def training_step(self, batch, batch_idx):
        x, y = batch
        if self.real and self.current_epoch >= 1 and batch_idx == 2:
            interrupt("mid", "after")
        return nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def train(ctx):
    torch.manual_seed(ctx.seed)
    model = Model(ctx)
    data = TensorDataset(torch.from_numpy(ctx.data["train"].x), torch.from_numpy(ctx.data["train"].y))
    saver = ModelCheckpoint(dirpath=ctx.directory, save_last=True, every_n_train_steps=1)
    trainer = pl.Trainer(max_epochs=4, callbacks=[saver], logger=False, enable_progress_bar=False)
    last = ctx.directory / "last.ckpt"
    trainer.fit(model, DataLoader(data, batch_size=16, shuffle=True),
                ckpt_path=str(last) if last.exists() else None)
    return {"weights": model.state_dict(), "metrics": {"loss": {"train": 0.0, "val": 0.0, "test": 0.0}},
            "directions": {"loss": "lower"}, "selection_metric": "loss", "epochs": 4}
'''

# A classifier with dropout trained by transformers.Trainer through evidence.integrations.hf, and
# a callback (before the engine's) that interrupts the run where the test asks.
HF_TRAINER = INTERRUPTS + '''
import torch
from torch import nn
from transformers import TrainerCallback

from evidence.integrations import hf


class Interrupting(TrainerCallback):
    def __init__(self, steps_per_epoch):
        self.per = steps_per_epoch

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step > self.per and state.global_step % self.per == 2:
            interrupt("mid", "before")

    def on_step_begin(self, args, state, control, **kwargs):
        if state.global_step > self.per and state.global_step % self.per == 2:
            interrupt("mid", "after")

    def on_epoch_end(self, args, state, control, **kwargs):
        if state.global_step >= 2 * self.per:
            interrupt("end", "before")

    def on_epoch_begin(self, args, state, control, **kwargs):
        if state.global_step >= 2 * self.per:
            interrupt("end", "after")


def make_model(ctx):
    torch.manual_seed(ctx.seed)
    return nn.Sequential(nn.Linear(ctx.info.n_features, 16), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(16, ctx.info.n_classes))


def train(ctx):
    n, batch = len(ctx.data["train"].y), int(ctx.config["batch_size"])
    callbacks = [Interrupting(-(-n // batch))] if n > 64 else []
    return hf.train(ctx, make_model(ctx), epochs=int(ctx.config["epochs"]), batch_size=batch,
                    learning_rate=float(ctx.config["lr"]), callbacks=callbacks)


def evaluate(weights, ctx):
    return hf.evaluate(make_model(ctx), weights, ctx)
'''

# A tiny BERT built from a config (nothing downloaded) on iris as tokens: each feature binned into
# one of 32 token ids; trained by transformers.Trainer through evidence.integrations.hf.fit.
TINY_BERT_TRAINER = '''
import torch
from transformers import BertConfig, BertForSequenceClassification

from evidence.integrations import hf


class Tokens(torch.utils.data.Dataset):
    def __init__(self, split):
        x = torch.as_tensor(split.x)
        lo, hi = x.min(0).values, x.max(0).values
        self.ids = ((x - lo) / (hi - lo + 1e-9) * 31).long().clamp(0, 31)
        self.y = torch.as_tensor(split.y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.y[i]}


def make_model(ctx):
    torch.manual_seed(ctx.seed)
    config = BertConfig(vocab_size=32, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=8, num_labels=ctx.info.n_classes)
    return BertForSequenceClassification(config)


@torch.no_grad()
def scores(model, ctx):
    model.eval()
    out = {}
    for split in ("train", "val", "test"):
        data = Tokens(ctx.data[split])
        logits = model(input_ids=data.ids).logits
        out[split] = float((logits.argmax(1) == data.y).double().mean())
    model.train()
    return {"accuracy": out}


def train(ctx):
    model = make_model(ctx)
    trainer = hf.fit(ctx, model, Tokens(ctx.data["train"]), num_train_epochs=int(ctx.config["epochs"]),
                     per_device_train_batch_size=int(ctx.config["batch_size"]), learning_rate=1e-3)
    return {"weights": model.state_dict(), "metrics": scores(model, ctx),
            "directions": {"accuracy": "higher"}, "selection_metric": "accuracy",
            "epochs": int(ctx.config["epochs"]), "steps": trainer.state.global_step}


def evaluate(weights, ctx):
    model = make_model(ctx)
    model.load_state_dict(weights)
    return scores(model, ctx)
'''
