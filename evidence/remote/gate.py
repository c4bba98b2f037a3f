"""The teardown gate: may this machine be destroyed without losing anything it made?

Safe means: every run sealed here is published on the remote (its manifest, or for a run that
was itself imported the manifest it arrived with, and every object that manifest lists, with
its size), no run is training here, and every run left in progress here has its newest verified
checkpoint mirrored, so another machine resumes it. ``deep`` also re-reads every object of
those runs from the remote and re-hashes it (bit rot on the remote is then named too).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from evidence.core.hashing import digest_file
from evidence.core.processes import pid_alive
from evidence.core.project import Project
from evidence.remote.store import CorruptObject, RemoteStore
from evidence.store.runs import MANIFEST, ORIGIN_MANIFEST, RunStore

_CHECKPOINT = re.compile(r"^ckpt-\d{9}-e\d{5}\.pt$")


@dataclass
class Gate:
    runs: int = 0
    covered: int = 0
    running: list[str] = field(default_factory=list)
    resumable: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def safe(self) -> bool:
        return not self.missing and not self.running

    def headline(self) -> str:
        counts = f"{self.covered}/{self.runs} runs and {len(self.running)} running"
        extra = f" ({len(self.resumable)} stopped run(s) resume from the remote)" if self.resumable else ""
        if self.safe:
            return f"safe to destroy this machine: {counts}{extra}"
        return f"NOT safe to destroy this machine: {counts}{extra}"


def newest_verified_checkpoint(folder: Path) -> tuple[str, str] | None:
    """(name, digest) of the newest checkpoint in ``folder`` whose digest file matches it."""
    if not folder.is_dir():
        return None
    for path in sorted((p for p in folder.iterdir() if _CHECKPOINT.match(p.name)), reverse=True):
        try:
            recorded = path.with_name(path.name + ".blake3").read_text("ascii").strip()
        except OSError:
            continue
        if digest_file(path) == recorded:
            return path.name, recorded
    return None


def _manifests_of(folder: Path) -> list[tuple[str, dict[str, dict[str, int | str]]]]:
    """(digest, files) of the run's own manifest and, if it was imported, its origin manifest."""
    found = []
    for name in (MANIFEST, ORIGIN_MANIFEST):
        path = folder / name
        if path.is_file():
            files = json.loads(path.read_text("utf-8"))["files"]
            found.append((digest_file(path), files))
    return found


def check(project: Project, store: RemoteStore, *, deep: bool = False) -> Gate:
    gate = Gate()
    runs = RunStore(project.runs_dir)
    objects = store.objects()
    published = store.published()
    scratch = project.state_dir / "remote" / "deep-check"
    for run_id in runs.run_ids():
        gate.runs += 1
        folder = runs.path(run_id)
        problem = "not on the remote (`evidence push` sends it)"
        for digest, files in _manifests_of(folder):
            if digest not in published.get(run_id, []):
                continue
            lacking = [name for name, entry in sorted(files.items())
                       if objects.get(str(entry["digest"])) != int(entry["size"])]
            if lacking:
                problem = f"published, but the remote lacks {lacking[0]} (`evidence push` sends it)"
                continue
            if deep:
                try:
                    for entry in files.values():
                        store.fetch_object(str(entry["digest"]), scratch / "object")
                except CorruptObject as error:
                    problem = f"{error.message} (`evidence pull` moves it aside, `evidence push` resends)"
                    continue
                finally:
                    (scratch / "object").unlink(missing_ok=True)
            problem = ""
            break
        if problem:
            gate.missing.append(f"runs/{run_id}: {problem}")
        else:
            gate.covered += 1
    work = project.work_dir
    for status_file in sorted(work.glob("*/status.json")) if work.is_dir() else []:
        run_id = status_file.parent.name
        if (project.runs_dir / run_id / MANIFEST).is_file():
            continue  # sealed; its work folder is a leftover
        try:
            status = json.loads(status_file.read_text("utf-8"))
        except (OSError, ValueError):
            status = {}
        if pid_alive(int(status.get("pid") or 0)) and status.get("state") not in ("failed", "interrupted"):
            gate.running.append(run_id)
            gate.missing.append(f"{run_id}: training here now (pid {status.get('pid')})")
            continue
        newest = newest_verified_checkpoint(status_file.parent / "checkpoints")
        if newest is None:
            continue  # nothing to lose: it starts from scratch anywhere
        mirrored = {p["digest"] for p in store.checkpoint_pointers(run_id)}
        if newest[1] in mirrored and objects.get(newest[1]) is not None:
            gate.resumable.append(run_id)
        else:
            gate.missing.append(f"{run_id}: its newest checkpoint {newest[0]} is not on the remote "
                                "(`evidence push` sends it)")
    return gate
