"""What a claim states, in every form a document may write it: the numbers reconcile checks.

A claim is more than its point value: a document may state its interval's bounds, the number of
seeds, the seeds-needed estimate of an unresolved comparison or P(better). Each is a
:class:`Quantity` of the claim, checked at the precision it is stated with. A claim also knows
what it is about: its subjects (the variants it measures or compares, derived from the evidence)
and its metric; ``keywords`` from EVIDENCE.json add to those words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: The quantity names a finding may carry (reconcile.json's ``quantity``).
QUANTITY_NAMES = ("value", "ci_low", "ci_high", "ci_half", "n", "seeds_needed", "prob_better", "prob_low",
                  "prob_high", "sd", "se", "configurations")


@dataclass(frozen=True)
class NumberFormat:
    """How a claim renders: ``value * scale`` with ``decimals`` decimals, then ``suffix``."""

    scale: float = 1.0
    decimals: int = 2
    suffix: str = ""

    def __post_init__(self) -> None:
        if self.decimals < 0 or not math.isfinite(self.scale) or self.scale == 0:
            raise ValueError(f"invalid number format {self!r}")

    @classmethod
    def from_spec(cls, spec: str) -> NumberFormat:
        """Parse a Python format spec: ``".1%"`` (percent), ``".3f"`` (plain), ``"d"`` (int)."""
        if spec == "d":
            return cls(1.0, 0, "")
        m = re.fullmatch(r"\.(\d+)([f%])", spec)
        if not m:
            raise ValueError(f"unsupported number format {spec!r} (use '.Nf', '.N%' or 'd')")
        if m.group(2) == "%":
            return cls(100.0, int(m.group(1)), "%")
        return cls(1.0, int(m.group(1)), "")

    def scaled(self, value: float) -> float:
        """The value in displayed units (0.964 -> 96.4 for a percentage), unrounded."""
        return value * self.scale

    def render(self, value: float) -> str:
        """The authoritative text, e.g. ``"96.4%"``."""
        return f"{self.scaled(value):.{self.decimals}f}{self.suffix}"

    @property
    def percent(self) -> bool:
        return self.suffix.strip() == "%"


def half_unit(decimals: int) -> float:
    return 0.5 * 10.0**-decimals


@dataclass(frozen=True)
class Quantity:
    """One number a claim states: ``name`` (value, ci_low, ...), its raw value, and how it shows.

    ``form``: ``"measure"`` (shown in the claim's format: a percentage, points or a plain number),
    ``"count"`` (an integer: n, seeds needed) or ``"probability"`` (0..1 or a percentage).
    """

    name: str
    raw: float
    form: str
    format: NumberFormat

    def expected(self) -> str:
        if self.form == "count":
            return str(int(round(self.raw)))
        if self.form == "probability":
            return f"{self.raw:.2f}"
        return self.format.render(self.raw)


@dataclass(frozen=True)
class ClaimQuantity:
    """A claim's authoritative numbers and the words that name it in prose.

    ``tolerance`` is absolute, in displayed units; None means half a unit of the last
    displayed decimal. It can only widen the check: a stated number is never held to more
    precision than it shows. ``subjects``: one tuple of alternative names per thing the claim is
    about (one for a measurement, two for a comparison: A then B); ``metric``: the metric's
    names. ``comparison``: the value is a difference between the two subjects.
    """

    id: str
    value: float
    format: NumberFormat
    keywords: tuple[str, ...] = ()
    tolerance: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None
    seeds_needed: int | None = None
    prob_better: float | None = None
    prob_low: float | None = None  # P(better)'s 95% interval (Newcombe score)
    prob_high: float | None = None
    subjects: tuple[tuple[str, ...], ...] = ()
    metric: tuple[str, ...] = ()
    comparison: bool = False
    classification: str | None = None
    supported: bool | None = None
    claimed: str | None = None  # the comparison's claimed direction: a_better, b_better, differ...
    points: bool = False  # a difference shown in percentage points
    split: str | None = None  # the split the metric is measured on (test, val): another split's
    # number ("validation accuracy of 97.2%") does not state this claim
    budget: int | None = None  # an expected-max claim's number of configurations (expected@4)
    configurations: int | None = None  # an expected-max claim's sweep: how many it holds (16)
    improvement: bool = False  # a comparison's value is how much A is better (not A - B)
    lower_better: bool = False  # its metric is better when lower (RMSE, loss, error)
    verify_name: str | None = None  # the comparison's name in comparisons.toml ("cnn_vs_mlp")

    def __post_init__(self) -> None:
        object.__setattr__(self, "keywords", tuple(self.keywords))
        object.__setattr__(self, "subjects", tuple(tuple(s) for s in self.subjects))
        object.__setattr__(self, "metric", tuple(self.metric))
        if not all(k.strip() for k in self.keywords):
            raise ValueError(f"claim {self.id!r} has an empty keyword")
        if not math.isfinite(self.value):
            raise ValueError(f"claim {self.id!r} has a non-finite value {self.value!r}")
        if self.tolerance is not None and not self.tolerance >= 0:
            raise ValueError(f"claim {self.id!r} has a negative tolerance")

    @property
    def expected(self) -> str:
        return self.format.render(self.value)

    @property
    def better_side(self) -> str | None:
        """The subject the evidence shows better, by the sign of the value: an improvement is
        how much A is better; a difference A - B is A better when it is positive on a metric
        that is better high and negative on one that is better low. None at zero or without
        two sides."""
        if not self.comparison or self.value == 0 or len(self.subjects) < 2:
            return None
        a_better = self.value > 0 if self.improvement else (self.value > 0) != self.lower_better
        return self.subjects[0][0] if a_better else self.subjects[1][0]

    def quantities(self) -> list[Quantity]:
        """Every number this claim can be stated by, the point value first."""
        out = [Quantity("value", self.value, "measure", self.format)]
        if self.ci_low is not None and self.ci_high is not None:
            out += [Quantity("ci_low", self.ci_low, "measure", self.format),
                    Quantity("ci_high", self.ci_high, "measure", self.format),
                    Quantity("ci_half", (self.ci_high - self.ci_low) / 2, "measure", self.format)]
        if self.n is not None:
            out.append(Quantity("n", self.n, "count", self.format))
        if self.configurations is not None:
            out.append(Quantity("configurations", self.configurations, "count", self.format))
        if self.seeds_needed is not None:
            out.append(Quantity("seeds_needed", self.seeds_needed, "count", self.format))
        if self.prob_better is not None:
            out.append(Quantity("prob_better", self.prob_better, "probability", self.format))
        if self.prob_better is not None and self.prob_low is not None and self.prob_high is not None:
            out += [Quantity("prob_low", self.prob_low, "probability", self.format),
                    Quantity("prob_high", self.prob_high, "probability", self.format)]
        return out

    def spreads(self) -> list[Quantity]:
        """What an unnamed "± x" after this claim's value may be: its interval's half-width, and
        for a mean over seeds (no comparison) the seeds' SD and the standard error that interval
        was built from (a t interval: half-width = t(0.975, n-1) * SD / sqrt(n))."""
        out = [q for q in self.quantities() if q.name == "ci_half"]
        if not out or self.comparison or self.n is None or self.n < 2:
            return out
        from scipy.stats import t as student  # only where a ± term is read: scipy is slow to import

        se = out[0].raw / float(student.ppf(0.975, self.n - 1))
        return [*out, Quantity("sd", se * math.sqrt(self.n), "measure", self.format),
                Quantity("se", se, "measure", self.format)]

    def quantity(self, name: str) -> Quantity | None:
        return next((q for q in self.quantities() if q.name == name), None)

    def accepts(self, stated: float, stated_decimals: int, *, fraction: bool = False) -> bool:
        """Whether a stated number is this claim's value, checked at the precision it states."""
        return self.accepts_quantity(self.quantities()[0], stated, stated_decimals, fraction=fraction)

    def accepts_quantity(self, quantity: Quantity, stated: float, stated_decimals: int, *,
                         fraction: bool = False, approximate: bool = False, bound: str = "") -> bool:
        """"98.51%" is wrong when the evidence says 98.56%: a number that shows two decimals is
        held to two decimals, never to the claim's coarser display. Fewer decimals are fine
        ("99%" states 98.56% correctly rounded). ``fraction``: a percent claim stated as a plain
        fraction (0.986). An explicit claim tolerance can only widen the check; a count stated as
        "about N" may be off by 15%."""
        if bound and quantity.form != "count":  # "over 98%": a bound the evidence must respect
            if fraction or (quantity.form == "probability" and stated <= 1):
                scaled = quantity.raw
            else:
                scaled = (quantity.format.scaled(quantity.raw) if quantity.form == "measure"
                          else 100 * quantity.raw)
            return scaled >= stated - 1e-9 if bound == ">" else scaled <= stated + 1e-9
        if quantity.form == "count":
            tol = max(0.5, 0.15 * quantity.raw if approximate else 0.0)
            return abs(stated - quantity.raw) <= tol + 1e-9
        if quantity.form == "probability":
            scaled = quantity.raw * (1.0 if fraction else 100.0)
            full = 1.0 if fraction else 100.0
            if stated in (0.0, full) and not approximate:
                # "P(better) = 1.0" claims certainty: only a probability that is 1 (0) at two
                # decimals says so, never 0.96 rounded to one decimal
                return abs(stated - scaled) <= 0.005 * full + 1e-9
            return abs(stated - scaled) <= half_unit(stated_decimals) + 1e-9
        tol = max(self.tolerance or 0.0, half_unit(stated_decimals)) if quantity.name == "value" \
            else half_unit(stated_decimals)
        scaled = quantity.raw if fraction else quantity.format.scaled(quantity.raw)
        return abs(stated - scaled) <= tol + 1e-9 * max(1.0, abs(scaled))

    def as_fraction(self, tok_unit: str) -> bool:
        """A percent claim's number written without a percent sign is a fraction (0.986)."""
        return self.format.suffix.strip() == "%" and tok_unit != "%"

    def supported_decimals(self) -> int | None:
        """The decimals the claim's interval supports: one significant digit of its half-width
        (in displayed units), never fewer than the claim's own display shows; None without one."""
        if self.ci_low is None or self.ci_high is None:
            return None
        half = abs(self.format.scaled(self.ci_high) - self.format.scaled(self.ci_low)) / 2
        if half <= 0 or not math.isfinite(half):
            return None
        return max(self.format.decimals, -math.floor(math.log10(half)))
