"""The values a metric can take, so a value outside them is refused at seal time and in verify.

An accuracy of 1.3 or -0.2, or a negative loss, is not a result: it is a bug in the metric
(a sum where a mean was meant, a wrong denominator, a sign flip). Such a number can still look
like a convincing "effect", so it is caught twice: the runner refuses to seal it (nothing wrong
enters the evidence) and ``verify`` labels any comparison over such runs a suspected bug (for
runs sealed before the check, or imported).

A metric's range is the one its ``results.json`` entry declares (``"range": [low, high]``, either
end null for unbounded), else the range of its well-known name below, else unbounded. The names
are the conventional ones; a project whose "accuracy" means something else declares its range.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evidence.core.errors import RunFailedError

Range = tuple[float, float]
_UNIT = (0.0, 1.0)
_NON_NEGATIVE = (0.0, math.inf)

#: Ranges of well-known metric names (a fraction, or a non-negative error or loss).
KNOWN_RANGES: Mapping[str, Range] = {
    "accuracy": _UNIT, "balanced_accuracy": _UNIT, "error_rate": _UNIT, "f1": _UNIT,
    "precision": _UNIT, "recall": _UNIT, "auc": _UNIT, "roc_auc": _UNIT, "top5_accuracy": _UNIT,
    "loss": _NON_NEGATIVE, "nll": _NON_NEGATIVE, "cross_entropy": _NON_NEGATIVE,
    "mse": _NON_NEGATIVE, "rmse": _NON_NEGATIVE, "mae": _NON_NEGATIVE, "perplexity": (1.0, math.inf),
}


def metric_range(name: str, entry: Mapping[str, Any] | None = None) -> Range:
    """The declared range of metric ``name`` (its results.json ``entry`` may declare one)."""
    declared = (entry or {}).get("range")
    if isinstance(declared, list | tuple) and len(declared) == 2:
        low, high = declared
        return (-math.inf if low is None else float(low), math.inf if high is None else float(high))
    return KNOWN_RANGES.get(name, (-math.inf, math.inf))


def _bound(x: float) -> str:
    return "unbounded" if math.isinf(x) else f"{x:g}"


def out_of_range(results: Mapping[str, Any]) -> list[str]:
    """One sentence per metric value of a results.json dict outside its declared range.

    E.g. "test accuracy = 1.3 is outside its range [0, 1]". Non-finite values are left to the
    non-finite check (they have their own diagnostic), non-numbers are the schema's business.
    """
    found = []
    metrics = results.get("metrics")
    for name, entry in sorted((metrics if isinstance(metrics, Mapping) else {}).items()):
        if not isinstance(entry, Mapping):
            continue
        low, high = metric_range(name, entry)
        values = entry.get("values")
        for split, value in sorted((values if isinstance(values, Mapping) else {}).items()):
            if isinstance(value, int | float) and not isinstance(value, bool) \
                    and math.isfinite(value) and not low <= value <= high:
                found.append(f"{split} {name} = {value:.6g} is outside its range "
                             f"[{_bound(low)}, {_bound(high)}]")
    return found


def refuse_out_of_range(results: Mapping[str, Any], where: str) -> None:
    """Raise before sealing when a metric value lies outside its range: it is a bug, not a result."""
    found = out_of_range(results)
    if found:
        raise RunFailedError(f"{where}: refusing to seal: {'; '.join(found)}",
                             hint="the metric is computed wrongly (or declare its range in the "
                                  "results' metric entry); the run was not sealed")
