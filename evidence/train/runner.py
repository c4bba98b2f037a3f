"""Execute one run spec: lock, resume, train, verify by load, seal.

The runner is what makes a run survive anything:

* a lock per run key (``filelock``; the OS drops it when its holder dies) so two ``doit``
  processes never train the same run twice;
* on every start it loads the newest valid checkpoint from the run's durable work folder and
  continues from there; a fresh start only happens when there is none (or on ``--force``,
  which mints a new run id and never touches the old work);
* SIGTERM, SIGINT and SIGUSR2 (what clusters send before a time limit) write a checkpoint and
  exit with :data:`EXIT_INTERRUPTED`; SIGKILL loses at most one checkpoint interval;
* before sealing, the final weights are re-read from disk into a freshly built model and
  re-evaluated; any difference from the logged numbers refuses the seal.

It runs in its own process (``python -m evidence.train.runner``) so that a crash, a signal or the
thread settings of one run cannot affect doit or other runs. A run with ``world_size`` N runs as
N such processes under torchrun; they cooperate through :mod:`evidence.train.distributed` (rank 0
locks, writes and seals; all ranks agree on every checkpoint and every stop).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from evidence.core.errors import (
    EXIT_INTERRUPTED,
    EXIT_TASK_ERROR,
    EvidenceError,
    RunFailedError,
    RunInterruptedError,
)
from evidence.core.hashing import write_json_atomic
from evidence.core.progress import ProgressReporter
from evidence.core.project import Project
from evidence.experiments.spec import RunSpec
from evidence.experiments.trainers import data_info, load_checked_data, load_trainer
from evidence.numerics import profile as numerics_profile
from evidence.numerics.stopping import EarlyStopping
from evidence.store.runs import RunStore, SealedRun
from evidence.train import distributed, meter

PROGRESS_FILE = "status.json"


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def lock_for(project: Project, key: str) -> Any:
    from filelock import FileLock

    folder = project.state_dir / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    return FileLock(str(folder / f"{key}.lock"))


class _Signals:
    """Turns SIGTERM/SIGINT/SIGUSR2 into a flag checked between steps (never mid-step)."""

    def __init__(self) -> None:
        self.received: int | None = None

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR2):
            signal.signal(sig, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = signum


@dataclass
class Outcome:
    run: SealedRun
    cached: bool


class Execution:
    """One attempt at one run, in one process.

    :meth:`run` reads as its steps: prepare, smoke, resume, train (checkpointing on a
    :class:`~evidence.train.checkpoint.CheckpointClock` and on signals), verify by load, seal. A
    trainer with its own loop (``train(ctx)``) goes through :mod:`evidence.train.ownloop` after
    prepare, which uses the same checkpoint, interrupt and seal steps. The state those steps share
    (the trainer, the data, the progress and the timing record) lives on the object.
    """

    def __init__(self, project: Project, spec: RunSpec, run_id: str,
                 group: distributed.Group = distributed.LOCAL) -> None:
        self.project = project
        self.group = group
        self.spec = spec
        self.run_id = run_id
        self.work = project.work_dir / run_id
        self.signals = _Signals()
        self.execution = spec.execution
        self.cadence = spec.execution.get("checkpoint", {})
        self.last_checkpoint: int | None = None
        self.stopper: EarlyStopping | None = None
        self.started = time.time()
        self.cpu_started = time.process_time()
        self.threads = int(self.execution.get("threads", 1))
        self.source = f"trainers/{spec.trainer}.py"
        self.trainer: Any = None
        self.dataset: Any = None
        self.meta: dict[str, Any] = {}
        self.log: Any = None  # the run's RunLog when its output is kept (evidence.train.runlog)
        self.remote: Any = None  # an evidence.remote.session.RunRemote when a remote is set

    def status(self, state: str, **extra: Any) -> None:
        if not self.group.is_main:
            return
        record = {"run_id": self.run_id, "experiment": self.spec.experiment,
                  "label": self.spec.label, "pid": os.getpid(), "state": state,
                  "updated_at": time.time(), **extra}
        try:
            self.work.mkdir(parents=True, exist_ok=True)
            write_json_atomic(self.work / PROGRESS_FILE, record)
        except OSError as error:  # advisory: a full disk must not hide the error that matters
            print(f"{self.spec.task_name}: could not write {PROGRESS_FILE} ({error.strerror or error})",
                  file=sys.stderr)

    def run(self) -> SealedRun:
        self._prepare()
        from evidence.train import ownloop

        if ownloop.is_own_loop(self.trainer):  # the second contract: the project's loop
            return ownloop.run(self)
        self._smoke()
        recipe = self._build()
        self._set_stopper(recipe)
        checkpoints, progress = self._resume(recipe)
        self._train(recipe, checkpoints, progress)
        if not self.group.is_main:  # rank 0 evaluates, verifies and seals; wait for it
            self.group.barrier()
            return SealedRun(self.project.runs_dir / self.run_id)
        self.status("evaluating", step=progress.step)
        staging, final, diagnostics = self._verify_by_load(recipe)
        return self._seal(staging, self._results(recipe, final, diagnostics, progress),
                          progress.history)

    # -- the steps -------------------------------------------------------------------------

    def _prepare(self) -> None:
        """Work folder, spec record, signal handlers, deterministic kernels, trainer and data."""
        from evidence.numerics import training

        self.work.mkdir(parents=True, exist_ok=True)
        self._keep_recorded_preset()
        if self.group.is_main:
            write_json_atomic(self.work / "spec.json", self.spec.to_json())
        self.signals.install()
        training.configure_determinism(self.threads)
        numerics_profile.apply_in_process(self.spec.identity.get("numerics"))
        self.trainer = load_trainer(self.project, self.spec.trainer)
        self.dataset = load_checked_data(self.project, self.spec.identity, self.spec.seed,
                                         self.spec.task_name)
        self.meta = {"wall_seconds": 0.0, "cpu_seconds": 0.0, "resumes": 0,
                     "started_at": now_iso(), "checkpoint_seconds": 0.0, "checkpoints_written": 0}

    def _build(self) -> Any:
        """A fresh, seeded recipe from the trainer, checked against the contract."""
        import torch

        from evidence.numerics import training

        training.seed_everything(self.spec.seed)
        recipe = self.trainer.build(self.spec.config, data_info(self.dataset))
        if isinstance(getattr(recipe, "model", None), torch.nn.Module):
            self.group.place(recipe.model)
        try:
            recipe.check(self.source)
        except AttributeError:
            raise RunFailedError(f"{self.source}: build() must return an evidence.numerics.recipe."
                                 f"Recipe, got {type(recipe).__name__}") from None
        except (TypeError, ValueError) as error:
            raise RunFailedError(str(error)) from None
        self._check_preset_knobs(recipe, self.source)
        return recipe

    def _smoke(self) -> None:
        """A few real steps on a throw-away model before the long run (see training.smoke_check)."""
        from evidence.numerics import training

        smoke = self.execution.get("smoke", {})
        self.status("smoke")
        try:
            training.smoke_check(self._build(), self.dataset, int(smoke.get("batches", 2)),
                                 int(smoke.get("overfit_steps", 0)))
        except (RuntimeError, ValueError, TypeError, IndexError) as error:
            raise RunFailedError(f"{self.spec.task_name}: {error}",
                                 hint="fix the trainer or config; nothing long ran") from error

    def _set_stopper(self, recipe: Any) -> None:
        try:
            self.stopper = EarlyStopping.from_config(self.spec.config.get("early_stopping"),
                                                     recipe.directions, self.source)
        except ValueError as error:
            raise RunFailedError(str(error)) from None

    def _resume(self, recipe: Any) -> tuple[Any, Any]:
        """Load the newest valid checkpoint into ``recipe``; the progress to continue from."""
        from evidence.numerics import training

        self.group.diverge_rng(self.spec.seed)
        checkpoints = self.checkpoint_dir()
        progress = training.Progress()
        resumed = self.group.load_checkpoint(checkpoints)
        if resumed is not None:
            checkpoint, state = resumed
            if state.get("key") != self.spec.key:
                raise RunFailedError(f"checkpoint {checkpoint.path} belongs to another run")
            recipe.model.load_state_dict(state["model"])
            recipe.optimizer.load_state_dict(state["optimizer"])
            if recipe.scheduler is not None and state.get("scheduler") is not None:
                recipe.scheduler.load_state_dict(state["scheduler"])
            training.set_rng_state(self.group.rng_from(state))
            progress = training.Progress.from_dict(state["progress"])
            self.meta = dict(state["meta"])
            self.meta["resumes"] = int(self.meta["resumes"]) + 1
            if self.group.is_main:
                print(f"resuming {self.spec.task_name} from step {checkpoint.step} "
                      f"(epoch {progress.epoch}, batch {progress.batch})", file=sys.stderr)
        self.last_checkpoint = checkpoints.latest_step()
        return checkpoints, progress

    def checkpoint_dir(self) -> Any:
        """The run's checkpoint folder, cleaned of torn writes; with a remote, a run that has no
        checkpoint here first fetches the newest one mirrored there (another machine's)."""
        from evidence.train.checkpoint import CheckpointDir

        checkpoints = CheckpointDir(self.work / "checkpoints", int(self.cadence.get("keep", 3)))
        if self.group.is_main:
            checkpoints.clean_temporaries()
            if self.remote is not None:
                self.remote.restore(checkpoints.folder)
        return checkpoints

    def elapsed(self) -> dict[str, Any]:
        """The timing record so far: this attempt's time added to that of earlier attempts."""
        return {**self.meta, "wall_seconds": self.meta["wall_seconds"] + time.time() - self.started,
                "cpu_seconds": self.meta["cpu_seconds"] + time.process_time() - self.cpu_started,
                **meter.peaks(self.meta)}

    def _save(self, recipe: Any, checkpoints: Any, progress: Any) -> None:
        """Checkpoint the recipe's whole mutable state (rank 0 writes; all ranks take part)."""
        from evidence.numerics import training

        t0 = time.perf_counter()
        rng = self.group.rng_record(training.rng_state())  # collective under DDP
        if not self.group.is_main:
            self.last_checkpoint = progress.step
            return
        state = {"format": 1, "key": self.spec.key, "model": recipe.model.state_dict(),
                 "optimizer": recipe.optimizer.state_dict(),
                 "scheduler": recipe.scheduler.state_dict() if recipe.scheduler else None,
                 **rng, "progress": progress.to_dict(), "meta": self.elapsed()}
        self._write_checkpoint(checkpoints, state, progress.step, progress.epoch, t0)

    def _write_checkpoint(self, checkpoints: Any, state: dict[str, Any], step: int, epoch: int,
                          t0: float) -> None:
        """Write ``state`` durably and account for it in the run's timing record."""
        state["meta"]["checkpoints_written"] = int(self.meta["checkpoints_written"]) + 1
        written = checkpoints.save(state, step, epoch)
        if self.remote is not None:
            self.remote.written(written.path)  # a thread mirrors it; training goes on
        self.meta["checkpoints_written"] = state["meta"]["checkpoints_written"]
        self.meta["checkpoint_seconds"] = float(self.meta["checkpoint_seconds"]) + \
            time.perf_counter() - t0
        self.last_checkpoint = step

    def _interrupt(self, received: int, step: int, total: int | None) -> RunInterruptedError:
        name = signal.Signals(received).name
        where = f"{step}/{total}" if total else str(step)
        return RunInterruptedError(f"{self.spec.task_name} interrupted by {name} at step {where}; "
                                   f"checkpoint written", hint="run `doit train` again to resume")

    def _train(self, recipe: Any, checkpoints: Any, progress: Any) -> None:
        """The engine's loop, checkpointing when the clock says so or a signal arrives."""
        from evidence.numerics import training
        from evidence.train.checkpoint import CheckpointClock

        clock = CheckpointClock(self.cadence)
        reporter = ProgressReporter(self.spec.task_name, sys.stderr,
                                    tty=self.log.terminal if self.log is not None else None)
        reporter.enabled = reporter.enabled and self.group.is_main  # one progress line per run
        last_status = 0.0

        def after_step(p: training.Progress, total: int, *, report: bool = True) -> None:
            nonlocal last_status
            received, due = self.group.agree(self.signals.received or 0, clock.due(p.step))
            if received:
                self._save(recipe, checkpoints, p)
                self.group.barrier()  # no rank leaves before rank 0's checkpoint is on disk
                raise self._interrupt(received, p.step, total)
            if due:
                self._save(recipe, checkpoints, p)
                clock.saved()
            if report:
                reporter.update(p.step, total, p.epoch, p.loss_sum / max(p.batch, 1))
            if time.monotonic() - last_status >= 1.0:
                self.status("training", step=p.step, total_steps=total, epoch=p.epoch,
                            last_checkpoint=self.last_checkpoint)
                last_status = time.monotonic()

        def after_epoch(p: training.Progress, total: int) -> None:
            after_step(p, total, report=False)

        self.status("training", step=progress.step, last_checkpoint=self.last_checkpoint)
        training.run_epochs(recipe, self.dataset, self.spec.seed, progress, after_step, after_epoch,
                            self.group.step_fn(recipe.model), self.stopper)
        reporter.close()

    def _verify_by_load(self, recipe: Any) -> tuple[Path, Any, dict[str, float]]:
        """Save the final weights into a fresh staging folder and re-evaluate them from disk.

        Trust the file on disk, not the model in memory: a fresh model loads the saved weights
        and must give exactly the numbers the training process computed.
        """
        from safetensors.torch import load_file, save_file

        from evidence.numerics import training
        from evidence.train.baseline import mean_baseline

        final = training.final_evaluation(recipe, self.dataset)
        diagnostics = training.prediction_diagnostics(recipe, self.dataset["test"])
        diagnostics.update(mean_baseline(recipe, self.dataset))  # regression: the floor to beat
        staging = self._fresh_staging()
        weights = {k: v.detach().cpu().clone().contiguous()
                   for k, v in recipe.model.state_dict().items()}
        save_file(weights, str(staging / "model.safetensors"), metadata={"run_key": self.spec.key})
        fresh = self._build()
        fresh.model.load_state_dict(load_file(str(staging / "model.safetensors"),
                                              device=str(self.group.device)), strict=True)
        reloaded = training.final_evaluation(fresh, self.dataset)
        if reloaded != final:
            raise RunFailedError(f"{self.spec.task_name}: verify-by-load failed: the saved weights "
                                 f"give {reloaded}, the training process logged {final}",
                                 hint="the run was not sealed; check the model's state_dict")
        return staging, final, diagnostics

    def _fresh_staging(self) -> Path:
        from evidence.train.checkpoint import remove_folder

        staging = self.work / "seal"
        if staging.exists():
            remove_folder(staging)
        staging.mkdir()
        return staging

    def _seal(self, staging: Path, results: dict[str, Any],
              history: list[dict[str, Any]]) -> SealedRun:
        """Validate and write the run's records next to its weights, then publish atomically."""
        import torch

        from evidence.core.metrics import refuse_out_of_range
        from evidence.core.schema import validate
        from evidence.train.checkpoint import remove_folder

        refuse_out_of_range(results, self.spec.task_name)
        validate(results, "results", staging / "results.json")
        write_json_atomic(staging / "results.json", results)
        write_json_atomic(staging / "spec.json", self.spec.to_json())
        with (staging / "metrics.jsonl").open("w", encoding="utf-8") as handle:
            for row in history:
                handle.write(json.dumps(row, sort_keys=True) + "\n")
        write_json_atomic(staging / "provenance.json",
                          self._provenance(self.elapsed(), self.threads, torch.__version__))
        run = RunStore(self.project.runs_dir).seal(staging, self.run_id, self.spec.key)
        remove_folder(self.work)
        self.group.barrier()
        return run

    def _results(self, recipe: Any, final: dict[str, dict[str, float]],
                 diagnostics: dict[str, float], progress: Any) -> dict[str, Any]:
        from evidence.numerics.recipe import chance_loss

        metrics = {name: {"direction": direction,
                          "values": {split: final[split][name] for split in ("train", "val", "test")}}
                   for name, direction in sorted(recipe.directions.items())}
        for name, block in metrics.items():
            bad = {s: v for s, v in block["values"].items() if not math.isfinite(v)}
            if bad:  # JSON cannot hold NaN: record it as a diagnostic the verify step flags
                diagnostics[f"nonfinite_{name}"] = 1.0
                block["values"] = {s: (v if math.isfinite(v) else 0.0)
                                   for s, v in block["values"].items()}
        diag: dict[str, Any] = {"initial_loss": progress.initial_loss, **diagnostics}
        if "max_prediction_entropy" in diagnostics:
            n_classes = round(math.exp(diagnostics["max_prediction_entropy"]))
            diag["n_classes"] = n_classes
            diag["chance_loss"] = chance_loss(n_classes)
        return {
            "schema_version": 1, "run_id": self.run_id, "key": self.spec.key,
            "experiment": self.spec.experiment, "label": self.spec.label,
            "group": self.spec.group, "role": self.spec.role, "trainer": self.spec.trainer,
            "seed": self.spec.seed, "config": self.spec.config,
            "selection_metric": recipe.selection_metric, "metrics": metrics,
            "evaluations": [
                {"split": "train", "when": "before_training", "purpose": "diagnostic"},
                {"split": "val", "when": "every_epoch",
                 "purpose": "selection" if self.stopper else "monitoring"},  # it picks the stop
                {"split": "train", "when": "final", "purpose": "report"},
                {"split": "val", "when": "final", "purpose": "selection"},
                {"split": "test", "when": "final", "purpose": "report"},
            ],
            "diagnostics": diag, "epochs": progress.epoch, "steps": progress.step,
            **({"early_stopping": self.stopper.record(progress.stopping, progress.epoch)}
               if self.stopper else {}),
        }

    def _provenance(self, meta: dict[str, Any], threads: int, torch_version: str) -> dict[str, Any]:
        from evidence.core.provenance import environment, execution_site, git_state

        return {"schema_version": 1, "run_id": self.run_id, "git": git_state(self.project.root),
                "environment": {**environment(), "devices": self.group.describe(),
                                "torch": torch_version},
                "numerics": numerics_profile.host_report(self.spec.identity.get("numerics"),
                                                         self.spec.identity.get("device", "cpu")),
                "started_at": meta["started_at"], "finished_at": now_iso(),
                "wall_seconds": round(meta["wall_seconds"], 3),
                "cpu_seconds": round(meta["cpu_seconds"], 3),
                "checkpoint_seconds": round(meta["checkpoint_seconds"], 4),
                "checkpoints_written": meta["checkpoints_written"],
                "resumes": meta["resumes"], "threads": threads,
                "source": execution_site(),
                "compute": meter.run_compute(meta, self.group.describe(), threads),
                "preset": self.spec.execution.get("preset"), "launch": dict(LAUNCH)}

    def _keep_recorded_preset(self) -> None:
        """On resume the work folder's spec.json wins: keep the preset record it was started with."""
        try:
            recorded = json.loads((self.work / "spec.json").read_text("utf-8"))
        except (OSError, ValueError):
            return
        preset = (recorded.get("execution") or {}).get("preset")
        if recorded.get("key") == self.spec.key and preset and preset != self.execution.get("preset"):
            self.spec = replace(self.spec, execution={**self.spec.execution, "preset": preset})
            self.execution = self.spec.execution

    def _check_preset_knobs(self, recipe: Any, source: str) -> None:
        """A trainer must honour the batch size, accumulation and precision its preset sets."""
        values = (self.execution.get("preset") or {}).get("values", {})
        for knob in ("batch_size", "grad_accum", "precision"):
            if knob in values and getattr(recipe, knob, None) != self.spec.config.get(knob):
                raise RunFailedError(f"{source}: the config sets {knob} = {self.spec.config.get(knob)!r} "
                                     f"(preset {self.execution['preset']['name']!r}) but build() returns "
                                     f"a Recipe with {knob} = {getattr(recipe, knob, None)!r}",
                                     hint=f"pass config[{knob!r}] to the Recipe")


def execute(project: Project, spec: RunSpec, *, force: bool = False,
            on_wait: Callable[[], None] | None = None,
            group: distributed.Group = distributed.LOCAL, log: bool = False) -> Outcome:
    """Train ``spec`` unless a sealed run of its key exists (or ``force``); return the run.

    ``log``: keep the run's output in its own log (:mod:`evidence.train.runlog`); the runner's
    process does, a caller inside another program (a test) need not.

    Under DDP only rank 0 takes the run's lock and looks at the store; the other ranks wait for
    its decision (cached, or the run id to train under).
    """
    store = RunStore(project.runs_dir)
    if not group.is_main:
        cached, run_id = group.broadcast(None)
        if cached:
            return Outcome(SealedRun(store.root / run_id), cached=True)
        return Outcome(Execution(project, spec, run_id, group).run(), cached=False)
    lock = lock_for(project, spec.key)
    from filelock import Timeout

    try:
        lock.acquire(timeout=0)
    except Timeout:
        if on_wait:
            on_wait()
        lock.acquire()
    try:
        for note in store.repair(spec.key):  # damage is named and retrained, never "cached"
            print(note, file=sys.stderr, flush=True)
        existing = store.find(spec.key)
        if existing is not None and not force:
            remove_leftover_work(project, existing.run_id)
            group.broadcast((True, existing.run_id))
            return Outcome(existing, cached=True)
        run_id = store.next_run_id(spec.key)
        remote = _remote_for(project, spec, run_id)  # the lease first: another machine may train it
        group.broadcast((False, run_id))
        execution = Execution(project, spec, run_id, group)
        execution.remote = remote
        from evidence.train.runlog import RunLog

        logging = RunLog(project.logs_dir / f"{run_id}.log") if log else contextlib.nullcontext()
        try:
            with logging as execution.log:
                outcome = Outcome(execution.run(), cached=False)
        except RunInterruptedError:
            execution.status("interrupted", last_checkpoint=execution.last_checkpoint)
            if remote is not None:
                remote.stopped()
            raise
        except EvidenceError as error:
            execution.status("failed", error=error.message, last_checkpoint=execution.last_checkpoint)
            if remote is not None:
                remote.stopped()
            raise
        if remote is not None:
            remote.sealed(project)
        return outcome
    finally:
        lock.release()


def _remote_for(project: Project, spec: RunSpec, run_id: str) -> Any:
    """The run's remote session (lease taken), or None without a remote (evidence.remote)."""
    from evidence.remote.session import RunRemote

    keep = int(spec.execution.get("checkpoint", {}).get("keep", 3))
    return RunRemote.start(project, run_id, spec.key, spec.task_name, keep)


def remove_leftover_work(project: Project, run_id: str) -> None:
    """The work folder of a run that is sealed: left behind by a kill between sealing and its
    removal. Removing it is idempotent, and ``evidence status`` must not report it as a run."""
    from evidence.train.checkpoint import remove_folder

    leftover = project.work_dir / run_id
    if leftover.exists():
        remove_folder(leftover)


#: In a child forked from the warm worker (:mod:`evidence.train.worker`): the environment the
#: worker imported torch under. Such a child must never re-execute itself (it would start a
#: fresh interpreter inside the worker's session and lose what forking saved); the worker is
#: keyed by the numerics profile, so a mismatch is a bug to report, not to paper over.
FORKED_UNDER: dict[str, str] | None = None


def restart_with_profile(spec: RunSpec, argv: list[str]) -> None:
    """Re-execute this process if it lacks the run's numerics profile (:mod:`evidence.numerics.profile`).

    The libraries read their kernel choices once, at import; this process has imported torch
    already, so the only way to honour a profile it was started without (a runner launched by
    hand, or by a launcher that dropped the environment) is to start again with it. A child of
    the warm worker is checked against the environment the worker imported torch under, and
    fails instead of re-executing.
    """
    numerics, device = spec.identity.get("numerics"), spec.identity.get("device", "cpu")
    if FORKED_UNDER is not None:
        lacking = numerics_profile.missing(numerics, device, FORKED_UNDER)
        if lacking:
            raise RunFailedError(f"{spec.task_name}: the warm worker imported torch without the run's "
                                 f"numerics profile ({', '.join(sorted(lacking))})",
                                 hint="EVIDENCE_WARM_WORKER=0 starts a process per run; "
                                      "please report this")
        return
    lacking = numerics_profile.missing(numerics, device)
    if lacking:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, "-m", "evidence.train.runner", *argv],
                  {**os.environ, **lacking})


#: What a run imports on its way that is not its own work: torch's compiler stack (pulled in by
#: the first optimizer, ~1 s), GitPython and jsonschema (provenance and the results' schema,
#: ~0.4 s), safetensors and the engine modules the runner imports lazily.
RUN_IMPORTS = (
    "torch", "torch._dynamo", "torch.optim", "safetensors.torch", "filelock", "git", "jsonschema",
    "evidence.core.metrics", "evidence.core.provenance", "evidence.core.schema",
    "evidence.numerics.loaders", "evidence.numerics.training", "evidence.train.baseline",
    "evidence.train.checkpoint", "evidence.train.devices", "evidence.train.ownloop",
)


def import_run_dependencies() -> None:
    """Import :data:`RUN_IMPORTS` now, so that their cost is start-up, not the run's own time.

    The warm worker does it once before it forks any run; a runner started as its own process
    does it before it records ``launch.startup_seconds`` (so importing dynamo is counted there,
    not inside ``wall_seconds`` where the first optimizer used to pay it). Imports only: no torch
    operation runs, so no thread pool exists for a fork to inherit.
    """
    import importlib

    for name in RUN_IMPORTS:
        importlib.import_module(name)


#: How this process was started and what that cost before the runner could start (provenance).
LAUNCH: dict[str, Any] = {}


def launch_record() -> dict[str, Any]:
    """``how``: ``warm-worker`` (a child forked from :mod:`evidence.train.worker`), ``process``
    (a fresh interpreter started by the dispatcher) or ``direct`` (started some other way);
    ``startup_seconds``: from the dispatcher's launch to the runner starting its work
    (interpreter start-up and :func:`import_run_dependencies` for a process; the request and the
    fork for a worker child). The run's ``wall_seconds`` stay its own time."""
    record: dict[str, Any] = {"how": os.environ.get("EVIDENCE_LAUNCH", "direct")}
    with contextlib.suppress(KeyError, ValueError):
        record["startup_seconds"] = round(max(0.0, time.time() - float(os.environ["EVIDENCE_LAUNCH_T0"])), 3)
    return record


def main(argv: list[str] | None = None) -> int:
    """``python -m evidence.train.runner --project ROOT --spec SPEC.json [--force] [--outcome FILE]``.

    ``--outcome`` names a file where rank 0 records its exit code: torchrun reports any failing
    worker as exit code 1, and the caller must still tell an interrupted run (resumable) from a
    failed one.
    """
    parser = argparse.ArgumentParser(prog="python -m evidence.train.runner")
    parser.add_argument("--project", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--outcome", help="write rank 0's exit code and message to this JSON file")
    args = parser.parse_args(argv)
    project = Project.at(args.project)
    group: distributed.Group = distributed.LOCAL
    code, message = EXIT_TASK_ERROR, "the runner crashed (see the traceback above)"
    try:
        spec = RunSpec.from_json(json.loads(Path(args.spec).read_text("utf-8")))
        restart_with_profile(spec, sys.argv[1:] if argv is None else argv)
        import_run_dependencies()  # already imported in a warm worker's child
        LAUNCH.update(launch_record())
        group = distributed.init_from_env(spec.identity)
        from evidence.train.devices import pin_to_cpus

        pin_to_cpus(group.local_rank, int(spec.execution.get("threads", 1)))
        outcome = execute(project, spec, force=args.force, group=group, log=group.is_main,
                          on_wait=lambda: print(f"waiting: another process is training "
                                                f"{spec.task_name}", file=sys.stderr))
        code, message = 0, f"{'cached' if outcome.cached else 'sealed'} {spec.task_name} -> " \
                           f"runs/{outcome.run.run_id}"
    except RunInterruptedError as error:
        code, message = EXIT_INTERRUPTED, error.format()
    except EvidenceError as error:
        code, message = error.exit_code, error.format()
    except BaseException as error:  # a library's SystemExit included: never a crash without its why
        import traceback

        traceback.print_exc()
        code = EXIT_TASK_ERROR
        message = f"the runner crashed with {type(error).__name__}: {error} (the traceback is above)"
    finally:
        if args.outcome and group.is_main:
            write_json_atomic(args.outcome, {"exit_code": code, "message": message})
        group.close()
    if group.is_main:
        print(message, file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
