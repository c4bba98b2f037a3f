"""What one training run does with the remote: lease, resume, mirror, push when sealed.

The runner (:mod:`evidence.train.runner`) calls these few methods and nothing else of the
remote, so a run without a remote is the run it always was. Remote trouble never stops the
science: an unreachable remote is one WARNING line and the run trains here (the teardown gate
then says what is not on the remote); only another machine's live lease on the same run stops
it, since two machines must not both train it silently.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from evidence.core.project import Project
from evidence.core.settings import load_settings
from evidence.remote import lease as leases
from evidence.remote.location import RemoteError, open_remote
from evidence.remote.mirror import CheckpointMirror, fetch_latest
from evidence.remote.store import RemoteStore


def _warn(text: str) -> None:
    print(f"WARNING: {text}", file=sys.stderr, flush=True)


@dataclass
class RunRemote:
    store: RemoteStore
    run_id: str
    key: str
    task: str
    lease: leases.Lease
    mirror: CheckpointMirror | None
    push_after_seal: bool

    @classmethod
    def start(cls, project: Project, run_id: str, key: str, task: str, keep: int) -> RunRemote | None:
        """Open the remote and take the run's lease; None without a remote (or when it cannot be
        reached: then a warning says so). Raises :class:`~evidence.remote.lease.LeaseHeld`."""
        settings = load_settings(project)
        if not settings.remote_url:
            return None
        options = settings.remote
        try:
            location = open_remote(project, settings)
            if location is None:
                return None
            store = RemoteStore(location)
            seconds = float(options.get("lease_seconds", leases.DEFAULT_SECONDS))
            lease = leases.acquire(store, run_id, task, seconds)
            if store.manifests(run_id):  # sealed elsewhere since `doit train` looked
                lease.release()
                raise leases.LeaseHeld(f"{task}: another machine sealed runs/{run_id} on the remote "
                                       "just now; not training it here",
                                       hint="run `doit train` again: it pulls the run")
        except RemoteError as error:
            _warn(f"{task}: {error.message}; training without the remote (no lease, no mirror)")
            return None
        mirror = CheckpointMirror(store, run_id, key, keep=keep, lease=lease, lease_seconds=seconds) \
            if options.get("mirror_checkpoints", True) else None
        return cls(store, run_id, key, task, lease, mirror, bool(options.get("push_after_seal", True)))

    def restore(self, folder: Path) -> None:
        """A run with no checkpoint here (this machine never ran it, or lost its disk) resumes from
        the newest one mirrored on the remote, if any."""
        if folder.is_dir() and any(folder.glob("ckpt-*.pt")):
            return
        folder.mkdir(parents=True, exist_ok=True)
        try:
            line = fetch_latest(self.store, self.run_id, self.key, folder)
        except RemoteError as error:
            _warn(f"{self.task}: could not look for a mirrored checkpoint: {error.message}")
            return
        if line:
            print(f"{self.task}: {line}", file=sys.stderr, flush=True)

    def written(self, path: Path) -> None:
        if self.mirror is not None:
            self.mirror.submit(path)

    def stopped(self) -> None:
        """The run stops unsealed (a signal, a failure): its last checkpoint goes out first."""
        if self.mirror is not None:
            if not self.mirror.flush():
                _warn(f"{self.task}: the newest checkpoint is still on its way to the remote")
            line = self.mirror.report()
            if line:
                print(line, file=sys.stderr, flush=True)
            self.mirror.close()
        self._release()

    def sealed(self, project: Project) -> None:
        """The run is sealed here: push it, then drop its mirrored checkpoints."""
        from evidence.remote.push import push_runs

        try:
            if self.mirror is not None:
                self.mirror.close()
                print(f"{self.task}: {self.mirror.summary()}", file=sys.stderr, flush=True)
            if self.push_after_seal:
                report = push_runs(project, self.store, [self.run_id], say=lambda _: None)
                if report.stopped:
                    _warn(f"{self.task}: sealed here but not on the remote: {report.stopped}")
                elif self.mirror is not None:
                    self.mirror.forget()
        except RemoteError as error:
            _warn(f"{self.task}: sealed here but not on the remote: {error.message}")
        self._release()

    def _release(self) -> None:
        try:
            self.lease.release()
        except RemoteError as error:
            _warn(f"{self.task}: could not release the remote lease ({error.message}); it lapses")
