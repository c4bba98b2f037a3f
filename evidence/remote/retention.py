"""``evidence gc --remote``: what the remote holds that nothing here needs, removed only on request.

Collected (a dry run lists them; ``--delete`` removes them):

* runs published on the remote that no experiment of this project declares, except a run that a
  claim uses (``claims.json`` of the last delivery names its runs): a claim's evidence is never
  collected, even when its experiment was edited since;
* mirrored checkpoints of runs that are published (their sealed weights are there);
* leftover uploads under ``tmp/`` and objects that no published manifest or checkpoint names any
  more (after the runs above are removed), once they are an hour old (younger ones may belong to
  an upload in flight whose manifest is not written yet).

A remote shared by a team holds runs of other projects: collecting is for the project that owns
the remote, and the dry run says exactly what would go.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from evidence.core.project import Project
from evidence.remote.store import RemoteStore


@dataclass
class Plan:
    lines: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    objects: int = 0
    bytes: int = 0

    @property
    def summary(self) -> str:
        return (f"{len(self.runs)} unreferenced run(s) and {self.objects} unreferenced object(s) "
                f"({self.bytes} bytes) on the remote")


def claimed_runs(project: Project) -> set[str]:
    """Run ids that a claim of the last delivery (or the last claims step) rests on."""
    found: set[str] = set()
    for path in (project.deliver_dir / "claims.json", project.claims_dir / "claims.json"):
        try:
            claims = json.loads(path.read_text("utf-8")).get("claims", [])
        except (OSError, ValueError, AttributeError):
            continue
        for claim in claims:
            found.update(str(run.get("run_id")) for run in claim.get("runs") or [])
    return found


#: An object younger than this may belong to an upload in flight (its manifest or pointer not yet
#: written): it is never collected.
GRACE_SECONDS = 3600.0


def _settled(store: RemoteStore, digest: str) -> bool:
    try:
        return time.time() - store.fs.modified(store.object_path(digest)).timestamp() > GRACE_SECONDS
    except Exception:
        return False


def collect(project: Project, store: RemoteStore, *, delete: bool) -> Plan:
    from evidence.experiments.spec import expand_all

    plan = Plan()
    declared = {spec.key[:16] for spec in expand_all(project)}
    claimed = claimed_runs(project)
    published = store.published()
    doing = "deleting" if delete else "unreferenced"
    for run_id, digests in published.items():
        if run_id.partition("-")[0] in declared or run_id in claimed:
            continue
        plan.runs.append(run_id)
        plan.lines.append(f"{doing} remote runs/{run_id} (no experiment here declares it)")
        if delete:
            for digest in digests:
                store.remove(store.manifest_path(run_id, digest))
    kept = {r: d for r, d in published.items() if r not in plan.runs}
    referenced: set[str] = set()
    for run_id, digests in kept.items():
        for digest in digests:
            manifest = json.loads(store.read(store.manifest_path(run_id, digest)))
            referenced.update(str(e["digest"]) for e in manifest.get("files", {}).values())
    for run_id in store.checkpoint_runs():
        for pointer in store.checkpoint_pointers(run_id):
            if run_id in kept:  # sealed and published: its checkpoints are superseded
                plan.lines.append(f"{doing} mirrored checkpoint {pointer['name']} of runs/{run_id} "
                                  "(the run is published)")
                if delete:
                    store.remove(store.location.path(pointer["path"]))
            else:
                referenced.add(str(pointer["digest"]))
    for digest, size in sorted(store.objects().items()):
        if digest not in referenced and _settled(store, digest):
            plan.objects += 1
            plan.bytes += size
            if delete:
                store.remove(store.object_path(digest))
    if delete:
        store.sweep_tmp(older_than=3600.0)
    return plan
