"""Spreading runs over the devices (or cores) of one box without oversubscribing them.

``doit -n N train`` starts N runner processes at once. Left alone, N CUDA runs would all land on
GPU 0 and N CPU runs with ``threads`` torch threads each would fight over the same cores. Before
it starts a runner, the doit action therefore takes *slots* from a small allocator:

* **CUDA** (experiment ``device = "cuda"``): one slot per device and run by default
  (``runs_per_device`` in ``evidence.toml``'s ``[devices]`` table, or
  ``EVIDENCE_RUNS_PER_DEVICE``); a run of world size W takes slots on W distinct devices and
  sees exactly those through ``CUDA_VISIBLE_DEVICES``.
* **CPU**: one slot per core this process may use; a run takes ``world_size x threads`` cores
  (all of them if it needs more than the box has) and the runner pins itself to them
  (``EVIDENCE_CPUS``, applied with ``sched_setaffinity``; ``pin_cpus = false`` turns that off).

A slot is a file ``.evidence/devices/<kind><device>.<k>.lock`` held with an exclusive
``flock``. The kernel drops the lock when the last process holding the open file ends, so the
slots of a killed doit or runner come back by themselves, without pid files or clean-up. The
descriptors are handed to the runner (``pass_fds``), so a slot stays taken while the run lives
even if the doit process that took it dies first. A run that finds too few free slots waits,
holding none (no hold-and-wait, so no deadlock between runs that need several).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

POLL_SECONDS = 0.2


@dataclass
class Allocation:
    """Slots held by this process: the device ids (CUDA indices or core numbers) and their locks."""

    kind: str
    devices: list[int]
    fds: list[int] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        """Environment for the runner: which devices it may use."""
        if self.kind == "cuda":
            return {"CUDA_VISIBLE_DEVICES": ",".join(map(str, self.devices))}
        return {"EVIDENCE_CPUS": ",".join(map(str, self.devices))} if self.devices else {}

    def release(self) -> None:
        """Close our descriptors; the lock ends when no process (doit or runner) holds one."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []


class SlotAllocator:
    """``per_device`` slots on each of ``devices`` of one ``kind``, shared by all processes."""

    def __init__(self, folder: Path, kind: str, devices: Sequence[int], per_device: int = 1) -> None:
        self.folder = folder
        self.kind = kind
        self.devices = list(devices)
        self.per_device = max(1, per_device)

    def _path(self, device: int, slot: int) -> Path:
        return self.folder / f"{self.kind}{device}.{slot}.lock"

    def _take(self, device: int, label: str) -> int | None:
        """A free slot of ``device`` (its locked descriptor), or None if all are taken."""
        for slot in range(self.per_device):
            fd = os.open(self._path(device, slot), os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {label}\n".encode())
            return fd
        return None

    def try_acquire(self, count: int, label: str = "") -> Allocation | None:
        """Slots on ``count`` distinct devices, or None (holding nothing) if not enough are free."""
        self.folder.mkdir(parents=True, exist_ok=True)
        count = min(count, len(self.devices))
        taken = Allocation(self.kind, [])
        for device in self.devices:
            if len(taken.devices) == count:
                break
            fd = self._take(device, label)
            if fd is not None:
                taken.devices.append(device)
                taken.fds.append(fd)
        if len(taken.devices) < count:
            taken.release()
            return None
        return taken

    def acquire(self, count: int, label: str = "", on_wait: Callable[[], None] | None = None,
                timeout: float | None = None) -> Allocation:
        """Wait until ``count`` devices have a free slot; raise TimeoutError after ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        waited = False
        while True:
            found = self.try_acquire(count, label)
            if found is not None:
                return found
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"no {count} free {self.kind} slot(s) in {self.folder}")
            if not waited and on_wait is not None:
                on_wait()
            waited = True
            time.sleep(POLL_SECONDS)

    def holders(self) -> dict[str, str]:
        """Slot file -> "pid label" of its holder, for the slots that are taken now."""
        found = {}
        for path in sorted(self.folder.glob(f"{self.kind}*.lock")):
            fd = os.open(path, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                found[path.name] = path.read_text("utf-8").strip()
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        return found


def cuda_devices() -> list[int]:
    """CUDA device indices visible to this process, found without importing torch.

    ``CUDA_VISIBLE_DEVICES`` wins when set (a scheduler may have restricted us); otherwise the
    driver's ``/proc/driver/nvidia/gpus`` lists one folder per GPU.
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [int(v) for v in visible.split(",") if v.strip().isdigit()]
    proc = Path("/proc/driver/nvidia/gpus")
    return list(range(len(list(proc.iterdir())))) if proc.is_dir() else []


def cpu_cores() -> list[int]:
    """The cores this process may run on."""
    return sorted(os.sched_getaffinity(0))


@contextmanager
def allocate(folder: Path, *, device: str, world_size: int, threads: int, runs_per_device: int = 1,
             pin_cpus: bool = True, label: str = "",
             on_wait: Callable[[], None] | None = None) -> Iterator[Allocation]:
    """Hold the slots one run needs while the body runs (see the module docstring)."""
    if device == "cuda":
        allocator = SlotAllocator(folder, "cuda", cuda_devices(), runs_per_device)
        count = world_size
    else:
        allocator = SlotAllocator(folder, "cpu", cpu_cores(), 1)
        count = world_size * max(1, threads)
    if not allocator.devices or (device != "cuda" and not pin_cpus):
        yield Allocation(device, [])  # nothing to share out: the runner reports a missing GPU
        return
    allocation = allocator.acquire(count, label, on_wait)
    try:
        yield allocation
    finally:
        allocation.release()


def pin_to_cpus(rank: int = 0, threads: int = 1) -> None:
    """Pin this runner process to its share of ``EVIDENCE_CPUS`` (set by :func:`allocate`).

    Rank r of a distributed run takes cores ``[r*threads, (r+1)*threads)`` of the allocation
    when there are enough, else the whole allocation.
    """
    text = os.environ.get("EVIDENCE_CPUS", "")
    cores = [int(c) for c in text.split(",") if c.strip().isdigit()]
    if not cores:
        return
    mine = cores[rank * threads:(rank + 1) * threads]
    os.sched_setaffinity(0, mine if len(mine) == threads else cores)
