"""Experiments expand to run specs; the key function is pinned; bad files get clear errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments.spec import RunSpec, expand, expand_all, key_of, trainer_sources

GOLDEN_IDENTITY = {
    "protocol": 1,
    "trainer": "mlp",
    "trainer_digest": "0" * 64,
    "engine_digest": "1" * 64,
    "config": {"lr": 0.05, "hidden": 64, "epochs": 15},
    "data": {"dataset": "digits", "raw_digest": "2" * 64, "split_seed": 0,
             "fractions": [0.6, 0.2, 0.2], "preprocessing": 1,
             "split_digests": {"train": "3" * 64, "val": "4" * 64, "test": "5" * 64},
             "shuffle_labels": False},
    "seed": 3,
    "world_size": 1,
}


def test_key_function_is_pinned() -> None:
    # Changing canonical JSON, the digest or the key's fields orphans every sealed run:
    # this golden value must only ever change together with PROTOCOL_VERSION.
    assert key_of(GOLDEN_IDENTITY) == \
        "33c05e19deaca690ac1cd8f0609062b34ca01b50bae6ac6f03c6c34008986ae2"


def test_key_ignores_field_order() -> None:
    assert key_of(dict(reversed(list(GOLDEN_IDENTITY.items())))) == key_of(GOLDEN_IDENTITY)


def test_expansion_is_variants_x_seeds(make_project: Callable[..., Path]) -> None:
    project = Project.at(make_project())
    specs = expand_all(project)
    assert [s.task_name for s in specs] == ["tiny/small-s0", "tiny/small-s1", "tiny/wide-s0",
                                            "tiny/wide-s1"]
    assert specs[2].config["hidden"] == 32 and specs[0].config["hidden"] == 16
    assert len({s.key for s in specs}) == 4
    round_trip = RunSpec.from_json(specs[0].to_json())
    assert round_trip.key == specs[0].key


def test_grid_is_cartesian(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": """
        trainer = "mlp"
        seeds = [0]
        [data]
        dataset = "digits"
        [config]
        epochs = 1
        batch_size = 64
        [grid]
        lr = [0.01, 0.1]
        hidden = [8, 16, 32]
        """})
    specs = expand_all(Project.at(root))
    assert len(specs) == 6
    assert specs[0].label == "mlp-hidden8-lr0.01-s0"


def test_changing_one_value_changes_only_affected_keys(make_project: Callable[..., Path]) -> None:
    root = make_project()
    before = {s.task_name: s.key for s in expand_all(Project.at(root))}
    path = root / "experiments/tiny.toml"
    path.write_text(path.read_text().replace("config = { hidden = 32 }",
                                             "config = { hidden = 33 }"))
    after = {s.task_name: s.key for s in expand_all(Project.at(root))}
    changed = sorted(name for name in before if before[name] != after[name])
    assert changed == ["tiny/wide-s0", "tiny/wide-s1"]


def test_trainer_digest_holds_the_integration_it_trains_through(make_project: Callable[..., Path],
                                                                 tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from evidence.experiments import spec as spec_module

    root = make_project({"trainers/lit.py": "from evidence.integrations import lightning as integration\n"
                                            "def train(ctx): ...\n",
                         "trainers/plain.py": "def train(ctx): ...\n"})
    project = Project.at(root)
    files = trainer_sources(project, "lit", "x")
    assert [m.name for m in spec_module.integration_sources(files)] == ["lightning.py", "scores.py"]
    assert spec_module.integration_sources(trainer_sources(project, "plain", "x")) == []
    copy = tmp_path / "integrations"
    copy.mkdir()
    for module in spec_module.INTEGRATIONS_DIR.glob("*.py"):
        (copy / module.name).write_text(module.read_text())
    monkeypatch.setattr(spec_module, "INTEGRATIONS_DIR", copy)
    before = spec_module.trainer_digest(project, "lit", "x")
    plain = spec_module.trainer_digest(project, "plain", "x")
    (copy / "scores.py").write_text((copy / "scores.py").read_text() + "\n# edited\n")
    assert spec_module.trainer_digest(project, "lit", "x") != before  # re-trains what uses it
    assert spec_module.trainer_digest(project, "plain", "x") == plain


def test_trainer_digest_follows_imported_sibling(make_project: Callable[..., Path]) -> None:
    root = make_project({"trainers/helpers.py": "WIDTH = 3\n",
                         "trainers/uses.py": "from trainers.helpers import WIDTH\n"
                                             "def build(config, data): ...\n"})
    files = trainer_sources(Project.at(root), "uses", "x")
    assert [f.name for f in files] == ["helpers.py", "uses.py"]


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("trainer = 'mlp'\nseeds = [0]\n", "data", "required but missing"),
    ("trainer = 'mlp'\nseeds = 'zero'\n[data]\ndataset='digits'\n", "seeds", "not of type 'array'"),
    ("trainer = 'mlp'\nseeds = [0]\n[data]\ndataset='digits'\n[[variants]]\nname='a'\nlr=1\n",
     "variants[0]", "Additional properties"),
    ("trainer = '../evil'\nseeds = [0]\n[data]\ndataset='digits'\n", "trainer", "does not match"),
    ("trainer = 'mlp'\nseeds = [0]\n[data]\ndataset='mnist'\n", "data.dataset",
     "unknown dataset 'mnist'"),
    ("trainer = 'nope'\nseeds = [0]\n[data]\ndataset='digits'\n", "trainer",
     "trainer 'nope' not found"),
    ("trainer = 'mlp'\nseeds = [0]\n[data]\ndataset='digits'\n"
     "fractions = {train=0.5, val=0.2, test=0.2}\n", "data.fractions", "sum to 1"),
])
def test_bad_experiment_names_file_and_field(make_project: Callable[..., Path], text: str,
                                             field: str, expected: str) -> None:
    root = make_project({"experiments/tiny.toml": text})
    with pytest.raises(BadInputError, match=expected) as caught:
        expand(Project.at(root), root / "experiments/tiny.toml")
    assert caught.value.field == field
    assert caught.value.path.endswith("tiny.toml")


def test_invalid_toml_is_reported(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": "trainer = \n"})
    with pytest.raises(BadInputError, match=r"tiny\.toml: not valid TOML"):
        expand(Project.at(root), root / "experiments/tiny.toml")


#: The digest of the bundled example's 41 sorted run keys. It changes only with a change to what
#: a run computes (numerical engine code, a trainer, a config, the data, the numerics profile,
#: the protocol): then retrain and recommit the example's evidence in the same commit. A pure
#: move of engine modules between packages must leave it alone (see docs/architecture.md).
EXAMPLE_KEYS = "087b9de3df07fedbfb8b34270db0c7cad1c685d9e8d45462716cf44927944164"


def test_the_bundled_examples_run_keys_are_pinned_and_sealed() -> None:
    from evidence.core.hashing import digest_json

    repo = Path(__file__).resolve().parent.parent
    keys = sorted(spec.key for spec in expand_all(Project.at(repo)))
    assert len(keys) == 41 and digest_json(keys) == EXAMPLE_KEYS
    assert all((repo / "runs" / key[:16] / "manifest.json").is_file() for key in keys)
