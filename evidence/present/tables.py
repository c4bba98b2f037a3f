"""Results tables from a tidy ``source_data.csv``: one row per group, mean and spread per cell.

Why it is built this way:

* Like a figure, a table is a function of ``source_data.csv`` and its spec alone. Reading that
  file, selecting rows and the spread statistics live here and :mod:`evidence.present.plotting` imports
  them (and re-exports :func:`read_source_data`), so a number in a table and the error bar in a
  figure of the same runs agree, and a table does not import matplotlib.
* A "95% CI" of a mean is the Student-t interval everywhere it is printed (table, figure, paper
  text, verify report): one method per quantity, so the same mean never shows two different
  95% intervals, and one whose coverage holds at five seeds (a bootstrap's does not).
* Every cell says how many seeds stand behind it and the caption names the spread exactly;
  a table of bare means overstates what a handful of seeds support.
* The numbers are kept, not just the text (:attr:`TableResult.cells`), so prose can cite a
  cell and a drift check can compare it, without parsing formatted strings.
* Rendering is plain string building (Markdown) and a Jinja2 template (LaTeX, booktabs) with
  every user-supplied label escaped; the same input gives the same bytes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from evidence.core.errors import BadInputError
from evidence.verify import stats

SPREADS = ("sd", "se", "ci95")
DEFAULT_N_RESAMPLES = 10_000
SOURCE_COLUMNS = ("run_id", "experiment", "label", "group", "seed", "epoch", "split", "metric",
                  "value", "direction")
CONFIG_PREFIX = "config."


# --------------------------------------------------------------------------- shared with figures


def read_source_data(path: str | Path) -> pd.DataFrame:
    """Read ``source_data.csv`` with dtypes that do not depend on the content.

    Text columns (and every ``config.*`` column, as written) are ``str``; ``seed`` and
    ``epoch`` are nullable ``Int64`` (``epoch`` is missing on final rows); ``value`` is float64
    (``nan``/``inf`` accepted). Letting pandas infer would turn a config column into int in one
    figure and str in another, and an all-final file's epoch into float.
    """
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in SOURCE_COLUMNS if c not in raw.columns]
    if missing:
        raise BadInputError(path, f"missing column(s) {missing}",
                            hint=f"source_data.csv needs {list(SOURCE_COLUMNS)}")
    df = raw.astype(str)
    df["seed"] = _parse_column(raw["seed"], path, "seed", integer=True, allow_empty=False)
    df["epoch"] = _parse_column(raw["epoch"], path, "epoch", integer=True, allow_empty=True)
    df["value"] = _parse_column(raw["value"], path, "value", integer=False, allow_empty=True)
    bad = sorted(set(df["direction"]) - {"higher", "lower"})
    if bad:
        raise BadInputError(path, f"direction must be 'higher' or 'lower', got {bad}",
                            field="direction")
    return df


def _parse_column(column: pd.Series, path: str | Path, name: str, *, integer: bool,
                  allow_empty: bool) -> pd.Series:
    parsed: list[float] = []
    for line, text in enumerate(column.str.strip(), start=2):  # line 1 is the header
        try:
            value = float(text) if text else math.nan
        except ValueError as exc:
            raise BadInputError(path, f"line {line}: {name} {text!r} is not a number",
                                field=name) from exc
        if integer and (bool(text) or not allow_empty) and not value.is_integer():
            raise BadInputError(path, f"line {line}: {name} {text!r} is not an integer",
                                field=name)
        parsed.append(value)
    floats = pd.Series(parsed, index=column.index, dtype="float64")
    return floats.astype("Int64") if integer else floats


def select_rows(df: pd.DataFrame, *, metric: str, split: str, final: bool,
                where: str) -> pd.DataFrame:
    """Rows of one metric on one split: final values (no epoch) or per-epoch history."""
    missing = [c for c in ("group", "run_id", "seed", "epoch", "split", "metric", "value")
               if c not in df.columns]
    if missing:
        raise BadInputError(where, f"source data lacks column(s) {missing}")
    history = df["epoch"].notna()
    mask = (df["metric"] == metric) & (df["split"] == split) & (~history if final else history)
    rows = df.loc[mask]
    if rows.empty:
        chosen = df.loc[~history if final else history]
        present = sorted({f"{s}/{m}" for s, m in zip(chosen["split"], chosen["metric"],
                                                     strict=True)})
        what = "final" if final else "per-epoch"
        raise BadInputError(where, f"no {what} rows for metric {metric!r} on split {split!r}",
                            field="metric", hint=f"split/metric present: {present}")
    return rows


def group_order(present: Iterable[str], order: Sequence[str] | None, where: str) -> list[str]:
    """The groups to draw: ``order`` selects and orders them; without it, all, sorted."""
    groups = sorted({str(g) for g in present})
    if order is None:
        return groups
    wanted = [str(g) for g in order]
    if len(set(wanted)) != len(wanted):
        raise BadInputError(where, f"'order' lists a group twice: {wanted}", field="order")
    absent = [g for g in wanted if g not in groups]
    if absent:
        raise BadInputError(where, f"group(s) {absent} in 'order' have no rows",
                            field="order", hint=f"groups present: {groups}")
    return wanted


def check_spread(spec: Mapping[str, Any], where: str) -> tuple[str, int, int]:
    """``(spread, n_resamples, ci_seed)`` from a spec, validated."""
    spread = str(spec.get("spread", "sd"))
    if spread not in SPREADS:
        raise BadInputError(where, f"unknown spread {spread!r}", field="spread",
                            hint=f"one of {list(SPREADS)}")
    n_resamples = spec.get("n_resamples", DEFAULT_N_RESAMPLES)
    if not isinstance(n_resamples, int) or n_resamples < 100:
        raise BadInputError(where, f"n_resamples must be an integer >= 100, got {n_resamples!r}",
                            field="n_resamples")
    seed = spec.get("ci_seed", 0)
    if not isinstance(seed, int) or seed < 0:
        raise BadInputError(where, f"ci_seed must be a non-negative integer, got {seed!r}",
                            field="ci_seed")
    return spread, n_resamples, seed


@dataclass(frozen=True)
class Summary:
    """Mean and spread of one cell's values (one value per seed).

    ``spread`` is the SD or SE (NaN for ``ci95``); ``low``/``high`` bound the interval drawn
    (mean ± spread, or the Student-t interval). All spreads are NaN below two values, or when
    a value is NaN: a diverged seed makes the mean NaN rather than vanishing from it.
    """

    n: int
    mean: float
    spread: float
    low: float
    high: float


def bootstrap_id(spec: Mapping[str, Any], group: str) -> str | None:
    """Identifier of a group's random generator (``"<name>/<group>"``), or None for ``ci_seed``.

    Kept for callers of the former bootstrap interval; ``ci95`` is now the Student-t interval,
    which draws nothing, so the identifier no longer changes any number or caption.
    """
    if "ci_seed" in spec:
        return None
    return f"{spec.get('name', 'unnamed')}/{group}"


def summarize(values: Sequence[float] | np.ndarray, spread: str = "sd", *,
              n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = 0,
              rng_id: str | None = None) -> Summary:
    """Mean and spread; ``ci95`` is the Student-t interval of the mean (``stats.t_interval_mean``).

    It is the interval the verify report and the paper give for the same mean, so a figure's
    error bar and a claim's "95% CI" agree. It draws no random numbers: ``n_resamples``, ``seed``
    and ``rng_id`` are accepted for specs written for the former bootstrap and change nothing.
    """
    data = np.asarray(values, dtype=np.float64)
    n = int(data.size)
    if n == 0:
        raise ValueError("cannot summarize zero values")
    mean = float(data.mean())
    if n < 2 or not np.isfinite(data).all():
        return Summary(n, mean, math.nan, math.nan, math.nan)
    if spread in ("sd", "se"):
        width = float(data.std(ddof=1))
        if spread == "se":
            width /= math.sqrt(n)
        return Summary(n, mean, width, mean - width, mean + width)
    if spread != "ci95":
        raise ValueError(f"unknown spread {spread!r}; one of {SPREADS}")
    ci = stats.t_interval_mean(data, confidence=0.95)
    return Summary(n, mean, math.nan, ci.low, ci.high)


def spread_name(spread: str, *, n_resamples: int = DEFAULT_N_RESAMPLES, seed: int = 0,
                rng_id: str | None = None) -> str:
    """The spread in words: ``±1 SD``, ``±1 SE of the mean``, or ``95% CI of the mean (Student t)``.

    The words a reader needs (the method), never an implementation detail such as a generator's
    identifier; the resampling arguments are accepted for older callers and ignored.
    """
    return {
        "sd": "±1 SD",
        "se": "±1 SE of the mean",
        "ci95": f"95% CI of the mean ({stats.METHOD_NAMES[stats.MEAN_CI_METHOD]})",
    }[spread]


def seeds_phrase(ns: Iterable[int], per: str = "group") -> str:
    """``5 seeds``, or ``3–5 seeds per group`` when counts differ, noting single-seed cells."""
    counts = sorted(set(ns))
    if not counts:
        return "0 seeds"
    if len(counts) == 1:
        text = f"{counts[0]} seed" + ("" if counts[0] == 1 else "s")
    else:
        text = f"{counts[0]}–{counts[-1]} seeds per {per}"
    if counts[0] < 2:
        text += f" (no spread where a {per} has a single seed)"
    return text


def describe_spread(spread: str, ns: Iterable[int], *, n_resamples: int = DEFAULT_N_RESAMPLES,
                    seed: int = 0, per: str = "group", rng_id: str | None = None) -> str:
    """Name the spread exactly, e.g. ``±1 SD over 5 seeds``, for captions and sidecars.

    ``ns`` are the seed counts behind each mean drawn (or cell), ``per`` what one such mean is.
    """
    name = spread_name(spread, n_resamples=n_resamples, seed=seed, rng_id=rng_id)
    return f"{name} over {seeds_phrase(ns, per)}"


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Column:
    """One metric on one split, and how to format it."""

    key: str  # "<split>/<metric>", the key of its cells
    metric: str
    split: str
    header: str
    decimals: int
    percent: bool


@dataclass(frozen=True)
class Cell:
    """The numbers behind one cell, in the metric's own units (not scaled to percent).

    ``spread`` is the SD or SE (NaN for ``ci95``); ``low``/``high`` bound the interval.
    """

    group: str
    column: str
    n: int
    mean: float
    spread: float
    low: float
    high: float


@dataclass(frozen=True)
class TableResult:
    """A built table: ordered rows and columns, the cells' numbers, and its caption."""

    name: str
    groups: tuple[str, ...]
    row_labels: tuple[str, ...]
    row_header: str
    columns: tuple[Column, ...]
    cells: Mapping[tuple[str, str], Cell]
    spread: str
    spread_description: str
    caption: str
    label: str
    show_n: bool

    def cell(self, group: str, column: str) -> Cell:
        """The cell of ``group`` in the column keyed ``"<split>/<metric>"``."""
        return self.cells[(group, column)]

    def to_records(self) -> list[dict[str, Any]]:
        """JSON-ready numbers (NaN as None), one record per cell, in table order."""
        records = []
        for group in self.groups:
            for column in self.columns:
                c = self.cells[(group, column.key)]
                records.append({
                    "group": group, "column": column.key, "metric": column.metric,
                    "split": column.split, "n": c.n, "mean": _json_float(c.mean),
                    "spread": _json_float(c.spread), "low": _json_float(c.low),
                    "high": _json_float(c.high), "spread_kind": self.spread,
                })
        return records


def _json_float(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _columns(spec: Mapping[str, Any], where: str) -> tuple[Column, ...]:
    raw = spec.get("columns")
    if not raw or not isinstance(raw, Sequence) or isinstance(raw, str):
        raise BadInputError(where, "a table needs a non-empty list of 'columns'",
                            field="columns",
                            hint='e.g. [{"metric": "accuracy", "split": "test"}] or '
                                 '["test/accuracy"]')
    default_percent = bool(spec.get("percent", False))
    columns = []
    for item in raw:
        entry: Mapping[str, Any]
        if isinstance(item, str):
            if "/" not in item:
                raise BadInputError(where, f"column {item!r} is not '<split>/<metric>'",
                                    field="columns")
            split, metric = item.split("/", 1)
            entry = {"split": split, "metric": metric}
        elif isinstance(item, Mapping) and "metric" in item and "split" in item:
            entry = item
        else:
            raise BadInputError(where, f"column {item!r} needs 'metric' and 'split'",
                                field="columns")
        percent = bool(entry.get("percent", default_percent))
        decimals = entry.get("decimals", spec.get("decimals", 1 if percent else 3))
        if not isinstance(decimals, int) or not 0 <= decimals <= 10:
            raise BadInputError(where, f"decimals must be an integer 0-10, got {decimals!r}",
                                field="decimals")
        split, metric = str(entry["split"]), str(entry["metric"])
        header = str(entry.get("header", f"{split} {metric}"))
        columns.append(Column(f"{split}/{metric}", metric, split, header, decimals, percent))
    keys = [c.key for c in columns]
    if len(set(keys)) != len(keys):
        raise BadInputError(where, f"a column is listed twice: {keys}", field="columns")
    return tuple(columns)


def build_table(df: pd.DataFrame, spec: Mapping[str, Any]) -> TableResult:
    """Summarize the final values of each group x column.

    Spec: ``columns`` (required; each ``{"metric", "split", "header"?, "decimals"?, "percent"?}`` or
    ``"<split>/<metric>"``), ``name``, ``order`` (orders the rows; it must name every selected group),
    ``labels`` (group -> row label), ``row_header`` (default ``Group``), ``spread`` (``sd``, ``se``,
    ``ci95``), ``n_resamples``, ``ci_seed``, ``decimals`` (default 1 for percent, else 3) and ``percent``
    (defaults for the columns), ``show_n`` (default true), ``caption``, ``label`` (LaTeX label, default
    ``tab:<name>``).
    A group without rows for a column is an error: an empty cell would hide a missing run.
    """
    name = str(spec.get("name", "table"))
    where = f"table '{name}'"
    spread, n_resamples, seed = check_spread(spec, where)
    columns = _columns(spec, where)
    selected = {c.key: select_rows(df, metric=c.metric, split=c.split, final=True, where=where)
                for c in columns}
    present = pd.concat([rows["group"] for rows in selected.values()]).astype(str)
    groups = group_order(present, spec.get("order"), where)
    cells: dict[tuple[str, str], Cell] = {}
    ns: list[int] = []
    for column in columns:
        rows = selected[column.key]
        duplicated = rows.duplicated(subset=["run_id"], keep=False)
        if duplicated.any():
            raise BadInputError(where, f"{column.key}: run(s) "
                                f"{sorted(set(rows.loc[duplicated, 'run_id']))} appear twice",
                                hint="source data must hold one final value per run")
        for group in groups:
            mine = rows.loc[rows["group"].astype(str) == group]
            if mine.empty:
                raise BadInputError(where, f"group {group!r} has no final {column.key} rows",
                                    field="columns")
            mine = mine.sort_values(["seed", "run_id"], kind="mergesort")
            values = pd.to_numeric(mine["value"]).to_numpy(dtype=np.float64, na_value=np.nan)
            s = summarize(values, spread, n_resamples=n_resamples, seed=seed,
                          rng_id=bootstrap_id(spec, group))
            cells[(group, column.key)] = Cell(group, column.key, s.n, s.mean, s.spread, s.low,
                                              s.high)
            ns.append(s.n)
    what = spread_name(spread, n_resamples=n_resamples, seed=seed,
                       rng_id=bootstrap_id(spec, "<group>"))
    described = f"mean [{what}]" if spread == "ci95" else f"mean {what}"
    described += f" over {seeds_phrase(ns, 'cell')}"
    show_n = bool(spec.get("show_n", True))
    caption = f"Values: {described}" + ("; n = seeds per cell." if show_n else ".")
    if spec.get("caption"):
        caption = f"{str(spec['caption']).rstrip('.')}. {caption}"
    labels = spec.get("labels") or {}
    label = str(spec.get("label", "tab:" + re.sub(r"[^A-Za-z0-9:._-]", "-", name)))
    return TableResult(
        name=name, groups=tuple(groups),
        row_labels=tuple(str(labels.get(g, g)) for g in groups),
        row_header=str(spec.get("row_header", "Group")), columns=columns, cells=cells,
        spread=spread, spread_description=described, caption=caption, label=label,
        show_n=show_n)


def format_number(value: float, decimals: int, *, percent: bool = False) -> str:
    """Fixed decimals, scaled by 100 for percent; never ``-0.0``."""
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    text = f"{value * 100 if percent else value:.{decimals}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


def format_cell(cell: Cell, column: Column, spread: str, *, latex: bool = False,
                show_n: bool = True) -> str:
    """``92.0 ± 2.0% (n=3)``; for ``ci95`` ``92.0% [90.7%, 93.3%] (n=3)``."""
    pct = ("\\%" if latex else "%") if column.percent else ""
    pm = " $\\pm$ " if latex else " ± "

    def fmt(value: float) -> str:
        return format_number(value, column.decimals, percent=column.percent)

    if spread == "ci95" and math.isfinite(cell.low) and math.isfinite(cell.high):
        text = f"{fmt(cell.mean)}{pct} [{fmt(cell.low)}{pct}, {fmt(cell.high)}{pct}]"
    elif spread != "ci95" and math.isfinite(cell.spread):
        text = f"{fmt(cell.mean)}{pm}{fmt(cell.spread)}{pct}"
    else:
        text = f"{fmt(cell.mean)}{pct}"
    return f"{text} (n={cell.n})" if show_n else text


_MARKDOWN_SPECIALS = re.compile(r"([\\|`*_])")


def escape_markdown(text: str) -> str:
    """Backslash the characters that would break a pipe table or start emphasis."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text)


def render_markdown(table: TableResult) -> str:
    """A pipe table (labels left, numbers right) and a Pandoc-style ``Table:`` caption."""
    header = [escape_markdown(table.row_header), *(escape_markdown(c.header)
                                                   for c in table.columns)]
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join([":---", *("---:" for _ in table.columns)]) + " |"]
    for group, label in zip(table.groups, table.row_labels, strict=True):
        cells = [format_cell(table.cells[(group, c.key)], c, table.spread, show_n=table.show_n)
                 for c in table.columns]
        lines.append("| " + " | ".join([escape_markdown(label), *cells]) + " |")
    return "\n".join([*lines, "", f"Table: {table.caption}", ""])


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "±": r"$\pm$", "–": "--",
}


def escape_latex(text: str) -> str:
    """Escape LaTeX's special characters (and spell ± and – in ASCII LaTeX)."""
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in text)


# Jinja2 with <<...>> and <%...%> delimiters: LaTeX's braces would clash with {{ }}.
_LATEX_ENV = jinja2.Environment(
    variable_start_string="<<", variable_end_string=">>",
    block_start_string="<%", block_end_string="%>",
    comment_start_string="<#", comment_end_string="#>",
    trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    autoescape=False, undefined=jinja2.StrictUndefined,
)
_LATEX_ENV.filters["tex"] = escape_latex
_LATEX_TEMPLATE = _LATEX_ENV.from_string(r"""% requires \usepackage{booktabs}
\begin{table}[t]
\centering
\caption{<< caption|tex >>}
\label{<< label >>}
\begin{tabular}{<< colspec >>}
\toprule
<< header|join(" & ") >> \\
\midrule
<% for row in rows %>
<< row|join(" & ") >> \\
<% endfor %>
\bottomrule
\end{tabular}
\end{table}
""")


def render_latex(table: TableResult) -> str:
    """A booktabs ``table`` environment; labels and caption escaped, cells built for LaTeX."""
    header = [escape_latex(table.row_header), *(escape_latex(c.header) for c in table.columns)]
    rows = [[escape_latex(label), *(format_cell(table.cells[(group, c.key)], c, table.spread,
                                                latex=True, show_n=table.show_n)
                                    for c in table.columns)]
            for group, label in zip(table.groups, table.row_labels, strict=True)]
    return _LATEX_TEMPLATE.render(caption=table.caption, label=table.label,
                                  colspec="l" + "r" * len(table.columns), header=header,
                                  rows=rows)
