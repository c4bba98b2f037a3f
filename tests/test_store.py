"""The sealed store: atomic publication, read-only files, quick checks and full fsck."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evidence.core.errors import IntegrityError
from evidence.core.hashing import digest_json
from evidence.store.runs import RunStore, run_id_for

IDENTITY = {"trainer": "t", "seed": 0}
KEY = digest_json(IDENTITY)


def staged(tmp_path: Path, name: str = "stage") -> Path:
    """A run's files as the runner leaves them for sealing (the required ones and weights)."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "results.json").write_text('{"metric": 0.5}\n')
    (folder / "model.safetensors").write_bytes(bytes(range(200)))
    (folder / "spec.json").write_text(json.dumps({"key": KEY, "identity": IDENTITY}))
    (folder / "provenance.json").write_text("{}\n")
    (folder / "metrics.jsonl").write_text('{"step": 1}\n')
    return folder


def test_seal_publishes_read_only_with_manifest(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.seal(staged(tmp_path), run_id_for(KEY), KEY)
    assert run.run_id == KEY[:16]
    assert not (tmp_path / "stage").exists()
    manifest = json.loads((run.path / "manifest.json").read_text())
    assert sorted(manifest["files"]) == ["metrics.jsonl", "model.safetensors", "provenance.json",
                                         "results.json", "spec.json"]
    for path in run.path.iterdir():
        assert not os.stat(path).st_mode & 0o222
    assert store.find(KEY) == run
    assert store.quick_check(run.run_id) is None
    assert store.fsck().ok


def test_seal_refuses_to_overwrite(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    store.seal(staged(tmp_path, "a"), run_id_for(KEY), KEY)
    with pytest.raises(IntegrityError, match="refusing to overwrite"):
        store.seal(staged(tmp_path, "b"), run_id_for(KEY), KEY)


def test_forced_runs_get_new_generations(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    assert store.next_run_id(KEY) == KEY[:16]
    store.seal(staged(tmp_path, "a"), store.next_run_id(KEY), KEY)
    assert store.next_run_id(KEY) == KEY[:16] + "-2"
    second = store.seal(staged(tmp_path, "b"), store.next_run_id(KEY), KEY)
    assert store.find(KEY) == second
    assert store.run_ids() == [KEY[:16], KEY[:16] + "-2"]


def tamper(path: Path, data: bytes | None = None) -> None:
    path.chmod(0o644)
    content = bytearray(path.read_bytes())
    if data is None:
        content[len(content) // 2] ^= 0x01
        path.write_bytes(bytes(content))
    else:
        path.write_bytes(data)
    path.chmod(0o444)


def test_fsck_names_a_file_with_one_changed_byte(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.seal(staged(tmp_path), run_id_for(KEY), KEY)
    tamper(run.path / "model.safetensors")
    # Same size: the cheap check cannot see it, the full re-hash does.
    assert store.quick_check(run.run_id) is None
    findings = store.fsck().findings
    assert [(f.file, "differs from recorded" in f.problem) for f in findings] == \
        [("model.safetensors", True)]


def test_fsck_reports_missing_malformed_manifest_and_extra_files(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    a = store.seal(staged(tmp_path, "a"), run_id_for("aa" * 32), "aa" * 32)
    b = store.seal(staged(tmp_path, "b"), run_id_for("bb" * 32), "bb" * 32)
    c = store.seal(staged(tmp_path, "c"), run_id_for("cc" * 32), "cc" * 32)
    for run in (a, b, c):
        run.path.chmod(0o755)
    (a.path / "manifest.json").unlink()
    tamper(b.path / "manifest.json", b"{not json")
    (c.path / "notes.txt").write_text("sneaked in")
    problems = {(f.run_id, f.file): f.problem for f in store.fsck().findings}
    assert problems[(a.run_id, "manifest.json")] == "manifest is missing"
    assert problems[(b.run_id, "manifest.json")].startswith("manifest is malformed")
    assert problems[(c.run_id, "notes.txt")] == "file is not in the manifest"
    assert store.quick_check(a.run_id) is not None
    assert store.find("aa" * 32) is None


def test_quick_check_sees_size_change_and_missing_file(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.seal(staged(tmp_path), run_id_for(KEY), KEY)
    tamper(run.path / "results.json", b"{}")
    finding = store.quick_check(run.run_id)
    assert finding is not None and finding.file == "results.json"
