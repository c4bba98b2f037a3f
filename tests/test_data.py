"""Fixed, hash-pinned, disjoint splits of data that ships inside a package."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evidence.numerics import data
from evidence.numerics.data import DataConfig


def test_splits_are_disjoint_cover_everything_and_are_fixed_by_seed() -> None:
    parts = data.split_indices(100, (0.6, 0.2, 0.2), seed=7)
    joined = np.concatenate(list(parts.values()))
    assert sorted(joined.tolist()) == list(range(100))
    assert [len(parts[s]) for s in data.SPLITS] == [60, 20, 20]
    again = data.split_indices(100, (0.6, 0.2, 0.2), seed=7)
    assert all(np.array_equal(parts[s], again[s]) for s in data.SPLITS)
    other = data.split_indices(100, (0.6, 0.2, 0.2), seed=8)
    assert not np.array_equal(parts["test"], other["test"])


def test_digits_load_and_digests_are_stable() -> None:
    first = data.load(DataConfig("digits"))
    second = data.load(DataConfig("digits"))
    assert first.n_features == 64 and first.n_classes == 10
    assert first.digests == second.digests
    assert set(first.digests) == {"train", "val", "test"}
    assert first["train"].x.dtype == np.float32 and first["train"].y.dtype == np.int64
    assert first["train"].x.min() >= 0.0 and first["train"].x.max() <= 1.0


def test_shuffled_labels_touch_only_training_labels() -> None:
    plain = data.load(DataConfig("digits"))
    control = data.load(DataConfig("digits", shuffle_labels=True), label_seed=3)
    assert np.array_equal(plain["test"].y, control["test"].y)
    assert np.array_equal(plain["val"].y, control["val"].y)
    assert not np.array_equal(plain["train"].y, control["train"].y)
    assert sorted(plain["train"].y) == sorted(control["train"].y)
    # The split digests name the data, not the shuffled labels (those are in the config).
    assert plain.digests == control.digests


def test_standardisation_is_fitted_on_train_only() -> None:
    wine = data.load(DataConfig("wine"))
    train = wine["train"].x
    assert np.allclose(train.mean(axis=0), 0, atol=1e-5)
    assert not np.allclose(wine["test"].x.mean(axis=0), 0, atol=1e-3)


def test_split_overlap_counts_identical_samples() -> None:
    dataset = data.load(DataConfig("digits"))
    overlap = data.split_overlap(dataset)
    assert set(overlap) == {"train/val", "train/test", "val/test"}
    dataset.splits["test"].x[0] = dataset.splits["train"].x[5]
    assert data.split_overlap(dataset)["train/test"] >= overlap["train/test"] + 1


def test_data_identity_is_cached(tmp_path: Path) -> None:
    config = DataConfig("digits")
    identity = data.data_identity(config, tmp_path)
    assert (tmp_path / "data.json").exists()
    assert identity["split_digests"] == data.load(config).digests
    assert data.data_identity(config, tmp_path) == identity


def test_reading_the_shipped_files_matches_scikit_learns_loaders() -> None:
    import sklearn.datasets

    for name, source in data.DATASETS.items():
        x, y = data._load_raw(name)
        bunch = getattr(sklearn.datasets, source.loader)()
        assert np.array_equal(x, bunch.data), name
        assert np.array_equal(y, bunch.target), name
