"""`doit verify` end to end on a temporary project: tiny real runs, a shuffled-label control."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.schema import validate

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

CONTROL_EXPERIMENT = """
trainer = "mlp"
seeds = [0, 1]

[data]
dataset = "digits"
split_seed = 0

[config]
epochs = 2
batch_size = 64
lr = 0.1
hidden = 16

[smoke]
batches = 1

[[variants]]
name = "control"
role = "control"
data = { shuffle_labels = true }
"""

COMPARISONS = """
[[comparison]]
id = "wide_vs_small"
a = { experiment = "tiny", where = { group = "wide" } }
b = { experiment = "tiny", where = { group = "small" } }
metric = "accuracy"
claimed = "a_better"
control = { experiment = "ctrl", where = { role = "control" } }
n_resamples = 2000

[[comparison]]
id = "wide_vs_small_loss"
a = { experiment = "tiny", where = { group = "wide" } }
b = { experiment = "tiny", where = { group = "small" } }
metric = "loss"
claimed = "a_better"
n_resamples = 2000

# The shuffled-label model checked against a real model as its "control": it cannot beat it,
# so this comparison is a suspected bug, which verify reports without failing.
[[comparison]]
id = "shuffled_vs_wide"
a = { experiment = "ctrl" }
b = { experiment = "tiny", where = { group = "wide" } }
metric = "accuracy"
claimed = "a_better"
control = { experiment = "tiny", where = { group = "small" } }
n_resamples = 2000

[[aggregate]]
id = "control_at_chance"
selection = { experiment = "ctrl" }
metric = "accuracy"
reference = "chance"
n_resamples = 2000

[[aggregate]]
id = "both_widths"
selection = [{ experiment = "tiny", where = { group = "small" } },
             { experiment = "tiny", where = { group = "wide" } }]
metric = "accuracy"
n_resamples = 2000

[[expected_max]]
id = "tiny_grid"
selection = { experiment = "tiny" }
"""


def executed(output: str) -> list[str]:
    return sorted(line[3:].strip() for line in output.splitlines() if line.startswith(".  "))


def test_verify_trains_first_reports_every_class_and_is_deterministic(
        make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/ctrl.toml": CONTROL_EXPERIMENT, "comparisons.toml": COMPARISONS})
    first = doit(root, "-n", "3", "verify")
    assert first.returncode == 0, first.stdout + first.stderr
    ran = executed(first.stdout)
    assert sum(name.startswith("train:") for name in ran) == 6  # file_dep -> the train tasks
    assert {"verify:report", "verify:summary"} <= set(ran)

    report_path = root / "build/verify/report.json"
    report = json.loads(report_path.read_text())
    validate(report, "verify_report", report_path)
    by_id = {c["id"]: c for c in report["comparisons"]}
    assert by_id["shuffled_vs_wide"]["class"] == "suspected_bug"  # reported, not a failure
    assert "[beats_shuffled_control]" in by_id["shuffled_vs_wide"]["reason"]
    for cid in ("wide_vs_small", "wide_vs_small_loss"):
        # Two seeds per group: below min_seeds, so no verdict stronger than the data allow.
        assert by_id[cid]["class"] in ("insufficient_evidence", "effect"), by_id[cid]["reason"]
    loss = by_id["wide_vs_small_loss"]
    assert loss["direction"] == "lower"
    wins = [a["value"] < b["value"] for a in loss["a"]["runs"] for b in loss["b"]["runs"]]
    assert loss["numbers"]["prob_improvement"] == pytest.approx(sum(wins) / len(wins))
    assert by_id["wide_vs_small"]["control"]["numbers"]["n_b"] == 2
    (chance, widths) = report["aggregates"]
    assert chance["reference"]["value"] == pytest.approx(0.1) and chance["n"] == 2
    assert widths["stratified"] and widths["n"] == 4
    assert report["expected_max"][0]["metric"] == "accuracy" and len(report["expected_max"][0]["table"]) == 4

    summary = (root / "build/verify/summary.md").read_text()
    lines = [line for line in first.stdout.splitlines() if line.startswith("- **")]
    assert [line.split("**")[1] for line in lines][:3] == ["wide_vs_small", "wide_vs_small_loss",
                                                           "shuffled_vs_wide"]
    assert all(line in summary for line in lines)

    # Nothing changed: the report is up to date, and the summary is printed again.
    again = doit(root, "verify")
    assert again.returncode == 0 and executed(again.stdout) == ["verify:summary"]
    assert "- **shuffled_vs_wide** suspected_bug" in again.stdout

    # The same runs give the same bytes.
    before = report_path.read_bytes()
    shutil.rmtree(root / "build/verify")
    rebuilt = doit(root, "verify")
    assert rebuilt.returncode == 0 and "verify:report" in executed(rebuilt.stdout)
    assert report_path.read_bytes() == before

    # A metric the runs do not have is bad input seen only once they exist: the task fails,
    # names the file and the field, and leaves no stale report to cite.
    (root / "comparisons.toml").write_text(COMPARISONS.replace('metric = "loss"', 'metric = "f1"'))
    bad = doit(root, "verify")
    assert bad.returncode == 1
    assert "comparisons.toml: field 'comparison[1].metric'" in bad.stdout + bad.stderr
    assert not report_path.exists()


@pytest.mark.parametrize(("text", "field"), [
    (COMPARISONS.replace('claimed = "a_better"', 'claimed = "a_beter"', 1), "comparison[0].claimed"),
    (COMPARISONS.replace('group = "small" } }\nmetric = "accuracy"',
                         'group = "smal" } }\nmetric = "accuracy"', 1), "comparison[0].b.where"),
    (COMPARISONS.replace('experiment = "ctrl" }', 'experiment = "crtl" }', 1), "comparison[2].a.experiment"),
])
def test_bad_comparisons_file_is_one_line_exit_3(make_project: Callable[..., Path], text: str,
                                                 field: str) -> None:
    root = make_project({"experiments/ctrl.toml": CONTROL_EXPERIMENT, "comparisons.toml": text})
    result = doit(root, "verify")
    assert result.returncode == 3, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR: "), result.stderr
    assert f"comparisons.toml: field '{field}'" in lines[0] and "Traceback" not in result.stderr
    assert not (root / "runs").exists() and not (root / "build").exists()
