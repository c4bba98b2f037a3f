"""Select sealed runs by experiment and filters, never by hand-typed run ids.

Figures, tables, comparisons and claims all say *which* runs they read the same way: an
experiment name plus filters on the run's group, variant, role or config values. The selection
expands the experiment into its run specs (so it knows every run that *should* exist) and then
looks up the newest sealed run of each spec's key; a run that is not trained yet is an error
that says which target to build, not a silently smaller sample.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidence.core.errors import BadInputError, EvidenceError, IntegrityError
from evidence.core.hashing import digest_file
from evidence.core.project import Project, safe_name
from evidence.experiments.spec import RunSpec, expand_cached
from evidence.store.runs import RunStore, SealedRun, run_id_for

SPEC_FILTERS = ("group", "variant", "role", "label")


@dataclass(frozen=True)
class Selection:
    """Which runs to read: an experiment and equality filters (values may be lists = any of)."""

    experiment: str
    where: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], source: object, field: str) -> Selection:
        if not isinstance(raw, Mapping) or "experiment" not in raw:
            raise BadInputError(source, "a selection needs an 'experiment'", field=field)
        safe_name(str(raw["experiment"]), source=source, field=f"{field}.experiment")
        where = raw.get("where", {})
        if not isinstance(where, Mapping):
            raise BadInputError(source, "'where' must be a table of filters", field=f"{field}.where")
        return cls(str(raw["experiment"]), tuple(sorted((str(k), _freeze(v)) for k, v in where.items())))

    def to_dict(self) -> dict[str, Any]:
        return {"experiment": self.experiment,
                "where": {k: list(v) if isinstance(v, tuple) else v for k, v in self.where}}

    def matches(self, spec: RunSpec) -> bool:
        for name, wanted in self.where:
            options = wanted if isinstance(wanted, tuple) else (wanted,)
            if field_value(spec, name) not in options:
                return False
        return True


def field_value(spec: RunSpec, name: str) -> Any:
    """The value a ``where`` filter called ``name`` compares against."""
    if name in SPEC_FILTERS:
        return getattr(spec, name)
    if name == "seed":
        return spec.seed
    config = spec.identity["config"]
    return config.get(name.removeprefix("config.") if name.startswith("config.") else name)


class _SpecIndex:
    """An experiment's specs indexed by filter value, so a selection costs its matches.

    Without it every figure matched every spec of its experiment: 1,000 figures over 10,000
    runs made ten million comparisons on every no-op. Values that cannot be hashed (a list in
    a config) fall back to matching every spec.
    """

    def __init__(self, specs: tuple[RunSpec, ...]) -> None:
        self.specs = specs
        self._by_field: dict[str, dict[Any, list[int]] | None] = {}

    def _index(self, name: str) -> dict[Any, list[int]] | None:
        if name not in self._by_field:
            index: dict[Any, list[int]] | None = {}
            try:
                for position, spec in enumerate(self.specs):
                    index.setdefault(field_value(spec, name), []).append(position)  # type: ignore[union-attr]
            except TypeError:
                index = None
            self._by_field[name] = index
        return self._by_field[name]

    def matching(self, selection: Selection) -> list[RunSpec]:
        positions: set[int] | None = None
        for name, wanted in selection.where:
            index = self._index(name)
            if index is None:
                return [s for s in self.specs if selection.matches(s)]
            hits: set[int] = set()
            for option in wanted if isinstance(wanted, tuple) else (wanted,):
                try:
                    hits.update(index.get(option, ()))
                except TypeError:
                    return [s for s in self.specs if selection.matches(s)]
            positions = hits if positions is None else positions & hits
        if positions is None:
            return list(self.specs)
        return [self.specs[i] for i in sorted(positions)]


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class SelectedRun:
    """A spec and its sealed run (``run`` is None when it is not trained yet)."""

    spec: RunSpec
    run_id: str
    run: SealedRun | None

    @property
    def results_path(self) -> Path:
        if self.run is None:
            raise EvidenceError(f"run {self.spec.task_name} is not trained")
        return self.run.path / "results.json"


_INDEXES: dict[int, _SpecIndex] = {}


def specs_of(project: Project, experiment: str, *, source: object = None) -> tuple[RunSpec, ...]:
    """Run specs of one experiment (memoised per process while its inputs are unchanged)."""
    path = project.experiments_dir / f"{experiment}.toml"
    if not path.is_file():
        raise missing_experiment(project, experiment, source)
    return expand_cached(project, path)


def _referring_files(project: Project) -> list[Path]:
    """The files that name experiments: figure and table specs, the comparisons, the claims."""
    found = [*sorted(project.figures_dir.glob("*/figure.toml")),
             *sorted(project.tables_dir.glob("*/table.toml"))]
    return [*found, project.root / "comparisons.toml", project.evidence_file]


def _fields_naming(value: Any, experiment: str, path: str = "") -> list[str]:
    """Dotted paths of every ``experiment`` key in ``value`` whose value is ``experiment``."""
    found = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if key == "experiment" and item == experiment:
                found.append(where)
            else:
                found += _fields_naming(item, experiment, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _fields_naming(item, experiment, f"{path}[{index}]")
    return found


def referrers(project: Project, experiment: str) -> dict[str, list[str]]:
    """project-relative file -> the fields of it that name ``experiment`` (files that do not
    parse are left to their own error)."""
    from evidence.core.schema import read_toml

    found: dict[str, list[str]] = {}
    for path in _referring_files(project):
        try:
            raw = (json.loads(path.read_bytes()) if path.suffix == ".json" and path.is_file()
                   else read_toml(path) if path.suffix == ".toml" else None)
        except (EvidenceError, OSError, ValueError):
            continue
        fields = _fields_naming(raw, experiment) if raw is not None else []
        if fields:
            found[project.relative(path)] = fields
    return found


def missing_experiment(project: Project, experiment: str, source: object = None) -> BadInputError:
    """The error for a selection of an experiment that has no file: it names the specs that
    still refer to it (what the user must edit after renaming the file) and what exists instead."""
    found = referrers(project, experiment)
    shown = project.relative(Path(str(source))) if source is not None else None
    first = shown if shown in found else next(iter(found), shown)
    where = first if first is not None else project.relative(project.experiments_dir / f"{experiment}.toml")
    others = [f"{name} ({', '.join(fields)})" for name, fields in found.items() if name != first]
    present = sorted(p.stem for p in project.experiments_dir.glob("*.toml"))
    message = (f"refers to experiment {experiment!r}, but there is no "
               f"{project.relative(project.experiments_dir)}/{experiment}.toml (the experiments "
               f"are: {', '.join(present) or 'none'})")
    if others:
        message += f"; also referring to it: {'; '.join(others)}"
    field = ", ".join(found.get(first, [])) if first is not None else None
    return BadInputError(where, message, field=field or None,
                         hint="renamed it? update each of these files, or give the file its old name back")


def _index_of(specs: tuple[RunSpec, ...]) -> _SpecIndex:
    index = _INDEXES.get(id(specs))
    if index is None or index.specs is not specs:
        index = _INDEXES[id(specs)] = _SpecIndex(specs)
    return index


def select(project: Project, selection: Selection, *, require_sealed: bool = False,
           source: object = None) -> list[SelectedRun]:
    """The runs a selection names, in spec order; with ``require_sealed`` all must be sealed."""
    store = RunStore(project.runs_dir)
    chosen = []
    for spec in _index_of(specs_of(project, selection.experiment, source=source)).matching(selection):
        run = store.find(spec.key)
        chosen.append(SelectedRun(spec, run.run_id if run else run_id_for(spec.key), run))
    if not chosen:
        raise BadInputError(source or selection.experiment,
                            f"selection {selection.to_dict()} matches no run of experiment "
                            f"{selection.experiment!r}", field="where")
    if require_sealed:
        missing = [c.spec.task_name for c in chosen if c.run is None]
        if missing:
            raise EvidenceError(f"{len(missing)} selected run(s) are not trained: "
                                f"{', '.join(missing[:5])}", hint="run `doit train` first")
        for c in chosen:
            problem = damaged(store, c.run_id)
            if problem:  # a damaged run is never read into a figure, a table or a statistic
                raise IntegrityError(f"sealed run {project.relative(project.runs_dir)}/{problem} "
                                     f"({c.spec.task_name}); it is not used",
                                     hint="`doit fsck` names every damaged file; restore the run "
                                          "from a copy, or `evidence rerun` it")
    return chosen


#: The files of a run that presentation and statistics read, re-hashed before each use.
READ_FILES = ("results.json", "metrics.jsonl")


def damaged(store: RunStore, run_id: str) -> str | None:
    """Why a sealed run must not be used (its quick check fails, or a file read from it differs
    from its manifest digest), or None. The read files are small; the weights are fsck's."""
    finding = store.quick_check(run_id)
    if finding is not None:
        return str(finding)
    run_path = store.path(run_id)
    try:
        listed = json.loads((run_path / "manifest.json").read_text("utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"{run_id}/manifest.json: unreadable ({error})"
    for name in READ_FILES:
        entry = listed.get(name)
        if entry is not None and digest_file(run_path / name) != entry.get("digest"):
            return f"{run_id}/{name}: content differs from its manifest digest"
    return None


def results_paths(project: Project, runs: Sequence[SelectedRun]) -> list[str]:
    """Paths of the runs' results.json (predicted for runs not trained yet), for doit file_dep."""
    return [str(project.runs_dir / r.run_id / "results.json") for r in runs]
