"""Durable checkpoints in a run's work folder.

A checkpoint is written so that a crash at any instant leaves either the previous checkpoint
or the new one, never a torn file that is mistaken for a good one:

1. the state is serialised to ``.ckpt-<step>.pt.tmp-<pid>``, flushed and fsynced;
2. it is renamed to ``ckpt-<step>.pt`` and the folder is fsynced;
3. its digest is written the same way to ``ckpt-<step>.pt.blake3``.

A checkpoint counts only when its digest file exists and matches, so a kill between steps 2
and 3, a truncated file or bit rot all make the loader fall back to the previous checkpoint
(with a warning). Loading uses ``torch.load(weights_only=True)``: a checkpoint is never
unpickled as arbitrary code. The newest ``keep`` checkpoints are kept.
"""

from __future__ import annotations

import io
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from evidence.core.errors import RunFailedError
from evidence.core.hashing import digest_bytes, digest_file, write_bytes_atomic

_NAME = re.compile(r"^ckpt-(\d{9})-e(\d{5})\.pt$")


@dataclass(frozen=True)
class Checkpoint:
    path: Path
    step: int
    epoch: int = 0

    @property
    def order(self) -> tuple[int, int]:
        """Checkpoints sort by step, then by completed epochs (an epoch end shares its step)."""
        return (self.step, self.epoch)


class CheckpointDir:
    """The checkpoints of one run in progress."""

    def __init__(self, folder: Path, keep: int = 3) -> None:
        self.folder = folder
        self.keep = max(1, keep)
        self.folder.mkdir(parents=True, exist_ok=True)

    def _path(self, step: int, epoch: int) -> Path:
        return self.folder / f"ckpt-{step:09d}-e{epoch:05d}.pt"

    def clean_temporaries(self) -> None:
        """Remove half-written temporaries left by a process killed mid-write."""
        for tmp in self.folder.glob(".*.tmp-*"):
            tmp.unlink(missing_ok=True)

    def candidates(self) -> list[Checkpoint]:
        """All checkpoint files, newest first (not yet verified)."""
        found = []
        for path in self.folder.iterdir():
            match = _NAME.match(path.name)
            if match:
                found.append(Checkpoint(path, int(match.group(1)), int(match.group(2))))
        return sorted(found, key=lambda c: c.order, reverse=True)

    def save(self, state: dict[str, Any], step: int, epoch: int = 0) -> Checkpoint:
        """Write a checkpoint durably; on failure the previous checkpoints stay intact."""
        buffer = io.BytesIO()
        torch.save(state, buffer)
        data = buffer.getvalue()
        path = self._path(step, epoch)
        try:
            write_bytes_atomic(path, data, durable=True)
            write_bytes_atomic(path.with_name(path.name + ".blake3"),
                               (digest_bytes(data) + "\n").encode(), durable=True)
        except OSError as error:
            path.unlink(missing_ok=True)
            previous = [c.step for c in self.candidates() if c.path != path]
            where = f"the checkpoint of step {previous[0]} is intact" if previous else \
                "no earlier checkpoint exists"
            raise RunFailedError(f"writing checkpoint {path} failed: {error.strerror or error}; "
                                 f"{where}", hint="free disk space or fix permissions, then "
                                 "run `doit train` again to resume") from error
        self._prune()
        return Checkpoint(path, step, epoch)

    def _prune(self) -> None:
        for old in self.candidates()[self.keep:]:
            old.path.unlink(missing_ok=True)
            old.path.with_name(old.path.name + ".blake3").unlink(missing_ok=True)

    def verify(self, checkpoint: Checkpoint) -> str | None:
        """None if the checkpoint matches its digest, else why not."""
        digest_path = checkpoint.path.with_name(checkpoint.path.name + ".blake3")
        try:
            expected = digest_path.read_text("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return "its digest file is missing (the write was interrupted)"
        actual = digest_file(checkpoint.path)
        if actual != expected:
            return f"digest {actual[:12]} does not match the recorded {expected[:12]} (corrupt)"
        return None

    def load_latest(self) -> tuple[Checkpoint, dict[str, Any]] | None:
        """The newest checkpoint that verifies and loads; corrupt ones are skipped with a warning."""
        for checkpoint in self.candidates():
            problem = self.verify(checkpoint)
            if problem is None:
                try:
                    state = torch.load(checkpoint.path, map_location="cpu", weights_only=True)
                except Exception as error:  # a digest-valid file that torch cannot read
                    problem = f"cannot be loaded: {error}"
                else:
                    return checkpoint, state
            print(f"WARNING: skipping checkpoint {checkpoint.path.name}: {problem}",
                  file=sys.stderr)
        return None

    def latest_step(self) -> int | None:
        """Step of the newest checkpoint file (unverified; for status views)."""
        found = self.candidates()
        return found[0].step if found else None


class CheckpointClock:
    """When a checkpoint is due: every ``every_steps`` steps and/or every ``every_seconds``.

    One object instead of counters shared between closures; it never touches an RNG, so asking
    it cannot change what a run computes (cadence is not part of the run key).
    """

    def __init__(self, cadence: dict[str, Any]) -> None:
        self.every_steps = int(cadence.get("every_steps", 0))
        self.every_seconds = float(cadence.get("every_seconds", 30.0))
        self.last_save = time.monotonic()

    def due(self, step: int) -> bool:
        return bool((self.every_steps and step % self.every_steps == 0) or
                    (self.every_seconds and time.monotonic() - self.last_save >= self.every_seconds))

    def saved(self) -> None:
        self.last_save = time.monotonic()


def size_on_disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.glob("ckpt-*.pt") if p.is_file()) \
        if folder.exists() else 0


def remove_folder(folder: Path) -> None:
    """Remove a work folder after its run was sealed (the sealed run holds the final weights)."""
    if not folder.exists():
        return
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()
    os.rmdir(folder)
