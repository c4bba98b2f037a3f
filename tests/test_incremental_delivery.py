"""An incremental delivery writes, byte for byte, what a delivery from nothing writes.

The edit loop rebuilds only what an edit reaches: memoised task dicts, reused run keys, kept
export fragments, verified copies. None of that may show in the deliverable: after a researcher's
edits (one experiment value, one figure spec, one sentence of the paper), each delivered
incrementally, every file of ``build/deliver/`` must be the one a clean full delivery of the same
sources writes. The project is the benchmark's synthetic one (bench/projects.py: runs sealed
through the store's API, one grid value toggled to change exactly one run key), at a small N.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, doit

from evidence.core import upindex

pytestmark = pytest.mark.slow  # end to end: runs doit over a project

N = 20


@pytest.fixture(scope="module")
def bench_projects() -> object:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import projects
    finally:
        sys.path.remove(str(REPO / "bench"))
    return projects


def deliverable(root: Path) -> dict[str, bytes]:
    out = root / "build" / "deliver"
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def rebuilt(stdout: str) -> set[str]:
    """Names of the tasks doit ran ('.  name' lines)."""
    return {line[3:].strip() for line in stdout.splitlines() if line.startswith(".  ")}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, path
    path.write_text(text.replace(old, new), "utf-8")


def test_incremental_deliveries_write_the_bytes_of_a_full_one(tmp_path: Path, bench_projects: object) -> None:
    root = tmp_path / "bench"
    bench_projects.make_evidence(root, N, git=True, workers=1)  # type: ignore[attr-defined]
    first = doit(root, "deliver")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]

    edits = [
        (lambda: bench_projects.evidence_toggle(root), "figures:b00001/source_data"),  # type: ignore[attr-defined]
        (lambda: edit(root / "figures" / "b00000" / "figure.toml", 'ylabel = "test accuracy"',
                      'ylabel = "accuracy on the test split"'), "figures:b00000/render"),
        (lambda: edit(root / "paper" / "paper.md.j2", "{{ figure(\"b00001\") }}",
                      "{{ figure(\"b00001\") }}\n\nThis sentence is the one the test edits."),
         "deliver:paper"),
    ]
    for index, (change, expected) in enumerate(edits):
        if index == 1:  # a look at the paper between edits: a no-op
            time.sleep(upindex.RACY_SECONDS + 0.2)
            assert rebuilt(doit(root, "deliver").stdout) == {"deliver:summary"}
        change()
        again = subprocess.run([sys.executable, "-m", "doit", "deliver"], cwd=root, text=True,
                               capture_output=True, timeout=600,
                               env={**os.environ, "EVIDENCE_PROGRESS": "off", "EVIDENCE_INDEX_TRACE": "1"})
        assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
        ran = rebuilt(again.stdout)
        assert expected in ran, ran
        # incremental: the figures the edit does not reach are not rebuilt
        assert not {name for name in ran if name.startswith("figures:")} - {
            "figures:b00000/source_data", "figures:b00000/render", "figures:b00001/source_data",
            "figures:b00001/render"}, ran
    incremental = deliverable(root)
    assert "This sentence is the one the test edits." in incremental["paper.md"].decode()

    # the same sources delivered from nothing: no outputs, no doit state, no memo, no index
    bench_projects.evidence_clean(root)  # type: ignore[attr-defined]
    shutil.rmtree(root / ".evidence")
    full = doit(root, "deliver")
    assert full.returncode == 0, full.stdout[-3000:] + full.stderr[-3000:]
    assert "figures:b00000/render" in rebuilt(full.stdout)
    fresh = deliverable(root)
    assert sorted(fresh) == sorted(incremental)
    differing = [name for name in fresh if fresh[name] != incremental[name]]
    assert differing == [], differing
