"""A claim macro redefined by hand in a LaTeX source: the number every later ``\\ev...`` prints.

``\\renewcommand{\\evCnnTestAccuracy}{98.5\\%}`` (or ``\\def``, ``\\gdef``, ``\\newcommand`` after
claims.tex, ``\\DeclareRobustCommand``) shadows the delivered macro: the prose still "cites by
macro", but what it prints is whatever was typed into the redefinition. The typed number is
checked against the quantity the macro stands for (the value, an interval end, n); a wrong one is
drift of the macro's claim on the redefinition's line, a right one is still a hand-typed number
(it goes stale the day the claim changes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from evidence.deliver.quantities import ClaimQuantity, Quantity

#: ``\renewcommand{\evX}{...}``, ``\renewcommand*\evX[0]{...}``, ``\def\evX{...}``, ``\gdef\evX {...}``
_REDEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand\*?|DeclareRobustCommand\*?|[gex]?def)\s*"
    r"(?:\{\s*\\(ev[A-Z][A-Za-z]*)\s*\}|\\(ev[A-Z][A-Za-z]*))\s*(?:\[\d\]\s*)?\{")
_NUMBER = re.compile(r"(?<![\w.])([-−+]?)(\d+(?:\.\d+)?)\s*(?:\\[,;:!]\s*|~)?(\\%|%)?")
_SUFFIX_QUANTITY = {"": "value", "Low": "ci_low", "High": "ci_high", "N": "n"}


@dataclass(frozen=True)
class Override:
    """One redefinition of a claim macro with the number typed into it."""

    start: int  # of the number typed in the body
    end: int
    claim: ClaimQuantity
    quantity: Quantity
    stated: str
    value: float
    decimals: int
    macro: str

    @property
    def right(self) -> bool:
        return self.claim.accepts_quantity(self.quantity, self.value, self.decimals)


def _body(text: str, opening: int) -> tuple[int, int]:
    """The span inside the braces opened at ``opening`` (to the end of text when unbalanced)."""
    depth, i = 0, opening
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return opening + 1, i
        i += 1
    return opening + 1, len(text)


def macro_overrides(text: str, claims: Sequence[ClaimQuantity]) -> list[Override]:
    """Every redefinition of a claim macro in a TeX source whose body types a number (claims.tex,
    which defines them, lies under build/ and is never reconciled)."""
    from evidence.deliver.texnames import macro_index

    by_id = {c.id: c for c in claims}
    index = macro_index(sorted(by_id))
    out: list[Override] = []
    for m in _REDEFINITION.finditer(text):
        name = m[1] or m[2]
        if name not in index:
            continue
        claim_id, suffix = index[name]
        claim = by_id[claim_id]
        lo, hi = _body(text, m.end() - 1)
        # an interval macro types both ends ("[57.0, 57.9]"): each checked as its end
        wanted = ["ci_low", "ci_high"] if suffix == "Interval" else [_SUFFIX_QUANTITY.get(suffix)]
        numbers = list(_NUMBER.finditer(text, lo, hi))[: len(wanted)]
        if len(numbers) < len(wanted):
            continue
        for what, number in zip(wanted, numbers, strict=True):
            quantity = claim.quantity(what) if what else None
            if quantity is None:
                continue
            digits = number[2]
            value = float(digits) * (-1 if number[1] in "-−" and number[1] else 1)
            decimals = len(digits.split(".")[1]) if "." in digits else 0
            out.append(Override(number.start(), number.end(), claim, quantity, number[0].strip(), value,
                                decimals, name))
    return out
