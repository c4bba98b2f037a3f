"""The device/core slot allocator, with real concurrent processes and no GPU.

Slots are flock-held files: concurrent processes must get distinct slots, a process that dies
(even by SIGKILL) must give its slots back without any clean-up, and a run that needs more
slots than are free must wait while holding none.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evidence.train.devices import SlotAllocator, allocate, pin_to_cpus

# A holder process: takes `count` slots, prints the devices, waits for its release file.
HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from evidence.train.devices import SlotAllocator
    folder, devices, per_device, count, release = sys.argv[1:6]
    allocator = SlotAllocator(Path(folder), "cuda", [int(d) for d in devices.split(",")],
                              int(per_device))
    allocation = allocator.acquire(int(count), label="test", timeout=30)
    print(",".join(map(str, allocation.devices)), flush=True)
    while not Path(release).exists():
        time.sleep(0.02)
""")


def holder(folder: Path, devices: str, count: int, release: Path,
           per_device: int = 1) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), devices, str(per_device),
                             str(count), str(release)], stdout=subprocess.PIPE, text=True)


def devices_of(process: subprocess.Popen[str]) -> list[int]:
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    assert line, "the holder did not get its slots"
    return [int(d) for d in line.split(",")]


def test_concurrent_processes_get_distinct_slots_and_a_full_box_waits(tmp_path: Path) -> None:
    release = tmp_path / "release"
    folder = tmp_path / "devices"
    holders = [holder(folder, "0,1,2", 1, release) for _ in range(3)]
    try:
        got = sorted(d for h in holders for d in devices_of(h))
        assert got == [0, 1, 2]
        # Every device is taken: a fourth run waits (here: times out) and holds nothing.
        allocator = SlotAllocator(folder, "cuda", [0, 1, 2])
        assert allocator.try_acquire(1) is None
        with pytest.raises(TimeoutError):
            allocator.acquire(1, timeout=0.5)
        assert len(allocator.holders()) == 3
        assert all(text.endswith(" test") for text in allocator.holders().values())
    finally:
        release.touch()
        for h in holders:
            h.communicate(timeout=30)
    # All released: a run of world size 3 gets three distinct devices at once.
    allocation = SlotAllocator(folder, "cuda", [0, 1, 2]).try_acquire(3)
    assert allocation is not None and sorted(allocation.devices) == [0, 1, 2]
    assert allocation.env() == {"CUDA_VISIBLE_DEVICES": "0,1,2"}
    allocation.release()


def test_slots_of_a_killed_process_come_back(tmp_path: Path) -> None:
    release = tmp_path / "release"
    folder = tmp_path / "devices"
    victim = holder(folder, "0,1", 2, release)
    assert sorted(devices_of(victim)) == [0, 1]
    allocator = SlotAllocator(folder, "cuda", [0, 1])
    assert allocator.try_acquire(1) is None
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=30)
    # No pid file to clean up: the kernel dropped the locks with the process.
    allocation = allocator.acquire(2, timeout=5)
    assert sorted(allocation.devices) == [0, 1]
    allocation.release()
    assert allocator.holders() == {}


def test_runs_per_device_shares_a_device_and_no_partial_holds(tmp_path: Path) -> None:
    folder = tmp_path / "devices"
    shared = SlotAllocator(folder, "cuda", [0], per_device=2)
    first, second = shared.try_acquire(1), shared.try_acquire(1)
    assert first is not None and second is not None
    assert first.devices == second.devices == [0]
    assert shared.try_acquire(1) is None
    first.release()
    second.release()
    # A run needing two distinct devices when only one is free takes nothing.
    pair = SlotAllocator(folder / "pair", "cuda", [0, 1])
    one = pair.try_acquire(1)
    assert one is not None
    assert pair.try_acquire(2) is None
    assert len(pair.holders()) == 1
    one.release()


def test_allocate_hands_cuda_devices_and_cpu_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    with allocate(tmp_path, device="cuda", world_size=1, threads=4, label="a") as a, \
            allocate(tmp_path, device="cuda", world_size=1, threads=4, label="b") as b:
        assert {a.env()["CUDA_VISIBLE_DEVICES"], b.env()["CUDA_VISIBLE_DEVICES"]} == {"3", "5"}
    cores = sorted(os.sched_getaffinity(0))
    with allocate(tmp_path, device="cpu", world_size=1, threads=1, label="c") as c:
        assert len(c.devices) == 1 and c.devices[0] in cores
        assert c.env() == {"EVIDENCE_CPUS": str(c.devices[0])}
    with allocate(tmp_path, device="cpu", world_size=64, threads=64, label="big") as big:
        assert big.devices == cores  # more than the box has: the whole box, not a deadlock
    with allocate(tmp_path, device="cpu", world_size=1, threads=1, pin_cpus=False) as off:
        assert off.env() == {}


def test_runner_pins_itself_to_its_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    cores = sorted(os.sched_getaffinity(0))
    code = ("import os; from evidence.train.devices import pin_to_cpus; pin_to_cpus(RANK, 1); "
            "print(sorted(os.sched_getaffinity(0)))")
    env = {**os.environ, "EVIDENCE_CPUS": ",".join(map(str, cores))}
    for rank in range(min(2, len(cores))):
        out = subprocess.run([sys.executable, "-c", code.replace("RANK", str(rank))], env=env,
                             capture_output=True, text=True, check=True).stdout
        assert out.strip() == str([cores[rank]])
    monkeypatch.delenv("EVIDENCE_CPUS", raising=False)
    before = os.sched_getaffinity(0)
    pin_to_cpus(0, 1)  # nothing allocated: nothing changes
    assert os.sched_getaffinity(0) == before


def test_doit_parallel_runs_wait_for_cores(tmp_path: Path) -> None:
    """Two holders of every core: an allocation of one core waits until one is released."""
    folder = tmp_path / "devices"
    cores = sorted(os.sched_getaffinity(0))
    everything = SlotAllocator(folder, "cpu", cores).try_acquire(len(cores))
    assert everything is not None
    started = time.monotonic()
    waiting = subprocess.Popen(
        [sys.executable, "-c", "from pathlib import Path; from evidence.train.devices import allocate\n"
         f"with allocate(Path({str(folder)!r}), device='cpu', world_size=1, threads=1) as a:\n"
         "    print(a.devices, flush=True)"], stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)
    assert waiting.poll() is None, "it must wait while every core is taken"
    everything.release()
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0 and out.strip() != ""
    assert time.monotonic() - started >= 1.0
