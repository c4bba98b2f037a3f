"""Checkpoints to durable: a run's checkpoints copied to the remote while it trains.

The training loop only hands the path of a checkpoint it has just written durably to
:meth:`CheckpointMirror.submit`, which never blocks: a background thread takes it from a queue
of one slot (a newer checkpoint replaces one still waiting; only the newest matters), re-reads
the file, checks it against its recorded digest (a checkpoint is mirrored only once verified),
sends it as an object and then writes the pointer ``checkpoints/<run-id>/<name>.<d16>.json``
that makes it visible; older mirrored checkpoints of the run are removed only after that. So at
every instant the newest verified checkpoint on the remote is complete, and a machine that
loses its disk resumes from it (:func:`fetch_latest`). The same thread renews the run's lease.

Failures of the remote never stop training: they are counted and the last one is reported when
the run ends (the teardown gate, ``evidence remote status``, then says what is missing).
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any

from evidence.core.hashing import digest_bytes, write_bytes_atomic
from evidence.remote.lease import Lease
from evidence.remote.location import RemoteError
from evidence.remote.store import CHECKPOINTS, CorruptObject, RemoteStore

#: How often the thread renews the lease, as a share of the lease's lifetime.
BEAT_SHARE = 0.25
#: The thread yields the CPU to training: its nice value (Linux applies it to the thread alone).
NICE = 10


class CheckpointMirror:
    """One run's checkpoints, mirrored by a daemon thread; see the module docstring."""

    def __init__(self, store: RemoteStore, run_id: str, key: str, *, keep: int = 2,
                 lease: Lease | None = None, lease_seconds: float = 300.0) -> None:
        self.store = store
        self.run_id = run_id
        self.key = key
        self.keep = max(1, keep)
        self.lease = lease
        self.beat_every = lease_seconds * BEAT_SHARE
        self.pending: queue.Queue[Path | None] = queue.Queue(maxsize=1)
        self.mirrored: list[dict[str, Any]] = []
        self.failures = 0
        self.last_error: str | None = None
        self.seconds = 0.0
        self.bytes_sent = 0
        self.sent = 0
        self._thread = threading.Thread(target=self._work, name=f"mirror-{run_id}", daemon=True)
        self._thread.start()

    # -- the training side (never blocks) ------------------------------------------------

    def submit(self, path: Path) -> None:
        while True:
            try:
                self.pending.put_nowait(path)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self.pending.get_nowait()  # superseded by this newer checkpoint
                    self.pending.task_done()

    def flush(self, timeout: float = 120.0) -> bool:
        """Wait until every submitted checkpoint is mirrored or superseded (at the end of a run, or
        on a stop); False if that took longer than ``timeout``."""
        deadline = time.monotonic() + timeout
        with self.pending.all_tasks_done:
            while self.pending.unfinished_tasks:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self._thread.is_alive():
                    return False
                self.pending.all_tasks_done.wait(min(remaining, 1.0))
        return True

    def close(self) -> None:
        self.flush()
        if self._thread.is_alive():
            with contextlib.suppress(queue.Full):  # still busy after the flush's wait: a daemon
                self.pending.put(None, timeout=30)  # thread, it ends with the process
            self._thread.join(timeout=30)

    # -- the thread ----------------------------------------------------------------------

    def _work(self) -> None:
        with contextlib.suppress(AttributeError, OSError):  # Linux: a nice value per thread
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
        last_beat = time.monotonic()
        while True:
            try:
                path = self.pending.get(timeout=max(1.0, self.beat_every))
            except queue.Empty:
                path = Path()  # no checkpoint: a renewal tick
            if path is None:
                self.pending.task_done()
                return
            started = time.perf_counter()
            try:
                if path.name:
                    self._mirror(path)
                if self.lease is not None and time.monotonic() - last_beat >= self.beat_every:
                    self.lease.beat()
                    last_beat = time.monotonic()
            except Exception as error:  # never let the thread die silently: report it at the end
                self.failures += 1
                self.last_error = error.message if isinstance(error, RemoteError) else \
                    f"{type(error).__name__}: {error}"
            finally:
                self.seconds += time.perf_counter() - started
                if path.name:
                    self.pending.task_done()

    def _mirror(self, path: Path) -> None:
        pointer = send_checkpoint(self.store, self.run_id, self.key, path)
        if pointer is None:
            return
        self.bytes_sent += int(pointer["size"])
        self.sent += 1
        self.mirrored.insert(0, pointer)
        for old in self.mirrored[self.keep:]:
            self.store.remove(old["path"])
            self.store.remove(self.store.object_path(old["digest"]))
        del self.mirrored[self.keep:]

    def forget(self) -> None:
        """The run is sealed and pushed: its mirrored checkpoints are no longer needed."""
        self.flush()
        for pointer in self.store.checkpoint_pointers(self.run_id):
            self.store.remove(self.store.location.path(pointer["path"]))
            self.store.remove(self.store.object_path(pointer["digest"]))
        self.mirrored.clear()

    def summary(self) -> str:
        """What the thread did beside training (the bench reads this line)."""
        return (f"mirrored {self.sent} checkpoint(s) of runs/{self.run_id} ({self.bytes_sent / 1e6:.1f} MB) "
                f"to the remote; the mirror thread was busy {self.seconds:.2f} s beside training")

    def report(self) -> str | None:
        if not self.failures:
            return None
        return (f"WARNING: {self.failures} checkpoint mirror write(s) to the remote failed (last: "
                f"{self.last_error}); `evidence remote status` says what is missing")


def send_checkpoint(store: RemoteStore, run_id: str, key: str, path: Path) -> dict[str, Any] | None:
    """Mirror one checkpoint file if it verifies against its digest file: the object first, then
    the pointer that makes it visible. The pointer (with its remote path), or None."""
    try:
        data = path.read_bytes()
        recorded = path.with_name(path.name + ".blake3").read_text("ascii").strip()
    except OSError:
        return None  # pruned locally already: a newer checkpoint is on its way
    digest = digest_bytes(data)
    if digest != recorded:
        return None  # not verified: never mirror a torn or corrupt checkpoint
    store.put_object(digest, data=data)
    pointer = {"run_id": run_id, "key": key, "name": path.name, "digest": digest,
               "size": len(data), "step": int(path.name[5:14]), "epoch": int(path.name[16:21])}
    where = store.location.path(CHECKPOINTS, run_id, f"{path.name}.{digest[:16]}.json")
    store.put_json(where, pointer)
    return {**pointer, "path": where}


def fetch_latest(store: RemoteStore, run_id: str, key: str, folder: Path) -> str | None:
    """Bring the newest mirrored checkpoint of ``run_id`` into ``folder`` (with its digest file),
    where the runner's loader finds it; a line saying what was fetched, or None."""
    for pointer in store.checkpoint_pointers(run_id):
        if pointer.get("key") != key:
            continue
        name = str(pointer["name"])
        if not name.startswith("ckpt-") or "/" in name:
            continue
        target = folder / name
        try:
            store.fetch_object(str(pointer["digest"]), target.with_name(f".{name}.fetch"))
        except CorruptObject as error:
            print(f"WARNING: {error}; trying an older mirrored checkpoint", file=sys.stderr)
            continue
        except FileNotFoundError:
            continue
        target.with_name(f".{name}.fetch").rename(target)
        write_bytes_atomic(target.with_name(name + ".blake3"), f"{pointer['digest']}\n".encode(),
                           durable=True)
        return (f"fetched checkpoint {name} (step {pointer['step']}) of runs/{run_id} from the remote "
                f"{store.location.url}")
    return None
