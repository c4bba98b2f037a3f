"""Figures and tables from sealed runs: source data, rendering, gate, sidecars, index.

The runs here are fabricated and then sealed by the store (results.json, metrics.jsonl, spec.json) at the
ids the tiny experiment's specs resolve to, so these tests read real selections without
training anything; tests/test_figures_e2e.py drives the same code through doit on trained runs.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import doit, write_tree

from evidence.core.errors import BadInputError, EvidenceError, GateError
from evidence.core.hashing import digest_file
from evidence.core.project import Project
from evidence.core.schema import validate
from evidence.experiments.select import specs_of
from evidence.present import artifacts as figures
from evidence.present import plotting, tables
from evidence.present.render import render
from evidence.store.runs import RunStore
from evidence.verify import stats

EPOCHS = 3
#: tiny.toml's runs: group -> (test accuracy of seed 0, of seed 1)
ACCURACY = {"small": (0.80, 0.84), "wide": (0.90, 0.93)}

CURVES = """
kind = "curves"
caption = "Validation accuracy"
metric = "accuracy"
split = "val"
spread = "ci95"
n_resamples = 500

[[select]]
experiment = "tiny"
"""

POINTS = """
kind = "points"
metric = "accuracy"
split = "test"
chance = 0.1

[[select]]
experiment = "tiny"
where = { group = "wide" }
"""

EXPECTED_MAX_FIGURE = """
kind = "expected_max"
source = "expected_max"

[[select]]
experiment = "tiny"
series = "all"
"""

RESULTS_TABLE = """
columns = [{ split = "test", metric = "accuracy", percent = true }, "test/loss"]
spread = "ci95"
n_resamples = 500

[[select]]
experiment = "tiny"
"""

EXPECTED_MAX_TABLE = """
source = "expected_max"
trials = [1, 2]

[[select]]
experiment = "tiny"
"""

DOT_PLOT = """
from matplotlib.figure import Figure

def plot(df, spec):
    fig = Figure(figsize=(4, 3), dpi=100)
    final = df.loc[df["epoch"].isna() & (df["split"] == "test") & (df["metric"] == "accuracy")]
    fig.add_subplot().scatter(final["seed"], final["value"])
    return fig
"""

BLANK_PLOT = """
from matplotlib.figure import Figure

def plot(df, spec):
    return Figure()
"""

CUSTOM = """
kind = "custom"
caption = "Final test accuracy per run"
spread_description = "none: one dot per run"

[[select]]
experiment = "tiny"
"""


def fabricate_runs(root: Path) -> dict[str, str]:
    """Seal fake runs for every spec of tiny.toml; returns group/seed -> run id."""
    project = Project.at(root)
    ids = {}
    store = RunStore(project.runs_dir)
    for spec in specs_of(project, "tiny"):
        run = project.state_dir / "staging" / spec.key[:16]
        run.mkdir(parents=True)
        (run / "spec.json").write_text(json.dumps(spec.to_json()))
        acc = ACCURACY[spec.group][spec.seed]
        results = {
            "schema_version": 1, "run_id": run.name, "experiment": "tiny", "label": spec.label,
            "selection_metric": "accuracy",
            "evaluations": [{"split": "val", "when": "final", "purpose": "selection"}],
            "metrics": {"accuracy": {"direction": "higher",
                                     "values": {"train": acc + 0.05, "val": acc - 0.01,
                                                "test": acc}},
                        "loss": {"direction": "lower",
                                 "values": {"train": 0.1, "val": 1 - acc, "test": 1.1 - acc}}}}
        (run / "results.json").write_text(json.dumps(results))
        history = [{"epoch": e, "step": 10 * e, "train/loss": 1 / e, "val/accuracy": acc * e / EPOCHS,
                    "val/loss": 1 - acc * e / EPOCHS} for e in range(1, EPOCHS + 1)]
        (run / "metrics.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))
        store.seal(run, spec.key[:16], spec.key)  # a real sealed run: selection checks it
        ids[f"{spec.group}/{spec.seed}"] = spec.key[:16]
    return ids


@pytest.fixture
def project(make_project: Callable[..., Path]) -> Project:
    root = make_project({"figures/curves/figure.toml": CURVES,
                         "figures/points/figure.toml": POINTS,
                         "figures/emax/figure.toml": EXPECTED_MAX_FIGURE,
                         "tables/results/table.toml": RESULTS_TABLE,
                         "tables/emax/table.toml": EXPECTED_MAX_TABLE})
    fabricate_runs(root)
    return Project.at(root)


def build(project: Project, artifact: str, name: str) -> dict[str, Any]:
    art = figures.load(project, artifact, name)
    figures.build_source(art)
    return render(art)


def test_source_data_is_tidy_with_final_and_history_rows(project: Project) -> None:
    art = figures.load(project, "figure", "curves")
    figures.build_source(art)
    df = plotting.read_source_data(art.source_data)
    assert list(df.columns[:10]) == ["run_id", "experiment", "label", "group", "seed", "epoch",
                                     "split", "metric", "value", "direction"]
    assert {"config.hidden", "config.lr", "config.epochs"} <= set(df.columns[10:])
    final, history = df.loc[df["epoch"].isna()], df.loc[df["epoch"].notna()]
    assert len(final) == 4 * 2 * 3  # runs x metrics x splits
    assert len(history) == 4 * EPOCHS * 3  # runs x epochs x (train/loss, val/accuracy, val/loss)
    one = final.loc[(final["group"] == "wide") & (final["seed"] == 1) & (final["split"] == "test")
                    & (final["metric"] == "accuracy")]
    assert one["value"].tolist() == [0.93]
    assert set(df.loc[df["metric"] == "loss", "direction"]) == {"lower"}
    sidecar = json.loads(art.source_sidecar.read_text())
    assert sidecar["rows"] == len(df) and len(sidecar["runs"]) == 4
    assert len([p for p in sidecar["inputs"] if p.startswith("runs/")]) == 8


def test_selection_filters_and_series(project: Project) -> None:
    art = figures.load(project, "figure", "points")
    assert {r.spec.group for r, _ in figures.selected_runs(art)} == {"wide"}
    emax = figures.load(project, "figure", "emax")
    columns, rows = figures.expected_max_rows(emax)
    assert columns[:4] == ["group", "trials", "expected_max", "variance"]
    assert [r["trials"] for r in rows] == [1, 2, 3, 4] and {r["group"] for r in rows} == {"all"}
    vals = [a - 0.01 for pair in ACCURACY.values() for a in pair]  # val accuracy per run
    assert [r["expected_max"] for r in rows] == pytest.approx(
        stats.expected_max_validation(vals).tolist())
    assert rows[-1]["variance"] == pytest.approx(float(
        stats.expected_max_validation_var(vals)[-1]))


def test_figures_render_with_gate_sidecar_and_digests(project: Project) -> None:
    for name in ("curves", "points", "emax"):
        record = build(project, "figure", name)
        art = figures.load(project, "figure", name)
        assert set(art.outputs) == {"png", "pdf", "svg"}
        on_disk = json.loads(art.sidecar.read_text())
        assert on_disk == record
        validate(on_disk, "sidecar", art.sidecar)
        for path, digest in {**on_disk["outputs"], **on_disk["inputs"]}.items():
            assert digest_file(project.root / path) == digest, path
        assert on_disk["gate"]["pixel_variance"] > 5 and on_disk["gate"]["series"] >= 1
        assert "time" not in json.dumps(on_disk)
    curves = json.loads((project.figures_dir / "curves/figure.provenance.json").read_text())
    assert "95% CI of the mean (Student t)" in curves["spread"] and curves["spread"] in curves["caption"]
    assert "rng_for" not in curves["caption"]
    assert curves["inputs"]["figures/curves/figure.toml"]
    assert curves["git"] == {"commit": None, "dirty": None}
    emax = json.loads((project.figures_dir / "emax/figure.provenance.json").read_text())
    assert emax["spread"].startswith("shaded band: ±1 SD of the best-of-k score (all: N = 4")


def test_rebuild_after_deleting_outputs_is_byte_identical(project: Project) -> None:
    build(project, "figure", "points")
    folder = project.figures_dir / "points"
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "figure.toml"}
    for name in before:
        (folder / name).unlink()
    build(project, "figure", "points")
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "figure.toml"}
    assert after == before and len(before) == 6


def test_plot_step_reads_only_source_data(project: Project) -> None:
    art = figures.load(project, "figure", "curves")
    figures.build_source(art)
    shutil.move(project.runs_dir, project.root / "elsewhere")
    record = render(art)  # no run store at all
    assert record["gate"]["series"] == 2
    df = plotting.read_source_data(art.source_data)  # and anyone can re-plot from the CSV alone
    assert plotting.make_plot(df, art.plot_spec()).n_series == 2


def test_hand_edited_source_data_is_refused(project: Project) -> None:
    art = figures.load(project, "figure", "points")
    figures.build_source(art)
    art.source_data.write_text(art.source_data.read_text().replace("0.93", "0.99"))
    with pytest.raises(EvidenceError, match="differs from the digest"):
        render(art)


def test_gate_rejects_a_blank_custom_plot_and_leaves_nothing(project: Project) -> None:
    write_tree(project.root, {"figures/custom/figure.toml": CUSTOM, "figures/custom/plot.py": DOT_PLOT})
    record = build(project, "figure", "custom")
    art = figures.load(project, "figure", "custom")
    assert record["spread"] == "none: one dot per run"
    assert record["inputs"]["figures/custom/plot.py"] == digest_file(art.folder / "plot.py")
    assert art.outputs["png"].exists()
    (art.folder / "plot.py").write_text(BLANK_PLOT)
    with pytest.raises(GateError, match=r"^figures/custom/figure.png: image is blank \(pixel variance 0.0"):
        render(art)
    assert not any(p.exists() for p in [*art.outputs.values(), art.sidecar])


@pytest.mark.parametrize(("body", "message"), [
    ("def plot(df, spec):\n    pass\n", r"plot.py: plot\(df, spec\) returned NoneType, expected a "
                                        r"matplotlib.figure.Figure"),
    ("from matplotlib.figure import Figure\ndef plot(df, spec):\n"
     "    fig = Figure()\n    fig.add_subplot()\n    return fig\n", "plot.py drew no data"),
    ("def plot(df, spec):\n    raise KeyError('acc')\n", r"plot.py: plot\(df, spec\) raised KeyError"),
    ("x = 1\n", "plot.py: defines no function plot"),
])
def test_plot_script_contract(project: Project, body: str, message: str) -> None:
    write_tree(project.root, {"figures/custom/figure.toml": CUSTOM, "figures/custom/plot.py": body})
    art = figures.load(project, "figure", "custom")
    figures.build_source(art)
    with pytest.raises(EvidenceError, match=message):
        render(art)


@pytest.mark.parametrize(("text", "field", "message"), [
    (CURVES.replace("metric = ", "metrc = "), "$", "'metrc' was unexpected"),
    (CURVES.replace('split = "val"\n', ""), "split", "is required but missing"),
    (CURVES.replace('"ci95"', '"iqr"'), "spread", "'iqr' is not one of"),
    (CURVES.replace("experiment = ", "experimnt = "), "select[0]", "'experimnt' was unexpected"),
    (CURVES.replace('experiment = "tiny"', 'experiment = "../x"'), "select[0].experiment",
     "does not match"),
    (CURVES.replace('kind = "curves"', 'kind = "custom"'), "spread_description", "missing"),
    ('kind = "expected_max"\n[[select]]\nexperiment = "tiny"\n', "source", "missing"),
])
def test_bad_figure_toml_names_file_and_field(project: Project, text: str, field: str,
                                              message: str) -> None:
    write_tree(project.root, {"figures/bad/figure.toml": text})
    with pytest.raises(BadInputError, match=message) as info:
        figures.load(project, "figure", "bad")
    assert info.value.field == field
    assert str(info.value).startswith(f"figures/bad/figure.toml: field '{field}'")


def test_bad_toml_syntax_and_custom_without_script(project: Project) -> None:
    write_tree(project.root, {"figures/bad/figure.toml": "kind = \n"})
    with pytest.raises(BadInputError, match=r"figures/bad/figure.toml: not valid TOML"):
        figures.load(project, "figure", "bad")
    write_tree(project.root, {"figures/bad/figure.toml": CUSTOM})
    with pytest.raises(BadInputError, match=r"field 'kind': kind 'custom' needs figures/bad/plot.py"):
        figures.load(project, "figure", "bad")


def test_tables_render_markdown_latex_and_sidecar(project: Project) -> None:
    record = build(project, "table", "results")
    md = (project.tables_dir / "results/table.md").read_text()
    assert md.splitlines()[0] == "| Group | test accuracy | test loss |"
    assert "| wide | 91.5% [" in md and "(n=2)" in md
    assert "95% CI of the mean (Student t)" in record["caption"] and "rng_for" not in record["caption"]
    assert record["gate"] == {"path": "tables/results/table.md", "rows": 2, "columns": 2,
                              "nan_cells": 0}
    validate(record, "sidecar", "table.provenance.json")
    emax = build(project, "table", "emax")
    lines = (project.tables_dir / "emax/table.md").read_text().splitlines()
    assert lines[0] == "| Trials (k) | small | wide |" and lines[2].startswith("| 1 | 0.810 ± 0.020 |")
    assert "Dodge et al., 2019" in emax["caption"] and "±1 SD of the best-of-k" in emax["spread"]
    assert "\\begin{tabular}{lrr}" in (project.tables_dir / "emax/table.tex").read_text()


def test_expected_max_table_needs_enough_configurations(project: Project) -> None:
    write_tree(project.root, {"tables/emax/table.toml": EXPECTED_MAX_TABLE.replace("[1, 2]", "[1, 4]")})
    art = figures.load(project, "table", "emax")
    figures.build_source(art)
    with pytest.raises(EvidenceError, match=r"series 'small' has 2 configuration.*k = 4"):
        render(art)
    assert not art.sidecar.exists()


def test_ci95_agrees_with_the_t_interval_across_figure_and_table(project: Project) -> None:
    spec = {"name": "shared", "kind": "points", "metric": "accuracy", "split": "test",
            "spread": "ci95", "n_resamples": 500}
    build(project, "figure", "points")
    df = plotting.read_source_data(project.figures_dir / "points/source_data.csv")
    drawn = plotting.make_plot(df, spec).summary.iloc[0]
    cell = tables.build_table(df, {**spec, "columns": ["test/accuracy"]}).cell("wide", "test/accuracy")
    ci = stats.t_interval_mean(np.array(ACCURACY["wide"]))  # as the verify report and the paper
    assert (drawn["low"], drawn["high"]) == (ci.low, ci.high) == (cell.low, cell.high)
    assert not math.isnan(ci.low)


def test_index_lists_captions_and_paths(project: Project) -> None:
    build(project, "figure", "points")
    index = {e["name"]: e for e in figures.figure_index(project)}
    assert set(index) == {"curves", "points", "emax"}
    points = index["points"]
    assert points["built"] and "error bars: ±1 SD over 2 seeds" in points["caption"]
    assert points["images"]["png"] == "figures/points/figure.png"
    assert points["sidecar"] == "figures/points/figure.provenance.json"
    assert points["source_data"] == "figures/points/source_data.csv"
    assert not index["curves"]["built"] and index["curves"]["caption"] is None
    build(project, "table", "results")
    tabs = {e["name"]: e for e in figures.table_index(project)}
    assert tabs["results"]["markdown"] == "tables/results/table.md" and tabs["results"]["built"]
    assert tabs["results"]["spread"].startswith("mean [95% CI of the mean (Student t)")


@pytest.mark.parametrize("artifact", ["figure", "table"])
def test_an_order_that_leaves_out_selected_groups_is_refused(project: Project, artifact: str) -> None:
    """``order`` listing only some of the selected groups drew the others nowhere, and the gate
    then passed on what was left: an error that names the spec file, the field and the groups."""
    folder = "figures" if artifact == "figure" else "tables"
    write_tree(project.root, {f"{folder}/partial/{artifact}.toml":
                              _with_order(CURVES if artifact == "figure" else RESULTS_TABLE)})
    art = figures.load(project, artifact, "partial")
    with pytest.raises(BadInputError) as info:
        figures.build_source(art)
    assert info.value.field == "order"
    message = str(info.value)
    assert message.startswith(f"{folder}/partial/{artifact}.toml: field 'order'")
    assert "['wide']" in message and "2 selected runs" in message
    assert not art.source_data.exists()
    done = doit(project.root, "list")  # and while doit builds its tasks: one line, exit 3
    assert done.returncode == 3 and f"{folder}/partial/{artifact}.toml: field 'order'" in done.stderr


def _with_order(text: str) -> str:
    """``text`` with ``order = ["small"]`` among its top-level keys (before the first table)."""
    head, _, tail = text.partition("[[select]]")
    return f'{head}order = ["small"]\n\n[[select]]{tail}'
