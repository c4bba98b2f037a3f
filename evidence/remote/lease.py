"""A lease on the remote: two machines that start the same run do not both train it.

The local lock (``filelock``) keeps two processes of one machine apart; machines that share only
the remote need a lock there, and a store may offer no atomic "create if absent". So a claimant
writes its own lease file, ``leases/<run-id>/<host>-<pid>-<nonce>.json``, and then lists the
folder: the live lease written first (by the *store's* clock: the file's modified time, never a
client's) holds the run; every other claimant removes its file and does not train. Stores that
keep modified times to the second get a settling pause first, so that two leases written within
the same second are seen by both claimants and ordered by name the same way.

A holder renews its lease (``<name>.beat``) from the checkpoint mirror's thread; a lease whose
newest write is older than ``lease_seconds`` by the store's clock (measured against the
claimant's own just-written file), or whose holder is a dead process on this very host, is
abandoned and removed by the next claimant.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any

from evidence.core.errors import RunFailedError
from evidence.core.processes import pid_alive
from evidence.remote.location import Location, RemoteError
from evidence.remote.store import LEASES, RemoteStore

DEFAULT_SECONDS = 300.0
#: Pause before looking at rivals on stores whose modified times are kept to the second.
COARSE_SETTLE = 2.1


class LeaseHeld(RunFailedError):
    """Another machine holds the run's lease."""


@dataclass
class Lease:
    store: RemoteStore
    run_id: str
    name: str

    @property
    def path(self) -> str:
        return self.store.location.path(LEASES, self.run_id, f"{self.name}.json")

    def beat(self) -> None:
        """Renew the lease (called from the mirror's thread; a failure is only reported later)."""
        self.store._write(self.path.removesuffix(".json") + ".beat", data=str(time.time()).encode())

    def release(self) -> None:
        for suffix in (".beat", ".json"):
            self.store.remove(self.path.removesuffix(".json") + suffix)


def _modified(location: Location, path: str) -> float:
    with location.errors("reading the time of", path):
        return float(location.fs.modified(path).timestamp())


def _rivals(store: RemoteStore, run_id: str) -> dict[str, dict[str, Any]]:
    """Every lease of ``run_id``: its record, when it was written and when last renewed."""
    found: dict[str, dict[str, Any]] = {}
    for path, _ in store.iter_files(LEASES, run_id):
        stem, _, suffix = path.rsplit("/", 1)[-1].rpartition(".")
        full = store.location.path(path)
        try:
            when = _modified(store.location, full)
        except (FileNotFoundError, RemoteError):
            continue
        entry = found.setdefault(stem, {"written": None, "renewed": 0.0, "record": {}})
        entry["renewed"] = max(entry["renewed"], when)
        if suffix == "json":
            entry["written"] = when
            with contextlib.suppress(ValueError, FileNotFoundError):
                entry["record"] = json.loads(store.read(full))
    return {stem: entry for stem, entry in found.items() if entry["written"] is not None}


def acquire(store: RemoteStore, run_id: str, task: str, seconds: float = DEFAULT_SECONDS) -> Lease:
    """Take the lease of ``run_id`` or raise :class:`LeaseHeld` naming who holds it."""
    host = socket.gethostname()
    mine = Lease(store, run_id, f"{host}-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    store.put_json(mine.path, {"run_id": run_id, "host": host, "pid": os.getpid(),
                               "started_at": time.time()})
    if store.location.atomic_writes or "sftp" in str(store.location.fs.protocol):
        time.sleep(COARSE_SETTLE)
    mine.beat()
    now = _modified(store.location, mine.path.removesuffix(".json") + ".beat")
    live = []
    for stem, entry in _rivals(store, run_id).items():
        record = entry["record"]
        dead_here = record.get("host") == host and record.get("pid") != os.getpid() and \
            not pid_alive(int(record.get("pid") or 0))
        if stem != mine.name and (dead_here or now - entry["renewed"] > seconds):
            Lease(store, run_id, stem).release()  # abandoned: its holder died or went silent
            continue
        live.append((entry["written"], stem, entry))
    live.sort(key=lambda item: (item[0], item[1]))
    if not live or live[0][1] == mine.name:
        return mine
    mine.release()
    _, _, holder = live[0]
    record = holder["record"]
    raise LeaseHeld(f"{task}: another machine is training this run ({record.get('host', '?')}, pid "
                    f"{record.get('pid', '?')}, lease taken {now - holder['written']:.0f} s ago, "
                    f"renewed {now - holder['renewed']:.0f} s ago); not training it here",
                    hint="run `doit train` again when it is done (the run is then pulled from the "
                         f"remote) or after its lease lapses ({seconds:.0f} s without renewal)")
