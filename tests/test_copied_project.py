"""A project copied elsewhere (``cp -a``) answers from its own files, never from the original's.

The engine memoises what it derives from a project's files in ``.evidence/cache/memo-*.json``;
a copy carries that folder along. Whatever it holds must not let the copy read the original:
after the copy's data file is edited, ``evidence why`` and ``doit train`` see the edit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import doit

pytestmark = pytest.mark.slow  # end to end: trains a model and runs doit over a project


def age_tree(root: Path, seconds: float = 120.0) -> None:
    """Every file's mtime into the past, out of the memo's racily-clean window."""
    past = time.time() - seconds
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if not path.is_symlink():
                os.utime(path, (past, past))


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "--project", str(root), *args],
                          capture_output=True, text=True, env={**os.environ, "EVIDENCE_PROGRESS": "off"})


def test_a_copied_project_sees_an_edit_of_its_own_data(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    done = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root), "--template", "files"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    experiment = root / "experiments" / "main.toml"  # short runs, one seed
    text = experiment.read_text("utf-8").replace("seeds = [0, 1, 2, 3, 4]", "seeds = [0]")
    text = text.replace("epochs = 60", "epochs = 2")
    experiment.write_text(text, "utf-8")
    age_tree(root)
    trained = doit(root, "train")
    assert trained.returncode == 0, trained.stdout + trained.stderr
    age_tree(root)
    assert "-- train:main/linear-s0" in doit(root, "train").stdout  # a no-op: the memo is written
    assert list((root / ".evidence" / "cache").glob("memo-data-identity.json"))

    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)  # cp -a: stats kept, new inodes
    csv = copy / "data" / "measurements.csv"
    lines = csv.read_text("utf-8").splitlines(keepends=True)
    lines[1] = "99.0000" + lines[1][len("59.0000"):]
    csv.write_text("".join(lines), "utf-8")
    age_tree(copy, 60.0)

    why = cli(copy, "why", "train:main/linear-s0")
    assert "up to date" not in why.stdout, why.stdout
    assert "data.files_digest" in why.stdout, why.stdout
    retrained = doit(copy, "train")
    assert retrained.returncode == 0, retrained.stdout + retrained.stderr
    assert ".  train:main/linear-s0" in retrained.stdout, retrained.stdout
    # and the original is untouched: still up to date on its own data
    assert "up to date" in cli(root, "why", "train:main/linear-s0").stdout
