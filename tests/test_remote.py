"""The remote: runs outlive the machine (docs/scale-out.md, section 5).

Real servers on 127.0.0.1: OpenSSH's sshd for SFTP, moto's S3 server, and a folder for a
cluster's shared file system. Real runs are trained by `doit train` and moved with the real
`evidence push` / `evidence pull` commands in subprocesses; faults are real too (a TCP
connection cut mid-push, a file-size limit standing for a full remote, bytes flipped on the
remote, a forged manifest published there).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, TRAIN_DODO, doit, write_tree
from remote_servers import ALIAS, CuttingProxy, Sshd, sshd_missing, start_s3, start_sshd

from evidence.core.hashing import digest_bytes, digest_file
from evidence.store.runs import RunStore

pytestmark = pytest.mark.slow  # end to end: trains models, starts servers

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

# Long enough (a few hundred steps, checkpoints every 2) to be killed in the middle.
LONG_RUN = """
trainer = "mlp"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = 6
batch_size = 32
lr = 0.05
hidden = 512
dropout = 0.2
[checkpoint]
every_steps = 2
every_seconds = 0
keep = 2
[smoke]
batches = 1
"""

SEALED_FILES = ("results.json", "metrics.jsonl", "model.safetensors", "spec.json")


def evidence(root: Path, *args: str, env: dict[str, str] | None = None,
             **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence.cli", "--project", str(root), *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off", **(env or {})},
                          **kwargs)  # type: ignore[call-overload]


def project(base: Path, name: str, experiment: str, remote: str | None) -> Path:
    root = base / name
    (root / "trainers").mkdir(parents=True)
    for trainer in (REPO / "trainers").glob("*.py"):
        shutil.copy(trainer, root / "trainers" / trainer.name)
    write_tree(root, {"dodo.py": TRAIN_DODO, "experiments/tiny.toml": experiment})
    if remote:
        (root / "evidence.toml").write_text(remote)
    return root


def clone(source: Path, dest: Path, *, runs: bool) -> Path:
    """What a colleague's fresh clone (or another machine) has: the project, not its state."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".evidence", *(() if runs else ("runs",))))
    return dest


def remote_files(folder: Path, part: str) -> list[Path]:
    return sorted(p for p in (folder / part).rglob("*") if p.is_file()) if (folder / part).is_dir() else []


def expected_bytes(root: Path) -> tuple[int, set[str]]:
    """Bytes a first push must send: each distinct object once, plus every manifest."""
    objects: dict[str, int] = {}
    manifests = 0
    for run in RunStore(root / "runs").runs():
        manifest = json.loads((run.path / "manifest.json").read_text())
        manifests += (run.path / "manifest.json").stat().st_size
        objects.update({e["digest"]: e["size"] for e in manifest["files"].values()})
    return sum(objects.values()) + manifests, set(objects)


def sent(output: str) -> int:
    return int(output.split("sent ", 1)[1].split(" bytes", 1)[0])


# -- servers -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    reason = sshd_missing()
    if reason:
        pytest.skip(reason)
    server = start_sshd(tmp_path_factory.mktemp("ssh"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install -e '.[dev]')")
    pytest.importorskip("s3fs", reason="s3fs is not installed (pip install 'evidence[remote]')")
    server, endpoint = start_s3()
    import boto3

    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket="lab")
    yield endpoint
    server.stop()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two real runs sealed by `doit train` in a project without a remote."""
    root = project(tmp_path_factory.mktemp("remote"), "trained", TWO_RUNS, None)
    done = doit(root, "train")
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def folder_remote(tmp_path: Path) -> tuple[Path, str]:
    store = tmp_path / "shared-fs" / "evidence"
    return store, f'[remote]\nurl = "file://{store}"\n'


# -- (a) push/pull round trip with dedupe, per kind of remote -------------------------------


@pytest.fixture(params=["folder", "sftp", "s3"])
def remote_kind(request: pytest.FixtureRequest, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, str]]:
    """(evidence.toml text, environment) for one kind of remote."""
    if request.param == "folder":
        return f'[remote]\nurl = "{tmp_path / "nfs" / "evidence"}"\n', {}
    if request.param == "sftp":
        server: Sshd = request.getfixturevalue("sshd")
        folder = tmp_path / "over-ssh"
        return f'[remote]\nurl = "sftp://{ALIAS}{folder}"\n', {"HOME": str(server.home)}
    endpoint = request.getfixturevalue("s3")
    prefix = f"lab/{tmp_path.name}"
    return (f'[remote]\nurl = "s3://{prefix}"\nendpoint_url = "{endpoint}"\n',
            {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
             "AWS_DEFAULT_REGION": "us-east-1"})


def test_push_pull_round_trip_with_dedupe(trained: Path, tmp_path: Path,
                                          remote_kind: tuple[str, dict[str, str]]) -> None:
    settings, env = remote_kind
    a = clone(trained, tmp_path / "a", runs=True)
    (a / "evidence.toml").write_text(settings)
    must_send, objects = expected_bytes(a)

    first = evidence(a, "push", env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "2 pushed" in first.stdout and sent(first.stdout) == must_send
    again = evidence(a, "push", env=env)
    assert again.returncode == 0 and "2 already on the remote" in again.stdout
    assert sent(again.stdout) == 0  # nothing is sent twice

    b = clone(a, tmp_path / "b", runs=False)
    pulled = evidence(b, "pull", env=env)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert pulled.stdout.count("verified by load, bit-identical") == 2
    assert RunStore(b / "runs").run_ids() == RunStore(a / "runs").run_ids()
    assert RunStore(b / "runs").fsck().ok
    for run_id in RunStore(a / "runs").run_ids():
        for name in SEALED_FILES:
            assert (b / "runs" / run_id / name).read_bytes() == (a / "runs" / run_id / name).read_bytes()

    # B's imported copies share their weights, metrics and records with A's runs: pushing them
    # sends only what is new (the import records and the new manifests), never the weights again
    pushed_b = evidence(b, "push", env=env)
    assert pushed_b.returncode == 0, pushed_b.stdout + pushed_b.stderr
    new = [p for run in RunStore(b / "runs").runs()
           for p in (run.path / "import.json", run.path / "origin-manifest.json", run.path / "manifest.json")]
    assert sent(pushed_b.stdout) == sum(p.stat().st_size for p in new
                                        if digest_file(p) not in objects or p.name == "manifest.json")
    assert sent(pushed_b.stdout) < must_send / 2


# -- (c) + (d): the teardown gate, and a fresh clone that trains nothing sealed on the remote --


def test_teardown_gate_then_a_fresh_clone_trains_nothing(trained: Path, tmp_path: Path,
                                                         folder_remote: tuple[Path, str]) -> None:
    store, settings = folder_remote
    a = clone(trained, tmp_path / "a", runs=True)
    (a / "evidence.toml").write_text(settings)

    gate = evidence(a, "remote", "status")
    assert gate.returncode == 1
    assert "NOT safe to destroy this machine: 0/2 runs and 0 running" in gate.stdout
    assert gate.stdout.count("not on the remote (`evidence push` sends it)") == 2

    assert evidence(a, "push").returncode == 0
    gate = evidence(a, "remote", "status", "--deep")
    assert gate.returncode == 0, gate.stdout
    assert "safe to destroy this machine: 2/2 runs and 0 running" in gate.stdout

    # retention: nothing to collect while the experiment declares both runs; a run it no longer
    # declares is listed (a dry run) unless a claim uses it, and removed only with --delete
    dry = evidence(a, "gc", "--remote")
    assert dry.returncode == 0 and "0 unreferenced run(s)" in dry.stdout
    kept, dropped = RunStore(a / "runs").run_ids()
    edited = clone(a, tmp_path / "edited", runs=False)
    spec = json.loads((a / "runs" / kept / "spec.json").read_text())
    (edited / "experiments" / "tiny.toml").write_text(TWO_RUNS.replace(
        "seeds = [0, 1]", f"seeds = [{spec['identity']['seed']}]"))
    dry = evidence(edited, "gc", "--remote")
    assert f"unreferenced remote runs/{dropped}" in dry.stdout and kept not in dry.stdout
    (edited / "build" / "deliver").mkdir(parents=True)
    (edited / "build" / "deliver" / "claims.json").write_text(json.dumps(
        {"claims": [{"id": "c", "runs": [{"run_id": dropped, "results_digest": "x"}]}]}))
    assert "0 unreferenced run(s)" in evidence(edited, "gc", "--remote").stdout  # a claim uses it
    (edited / "build" / "deliver" / "claims.json").unlink()
    deleted = evidence(edited, "gc", "--remote", "--delete")
    assert f"deleting remote runs/{dropped}" in deleted.stdout
    assert not (store / "runs" / dropped).exists() or not list((store / "runs" / dropped).iterdir())
    assert evidence(a, "push").returncode == 0  # the owner's push publishes it again

    b = clone(a, tmp_path / "b", runs=False)
    done = doit(b, "train")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("from the remote instead of training it") == 2
    assert "sealed tiny/" not in done.stdout + done.stderr  # nothing was trained
    assert RunStore(b / "runs").fsck().ok
    gate = evidence(b, "remote", "status")
    assert gate.returncode == 0 and "2/2 runs" in gate.stdout  # B made nothing the remote lacks


# -- (b) killed on machine A, its disk lost, resumed on machine B from the remote ------------


def test_killed_on_a_resumes_on_b_from_the_remote_bit_identical(tmp_path: Path,
                                                                folder_remote: tuple[Path, str]) -> None:
    store, settings = folder_remote
    reference = project(tmp_path, "reference", LONG_RUN, None)
    assert doit(reference, "train").returncode == 0
    [ref] = list(RunStore(reference / "runs").runs())

    a = project(tmp_path, "a", LONG_RUN, settings)
    env = {**os.environ, "EVIDENCE_PROGRESS": "off", "EVIDENCE_WARM_WORKER": "0"}
    training = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=a, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while not any(p.suffix == ".json" for p in remote_files(store, "checkpoints")):
        assert training.poll() is None, training.communicate()
        assert time.monotonic() < deadline, "no checkpoint reached the remote"
        time.sleep(0.01)
    time.sleep(0.3)
    os.killpg(training.pid, signal.SIGKILL)  # the machine dies: doit, the runner, the mirror
    training.communicate()
    assert not RunStore(a / "runs").run_ids(), "killed before it sealed"
    shutil.rmtree(a / ".evidence")  # ... and its disk with it

    b = clone(a, tmp_path / "b", runs=False)
    done = doit(b, "train")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "from the remote" in out and "fetched checkpoint" in out and "resuming" in out
    [run] = list(RunStore(b / "runs").runs())
    for name in SEALED_FILES:
        assert (run.path / name).read_bytes() == (ref.path / name).read_bytes(), name
    assert run.provenance["resumes"] >= 1
    assert not remote_files(store, "checkpoints")  # sealed and pushed: checkpoints dropped
    assert not remote_files(store, "leases")
    assert evidence(b, "remote", "status").returncode == 0


def test_a_second_machine_does_not_train_a_run_under_lease(tmp_path: Path,
                                                           folder_remote: tuple[Path, str]) -> None:
    store, settings = folder_remote
    a = project(tmp_path, "a", LONG_RUN.replace("epochs = 6", "epochs = 40"), settings)
    b = clone(a, tmp_path / "b", runs=False)
    env = {**os.environ, "EVIDENCE_PROGRESS": "off", "EVIDENCE_WARM_WORKER": "0"}
    training = subprocess.Popen([sys.executable, "-m", "doit", "train"], cwd=a, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not remote_files(store, "checkpoints"):
        assert training.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    second = doit(b, "train")
    assert training.poll() is None, "A must still be training while B tries"
    _, err_a = training.communicate(timeout=300)
    assert training.returncode == 0, err_a
    assert second.returncode != 0
    assert "another machine is training this run" in second.stdout + second.stderr
    assert not RunStore(b / "runs").run_ids()
    after = doit(b, "train")  # A has finished: B now pulls it instead of training it
    assert after.returncode == 0 and "from the remote instead of training it" in after.stdout


# -- (e) faults: each named in one line, nothing corrupt imported, the next push/pull completes


def test_connection_dropped_mid_push_then_the_next_push_completes(trained: Path, tmp_path: Path,
                                                                  sshd: Sshd) -> None:
    env = {"HOME": str(sshd.home)}
    a = clone(trained, tmp_path / "a", runs=True)
    measure = CuttingProxy(sshd.port)
    sshd.config_for(measure.port)
    (a / "evidence.toml").write_text(f'[remote]\nurl = "sftp://{ALIAS}{tmp_path / "measure"}"\n')
    assert evidence(a, "push", env=env).returncode == 0
    whole = measure.forwarded
    measure.close()

    folder = tmp_path / "remote"
    cut = CuttingProxy(sshd.port, budget=whole // 2)
    sshd.config_for(cut.port)
    (a / "evidence.toml").write_text(f'[remote]\nurl = "sftp://{ALIAS}{folder}"\n')
    broken = evidence(a, "push", env=env)
    cut.close()
    assert broken.returncode == 1
    [line] = [x for x in broken.stdout.splitlines() if x.startswith("STOPPED")]
    assert "connection lost" in line and "nothing of it was published" in line
    published = list((folder / "runs").rglob("*.json")) if (folder / "runs").exists() else []
    assert len(published) < 2  # the run cut off is not visible as a run

    sshd.config_for(sshd.port)
    done = evidence(a, "push", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert evidence(a, "remote", "status", "--deep", env=env).returncode == 0


def test_remote_full_is_named_and_the_next_push_completes(trained: Path, tmp_path: Path,
                                                          folder_remote: tuple[Path, str]) -> None:
    store, settings = folder_remote
    a = clone(trained, tmp_path / "a", runs=True)
    (a / "evidence.toml").write_text(settings)

    def small_files() -> None:  # the remote's disk holds no file over 2 kB
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    full = evidence(a, "push", preexec_fn=small_files)
    assert full.returncode == 1
    [line] = [x for x in full.stdout.splitlines() if x.startswith("STOPPED")]
    assert "the remote is full" in line and "File too large" in line
    assert not remote_files(store, "runs")  # no run published
    done = evidence(a, "push")
    assert done.returncode == 0 and "2 pushed" in done.stdout
    assert evidence(a, "remote", "status").returncode == 0


def test_corrupt_object_on_the_remote_is_never_imported_and_is_repaired(
        trained: Path, tmp_path: Path, folder_remote: tuple[Path, str]) -> None:
    store, settings = folder_remote
    a = clone(trained, tmp_path / "a", runs=True)
    (a / "evidence.toml").write_text(settings)
    assert evidence(a, "push").returncode == 0
    run_id = RunStore(a / "runs").run_ids()[0]
    weights = json.loads((a / "runs" / run_id / "manifest.json").read_text())["files"]["model.safetensors"]
    victim = store / "objects" / weights["digest"][:2] / weights["digest"]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0x01  # bit rot
    victim.write_bytes(bytes(data))

    b = clone(a, tmp_path / "b", runs=False)
    gate = evidence(a, "remote", "status", "--deep")
    assert gate.returncode == 1 and "corrupt" in gate.stdout
    pulled = evidence(b, "pull")
    assert pulled.returncode == 1
    [line] = [x for x in pulled.stdout.splitlines() if x.startswith("REJECTED")]
    assert run_id in line and "model.safetensors" in line and "corrupt" in line
    assert not (b / "runs" / run_id).exists()  # nothing corrupt imported
    assert remote_files(store, "quarantine")

    repaired = evidence(a, "push")
    assert repaired.returncode == 0 and f"repaired runs/{run_id}" in repaired.stdout
    assert sent(repaired.stdout) == weights["size"]
    again = evidence(b, "pull")
    assert again.returncode == 0 and f"pulled {run_id}" in again.stdout
    assert RunStore(b / "runs").fsck().ok


def test_a_remote_manifest_that_lies_is_rejected_and_an_honest_push_completes(
        trained: Path, tmp_path: Path, folder_remote: tuple[Path, str]) -> None:
    store, settings = folder_remote
    a = clone(trained, tmp_path / "a", runs=True)
    (a / "evidence.toml").write_text(settings)
    run_id = RunStore(a / "runs").run_ids()[0]
    assert evidence(a, "push", run_id).returncode == 0
    [honest] = remote_files(store, f"runs/{run_id}")
    # someone publishes a better test accuracy: a new results.json and a manifest that vouches for it
    manifest = json.loads(honest.read_text())
    results = json.loads((a / "runs" / run_id / "results.json").read_text())
    results["metrics"]["accuracy"]["values"]["test"] = 0.999
    forged = (json.dumps(results, indent=2, sort_keys=True) + "\n").encode()
    digest = digest_bytes(forged)
    (store / "objects" / digest[:2]).mkdir(exist_ok=True)
    (store / "objects" / digest[:2] / digest).write_bytes(forged)
    manifest["files"]["results.json"] = {"digest": digest, "size": len(forged)}
    lie = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    honest.unlink()
    (honest.parent / f"{digest_bytes(lie)}.json").write_bytes(lie)

    b = clone(a, tmp_path / "b", runs=False)
    pulled = evidence(b, "pull", run_id)
    assert pulled.returncode == 1
    [line] = [x for x in pulled.stdout.splitlines() if x.startswith("REJECTED")]
    assert "results.json" in line and "0.999" in line and "re-evaluating the weights" in line
    assert not (b / "runs" / run_id).exists()

    assert "pushed" in evidence(a, "push", run_id).stdout  # the honest manifest, beside the lie
    again = evidence(b, "pull", run_id)
    assert again.returncode == 0, again.stdout
    if digest_bytes(lie) < digest_file(a / "runs" / run_id / "manifest.json"):  # tried in digest order
        assert "after rejecting 1 other manifest" in again.stdout
    assert (b / "runs" / run_id / "results.json").read_bytes() == \
        (a / "runs" / run_id / "results.json").read_bytes()


def test_bad_remote_settings_are_one_line(tmp_path: Path) -> None:
    root = project(tmp_path, "p", TWO_RUNS, '[remote]\nurl = "sftp://me:secret@host/x"\n')
    result = evidence(root, "push")
    assert result.returncode == 3
    assert result.stderr.startswith("ERROR: ") and "evidence.toml" in result.stderr
    assert "password" in result.stderr and "secret" not in result.stdout
    (root / "evidence.toml").write_text('[remote]\nurl = 3\n')
    result = evidence(root, "remote", "status")
    assert result.returncode == 3 and "remote.url" in result.stderr
    (root / "evidence.toml").write_text("")
    result = evidence(root, "push")
    assert result.returncode == 1 and "no remote" in result.stderr

