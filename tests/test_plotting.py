"""Figures: rendering from tidy source data, byte-identical rebuilds, and the re-open gate."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image

from evidence.core.errors import BadInputError, GateError
from evidence.present.plotting import (
    check_image,
    count_drawn,
    describe_spread,
    make_plot,
    read_source_data,
    render_figure,
    render_png,
    save_deterministic,
    summarize,
)
from evidence.verify import stats

GROUPS = {"mlp": 0.80, "cnn": 0.90, "control": 0.10}
SEEDS = 4
EPOCHS = 4
ROOT = Path(__file__).resolve().parents[1]


def tidy_rows() -> list[dict[str, Any]]:
    """3 groups x 4 seeds: final accuracy/loss on val and test, val accuracy per epoch."""
    rows: list[dict[str, Any]] = []
    for group, base in GROUPS.items():
        for seed in range(SEEDS):
            run = {"run_id": f"{group}-{seed}", "experiment": "digits",
                   "label": f"{group}-seed{seed}", "group": group, "seed": seed,
                   "config.model": group, "config.lr": "0.1"}
            for split in ("val", "test"):
                rows.append({**run, "epoch": None, "split": split, "metric": "accuracy",
                             "value": base + 0.01 * seed, "direction": "higher"})
                rows.append({**run, "epoch": None, "split": split, "metric": "loss",
                             "value": 1.0 - base + 0.02 * seed, "direction": "lower"})
            for epoch in range(1, EPOCHS + 1):
                rows.append({**run, "epoch": epoch, "split": "val", "metric": "accuracy",
                             "value": base * (1 - math.exp(-epoch)) + 0.01 * seed,
                             "direction": "higher"})
    return rows


@pytest.fixture
def source(tmp_path: Path) -> pd.DataFrame:
    """The tidy table written to CSV and read back, as the engine hands it over."""
    path = tmp_path / "source_data.csv"
    pd.DataFrame(tidy_rows()).to_csv(path, index=False)
    return read_source_data(path)


EXPECTED_MAX = pd.DataFrame(
    [{"group": g, "trials": n, "expected_max": top - 0.3 / n, "low": top - 0.35 / n,
      "high": top - 0.25 / n} for g, top in (("mlp", 0.85), ("cnn", 0.95)) for n in range(1, 11)])

SPECS: dict[str, dict[str, Any]] = {
    "curves": {"name": "curves", "kind": "curves", "metric": "accuracy", "split": "val",
               "spread": "se"},
    "points": {"name": "points", "kind": "points", "metric": "accuracy", "split": "test",
               "order": ["control", "mlp", "cnn"], "chance": {"value": 0.1, "label": "chance"}},
    "expected_max": {"name": "emax", "kind": "expected_max", "metric": "accuracy",
                     "band": {"low": "low", "high": "high", "label": "±1 SD of the maximum"}},
}


def data_for(kind: str, source: pd.DataFrame) -> pd.DataFrame:
    return EXPECTED_MAX if kind == "expected_max" else source


def test_read_source_data_dtypes(source: pd.DataFrame) -> None:
    assert str(source["seed"].dtype) == "Int64"
    assert str(source["epoch"].dtype) == "Int64"
    assert source["value"].dtype == np.float64
    # config columns stay text exactly as written, whatever they look like
    assert source["config.lr"].map(type).eq(str).all()
    final = source.loc[source["epoch"].isna()]
    assert len(final) == len(GROUPS) * SEEDS * 4


def test_read_source_data_rejects_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "source_data.csv"
    frame = pd.DataFrame(tidy_rows())
    frame.drop(columns=["direction"]).to_csv(path, index=False)
    with pytest.raises(BadInputError, match="missing column"):
        read_source_data(path)
    frame["value"] = frame["value"].astype(object)
    frame.loc[0, "value"] = "oops"
    frame.to_csv(path, index=False)
    with pytest.raises(BadInputError, match=r"line 2: value 'oops' is not a number"):
        read_source_data(path)


def test_read_source_data_keeps_nan_values(tmp_path: Path) -> None:
    path = tmp_path / "source_data.csv"
    frame = pd.DataFrame(tidy_rows())
    frame["value"] = frame["value"].astype(object)
    frame.loc[0, "value"] = "nan"
    frame.to_csv(path, index=False)
    assert math.isnan(read_source_data(path)["value"].iloc[0])


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_each_kind_renders_and_passes_the_gate(kind: str, source: pd.DataFrame,
                                               tmp_path: Path) -> None:
    record = render_figure(data_for(kind, source), SPECS[kind], tmp_path / kind / "figure")
    assert set(record["files"]) == {"png", "pdf", "svg"}
    gate = record["gate"]
    assert gate["size_px"] == [750, 525]
    assert gate["pixel_variance"] > 100
    assert gate["data_pixel_fraction"] > 0
    expected_points = {"curves": len(GROUPS) * SEEDS * EPOCHS, "points": len(GROUPS) * SEEDS,
                       "expected_max": len(EXPECTED_MAX)}[kind]
    assert gate["points"] == expected_points
    assert gate["series"] == (2 if kind == "expected_max" else len(GROUPS))
    for fmt in ("png", "pdf", "svg"):
        assert (tmp_path / kind / f"figure.{fmt}").stat().st_size > 1000


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_rebuild_is_byte_identical(kind: str, source: pd.DataFrame, tmp_path: Path) -> None:
    first = save_deterministic(make_plot(data_for(kind, source), SPECS[kind]).figure,
                               tmp_path / "a" / "figure")
    second = save_deterministic(make_plot(data_for(kind, source), SPECS[kind]).figure,
                                tmp_path / "b" / "figure")
    for fmt in ("png", "pdf", "svg"):
        assert first[fmt].read_bytes() == second[fmt].read_bytes(), fmt
    assert b"Matplotlib version" not in first["png"].read_bytes()
    assert b"CreationDate" not in first["pdf"].read_bytes()
    assert b"<dc:date>" not in first["svg"].read_bytes()


def test_rebuild_is_byte_identical_across_processes(tmp_path: Path) -> None:
    """Another interpreter with another hash seed writes the same bytes (no id()/set order)."""
    pd.DataFrame(tidy_rows()).to_csv(tmp_path / "source_data.csv", index=False)
    script = textwrap.dedent(f"""
        from evidence.present.plotting import make_plot, read_source_data, save_deterministic
        df = read_source_data({str(tmp_path / "source_data.csv")!r})
        spec = {SPECS["points"]!r}
        spec["spread"] = "ci95"
        save_deterministic(make_plot(df, spec).figure, {str(tmp_path / "child")!r})
    """)
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tmp_path)
    spec = {**SPECS["points"], "spread": "ci95"}
    here = save_deterministic(make_plot(read_source_data(tmp_path / "source_data.csv"),
                                        spec).figure, tmp_path / "parent")
    for fmt, path in here.items():
        assert path.read_bytes() == (tmp_path / f"child.{fmt}").read_bytes(), fmt


def test_gate_rejects_an_all_white_image(tmp_path: Path) -> None:
    path = tmp_path / "figure.png"
    Image.new("RGB", (750, 525), "white").save(path)
    with pytest.raises(GateError) as info:
        check_image(path, expected_size=(750, 525))
    assert str(info.value) == f"{path}: image is blank (pixel variance 0.0 < floor 5.0)"


def test_gate_rejects_a_blank_figure(tmp_path: Path) -> None:
    fig = Figure(figsize=(5, 3.5), dpi=150)
    fig.add_subplot().set_axis_off()
    path = save_deterministic(fig, tmp_path / "blank", ("png",))["png"]
    with pytest.raises(GateError, match=r"blank\.png: image is blank \(pixel variance 0\.0 <"):
        check_image(path, expected_size=(750, 525))


def test_gate_rejects_empty_axes(tmp_path: Path) -> None:
    """Axes with ticks but no data pass the variance floor; the counts and reference do not."""
    fig = Figure(figsize=(5, 3.5), dpi=150)
    fig.add_subplot()
    path = save_deterministic(fig, tmp_path / "empty", ("png",))["png"]
    series, points = count_drawn(fig)
    assert (series, points) == (0, 0)
    with pytest.raises(GateError) as info:
        check_image(path, expected_series=3, drawn_series=series, expected_points=12,
                    drawn_points=points, empty_reference=render_png(fig, hide_data=True))
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert "no data pixels" in message
    assert "expected 3 series, drew 0" in message
    assert "expected 12 points, drew 0" in message


def test_gate_rejects_a_wrong_series_count(source: pd.DataFrame, tmp_path: Path) -> None:
    """A group whose seeds all diverged (NaN) draws no mean: the gate says so."""
    broken = source.copy()
    broken.loc[(broken["group"] == "mlp") & broken["epoch"].isna(), "value"] = math.nan
    with pytest.raises(GateError) as info:
        render_figure(broken, SPECS["points"], tmp_path / "acc" / "figure")
    assert str(info.value) == (f"{tmp_path / 'acc' / 'figure.png'}: expected 3 series, drew 2; "
                               f"expected 12 points, drew 8")


def test_gate_checks_stated_counts(source: pd.DataFrame, tmp_path: Path) -> None:
    spec = {**SPECS["curves"], "expected_series": 4}
    with pytest.raises(GateError, match=r"expected 4 series, drew 3$"):
        render_figure(source, spec, tmp_path / "figure")


def test_gate_rejects_a_wrong_size(source: pd.DataFrame, tmp_path: Path) -> None:
    result = make_plot(source, SPECS["points"])
    path = save_deterministic(result.figure, tmp_path / "figure", ("png",))["png"]
    assert check_image(path, expected_size=result.size_px)["size_px"] == [750, 525]
    with pytest.raises(GateError, match=r"image is 750x525 px, expected 100x100 px"):
        check_image(path, expected_size=(100, 100))


def test_gate_rejects_an_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "figure.png"
    path.write_bytes(b"not a png")
    with pytest.raises(GateError, match="cannot be re-opened as an image"):
        check_image(path)


def test_pixel_size_is_exact_for_awkward_inches(source: pd.DataFrame, tmp_path: Path) -> None:
    """3.3 in x 100 dpi is 329.999... in floating point; the figure still gets 330 px."""
    spec = {**SPECS["points"], "figsize": [3.3, 2.2], "dpi": 100}
    record = render_figure(source, spec, tmp_path / "figure", formats=("png",))
    assert record["gate"]["size_px"] == [330, 220]


@pytest.mark.parametrize(("spread", "words"), [
    ("sd", "error bars: ±1 SD over 4 seeds"),
    ("se", "error bars: ±1 SE of the mean over 4 seeds"),
    ("ci95", "error bars: 95% CI of the mean (Student t) over 4 seeds"),
])
def test_caption_names_the_spread(spread: str, words: str, source: pd.DataFrame) -> None:
    spec = {**SPECS["points"], "spread": spread, "n_resamples": 2000, "ci_seed": 7}
    result = make_plot(source, spec)
    assert result.spread_description == words
    assert words in result.caption
    assert "Dashed line: chance (0.1)." in result.caption


def test_curves_caption_names_the_band(source: pd.DataFrame) -> None:
    result = make_plot(source, SPECS["curves"])
    assert result.spread_description == "shaded band: ±1 SE of the mean over 4 seeds"
    assert list(result.summary.columns) == ["group", "epoch", "n", "mean", "spread", "low",
                                            "high"]


def test_summarize_by_hand() -> None:
    # [0.9, 0.92, 0.94]: mean 0.92; deviations ±0.02, 0 -> var = 0.0008/2 -> SD 0.02
    s = summarize([0.9, 0.92, 0.94], "sd")
    assert (s.n, s.mean, s.spread) == (3, pytest.approx(0.92), pytest.approx(0.02))
    assert summarize([0.9, 0.92, 0.94], "se").spread == pytest.approx(0.02 / math.sqrt(3))
    single = summarize([0.5], "sd")
    assert single.mean == 0.5 and math.isnan(single.spread)
    assert math.isnan(summarize([0.5, math.nan], "sd").mean)


def test_ci95_is_the_student_t_interval_of_the_verify_report() -> None:
    values = [0.81, 0.84, 0.79, 0.88, 0.83]
    first = summarize(values, "ci95", n_resamples=2000, seed=0)
    ci = stats.t_interval_mean(values)
    assert (first.low, first.high) == (ci.low, ci.high) and first.low < first.mean < first.high
    # no resampling: the seed of older specs changes nothing
    assert summarize(values, "ci95", n_resamples=2000, seed=1) == first


def test_plotting_leaves_global_state_alone(source: pd.DataFrame) -> None:
    np.random.seed(3)
    before = np.random.get_state()[1].copy()  # type: ignore[index]
    salt = mpl.rcParams["svg.hashsalt"]
    make_plot(source, {**SPECS["points"], "spread": "ci95"})
    assert (np.random.get_state()[1] == before).all()  # type: ignore[index]
    assert mpl.rcParams["svg.hashsalt"] == salt


def test_describe_spread_with_unequal_seeds() -> None:
    assert describe_spread("sd", [5, 3, 5]) == "±1 SD over 3–5 seeds per group"
    assert describe_spread("sd", [1]).startswith("±1 SD over 1 seed (no spread")


def test_spec_errors_are_bad_input(source: pd.DataFrame) -> None:
    with pytest.raises(BadInputError, match="unknown plot kind 'pie'"):
        make_plot(source, {"name": "x", "kind": "pie"})
    with pytest.raises(BadInputError, match=r"no final rows for metric 'acc'") as info:
        make_plot(source, {**SPECS["points"], "metric": "acc"})
    assert "test/accuracy" in str(info.value)
    with pytest.raises(BadInputError, match=r"\['gru'\] in 'order' have no rows"):
        make_plot(source, {**SPECS["points"], "order": ["mlp", "gru"]})
    with pytest.raises(BadInputError, match="unknown spread 'iqr'"):
        make_plot(source, {**SPECS["points"], "spread": "iqr"})
    with pytest.raises(BadInputError, match="share"):
        make_plot(pd.concat([source, source]), SPECS["points"])


def test_order_selects_groups(source: pd.DataFrame) -> None:
    result = make_plot(source, {**SPECS["points"], "order": ["cnn", "mlp"]})
    assert (result.n_series, result.n_points) == (2, 2 * SEEDS)
    assert list(result.summary["group"]) == ["cnn", "mlp"]
    assert result.summary["mean"].iloc[0] == pytest.approx(0.9 + 0.01 * 1.5)


def test_curves_caption_counts_seeds_per_epoch(source: pd.DataFrame) -> None:
    """A run that stopped early leaves fewer seeds behind later means; the caption says so."""
    stopped = source.loc[~((source["run_id"] == "cnn-0") & (source["epoch"] == EPOCHS))]
    result = make_plot(stopped, SPECS["curves"])
    assert result.spread_description.endswith("over 3–4 seeds per epoch")
    assert result.n_points == result.expected_points == len(GROUPS) * SEEDS * EPOCHS - 1


def test_gate_rejects_data_outside_the_view(source: pd.DataFrame, tmp_path: Path) -> None:
    """Artists exist (the counts match) but a wrong ylim hides them: no pixel shows data."""
    spec = {**SPECS["points"], "ylim": [5.0, 6.0]}
    with pytest.raises(GateError, match=r"figure\.png: no data pixels"):
        render_figure(source, spec, tmp_path / "figure")


def test_history_rows_need_a_whole_epoch_and_a_loop_without_one_plots_no_history() -> None:
    from evidence.present.artifacts import history_rows

    directions = {"loss": "lower", "accuracy": "higher"}
    per_step = [{"step": 1, "train/loss": 0.9}, {"step": 2, "train/loss": 0.7}]
    assert history_rows(per_step, directions, {"run_id": "r"}) == []  # was KeyError: 'epoch'
    mixed = [{"step": 3, "epoch": 1, "train/loss": 0.5, "val/accuracy": 0.8, "lr": 0.1},
             {"step": 4, "epoch": 1.5, "train/loss": 0.4}, {"step": 6, "epoch": 2.0, "train/loss": 0.3}]
    rows = history_rows(mixed, directions, {"run_id": "r"})
    assert [(r["epoch"], r["split"], r["metric"], r["value"]) for r in rows] == [
        (1, "train", "loss", 0.5), (1, "val", "accuracy", 0.8), (2, "train", "loss", 0.3)]


def test_generated_caption_sentences_read_as_sentences(source: pd.DataFrame) -> None:
    """Issue 29 item 19: the generated part of a curves caption began in lower case and named
    the split by its internal name ("...digits. accuracy on val by epoch")."""
    curves = make_plot(source, SPECS["curves"]).caption
    assert curves.startswith(f"{SPECS['curves']['metric'].capitalize()} on the ")
    assert " split by epoch. Thick lines" in curves
    points = make_plot(source, SPECS["points"]).caption
    assert points.startswith("Final ") and " on the " in points and " split by group." in points


def test_figures_use_the_dejavu_matplotlib_ships_not_a_system_copy() -> None:
    """A system DejaVu (Debian's fonts-dejavu-core) numbers its glyphs unlike the wheel's, and
    glyph numbers are in the PDF and SVG bytes: a figure must not depend on which is installed."""
    from matplotlib import font_manager

    from evidence.present.plotting import figure_style

    with figure_style():
        found = Path(font_manager.findfont("DejaVu Sans", fallback_to_default=False))
    assert found.parent == Path(mpl.get_data_path()) / "fonts" / "ttf", found
