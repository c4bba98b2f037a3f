"""LaTeX macro names of claims: one rule, shared by the writer of claims.tex and by reconcile.

Why a rule and not a table: a LaTeX paper cites ``\\evCnnTestAccuracy`` and the build must know,
without any other file, which claim that is. TeX control words are letters only, so a claim id
maps to ``ev`` + its ``_``/``-``/``.``-separated parts, each capitalised (``cnn_test_accuracy`` ->
``evCnnTestAccuracy``), with every digit spelled as its English word, the usual LaTeX trick
(``c1_beats_ols`` -> ``evCOneBeatsOls``, ``top5`` -> ``evTopFive``). Two ids that spell the same
name (``c1`` and ``c_one``) are refused when EVIDENCE.json is loaded, naming both claims.

Each claim has these macros (suffix -> what it expands to):
``""`` the formatted value, ``Low``/``High`` the interval's ends, ``Interval`` the whole interval
text, ``N`` the number of runs, ``Supported`` ``true``/``false``, ``Disclosure`` the findings text
(empty when there are none), ``Citation`` the citation of the published number the claim cites or
is compared with (empty when none). ``\\evProjectDisclosures`` holds the project-wide findings.
"""

from __future__ import annotations

import re

PREFIX = "ev"
SUFFIXES = ("", "Low", "High", "Interval", "N", "Supported", "Disclosure", "Citation")
PROJECT_DISCLOSURES = "evProjectDisclosures"
_PART = re.compile(r"[A-Za-z0-9]+")
_PIECES = re.compile(r"[A-Za-z]+|[0-9]")
DIGIT_WORDS = ("Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")
_SEPARATORS = re.compile(r"[_.\-]")
_MACRO = re.compile(r"\\(" + PREFIX + r"[A-Z][A-Za-z]*)")


def macro_base(claim_id: str) -> str | None:
    """``ev`` + CamelCase of the id with its digits spelled as words, or None when the id holds a
    character other than letters, digits and the separators ``_``, ``-``, ``.``."""
    parts = [p for p in _SEPARATORS.split(claim_id) if p]
    if not parts or not all(_PART.fullmatch(p) for p in parts):
        return None
    pieces = [piece for part in parts for piece in _PIECES.findall(part)]
    return PREFIX + "".join(DIGIT_WORDS[int(p)] if p.isdigit() else p[0].upper() + p[1:]
                            for p in pieces)


def macro_index(claim_ids: list[str]) -> dict[str, tuple[str, str]]:
    """Every macro name (without backslash) -> (claim id, suffix); ids that cannot be macros are
    skipped (the loader refuses them) and two ids with the same name raise ValueError."""
    index: dict[str, tuple[str, str]] = {}
    for claim_id in claim_ids:
        base = macro_base(claim_id)
        if base is None:
            continue
        for suffix in SUFFIXES:
            name = base + suffix
            if name in index and index[name][0] != claim_id:
                raise ValueError(f"claims {index[name][0]!r} and {claim_id!r} both become \\{name}")
            index[name] = (claim_id, suffix)
    return index


def cited_macros(text: str) -> list[tuple[int, str]]:
    """(offset, name) of every ``\\ev...`` control word in a TeX source."""
    return [(m.start(), m[1]) for m in _MACRO.finditer(text)]
