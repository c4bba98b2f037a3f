"""A project's trainer modules: loading one, and the data facts its ``build`` receives.

Why one place: the runner (to train), federation (to re-evaluate imported weights) and presets
(to estimate a preset's memory) each need "this spec's trainer module, fed the facts of its
data". Three copies of that drifted once already; this is the only one.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from evidence.core.errors import BadInputError
from evidence.core.project import Project, import_project_module


def load_trainer(project: Project, name: str) -> ModuleType:
    """Import ``trainers/<name>.py`` of the project and check it has ``build`` or ``train``."""
    path = project.trainers_dir / f"{name}.py"
    module = import_project_module(project.root, path, f"trainers.{name}", "trainer module")
    if not callable(getattr(module, "build", None)) and not callable(getattr(module, "train", None)):
        raise BadInputError(path, "a trainer must define build(config, data) -> Recipe (the engine's "
                            "loop) or train(ctx) -> results (its own loop)",
                            field="build", hint="see docs/contracts.md")
    return module


def data_info(dataset: Any) -> Any:
    """What a trainer gets for ``dataset``: a :class:`~evidence.numerics.recipe.DataInfo` for a
    built-in table, a :class:`~evidence.numerics.loaders.ProjectDataInfo` for a project dataset."""
    from evidence.numerics import loaders
    from evidence.numerics.recipe import DataInfo

    if isinstance(dataset, loaders.ProjectDataset):
        return loaders.data_info(dataset)

    return DataInfo(dataset=dataset.name, n_features=dataset.n_features, n_classes=dataset.n_classes,
                    task=dataset.task, split_sizes={k: len(v.y) for k, v in dataset.splits.items()},
                    split_digests=dict(dataset.digests))


def load_checked_data(project: Project, identity: dict[str, Any], seed: int, source: object) -> Any:
    """The run's dataset, refused unless its split digests are the ones in the run key."""
    from evidence.core.errors import RunFailedError
    from evidence.numerics import loaders

    cfg = loaders.config_from_mapping(project.root, identity["data"], source)
    dataset = loaders.load_any(cfg, label_seed=seed)
    expected = identity["data"]["split_digests"]
    if dataset.digests != expected:
        raise RunFailedError(f"{source}: the data on this machine does not match the split digests "
                             f"in the run key ({dataset.digests} vs {expected})",
                             hint="the dataset file changed; re-run doit")
    return dataset
