"""``evidence why TASK``: why a task would rebuild, in terms of the user's inputs.

For a train task the answer is about the run key: the sealed run it would reuse, or, when there
is none, what differs from the newest sealed run of the same experiment and label (a config
value, the trainer's code, the engine's numerical code, the data or split digests, the seed),
with old and new values. For every other task, doit already knows (a file_dep that changed, a
missing target), and ``doit info`` says it; this command asks doit, in this process (a second
interpreter would cost more than the answer). A group task (``train``, ``deliver``) is answered
by the tasks under it: up to date, or which would run and why. A name no task has is bad input
(exit 3).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from evidence.core.project import Project
from evidence.experiments.spec import RunSpec, expand_all
from evidence.store.runs import RunStore
from evidence.tasks.info import TaskStatus


def _short(value: Any) -> str:
    text = repr(value)
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        text = value[:12] + "…"
    return text


def differences(old: Any, new: Any, path: str = "") -> Iterator[str]:
    """Human-readable differences between two JSON values, one line per changed leaf."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for key in sorted(set(old) | set(new)):
            where = f"{path}.{key}" if path else str(key)
            if key not in old:
                yield f"{where}: added ({_short(new[key])})"
            elif key not in new:
                yield f"{where}: removed (was {_short(old[key])})"
            else:
                yield from differences(old[key], new[key], where)
    elif old != new:
        yield f"{path}: {_short(old)} -> {_short(new)}"


EXPLAIN = {"engine_digest": "the engine's numerical code (training loop, data preparation) changed",
           "trainer_digest": "the trainer's source files changed",
           "protocol": "the protocol version changed"}


def why_train(project: Project, spec: RunSpec) -> list[str]:
    store = RunStore(project.runs_dir)
    run = store.find(spec.key)
    if run is not None:
        finding = store.quick_check(run.run_id)
        if finding is None:
            return [f"up to date: sealed run runs/{run.run_id} has key {spec.key[:12]}…"]
        return [f"would rebuild: sealed run runs/{run.run_id} fails the cheap check ({finding})"]
    previous = []
    for candidate in store.runs():
        try:
            recorded = candidate.spec
        except (OSError, ValueError):
            continue
        if recorded.get("experiment") == spec.experiment and recorded.get("label") == spec.label:
            previous.append((candidate.path.stat().st_mtime, candidate.run_id, recorded))
    if not previous:
        return [f"would train: no sealed run of {spec.task_name} exists (key {spec.key[:12]}…)"]
    _, run_id, recorded = max(previous)
    lines = [f"would train: the key changed since runs/{run_id} ({recorded['key'][:12]}… -> "
             f"{spec.key[:12]}…) because:"]
    for line in differences(recorded["identity"], spec.identity):
        field = line.split(":", 1)[0]
        lines.append(f"  {line}" + (f"  ({EXPLAIN[field]})" if field in EXPLAIN else ""))
    return lines


def why(project: Project, task: str) -> list[str]:
    """Why ``task`` would rebuild: a train task in terms of its run key, a group (``train``,
    ``deliver``) by the tasks under it, any other task as doit says."""
    specs = {spec.task_name: spec for spec in expand_all(project)}
    if task.startswith("train:") or ":" not in task:
        spec = specs.get(task.removeprefix("train:"))
        if spec is not None:
            return why_train(project, spec)
    from evidence.tasks.info import doit_info, task_statuses

    group, statuses = task_statuses(project, task)
    if not group:
        return doit_info(project, task)
    return why_group(project, task, statuses, specs)


def why_group(project: Project, task: str, statuses: list[TaskStatus],
              specs: Mapping[str, RunSpec]) -> list[str]:
    """A group task in words: up to date, or which of its tasks would run and why (a train task
    by its run key). doit alone says "run: the task has no dependencies" for every group."""
    stale = [s for s in statuses if s.status != "up-to-date" and not s.always]
    always = [s.name for s in statuses if s.always]
    fresh = [s.name for s in statuses if s.status == "up-to-date"]
    every = f"{len(statuses)} task(s)" + (f", of which {len(always)} run(s) every time by design "
                                         f"({', '.join(always)}: builds nothing)" if always else "")
    if not stale:
        return [f"{task}: up to date: nothing to rebuild in its {every}"]
    lines = [f"{task}: would run {len(stale)} of {every}:"]
    for status in stale:
        spec = specs.get(status.name.removeprefix("train:")) if status.name.startswith("train:") else None
        detail = why_train(project, spec) if spec is not None else list(status.reasons)
        lines.append(f"  {status.name}:")
        lines += [f"    {line.strip()}" for line in detail]
    if fresh:
        lines.append(f"  up to date: {', '.join(fresh)}")
    return lines
