"""The remote's parts on a real folder remote (fsspec's local file system), without training:
the content-addressed layout, corruption detection, the lease, the checkpoint mirror and the
settings. The end-to-end tests against sshd and S3 are in test_remote.py."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evidence.core.errors import BadInputError
from evidence.core.hashing import digest_bytes
from evidence.core.project import Project
from evidence.core.settings import load_settings
from evidence.remote import lease as leases
from evidence.remote.location import ConnectionLost, RemoteFull, describe, open_remote
from evidence.remote.mirror import CheckpointMirror, fetch_latest
from evidence.remote.store import CorruptObject, RemoteStore


@pytest.fixture
def store(tmp_path: Path) -> RemoteStore:
    root = tmp_path / "project"
    root.mkdir()
    (root / "evidence.toml").write_text('[remote]\nurl = "../remote"\n')
    location = open_remote(Project.at(root))
    assert location is not None and location.root == (tmp_path / "remote").as_posix()
    return RemoteStore(location)


def test_objects_are_named_by_digest_and_a_corrupt_one_is_never_returned(store: RemoteStore,
                                                                         tmp_path: Path) -> None:
    data = b"weights" * 1000
    digest = digest_bytes(data)
    assert store.put_object(digest, data=data) == len(data)
    assert store.put_object(digest, data=data) == len(data)  # the same name, the same bytes
    assert store.objects() == {digest: len(data)}
    assert not list((tmp_path / "remote" / "tmp").iterdir())  # written by rename, nothing left
    out = tmp_path / "out" / "weights"
    assert store.fetch_object(digest, out) == len(data) and out.read_bytes() == data

    path = tmp_path / "remote" / "objects" / digest[:2] / digest
    path.write_bytes(data[:-1] + b"X")
    with pytest.raises(CorruptObject, match="is corrupt"):
        store.fetch_object(digest, out)
    assert not out.exists()  # the damaged bytes are not left where a reader would take them


def test_a_run_is_published_by_its_manifest_only(store: RemoteStore) -> None:
    assert store.published() == {}
    manifest = b'{"run_id": "0123456789abcdef", "files": {}}\n'
    digest = store.publish_manifest("0123456789abcdef", manifest)
    assert digest == digest_bytes(manifest)
    assert store.published() == {"0123456789abcdef": [digest]}
    assert store.read(store.manifest_path("0123456789abcdef", digest)) == manifest


def test_failures_are_named_by_kind() -> None:
    assert describe(OSError(errno.ENOSPC, "No space left on device"))[0] is RemoteFull
    assert describe(OSError(errno.EFBIG, "File too large"))[0] is RemoteFull
    kind, text = describe(EOFError())
    assert kind is ConnectionLost and text.startswith("connection lost")


def test_lease_lets_one_claimant_train_and_clears_a_dead_holder(store: RemoteStore) -> None:
    first = leases.acquire(store, "0123456789abcdef", "tiny/mlp-s0")
    with pytest.raises(leases.LeaseHeld, match="another machine is training this run"):
        leases.acquire(store, "0123456789abcdef", "tiny/mlp-s0")
    assert len(list(store.iter_files("leases"))) == 2  # the loser removed its own lease
    first.release()
    second = leases.acquire(store, "0123456789abcdef", "tiny/mlp-s0")
    second.release()

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead = leases.Lease(store, "0123456789abcdef", "dead-holder")
    import socket

    store.put_json(dead.path, {"host": socket.gethostname(), "pid": int(gone.stdout)})
    mine = leases.acquire(store, "0123456789abcdef", "tiny/mlp-s0")  # a dead process holds nothing
    assert [p for p, _ in store.iter_files("leases") if "dead-holder" in p] == []
    mine.release()


def test_the_mirror_keeps_the_newest_verified_checkpoints_and_resume_fetches_it(
        store: RemoteStore, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    mirror = CheckpointMirror(store, "0123456789abcdef", "k" * 64, keep=2)
    for step in range(1, 6):
        path = work / f"ckpt-{step:09d}-e{0:05d}.pt"
        data = f"state at step {step}".encode() * 100
        path.write_bytes(data)
        digest = digest_bytes(data) if step != 5 else "0" * 64  # the last one is torn
        (work / f"{path.name}.blake3").write_text(digest + "\n")
        mirror.submit(path)
        assert mirror.flush(30)
    mirror.close()
    pointers = store.checkpoint_pointers("0123456789abcdef")
    assert [p["step"] for p in pointers] == [4, 3]  # step 5 never verified: not mirrored
    assert len(store.objects()) == 2  # the pruned checkpoints' objects are gone too

    elsewhere = tmp_path / "machine-b"
    line = fetch_latest(store, "0123456789abcdef", "k" * 64, elsewhere)
    assert line and "step 4" in line
    fetched = elsewhere / "ckpt-000000004-e00000.pt"
    assert fetched.read_bytes() == (work / fetched.name).read_bytes()
    assert (elsewhere / f"{fetched.name}.blake3").read_text().strip() == digest_bytes(fetched.read_bytes())

    newest = store.object_path(pointers[0]["digest"])  # bit rot on the remote: fall back
    Path(newest).write_bytes(b"rot")
    fetched.unlink()
    line = fetch_latest(store, "0123456789abcdef", "k" * 64, tmp_path / "machine-c")
    assert line and "step 3" in line


def test_remote_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project.at(tmp_path)
    (tmp_path / "evidence.toml").write_text('[remote]\nurl = "s3://bucket/x"\n')
    assert load_settings(project).remote_url == "s3://bucket/x"
    monkeypatch.setenv("EVIDENCE_REMOTE", "off")
    assert load_settings(project).remote_url is None and open_remote(project) is None
    monkeypatch.setenv("EVIDENCE_REMOTE", "sftp://me:hunter2@host/x")
    with pytest.raises(BadInputError, match="password"):
        open_remote(project)
    monkeypatch.delenv("EVIDENCE_REMOTE")
    (tmp_path / "evidence.toml").write_text('[remote]\nurl = "/x"\ncolour = "red"\n')
    with pytest.raises(BadInputError, match="colour"):
        load_settings(project)
    assert os.environ.get("EVIDENCE_REMOTE") is None
