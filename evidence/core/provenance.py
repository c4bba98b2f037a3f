"""Where an artifact came from: the git state (through GitPython) and the environment.

Provenance is recorded, never trusted for identity: run keys are computed from content
digests, and provenance says which commit, which tree state and which software produced a
run or a figure, so that audits ("trained from a dirty tree", "two environments in one
claim") can be made later from the record alone.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from evidence.core.project import GENERATED_ARTIFACT_FILES, STAGING_PREFIX

#: Packages whose versions can change numbers or bytes; recorded in every provenance record.
TRACKED_PACKAGES = (
    "evidence", "torch", "numpy", "scipy", "pandas", "matplotlib", "scikit-learn",
    "safetensors", "jinja2", "doit", "blake3", "pillow",
)


def git_state(root: str | os.PathLike[str]) -> dict[str, Any]:
    """Commit, branch and dirty flag of the repository holding ``root`` (None if not in git).

    "Dirty" means uncommitted changes (staged, unstaged or untracked) to *inputs*: code,
    configs, specs, paper sources, documents. Generated outputs (build/, runs/, a figure's
    images and data; :meth:`Project.is_generated`) are left out: rebuilding them is not a change
    of the science, and counting them made every rebuilt deliverable "dirty".

    An untracked file is an input only where the build reads it (:func:`_untracked_input`): in a
    folder the engine reads whole, at the root by name, or in a top-level folder that holds
    tracked files (a loader's data folder, docs/). A ``doit.log`` or a logger's folder beside the
    project is neither tracked nor read, and made every run "dirty".

    ``inputs_commit`` is the last commit that changed an input: what a generated output
    records, so that committing the outputs themselves (a commit that changes no input) does not
    make them out of date.
    """
    opened = _open(root)
    if isinstance(opened, str):
        return {"commit": None, "dirty": None, "branch": None, "error": opened}
    repo, commit, project, top = opened
    try:
        branch: str | None = repo.active_branch.name
    except TypeError:
        branch = None  # detached head

    tracked_folders = _by_commit(repo, commit, ("tracked", str(project.root), str(top)),
                                 lambda: _tracked_folders(repo, project.root, top))

    def is_input(repo_path: str, untracked: bool) -> bool:
        if "__pycache__/" in repo_path:
            return False
        try:
            rel = (top / repo_path).relative_to(project.root).as_posix()
        except ValueError:
            return True  # outside the project (the engine's own code, say): an input
        if project.is_generated(rel):
            return False
        return not untracked or _untracked_input(rel, tracked_folders)

    changed = _changed_files(repo, project, top)
    dirty_files = sorted(p for p, code in changed.items() if is_input(p, code == "??"))
    inputs_commit = _last_input_commit(repo, commit, project, top)
    return {"commit": commit, "branch": branch, "dirty": bool(dirty_files),
            "dirty_files": dirty_files[:50], "inputs_commit": inputs_commit}


def inputs_commit(root: str | os.PathLike[str]) -> str | None:
    """``git_state(root)["inputs_commit"]`` without asking ``git status``: the exports' date and
    the PDF's timestamp need only the last commit of the inputs, which HEAD's commit fixes (two
    of the four to six ``git status`` runs of a delivery asked for nothing else)."""
    opened = _open(root)
    return None if isinstance(opened, str) else _last_input_commit(*opened)


def _open(root: str | os.PathLike[str]) -> tuple[Any, str | None, Any, Path] | str:
    """The repository holding ``root``, HEAD's commit (None before the first), the project and
    the work tree's top folder; or why there is none."""
    try:
        import git
    except ImportError:  # pragma: no cover - GitPython is a hard dependency
        return "GitPython missing"
    try:
        repo = git.Repo(Path(root), search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return "not a git repository"
    try:
        commit: str | None = repo.head.commit.hexsha
    except ValueError:
        commit = None  # a repository without commits
    from evidence.core.project import Project

    return repo, commit, Project.at(root), Path(str(repo.working_tree_dir)).resolve()


def _last_input_commit(repo: Any, commit: str | None, project: Any, top: Path) -> str | None:
    """The last commit that changed an input (kept per HEAD commit for this process)."""
    found: str | None = _by_commit(repo, commit, ("inputs", str(project.root), str(top)),
                                   lambda: _inputs_commit(repo, project, top))
    return found


def committed_time(root: str | os.PathLike[str], commit: str) -> int:
    """The commit time (seconds since the epoch) of ``commit`` in the repository holding ``root``;
    a commit never changes, so it is read once per process."""
    import git

    repo = git.Repo(Path(root), search_parent_directories=True)
    when: int = _by_commit(repo, commit, ("committed",),
                           lambda: int(repo.commit(commit).committed_date))
    return when


#: (git folder, commit, question) -> its answer, for this process: what a commit's tree holds and
#: which commits its history holds never change, and each delivery step asks again (the
#: disclosure gate, the manifest, the exports' date, the dirty-inputs check: four or six
#: git_state calls per ``doit deliver``, each reading the tree and the log of HEAD through git
#: processes of their own). Only ``git status`` (the working tree) is asked every time.
_COMMIT_ANSWERS: dict[tuple[str, str, tuple[str, ...]], Any] = {}


def _by_commit(repo: Any, commit: str | None, question: tuple[str, ...], answer: Any) -> Any:
    """``answer()``, kept for this process by the repository, HEAD's commit and ``question``."""
    if commit is None:  # no commit yet: nothing is fixed
        return answer()
    key = (str(repo.git_dir), commit, question)
    if key not in _COMMIT_ANSWERS:
        _COMMIT_ANSWERS[key] = answer()
    return _COMMIT_ANSWERS[key]


def commits_not_in_history(root: str | os.PathLike[str], commits: Iterable[str]) -> dict[str, str]:
    """Each of ``commits`` that the history of HEAD of the repository holding ``root`` does not
    contain, with why (not in this repository, a shallow clone that does not reach it, or on no
    line of HEAD's history).

    Why: a run records the commit it was trained at; a copy of a project without that history
    (a fresh ``git init``, a squashed or shallow clone) cannot check out the code that produced
    it, and delivery must say so rather than cite a commit nobody can reach.
    """
    wanted = sorted(set(commits))
    if not wanted:
        return {}
    import git

    try:
        repo = git.Repo(Path(root), search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return {c: "the project is not in a git repository now" for c in wanted}
    if not repo.head.is_valid():
        return {c: "not in this repository (it has no commits)" for c in wanted}
    try:
        shallow = repo.git.rev_parse("--is-shallow-repository").strip() == "true"
    except git.GitCommandError:
        shallow = False
    missing = {}
    for commit in wanted:
        try:
            repo.git.merge_base("--is-ancestor", commit, "HEAD")
        except git.GitCommandError as error:
            if error.status == 1:
                missing[commit] = "in this repository but not in the history of HEAD"
            elif shallow:
                missing[commit] = "not in this repository, a shallow clone that does not reach it"
            else:
                missing[commit] = "not in this repository"
    return missing


#: Folders of a project that no output is built from (its tests, benchmarks and CI): a commit
#: that touches only them does not make the deliverable's recorded inputs commit move.
NOT_INPUTS = ("tests", "bench", ".ci")


def _generated_pathspecs(project: Any, base: str) -> list[str]:
    """git pathspecs that leave out what the build writes (:meth:`Project.is_generated`)."""
    return [*(f":(exclude,glob){base}{name}/**" for name in sorted(project.generated_folders)),
            *_artifact_outputs_pathspecs(base)]


def _artifact_outputs_pathspecs(base: str) -> list[str]:
    """git pathspecs that leave out the files a figure or table step writes beside its spec."""
    return [f":(exclude,glob){base}{kind}/*/{name}" for kind in ("figures", "tables")
            for name in (*sorted(GENERATED_ARTIFACT_FILES), "*.provenance.json", f"{STAGING_PREFIX}*/**")]


def _untracked_input(rel: str, tracked_folders: set[str]) -> bool:
    """Whether an untracked project-relative file is one the build reads (see :func:`git_state`)."""
    from evidence.core.project import READ_ROOT_FILES, READ_WHOLE_FOLDERS

    first, _, rest = rel.partition("/")
    if not rest:
        return first in READ_ROOT_FILES
    return first in READ_WHOLE_FOLDERS or first in tracked_folders


def _tracked_folders(repo: Any, root: Path, top: Path) -> set[str]:
    """The project's top-level folders that hold a file committed at HEAD (from its tree: no walk)."""
    try:
        tree = repo.head.commit.tree
        here = root.relative_to(top)
        if here != Path("."):
            tree = tree / here.as_posix()
        return {item.name for item in tree if item.type == "tree"}
    except (ValueError, KeyError, TypeError):
        return set()  # no commit yet, or the project is not in it


def _changed_files(repo: Any, project: Any, top: Path) -> dict[str, str]:
    """Repository paths with uncommitted changes (staged, unstaged or untracked), found by one
    ``git status`` that never enters the run store, build/ or the engine state.

    Why pathspecs: three GitPython diffs of the whole tree took 0.44 s at 10,000 committed runs,
    and every figure's provenance asks twice. git prunes its walk only for positive pathspecs
    (an exclusion still visits every file), so the walk is limited to the entries of the project
    root that are not generated, and to everything beside the project up to the repository's
    top (outside the project, everything is an input); the files a figure or table step writes
    beside its spec are left out by glob (an exclusion of the run store, which no positive
    pathspec reaches, would make git walk it again). Optional locks are off: asking never rewrites git's
    index (the up-to-date index watches it).
    """
    try:
        here = project.root.relative_to(top)
    except ValueError:
        return {}
    base = "" if here == Path(".") else here.as_posix() + "/"
    own = _entries(repo, top, here) - project.generated_folders - {".git"}
    specs = [f":(literal){base}{name}" for name in own]
    while here != Path("."):
        specs += [f":(literal){(here.parent / name).as_posix()}"
                  for name in _entries(repo, top, here.parent) - {here.name, ".git"}]
        here = here.parent
    if not specs:
        return {}
    out = repo.git.status("--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--",
                          *specs, *_artifact_outputs_pathspecs(base),
                          env={"GIT_OPTIONAL_LOCKS": "0"}, strip_newline_in_stdout=False)
    return {entry[3:]: entry[:2] for entry in out.split("\0") if len(entry) > 3}


def _entries(repo: Any, top: Path, folder: Path) -> set[str]:
    """Names in ``folder`` (relative to the repository's top) now or at HEAD: a deleted file is
    an uncommitted change too."""
    names = {entry.name for entry in os.scandir(top / folder)} if (top / folder).is_dir() else set()
    try:
        commit = repo.head.commit.hexsha
    except ValueError:
        return names  # no commit yet
    return names | _by_commit(repo, commit, ("entries", str(top), folder.as_posix()),
                              lambda: _tree_names(repo, folder))


def _tree_names(repo: Any, folder: Path) -> set[str]:
    """Names in ``folder`` at HEAD (empty where HEAD does not hold it)."""
    try:
        tree = repo.head.commit.tree
        if folder != Path("."):
            tree = tree / folder.as_posix()
        return {item.name for item in tree}
    except (ValueError, KeyError, TypeError):
        return set()  # the folder is not in it


def _inputs_commit(repo: Any, project: Any, top: Path) -> str | None:
    """The last commit that changed a file of the project that is not generated (nor a test,
    a benchmark or CI configuration, see :data:`NOT_INPUTS`)."""
    try:
        prefix = project.root.relative_to(top).as_posix()
    except ValueError:
        return None
    base = "" if prefix == "." else prefix + "/"
    excluded = [*_generated_pathspecs(project, base),
                *(f":(exclude,glob){base}{name}/**" for name in NOT_INPUTS)]
    try:
        found = repo.git.log("-1", "--format=%H", "--", base or ".", *excluded).strip()
    except Exception:
        return None
    return found or None


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed versions of ``names`` (None for a package that is not installed).

    Once per process (as :func:`environment`): reading the installed distributions' metadata
    costs about 20 ms, and every figure's and table's sidecar asks. The warm doit
    (:mod:`evidence.tasks.warmdoit`) reads them before it forks and retires when an install
    changes a site-packages folder."""
    return dict(_installed_versions(names))


@cache
def _installed_versions(names: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    found: list[tuple[str, str | None]] = []
    for name in names:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((name, None))
    return tuple(found)


@cache
def environment() -> dict[str, Any]:
    """Python, platform, CPU and package versions: what "the same environment" compares."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "byteorder": sys.byteorder,
        "packages": package_versions(),
    }


def environment_fingerprint(env: dict[str, Any]) -> dict[str, Any]:
    """The parts of an environment record that can change results (for equality checks)."""
    return {"python": env.get("python"), "machine": env.get("machine"),
            "packages": env.get("packages"), "devices": env.get("devices")}


def execution_site() -> dict[str, Any]:
    """Where this process runs: a Slurm job (id, node, partition, how often it was requeued) or
    the local machine. Read from the scheduler's environment, so a run sealed by a cluster job
    says so in its provenance instead of naming only the node."""
    env = os.environ
    host = os.uname().nodename
    if env.get("SLURM_JOB_ID"):
        return {"kind": "slurm", "host": host, "job_id": env["SLURM_JOB_ID"],
                "array_task_id": env.get("SLURM_ARRAY_TASK_ID"),
                "node": env.get("SLURMD_NODENAME", host), "partition": env.get("SLURM_JOB_PARTITION"),
                "requeue_count": int(env.get("SLURM_RESTART_COUNT", "0") or 0),
                "cluster": env.get("SLURM_CLUSTER_NAME")}
    return {"kind": "local", "host": host}
