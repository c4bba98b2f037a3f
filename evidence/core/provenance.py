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
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

#: Packages whose versions can change numbers or bytes; recorded in every provenance record.
TRACKED_PACKAGES = (
    "evidence", "torch", "numpy", "scipy", "pandas", "matplotlib", "scikit-learn",
    "safetensors", "jinja2", "doit", "blake3", "pillow",
)


def git_state(root: str | os.PathLike[str]) -> dict[str, Any]:
    """Commit, branch and dirty flag of the repository holding ``root`` (None if not in git).

    Untracked files count as dirty only under folders that hold code or configuration: the
    evidence store itself (runs/) and generated output are expected to be untracked.
    """
    try:
        import git
    except ImportError:  # pragma: no cover - GitPython is a hard dependency
        return {"commit": None, "dirty": None, "branch": None, "error": "GitPython missing"}
    try:
        repo = git.Repo(Path(root), search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return {"commit": None, "dirty": None, "branch": None, "error": "not a git repository"}
    try:
        commit = repo.head.commit.hexsha
    except ValueError:
        commit = None  # a repository without commits
    try:
        branch: str | None = repo.active_branch.name
    except TypeError:
        branch = None  # detached head
    changed = {str(item.a_path) for item in repo.index.diff(None)}
    if commit:
        changed |= {str(item.a_path) for item in repo.index.diff("HEAD")}
    dirty_files = sorted(changed)
    return {"commit": commit, "branch": branch, "dirty": bool(dirty_files),
            "dirty_files": dirty_files[:50]}


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str | None]:
    """Installed versions of ``names`` (None for a package that is not installed)."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


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
