"""The numerics profile: pinned before torch starts, part of the key, and host-independent.

The slow test trains the same runs (an MLP: MKL GEMMs; a CNN: convolutions) under the portable
profile in environments that set each library's kernel choice differently, and with one and
two CPUs, and requires identical bytes: the run must not depend on the host settings that
differ between machines.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TRAIN_DODO

from evidence.core.project import Project
from evidence.experiments.spec import expand_all
from evidence.numerics import profile

PROFILE_EXPERIMENT = """
trainer = "mlp"
seeds = [0]
threads = 2

[data]
dataset = "digits"
split_seed = 0

[config]
epochs = 2
batch_size = 64
lr = 0.1
hidden = 32

[checkpoint]
every_steps = 10

[[variants]]
name = "mlp"

[[variants]]
name = "cnn"
trainer = "cnn"
config = { channels = 4 }
"""

#: What differs between hosts, set around the run as another machine would choose.
HOSTS = {
    "plain": {},
    "aten-default": {"ATEN_CPU_CAPABILITY": "default"},
    "mkl-sse4_2": {"MKL_CBWR": "SSE4_2"},
    "onednn-sse41": {"ONEDNN_MAX_CPU_ISA": "SSE41", "DNNL_MAX_CPU_ISA": "SSE41"},
    "threads-1": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
}
#: Two hosts that differ in all three libraries' choices (for the native control).
OTHER_HOST = {**HOSTS["aten-default"], **HOSTS["mkl-sse4_2"], **HOSTS["onednn-sse41"]}


def test_profiles_are_part_of_the_key_and_pin_the_environment() -> None:
    portable = profile.identity("portable", 2)
    assert portable != profile.identity("native", 2) != profile.identity("native", 1)
    env = profile.environment(portable)
    assert env["ATEN_CPU_CAPABILITY"] == "default" and env["MKL_CBWR"] == "COMPATIBLE"
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == "2"
    assert profile.environment(profile.identity("native", 2)) == {}
    assert profile.environment(profile.identity("native", 1), "cuda") == profile.CUDA_ENV
    assert profile.missing(portable, environ=env) == {}
    assert profile.missing(portable, environ={**env, "ATEN_CPU_CAPABILITY": "avx2"}) == {
        "ATEN_CPU_CAPABILITY": "default"}
    with pytest.raises(ValueError, match="portable, native"):
        profile.identity("fast", 1)


def test_explain_names_the_host_difference() -> None:
    a = {"profile": "native", "cpu_capability_used": "AVX512", "torch": "2.13.0", "threads": 2}
    b = {**a, "cpu_capability_used": "AVX2"}
    assert profile.explain(a, b) == ["CPU capability: AVX512 vs AVX2"]
    assert profile.explain(a, a) == []


def test_an_unknown_profile_is_bad_input(make_project: Callable[..., Path]) -> None:
    from evidence.core.errors import BadInputError

    root = make_project({"experiments/tiny.toml": PROFILE_EXPERIMENT + 'numerics = "fast"\n'})
    with pytest.raises(BadInputError, match="numerics"):
        expand_all(Project.at(root))


def _train(root: Path, host: dict[str, str], cpus: str | None) -> dict[str, bytes]:
    env = {**os.environ, **host, "EVIDENCE_PROGRESS": "off"}
    command = [sys.executable, "-m", "doit", "train"]
    if cpus is not None:
        command = ["taskset", "-c", cpus, *command]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = {}
    for run in sorted((root / "runs").iterdir()):
        for name in ("results.json", "model.safetensors", "metrics.jsonl"):
            out[f"{run.name}/{name}"] = (run / name).read_bytes()
    return out


@pytest.mark.slow
def test_portable_runs_do_not_depend_on_the_host(make_project: Callable[..., Path]) -> None:
    template = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": PROFILE_EXPERIMENT})
    can_pin = shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
    cases = [(name, host, None) for name, host in HOSTS.items()]
    if can_pin:
        cases += [("one-cpu", {}, "0"), ("two-cpus", {}, "0,1")]
    results = {}
    for name, host, cpus in cases:
        root = template.parent / f"host-{name}"
        shutil.copytree(template, root, ignore=shutil.ignore_patterns(".evidence", "runs"))
        results[name] = _train(root, host, cpus)
    reference = results["plain"]
    assert len(reference) == 6
    for name, files in results.items():
        differing = sorted(f for f in reference if files.get(f) != reference[f])
        assert not differing, f"{name}: {differing}"
    # and the run records its profile and what the host offered
    import json

    run = next((template.parent / "host-plain" / "runs").iterdir())
    numerics = json.loads((run / "provenance.json").read_text())["numerics"]
    assert numerics["profile"] == "portable" and numerics["cpu_capability_used"] == "DEFAULT"
    assert numerics["onednn_enabled"] is False and numerics["threads"] == 2


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the host settings varied "
                    "here are x86-64 kernel choices")
def test_native_runs_do_depend_on_the_host(make_project: Callable[..., Path]) -> None:
    """The control: without the profile the same settings change the bytes, so the portable
    test above is not passing because the settings have no effect on this machine."""
    native = PROFILE_EXPERIMENT.replace("threads = 2", 'threads = 2\nnumerics = "native"')
    template = make_project({"dodo.py": TRAIN_DODO, "experiments/tiny.toml": native})
    results = {}
    for name, host in (("plain", {}), ("other", OTHER_HOST)):
        root = template.parent / f"native-{name}"
        shutil.copytree(template, root, ignore=shutil.ignore_patterns(".evidence", "runs"))
        results[name] = _train(root, host, None)
    assert results["plain"] != results["other"]


def test_import_expects_bit_identity_where_the_bits_are_determined() -> None:
    """Two AVX512 and AVX2 hosts: a portable run must re-evaluate bit-identically (its kernels are
    pinned), a native run within the stated tolerance (its kernels followed the host)."""
    from evidence.scale.federation import bit_identical_expected

    def env(capability: str) -> dict[str, object]:
        return {"python": "3.11.7", "machine": "x86_64", "packages": {"torch": "2.13.0", "numpy": "2.1"},
                "devices": {"kind": "cpu", "cpu_capability": capability}}

    portable, native = profile.identity("portable", 1), profile.identity("native", 1)
    assert bit_identical_expected(portable, env("AVX512"), env("AVX2"))
    assert not bit_identical_expected(native, env("AVX512"), env("AVX2"))
    assert bit_identical_expected(native, env("AVX2"), env("AVX2"))
    other_torch = {**env("AVX2"), "packages": {"torch": "2.12.0", "numpy": "2.1"}}
    assert not bit_identical_expected(portable, env("AVX2"), other_torch)
