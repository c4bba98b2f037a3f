"""A project's own datasets: ``datasets/<name>.py`` plus the files and folders it reads.

Why a loader module and not a registry: the dataset must be part of the project, so that every
entry point (``doit``, ``evidence why/gc/status/repro``, a fresh clone with no ``.evidence/``)
finds it from the experiment's ``[data] dataset = "<name>"`` alone, without running dodo.py.

The contract (docs/contracts.md, "A dataset")::

    FILES = ["data/houses.csv"]     # files or folders the loader reads, relative to the project
    TASK = "regression"             # or "classification"
    SCALING = "none"                # optional; "standardize": per-feature, fitted on train only
    def load(root: pathlib.Path) -> (x, y) | {"train": (x, y), "val": (x, y), "test": (x, y)}

``x`` is any numeric array of shape (n, ...); it becomes float32. ``y`` is (n,) integer class
labels 0..K-1 for classification (int64; a non-integer label is an error, never truncated) or
(n,) / (n, k) real values for regression (float32, kept real). Returning one pair lets the
engine split it (fixed by ``split_seed``, hash-pinned as for the built-in tables); returning
the three splits keeps the loader's own (a predefined test split).

The dataset's identity in a run key, computed before anything trains: the digest of every file
``FILES`` names (each streamed through BLAKE3 and memoised by its stat signature, so a no-op
never re-reads a large dataset), the digest of the loader's code and of this module, the split
parameters and the digests of the exact samples of each split.

This module is keyed through that identity (``engine`` below), not through the engine digest of
:data:`evidence.experiments.spec.ENGINE_NUMERIC_MODULES`, so adding it left the keys of runs on
the built-in tables unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from evidence.core.codedeps import logical_source
from evidence.core.errors import BadInputError
from evidence.core.hashing import digest_bytes, digest_json, write_json_atomic
from evidence.core.project import Project, import_project_module, safe_name
from evidence.numerics.data import SPLITS, Dataset, Split, split_indices

#: The folder of a project's dataset loaders.
LOADERS_DIR = "datasets"
TASKS = ("classification", "regression")
SCALINGS = ("none", "standardize")


def loader_file(root: Path, name: str) -> Path:
    return root / LOADERS_DIR / f"{name}.py"


def is_project_dataset(root: Path, name: object) -> bool:
    """True when the project defines ``datasets/<name>.py`` (it then wins over a built-in name)."""
    return isinstance(name, str) and name.isidentifier() and loader_file(root, name).is_file()


@dataclass(frozen=True)
class ProjectDataConfig:
    """A project dataset, how it is split and whether training targets are shuffled (a control)."""

    root: Path
    dataset: str
    split_seed: int = 0
    fractions: tuple[float, float, float] = (0.6, 0.2, 0.2)
    shuffle_labels: bool = False

    @classmethod
    def from_mapping(cls, root: Path, raw: Mapping[str, Any], source: object) -> ProjectDataConfig:
        name = safe_name(str(raw.get("dataset")), source=source, field="data.dataset")
        fractions = raw.get("fractions", {"train": 0.6, "val": 0.2, "test": 0.2})
        if isinstance(fractions, list | tuple):  # the form recorded in a run identity
            fractions = dict(zip(SPLITS, fractions, strict=True))
        triple = tuple(float(fractions[s]) for s in SPLITS)
        if abs(sum(triple) - 1.0) > 1e-9 or min(triple) <= 0:
            raise BadInputError(source, f"split fractions must be positive and sum to 1, got "
                                f"{dict(zip(SPLITS, triple, strict=True))}", field="data.fractions")
        return cls(root=root, dataset=name, split_seed=int(raw.get("split_seed", 0)),
                   fractions=(triple[0], triple[1], triple[2]),
                   shuffle_labels=bool(raw.get("shuffle_labels", False)))

    @property
    def loader(self) -> Path:
        return loader_file(self.root, self.dataset)


@dataclass
class ProjectDataset(Dataset):
    """A project dataset's splits; ``n_classes`` is 0 for regression (``DataInfo`` says None)."""

    input_shape: tuple[int, ...] = ()
    target_shape: tuple[int, ...] = ()
    scaling: str = "none"
    given_splits: bool = False


@dataclass(frozen=True)
class ProjectDataInfo:
    """What a trainer may know about a project dataset: shapes, task, classes, split digests.

    ``n_features`` is the number of input values per sample (the product of ``input_shape``),
    so a trainer written for the built-in tables works unchanged on a tabular project dataset.
    """

    dataset: str
    task: str
    n_features: int
    n_classes: int | None
    input_shape: tuple[int, ...]
    target_shape: tuple[int, ...]
    split_sizes: dict[str, int] = field(default_factory=dict)
    split_digests: dict[str, str] = field(default_factory=dict)


def import_loader(config: ProjectDataConfig) -> ModuleType:
    """Import ``datasets/<name>.py`` and check its declarations; errors name the file and field."""
    path = config.loader
    module = import_project_module(config.root, path, f"datasets.{config.dataset}", "dataset loader")
    if not callable(getattr(module, "load", None)):
        raise BadInputError(path, "a dataset loader must define load(root) -> (x, y) or "
                            "{'train': (x, y), 'val': (x, y), 'test': (x, y)}", field="load",
                            hint="see docs/contracts.md")
    task = getattr(module, "TASK", None)
    if task not in TASKS:
        raise BadInputError(path, f"TASK must be one of {list(TASKS)}, got {task!r}", field="TASK")
    scaling = getattr(module, "SCALING", "none")
    if scaling not in SCALINGS:
        raise BadInputError(path, f"SCALING must be one of {list(SCALINGS)}, got {scaling!r}",
                            field="SCALING")
    return module


def declared_files(config: ProjectDataConfig, module: ModuleType) -> tuple[list[Path], list[Path]]:
    """(files, folders) that ``FILES`` names, folders walked; every path must stay in the project."""
    path = config.loader
    raw = getattr(module, "FILES", None)
    if not isinstance(raw, list | tuple) or not all(isinstance(f, str) for f in raw):
        raise BadInputError(path, "FILES must be a list of paths relative to the project "
                            "(the files and folders load() reads)", field="FILES")
    root = config.root.resolve()
    files: list[Path] = []
    folders: list[Path] = []
    for entry in raw:
        target = (config.root / entry).resolve()
        if not target.is_relative_to(root):
            raise BadInputError(path, f"FILES entry {entry!r} is outside the project", field="FILES")
        if target.is_dir():
            folders.append(target)
            for sub in sorted(target.rglob("*")):
                if any(part.startswith(".") for part in sub.relative_to(target).parts):
                    continue
                (folders if sub.is_dir() else files).append(sub)
        elif target.is_file():
            files.append(target)
        else:
            raise BadInputError(path, f"FILES entry {entry!r} does not exist", field="FILES")
    return files, folders


def _as_arrays(pair: Any, task: str, path: Path, where: str) -> Split:
    """One (x, y) pair as a Split: x float32 (n, ...), y int64 (n,) or float32 (n,)/(n, k)."""
    if not isinstance(pair, tuple | list) or len(pair) != 2:
        raise BadInputError(path, f"load() must return (x, y) pairs; {where} is {type(pair).__name__}",
                            field="load")
    x, y = np.asarray(pair[0]), np.asarray(pair[1])
    if x.dtype.kind not in "biuf" or y.dtype.kind not in "biuf":
        raise BadInputError(path, f"{where}: x and y must be numeric arrays, got {x.dtype} and "
                            f"{y.dtype}", field="load")
    if x.ndim < 1 or len(x) != len(y) or len(x) == 0:
        raise BadInputError(path, f"{where}: x has shape {x.shape} and y {y.shape}; both need the "
                            "same (non-zero) number of samples on the first axis", field="load")
    if task == "classification":
        if y.ndim != 1 or not np.array_equal(y, np.round(y)) or y.min() < 0:
            raise BadInputError(path, f"{where}: classification targets must be one integer class "
                                "0..K-1 per sample (shape (n,)); got non-integer, negative or "
                                f"multi-column targets of shape {y.shape}", field="TASK",
                                hint='set TASK = "regression" for real-valued targets')
        y_out = y.astype(np.int64)
    else:
        if y.ndim not in (1, 2):
            raise BadInputError(path, f"{where}: regression targets must have shape (n,) or (n, k), "
                                f"got {y.shape}", field="load")
        y_out = y.astype(np.float32)
    return Split(np.ascontiguousarray(x, dtype=np.float32), np.ascontiguousarray(y_out))


def _standardize(splits: dict[str, Split]) -> None:
    """Per-feature standardisation fitted on the training split only (no held-out leak)."""
    train = splits["train"].x.astype(np.float64)
    mean, std = train.mean(axis=0), train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    for split in splits.values():
        split.x = ((split.x - mean) / std).astype(np.float32)


def load(config: ProjectDataConfig, *, label_seed: int = 0) -> ProjectDataset:
    """Run the project's loader, split (or keep its splits), scale, and digest each split."""
    module = import_loader(config)
    path = config.loader
    task = str(module.TASK)
    raw = module.load(config.root)
    if isinstance(raw, Mapping):
        if set(raw) != set(SPLITS):
            raise BadInputError(path, f"load() returned splits {sorted(raw)}; expected exactly "
                                f"{list(SPLITS)} or one (x, y) pair", field="load")
        splits = {name: _as_arrays(raw[name], task, path, f"split {name!r}") for name in SPLITS}
        given = True
    else:
        whole = _as_arrays(raw, task, path, "the dataset")
        index = split_indices(len(whole.y), config.fractions, config.split_seed)
        splits = {name: Split(whole.x[idx].copy(), whole.y[idx].copy()) for name, idx in index.items()}
        given = False
    shapes = {s.x.shape[1:] for s in splits.values()}
    if len(shapes) != 1:
        raise BadInputError(path, f"the splits' samples differ in shape: {sorted(shapes)}", field="load")
    scaling = str(getattr(module, "SCALING", "none"))
    if scaling == "standardize":
        _standardize(splits)
    digests = {name: split.digest() for name, split in splits.items()}
    if config.shuffle_labels:
        train = splits["train"]
        train.y = np.random.default_rng(label_seed).permutation(train.y)
    input_shape = tuple(int(d) for d in splits["train"].x.shape[1:])
    n_classes = 0
    if task == "classification":
        n_classes = int(max(int(s.y.max()) for s in splits.values())) + 1
    return ProjectDataset(name=config.dataset, splits=splits,
                          n_features=int(np.prod(input_shape)) if input_shape else 1,
                          n_classes=n_classes, task=task, digests=digests, input_shape=input_shape,
                          target_shape=tuple(int(d) for d in splits["train"].y.shape[1:]),
                          scaling=scaling, given_splits=given)


def data_info(dataset: ProjectDataset) -> ProjectDataInfo:
    return ProjectDataInfo(dataset=dataset.name, task=dataset.task, n_features=dataset.n_features,
                           n_classes=dataset.n_classes if dataset.task == "classification" else None,
                           input_shape=dataset.input_shape, target_shape=dataset.target_shape,
                           split_sizes={k: len(v.y) for k, v in dataset.splits.items()},
                           split_digests=dict(dataset.digests))


def engine_code() -> str:
    """Digest of this module's code: it splits, scales and digests, so it is part of the key."""
    return digest_bytes(logical_source(Path(__file__)))


def files_digest(project: Project, files: list[Path]) -> str:
    """Digest of the declared files by project-relative path and content (memoised by stat)."""
    from evidence.core import memo

    return digest_json({project.relative(p): memo.digest(project, p) for p in files})


def data_identity(project: Project, config: ProjectDataConfig) -> tuple[dict[str, Any], list[Path]]:
    """The run-key identity of a project dataset, and every path it was derived from.

    Split digests need the data loaded, so they are cached in ``.evidence/cache/data.json`` by
    the digests of the files, the loader and this module, and the split parameters; deleting
    ``.evidence/`` only costs one load.
    """
    module = import_loader(config)
    files, folders = declared_files(config, module)
    identity: dict[str, Any] = {
        "dataset": config.dataset,
        "loader": {"file": project.relative(config.loader),
                   "code": digest_bytes(logical_source(config.loader)), "engine": engine_code()},
        "task": str(module.TASK), "files_digest": files_digest(project, files),
        "split_seed": config.split_seed, "fractions": list(config.fractions),
        "shuffle_labels": config.shuffle_labels,
    }
    cache_key = digest_json({k: v for k, v in identity.items() if k != "shuffle_labels"})
    cache_file = project.cache_dir / "data.json"
    try:
        cached = json.loads(cache_file.read_text("utf-8"))
    except (OSError, ValueError):
        cached = {}
    entry = cached.get(cache_key) if isinstance(cached, dict) else None
    if not isinstance(entry, dict) or set(entry.get("split_digests", {})) != set(SPLITS):
        dataset = load(config)
        entry = {"split_digests": dataset.digests, "splits": "loader" if dataset.given_splits else "seeded"}
        cached = cached if isinstance(cached, dict) else {}
        cached[cache_key] = entry
        project.cache_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(cache_file, cached)
    identity["split_digests"] = dict(entry["split_digests"])
    identity["splits"] = entry["splits"]
    return identity, [config.loader, *folders, *files]


def sample_overlap(dataset: Dataset) -> dict[str, int] | None:
    """Identical samples (inputs) shared by each pair of splits; None when they cannot be hashed.

    Every sample is hashed on its own (its bytes), so this works for rows, images or sequences
    alike; a dataset whose samples are not fixed-size numeric arrays cannot be checked, and the
    caller says so instead of reporting no overlap.
    """
    hashed: dict[str, set[str]] = {}
    for name, split in dataset.splits.items():
        x = split.x
        if not isinstance(x, np.ndarray) or x.dtype.kind not in "biuf":
            return None
        hashed[name] = {digest_bytes(np.ascontiguousarray(sample).tobytes()) for sample in x}
    return {f"{a}/{b}": len(hashed[a] & hashed[b])
            for i, a in enumerate(SPLITS) for b in SPLITS[i + 1:]}


def config_from_mapping(root: Path, raw: Mapping[str, Any], source: object) -> Any:
    """An experiment's ``[data]`` as a config: the project's ``datasets/<name>.py`` if it exists,
    else a built-in table (:class:`evidence.numerics.data.DataConfig`)."""
    from evidence.numerics.data import DATASETS, DataConfig

    name = raw.get("dataset")
    if is_project_dataset(root, name):
        return ProjectDataConfig.from_mapping(root, raw, source)
    if name not in DATASETS:
        raise BadInputError(source, f"unknown dataset {name!r}: no {LOADERS_DIR}/{name}.py in the "
                            f"project and not a built-in table ({', '.join(sorted(DATASETS))})",
                            field="data.dataset", hint=f"write {LOADERS_DIR}/{name}.py "
                            "(see docs/contracts.md, 'A dataset')")
    return DataConfig.from_mapping(raw, source)


def load_any(config: Any, *, label_seed: int = 0) -> Dataset:
    """Load a project dataset or a built-in table, whichever ``config`` names."""
    from evidence.numerics import data

    if isinstance(config, ProjectDataConfig):
        return load(config, label_seed=label_seed)
    return data.load(config, label_seed=label_seed)


def overlap_of(dataset: Dataset) -> dict[str, int] | None:
    """The content-overlap check for either kind of dataset (None: samples cannot be hashed)."""
    from evidence.numerics.data import split_overlap

    if isinstance(dataset, ProjectDataset):
        return sample_overlap(dataset)
    return split_overlap(dataset)
