"""`evidence init`: templates, its own git repository, and a .gitignore that matches the README."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import git
import pytest

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.ops.scaffold import init_project


def init(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(folder), *args],
                          capture_output=True, text=True)


def test_init_makes_a_repository_with_the_template_committed(tmp_path: Path) -> None:
    root = tmp_path / "paper"
    done = init(root)
    assert done.returncode == 0, done.stderr
    repo = git.Repo(root)
    assert not repo.is_dirty(untracked_files=True)  # `doit deliver` next trains from a clean tree
    assert "trainers/model.py" in repo.git.ls_files().splitlines()
    # README: runs/ and build/deliver/ are committed; .evidence/ and the rest of build/ are not
    assert "build/deliver/" in (root / "README.md").read_text()
    for path, ignored in ((".evidence/cache/x.json", True), ("build/figures/x.csv", True),
                          ("build/deliver/paper.html", False), ("runs/abc/results.json", False)):
        check = subprocess.run(["git", "check-ignore", "-q", path], cwd=root)
        assert (check.returncode == 0) == ignored, path


def test_files_template_is_a_regression_on_a_csv_of_its_own(tmp_path: Path) -> None:
    root = tmp_path / "mine"
    assert init(root, "--template", "files").returncode == 0
    assert (root / "data" / "measurements.csv").is_file()
    specs = expand_all(Project.at(root))
    data = specs[0].identity["data"]
    assert data["dataset"] == "measurements" and data["task"] == "regression"
    assert data["loader"]["file"] == "datasets/measurements.py"
    assert {s.variant for s in specs} == {"linear", "mlp", "control"} and len(specs) == 15


def test_init_inside_a_repository_does_not_nest_one(tmp_path: Path) -> None:
    git.Repo.init(tmp_path)
    init_project(tmp_path / "sub")
    assert not (tmp_path / "sub" / ".git").exists()


def test_unknown_template_and_clashes_are_refused_before_writing(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="unknown template"):
        init_project(tmp_path / "a", "nope")
    assert not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "dodo.py").write_text("# mine\n")
    with pytest.raises(BadInputError, match="refusing to overwrite"):
        init_project(tmp_path / "b")
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["dodo.py"]


@pytest.mark.parametrize("template", ["table", "files"])
@pytest.mark.parametrize("paper", ["markdown", "latex", "both"])
def test_readme_names_only_paper_files_this_layout_has(tmp_path: Path, template: str, paper: str) -> None:
    """The generated README sends the user to the paper source and output this --paper choice
    made (issue 29, item 15: a LaTeX project was told to edit paper.md.j2 and open paper.html)."""
    import re

    root = tmp_path / "p"
    written = init_project(root, template, git=False, paper=paper)
    readme = (root / "README.md").read_text("utf-8")
    assert "@@" not in readme
    for source in re.findall(r"paper/[\w./-]+\.(?:j2|tex)", readme):
        assert source in written, f"README names {source}, which --paper {paper} does not write"
    markdown, latex = paper in ("markdown", "both"), paper in ("latex", "both")
    assert ("paper/paper.md.j2" in readme) == markdown
    assert ("paper/paper.tex" in readme) == latex
    assert ("build/deliver/paper.html" in readme) == markdown
    assert ("build/deliver/paper.pdf" in readme) == latex
