"""A persistent memo of values derived from the project's files, keyed by the files' stat.

Why it exists: every ``doit`` call rebuilds its task list from the project's files, so a no-op
would otherwise parse and schema-validate every experiment and figure spec and digest every
run key again (at 10,000 runs, seconds of work whose answer did not change). The memo keeps
each derived value beside the stat signature (path, size, mtime, inode) of every file it was
derived from, in ``.evidence/cache/memo-<namespace>.json``; a value is reused only while
every one of those files still has the same signature, so editing any input recomputes it.
The signature includes the inode change time, which no write can leave as it was (setting a
file's mtime back changes its ctime): an edit that keeps the size and restores the mtime is
still seen.

Two rules keep it honest, the ones git uses for its index:

* **Racily clean files are not trusted.** A file modified within :data:`RACY_SECONDS` of the
  moment its value was computed could change again within the same timestamp tick without
  changing its signature, so such a value is used for this process only and not stored.
* **The memo is only a cache.** A missing, unreadable or malformed memo file is recomputed
  from scratch; it is written atomically (last writer wins), never read for anything but
  values this module stored, and deleting ``.evidence/`` loses nothing.

Values must be JSON; callers rebuild their objects from them.

**A large memo is kept in shards.** Past :data:`SHARD_ENTRIES` entries the memo file holds only
the number of shards, and each entry lives in ``memo-<namespace>.s<i>.json`` by a digest of its
key's folder: a call that changes a few values writes back only their shards (the export memo
alone held 4.7 MB of JSON at 1,000 runs, rewritten whole for one changed run), and one that looks
up a few keys reads only theirs. Every entry still carries the signature of its inputs, so a
shard left by another writer can only cost a miss, never answer for a changed file.

**A memo belongs to one project folder.** Keys and input paths inside the project are stored
relative to its root, and the memo file records the root it was written for (its path and
inode): a project that was copied (``cp -a``) or moved starts with an empty memo, because its
stored values were checked against another folder's files and may name them. Without this, a
copy answered from the original's unchanged files after its own data was edited.

**Steady scopes.** While doit builds its task list no action runs, so nothing writes to the
project. :func:`steady` marks such a stretch (every task builder runs in one, see
:func:`evidence.tasks.base.user_errors`): a value whose files were checked once in the scope is
not checked again in it. Outside a scope every lookup checks its files.
"""

from __future__ import annotations

import atexit
import copy
import itertools
import json
import os
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evidence.core import lookonce
from evidence.core.hashing import write_bytes_atomic
from evidence.core.project import Project

#: Bump when the layout of stored values changes; older memo files are then ignored. (Shards
#: did not bump it: a memo file of shards holds no ``entries``, which an older reader takes for
#: an empty memo, and a memo file of entries still reads as one shard.)
MEMO_VERSION = 4
#: A memo with more entries than this is written in shards (see the module docstring) ...
SHARD_ENTRIES = 128
#: ... of about this many entries each (a power of two shards, at least MIN_SHARDS).
ENTRIES_PER_SHARD = 64
MIN_SHARDS = 16
#: A file modified this recently when its value was computed is "racily clean" (see above).
RACY_SECONDS = 2.0

Signature = list[Any]

_scope_ids = itertools.count(1)
_scope: int | None = None


@contextmanager
def steady() -> Iterator[None]:
    """A stretch in which the project's files do not change (see the module docstring).

    Leaving the outermost scope writes back every memo that changed in it.
    """
    global _scope
    outer = _scope
    if outer is None:
        _scope = next(_scope_ids)
    try:
        yield
    finally:
        _scope = outer
        if outer is None:
            save_all()


def steady_scope() -> int | None:
    """The id of the current steady scope, None outside one."""
    return _scope


def signature(paths: Iterable[Path | str]) -> Signature:
    """[path, size, mtime_ns, inode, ctime_ns] of every path (``None`` fields for a missing one)."""
    found: Signature = []
    for path in paths:
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            found.append([str(path), None, None, None, None])
            continue
        found.append([str(path), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns])
    return found


def _racy(sig: Signature, now_ns: int) -> bool:
    limit = now_ns - int(RACY_SECONDS * 1e9)
    return any(entry[2] is not None and entry[2] >= limit for entry in sig)


def _root_identity(root: Path | None) -> list[Any] | None:
    """[path, device, inode] of a project root: what a memo file must have been written for."""
    if root is None:
        return None
    try:
        st = os.stat(root)
    except OSError:
        return [str(root), None, None]
    return [str(root), st.st_dev, st.st_ino]


class Memo:
    """One namespace of memoised values of one project (see the module docstring).

    ``root``: the project folder whose paths (in keys and inputs) are stored relative to it and
    whose identity the memo file must match; None for a memo of absolute paths only.
    """

    def __init__(self, cache_dir: Path, namespace: str, root: Path | None = None) -> None:
        self.path = cache_dir / f"memo-{namespace}.json"
        self.root = root
        self._prefix = None if root is None else str(root) + os.sep
        # shard -> its entries (None: not read yet); one shard, the memo file itself, until the
        # memo grows past SHARD_ENTRIES (see the module docstring)
        self._shards: list[dict[str, dict[str, Any]] | None] | None = None
        self._dirty_shards: set[int] = set()
        self._volatile: dict[str, dict[str, Any]] = {}  # racily clean values: this process only
        self._checked: dict[str, tuple[int, Any]] = {}  # key -> (steady scope it was checked in, value)

    @property
    def _dirty(self) -> bool:
        return bool(self._dirty_shards)

    def _header(self) -> dict[str, Any]:
        return {"version": MEMO_VERSION, "root": _root_identity(self.root)}

    def shard_path(self, index: int) -> Path:
        """The file of shard ``index`` of a memo kept in shards."""
        return self.path.with_name(f"{self.path.stem}.s{index}.json")

    def _layout(self) -> list[dict[str, dict[str, Any]] | None]:
        """The shards (read from the memo file once: its entries, or how many shards hold them)."""
        if self._shards is None:
            raw = read_cache_file(self.path, self._header(), "entries", allow={"shards": int})
            count = raw.get("shards") if isinstance(raw.get("shards"), int) else None
            if count is not None and count > 1:
                self._shards = [None] * count
            else:
                self._shards = [dict(raw.get("entries", {}))]
        return self._shards

    def _index(self, key: str) -> int:
        """The shard of ``key``: by its folder where it is a path, so that the outputs one step
        writes (a figure's files, a run's copies) change few shards, not one each."""
        shards = self._layout()
        if len(shards) == 1:
            return 0
        return zlib.crc32(key.rpartition("/")[0].encode("utf-8") or key.encode("utf-8")) % len(shards)

    def _shard(self, index: int) -> dict[str, dict[str, Any]]:
        shards = self._layout()
        found = shards[index]
        if found is None:
            found = shards[index] = read_cache_file(self.shard_path(index), self._header(), "entries")
        return found

    def _entries_of(self, key: str) -> dict[str, dict[str, Any]]:
        """The entries of the shard that holds ``key`` (an already stored key)."""
        return self._shard(self._index(key))

    def _load(self) -> dict[str, dict[str, Any]]:
        """Every entry (every shard read): for the callers that need them all."""
        shards = self._layout()
        if len(shards) == 1:
            return self._shard(0)
        merged: dict[str, dict[str, Any]] = {}
        for index in range(len(shards)):
            merged.update(self._shard(index))
        return merged

    def _key(self, key: str) -> str:
        """``key`` with the project root taken out of every path in it."""
        return key if self._prefix is None else key.replace(self._prefix, "")

    def _stored_path(self, path: Path | str) -> str:
        """How an input path is stored: relative to the root when under it, else absolute."""
        text = os.fspath(path)
        if self._prefix is not None and text.startswith(self._prefix):
            return text[len(self._prefix):]
        return text

    def _real_path(self, stored: str) -> str:
        """The path a stored input names in this project folder."""
        if self._prefix is None or os.path.isabs(stored):
            return stored
        return self._prefix + stored

    def _unchanged(self, recorded: Any) -> bool:
        """Whether every input of a stored signature still has its recorded stat (stops at the
        first that differs; a lookup is the no-op's hot path)."""
        if not isinstance(recorded, list) or not recorded:
            return False
        prefix = self._prefix
        for entry in recorded:
            if not isinstance(entry, list) or len(entry) != 5 or not isinstance(entry[0], str):
                return False
            name = entry[0]
            try:
                st = lookonce.stat(name if prefix is None or os.path.isabs(name) else prefix + name)
            except (FileNotFoundError, NotADirectoryError):
                if entry[1:] != [None, None, None, None]:
                    return False
                continue
            if entry[1:] != [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]:
                return False
        return True

    def _signature(self, paths: Iterable[Path | str]) -> Signature:
        """:func:`signature` of ``paths``, each named as it is stored."""
        stored = [self._stored_path(p) for p in paths]
        return [[name, *entry[1:]] for name, entry in zip(stored, signature(map(self._real_path, stored)),
                                                          strict=True)]

    def get(self, key: str, inputs: Callable[[], Iterable[Path | str]],
            compute: Callable[[], Any]) -> Any:
        """The value of ``key``: stored if its input files are unchanged, else ``compute()``.

        ``inputs`` lists the files the value is derived from; it is called before
        ``compute`` (to check the stored value) and again after (the files a fresh
        computation read, in case the list depends on the files' contents).
        """
        found, value = self.lookup(key)
        if found:
            return value
        started = time.time_ns()
        value = compute()
        self.store(key, inputs(), value, started)
        return value

    def lookup(self, key: str) -> tuple[bool, Any]:
        """``(True, value)`` if ``key`` has a value whose input files are unchanged, else
        ``(False, None)``: the first half of :meth:`get`, for a caller that computes many
        missing values together before it stores them (and stores none if one fails)."""
        key = self._key(key)
        scope = _scope
        if scope is not None and self._checked.get(key, (None, None))[0] == scope:
            return True, self._checked[key][1]
        for stored in (self._volatile.get(key), self._entries_of(key).get(key)):
            if isinstance(stored, dict) and "value" in stored and self._unchanged(stored.get("inputs")):
                if scope is not None:
                    self._checked[key] = (scope, stored["value"])
                return True, stored["value"]
        return False, None

    def store(self, key: str, inputs: Iterable[Path | str], value: Any, started_ns: int) -> None:
        """Keep ``value`` for ``key``, derived from the files ``inputs`` by a computation that
        started at ``started_ns`` (``time.time_ns()``): a file modified since shortly before then
        is racily clean, and the value is kept for this process only (see the module docstring)."""
        key = self._key(key)
        index = self._index(key)
        entries = self._shard(index)
        sig = self._signature(inputs)
        if _racy(sig, started_ns):  # good for this process (same signature), never stored
            self._volatile[key] = {"inputs": sig, "value": value}
            if entries.pop(key, None) is not None:
                self._dirty_shards.add(index)
        else:
            self._volatile.pop(key, None)
            entries[key] = {"inputs": sig, "value": value}
            self._dirty_shards.add(index)
        if _scope is not None:
            self._checked[key] = (_scope, value)

    def checked_signature(self, key: str) -> Signature | None:
        """The input signature ``key``'s value was last checked (or stored) against."""
        key = self._key(key)
        for stored in (self._volatile.get(key), self._entries_of(key).get(key)):
            if isinstance(stored, dict) and "inputs" in stored:
                return list(stored["inputs"])
        return None

    def forget(self, keep: Iterable[str]) -> None:
        """Drop every entry not in ``keep`` (specs that were deleted, renamed experiments)."""
        kept = {self._key(k) for k in keep}
        for index in range(len(self._layout())):
            entries = self._shard(index)
            stale = set(entries) - kept
            for key in stale:
                del entries[key]
            if stale:
                self._dirty_shards.add(index)

    def save(self) -> None:
        """Write the memo back if anything changed (atomically; failures only cost speed): the
        shards that changed, or the whole memo in a new number of shards when it grew or shrank
        past a power of two (see the module docstring)."""
        if not self._dirty_shards or self._shards is None:
            return
        shards = self._shards
        if all(shard is not None for shard in shards):
            wanted = _shard_count(len(self._load()))  # (a key is counted once, in any shard)
            if wanted != len(shards):
                self._reshard(wanted)
                return
        written = True
        for index in sorted(self._dirty_shards):
            shard = shards[index]
            if shard is None:
                continue
            path = self.path if len(shards) == 1 else self.shard_path(index)
            written = self._write(path, shard) and written
        self._dirty_shards = set() if written else self._dirty_shards

    def _reshard(self, count: int) -> None:
        """Write every entry into ``count`` shards (one: the memo file itself), then the memo file
        that says how many, and remove the shard files no longer used."""
        entries = self._load()
        fresh: list[dict[str, dict[str, Any]]] = [{} for _ in range(count)]
        self._shards = list(fresh)
        for key, stored in entries.items():
            fresh[self._index(key)][key] = stored
        written = True
        if count == 1:
            written = self._write(self.path, fresh[0])
        else:
            for index, shard in enumerate(fresh):
                written = self._write(self.shard_path(index), shard) and written
            written = written and write_cache_file(self.path, json.dumps(
                {**self._header(), "shards": count}, separators=(",", ":")))
        if written:
            for leftover in self.path.parent.glob(f"{self.path.stem}.s*.json"):
                number = leftover.name[len(self.path.stem) + 2:-len(".json")]
                if not (number.isdigit() and int(number) < count and count > 1):
                    leftover.unlink(missing_ok=True)
        self._dirty_shards = set() if written else set(range(count))

    def _write(self, path: Path, entries: dict[str, dict[str, Any]]) -> bool:
        try:
            data = json.dumps({**self._header(), "entries": entries}, separators=(",", ":"),
                              allow_nan=False)
        except (TypeError, ValueError):  # a value JSON cannot hold (a TOML date): not stored
            for key in [k for k, v in entries.items() if not _is_json(v)]:
                del entries[key]
            data = json.dumps({**self._header(), "entries": entries}, separators=(",", ":"),
                              allow_nan=False)
        return write_cache_file(path, data)


def _shard_count(entries: int) -> int:
    """How many shards a memo of ``entries`` entries is kept in (1: the memo file alone)."""
    if entries <= SHARD_ENTRIES:
        return 1
    count = MIN_SHARDS
    while count * ENTRIES_PER_SHARD < entries:
        count *= 2
    return count


def read_cache_file(path: Path, header: dict[str, Any], field: str,
                    allow: dict[str, type] | None = None) -> dict[str, Any]:
    """The ``field`` of a cache file whose other fields are ``header`` (its version, what it was
    written for); empty if the file is missing, unreadable, or written by another version or for
    another folder.

    ``allow``: other fields the file may hold instead of ``field`` (name -> type); then the
    answer is ``{"<field>": ..., "<name>": ...}`` with what it holds of them."""
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict) or not all(raw.get(k) == v for k, v in header.items()):
        return {}
    if allow is None:
        return dict(raw[field]) if isinstance(raw.get(field), dict) else {}
    found: dict[str, Any] = {field: dict(raw[field])} if isinstance(raw.get(field), dict) else {}
    found.update({name: raw[name] for name, kind in allow.items()
                  if isinstance(raw.get(name), kind) and not isinstance(raw.get(name), bool)})
    return found


def write_cache_file(path: Path, text: str) -> bool:
    """Write a cache file atomically; False if it could not be written (a cache that cannot be
    written only costs speed)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(path, text.encode("utf-8"))
    except OSError:
        return False
    return True


_REGISTRY: dict[tuple[Path, str], Memo] = {}


def save_all() -> None:
    """Write back every memo of this process that changed.

    Called when the outermost steady scope ends (doit has built its tasks) and at interpreter
    exit (what the actions memoised), so a loop of lookups writes each memo file once, not
    once per lookup. A process that ends without running exit handlers (a worker of ``doit
    -n``) loses what it memoised: a memo is only a cache.
    """
    for memo in _REGISTRY.values():
        memo.save()


atexit.register(save_all)


def input_paths() -> set[str]:
    """Every input file of every value memoised in this process's memos: what the task
    builders read (:mod:`evidence.core.upindex` watches them)."""
    found: set[str] = set()
    for memo in _REGISTRY.values():
        for stored in (*memo._load().values(), *memo._volatile.values()):
            for entry in stored.get("inputs", []) if isinstance(stored, dict) else []:
                if isinstance(entry, list) and entry and isinstance(entry[0], str):
                    found.add(memo._real_path(entry[0]))
    return found


def of(project: Project, namespace: str) -> Memo:
    """The memo ``namespace`` of ``project`` (one object per process; written back by
    :func:`save_all`)."""
    memo = _REGISTRY.get((project.root, namespace))
    if memo is None:
        memo = _REGISTRY[(project.root, namespace)] = Memo(project.cache_dir, namespace, project.root)
    return memo


SCHEMA_DIR = Path(__file__).parents[1] / "schemas"


def validated(project: Project, path: Path, schema_name: str, parse: Callable[[], Any]) -> Any:
    """``parse()`` (read ``path`` and check it against schema ``schema_name``), memoised while
    the file and its schema are unchanged; an invalid file raises every time.

    Returns a copy: callers may change what they get without changing what is stored.
    """
    value = of(project, "validated").get(f"{schema_name}:{path}",
                                         lambda: [path, SCHEMA_DIR / f"{schema_name}.schema.json"], parse)
    return copy.deepcopy(value)


def digest(project: Project, path: Path, namespace: str = "digests") -> str:
    """:func:`evidence.core.hashing.digest_file` of ``path``, memoised by the file's stat signature
    (size, mtime, inode, ctime; racily clean files are hashed again), as git's index and DVC's state
    database do: the disclosure audit checks every figure's inputs on every rebuild."""
    from evidence.core.hashing import digest_file

    value: str = of(project, namespace).get(str(path), lambda: [path], lambda: digest_file(path))
    return value


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True
