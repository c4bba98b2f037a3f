"""Which groups of runs are a fixed value: deterministic by declaration, or shown to be.

A persistence forecast, a lookup table, a closed-form solution or a zero-shot model gives the
same result for every seed. Compared with a seeded model it is a constant, not a sample: the
seeded side's one-sample interval is the right statistics, and identical seeds are what it
should show, not the symptom of a seed that never reached the model (the ``seed_applied``
guard, which stays for everything that is supposed to vary).

A group is fixed when

* every run's variant is declared ``deterministic = true`` in its experiment (declared), or
* the engine establishes it: all runs (two or more seeds) give bit-identical metrics **and**
  either the trainer declares it (a module-level ``DETERMINISTIC = True`` in
  ``trainers/<name>.py``, read from the source without importing it) or the sealed weights hold
  no parameters at all (``model.safetensors`` with no tensor elements).

Identical seeds alone never make a group fixed: that is exactly what a forgotten seed looks like.
"""

from __future__ import annotations

import ast
import json
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evidence.core.project import Project
from evidence.experiments.select import SelectedRun

WEIGHTS_FILE = "model.safetensors"
#: The module-level name a trainer sets to say its results do not depend on the seed.
TRAINER_FLAG = "DETERMINISTIC"


@dataclass(frozen=True)
class Fixed:
    """A group that is a fixed value, and how that is known (said in the verify reason)."""

    how: Literal["declared", "established", "published"]
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"how": self.how, "detail": self.detail}


def _is_finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def fingerprint(result: Mapping[str, Any]) -> tuple[tuple[str, str, float], ...]:
    """Every finite metric value of every split of a run, for comparing seeds bit for bit."""
    metrics = result.get("metrics")
    metrics = metrics if isinstance(metrics, Mapping) else {}
    return tuple(sorted((name, split, float(value)) for name, entry in metrics.items()
                        if isinstance(entry, Mapping)
                        for split, value in (entry.get("values") or {}).items()
                        if _is_finite(value)))


def identical_across_seeds(results: Sequence[Mapping[str, Any]]) -> bool:
    """Two or more runs with different seeds and bit-identical metrics."""
    seeds = {r.get("seed") for r in results}
    prints = {fingerprint(r) for r in results}
    return len(results) >= 2 and len(seeds) >= 2 and len(prints) == 1 and bool(next(iter(prints)))


def trainer_declares(project: Project, trainer: str) -> bool:
    """Whether ``trainers/<trainer>.py`` sets ``DETERMINISTIC = True`` at module level.

    Read with :mod:`ast`, never imported: verify must not run a trainer (nor pay for torch) to
    read one flag. Any other value, or no such assignment, is False.
    """
    path = project.trainers_dir / f"{trainer}.py"
    try:
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
        value = getattr(node, "value", None)
        if any(isinstance(t, ast.Name) and t.id == TRAINER_FLAG for t in targets):
            return isinstance(value, ast.Constant) and value.value is True
    return False


def parameter_count(run_dir: Path) -> int | None:
    """Elements in a sealed run's weights, from the safetensors header alone; None if unreadable.

    The header is 8 bytes of little-endian length and a JSON object of tensor name -> dtype,
    shape and offsets (the safetensors format); no tensor is read or unpickled.
    """
    path = run_dir / WEIGHTS_FILE
    try:
        with path.open("rb") as handle:
            (size,) = struct.unpack("<Q", handle.read(8))
            if size > 100_000_000:
                return None
            header = json.loads(handle.read(size))
    except (OSError, struct.error, ValueError):
        return None
    if not isinstance(header, Mapping):
        return None
    total = 0
    for name, entry in header.items():
        if name == "__metadata__" or not isinstance(entry, Mapping):
            continue
        count = 1
        for dim in entry.get("shape", []):
            count *= int(dim)
        total += count
    return total


def fixed_group(project: Project, selected: Sequence[SelectedRun],
                results: Sequence[Mapping[str, Any]]) -> Fixed | None:
    """Whether the selected runs are one fixed value (see the module docstring), and why."""
    if not selected:
        return None
    experiments = sorted({s.spec.experiment for s in selected})
    where = ", ".join(f"experiments/{e}.toml" for e in experiments)
    if all(s.spec.deterministic for s in selected):
        return Fixed("declared", f"declared deterministic in {where}")
    if not identical_across_seeds(results):
        return None
    trainers = sorted({s.spec.trainer for s in selected})
    if all(trainer_declares(project, t) for t in trainers):
        return Fixed("established", f"every seed gives bit-identical metrics and its trainer "
                     f"declares {TRAINER_FLAG} = True (trainers/{', '.join(trainers)}.py)")
    counts = [parameter_count(s.run.path) if s.run is not None else None for s in selected]
    if all(c == 0 for c in counts):
        return Fixed("established", "every seed gives bit-identical metrics and its sealed weights "
                     "hold no parameters")
    return None
