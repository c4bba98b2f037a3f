"""What a run cost: memory peaks and the ``compute`` block of its provenance.

Recorded by the runner at seal time and read back by the compute ledger; it lives with the
runner (not the ledger) because recording is part of running, and the ledger is a reader.
"""

from __future__ import annotations

import resource
import sys
from collections.abc import Mapping
from typing import Any


def peaks(meta: Mapping[str, Any]) -> dict[str, int | None]:
    """Peak host (and CUDA) memory of this process, folded with the peaks of earlier attempts."""
    host = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    device = None
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        device = int(torch.cuda.max_memory_allocated())
    before_device = meta.get("peak_device_bytes")
    return {"peak_host_bytes": max(int(meta.get("peak_host_bytes") or 0), int(host)),
            "peak_device_bytes": None if device is None and before_device is None
            else max(int(before_device or 0), int(device or 0))}


def run_compute(meta: Mapping[str, Any], devices: Mapping[str, Any], threads: int) -> dict[str, Any]:
    """provenance.json's ``compute`` block at seal time."""
    kind = str(devices.get("kind", "cpu"))
    processes = int(devices.get("count", 1) or 1)
    count = processes * max(1, threads) if kind == "cpu" else processes
    names = devices.get("names") or []
    wall = float(meta["wall_seconds"])
    return {"device_kind": kind, "device_count": count,
            "device_name": names[0] if names else None,
            "wall_seconds": round(wall, 3), "device_hours": round(wall * count / 3600, 6),
            "peak_host_memory_bytes": meta.get("peak_host_bytes"),
            "peak_device_memory_bytes": meta.get("peak_device_bytes")}
