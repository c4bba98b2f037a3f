"""Where a training run executes: a local subprocess, submitit's LocalExecutor, or Slurm.

The doit action of a train task (:func:`evidence.tasks.train.run_spec`) hands its run here. Whatever
the executor, the same command runs (``python -m evidence.train.runner``, under torchrun when the run
has ``world_size`` > 1) in the same durable work folder (``project.work_dir``; point
``EVIDENCE_WORK`` at shared storage for a cluster), so a run trained on a cluster node is sealed
into ``runs/`` exactly as a local one, and a job that dies or is preempted resumes from the
checkpoints that folder holds. The executor is chosen by ``evidence.toml``'s ``[dispatch]``
table or ``EVIDENCE_EXECUTOR`` (see :mod:`evidence.core.settings` and docs/scale-out.md):

* ``local`` (default): a child of the warm worker (:mod:`evidence.scale.warm`), a process forked
  with torch already imported, for a single-process run; a subprocess of the doit worker for a
  torchrun world, or with ``warm_worker = false``;
* ``submitit-local``: submitit's LocalExecutor (real subprocesses with submitit's job files,
  logs and requeue protocol; the way to test cluster dispatch on one machine);
* ``slurm``: a Slurm job through submitit's SlurmExecutor.

The action waits for the job and maps its outcome to doit's: success; failure (with the
runner's error line); interrupted (a signal after a checkpoint: run ``doit train`` again).
Preemption and time limits are submitit's checkpoint protocol: the job callable is a
:class:`RunnerJob` (a ``submitit.helpers.Checkpointable``); on SIGUSR2 its ``checkpoint()``
stops the runner (which writes a checkpoint) and returns itself for requeueing, and the
requeued job starts the same runner, which resumes.

Runs on one box take device or core slots first (:mod:`evidence.train.devices`) so that
``doit -n N`` never oversubscribes the machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from submitit.helpers import Checkpointable, DelayedSubmission

from evidence.core.errors import EXIT_INTERRUPTED, EvidenceError
from evidence.core.hashing import write_json_atomic
from evidence.core.project import Project
from evidence.core.settings import Settings, load_settings
from evidence.numerics import profile as numerics_profile
from evidence.scale import warm
from evidence.train import devices

#: Environment variables a job must see as the submitting process does.
FORWARDED_ENV = ("EVIDENCE_WORK", "EVIDENCE_RUNS", "EVIDENCE_PROGRESS", "PYTHONPATH")
#: Seconds between checks of a running job when the settings do not say.
DEFAULT_POLL = {"submitit-local": 0.2, "slurm": 5.0}


def launch_command(python: str, world_size: int, module_args: list[str]) -> list[str]:
    """The command that runs ``python -m evidence.train.runner <module_args>`` with ``world_size`` processes.

    World size 1 runs the runner directly (no launcher start-up, no rendezvous); larger worlds
    go through torchrun in standalone mode, which picks a free rendezvous port on this host.
    (Here rather than in :mod:`evidence.train.distributed` so that the doit action never imports torch.)
    """
    if world_size <= 1:
        return [python, "-m", "evidence.train.runner", *module_args]
    return [python, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={world_size}",
            "-m", "evidence.train.runner", *module_args]


def run_arguments(project: Project, spec_path: Path, outcome: Path, force: bool) -> list[str]:
    args = ["--project", str(project.root), "--spec", str(spec_path), "--outcome", str(outcome)]
    return [*args, "--force"] if force else args


def outcome_of(label: str, code: int, outcome_file: Path) -> str | None:
    """Map a runner's exit (and rank 0's recorded outcome) to None (success) or the failure's
    one-line message, which the train task hands to doit."""
    recorded: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        recorded = json.loads(outcome_file.read_text("utf-8"))
    if code == 0:
        return None
    if recorded.get("exit_code") == EXIT_INTERRUPTED or code == EXIT_INTERRUPTED:
        return (f"{label}: INTERRUPTED by a signal after writing a checkpoint; "
                "run `doit train` again to resume where it stopped")
    if code < 0:
        return (f"{label}: the training process was killed by signal {-code}; "
                "run `doit train` again to resume from its last checkpoint")
    reason = recorded.get("message") or "see the error above"
    return f"{label}: training failed (exit code {recorded.get('exit_code', code)}); {reason}"


class RunnerJob(Checkpointable):
    """A submitit job that runs one runner command; checkpointable, so it survives requeues."""

    def __init__(self, command: list[str], cwd: str, env: dict[str, str]) -> None:
        self.command = command
        self.cwd = cwd
        self.env = env
        self._process: subprocess.Popen[bytes] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_process"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._process = None

    def __call__(self) -> int:
        """Run the runner to its end; its exit code is the job's result."""
        self._process = subprocess.Popen(self.command, cwd=self.cwd, env={**os.environ, **self.env})
        try:
            # Poll instead of wait(): submitit's SIGUSR2 handler runs on this thread and must be
            # able to wait for the runner itself (Popen.wait holds a lock the handler would need).
            while self._process.poll() is None:
                time.sleep(0.1)
            return self._process.returncode
        except BaseException:  # cancelled or requeued: let the runner checkpoint, then go
            self._stop()
            raise

    def _stop(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)  # the runner checkpoints and exits 75
            while process.poll() is None:
                time.sleep(0.05)

    def checkpoint(self, *args: Any, **kwargs: Any) -> DelayedSubmission:
        """Called by submitit on preemption or time-out: stop the runner cleanly, then requeue."""
        self._stop()
        self._process = None
        return DelayedSubmission(self, *args, **kwargs)


def slurm_parameters(settings: Settings, world_size: int, threads: int, cuda: bool,
                     label: str) -> dict[str, Any]:
    """submitit SlurmExecutor parameters (sbatch options) for one run; see docs/scale-out.md."""
    d = settings.dispatch
    params: dict[str, Any] = {
        "job_name": f"evidence-{label}".replace("/", "-"),
        "time": int(d.get("timeout_min", 24 * 60)),
        "nodes": 1, "ntasks_per_node": 1,  # torchrun starts the run's processes inside the job
        "cpus_per_task": int(d.get("cpus_per_task", world_size * threads)),
        "signal_delay_s": int(d.get("signal_delay_s", 120)),
    }
    gpus = d.get("gpus_per_node", world_size if cuda else 0)
    if gpus:
        params["gpus_per_node"] = int(gpus)
    if "mem_gb" in d:
        params["mem"] = f"{int(d['mem_gb'])}GB" if float(d["mem_gb"]).is_integer() else \
            f"{int(float(d['mem_gb']) * 1024)}MB"
    for key in ("partition", "account", "qos", "constraint"):
        if key in d:
            params[key] = str(d[key])
    if d.get("setup"):
        params["setup"] = list(d["setup"])
    if d.get("additional"):
        params["additional_parameters"] = dict(d["additional"])
    return params


def make_executor(project: Project, settings: Settings, world_size: int, threads: int, cuda: bool,
                  label: str) -> Any:
    """A configured submitit executor for ``settings.executor``."""
    import submitit

    d = settings.dispatch
    folder = project.root / str(d.get("folder", ".evidence/submitit"))
    max_timeouts = int(d.get("max_num_timeout", 3))
    if settings.executor == "slurm":
        executor: Any = submitit.SlurmExecutor(folder=folder, max_num_timeout=max_timeouts)
        executor.update_parameters(**slurm_parameters(settings, world_size, threads, cuda, label))
        return executor
    executor = submitit.LocalExecutor(folder=folder, max_num_timeout=max_timeouts)
    executor.update_parameters(timeout_min=int(d.get("timeout_min", 24 * 60)),
                               signal_delay_s=int(d.get("signal_delay_s", 30)))
    return executor


def _job_log(job: Any) -> str:
    """The runner's lines from a job's stderr (submitit's own log lines left out)."""
    try:
        text = job.stderr() or ""
    except Exception:  # a job whose log folder vanished
        return ""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith("submitit "))


def _wait_for_job(job: Any, poll: float) -> int:
    """Block until ``job`` ends; its exit code, or raise the job's exception."""
    if type(job).__name__ != "SlurmJob":
        while not job.done():
            time.sleep(poll)
        result: int = job.result()
        return result
    watch = _QueueWatch(job, poll)
    while True:
        watch.wait()
        code: int = job.result()
        if code != EXIT_INTERRUPTED or not watch.requeued():
            return code
        # preempted (scontrol requeue, a higher-priority job): the runner checkpointed and the
        # job is queued again; its next attempt resumes and writes the result we wait for
        job.paths.result_pickle.unlink(missing_ok=True)


def _squeue(job_id: str) -> tuple[str, int]:
    """(state, restart count) of a job as ``squeue`` lists it; ("", 0) once it has left the queue."""
    listed = subprocess.run(["squeue", "-h", "-j", job_id, "-O", "State,RestartCnt"], capture_output=True,
                            text=True, check=False)
    fields = listed.stdout.split()
    if not fields:
        return "", 0
    return fields[0], int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


#: squeue states of a job that can still produce its result (a requeued job is pending again).
ALIVE_STATES = frozenset({"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_FED",
                          "REQUEUE_HOLD", "RESIZING", "SUSPENDED", "STAGE_OUT", "SIGNALING"})


class _QueueWatch:
    """Wait for a Slurm job by its result file and ``squeue``, never ``sacct``.

    submitit asks ``sacct``, which needs Slurm's accounting database; small clusters often run
    without one, and then every poll printed warnings the user could do nothing about. The job
    is done when its result file exists, or when it has left the queue (then ``job.result()``
    reports what it left behind).

    A preemption is told by Slurm's restart count, which every poll reads: the interrupted
    attempt may be killed before it writes a result (``scontrol requeue`` sends SIGTERM, then
    SIGKILL after KillWait), and the next attempt may be running before a poll sees it pending,
    but the count only grows. Each restart is reported once.
    """

    def __init__(self, job: Any, poll: float) -> None:
        self.job, self.poll, self.reported = job, poll, 0

    def _look(self) -> str:
        state, restarts = _squeue(str(self.job.job_id))
        if restarts > self.reported:
            self.reported = restarts
            print(f"job {self.job.job_id}: preempted and requeued (restart {restarts}); waiting for it "
                  f"to resume from its last checkpoint", file=sys.stderr, flush=True)
        return state

    def wait(self) -> None:
        """Until the job's result file exists; raise if the job left the queue without one."""
        from submitit.core.utils import UncompletedJobError

        gone_since: float | None = None
        while not self.job.paths.result_pickle.exists():
            state = self._look()
            if state in ALIVE_STATES:
                gone_since = None
            elif gone_since is None:
                gone_since = time.monotonic()
            elif time.monotonic() - gone_since > RESULT_GRACE_S:
                log = _job_log(self.job).strip().splitlines()
                raise UncompletedJobError(
                    f"job {self.job.job_id} left the queue ({state or 'no longer listed'}) without a result"
                    + (f": {log[-1]}" if log else ""))
            time.sleep(self.poll)
        self._look()  # a restart the last poll missed still gets its line

    def requeued(self) -> bool:
        """Whether an interrupted job is back in the queue (Slurm requeues after the job ends)."""
        deadline = time.monotonic() + RESULT_GRACE_S
        while time.monotonic() < deadline:
            if self._look() in ("PENDING", "REQUEUED", "RUNNING", "CONFIGURING"):
                return True
            time.sleep(min(self.poll, 1.0))
        return False


#: Seconds a job may be gone from squeue before its result file must exist (shared file systems
#: show a file written on a node with a delay).
RESULT_GRACE_S = 15.0


def run_submitit(project: Project, settings: Settings, command: list[str], env: dict[str, str],
                 label: str, world_size: int, threads: int, cuda: bool) -> tuple[int, str]:
    """Submit the runner command as a job, wait for it; (exit code, failure detail)."""
    from submitit.core.utils import UncompletedJobError

    try:
        executor = make_executor(project, settings, world_size, threads, cuda, label)
    except RuntimeError as error:  # e.g. SlurmExecutor on a machine without srun
        raise EvidenceError(f"{label}: cannot use the {settings.executor!r} executor: {error}",
                            hint="run doit on a cluster login node, or set EVIDENCE_EXECUTOR=local") \
            from None
    job = executor.submit(RunnerJob(command, str(project.root), env))
    print(f"{label}: submitted {settings.executor} job {job.job_id}", file=sys.stderr, flush=True)
    poll = float(settings.dispatch.get("poll_seconds", DEFAULT_POLL.get(settings.executor, 1.0)))
    try:
        code = _wait_for_job(job, poll)
    except KeyboardInterrupt:
        job.cancel(check=False)  # the runner gets a signal, checkpoints and stops
        return EXIT_INTERRUPTED, ""
    except UncompletedJobError as error:
        sys.stderr.write(_job_log(job))
        last = str(error).strip().splitlines()
        return 1, f"job {job.job_id} did not complete: {last[-1] if last else error}"
    sys.stderr.write(_job_log(job))
    return code, ""


def dispatch(project_root: str, spec_json: dict[str, Any], key: str, force: bool = False,
             ) -> str | None:
    """Train one run with the configured executor and map the outcome to doit's."""
    project = Project.at(project_root)
    settings = load_settings(project)
    spec_path = project.state_dir / "specs" / f"{key}.json"
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(spec_path, spec_json)
    outcome = project.state_dir / "outcomes" / f"{key}.json"
    outcome.parent.mkdir(parents=True, exist_ok=True)
    outcome.unlink(missing_ok=True)
    label = f"{spec_json['experiment']}/{spec_json['label']}"
    identity = spec_json["identity"]
    world_size = int(identity.get("world_size", 1))
    threads = int(spec_json.get("execution", {}).get("threads", 1))
    cuda = identity.get("device") == "cuda"
    command = launch_command(sys.executable, world_size, run_arguments(project, spec_path, outcome,
                                                                       force))
    env = {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}
    if world_size > 1:
        env["OMP_NUM_THREADS"] = str(threads)  # what torchrun would otherwise set to 1, loudly
    # the numerics profile must be in the environment before the run's process imports torch
    profile_env = numerics_profile.environment(identity.get("numerics"), identity.get("device", "cpu"))
    env.update(profile_env)
    if settings.executor == "slurm":  # the scheduler places the job; nothing to share out here
        code, detail = run_submitit(project, settings, command, env, label, world_size, threads, cuda)
        return outcome_of(label, code, outcome) if not detail else f"{label}: {detail}"
    with devices.allocate(project.state_dir / "devices", device="cuda" if cuda else "cpu",
                          world_size=world_size, threads=threads,
                          runs_per_device=settings.runs_per_device, pin_cpus=settings.pin_cpus,
                          label=label,
                          on_wait=lambda: print(f"{label}: waiting for a free device slot",
                                                file=sys.stderr, flush=True)) as allocation:
        env.update(allocation.env())
        if settings.executor == "local":
            forked: int | None = None
            if world_size <= 1 and warm.enabled(settings.warm_worker):
                forked = warm.run_warm(project, run_arguments(project, spec_path, outcome, force), env,
                                       profile_env, allocation.fds, outcome, label=label)
            if forked is None:
                env.update(EVIDENCE_LAUNCH="process", EVIDENCE_LAUNCH_T0=repr(time.time()))
                forked = subprocess.call(command, cwd=project.root, env={**os.environ, **env},
                                         pass_fds=allocation.fds)
            code, detail = forked, ""
        else:
            code, detail = run_submitit(project, settings, command, env, label, world_size, threads,
                                        cuda)
    return outcome_of(label, code, outcome) if not detail else f"{label}: {detail}"
