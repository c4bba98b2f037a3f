"""``evidence push``: send sealed runs to the remote, each object once, the manifest last.

A run is re-hashed here first (a damaged run is never pushed: it would spread the damage), then
every file its manifest lists is sent as the object named by its digest unless the remote holds
that object already (one listing of ``objects/`` per push: a dataset or weights shared by many
runs cross the network once), and only then is the manifest written. A push cut off anywhere
(the connection dropped, the remote full, the process killed) leaves objects but no manifest:
no run is visible, and the next push sends only what is missing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from evidence.core.hashing import digest_file
from evidence.core.project import Project
from evidence.remote.location import RemoteError
from evidence.remote.store import RemoteStore, Transfer
from evidence.store.runs import MANIFEST, RunStore


@dataclass
class PushReport:
    pushed: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    transfer: Transfer = field(default_factory=Transfer)
    stopped: str | None = None  # the one line that says why the push stopped early

    @property
    def ok(self) -> bool:
        return not self.refused and self.stopped is None


def push_run(store: RemoteStore, runs: RunStore, run_id: str, known: dict[str, int],
             published: dict[str, list[str]], transfer: Transfer) -> str:
    """Push one sealed run: "pushed", "repaired" (published already, but an object a pull had
    found corrupt and moved aside is sent again) or "present". ``known`` is kept up to date."""
    folder = runs.path(run_id)
    manifest_bytes = (folder / MANIFEST).read_bytes()
    manifest_digest = digest_file(folder / MANIFEST)
    manifest = json.loads(manifest_bytes)
    sent_before = transfer.objects_sent
    for name, entry in sorted(manifest["files"].items()):
        digest, size = entry["digest"], int(entry["size"])
        if digest in known:
            if known[digest] == size:
                transfer.objects_skipped += 1
                transfer.bytes_skipped += size
                continue
            store.quarantine(store.object_path(digest), f"size {known[digest]} is not the "
                             f"{size} bytes of runs/{run_id}/{name}")  # damage: send it again
        transfer.bytes_sent += store.put_object(digest, local=folder / name)
        transfer.objects_sent += 1
        known[digest] = size
    if manifest_digest in published.get(run_id, []):
        return "repaired" if transfer.objects_sent > sent_before else "present"
    store.publish_manifest(run_id, manifest_bytes)
    transfer.bytes_sent += len(manifest_bytes)
    published.setdefault(run_id, []).append(manifest_digest)
    return "pushed"


def push_runs(project: Project, store: RemoteStore, run_ids: list[str] | None = None, *,
              say: Callable[[str], None] = print) -> PushReport:
    """Push the given sealed runs (default: every sealed run here) that the remote lacks."""
    runs = RunStore(project.runs_dir)
    report = PushReport()
    started = time.perf_counter()
    try:
        store.sweep_tmp()
        known = store.objects()
        published = store.published()
    except RemoteError as error:
        report.stopped = error.message
        return report
    for run_id in run_ids if run_ids is not None else runs.run_ids():
        findings = runs.fsck_run(run_id)
        if findings:
            report.refused[run_id] = str(findings[0])
            say(f"NOT PUSHED runs/{run_id}: damaged here ({findings[0]}); `doit fsck` names every problem")
            continue
        try:
            verdict = push_run(store, runs, run_id, known, published, report.transfer)
        except RemoteError as error:
            report.stopped = (f"push stopped at runs/{run_id}: {error.message}; nothing of it was "
                              "published; `evidence push` again sends only what is missing")
            say(f"STOPPED {report.stopped}")
            break
        (report.present if verdict == "present" else report.pushed).append(run_id)
        if verdict != "present":
            say(f"{verdict} runs/{run_id}")
    report.transfer.seconds = time.perf_counter() - started
    return report


def push_checkpoints(project: Project, store: RemoteStore, *,
                     say: Callable[[str], None] = print) -> list[str]:
    """Mirror the newest verified checkpoint of every run stopped here in progress (killed,
    interrupted, failed) that the remote lacks; a run training now mirrors its own."""
    from evidence.core.processes import pid_alive
    from evidence.remote.gate import newest_verified_checkpoint
    from evidence.remote.mirror import send_checkpoint

    sent = []
    work = project.work_dir
    for status_file in sorted(work.glob("*/status.json")) if work.is_dir() else []:
        folder = status_file.parent
        if (project.runs_dir / folder.name / MANIFEST).is_file():
            continue
        try:
            status = json.loads(status_file.read_text("utf-8"))
            key = json.loads((folder / "spec.json").read_text("utf-8"))["key"]
        except (OSError, ValueError, KeyError):
            continue
        if pid_alive(int(status.get("pid") or 0)) and status.get("state") not in ("failed", "interrupted"):
            continue
        newest = newest_verified_checkpoint(folder / "checkpoints")
        if newest is None or newest[1] in {p["digest"] for p in store.checkpoint_pointers(folder.name)}:
            continue
        if send_checkpoint(store, folder.name, key, folder / "checkpoints" / newest[0]):
            sent.append(folder.name)
            say(f"mirrored checkpoint {newest[0]} of {folder.name} (stopped here in progress)")
    return sent
