"""The record of every generated output: its digest when the build wrote it.

doit decides that a target is up to date from its own database and the target's existence; it
never looks at what a target contains. So an output edited by hand (a number changed in
``build/claims/claims.json``, a sentence in ``build/deliver/paper.html``) would be used by the
next step, or certified by the next manifest, as if the build had written it. This module keeps,
for each output, the digest it had when the build wrote it (one small record per output under
``.evidence/outputs/``, written atomically, so parallel doit processes never contend for one
file), and answers two questions: which of these outputs differ from what the build wrote
(:func:`edited_outputs`: the step that writes them runs again), and is this output still what the
build wrote (:func:`check_output`: a step refuses, naming the file, before it reads one that is not).

An output without a record (a fresh clone, a committed deliverable) is not "edited": it is
unknown, and doit rebuilds it anyway because its own database has no entry for it either.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from evidence.core import lookonce
from evidence.core.errors import IntegrityError
from evidence.core.hashing import digest_bytes, digest_file, write_json_atomic


@dataclass(frozen=True)
class EditedOutput:
    """An output whose content is not what the build wrote."""

    path: Path
    recorded: str
    found: str | None  # None: the file is gone

    def describe(self, root: Path) -> str:
        rel = _relative(self.path, root)
        if self.found is None:
            return f"{rel} was removed after the build wrote it"
        return (f"{rel} was changed after the build wrote it (written as blake3 "
                f"{self.recorded[:12]}, now {self.found[:12]})")


@cache
def _resolved(root: str) -> str:
    return str(Path(root).resolve())


def _relative(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str:
    """``path`` relative to ``root``, with symlinks resolved only when the plain absolute path
    is not under the root (resolving every target of every task cost a no-op 0.15 s)."""
    base = _resolved(str(root))
    plain = os.path.abspath(path)
    if plain.startswith(base + os.sep):
        rel = plain[len(base) + 1:]
        return rel if os.sep == "/" else Path(rel).as_posix()
    try:
        return Path(path).resolve().relative_to(base).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _digest(root: Path, path: Path) -> str:
    """The digest of an output, memoised by its stat signature (size, mtime, inode and ctime; see
    :mod:`evidence.core.memo`): an edit by hand changes the signature, so it is hashed again, and
    an unchanged output is not re-read on every no-op (3,900 files hashed per call at 1,000 runs).
    A namespace of its own: the summary printed on every call checks four outputs, and should not
    load the digests of every run file to do so."""
    from evidence.core import memo

    return memo.digest(_project(str(root)), path, namespace="output-digests")


@cache
def _project(root: str) -> Any:
    from evidence.core.project import Project

    return Project.at(root)


def records_dir(root: str | os.PathLike[str]) -> Path:
    return Path(_records_dir(str(root)))


@cache
def _records_dir(root: str) -> str:
    return os.path.join(_resolved(root), ".evidence", "outputs")


def record_file(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """The file holding ``path``'s record (whether or not one was written)."""
    return Path(_record_file(str(root), path))


def _record_path(root: Path, path: Path) -> Path:
    return Path(_record_file(str(root), path))


def _record_file(root: str, path: str | os.PathLike[str]) -> str:
    """The record of ``path`` (a string: thousands are looked up per delivery)."""
    key = digest_bytes(_relative(path, root).encode("utf-8"))[:32]
    return os.path.join(_records_dir(root), f"{key}.json")


def _read_record(root: Path, path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(_record_path(root, path).read_text("utf-8"))
    except (OSError, ValueError):
        return None  # no record (or an unreadable one): the output is unknown, not edited
    if not isinstance(record, dict) or record.get("path") != _relative(path, root):
        return None
    return record


def record_outputs(root: str | os.PathLike[str], paths: Iterable[str | os.PathLike[str]]) -> None:
    """Record the digest of each existing output in ``paths``, as the build just wrote it.

    An output that is still what its record says (:func:`verified_digest`: unchanged since it was
    checked) keeps its record: a step that re-records a thousand unchanged copies (the figures of
    the deliverable) no longer hashes and rewrites a thousand records.
    """
    base = Path(_resolved(str(root)))
    for item in paths:
        path = Path(item)
        if not path.is_file() or verified_digest(base, path) is not None:
            continue
        target = _record_path(base, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(target, {"path": _relative(path, base), "digest": digest_file(path),
                                   "size": path.stat().st_size}, indent=None)


def verified_digest(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> str | None:
    """The digest of the output ``path`` if it is what the build recorded, else None (no record,
    or the file changed or is gone).

    Memoised by the stat signature of the file and of its record (:mod:`evidence.core.memo`;
    namespace ``verified-outputs``): a write to either changes it, so the answer is the one
    reading the record and hashing the file would give, without doing either for an output left
    alone since it was checked (the manifest read 35,000 records per delivery at 10,000 runs).
    """
    from evidence.core import memo

    base, target = _resolved(str(root)), os.fspath(path)
    record_file = _record_file(base, target)
    verified: str | None = memo.of(_project(base), "verified-outputs").get(
        target, lambda: [target, record_file], lambda: _verify(Path(base), Path(target)))
    return verified


def verified_digests(root: str | os.PathLike[str], folder: str | os.PathLike[str],
                     names: Iterable[str]) -> dict[str, tuple[str | None, int | None]]:
    """:func:`verified_digest` of the files ``names`` ('/'-separated, relative to ``folder``),
    answered for a file unchanged since it was last verified by one stat
    (:class:`evidence.core.treestat.TreeState`): the delivery steps ask this of every copied run
    record on every edit. Only a positive answer is kept (an unrecorded file may be recorded
    later without changing); a record is only ever removed with its file."""
    from evidence.core import treestat

    base = _resolved(str(root))
    tree = treestat.of(_project(base), Path(folder), "verified-outputs")
    started = treestat.now_ns()
    prefix = os.fspath(folder) + os.sep
    found: dict[str, tuple[str | None, int | None]] = {}
    for name in names:
        path = prefix + name if os.sep == "/" else prefix + name.replace("/", os.sep)
        stat = treestat.stat_of(path)
        if stat is None:
            found[name] = (None, None)
            continue
        known, digest = tree.known(name, stat)
        if not known:
            digest = verified_digest(base, path)
            if digest is not None:
                tree.put(name, stat, digest, started)
        found[name] = (digest, stat[0])
    tree.save()
    return found


def _verify(base: Path, target: Path) -> str | None:
    record = _read_record(base, target)
    if record is None or not target.is_file():
        return None
    found = _digest(base, target)
    return found if found == record["digest"] else None


def forget_outputs(root: str | os.PathLike[str], paths: Iterable[str | os.PathLike[str]]) -> None:
    """Drop the records of outputs the build removed on purpose."""
    base = Path(_resolved(str(root)))
    for item in paths:
        _record_path(base, Path(item)).unlink(missing_ok=True)


def recorded_digest(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> str | None:
    record = _read_record(Path(_resolved(str(root))), Path(path))
    return None if record is None else str(record["digest"])


def edited_output(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> EditedOutput | None:
    """The output at ``path`` if its content is not what the build recorded, else None."""
    base, target = Path(_resolved(str(root))), Path(path)
    record = _read_record(base, target)
    if record is None:
        return None
    if not lookonce.is_file(target):
        return EditedOutput(target, str(record["digest"]), None)
    found = _digest(base, target)
    if found == record["digest"]:
        return None
    return EditedOutput(target, str(record["digest"]), found)


def recorded_state(root: str | os.PathLike[str],
                   path: str | os.PathLike[str]) -> tuple[str | None, EditedOutput | None]:
    """(the digest the build recorded for ``path`` or None, the edit if it differs): one record
    read, and the file hashed only if its stat changed since it was last hashed."""
    base, target = Path(_resolved(str(root))), Path(path)
    record = _read_record(base, target)
    if record is None:
        return None, None
    recorded = str(record["digest"])
    if not target.is_file():
        return recorded, EditedOutput(target, recorded, None)
    found = _digest(base, target)
    return recorded, None if found == recorded else EditedOutput(target, recorded, found)


def written_as_recorded(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` has a record and is what the build wrote (:func:`verified_digest`)."""
    return verified_digest(root, path) is not None


def edited_outputs(root: str | os.PathLike[str],
                   paths: Iterable[str | os.PathLike[str]]) -> list[EditedOutput]:
    return [e for p in paths if (e := edited_output(root, p)) is not None]


def check_output(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """``path``, after checking it is what the build wrote; an edited output is refused by name."""
    edited = edited_output(root, path)
    if edited is not None:
        raise IntegrityError(edited.describe(Path(root)) + "; the build does not use or ship "
                            "an output edited by hand",
                            hint="delete it and run the build again to regenerate it (change the "
                                 "inputs, not the outputs)")
    return Path(path)


def read_checked_json(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> Any:
    """The JSON output at ``path``, refused if it was edited after the build wrote it."""
    return json.loads(check_output(root, path).read_text("utf-8"))


class TargetsIntact:
    """doit ``uptodate`` check: every target of the task is what the task last wrote.

    False when a target was edited or removed by hand, so doit runs the task again and the
    output is rebuilt from its inputs instead of being used (or shipped) as edited. A task whose
    targets carry no record yet is left to doit's own rules.
    """

    def __init__(self, root: str | os.PathLike[str], targets: Iterable[str]) -> None:
        self.root = str(root)
        self.targets = list(targets)

    def __call__(self) -> bool:
        # the memoised answer first: two stats for a target left alone since it was verified,
        # where reading its record takes an open and a parse
        edited = [item for path in self.targets if verified_digest(self.root, path) is None
                  and (item := edited_output(self.root, path)) is not None]
        for item in edited:
            print(f"REBUILD {item.describe(Path(self.root))}")
        return not edited
