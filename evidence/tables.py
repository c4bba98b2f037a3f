"""Results tables from a tidy ``source_data.csv``: one row per group, mean and spread per cell.

Why it is built this way:

* Like a figure, a table is a function of ``source_data.csv`` and its spec alone, and it uses the
  same statistics as the figures (:func:`evidence.plotting.summarize`, same bootstrap seed), so a
  number in a table and the error bar in a figure of the same runs agree.
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jinja2
import numpy as np
import pandas as pd

from evidence.errors import BadInputError
from evidence.plotting import (
    check_spread,
    group_order,
    seeds_phrase,
    select_rows,
    spread_name,
    summarize,
)


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

    Spec: ``columns`` (required; each ``{"metric", "split", "header"?, "decimals"?,
    "percent"?}`` or ``"<split>/<metric>"``), ``name``, ``order`` (selects and orders the rows),
    ``labels`` (group -> row label), ``row_header`` (default ``Group``), ``spread`` (``sd``,
    ``se``, ``ci95``), ``n_resamples``, ``ci_seed``, ``decimals``, ``percent`` (defaults for
    the columns), ``show_n`` (default true), ``caption``, ``label`` (LaTeX label).
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
            s = summarize(values, spread, n_resamples=n_resamples, seed=seed)
            cells[(group, column.key)] = Cell(group, column.key, s.n, s.mean, s.spread, s.low,
                                              s.high)
            ns.append(s.n)
    name_ = spread_name(spread, n_resamples=n_resamples, seed=seed)
    described = (f"mean [{name_}]" if spread == "ci95" else f"mean {name_}") \
        + f" over {seeds_phrase(ns)}"
    show_n = bool(spec.get("show_n", True))
    footnote = f"Values: {described}" + ("; n = seeds per cell." if show_n else ".")
    caption = f"{str(spec['caption']).rstrip('.')}. {footnote}" if spec.get("caption") \
        else footnote
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
