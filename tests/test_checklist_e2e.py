"""`doit deliver`'s checklist (items 7 and 8) and evidence page on a project made by `evidence
init`: the checklist's numbers against the compute ledger and the verify report, failed and
quarantined work counted, the claims' citations reconciled, the evidence page in Chromium."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.errors import DriftError
from evidence.core.project import Project
from evidence.deliver import checklist
from evidence.deliver.ledger import cost_text, duration, hours_text

pytestmark = pytest.mark.slow  # trains the template's runs and delivers

ARTIFACTS = Path(os.environ.get("EVIDENCE_TEST_ARTIFACTS", Path(__file__).parent / "artifacts"))
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--allow-file-access-from-files"]


@pytest.fixture(scope="module")
def delivered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checklist") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    result = doit(root, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "checklist: items 7" in result.stdout and "evidence page:" in result.stdout
    return root


def test_the_deliverable_ships_the_checklist_and_the_evidence_page(delivered: Path) -> None:
    out = delivered / "build" / "deliver"
    files = json.loads((out / "MANIFEST.json").read_text())["files"]
    assert {"checklist.md", "checklist.tex", "evidence.html"} <= set(files)
    tex = (out / "checklist.tex").read_text()
    assert tex.count(r"\begin{itemize}") == tex.count(r"\end{itemize}") >= 2
    assert r"\section*{Paper checklist" in tex and "#claim:" not in tex
    assert not re.search(r"(?<!\\)[%_#&]", tex.split("\n", 1)[1])  # every special character escaped


def test_item_7_lists_every_claim_figure_and_table_with_method_n_and_sd_or_se(delivered: Path) -> None:
    out = delivered / "build" / "deliver"
    text = (out / "checklist.md").read_text()
    claims = json.loads((out / "claims.json").read_text())["claims"]
    report = json.loads((out / "verify" / "report.json").read_text())
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    for claim in claims:
        row = next(r for r in rows if f"claim `{claim['id']}`" in r)
        assert f"(#claim:{claim['id']})" in row and claim["ci_formatted"] in row
        kind, _, entry_id = claim["ref"].partition(":")
        assert f"{kind} {entry_id}" in row and "build/deliver/verify/report.json" in row
        if kind == "verify":
            numbers = next(c for c in report["comparisons"] if c["id"] == entry_id)["numbers"]
            assert f"| {numbers['n_a']} and {numbers['n_b']} seeds |" in row
            assert "Welch t" in row and "neither: an interval of the difference" in row
        else:
            assert f"| {claim['n']} seeds |" in row and "Student t" in row
        assert "seed-to-seed variation" in row and "identical split digests" in row
    for kind, folder in (("figure", "figures"), ("table", "tables")):
        for sidecar in (delivered / folder).glob(f"*/{kind}.provenance.json"):
            name = sidecar.parent.name
            row = next(r for r in rows if r.startswith(f"| {kind} `{name}`"))
            spread = json.loads(sidecar.read_text())["spread"]
            assert spread in row and f"{folder}/{name}/{kind}.provenance.json" in row
            assert "SD: the spread of single runs" in row  # the template draws ±1 SD
            assert "| 5 seeds per point |" in row


def test_item_8_states_the_ledgers_numbers(delivered: Path) -> None:
    out = delivered / "build" / "deliver"
    text = (out / "checklist.md").read_text()
    doc = json.loads((out / "compute.json").read_text())
    total, unused = doc["total"], doc["unused"]
    assert (f"- **Total:** {hours_text(doc, total['device_hours'])}, {duration(total['wall_seconds'])} "
            f"of wall-clock time, cost {cost_text(total['cost'])}.") in text
    hours = [float(r["device_hours"]) for r in doc["runs"]]
    median = statistics.median(hours)
    assert f"{len(doc['runs'])} sealed runs; device-hours per run median {median:.3g}" in text
    assert f"**Runs no claim uses:** {unused['runs']} of {total['runs']} " in text
    assert "**Failed attempts:** 0 run(s)" in text and "**Quarantined runs:** 0 damaged" in text
    assert text.count("*Source: build/deliver/compute.json") == 3


def test_failed_and_quarantined_work_is_counted(delivered: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(delivered, copy, symlinks=True)
    (copy / "trainers" / "broken.py").write_text(
        "def build(config, data):\n    raise ValueError('broken on purpose')\n")
    experiment = (copy / "experiments" / "main.toml").read_text()
    broken = experiment.replace('trainer = "model"', 'trainer = "broken"')
    broken = broken.replace("seeds = [0, 1, 2, 3, 4]", "seeds = [0]")
    (copy / "experiments" / "broken.toml").write_text(broken)
    assert doit(copy, "train:broken/model-s0").returncode != 0
    # a damaged run: the next `doit train` quarantines it and trains it again
    victim = sorted((copy / "runs").glob("*/metrics.jsonl"))[0]
    victim.parent.chmod(0o755)
    victim.chmod(0o644)
    victim.write_text(victim.read_text() + "\n")
    retrained = doit(copy, "train:main/model-s0", "train:main/model-s1", "train:main/model-s2",
                     "train:main/model-s3", "train:main/model-s4", "train:main/control-s0",
                     "train:main/control-s1", "train:main/control-s2", "train:main/control-s3",
                     "train:main/control-s4")
    assert retrained.returncode == 0 and "DAMAGED" in retrained.stdout + retrained.stderr
    text, facts = checklist.build_checklist(Project.at(copy))
    assert facts["beyond"]["failed"] and len(facts["beyond"]["quarantined"]) == 1
    assert "**Failed attempts:** 1 run(s)" in text and "broken on purpose" in text
    assert "**Quarantined runs:** 1 damaged run(s) moved out of the store" in text
    quarantined = facts["beyond"]["quarantined_device_hours"]
    assert quarantined > 0 and f"{quarantined:.3g} device-hours" in text


def test_a_drifted_citation_fails_like_any_document(delivered: Path) -> None:
    project = Project.at(delivered)
    text, _ = checklist.build_checklist(project)
    checklist._check_reconciles(project, "build/checklist/checklist.md", text)  # as built: no drift
    match = re.search(r"\[(-?\d+\.\d)(%?)\]\(#claim:", text)
    assert match
    wrong = text.replace(match.group(0), f"[{float(match.group(1)) + 10.0:.1f}{match.group(2)}](#claim:", 1)
    with pytest.raises(DriftError, match=r"checklist\.md"):
        checklist._check_reconciles(project, "build/checklist/checklist.md", wrong)


CHECK_SCRIPT = """
<script>
window.addEventListener('load', () => {
  const rows = [...document.querySelectorAll('#evidence-table tbody tr')];
  const result = {rows: rows.length,
                  names: rows.map(r => r.cells[0].textContent.trim()),
                  headers: [...document.querySelectorAll('#evidence-table th')]
                             .map(h => h.textContent.trim()),
                  links: [...document.querySelectorAll('a')].map(a => a.getAttribute('href')),
                  cells: rows.map(r => [...r.cells].map(c => c.textContent.trim()))};
  const pre = document.createElement('pre');
  pre.id = 'evidence-check';
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
});
</script>
"""


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="Debian's chromium is not installed (.ci/run installs it)")
def test_evidence_page_in_chromium(delivered: Path, tmp_path: Path) -> None:
    out = delivered / "build" / "deliver"
    assert 'href="evidence.html"' in (out / "paper.html").read_text()
    probe = out / "evidence.probe.html"
    probe.write_text((out / "evidence.html").read_text().replace("</body>", CHECK_SCRIPT + "</body>"))
    profile = tmp_path / "profile"
    try:
        dom = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                              "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                             capture_output=True, text=True, timeout=120)
    finally:
        probe.unlink()
    match = re.search(r'<pre id="evidence-check">(.*?)</pre>', dom.stdout, re.S)
    assert match, dom.stderr[-2000:]
    result = json.loads(html.unescape(match.group(1)))
    claims = json.loads((out / "claims.json").read_text())["claims"]
    cited = {r["run_id"] for c in claims for r in c["runs"]}
    assert result["names"] == ["main/model", "main/control"]  # the variants the claims rest on
    assert "accuracy (test)" in result["headers"] and "verdicts" in result["headers"]
    model = dict(zip(result["headers"], result["cells"][0], strict=True))
    comparison = json.loads((out / "verify" / "report.json").read_text())["comparisons"][0]
    assert comparison["a"]["name"] == "model"
    assert model["status"] == "5 sealed" and model["accuracy (test)"].endswith("n=5")
    assert model["accuracy (test)"].startswith(f"{comparison['numbers']['mean_a']:.4g} [")
    assert "model_vs_control: effect, as claimed" in model["verdicts"]
    run_links = [h for h in result["links"] if h.startswith("runs/")]
    assert {h.split("/")[1] for h in run_links} == cited and len(run_links) == 3 * len(cited)
    for href in result["links"]:
        if not href.startswith(("http", "#")):
            assert (out / href).is_file(), href
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "evidence.png"
    subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1200,900",
                    f"--screenshot={shot}", (out / "evidence.html").as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 10_000
