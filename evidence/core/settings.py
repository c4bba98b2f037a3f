"""Project settings that are not experiments: ``evidence.toml`` at the project root.

Where runs execute and how they share a box are properties of the *machine* a project is
built on, not of the science: they never enter a run key, and the same experiments can be
trained on a laptop, on a GPU box with ``doit -n 8`` or on a Slurm cluster. So they live in
one optional file (schema ``settings``), with environment variables that win over it for one
invocation (``EVIDENCE_EXECUTOR=slurm doit train``)::

    [dispatch]
    executor = "slurm"          # "local" (default) | "submitit-local" | "slurm"
    partition = "gpu"
    timeout_min = 240
    warm_worker = true          # local executor: fork single-process runs from a warm worker

    [devices]
    runs_per_device = 1

    [remote]
    url = "s3://lab-bucket/evidence"   # or sftp://host/path, file:///shared/evidence, a path

The environment's overrides: ``EVIDENCE_EXECUTOR`` (an executor name),
``EVIDENCE_RUNS_PER_DEVICE`` (a positive integer) and ``EVIDENCE_WARM_WORKER`` (``1``/``0``,
``true``/``false``, ``yes``/``no``, ``on``/``off``); any other value is bad input, not a
silent default. ``EVIDENCE_REMOTE`` names the remote for one invocation (``off`` for none).
The remote's credentials never live here (see :mod:`evidence.remote.location`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.core.schema import read_toml, validate

SETTINGS_FILE = "evidence.toml"
EXECUTORS = ("local", "submitit-local", "slurm")
#: Spellings of a boolean an environment variable may use.
BOOLEANS = {"1": True, "true": True, "yes": True, "on": True,
            "0": False, "false": False, "no": False, "off": False}


@dataclass(frozen=True)
class Settings:
    dispatch: dict[str, Any] = field(default_factory=dict)
    devices: dict[str, Any] = field(default_factory=dict)
    remote: dict[str, Any] = field(default_factory=dict)

    @property
    def remote_url(self) -> str | None:
        """Where sealed runs and checkpoints outlive this machine (:mod:`evidence.remote`)."""
        url = self.remote.get("url")
        return str(url) if url else None

    @property
    def executor(self) -> str:
        return str(self.dispatch.get("executor", "local"))

    @property
    def runs_per_device(self) -> int:
        return int(self.devices.get("runs_per_device", 1))

    @property
    def warm_worker(self) -> bool:
        """Local single-process runs are forked from a warm worker (:mod:`evidence.scale.warm`)."""
        return bool(self.dispatch.get("warm_worker", True))

    @property
    def pin_cpus(self) -> bool:
        return bool(self.devices.get("pin_cpus", True))


def load_settings(project: Project) -> Settings:
    """``evidence.toml`` (if any) with the environment's overrides applied, validated."""
    path = project.root / SETTINGS_FILE
    raw: dict[str, Any] = read_toml(path) or {}
    if raw:
        validate(raw, "settings", path)
    dispatch = dict(raw.get("dispatch", {}))
    devices = dict(raw.get("devices", {}))
    remote = dict(raw.get("remote", {}))
    chosen = os.environ.get("EVIDENCE_REMOTE")
    if chosen is not None and chosen.strip():
        remote["url"] = None if chosen.strip().lower() == "off" else chosen.strip()
    executor = os.environ.get("EVIDENCE_EXECUTOR")
    if executor:
        if executor not in EXECUTORS:
            raise BadInputError("EVIDENCE_EXECUTOR", f"unknown executor {executor!r}; expected one "
                                f"of {list(EXECUTORS)}")
        dispatch["executor"] = executor
    per_device = os.environ.get("EVIDENCE_RUNS_PER_DEVICE")
    if per_device:
        if not per_device.isdigit() or int(per_device) < 1:
            raise BadInputError("EVIDENCE_RUNS_PER_DEVICE", f"expected a positive integer, got "
                                f"{per_device!r}")
        devices["runs_per_device"] = int(per_device)
    warm = os.environ.get("EVIDENCE_WARM_WORKER", "").strip().lower()
    if warm:
        if warm not in BOOLEANS:
            raise BadInputError("EVIDENCE_WARM_WORKER", f"expected 1 or 0 (true/false, yes/no, "
                                f"on/off), got {os.environ['EVIDENCE_WARM_WORKER']!r}")
        dispatch["warm_worker"] = BOOLEANS[warm]
    return Settings(dispatch=dispatch, devices=devices, remote=remote)
