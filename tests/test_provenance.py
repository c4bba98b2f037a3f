"""git state of a project's inputs: what counts as uncommitted, on real repositories."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from evidence.core.provenance import git_state


def commit_all(repo: git.Repo, message: str = "inputs") -> None:
    repo.git.add(A=True)
    repo.git.commit("-q", "-m", message)


@pytest.fixture()
def project(tmp_path: Path) -> tuple[git.Repo, Path]:
    """A repository whose project lives in ``proj/``, beside some other code."""
    root = tmp_path / "proj"
    for rel, text in {"proj/experiments/a.toml": "x = 1\n", "proj/figures/f/figure.toml": "kind = 'bar'\n",
                      "proj/dodo.py": "\n", "tools/helper.py": "\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    repo = git.Repo.init(tmp_path)
    with repo.config_writer() as config:
        config.set_value("user", "name", "t")
        config.set_value("user", "email", "t@example.org")
    commit_all(repo)
    return repo, root


def test_a_clean_tree_is_not_dirty(project: tuple[git.Repo, Path]) -> None:
    repo, root = project
    state = git_state(root)
    assert state["dirty"] is False and state["dirty_files"] == []
    assert state["commit"] == repo.head.commit.hexsha == state["inputs_commit"]


def test_generated_outputs_and_a_render_staging_folder_are_not_inputs(project: tuple[git.Repo, Path]) -> None:
    _, root = project
    for rel in ("runs/abc/results.json", "build/deliver/paper.md", ".evidence/cache/memo-x.json",
                "figures/f/figure.png", "figures/f/source_data.csv", "figures/f/figure.provenance.json",
                "figures/f/.staging-figure-123/figure.png"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("generated")
    state = git_state(root)
    assert state["dirty"] is False, state["dirty_files"]


@pytest.mark.parametrize("change", ["untracked", "modified", "staged", "deleted", "outside"])
def test_every_kind_of_uncommitted_input_is_dirty(project: tuple[git.Repo, Path], change: str) -> None:
    repo, root = project
    expected = {"untracked": "proj/experiments/b.toml", "modified": "proj/experiments/a.toml",
                "staged": "proj/figures/g/figure.toml", "deleted": "proj/dodo.py",
                "outside": "tools/helper.py"}[change]
    path = root.parent / expected
    if change == "deleted":
        path.unlink()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("y = 2\n")
    if change == "staged":
        repo.git.add(str(path))
    state = git_state(root)
    assert state["dirty"] is True and state["dirty_files"] == [expected]


def test_committing_only_outputs_keeps_the_inputs_commit(project: tuple[git.Repo, Path]) -> None:
    repo, root = project
    before = git_state(root)["inputs_commit"]
    (root / "figures/f/figure.png").write_text("generated")
    commit_all(repo, "outputs")
    state = git_state(root)
    assert state["commit"] != before and state["inputs_commit"] == before


def test_untracked_files_the_build_does_not_read_are_not_inputs(project: tuple[git.Repo, Path]) -> None:
    """A log beside the project (doit.log, train.log, a logger's folder) is neither tracked nor
    read by the build: it must not make every run and the deliverable "dirty"."""
    _, root = project
    for rel in ("doit.log", "train.log", "lightning_logs/version_0/events.out", "wandb/run-1/log.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("epoch 1 loss 0.3\n")
    state = git_state(root)
    assert state["dirty"] is False, state["dirty_files"]


@pytest.mark.parametrize("rel", ["datasets/mine.py", "trainers/extra.py", "paper/intro.md", "README.md",
                                 "comparisons.toml", "docs/notes.md", "data/x.csv"])
def test_untracked_files_where_the_build_reads_are_inputs(project: tuple[git.Repo, Path], rel: str) -> None:
    """A new file in a folder the engine reads whole, a file it reads by name, a document
    reconcile checks, or a new file in a folder of tracked inputs (a loader's data/) is an
    uncommitted input."""
    _, root = project
    if rel == "data/x.csv":
        (root / "data").mkdir()
        (root / "data" / "tracked.csv").write_text("a\n1\n")
        commit_all(git.Repo(root.parent))
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text("x\n")
    state = git_state(root)
    assert state["dirty"] is True and state["dirty_files"] == [f"proj/{rel}"]


def test_answers_kept_by_commit_follow_head(project: tuple[git.Repo, Path]) -> None:
    """What a commit's tree and history hold is kept for the process by that commit: a new commit
    (a folder of tracked inputs added) and a reset back to the first one are each answered as
    asking git from nothing answers them."""
    from evidence.core import provenance

    repo, root = project
    first = git_state(root)
    start = repo.head.commit.hexsha
    (root / "data").mkdir()
    (root / "data" / "tracked.csv").write_text("a\n1\n")
    commit_all(repo, "data")
    (root / "data" / "x.csv").write_text("x\n")  # untracked, in a folder HEAD now tracks: an input
    (root / "experiments" / "a.toml").write_text("x = 3\n")
    state = git_state(root)
    assert state["commit"] == repo.head.commit.hexsha == state["inputs_commit"] != first["inputs_commit"]
    assert state["dirty_files"] == ["proj/data/x.csv", "proj/experiments/a.toml"]
    provenance._COMMIT_ANSWERS.clear()
    assert git_state(root) == state
    repo.git.reset("-q", "--hard", start)  # data/ is no tracked folder at the first commit
    assert git_state(root) == first
    provenance._COMMIT_ANSWERS.clear()
    assert git_state(root) == first


def test_the_inputs_commit_and_its_time_need_no_look_at_the_working_tree(
        project: tuple[git.Repo, Path]) -> None:
    """The exports' date and the PDF's timestamp ask only for the last commit of the inputs:
    :func:`inputs_commit` answers as git_state does, without ``git status`` (an unreadable index
    stops that, not this), and :func:`committed_time` is the commit's own time."""
    from evidence.core.provenance import committed_time, inputs_commit

    repo, root = project
    first = repo.head.commit.hexsha
    assert inputs_commit(root) == git_state(root)["inputs_commit"] == first
    (root / "figures/f/figure.png").write_text("generated")
    commit_all(repo, "outputs")
    (root / "experiments/a.toml").write_text("x = 3\n")  # dirty: not the commit's business
    assert inputs_commit(root) == git_state(root)["inputs_commit"] == first
    assert committed_time(root, first) == repo.commit(first).committed_date
    (Path(repo.git_dir) / "index").write_bytes(b"not an index")
    with pytest.raises(git.GitCommandError):
        git_state(root)
    assert inputs_commit(root) == first


def test_outside_git_there_is_no_inputs_commit(tmp_path: Path) -> None:
    from evidence.core.provenance import inputs_commit

    assert inputs_commit(tmp_path) is None and git_state(tmp_path)["commit"] is None
