"""``evidence pull`` and ``doit train``'s fetch: a run from the remote is imported, never trusted.

A run published on the remote (:mod:`evidence.remote.store`) is downloaded object by object into
a scratch folder, each object re-hashed against the digest that names it (a corrupt object is
named, moved aside on the remote, and the run is not imported), and then handed to
:func:`evidence.scale.federation.import_run`: the same checks as ``evidence import`` (the
manifest against every file, the key against the identity, the identity against this project's
experiments, the weights re-evaluated under the run's numerics profile), published by one
atomic rename. A run id with several published manifests is tried manifest by manifest: one that
lies is named and skipped, and an honest one pushed since is imported.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from evidence.core.hashing import digest_bytes
from evidence.core.project import Project
from evidence.remote.location import RemoteError
from evidence.remote.store import CorruptObject, RemoteStore, Transfer
from evidence.scale.federation import Rejected, _remove_tree, import_run
from evidence.store.runs import _RUN_ID, MANIFEST, RunStore


@dataclass
class PullReport:
    imported: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    transfer: Transfer = field(default_factory=Transfer)
    stopped: str | None = None

    @property
    def ok(self) -> bool:
        return not self.rejected and self.stopped is None


def _safe_file_name(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts and "\\" not in name \
        and all(part and not part.startswith(".") for part in path.parts)


def _download(store: RemoteStore, run_id: str, manifest_digest: str, folder: Path,
              transfer: Transfer) -> None:
    """The run's manifest and every file it lists into ``folder``; raises :class:`Rejected`."""
    data = store.read(store.manifest_path(run_id, manifest_digest))
    if digest_bytes(data) != manifest_digest:
        where = store.manifest_path(run_id, manifest_digest)
        store.quarantine(where, "its bytes do not digest to its name")
        raise Rejected(f"remote runs/{run_id}/{manifest_digest[:16]}.json is corrupt (its bytes do not "
                       "digest to its name); moved to the remote's quarantine/")
    try:
        manifest = json.loads(data)
        files = manifest["files"]
        entries = {str(name): (str(e["digest"]), int(e["size"])) for name, e in files.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        raise Rejected(f"remote runs/{run_id}/{manifest_digest[:16]}.json: not a manifest") from None
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_bytes(data)
    for name, (digest, size) in sorted(entries.items()):
        if not _safe_file_name(name) or name == MANIFEST:
            raise Rejected(f"{MANIFEST}: lists an unsafe file name {name!r}")
        try:
            got = store.fetch_object(digest, folder / name)
        except CorruptObject as error:
            store.quarantine(store.object_path(digest), f"bytes do not digest to the name ({name} "
                             f"of runs/{run_id})")
            raise Rejected(f"{name}: {error.message}; moved to the remote's quarantine/ (`evidence "
                           "push` from a machine that has the run sends it again)") from None
        except FileNotFoundError:
            raise Rejected(f"{name}: the manifest lists object {digest[:16]}, which the remote "
                           "does not hold (`evidence push` from a machine that has the run sends "
                           "it)") from None
        if got != size:
            raise Rejected(f"{name}: {got} bytes on the remote, the manifest says {size}")
        transfer.bytes_sent += got
        transfer.objects_sent += 1


def pull_run(project: Project, store: RemoteStore, run_id: str, *, accept_any: bool,
             transfer: Transfer) -> tuple[str, str]:
    """Import ``run_id`` from the remote: ("imported" | "present", detail); raises
    :class:`Rejected` (the last candidate's reason) when no published manifest passes."""
    if not _RUN_ID.match(run_id):
        raise Rejected(f"{run_id!r} is not a run id")
    if (project.runs_dir / run_id / MANIFEST).is_file():
        return "present", "already sealed here"
    candidates = store.manifests(run_id)
    if not candidates:
        raise Rejected(f"runs/{run_id} is not published on the remote {store.location.url}")
    reasons = []
    scratch = project.state_dir / "remote" / f"pull.{os.getpid()}"
    for manifest_digest in candidates:
        _remove_tree(scratch)
        folder = scratch / run_id
        try:
            _download(store, run_id, manifest_digest, folder, transfer)
            source: dict[str, Any] = {"path": f"{store.location.url}/runs/{run_id}/{manifest_digest}.json",
                                      "remote": store.location.url}
            verdict, detail = import_run(project, folder, run_id, manifest_digest=manifest_digest,
                                         source=source, accept_any=accept_any)
        except Rejected as error:
            reasons.append(error.format()[len("ERROR: "):])
            continue
        finally:
            _remove_tree(scratch)
        if reasons:
            detail += f" (after rejecting {len(reasons)} other manifest(s) of it: {reasons[0]})"
        return verdict, detail
    raise Rejected(reasons[-1] if len(reasons) == 1 else f"{reasons[-1]} (and {len(reasons) - 1} "
                   "other manifest(s) of it rejected)")


def pull_runs(project: Project, store: RemoteStore, run_ids: list[str] | None = None, *,
              accept_any: bool = False, declared_only: bool = True) -> PullReport:
    """Import runs from the remote: the given ids, or every published run this project declares
    (with ``declared_only`` False or ``accept_any``: every published run)."""
    report = PullReport()
    started = time.perf_counter()
    try:
        published = store.published()
    except RemoteError as error:
        report.stopped = error.message
        return report
    chosen = run_ids if run_ids is not None else sorted(published)
    if run_ids is None and declared_only and not accept_any:
        from evidence.experiments.spec import expand_all

        bases = {spec.key[:16] for spec in expand_all(project)}
        chosen = [r for r in chosen if r[:16] in bases]
    for run_id in chosen:
        try:
            verdict, detail = pull_run(project, store, run_id, accept_any=accept_any,
                                       transfer=report.transfer)
        except Rejected as error:
            report.rejected[run_id] = error.format()[len("ERROR: "):]
            report.lines.append(f"REJECTED {run_id}: {report.rejected[run_id]}")
            continue
        except RemoteError as error:
            report.stopped = (f"pull stopped at runs/{run_id}: {error.message}; nothing of it was "
                              "imported; `evidence pull` again fetches what is missing")
            report.lines.append(f"STOPPED {report.stopped}")
            break
        (report.imported if verdict == "imported" else report.present).append(run_id)
        if verdict == "imported":
            report.lines.append(f"pulled {run_id}: {detail}")
    report.transfer.seconds = time.perf_counter() - started
    return report


def pull_for_training(project: Project, key: str, task: str) -> str | None:
    """``doit train``'s first step with a remote: the newest run of ``key`` published there,
    imported instead of trained. A line saying so, or None (train it here)."""
    from evidence.core.settings import load_settings
    from evidence.remote.location import open_remote

    settings = load_settings(project)
    if not settings.remote.get("pull_before_train", True):
        return None
    try:
        location = open_remote(project, settings)
        if location is None:
            return None
        store = RemoteStore(location)
        base = key[:16]
        published = sorted((r for r in store.published() if r == base or r.startswith(base + "-")),
                           key=lambda r: int(r.partition("-")[2] or 1), reverse=True)
    except RemoteError as error:  # the science is not blocked by an unreachable remote
        print(f"WARNING: {task}: {error.message}; not looking for it on the remote")
        return None
    transfer = Transfer()
    for run_id in published:
        try:
            _, detail = pull_run(project, store, run_id, accept_any=False, transfer=transfer)
        except (Rejected, RemoteError) as error:
            print(f"{task}: not pulling runs/{run_id} from the remote: {error.message}")
            continue
        if RunStore(project.runs_dir).find(key) is not None:
            return f"{task}: pulled runs/{run_id} from the remote instead of training it ({detail})"
    return None

