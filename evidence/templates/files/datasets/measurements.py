"""Your dataset: `load(root)` returns the samples; the engine splits, digests and keys them.

The engine reads nothing but what this module returns, and it keys every run on the files
listed in FILES (each digested, memoised by its size and modification time) and on this
module's code: edit either and exactly the runs that use this dataset re-train.

* FILES: the files and folders `load` reads, relative to the project root.
* TASK: "regression" (real-valued targets, kept as float32) or "classification" (integer
  classes 0..K-1, int64; a non-integer label is an error, never truncated).
* SCALING: "standardize" (per feature, fitted on the training split only) or "none".
* load(root) -> (x, y): the engine splits by `split_seed` and `fractions` of the experiment;
  or {"train": (x, y), "val": (x, y), "test": (x, y)} to keep splits of your own.

x: a numeric array of shape (n, ...) (rows, images, sequences); y: (n,) or (n, k) for
regression, (n,) for classification. See docs/contracts.md, "A dataset".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

FILES = ["data/measurements.csv"]
TASK = "regression"
SCALING = "standardize"


def load(root: Path) -> tuple[np.ndarray, np.ndarray]:
    # A CSV with a header row; every column but the last is a feature, the last is the target.
    table = np.loadtxt(root / "data" / "measurements.csv", delimiter=",", skiprows=1,
                       dtype=np.float64, ndmin=2)
    return table[:, :-1], table[:, -1]
