"""`doit figures` and `doit tables` end to end on a temporary project with tiny real runs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit, write_tree

from evidence.core.hashing import digest_file
from evidence.core.schema import validate

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

SMALL_CURVES = """
kind = "curves"
metric = "accuracy"
split = "val"
spread = "sd"

[[select]]
experiment = "tiny"
where = { group = "small" }
"""

WIDE_POINTS = """
kind = "points"
metric = "accuracy"
split = "test"
chance = { value = 0.1, label = "chance" }

[[select]]
experiment = "tiny"
where = { group = "wide" }
"""

ALL_TABLE = """
columns = ["test/accuracy", "test/loss"]

[[select]]
experiment = "tiny"
"""

BLANK = """
kind = "custom"
caption = "Nothing"
spread_description = "none"

[[select]]
experiment = "tiny"
"""

BLANK_PLOT = """
from matplotlib.figure import Figure

def plot(df, spec):
    return Figure()
"""


def executed(output: str) -> list[str]:
    """Task names doit ran ('.  name') as opposed to skipped as up to date ('-- name')."""
    # With -n 2 a child's output can run into doit's line, so match the marker anywhere.
    return sorted(re.findall(r"(?:^|(?<=[^\s.]))\.  ((?:train|figures|tables|verify|deliver|fsck)\S*)",
                             output, re.M))


def outputs(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for folder in ("figures", "tables") for p in sorted((root / folder).rglob("*"))
            if p.is_file() and not p.name.endswith(".toml")}


def test_figures_and_tables_build_cache_and_rebuild_exactly(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"figures/small_curves/figure.toml": SMALL_CURVES,
                         "figures/wide_points/figure.toml": WIDE_POINTS,
                         "tables/all/table.toml": ALL_TABLE})
    assert doit(root, "-n", "2", "train").returncode == 0
    first = doit(root, "figures", "tables")
    assert first.returncode == 0, first.stdout + first.stderr
    assert executed(first.stdout) == sorted(
        f"{kind}:{name}/{step}" for kind, name in (("figures", "small_curves"),
                                                   ("figures", "wide_points"), ("tables", "all"))
        for step in ("source_data", "render"))
    built = outputs(root)
    assert len(built) == 3 * 2 + 2 * 4 + 3  # sources + sidecars, images + sidecar, md/tex/sidecar
    sidecar = json.loads(built["figures/wide_points/figure.provenance.json"])
    validate(sidecar, "sidecar", "figure.provenance.json")
    assert len(sidecar["runs"]) == 2
    for path, digest in {**sidecar["inputs"], **sidecar["outputs"]}.items():
        assert digest_file(root / path) == digest, path

    noop = doit(root, "figures", "tables")
    assert noop.returncode == 0 and executed(noop.stdout) == []

    for path in built:  # delete every output; the rebuild is byte-identical
        (root / path).unlink()
    again = doit(root, "figures", "tables")
    assert again.returncode == 0 and len(executed(again.stdout)) == 6
    assert outputs(root) == built

    # Re-seal the wide runs (new config -> new keys): only what reads them rebuilds, and doit
    # trains the new runs first because their results.json are file_dep of the source step.
    experiment = root / "experiments/tiny.toml"
    experiment.write_text(experiment.read_text().replace("hidden = 32", "hidden = 24"))
    changed = doit(root, "-n", "2", "figures", "tables")
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert executed(changed.stdout) == [
        "figures:wide_points/render", "figures:wide_points/source_data",
        "tables:all/render", "tables:all/source_data",
        "train:tiny/wide-s0", "train:tiny/wide-s1"]
    assert outputs(root)["figures/small_curves/figure.png"] == built["figures/small_curves/figure.png"]

    # A figure whose plot.py draws nothing fails the gate (exit 1) and publishes nothing.
    write_tree(root, {"figures/blank/figure.toml": BLANK, "figures/blank/plot.py": BLANK_PLOT})
    blank = doit(root, "figures")
    assert blank.returncode == 1
    assert "figures/blank/figure.png: image is blank" in blank.stdout + blank.stderr
    assert sorted(p.name for p in (root / "figures/blank").iterdir() if p.name != "__pycache__") == [
        "figure.toml", "plot.py", "source_data.csv", "source_data.provenance.json"]


def test_bad_figure_spec_is_one_line_exit_3(make_project: Callable[..., Path]) -> None:
    root = make_project({"figures/typo/figure.toml": SMALL_CURVES.replace("split =", "splt =")})
    result = doit(root, "figures")
    assert result.returncode == 3, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR: "), result.stderr
    assert "figures/typo/figure.toml: field '$'" in lines[0] and "'splt' was unexpected" in lines[0]
    assert not (root / "runs").exists() and not (root / "figures/typo/source_data.csv").exists()
