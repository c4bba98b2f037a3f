"""Extracting an archive of runs works on every Python 3.11 the project supports.

``TarFile.extractall(filter=...)`` exists only from Python 3.11.4; Debian 12's own python3.11 is
3.11.2, where `evidence import` died with a TypeError. These tests need no training, so the fast
test path (which CI also runs under the oldest Python) covers extraction.
"""

from __future__ import annotations

import io
import stat
import tarfile
from pathlib import Path

import pytest

from evidence.scale.federation import Rejected, extract_archive

RUN = "0123456789abcdef"


def archive_of(path: Path, members: dict[str, bytes | None], mode: int = 0o644) -> Path:
    """A gzipped tar of ``members`` (None: a folder), like `evidence export` writes."""
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(data), mode
                tar.addfile(info, io.BytesIO(data))
    return path


def test_a_valid_archive_extracts_on_this_python(tmp_path: Path) -> None:
    archive = archive_of(tmp_path / "runs.tar.gz", {
        "ARCHIVE.json": b'{"runs": []}', "runs": None, f"runs/{RUN}": None,
        f"runs/{RUN}/results.json": b'{"a": 1}', f"runs/{RUN}/model.safetensors": b"\x00" * 64})
    dest = tmp_path / "out"
    dest.mkdir()
    extract_archive(archive, dest)
    assert (dest / "ARCHIVE.json").read_bytes() == b'{"runs": []}'
    assert (dest / "runs" / RUN / "results.json").read_bytes() == b'{"a": 1}'
    assert (dest / "runs" / RUN / "model.safetensors").read_bytes() == b"\x00" * 64


def test_extracted_files_lose_executable_and_special_bits(tmp_path: Path) -> None:
    """What tarfile's ``data`` filter does: no set-uid, no executable bits, owner may write."""
    archive = archive_of(tmp_path / "runs.tar.gz", {f"runs/{RUN}/results.json": b"{}"}, mode=0o4777)
    dest = tmp_path / "out"
    dest.mkdir()
    extract_archive(archive, dest)
    mode = stat.S_IMODE((dest / "runs" / RUN / "results.json").stat().st_mode)
    assert not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    assert mode & stat.S_IWUSR and not mode & (stat.S_IWGRP | stat.S_IWOTH)


def test_a_member_given_twice_is_refused(tmp_path: Path) -> None:
    """A second copy of a member would silently replace the first: refused instead."""
    archive = tmp_path / "twice.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for data in (b"first", b"second!"):
            info = tarfile.TarInfo(f"runs/{RUN}/results.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(Rejected, match="more than once"):
        extract_archive(archive, dest)
