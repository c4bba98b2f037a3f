"""Runs trained elsewhere: export sealed runs as an archive, import them only after re-checking.

A run that arrives from another machine, lab or cluster must be exactly as trustworthy as one
trained here, so an import trusts nothing it is told:

1. **Transport.** Every member of an archive is checked before anything is written (no absolute
   paths, no ``..``, no links or devices, no name twice, only ``ARCHIVE.json`` and
   ``runs/<run-id>/<file>``); run ids are validated before they become paths. The checked
   members are then written one by one as plain data files (mode 0644, never over an existing
   file), which is what tarfile's ``data`` filter would do for them, on every Python 3.11 (the
   filter argument only exists from 3.11.4).
2. **Integrity.** ``ARCHIVE.json`` lists the digest of every run's ``manifest.json``, and each
   manifest lists every file's digest and size; a changed manifest, a changed file, a missing
   file or a file the manifest does not list rejects the run, naming the file.
3. **Identity.** The key recorded in ``spec.json`` must be the digest of its identity, the
   manifest and results must name that key, and the identity must be one that an experiment of
   this project declares (same trainer code, engine, config, data, seed, world size); ``--any``
   accepts an undeclared run and records that it did.
4. **Verify by load.** The model is rebuilt from this project's trainer, ``model.safetensors``
   is loaded (safetensors: never unpickled), and every split is evaluated on this machine. The
   numbers must equal ``results.json`` *bit for bit* when the run was trained on the same
   numeric platform (Python, machine, torch, numpy, device kind and CPU kernel level); across
   platforms they must agree within :data:`RTOL` (see :func:`tolerance`).
5. **Publish, never overwrite.** The run is published by one atomic rename as the original files
   plus ``origin-manifest.json`` (the manifest it arrived with, so the chain is auditable) and
   ``import.json`` (where it came from, how it was verified), sealed under a new manifest. An
   existing run id is compared: the same evidence is skipped, different evidence is rejected.

Archives are deterministic (sorted members, zero mtimes, uids and names; gzip without a
timestamp): exporting the same runs twice gives the same bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import shutil
import socket
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from evidence.core.errors import BadInputError, EvidenceError, IntegrityError
from evidence.core.hashing import digest_file, digest_json, write_json_atomic
from evidence.core.project import Project, safe_name
from evidence.core.schema import validate
from evidence.store.runs import _RUN_ID, MANIFEST, ORIGIN_MANIFEST, RunStore

ARCHIVE_MANIFEST = "ARCHIVE.json"
IMPORT_RECORD = "import.json"
#: Cross-platform tolerance, relative (see :func:`tolerance`).
RTOL = 1e-4
#: Absolute floor of the tolerance, for values near zero.
ATOL = 1e-6


class Rejected(EvidenceError):
    """One run cannot be imported; the message names the file and the reason."""


# -- export ----------------------------------------------------------------------------------


def _tar_add(tar: tarfile.TarFile, name: str, data: bytes | None) -> None:
    """Add a file (or, with ``data`` None, a folder) with every varying header field fixed."""
    info = tarfile.TarInfo(name)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if data is None:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(info)
    else:
        info.size, info.mode = len(data), 0o644
        tar.addfile(info, io.BytesIO(data))


def select_runs(project: Project, run_ids: Iterable[str], experiment: str | None) -> list[str]:
    """Run ids to export: the given ones, or every sealed run of ``experiment``."""
    store = RunStore(project.runs_dir)
    chosen = list(run_ids)
    if experiment:
        from evidence.experiments.spec import expand

        safe_name(experiment, source="--experiment", field="experiment")
        path = project.experiments_dir / f"{experiment}.toml"
        if not path.is_file():
            raise BadInputError("--experiment", f"no experiment {experiment!r}: expected "
                                f"{project.relative(path)}", field="experiment")
        found = [store.find(spec.key) for spec in expand(project, path)]
        chosen += [run.run_id for run in found if run is not None]
        if not any(found):
            raise EvidenceError(f"experiment {experiment!r} has no sealed runs to export",
                                hint="run `doit train` first")
    for run_id in chosen:
        if not store.path(run_id).is_dir():
            raise BadInputError(run_id, "no such sealed run in runs/")
    return sorted(set(chosen))


def export_runs(project: Project, run_ids: list[str], out: Path) -> dict[str, Any]:
    """Write sealed runs and ``ARCHIVE.json`` to a deterministic ``.tar.gz``; return the latter.

    Every run is re-hashed first: a run that fails fsck is not exported.
    """
    store = RunStore(project.runs_dir)
    runs = []
    for run_id in sorted(run_ids):
        findings = store.fsck_run(run_id)
        if findings:
            raise IntegrityError(f"refusing to export a damaged run: {findings[0]}",
                                 hint="`evidence fsck` names every problem")
        path = store.path(run_id)
        spec = json.loads((path / "spec.json").read_text("utf-8"))
        runs.append({"run_id": run_id, "key": spec["key"], "experiment": spec["experiment"],
                     "label": spec["label"], "manifest_digest": digest_file(path / MANIFEST)})
    archive = {"schema_version": 1, "kind": "evidence-archive", "runs": runs}
    validate(archive, "archive", ARCHIVE_MANIFEST)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz, \
                tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            _tar_add(tar, ARCHIVE_MANIFEST, (json.dumps(archive, indent=2, sort_keys=True) + "\n")
                     .encode("utf-8"))
            _tar_add(tar, "runs", None)
            for entry in runs:
                folder = store.path(entry["run_id"])
                _tar_add(tar, f"runs/{entry['run_id']}", None)
                for file in sorted(p for p in folder.rglob("*") if p.is_file()):
                    rel = file.relative_to(folder).as_posix()
                    _tar_add(tar, f"runs/{entry['run_id']}/{rel}", file.read_bytes())
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return archive


# -- safe extraction -------------------------------------------------------------------------


def _check_member(member: tarfile.TarInfo) -> None:
    """Reject anything but plain files and folders at the expected, relative, safe paths."""
    name = member.name
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or ".." in path.parts or "\\" in name:
        raise Rejected(f"archive member {name!r}: absolute path or '..' (refusing to extract)")
    if not (member.isfile() or member.isdir()):
        raise Rejected(f"archive member {name!r}: links, devices and fifos are not allowed")
    parts = path.parts
    if parts == (ARCHIVE_MANIFEST,) or parts == ("runs",):
        return
    if len(parts) < 2 or parts[0] != "runs" or not _RUN_ID.match(parts[1]):
        raise Rejected(f"archive member {name!r}: not ARCHIVE.json or runs/<run-id>/...")
    for part in parts[2:]:
        if part.startswith(".") or not part.replace("-", "").replace("_", "").replace(".", "").isalnum():
            raise Rejected(f"archive member {name!r}: unsafe file name {part!r}")


def extract_archive(archive: Path, dest: Path) -> None:
    """Extract ``archive`` into the empty folder ``dest`` after checking every member.

    Only folders and regular files pass :func:`_check_member`, so they are written here rather
    than by ``TarFile.extractall``: its ``filter`` argument came in Python 3.11.4, and without it
    extractall would keep the archive's modes and owners.
    """
    try:
        with tarfile.open(archive, mode="r:*") as tar:
            members = tar.getmembers()
            seen: set[str] = set()
            for member in members:
                _check_member(member)
                name = PurePosixPath(member.name).as_posix()
                if member.isfile() and name in seen:
                    raise Rejected(f"archive member {name!r} is given more than once (refusing to extract)")
                seen.add(name)
            for member in members:
                _write_member(tar, member, dest)
    except (tarfile.TarError, EOFError, OSError) as error:
        raise Rejected(f"{archive}: not a readable archive: {error}") from None


def _write_member(tar: tarfile.TarFile, member: tarfile.TarInfo, dest: Path) -> None:
    """A checked folder or regular file under ``dest``: a file as plain data (0644), new."""
    target = dest.joinpath(*PurePosixPath(member.name).parts)
    if member.isdir():
        target.mkdir(mode=0o755, parents=True, exist_ok=True)
        return
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    source = tar.extractfile(member)
    if source is None:  # not a regular file after all (checked above; kept for the type checker)
        raise Rejected(f"archive member {member.name!r}: not a regular file")
    with source, open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "wb") as out:
        shutil.copyfileobj(source, out)
    os.chmod(target, 0o644)  # whatever the umask: the mode the data filter gives a data file


# -- checks ----------------------------------------------------------------------------------


def _regular_files(folder: Path) -> dict[str, Path]:
    """Every file of a run folder by relative name; links and special files reject the run."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            raise Rejected(f"{path.relative_to(folder)}: not a regular file (links are not allowed)")
        if path.is_file():
            found[path.relative_to(folder).as_posix()] = path
    return found


def check_integrity(folder: Path, run_id: str, manifest_digest: str | None) -> dict[str, Any]:
    """The run's manifest, after every listed file matched it; raises :class:`Rejected`."""
    if not _RUN_ID.match(run_id):
        raise Rejected(f"{run_id!r} is not a run id (16 hex digits, optionally -N)")
    files = _regular_files(folder)
    if MANIFEST not in files:
        raise Rejected(f"{MANIFEST}: missing")
    if manifest_digest is not None and digest_file(files[MANIFEST]) != manifest_digest:
        raise Rejected(f"{MANIFEST}: its digest differs from the one in {ARCHIVE_MANIFEST} "
                       "(the manifest was changed after export)")
    try:
        manifest = json.loads(files[MANIFEST].read_text("utf-8"))
        validate(manifest, "manifest", MANIFEST)
    except (ValueError, BadInputError) as error:
        raise Rejected(f"{MANIFEST}: malformed: {error}") from None
    if manifest["run_id"] != run_id:
        raise Rejected(f"{MANIFEST}: names run {manifest['run_id']}, the folder is {run_id}")
    for name, entry in sorted(manifest["files"].items()):
        if name not in files:
            raise Rejected(f"{name}: listed in the manifest but missing")
        size = files[name].stat().st_size
        if size != entry["size"]:
            raise Rejected(f"{name}: size {size} differs from the manifest's {entry['size']}")
        actual = digest_file(files[name])
        if actual != entry["digest"]:
            raise Rejected(f"{name}: digest {actual[:16]} differs from the manifest's "
                           f"{entry['digest'][:16]} (modified in transit or tampered with)")
    extra = sorted(set(files) - set(manifest["files"]) - {MANIFEST})
    if extra:
        raise Rejected(f"{extra[0]}: not listed in the manifest")
    return dict(manifest)


def check_identity(project: Project, folder: Path, run_id: str, manifest: dict[str, Any],
                   accept_any: bool) -> tuple[Any, bool]:
    """The run's spec, and whether this project declares its identity; raises :class:`Rejected`."""
    from evidence.experiments.spec import RunSpec, expand_all

    try:
        raw = json.loads((folder / "spec.json").read_text("utf-8"))
        validate(raw, "spec", "spec.json")
        spec = RunSpec.from_json(raw)
        results = json.loads((folder / "results.json").read_text("utf-8"))
        validate(results, "results", "results.json")
    except (OSError, ValueError, KeyError, EvidenceError) as error:
        raise Rejected(f"{error}") from None
    if manifest["key"] != spec.key:
        raise Rejected(f"{MANIFEST}: key {manifest['key'][:16]} is not the spec's {spec.key[:16]}")
    if results["key"] != spec.key or results["run_id"] != run_id:
        raise Rejected(f"results.json: names run {results['run_id']} / key {results['key'][:16]}, "
                       f"not {run_id} / {spec.key[:16]}")
    if not run_id.startswith(spec.key[:16]):
        raise Rejected(f"run id {run_id} does not start with its key {spec.key[:16]}")
    declared = {s.key: s for s in expand_all(project)}
    if spec.key in declared:
        return spec, True
    if accept_any:
        return spec, False
    same_name = [s for s in declared.values() if s.task_name == spec.task_name]
    why = ""
    if same_name:
        differs = sorted(k for k in set(spec.identity) | set(same_name[0].identity)
                         if spec.identity.get(k) != same_name[0].identity.get(k))
        why = f" ({spec.task_name} is declared here with a different {', '.join(differs)})"
    raise Rejected(f"spec.json: its identity is not declared by any experiment of this project{why}",
                   hint="use `evidence import --any` to accept it anyway (recorded in import.json)")


def numeric_platform(environment: dict[str, Any]) -> dict[str, Any]:
    """What decides the exact floats of an evaluation: interpreter, CPU, kernels, libraries."""
    packages = environment.get("packages") or {}
    devices = environment.get("devices") or {}
    return {"python": environment.get("python"), "machine": environment.get("machine"),
            "torch": packages.get("torch"), "numpy": packages.get("numpy"),
            "device": devices.get("kind"), "cpu_capability": devices.get("cpu_capability")}


def bit_identical_expected(numerics: dict[str, Any] | None, origin: dict[str, Any],
                           here: dict[str, Any]) -> bool:
    """Whether re-evaluating here must reproduce the recorded numbers bit for bit.

    What determines the bits: under the portable profile the kernels are pinned, so the same
    Python, architecture, torch and numpy suffice (the CPU's own capability no longer matters);
    under native kernels the CPU capability must match too. Otherwise a stated tolerance holds
    (:func:`tolerance`) and the import record says so.
    """
    a, b = numeric_platform(origin), numeric_platform(here)
    keys = ["python", "machine", "torch", "numpy", "device"]
    if not (numerics and numerics.get("profile") == "portable"):
        keys.append("cpu_capability")
        if b["cpu_capability"] is None:
            return False
    return all(a[k] == b[k] for k in keys)


def tolerance(recorded: float, recomputed: float, n: int) -> float:
    """How far a re-evaluation on another platform may move a metric.

    Different CPUs, kernel levels or library versions sum the same float32 products in another
    order; for the models the engine trains that moves a logit by about 1e-6 relative, and a
    split-mean loss by less. ``RTOL`` = 1e-4 leaves two orders of magnitude of margin while any
    edit of a reported number in its first four significant digits is caught. A metric that is a
    fraction of the n samples (accuracy: both values are multiples of 1/n) can additionally flip
    one near-tie prediction, so it may move by one sample, 1/n.
    """
    tol = RTOL * max(abs(recorded), abs(recomputed)) + ATOL
    if n and all(abs(v * n - round(v * n)) < 1e-6 for v in (recorded, recomputed)):
        tol = max(tol, 1.0 / n + 1e-12)
    return tol


def reevaluate_isolated(project: Project, spec: Any, weights: Path,
                        ) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """:func:`reevaluate` in a child process started under the run's numerics profile.

    The kernels a profile pins are chosen when torch is imported; this process imported it
    already, under whatever this host prefers. A portable run re-evaluated here in-process
    differed from its record in the last bits on another host of the same kind; in a process
    with the run's profile it is bit-identical.
    """
    import subprocess
    import sys

    from evidence.core.codedeps import ENGINE_DIR
    from evidence.numerics import profile

    env = {**os.environ, **profile.environment(spec.identity.get("numerics"),
                                                spec.identity.get("device", "cpu"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ENGINE_DIR.parent), env.get("PYTHONPATH")) if p)
    spec_file = weights.parent / "spec.json"
    done = subprocess.run([sys.executable, "-m", "evidence.scale.federation", "--project", str(project.root),
                           "--spec", str(spec_file), "--weights", str(weights)],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        raise Rejected(lines[-1] if lines else f"re-evaluation failed (exit code {done.returncode})")
    out = json.loads(done.stdout)
    return out["final"], out["sizes"]


def main(argv: list[str] | None = None) -> int:
    """``python -m evidence.scale.federation --project P --spec S --weights W``: the child of
    :func:`reevaluate_isolated`; prints the evaluation as JSON, or the rejection on stderr."""
    import argparse
    import sys

    from evidence.experiments.spec import RunSpec

    parser = argparse.ArgumentParser(prog="python -m evidence.scale.federation")
    parser.add_argument("--project", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--weights", required=True)
    args = parser.parse_args(argv)
    try:
        spec = RunSpec.from_json(json.loads(Path(args.spec).read_text("utf-8")))
        from evidence.numerics import profile

        profile.apply_in_process(spec.identity.get("numerics"))
        final, sizes = reevaluate(Project.at(args.project), spec, Path(args.weights))
    except (Rejected, EvidenceError) as error:
        print(str(error), file=sys.stderr)
        return 3
    print(json.dumps({"final": final, "sizes": sizes}))
    return 0


def reevaluate(project: Project, spec: Any, weights: Path) -> tuple[dict[str, dict[str, float]],
                                                                    dict[str, int]]:
    """Rebuild the model from this project's trainer, load the weights, evaluate every split."""
    from safetensors.torch import load_file

    from evidence.experiments.trainers import data_info, load_checked_data, load_trainer
    from evidence.numerics import training

    training.configure_determinism(int(spec.execution.get("threads", 1)))
    identity = spec.identity
    try:
        dataset = load_checked_data(project, identity, spec.seed, "spec.json")
    except EvidenceError as error:
        raise Rejected(str(error)) from None
    info = data_info(dataset)
    try:
        trainer = load_trainer(project, spec.trainer)
        training.seed_everything(spec.seed)
        recipe = trainer.build(spec.config, info)
        recipe.model.load_state_dict(load_file(str(weights)), strict=True)
    except (EvidenceError, RuntimeError, ValueError, TypeError, KeyError, OSError) as error:
        raise Rejected(f"model.safetensors: does not load into {spec.trainer}'s model: "
                       f"{str(error).splitlines()[0]}") from None
    final = training.final_evaluation(recipe, dataset)
    final["diagnostics"] = training.prediction_diagnostics(recipe, dataset["test"])
    return final, info.split_sizes


def compare_results(results: dict[str, Any], final: dict[str, dict[str, float]],
                    sizes: dict[str, int], exact: bool) -> float:
    """Largest deviation between recorded and recomputed numbers; raises :class:`Rejected`."""
    pairs = []
    for metric, block in sorted(results["metrics"].items()):
        for split, value in sorted(block["values"].items()):
            new = final[split].get(metric, float("nan"))
            if not math.isfinite(new) and results["diagnostics"].get(f"nonfinite_{metric}"):
                new = 0.0  # the runner records a non-finite value as 0.0 plus a diagnostic
            pairs.append((f"{split}/{metric}", float(value), new, sizes.get(split, 0)))
    for name in ("prediction_entropy", "majority_prediction_share"):
        if name in results["diagnostics"] and name in final["diagnostics"]:
            pairs.append((f"diagnostics/{name}", float(results["diagnostics"][name]),
                          final["diagnostics"][name], sizes.get("test", 0)))
    worst = 0.0
    for name, recorded, new, n in pairs:
        deviation = abs(new - recorded) if math.isfinite(new) else math.inf
        worst = max(worst, deviation)
        if exact and new != recorded:
            raise Rejected(f"results.json: {name} is {recorded!r}, re-evaluating the weights here "
                           f"gives {new!r} (the same numeric platform and profile: must be "
                           "bit-identical)")
        if not exact and not deviation <= tolerance(recorded, new, n):
            raise Rejected(f"results.json: {name} is {recorded!r}, re-evaluating the weights here "
                           f"gives {new!r} (beyond the cross-platform tolerance "
                           f"{tolerance(recorded, new, n):.2g})")
    return worst


# -- import ----------------------------------------------------------------------------------


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


def _evidence(folder: Path) -> dict[str, str]:
    """What makes two copies of a run "the same evidence": the key, the weights, the per-epoch
    metrics and the reported numbers. Names (experiment, label) and provenance (host, times) may
    differ between two projects that trained or received the same run."""
    spec = json.loads((folder / "spec.json").read_text("utf-8"))
    results = json.loads((folder / "results.json").read_text("utf-8"))
    numbers = {k: results.get(k) for k in ("metrics", "diagnostics", "epochs", "steps")}
    return {"key": str(spec.get("key")), "model.safetensors": digest_file(folder / "model.safetensors"),
            "metrics.jsonl": digest_file(folder / "metrics.jsonl"), "results.json": digest_json(numbers)}


def _remove_tree(path: Path) -> None:
    if path.exists():
        for sub in [path, *path.rglob("*")]:
            if sub.is_dir() and not sub.is_symlink():
                sub.chmod(0o755)
        shutil.rmtree(path)


def _here() -> dict[str, Any]:
    from evidence.core.provenance import environment
    from evidence.train import distributed

    return {**environment(), "devices": distributed.LOCAL.describe()}


def import_run(project: Project, folder: Path, run_id: str, *, manifest_digest: str | None,
               source: dict[str, Any], accept_any: bool) -> tuple[str, str]:
    """Check one run folder and publish it; ("imported" | "skipped", what was done)."""
    from evidence.train.runner import lock_for

    manifest = check_integrity(folder, run_id, manifest_digest)
    spec, declared = check_identity(project, folder, run_id, manifest, True)
    store = RunStore(project.runs_dir)
    lock = lock_for(project, spec.key)
    with lock:
        existing = store.path(run_id)
        if existing.exists():
            mine, theirs = _evidence(existing), _evidence(folder)
            differ = sorted(name for name in set(mine) | set(theirs) if mine.get(name) != theirs.get(name))
            if differ:
                raise Rejected(f"{', '.join(differ)}: runs/{run_id} exists with different evidence "
                               "(sealed runs are never overwritten)")
            return "skipped", "identical evidence is already sealed in runs/"
        if not declared and not accept_any:
            check_identity(project, folder, run_id, manifest, False)  # raises, saying what differs
        results = json.loads((folder / "results.json").read_text("utf-8"))
        origin_env = json.loads((folder / "provenance.json").read_text("utf-8")).get("environment", {}) \
            if (folder / "provenance.json").exists() else {}
        here = _here()
        exact = bit_identical_expected(spec.identity.get("numerics"), origin_env, here)
        final, sizes = reevaluate_isolated(project, spec, folder / "model.safetensors")
        worst = compare_results(results, final, sizes, exact)
        staging = project.state_dir / "import" / f"{run_id}.{os.getpid()}"
        _remove_tree(staging)
        staging.mkdir(parents=True)
        try:
            previous = []
            if (folder / IMPORT_RECORD).exists():  # an imported run travels on: keep the chain
                earlier = json.loads((folder / IMPORT_RECORD).read_text("utf-8"))
                previous = [*earlier.get("previous", []), {k: v for k, v in earlier.items()
                                                           if k != "previous"}]
            for name in sorted(manifest["files"]):
                if name == IMPORT_RECORD:
                    continue
                target = staging / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / name, target)
            if not (folder / ORIGIN_MANIFEST).exists():
                shutil.copyfile(folder / MANIFEST, staging / ORIGIN_MANIFEST)
            provenance = json.loads((folder / "provenance.json").read_text("utf-8")) \
                if (folder / "provenance.json").exists() else {}
            from evidence.train.runner import now_iso

            record = {
                "schema_version": 1, "run_id": run_id, "key": spec.key,
                "imported_at": now_iso(), "declared": declared,
                "source": {**source, "manifest_digest": digest_file(folder / MANIFEST)},
                "origin": {"source": provenance.get("source"), "git": provenance.get("git"),
                           "platform": numeric_platform(origin_env)},
                "verification": {
                    "mode": "bit-identical" if exact else "tolerance",
                    "why": "same numeric platform" if exact else "trained on another numeric "
                           "platform (or one this run does not record fully)",
                    "rtol": 0.0 if exact else RTOL, "max_deviation": worst,
                    "splits": sorted(sizes)},
                "importer": {"host": socket.gethostname(), "platform": numeric_platform(here)},
                "previous": previous,
            }
            validate(record, "import", IMPORT_RECORD)
            write_json_atomic(staging / IMPORT_RECORD, record)
            store.seal(staging, run_id, spec.key)
        except BaseException:
            _remove_tree(staging)
            raise
    how = "bit-identical" if exact else f"within tolerance (max deviation {worst:.2g})"
    note = "" if declared else "; NOT declared by this project's experiments (accepted with --any)"
    return "imported", f"verified by load, {how}{note}"


def _run_folders(root: Path) -> tuple[list[tuple[str, Path, str | None]], dict[str, Any] | None]:
    """(run id, folder, manifest digest from ARCHIVE.json) for every run under ``root``."""
    archive_file = root / ARCHIVE_MANIFEST
    if archive_file.is_file():
        try:
            archive = json.loads(archive_file.read_text("utf-8"))
            validate(archive, "archive", ARCHIVE_MANIFEST)
        except (ValueError, BadInputError) as error:
            raise Rejected(f"{ARCHIVE_MANIFEST}: malformed: {error}") from None
        listed = {entry["run_id"]: entry for entry in archive["runs"]}
        present = {p.name for p in (root / "runs").iterdir()} if (root / "runs").is_dir() else set()
        unlisted = sorted(present - set(listed))
        if unlisted:
            raise Rejected(f"runs/{unlisted[0]}: in the archive but not in {ARCHIVE_MANIFEST}")
        return [(rid, root / "runs" / rid, entry["manifest_digest"])
                for rid, entry in sorted(listed.items())], archive
    if (root / MANIFEST).is_file():
        return [(root.name, root, None)], None
    base = root / "runs" if (root / "runs").is_dir() else root
    return [(p.name, p, None) for p in sorted(base.iterdir())
            if p.is_dir() and not p.name.startswith(".")], None


def import_source(project: Project, source: Path, *, accept_any: bool = False) -> ImportReport:
    """Import every run of a folder or archive; each run is accepted or rejected on its own."""
    report = ImportReport()
    if not source.exists():
        raise BadInputError(source, "no such file or folder")
    scratch: Path | None = None
    described: dict[str, Any] = {"path": str(source.resolve())}
    try:
        root = source
        try:
            if source.is_file():
                described["archive_digest"] = digest_file(source)
                root = scratch = project.state_dir / "import" / f"extract.{os.getpid()}"
                _remove_tree(scratch)
                scratch.mkdir(parents=True)
                extract_archive(source, scratch)
            folders, _ = _run_folders(root)
        except Rejected as error:  # the archive as a whole
            report.rejected[source.name] = error.message
            report.lines.append(f"REJECTED {source.name}: {error.message}")
            return report
        for run_id, folder, manifest_digest in folders:
            try:
                verdict, detail = import_run(project, folder, run_id, manifest_digest=manifest_digest,
                                             source=described, accept_any=accept_any)
            except Rejected as error:
                report.rejected[run_id] = error.format()[len("ERROR: "):]
                report.lines.append(f"REJECTED {run_id}: {report.rejected[run_id]}")
                continue
            (report.imported if verdict == "imported" else report.skipped).append(run_id)
            report.lines.append(f"{verdict} {run_id}: {detail}")
    finally:
        if scratch is not None:
            _remove_tree(scratch)
    return report


if __name__ == "__main__":
    raise SystemExit(main())
