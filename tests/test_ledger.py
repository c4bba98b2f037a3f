"""The compute ledger and cost: recorded per run, reported per experiment and in total, the
share no claim uses, measured early-stopping savings, and a stale price disclosed."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.core.schema import validate
from evidence.deliver import ledger, prices

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

PRICES = """
max_age_days = 180

[prices.cpu]
per_hour = 0.05
unit = "core"
currency = "USD"
checked = {checked}
source = "a test price list"
"""

PAPER_COMPUTE = "\n## Compute\n\n{{ compute_statement() }}\n\n{{ compute_table() }}\n"


@pytest.fixture(scope="module")
def delivered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ledger") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    checked = dt.date.today() - dt.timedelta(days=400)
    (root / "prices.toml").write_text(PRICES.format(checked=checked.isoformat()))
    paper = root / "paper" / "paper.md.j2"
    paper.write_text(paper.read_text() + PAPER_COMPUTE)
    result = doit(root, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def test_every_run_records_its_compute(delivered: Path) -> None:
    doc = json.loads((delivered / "build" / "deliver" / "compute.json").read_text())
    validate(doc, "compute", "compute.json")
    assert doc["total"]["runs"] == len(doc["runs"]) == 10
    for row in doc["runs"]:
        provenance = json.loads((delivered / "runs" / row["run_id"] / "provenance.json").read_text())
        validate(provenance, "provenance", "provenance.json")
        compute = provenance["compute"]
        assert compute["device_kind"] == "cpu" and compute["device_count"] == 1
        assert compute["device_hours"] == pytest.approx(compute["wall_seconds"] / 3600, abs=1e-6)  # rounded
        assert compute["peak_host_memory_bytes"] > 50 * 2**20  # torch alone is larger than that
        assert row["status"] == "cited" and row["recorded"]
        assert row["cost"] == pytest.approx(row["device_hours"] * 0.05, rel=1e-6)
    assert doc["total"]["cost"]["USD"] == pytest.approx(sum(r["cost"] for r in doc["runs"]), rel=1e-6)
    assert doc["unused"]["runs"] == 0 and doc["unused"]["share"] == {"cpu": 0.0}


def test_paper_and_deliverable_carry_the_compute_statement(delivered: Path) -> None:
    out = delivered / "build" / "deliver"
    paper = (out / "paper.md").read_text()
    assert "The 10 sealed training runs of this project (runs/) used" in paper
    assert "**Compute.**" not in paper  # under its own "Compute" heading, not bold again
    assert "0.05 USD per core-hour, checked" in paper and "| Experiment | Runs |" in paper
    assert "Every one of the 10 runs is used by a claim." in paper
    assert "| **Total** | 10 | 10 |" in paper
    assert "## Runs" in (out / "compute.md").read_text()
    assert {"compute.json", "compute.md"} <= set(json.loads((out / "MANIFEST.json").read_text())["files"])


def test_stale_price_is_disclosed(delivered: Path) -> None:
    findings = json.loads((delivered / "build" / "deliver" / "disclosures.json").read_text())["findings"]
    [stale] = [f for f in findings if f["check"] == "prices"]
    assert stale["id"] == "prices:cpu" and stale["severity"] == "warning" and stale["scope"] == "project"
    assert "The price for cpu was checked 13 months ago" in stale["message"]
    assert "allows 180 days" in stale["message"]
    assert "13 months ago" in (delivered / "build" / "deliver" / "DISCLOSURES.md").read_text()


def test_a_fresh_price_clears_the_disclosure_without_retraining(delivered: Path, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(delivered, root, symlinks=True)
    (root / "prices.toml").write_text(PRICES.format(checked=dt.date.today().isoformat()))
    result = doit(root, "deliver")
    assert result.returncode == 0, result.stdout
    ran = [line for line in result.stdout.splitlines() if line.startswith(".  ")]
    assert ".  deliver:disclose" in ran and not [line for line in ran if line.startswith(".  train")]
    findings = json.loads((root / "build" / "deliver" / "disclosures.json").read_text())["findings"]
    assert not [f for f in findings if f["check"] == "prices"]


def _run(root: Path, run_id: str, experiment: str, group: str, provenance: dict[str, object],
         early: dict[str, object] | None = None) -> None:
    folder = root / "runs" / run_id
    folder.mkdir(parents=True)
    (folder / "spec.json").write_text(json.dumps({"experiment": experiment, "label": f"{group}-s0",
                                                  "group": group}))
    (folder / "provenance.json").write_text(json.dumps(provenance))
    (folder / "results.json").write_text(json.dumps({"early_stopping": early} if early else {}))


def test_ledger_shares_old_runs_and_measured_savings(tmp_path: Path) -> None:
    compute = {"device_kind": "cpu", "device_count": 2, "wall_seconds": 3600.0, "device_hours": 2.0,
               "peak_host_memory_bytes": 2**30, "peak_device_memory_bytes": None}
    _run(tmp_path, "aaaa", "main", "model", {"compute": compute})
    _run(tmp_path, "bbbb", "main", "model", {"compute": {**compute, "device_hours": 1.0}})
    _run(tmp_path, "cccc", "old", "model", {"wall_seconds": 900.0, "threads": 2,
                                             "environment": {"devices": {"kind": "cpu", "count": 1}}})
    stops = [{"epochs_run": r, "epochs_saved": 30 - r, "max_epochs": 30, "share_saved": (30 - r) / 30,
              "reason": "plateau"} for r in (10, 15, 24)]
    for index, stop in enumerate(stops):
        _run(tmp_path, f"es{index}", "es", "mlp_es", {"compute": {**compute, "device_hours": 0.5}}, stop)
    table = {"prices": {"cpu": {"per_hour": 0.1, "currency": "EUR", "checked": "2026-01-01", "source": "x"}}}
    claims = {"claims": [{"id": "c1", "runs": [{"run_id": "aaaa"}]}]}
    current = {"aaaa", "bbbb", "es0", "es1", "es2"}
    doc = ledger.build_ledger(Project.at(tmp_path), claims, table, current=current)
    validate(doc, "compute", "compute.json")
    rows = {r["run_id"]: r for r in doc["runs"]}
    assert rows["aaaa"]["status"] == "cited" and rows["aaaa"]["claims"] == ["c1"]
    assert rows["bbbb"]["status"] == "declared" and rows["cccc"]["status"] == "superseded"
    assert not rows["cccc"]["recorded"] and rows["cccc"]["device_hours"] == pytest.approx(0.5)  # 0.25 h x 2
    assert rows["cccc"]["peak_host_memory_bytes"] is None
    assert doc["total"]["device_hours"]["cpu"] == pytest.approx(5.0)
    assert doc["total"]["cost"]["EUR"] == pytest.approx(0.5)
    assert doc["unused"]["share"]["cpu"] == pytest.approx(3.0 / 5.0)
    [es] = doc["early_stopping"]
    assert es["share_saved"] == {"min": pytest.approx(0.2), "median": 0.5, "max": pytest.approx(2 / 3),
                                 "n": 3}
    assert es["epochs_run"] == {"min": 10, "median": 15, "max": 24, "n": 3}
    text = ledger.statement(doc)
    assert "ran 10–24 (median 15) of 30 epochs, saving 20%–67% (median 50%)" in text
    assert "(1 defined by the experiments but not cited, 1 superseded" not in text  # es runs are declared
    assert "(4 defined by the experiments but not cited, 1 superseded by later code or configurations) " \
        "took 60% of the cpu compute (0.3 EUR); the 1 runs the claims use took the rest." in text
    assert "1 runs predate the ledger" in text


def test_prices_are_validated_and_aged(tmp_path: Path) -> None:
    (tmp_path / "prices.toml").write_text(PRICES.format(checked="2025-01-01").replace('"USD"', '"usd"'))
    with pytest.raises(BadInputError) as error:
        prices.load_prices(Project.at(tmp_path))
    assert error.value.field == "prices.cpu.currency"
    (tmp_path / "prices.toml").write_text(PRICES.format(checked="2025-10-20"))
    table = prices.load_prices(Project.at(tmp_path))
    [stale] = prices.stale_prices(table, today=dt.date(2026, 11, 22))
    assert stale["age"] == "13 months" and stale["age_days"] == 398
    assert prices.stale_prices(table, today=dt.date(2026, 1, 1)) == []
    assert prices.price_for(table, "cuda") is None and prices.format_money(0.000123, "USD") == "0.000123 USD"
