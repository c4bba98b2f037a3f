"""A project's own dataset (datasets/<name>.py): identity, float targets, splits, overlap, errors."""

from __future__ import annotations

import os
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.numerics import loaders

CSV_LOADER = '''
import numpy as np

FILES = ["data/table.csv"]
TASK = "{task}"
SCALING = "standardize"


def load(root):
    table = np.loadtxt(root / "data" / "table.csv", delimiter=",", skiprows=1, ndmin=2)
    return table[:, :-1], table[:, -1]
'''

GIVEN_SPLITS_LOADER = '''
import numpy as np

FILES = ["data"]
TASK = "regression"


def load(root):
    rng = np.random.default_rng(0)
    out = {}
    for name, n in (("train", 30), ("val", 10), ("test", 12)):
        x = np.loadtxt(root / "data" / f"{name}.csv", delimiter=",", ndmin=2)
        out[name] = (x, x.sum(axis=1) * 0.5 + 0.25)
    return out
'''

EXPERIMENT = '''
trainer = "mlp"
seeds = [0]
[data]
dataset = "{dataset}"
[config]
epochs = 1
batch_size = 8
lr = 0.1
hidden = 4
'''


def _csv(rows: int, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 3))
    y = x @ np.array([1.5, -2.0, 0.5]) + 0.123  # real-valued targets with fractional parts
    lines = ["a,b,c,target"] + [",".join(f"{v:.6f}" for v in (*row, t)) for row, t in zip(x, y, strict=True)]
    return "\n".join(lines) + "\n"


@pytest.fixture
def csv_project(make_project: Callable[..., Path]) -> Path:
    root = make_project({"experiments/tiny.toml": EXPERIMENT.format(dataset="table"),
                         "datasets/table.py": CSV_LOADER.format(task="regression"),
                         "data/table.csv": _csv(50)})
    past = time.time() - 100  # not racily clean: the stat memo may trust it
    os.utime(root / "data" / "table.csv", (past, past))
    return root


def _load(root: Path, name: str = "table", **raw: object) -> loaders.ProjectDataset:
    config = loaders.config_from_mapping(root, {"dataset": name, **raw}, "test")
    assert isinstance(config, loaders.ProjectDataConfig)
    return loaders.load(config)


def test_regression_targets_stay_float_and_have_no_classes(csv_project: Path) -> None:
    dataset = _load(csv_project)
    assert dataset.task == "regression"
    for split in dataset.splits.values():
        assert split.y.dtype == np.float32 and split.y.ndim == 1
        assert split.x.dtype == np.float32 and split.x.shape[1:] == (3,)
    every = np.concatenate([s.y for s in dataset.splits.values()])
    assert not np.array_equal(every, np.round(every))  # fractional targets were not truncated
    info = loaders.data_info(dataset)
    assert info.n_classes is None and info.n_features == 3 and info.input_shape == (3,)
    assert sum(info.split_sizes.values()) == 50
    # standardisation is fitted on the training split only
    assert np.allclose(dataset["train"].x.mean(axis=0), 0, atol=1e-5)
    assert not np.allclose(dataset["test"].x.mean(axis=0), 0, atol=1e-5)


def test_identity_keys_files_and_loader_code_and_sees_every_write(csv_project: Path) -> None:
    [spec] = expand_all(Project.at(csv_project))
    data = spec.identity["data"]
    assert data["dataset"] == "table" and data["task"] == "regression"
    assert data["loader"]["file"] == "datasets/table.py" and data["splits"] == "seeded"
    assert set(data["split_digests"]) == {"train", "val", "test"}

    # Same size, other content, mtime set back: the stat memo still sees the write, because no
    # write can set the inode's change time back (a no-op still never re-reads unchanged files).
    csv = csv_project / "data" / "table.csv"
    before = csv.stat()
    text = csv.read_text()
    swapped = text.replace("0.", "1.", 1)
    assert len(swapped) == len(text)
    csv.write_text(swapped)
    os.utime(csv, ns=(before.st_atime_ns, before.st_mtime_ns))
    data_key = loaders.data_identity(Project.at(csv_project), loaders.ProjectDataConfig(
        csv_project, "table"))[0]["files_digest"]
    assert data_key != data["files_digest"]

    # A real edit (new mtime) changes the files digest and the run key.
    csv.write_text(_csv(50, seed=1))
    [edited] = expand_all(Project.at(csv_project))
    assert edited.identity["data"]["files_digest"] != data["files_digest"]
    assert edited.key != spec.key

    # Editing the loader's code changes the key too.
    loader = csv_project / "datasets" / "table.py"
    loader.write_text(loader.read_text() + "\n# same data, other code\n")
    [recoded] = expand_all(Project.at(csv_project))
    assert recoded.identity["data"]["loader"]["code"] != edited.identity["data"]["loader"]["code"]
    assert recoded.key != edited.key


def test_non_integer_classification_labels_are_an_error_not_truncated(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"datasets/table.py": CSV_LOADER.format(task="classification"),
                         "data/table.csv": _csv(20)})
    with pytest.raises(BadInputError) as error:
        _load(root)
    text = error.value.format()
    assert "datasets/table.py" in text and "TASK" in text and "regression" in text


def test_unknown_dataset_names_the_loader_it_looked_for(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": EXPERIMENT.format(dataset="nowhere")})
    with pytest.raises(BadInputError) as error:
        expand_all(Project.at(root))
    text = error.value.format()
    assert "tiny.toml" in text and "data.dataset" in text and "datasets/nowhere.py" in text


def test_loader_given_splits_are_kept(make_project: Callable[..., Path]) -> None:
    rng = np.random.default_rng(3)
    files = {f"data/{name}.csv": "\n".join(",".join(f"{v:.4f}" for v in row)
                                           for row in rng.normal(size=(n, 2, ))) + "\n"
             for name, n in (("train", 30), ("val", 10), ("test", 12))}
    root = make_project({"datasets/given.py": GIVEN_SPLITS_LOADER, **files,
                         "experiments/tiny.toml": EXPERIMENT.format(dataset="given")})
    dataset = _load(root, "given")
    assert dataset.given_splits
    assert {k: len(v.y) for k, v in dataset.splits.items()} == {"train": 30, "val": 10, "test": 12}
    [spec] = expand_all(Project.at(root))
    assert spec.identity["data"]["splits"] == "loader"
    (root / "data" / "extra.txt").write_text("a new file in a declared folder\n")
    [again] = expand_all(Project.at(root))
    assert again.key != spec.key  # the folder's listing is part of the identity


def test_overlap_is_counted_sample_by_sample_for_any_shape(make_project: Callable[..., Path]) -> None:
    images = '''
import numpy as np

FILES = []
TASK = "classification"


def load(root):
    x = np.arange(40 * 2 * 3 * 3, dtype=np.float32).reshape(40, 2, 3, 3)
    x[1::4] = x[0]  # ten copies of one image, spread over every split
    return {"train": (x[:20], np.arange(20) % 3), "val": (x[20:30], np.arange(10) % 3),
            "test": (x[30:], np.arange(10) % 3)}
'''
    root = make_project({"datasets/images.py": images})
    dataset = _load(root, "images")
    assert dataset.input_shape == (2, 3, 3) and dataset.n_classes == 3
    overlap = loaders.overlap_of(dataset)
    assert overlap == {"train/val": 1, "train/test": 1, "val/test": 1}


def test_a_path_outside_the_project_is_refused(make_project: Callable[..., Path]) -> None:
    escape = textwrap.dedent('''
        FILES = ["../secrets"]
        TASK = "regression"

        def load(root):
            return [[0.0]], [0.0]
    ''')
    root = make_project({"datasets/escape.py": escape})
    config = loaders.ProjectDataConfig(root, "escape")
    with pytest.raises(BadInputError) as error:
        loaders.declared_files(config, loaders.import_loader(config))
    assert "outside the project" in error.value.format()
