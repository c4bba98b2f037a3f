"""Figures and tables, step one and the shared parts: specs, sealed runs -> ``source_data.csv``.

Why it is built this way:

* **Two steps, two sidecars.** Step one (here) reads the selected runs' ``results.json`` and
  ``metrics.jsonl`` and writes the tidy ``source_data.csv`` plus ``source_data.provenance.json``
  (every run file by digest). Step two (:mod:`evidence.present.render`) reads that CSV and
  nothing else of the evidence and writes the images (or ``table.md``/``table.tex``) plus
  ``<artifact>.provenance.json``, which carries step one's input digests forward, so one
  sidecar names everything from run files to pixels. Anyone can re-plot from the CSV alone,
  and doit (:mod:`evidence.tasks.artifacts`) orders and caches the two steps separately.
* **Selections, never run ids.** A spec says *which* runs it reads as experiments plus filters
  (:class:`evidence.experiments.select.Selection`); the run ids are resolved at build time and recorded.
* **Deterministic bytes.** Rows are sorted, floats written by ``repr``, sidecars have sorted
  keys and no timestamps, and a file whose bytes did not change is not rewritten (its mtime
  stays, so doit's checker short-cuts on it).
* **Nothing stale looks valid.** A step that fails deletes what it would have published.

Folder layout: ``figures/<name>/figure.toml`` (+ ``plot.py`` for ``kind = "custom"``) and
``tables/<name>/table.toml``; see ``schemas/figure.schema.json`` and ``table.schema.json``.
This module imports neither matplotlib nor pandas: doit imports it on every no-op, which must
stay fast.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from evidence.core import memo as memos
from evidence.core import provenance
from evidence.core.codedeps import ENGINE_DIR, code_files
from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.hashing import canonical_json, digest_bytes, digest_file, digest_json, write_bytes_atomic
from evidence.core.project import Project, safe_name
from evidence.core.readers import read_toml
from evidence.core.schema import validate
from evidence.experiments.select import SelectedRun, Selection, select

ARTIFACTS = ("figure", "table")
SOURCE_DATA = "source_data.csv"
SOURCE_SIDECAR = "source_data.provenance.json"
DEFAULT_FORMATS = ("png", "pdf", "svg")
#: The module whose code makes each step's bytes; its engine imports are derived
#: (:mod:`evidence.core.codedeps`) for the step's file_dep and its sidecar's code digest.
SOURCE_MODULE = __name__
RENDER_MODULE = "evidence.present.render"
EXPECTED_MAX_COLUMNS = ("group", "trials", "expected_max", "variance", "sd", "low", "high",
                        "n_configs", "experiment", "metric", "split", "direction")
SD_OF_MAX = "±1 SD of the best-of-k score"


@dataclass(frozen=True)
class Artifact:
    """One figure or table folder and its validated spec."""

    project: Project
    artifact: str  # "figure" or "table"
    name: str
    spec: dict[str, Any]
    selections: tuple[tuple[Selection, str | None], ...]  # (selection, series name)

    @cached_property
    def folder(self) -> Path:
        base = self.project.figures_dir if self.artifact == "figure" else self.project.tables_dir
        return base / self.name

    @cached_property
    def spec_path(self) -> Path:
        return self.folder / f"{self.artifact}.toml"

    @property
    def script(self) -> Path | None:
        """``plot.py`` of a custom figure, else None."""
        return self.folder / "plot.py" if self.spec.get("kind") == "custom" else None

    @property
    def source(self) -> str:
        return str(self.spec.get("source", "runs"))

    @cached_property
    def source_data(self) -> Path:
        return self.folder / SOURCE_DATA

    @cached_property
    def source_sidecar(self) -> Path:
        return self.folder / SOURCE_SIDECAR

    @cached_property
    def sidecar(self) -> Path:
        return self.folder / f"{self.artifact}.provenance.json"

    @cached_property
    def outputs(self) -> dict[str, Path]:
        """The published files by format (``png``.. or ``md``/``tex``), sidecar excluded."""
        if self.artifact == "table":
            return {"md": self.folder / "table.md", "tex": self.folder / "table.tex"}
        formats = self.spec.get("formats", DEFAULT_FORMATS)
        return {fmt: self.folder / f"figure.{fmt}" for fmt in formats}

    def rel(self, path: Path) -> str:
        return self.project.relative(path)

    @property
    def shown(self) -> str:
        """``figures/<name>`` (or ``tables/<name>``) as the user names it, for messages and
        task docs; :meth:`rel` resolves symlinks, which costs a syscall per path component."""
        return shown_folder(self.artifact, self.name)

    def plot_spec(self) -> dict[str, Any]:
        """The spec handed to the plotting/table code: the file's keys plus ``name``."""
        return {**self.spec, "name": self.name}


# --------------------------------------------------------------------------- specs


def shown_folder(artifact: str, name: str) -> str:
    """``figures/<name>`` or ``tables/<name>``, lexically (see :attr:`Artifact.shown`)."""
    return f"{'figures' if artifact == 'figure' else 'tables'}/{name}"


#: Per-process memo of loaded specs: (spec file, mtime, size, plot.py present) -> Artifact.
_LOADED: dict[tuple[Path, int, int, bool], Artifact] = {}


def load(project: Project, artifact: str, name: str) -> Artifact:
    """Read and validate ``<figures|tables>/<name>/<artifact>.toml``; BadInputError names the field.

    Memoised per process while the file is unchanged: the figure, table and deliver tasks
    all load every spec while doit builds its task list.
    """
    folder = (project.figures_dir if artifact == "figure" else project.tables_dir) / name
    path = folder / f"{artifact}.toml"
    shown = f"{shown_folder(artifact, name)}/{artifact}.toml"
    safe_name(name, source=shown, field="(folder name)")
    try:
        st = path.stat()
    except FileNotFoundError as exc:
        raise BadInputError(shown, f"no {artifact}.toml in {project.relative(folder)}") from exc
    memo_key = (path, st.st_mtime_ns, st.st_size, (folder / "plot.py").is_file())
    loaded = _LOADED.get(memo_key)
    if loaded is None:
        loaded = _LOADED[memo_key] = _load(project, artifact, name, folder, path, shown)
    return loaded


def _parse(project: Project, artifact: str, folder: Path, path: Path, shown: str) -> dict[str, Any]:
    raw = read_toml(path, shown)
    if raw is None:
        raise BadInputError(shown, f"no {artifact}.toml in {project.relative(folder)}")
    validate(raw, artifact, shown)
    return raw


def _load(project: Project, artifact: str, name: str, folder: Path, path: Path, shown: str) -> Artifact:
    # The validated spec is memoised across processes while the file and its schema are
    # unchanged: validating 1,000 specs took a second of every no-op.
    raw: dict[str, Any] = memos.validated(project, path, artifact,
                                          partial(_parse, project, artifact, folder, path, shown))
    selections = tuple((Selection.from_mapping(s, shown, f"select[{i}]"), s.get("series"))
                       for i, s in enumerate(raw["select"]))
    script = folder / "plot.py"
    if raw.get("kind") == "custom" and not script.is_file():
        raise BadInputError(shown, f"kind 'custom' needs {project.relative(script)} defining "
                            "plot(df, spec) -> matplotlib.figure.Figure", field="kind")
    if artifact == "figure" and raw.get("kind") != "custom" and script.is_file():
        raise BadInputError(shown, f"{project.relative(script)} exists but kind is "
                            f"{raw.get('kind')!r}", field="kind", hint="set kind = \"custom\"")
    return Artifact(project, artifact, name, raw, selections)


def discover(project: Project, artifact: str) -> list[Artifact]:
    """Every ``<artifact>.toml`` folder under figures/ or tables/, sorted by name."""
    base = project.figures_dir if artifact == "figure" else project.tables_dir
    if not base.is_dir():
        return []
    return [load(project, artifact, p.name) for p in sorted(base.iterdir())
            if (p / f"{artifact}.toml").is_file()]


def selected_runs(art: Artifact, *, require_sealed: bool = False,
                  ) -> list[tuple[SelectedRun, str | None]]:
    """The runs every selection names (with its series name), duplicates dropped."""
    seen: set[tuple[str, str | None]] = set()
    chosen = []
    for selection, series in art.selections:
        for run in select(art.project, selection, require_sealed=require_sealed,
                          source=f"{art.shown}/{art.artifact}.toml"):
            if (run.run_id, series) not in seen:
                seen.add((run.run_id, series))
                chosen.append((run, series))
    return chosen


def check_order(art: Artifact) -> None:
    """Refuse an ``order`` that leaves out groups the selections pick.

    ``order`` orders what is drawn; a selected group missing from it was dropped without a word
    (the gate then passed on what was left). Selecting is ``[[select]]``'s job, so the error
    names the groups and both ways out. A group is a selection's ``series`` when it sets one,
    else the run's group (its variant for an ``expected_max`` source), as in the source data.
    """
    order = art.spec.get("order")
    if order is None:
        return
    wanted = {str(g) for g in order}
    left_out: dict[str, int] = {}
    for run, series in selected_runs(art):
        group = series or (run.spec.variant if art.source == "expected_max" else run.spec.group)
        if group not in wanted:
            left_out[group] = left_out.get(group, 0) + 1
    if left_out:
        n = sum(left_out.values())
        raise BadInputError(f"{art.shown}/{art.artifact}.toml",
                            f"the selection picks group(s) {sorted(left_out)} ({n} selected run"
                            f"{'' if n == 1 else 's'}) that 'order' leaves out; the {art.artifact} "
                            "would drop them without a word", field="order",
                            hint="add them to 'order', or narrow [[select]] with where = { group = [...] }")


def run_files(art: Artifact) -> list[Path]:
    """results.json and metrics.jsonl of each selected run (predicted where not trained yet)."""
    return [Path(p) for p in run_file_paths(art)]


def run_file_paths(art: Artifact) -> list[str]:
    """:func:`run_files` as strings (doit's file_dep), without a Path object per file."""
    runs_dir = str(art.project.runs_dir)
    return [f"{runs_dir}{os.sep}{run.run_id}{os.sep}{name}" for run, _ in selected_runs(art)
            for name in ("results.json", "metrics.jsonl")]


def step_code(step: str) -> list[Path]:
    """The engine files the ``source_data`` or the render step depends on."""
    return code_files(SOURCE_MODULE if step == "source_data" else RENDER_MODULE)


# --------------------------------------------------------------------------- step 1: source data


def _cell(value: Any) -> str:
    """CSV text: floats by repr (exact round trip), other non-strings as canonical JSON."""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if value is None:
        return ""
    return value if isinstance(value, str) else canonical_json(value)


def _flatten(config: Mapping[str, Any], prefix: str = "config.") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in config.items():
        if isinstance(value, Mapping):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = _cell(value)
    return out


def tidy_rows(art: Artifact) -> tuple[list[str], list[dict[str, Any]]]:
    """Columns and rows of a ``runs`` source: final values, then per-epoch history.

    One row per run x split x metric of results.json (``epoch`` empty) and one per run x
    epoch x ``<split>/<metric>`` key of metrics.jsonl (keys whose metric has no direction in
    results.json are left out: the plotting code needs a direction). ``group`` is the
    selection's ``series`` when it sets one, else the run's group.
    """
    rows: list[dict[str, Any]] = []
    config_columns: set[str] = set()
    for run, series in selected_runs(art, require_sealed=True):
        assert run.run is not None  # require_sealed
        results = run.run.results
        config = _flatten(run.spec.config)
        config_columns.update(config)
        base = {"run_id": run.run_id, "experiment": run.spec.experiment, "label": run.spec.label,
                "group": series or run.spec.group, "seed": run.spec.seed, **config}
        directions = {m: v["direction"] for m, v in results["metrics"].items()}
        for metric, entry in results["metrics"].items():
            for split, value in entry["values"].items():
                rows.append({**base, "epoch": None, "split": split, "metric": metric,
                             "value": float(value), "direction": directions[metric]})
        for record in run.run.metrics_history():
            for key, value in record.items():
                split, _, metric = key.partition("/")
                if metric in directions and isinstance(value, int | float):
                    rows.append({**base, "epoch": int(record["epoch"]), "split": split,
                                 "metric": metric, "value": float(value),
                                 "direction": directions[metric]})
    rows.sort(key=lambda r: (r["experiment"], r["group"], r["seed"], r["run_id"],
                             r["epoch"] is not None, r["epoch"] or 0, r["split"], r["metric"]))
    columns = ["run_id", "experiment", "label", "group", "seed", "epoch", "split", "metric",
               "value", "direction", *sorted(config_columns)]
    return columns, rows


def _selection_score(results: Mapping[str, Any], source: str) -> tuple[str, str, str, float]:
    """``(metric, split, direction, value)`` a run was selected by (results.json)."""
    metric = str(results.get("selection_metric", ""))
    if metric not in results["metrics"]:
        raise EvidenceError(f"{source}: run {results.get('run_id')} has no selection_metric "
                            f"in its metrics ({sorted(results['metrics'])})")
    split = next((e["split"] for e in results.get("evaluations", [])
                  if e.get("purpose") == "selection"), "val")
    entry = results["metrics"][metric]
    return metric, split, str(entry["direction"]), float(entry["values"][split])


def expected_max_rows(art: Artifact) -> tuple[list[str], list[dict[str, Any]]]:
    """Rows of an ``expected_max`` source: E[best of k] for k = 1..n per series.

    A series is the selection's ``series`` name, else each run's variant; its trials are its
    runs, scored by their selection metric on their selection split (Dodge et al. 2019).
    """
    from evidence.verify import stats

    where = art.rel(art.spec_path)
    groups: dict[str, list[tuple[str, str, str, float, str]]] = {}
    for run, series in selected_runs(art, require_sealed=True):
        assert run.run is not None
        score = _selection_score(run.run.results, where)
        groups.setdefault(series or run.spec.variant, []).append((*score, run.spec.experiment))
    rows: list[dict[str, Any]] = []
    for group, scores in sorted(groups.items()):
        kinds = {s[:3] for s in scores}
        if len(kinds) != 1:
            raise EvidenceError(f"{where}: the runs of series {group!r} were selected by "
                                f"different metrics/splits/directions: {sorted(kinds)}")
        metric, split, direction = kinds.pop()
        values = [s[3] for s in scores]
        best = stats.expected_max_validation(values, direction=direction)  # type: ignore[arg-type]
        var = stats.expected_max_validation_var(values, direction=direction)  # type: ignore[arg-type]
        experiments = "+".join(sorted({s[4] for s in scores}))
        for k, (em, v) in enumerate(zip(best.tolist(), var.tolist(), strict=True), start=1):
            sd = math.sqrt(v)
            rows.append({"group": group, "trials": k, "expected_max": em, "variance": v,
                         "sd": sd, "low": em - sd, "high": em + sd, "n_configs": len(values),
                         "experiment": experiments, "metric": metric, "split": split,
                         "direction": direction})
    return list(EXPECTED_MAX_COLUMNS), rows


def csv_bytes(columns: list[str], rows: list[dict[str, Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return buffer.getvalue().encode("utf-8")


def build_source(art: Artifact) -> dict[str, Any]:
    """Step one: write source_data.csv and its sidecar; on failure remove both."""
    try:
        check_order(art)
        columns, rows = (expected_max_rows if art.source == "expected_max" else tidy_rows)(art)
        data = csv_bytes(columns, rows)
        runs = sorted({r.run_id for r, _ in selected_runs(art)})
        inputs = {art.rel(p): digest_file(p) for p in [*run_files(art), art.spec_path]}
        record = make_sidecar(art, "source_data", runs, inputs, step_code("source_data"),
                          {art.rel(art.source_data): digest_bytes(data)},
                          rows=len(rows), columns=columns)
        publish(art.source_data, data)
        publish(art.source_sidecar, json_bytes(record))
        return record
    except BaseException:
        unpublish([art.source_data, art.source_sidecar])
        raise


# --------------------------------------------------------------------------- sidecars and files


def make_sidecar(art: Artifact, step: str, runs: list[str], inputs: dict[str, str],
             code: list[Path], outputs: dict[str, str], **extra: Any) -> dict[str, Any]:
    files = {p.relative_to(ENGINE_DIR.parent).as_posix(): digest_file(p) for p in code}
    git = provenance.git_state(art.project.root)
    record = {"schema_version": 1, "step": step, "artifact": art.artifact, "name": art.name,
              "source": art.source, "spec": art.rel(art.spec_path),
              "selections": [s.to_dict() | ({"series": n} if n else {})
                             for s, n in art.selections],
              "runs": runs, "inputs": inputs, "code": {"digest": digest_json(files), "files": files},
              # the last commit of the inputs, not HEAD: committing the outputs changes no input
              "git": {"commit": git.get("inputs_commit"), "dirty": git.get("dirty")},
              "packages": provenance.package_versions(), "outputs": outputs, **extra}
    if art.spec.get("kind"):
        record["kind"] = art.spec["kind"]
    validate(record, "sidecar", art.rel(art.folder / f"{step}.provenance.json"))
    return record


def json_bytes(value: Any) -> bytes:
    canonical_json(value)  # rejects NaN and infinities with the path of the offender
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def publish(path: Path, data: bytes) -> bool:
    """Write ``data`` atomically unless the file already holds exactly these bytes."""
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, data)
    return True


def unpublish(paths: Iterable[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def read_sidecar(path: Path) -> dict[str, Any]:
    try:
        value: dict[str, Any] = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise EvidenceError(f"{path}: cannot read the sidecar ({exc})",
                            hint="run `doit figures` / `doit tables` to rebuild it") from exc
    validate(value, "sidecar", path)
    return value


# --------------------------------------------------------------------------- index


def _index(project: Project, artifact: str) -> list[dict[str, Any]]:
    entries = []
    for art in discover(project, artifact):
        built = art.sidecar.is_file() and all(p.is_file() for p in art.outputs.values())
        record = memos.validated(project, art.sidecar, "sidecar", partial(read_sidecar, art.sidecar)) \
            if built else {}
        entry = {"name": art.name, "kind": art.spec.get("kind", art.source),
                 "title": art.spec.get("title"), "caption": record.get("caption"),
                 "spread": record.get("spread"),
                 "sidecar": art.rel(art.sidecar), "source_data": art.rel(art.source_data),
                 "built": built}
        files = {fmt: art.rel(p) for fmt, p in art.outputs.items()}
        if artifact == "figure":
            entry["images"] = files
        else:
            entry.update(markdown=files["md"], latex=files["tex"])
        entries.append(entry)
    return entries


def presentation_files(project: Project) -> list[Path]:
    """Sidecar and published files of every figure and table, without reading any of them
    (the deliver tasks' dependencies; :func:`figure_index` reads the sidecars)."""
    files = []
    for artifact in ARTIFACTS:
        for art in discover(project, artifact):
            files.append(art.sidecar)
            files.extend(art.outputs.values())
    return files


def figure_index(project: Project) -> list[dict[str, Any]]:
    """Every figure: name, kind, caption, spread, images by format, sidecar, source_data, built.

    Paths are project-relative POSIX strings; caption and spread come from the built sidecar
    (None until ``doit figures`` ran), so a paper embeds exactly what the build checked.
    """
    return _index(project, "figure")


def table_index(project: Project) -> list[dict[str, Any]]:
    """Every table: name, caption, spread, markdown, latex, sidecar, source_data, built."""
    return _index(project, "table")
