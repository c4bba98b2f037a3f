"""The evidence page of the deliverable: the ``evidence show`` table of the runs the claims use.

A reader of ``paper.html`` who wants to see the runs behind a sentence follows its link to
``evidence.html``: one row per variant (every seed of one configuration) that a claim rests on,
with the config values that differ between rows, each metric's mean with its Student-t interval
and n, the runs' status, the verdicts of the comparisons the row is part of, the claims that use
it, and a link to each run's files in the deliverable (``runs/<id>/spec.json``, ``results.json``,
``metrics.jsonl``, which the exports step ships). The values are those of
:mod:`evidence.verify.runtable`, the table ``evidence show`` prints. Every piece of text is
HTML-escaped (Jinja2's autoescape): names, config values and errors come from user files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jinja2

from evidence.core.hashing import write_bytes_atomic
from evidence.core.outputs import read_checked_json, record_outputs
from evidence.core.project import Project
from evidence.verify.runtable import (
    CI_WORDS,
    RunRow,
    Table,
    build_table,
    config_text,
    run_rows,
    summary_text,
    undeclared_row,
    verdict_text,
)

PAGE = "evidence.html"
#: The run files the page links to (shipped by the exports step for every run the deliverable uses).
RUN_LINKS = ("spec.json", "results.json", "metrics.jsonl")

TEMPLATE = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True).from_string("""\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Evidence: {{ title }}</title>
<style>
body { font-family: Georgia, 'DejaVu Serif', serif; max-width: 100rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #1a1a1a; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.85rem; }
th, td { border-bottom: 1px solid #ccc; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.runs { white-space: nowrap; font-size: 0.8rem; }
.bad { color: #a3261b; }
</style>
</head>
<body>
<p><a href="paper.html">&larr; the paper</a> · <a href="checklist.md">checklist</a> ·
<a href="verify/summary.md">verify summary</a> · <a href="compute.md">compute</a></p>
<h1>Evidence: the runs behind the claims</h1>
<p>{{ intro }}</p>
<table id="evidence-table">
<thead><tr>
{% for header in headers %}<th>{{ header }}</th>{% endfor %}

</tr></thead>
<tbody>
{% for row in rows %}
<tr id="{{ row.anchor }}">
<td>{{ row.name }}</td>
<td{% if row.bad %} class="bad"{% endif %}>{{ row.status }}</td>
{% for value in row.config %}<td>{{ value }}</td>{% endfor %}
{% for cell in row.cells %}<td class="num">{{ cell }}</td>{% endfor %}

<td>{% for verdict in row.verdicts %}{{ verdict }}{% if not loop.last %}<br>{% endif %}{% endfor %}</td>
<td>{% for claim in row.claims %}{{ claim }}{% if not loop.last %}, {% endif %}{% endfor %}</td>
<td class="runs">{% for run in row.runs %}<div>{{ run.label }}:
{% for name, href in run.links %}
<a href="{{ href }}">{{ name }}</a>{% if not loop.last %} ·{% endif %}

{% endfor %}
</div>{% endfor %}</td>
</tr>
{% endfor %}
</tbody>
</table>
</body>
</html>
""")


def _cited(resolved: Mapping[str, Any]) -> dict[str, list[str]]:
    """run id -> ids of the claims that rest on it."""
    cited: dict[str, list[str]] = {}
    for claim in resolved.get("claims", []):
        for run in claim.get("runs", []):
            cited.setdefault(str(run["run_id"]), []).append(str(claim["id"]))
    return cited


def claim_runs(project: Project, cited: Mapping[str, Sequence[str]]) -> list[RunRow]:
    """The runs the claims use, in the experiments' order; runs no experiment declares any more
    (superseded) after them, from their own records."""
    declared = [r for r in run_rows(project) if r.run_id in cited]
    known = {r.run_id for r in declared}
    return declared + [undeclared_row(project, run_id) for run_id in sorted(cited) if run_id not in known]


def page_table(project: Project, resolved: Mapping[str, Any]) -> tuple[Table, dict[str, list[str]]]:
    """The show table of the claims' runs, on the metrics and splits the claims cite."""
    cited = _cited(resolved)
    claims = resolved.get("claims", [])
    order = {"train": 0, "val": 1, "test": 2}
    splits = sorted({str(c["split"]) for c in claims if c.get("split")}, key=lambda s: (order.get(s, 3), s))
    metrics = sorted({str(c["metric"]) for c in claims if c.get("metric")})
    runs = claim_runs(project, cited)
    reported = {(name, s) for r in runs for name, m in r.metrics.items() for s in m["values"]}
    table = build_table(project, runs=runs,
                        splits=[s for s in splits if any(s == x for _, x in reported)] or None,
                        metrics=[m for m in metrics if any(m == x for x, _ in reported)] or None)
    return table, cited


def render_page(table: Table, cited: Mapping[str, Sequence[str]], title: str) -> str:
    """The page's HTML: every value passes through Jinja2's autoescape."""
    headers = ["variant", "status", *table.differing,
               *(f"{m} ({s})" for m, _ in table.metrics for s in table.splits), "verdicts", "claims", "runs"]
    rows = []
    for row in table.rows:
        rows.append({
            "anchor": f"row-{row.experiment}-{row.group}", "name": row.name, "status": row.status_text,
            "bad": any(r.status != "sealed" for r in row.runs),
            "config": [config_text(row.config[k]) if k in row.config else "-" for k in table.differing],
            "cells": [summary_text(row.summaries[m][s]) for m, _ in table.metrics for s in table.splits],
            "verdicts": [verdict_text(v) for v in row.verdicts],
            "claims": sorted({c for r in row.runs for c in cited.get(r.run_id, ())}),
            "runs": [{"label": f"s{r.seed}" if table.mode == "variants" else r.label,
                      "links": [(name.split(".")[0], f"runs/{r.run_id}/{name}") for name in RUN_LINKS]}
                     for r in row.runs]})
    runs = sum(len(r.runs) for r in table.rows)
    better = "; ".join(f"{m}: {d} is better" for m, d in table.metrics)
    intro = (f"The {runs} sealed runs that the paper's claims rest on, as {len(table.rows)} variant(s): "
             f"every seed of one configuration per row. Each metric is the mean over the row's runs on the "
             f"{', '.join(table.splits)} split with its {CI_WORDS} and n ({better}). Config columns show "
             "only the values that differ between rows. Verdicts are those of the verify report; each "
             "run links to its sealed files.")
    return TEMPLATE.render(title=title, intro=intro, headers=headers, rows=rows)


def evidence_page_action(project_root: str) -> None:
    """build/evidence/evidence.html from the claims and the run store."""
    from evidence.deliver.claims import claims_path

    project = Project.at(project_root)
    resolved = read_checked_json(project.root, claims_path(project))
    table, cited = page_table(project, resolved)
    out = project.evidence_page_dir
    out.mkdir(parents=True, exist_ok=True)
    page = render_page(table, cited, str(resolved.get("title", "")))
    write_bytes_atomic(out / PAGE, page.encode("utf-8"))
    record_outputs(project.root, [out / PAGE])
    runs = sum(len(r.runs) for r in table.rows)
    print(f"evidence page: {len(table.rows)} variant(s) over {runs} run(s) the claims use -> "
          f"{project.relative(out / PAGE)}")
