"""Select sealed runs by experiment and filters, never by hand-typed run ids.

Figures, tables, comparisons and claims all say *which* runs they read the same way: an
experiment name plus filters on the run's group, variant, role or config values. The selection
expands the experiment into its run specs (so it knows every run that *should* exist) and then
looks up the newest sealed run of each spec's key; a run that is not trained yet is an error
that says which target to build, not a silently smaller sample.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from evidence.errors import BadInputError, EvidenceError
from evidence.project import Project, safe_name
from evidence.spec import RunSpec, expand
from evidence.store import RunStore, SealedRun, run_id_for

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
            if name in SPEC_FILTERS:
                actual: Any = getattr(spec, name)
            elif name == "seed":
                actual = spec.seed
            elif name.startswith("config."):
                actual = spec.config.get(name.removeprefix("config."))
            else:
                actual = spec.config.get(name)
            options = wanted if isinstance(wanted, tuple) else (wanted,)
            if actual not in options:
                return False
        return True


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


@cache
def _expanded(root: Path, experiment: str, mtime_ns: int) -> tuple[RunSpec, ...]:
    project = Project(root)
    return tuple(expand(project, project.experiments_dir / f"{experiment}.toml"))


def specs_of(project: Project, experiment: str) -> tuple[RunSpec, ...]:
    """Run specs of one experiment (memoised per process while the file is unchanged)."""
    path = project.experiments_dir / f"{experiment}.toml"
    if not path.is_file():
        raise BadInputError(path, f"experiment {experiment!r} does not exist")
    return _expanded(project.root, experiment, path.stat().st_mtime_ns)


def select(project: Project, selection: Selection, *, require_sealed: bool = False,
           source: object = None) -> list[SelectedRun]:
    """The runs a selection names, in spec order; with ``require_sealed`` all must be sealed."""
    store = RunStore(project.runs_dir)
    chosen = []
    for spec in specs_of(project, selection.experiment):
        if not selection.matches(spec):
            continue
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
    return chosen


def results_paths(project: Project, runs: Sequence[SelectedRun]) -> list[str]:
    """Paths of the runs' results.json (predicted for runs not trained yet), for doit file_dep."""
    return [str(project.runs_dir / r.run_id / "results.json") for r in runs]
