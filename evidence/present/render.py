"""Step two of a figure or table: ``source_data.csv`` -> images or table files + sidecar.

Why it is separate from :mod:`evidence.present.artifacts`: this step must not read the evidence layer.
It gets the tidy CSV (and step one's sidecar, for the digests it carries forward, never for
numbers), so a figure can be re-plotted from the CSV alone, and the module that can read
runs/ is not even imported by the code that draws.

Outputs are written into a staging folder, re-opened and checked (the pixel gate of
:func:`evidence.present.plotting.check_image` for figures; rows and cells re-read for tables), and only
then published next to the spec. Any failure deletes the previously published outputs and
sidecar, so nothing stale is left that looks valid.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import shutil
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from evidence.core.errors import EvidenceError, GateError
from evidence.core.hashing import digest_file
from evidence.core.project import STAGING_PREFIX
from evidence.present import plotting, tables
from evidence.present.artifacts import (
    EXPECTED_MAX_COLUMNS,
    SD_OF_MAX,
    Artifact,
    json_bytes,
    make_sidecar,
    publish,
    read_sidecar,
    step_code,
    unpublish,
)

Facts = dict[str, Any]


def render(art: Artifact) -> dict[str, Any]:
    """Build the outputs of ``art`` from its source_data.csv and publish them with the sidecar."""
    published = [*art.outputs.values(), art.sidecar]
    staging = art.folder / f"{STAGING_PREFIX}{art.artifact}-{os.getpid()}"  # per process: -n N is safe
    try:
        source = read_sidecar(art.source_sidecar)
        csv_digest = digest_file(art.source_data)
        if source["outputs"].get(art.rel(art.source_data)) != csv_digest:
            raise EvidenceError(f"{art.rel(art.source_data)} differs from the digest in "
                                f"{art.rel(art.source_sidecar)} (edited by hand?)",
                                hint="delete both and run doit again to rebuild them")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        facts = (render_figure_files if art.artifact == "figure" else render_table_files)(
            art, staging)
        inputs = {**source["inputs"], art.rel(art.source_data): csv_digest,
                  art.rel(art.source_sidecar): digest_file(art.source_sidecar)}
        if art.script is not None:
            inputs[art.rel(art.script)] = digest_file(art.script)
        outputs = {art.rel(path): digest_file(staging / path.name)
                   for path in art.outputs.values()}
        record = make_sidecar(art, art.artifact, source["runs"], inputs,
                              step_code(art.artifact), outputs,
                              **facts)
        for path in art.outputs.values():
            publish(path, (staging / path.name).read_bytes())
        publish(art.sidecar, json_bytes(record))
        return record
    except GateError as error:  # name the file that would have been published, not staging
        unpublish(published)
        raise GateError(error.message.replace(f"{staging}/", f"{art.rel(art.folder)}/"),
                        hint=error.hint) from None
    except BaseException:
        unpublish(published)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def read_expected_max(path: Path) -> pd.DataFrame:
    """An ``expected_max`` source_data.csv with text columns as str and numbers as float/int."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in EXPECTED_MAX_COLUMNS if c not in df.columns]
    if missing:
        raise EvidenceError(f"{path}: missing column(s) {missing}")
    for column in ("trials", "n_configs"):
        df[column] = pd.to_numeric(df[column]).astype("int64")
    for column in ("expected_max", "variance", "sd", "low", "high"):
        df[column] = pd.to_numeric(df[column]).astype("float64")
    return df


def read_data(art: Artifact) -> pd.DataFrame:
    if art.source == "expected_max":
        return read_expected_max(art.source_data)
    return plotting.read_source_data(art.source_data)


# --------------------------------------------------------------------------- figures


def _expected_max_spec(df: pd.DataFrame, spec: dict[str, Any]) -> dict[str, Any]:
    """Defaults for an expected-max figure: the metric named in the data, a ±1 SD band."""
    spec.setdefault("metric", str(df["metric"].iloc[0]) if len(df) else None)
    if "band" not in spec:
        sizes = ", ".join(f"{g}: N = {n}" for g, n in
                          sorted(df.groupby("group")["n_configs"].first().items()))
        spec["band"] = {"low": "low", "high": "high",
                        "label": f"{SD_OF_MAX} ({sizes} configurations)"}
    return spec


def render_figure_files(art: Artifact, staging: Path) -> Facts:
    """Plot (built-in kind or plot.py), write every format into ``staging``, run the gate."""
    df = read_data(art)
    spec = art.plot_spec()
    formats = tuple(art.outputs)
    if art.script is not None:
        return render_custom(art, df, spec, staging / "figure", formats)
    if art.source == "expected_max":
        spec = _expected_max_spec(df, spec)
    facts = plotting.render_figure(df, spec, staging / "figure", formats)
    gate = {**facts["gate"], "path": art.rel(art.outputs["png"])}
    return {"caption": facts["caption"], "spread": facts["spread"], "gate": gate,
            "values": facts["values"]}


def load_plot_function(art: Artifact) -> Callable[[pd.DataFrame, Mapping[str, Any]], Any]:
    """Import ``plot.py`` and return its ``plot``; every failure names the file."""
    assert art.script is not None
    shown = art.rel(art.script)
    module_spec = importlib.util.spec_from_file_location(f"evidence_plot_{art.name}", art.script)
    if module_spec is None or module_spec.loader is None:
        raise EvidenceError(f"{shown}: cannot be imported")
    module = importlib.util.module_from_spec(module_spec)
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        traceback.print_exc()
        raise EvidenceError(f"{shown}: importing it raised {type(exc).__name__}: {exc}") from exc
    plot = getattr(module, "plot", None)
    if not callable(plot):
        raise EvidenceError(f"{shown}: defines no function plot(df, spec) -> Figure")
    return plot


def tag_data_artists(fig: Figure) -> int:
    """Mark the lines, collections, patches and images of a custom plot as data for the gate.

    Built-in kinds tag their data artists themselves; a plot.py need not know about tags, so
    untagged artists on any axes are tagged here (``ev-data-…``: hidden for the gate's empty
    reference, not counted as series or points). Returns how many data artists there are.
    """
    count = 0
    for i, ax in enumerate(fig.axes):
        for j, artist in enumerate([*ax.lines, *ax.collections, *ax.patches, *ax.images]):
            if artist.get_gid() is None:
                artist.set_gid(f"{plotting.GID_PREFIX}data-{i}-{j}")
            count += artist.get_visible()
    return count


def render_custom(art: Artifact, df: pd.DataFrame, spec: dict[str, Any], stem: Path,
                  formats: tuple[str, ...]) -> Facts:
    """Run plot.py's ``plot(df, spec)`` in the fixed style; it must return a drawn Figure."""
    assert art.script is not None
    shown = art.rel(art.script)
    plot = load_plot_function(art)
    with plotting.figure_style():
        try:
            fig = plot(df, spec)
        except Exception as exc:
            traceback.print_exc()
            raise EvidenceError(f"{shown}: plot(df, spec) raised {type(exc).__name__}: "
                                f"{exc}") from exc
    if not isinstance(fig, Figure):
        raise GateError(f"{shown}: plot(df, spec) returned {type(fig).__name__}, expected a "
                        "matplotlib.figure.Figure", hint="end plot() with `return fig`")
    n_data = tag_data_artists(fig)
    paths = plotting.save_deterministic(fig, stem, formats)
    series, points = plotting.count_drawn(fig)
    gate = plotting.check_image(
        paths["png"], min_variance=float(spec.get("min_variance", plotting.MIN_VARIANCE)),
        expected_series=spec.get("expected_series"), drawn_series=series,
        expected_points=spec.get("expected_points"), drawn_points=points,
        empty_reference=plotting.render_png(fig, hide_data=True) if n_data else None)
    if not n_data:
        raise GateError(f"{art.rel(art.outputs['png'])}: {shown} drew no data (no lines, "
                        "markers, patches or images on any axes)")
    spread = str(spec["spread_description"])
    caption = f"{str(spec['caption']).rstrip('.')}. Spread: {spread.rstrip('.')}."
    return {"caption": caption, "spread": spread,
            "gate": {**gate, "path": art.rel(art.outputs["png"])}, "values": []}


# --------------------------------------------------------------------------- tables


def expected_max_table(df: pd.DataFrame, spec: Mapping[str, Any], where: str,
                       ) -> tables.TableResult:
    """Rows k (number of trials), one column per series: E[best of k] ± SD of the best of k."""
    trials = [int(k) for k in spec["trials"]]
    groups = tables.group_order(df["group"], spec.get("order"), where)
    labels = spec.get("labels") or {}
    percent = bool(spec.get("percent", False))
    decimals = int(spec.get("decimals", 1 if percent else 3))
    columns, cells, sizes, what = [], {}, [], set()
    for group in groups:
        mine = df.loc[df["group"] == group]
        n = int(mine["n_configs"].iloc[0])
        metric, split = str(mine["metric"].iloc[0]), str(mine["split"].iloc[0])
        what.add(f"{split} {metric}")
        sizes.append(f"{group}: N = {n}")
        columns.append(tables.Column(group, metric, split, str(labels.get(group, group)),
                                     decimals, percent))
        for k in trials:
            row = mine.loc[mine["trials"] == k]
            if row.empty:
                raise EvidenceError(f"{where}: series {group!r} has {n} configuration(s); the "
                                    f"expected best of k = {k} needs at least {k}",
                                    hint="drop that value from 'trials' or train more configs")
            r = row.iloc[0]
            cells[(str(k), group)] = tables.Cell(str(k), group, n, float(r["expected_max"]),
                                                 float(r["sd"]), float(r["low"]), float(r["high"]))
    spread = f"{SD_OF_MAX} ({', '.join(sizes)} configurations)"
    caption = (f"Expected best {' / '.join(sorted(what))} among k configurations drawn at "
               f"random with replacement from those trained (Dodge et al., 2019). "
               f"Values: expected maximum {spread}.")
    if spec.get("caption"):
        caption = f"{str(spec['caption']).rstrip('.')}. {caption}"
    name = str(spec.get("name", "table"))
    return tables.TableResult(
        name=name, groups=tuple(str(k) for k in trials), row_labels=tuple(str(k) for k in trials),
        row_header=str(spec.get("row_header", "Trials (k)")), columns=tuple(columns),
        cells=cells, spread="sd", spread_description=spread, caption=caption,
        label=str(spec.get("label", f"tab:{name}")), show_n=False)


_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def check_table(md: Path, tex: Path, result: tables.TableResult, shown: str) -> Facts:
    """Re-read the written table files: one line per row, one cell per column, no empty cell."""
    rows, cols = len(result.groups), len(result.columns) + 1
    md_rows = [line for line in md.read_text("utf-8").splitlines() if line.startswith("|")][2:]
    tex_text = tex.read_text("utf-8")
    body = tex_text.split("\\midrule", 1)[-1].split("\\bottomrule", 1)[0]
    tex_rows = [line for line in body.splitlines() if line.rstrip().endswith("\\\\")]
    problems = []
    if len(md_rows) != rows or len(tex_rows) != rows:
        problems.append(f"expected {rows} rows, table.md has {len(md_rows)} and table.tex "
                        f"{len(tex_rows)}")
    for line in md_rows:
        cells = [c.strip() for c in _UNESCAPED_PIPE.split(line)[1:-1]]
        if len(cells) != cols or not all(cells):
            problems.append(f"row {line!r} does not have {cols} non-empty cells")
    if problems:
        raise GateError(f"{shown}: " + "; ".join(problems))
    nan_cells = sum(1 for c in result.cells.values() if not math.isfinite(c.mean))
    return {"path": shown, "rows": rows, "columns": cols - 1, "nan_cells": nan_cells}


def render_table_files(art: Artifact, staging: Path) -> Facts:
    """Build the table from the CSV, write table.md and table.tex, re-read and check them."""
    spec = art.plot_spec()
    where = art.rel(art.spec_path)
    if art.source == "expected_max":
        result = expected_max_table(read_expected_max(art.source_data), spec, where)
    else:
        result = tables.build_table(tables.read_source_data(art.source_data), spec)
    md, tex = staging / "table.md", staging / "table.tex"
    md.write_bytes(tables.render_markdown(result).encode("utf-8"))
    tex.write_bytes(tables.render_latex(result).encode("utf-8"))
    gate = check_table(md, tex, result, art.rel(art.outputs["md"]))
    return {"caption": result.caption, "spread": result.spread_description, "gate": gate,
            "values": result.to_records()}
