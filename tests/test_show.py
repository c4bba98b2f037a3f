"""`evidence show` and `evidence diff` on a project with real runs: rows, intervals against
scipy, verdicts from the verify report, filters, sorting, JSON/CSV round trips, statuses."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import TINY_EXPERIMENT, doit
from scipy import stats as sps

from evidence.core.project import Project
from evidence.verify.runtable import build_table, table_json

pytestmark = pytest.mark.slow  # trains a few tiny models

EXPERIMENT = TINY_EXPERIMENT.replace("seeds = [0, 1]", "seeds = [0, 1, 2]")
COMPARISONS = """
[[comparison]]
id = "wide_vs_small"
a = { experiment = "tiny", where = { group = "wide" } }
b = { experiment = "tiny", where = { group = "small" } }
metric = "accuracy"
claimed = "a_better"
n_resamples = 2000
"""


def evidence(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "--project", str(root), *args],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from conftest import DODO, REPO, write_tree

    root = tmp_path_factory.mktemp("show") / "proj"
    (root / "trainers").mkdir(parents=True)
    for trainer in (REPO / "trainers").glob("*.py"):
        shutil.copy(trainer, root / "trainers" / trainer.name)
    write_tree(root, {"dodo.py": DODO, "experiments/tiny.toml": EXPERIMENT,
                      "comparisons.toml": COMPARISONS})
    result = doit(root, "verify")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def results_of(root: Path) -> dict[str, dict[str, Any]]:
    """label -> results.json of every sealed run (read here independently of the engine)."""
    found = {}
    for path in (root / "runs").glob("*/results.json"):
        data = json.loads(path.read_text())
        found[data["label"]] = data
    return found


def student_t(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(sps.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def show_json(root: Path, *args: str) -> dict[str, Any]:
    result = evidence(root, "show", "--json", *args)
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_rows_per_variant_with_student_t_intervals_and_verdicts(project: Path) -> None:
    data = show_json(project)
    assert [r["name"] for r in data["rows"]] == ["tiny/small", "tiny/wide"]
    assert data["config_columns"] == ["hidden"]  # the only config value that differs
    assert data["splits"] == ["test"]
    results = results_of(project)
    report = json.loads((project / "build" / "verify" / "report.json").read_text())["comparisons"][0]
    for row in data["rows"]:
        assert row["status"] == {"sealed": 3}
        values = [results[f"{row['group']}-s{seed}"]["metrics"]["accuracy"]["values"]["test"]
                  for seed in (0, 1, 2)]
        mean, low, high = student_t(values)
        cell = row["metrics"]["accuracy"]["test"]
        assert cell["n"] == 3 and cell["method"] == "student-t"
        assert cell["mean"] == pytest.approx(mean, abs=1e-12)
        assert cell["ci_low"] == pytest.approx(low, abs=1e-12)
        assert cell["ci_high"] == pytest.approx(high, abs=1e-12)
        side = "a" if row["group"] == "wide" else "b"
        assert row["verdicts"] == [{"comparison": "wide_vs_small", "side": side,
                                    "other": report["b" if side == "a" else "a"]["name"],
                                    "class": report["class"],
                                    "as_claimed": report["direction_matches_claim"],
                                    "metric": "accuracy", "split": "test"}]
    assert data["verify"]["report"] == "build/verify/report.json" and not data["verify"]["stale"]


def test_json_round_trip_and_csv_carry_the_same_numbers(project: Path) -> None:
    data = show_json(project, "--split", "val", "--split", "test")
    in_process = table_json(build_table(Project.at(project), splits=["val", "test"]))
    assert data == json.loads(json.dumps(in_process))
    rows = list(csv.DictReader(io.StringIO(evidence(project, "show", "--csv", "--split", "val",
                                                    "--split", "test").stdout)))
    assert [r["name"] for r in rows] == [r["name"] for r in data["rows"]]
    for record, row in zip(rows, data["rows"], strict=True):
        for split in ("val", "test"):
            cell = row["metrics"]["loss"][split]
            assert float(record[f"loss.{split}.mean"]) == cell["mean"]  # repr: no digit lost
            assert float(record[f"loss.{split}.ci_low"]) == cell["ci_low"]
            assert int(record[f"loss.{split}.n"]) == 3
        assert record["config.hidden"] == str(row["config"]["hidden"])
    markdown = evidence(project, "show", "--md").stdout
    assert "| variant | status | hidden |" in markdown and "| tiny/wide |" in markdown


def test_filters_and_sort_in_the_metrics_own_direction(project: Path) -> None:
    assert [r["name"] for r in show_json(project, "--where", "hidden=32")["rows"]] == ["tiny/wide"]
    assert [r["name"] for r in show_json(project, "--where", "group=small,wide",
                                         "--experiment", "tiny")["rows"]] == ["tiny/small", "tiny/wide"]
    runs = show_json(project, "--runs", "--where", "seed=1")["rows"]
    assert [r["label"] for r in runs] == ["small-s1", "wide-s1"]
    cells = [r["metrics"]["accuracy"]["test"] for r in runs]
    assert all(c["n"] == 1 and c["ci_low"] is None for c in cells)
    for metric, reverse in (("accuracy", True), ("loss", False)):
        rows = show_json(project, "--runs", "--sort", metric)["rows"]
        means = [r["metrics"][metric]["test"]["mean"] for r in rows]
        assert means == sorted(means, reverse=reverse) and len(means) == 6
    rows = show_json(project, "--runs", "--sort", "val/loss", "--split", "val")["rows"]
    means = [r["metrics"]["loss"]["val"]["mean"] for r in rows]
    assert means == sorted(means)


@pytest.mark.parametrize(("args", "message"), [
    (["--where", "nosuch=1"], "no run has a field 'nosuch'"),
    (["--where", "hidden"], "'hidden' is not KEY=VALUE"),
    (["--experiment", "nope"], "experiment 'nope' does not exist (known: tiny)"),
    (["--sort", "f1"], "no metric 'f1' to sort by"),
    (["--split", "holdout"], "no run reports split 'holdout'"),
])
def test_bad_arguments_are_one_error_line(project: Path, args: list[str], message: str) -> None:
    result = evidence(project, "show", *args)
    assert result.returncode == 3 and result.stdout == ""
    assert result.stderr.startswith("ERROR: ") and message in result.stderr


def test_text_fits_80_columns_and_goes_vertical_rather_than_wide(project: Path) -> None:
    wide = evidence(project, "show", "--width", "200", "--split", "test").stdout
    assert "tiny/small  sealed" not in wide and "variant" in wide.splitlines()[3]  # a table
    narrow = evidence(project, "show", "--width", "80", "--split", "train", "--split", "val",
                      "--split", "test").stdout
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert "\ntiny/wide  (3 sealed)\n" in narrow and "  accuracy (val)" in narrow  # one block per row
    assert "wide_vs_small:" in narrow


def test_statuses_not_yet_run_failed_and_damaged(project: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    experiment = copy / "experiments" / "tiny.toml"
    experiment.write_text(experiment.read_text().replace("seeds = [0, 1, 2]", "seeds = [0, 1, 2, 3]"))
    (copy / "trainers" / "broken.py").write_text(
        "def build(config, data):\n    raise ValueError('this trainer is broken on purpose')\n")
    broken = EXPERIMENT.replace('trainer = "mlp"', 'trainer = "broken"')
    broken = broken.replace("seeds = [0, 1, 2]", "seeds = [0]")
    (copy / "experiments" / "broken.toml").write_text(broken)
    failed = doit(copy, "train:broken/small-s0")
    assert failed.returncode != 0
    damaged = next(p for p in (copy / "runs").glob("*/results.json")
                   if json.loads(p.read_text())["label"] == "wide-s2")
    damaged.parent.chmod(0o755)
    damaged.chmod(stat.S_IWUSR | stat.S_IRUSR)
    damaged.write_text(damaged.read_text().replace('"test": 0.', '"test": 1.', 1))
    rows = {r["name"]: r for r in show_json(copy)["rows"]}
    assert rows["tiny/small"]["status"] == {"sealed": 3, "not yet run": 1}
    assert rows["tiny/wide"]["status"] == {"sealed": 2, "damaged": 1, "not yet run": 1}
    assert rows["tiny/wide"]["metrics"]["accuracy"]["test"]["n"] == 2  # a damaged run is not read
    assert rows["broken/small"]["status"] == {"failed": 1}
    detail = next(r["detail"] for r in rows["broken/small"]["runs"])
    assert "broken on purpose" in detail
    wide = next(r for r in rows["tiny/wide"]["runs"] if r["status"] == "damaged")
    assert "results.json" in wide["detail"] and "differs" in wide["detail"]
    text = evidence(copy, "show", "--width", "80").stdout
    assert "2 sealed, 1 damaged, 1 not yet run" in text
    assert not show_json(copy)["verify"]["stale"]
    (copy / "comparisons.toml").write_text(COMPARISONS.replace("n_resamples = 2000", "n_resamples = 3000"))
    stale = show_json(copy)
    assert stale["verify"]["stale"]
    assert "comparisons.toml changed since the verify report" in stale["verify"]["note"]
    wide = next(r for r in stale["rows"] if r["name"] == "tiny/wide")
    assert wide["verdicts"]  # still the verdicts of the runs the report read, marked stale


def test_diff_of_two_variants_names_the_identity_and_the_welch_interval(project: Path) -> None:
    result = evidence(project, "diff", "tiny/wide", "tiny/small", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["a"]["kind"] == data["b"]["kind"] == "variant" and data["a"]["runs"] == 3
    assert data["identity"] == [{"field": "config.hidden", "a": [32], "b": [16]}]
    assert data["recorded"] == []  # the same machine and code
    results = results_of(project)
    entry = next(m for m in data["metrics"] if m["metric"] == "accuracy" and m["split"] == "test")
    xa = [results[f"wide-s{s}"]["metrics"]["accuracy"]["values"]["test"] for s in (0, 1, 2)]
    xb = [results[f"small-s{s}"]["metrics"]["accuracy"]["values"]["test"] for s in (0, 1, 2)]
    welch = sps.ttest_ind(xa, xb, equal_var=False)
    interval = welch.confidence_interval(0.95)
    assert entry["diff"] == pytest.approx(sum(xa) / 3 - sum(xb) / 3, abs=1e-12)
    assert entry["ci_low"] == pytest.approx(interval.low, abs=1e-12)
    assert entry["ci_high"] == pytest.approx(interval.high, abs=1e-12)
    assert entry["method"] == "welch-t"
    text = evidence(project, "diff", "tiny/wide", "tiny/small", "--width", "80").stdout
    assert "config.hidden: 32 -> 16" in text and max(len(line) for line in text.splitlines()) <= 80


def test_diff_of_two_runs_and_of_a_run_and_its_id(project: Path) -> None:
    one = show_json(project, "--runs", "--where", "label=wide-s0")["rows"][0]["runs"][0]["run_id"]
    data = json.loads(evidence(project, "diff", one, "tiny/small-s1", "--json").stdout)
    assert data["a"]["kind"] == data["b"]["kind"] == "run"
    assert {e["field"] for e in data["identity"]} == {"config.hidden"}  # the seed is not identity here
    assert all(m["ci_low"] is None and "one run" in m["note"] for m in data["metrics"])
    bad = evidence(project, "diff", "tiny/nosuch", "tiny/small")
    assert bad.returncode == 3 and "has no group, run label or variant 'nosuch'" in bad.stderr


def test_show_imports_no_torch_and_reads_no_run_file_twice(project: Path) -> None:
    code = ("import builtins, io, sys\n"
            "opened = []\n"
            "real = io.open\n"
            "def spy(file, *a, **k):\n"
            "    opened.append(str(file)); return real(file, *a, **k)\n"
            "builtins.open = io.open = spy\n"
            "from evidence.cli import main\n"
            f"main(['--project', {str(project)!r}, 'show', '--runs'])\n"
            "runs = [p for p in opened if '/runs/' in p]\n"
            "print('TORCH', 'torch' in sys.modules, 'RUNFILES', len(runs), len(set(runs)))\n")
    cache = project / ".evidence" / "cache"
    for memo in cache.glob("memo-show-*.json"):
        memo.unlink()  # a cold start: every run's files are read once
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    line = first.stdout.splitlines()[-1].split()
    assert line[1] == "False"
    assert int(line[3]) == int(line[4]) > 0  # each run file read once
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert second.stdout.splitlines()[-1].split()[3] == "0"  # the memo answers: no run file read

