"""Figures from a tidy ``source_data.csv``: deterministic bytes and a pixel re-open gate.

Why it is built this way:

* A figure is a function of its ``source_data.csv`` and its spec alone, so anyone can re-plot
  it without the run store: the plot functions take a DataFrame and a spec, never results.json.
  Reading the CSV and the spread statistics are shared with tables (:mod:`evidence.present.tables`).
* Rebuilding with the same inputs must give the same bytes in every format, or the build sees a
  change where there is none and nobody can diff the artifacts. So we build
  :class:`~matplotlib.figure.Figure` objects directly (no pyplot state, no ``matplotlib.use``)
  under matplotlib's *default* rcParams plus a fixed style (a user's matplotlibrc cannot leak
  in), fix the SVG hash salt, and strip the dates and version strings the writers embed.
* Seeds are shown, not hidden: every seed is drawn (thin lines, jittered dots) next to the mean
  and a spread that the caption names exactly (SD, SE or a bootstrap CI with its resamples and
  seed), so the figure cannot overstate what the runs support.
* A written figure is re-opened from disk and checked, because a plotting bug that draws
  nothing still writes a valid PNG: size, blankness, whether the data changed any pixel at all,
  and how many series and points were drawn, counted from the artists in the figure.

Spec keys common to every kind: ``name``, ``kind`` (``curves``, ``points``, ``expected_max``),
``order`` (orders the groups; default all, sorted; every group the selections pick must be in
it: leaving one out is an error, see :func:`evidence.present.artifacts.check_order`), ``labels``
and ``colors`` (per group), ``figsize`` (inches, default 5 x 3.5), ``dpi`` (default 150),
``title``, ``xlabel``, ``ylabel``, ``ylim``, ``legend_loc``, ``caption`` (prepended to the
generated caption), ``expected_series`` and ``expected_points`` (what the gate demands; default:
from the data), ``min_variance`` (the gate's blank floor). Unknown keys are ignored: the
engine's own keys (selection, output) share the spec.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator, ScalarFormatter
from PIL import Image

from evidence.core.errors import BadInputError, GateError
from evidence.core.hashing import digest_file, write_bytes_atomic
from evidence.present.tables import (
    bootstrap_id,
    check_spread,
    describe_spread,
    group_order,
    read_source_data,
    select_rows,
    summarize,
)

__all__ = [
    "DEFAULT_FORMATS", "METADATA", "MIN_VARIANCE", "PLOT_KINDS", "STYLE", "PlotResult",
    "check_image", "count_drawn", "describe_spread", "figure_style", "make_plot", "plot_curves",
    "plot_expected_max", "plot_points", "read_source_data", "render_figure", "render_png",
    "save_deterministic", "summarize", "summary_records",
]

DEFAULT_FIGSIZE = (5.0, 3.5)
DEFAULT_DPI = 150
DEFAULT_FORMATS = ("png", "pdf", "svg")
#: Grayscale variance floor: a white canvas is 0; axes with tick labels alone are far above it.
MIN_VARIANCE = 5.0
#: Artists that show data carry a gid with this prefix; the gate counts and hides them by it.
GID_PREFIX = "ev-"

#: Applied on top of matplotlib's defaults; every key that changes bytes is pinned here.
STYLE: dict[Any, Any] = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9.0,
    "mathtext.fontset": "dejavusans",
    "text.usetex": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "savefig.bbox": "standard",  # "tight" would change the pixel size that the gate checks
    "svg.hashsalt": "evidence",  # without it SVG ids are random UUID hashes
    "svg.fonttype": "path",  # glyphs as paths: same bytes whatever fonts the viewer has
    "pdf.fonttype": 42,  # embedded TrueType: venues reject Type 3 fonts
}

#: Writer metadata that would otherwise embed dates and version strings.
METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "svg": {"Date": None, "Creator": None},
}


def _bundled_fonts_only() -> None:
    """Resolve DejaVu to the files matplotlib ships, never a system copy of the same family.

    Why: with glyphs written as paths, a figure's bytes still name each glyph by its index in the
    font file, and a system's DejaVu (``fonts-dejavu-core`` 2.37 on Debian 12) numbers its glyphs
    differently from the one in matplotlib's wheel (2.35): the same figure rendered on a machine
    with that package and on one without differed in its PDF and SVG bytes (``./repro.sh``
    reported 14 of 18 figure files identical). The wheel's copy is pinned by requirements.lock.
    """
    from matplotlib import font_manager

    bundled = Path(mpl.get_data_path()) / "fonts" / "ttf"
    manager = font_manager.fontManager
    if any(f.name.startswith("DejaVu") and not f.fname.startswith(str(bundled)) for f in manager.ttflist):
        manager.ttflist = [f for f in manager.ttflist if not f.name.startswith("DejaVu")]
        for path in sorted(bundled.glob("DejaVu*.ttf")):
            manager.addfont(str(path))
        manager._findfont_cached.cache_clear()  # type: ignore[attr-defined]  # answers before the filter


@contextmanager
def figure_style() -> Iterator[None]:
    """matplotlib's default rcParams plus :data:`STYLE`, restored on exit; DejaVu from
    matplotlib's own files (:func:`_bundled_fonts_only`)."""
    _bundled_fonts_only()
    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams.update(STYLE)
        yield


# --------------------------------------------------------------------------- plots


@dataclass
class PlotResult:
    """A drawn figure and what it claims: counts drawn and expected, caption, spread.

    ``expected_*`` come from the data (every selected row, NaN included) unless the spec states
    them; ``n_*`` are counted from the figure's artists, so a dropped NaN seed or a plotting bug
    shows up as a mismatch at the gate. ``summary`` holds the plotted means and intervals.
    """

    figure: Figure
    kind: str
    n_series: int
    n_points: int
    expected_series: int
    expected_points: int
    caption: str
    spread_description: str
    size_px: tuple[int, int]
    summary: pd.DataFrame


def _where(spec: Mapping[str, Any]) -> str:
    return f"figure '{spec.get('name', '?')}'"


def _new_figure(spec: Mapping[str, Any]) -> tuple[Figure, Axes, tuple[int, int]]:
    """A Figure of exactly ``round(figsize x dpi)`` pixels with one Axes (call in the style)."""
    where = _where(spec)
    figsize = spec.get("figsize", DEFAULT_FIGSIZE)
    dpi = spec.get("dpi", DEFAULT_DPI)
    try:
        width, height = (float(v) for v in figsize)
        dpi = float(dpi)
    except (TypeError, ValueError) as exc:
        raise BadInputError(where, f"figsize must be [width, height] in inches and dpi a number, "
                            f"got {figsize!r} and {dpi!r}", field="figsize") from exc
    if not (width > 0 and height > 0 and dpi > 0):
        raise BadInputError(where, "figsize and dpi must be positive", field="figsize")
    size_px = (round(width * dpi), round(height * dpi))
    # Agg truncates inches x dpi, and 3.3 * 100 is 329.99999999999994: nudge the inches up by
    # ulps until the truncation lands on the intended pixel count (invisible in PDF and SVG).
    inches = []
    for px in size_px:
        value = px / dpi
        while int(value * dpi) < px:
            value = float(np.nextafter(value, math.inf))
        inches.append(value)
    fig = Figure(figsize=(inches[0], inches[1]), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if spec.get("title"):
        ax.set_title(str(spec["title"]))
    return fig, ax, size_px


def _color(spec: Mapping[str, Any], group: str, index: int) -> Any:
    colors = spec.get("colors") or {}
    palette = mpl.color_sequences["tab10"]
    return colors.get(group, palette[index % len(palette)])


def _label(spec: Mapping[str, Any], group: str) -> str:
    return str((spec.get("labels") or {}).get(group, group))


def _floats(column: pd.Series) -> np.ndarray:
    return np.asarray(pd.to_numeric(column).to_numpy(dtype=np.float64, na_value=np.nan))


def _runs_by_seed(rows: pd.DataFrame) -> list[str]:
    runs = rows.drop_duplicates("run_id").sort_values(["seed", "run_id"], kind="mergesort")
    return [str(r) for r in runs["run_id"]]


def _no_duplicates(rows: pd.DataFrame, keys: list[str], where: str) -> None:
    dup = rows.loc[rows.duplicated(subset=keys, keep=False), keys]
    if not dup.empty:
        first = dup.iloc[0].to_dict()
        raise BadInputError(where, f"{len(dup)} rows share {keys}, e.g. {first}",
                            hint="source data must hold one value per run, split, metric, epoch")


def _finish(fig: Figure, kind: str, spec: Mapping[str, Any], size_px: tuple[int, int],
            expected: tuple[int, int], caption: str, spread_description: str,
            summary: list[dict[str, Any]]) -> PlotResult:
    n_series, n_points = count_drawn(fig)
    if spec.get("caption"):
        caption = f"{str(spec['caption']).rstrip('.')}. {caption}"
    return PlotResult(
        figure=fig, kind=kind, n_series=n_series, n_points=n_points,
        expected_series=int(spec.get("expected_series", expected[0])),
        expected_points=int(spec.get("expected_points", expected[1])),
        caption=caption, spread_description=spread_description, size_px=size_px,
        summary=pd.DataFrame(summary))


def _prepare(df: pd.DataFrame, spec: Mapping[str, Any], *,
             final: bool) -> tuple[str, str, pd.DataFrame, list[str]]:
    """``(metric, split, rows, groups)``: the selected rows of the groups to draw."""
    where = _where(spec)
    if "metric" not in spec or "split" not in spec:
        raise BadInputError(where, f"a {spec.get('kind')} plot needs 'metric' and 'split'",
                            field="metric")
    metric, split = str(spec["metric"]), str(spec["split"])
    rows = select_rows(df, metric=metric, split=split, final=final, where=where)
    groups = group_order(rows["group"], spec.get("order"), where)
    rows = rows.loc[rows["group"].astype(str).isin(groups)]
    _no_duplicates(rows, ["run_id"] if final else ["run_id", "epoch"], where)
    return metric, split, rows, groups


def _axes_text(ax: Axes, spec: Mapping[str, Any], xlabel: str, ylabel: str) -> None:
    ax.set_xlabel(str(spec.get("xlabel", xlabel)))
    ax.set_ylabel(str(spec.get("ylabel", ylabel)))
    if spec.get("ylim") is not None:
        low, high = spec["ylim"]
        ax.set_ylim(low, high)


#: How a caption names a split to a reader ("accuracy on the validation split", not "on val").
SPLIT_WORDS = {"train": "the training split", "val": "the validation split", "test": "the test split"}


def split_words(split: str) -> str:
    return SPLIT_WORDS.get(split, f"the {split} split")


def sentence_start(text: str) -> str:
    """``text`` with its first letter capitalised: a generated caption sentence starts like one."""
    return text[:1].upper() + text[1:]


def plot_curves(df: pd.DataFrame, spec: Mapping[str, Any]) -> PlotResult:
    """Learning curves: mean over seeds per group, a shaded spread, and every seed thin.

    Spec: ``metric``, ``split`` (required), ``spread``, ``n_resamples``, ``ci_seed``, and the
    common keys (module docstring).
    """
    metric, split, rows, groups = _prepare(df, spec, final=False)
    spread, n_resamples, seed = check_spread(spec, _where(spec))
    summary_ns: list[int] = []
    summary: list[dict[str, Any]] = []
    with figure_style():
        fig, ax, size_px = _new_figure(spec)
        for i, group in enumerate(groups):
            color = _color(spec, group, i)
            mine = rows.loc[rows["group"].astype(str) == group]
            runs = _runs_by_seed(mine)
            for j, run in enumerate(runs):
                one = mine.loc[mine["run_id"] == run].sort_values("epoch", kind="mergesort")
                ax.plot(_floats(one["epoch"]), _floats(one["value"]), color=color, alpha=0.3,
                        linewidth=0.7, gid=f"{GID_PREFIX}obs-{i}-{j}")
            epochs, values = _floats(mine["epoch"]), _floats(mine["value"])
            xs = np.unique(epochs)
            stats = [summarize(values[epochs == x], spread, n_resamples=n_resamples, seed=seed,
                               rng_id=bootstrap_id(spec, group)) for x in xs]
            low = np.array([s.low for s in stats])
            high = np.array([s.high for s in stats])
            finite = np.isfinite(low) & np.isfinite(high)
            if finite.any():
                ax.fill_between(xs, np.where(finite, low, 0.0), np.where(finite, high, 0.0),
                                where=finite, color=color, alpha=0.2, linewidth=0,
                                gid=f"{GID_PREFIX}band-{i}")
            ax.plot(xs, [s.mean for s in stats], color=color, linewidth=1.8,
                    label=_label(spec, group), gid=f"{GID_PREFIX}series-{i}")
            summary_ns += [s.n for s in stats]
            summary += [{"group": group, "epoch": int(x), "n": s.n, "mean": s.mean,
                         "spread": s.spread, "low": s.low, "high": s.high}
                        for x, s in zip(xs, stats, strict=True)]
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _axes_text(ax, spec, "epoch", f"{metric} ({split})")
        ax.legend(loc=spec.get("legend_loc", "best"), frameon=False)
    # n per epoch, not per group: a run that stopped early leaves later means with fewer seeds
    band = "shaded band: " + describe_spread(spread, summary_ns, n_resamples=n_resamples,
                                             seed=seed, per="epoch",
                                             rng_id=bootstrap_id(spec, "<group>"))
    caption = (f"{sentence_start(metric)} on {split_words(split)} by epoch. Thick lines: mean over "
               "seeds; thin lines: "
               f"individual seeds; {band}.")
    return _finish(fig, "curves", spec, size_px, (len(groups), len(rows)), caption, band,
                   summary)


def _jitter(n: int, width: float = 0.12) -> np.ndarray:
    """Evenly spaced offsets in [-width, width]: deterministic, and no two seeds overlap."""
    return np.linspace(-width, width, n) if n > 1 else np.zeros(n)


def _panels(spec: Mapping[str, Any], groups: list[str]) -> list[dict[str, Any]]:
    """The spec's ``panels`` (each ``{groups, ylim?, chance?}``) checked against the drawn groups;
    one panel of every group when there are none."""
    raw = spec.get("panels")
    if not raw:
        return [{"groups": groups}]
    where = _where(spec)
    panels, seen = [], []
    for index, panel in enumerate(raw):
        unknown = [g for g in panel["groups"] if g not in groups]
        if unknown:
            raise BadInputError(where, f"panel {index} names group(s) {unknown} that the figure does not "
                                f"draw (groups: {groups})", field=f"panels[{index}].groups")
        seen += panel["groups"]
        panels.append({"chance": False, **panel})
    missing = [g for g in groups if g not in seen]
    if missing:
        raise BadInputError(where, f"groups {missing} are in no panel", field="panels")
    return panels


def plot_points(df: pd.DataFrame, spec: Mapping[str, Any]) -> PlotResult:
    """Final metric by group: every seed as a dot, the mean with error bars of the spread.

    Spec: ``metric``, ``split`` (required), ``spread``, ``n_resamples``, ``ci_seed``,
    ``chance`` (a number, or ``{"value": v, "label": text}``), ``chance_label``, ``panels``
    (a list of ``{groups = [...], ylim = [lo, hi], chance = true}``: side-by-side panels, each on
    its own scale, the chance line only where ``chance`` is set), and the common keys (module
    docstring).
    """
    metric, split, rows, groups = _prepare(df, spec, final=True)
    spread, n_resamples, seed = check_spread(spec, _where(spec))
    ns, summary = [], []
    panels = _panels(spec, groups)
    with figure_style():
        fig, ax, size_px = _new_figure(spec)
        if len(panels) > 1:
            # one panel per group list, each on its own y scale: a 0.4-point difference between
            # two models at 98% is visible beside a control at 10%, not squashed onto one 0-1 axis
            fig.delaxes(ax)
            ratios = [len(p["groups"]) + 0.6 for p in panels]
            axes = list(fig.subplots(1, len(panels), squeeze=False, gridspec_kw={"width_ratios": ratios})[0])
            if spec.get("title"):
                fig.suptitle(str(spec["title"]))
        else:
            axes = [ax]
        chance_text = ""
        for panel_ax, panel in zip(axes, panels, strict=True):
            local = panel["groups"]
            for j, group in enumerate(local):
                i = groups.index(group)
                color = _color(spec, group, i)
                mine = rows.loc[rows["group"].astype(str) == group]
                mine = mine.sort_values(["seed", "run_id"], kind="mergesort")
                values = _floats(mine["value"])
                ns.append(len(values))
                panel_ax.scatter(j + _jitter(len(values)), values, s=18, color=color, alpha=0.6,
                                 linewidths=0, zorder=2, gid=f"{GID_PREFIX}obs-{i}")
                s = summarize(values, spread, n_resamples=n_resamples, seed=seed,
                              rng_id=bootstrap_id(spec, group))
                has_bar = math.isfinite(s.low) and math.isfinite(s.high)
                yerr = [[s.mean - s.low], [s.high - s.mean]] if has_bar else None
                bars = panel_ax.errorbar([j], [s.mean], yerr=yerr, fmt="D", markersize=6, color="black",
                                         markerfacecolor=color, capsize=4, elinewidth=1.2, zorder=3)
                data_line, caps, cols = bars.lines
                data_line.set_gid(f"{GID_PREFIX}series-{i}")
                for k, artist in enumerate([*caps, *cols]):
                    artist.set_gid(f"{GID_PREFIX}bar-{i}-{k}")
                summary.append({"group": group, "n": s.n, "mean": s.mean, "spread": s.spread,
                                "low": s.low, "high": s.high})
            panel_ax.set_xticks(range(len(local)), labels=[_label(spec, g) for g in local])
            panel_ax.set_xlim(-0.6, len(local) - 0.4)
            first = panel_ax is axes[0]
            panel_spec = {**spec, "ylim": panel.get("ylim") if len(panels) > 1 else spec.get("ylim")}
            if not first:
                panel_spec["ylabel"] = ""  # one y label, on the first panel
            _axes_text(panel_ax, panel_spec, "", f"{metric} ({split})")
            chance = spec.get("chance")
            if chance is not None and panel.get("chance", True):
                if isinstance(chance, Mapping):
                    value = float(chance["value"])
                    chance_label = str(chance.get("label", "chance"))
                else:
                    value, chance_label = float(chance), str(spec.get("chance_label", "chance"))
                panel_ax.axhline(value, color="0.45", linestyle="--", linewidth=1.0, label=chance_label,
                                 zorder=1)
                panel_ax.legend(loc=spec.get("legend_loc", "best"), frameon=False)
                chance_text = f" Dashed line: {chance_label} ({value:g})."
    if len(panels) > 1:
        chance_text += " Panels have their own y scales: " + "; ".join(
            ", ".join(_label(spec, g) for g in p["groups"]) for p in panels) + "."
    bars_text = "error bars: " + describe_spread(spread, ns, n_resamples=n_resamples, seed=seed,
                                                 rng_id=bootstrap_id(spec, "<group>"))
    caption = (f"Final {metric} on {split_words(split)} by group. Dots: individual seeds; diamonds: mean; "
               f"{bars_text}.{chance_text}")
    return _finish(fig, "points", spec, size_px, (len(groups), len(rows)), caption, bars_text,
                   summary)


def plot_expected_max(df: pd.DataFrame, spec: Mapping[str, Any]) -> PlotResult:
    """Expected best validation score against the number of trials, one line per group.

    For "Show Your Work" (Dodge et al., 2019) curves: the rows are already aggregated, so the
    ``spread`` key does not apply; an optional ``band`` names the engine's columns for one.
    Spec: ``x`` (default ``trials``), ``y`` (default ``expected_max``), ``group_column``
    (default ``group``), ``metric`` (named in the labels), ``band`` (``{"low": col, "high":
    col, "label": text}``), ``xscale`` (``linear``/``log``), and the common keys.
    """
    where = _where(spec)
    x_col, y_col = str(spec.get("x", "trials")), str(spec.get("y", "expected_max"))
    g_col = str(spec.get("group_column", "group"))
    what = f"validation {spec['metric']}" if spec.get("metric") else "validation score"
    band = spec.get("band")
    needed = [x_col, y_col, g_col] + ([str(band["low"]), str(band["high"])] if band else [])
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise BadInputError(where, f"data lacks column(s) {missing}", field="x",
                            hint=f"columns present: {list(df.columns)}")
    if df.empty:
        raise BadInputError(where, "no rows to plot")
    groups = group_order(df[g_col], spec.get("order"), where)
    rows = df.loc[df[g_col].astype(str).isin(groups)]
    _no_duplicates(rows, [g_col, x_col], where)
    summary = []
    with figure_style():
        fig, ax, size_px = _new_figure(spec)
        for i, group in enumerate(groups):
            color = _color(spec, group, i)
            mine = rows.loc[rows[g_col].astype(str) == group].sort_values(x_col, kind="mergesort")
            xs, ys = _floats(mine[x_col]), _floats(mine[y_col])
            if band:
                ax.fill_between(xs, _floats(mine[str(band["low"])]),
                                _floats(mine[str(band["high"])]), color=color, alpha=0.2,
                                linewidth=0, gid=f"{GID_PREFIX}band-{i}")
            ax.plot(xs, ys, color=color, linewidth=1.6, label=_label(spec, group),
                    gid=f"{GID_PREFIX}series-{i}")
            ax.scatter(xs, ys, s=10, color=color, zorder=3, gid=f"{GID_PREFIX}obs-{i}")
            summary += [{"group": group, x_col: x, y_col: y}
                        for x, y in zip(xs, ys, strict=True)]
        ax.set_xscale(str(spec.get("xscale", "linear")))
        if spec.get("xscale", "linear") == "linear":
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        else:
            ax.xaxis.set_major_formatter(ScalarFormatter())
        _axes_text(ax, spec, "number of hyperparameter trials", f"expected best {what}")
        ax.legend(loc=spec.get("legend_loc", "best"), frameon=False)
    described = "no spread shown"
    if band:
        described = "shaded band: " + str(band.get("label", f"{band['low']} to {band['high']}"))
    caption = (f"Expected best {what} against the number of hyperparameter trials "
               f"(Dodge et al., 2019); {described}.")
    return _finish(fig, "expected_max", spec, size_px, (len(groups), len(rows)), caption,
                   described, summary)


PLOT_KINDS: dict[str, Callable[[pd.DataFrame, Mapping[str, Any]], PlotResult]] = {
    "curves": plot_curves,
    "points": plot_points,
    "expected_max": plot_expected_max,
}


def make_plot(df: pd.DataFrame, spec: Mapping[str, Any]) -> PlotResult:
    """Dispatch on ``spec["kind"]``."""
    kind = spec.get("kind")
    if kind not in PLOT_KINDS:
        raise BadInputError(_where(spec), f"unknown plot kind {kind!r}", field="kind",
                            hint=f"one of {sorted(PLOT_KINDS)}")
    return PLOT_KINDS[str(kind)](df, spec)


# --------------------------------------------------------------------------- writing


def save_deterministic(fig: Figure, stem: str | Path,
                       formats: Sequence[str] = DEFAULT_FORMATS) -> dict[str, Path]:
    """Write ``<stem>.<fmt>`` atomically; the same figure gives the same bytes every time."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    with figure_style():
        for fmt in formats:
            if fmt not in METADATA:
                raise ValueError(f"unsupported figure format {fmt!r}; one of {sorted(METADATA)}")
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, dpi=fig.dpi, metadata=METADATA[fmt])
            path = stem.parent / f"{stem.name}.{fmt}"
            write_bytes_atomic(path, buffer.getvalue())
            written[fmt] = path
    return written


def _data_artists(fig: Figure) -> Iterator[Artist]:
    for ax in fig.axes:
        for artist in ax.get_children():
            gid = artist.get_gid()
            if gid and gid.startswith(GID_PREFIX) and artist.get_visible():
                yield artist


def _finite_points(artist: Artist) -> int:
    if isinstance(artist, Line2D):
        xy = np.asarray(artist.get_xydata(), dtype=np.float64)
    elif isinstance(artist, Collection):
        xy = np.asarray(artist.get_offsets(), dtype=np.float64)
    else:
        return 0
    return int(np.isfinite(xy).all(axis=1).sum()) if xy.size else 0


def count_drawn(fig: Figure) -> tuple[int, int]:
    """``(series, points)`` actually drawn: visible tagged artists with finite data."""
    series = points = 0
    for artist in _data_artists(fig):
        gid = str(artist.get_gid())
        if gid.startswith(f"{GID_PREFIX}series-") and _finite_points(artist):
            series += 1
        elif gid.startswith(f"{GID_PREFIX}obs-"):
            points += _finite_points(artist)
    return series, points


def render_png(fig: Figure, *, hide_data: bool = False) -> bytes:
    """PNG bytes of ``fig``; with ``hide_data`` the tagged data artists are left out.

    The data-hidden render is the gate's "empty axes" reference: if the written PNG equals it,
    the data changed no pixel (drawn off-axes, in the background colour, fully transparent).
    """
    hidden = list(_data_artists(fig)) if hide_data else []
    with figure_style():
        try:
            for artist in hidden:
                artist.set_visible(False)
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=fig.dpi, metadata=METADATA["png"])
        finally:
            for artist in hidden:
                artist.set_visible(True)
    return buffer.getvalue()


def _load_rgba(source: str | Path | bytes) -> np.ndarray:
    opened = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
    with opened as image:
        image.load()
        rgba = image.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(white, rgba))


def _fmt_variance(value: float) -> str:
    return f"{value:.1f}" if value == 0 or value >= 0.05 else f"{value:.2e}"


def check_image(path: str | Path, *, expected_size: tuple[int, int] | None = None,
                min_variance: float = MIN_VARIANCE, expected_series: int | None = None,
                drawn_series: int | None = None, expected_points: int | None = None,
                drawn_points: int | None = None,
                empty_reference: str | Path | bytes | None = None) -> dict[str, Any]:
    """Re-open a written PNG from disk and check it; raise :class:`GateError` naming every fault.

    Checks the pixel size, that the grayscale variance reaches ``min_variance`` (not blank),
    that the image differs from ``empty_reference`` (the same figure with the data hidden, see
    :func:`render_png`), and that the drawn series/point counts equal the expected ones where
    both are given. Returns what was measured, for the sidecar.
    """
    shown = str(path)
    try:
        pixels = _load_rgba(Path(path))
    except (OSError, Image.DecompressionBombError) as exc:
        raise GateError(f"{shown}: cannot be re-opened as an image ({exc})") from exc
    height, width = pixels.shape[:2]
    gray = np.asarray(Image.fromarray(pixels).convert("L"), dtype=np.float64)
    variance = float(gray.var())
    problems: list[str] = []
    if expected_size is not None and (width, height) != tuple(expected_size):
        problems.append(f"image is {width}x{height} px, expected "
                        f"{expected_size[0]}x{expected_size[1]} px (figure size x dpi)")
    if variance < min_variance:
        problems.append(f"image is blank (pixel variance {_fmt_variance(variance)} < floor "
                        f"{float(min_variance)})")
    data_fraction: float | None = None
    if empty_reference is not None:
        reference = _load_rgba(empty_reference)
        if reference.shape != pixels.shape:
            problems.append(f"reference render is {reference.shape[1]}x{reference.shape[0]} px, "
                            f"image is {width}x{height} px")
        else:
            data_fraction = float(np.any(reference != pixels, axis=-1).mean())
            if data_fraction == 0.0:
                problems.append("no data pixels: the image equals its axes rendered without "
                                "the data")
    for what, expected, drawn in (("series", expected_series, drawn_series),
                                  ("points", expected_points, drawn_points)):
        if expected is not None and drawn is not None and expected != drawn:
            problems.append(f"expected {expected} {what}, drew {drawn}")
    if problems:
        raise GateError(f"{shown}: " + "; ".join(problems))
    return {"path": shown, "size_px": [width, height], "pixel_variance": round(variance, 6),
            "min_variance": float(min_variance),
            "data_pixel_fraction": None if data_fraction is None else round(data_fraction, 6),
            "series": drawn_series, "points": drawn_points}


def render_figure(df: pd.DataFrame, spec: Mapping[str, Any], stem: str | Path,
                  formats: Sequence[str] = DEFAULT_FORMATS) -> dict[str, Any]:
    """Plot, write every format, re-open the PNG through the gate; return the sidecar facts."""
    if "png" not in formats:
        raise ValueError("the re-open gate checks the PNG: formats must include 'png'")
    result = make_plot(df, spec)
    paths = save_deterministic(result.figure, stem, formats)
    gate = check_image(
        paths["png"], expected_size=result.size_px,
        min_variance=float(spec.get("min_variance", MIN_VARIANCE)),
        expected_series=result.expected_series, drawn_series=result.n_series,
        expected_points=result.expected_points, drawn_points=result.n_points,
        empty_reference=render_png(result.figure, hide_data=True))
    return {"kind": result.kind, "caption": result.caption,
            "spread": result.spread_description,
            "files": {fmt: path.name for fmt, path in paths.items()},
            "digests": {fmt: digest_file(path) for fmt, path in paths.items()},
            "gate": gate, "values": summary_records(result.summary)}


def summary_records(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """The plotted numbers as JSON-ready dicts (NaN and infinities as None), for sidecars."""
    records = []
    for row in summary.to_dict(orient="records"):
        clean: dict[str, Any] = {}
        for key, value in row.items():
            value = value.item() if isinstance(value, np.generic) else value
            clean[str(key)] = None if isinstance(value, float) and not math.isfinite(value) else value
        records.append(clean)
    return records
