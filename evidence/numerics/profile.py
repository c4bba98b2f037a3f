"""Numerics profiles: which CPU kernels a run may use, pinned before torch starts.

Why: on one machine training is deterministic, yet the same run trained on another machine of
the same kind differs in the last bits, because three libraries pick their CPU kernels by what
the host offers: MKL (BLAS, by its code path per CPU), oneDNN (convolutions, by instruction set)
and ATen (vectorised elementwise and reduction kernels, by "CPU capability"). Each choice reads
the environment once, when the library initialises, so a profile must be in place before
``import torch``: the dispatcher puts it in the run process's environment, and the runner checks
it on start (and re-executes itself with the profile if it was started without it).

* ``portable`` (the default on CPU): MKL's conditional numerical reproducibility in its
  ``COMPATIBLE`` mode (one code path on every x86-64 CPU), ATen's ``default`` capability (no
  host-specific vectorisation), oneDNN off (convolutions take ATen's own kernels) and capped at
  its baseline ISA where it is used, a fixed thread count with dynamic threading off, and
  deterministic algorithms. The same run key then gives the same bytes on any machine of the
  same architecture with the same pinned packages. It costs speed (measured in bench/).
* ``native``: whatever the host is fastest at; deterministic on one machine, not across machines.

The profile and its settings are part of the run key (:func:`identity`), and the run's
provenance records what the host offered (:func:`host_report`), so a reproduction on another
machine can say why a run is not identical. On GPUs the profile also pins cuBLAS's workspace
for deterministic algorithms; bit-identity across GPU models is not promised (kernels differ by
architecture), and the repro report says so.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping
from typing import Any

PROFILES = ("portable", "native")
DEFAULT = "portable"
#: Environment of the portable profile (threads are added per run). Read by the libraries once,
#: when they initialise: they must be set before torch is imported.
PORTABLE_ENV = {
    "MKL_CBWR": "COMPATIBLE",
    "MKL_DYNAMIC": "FALSE",
    "OMP_DYNAMIC": "FALSE",
    "ATEN_CPU_CAPABILITY": "default",
    "ONEDNN_MAX_CPU_ISA": "SSE41",
    "DNNL_MAX_CPU_ISA": "SSE41",
}
#: Set for every profile on CUDA: cuBLAS needs a fixed workspace for deterministic GEMMs.
CUDA_ENV = {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"}
#: Host settings a portable run overrides; recorded to say what the surrounding host chose.
HOST_SETTINGS = (*PORTABLE_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUBLAS_WORKSPACE_CONFIG")


def identity(profile: str, threads: int) -> dict[str, Any]:
    """The ``numerics`` entry of a run's identity: the profile and every setting it pins."""
    if profile not in PROFILES:
        raise ValueError(f"unknown numerics profile {profile!r}; expected one of {', '.join(PROFILES)}")
    if profile == "native":
        return {"profile": "native", "threads": threads}
    return {"profile": "portable", "threads": threads, "onednn": False, "env": dict(PORTABLE_ENV)}


def environment(numerics: Mapping[str, Any] | None, device: str = "cpu") -> dict[str, str]:
    """Environment variables the run's process must start with."""
    env: dict[str, str] = {}
    if numerics and numerics.get("profile") == "portable":
        threads = str(int(numerics.get("threads", 1)))
        env.update(numerics.get("env", PORTABLE_ENV))
        env.update({"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads})
    if device == "cuda":
        env.update(CUDA_ENV)
    return env


def missing(numerics: Mapping[str, Any] | None, device: str = "cpu",
            environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings this process lacks (it must then re-execute itself with them)."""
    current = os.environ if environ is None else environ
    return {k: v for k, v in environment(numerics, device).items() if current.get(k) != v}


def apply_in_process(numerics: Mapping[str, Any] | None) -> None:
    """The profile's switches that live in torch rather than the environment."""
    import torch

    if numerics and numerics.get("profile") == "portable" and not numerics.get("onednn", True):
        torch.backends.mkldnn.enabled = False  # type: ignore[assignment]


def host_report(numerics: Mapping[str, Any] | None, device: str = "cpu") -> dict[str, Any]:
    """What the host offered and what the run used: the facts that explain a difference."""
    import torch

    report: dict[str, Any] = {
        "profile": (numerics or {}).get("profile", "native"),
        "cpu_capability_used": torch.backends.cpu.get_cpu_capability(),
        "cpu_model": _cpu_model(),
        "machine": platform.machine(),
        "threads": torch.get_num_threads(),
        "onednn_enabled": bool(torch.backends.mkldnn.enabled),
        "torch": torch.__version__,
        "mkl": _library_line(torch, "Math Kernel Library"),
        "onednn": _library_line(torch, "MKL-DNN") or _library_line(torch, "oneDNN"),
        "environment": {k: os.environ.get(k) for k in HOST_SETTINGS},
    }
    if device == "cuda" and torch.cuda.is_available():
        report["gpu"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        report["cuda"] = torch.version.cuda
        report["note"] = "bit-identity across GPU models is not promised"
    return report


def _library_line(torch: Any, needle: str) -> str | None:
    try:
        info = torch.__config__.parallel_info() + "\n" + torch.__config__.show()
    except Exception:  # pragma: no cover - a torch without the config report
        return None
    for line in info.splitlines():
        if needle in line:
            return line.strip().lstrip("- ")
    return None


def _cpu_model() -> str:
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
    return platform.processor() or platform.machine()


def explain(original: Mapping[str, Any] | None, here: Mapping[str, Any] | None) -> list[str]:
    """The host differences between two runs' reports that can explain different bits."""
    if not original or not here:
        return ["no numerics record on one side (a run sealed before profiles were recorded)"]
    reasons = []
    for key, what in (("profile", "profile"), ("cpu_capability_used", "CPU capability"),
                      ("torch", "torch version"), ("mkl", "MKL version"), ("onednn", "oneDNN version"),
                      ("threads", "thread count"), ("machine", "architecture"), ("gpu", "GPU model")):
        if original.get(key) != here.get(key):
            reasons.append(f"{what}: {original.get(key)} vs {here.get(key)}")
    return reasons
