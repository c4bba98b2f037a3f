"""``evidence show`` and ``evidence diff`` as text, CSV, Markdown or JSON.

The values come from :mod:`evidence.verify.runtable` and :mod:`evidence.verify.rundiff`; this
module only lays them out. Text stays readable at 80 columns: a table whose lines fit the width
is printed as a table, one that does not goes vertical (one block per row, every line wrapped
at the width), never sideways: a wide horizontal table is what users of ``dvc exp show`` find
overwhelming and hard to grep.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from evidence.verify.runtable import (
    CI_WORDS,
    Row,
    Table,
    config_text,
    number,
    summary_text,
    table_json,
    verdict_text,
)


def _metric_header(metric: str, split: str, table: Table) -> str:
    return metric if len(table.splits) == 1 else f"{metric} ({split})"


def _cells(table: Table, row: Row) -> list[str]:
    cells = [row.name, row.status_text, *(config_text(row.config.get(k, "-")) for k in table.differing)]
    cells += [summary_text(row.summaries[m][s]) for m, _ in table.metrics for s in table.splits]
    cells.append("; ".join(verdict_text(v) for v in row.verdicts) or "-")
    return cells


def _header(table: Table) -> list[str]:
    return ["variant" if table.mode == "variants" else "run", "status", *table.differing,
            *(_metric_header(m, s, table) for m, _ in table.metrics for s in table.splits), "verdicts"]


def _preamble(table: Table) -> list[str]:
    runs = sum(len(r.runs) for r in table.rows)
    what = f"{len(table.rows)} variant(s) over {runs} run(s)" if table.mode == "variants" \
        else f"{runs} run(s)"
    better = ", ".join(f"{m}: {d} is better" for m, d in table.metrics)
    lines = [f"{what}; split: {', '.join(table.splits) or '-'}; intervals: {CI_WORDS}"
             + (f"; {better}" if better else "")]
    verify = table.verify
    if verify.get("note"):
        lines.append(f"verdicts: {verify['note']}")
    elif verify.get("report"):
        lines.append(f"verdicts from {verify['report']}")
    return lines


def render_text(table: Table, width: int = 80) -> str:
    """The table if every line fits ``width``, else one block per row (see the module docstring)."""
    out = [textwrap.fill(line, width, subsequent_indent="  ") for line in _preamble(table)]
    if not table.rows:
        return "\n".join([*out, "no run matches"]) + "\n"
    header, rows = _header(table), [_cells(table, row) for row in table.rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    if sum(widths) + 2 * (len(widths) - 1) <= width:
        out.append("")
        for cells in [header, *rows]:
            out.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
        return "\n".join(out) + "\n"
    return "\n".join([*out, *_vertical(table, width)]) + "\n"


def _vertical(table: Table, width: int) -> list[str]:
    labels = ["config", "verdicts",
              *(_metric_header(m, s, table) for m, _ in table.metrics for s in table.splits)]
    pad = min(max(len(x) for x in labels) + 2, width // 3)
    lines: list[str] = []

    def field(label: str, text: str) -> None:
        head = f"  {label}".ljust(pad + 2) if len(label) < pad else f"  {label} "
        lines.append(textwrap.fill(text, width, initial_indent=head, subsequent_indent=" " * (pad + 2),
                                   break_on_hyphens=False))

    for row in table.rows:
        role = "" if row.role == "model" else f", {row.role}"
        lines += ["", textwrap.fill(f"{row.name}  ({row.status_text}{role})", width, subsequent_indent="  ")]
        shown = [f"{k}={config_text(row.config[k])}" for k in table.differing if k in row.config]
        if shown:
            field("config", "  ".join(shown))
        for metric, _ in table.metrics:
            for split in table.splits:
                field(_metric_header(metric, split, table), summary_text(row.summaries[metric][split]))
        if row.verdicts:
            field("verdicts", "; ".join(verdict_text(v) for v in row.verdicts))
        problems = [f"{r.label}: {r.status} ({r.detail})" for r in row.runs
                    if r.status not in ("sealed", "not yet run") and r.detail]
        for problem in problems:
            field("note", problem)
    return lines


def render_json(table: Table) -> str:
    """One line of JSON (json's C encoder; with ``indent`` the pure-Python one took 0.4 s at
    10,000 rows): ``evidence show --json | jq`` for a readable form."""
    return json.dumps(table_json(table), sort_keys=True, allow_nan=False, separators=(",", ":")) + "\n"


def csv_rows(table: Table) -> list[dict[str, Any]]:
    """One flat record per row: the columns of ``--csv`` (numbers unrounded)."""
    records = []
    for row in table.rows:
        record: dict[str, Any] = {"name": row.name, "experiment": row.experiment, "group": row.group,
                                  "label": row.label, "role": row.role, "status": row.status_text,
                                  "runs": len(row.runs)}
        record.update({f"config.{k}": config_text(row.config.get(k, "")) for k in table.differing})
        for metric, _ in table.metrics:
            for split in table.splits:
                summary = row.summaries[metric][split]
                base = f"{metric}.{split}"
                record.update({f"{base}.mean": summary.mean, f"{base}.ci_low": summary.low,
                               f"{base}.ci_high": summary.high, f"{base}.n": summary.n})
        record["verdicts"] = "; ".join(verdict_text(v) for v in row.verdicts)
        records.append(record)
    return records


def render_csv(table: Table) -> str:
    records = csv_rows(table)
    if not records:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: "" if v is None else repr(v) if isinstance(v, float) else v
                         for k, v in record.items()})
    return buffer.getvalue()


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(table: Table) -> str:
    """A pipe table for notes (no width limit: Markdown viewers scroll or wrap it themselves)."""
    lines = [f"*{_md(line)}*" for line in _preamble(table)] + [""]
    header = _header(table)
    lines.append("| " + " | ".join(_md(h) for h in header) + " |")
    lines.append("|" + "|".join("---" for _ in header) + "|")
    for row in table.rows:
        lines.append("| " + " | ".join(_md(c) for c in _cells(table, row)) + " |")
    return "\n".join(lines) + "\n"


# -- diff ------------------------------------------------------------------------------------


def _short(value: Any) -> str:
    text = config_text(value)
    return text[:12] + "..." if len(text) == 64 and all(c in "0123456789abcdef" for c in text) else text


def _values_text(values: Sequence[Any]) -> str:
    if not values:
        return "(absent)"
    if len(values) == 1:
        return _short(values[0])
    return f"{len(values)} values: " + ", ".join(_short(v) for v in values)


def render_diff(result: Mapping[str, Any], width: int = 80) -> str:
    """Identity, recorded environment and metric deltas, one wrapped line per difference."""
    a, b = result["a"], result["b"]
    def pooled(side: Mapping[str, Any]) -> str:
        return f"; its metrics pooled over {side['groups']} groups" if side["groups"] > 1 else ""

    lines = [textwrap.fill(f"{x}: {side['name']} ({side['kind']}, {side['sealed']} of {side['runs']} "
                           f"run(s) sealed{pooled(side)})", width, subsequent_indent="   ")
             for x, side in (("A", a), ("B", b))]
    lines.append("")

    def wrap(text: str) -> None:
        lines.append(textwrap.fill(text, width, initial_indent="  ", subsequent_indent="      ",
                                   break_on_hyphens=False))

    lines.append("identity (what the run key holds):" if result["identity"] else
                 "identity: the same in every field of the run key but the seed")
    for entry in result["identity"]:
        wrap(f"{entry['field']}: {_values_text(entry['a'])} -> {_values_text(entry['b'])}")
    if result["recorded"]:
        lines.append("recorded where they ran (provenance.json, not in the key):")
        for entry in result["recorded"]:
            wrap(f"{entry['field']}: {_values_text(entry['a'])} -> {_values_text(entry['b'])}")
    lines.append("")
    lines.append(textwrap.fill("metrics (A - B; 95% CI of the difference, Welch t, when both sides "
                               "have two or more runs):" if result["metrics"]
                               else "metrics: no metric both sides report", width))
    for m in result["metrics"]:
        interval = (f" [{_signed(m['ci_low'])}, {_signed(m['ci_high'])}]" if m["ci_low"] is not None
                    else f" ({m['note']})" if m["note"] else "")
        wrap(f"{m['metric']} ({m['split']}, {m['direction']} is better): "
             f"{number(m['a']['mean'])} (n={m['a']['n']}) - {number(m['b']['mean'])} (n={m['b']['n']}) "
             f"= {_signed(m['diff'])}{interval}")
    return "\n".join(lines) + "\n"


def _signed(value: float | None) -> str:
    text = number(value)
    return text if text in ("-", "0") or text.startswith("-") else f"+{text}"
