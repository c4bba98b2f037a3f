"""What was found about each file of one large folder, kept while the file's stat is unchanged.

Why it exists: the deliverable holds a copy of every run record the paper uses (3,000 files at
1,000 runs), and three delivery steps each ask of every one of them a question whose answer
only changes when the file does (is this the copy the build wrote, what is its digest). Asked
file by file through :mod:`evidence.core.memo` (a record path to derive, two stats, a lookup)
that cost 25-80 ms per step per 1,000 runs on every one-value edit. A :class:`TreeState` keeps
the answers of one folder in one file and checks them with one ``os.stat`` per file in a tight
loop.

The rules are :mod:`evidence.core.memo`'s: an answer is used only while the file's size, mtime,
inode and change time are all what they were when it was found (no write keeps all four), a
file modified within :data:`evidence.core.memo.RACY_SECONDS` of that moment is racily clean and
its answer is kept for this process only, and the state is only a cache (missing, unreadable,
from another version or written for another folder, it is empty; deleting ``.evidence/`` loses
nothing). Answers must be JSON.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from evidence.core.hashing import digest_bytes
from evidence.core.project import Project

TREESTAT_VERSION = 1
Stat = tuple[int, int, int, int]


def stat_of(path: str) -> Stat | None:
    """(size, mtime_ns, inode, ctime_ns) of a file, None if it is not a file."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def walk(folder: Path) -> list[str]:
    """Every file under ``folder`` as a '/'-separated relative name, in path order (the order of
    ``sorted(name.split('/'))``, which is the order of the deliverable's manifest)."""
    found: list[str] = []
    base = str(folder)
    cut = len(base) + 1
    for current, dirs, files in os.walk(base):
        dirs.sort()
        rel = current[cut:].replace(os.sep, "/")
        found += [f"{rel}/{name}" if rel else name for name in files]
    found.sort(key=lambda name: name.split("/"))
    return found


class TreeState:
    """The answers found about the files of ``folder`` for one ``purpose``."""

    def __init__(self, project: Project, folder: Path, purpose: str) -> None:
        self.folder = folder
        rel = os.path.relpath(folder, project.root)
        self.path = project.cache_dir / f"tree-{purpose}-{digest_bytes(rel.encode('utf-8'))[:16]}.json"
        self._identity = _identity(folder)
        self._entries: dict[str, list[Any]] | None = None
        self._volatile: dict[str, list[Any]] = {}
        self._dirty = False

    def _load(self) -> dict[str, list[Any]]:
        from evidence.core.memo import read_cache_file

        if self._entries is None:
            self._entries = read_cache_file(self.path, {"version": TREESTAT_VERSION,
                                                        "folder": self._identity}, "files")
        return self._entries

    def known(self, name: str, stat: Stat | None) -> tuple[bool, Any]:
        """``(True, answer)`` if ``name`` has an answer found while its stat was ``stat``."""
        if stat is None:
            return False, None
        for entry in (self._volatile.get(name), self._load().get(name)):
            if entry is not None and len(entry) == 5 and tuple(entry[:4]) == stat:
                return True, entry[4]
        return False, None

    def put(self, name: str, stat: Stat | None, answer: Any, found_at_ns: int) -> None:
        """Keep ``answer`` for ``name`` (whose stat was ``stat`` when the answer was found at
        ``found_at_ns``, a ``time.time_ns()``); a racily clean file's answer only for this process."""
        from evidence.core.memo import RACY_SECONDS

        entries = self._load()
        if stat is None:
            if entries.pop(name, None) is not None:
                self._dirty = True
            return
        entry = [*stat, answer]
        if stat[1] >= found_at_ns - int(RACY_SECONDS * 1e9):
            self._volatile[name] = entry
            if entries.pop(name, None) is not None:
                self._dirty = True
        elif entries.get(name) != entry:
            entries[name] = entry
            self._volatile.pop(name, None)
            self._dirty = True

    def keep_only(self, names: set[str]) -> None:
        """Forget the answers of files that are gone."""
        entries = self._load()
        kept = {name: entry for name, entry in entries.items() if name in names}
        if len(kept) != len(entries):
            self._entries, self._dirty = kept, True

    def save(self) -> None:
        """Write the answers back if any changed (atomically; a failure only costs speed)."""
        if not self._dirty or self._entries is None:
            return
        from evidence.core.memo import write_cache_file

        data = json.dumps({"version": TREESTAT_VERSION, "folder": self._identity, "files": self._entries},
                          separators=(",", ":"))
        self._dirty = not write_cache_file(self.path, data)


def _identity(folder: Path) -> list[Any]:
    """[path, device, inode] of the folder: answers found in a copied or replaced folder (or
    project) are not used."""
    try:
        st = os.stat(folder)
    except OSError:
        return [str(folder), None, None]
    return [str(folder), st.st_dev, st.st_ino]


_REGISTRY: dict[tuple[Path, str, str], TreeState] = {}


def of(project: Project, folder: Path, purpose: str) -> TreeState:
    """The state of ``folder`` for ``purpose`` (one object per process, so the steps of one
    ``doit`` call share what they found)."""
    key = (project.root, str(folder), purpose)
    state = _REGISTRY.get(key)
    if state is None or state._identity != _identity(folder):  # the folder was replaced
        state = _REGISTRY[key] = TreeState(project, folder, purpose)
    return state


def now_ns() -> int:
    return time.time_ns()
