"""The sealed, content-addressed run store (``runs/``): the evidence layer.

A run is published by one atomic rename of a fully written folder into ``runs/<run-id>/``;
before the rename, every file is listed with its digest and size in ``manifest.json`` and made
read-only. Nothing ever writes into a sealed run.

Run ids are the first 16 hex digits of the run key. Forcing a re-run of a sealed key mints
``<key16>-2``, ``<key16>-3``, ... beside the old run; the newest one is the run of that key.

Two levels of checking:

* :meth:`RunStore.quick_check` (used by ``doit`` on every no-op): the manifest parses and every
  listed file exists with its recorded size. No file content is read.
* :meth:`RunStore.fsck` (the integrity target): re-hashes every file and names each one whose
  digest differs, each file not in the manifest, and each run whose manifest is missing or
  malformed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidence.core.errors import BadInputError, IntegrityError
from evidence.core.hashing import digest_file, fsync_dir
from evidence.core.memo import steady_scope
from evidence.core.schema import validate

MANIFEST = "manifest.json"
#: The manifest an imported run arrived with (kept beside its own; see evidence.scale.federation).
ORIGIN_MANIFEST = "origin-manifest.json"
RUN_ID_LENGTH = 16
#: Folder of runs/ that damaged runs are moved to (see :meth:`RunStore.quarantine`).
QUARANTINE = ".quarantine"
#: Prefix of a staging copy of a cross-file-system publish (see :meth:`RunStore.seal`).
INCOMING = ".incoming-"
#: Files every sealed run holds (fsck names a run without one).
REQUIRED_FILES = ("spec.json", "results.json", "provenance.json", "metrics.jsonl")
_RUN_ID = re.compile(r"^([0-9a-f]{16})(?:-(\d+))?$")


#: Per-process listings of run stores: root -> (stat signature of the folder, base -> generations).
_LISTINGS: dict[Path, tuple[tuple[int, int, int], dict[str, list[int]]]] = {}
_SEALED: dict[tuple[Path, str], SealedRun] = {}
_LISTING_SCOPE: dict[Path, int] = {}  # root -> steady scope (evidence.core.memo) its listing was checked in


def listing_signature(root: Path) -> tuple[int, int, int] | None:
    """(inode, mtime, link count) of the store folder: changes when a run is published."""
    try:
        st = os.stat(root)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_nlink)


def _listing(root: Path) -> dict[str, list[int]]:
    """``{first 16 hex digits of a key: sorted generations}`` of every run folder in ``root``.

    Read with one ``scandir`` and kept while the folder's inode, mtime and link count (the
    number of subfolders on ext4 and XFS) are unchanged: publishing a run renames a folder
    into ``root``, which changes them.
    """
    scope = steady_scope()
    if scope is not None and _LISTING_SCOPE.get(root) == scope and root in _LISTINGS:
        return _LISTINGS[root][1]  # checked already while doit builds its task list
    signature = listing_signature(root)
    if signature is None:
        return {}
    cached = _LISTINGS.get(root)
    if cached is not None and cached[0] == signature:
        if scope is not None:
            _LISTING_SCOPE[root] = scope
        return cached[1]
    found: dict[str, list[int]] = {}
    with os.scandir(root) as entries:
        for entry in entries:
            match = _RUN_ID.match(entry.name)
            if match and entry.is_dir():
                found.setdefault(match.group(1), []).append(int(match.group(2) or 1))
    for generations in found.values():
        generations.sort()
    _LISTINGS[root] = (signature, found)
    if scope is not None:
        _LISTING_SCOPE[root] = scope
    return found


def _forget_listing(root: Path) -> None:
    """Drop the per-process listing of ``root``: the next lookup reads the folder again."""
    _LISTINGS.pop(root, None)
    _LISTING_SCOPE.pop(root, None)


def listed_run_ids(root: Path) -> list[str]:
    """Every run id in the store, sorted (from the per-process listing)."""
    return sorted(run_id_for(base, g) for base, gens in _listing(root).items() for g in gens)


def run_id_for(key: str, generation: int = 1) -> str:
    base = key[:RUN_ID_LENGTH]
    return base if generation == 1 else f"{base}-{generation}"


@dataclass
class SealedRun:
    """A sealed run on disk; files are read lazily."""

    path: Path

    @property
    def run_id(self) -> str:
        return self.path.name

    def read_json(self, name: str) -> Any:
        return json.loads((self.path / name).read_text("utf-8"))

    @property
    def results(self) -> dict[str, Any]:
        value: dict[str, Any] = self.read_json("results.json")
        return value

    @property
    def spec(self) -> dict[str, Any]:
        value: dict[str, Any] = self.read_json("spec.json")
        return value

    @property
    def provenance(self) -> dict[str, Any]:
        value: dict[str, Any] = self.read_json("provenance.json")
        return value

    def metrics_history(self) -> list[dict[str, Any]]:
        lines = (self.path / "metrics.jsonl").read_text("utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


@dataclass
class Finding:
    """One integrity problem of one run."""

    run_id: str
    file: str | None
    problem: str

    def __str__(self) -> str:
        where = f"{self.run_id}/{self.file}" if self.file else self.run_id
        return f"{where}: {self.problem}"


@dataclass
class FsckReport:
    checked: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def bad_runs(self) -> set[str]:
        return {f.run_id for f in self.findings}


def manifest_sizes(run_path: str, run_id: str) -> dict[str, Any]:
    """The half of the quick check that reads the manifest: ``{"files": {name: size}}``, or
    ``{"problem": [file, text]}`` when it is missing or malformed.

    A JSON value, so :mod:`evidence.store.survey` can memoise it by the manifest's stat (a sealed
    manifest never changes). The shape is checked by hand, not with the JSON Schema (that is
    :meth:`RunStore.fsck_run`'s): at 10,000 runs the schema alone cost seconds per no-op.
    """
    try:
        with open(run_path + MANIFEST, "rb") as handle:
            manifest = json.loads(handle.read())
    except FileNotFoundError:
        return {"problem": [MANIFEST, "manifest is missing"]}
    except (OSError, ValueError) as error:
        return {"problem": [MANIFEST, f"manifest is malformed: {error}"]}
    return sizes_of_manifest(manifest, run_id)


def sizes_of_manifest(manifest: Any, run_id: str) -> dict[str, Any]:
    """:func:`manifest_sizes` of a manifest already parsed (a reader that needs more of it, such
    as the digests, reads the file once)."""
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not all(
            isinstance(e, dict) and type(e.get("size")) is int for e in files.values()):
        return {"problem": [MANIFEST, "manifest is malformed: no 'files' table of sizes"]}
    if manifest.get("run_id") != run_id:
        return {"problem": [MANIFEST, f"manifest names run {manifest.get('run_id')}"]}
    for name in files:
        if name.startswith("/") or ".." in name.split("/"):
            return {"problem": [MANIFEST, f"manifest lists an unsafe path {name!r}"]}
    return {"files": {name: entry["size"] for name, entry in files.items()}}


def check_sizes(run_path: str, run_id: str, parsed: dict[str, Any],
                stats: list[tuple[str, int, int]] | None = None) -> Finding | None:
    """The half of the quick check that looks at the files: each listed file exists with its
    recorded size. ``stats`` (if given) receives ``(name, size, mtime_ns)`` of each file."""
    if "problem" in parsed:
        return Finding(run_id, parsed["problem"][0], parsed["problem"][1])
    for name, recorded in parsed["files"].items():
        try:
            st = os.stat(run_path + name)
        except OSError:
            return Finding(run_id, name, "file is missing")
        if st.st_size != recorded:
            return Finding(run_id, name, f"size {st.st_size} differs from recorded {recorded}")
        if stats is not None:
            stats.append((name, st.st_size, st.st_mtime_ns))
    return None


class RunStore:
    """Sealed runs under ``root``; publishing and checking them."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, run_id: str) -> Path:
        if not _RUN_ID.match(run_id):
            raise BadInputError(run_id, "not a run id (16 hex digits, optionally -N)")
        return self.root / run_id

    def generations(self, key: str, *, fresh: bool = False) -> list[int]:
        """Generations of ``key`` present in the store (1 for the first sealing, then 2, ...).

        Answered from one listing of ``runs/`` per process (see :func:`_listing`), so a doit
        no-op that looks up every run costs one directory read, not one glob per run. A key the
        listing does not know is confirmed with one ``stat`` (a run sealed since the listing
        was read is never missed); ``fresh`` reads the folder again (minting a new run id).
        """
        base = key[:RUN_ID_LENGTH]
        if fresh:
            _forget_listing(self.root)
        found = _listing(self.root).get(base)
        if found is None and (self.root / base).is_dir():
            _forget_listing(self.root)
            found = _listing(self.root).get(base)
        return list(found or ())

    def find(self, key: str) -> SealedRun | None:
        """The newest sealed run of ``key``, or None."""
        generations = self.generations(key)
        if not generations:
            return None
        run_id = run_id_for(key, generations[-1])
        if not os.path.exists(os.path.join(self.root, run_id, MANIFEST)):
            return None
        run = _SEALED.get((self.root, run_id))
        if run is None:  # one object per run and process: a no-op asks for each run three times
            run = _SEALED[(self.root, run_id)] = SealedRun(self.root / run_id)
        return run

    # -- damage ----------------------------------------------------------------------------

    @property
    def quarantine_dir(self) -> Path:
        """Where damaged runs go: out of the store, never deleted (a human decides)."""
        return self.root / QUARANTINE

    def quarantine(self, run_id: str, reason: str) -> Path:
        """Move a damaged run out of ``runs/`` (one rename) and record why beside it."""
        self.quarantine_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        target = self.quarantine_dir / f"{run_id}-{stamp}-{os.getpid()}"
        os.rename(self.path(run_id), target)
        (target.parent / f"{target.name}.reason.txt").write_text(reason + "\n", "utf-8")
        fsync_dir(self.root)
        _forget_listing(self.root)
        _SEALED.pop((self.root, run_id), None)
        return target

    def repair(self, key: str) -> list[str]:
        """Quarantine every run of ``key`` that fails the quick check; one line per run moved.

        A run folder is only ever published whole (manifest inside, by one rename), so a folder
        without a valid manifest, or with a file of the wrong size, is damage, not a run: it is
        never "cached", and it must not push the key's next run to a new generation beside it.
        """
        notes = []
        for generation in self.generations(key, fresh=True):
            run_id = run_id_for(key, generation)
            finding = self.quick_check(run_id)
            if finding is None:
                continue
            moved = self.quarantine(run_id, str(finding))
            notes.append(f"DAMAGED runs/{run_id}: {finding.problem} ({finding.file}); moved to "
                         f"{self.root.name}/{QUARANTINE}/{moved.name}, training it again")
        return notes

    def leftovers(self) -> list[Path]:
        """Staging copies of an interrupted cross-file-system publish (``runs/.incoming-<id>``)."""
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if p.name.startswith(INCOMING))

    def next_run_id(self, key: str) -> str:
        generations = self.generations(key, fresh=True)
        return run_id_for(key, generations[-1] + 1 if generations else 1)

    def run_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and _RUN_ID.match(p.name))

    def runs(self) -> Iterator[SealedRun]:
        for run_id in self.run_ids():
            yield SealedRun(self.root / run_id)

    # -- sealing ---------------------------------------------------------------------------

    def seal(self, staging: Path, run_id: str, key: str) -> SealedRun:
        """Write the manifest, make everything read-only, and publish by one atomic rename."""
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        entries = {p.relative_to(staging).as_posix(): {"digest": digest_file(p),
                                                      "size": p.stat().st_size}
                   for p in files}
        manifest = {"schema_version": 1, "run_id": run_id, "key": key, "algorithm": "blake3",
                    "files": entries}
        validate(manifest, "manifest", staging / MANIFEST)
        manifest_path = staging / MANIFEST
        manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", "utf-8")
        for p in [*files, manifest_path]:
            with p.open("rb") as handle:
                os.fsync(handle.fileno())
            p.chmod(0o444)
        fsync_dir(staging)
        self.root.mkdir(parents=True, exist_ok=True)
        target = self.root / run_id
        if target.exists():
            raise IntegrityError(f"refusing to overwrite sealed run {run_id}",
                                 hint="sealed runs are immutable; use --force for a new run id")
        try:
            os.rename(staging, target)
        except OSError as error:
            if error.errno != 18:  # EXDEV: the work folder is on another file system
                raise
            temporary = self.root / f"{INCOMING}{run_id}"
            if temporary.exists():  # a copy interrupted by a kill or a full disk: ours, unpublished
                _make_writable(temporary)
                shutil.rmtree(temporary)
            shutil.copytree(staging, temporary)
            os.rename(temporary, target)
            shutil.rmtree(staging, ignore_errors=True)
        target.chmod(0o555)
        fsync_dir(self.root)
        _forget_listing(self.root)
        return SealedRun(target)

    # -- checking --------------------------------------------------------------------------

    def _manifest(self, run_path: Path, run_id: str) -> tuple[dict[str, Any] | None, Finding | None]:
        path = run_path / MANIFEST
        if not path.exists():
            return None, Finding(run_id, MANIFEST, "manifest is missing")
        try:
            manifest = json.loads(path.read_text("utf-8"))
            validate(manifest, "manifest", path)
        except (ValueError, BadInputError) as error:
            return None, Finding(run_id, MANIFEST, f"manifest is malformed: {error}")
        if manifest["run_id"] != run_id:
            return None, Finding(run_id, MANIFEST, f"manifest names run {manifest['run_id']}")
        return manifest, None

    def quick_check(self, run_id: str) -> Finding | None:
        """Cheap: the manifest parses and every listed file exists with its recorded size.

        This runs for every run on every doit no-op, so it reads one small file and stats the
        run's files, and checks the manifest's shape by hand instead of with the JSON Schema
        (the schema check is :meth:`fsck_run`'s): at 10,000 runs the schema alone cost seconds.
        """
        run_path = os.path.join(self.path(run_id), "")
        return check_sizes(run_path, run_id, manifest_sizes(run_path, run_id))

    def fsck_run(self, run_id: str) -> list[Finding]:
        """Full check of one run: every digest and no extra files.

        Permissions are not checked: sealing makes files read-only as a guard against accidents,
        but git does not keep that bit, so a fresh clone of committed evidence is writable and
        still intact. Integrity is the digests.
        """
        run_path = self.path(run_id)
        manifest, finding = self._manifest(run_path, run_id)
        if finding or manifest is None:
            return [finding] if finding else []
        findings = []
        listed = manifest["files"]
        for link in sorted(p for p in run_path.rglob("*") if p.is_symlink()):
            findings.append(Finding(run_id, link.relative_to(run_path).as_posix(),
                                    "is a symbolic link (a sealed run holds only its own files)"))
        for name, entry in sorted(listed.items()):
            path = run_path / name
            if path.is_symlink() or not path.is_file():
                if not path.is_symlink():
                    findings.append(Finding(run_id, name, "file is missing"))
                continue
            size = path.stat().st_size
            if size != entry["size"]:
                findings.append(Finding(run_id, name, f"size {size} differs from recorded {entry['size']}"))
            actual = digest_file(path)
            if actual != entry["digest"]:
                findings.append(Finding(run_id, name, f"digest {actual[:16]} differs from "
                                        f"recorded {entry['digest'][:16]} (modified or bit rot)"))
        present = {p.relative_to(run_path).as_posix() for p in run_path.rglob("*")
                   if p.is_file() and not p.is_symlink()}
        for extra in sorted(present - set(listed) - {MANIFEST}):
            findings.append(Finding(run_id, extra, "file is not in the manifest"))
        for required in REQUIRED_FILES:
            if required not in listed:
                findings.append(Finding(run_id, required, "a sealed run must hold this file; it is "
                                        "neither present nor in the manifest"))
        findings.extend(self._identity_findings(run_path, run_id, manifest))
        findings.extend(self._origin_findings(run_path, run_id, listed))
        return findings

    @staticmethod
    def _identity_findings(run_path: Path, run_id: str, manifest: dict[str, Any]) -> list[Finding]:
        """The manifest's key, spec.json's key, the digest of spec.json's identity and the run id
        must all agree: a changed key digit anywhere is a run that is not what it claims to be."""
        from evidence.core.hashing import digest_json

        key = str(manifest.get("key", ""))
        findings = []
        if not run_id.startswith(key[:RUN_ID_LENGTH]) or len(key) != 64:
            findings.append(Finding(run_id, MANIFEST, f"records key {key[:16]}..., which is not this "
                                    "run's id"))
        try:
            spec = json.loads((run_path / "spec.json").read_text("utf-8"))
            derived = digest_json(spec["identity"])
        except (OSError, ValueError, KeyError, TypeError):
            return [*findings, Finding(run_id, "spec.json", "unreadable: no identity to check the key with")]
        if spec.get("key") != key:
            findings.append(Finding(run_id, "spec.json", f"records key {str(spec.get('key'))[:16]}..., "
                                    f"the manifest {key[:16]}..."))
        if derived != key:
            findings.append(Finding(run_id, "spec.json", f"its identity digests to {derived[:16]}..., "
                                    f"not the recorded key {key[:16]}..."))
        return findings

    @staticmethod
    def _origin_findings(run_path: Path, run_id: str, listed: dict[str, Any]) -> list[Finding]:
        """An imported run (see evidence.scale.federation) keeps the manifest it arrived with as
        ``origin-manifest.json``: its files must still be the ones that arrived."""
        origin = run_path / ORIGIN_MANIFEST
        if ORIGIN_MANIFEST not in listed or not origin.is_file():
            return []
        try:
            files = json.loads(origin.read_text("utf-8"))["files"]
        except (ValueError, KeyError, TypeError):
            return [Finding(run_id, ORIGIN_MANIFEST, "origin manifest is malformed")]
        return [Finding(run_id, name, "differs from the manifest the run was imported with")
                for name, entry in sorted(files.items())
                if name != "import.json" and (listed.get(name) or {}).get("digest") != entry.get("digest")]

    def fsck(self, run_ids: list[str] | None = None) -> FsckReport:
        report = FsckReport()
        for run_id in run_ids if run_ids is not None else self.run_ids():
            report.checked.append(run_id)
            report.findings.extend(self.fsck_run(run_id))
        if run_ids is None:
            for leftover in self.leftovers():
                report.leftovers.append(f"{self.root.name}/{leftover.name}: left over from an "
                                        "interrupted publish across file systems (removed by the "
                                        "next attempt to seal that run)")
        return report


def _make_writable(folder: Path) -> None:
    """Undo the read-only bits of a staging copy so it can be removed."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR | (stat.S_IXUSR if path.is_dir() else 0))
