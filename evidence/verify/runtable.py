"""The table of runs behind ``evidence show`` and the deliverable's evidence page.

A researcher wants to *see* the runs before writing a sentence: which configurations ran, their
metrics across seeds, which comparisons hold. This module builds that table as plain values;
:mod:`evidence.ops.show` prints it and :mod:`evidence.deliver.evidencepage` renders it.

Where each column comes from (nothing is trained, nothing is recomputed that the build keeps):

* **which runs exist**: every experiment's run specs (the memoised expansion the build uses,
  :func:`evidence.experiments.spec.expand_cached`), each looked up in the store's listing;
* **status**: ``sealed``; ``damaged`` when what show reads does not check out (the run's manifest,
  the sizes of the files it lists, results.json against its digest: the checks a figure's read
  makes; a damaged weights file is ``doit fsck``'s to find); ``running``, ``failed`` or
  ``interrupted`` from the run's ``.evidence/work/<id>/status.json``; else ``not yet run``;
* **metrics**: each sealed run's ``results.json``, read and checked once and then memoised by the
  stat of its results.json (``.evidence/cache/memo-show-results.json``), so at 10,000
  runs a second look reads no run file; the declared runs likewise, by the files their expansion
  is memoised by (``memo-show-specs.json``);
* **intervals**: the mean over seeds with its Student-t interval, by the very function the
  paper's numbers use (:func:`evidence.verify.stats.t_interval_mean`), imported only when some
  row has two values to make an interval of;
* **verdicts**: the verify report (``build/verify/report.json``) when it has been built: a row
  is part of a comparison when one of its runs is one of the comparison's.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from evidence.core import memo as memos
from evidence.core.errors import BadInputError
from evidence.core.processes import pid_alive
from evidence.core.project import Project
from evidence.experiments.spec import RunSpec, expand_cached, experiment_files
from evidence.store.runs import MANIFEST, RUN_ID_LENGTH, listed_run_ids, run_id_for

#: The runner's progress record in a run's work folder (evidence.train.runner.PROGRESS_FILE).
PROGRESS_FILE = "status.json"
#: Statuses, in the order a reader triages them.
STATUSES = ("sealed", "running", "interrupted", "failed", "damaged", "not yet run")
#: The spec fields a ``--where`` filter may name besides config keys.
SPEC_FIELDS = ("experiment", "group", "variant", "role", "label", "seed", "status", "run_id")


@dataclass(slots=True)
class RunRow:
    """One declared run: its identity, where it stands and what it measured."""

    experiment: str
    variant: str
    group: str
    label: str
    seed: int
    role: str
    key: str
    run_id: str
    status: str
    detail: str  # why damaged or failed; the step of a running run
    config: dict[str, Any]  # flattened ("optim.lr")
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {direction, values}
    identity: Mapping[str, Any] = field(default_factory=dict, repr=False)  # the run key's fields


@dataclass(slots=True)
class Summary:
    """A metric of one row on one split: the mean over its runs with the Student-t interval."""

    mean: float | None
    low: float | None
    high: float | None
    n: int
    method: str  # "student-t", "none" (one value, or no finite spread), "value" (one run)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci_low": self.low, "ci_high": self.high, "n": self.n,
                "method": self.method, "note": self.note}


@dataclass(slots=True)
class Row:
    """One row of the table: a variant's grid point over its seeds, or one run (``--runs``)."""

    experiment: str
    group: str
    label: str  # the group (variants) or the run's label (runs)
    role: str
    config: dict[str, Any]
    runs: list[RunRow]
    summaries: dict[str, dict[str, Summary]] = field(default_factory=dict)  # metric -> split -> Summary
    verdicts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.experiment}/{self.label}"

    @property
    def status_counts(self) -> dict[str, int]:
        if len(self.runs) == 1:
            return {self.runs[0].status: 1}
        counts = Counter(r.status for r in self.runs)
        return {s: counts[s] for s in STATUSES if counts[s]}

    @property
    def status_text(self) -> str:
        counts = self.status_counts
        if len(self.runs) == 1:
            return self.runs[0].status
        return ", ".join(f"{n} {s}" for s, n in counts.items())


@dataclass
class Table:
    """What ``evidence show`` shows: rows, the config keys that differ between them, metrics."""

    mode: str  # "variants" or "runs"
    rows: list[Row]
    differing: list[str]  # config keys whose values differ between rows
    metrics: list[tuple[str, str]]  # (metric, direction), in display order
    splits: list[str]
    verify: dict[str, Any]  # {"report": path or None, "stale": bool, "note": str}


# -- reading -----------------------------------------------------------------------------------


def flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"optim": {"lr": 0.1}}`` -> ``{"optim.lr": 0.1}``: one column per leaf."""
    flat: dict[str, Any] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def result_metrics(results: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{metric: {"direction": d, "values": {split: float | None}}}`` of one results.json.

    A value the runner recorded as non-finite (its 0.0 placeholder beside a ``nonfinite_<metric>``
    diagnostic, as :mod:`evidence.verify.report` reads it) is None, as is any non-number.
    """
    diagnostics = results.get("diagnostics") or {}
    found: dict[str, dict[str, Any]] = {}
    for name, entry in (results.get("metrics") or {}).items():
        if not isinstance(entry, Mapping):
            continue
        flagged = isinstance(diagnostics, Mapping) and diagnostics.get(f"nonfinite_{name}")
        values = {}
        for split, value in (entry.get("values") or {}).items():
            number = _finite(value)
            values[str(split)] = None if flagged and number == 0.0 else number
        found[str(name)] = {"direction": str(entry.get("direction", "")), "values": values}
    return found


def _read_run(folder: str, run_id: str) -> dict[str, Any]:
    """What show needs of one sealed run, checked as it is read: the manifest parses and names
    this run, every file it lists has its recorded size (the store's quick check), and
    results.json has the digest the manifest records (what :func:`evidence.experiments.select.damaged`
    checks before a figure reads it). ``{"metrics": ...}`` or ``{"problem": ...}``."""
    from evidence.core.hashing import digest_bytes
    from evidence.store.runs import check_sizes, sizes_of_manifest

    run_path = Path(folder)
    base = f"{run_path}{os.sep}"
    try:
        manifest = json.loads((run_path / MANIFEST).read_bytes())
    except FileNotFoundError:
        return {"problem": f"{run_id}/{MANIFEST}: manifest is missing"}
    except (OSError, ValueError) as error:
        return {"problem": f"{run_id}/{MANIFEST}: manifest is malformed: {error}"}
    finding = check_sizes(base, run_id, sizes_of_manifest(manifest, run_id))
    if finding is not None:
        return {"problem": str(finding)}
    try:
        listed = manifest["files"]["results.json"]["digest"]
        data = (run_path / "results.json").read_bytes()
    except (OSError, KeyError, TypeError) as error:
        return {"problem": f"{run_id}/results.json: unreadable ({error})"}
    if digest_bytes(data) != listed:
        return {"problem": f"{run_id}/results.json: content differs from its manifest digest"}
    try:
        results = json.loads(data)
    except ValueError as error:
        return {"problem": f"{run_id}/results.json: not JSON ({error})"}
    if not isinstance(results, Mapping):
        return {"problem": f"{run_id}/results.json: not an object"}
    return {"metrics": result_metrics(results)}


def sealed_facts(project: Project, run_ids: Iterable[str], *,
                 only_these: bool = False) -> dict[str, dict[str, Any]]:
    """run id -> :func:`_read_run`'s answer, each run read at most once and then memoised by the
    stat of its results.json (``.evidence/cache/memo-show-results.json``): sealed files never
    change, and a results.json that changed is read and checked against its manifest again (a
    manifest edited on its own, like damaged weights, is ``doit fsck``'s to find). ``only_these``:
    the memo keeps no other run (the ids are every run the experiments declare)."""
    memo = memos.of(project, "show-results")
    found = {}
    root = f"{project.runs_dir}{os.sep}"
    for run_id in run_ids:  # paths as strings: 20,000 pathlib joins cost a tenth of a second
        path = f"{root}{run_id}{os.sep}"
        # keyed by the folder's absolute path: a copied project never answers from the original's
        found[run_id] = memo.get(path, partial(list, [path + "results.json"]),
                                 partial(_read_run, path, run_id))
    if only_these:  # every declared run was looked up: entries of runs gone from the store go
        memo.forget(f"{root}{run_id}{os.sep}" for run_id in found)
    memo.save()
    return found


def work_states(project: Project) -> dict[str, tuple[str, str]]:
    """run id -> (status, detail) of every run with a progress record in ``.evidence/work/``."""
    states: dict[str, tuple[str, str]] = {}
    work = project.work_dir
    if not work.is_dir():
        return states
    for entry in os.scandir(work):
        try:
            record = json.loads(Path(entry.path, PROGRESS_FILE).read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(record, Mapping):
            continue
        pid = record.get("pid")
        recorded = str(record.get("state", "?"))
        alive = isinstance(pid, int) and pid > 0 and pid_alive(pid)
        if alive and recorded not in ("failed", "interrupted"):
            step, total = record.get("step"), record.get("total_steps")
            states[entry.name] = ("running", f"{recorded}, step {step}/{total}" if total else recorded)
        elif recorded == "failed":
            states[entry.name] = ("failed", str(record.get("error", "")))
        else:
            states[entry.name] = ("interrupted", "resume with `doit train`")
    return states


def undeclared_row(project: Project, run_id: str) -> RunRow:
    """A sealed run no experiment declares (superseded, imported), from its own spec.json."""
    path = project.runs_dir / run_id / "spec.json"
    try:
        spec = json.loads(path.read_bytes())
        identity = spec["identity"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BadInputError(path, f"run {run_id} has no readable identity ({error})") from None
    found = sealed_facts(project, [run_id])[run_id]
    return RunRow(str(spec.get("experiment")), str(spec.get("variant", spec.get("group"))),
                  str(spec.get("group")), str(spec.get("label")), int(identity.get("seed", 0)),
                  str(spec.get("role", "model")), str(spec.get("key")), run_id,
                  "damaged" if "problem" in found else "sealed", str(found.get("problem", "")),
                  {"trainer": identity.get("trainer"), **flatten(identity.get("config") or {})},
                  found.get("metrics", {}), identity)


def _compact(spec: RunSpec) -> list[Any]:
    return [spec.experiment, spec.variant, spec.group, spec.label, spec.seed, spec.role, spec.key,
            {"trainer": spec.trainer, **flatten(spec.identity.get("config") or {})}]


def declared(project: Project, path: Path) -> list[list[Any]]:
    """The runs one experiment declares, as compact rows (what show needs of each spec),
    memoised by the very files the expansion itself is memoised by: at 10,000 runs the full
    expansion's memo (every identity and execution setting) took a quarter second to parse."""
    from evidence.experiments.spec import expansion_inputs

    stored: list[Any] = []

    def compute() -> list[list[Any]]:
        specs = expand_cached(project, path)
        stored[:] = [s.to_json() for s in specs]
        return [_compact(s) for s in specs]

    value: list[list[Any]] = memos.of(project, "show-specs").get(
        str(path), lambda: expansion_inputs(project, path, stored or None), compute)
    return value


def _experiment_paths(project: Project, experiments: Sequence[str] | None) -> list[Path]:
    if not experiments:
        return experiment_files(project)
    paths = []
    for name in experiments:
        path = project.experiments_dir / f"{name}.toml"
        if not path.is_file():
            known = ", ".join(p.stem for p in experiment_files(project)) or "none"
            raise BadInputError("--experiment", f"experiment {name!r} does not exist (known: {known})")
        paths.append(path)
    return paths


def _generation(run_id: str) -> int:
    return int(run_id.partition("-")[2] or 1)


def run_rows(project: Project, experiments: Sequence[str] | None = None) -> list[RunRow]:
    """Every run the experiments declare, with its status and, when sealed and intact, metrics."""
    newest: dict[str, str] = {}  # first 16 hex digits of a key -> its newest run id
    for run_id in listed_run_ids(project.runs_dir):  # sorted: "<base>-10" before "<base>-2"
        base = run_id.partition("-")[0]
        known = newest.get(base)
        if known is None or _generation(run_id) > _generation(known):
            newest[base] = run_id
    works = work_states(project)
    rows: list[RunRow] = []
    for path in _experiment_paths(project, experiments):
        for experiment, variant, group, label, seed, role, key, config in declared(project, path):
            sealed_id = newest.get(key[:RUN_ID_LENGTH])
            run_id = sealed_id or run_id_for(key)
            status, detail = ("sealed", "") if sealed_id else works.get(run_id, ("not yet run", ""))
            rows.append(RunRow(experiment, variant, group, label, seed, role, key, run_id, status,
                               detail, config))
    facts = sealed_facts(project, [r.run_id for r in rows if r.status == "sealed"],
                         only_these=not experiments)
    for row in rows:
        if row.status == "sealed":
            found = facts[row.run_id]
            if "problem" in found:
                row.status, row.detail = "damaged", found["problem"]
            else:
                row.metrics = found["metrics"]
    return rows


# -- filtering ---------------------------------------------------------------------------------


def parse_where(items: Sequence[str]) -> list[tuple[str, tuple[Any, ...]]]:
    """``["lr=0.01", "group=mlp,cnn"]`` -> ``[("lr", (0.01,)), ("group", ("mlp", "cnn"))]``.

    A value is read as JSON where it parses (``0.01``, ``true``, ``64``), else as text; commas
    separate alternatives (any of them matches).
    """
    parsed = []
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise BadInputError("--where", f"{item!r} is not KEY=VALUE (e.g. lr=0.01)")
        options = []
        for text in raw.split(","):
            try:
                options.append(json.loads(text))
            except ValueError:
                options.append(text)
        parsed.append((name.strip().removeprefix("config."), tuple(options)))
    return parsed


def _field(run: RunRow, name: str) -> Any:
    if name in SPEC_FIELDS:
        return getattr(run, name)
    return run.config.get(name, _MISSING)


_MISSING = object()


def _same(value: Any, option: Any) -> bool:
    """``lr=0.01`` matches 0.01, ``hidden=64`` matches 64 (and 64.0), ``flag=true`` only True."""
    if isinstance(value, bool) or isinstance(option, bool):
        return value is option
    if value == option:
        return True
    return isinstance(option, str) and not isinstance(value, str) and json.dumps(value) == option


def _matches(value: Any, options: tuple[Any, ...]) -> bool:
    return value is not _MISSING and any(_same(value, option) for option in options)


def filter_runs(runs: Sequence[RunRow], where: Sequence[tuple[str, tuple[Any, ...]]]) -> list[RunRow]:
    """The runs every filter matches; a key no run has is an error that names the keys there are."""
    if not where:
        return list(runs)
    known = set(SPEC_FIELDS) | {k for r in runs for k in r.config}
    for name, _ in where:
        if name not in known:
            raise BadInputError("--where", f"no run has a field {name!r} (fields: "
                                f"{', '.join(sorted(known))})")
    return [r for r in runs if all(_matches(_field(r, name), options) for name, options in where)]


# -- the table -----------------------------------------------------------------------------------


def summarize(values: Sequence[float | None]) -> Summary:
    """Mean and Student-t interval of a row's finite values (:func:`stats.t_interval_mean`)."""
    finite = [v for v in values if v is not None]
    if not finite:
        return Summary(None, None, None, 0, "none", "no value")
    if len(finite) == 1:
        return Summary(finite[0], None, None, 1, "value", "one run: no interval")
    from evidence.verify import stats  # numpy and scipy.special: only when an interval is due

    interval = stats.t_interval_mean(finite)
    defined = math.isfinite(interval.low) and math.isfinite(interval.high)
    return Summary(interval.estimate, interval.low if defined else None,
                   interval.high if defined else None, len(finite), interval.method, interval.note)


def _group_rows(runs: Sequence[RunRow], per_run: bool) -> list[Row]:
    if per_run:
        return [Row(r.experiment, r.group, r.label, r.role, r.config, [r]) for r in runs]
    grouped: dict[tuple[str, str], Row] = {}
    for run in runs:
        row = grouped.get((run.experiment, run.group))
        if row is None:
            row = grouped[(run.experiment, run.group)] = Row(run.experiment, run.group, run.group,
                                                           run.role, run.config, [])
        row.runs.append(run)
    return list(grouped.values())


def differing_keys(rows: Sequence[Row]) -> list[str]:
    """Config keys whose value is not the same in every row (a key some rows lack counts);
    the trainer first, then by name."""
    seen: dict[str, set[Any]] = {}
    counts: Counter[str] = Counter()
    for row in rows:
        counts.update(row.config.keys())
        for key, value in row.config.items():
            values = seen.get(key)
            if values is None:
                values = seen[key] = set()
            try:  # the type too: 1 and True, 1 and 1.0 are different configs
                values.add((value.__class__, value))
            except TypeError:  # a list or table value
                values.add((value.__class__, json.dumps(value, sort_keys=True)))
    differ = [k for k, values in seen.items() if len(values) > 1 or counts[k] != len(rows)]
    return sorted(differ, key=lambda k: (k != "trainer", k))


def _metric_order(runs: Sequence[RunRow]) -> list[tuple[str, str]]:
    directions: dict[str, str] = {}
    for run in runs:
        for name, entry in run.metrics.items():
            directions.setdefault(name, entry["direction"])
    return sorted(directions.items())


def _splits(runs: Sequence[RunRow]) -> list[str]:
    found = {s for run in runs for entry in run.metrics.values() for s in entry["values"]}
    order = {"train": 0, "val": 1, "test": 2}
    return sorted(found, key=lambda s: (order.get(s, 3), s))


def verify_verdicts(project: Project) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The comparisons of the verify report (``[]`` before ``doit verify``) and where they came from.

    ``stale`` says that comparisons.toml changed since the report was built (the verdicts are
    those of the declarations at that time, still tied to the runs they read by run id).
    """
    from evidence.core.hashing import digest_file

    path = project.verify_dir / "report.json"
    info: dict[str, Any] = {"report": project.relative(path), "stale": False, "note": ""}
    try:
        report = json.loads(path.read_bytes())
        comparisons = list(report["comparisons"])
    except FileNotFoundError:
        return [], {"report": None, "stale": False, "note": "no verify report yet (`doit verify`)"}
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [], {**info, "note": f"{info['report']} is unreadable ({error}); no verdicts shown"}
    source = project.root / str(report.get("comparisons_file", "comparisons.toml"))
    try:
        if digest_file(source) != report.get("comparisons_digest"):
            info.update(stale=True, note=f"{project.relative(source)} changed since the verify report "
                        "was built: run `doit verify`")
    except OSError:
        info.update(stale=True, note=f"{project.relative(source)} is gone since the verify report was built")
    return comparisons, info


def attach_verdicts(rows: Sequence[Row], comparisons: Sequence[Mapping[str, Any]]) -> None:
    """Each row gets the verdict of every comparison one of its runs took part in."""
    by_run: dict[str, list[tuple[Mapping[str, Any], str, str]]] = {}
    for comparison in comparisons:
        sides = [("a", comparison.get("b")), ("b", comparison.get("a")),
                 ("control", comparison.get("a"))]
        for side, other in sides:
            group = comparison.get(side)
            if not isinstance(group, Mapping):
                continue
            other_name = str(other.get("name", "?")) if isinstance(other, Mapping) else "?"
            for run in group.get("runs", []):
                by_run.setdefault(str(run.get("run_id")), []).append((comparison, side, other_name))
    for row in rows:
        seen = set()
        for run in row.runs:
            for comparison, side, other in by_run.get(run.run_id, []):
                ident = (comparison.get("id"), side)
                if ident in seen:
                    continue
                seen.add(ident)
                verdict = "control" if side == "control" else str(comparison.get("class"))
                row.verdicts.append({"comparison": str(comparison.get("id")), "side": side,
                                     "other": other, "class": verdict,
                                     "as_claimed": comparison.get("direction_matches_claim"),
                                     "metric": comparison.get("metric"), "split": comparison.get("split")})


def build_table(project: Project, *, experiments: Sequence[str] | None = None,
                where: Sequence[str] = (), per_run: bool = False, splits: Sequence[str] | None = None,
                metrics: Sequence[str] | None = None, sort: str | None = None,
                runs: Sequence[RunRow] | None = None) -> Table:
    """The table ``evidence show`` prints (see the module docstring for every column's source).

    Built in one steady scope (:func:`evidence.core.memo.steady`): nothing it reads changes while
    it reads, so the store's listing is taken once, not once per run.
    """
    with memos.steady():
        return _build_table(project, experiments=experiments, where=where, per_run=per_run,
                            splits=splits, metrics=metrics, sort=sort, runs=runs)


def _build_table(project: Project, *, experiments: Sequence[str] | None, where: Sequence[str],
                 per_run: bool, splits: Sequence[str] | None, metrics: Sequence[str] | None,
                 sort: str | None, runs: Sequence[RunRow] | None) -> Table:
    chosen = filter_runs(runs if runs is not None else run_rows(project, experiments), parse_where(where))
    rows = _group_rows(chosen, per_run)
    order = _metric_order(chosen)
    if metrics:
        unknown = [m for m in metrics if m not in dict(order)]
        if unknown and order:
            raise BadInputError("--metric", f"no run reports {', '.join(map(repr, unknown))} "
                                f"(metrics: {', '.join(m for m, _ in order)})")
        order = [(m, d) for m, d in order if m in metrics]
    available = _splits(chosen)
    if splits:
        unknown = [s for s in splits if s not in available]
        if unknown and available:
            raise BadInputError("--split", f"no run reports split {', '.join(map(repr, unknown))} "
                                f"(splits: {', '.join(available)})")
        shown = [s for s in available if s in splits]
    else:
        shown = ["test"] if "test" in available else available[-1:]
    for row in rows:
        for name, _ in order:
            row.summaries[name] = {split: summarize([r.metrics.get(name, {}).get("values", {}).get(split)
                                                     for r in row.runs if r.status == "sealed"])
                                   for split in shown}
    comparisons, info = verify_verdicts(project)
    attach_verdicts(rows, comparisons)
    if sort:
        rows = sort_rows(rows, sort, dict(order), shown)
    return Table("runs" if per_run else "variants", rows, differing_keys(rows), order, shown, info)


def sort_rows(rows: Sequence[Row], sort: str, directions: Mapping[str, str],
              splits: Sequence[str]) -> list[Row]:
    """Rows by a metric's mean, best first in the metric's own direction; rows without it last.

    ``sort`` is ``metric`` (on the first shown split) or ``split/metric``.
    """
    split, _, metric = sort.rpartition("/")
    if not split:
        split = splits[0] if splits else ""
    if metric not in directions:
        raise BadInputError("--sort", f"no metric {metric!r} to sort by (metrics: "
                            f"{', '.join(sorted(directions)) or 'none'})")
    if split not in splits:
        raise BadInputError("--sort", f"split {split!r} is not shown (shown: {', '.join(splits)})")
    sign = -1.0 if directions[metric] == "higher" else 1.0

    def key(row: Row) -> tuple[int, float]:
        mean = row.summaries[metric][split].mean
        return (1, 0.0) if mean is None else (0, sign * mean)

    return sorted(rows, key=key)


# -- text of the values (evidence show, the evidence page) ---------------------------------------


CI_WORDS = "95% CI of the mean over seeds, Student t"


def number(value: float | None) -> str:
    """Four significant digits (the verify summary's precision); "-" for no value."""
    if value is None or not math.isfinite(value):
        return "-"
    text = f"{value:.4g}"
    return "0" if text in ("-0", "0") else text


def summary_text(summary: Summary) -> str:
    """``0.9867 [0.9812, 0.9921] n=5``; one run: ``0.9867 n=1``; none: ``-``."""
    if summary.n == 0:
        return "-"
    interval = f" [{number(summary.low)}, {number(summary.high)}]" if summary.low is not None else ""
    return f"{number(summary.mean)}{interval} n={summary.n}"


def verdict_text(verdict: Mapping[str, Any]) -> str:
    if verdict["side"] == "control":
        return f"{verdict['comparison']}: as its control"
    claimed = "" if verdict["class"] != "effect" else (
        ", as claimed" if verdict.get("as_claimed") else ", against the claim")
    return f"{verdict['comparison']}: {verdict['class']}{claimed} (vs {verdict['other']})"


def config_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return json.dumps(value)


def table_json(table: Table) -> dict[str, Any]:
    """The table as JSON values (``evidence show --json``; undefined numbers are null)."""
    return {"schema_version": 1, "mode": table.mode, "splits": table.splits,
            "metrics": [{"name": m, "direction": d} for m, d in table.metrics],
            "config_columns": table.differing, "verify": table.verify,
            "rows": [{"name": row.name, "experiment": row.experiment, "group": row.group,
                      "label": row.label, "role": row.role,
                      "config": {k: row.config.get(k) for k in table.differing},
                      "status": row.status_counts,
                      "runs": [{"run_id": r.run_id, "label": r.label, "seed": r.seed, "status": r.status,
                                "detail": r.detail} for r in row.runs],
                      "metrics": {m: {s: summary.to_dict() for s, summary in by_split.items()}
                                  for m, by_split in row.summaries.items()},
                      "verdicts": row.verdicts}
                     for row in table.rows]}
