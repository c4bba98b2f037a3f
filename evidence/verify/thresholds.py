"""The thresholds of the ``verify`` verdict, one frozen object a project sets in comparisons.toml.

Kept apart from :mod:`evidence.verify.classify` so that reading comparisons.toml, which happens
while doit builds its task list, imports no statistics library (scipy costs about a second).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

#: Test-split values that are suspicious in themselves: a perfect score hints at leakage.
DEFAULT_PERFECT_SCORES: Mapping[str, float] = MappingProxyType({"accuracy": 1.0})


@dataclass(frozen=True)
class Thresholds:
    """Every threshold the verdict uses, in one frozen object (``[thresholds]`` in comparisons.toml).

    ``min_seeds``: seeds per group below which the verdict says the group is small (default 5);
    ``alpha``: level of Welch's test and of TOST (the report sets it to 1 - confidence, so the
    printed interval and the test agree); ``power``: target power of "seeds needed";
    ``entropy_fraction``, ``majority_share``: collapsed-prediction limits
    (:func:`check_predictions`); ``leakage_margin``, ``leakage_fraction``, ``leakage_relative``,
    ``perfect_scores``: leakage limits (:func:`check_leakage`: by default scale-aware, a fraction
    of a bounded metric's range or of an unbounded metric's train value; ``leakage_margin``, when
    set, is one absolute limit in metric units); ``initial_loss_tolerance``: :func:`check_initial_loss`;
    ``control_margin``: how far (metric units) a shuffled-label control's whole interval may lie
    better than chance before it is a suspected bug (:func:`check_control_at_chance`).
    """

    min_seeds: int = 5
    alpha: float = 0.05
    power: float = 0.8
    entropy_fraction: float = 0.1
    majority_share: float = 0.95
    leakage_margin: float | None = None
    leakage_fraction: float = 0.05
    leakage_relative: float = 0.25
    perfect_scores: Mapping[str, float] = field(default_factory=lambda: DEFAULT_PERFECT_SCORES,
                                                hash=False)
    initial_loss_tolerance: float = 0.5
    control_margin: float = 0.05

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], base: Thresholds | None = None) -> Thresholds:
        """``base`` (default: the defaults) with the keys of ``raw`` replaced (schema-checked)."""
        values = {f.name: getattr(base or cls(), f.name) for f in fields(cls)}
        for key, value in raw.items():
            if key not in values:
                raise ValueError(f"unknown threshold {key!r}; known: {', '.join(values)}")
            values[key] = MappingProxyType(dict(value)) if key == "perfect_scores" else value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["perfect_scores"] = dict(self.perfect_scores)
        return out


DEFAULT_THRESHOLDS = Thresholds()
