"""Training presets by memory fit: ``presets.toml`` and ``preset = "auto"``.

A project may keep one table of named presets at its root (schema ``presets``)::

    default = "full"          # used by experiments that name no preset
    safety_margin = 0.2       # auto: a preset fits when its need <= (1 - margin) x the budget

    [presets.full]
    batch_size = 32           # the batch of one optimizer step
    grad_accum = 1            # micro-batches per step (memory falls, the effective batch stays)
    precision = "fp32"        # or "bf16" (autocast in the training forward pass)
    hidden = 64               # any other key is a config value (model size knobs)

An experiment says ``preset = "name"``, ``preset = "auto"`` or nothing (the default). A preset's
values are config values: the run config is the experiment's ``[config]``, then the preset, then
the variant's ``config``, then the grid point (see :func:`evidence.experiments.spec.run_config`), so they
are part of the run key and a different preset is a different run. The resolved preset (name,
values and why it was chosen) is recorded in ``spec.json`` (``execution.preset``) and in
``provenance.json``.

``auto`` picks the largest preset (by estimated memory need) that fits the memory budget with
the safety margin; when none fits, the smallest, and the record says that it does not fit.

* **Budget.** ``EVIDENCE_MEMORY_BUDGET`` (bytes, or with a unit: ``512MiB``, ``2GB``) when set;
  else the free memory of the first CUDA device (``torch.cuda.mem_get_info``) for an
  experiment with ``device = "cuda"``; else the host's available memory (``MemAvailable`` of
  ``/proc/meminfo``).
* **Need.** The trainer's own ``estimate_memory(config, data) -> bytes`` when its module has
  one; else the engine's rule, from the recipe built on PyTorch's ``meta`` device (no memory is
  allocated)::

      need = 4 B x P x (1 weights + 1 gradients + 2 optimizer slots)
           + 2 x A x b x ceil(batch_size / grad_accum)

  with P the parameter count, A the activation elements per sample (the outputs of every
  module in a forward pass of one sample; x2: kept for the backward pass and their
  gradients), b = 4 bytes (fp32) or 2 (bf16). Two optimizer slots are Adam's moments, an upper
  bound for SGD with momentum. The need of a preset is the largest over the experiment's runs.

**Resolved once.** ``auto`` is resolved the first time an experiment is expanded and stored in
``.evidence/presets/<experiment>.json`` with the budget and the needs it was based on; every
later expansion (``doit train``, figures, deliver, a resumed run) reuses that choice without
measuring again, so keys stay stable on this machine. Before measuring, a run of the experiment
still in progress (its work folder's ``spec.json``) is adopted, so a resumed run never changes
preset. When the machine's memory changes the stored choice stands; delete the file to resolve
again (runs of the old preset stay sealed under their keys; the new preset's runs are new keys).
A preset whose values are edited in presets.toml keeps its name and takes the new values.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from evidence.core.errors import BadInputError
from evidence.core.hashing import write_json_atomic
from evidence.core.project import Project
from evidence.core.schema import read_toml, validate

PRESETS_FILE = "presets.toml"
BUDGET_ENV = "EVIDENCE_MEMORY_BUDGET"
DEFAULT_MARGIN = 0.2
OPTIMIZER_SLOTS = 2
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}

#: (trainer, config, data config) of one run of an experiment under some preset values.
RunConfigs = Callable[[Mapping[str, Any]], list[tuple[str, dict[str, Any], Any]]]


def load_table(project: Project) -> dict[str, Any] | None:
    """presets.toml, validated (None when the project has none)."""
    path = project.root / PRESETS_FILE
    raw = read_toml(path)
    if raw is None:
        return None
    validate(raw, "presets", path)
    if raw["default"] not in raw["presets"]:
        raise BadInputError(path, f"default preset {raw['default']!r} is not in [presets] "
                            f"({', '.join(sorted(raw['presets']))})", field="default")
    return raw


def values_of(table: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The config values of one preset (its description is not a value)."""
    return {k: v for k, v in table["presets"][name].items() if k != "description"}


def format_bytes(n: float | None) -> str:
    if n is None:
        return "n/a"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def parse_bytes(text: str, source: object = BUDGET_ENV) -> int:
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not match or match.group(2).lower() not in _UNITS:
        raise BadInputError(source, f"{text!r} is not a memory size (bytes, or a number with "
                            "B, KB, MB, GB, KiB, MiB or GiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def host_available() -> int:
    """Available host memory in bytes: MemAvailable of /proc/meminfo, else free physical pages."""
    try:
        for line in Path("/proc/meminfo").read_text("ascii").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def memory_budget(device: str = "cpu") -> dict[str, Any]:
    """How much memory a run may use here, and where that figure comes from."""
    override = os.environ.get(BUDGET_ENV)
    if override:
        return {"bytes": parse_bytes(override), "source": f"{BUDGET_ENV}={override}"}
    if device == "cuda":
        import torch

        if torch.cuda.is_available():
            free, total = torch.cuda.mem_get_info()
            return {"bytes": int(free), "source": f"free memory of CUDA device 0 "
                    f"({torch.cuda.get_device_name(0)}, {format_bytes(total)} in total)"}
    return {"bytes": host_available(), "source": "available host memory (MemAvailable, /proc/meminfo)"}


def _activation_elements(model: Any, n_features: int, device: str) -> int:
    import torch

    counted = 0

    def hook(module: Any, inputs: Any, output: Any) -> None:
        nonlocal counted
        if isinstance(output, torch.Tensor):
            counted += output.numel()

    leaves = [m for m in model.modules() if not list(m.children())]
    handles = [m.register_forward_hook(hook) for m in leaves]
    try:
        was_training = model.training
        model.eval()
        with torch.no_grad():
            model(torch.zeros(1, n_features, device=device))
        model.train(was_training)
    finally:
        for handle in handles:
            handle.remove()
    return counted


def engine_estimate(module: Any, config: dict[str, Any], info: Any) -> int:
    """The engine's rule (module docstring) for a trainer without ``estimate_memory``."""
    import torch

    try:
        with torch.device("meta"):
            recipe = module.build(config, info)
            activations = _activation_elements(recipe.model, info.n_features, "meta")
    except (RuntimeError, NotImplementedError, TypeError):  # an op without a meta kernel
        recipe = module.build(config, info)
        activations = _activation_elements(recipe.model, info.n_features, "cpu")
    params = sum(p.numel() for p in recipe.model.parameters())
    element = 2 if getattr(recipe, "precision", "fp32") == "bf16" else 4
    micro = math.ceil(recipe.batch_size / max(1, int(getattr(recipe, "grad_accum", 1))))
    return int(4 * params * (2 + OPTIMIZER_SLOTS) + 2 * activations * element * micro)


@cache
def _data_info(data_config: Any) -> Any:
    from evidence.experiments.trainers import data_info
    from evidence.numerics.loaders import load_any

    return data_info(load_any(data_config))


def estimate_need(project: Project, trainer: str, config: dict[str, Any], data_config: Any,
                  ) -> tuple[int, str]:
    """(bytes, how it was estimated) for one run."""
    from evidence.experiments.trainers import load_trainer

    module = load_trainer(project, trainer)
    info = _data_info(data_config)
    custom = getattr(module, "estimate_memory", None)
    if callable(custom):
        return int(custom(config, info)), f"trainers/{trainer}.py estimate_memory()"
    return engine_estimate(module, config, info), "engine rule (parameters, optimizer state, activations)"


def choose(table: Mapping[str, Any], runs: RunConfigs, project: Project, device: str) -> dict[str, Any]:
    """Measure the budget and every preset's need; pick the largest preset that fits."""
    budget = memory_budget(device)
    margin = float(table.get("safety_margin", DEFAULT_MARGIN))
    usable = int(budget["bytes"] * (1 - margin))
    needs: dict[str, dict[str, Any]] = {}
    for name in table["presets"]:
        estimates = [estimate_need(project, trainer, config, data)
                     for trainer, config, data in runs(values_of(table, name))]
        need = max((n for n, _ in estimates), default=0)
        needs[name] = {"bytes": need, "fits": need <= usable,
                       "method": sorted({how for _, how in estimates})}
    fitting = [n for n in needs if needs[n]["fits"]]
    if fitting:
        name = max(fitting, key=lambda n: needs[n]["bytes"])
        why = (f"auto: {name!r} is the largest preset that fits: it needs "
               f"{format_bytes(needs[name]['bytes'])} of {format_bytes(usable)} usable "
               f"({format_bytes(budget['bytes'])} {budget['source']}, "
               f"less a {margin:.0%} safety margin)")
        larger = sorted((n for n in needs if n not in fitting), key=lambda n: needs[n]["bytes"])
        if larger:
            why += "; " + ", ".join(f"{n!r} would need {format_bytes(needs[n]['bytes'])}" for n in larger)
    else:
        name = min(needs, key=lambda n: needs[n]["bytes"])
        why = (f"auto: no preset fits {format_bytes(usable)} usable ({format_bytes(budget['bytes'])} "
               f"{budget['source']}, less a {margin:.0%} safety margin); chose the smallest, {name!r}, "
               f"which needs {format_bytes(needs[name]['bytes'])}")
    return {"name": name, "source": "auto", "reason": why,
            "memory": {"budget_bytes": budget["bytes"], "budget_source": budget["source"],
                       "safety_margin": margin, "usable_bytes": usable, "needs": needs},
            "resolved_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


def cache_path(project: Project, experiment: str) -> Path:
    return project.state_dir / "presets" / f"{experiment}.json"


def _in_progress(project: Project, experiment: str) -> dict[str, Any] | None:
    """The auto preset of a run of ``experiment`` still in progress (its work folder's spec.json)."""
    work = project.work_dir
    for spec_file in sorted(work.glob("*/spec.json")) if work.is_dir() else []:
        try:
            spec = json.loads(spec_file.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        preset = (spec.get("execution") or {}).get("preset") if isinstance(spec, dict) else None
        if spec.get("experiment") == experiment and isinstance(preset, dict) \
                and preset.get("source") == "auto":
            return {**preset, "reason": f"{preset.get('reason', 'auto')} (adopted from the run in progress "
                    f"{spec_file.parent.name})"}
    return None


def resolve(project: Project, path: Path, raw: Mapping[str, Any], experiment: str,
            runs: RunConfigs) -> dict[str, Any] | None:
    """The preset record of an experiment (None when the project has no presets.toml)."""
    table = load_table(project)
    requested = raw.get("preset")
    if table is None:
        if requested is not None:
            raise BadInputError(path, f"preset = {requested!r} but the project has no {PRESETS_FILE}",
                                field="preset", hint=f"create {PRESETS_FILE} (see docs/formats.md)")
        return None
    if requested is None:
        name = str(table["default"])
        return {"name": name, "source": "default", "values": values_of(table, name),
                "reason": f"the experiment names no preset; {PRESETS_FILE} says default = {name!r}"}
    if requested != "auto":
        if requested not in table["presets"]:
            raise BadInputError(path, f"unknown preset {requested!r} (known: auto, "
                                f"{', '.join(sorted(table['presets']))})", field="preset")
        return {"name": requested, "source": "explicit", "values": values_of(table, requested),
                "reason": f"experiments/{path.name} says preset = {requested!r}"}
    cache = cache_path(project, experiment)
    try:
        choice = json.loads(cache.read_text("utf-8"))["choice"]
    except (OSError, ValueError, KeyError, TypeError):
        choice = None
    if not isinstance(choice, dict) or choice.get("name") not in table["presets"]:
        choice = _in_progress(project, experiment)
        if choice is None or choice.get("name") not in table["presets"]:
            choice = choose_isolated(project, path, str(raw.get("device", "cpu")))
        choice = {k: v for k, v in choice.items() if k != "values"}
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(cache, {"schema_version": 1, "experiment": experiment, "choice": choice})
    return {**choice, "values": values_of(table, choice["name"])}


def overridden_config(project: Project, path: Path, raw: Mapping[str, Any],
                      preset: Mapping[str, Any] | None) -> list[str]:
    """One warning line per ``[config]`` value of the experiment that the preset replaces.

    The order ``[config]`` < preset < variant is documented, but an explicit ``hidden = 2048``
    that the *default* preset (one the experiment never names) silently turned into 64 trained
    something the user did not ask for. The value still loses (changing the order would change
    run keys); the line says so, naming the file, the field, the preset, where it came from and
    both values.
    """
    if preset is None:
        return []
    config = raw.get("config") or {}
    came_from = {"default": f"the default of {PRESETS_FILE}: the experiment names no preset",
                 "explicit": "named by the experiment",
                 "auto": "chosen by preset = \"auto\""}.get(str(preset.get("source")), "")
    shown = project.relative(path)
    lines = []
    for field, value in sorted(preset.get("values", {}).items()):
        if field in config and config[field] != value:
            lines.append(f"WARNING: {shown}: field 'config.{field}': [config] sets {config[field]!r} but "
                         f"preset {preset['name']!r} ({came_from}) sets {value!r}, which is what trains "
                         "([config] < preset < variant); name another preset or set it in a variant")
    return lines


#: Seconds the isolated choice may take (``EVIDENCE_PRESET_TIMEOUT`` overrides): building each
#: preset's model on the meta device takes well under that; a [config] value that makes the
#: trainer build a model without end (layers = 100000000) must not hang ``doit list``.
CHOOSE_TIMEOUT_S = 120.0
TIMEOUT_ENV = "EVIDENCE_PRESET_TIMEOUT"


def choose_isolated(project: Project, path: Path, device: str) -> dict[str, Any]:
    """:func:`choose` in a child process, with a time limit.

    Why a child: choosing builds the project's trainer (the user's code) to estimate memory,
    and this runs while doit builds its task list. In-process, a bad [config] value was a
    traceback, a huge one hung ``doit list``, and the doit process paid the import of torch on
    every first call. The child's failures come back as one line naming the file and the field.
    """
    import subprocess
    import sys

    from evidence.core.codedeps import ENGINE_DIR

    limit = float(os.environ.get(TIMEOUT_ENV, CHOOSE_TIMEOUT_S))
    engine_path = str(ENGINE_DIR.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (engine_path, os.environ.get("PYTHONPATH"))
                                                        if p)}
    command = [sys.executable, "-m", "evidence.experiments.autopreset", "--project", str(project.root),
               "--experiment", str(path), "--device", device]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, env=env)
    except subprocess.TimeoutExpired:
        raise BadInputError(path, f"preset = 'auto' could not estimate the presets' memory within "
                            f"{limit:g} s: building the trainer's model did not finish (is a [config] "
                            "value huge?)", field="preset",
                            hint=f"name a preset instead of auto, or raise {TIMEOUT_ENV}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        raise BadInputError(path, "preset = 'auto': estimating the presets' memory failed: "
                            + (lines[-1] if lines else f"exit code {done.returncode}"), field="preset")
    choice: dict[str, Any] = json.loads(done.stdout)
    return choice
