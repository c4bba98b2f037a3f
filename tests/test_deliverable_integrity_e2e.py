"""`doit deliver` end to end on a committed project: outputs edited by hand are rebuilt or refused
(named, never re-certified), a damaged run is not used, a clean clone rebuilds without changing a
committed file, and the LaTeX form of the paper is delivered (its PDF where TeX is installed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

pytestmark = pytest.mark.slow  # end to end: trains models and runs doit over a project

HAVE_TEX = bool((shutil.which("latexmk") and shutil.which("pdflatex")) or shutil.which("tectonic"))
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]


def git(root: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new project (Markdown and LaTeX paper), inputs committed, delivered, outputs committed."""
    root = tmp_path_factory.mktemp("committed") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", "--paper", "both", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    assert git(root, "status", "--porcelain") == ""  # init committed the template: the inputs
    result = doit(root, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "runs, figures, tables and the deliverable")
    assert git(root, "status", "--porcelain") == ""
    return root


def test_a_clean_clone_delivers_without_changing_a_committed_file(committed: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(committed), str(clone)], check=True)
    result = doit(clone, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DELIVERED" in result.stdout
    assert git(clone, "status", "--porcelain") == ""
    manifest = json.loads((clone / "build" / "deliver" / "MANIFEST.json").read_text())
    inputs_commit = git(committed, "rev-list", "--max-count=1", "HEAD~1").strip()
    assert manifest["source"] == {"inputs_commit": inputs_commit, "dirty": False, "dirty_files": []}


def test_outputs_edited_by_hand_are_rebuilt_or_refused_by_name(committed: Path) -> None:
    out = committed / "build" / "deliver"
    paper = (out / "paper.html").read_bytes()
    # 1. the paper edited after delivery: rebuilt, not re-certified
    (out / "paper.html").write_bytes(paper.replace(b"+", b"+9", 1))
    again = doit(committed, "deliver")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "REBUILD build/deliver/paper.html was changed after the build wrote it" in again.stdout
    assert (out / "paper.html").read_bytes() == paper
    # 2. an intermediate output (the resolved claims) edited: rebuilt before the paper uses it
    claims_file = committed / "build" / "claims" / "claims.json"
    claims = claims_file.read_text()
    claims_file.write_text(claims.replace('"supported": true', '"supported": false'))
    again = doit(committed, "deliver")
    assert again.returncode == 0 and "REBUILD build/claims/claims.json was changed" in again.stdout
    assert claims_file.read_text() == claims and (out / "paper.html").read_bytes() == paper
    # 3. a shipped copy edited: fsck names it against the manifest; deliver restores it
    data = out / "figures" / "results" / "source_data.csv"
    original = data.read_bytes()
    data.write_bytes(original + b"x,1\n")
    fsck = doit(committed, "fsck")
    assert fsck.returncode != 0
    assert "CORRUPT build/deliver/figures/results/source_data.csv differs from its digest in MANIFEST.json" \
        in fsck.stdout
    again = doit(committed, "deliver")
    assert again.returncode == 0, again.stdout + again.stderr
    assert data.read_bytes() == original and doit(committed, "fsck").returncode == 0
    # 4. a file the build did not write is never certified
    (out / "notes.txt").write_text("added by hand")
    refused = doit(committed, "deliver")
    assert refused.returncode != 0
    assert "build/deliver/notes.txt was not written by the build" in refused.stdout + refused.stderr
    assert "notes.txt" not in json.loads((out / "MANIFEST.json").read_text())["files"]
    (out / "notes.txt").unlink()
    assert doit(committed, "deliver").returncode == 0
    assert git(committed, "status", "--porcelain") == ""


def test_a_sealed_result_changed_in_size_is_not_used(committed: Path) -> None:
    """Refused by name, or quarantined and trained again by the store: never read as evidence."""
    run = sorted(p for p in (committed / "runs").iterdir() if p.is_dir() and not p.name.startswith("."))[0]
    results = run / "results.json"
    original = results.read_bytes()
    tampered = original.replace(b"0.", b"0.9", 1)  # a number changed, one byte longer
    os.chmod(results, 0o644)
    try:
        results.write_bytes(tampered)
        result = doit(committed, "deliver")
        said = result.stdout + result.stderr
        if result.returncode != 0:
            assert f"runs/{run.name}/results.json" in said and "is not used" in said
        else:
            assert "quarantine" in said and (run / "results.json").read_bytes() != tampered
        for data in committed.glob("*/*/source_data.csv"):
            assert run.name not in data.read_text() or (run / "results.json").read_bytes() != tampered
    finally:
        # back to the committed evidence (a retrained run has its own timings), then rebuilt
        git(committed, "checkout", "--", ".")
        git(committed, "clean", "-fdq", "runs")
    assert doit(committed, "deliver").returncode == 0
    assert git(committed, "status", "--porcelain") == ""


def test_the_latex_paper_is_delivered(committed: Path) -> None:
    out = committed / "build" / "deliver"
    claims_tex = (out / "claims.tex").read_text()
    assert r"\newcommand{\evModelBeatsControl}" in claims_tex
    source = (committed / "paper" / "paper.tex").read_text()
    assert r"\evModelBeatsControl" in source and r"\input{claims.tex}" in source
    files = json.loads((out / "MANIFEST.json").read_text())["files"]
    assert "claims.tex" in files
    if HAVE_TEX:
        assert (out / "paper.pdf").read_bytes().startswith(b"%PDF") and "paper.pdf" in files
    else:
        assert "paper.pdf" not in files


def test_an_uncommitted_input_is_disclosed_in_the_paper(committed: Path) -> None:
    template = committed / "paper" / "paper.md.j2"
    original = template.read_text()
    template.write_text(original + "\nA sentence not yet committed.\n")
    try:
        result = doit(committed, "deliver")
        assert result.returncode == 0, result.stdout + result.stderr
        paper = (committed / "build" / "deliver" / "paper.md").read_text()
        assert "uncommitted changes to its" in paper and "paper/paper.md.j2" in paper
        assert "[DISCLOSURES.md](DISCLOSURES.md)" in paper
        manifest = json.loads((committed / "build" / "deliver" / "MANIFEST.json").read_text())
        assert manifest["source"]["dirty"] is True
        assert manifest["source"]["dirty_files"] == ["paper/paper.md.j2"]
        tex = (committed / "build" / "deliver" / "claims.tex").read_text()
        assert "uncommitted changes to its inputs (paper/paper.md.j2)" in tex.replace("\\_", "_")
    finally:
        template.write_text(original)
    assert doit(committed, "deliver").returncode == 0
    assert git(committed, "status", "--porcelain") == ""
