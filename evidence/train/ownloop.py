"""The second trainer contract: the project's own training loop, given a run context.

Why a second contract: real projects bring their own ``DataLoader`` and loop (plain PyTorch,
Lightning, a Hugging Face Trainer). A trainer module that defines ``train(ctx)`` instead of
``build`` keeps its loop; the engine keeps everything that makes a run evidence: the key, the
lock, signals, resume after SIGKILL, verify-by-load and sealing.

The loop talks to the engine only through :class:`RunContext`:

* ``ctx.config``, ``ctx.seed`` (already applied to torch, numpy and python), ``ctx.device``,
  ``ctx.data`` (the run's splits, digest-checked against the run key: ``ctx.data["train"].x``
  and ``.y``) and ``ctx.info`` (shapes, task, classes), ``ctx.directory`` (a scratch folder
  that survives a resume);
* ``ctx.restore()``: the state of the last good checkpoint (``None`` on a fresh start), with
  the global RNG states restored to the moment it was written;
* ``ctx.checkpoint(state)``: cheap to call after every step; it writes (atomically,
  digest-verified, like every checkpoint) when the experiment's ``[checkpoint]`` cadence says
  so, and when a signal has arrived it writes and then stops the run (resumable, exit 75);
  ``state`` may be a function that builds it, called only when it is written, and
  ``ctx.checkpoint_due(step)`` says beforehand whether an offer would write (for a library
  that must first save its own files);
* ``ctx.log(step, **metrics)``: a row of ``metrics.jsonl`` (kept in every checkpoint, so a
  resumed run's log is whole).

``train(ctx)`` returns ``{"weights": state_dict, "metrics": {name: {"train": v, "val": v,
"test": v}}, "directions": {name: "higher" | "lower"}, "selection_metric": name}`` and may add
``"epochs"``, ``"steps"`` and ``"diagnostics"``. With an optional ``evaluate(weights, ctx) ->
{name: {"train": v, "val": v, "test": v}}`` in the module, the sealed weights are re-read from
disk and must give exactly those metrics, or the seal is refused; without it the run records
``verify_by_load = "not_possible"`` and the deliverable discloses it.

Before the loop runs for real, the resume self-check (:mod:`evidence.train.selfcheck`) runs it
for a few steps on a sliver of the data, straight and interrupted, and stops the run when a
resume would differ. Every attempt at a run is counted (:class:`Attempts`): a retry that found a
checkpoint (the engine's, or files a library left in ``ctx.directory``) and never called
``ctx.restore()`` resumed outside the engine, which the run records and the deliverable
discloses; the run's wall time is that of every attempt.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from evidence.core.errors import RunFailedError
from evidence.core.hashing import write_json_atomic

#: Keys a loop's return value may have.
RESULT_KEYS = {"weights", "metrics", "directions", "selection_metric", "epochs", "steps",
               "diagnostics"}


def is_own_loop(trainer: ModuleType) -> bool:
    """A trainer that defines ``train`` and no ``build`` owns its loop."""
    return callable(getattr(trainer, "train", None)) and not callable(getattr(trainer, "build", None))


class RunContext:
    """What the engine hands a project's own loop (see the module docstring)."""

    def __init__(self, execution: Any, checkpoints: Any, clock: Any) -> None:
        import torch

        self._execution = execution
        self._checkpoints = checkpoints
        self._clock = clock
        spec = execution.spec
        self.config: dict[str, Any] = spec.config
        self.seed: int = spec.seed
        self.device = torch.device(execution.group.device)
        self.data = execution.dataset
        from evidence.experiments.trainers import data_info

        self.info = data_info(execution.dataset)
        self.directory: Path = execution.work / "scratch"
        self.directory.mkdir(parents=True, exist_ok=True)
        self.history: list[dict[str, Any]] = []
        self.steps = 0
        self.restored = False
        self.restore_called = False
        self.attempts: Attempts | None = None

    def restore(self) -> dict[str, Any] | None:
        """The newest checkpoint that verifies (its RNG states re-applied), or None."""
        from evidence.numerics import training

        self.restore_called = True
        found = self._checkpoints.load_latest()
        if found is None:
            return None
        checkpoint, state = found
        if state.get("key") != self._execution.spec.key:
            raise RunFailedError(f"checkpoint {checkpoint.path} belongs to another run")
        training.set_rng_state(state["rng"])
        self.history = list(state["history"])
        self.steps = checkpoint.step
        timing = {k: self._execution.meta[k] for k in ("wall_seconds", "cpu_seconds", "started_at")}
        self._execution.meta = {**dict(state["meta"]), **timing}  # every attempt's time counts
        self._execution.meta["resumes"] = int(self._execution.meta["resumes"]) + 1
        self._execution.last_checkpoint = checkpoint.step
        self.restored = True
        print(f"resuming {self._execution.spec.task_name} from step {checkpoint.step}",
              file=sys.stderr)
        return dict(state["state"])

    def checkpoint_due(self, step: int | None = None) -> bool:
        """Whether an offer at ``step`` (default: one more than the last) would write now: the
        cadence says so or a signal has arrived. Asking changes nothing."""
        at = self.steps + 1 if step is None else int(step)
        return bool(self._execution.signals.received or self._clock.due(at))

    def checkpoint(self, state: dict[str, Any] | Callable[[], dict[str, Any]], step: int | None = None,
                   *, force: bool = False) -> bool:
        """Write ``state`` when due (or ``force``); after a signal, write and stop the run.

        ``state`` may be a function returning it (called only when it is written). ``step``
        defaults to one more than the last call's. Returns whether it wrote.
        """
        self.steps = self.steps + 1 if step is None else int(step)
        received = self._execution.signals.received
        if self.attempts is not None:
            self.attempts.beat(self._execution)
        if not (force or received or self._clock.due(self.steps)):
            return False
        self._write(state() if callable(state) else state)
        self._clock.saved()
        if received:
            raise self._execution._interrupt(received, self.steps, None)
        return True

    def _write(self, state: dict[str, Any]) -> None:
        from evidence.numerics import training

        t0 = time.perf_counter()
        record = {"format": 1, "contract": "own_loop", "key": self._execution.spec.key,
                  "state": state, "rng": training.rng_state(), "history": list(self.history),
                  "meta": self._execution.elapsed()}
        self._execution._write_checkpoint(self._checkpoints, record, self.steps, 0, t0)

    def row(self, step: int, metrics: dict[str, Any]) -> dict[str, Any]:
        """The row of metrics.jsonl that ``log(step, **metrics)`` appends (see :func:`log_row`)."""
        return log_row(self._execution.source, step, metrics)

    def log(self, step: int, **metrics: float) -> None:
        """One row of the run's metrics.jsonl (ints stay ints); values must be finite numbers."""
        self.history.append(self.row(step, metrics))
        if self.attempts is not None:
            self.attempts.beat(self._execution)
        self._execution.status("training", step=int(step),
                               last_checkpoint=self._execution.last_checkpoint)


def log_row(source: str, step: int, metrics: dict[str, Any]) -> dict[str, Any]:
    """A row of metrics.jsonl from ``ctx.log(step, **metrics)``: ints stay ints, the rest floats;
    a value that is not a finite number is an error naming the trainer."""
    row: dict[str, Any] = {"step": int(step)}
    for name, value in metrics.items():
        row[name] = value if isinstance(value, int) and not isinstance(value, bool) else float(value)
        if not math.isfinite(row[name]):
            raise RunFailedError(f"{source}: ctx.log({step}, {name}={value!r}): "
                                 "metrics must be finite numbers")
    return row


class Attempts:
    """Every attempt at a run in progress (``attempts.json`` in its work folder).

    Why: a run killed before its first checkpoint (or a loop that checkpoints only through a
    library's own files) left no record in any checkpoint, yet it was tried and took time. Each
    attempt's wall and CPU seconds are written at every sign of life (``ctx.log``,
    ``ctx.checkpoint``, at most every :attr:`BEAT_SECONDS`), so a retry knows how many attempts
    came before and what they cost, whatever killed them.
    """

    FILE = "attempts.json"
    BEAT_SECONDS = 2.0

    def __init__(self, work: Path) -> None:
        self.path = work / self.FILE
        try:
            records = json.loads(self.path.read_text("utf-8"))["attempts"]
            self.records = [{"wall_seconds": float(r["wall_seconds"]), "cpu_seconds": float(r["cpu_seconds"])}
                            for r in records]
        except (OSError, ValueError, KeyError, TypeError):
            self.records = []
        self.previous = len(self.records)
        self.wall_seconds = sum(r["wall_seconds"] for r in self.records)
        self.cpu_seconds = sum(r["cpu_seconds"] for r in self.records)
        self.records.append({"wall_seconds": 0.0, "cpu_seconds": 0.0})
        self.last = -math.inf

    def beat(self, execution: Any, *, now: bool = False) -> None:
        """Record this attempt's time so far (advisory: a full disk must not stop the run)."""
        if not now and time.monotonic() - self.last < self.BEAT_SECONDS:
            return
        self.last = time.monotonic()
        self.records[-1] = {"wall_seconds": round(time.time() - execution.started, 3),
                            "cpu_seconds": round(time.process_time() - execution.cpu_started, 3)}
        with contextlib.suppress(OSError):
            write_json_atomic(self.path, {"attempts": self.records})


def quiet_output(execution: Any) -> Any:
    """While the loop runs, its output goes to the run's log only (a library's progress bars
    would flood doit); the end of it is shown once the loop is done."""
    log = getattr(execution, "log", None)
    if log is None:
        return contextlib.nullcontext()
    return log.quiet()


def _checked_result(raw: Any, source: str) -> dict[str, Any]:
    """The loop's return value against the contract; errors name the trainer and the key."""
    if not isinstance(raw, dict):
        raise RunFailedError(f"{source}: train(ctx) must return a dict, got {type(raw).__name__}")
    unknown = set(raw) - RESULT_KEYS
    missing = {"weights", "metrics", "directions", "selection_metric"} - set(raw)
    if unknown or missing:
        raise RunFailedError(f"{source}: train(ctx) returned keys {sorted(raw)}; missing "
                             f"{sorted(missing)}, unknown {sorted(unknown)}",
                             hint="see docs/contracts.md, 'Your own loop'")
    directions = raw["directions"]
    metrics = raw["metrics"]
    if not isinstance(metrics, dict) or not metrics or set(metrics) != set(directions):
        raise RunFailedError(f"{source}: train(ctx) must return a direction for every metric "
                             f"(metrics {sorted(metrics or {})}, directions {sorted(directions)})")
    bad = {k: v for k, v in directions.items() if v not in ("higher", "lower")}
    if bad:
        raise RunFailedError(f"{source}: metric directions must be 'higher' or 'lower', got {bad}")
    for name, values in metrics.items():
        if not isinstance(values, dict) or set(values) != {"train", "val", "test"}:
            raise RunFailedError(f"{source}: metrics[{name!r}] must give train, val and test values")
    if raw["selection_metric"] not in directions:
        raise RunFailedError(f"{source}: selection_metric {raw['selection_metric']!r} is not one of "
                             f"the metrics {sorted(directions)}")
    for key in ("epochs", "steps"):  # recorded as returned: a baseline that trains nothing says 0
        value = raw.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RunFailedError(f"{source}: train(ctx) returned {key}={value!r}: must be a whole "
                                 "number >= 0",
                                 hint="return how many epochs and optimizer steps the loop ran")
    return raw


def _logged_epochs(context: RunContext) -> int:
    """The largest ``epoch`` the loop logged through ``ctx.log`` (0 if it logged none)."""
    epochs = [row["epoch"] for row in context.history if isinstance(row.get("epoch"), int)]
    return max(epochs, default=0)


def _float_metrics(metrics: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    return {name: {split: float(v) for split, v in values.items()} for name, values in metrics.items()}


def run(execution: Any) -> Any:
    """Train with the project's loop, verify by load when it can, and seal; the sealed run."""
    from safetensors.torch import load_file, save_file

    from evidence.numerics import training
    from evidence.train.checkpoint import CheckpointClock

    if getattr(execution.group, "world", 1) > 1:
        raise RunFailedError(f"{execution.source}: a trainer with its own loop runs in one process; "
                             "world_size must be 1")
    checkpoints = execution.checkpoint_dir()  # cleaned; fetched from the remote if none is here
    execution.last_checkpoint = checkpoints.latest_step()
    context = RunContext(execution, checkpoints, CheckpointClock(execution.cadence))
    attempts = Attempts(execution.work)
    execution.meta["wall_seconds"] += attempts.wall_seconds
    execution.meta["cpu_seconds"] += attempts.cpu_seconds
    attempts.beat(execution, now=True)
    context.attempts = attempts
    leftovers = execution.last_checkpoint is not None or any(context.directory.iterdir())
    if not leftovers and execution.execution.get("smoke", {}).get("resume_check", True):
        execution.status("smoke")
        from evidence.train import selfcheck

        selfcheck.check(execution, context)
    training.seed_everything(execution.spec.seed)
    execution.status("training", step=0, last_checkpoint=execution.last_checkpoint)
    try:
        with quiet_output(execution):
            raw = execution.trainer.train(context)
    except (RuntimeError, ValueError, TypeError, IndexError, KeyError) as error:
        raise RunFailedError(f"{execution.spec.task_name}: train(ctx) failed: {error}",
                             hint=f"fix {execution.source}") from error
    attempts.beat(execution, now=True)
    outside = bool(attempts.previous and leftovers and not context.restore_called)
    if outside:  # a library resumed from its own files: the engine could not check that resume
        execution.meta["resumes"] = int(execution.meta["resumes"]) + 1
        print(f"WARNING: {execution.spec.task_name} resumed outside the engine: a checkpoint existed "
              "but train(ctx) never called ctx.restore(), so the resume is not verified (disclosed)",
              file=sys.stderr)
    result = _checked_result(raw, execution.source)
    final = _float_metrics(result["metrics"])
    execution.status("evaluating", step=context.steps)
    staging = execution._fresh_staging()
    weights = {k: v.detach().cpu().clone().contiguous() for k, v in result["weights"].items()}
    save_file(weights, str(staging / "model.safetensors"),
              metadata={"run_key": execution.spec.key})
    evaluate = getattr(execution.trainer, "evaluate", None)
    verified = "not_possible"
    if callable(evaluate):
        training.seed_everything(execution.spec.seed)
        reloaded = _float_metrics(evaluate(load_file(str(staging / "model.safetensors")), context))
        if reloaded != final:
            raise RunFailedError(f"{execution.spec.task_name}: verify-by-load failed: the saved "
                                 f"weights give {reloaded}, the loop returned {final}",
                                 hint="the run was not sealed; evaluate(weights, ctx) must compute "
                                 "what train(ctx) returned")
        verified = "verified"
    results = _results(execution, result, final, context, verified)
    if outside:
        results["resumed_outside_engine"] = True
    return execution._seal(staging, results, context.history)


def _results(execution: Any, result: dict[str, Any], final: dict[str, dict[str, float]],
             context: RunContext, verified: str) -> dict[str, Any]:
    spec = execution.spec
    diagnostics: dict[str, float | None] = {k: float(v) for k, v in
                                            (result.get("diagnostics") or {}).items()}
    metrics = {}
    for name, direction in sorted(result["directions"].items()):
        values = final[name]
        if not all(math.isfinite(v) for v in values.values()):
            diagnostics[f"nonfinite_{name}"] = 1.0
            values = {s: (v if math.isfinite(v) else 0.0) for s, v in values.items()}
        metrics[name] = {"direction": direction, "values": values}
    return {
        "schema_version": 1, "run_id": execution.run_id, "key": spec.key,
        "experiment": spec.experiment, "label": spec.label, "group": spec.group, "role": spec.role,
        "trainer": spec.trainer, "seed": spec.seed, "config": spec.config,
        "selection_metric": result["selection_metric"], "metrics": metrics,
        "evaluations": [{"split": "train", "when": "final", "purpose": "report"},
                        {"split": "val", "when": "final", "purpose": "selection"},
                        {"split": "test", "when": "final", "purpose": "report"}],
        # what the loop returned, never rounded up: a loop that trains nothing records 0 and 0;
        # not returned: the last epoch it logged through ctx.log, and the steps it reported
        "diagnostics": diagnostics, "epochs": int(result.get("epochs", _logged_epochs(context))),
        "steps": int(result.get("steps", context.steps)),
        "loop": "own", "verify_by_load": verified,
    }
