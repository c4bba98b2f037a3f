"""`doit deliver` end to end on a project made by `evidence init`: claims, reconcile (planted
drift among decoys), the disclosure gate (a planted integrity problem), and the paper as a
person sees it in headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.hashing import digest_file

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

ARTIFACTS = Path(os.environ.get("EVIDENCE_TEST_ARTIFACTS", Path(__file__).parent / "artifacts"))


@pytest.fixture(scope="module")
def delivered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("delivered") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    evidence = json.loads((root / "EVIDENCE.json").read_text())
    evidence["claims"][0]["keywords"] = ["beats", "shuffled-label control"]
    (root / "EVIDENCE.json").write_text(json.dumps(evidence, indent=2))
    result = doit(root, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DELIVERED: My results" in result.stdout
    assert "claims: 1/1 supported by their evidence" in result.stdout
    return root


def test_deliverable_is_complete_and_its_manifest_true(delivered: Path) -> None:
    out = delivered / "build" / "deliver"
    for name in ("paper.md", "paper.html", "claims.json", "DISCLOSURES.md", "disclosures.json",
                 "verify/report.json", "figures/results/figure.png",
                 "figures/results/figure.provenance.json", "figures/results/source_data.csv",
                 "tables/results/table.md", "MANIFEST.json", "EVIDENCE.json"):
        assert (out / name).is_file(), name
    manifest = json.loads((out / "MANIFEST.json").read_text())
    for name, entry in manifest["files"].items():
        assert digest_file(out / name) == entry["digest"], name
    paper = (out / "paper.md").read_text()
    claim = json.loads((out / "claims.json").read_text())["claims"][0]
    assert claim["formatted"] in paper and claim["classification"] == "effect"
    # Every number in the paper's prose comes from a claim, a figure or a table.
    prose = re.sub(r"\|.*\|", "", paper)  # table rows come from table.md
    numbers = set(re.findall(r"\d+\.\d+", prose))
    allowed = {claim["formatted"], claim["ci_formatted"]}
    assert all(any(n in a for a in allowed) for n in numbers), numbers


def test_no_op_deliver_rebuilds_nothing_but_prints_the_summary(delivered: Path) -> None:
    again = doit(delivered, "deliver")
    assert again.returncode == 0
    ran = [line for line in again.stdout.splitlines() if line.startswith(".  ")]
    assert ran == [".  deliver:summary"], ran
    assert "DELIVERED" in again.stdout


def test_summary_memo_never_prints_over_an_edited_output(delivered: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The summary is memoised by the stat of what it reads; a hand edit is still refused."""
    from evidence.core.errors import EvidenceError
    from evidence.deliver.summary import summary_action

    copy = tmp_path / "copy"
    shutil.copytree(delivered, copy, symlinks=True)
    for folder, _, files in os.walk(copy):  # nothing racily clean: the text is memoised
        for name in [*files, "."]:
            os.utime(os.path.join(folder, name), ns=(10**18, 10**18))
    summary_action(str(copy))
    first = capsys.readouterr().out
    summary_action(str(copy))  # from the memo: the same text
    assert capsys.readouterr().out == first and "DELIVERED" in first
    claims = copy / "build/claims/claims.json"
    claims.write_text(claims.read_text().replace("My results", "Edited by hand"))
    with pytest.raises(EvidenceError, match=r"claims\.json"):
        summary_action(str(copy))


DECOYS = """
# Notes (2024)

Built with Python 3.11 and torch 2.13 on 2024-05-01; see [3] and doi:10.1000/xyz123,
pp. 12-34, Table 2, Section 3.2 and arXiv 2101.00001.

```
python train.py --lr 0.1 --epochs 8
```

The model beats its shuffled-label control by {stated}.
"""


def test_drift_among_decoys_fails_then_a_waiver_passes(delivered: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(delivered, root, symlinks=True)
    claim = json.loads((root / "build/deliver/claims.json").read_text())["claims"][0]
    stale = f"{100 * claim['value'] + 5:.1f} points"
    (root / "notes").mkdir()
    (root / "notes" / "draft.md").write_text(DECOYS.format(stated=stale))
    result = doit(root, "deliver")
    assert result.returncode == 1
    drift = [line for line in result.stdout.splitlines() if line.startswith("DRIFT")]
    text = DECOYS.format(stated=stale)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "beats" in row)
    assert len(drift) == 1 and drift[0].startswith(
        f"DRIFT notes/draft.md:{line}:{text.splitlines()[line - 1].index(stale) + 1}: states '{stale}' "
        f"for claim model_beats_control (value), the evidence says +{100 * claim['value']:.1f} points (")
    assert "the sentence names" in drift[0]  # then: why this claim
    evidence = json.loads((root / "EVIDENCE.json").read_text())
    evidence["waivers"] = [{"file": "notes/draft.md", "line": line, "claim": "model_beats_control",
                            "reason": "the draft quotes last month's number on purpose"}]
    (root / "EVIDENCE.json").write_text(json.dumps(evidence))
    waived = doit(root, "deliver")
    assert waived.returncode == 0, waived.stdout
    assert "waived: 1" in waived.stdout
    disclosures = (root / "build/deliver/DISCLOSURES.md").read_text()
    assert "last month's number on purpose" in disclosures


def test_hand_typed_number_in_the_paper_fails(delivered: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(delivered, root, symlinks=True)
    source = root / "paper" / "paper.md.j2"
    source.write_text(source.read_text() + "\nOur model is 97.3% accurate.\n")
    result = doit(root, "deliver")
    assert result.returncode == 1
    line = len(source.read_text().splitlines())
    assert f"HAND-TYPED paper/paper.md.j2:{line}: '97.3%'" in result.stdout


def test_planted_integrity_problem_is_disclosed_next_to_its_claim(delivered: Path,
                                                                  tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(delivered, root, symlinks=True)
    claim = json.loads((root / "build/deliver/claims.json").read_text())["claims"][0]
    victim = root / "runs" / claim["runs"][0]["run_id"] / "model.safetensors"
    victim.chmod(0o644)
    data = bytearray(victim.read_bytes())
    data[-1] ^= 0xFF
    victim.write_bytes(bytes(data))
    victim.chmod(0o444)
    result = doit(root, "deliver")
    assert result.returncode == 0  # audit and disclose, never block
    disclosures = json.loads((root / "build/deliver/disclosures.json").read_text())["findings"]
    integrity = [d for d in disclosures if claim["runs"][0]["run_id"] in json.dumps(d)
                 and "model.safetensors" in d["message"]]
    assert integrity and "model_beats_control" in integrity[0]["claims"]
    assert integrity[0]["severity"] == "serious"
    paper = (root / "build/deliver/paper.md").read_text()
    assert "model.safetensors" in paper  # shown next to the claim it affects


CHECK_SCRIPT = """
<script>
window.addEventListener('load', function () {
  var images = Array.from(document.images);
  var quotes = Array.from(document.querySelectorAll('blockquote'));
  var result = {
    images: images.length,
    loaded: images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length,
    disclosures_visible: quotes.filter(function (q) {
      return q.offsetHeight > 0 && getComputedStyle(q).display !== 'none'; }).length,
    links: Array.from(document.links).map(function (a) { return a.getAttribute('href'); })
  };
  var pre = document.createElement('pre');
  pre.id = 'evidence-check';
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
});
</script>
"""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--allow-file-access-from-files"]


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="Debian's chromium is not installed (.ci/run installs it)")
def test_paper_as_a_person_sees_it_in_chromium(delivered: Path, tmp_path: Path) -> None:
    out = delivered / "build" / "deliver"
    findings = json.loads((out / "disclosures.json").read_text())["findings"]
    # A disclosure next to the claim: plant a harmless one by re-rendering with a dirty-tree finding
    # already present in this temp project (EVIDENCE.json edited after `evidence init` committed
    # the template -> runs trained from a dirty tree).
    assert findings, "the temp project's tree is dirty, so its runs get a disclosure"
    probe = out / "paper.probe.html"
    probe.write_text((out / "paper.html").read_text().replace("</body>", CHECK_SCRIPT + "</body>"))
    profile = tmp_path / "profile"
    dom = subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                          "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                         capture_output=True, text=True, timeout=120)
    match = re.search(r'<pre id="evidence-check">(.*?)</pre>', dom.stdout, re.S)
    assert match, dom.stderr[-2000:]
    import html as html_module

    result = json.loads(html_module.unescape(match.group(1)))
    assert result["images"] >= 1 and result["loaded"] == result["images"]
    assert result["disclosures_visible"] >= 1
    provenance_links = [h for h in result["links"] if "provenance" in h or "source_data" in h]
    assert provenance_links
    for href in provenance_links:
        assert (out / href).is_file(), href
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "paper.png"
    subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                    "--window-size=1000,2200", f"--screenshot={shot}", (out / "paper.html").as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 10_000
    probe.unlink()


def test_a_waived_hand_typed_number_is_counted_and_disclosed_as_what_it_is(delivered: Path,
                                                                           tmp_path: Path) -> None:
    """Issue 29, item 14: reconcile said "1 waived" beside the summary's "waived: 0", and the
    disclosure read "Reconcile lets paper/paper.md.j2:N state claim hand_typed differently"."""
    root = tmp_path / "copy"
    shutil.copytree(delivered, root, symlinks=True)
    source = root / "paper" / "paper.md.j2"
    source.write_text(source.read_text() + "\nOur model is 97.3% accurate.\n")
    line = len(source.read_text().splitlines())
    evidence = json.loads((root / "EVIDENCE.json").read_text())
    evidence["waivers"] = [{"file": "paper/paper.md.j2", "line": line, "claim": "hand_typed",
                            "reason": "the number of an earlier study, quoted"}]
    (root / "EVIDENCE.json").write_text(json.dumps(evidence))
    result = doit(root, "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ", 1 waived, no drift" in result.stdout
    assert "waived: 1;" in result.stdout  # the summary agrees with reconcile
    disclosures = (root / "build/deliver/DISCLOSURES.md").read_text()
    assert "state claim hand_typed" not in disclosures
    assert (f"paper/paper.md.j2:{line} states a hand-typed number ('97.3%'), not one taken from a "
            "claim; reconcile accepts it because: the number of an earlier study, quoted") in disclosures
