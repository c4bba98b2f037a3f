"""Reproduction from a clean copy: full, presentation-only and per-claim, and from a git clone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, doit

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})


def repro(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "repro", "-j", "2", *args], cwd=root,
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off"})


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project from `evidence init`, delivered, with its evidence committed to git."""
    root = tmp_path_factory.mktemp("committed") / "paper"
    subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)], check=True,
                   capture_output=True)  # a git repository with the template committed
    built = doit(root, "-n", "2", "deliver")
    assert built.returncode == 0, built.stdout + built.stderr
    (root / ".gitignore").write_text(".evidence/\nbuild/*\n!build/deliver/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "evidence")
    return root


def test_full_reproduction_is_bit_identical(committed: Path) -> None:
    result = repro(committed)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((committed / "build/repro/report.json").read_text())
    assert report["summary"].startswith("10/10 runs bit-identical, 1/1 claims reproduced")
    assert report["environment"]["same"] is True
    assert all(f["identical"] for f in report["files"])
    assert "REPRODUCED bit-identically: 10/10 runs bit-identical" in result.stdout


def test_presentation_path_reuses_intact_runs_only(committed: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(committed, root, symlinks=True)
    runs = sorted(p for p in (root / "runs").iterdir())
    victim = runs[0] / "results.json"
    victim.chmod(0o644)
    victim.write_text(victim.read_text().replace('"seed"', '"seed" ', 1))
    result = repro(root, "--presentation")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((root / "build/repro/report.json").read_text())
    # The tampered run fails fsck, so it is retrained, not reused; the other nine are reused.
    assert report["summary"].startswith("0/1 runs bit-identical")
    assert report["summary"].endswith("9 runs reused")
    [fresh] = [r for r in report["runs"] if not r["reused"]]
    assert fresh["run_id"] == runs[0].name and fresh["files_differ"] == ["results.json"]


def test_claim_path_and_a_drifted_claim_is_not_reproduced(committed: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(committed, root, symlinks=True)
    claims_file = root / "build/deliver/claims.json"
    claims = json.loads(claims_file.read_text())
    claims["claims"][0]["value"] += 0.05  # the committed paper claims more than the evidence gives
    claims_file.write_text(json.dumps(claims))
    result = repro(root, "--claim", "model_beats_control")
    assert result.returncode == 1
    report = json.loads((root / "build/repro/report.json").read_text())
    [claim] = report["claims"]
    assert claim["within_tolerance"] is False and claim["classification_unchanged"] is True
    assert "NOT REPRODUCED" in result.stdout


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_clean_clone_of_this_repository_reproduces_on_the_quick_path(tmp_path: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "build/deliver/claims.json", "runs"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout
    if "build/deliver/claims.json" not in listed:
        pytest.skip("the bundled example's evidence is not committed yet")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    result = repro(clone, "--presentation")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "REPRODUCED" in result.stdout
