"""Your model, trained by PyTorch Lightning through the engine (docs/contracts.md, "Your own loop").

You write the LightningModule; evidence.integrations.lightning does the rest: checkpoints through
the engine (bit-identical resume after SIGTERM or SIGKILL), a resumable data order, metrics.jsonl
rows from what you `self.log`, quiet output, and the resume self-check before the long run.
Needs `pip install evidence[lightning]`.
"""

from typing import Any

import lightning.pytorch as pl
import torch
from torch import nn

from evidence.integrations import lightning as integration


class Model(pl.LightningModule):
    def __init__(self, n_features: int, n_classes: int, hidden: int, dropout: float, lr: float) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, n_classes))
        self.lr = lr

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train/loss", loss, on_step=False, on_epoch=True)
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.AdamW(self.parameters(), lr=self.lr)


def make_model(ctx: Any) -> Model:
    torch.manual_seed(ctx.seed)
    c = ctx.config
    return Model(ctx.info.n_features, ctx.info.n_classes, int(c["hidden"]), float(c["dropout"]),
                 float(c["lr"]))


def train(ctx: Any) -> dict[str, Any]:
    return integration.train(ctx, make_model(ctx), epochs=int(ctx.config["epochs"]),
                             batch_size=int(ctx.config["batch_size"]))


def evaluate(weights: dict[str, torch.Tensor], ctx: Any) -> dict[str, dict[str, float]]:
    return integration.evaluate(make_model(ctx), weights, ctx)
