"""The remote (issue 33): push/pull throughput of the example's sealed runs, and what mirroring
checkpoints costs a training run.

1. **Push and pull of the bundled example's runs** (``runs/``, 41 sealed runs) against each kind
   of remote, started on 127.0.0.1 as the tests start them (``tests/remote_servers.py``): a
   folder (a cluster's shared file system), OpenSSH's sshd (SFTP) and moto's S3 server. Measured:
   ``evidence push`` into an empty remote (bytes sent, wall time of the command), the same push
   again (nothing to send: the dedupe check), the transfer half of a pull (every object fetched
   and re-hashed, in this process) and, for ``--import-kinds``, a whole ``evidence pull`` into a
   fresh clone, which also re-evaluates every run's weights (verify by load, one child process
   per run): that part does not depend on the kind of remote.
2. **The checkpoint mirror's overhead**: one run of the MLP (``--hidden`` 1024, ``--epochs`` 12)
   checkpointing every ``--every-seconds`` (or ``--every-steps``), trained by ``doit train``
   without a remote and with one (interleaved repeats); the runner's own wall time
   (``provenance.json``) with the mirror thread copying each checkpoint, against the same run
   without it.

Usage: ``python bench/remote.py [--kinds folder sftp s3] [--import-kinds folder] [--repeats 3]``
(from the repository root, with the project's ``.venv``; needs ``pip install -e '.[remote,dev]'``
and ``/usr/sbin/sshd`` for the SFTP rows). Works under ``bench/.work/remote/``; replaces the
``remote`` section of ``bench/results.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import common

sys.path.insert(0, str(common.REPO / "tests"))
from remote_servers import ALIAS, sshd_missing, start_s3, start_sshd

TRAIN_DODO = '''
from pathlib import Path

from evidence.tasks import base as tasks
from evidence.tasks import train as train_tasks
from evidence.core.project import Project

PROJECT = Project.at(Path(__file__).parent)
DOIT_CONFIG = tasks.doit_config(PROJECT)


def task_train():
    return train_tasks.task_train(PROJECT)
'''

MIRRORED_RUN = """
trainer = "mlp"
seeds = [0]
[data]
dataset = "digits"
[config]
epochs = {epochs}
batch_size = 32
lr = 0.05
hidden = {hidden}
[checkpoint]
every_steps = {every_steps}
every_seconds = {every_seconds}
keep = 2
[smoke]
batches = 1
"""

S3_ENV = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}


def example(dest: Path, *, runs: bool) -> Path:
    """The bundled example's experiments, trainers and (if asked) sealed runs."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in ("experiments", "trainers", *(("runs",) if runs else ())):
        shutil.copytree(common.REPO / name, dest / name)
    for name in ("presets.toml",):
        if (common.REPO / name).exists():
            shutil.copy(common.REPO / name, dest / name)
    (dest / "dodo.py").write_text(TRAIN_DODO)
    return dest


def command(root: Path, args: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "evidence.cli", "--project", str(root), *args],
                          capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off", **env})
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"evidence {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return wall, done.stdout


def sent(output: str) -> int:
    return int(output.split("sent ", 1)[1].split(" bytes", 1)[0])


def fetch_all(root: Path, env: dict[str, str]) -> tuple[float, int, int]:
    """Every object of every published run fetched and re-hashed: (seconds, bytes, objects)."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        from evidence.core.project import Project
        from evidence.remote.location import open_remote
        from evidence.remote.store import RemoteStore

        location = open_remote(Project.at(root))
        assert location is not None
        store = RemoteStore(location)
        scratch = root / ".evidence" / "bench-fetch"
        scratch.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        total = count = 0
        for run_id, digests in store.published().items():
            manifest = json.loads(store.read(store.manifest_path(run_id, digests[0])))
            for entry in manifest["files"].values():
                total += store.fetch_object(entry["digest"], scratch / "object")
                count += 1
        seconds = time.perf_counter() - t0
        shutil.rmtree(scratch)
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return seconds, total, count


def remotes(work: Path, kinds: list[str]) -> tuple[dict[str, tuple[str, dict[str, str]]], list[Any]]:
    """(evidence.toml, environment) per kind, and the servers to stop."""
    found: dict[str, tuple[str, dict[str, str]]] = {}
    servers: list[Any] = []
    if "folder" in kinds:
        found["folder"] = (f'[remote]\nurl = "{work / "shared-fs"}"\n', {})
    if "sftp" in kinds:
        reason = sshd_missing()
        if reason:
            print(f"skipping sftp: {reason}")
        else:
            sshd = start_sshd(work / "sshd-state")
            servers.append(sshd)
            found["sftp"] = (f'[remote]\nurl = "sftp://{ALIAS}{work / "over-ssh"}"\n',
                             {"HOME": str(sshd.home)})
    if "s3" in kinds:
        server, endpoint = start_s3()
        servers.append(server)
        import boto3

        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bench",
                     aws_secret_access_key="bench").create_bucket(Bucket="bench")
        found["s3"] = (f'[remote]\nurl = "s3://bench/evidence"\nendpoint_url = "{endpoint}"\n', S3_ENV)
    return found, servers


def throughput(work: Path, kinds: dict[str, tuple[str, dict[str, str]]],
               import_kinds: list[str]) -> list[str]:
    rows = []
    for kind, (settings, env) in kinds.items():
        source = example(work / f"push-{kind}", runs=True)
        (source / "evidence.toml").write_text(settings)
        runs = len([p for p in (source / "runs").iterdir() if p.is_dir()])
        wall, out = command(source, ["push"], env)
        size = sent(out)
        again, out_again = command(source, ["push"], env)
        fetch_s, fetched, objects = fetch_all(source, env)
        row = (f"| {kind} | {runs} | {size / 1e6:.2f} | {wall:.2f} | {size / wall / 1e6:.2f} | "
               f"{again:.2f} ({sent(out_again)} B sent) | {fetch_s:.2f} ({objects} objects, "
               f"{fetched / fetch_s / 1e6:.2f} MB/s) |")
        if kind in import_kinds:
            dest = example(work / f"pull-{kind}", runs=False)
            (dest / "evidence.toml").write_text(settings)
            pull_wall, pull_out = command(dest, ["pull"], env)
            imported = pull_out.count("verified by load")
            row += f" {pull_wall:.1f} ({imported} imported, {pull_wall / max(imported, 1):.2f} s/run) |"
        else:
            row += " – |"
        rows.append(row)
        print(row, flush=True)
    return rows


def train_once(root: Path, env: dict[str, str]) -> tuple[float, float, float]:
    for name in ("runs", ".evidence"):
        if (root / name).exists():
            subprocess.run(["chmod", "-R", "u+w", str(root / name)], check=True)
            shutil.rmtree(root / name)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "doit", "train"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off", **env})
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"doit train failed in {root.name}:\n{done.stdout}\n{done.stderr}")
    [run] = [p for p in (root / "runs").iterdir() if p.is_dir()]
    provenance = json.loads((run / "provenance.json").read_text())
    busy = re.search(r"mirror thread was busy ([0-9.]+) s", done.stdout + done.stderr)
    return float(provenance["wall_seconds"]), wall, float(busy.group(1)) if busy else 0.0


def overhead(work: Path, kinds: dict[str, tuple[str, dict[str, str]]], cadence: dict[str, Any],
             repeats: int) -> tuple[list[str], int]:
    variants: dict[str, tuple[Path, dict[str, str], str]] = {}
    for name, (settings, env) in [("no remote", ("", {})), *kinds.items()]:
        root = work / f"mirror-{name.replace(' ', '-')}"
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        shutil.copytree(common.REPO / "trainers", root / "trainers")
        (root / "experiments").mkdir()
        (root / "experiments" / "mirror.toml").write_text(MIRRORED_RUN.format(**cadence))
        (root / "dodo.py").write_text(TRAIN_DODO)
        variants[name] = (root, env, settings)
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
    for repeat in range(repeats):
        order = list(variants)[repeat % len(variants):] + list(variants)[:repeat % len(variants)]
        for name in order:
            root, env, settings = variants[name]
            if settings:  # an empty remote each time: the run must train, not be pulled
                where = f"mirror-{name}-{repeat}"
                (root / "evidence.toml").write_text(
                    settings.replace('"\n', f'/{where}"\n', 1) if "endpoint_url" not in settings
                    else settings.replace("evidence", where, 1))
            samples[name].append(train_once(root, env))
            print(name, samples[name][-1], flush=True)
    base_run = statistics.median(s[0] for s in samples["no remote"])
    base_cmd = statistics.median(s[1] for s in samples["no remote"])
    checkpoints = 0
    [run] = [p for p in (variants["no remote"][0] / "runs").iterdir() if p.is_dir()]
    checkpoints = int(json.loads((run / "provenance.json").read_text())["checkpoints_written"])
    rows = []
    for name, values in samples.items():
        run_s = statistics.median(v[0] for v in values)
        cmd_s = statistics.median(v[1] for v in values)
        spread = f"{min(v[0] for v in values):.2f}–{max(v[0] for v in values):.2f}"
        busy = statistics.median(v[2] / v[0] for v in values)
        rows.append(f"| {name} | {run_s:.2f} | {spread} | {100 * (run_s / base_run - 1):+.1f}% | "
                    f"{100 * busy:.1f}% | {cmd_s:.2f} | {100 * (cmd_s / base_cmd - 1):+.1f}% |")
    return rows, checkpoints


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="+", default=["folder", "sftp", "s3"])
    parser.add_argument("--import-kinds", nargs="*", default=["folder"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--every-steps", type=int, default=0)
    parser.add_argument("--every-seconds", type=float, default=1.0)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--workdir", type=Path, default=common.BENCH / ".work" / "remote")
    args = parser.parse_args(argv)
    work = args.workdir.resolve()
    if work.exists():
        subprocess.run(["chmod", "-R", "u+w", str(work)], check=True)
        shutil.rmtree(work)
    work.mkdir(parents=True)
    started = time.time()
    kinds, servers = remotes(work, args.kinds)
    try:
        rows = [] if args.skip_throughput else throughput(work, kinds, args.import_kinds)
        cadence = {"every_steps": args.every_steps, "every_seconds": args.every_seconds,
                   "epochs": args.epochs, "hidden": args.hidden}
        mirror_rows, checkpoints = overhead(work, kinds, cadence, args.repeats)
    finally:
        for server in servers:
            server.stop()
    command_line = " ".join(["python bench/remote.py", *(argv if argv is not None else sys.argv[1:])])
    body = [
        "## The remote: push/pull throughput and the checkpoint mirror's overhead",
        "",
        f"Produced by: `{command_line}`; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, "
        f"{(time.time() - started) / 60:.0f} min; engine {common.engine_state()}.",
        f"Machine: {common.machine()} (shared; servers on 127.0.0.1, so this measures the "
        "engine and the protocols, not a network).",
        "",
    ]
    if rows:
        body += [
            "### The example's sealed runs (`runs/`)",
            "",
            "| remote | runs | MB sent | `evidence push` s | MB/s | push again s "
            "| fetch + re-hash every object s | `evidence pull` (import, verify by load) s |",
            "|---|---:|---:|---:|---:|---|---|---|",
            *rows,
            "",
        ]
    body += [
        f"### Checkpoint mirror overhead (one MLP run, hidden {args.hidden}, {args.epochs} epochs; "
        f"{checkpoints} checkpoints, every "
        + (f"{args.every_steps} steps" if args.every_steps else f"{args.every_seconds:g} s")
        + f"; median of {args.repeats} interleaved repeats)",
        "",
        "| remote | runner wall s (median) | min–max | vs no remote | mirror thread busy / run wall "
        "| `doit train` wall s | vs no remote |",
        "|---|---:|---|---:|---:|---:|---:|",
        *mirror_rows,
        "",
        "The runner's wall time is the run's own (provenance `wall_seconds`: training, checkpoints "
        "and the mirror thread working beside it); `doit train` adds process start-up, the remote "
        "lease (on SFTP and S3 a 2.1 s settling pause, since their modified times are kept to the "
        "second) and the push of the sealed run. *Mirror thread busy* is the time the mirror's "
        "thread spent sending checkpoints (its summary line at the end of the run) over the run's wall "
        "time: work done on another core beside the training thread, an upper bound of what it could "
        "take from training, which the wall-time columns cannot resolve when the machine's own noise "
        "(see min–max of the run without a remote) is larger.",
    ]
    common.update_section("remote", "\n".join(body) + "\n")
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    sys.exit(main())
