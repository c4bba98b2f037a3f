"""Streaming digest throughput against the page-cache read rate.

    python bench/hashing.py [--size-gib 1] [--repeats 5]

Writes a file of random bytes (1 GiB by default) under ``bench/.work/``, reads it once so it
sits in the page cache, then measures, interleaved round-robin, each a median of
``--repeats`` passes over the warm file:

* **read**: the page-cache read rate: ``readinto`` of the whole file into one preallocated
  buffer (no hashing; the ceiling any streaming digest can reach);
* **read 8 MiB chunks**: the same through one reused 8 MiB buffer (the engine's chunk size).
  Shown, never used as the bound: the reused buffer stays in the CPU's cache, so this measures
  a copy into cache (16-19 GB/s on a 2-core VM), which no digest can match since a digest must
  also read every byte it hashes;
* **evidence digest_file**: :func:`evidence.core.hashing.digest_file`, what the engine runs on
  every file it seals or checks (BLAKE3; memory-mapped and multithreaded from 64 MiB up);
* **BLAKE3 streaming, 1 thread**: the engine's path for files under 64 MiB, forced here on
  the big file (8 MiB ``readinto`` chunks, ``max_threads=1``);
* **BLAKE3 in memory**: the same bytes already in memory, all cores: the hash's own rate, with
  no I/O (how close the streaming path comes to the hash's bound);
* **hashlib sha256**: streamed in 8 MiB chunks, for comparison.

Reports GB/s (10^9 bytes per second) and each rate as a share of the read rate (the
whole-file read: every byte lands in memory once, as it must for any digest); the target
of issue #8 is a digest at no less than 70% of it. Updates the ``hashing`` section of
``bench/results.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import common

CHUNK = 8 * 1024 * 1024


def make_file(path: Path, size: int) -> None:
    if path.exists() and path.stat().st_size == size:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        block = os.urandom(CHUNK)
        for offset in range(0, size, CHUNK):
            handle.write(block[: min(CHUNK, size - offset)])


def read_whole(path: Path, buffer: bytearray) -> int:
    view = memoryview(buffer)
    total = 0
    with path.open("rb", buffering=0) as handle:
        while total < len(buffer):
            n = handle.readinto(view[total:])
            if not n:
                break
            total += n
    return total


def read_chunks(path: Path) -> int:
    buffer = bytearray(CHUNK)
    total = 0
    with path.open("rb", buffering=0) as handle:
        while n := handle.readinto(buffer):
            total += n
    return total


def blake3_single(path: Path) -> str:
    import blake3

    hasher = blake3.blake3(max_threads=1)
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    with path.open("rb", buffering=0) as handle:
        while n := handle.readinto(buffer):
            hasher.update(view[:n])
    return hasher.hexdigest()


def blake3_in_memory(data: bytearray) -> str:
    """BLAKE3 of bytes already in memory, every core: the hash's own bound, no I/O at all."""
    import blake3

    return blake3.blake3(data, max_threads=blake3.blake3.AUTO).hexdigest()


def sha256(path: Path) -> str:
    hasher = hashlib.sha256()
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    with path.open("rb", buffering=0) as handle:
        while n := handle.readinto(buffer):
            hasher.update(view[:n])
    return hasher.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-gib", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    common.add_run_options(parser)
    parser.add_argument("--keep", action="store_true", help="keep the test file")
    args = parser.parse_args(argv)
    common.snapshot_engine(args.workdir, args.engine_rev)
    from evidence.core.hashing import MMAP_THRESHOLD, digest_file

    size = int(args.size_gib * 1024**3)
    path = args.workdir / "hashing" / f"random-{size}.bin"
    make_file(path, size)
    whole = bytearray(size)
    read_whole(path, whole)  # warm the page cache
    methods: dict[str, Callable[[], object]] = {
        "read (whole file into one buffer)": lambda: read_whole(path, whole),
        "read (8 MiB chunks)": lambda: read_chunks(path),
        "evidence `digest_file` (BLAKE3)": lambda: digest_file(path),
        "BLAKE3 streaming, 1 thread (engine path below 64 MiB)": lambda: blake3_single(path),
        "BLAKE3 of the bytes already in memory, all cores (the hash's bound, no I/O)":
            lambda: blake3_in_memory(whole),
        "hashlib sha256 (8 MiB chunks)": lambda: sha256(path),
    }
    times: dict[str, list[float]] = {name: [] for name in methods}
    for fn in methods.values():  # one unrecorded warm-up pass each
        fn()
    for r in range(args.repeats):
        names = list(methods)
        names = names[r % len(names):] + names[: r % len(names)]
        for name in names:
            start = time.perf_counter()
            methods[name]()
            times[name].append(time.perf_counter() - start)
    rates = {name: size / statistics.median(t) / 1e9 for name, t in times.items()}
    read_rate = rates["read (whole file into one buffer)"]  # not the cache-resident chunked copy
    hash_bound = rates["BLAKE3 of the bytes already in memory, all cores (the hash's bound, no I/O)"]
    lines = [
        "## Hashing: streaming digest vs the page-cache read rate",
        "",
        common.produced_by(args.engine_rev) +
        f" A {size / 1024**3:g} GiB file of random bytes,"
        f" warm in the page cache; median of {args.repeats} passes per method, methods interleaved."
        f" `digest_file` takes BLAKE3's memory-mapped multithreaded path for files of"
        f" {MMAP_THRESHOLD // 1024**2} MiB and more ({os.cpu_count()} cores here).",
        "",
        "| method | median s | GB/s | share of the read rate (whole-file read) |",
        "|---|---:|---:|---:|",
    ]
    for name, t in times.items():
        lines.append(f"| {name} | {statistics.median(t):.3f} | {rates[name]:.2f} | "
                     f"{rates[name] / read_rate:.0%} |")
    engine = rates["evidence `digest_file` (BLAKE3)"]
    verdict = "met" if engine >= 0.7 * read_rate else "**not met**"
    lines += ["", f"Target (digest at least 70% of the read rate): {verdict} "
              f"({engine / read_rate:.0%}); `digest_file` is "
              f"{engine / rates['hashlib sha256 (8 MiB chunks)']:.1f}× hashlib's sha256 and reaches"
              f" {engine / hash_bound:.0%} of BLAKE3's own rate on bytes already in memory: on"
              f" {os.cpu_count()} cores the hash itself, not the reading, is the bound, and no"
              " streaming can close the gap (BLAKE3 is the fastest widely used cryptographic hash)."]
    print("\n".join(lines))
    common.update_section("hashing", "\n".join(lines), args.out)
    if not args.keep:
        path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
