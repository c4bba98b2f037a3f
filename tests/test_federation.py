"""Federated export/import: runs sealed elsewhere arrive exactly as trustworthy as local ones.

Real runs are trained in one project, exported with `evidence export`, and imported into other
projects with `evidence import` (real subprocesses). Tampering in transit (a changed byte, a
re-written manifest, a fully re-sealed forgery), unsafe archives, undeclared identities and
collisions with existing runs are rejected with the file and the reason; nothing is published
for a rejected run.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TRAIN_DODO, doit

from evidence.core.hashing import digest_bytes
from evidence.scale.federation import compare_results, tolerance
from evidence.store.runs import RunStore

# end to end: trains models or runs doit over projects; also under the oldest Python (tarfile)
pytestmark = [pytest.mark.slow, pytest.mark.portability]

TWO_RUNS = """
trainer = "mlp"
seeds = [0, 1]
[data]
dataset = "digits"
[config]
epochs = 2
batch_size = 64
lr = 0.1
hidden = 16
[smoke]
batches = 1
"""


def evidence(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "--project", str(root), *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off"})


def members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive) as tar:
        return {m.name: (tar.extractfile(m).read() if m.isfile() else b"")  # type: ignore[union-attr]
                for m in tar.getmembers()}


def repack(files: dict[str, bytes], out: Path) -> Path:
    """An archive with exactly these members (folders implied), as a tampering sender would."""
    with tarfile.open(out, "w:gz") as tar:
        for name, data in files.items():
            if not data and "." not in name.rsplit("/", 1)[-1]:
                info = tarfile.TarInfo(name)
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
                continue
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def reseal(files: dict[str, bytes], run_id: str, name: str, data: bytes, *, archive: bool) -> None:
    """Replace one file of a run and re-write its manifest (and, if asked, ARCHIVE.json) to match."""
    prefix = f"runs/{run_id}/"
    files[prefix + name] = data
    manifest = json.loads(files[prefix + "manifest.json"])
    manifest["files"][name] = {"digest": digest_bytes(data), "size": len(data)}
    files[prefix + "manifest.json"] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    if archive:
        index = json.loads(files["ARCHIVE.json"])
        for entry in index["runs"]:
            if entry["run_id"] == run_id:
                entry["manifest_digest"] = digest_bytes(files[prefix + "manifest.json"])
        files["ARCHIVE.json"] = json.dumps(index).encode()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """Two runs trained by `doit train` in a source project and exported to an archive."""
    from conftest import REPO, write_tree

    root = tmp_path_factory.mktemp("fed") / "source"
    (root / "trainers").mkdir(parents=True)
    for trainer in (REPO / "trainers").glob("*.py"):
        (root / "trainers" / trainer.name).write_bytes(trainer.read_bytes())
    write_tree(root, {"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS})
    assert doit(root, "-n", "2", "train").returncode == 0
    archive = root.parent / "runs.tar.gz"
    result = evidence(root, "export", "--experiment", "tiny", "-o", str(archive))
    assert result.returncode == 0, result.stderr
    return root, archive, RunStore(root / "runs").run_ids()


def test_export_is_deterministic_and_import_verifies_by_load(
        make_project: Callable[..., Path], exported: tuple[Path, Path, list[str]]) -> None:
    source, archive, run_ids = exported
    again = archive.with_name("again.tar.gz")
    assert evidence(source, "export", *run_ids, "-o", str(again)).returncode == 0
    assert again.read_bytes() == archive.read_bytes()  # same runs -> same bytes
    with tarfile.open(archive) as tar:
        infos = tar.getmembers()
    assert infos[0].name == "ARCHIVE.json"
    assert all(i.mtime == 0 and i.uid == 0 and i.uname == "" for i in infos)

    dest = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS}, name="dest")
    result = evidence(dest, "import", str(archive))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("verified by load, bit-identical") == 2
    store = RunStore(dest / "runs")
    assert store.run_ids() == run_ids and store.fsck().ok
    for run_id in run_ids:
        here, there = store.path(run_id), RunStore(source / "runs").path(run_id)
        for name in ("spec.json", "results.json", "metrics.jsonl", "model.safetensors",
                     "provenance.json"):
            assert (here / name).read_bytes() == (there / name).read_bytes()
        assert (here / "origin-manifest.json").read_bytes() == (there / "manifest.json").read_bytes()
        record = json.loads((here / "import.json").read_text())
        assert record["declared"] is True and record["verification"]["mode"] == "bit-identical"
        assert record["source"]["archive_digest"] == digest_bytes(archive.read_bytes())
        assert record["origin"]["source"]["kind"] == "local"
    trained = doit(dest, "train")
    assert trained.returncode == 0 and "sealed" not in trained.stderr  # imported runs are cache hits
    repeat = evidence(dest, "import", str(archive))
    assert repeat.returncode == 0 and "0 imported, 2 already present" in repeat.stdout

    # An imported run travels on: the chain of import records and the original manifest stay.
    onward = dest.parent / "onward.tar.gz"
    assert evidence(dest, "export", run_ids[0], "-o", str(onward)).returncode == 0
    third = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS}, name="third")
    assert evidence(third, "import", str(onward)).returncode == 0
    record = json.loads((third / "runs" / run_ids[0] / "import.json").read_text())
    assert len(record["previous"]) == 1 and record["previous"][0]["source"]["path"] == str(archive)
    assert (third / "runs" / run_ids[0] / "origin-manifest.json").read_bytes() == \
        (source / "runs" / run_ids[0] / "manifest.json").read_bytes()

    # fsck audits the chain: a file re-sealed after import no longer matches its origin manifest.
    run = third / "runs" / run_ids[0]
    run.chmod(0o755)
    for name in ("provenance.json", "manifest.json"):
        (run / name).chmod(0o644)
    changed = (run / "provenance.json").read_bytes().replace(b'"local"', b'"elsewhere"')
    (run / "provenance.json").write_bytes(changed)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"]["provenance.json"] = {"digest": digest_bytes(changed), "size": len(changed)}
    (run / "manifest.json").write_text(json.dumps(manifest))
    [finding] = RunStore(third / "runs").fsck().findings
    assert finding.file == "provenance.json" and "imported with" in finding.problem


def test_tampered_archives_are_rejected_naming_the_file(
        make_project: Callable[..., Path], exported: tuple[Path, Path, list[str]]) -> None:
    _, archive, run_ids = exported
    victim, other = run_ids
    results_name = f"runs/{victim}/results.json"
    dest = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS}, name="dest")

    # 1. One changed byte in results.json; the manifest is left as it was.
    files = members(archive)
    data = bytearray(files[results_name])
    data[data.index(b'"seed": ') + 8] ^= 0x01
    files[results_name] = bytes(data)
    result = evidence(dest, "import", str(repack(files, dest.parent / "byte.tar.gz")))
    assert result.returncode == 1
    assert f"REJECTED {victim}: results.json: digest" in result.stdout
    assert f"imported {other}" in result.stdout  # each run stands or falls on its own
    assert not (dest / "runs" / victim).exists()

    # 2. The manifest re-written to match the change; ARCHIVE.json still has the old digest.
    files = members(archive)
    results = json.loads(files[results_name])
    results["metrics"]["accuracy"]["values"]["test"] += 0.05
    forged = (json.dumps(results, indent=2, sort_keys=True) + "\n").encode()
    reseal(files, victim, "results.json", forged, archive=False)
    result = evidence(dest, "import", str(repack(files, dest.parent / "manifest.tar.gz")))
    assert result.returncode == 1
    assert f"REJECTED {victim}: manifest.json: its digest differs from the one in ARCHIVE.json" \
        in result.stdout

    # 3. A complete forgery (manifest and ARCHIVE.json re-sealed): the weights give it away.
    reseal(files, victim, "results.json", forged, archive=True)
    result = evidence(dest, "import", str(repack(files, dest.parent / "forged.tar.gz")))
    assert result.returncode == 1
    assert f"REJECTED {victim}: results.json: test/accuracy is" in result.stdout
    assert "re-evaluating the weights here gives" in result.stdout
    assert not (dest / "runs" / victim).exists()
    assert RunStore(dest / "runs").fsck().ok


def test_unsafe_archives_are_refused_before_anything_is_written(
        make_project: Callable[..., Path], exported: tuple[Path, Path, list[str]],
        tmp_path: Path) -> None:
    _, archive, run_ids = exported
    dest = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": TWO_RUNS}, name="dest")
    base = members(archive)
    for evil, why in ((f"runs/{run_ids[0]}/../../../escaped.txt", "'..'"),
                      ("/tmp/absolute-evidence.txt", "absolute"),
                      ("runs/not-a-run-id/x.json", "runs/<run-id>")):
        result = evidence(dest, "import", str(repack({**base, evil: b"x"}, tmp_path / "evil.tar.gz")))
        assert result.returncode == 1 and "REJECTED evil.tar.gz" in result.stdout and why in result.stdout
    link = tmp_path / "link.tar.gz"
    with tarfile.open(link, "w:gz") as tar:
        info = tarfile.TarInfo(f"runs/{run_ids[0]}/model.safetensors")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    result = evidence(dest, "import", str(link))
    assert result.returncode == 1 and "links, devices and fifos are not allowed" in result.stdout
    assert not (tmp_path.parent / "escaped.txt").exists() and not Path("/tmp/absolute-evidence.txt").exists()
    assert not (dest / "runs").exists() or RunStore(dest / "runs").run_ids() == []


def test_undeclared_runs_need_any_and_sealed_runs_are_never_overwritten(
        make_project: Callable[..., Path], exported: tuple[Path, Path, list[str]]) -> None:
    source, archive, run_ids = exported
    other = make_project({"dodo.py": TRAIN_DODO,
                          "experiments/tiny.toml": TWO_RUNS.replace("lr = 0.1", "lr = 0.2")})
    refused = evidence(other, "import", str(archive))
    assert refused.returncode == 1
    assert "not declared by any experiment of this project" in refused.stdout
    assert "with a different config" in refused.stdout and "--any" in refused.stdout
    accepted = evidence(other, "import", "--any", str(archive))
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "NOT declared by this project's experiments (accepted with --any)" in accepted.stdout
    record = json.loads((other / "runs" / run_ids[0] / "import.json").read_text())
    assert record["declared"] is False

    # A folder of runs (no ARCHIVE.json) whose learning curve was edited and re-sealed: the
    # final weights still verify, but runs/ already holds this run id with other evidence.
    folder = other.parent / "incoming" / run_ids[0]
    folder.mkdir(parents=True)
    for path in (source / "runs" / run_ids[0]).iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    curve = (folder / "metrics.jsonl").read_bytes().replace(b'"epoch": 2', b'"epoch": 3')
    (folder / "metrics.jsonl").write_bytes(curve)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["metrics.jsonl"] = {"digest": digest_bytes(curve), "size": len(curve)}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    clash = evidence(other, "import", "--any", str(folder.parent))
    assert clash.returncode == 1
    assert f"REJECTED {run_ids[0]}: metrics.jsonl: runs/{run_ids[0]} exists with different evidence" \
        in clash.stdout
    assert (other / "runs" / run_ids[0] / "metrics.jsonl").read_bytes() == \
        (source / "runs" / run_ids[0] / "metrics.jsonl").read_bytes()


def test_cross_platform_tolerance() -> None:
    # One flipped prediction of 360 moves an accuracy by 1/360: allowed across platforms.
    assert abs((350 / 360) - (351 / 360)) <= tolerance(350 / 360, 351 / 360, 360)
    assert not abs(0.1 - 0.1001) <= tolerance(0.1, 0.1001, 360)  # a loss moved by 1e-3 relative
    results = {"metrics": {"loss": {"direction": "lower", "values": {"test": 0.25}}},
               "diagnostics": {}}
    near = {"test": {"loss": 0.25 * (1 + 1e-6)}, "diagnostics": {}}
    assert compare_results(results, near, {"test": 360}, exact=False) > 0
    with pytest.raises(Exception, match="must be bit-identical"):
        compare_results(results, near, {"test": 360}, exact=True)
