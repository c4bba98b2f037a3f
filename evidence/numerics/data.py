"""Datasets that ship inside packages, fixed splits, and their digests.

Nothing is downloaded: the datasets are files that scikit-learn ships. A dataset's identity is
the digest of that raw file (found without importing scikit-learn, so computing run keys at
``doit`` start-up stays cheap); a split's identity is the digest of the exact samples in it.
Both digests are part of every run key, so a changed file or split cannot hide behind an
unchanged config. Split digests need the data loaded, so they are cached by raw digest and
split parameters.

Splits are fixed by ``split_seed`` and are disjoint by construction; :func:`split_overlap`
checks the *content* overlap (duplicate samples across splits), which index-disjointness alone
does not rule out.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from evidence.core.errors import BadInputError
from evidence.core.hashing import digest_bytes, digest_file, digest_json, write_json_atomic

#: Version of the preprocessing below; part of the data identity.
PREPROCESSING_VERSION = 1
SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class DatasetSource:
    """A dataset file shipped by a package, and how to turn it into features and labels."""

    package: str
    relative_path: str
    loader: str  # name of the scikit-learn loader with the same data (tests compare with it)
    scaling: str  # "divide16" (pixel intensities 0..16) or "standardize" (fit on train only)
    header: bool = True  # scikit-learn's csv-data header line (n_samples, n_features, names)
    task: str = "classification"


DATASETS: dict[str, DatasetSource] = {
    "digits": DatasetSource("sklearn", "datasets/data/digits.csv.gz", "load_digits", "divide16",
                            header=False),
    "wine": DatasetSource("sklearn", "datasets/data/wine_data.csv", "load_wine", "standardize"),
    "breast_cancer": DatasetSource(
        "sklearn", "datasets/data/breast_cancer.csv", "load_breast_cancer", "standardize"
    ),
    "iris": DatasetSource("sklearn", "datasets/data/iris.csv", "load_iris", "standardize"),
}


@dataclass(frozen=True)
class DataConfig:
    """Which dataset, how it is split, and whether training labels are shuffled (a control)."""

    dataset: str
    split_seed: int = 0
    fractions: tuple[float, float, float] = (0.6, 0.2, 0.2)
    shuffle_labels: bool = False

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], source: object) -> DataConfig:
        name = raw.get("dataset")
        if name not in DATASETS:
            raise BadInputError(source, f"unknown dataset {name!r}; expected one of "
                                f"{sorted(DATASETS)}", field="data.dataset")
        fractions = raw.get("fractions", {"train": 0.6, "val": 0.2, "test": 0.2})
        if isinstance(fractions, list | tuple):  # the form recorded in a run identity
            fractions = dict(zip(SPLITS, fractions, strict=True))
        triple = tuple(float(fractions[s]) for s in SPLITS)
        if abs(sum(triple) - 1.0) > 1e-9 or min(triple) <= 0:
            raise BadInputError(source, f"split fractions must be positive and sum to 1, got "
                                f"{dict(zip(SPLITS, triple, strict=True))}",
                                field="data.fractions")
        return cls(dataset=str(name), split_seed=int(raw.get("split_seed", 0)),
                   fractions=(triple[0], triple[1], triple[2]),
                   shuffle_labels=bool(raw.get("shuffle_labels", False)))

    def split_params(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "split_seed": self.split_seed,
                "fractions": list(self.fractions), "preprocessing": PREPROCESSING_VERSION}


@dataclass
class Split:
    """One split's features ``x`` (float32, shape (n, features)) and labels ``y`` (int64, (n,))."""

    x: np.ndarray
    y: np.ndarray

    def digest(self) -> str:
        return digest_bytes(np.ascontiguousarray(self.x).tobytes()
                            + np.ascontiguousarray(self.y).tobytes())


@dataclass
class Dataset:
    """The three splits plus what a trainer needs to size its model."""

    name: str
    splits: dict[str, Split]
    n_features: int
    n_classes: int
    task: str
    digests: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, split: str) -> Split:
        return self.splits[split]


def raw_file(name: str) -> Path:
    """Path of the dataset file inside its package, found without importing the package."""
    source = DATASETS[name]
    spec = importlib.util.find_spec(source.package)
    if spec is None or not spec.submodule_search_locations:
        raise BadInputError(name, f"package {source.package!r} that ships dataset {name!r} "
                            "is not installed", hint=f"pip install {source.package}")
    return Path(next(iter(spec.submodule_search_locations))) / source.relative_path


@cache
def raw_digest(name: str) -> str:
    """Digest of the raw dataset file (cached per process: a few hundred KB at most)."""
    return digest_file(raw_file(name))


def _load_raw(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels read straight from the file the package ships.

    The files are plain CSV: scikit-learn's "csv data" files start with a header line
    (n_samples, n_features, class names), the digits file has none; the last column is the
    label. Reading them here instead of through scikit-learn's loaders saves importing
    scikit-learn (about a second and a half) in every training process; a test checks that the
    arrays are identical to the loaders' output.
    """
    import gzip

    path = raw_file(name)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        if DATASETS[name].header:
            header = handle.readline().split(",")
            n_samples, n_features = int(header[0]), int(header[1])
        table = np.loadtxt(handle, delimiter=",", dtype=np.float64, ndmin=2)
    if DATASETS[name].header and table.shape != (n_samples, n_features + 1):
        raise BadInputError(path, f"expected {n_samples} rows of {n_features} features and a label, "
                            f"found {table.shape}")
    return table[:, :-1], table[:, -1].astype(np.int64)


def split_indices(n: int, fractions: tuple[float, float, float], seed: int) -> dict[str, np.ndarray]:
    """Disjoint index sets covering ``range(n)``, fixed by ``seed``; each sorted."""
    order = np.random.default_rng(seed).permutation(n)
    n_train = int(round(fractions[0] * n))
    n_val = int(round(fractions[1] * n))
    parts = {"train": order[:n_train], "val": order[n_train:n_train + n_val],
             "test": order[n_train + n_val:]}
    return {k: np.sort(v) for k, v in parts.items()}


def load(config: DataConfig, *, label_seed: int = 0) -> Dataset:
    """Load, split and preprocess; shuffle the *training* labels when the config asks for it.

    Scaling statistics are fitted on the training split only, so no information from the
    validation or test split leaks into training. Shuffled labels are a control: the model
    can only memorise noise, so its validation and test accuracy must be at chance.
    """
    x_raw, y_raw = _load_raw(config.dataset)
    index = split_indices(len(y_raw), config.fractions, config.split_seed)
    source = DATASETS[config.dataset]
    if source.scaling == "divide16":
        x_all = x_raw / 16.0
    else:
        train = x_raw[index["train"]]
        mean, std = train.mean(axis=0), train.std(axis=0)
        x_all = (x_raw - mean) / np.where(std > 0, std, 1.0)
    splits = {name: Split(x_all[idx].astype(np.float32), y_raw[idx].copy())
              for name, idx in index.items()}
    digests = {name: split.digest() for name, split in splits.items()}
    if config.shuffle_labels:
        train = splits["train"]
        train.y = np.random.default_rng(label_seed).permutation(train.y)
    n_classes = int(y_raw.max()) + 1
    return Dataset(name=config.dataset, splits=splits, n_features=int(x_raw.shape[1]),
                   n_classes=n_classes, task=source.task, digests=digests)


def split_overlap(dataset: Dataset) -> dict[str, int]:
    """Number of samples with identical features shared by each pair of splits.

    Features only, on purpose: the same input under two labels is still the same input, and a
    model that saw it in training is not being tested on it (a label check would miss the leak).
    """
    hashed = {name: {digest_bytes(row.tobytes()) for row in split.x}
              for name, split in dataset.splits.items()}
    return {f"{a}/{b}": len(hashed[a] & hashed[b])
            for i, a in enumerate(SPLITS) for b in SPLITS[i + 1:]}


def data_identity(config: DataConfig, cache_dir: Path) -> dict[str, Any]:
    """Everything about the data that goes into a run key: raw digest, split params and digests.

    Split digests are cached in ``cache_dir/data.json`` keyed by the raw digest and the split
    parameters, so a no-op ``doit`` does not have to load the data to compute keys.
    """
    params = config.split_params()
    raw = raw_digest(config.dataset)
    cache_key = digest_json({"raw": raw, **params})
    cache_file = cache_dir / "data.json"
    cached: dict[str, Any] = {}
    if cache_file.exists():
        try:
            cached = json.loads(cache_file.read_text("utf-8"))
        except (OSError, ValueError):
            cached = {}
    split_digests = cached.get(cache_key)
    if not isinstance(split_digests, dict) or set(split_digests) != set(SPLITS):
        split_digests = load(config).digests
        cached[cache_key] = split_digests
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(cache_file, cached)
    return {**params, "raw_digest": raw, "split_digests": dict(split_digests),
            "shuffle_labels": config.shuffle_labels}
