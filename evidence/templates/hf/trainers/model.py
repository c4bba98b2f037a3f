"""Your model, trained by the Hugging Face Trainer through the engine (docs/contracts.md, "Your own loop").

You write the model (a torch module giving logits); evidence.integrations.hf runs it with a
transformers.Trainer: checkpoints through the engine (bit-identical resume after SIGTERM or
SIGKILL), metrics.jsonl rows from the Trainer's logs, quiet output, and the resume self-check
before the long run. Needs `pip install evidence[hf]`.
"""

from typing import Any

import torch
from torch import nn

from evidence.integrations import hf


def make_model(ctx: Any) -> nn.Module:
    torch.manual_seed(ctx.seed)
    hidden = int(ctx.config["hidden"])
    return nn.Sequential(nn.Linear(ctx.info.n_features, hidden), nn.ReLU(),
                         nn.Dropout(float(ctx.config["dropout"])), nn.Linear(hidden, ctx.info.n_classes))


def train(ctx: Any) -> dict[str, Any]:
    return hf.train(ctx, make_model(ctx), epochs=int(ctx.config["epochs"]),
                    batch_size=int(ctx.config["batch_size"]), learning_rate=float(ctx.config["lr"]))


def evaluate(weights: dict[str, torch.Tensor], ctx: Any) -> dict[str, dict[str, float]]:
    return hf.evaluate(make_model(ctx), weights, ctx)
