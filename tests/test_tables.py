"""Results tables: cell numbers, Markdown and LaTeX text, escaping, determinism."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from evidence.core.errors import BadInputError
from evidence.present.tables import (
    build_table,
    escape_latex,
    escape_markdown,
    format_number,
    render_latex,
    render_markdown,
)
from evidence.verify import stats

# Hand-derived expectations (percent for accuracy, 3 decimals for loss):
#   mlp_small accuracy [0.90, 0.92, 0.94] -> mean 92.0, SD 2.0  (deviations -2, 0, +2 points)
#   mlp_small loss     [0.30, 0.31, 0.32] -> mean 0.310, SD 0.010
#   cnn & co accuracy  [0.95, 0.96, 0.97] -> mean 96.0, SD 1.0
#   cnn & co loss      [0.10, 0.20, 0.30] -> mean 0.200, SD 0.100
DATA = {
    "mlp_small": ([0.90, 0.92, 0.94], [0.30, 0.31, 0.32]),
    "cnn & co": ([0.95, 0.96, 0.97], [0.10, 0.20, 0.30]),
}


def frame(data: dict[str, tuple[list[float], list[float]]] = DATA) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for group, (accuracies, losses) in data.items():
        for seed, (acc, loss) in enumerate(zip(accuracies, losses, strict=True)):
            run = {"run_id": f"{group}/{seed}", "experiment": "digits", "label": group,
                   "group": group, "seed": seed, "epoch": None, "split": "test"}
            rows.append({**run, "metric": "accuracy", "value": acc, "direction": "higher"})
            rows.append({**run, "metric": "loss", "value": loss, "direction": "lower"})
            # per-epoch history must not leak into a table of final values
            rows.append({**run, "epoch": 1, "split": "val", "metric": "accuracy",
                         "value": 0.0, "direction": "higher"})
    return pd.DataFrame(rows)


SPEC: dict[str, Any] = {
    "name": "main_results",
    "caption": "Test results",
    "order": ["mlp_small", "cnn & co"],
    "columns": [
        {"metric": "accuracy", "split": "test", "header": "Test acc. (%)", "percent": True},
        "test/loss",
    ],
}

MARKDOWN = """\
| Group | Test acc. (%) | test loss |
| :--- | ---: | ---: |
| mlp\\_small | 92.0 ± 2.0% (n=3) | 0.310 ± 0.010 (n=3) |
| cnn & co | 96.0 ± 1.0% (n=3) | 0.200 ± 0.100 (n=3) |

Table: Test results. Values: mean ±1 SD over 3 seeds; n = seeds per cell.
"""

LATEX = r"""% requires \usepackage{booktabs}
\begin{table}[t]
\centering
\caption{Test results. Values: mean $\pm$1 SD over 3 seeds; n = seeds per cell.}
\label{tab:main_results}
\begin{tabular}{lrr}
\toprule
Group & Test acc. (\%) & test loss \\
\midrule
mlp\_small & 92.0 $\pm$ 2.0\% (n=3) & 0.310 $\pm$ 0.010 (n=3) \\
cnn \& co & 96.0 $\pm$ 1.0\% (n=3) & 0.200 $\pm$ 0.100 (n=3) \\
\bottomrule
\end{tabular}
\end{table}
"""


def test_markdown_by_hand() -> None:
    assert render_markdown(build_table(frame(), SPEC)) == MARKDOWN


def test_latex_by_hand() -> None:
    assert render_latex(build_table(frame(), SPEC)) == LATEX


def test_cells_expose_the_numbers() -> None:
    table = build_table(frame(), SPEC)
    cell = table.cell("mlp_small", "test/accuracy")
    assert (cell.n, cell.mean, cell.spread) == (3, pytest.approx(0.92), pytest.approx(0.02))
    records = table.to_records()
    assert [(r["group"], r["column"]) for r in records] == [
        ("mlp_small", "test/accuracy"), ("mlp_small", "test/loss"),
        ("cnn & co", "test/accuracy"), ("cnn & co", "test/loss")]
    assert records[3]["mean"] == pytest.approx(0.2) and records[3]["spread_kind"] == "sd"


def test_rendering_is_deterministic() -> None:
    shuffled = frame().sample(frac=1.0, random_state=1)
    a, b = build_table(frame(), SPEC), build_table(shuffled, SPEC)
    assert render_markdown(a) == render_markdown(b)
    assert render_latex(a) == render_latex(b)


def test_ci95_cells_and_caption() -> None:
    spec = {**SPEC, "spread": "ci95", "n_resamples": 1000, "ci_seed": 3}
    table = build_table(frame(), spec)
    cell = table.cell("mlp_small", "test/accuracy")
    assert math.isnan(cell.spread) and cell.low < cell.mean < cell.high
    # mean +/- t_2 SE: three seeds give a wide interval, wider than the seeds' own range
    half = stats.t_quantile(0.975, 2) * stats.se([0.9, 0.92, 0.94])
    assert (cell.low, cell.high) == pytest.approx((0.92 - half, 0.92 + half))
    assert build_table(frame(), spec).cell("mlp_small", "test/accuracy") == cell
    assert table.spread_description == "mean [95% CI of the mean (Student t)] over 3 seeds"
    first_row = render_markdown(table).splitlines()[2]
    assert first_row.startswith(f"| mlp\\_small | 92.0% [{cell.low * 100:.1f}%, ")
    assert r"95\% CI of the mean (Student t)" in render_latex(table)


def test_single_seed_has_no_spread() -> None:
    table = build_table(frame({"solo": ([0.9], [0.3])}), {"columns": ["test/loss"]})
    assert render_markdown(table).splitlines()[2] == "| solo | 0.300 (n=1) |"
    assert "no spread where a cell has a single seed" in table.caption


def test_latex_escaping() -> None:
    assert escape_latex("a_b 50% & #1 {x} ~ ^ \\") == (
        r"a\_b 50\% \& \#1 \{x\} \textasciitilde{} \textasciicircum{} \textbackslash{}")
    spec = {**SPEC, "labels": {"mlp_small": "MLP_50%"}, "row_header": "Model #",
            "caption": "R&D"}
    text = render_latex(build_table(frame(), spec))
    assert r"MLP\_50\% & 92.0" in text
    assert r"Model \# & Test acc." in text
    assert r"\caption{R\&D. Values:" in text


def test_markdown_escaping() -> None:
    assert escape_markdown("a|b_c*d") == r"a\|b\_c\*d"


def test_format_number() -> None:
    assert format_number(-0.0001, 2) == "0.00"
    assert format_number(0.9234, 1, percent=True) == "92.3"
    assert format_number(math.nan, 2) == "nan"


def test_table_spec_errors() -> None:
    with pytest.raises(BadInputError, match="non-empty list of 'columns'"):
        build_table(frame(), {"name": "t"})
    with pytest.raises(BadInputError, match="no final rows for metric 'f1'"):
        build_table(frame(), {"columns": ["test/f1"]})
    partial = frame()
    partial = partial.loc[~((partial["group"] == "cnn & co") & (partial["metric"] == "loss"))]
    with pytest.raises(BadInputError, match="group 'cnn & co' has no final test/loss rows"):
        build_table(partial, SPEC)
    with pytest.raises(BadInputError, match="appear twice"):
        build_table(pd.concat([frame(), frame()]), SPEC)
