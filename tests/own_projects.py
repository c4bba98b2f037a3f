"""The edits a user makes to an `evidence init` project for their own data and their own loop.

Shared by the tests of :mod:`evidence.numerics.loaders` and :mod:`evidence.train.ownloop`: the
image project is `evidence init` (the default template) plus exactly these files and the one
`[data]` line, as docs/contracts.md describes them.
"""

from __future__ import annotations

from pathlib import Path

# datasets/digits_png.py: PNG files in one folder per class, decoded with Pillow.
PNG_LOADER = '''
"""Handwritten digits as PNG files: data/images/<class>/<n>.png (8x8 grey)."""

from pathlib import Path

import numpy as np
from PIL import Image

FILES = ["data/images"]
TASK = "classification"


def load(root: Path):
    paths = sorted((root / "data" / "images").glob("*/*.png"))
    x = np.stack([np.asarray(Image.open(p), dtype=np.float32)[None] / 255.0 for p in paths])
    y = np.array([int(p.parent.name) for p in paths], dtype=np.int64)
    return x, y
'''

# trainers/model.py: a small CNN trained by a hand-written loop over a torch DataLoader.
OWN_LOOP_TRAINER = '''
"""A small CNN, trained by our own loop through a torch DataLoader (the train(ctx) contract)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_model(ctx):
    torch.manual_seed(ctx.seed)
    channels = int(ctx.config.get("channels", 8))
    side = ctx.info.input_shape[-1]
    return nn.Sequential(nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(channels * (side // 2) ** 2, ctx.info.n_classes))


@torch.no_grad()
def scores(model, ctx):
    model.eval()
    out = {}
    for split in ("train", "val", "test"):
        x = torch.from_numpy(ctx.data[split].x)
        y = torch.from_numpy(ctx.data[split].y)
        logits = model(x)
        out[split] = {"accuracy": float((logits.argmax(1) == y).double().mean()),
                      "loss": float(nn.functional.cross_entropy(logits, y))}
    model.train()
    return {m: {s: out[s][m] for s in out} for m in ("accuracy", "loss")}


def train(ctx):
    model = make_model(ctx)
    optimizer = torch.optim.SGD(model.parameters(), lr=float(ctx.config["lr"]), momentum=0.9)
    epoch, batch, step = 0, 0, 0
    state = ctx.restore()
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        epoch, batch, step = state["epoch"], state["batch"], state["step"]
    train_set = TensorDataset(torch.from_numpy(ctx.data["train"].x),
                              torch.from_numpy(ctx.data["train"].y))
    epochs = int(ctx.config["epochs"])
    while epoch < epochs:
        order = torch.Generator().manual_seed(ctx.seed * 1000 + epoch)
        loader = DataLoader(train_set, batch_size=int(ctx.config["batch_size"]), shuffle=True,
                            generator=order)
        for index, (x, y) in enumerate(loader):
            if index < batch:
                continue  # done before the checkpoint we resumed from
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            ctx.checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": epoch, "batch": index + 1, "step": step}, step)
        epoch, batch = epoch + 1, 0
        ctx.log(step, epoch=epoch, **{"val/accuracy": scores(model, ctx)["accuracy"]["val"]})
        ctx.checkpoint({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch, "batch": 0, "step": step}, step, force=True)
    return {"weights": model.state_dict(), "metrics": scores(model, ctx),
            "directions": {"accuracy": "higher", "loss": "lower"},
            "selection_metric": "accuracy", "epochs": epochs, "steps": step}


def evaluate(weights, ctx):
    model = make_model(ctx)
    model.load_state_dict(weights)
    return scores(model, ctx)
'''


def write_png_digits(root: Path, n: int = 400) -> None:
    """data/images/<class>/<i>.png from scikit-learn's 8x8 digits (real images a package ships)."""
    import numpy as np
    from PIL import Image
    from sklearn.datasets import load_digits

    digits = load_digits()
    for i in range(n):
        folder = root / "data" / "images" / str(int(digits.target[i]))
        folder.mkdir(parents=True, exist_ok=True)
        pixels = np.round(digits.images[i] * (255 / 16)).astype(np.uint8)
        Image.fromarray(pixels, mode="L").save(folder / f"{i:04d}.png")


def make_image_project(root: Path, *, every_steps: int = 0) -> None:
    """The documented edits to a fresh `evidence init` project (default template)."""
    (root / "datasets").mkdir(exist_ok=True)
    (root / "datasets" / "digits_png.py").write_text(PNG_LOADER.lstrip(), encoding="utf-8")
    (root / "trainers" / "model.py").write_text(OWN_LOOP_TRAINER.lstrip(), encoding="utf-8")
    write_png_digits(root)
    experiment = root / "experiments" / "main.toml"
    text = experiment.read_text("utf-8")
    text = text.replace('dataset = "breast_cancer"', 'dataset = "digits_png"')
    if every_steps:
        text = text.replace("every_seconds = 30", f"every_steps = {every_steps}\nevery_seconds = 0")
    experiment.write_text(text, encoding="utf-8")
