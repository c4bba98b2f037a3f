"""``build/deliver/claims.tex``: every claim as LaTeX macros, so a LaTeX paper cites, never types.

A LaTeX paper ``\\input``s this file and writes ``\\evCnnTestAccuracy`` where a Markdown paper
writes ``{{ claim("cnn_test_accuracy") }}``. Macro names come from :mod:`evidence.deliver.texnames`
(the one rule, shared with reconcile). Per claim: the formatted value, ``Low``/``High``/``Interval``,
``N``, ``Supported`` (``true``/``false``), ``Disclosure`` (its findings in the paper's words, empty
when none) and ``Citation`` (the published source of a ``reference:`` claim or of the number it is
compared with, empty when none);
``\\evProjectDisclosures`` holds the findings that affect every claim.

An unsupported or disclosed claim cannot be typeset without its disclosure: its value macro
itself ends in ``\\evDisclosed{<the findings>}``, a footnote by default. A paper may restyle
``\\evDisclosed`` (``\\renewcommand`` after the ``\\input``) but cannot get the bare number from
this file. Text is escaped for TeX; the file is a pure function of claims.json and
disclosures.json (no date, no path), so an unchanged input rebuilds it byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evidence.deliver import texnames
from evidence.deliver.claims import Format

SEVERITY_WORD = {"serious": "Serious", "warning": "Warning", "info": "Note"}

_TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "±": r"\ensuremath{\pm}", "≥": r"\ensuremath{\geq}", "≤": r"\ensuremath{\leq}",
    "×": r"\ensuremath{\times}", "−": "-", "–": "--", "—": "---", "…": r"\ldots{}",
    "≈": r"\ensuremath{\approx}",
    "α": r"\ensuremath{\alpha}", "σ": r"\ensuremath{\sigma}", "μ": r"\ensuremath{\mu}",
    "\u2019": "'", "\u2018": "`", "\u201c": "``", "\u201d": "''", "<": r"\textless{}", ">": r"\textgreater{}",
}


def tex_escape(text: object) -> str:
    """Plain text -> TeX that typesets it literally (pdflatex-safe: other non-Latin-1 -> '?')."""
    out = []
    for char in str(text):
        if char in _TEX_SPECIAL:
            out.append(_TEX_SPECIAL[char])
        elif ord(char) < 256:
            out.append(char)
        else:
            out.append("?")
    return "".join(out)


def _finding_text(finding: Mapping[str, Any]) -> str:
    """The finding as the paper shows it: its reader's words when it has them (no verify ids)."""
    word = SEVERITY_WORD.get(str(finding.get("severity")), str(finding.get("severity")))
    return f"{word}: {finding.get('reader_message') or finding['message']}"


def claim_disclosures(claim_id: str, findings: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [f for f in findings if f.get("scope", "claim") == "claim" and claim_id in f.get("claims", [])]


def project_disclosures(findings: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [f for f in findings if f.get("scope") == "project"]


def _define(name: str, body: str) -> str:
    return f"\\newcommand{{\\{name}}}{{{body}}}"


def claims_tex(claims: Sequence[Mapping[str, Any]], findings: Sequence[Mapping[str, Any]],
               title: str = "") -> str:
    """The text of claims.tex for resolved ``claims`` and the audit's ``findings``."""
    lines = [
        "% claims.tex: written by `doit deliver` from build/claims/claims.json and the disclosures.",
        "% Do not edit: \\input it and cite claims by macro (\\evClaimId, \\evClaimIdInterval, ...).",
        f"% {len(claims)} claim(s){': ' + tex_escape(title) if title else ''}",
        "\\providecommand{\\evDisclosed}[1]{\\footnote{#1}}",
        "",
    ]
    for claim in claims:
        base = texnames.macro_base(str(claim["id"]))
        if base is None:  # refused by claims.load_evidence; never reached for a loaded project
            raise ValueError(f"claim id {claim['id']!r} cannot become a LaTeX macro name")
        fmt = Format.from_mapping(claim.get("format"))
        signed = str(claim.get("formatted", "")).startswith("+")
        notes = claim_disclosures(str(claim["id"]), findings)
        disclosure = " ".join(tex_escape(_finding_text(f)) for f in notes)
        if not claim["supported"] and not notes:
            reason = claim.get("why_reader") or claim.get("reason") or "see DISCLOSURES.md"
            disclosure = tex_escape(f"Not supported by its evidence: {reason}")
        value = tex_escape(claim["formatted"])
        if disclosure:
            value += f"\\evDisclosed{{\\{base}Disclosure}}"
        lines += [
            f"% {claim['id']}: {tex_escape(claim.get('statement', ''))}",
            _define(base, value),
            _define(base + "Low", tex_escape(fmt.render(claim.get("ci_low"), signed=signed))),
            _define(base + "High", tex_escape(fmt.render(claim.get("ci_high"), signed=signed))),
            _define(base + "Interval", tex_escape(claim.get("ci_formatted", "n/a"))),
            _define(base + "N", tex_escape(claim.get("n") if claim.get("n") is not None else "n/a")),
            _define(base + "Supported", "true" if claim["supported"] else "false"),
            _define(base + "Disclosure", disclosure),
            _define(base + "Citation", tex_escape(claim.get("citation") or "")),
            "",
        ]
    project = project_disclosures(findings)
    body = (" ".join(tex_escape(_finding_text(f)) for f in project) if project
            else "No finding affects the whole project.")
    lines += ["% findings that affect every claim (stale prices, a dirty tree, ...)",
              _define(texnames.PROJECT_DISCLOSURES, body), ""]
    return "\n".join(lines)
