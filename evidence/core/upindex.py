"""The project-level up-to-date index: "nothing changed" answered by one pass of stats.

Why it exists: a no-op ``doit deliver`` used to rebuild every task (expand the experiments,
survey the store, select every figure's runs, read every sidecar) and then ask each task
whether it is up to date (stat its file dependencies, compare its targets with their recorded
digests, check the deliverable against its manifest): at 10,000 runs that was 2.6x what plain
doit needs for a graph of the same size. Yet on a no-op the answer to all of it is that nothing
changed.

So when a doit call finds *every* task of the project up to date (a true no-op: nothing ran but
the tasks that run on every call), it records the index: the stat signature (size, mtime,
inode, ctime) of every file and folder any task could have read, and the task graph's shape.
The next call stats those paths, and if every signature is what was recorded, builds the task
list from the index instead of from the project (:mod:`evidence.tasks.quick`): the same tasks,
each up to date, without per-task work. Any difference, anywhere, and the call takes the full
path, which records a new index once it finds everything up to date again.

What the index watches (:func:`watched_paths`), so that no input can change unseen:

* every ``file_dep`` and every target of every task;
* every input file of every value the builders memoised (:mod:`evidence.core.memo`: experiment
  files, trainer sources, data files, specs and sidecars);
* the whole run store, the whole ``build/`` folder, and the project's source folders
  (experiments, figures, tables, trainers, paper), file by file;
* every folder above any of those, up to the project root, and the root's own files (a file
  added or removed changes its folder's signature);
* the engine's own source files, git's ``HEAD``, index and refs (uncommitted inputs are
  disclosed), and doit's database (``doit forget`` changes it);
* and, outside the file system, what the task graph also depends on: ``EVIDENCE_*``,
  ``PYTHONPATH`` and ``PATH`` (a TeX toolchain appearing), the interpreter, and the date (which
  prices are stale).

The signatures are kept in their own binary file (the index names its digest), in the index's
path order: what a person edits (sources, specs, the engine) first, ``build/`` next, the run store
last. A check compares them block by block and stops at the first difference, so a call after
an edit pays a few hundred stats, not one per sealed file, before it takes the full path, and
``EVIDENCE_INDEX_TRACE=1`` names the file that changed.

Two of git's index rules keep it honest: a path modified within :data:`RACY_SECONDS` of the
recording is "racily clean" and the index is not recorded (the next no-op records it), and the
index is only a cache: unreadable, from another version, or deleted, it is simply not used.
``EVIDENCE_INDEX=0`` turns it off; ``EVIDENCE_INDEX_TRACE=1`` prints, on stderr, whether the
index answered and if not, why.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from array import array
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evidence.core.hashing import digest_bytes, write_bytes_atomic
from evidence.core.project import Project

INDEX_VERSION = 3
#: See :data:`evidence.core.memo.RACY_SECONDS`.
RACY_SECONDS = 2.0
#: Folders of a project that are read whole (a new file in one may be a new input).
SOURCE_FOLDERS = ("experiments", "figures", "tables", "trainers", "paper")
#: Never watched: engine state (but for doit's database), git's objects, byte code.
SKIPPED_NAMES = frozenset({".git", ".evidence", "__pycache__"})

#: Variables that change how the index is used, not what the graph is.
NOT_SURROUNDINGS = ("EVIDENCE_INDEX", "EVIDENCE_INDEX_TRACE", "EVIDENCE_PROGRESS", "EVIDENCE_WARM_WORKER",
                    "EVIDENCE_WARM_WORKER_IDLE", "EVIDENCE_WARM_DOIT", "EVIDENCE_WARM_DOIT_IDLE",
                    "EVIDENCE_LAUNCH")

Stat = list[int] | None


def enabled() -> bool:
    return os.environ.get("EVIDENCE_INDEX", "1").strip().lower() not in ("0", "false", "no", "off")


def index_file(project: Project) -> Path:
    return project.state_dir / "upindex.json"


def signatures_file(project: Project) -> Path:
    """The recorded signature of every watched path, 4 int64 each in the index's path order."""
    return project.state_dir / "upindex-signatures.bin"


def database_file(project: Project) -> Path:
    """Where the signature of doit's database goes, apart from the index: doit rewrites its
    database on every call that runs a task (the summary runs on every ``doit deliver``), and
    rewriting the whole index for that cost a no-op at 10,000 runs a tenth of a second."""
    return project.state_dir / "upindex-database.json"


def doit_database(project: Project) -> Path:
    return project.state_dir / "doit.sqlite3"


def stat_of(path: str) -> Stat:
    """[size, mtime_ns, inode, ctime_ns] of ``path``, None when it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


def surroundings(project: Project) -> dict[str, Any]:
    """What the task graph depends on besides files (see the module docstring)."""
    env = {k: v for k, v in os.environ.items()
           if (k.startswith("EVIDENCE_") and k not in NOT_SURROUNDINGS) or k in ("PYTHONPATH", "PATH")}
    return {"env": dict(sorted(env.items())), "python": sys.executable, "version": sys.version,
            "day": datetime.now(UTC).date().isoformat(), "root": str(project.root)}


def _walk(folder: str, into: set[str]) -> None:
    """Every folder and file under ``folder`` (skipping :data:`SKIPPED_NAMES`)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    into.add(folder)
    for entry in entries:
        if entry.name in SKIPPED_NAMES:
            continue
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, into)
        else:
            into.add(entry.path)


def _git_files(root: Path) -> list[str]:
    """HEAD, the index, the ref HEAD names and packed-refs of the repository holding ``root``."""
    for folder in (root, *root.parents):
        git = folder / ".git"
        if git.exists():
            break
    else:
        return []
    if git.is_file():  # a worktree or submodule: ".git" names the real folder
        text = git.read_text("utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            git = (folder / text.split(":", 1)[1].strip()).resolve()
    paths = [git / "HEAD", git / "index", git / "packed-refs"]
    try:
        head = (git / "HEAD").read_text("utf-8").strip()
    except OSError:
        head = ""
    if head.startswith("ref:"):
        paths.append(git / head.split(":", 1)[1].strip())
    return [str(p) for p in paths]


def watched_paths(project: Project, declared: Iterable[str]) -> list[str]:
    """Every path the index watches (see the module docstring), sorted."""
    from evidence.core import memo

    root = str(project.root)
    found: set[str] = set()
    for folder in (project.runs_dir, project.build_dir,
                   *(project.root / name for name in SOURCE_FOLDERS)):
        _walk(str(folder), found)
    found.update(os.path.abspath(p) for p in declared)
    found.update(os.path.abspath(p) for p in memo.input_paths())
    with os.scandir(root) as entries:
        found.update(e.path for e in entries if e.name not in SKIPPED_NAMES and not e.is_dir())
    engine = Path(__file__).resolve().parents[1]
    for here, dirs, files in os.walk(engine):
        dirs[:] = [d for d in dirs if d not in SKIPPED_NAMES]
        found.update(os.path.join(here, name) for name in files if name.endswith(".py"))
    for path in list(found):  # every folder above a watched path, up to the root
        if SKIPPED_NAMES.intersection(path[len(root):].split(os.sep)):
            continue  # engine state (a memo's data cache, say): its folder changes on every call
        parent = os.path.dirname(path)
        while parent.startswith(root) and parent not in found:
            found.add(parent)
            parent = os.path.dirname(parent)
    found.add(root)
    # git's refs and index, not its folder (every `git status` creates and removes a lock in it)
    found.update(_git_files(project.root))
    found.discard(str(doit_database(project)))
    bulk = (str(project.build_dir) + os.sep, str(project.runs_dir) + os.sep)
    # what a person edits first, the run store last: a check stops at the first difference
    return sorted(found, key=lambda path: (path.startswith(bulk[1]), path.startswith(bulk[0]), path))


#: Paths compared per block when checking: a difference stops the check at the end of its block.
BLOCK = 512
MISSING = (-1, -1, -1, -1)


def signatures(paths: list[str]) -> array[int]:
    """[size, mtime_ns, inode, ctime_ns] of every path, one after the other (-1s if missing)."""
    values: array[int] = array("q")
    extend, stat = values.extend, os.stat
    for path in paths:  # one stat per watched path is the whole cost of a no-op's check: keep it lean
        try:
            st = stat(path)
        except OSError:
            extend(MISSING)
            continue
        extend((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
    return values


def newest(values: array[int]) -> int:
    """The newest mtime or ctime among signatures (what the racy rule looks at)."""
    return max((max(values[i + 1], values[i + 3]) for i in range(0, len(values), 4)), default=0)


def first_difference(paths: list[str], recorded: array[int]) -> str | None:
    """The first watched path whose signature is not the recorded one, or None.

    Paths are checked block by block in the index's order (sources and the engine first, the
    run store last), so an incremental build learns what changed after a few stats instead of
    one per sealed file."""
    for start in range(0, len(paths), BLOCK):
        block = paths[start:start + BLOCK]
        now = signatures(block)
        if now != recorded[4 * start:4 * (start + len(block))]:
            for i, path in enumerate(block):
                if now[4 * i:4 * i + 4] != recorded[4 * (start + i):4 * (start + i) + 4]:
                    return path
    return None


def record(project: Project, paths: list[str], tasks: list[dict[str, Any]]) -> bool:
    """Write the index: ``paths``' signatures taken now, the graph, the surroundings. Not
    written (False) when a path is racily clean."""
    values = signatures(paths)
    if newest(values) >= time.time_ns() - int(RACY_SECONDS * 1e9):
        discard(project)
        return False
    raw = values.tobytes()
    table = digest_bytes(raw)
    doc = {"version": INDEX_VERSION, "surroundings": surroundings(project), "table": table,
           "paths": "\n".join(paths), "tasks": tasks}
    try:
        index_file(project).parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(signatures_file(project), raw)  # first: the index names its digest
        write_bytes_atomic(index_file(project), json.dumps(doc, separators=(",", ":")).encode("utf-8"))
    except (OSError, TypeError, ValueError):
        discard(project)
        return False
    return record_database(project, table)


def record_database(project: Project, table: str) -> bool:
    """Record doit's database as it is now, for the index whose signatures digest to ``table``."""
    doc = {"table": table, "database": stat_of(str(doit_database(project)))}
    try:
        write_bytes_atomic(database_file(project), json.dumps(doc).encode("utf-8"))
    except OSError:
        discard(project)
        return False
    return True


class Fresh:
    """A recorded index that still describes the project: its graph, and what to re-record it with."""

    def __init__(self, doc: dict[str, Any], paths: list[str]) -> None:
        self.tasks: list[dict[str, Any]] = doc["tasks"]
        self.table: str = doc["table"]
        self.paths = paths


def fresh(project: Project) -> Fresh | None:
    """The index, if every watched path and the surroundings are as recorded; else None."""
    return check(project)[0]


def check(project: Project) -> tuple[Fresh | None, str]:
    """:func:`fresh`, and in words why the index cannot answer (for ``EVIDENCE_INDEX_TRACE``)."""
    if not enabled():
        return None, "turned off (EVIDENCE_INDEX=0)"
    try:
        doc = json.loads(index_file(project).read_bytes())
    except (OSError, ValueError):
        return None, "no index recorded yet (one is recorded after a call that finds everything up to date)"
    if not isinstance(doc, dict) or doc.get("version") != INDEX_VERSION:
        return None, "the index is from another version"
    recorded, now = doc.get("surroundings") or {}, surroundings(project)
    changed = sorted(k for k in {*recorded, *now} if recorded.get(k) != now.get(k))
    if changed:
        return None, f"changed since the index was recorded: {', '.join(changed)}"
    try:
        database = json.loads(database_file(project).read_bytes())
    except (OSError, ValueError):
        database = None
    if not isinstance(database, dict) or database.get("table") != doc.get("table") \
            or database.get("database") != stat_of(str(doit_database(project))):
        return None, "doit's database changed (doit forget, ignore, or another doit call)"
    if not isinstance(doc.get("paths"), str) or not isinstance(doc.get("tasks"), list):
        return None, "the index is unreadable"
    paths = doc["paths"].split("\n")
    try:
        raw = signatures_file(project).read_bytes()
    except OSError:
        raw = b""
    if digest_bytes(raw) != doc.get("table") or len(raw) != 32 * len(paths):
        return None, "the index's signatures are missing or not the recorded ones"
    taken: array[int] = array("q")
    taken.frombytes(raw)
    changed_path = first_difference(paths, taken)
    if changed_path is not None:
        return None, f"{project.relative(Path(changed_path))} changed (one of {len(paths)} paths watched)"
    return Fresh(doc, paths), f"nothing changed ({len(paths)} paths watched): tasks from the index"


def discard(project: Project) -> None:
    for path in (index_file(project), database_file(project), signatures_file(project)):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
