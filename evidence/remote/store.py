"""The remote's layout: content-addressed, append-only, published by writing the manifest last.

::

    objects/<d[:2]>/<d>                       the bytes of a file whose BLAKE3 digest is d (a
                                              sealed run's files, checkpoints): stored once
    runs/<run-id>/<manifest digest>.json      a published run: its manifest, written after every
                                              object it lists, so a partial upload is no run
    checkpoints/<run-id>/<name>.<d16>.json    a mirrored checkpoint of a run in progress: names
                                              the object holding it, written after that object
    leases/<run-id>/<host>-<pid>-<nonce>.json who is training a run now (see lease.py)
    quarantine/<time>-<name>                  damage a pull found (a corrupt object, a manifest
                                              that lies), moved aside, never deleted by a pull
    tmp/                                      uploads in flight (file systems and SFTP)

Every name except a lease is the digest of its content (or names one), so writing a name twice
writes the same bytes: nothing is ever overwritten with something else, and a push interrupted
anywhere is finished by the next one. A run id may have more than one manifest (the same run
sealed on two machines, or a copy pushed after a forged one was published): each is a
candidate, checked on its own by a pull.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import blake3

from evidence.core.hashing import digest_bytes
from evidence.remote.location import Location, RemoteError

OBJECTS = "objects"
RUNS = "runs"
CHECKPOINTS = "checkpoints"
LEASES = "leases"
QUARANTINE = "quarantine"
TMP = "tmp"
CHUNK = 1 << 20


class CorruptObject(RemoteError):
    """An object's bytes do not digest to its name (bit rot, a truncated or tampered upload)."""


@dataclass
class Transfer:
    """What one push or pull moved: bytes and objects sent (or fetched) and skipped."""

    bytes_sent: int = 0
    objects_sent: int = 0
    objects_skipped: int = 0
    bytes_skipped: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class RemoteStore:
    """Reading and writing the layout above on one :class:`Location`."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.fs = location.fs
        self._made: set[str] = set()

    # -- paths ---------------------------------------------------------------------------

    def object_path(self, digest: str) -> str:
        return self.location.path(OBJECTS, digest[:2], digest)

    def manifest_path(self, run_id: str, digest: str) -> str:
        return self.location.path(RUNS, run_id, f"{digest}.json")

    def relative(self, path: str) -> str:
        root = self.location.root.rstrip("/")
        return path[len(root) + 1:] if root and path.startswith(root + "/") else path

    # -- listing -------------------------------------------------------------------------

    def _find(self, *parts: str) -> dict[str, int]:
        """Every file under a folder of the remote, by path, with its size (one listing)."""
        top = self.location.path(*parts)
        with self.location.errors("listing", top):
            try:
                found = self.fs.find(top, detail=True)
            except FileNotFoundError:
                return {}
        return {self.relative(str(info.get("name", name)).rstrip("/")): int(info.get("size") or 0)
                for name, info in found.items() if info.get("type", "file") != "directory"}

    def objects(self) -> dict[str, int]:
        """``{digest: size}`` of every object on the remote."""
        return {path.rsplit("/", 1)[-1]: size for path, size in self._find(OBJECTS).items()}

    def published(self) -> dict[str, list[str]]:
        """``{run id: [manifest digests]}`` of every run published on the remote."""
        runs: dict[str, list[str]] = {}
        for path in self._find(RUNS):
            parts = path.split("/")
            if len(parts) == 3 and parts[2].endswith(".json"):
                runs.setdefault(parts[1], []).append(parts[2].removesuffix(".json"))
        return {run_id: sorted(digests) for run_id, digests in sorted(runs.items())}

    def manifests(self, run_id: str) -> list[str]:
        """Digests of the manifests published for ``run_id`` (usually one)."""
        folder = self.location.path(RUNS, run_id)
        with self.location.errors("listing", folder):
            try:
                names = self.fs.ls(folder, detail=False)
            except FileNotFoundError:
                return []
        return sorted(str(n).rstrip("/").rsplit("/", 1)[-1].removesuffix(".json") for n in names
                      if str(n).endswith(".json"))

    # -- writing -------------------------------------------------------------------------

    def _parent(self, path: str) -> None:
        if self.location.atomic_writes:
            return
        parent = path.rsplit("/", 1)[0]
        if parent not in self._made:
            with self.location.errors("creating", parent):
                self.fs.makedirs(parent, exist_ok=True)
            self._made.add(parent)

    def _write(self, path: str, *, data: bytes | None = None, local: Path | None = None) -> None:
        """Write one file so that readers see all of it or nothing: object stores write
        atomically by themselves; elsewhere a temporary under tmp/ is renamed into place."""
        self._parent(path)
        target = path
        if not self.location.atomic_writes:
            target = self.location.path(TMP, f"{uuid.uuid4().hex}.part")
            self._parent(target)
        with self.location.errors("writing", self.relative(path)):
            try:
                if data is not None and not self.location.atomic_writes:
                    with self.fs.open(target, "wb") as handle:
                        if hasattr(handle, "set_pipelined"):  # SFTP: do not wait for each block's ack
                            handle.set_pipelined(True)
                        handle.write(data)
                elif data is not None:
                    self.fs.pipe_file(target, data)
                else:
                    self.fs.put_file(str(local), target)
                if target != path:
                    self.fs.mv(target, path)
            except BaseException:
                if target != path:
                    with contextlib.suppress(Exception):  # the transport is gone: the
                        self.fs.rm_file(target)           # next push sweeps tmp/
                raise

    def put_object(self, digest: str, *, local: Path | None = None, data: bytes | None = None) -> int:
        """Store the bytes of ``digest``; the bytes sent."""
        self._write(self.object_path(digest), data=data, local=local)
        return len(data) if data is not None else os.path.getsize(str(local))

    def publish_manifest(self, run_id: str, data: bytes) -> str:
        digest = digest_bytes(data)
        self._write(self.manifest_path(run_id, digest), data=data)
        return digest

    def put_json(self, path: str, value: Any) -> None:
        self._write(path, data=(json.dumps(value, indent=2, sort_keys=True) + "\n").encode())

    def remove(self, path: str) -> None:
        with self.location.errors("removing", self.relative(path)), \
                contextlib.suppress(FileNotFoundError):
                self.fs.rm_file(path)

    def sweep_tmp(self, older_than: float = 3600.0) -> int:
        """Remove temporaries of uploads that were cut off more than ``older_than`` seconds ago."""
        removed = 0
        for path in self._find(TMP):
            full = self.location.path(path)
            try:
                modified = self.fs.modified(full).timestamp()
            except Exception:
                continue
            if time.time() - modified > older_than:
                self.remove(full)
                removed += 1
        return removed

    def quarantine(self, path: str, reason: str) -> str:
        """Move a damaged file out of the layout (never deleted: a human may want to look)."""
        name = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}-" + \
            self.relative(path).replace("/", "_")
        target = self.location.path(QUARANTINE, name)
        self._parent(target)
        with self.location.errors("quarantining", self.relative(path)):
            try:
                self.fs.mv(path, target)
            except FileNotFoundError:
                return target
        self.put_json(target + ".reason.json", {"path": self.relative(path), "reason": reason})
        return target

    # -- reading -------------------------------------------------------------------------

    def read(self, path: str) -> bytes:
        with self.location.errors("reading", self.relative(path)):
            data: bytes = self.fs.cat_file(path)
        return data

    def fetch_object(self, digest: str, dest: Path) -> int:
        """Download an object to ``dest``, hashing it on the way; :class:`CorruptObject` when its
        bytes are not what its name says (the partial file is removed)."""
        path = self.object_path(digest)
        hasher = blake3.blake3()
        size = 0
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.location.errors("reading", self.relative(path)), \
                    self.fs.open(path, "rb") as remote, dest.open("wb") as local:
                while True:
                    chunk = remote.read(CHUNK)
                    if not chunk:
                        break
                    hasher.update(chunk)
                    local.write(chunk)
                    size += len(chunk)
        except BaseException:
            dest.unlink(missing_ok=True)
            raise
        actual = hasher.hexdigest()
        if actual != digest:
            dest.unlink(missing_ok=True)
            raise CorruptObject(f"remote {self.location.url}: {self.relative(path)} is corrupt: its "
                                f"bytes digest to {actual[:16]} (bit rot or a damaged upload)")
        return size

    def checkpoint_pointers(self, run_id: str) -> list[dict[str, Any]]:
        """The mirrored checkpoints of ``run_id``, newest first (by step, then epoch)."""
        found = []
        for path in self._find(CHECKPOINTS, run_id):
            try:
                pointer = json.loads(self.read(self.location.path(path)))
            except (ValueError, FileNotFoundError):
                continue
            if isinstance(pointer, dict) and {"digest", "name", "step", "epoch"} <= set(pointer):
                pointer["path"] = path
                found.append(pointer)
        return sorted(found, key=lambda p: (int(p["step"]), int(p["epoch"])), reverse=True)

    def checkpoint_runs(self) -> dict[str, list[str]]:
        """``{run id: [pointer paths]}`` of every run with mirrored checkpoints."""
        runs: dict[str, list[str]] = {}
        for path in self._find(CHECKPOINTS):
            parts = path.split("/")
            if len(parts) == 3:
                runs.setdefault(parts[1], []).append(path)
        return runs

    def iter_files(self, *parts: str) -> Iterator[tuple[str, int]]:
        yield from self._find(*parts).items()
