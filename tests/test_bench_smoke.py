"""Smoke run of the build-system benchmark (bench/harness.py), so that it cannot rot.

A small N, one repeat, evidence and plain doit only (no DVC or Snakemake install): the harness
must generate both projects, run every measure and write its results tables with the expected
rows. No timing is asserted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects

REPO = Path(__file__).resolve().parent.parent
N = 20


def rows(text: str, heading: str) -> list[list[str]]:
    """The data rows of the table under ``heading`` (cells stripped)."""
    section = text.split(heading, 1)[1]
    table = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        if line.startswith(f"| {N} |"):
            table.append([cell.strip() for cell in line.strip("|").split("|")])
    return table


def test_harness_smoke(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "harness.py"), "--sizes", str(N), "--repeats", "1",
         "--tools", "evidence", "doit", "--workdir", str(tmp_path / "work"), "--out", str(out),
         "--workers", "1"],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    text = out.read_text("utf-8")
    assert "measures the build system, not training" in text
    assert str(tmp_path) not in text  # no absolute paths of the machine in the report
    for heading in ("### No-op", "### Incremental", "### Full build"):
        table = rows(text, heading)
        assert [(r[1], r[2]) for r in table] == [("evidence", "`doit deliver`"),
                                                 ("plain doit", "`doit deliver`")], heading
        for row in table:
            assert float(row[3]) > 0 and row[5] == "1", row  # a median of one sample
    full = {r[1]: r for r in rows(text, "### Full build")}
    assert full["plain doit"][-1] == str(N + N // 10 + 1)  # the graph: N + N/10 + 1 tasks, all run
    noop = {r[1]: r for r in rows(text, "### No-op")}
    assert noop["plain doit"][-1] == "0"
    assert "#### Targets" in text
    # the incremental build split into the rebuilt tasks' own work and the overhead
    split = {r[1]: r for r in rows(text, "#### Own work and overhead")}
    assert sorted(split) == ["evidence", "plain doit"]
    for row in split.values():
        wall, work, overhead = (float(row[i]) for i in (2, 3, 4))
        assert 0 <= work < wall and overhead > 0 and abs(wall - work - overhead) < 0.01, row
    assert float(split["evidence"][3]) > 0  # rendering the changed figure takes measurable time
    assert int(split["evidence"][-1]) >= 2  # at least the changed figure's two steps ran


def test_every_script_keeps_the_sections_of_the_others(tmp_path: Path) -> None:
    """A section name with a hyphen (warm-worker) once vanished when another script wrote."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import common
    finally:
        sys.path.remove(str(REPO / "bench"))
    results = tmp_path / "results.md"
    common.update_section("warm-worker", "warm table\n", results)
    common.update_section("training", "training table\n", results)
    common.update_section("training", "training table, again\n", results)
    sections = common.read_sections(results)
    assert sections == {"warm-worker": "warm table\n", "training": "training table, again\n"}
