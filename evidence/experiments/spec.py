"""Experiments expand to run specs; a run spec's digest is its key.

An experiment (``experiments/<name>.toml``) declares a trainer, a base config, named variants,
a cartesian grid of overrides and a list of seeds. Each variant x grid point x seed is one
:class:`RunSpec`. The key of a run is the BLAKE3 digest of the canonical JSON of everything
that determines its result, computed *before* anything trains:

* the trainer's name and the digest of its source files (the module and the sibling trainer
  modules it imports),
* the digest of the engine's numerical code (training loop and data preparation),
* the resolved config (``[config]``, the preset's values, the variant's config, the grid point,
  then ``[early_stopping]``; see :func:`run_config`), the data identity (raw file digest, split
  parameters, split digests, label shuffling), the seed, the world size and the protocol version,
* the device kind when it is not the CPU (``"device": "cuda"``): GPU kernels round differently,
  so a GPU run is a different run; CPU identities carry no device field, so their keys are
  unchanged.

The world size is part of the key because a run trained by N processes splits every batch N
ways and all-reduces the gradients: mathematically the same step, numerically another one.

Names (experiment, variant, label) are *not* part of the key: two experiments that declare the
same run share one sealed result. Checkpoint cadence is not part of it either: resuming is
bit-identical, so when a run checkpoints cannot change what it computes.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from evidence.core.codedeps import ENGINE_DIR, code_files, logical_source
from evidence.core.errors import BadInputError
from evidence.core.hashing import digest_bytes, digest_json
from evidence.core.project import Project, safe_name
from evidence.core.readers import read_text
from evidence.core.schema import read_toml, validate
from evidence.experiments import presets as presets_module
from evidence.numerics import profile as numerics_profile

#: Bump when the meaning of a key's fields changes; old runs then stop matching.
PROTOCOL_VERSION = 2  # 2: the numerics profile entered the identity
#: Engine modules whose code determines the numbers a run produces, by logical name (the file
#: name): their content is keyed, not the package folder they sit in (see docs/architecture.md).
ENGINE_NUMERIC_MODULES = ("training.py", "data.py", "recipe.py", "stopping.py")
NUMERICS_DIR = ENGINE_DIR / "numerics"

DEFAULT_CHECKPOINT = {"every_steps": 0, "every_seconds": 30.0, "keep": 3}
DEFAULT_SMOKE = {"batches": 2, "overfit_steps": 0}


@dataclass(frozen=True)
class RunSpec:
    """One run to train: what determines it (``identity``) and how to run it (``execution``)."""

    experiment: str
    label: str
    group: str
    variant: str
    role: str
    identity: dict[str, Any]
    execution: dict[str, Any] = field(default_factory=dict)
    #: Declared deterministic (``deterministic = true``): its result does not depend on the seed
    #: (a persistence forecast, a lookup table, a zero-shot model). Not part of the key: it says
    #: how verify compares the run, not what the run computes.
    deterministic: bool = False

    @cached_property
    def key(self) -> str:
        """Computed once per spec: a no-op asks for every key several times."""
        return key_of(self.identity)

    @property
    def seed(self) -> int:
        return int(self.identity["seed"])

    @property
    def trainer(self) -> str:
        return str(self.identity["trainer"])

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.identity["config"])

    @property
    def task_name(self) -> str:
        return f"{self.experiment}/{self.label}"

    def to_json(self) -> dict[str, Any]:
        """spec.json: the identity plus names and execution settings (schema ``spec``)."""
        out = {"schema_version": 1, "key": self.key, "experiment": self.experiment,
               "label": self.label, "group": self.group, "variant": self.variant,
               "role": self.role, "identity": self.identity, "execution": self.execution}
        if self.deterministic:  # only when declared: every other spec.json keeps its bytes
            out["deterministic"] = True
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> RunSpec:
        spec = cls(experiment=raw["experiment"], label=raw["label"], group=raw["group"],
                   variant=raw["variant"], role=raw["role"], identity=dict(raw["identity"]),
                   execution=dict(raw.get("execution", {})),
                   deterministic=bool(raw.get("deterministic", False)))
        if raw.get("key") != spec.key:
            raise BadInputError("spec.json", f"recorded key {raw.get('key')!r} does not match "
                                f"the digest of its identity {spec.key!r}", field="key")
        return spec


def key_of(identity: Mapping[str, Any]) -> str:
    """The run key: digest of the canonical JSON of the run's identity. Pinned by golden tests."""
    return digest_json(dict(identity))


@cache
def engine_digest() -> str:
    """Digest of the engine's numerical code (training loop, data preparation, recipe).

    Keyed by logical name and content with engine import paths reduced to module names
    (:func:`evidence.core.codedeps.logical_source`), so moving code between packages keeps keys.
    """
    return digest_json({name: digest_bytes(logical_source(NUMERICS_DIR / name))
                        for name in ENGINE_NUMERIC_MODULES})


def _imported_siblings(path: Path, package_dir: Path) -> set[Path]:
    """Modules of ``package_dir`` imported by ``path`` (``from trainers import x``, ``from . import``)."""
    try:
        tree = ast.parse(read_text(path, kind="Python"), filename=str(path))
    except SyntaxError as error:  # the trainer's own import would fail the same way, later
        raise BadInputError(f"{path}:{error.lineno}", f"not valid Python: {error.msg}") from None
    package = package_dir.name
    found: set[Path] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 or module == package or module.startswith(package + "."):
                base = module.removeprefix(package).lstrip(".") if node.level == 0 else module
                if base:
                    names.append(base.split(".")[0])
                else:
                    names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.extend(alias.name.split(".")[1] for alias in node.names
                         if alias.name.startswith(package + "."))
        for name in names:
            candidate = package_dir / f"{name}.py"
            if candidate.is_file():
                found.add(candidate)
    return found


def trainer_sources(project: Project, trainer: str, source: object) -> list[Path]:
    """The trainer module and, transitively, the sibling trainer modules it imports."""
    safe_name(trainer, source=source, field="trainer")
    main = project.trainers_dir / f"{trainer}.py"
    if not main.is_file():
        raise BadInputError(source, f"trainer {trainer!r} not found: expected {project.relative(main)}",
                            field="trainer", hint="create the trainer module or fix the name")
    seen: set[Path] = set()
    todo = [main]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(_imported_siblings(current, project.trainers_dir) - seen)
    return sorted(seen)


#: A trainer may declare the JSON Schema of its [config] beside it: trainers/<name>.schema.json.
CONFIG_SCHEMA_SUFFIX = ".schema.json"


def check_trainer_config(project: Project, trainer: str, config: Mapping[str, Any], path: Path,
                         *, variant_index: int) -> None:
    """Validate a run's resolved config against ``trainers/<trainer>.schema.json`` if the trainer
    declares one: a wrong type or an out-of-range value is bad input when the experiment is
    loaded (exit 3, naming the experiment and the field), not a traceback minutes into training.
    The schema is read as JSON, so this imports neither the trainer nor torch."""
    schema_path = project.trainers_dir / f"{trainer}{CONFIG_SCHEMA_SUFFIX}"
    if not schema_path.is_file():
        return
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    from evidence.core.schema import field_path

    try:
        schema = json.loads(schema_path.read_text("utf-8"))
        Draft202012Validator.check_schema(schema)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadInputError(schema_path, f"not valid JSON: {error}") from None
    except SchemaError as error:
        raise BadInputError(schema_path, f"not a valid JSON Schema: {error.message}") from None
    errors = sorted(Draft202012Validator(schema).iter_errors(dict(config)),
                    key=lambda e: list(map(str, e.path)))
    if errors:
        first = errors[0]
        field = "config" + ("." + field_path(first) if field_path(first) != "$" else "")
        raise BadInputError(path, f"{first.message} (trainers/{schema_path.name}, variant {variant_index})",
                            field=field, hint=f"see {project.relative(schema_path)}")


def trainer_digest(project: Project, trainer: str, source: object) -> str:
    files = trainer_sources(project, trainer, source)
    return digest_json({project.relative(p): digest_bytes(logical_source(p)) for p in files})


def load_experiment(path: Path) -> dict[str, Any]:
    """Parse and validate ``experiments/<name>.toml``; errors name the file and the field."""
    raw = read_toml(path)
    if raw is None:
        raise BadInputError(path, "experiment file not found")
    validate(raw, "experiment", path)
    non_finite = _first_non_finite(raw)
    if non_finite is not None:
        raise BadInputError(path, "is not a finite number (nan and inf cannot be part of a run key)",
                            field=non_finite)
    return raw


def _first_non_finite(value: Any, where: str = "") -> str | None:
    """Dotted path of the first nan/inf in a parsed TOML value (TOML allows both)."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "$"
    items = (value.items() if isinstance(value, Mapping)
             else enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        found = _first_non_finite(item, f"{where}[{key}]" if isinstance(key, int)
                                  else f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _grid_points(grid: Mapping[str, list[Any]]) -> Iterator[dict[str, Any]]:
    keys = sorted(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        yield dict(zip(keys, values, strict=True))


def _merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in override.items():
        if isinstance(v, Mapping) and isinstance(merged.get(k), Mapping):
            merged[k] = _merge(merged[k], v)
        else:
            merged[k] = v
    return merged


def run_config(raw: Mapping[str, Any], variant: Mapping[str, Any], point: Mapping[str, Any],
               preset_values: Mapping[str, Any], source: object) -> dict[str, Any]:
    """A run's config: ``[config]``, then the preset, the variant's config, the grid point; then
    the experiment's ``[early_stopping]`` resolved into it (see :mod:`evidence.numerics.stopping`)."""
    from evidence.numerics.stopping import resolve_config

    config = _merge(_merge(_merge(raw.get("config", {}), preset_values), variant.get("config", {})), point)
    return resolve_config(raw.get("early_stopping"), config, source)


def _preset_runs(project: Project, raw: Mapping[str, Any], path: Path) -> presets_module.RunConfigs:
    """(trainer, config, data config) of every variant x grid point under given preset values."""

    def runs(values: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
        from evidence.numerics.loaders import config_from_mapping  # numpy: only for presets

        found = []
        for variant in raw.get("variants") or [{"name": raw["trainer"]}]:
            data_cfg = config_from_mapping(project.root, {**raw["data"], **variant.get("data", {})},
                                           path)
            for point in _grid_points({**raw.get("grid", {}), **variant.get("grid", {})}):
                found.append((variant.get("trainer", raw["trainer"]),
                              run_config(raw, variant, point, values, path), data_cfg))
        return found

    return runs


#: Warning lines already printed by this process (an experiment loads many times per call).
_WARNED: set[str] = set()


def _warn(lines: list[str]) -> None:
    """Print each warning line on stderr, once per process."""
    import sys

    for line in lines:
        if line not in _WARNED:
            _WARNED.add(line)
            print(line, file=sys.stderr)


def expand(project: Project, path: Path) -> list[RunSpec]:
    """All run specs of one experiment file, in a stable order (variant, grid point, seed);
    a ``[config]`` value that the preset replaces is named on stderr."""
    specs, warnings = expand_with_warnings(project, path)
    _warn(warnings)
    return specs


def expand_with_warnings(project: Project, path: Path) -> tuple[list[RunSpec], list[str]]:
    """:func:`expand` and the warning lines of the expansion (kept with a memoised expansion, so
    a call answered from the memo says them too)."""
    raw = load_experiment(path)
    experiment = safe_name(path.stem, source=path, field="(file name)")
    variants = raw.get("variants") or [{"name": raw["trainer"]}]
    checkpoint = {**DEFAULT_CHECKPOINT, **raw.get("checkpoint", {})}
    smoke = {**DEFAULT_SMOKE, **raw.get("smoke", {})}
    execution = {"checkpoint": checkpoint, "smoke": smoke, "threads": raw.get("threads", 1)}
    preset = presets_module.resolve(project, path, raw, experiment, _preset_runs(project, raw, path))
    warnings = presets_module.overridden_config(project, path, raw, preset)
    if preset is not None:
        execution["preset"] = preset
    world_size = int(raw.get("world_size", 1))
    device = str(raw.get("device", "cpu"))
    numerics = numerics_profile.identity(str(raw.get("numerics", numerics_profile.DEFAULT)),
                                         int(raw.get("threads", 1)))
    specs: list[RunSpec] = []
    digests: dict[str, str] = {}
    identities: dict[str, dict[str, Any]] = {}
    labels: set[str] = set()
    for index, variant in enumerate(variants):
        trainer = variant.get("trainer", raw["trainer"])
        if trainer not in digests:
            digests[trainer] = trainer_digest(project, trainer, path)
        data_raw = {**raw["data"], **variant.get("data", {})}
        data_key = json.dumps(data_raw, sort_keys=True, default=str)
        if data_key not in identities:
            identities[data_key] = _data_identity(project, data_raw, data_key, path)
        grid = {**raw.get("grid", {}), **variant.get("grid", {})}
        for point in _grid_points(grid):
            config = run_config(raw, variant, point, preset["values"] if preset else {}, path)
            check_trainer_config(project, trainer, config, path, variant_index=index)
            group = variant["name"] + "".join(f"-{k}{_format_value(v)}" for k, v in point.items())
            deterministic = bool(variant.get("deterministic", raw.get("deterministic", False)))
            for seed in variant.get("seeds", raw["seeds"]):
                label = f"{group}-s{seed}"
                if label in labels:
                    raise BadInputError(path, f"two runs would share the label {label!r}",
                                        field=f"variants[{index}].name")
                labels.add(label)
                identity = {
                    "protocol": PROTOCOL_VERSION,
                    "trainer": trainer,
                    "trainer_digest": digests[trainer],
                    "engine_digest": engine_digest(),
                    "config": config,
                    "data": identities[data_key],
                    "seed": seed,
                    "world_size": world_size,
                    "numerics": numerics,
                }
                if device != "cpu":  # CPU identities keep their shape (and their keys)
                    identity["device"] = device
                specs.append(RunSpec(experiment=experiment, label=label, group=group,
                                     variant=variant["name"], role=variant.get("role", "model"),
                                     identity=identity, execution=execution,
                                     deterministic=deterministic))
    return specs, warnings


def _data_identity(project: Project, data_raw: Mapping[str, Any], data_key: str,
                   path: Path) -> dict[str, Any]:
    """The data identity of an experiment's ``[data]``, memoised by stat.

    A built-in table: :func:`evidence.numerics.data.data_identity`; a project dataset
    (``datasets/<name>.py``): :func:`evidence.numerics.loaders.data_identity`. Editing one config
    value re-expands the experiment; without the memo, that imports numpy and re-hashes the
    dataset's files for a value that has not changed. Inputs: the split-digest cache, the engine
    code that computes the identity, and the dataset's files (and, for a project dataset, its
    loader and folders, so an added file counts).
    """
    from evidence.core import memo as memos

    memo = memos.of(project, "data-identity")
    read: list[Path] = []  # the dataset's files, once compute() has found them

    def compute() -> dict[str, Any]:
        from evidence.numerics import loaders
        from evidence.numerics.data import DataConfig, data_identity, raw_file

        config = loaders.config_from_mapping(project.root, data_raw, path)
        if isinstance(config, DataConfig):
            read.append(raw_file(config.dataset))
            identity = data_identity(config, project.cache_dir)
        else:
            identity, files = loaders.data_identity(project, config)
            read.extend(files)
        return {"identity": identity, "raw_files": [str(p) for p in read]}

    loader = project.root / "datasets" / f"{data_raw.get('dataset')}.py"
    value = memo.get(data_key, lambda: [project.cache_dir / "data.json", loader,
                                        *code_files("evidence.numerics.data", "evidence.numerics.loaders"),
                                        *read], compute)
    identity: dict[str, Any] = copy.deepcopy(value["identity"])
    _RAW_FILES[identity["dataset"]] = [Path(p) for p in value.get("raw_files") or [value["raw_file"]]]
    return identity


def experiment_files(project: Project) -> list[Path]:
    return sorted(project.experiments_dir.glob("*.toml"))


#: Dataset name -> the files its identity was computed from (this process; avoids
#: importing evidence.numerics.data, and numpy with it, to list an expansion's inputs).
_RAW_FILES: dict[str, list[Path]] = {}
#: Per-process RunSpec objects of memoised expansions, by the identity of the stored value.
_SPECS: dict[int, tuple[Any, tuple[RunSpec, ...]]] = {}


def expansion_inputs(project: Project, path: Path, specs: Any = None) -> list[Path]:
    """Every file an expansion of ``path`` reads (for :mod:`evidence.core.memo`): the experiment,
    its schema, the trainers and their folder, presets.toml and the experiment's stored
    preset choice, the engine code that expands and keys runs, and the dataset files."""
    from evidence.experiments.presets import PRESETS_FILE, cache_path

    files = [path, ENGINE_DIR / "schemas" / "experiment.schema.json", project.trainers_dir,
             project.root / PRESETS_FILE, cache_path(project, path.stem), project.cache_dir / "data.json",
             *(NUMERICS_DIR / name for name in ENGINE_NUMERIC_MODULES), *code_files(__name__)]
    try:
        with os.scandir(project.trainers_dir) as entries:
            files.extend(Path(e.path) for e in entries if e.name.endswith((".py", CONFIG_SCHEMA_SUFFIX)))
    except FileNotFoundError:
        pass
    datasets = project.root / "datasets"  # a project's own loaders (evidence.numerics.loaders)
    if datasets.is_dir():
        files.append(datasets)
        files.extend(sorted(datasets.glob("*.py")))
    if specs:
        for name in sorted({s["identity"]["data"]["dataset"] for s in specs}):
            if name not in _RAW_FILES:
                identity = next(s["identity"]["data"] for s in specs
                                if s["identity"]["data"]["dataset"] == name)
                _RAW_FILES[name] = _dataset_files(project, identity)
            files.extend(_RAW_FILES[name])
    return sorted(set(files))


def _dataset_files(project: Project, identity: Mapping[str, Any]) -> list[Path]:
    """The files a data identity was computed from (a built-in table's file, or a loader's)."""
    from evidence.numerics import loaders

    config = loaders.config_from_mapping(project.root, identity, "spec")
    if isinstance(config, loaders.ProjectDataConfig):
        files, folders = loaders.declared_files(config, loaders.import_loader(config))
        return [config.loader, *folders, *files]
    from evidence.numerics.data import raw_file

    return [raw_file(config.dataset)]


def expand_cached(project: Project, path: Path) -> tuple[RunSpec, ...]:
    """:func:`expand`, memoised (:mod:`evidence.core.memo`) while the files it reads are unchanged.

    A doit no-op asks for the specs of one experiment once for the train tasks and once per
    figure, table, comparison and claim that selects from it; expanding again (TOML, schema,
    data identity, a digest per key) each time made task construction quadratic, and
    expanding once per process still cost most of a no-op at 10,000 runs.
    """
    from evidence.core import memo as memos

    memo = memos.of(project, "specs")
    stored: list[dict[str, Any]] = []

    def compute() -> dict[str, Any]:
        specs, warnings = expand_with_warnings(project, path)
        stored[:] = [spec.to_json() for spec in specs]
        return {"specs": stored, "warnings": warnings}

    value = memo.get(str(path), lambda: expansion_inputs(project, path, stored or None), compute)
    _warn(value["warnings"])
    cached = _SPECS.get(id(value))
    if cached is not None and cached[0] is value:
        return cached[1]
    specs = tuple(_from_stored(raw) for raw in value["specs"])
    _SPECS[id(value)] = (value, specs)
    return specs


def _from_stored(raw: dict[str, Any]) -> RunSpec:
    spec = RunSpec(experiment=raw["experiment"], label=raw["label"], group=raw["group"],
                   variant=raw["variant"], role=raw["role"], identity=raw["identity"],
                   execution=raw["execution"], deterministic=bool(raw.get("deterministic", False)))
    spec.__dict__["key"] = raw["key"]  # the cached_property, as computed when it was stored
    return spec


def expand_all(project: Project) -> list[RunSpec]:
    """Every run spec of every experiment of the project."""
    return [spec for path in experiment_files(project) for spec in expand_cached(project, path)]
