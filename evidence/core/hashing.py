"""Digests and canonical JSON: the ground every key, manifest and sidecar stands on.

The digest is BLAKE3 (256-bit, hex). It was chosen once, deliberately: it hashes several GB/s
where hashlib's sha256 manages about a quarter of a GB/s on the reference machine, and the
run-key function is pinned by golden tests, so changing it later would orphan every sealed run.

Canonical JSON makes a digest a function of *content*, not of formatting: keys sorted, no
insignificant whitespace, UTF-8, and floats written by ``repr`` (the shortest string that
round-trips exactly), with NaN and infinities rejected because JSON cannot represent them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import blake3

ALGORITHM = "blake3"
#: Read size for streaming file digests; large buffers keep the hash near the disk read rate.
CHUNK_BYTES = 8 * 1024 * 1024
#: Files at least this large are hashed with BLAKE3's memory-mapped, multithreaded path.
MMAP_THRESHOLD = 64 * 1024 * 1024


def _check_finite(value: Any, where: str = "$") -> None:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"canonical JSON cannot hold the non-finite float {value!r} at {where}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"canonical JSON keys must be strings, got {key!r} at {where}")
            _check_finite(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check_finite(item, f"{where}[{index}]")


def _keys_are_strings(value: Any) -> bool:
    """Whether every mapping key inside ``value`` is a string (json.dumps would turn an int key
    into a string silently, so two different values could share one canonical form)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key, inner in item.items():
                if type(key) is not str and not isinstance(key, str):
                    return False
                if type(inner) in _CONTAINERS:
                    stack.append(inner)
        elif kind is list or kind is tuple:
            stack.extend(inner for inner in item if type(inner) in _CONTAINERS)
        elif isinstance(item, Mapping | list | tuple):  # a subclass: the general walk decides
            try:
                _check_finite(item)
            except TypeError:
                return False
    return True


_CONTAINERS = frozenset({dict, list, tuple})


def canonical_json(value: Any) -> str:
    """The one textual form of a JSON value: sorted keys, compact separators, exact floats.

    json.dumps itself refuses NaN and infinities (``allow_nan=False``); only when it does, or
    when a key is not a string, is the value walked again for the error that names where. The
    walk used to run first on every value: 40% of building 10,000 train tasks.
    """
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except (ValueError, TypeError):
        _check_finite(value)  # raises the error that names the place (if it is one of ours)
        raise
    if not _keys_are_strings(value):
        _check_finite(value)
    return text


def digest_bytes(data: bytes) -> str:
    """Hex BLAKE3 digest of a byte string."""
    return blake3.blake3(data).hexdigest()


def digest_json(value: Any) -> str:
    """Digest of a JSON value's canonical form (independent of key order and formatting)."""
    return digest_bytes(canonical_json(value).encode("utf-8"))


def digest_file(path: str | os.PathLike[str]) -> str:
    """Streamed digest of a file's bytes; large files use the mmap + multithreaded path."""
    path = Path(path)
    size = path.stat().st_size
    hasher = blake3.blake3(max_threads=blake3.blake3.AUTO if size >= MMAP_THRESHOLD else 1)
    if size >= MMAP_THRESHOLD:
        hasher.update_mmap(path)
        return hasher.hexdigest()
    with path.open("rb") as handle:
        buffer = bytearray(min(CHUNK_BYTES, max(size, 1)))
        view = memoryview(buffer)
        while True:
            n = handle.readinto(buffer)
            if not n:
                break
            hasher.update(view[:n])
    return hasher.hexdigest()


def digest_files(paths: Iterable[str | os.PathLike[str]], root: str | os.PathLike[str]) -> str:
    """Digest of a set of files by their paths relative to ``root`` and their contents.

    The file names are part of the digest, so renaming a file changes it; the order the paths
    are given in does not.
    """
    root = Path(root)
    entries = {Path(p).resolve().relative_to(root.resolve()).as_posix(): digest_file(p)
               for p in paths}
    return digest_json(entries)


def write_json_atomic(path: str | os.PathLike[str], value: Any, *, indent: int | None = 2) -> None:
    """Write JSON so that readers see either the old file or the complete new one."""
    text = json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=False)
    write_bytes_atomic(path, (text + "\n").encode("utf-8"))


def copy_atomic(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """``source`` copied over ``target`` by a rename (with its mtime): never half-written."""
    import shutil

    target = Path(target)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        shutil.copy2(source, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = False) -> None:
    """Write to a temporary file beside ``path``, then rename over it.

    With ``durable`` the file and its folder are fsynced, so the new content survives a power
    loss once this returns (checkpoints need this; regenerable presentation files do not).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """fsync a folder so that a rename inside it is durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
