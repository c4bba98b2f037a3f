"""Incremental provenance exports: after one run changes, `doit deliver` builds the fragments of
what changed (the new run, the figure that uses it) and writes exactly the bytes an export from
nothing writes, and those of one prov document and one rocrate crate of everything.

The project is the benchmark's synthetic one (bench/projects.py: runs sealed through the store's
API, one grid value toggled to change exactly one run key), at a small N.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, doit

pytestmark = pytest.mark.slow  # end to end: runs doit over a project

N = 20
EXPORTS = ("prov.json", "ro-crate-metadata.json")


@pytest.fixture(scope="module")
def bench_projects() -> object:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import projects
    finally:
        sys.path.remove(str(REPO / "bench"))
    return projects


def exports_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("exports:"))


def test_one_changed_run_rebuilds_its_fragments_and_the_bytes_of_a_fresh_export(
        tmp_path: Path, bench_projects: object) -> None:
    from whole_exports import whole_crate, whole_prov

    from evidence.core import memo
    from evidence.core.project import Project
    from evidence.deliver.provexport import export

    root = tmp_path / "bench"
    bench_projects.make_evidence(root, N, git=True, workers=1)  # type: ignore[attr-defined]
    first = doit(root, "deliver")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert f"{N + N // 10} of the {N + N // 10} parts" in exports_line(first.stdout)
    project = Project.at(root)
    out = project.deliver_staging_dir  # where the exports step writes (published by the package step)
    before = {name: (out / name).read_bytes() for name in EXPORTS}
    # Fragments of files written within the memo's racy window were kept for that process only
    # (evidence.core.memo); once the files are older, an export keeps them all.
    time.sleep(memo.RACY_SECONDS + 0.1)
    assert export(project, out).built <= N + N // 10
    memo.save_all()
    assert export(project, out).built == 0
    memo.save_all()
    assert {name: (out / name).read_bytes() for name in EXPORTS} == before

    bench_projects.evidence_toggle(root)  # type: ignore[attr-defined]  # one run key changes
    again = doit(root, "deliver")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    # the new run and the figure that now uses it; the other runs and figures are kept
    assert f"2 of the {N + N // 10} parts" in exports_line(again.stdout)
    incremental = {name: (out / name).read_bytes() for name in EXPORTS}
    assert incremental != before
    runs = {e["@id"].split("/")[1] for e in json.loads(incremental["ro-crate-metadata.json"])["@graph"]
            if e["@id"].startswith("runs/")}
    assert runs == {p.name for p in (out / "runs").iterdir()} and len(runs) == N
    assert incremental["prov.json"].decode() == whole_prov(project)
    assert incremental["ro-crate-metadata.json"].decode() == whole_crate(project, out)

    # an export from nothing: no fragments, no sidecar summaries, no verified copies, no outputs
    for name in ("export-fragments", "export-sidecars", "verified-outputs"):
        (project.cache_dir / f"memo-{name}.json").unlink()
    shutil.rmtree(out / "runs")
    for name in EXPORTS:
        (out / name).unlink()
    fresh = doit(root, "deliver")
    assert fresh.returncode == 0, fresh.stdout[-3000:] + fresh.stderr[-3000:]
    assert f"{N + N // 10} of the {N + N // 10} parts" in exports_line(fresh.stdout)
    assert {name: (out / name).read_bytes() for name in EXPORTS} == incremental
    assert {name: (project.deliver_dir / name).read_bytes() for name in EXPORTS} == incremental  # published
