"""Reconcile: what people typed into documents, held to the evidence it talks about.

Claims resolve their values from sealed runs, but humans also type those numbers into the
README, the paper's sources, docs/ and notes, and they write words ("beats", "significantly",
"equivalent") about them. When the evidence moves the typed copies go stale silently. This module
finds them, deterministically, and every finding explains itself in one line.

* Documents are parsed by real parsers (:mod:`evidence.deliver.prose`: markdown-it-py for
  Markdown, pylatexenc for LaTeX, Jinja blocks masked in templates) into sentences, headings and
  table rows whose cells know their column and row headers; code, comments, math, citations and
  references are not prose.
* Every number left is read with its unit and role (:mod:`evidence.deliver.statements`) and
  attributed to the claim and quantity it states (:mod:`evidence.deliver.attribution`): a claim
  states its value, its interval's bounds, its number of seeds, its seeds-needed estimate and
  P(better), in every form it allows (a percentage, points, a fraction). Its subjects' words come
  from the evidence; ``keywords`` add to them.
* A number *matches* when ``|stated - value * scale| <= max(tolerance, half a unit of the stated
  number's last decimal)``: "96%" is correct for 0.964 because it is that value correctly rounded
  to the precision it shows. More decimals than the claim's interval supports is
  ``overstated_precision`` (a disclosure, not a failure) when the number is right, drift when not.
* Per sentence, a claim stated correctly once makes its other same-role numbers there comparisons
  (a baseline), and at most one drift per claim and quantity is reported.
* A sentence asserting a comparison that verify does not support is ``unsupported_wording``
  (:mod:`evidence.deliver.wording`).
* An explicit citation ``[98.6%](#claim:id)`` is checked whatever the words say, and is suspicious
  when its sentence names another claim's subject and none of its own.
* ``strict`` (``reconcile.require_binding`` in EVIDENCE.json): a correct number that states a
  claim without being bound to it is ``unbound``, a failure: zero hand-typed numbers by
  construction.
"""

from __future__ import annotations

import bisect
import itertools
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from evidence.core.errors import DriftError
from evidence.core.readers import read_text
from evidence.deliver import prose as prose_module
from evidence.deliver.attribution import (
    DIFF_CUE,
    LEVEL_VERB,
    Candidate,
    Mention,
    candidates,
    clause_of,
    difference_shaped,
    glued_acronyms,
    listed_comparisons,
    listed_subjects,
    pair_before,
    respectively_order,
    sized_variants,
    split_misnamed_before,
    split_only_foreign,
    subject_mentions,
    word_regex,
)
from evidence.deliver.overrides import macro_overrides
from evidence.deliver.quantities import ClaimQuantity, NumberFormat, Quantity, half_unit
from evidence.deliver.statements import PROBABILITY_NAMED, SPREAD_BEFORE, Token, mask_decoys, tokenize
from evidence.deliver.wording import MENTIONED, wording_issues

__all__ = [
    "FAILING_KINDS",
    "ClaimQuantity",
    "Finding",
    "HandTypedNumber",
    "NumberFormat",
    "Quantity",
    "Waiver",
    "collect_documents",
    "drift_findings",
    "findings_json",
    "format_report",
    "hand_typed_numbers",
    "raise_on_drift",
    "scan_documents",
    "scan_text",
    "unused_waivers",
]

#: Documents scanned when the project does not say otherwise.
DEFAULT_INCLUDE = (
    "README.md", "paper/**/*.md", "paper/**/*.j2", "paper/**/*.tex", "docs/**/*.md", "notes/**/*.md",
)
#: Folders never scanned, at any depth: environments, the evidence store, generated output.
ALWAYS_EXCLUDED_DIRS = frozenset({".venv", "runs", ".evidence", "build", "node_modules", ".git"})
#: What strict mode requires bound: a claim's results (counts of seeds are settings, not results).
RESULT_QUANTITIES = frozenset({"value", "ci_low", "ci_high", "prob_better"})
#: Finding kinds that fail the build unless waived.
FAILING_KINDS = frozenset({"drift", "unsupported_wording", "unbound"})
#: Every finding kind (reconcile.json's ``kind``; hand-typed template numbers are ``hand_typed``).
KINDS = ("drift", "unsupported_wording", "unbound", "overstated_precision", "match", "hand_typed")


@dataclass(frozen=True, order=True)
class Finding:
    """A statement in a document about a claim, right or wrong, and why it was read so."""

    file: str
    line: int
    column: int
    claim_id: str
    stated: str
    stated_value: float
    expected: str
    kind: str  # drift | match | unsupported_wording | overstated_precision | unbound
    waived: bool = False
    waiver_reason: str | None = None
    bound: bool = False  # cited explicitly ([98.6%](#claim:id)): checked whatever the words say
    why: str = ""  # one line: which words, which quantity, expected vs stated
    quantity: str = "value"
    limit: str = ""  # ">" or "<" for a bound statement ("more than 80 points"), which strict mode
    # does not ask to bind: it says what the evidence lies beyond, not a result

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    @property
    def failing(self) -> bool:
        return self.kind in FAILING_KINDS and not self.waived


@dataclass(frozen=True, order=True)
class HandTypedNumber:
    """A number written literally in a paper source instead of coming from a claim."""

    file: str
    line: int
    column: int
    text: str


@dataclass(frozen=True)
class Waiver:
    """A recorded exception: this claim may differ in files matching ``file_glob`` (at
    ``line``, or anywhere when None) for the stated ``reason``, e.g. a changelog entry."""

    file_glob: str
    line: int | None
    claim_id: str
    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise ValueError(f"waiver for {self.claim_id!r} in {self.file_glob!r} needs a reason")
        if self.line is not None and self.line < 1:
            raise ValueError(f"waiver line must be 1-based, got {self.line}")

    def covers(self, finding: Finding) -> bool:
        return (
            finding.claim_id == self.claim_id
            and (self.line is None or self.line == finding.line)
            and _glob_regex(self.file_glob).fullmatch(finding.file) is not None
        )


# --------------------------------------------------------------------------- globs


@lru_cache(maxsize=256)
def _glob_regex(glob: str) -> re.Pattern[str]:
    """Translate a glob with ``**`` (any folders), ``*`` and ``?`` (within one name)."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append({"*": "[^/]*", "?": "[^/]"}.get(glob[i], re.escape(glob[i])))
            i += 1
    return re.compile("".join(out))


def collect_documents(
    root: Path, include_globs: Iterable[str] = DEFAULT_INCLUDE, exclude_globs: Iterable[str] = ()
) -> list[Path]:
    """Documents under ``root`` matching an include glob and no exclude glob, sorted.

    Globs match the path relative to ``root`` in posix form. Folders in
    :data:`ALWAYS_EXCLUDED_DIRS` are pruned wherever they appear.
    """
    include = [_glob_regex(g) for g in include_globs]
    exclude = [_glob_regex(g) for g in exclude_globs]
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        # Hidden folders and virtual environments hold no human-written documents, and walking
        # them (a .venv has tens of thousands of files) would cost every doit call seconds.
        dirnames[:] = sorted(d for d in dirnames if d not in ALWAYS_EXCLUDED_DIRS
                             and not d.startswith(".") and not os.path.exists(
                                 os.path.join(dirpath, d, "pyvenv.cfg")))
        rel_dir = Path(dirpath).relative_to(root)
        for name in filenames:
            rel = (rel_dir / name).as_posix()
            if any(p.fullmatch(rel) for p in include) and not any(
                p.fullmatch(rel) for p in exclude
            ):
                found.append(root / rel)
    return sorted(found)


# --------------------------------------------------------------------------- scanning


def _line_col(starts: list[int], pos: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, pos)
    return line, pos - starts[line - 1] + 1


_QUANTITY_WORDS = {"value": "value", "ci_low": "interval's lower bound", "ci_high": "interval's upper bound",
                   "n": "number of seeds", "seeds_needed": "seeds-needed estimate",
                   "configurations": "number of configurations in the sweep",
                   "ci_half": "interval's half-width (±)", "ci_level": "interval's confidence level",
                   "sd": "standard deviation over seeds (±)", "se": "standard error (±)",
                   "prob_better": "P(better)", "prob_low": "P(better)'s interval's lower bound",
                   "prob_high": "P(better)'s interval's upper bound",
                   "error_rate": "error rate (100% minus the accuracy)",
                   "prob_worse": "P(better) of the second side (100% minus P(better))",
                   "relative_change": "change relative to its reference side's level"}


def _expected(claim: ClaimQuantity, quantity: Quantity, fraction: bool) -> str:
    if quantity.name == "relative_change":
        return f"{100 * quantity.raw:.1f}%"
    if quantity.form == "probability" and not fraction:
        return f"{100 * quantity.raw:.0f}%"  # stated as a percentage: shown as one
    text = quantity.expected()
    if claim.format.percent and quantity.name in ("ci_half", "sd", "se") and text.endswith("%"):
        return f"±{text[:-1]} points"  # a percentage's spread is a width in points
    if claim.points and quantity.form == "measure":
        sign = "+" if quantity.raw > 0 else ""
        text = f"{sign}{text} points"
    return text


def _significant(supported: int | None, quantity: Quantity) -> int | None:
    """The decimals a number may show: those its interval supports, or more where those round it
    to zero (an interval end of -0.006 points would read -0.0): down to its first significant digit."""
    if supported is None or quantity.form != "measure":
        return supported
    scaled = abs(quantity.format.scaled(quantity.raw))
    if scaled == 0 or scaled >= 0.5 * 10.0 ** -supported:
        return supported
    return max(supported, -math.floor(math.log10(scaled)))


def _stated_decimals(tok: Token, fraction: bool) -> int:
    return tok.decimals - 2 if fraction else tok.decimals


def _waive(finding: Finding, waivers: Sequence[Waiver]) -> Finding:
    if finding.kind not in FAILING_KINDS:
        return finding
    waiver = next((w for w in waivers if w.covers(finding)), None)
    return finding if waiver is None else replace(finding, waived=True, waiver_reason=waiver.reason)


def scan_text(
    file: str, text: str, claims: Sequence[ClaimQuantity], waivers: Sequence[Waiver] = (), *,
    strict: bool = False,
) -> list[Finding]:
    """Findings in one document's text; ``file`` is its posix path relative to the root.

    Templates (``.j2``, ``.jinja``) have their ``{{ }}``, ``{% %}`` and ``{# #}`` blocks
    masked; ``.tex`` files (``paper.tex.j2`` too) are read as LaTeX, the rest as Markdown.
    ``strict``: a correct but unbound statement of a claim is an ``unbound`` finding.
    """
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate claim ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    doc = prose_module.parse(file, text)
    plain = mask_decoys(doc.masked)
    masked = _blank_bound(doc.masked, plain)
    findings = _bound_findings(file, text, doc, plain, masked, claims, starts)
    misplaced = _binding_findings(file, text, doc, masked, claims, starts)
    moved = {(f.line, f.column) for f in misplaced}
    findings = [f for f in findings if (f.line, f.column) not in moved] + misplaced
    tokens = [tok for tok in tokenize(masked) if not tok.decoy and tok.statement]
    token_starts = [tok.start for tok in tokens]
    spoken = subject_mentions(masked, 0, len(masked), claims)  # once per document, sliced below
    # "SmallCNN-16" is masked as an identifier, but names the CNN
    spoken = sorted([*spoken, *glued_acronyms(doc.masked, 0, len(masked), spoken, claims)],
                    key=lambda m: m.start)
    spoken_starts = [m.start for m in spoken]
    named = sorted([*sized_variants(masked, spoken, claims), *_claim_references(file, text, claims)],
                   key=lambda m: m.start)
    named_starts = [m.start for m in named]
    whole = _sentences(doc.segments)
    section: list[Any] = []  # the subjects of the last heading
    outline: list[tuple[int, list[Any]]] = []  # the headings above, with their levels and subjects
    inherited: list[Any] = []  # the subjects of the nearest heading above the last that names any
    cited_before: list[str] = []  # the comparisons the last citing sentence cites, and its end
    cited_end = -10
    asked: list[str] = []  # the comparisons the last question names both sides of, and its end
    asked_end = -10
    previous: list[Any] = []  # the subjects of the last sentence
    stated_before: list[str] = []  # the claims whose values the last sentence stating one states
    previous_span = (0, 0)  # where that sentence is: the split it names goes with its subjects
    for seg in doc.segments:
        lo = bisect.bisect_left(token_starts, seg.start)
        hi = bisect.bisect_left(token_starts, seg.end)
        mentions = [m for m in named[bisect.bisect_left(named_starts, seg.start):
                                     bisect.bisect_left(named_starts, seg.end)] if m.end <= seg.end]
        referred = [*_former_latter(masked, seg, mentions, previous),
                    *_pronoun_mentions(masked, seg, mentions, previous)]
        before_sentence = named[: bisect.bisect_left(named_starts, whole[id(seg)].start)]
        referred += _the_two(masked, seg, mentions, before_sentence, claims)
        mentions = sorted([*mentions, *referred], key=lambda m: m.start) if referred else mentions
        # a field of a card ("Seeds evaluated: 4") under "## Evaluation" in "# Model card: SmallCNN-16"
        # is the card's subject's; prose under a subheading is read with that subheading alone
        context = previous + (section or (inherited if seg.field else []))
        context_span = previous_span
        if (noted := _footnoted(text, seg, doc.segments)) is not None:
            # "[^gain]: Interval [+0.2, +2.6]": a footnote is read with the sentence citing it
            context = [m for m in named if noted.start <= m.start and m.end <= noted.end] + section
            context_span = (noted.start, noted.end)
        if seg.kind == "heading":
            # "# Model card: SmallCNN-16" over "## Evaluation": a subheading naming no subject is
            # still about its parent heading's
            outline = [(level, names) for level, names in outline if seg.level and level < seg.level]
            section = mentions
            inherited = next((names for _, names in reversed(outline) if names), [])
            outline.append((seg.level, mentions))
            previous, previous_span = [], (seg.start, seg.start)
        elif seg.kind != "row" and mentions:
            previous, previous_span = mentions, (whole[id(seg)].start, seg.end)
        sentence = whole[id(seg)]
        said = spoken[bisect.bisect_left(spoken_starts, sentence.start):
                      bisect.bisect_left(spoken_starts, seg.end)]
        if referred:
            said = sorted([*said, *referred], key=lambda m: m.start)
        cited = [] if seg.kind == "row" else _cited_comparisons(  # a table row cites, it asserts nothing
            file, text[sentence.start : seg.end], doc.masked[sentence.start : seg.end], claims)
        if not cited and seg.kind == "sentence" and len({m.subject for m in said}) == 1 \
                and len(cited_before) == 1 and seg.start - cited_end < 3:
            # "... [0.47](#claim:cnn_beats_mlp)-[0.97](#claim:...). I confirm that the CNN is the better
            # model": one side named right after a sentence that cites its comparison is about it
            cited = cited_before
        if not cited and seg.kind == "sentence" and len({m.subject for m in said}) < 2 and len(asked) == 1 \
                and asked_end >= sentence.start - 3:
            # "Doubling the MLP's width? Equivalent to the narrow one": the answer to a question
            # about one comparison is about it
            cited = asked
        if not cited and seg.kind == "sentence" and len({m.subject for m in said}) == 1:
            # "\\begin{frame}{CNN vs MLP} ... The CNN wins clearly": one side named under a heading
            # that names one comparison's two sides is about that comparison
            cited = _headed_comparison(section, said[0].subject, claims)
        if seg.kind != "heading":
            cited_before, cited_end = (cited, seg.end) if cited else (cited_before, cited_end)
        if seg.kind != "heading" and masked[sentence.start : seg.end].rstrip().endswith("?"):
            # the comparisons whose two sides a question names: its answer may name one or none
            asked_sides = {m.subject for m in said}
            asked = [c.id for c in claims if c.comparison and len(c.subjects) >= 2
                     and {g[0] for g in c.subjects[:2]} <= asked_sides]
            asked_end = seg.end
        for issue in wording_issues(masked, sentence, claims, said, cited):  # words, not cited ids
            line, col = _line_col(starts, issue.start)
            findings.append(Finding(file, line, col, issue.claim.id, text[issue.start:issue.end],
                                    math.nan, f"wording the verdict {issue.claim.classification} supports",
                                    "unsupported_wording", why=issue.reason, quantity="wording"))
        found = _segment_findings(file, text, masked, seg, tokens[lo:hi], claims, mentions, starts,
                                  context, context_span, stated_before)
        findings += found
        if seg.kind == "heading":
            stated_before = []
        elif seg.kind != "row" and (values := [f.claim_id for f in found if f.quantity == "value"]):
            stated_before = values  # "The MLP lowers test RMSE by 1.3. Its interval, [0.2, 2.6], ..."
    findings += _arithmetic_findings(file, text, doc.masked, claims, starts, findings)
    findings += _bound_level_findings(file, text, doc.masked, claims, starts, findings)
    if prose_module.dialect(file) == "tex":
        overrides = _override_findings(file, text, claims, starts)
        shadowed = {(f.line, f.column) for f in overrides}  # read once, as the redefinition it is
        findings = [f for f in findings if (f.line, f.column) not in shadowed] + overrides
    out = []
    for f in findings:
        if strict and f.kind in ("match", "overstated_precision") and not f.bound \
                and f.quantity in RESULT_QUANTITIES and not f.limit:
            if f.kind == "overstated_precision":
                out.append(f)  # the right kind stays reported: strict mode adds the binding failure
            f = replace(f, kind="unbound", why=f"strict mode: {f.stated} states {f.claim_id}'s "
                        f"{_QUANTITY_WORDS.get(f.quantity, f.quantity)} without binding it; cite it as "
                        f"[{f.stated}](#claim:{f.claim_id}) (LaTeX: its macro) or waive it ({f.why})")
        out.append(_waive(f, waivers))
    return sorted(out)


#: A confidence level named for an interval: "a 90% interval of", "its 99\\,\\% interval is".
_LEVEL_NAMED = re.compile(r"(?<![\d.])(\d{2}(?:\.\d+)?)\s*(?:\\[,;:!]\s*|~|[\u00a0\u2009\u202f])?"
                          r"(?:\\?%|percent|per cent)[\s-]+(?:confidence\s+|credible\s+)?"
                          r"(?:intervals?|CIs?)\b", re.I)
_INTERVAL_MACRO_SUFFIXES = ("Interval", "Low", "High")
_JINJA_CI = re.compile(r"\{\{[^}]*?\bci\(\s*[\"']([\w.\-]+)[\"']")


def _bound_level_findings(file: str, text: str, masked: str, claims: Sequence[ClaimQuantity],
                          starts: list[int], findings: Sequence[Finding]) -> list[Finding]:
    """"with a 90% interval of [−0.006](#claim:x) to [+1.1](#claim:x)", "its 99\\,\\% interval is
    \\evXInterval{}": a claim's own interval, bound, under another level than its 95% is drift of
    that claim (the numbers are right, the level they are given is not)."""
    from evidence.deliver.texnames import cited_macros, macro_index

    ends = {starts[f.line - 1] + f.column - 1: f.claim_id for f in findings
            if f.bound and f.quantity in ("ci_low", "ci_high")}
    by_id = {c.id: c for c in claims}
    index = macro_index(sorted(by_id)) if prose_module.dialect(file) == "tex" else {}
    out = []
    for m in _LEVEL_NAMED.finditer(text):
        if masked[m.start() : m.start() + 1] != text[m.start() : m.start() + 1] \
                or abs(float(m.group(1)) - CLAIM_LEVEL) < 1e-9:
            continue  # in code or a comment, or the claims' own level
        stop = re.search(r"[.;!?](?:\s|$)", text[m.end() : m.end() + 90])
        hi = m.end() + (stop.start() if stop else 90)
        bound = [cid for pos, cid in ends.items() if m.end() <= pos < hi]
        bound += [index[name][0] for pos, name in cited_macros(text[m.end() : hi])
                  if name in index and index[name][1] in _INTERVAL_MACRO_SUFFIXES]
        if prose_module.is_template(file):  # "a 90% interval of {{ ci("x") }}": the helper's 95% interval
            bound += [c.group(1) for c in _JINJA_CI.finditer(text, m.end(), hi) if c.group(1) in by_id]
        line, col = _line_col(starts, m.start())
        for claim_id in dict.fromkeys(bound):
            stated = m.group(0)
            out.append(Finding(file, line, col, claim_id, stated, float(m.group(1)), f"{CLAIM_LEVEL:.0f}%",
                               "drift", bound=True, quantity="ci_level",
                               why=f"{claim_id}'s interval is cited under a {m.group(1)}% level, but it is "
                                   f"a {CLAIM_LEVEL:.0f}% interval"))
    return out


def _override_findings(file: str, text: str, claims: Sequence[ClaimQuantity],
                       starts: list[int]) -> list[Finding]:
    """``\\renewcommand{\\evCnnTestAccuracy}{98.5\\%}``: the number every later use of the macro
    prints, checked as a statement of the quantity the macro stands for (see overrides.py)."""
    out = []
    for o in macro_overrides(text, claims):
        line, col = _line_col(starts, o.start)
        what = _QUANTITY_WORDS.get(o.quantity.name, o.quantity.name)
        expected = _expected(o.claim, o.quantity, False)
        if o.right:
            why = (f"\\{o.macro} is redefined by hand to {o.stated}: right today, but it no longer follows "
                   f"{o.claim.id}'s {what}; delete the redefinition")
        else:
            why = (f"\\{o.macro} is redefined by hand, so every use prints {o.stated} as {o.claim.id}'s "
                   f"{what}: expected {expected}, stated {o.stated}; delete the redefinition")
        out.append(Finding(file, line, col, o.claim.id, o.stated, o.value, expected,
                           "match" if o.right else "drift", why=why, quantity=o.quantity.name))
    return out


#: Arithmetic written out: "57.2 − 73.6 = −15.4", "98.7 minus 98.1 is 0.8 points", "55.9 + 1.3 gives 58.2".
_NUMBER = r"[-−+]?\d+(?:\.\d+)?"
_ARITHMETIC = re.compile(
    r"(?<![\w.\-−])(?P<a>" + _NUMBER + r")\s*(?:%|points?)?\s*(?P<op>[-−–+]|minus|plus)\s*"
    r"(?:(?:the\s+)?[A-Za-z][\w'’-]*\s+){0,2}(?P<b>\d+(?:\.\d+)?)\s*(?:%|points?)?\s*"
    r"(?:=|is|gives|equals|makes|yields|→|->)\s*(?:about\s+)?(?P<c>" + _NUMBER + r")(?![\d.]\d|-\d)", re.I)


def _arithmetic_findings(file: str, text: str, t: str, claims: Sequence[ClaimQuantity], starts: list[int],
                         found: Sequence[Finding]) -> list[Finding]:
    """"57.2 − 73.6 = −15.4": a result worked out in the text from two numbers, wrongly, where
    the right result is a claim's value (−16.4, linear regression against the control): drift of
    that claim, whatever the words around it name. A right result, or one no claim states, is
    left to the other rules."""
    out = []
    have = {(f.line, f.column, f.claim_id) for f in found if f.kind == "drift"}

    def number(x: str) -> float:
        return float(x.replace("−", "-"))

    for m in _ARITHMETIC.finditer(t):
        if t.count("`", t.rfind("\n", 0, m.start()) + 1, m.start()) % 2:
            continue  # inside a code span: code, no prose
        a, b, c = number(m.group("a")), number(m.group("b")), number(m.group("c"))
        computed = a - b if m.group("op").lower() in ("-", "−", "–", "minus") else a + b
        decimals = len(m.group("c").split(".")[1]) if "." in m.group("c") else 0
        if abs(c - computed) <= half_unit(decimals) + 1e-9:
            continue  # worked out right
        fits = [(claim, q) for claim in claims for q in claim.quantities()
                if q.name == "value" and q.form == "measure"
                and claim.accepts_quantity(q, computed, decimals)
                and not claim.accepts_quantity(q, c, decimals)]
        if len(fits) != 1:
            continue  # no claim's value (or several): not this rule's to judge
        claim, quantity = fits[0]
        line, col = _line_col(starts, m.start("c"))
        if (line, col, claim.id) in have:
            continue
        stated = text[m.start("c") : m.end("c")]
        sum_text = f"{m.group('a')} {m.group('op')} {m.group('b')}"
        why = (f"the text works out {sum_text} = {computed:.{decimals}f}, which is {claim.id}'s value "
               f"({_expected(claim, quantity, False)}), but states {stated}")
        out.append(Finding(file, line, col, claim.id, stated, c, _expected(claim, quantity, False), "drift",
                           why=why, quantity="value"))
    return out


#: A claim named by its id in a code span (`mlp_beats_linear`), as a checklist row does.
_CODE_ID = re.compile(r"`([A-Za-z0-9_.\-]+)`")


def _cited_comparisons(file: str, raw: str, prose: str, claims: Sequence[ClaimQuantity]) -> list[str]:
    """The comparison claims a sentence cites as its evidence: a ``#claim:`` link in its prose, a
    template helper, a LaTeX macro. An id in a code span is a mention, not a citation (a checklist
    row names its claims that way)."""
    from evidence.deliver.texnames import cited_macros, macro_index

    comparisons = {c.id for c in claims if c.comparison}
    ids = [m.group(2) for m in BOUND_RE.finditer(prose)]
    if prose_module.is_template(file):
        ids += [m.group(1) for m in _JINJA_BINDING.finditer(raw)]
    if file.endswith(".tex") and "\\ev" in raw:
        index = macro_index(sorted(c.id for c in claims))
        ids += [index[name][0] for _, name in cited_macros(raw) if name in index]
    return sorted({i for i in ids if i in comparisons})


def _bare_ids(text: str, by_id: Mapping[str, ClaimQuantity]) -> list[tuple[int, int, str]]:
    """A claim id written as plain text (a table row ``| cnn_test_accuracy | 98.4% | ...``): an
    identifier with an underscore names nothing but that claim. Not inside a link target
    (``#claim:id``), a code span, a quoted helper argument or a LaTeX argument, which name it
    their own way."""
    ids = sorted((i for i in by_id if "_" in i), key=len, reverse=True)
    if not ids:
        return []
    pattern = re.compile(r"(?<![\w`#:{\"'/.\-])(" + "|".join(map(re.escape, ids)) + r")(?![\w`\"'}/\-])")
    return [(m.start(), m.end(), m.group(1)) for m in pattern.finditer(text)]


def _claim_references(file: str, text: str, claims: Sequence[ClaimQuantity]) -> list[Mention]:
    """Claims a document names by id - a code span, or a template helper (``claim("id")``): their
    subjects count as named there, so the numbers around them are read as that claim's."""
    by_id = {c.id: c for c in claims}
    spans = [(m.start(), m.end(), m.group(1)) for m in _CODE_ID.finditer(text)]
    spans += _bare_ids(text, by_id)
    if prose_module.is_template(file):
        spans += [(m.start(), m.end(), m.group(1)) for m in _JINJA_BINDING.finditer(text)]
    if prose_module.dialect(file) == "tex" and "\\ev" in text:  # a claims.tex macro names its claim too
        from evidence.deliver.texnames import cited_macros, macro_index

        index = macro_index(list(by_id))
        spans += [(pos, pos + len(name) + 1, index[name][0]) for pos, name in cited_macros(text)
                  if name in index]
    return [Mention(a, b, g[0], text[a:b]) for a, b, claim_id in spans if claim_id in by_id
            for g in by_id[claim_id].subjects]


#: "trying eight configurations", "a budget of 16 trials": the budget a sentence states.
_BUDGET = re.compile(r"\b(\d+|one|single|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|sixteen"
                     r"|twenty)"
                     # "4 of 16 candidate configurations": 4 tried of the 16 there are
                     r"(?:\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?(?:\d+|sixteen|twenty|eight|ten|twelve))?"
                     r"\s+(?:\w+\s+)?(?:configurations?|configs?|trials?|settings|hyper-?parameter settings"
                     r"|draws)\b",
                     re.I)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "sixteen": 16, "twenty": 20, "single": 1}


#: "With sixteen: about 97%", "eight → 96.5%": a bare budget right before a value, once the
#: paragraph has said what is counted (configurations).
_BARE_BUDGET = re.compile(r"\b(\d+|" + "|".join(_WORDS) + r")\s*(?:configurations?\s*)?(?::|→|->|=)\s*"
                          r"(?:about|around|roughly|~|≈)?\s*$", re.I)


#: A number of configurations in digits or words, not a share or a count of something else.
_BUDGET_NUMBER = r"(\d+|" + "|".join(_WORDS) + r")\b(?!\s*(?:%|\.\d|seeds?|runs?|epochs?|points?))"
#: Once a paragraph has said what is counted: "with all sixteen", "of eight", "one gives 87.1%".
_LATER_BUDGET = re.compile(r"\b(?:with|of|for|from|using|at|after|trying|tried|try)\s+"
                           r"(?:all\s+|just\s+|only\s+)?"
                           + _BUDGET_NUMBER
                           + r"|\b" + _BUDGET_NUMBER + r"\s+(?:gives?|yields?|reach(?:es)?|gets?)\b"
                           # "with all of them", "with all \evTuningBudgetN{}": the whole sweep
                           r"|\b(?P<all>(?:with|after|using|over)\s+(?:all|every)\b(?!\s+(?:\d|"
                           + "|".join(_WORDS) + r")\b))", re.I)
#: The budget :func:`stated_budget` gives for "with all of them": the whole sweep, no fixed number.
ALL_CONFIGURATIONS = -1


_BUDGET_RIGHT_AFTER = re.compile(r"\s*(?:expected best\s+)?(?:at|with|for|using)\s+"
                                 # "96.5% at eight", "at budget four", "97.0% with all 16"
                                 r"(?:a\s+|all\s+(?:the\s+)?)?(?:budget\s+(?:of\s+)?)?"
                                 + _BUDGET_NUMBER, re.I)


def _word_number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _WORDS[word]


#: A table's first column that counts configurations: its rows are budgets ("configs", "# trials", "k").
_BUDGET_COLUMN = re.compile(r"^\W*(?:#\s*|number of\s+|n\s+)?(?:configurations?|configs?|trials|budget|k)"
                            r"(?:\W+(?:configurations?|configs?|trials|budget|k))?\W*$", re.I)  # "trials $k$"


#: The budget in the expected-max notation, right before its number: "k = 4: 95.4%", "$k=4$ gives".
_K_EQUALS = re.compile(r"(?<![\w\\])\$?k\$?\s*=\s*\$?(\d+)\$?\s*(?::|,|→|->|=|gives|yields"
                       # "for k = 1 it is 87.1%"
                       r"|(?:it|this|that)\s+(?:is|was|comes\s+to)|is)?\s*"
                       r"(?:about|around|~|≈)?\s*$")


#: What a budget counts, in a paragraph whose count a template fills ("a budget of {{ k }} configs").
_COUNTED = re.compile(r"\b(?:configurations?|configs?|trials|budget)\b", re.I)


def stated_budget(t: str, seg: prose_module.Segment, tok: Token, raw: str | None = None) -> int | None:
    """The budget a number is stated for: the nearest budget before it in its paragraph ("trying 4
    configurations: about 95%. With sixteen: about 97%": 97% is for sixteen), else one after it
    in its segment ("95.4% with four configurations"); None where the text states none. ``raw``:
    the text before its settings were masked, where "k = 4" still is."""
    cell = seg.cell(tok.start)
    if cell is not None and seg.cells and re.fullmatch(r"\W*\d+\W*", cell.row) \
            and _BUDGET_COLUMN.search(seg.cells[0].column):
        return int(re.sub(r"\D", "", cell.row))  # a row "| 4 | 94.5 |" under "| configs | expected max |"
    para = max(t.rfind("\n\n", 0, tok.start) + 2, tok.start - 400, 0)
    if raw is not None and (k := _K_EQUALS.search(raw, max(para, tok.start - 30), tok.start)):
        return int(k.group(1))  # "k = 1: 87.1%, k = 2: 92.8%": Dodge et al.'s notation for the budget
    right_after = _BUDGET_RIGHT_AFTER.match(t, tok.end, seg.end)
    if right_after:  # "96.5% at eight", "95.4% with four configurations"
        return _word_number(right_after.group(1))
    before = list(_BUDGET.finditer(t, para, tok.start))
    if before:
        bare = _BARE_BUDGET.search(t, max(before[-1].end(), tok.start - 40), tok.start)
        if bare:
            return _word_number(bare.group(1))
        later = list(_LATER_BUDGET.finditer(t, before[-1].end(), tok.start))
        if later:
            if later[-1].group("all"):
                return ALL_CONFIGURATIONS
            return _word_number(later[-1].group(1) or later[-1].group(2))
        return _word_number(before[-1].group(1))
    if _COUNTED.search(t, para, tok.start):  # "a budget of {{ k }} configs ...; with all 16 it is 97.0%"
        clause = max(t.rfind(";", para, tok.start), t.rfind(",", para, tok.start), para)
        later = list(_LATER_BUDGET.finditer(t, clause, tok.start))
        if later:
            if later[-1].group("all"):
                return ALL_CONFIGURATIONS
            return _word_number(later[-1].group(1) or later[-1].group(2))
    after = _BUDGET.search(t, tok.end, seg.end)
    return _word_number(after.group(1)) if after else None


def _unit_checked(tok: Token, best: Any, ok: bool) -> tuple[Token, Any, bool]:
    """A claim in the metric's own units (an RMSE) stated as a percentage is drift, digits or not;
    so is its number under a sibling metric's name ("test MSE 57.2" for an RMSE of 57.2)."""
    if ok and best.misnamed:
        return tok, replace(best, words=(*best.words, best.misnamed)), False
    if ok and tok.unit == "%" and not best.claim.format.suffix.strip() and not best.claim.points \
            and best.quantity.form == "measure":
        why = "a percentage (the claim is in the metric's units)"
        return tok, replace(best, words=(*best.words, why)), False
    return tok, best, ok


#: An observed best, which an expected maximum over a budget is not.
_OBSERVED_BEST = re.compile(r"\b(?:best|top|highest|maximum)\s+(?:single\s+|individual\s+)?(?:trial|run|seed"
                            r"|configuration|config)\b|\bsingle best\b", re.I)


def _budget_checked(t: str, seg: prose_module.Segment, chosen: list[Any], raw: str) -> list[Any]:
    """An expected-max claim states the best of its budget (expected@4). A number stated for
    another budget ("trying eight configurations ... 95.4%") states the claim's value for the
    wrong budget (drift), or another budget's value (not this claim: "16 configurations ...
    97.0%")."""
    out = []
    for tok, best, ok in chosen:
        budget = best.claim.budget
        if budget is not None and _OBSERVED_BEST.search(t, max(seg.start, tok.start - 60), tok.start):
            continue  # "the sweep's best single trial is 97.2%": an observed maximum, not the expected one
        stated = stated_budget(t, seg, tok, raw) if budget is not None else None
        if budget is None or stated is None or stated == budget or best.quantity.form != "measure":
            out.append((tok, best, ok))
        elif ok:
            said = "all" if stated == ALL_CONFIGURATIONS else str(stated)
            out.append((tok, replace(best, words=(*best.words, f"{said} configurations (its budget is "
                                                  f"{budget})")), False))
    return out


#: After a difference: its direction ("*higher*" in emphasis too, "14 RMSE units worse").
_DIRECTION_AFTER = re.compile(r"\s*(?:points?\s+|pp\s+|%\s+|(?:[A-Za-z]+\s+)?units?\s+)?(?:[a-z]+\s+)?[*_]*"
                              r"(?:(higher|lower|better|worse|more|less)\b(?=[*_]*\s+than\b)|(above|below|ahead\s+of|behind)\b"
                              r"|(higher|lower|better|worse)\b(?=[*_]*\s*(?:[.;,)]|$)))", re.I)


#: A direction verb before "by N" ("exceeds that of the control by", "lowers the RMSE of ... by").
_DIRECTION_BEFORE = re.compile(
    r"\b(?:(?P<higher>exceeds?|exceeded|(?:is|was|are)\s+higher\s+than|raises?|increases?)"
    r"|(?P<lower>(?:is|was|are)\s+lower\s+than|lowers?|reduces?|cuts?|decreases?)"
    r"|(?P<better>beats?|outperforms?|improves?\s+(?:on|upon|over)|(?:is|was|are)\s+better\s+than)"
    r"|(?P<worse>trails?|(?:is|was|are)\s+worse\s+than|falls?\s+(?:short of|behind)))\b", re.I)
_BY_AT_END = re.compile(r"[^.;:]{0,80}\bby\s*[~≈]?\s*(?:\\?(?:num|SI)\s*\{?)?\s*", re.I)


def _direction_checked(t: str, seg: prose_module.Segment, mentions: list[Any], tok: Token, best: Any,
                       ok: bool) -> tuple[Token, Any, bool]:
    """"The MLP's test RMSE is 1.3 higher than linear regression's": an unsigned difference with
    a direction word states which side is better; for an RMSE, higher is worse."""
    claim = best.claim
    if not ok or tok.signed or not claim.comparison or len(claim.subjects) < 2 \
            or best.quantity.name != "value" or MENTIONED.search(t, seg.start, tok.start):
        return tok, best, ok  # ("do not write that the MLP's RMSE is 1.3 higher": mentioned, not said)
    word = _DIRECTION_AFTER.match(t, tok.end)
    before = [m.subject for m in mentions if m.end <= tok.start and m.start >= seg.start]
    sides = (claim.subjects[0][0], claim.subjects[1][0])
    if word is None:  # "linear regression's RMSE exceeds that of the control by 16.4"
        verbs = list(_DIRECTION_BEFORE.finditer(t, seg.start, tok.start))
        verb = verbs[-1] if verbs else None
        if verb is None or not _BY_AT_END.fullmatch(t, verb.end(), tok.start):
            return tok, best, ok
        before = [m.subject for m in mentions if m.end <= verb.start() and m.start >= seg.start][-1:]
        said = next(k for k, v in verb.groupdict().items() if v)
        shown = verb.group(0)
    else:
        shown = word.group(1) or word.group(2) or word.group(3)
        said = {"above": "higher", "below": "lower", "behind": "worse"}.get(
            shown.lower(), "better" if shown.lower().startswith("ahead") else shown.lower())
        if word.group(2) or word.group(3):
            # "linear regression is 16.4 points below it", "relative to linear regression, the MLP's
            # RMSE is 1.3 higher.": the subject nearest before
            before = before[-1:]
    if not before or before[0] not in sides:
        return tok, best, ok
    lead = _COMPARED_WITH.match(t, seg.start, tok.start)
    if lead and len(before) == 1 and any(m.subject == before[0] and m.end <= lead.end() for m in mentions
                                         if m.start >= seg.start) \
            and not any(m.subject in sides for m in mentions if lead.end() <= m.start and m.end <= tok.start):
        # "Compared with the same linear model fit to shuffled targets, the real model's RMSE is
        # 16.4 higher": the side the sentence compares with is the reference; the other is said
        before = [sides[1] if before[0] == sides[0] else sides[0]]
    first_up = said in ("higher", "more", "better")  # the first-named side is higher (or better)
    first_better = first_up if said in ("better", "worse") else first_up != claim.lower_better
    a_better_said = first_better if before[0] == sides[0] else not first_better
    better = claim.better_side
    if better is None or a_better_said == (better == sides[0]):
        return tok, best, ok
    worse = sides[1] if better == sides[0] else sides[0]
    return tok, replace(best, words=(*best.words, f"'{shown}' (but {better} is better than "
                                     f"{worse})")), False


#: A sentence that opens with what it compares with: "Compared with the control, ...".
_COMPARED_WITH = re.compile(r"\s*(?:compared\s+(?:with|to)|against|relative\s+to|versus|vs\.?)\s[^,;.]*,",
                            re.I)


#: After a subject: it wins ("in 16 of 100 seed pairs the MLP wins").
_WINS_AFTER = re.compile(r"\s+(?:actually\s+|really\s+|truly\s+)?"
                         r"(?:wins|won|(?:is|was)\s+(?:actually\s+|really\s+|truly\s+)?(?:the\s+)?better"
                         r"|comes?\s+out\s+ahead"
                         r"|does\s+better|beats|leads)\b", re.I)


#: A confidence level named for the interval after it: "its 90% interval is", "a 90 percent
#: confidence range of", "80% CI:".
_STATED_LEVEL = re.compile(r"(?<![\d.])(\d{2}(?:\.\d+)?)\s*(?:\\?%|percent|per cent)[\s-]+"
                           r"(?:confidence\s+|credible\s+)?(?:intervals?|CIs?|range|bounds?|confidence)\b",
                           re.I)
#: The level every claim's interval has.
CLAIM_LEVEL = 95.0


def _level_checked(t: str, seg: prose_module.Segment, tok: Token, best: Any,
                   ok: bool) -> tuple[Token, Any, bool] | None:
    """"Its 90% interval is [-0.006, +1.1]": the claim's own 95% interval under another level's
    name is drift (the interval is right, its level is not); other ends under another level are
    another interval's, no claim's (None)."""
    if best.quantity.name not in ("ci_low", "ci_high", "ci_end"):
        return tok, best, ok
    lo = max(seg.start, tok.start - 90)
    named = [m for m in _STATED_LEVEL.finditer(t, lo, tok.start)
             if not re.search(r"[.;!?]\s", t[m.end() : tok.start])]
    if not named or abs(float(named[-1].group(1)) - CLAIM_LEVEL) < 1e-9:
        return tok, best, ok
    if not ok:
        return None  # "a 90% interval of [7.6, 10.7]": another interval than the claim's 95% one
    why = f"a {named[-1].group(1)}% interval (but the claim's interval is {CLAIM_LEVEL:.0f}%)"
    return tok, replace(best, words=(*best.words, why)), False


def _complement_checked(t: str, seg: prose_module.Segment, mentions: list[Any], tok: Token, best: Any,
                        ok: bool) -> tuple[Token, Any, bool]:
    """"In 16 of 100 seed pairs the MLP wins" for P(CNN better) = 0.84: a share of pairs in
    which the comparison's second side wins states the complement of its P(better)."""
    claim, quantity = best.claim, best.quantity
    if ok or quantity.name != "prob_better" or not claim.comparison or len(claim.subjects) < 2:
        return tok, best, ok
    lo, hi = clause_of(t, seg, tok)
    second = claim.subjects[1][0]
    if not any(m.subject == second and lo <= m.start and m.end <= hi and _WINS_AFTER.match(t, m.end)
               for m in mentions):
        return tok, best, ok
    # named apart: a right complement needs no binding (no claim renders it), as an error rate
    turned = replace(best, quantity=replace(quantity, name="prob_worse", raw=1.0 - quantity.raw))
    return (tok, turned, True) if _accepts(turned, tok) else (tok, best, ok)


#: A probability opened before its comparison: "P(", "Pr(", "the probability that", "the chance that".
_P_OPEN = re.compile(r"(?<![A-Za-z])(?:P|Pr|Prob)\s*\("
                     r"|\b(?:probability|likelihood|chance|odds)\s+(?:that|of)\s+", re.I)
_P_WINS = re.compile(r"\b(?:is\s+|being\s+|are\s+)?(?:better|beats?|beating|wins?|winning|outperforms?"
                     r"|outperforming)\b", re.I)


_BOTH = re.compile(r"\b(?:both|each|all|every)\b", re.I)
_VERSUS = re.compile(r"\s+(?:vs\.?|versus)\s+", re.I)


def _shared_by_pairs(t: str, seg: prose_module.Segment, tok: Token, best: Candidate,
                     claims: Sequence[ClaimQuantity], mentions: list[Any]) -> list[Candidate]:
    """"Both comparisons, MLP vs linear and linear vs control, come out with P(better) = 1.0": one
    number said of every pair listed before it states it for each of those comparisons, so each
    is checked (the one the number was read as already is)."""
    if seg.kind == "row" or not best.claim.comparison or not _BOTH.search(t, seg.start, tok.start):
        return []
    pairs = []
    for v in _VERSUS.finditer(t, seg.start, tok.start):
        left = [m for m in mentions if m.end <= v.start() and not re.search(r"[,;]", t[m.end : v.start()])]
        right = [m for m in mentions if m.start >= v.end() and not re.search(r"[,;]", t[v.end() : m.start])]
        if left and right:
            pairs.append((left[-1].subject, right[0].subject))
    if len(pairs) < 2:
        return _shared_by_collective(t, seg, tok, best, claims, mentions)
    out = []
    for a, b in pairs:
        fits = [c for c in claims if c.comparison and len(c.subjects) >= 2 and c.id != best.claim.id
                and (c.subjects[0][0], c.subjects[1][0]) == (a, b)]
        quantity = fits[0].quantity(best.quantity.name) if len(fits) == 1 else None
        if quantity is not None:
            out.append(Candidate(fits[0], quantity, best.fraction, best.key,
                                 (f"'{a} vs {b}' (one of the pairs the number is said of)",)))
    return out if any((c.subjects[0][0], c.subjects[1][0]) in pairs for c in [best.claim]) else []


_COLLECTIVE_BOTH = re.compile(r"\b(?:both|all)\s+(?:the\s+|our\s+)?(?:[\w-]+\s+)?(?:models|networks|nets"
                              r"|classifiers|regressors|variants|methods|architectures)\b", re.I)


def _shared_by_collective(t: str, seg: prose_module.Segment, tok: Token, best: Candidate,
                          claims: Sequence[ClaimQuantity], mentions: list[Any]) -> list[Candidate]:
    """"Both networks beat the control by +87.5 points": one number said of every comparison with
    the one side the sentence names (the CNN's and the MLP's against the control) is checked for
    each of them."""
    collective = _COLLECTIVE_BOTH.search(t, seg.start, tok.start)
    if collective is None:
        return []
    named = {m.subject for m in mentions if seg.start <= m.start and m.end <= tok.start}
    if len(named) != 1:
        return []
    side = next(iter(named))
    pairs = [c for c in claims if c.comparison and len(c.subjects) >= 2 and c.subjects[1][0] == side]
    if len(pairs) != 2 or best.claim not in pairs:
        return []
    other = next(c for c in pairs if c is not best.claim)
    quantity = other.quantity(best.quantity.name)
    if quantity is None:
        return []
    return [Candidate(other, quantity, best.fraction, best.key,
                      (f"'{collective.group(0)}' and '{side}' (each of them against it)",))]


def _reversed_probability(t: str, seg: prose_module.Segment, tok: Token, mentions: list[Any],
                          claims: Sequence[ClaimQuantity]) -> Candidate | None:
    """"P(MLP better than CNN) is 0.84", "the probability that the MLP is better than the CNN is
    0.84": P(better) named for a comparison's second side over its first states the complement
    of the claim's P(better) (1 - 0.84 = 0.16), checked as that."""
    lo = max(seg.start, tok.start - 140)
    opened = [m for m in _P_OPEN.finditer(t, lo, tok.start)
              if not re.search(r"[.;!?]\s", t[m.end() : tok.start])]
    if not opened or tok.role not in ("value", "prob_better") or tok.signed:
        return None
    start = opened[-1].end()
    wins = _P_WINS.search(t, start, min(tok.start, start + 60))
    if wins is None:
        return None
    winner = [m.subject for m in mentions if start <= m.start and m.end <= wins.start()]
    loser = [m.subject for m in mentions
             if wins.end() <= m.start and m.end <= min(tok.start, wins.end() + 40)]
    if len(set(winner)) != 1:
        return None
    if tok.start - max([wins.end(), *(m.end for m in mentions if m.end <= tok.start)]) > 40:
        return None  # the number is not that probability's ("P(...) is tiny; the CNN reaches 98.7%")
    named_here = {m.subject for m in mentions}
    pairs = [c for c in claims if c.comparison and len(c.subjects) >= 2 and c.prob_better is not None]
    if loser:
        fits = [c for c in pairs if c.subjects[1][0] == winner[0] and c.subjects[0][0] == loser[0]]
    else:  # "Against the control, P(linear better)": the pair the sentence names, the right way round
        fits = [c for c in pairs if c.subjects[1][0] == winner[0] and c.subjects[0][0] in named_here]
        if any(c.subjects[0][0] == winner[0] and c.subjects[1][0] in named_here for c in pairs):
            return None
    if len(fits) != 1:
        return None
    claim = fits[0]
    quantity = Quantity("prob_worse", 1.0 - float(claim.prob_better or 0.0), "probability", claim.format)
    named = f"'P({claim.subjects[1][0]} better than {claim.subjects[0][0]})' (the comparison reversed)"
    return Candidate(claim, quantity, tok.unit != "%", (0.0,), (named,))


def _reversed(candidate: Any, t: str, seg: prose_module.Segment, mentions: list[Any],
              tok: Token | None = None, claims: Sequence[ClaimQuantity] = ()) -> Any:
    """"The control's RMSE minus the linear model's is +16.4": a difference stated the other way
    round (second side minus first) states the claim's quantities with their signs turned; so
    does a cell under a column headed that way (``| MLP − linear |`` over ``−1.3``)."""
    claim, quantity = candidate.claim, candidate.quantity
    if not claim.comparison or len(claim.subjects) < 2 or quantity.form != "measure":
        return candidate
    turned = _turned_by_minus(candidate, t, seg.start, seg.end, mentions)
    cell = seg.cell(tok.start) if tok is not None else None
    if turned is None and cell is not None and cell.column and claims:
        header = cell.column
        turned = _turned_by_minus(candidate, header, 0, len(header),
                                  subject_mentions(header, 0, len(header), claims))
        versus = _VERSUS_COLUMN.match(header)
        if turned is None and versus is not None and tok is not None and tok.signed and cell.row:
            # a signed cell under "vs. linear" in the row "MLP": the row's level minus linear's
            spelled = f"{cell.row} − {versus.group(1)}"
            turned = _turned_by_minus(candidate, spelled, 0, len(spelled),
                                      subject_mentions(spelled, 0, len(spelled), claims))
    return candidate if turned is None else turned


#: A column of each row's difference to one reference: "vs. linear", "Δ vs linear", "relative to ridge",
#: "Δ test RMSE vs linear".
_VERSUS_COLUMN = re.compile(r"^\W*(?:(?:Δ|delta|diff(?:erence)?|change)(?:\s+(?:in|of))?"
                            r"(?:\s+[\w-]+){0,3}\s+)?"
                            r"(?:vs\.?|versus|against|relative to"
                            r"|compared (?:with|to))\s+(?:the\s+)?([^()|]+?)\W*$", re.I)


def _turned_by_minus(candidate: Any, t: str, lo: int, hi: int, mentions: list[Any]) -> Any:
    """The candidate as an "A minus B" in ``t[lo:hi]`` states it, or None where none names its sides."""
    claim, quantity = candidate.claim, candidate.quantity
    first, second = claim.subjects[0][0], claim.subjects[1][0]
    for m in _MINUS.finditer(t, lo, hi):
        before = [x.subject for x in mentions if x.end <= m.start() and x.subject in (first, second)]
        after = [x.subject for x in mentions if x.start >= m.end() and x.subject in (first, second)]
        if not (before and after and before[-1] != after[0]):
            continue
        end = next(x.end for x in mentions if x.start >= m.end() and x.subject in (first, second))
        if claim.improvement and _NAMED_IMPROVEMENT.match(t, end, hi):
            return candidate  # "MLP − linear (improvement)": named as the improvement, the claim's own sign
        # an improvement claim's value is how much A is better: for a lower-is-better metric,
        # A minus B is its negative; any other claim's value is A minus B
        turned = (before[-1] == second) != (claim.improvement and claim.lower_better)
        if turned:
            raw = {"value": -claim.value, "ci_low": -(claim.ci_high or 0.0),
                   "ci_high": -(claim.ci_low or 0.0)}[quantity.name]
            return replace(candidate, quantity=replace(quantity, raw=raw))
        return candidate
    return None


#: A difference named as the improvement after its two sides: "MLP − linear (improvement)".
_NAMED_IMPROVEMENT = re.compile(
    r"[\s'’s]*(?:\(\s*|,\s*|:\s*)?(?:the\s+|an?\s+)?(?:improvement|reduction|gain)\b", re.I)
#: "control minus linear", "MLP − linear", "MLP $-$ linear": a difference written as A minus B.
_MINUS = re.compile(r"\bminus\b|(?<=\s)[-−–](?=\s)|\$\s*-\s*\$", re.I)


def _oriented(claim: ClaimQuantity, quantity: Quantity, tok: Token) -> Quantity:
    """A negative difference stated without its sign ("lowers RMSE by 9.2", "7.2 to 11.1") is read
    as its magnitude: the value and the interval turned around."""
    if not claim.comparison or tok.signed or tok.value < 0 or claim.value >= 0 or quantity.form != "measure":
        return quantity
    flipped = {"value": -claim.value, "ci_low": -(claim.ci_high or 0.0), "ci_high": -(claim.ci_low or 0.0),
               "ci_half": quantity.raw}
    return replace(quantity, raw=flipped[quantity.name])


def _distance_to(candidate: Any, tok: Token) -> float:
    quantity = _oriented(candidate.claim, candidate.quantity, tok)
    if quantity.form == "probability":
        expected = quantity.raw * (1.0 if candidate.fraction else 100.0)
    elif quantity.form == "measure" and not candidate.fraction:
        expected = quantity.format.scaled(quantity.raw)
    else:
        expected = quantity.raw
    return abs(tok.value - expected)


def _accepts(candidate: Any, tok: Token) -> bool:
    quantity = _oriented(candidate.claim, candidate.quantity, tok)
    if quantity.name == "relative_change" and tok.word and tok.unit == "%" and not tok.integer:
        # "by roughly a third", "by a fifth": a share in words is right within a quarter of itself
        return abs(100 * abs(quantity.raw) - tok.value) <= 0.25 * tok.value
    return bool(candidate.claim.accepts_quantity(quantity, tok.value, tok.decimals,
                                                 fraction=candidate.fraction, approximate=tok.approximate,
                                                 bound=tok.bound))


#: Citations of other work: LaTeX \cite commands, [@key], numeric [12], "et al.", (Author, 2020).
_CITATION = re.compile(
    r"\\(?:cite|citep|citet|citealp|citealt|parencite|textcite|autocite|footcite)\b|\[@[\w:-]+"
    r"|\[\d+(?:\s*[,;–-]\s*\d+)*\](?!\(#claim:)|\bet al\."  # not a bound "[1](#claim:x)"
    r"|\([A-Z][A-Za-z-]+(?: et al\.?| and [A-Z][A-Za-z-]+)?,? \d{4}[a-z]?\)")
_COMMAND_BEFORE = re.compile(r"\\[A-Za-z]+\*?$")
#: Words that make a citing sentence about this work's own results.
_OURS = re.compile(r"\b(?:our|ours|we|us|this (?:work|paper|study|project|repository)|here|in this)\b", re.I)
#: Words that attribute a number to others' work.
_REPORTED = re.compile(r"\b(?:who (?:report|reported|found|obtain(?:ed)?|achieve[sd]?)|reported (?:by|in)"
                       r"|according to|as reported|prior work|previous work|the literature"
                       # a reviewed paper's own numbers: "they report 54.1", "their headline claim is ... 4.8"
                       r"|they\s+(?:report|reported|claim|claimed|state|stated|obtain|obtained)"
                       r"|their\s+(?:(?:headline|main|central|key|reported)\s+)?(?:claims?|tables?|papers?"
                       r"|abstract|submission|appendix))\b", re.I)
#: Others' work named at the head of a sentence ("A prior study (Smith et al., 2021) reported 99.1%").
#: Words that make a clause about this work's own runs: "over seed pairs", "pairs of seeds".
_OWN_RUNS = re.compile(r"\b(?:seed|run)[- ]pairs?\b|\bpairs of (?:seeds|runs)\b", re.I)
_PRIOR_WORK = re.compile(r"\b(?:prior|previous|earlier|published|related) (?:work|stud(?:y|ies)|papers?)\b"
                         r"|\b(?:most|many|other|several|typical) (?:papers|studies|works|authors)\b", re.I)


def _others_number(text: str, segments: Sequence[prose_module.Segment], tok: Token) -> bool:
    """Whether a number is another work's by the rule ``_segment_findings`` drops it by."""
    seg = next((s for s in segments if s.start <= tok.start < s.end), None)
    if seg is None:
        return False
    citations = [m.span() for m in _CITATION.finditer(text, seg.start, tok.start)  # before it: a citation
                 if not (text[m.start()] == "["  # after it may cite a method ("95.4%~\\citep{dodge}")
                         and _COMMAND_BEFORE.search(text, max(0, m.start() - 40), m.start()))]
    return bool(citations or _REPORTED.search(text, seg.start, seg.end)
                or _PRIOR_WORK.search(text, seg.start, seg.end)) and _cited_number(text, seg, tok, citations)


#: The whole sweep named right before a number in its clause: "with all 16 it is", "using every one".
_WHOLE_SWEEP = re.compile(r"\b(?:with|using|over|across|for|after)\s+(?:all|every)\b[^.;,:]{0,40}$", re.I)


def _other_budget(t: str, segments: Sequence[prose_module.Segment], tok: Token,
                  claims: Sequence[ClaimQuantity], raw: str | None = None) -> bool:
    """Whether a number is the whole sweep's expected best where the expected-max claims are of a
    smaller budget ("with all 16 it is 97.0%" beside expected@4), or at a budget named in the
    expected-max notation that no claim states ("for k = 1 it is 87.1%"; ``raw``: the text before
    its settings were masked): a table's value, no result to bind (a value said in words for another
    budget short of the sweep, "with 8 it would be 95.9%", stays typed)."""
    budgets = {c.budget for c in claims if c.budget is not None}
    seg = next((s for s in segments if s.start <= tok.start < s.end), None)
    if not budgets or seg is None:
        return False
    if raw is not None and (k := _K_EQUALS.search(raw, max(seg.start, tok.start - 30), tok.start)):
        return int(k.group(1)) not in budgets  # "for k = 1 it is 87.1%": a row of the table, named
    if not _WHOLE_SWEEP.search(t, max(seg.start, tok.start - 60), tok.start):
        return False
    stated = stated_budget(t, seg, tok)
    return stated is not None and stated not in budgets


def _cited_number(text: str, seg: prose_module.Segment, tok: Token, citations: list[tuple[int, int]]) -> bool:
    """Whether a number is someone else's: a citation right after it ("98.4%~\\citep{x}", "98.4%
    [12]"), a citation before it in its clause ("networks~\\cite{x} reached 99.2%"), or a reporting
    phrase before it in its clause ("who report 97.1%") - unless the clause speaks of our work."""
    clause_start = seg.start
    for m in re.finditer(r"[,;]\s|\b(?:but|while|whereas|unlike)\b", text[seg.start : tok.start]):
        clause_start = seg.start + m.end()
    clause = text[clause_start : tok.start]
    if _OURS.search(clause) or _OWN_RUNS.search(clause):
        return False
    after = any(tok.end <= a <= tok.end + 4 for a, _ in citations)
    before = any(clause_start <= a and b <= tok.start for a, b in citations)
    # the clause up to its end: "A linear model with 3 seeds is what most papers report; ours uses 5"
    rest = re.search(r"[;:,]\s|\b(?:but|while|whereas|unlike)\b|$", text[tok.end : seg.end])
    clause_end = tok.end + (rest.start() if rest else 0)
    # a report of others governs its list ("they report 54.1 over 3 seeds, a linear RMSE of 53.8"),
    # until the sentence turns to our work
    reports = list(_REPORTED.finditer(text, seg.start, tok.start))
    reported = bool(reports) and not _OURS.search(text, reports[-1].end(), tok.start) \
        and not _OWN_RUNS.search(text, reports[-1].end(), tok.start)
    return after or before or reported \
        or (_PRIOR_WORK.search(text, seg.start, clause_end) is not None
            and not _OURS.search(text, seg.start, clause_end))


#: A change stated relative to the reference ("by 1.3% relative to linear", "a 2.3% relative gain").
_RELATIVE = re.compile(r"\brelative(?:ly)?\b|\bin relative terms\b"
                       # "a 1.3% reduction of the typical error", "16.4% below the control's"
                       r"|%\s*(?:reduction|decrease|drop|cut|increase)\b"
                       r"|\\?%\s*(?:below|above|lower|higher|closer|smaller|larger)\b", re.I)


#: A change named before its percentage: "the MLP's improvement over linear regression is 1.3 %".
_GAIN_OVER = re.compile(r"\b(?:improvement|gain|reduction)\s+(?:over|on|upon|against)\b", re.I)


#: A share in words ("by roughly a third"): a change relative to the other side, nothing else.
_FRACTION_WORDS = re.compile(r"(?:(?:a|one|two|three)\s+)?(?:half|thirds?|quarters?|fifth|tenth)", re.I)


#: After a percentage: a comparative with its other side ("the MLP's test RMSE is 2.3% lower than
#: linear regression's"): a change in percent of that side's level.
_PERCENT_THAN = re.compile(r"[\s\u00a0]*(?:lower|higher|smaller|larger|less|more|better|worse)"
                           r"[\s\u00a0]+than\b", re.I)


#: A percentage glossing the difference before it: "by 16.4 RMSE points (about 22 %)".
_GLOSS_BEFORE = re.compile(r"\(\s*(?:about|around|roughly|approximately|~|≈|i\.e\.,?|or|that is,?)?\s*$",
                           re.I)


#: Metrics a writer may show as a percentage whatever their format (an accuracy kept as 98.7).
_RATE_METRIC = re.compile(r"acc|rate|precision|recall|f1|auc|share|percent|coverage|score", re.I)


def _units_not_percent(claim: ClaimQuantity, quantity: Quantity) -> bool:
    """Whether a claim's measure is in a metric's own units, far from a fraction (an RMSE of 57.2):
    a percentage then states something else (a relative change, a share), never this number."""
    return quantity.form == "measure" and not claim.format.percent and not claim.points \
        and abs(claim.value) > 1 and not _RATE_METRIC.search(" ".join((*claim.metric, claim.id)))


def _relative_change(t: str, seg: prose_module.Segment, tok: Token, claims: Sequence[ClaimQuantity],
                     mentions: list[Any], context: Sequence[Any] = ()) -> list[Any]:
    """"The MLP lowers RMSE by 2.3% relative to linear": a comparison in a metric's own units,
    stated as a percentage of its reference side's level (the claim of that side alone, same
    metric). One candidate, or none where the sentence names no such comparison."""
    if not _RELATIVE.search(t, seg.start, seg.end) and not _GAIN_OVER.search(t, seg.start, tok.start) \
            and not _GLOSS_BEFORE.search(t, max(seg.start, tok.start - 30), tok.start) \
            and not _PERCENT_THAN.match(t, tok.end) \
            and not (tok.word and _FRACTION_WORDS.fullmatch(t, tok.start, tok.end)):
        return []
    own = {m.subject for m in mentions}
    # "Put differently, that is a 1.3% reduction": the sides of the sentence before, where this one
    # names fewer than two (and a side it names stays one of them)
    named = own if len(own) >= 2 else own | {m.subject for m in context}
    # "linear vs control is -22.3%, MLP vs linear -2.3%": the pair written just before it is its
    pair = pair_before(t, seg, mentions, tok)
    out = []
    for claim in claims:
        sides = {g[0] for g in claim.subjects[:2]}
        if not claim.comparison or len(claim.subjects) < 2 or claim.format.percent or claim.points \
                or not sides <= named or (own and not sides & own) \
                or (pair is not None and pair != {g[0] for g in claim.subjects[:2]}):
            continue
        reference = level_of(claim, claim.subjects[1][0], claims)
        if reference is None:
            continue
        level, source = reference
        raw = abs(claim.value) / abs(level)
        if tok.signed or tok.value < 0:  # "MLP vs linear -2.3%": (A - B) / B, its sign said
            raw = _a_minus_b(claim) / abs(level)
        quantity = Quantity("relative_change", raw, "probability", claim.format)
        out.append(Candidate(claim, quantity, False, (0.0,), (f"'relative' (to {source})",)))
    return out if len(out) == 1 else []


def _a_minus_b(claim: ClaimQuantity) -> float:
    """A comparison's difference as its first side minus its second (an improvement of a
    lower-is-better metric is B - A)."""
    return -claim.value if claim.improvement and claim.lower_better else claim.value


def level_of(claim: ClaimQuantity, side: str, claims: Sequence[ClaimQuantity]) -> tuple[float, str] | None:
    """One side's level in a comparison's metric, and what it comes from: that side's own claim,
    else the other side's claim and the difference (the shuffled-target control's 73.6 is
    linear's 57.2 minus linear_beats_control's -16.4). None where neither is claimed."""
    def own(subject: str) -> list[ClaimQuantity]:
        return [c for c in claims if not c.comparison and c.subjects and c.subjects[0][0] == subject
                and c.metric[:1] == claim.metric[:1] and c.value]
    direct = own(side)
    if len(direct) == 1:
        return direct[0].value, direct[0].id
    sides = [g[0] for g in claim.subjects[:2]]
    other = own(sides[0] if side == sides[1] else sides[1])
    if len(direct) > 1 or len(other) != 1:
        return None
    a_minus_b = _a_minus_b(claim)
    level = other[0].value - a_minus_b if side == sides[1] else other[0].value + a_minus_b
    return (level, f"{other[0].id} and {claim.id}") if level else None


def _headed_comparison(section: list[Any], subject: str, claims: Sequence[ClaimQuantity]) -> list[str]:
    """The one comparison whose two sides a heading names, where ``subject`` is one of them."""
    headed = {m.subject for m in section}
    fits = [c.id for c in claims if c.comparison and len(c.subjects) >= 2
            and {g[0] for g in c.subjects[:2]} <= headed and subject in {g[0] for g in c.subjects[:2]}]
    return fits if len(fits) == 1 else []


_FOOTNOTE_DEF = re.compile(r"^[ \t]*\[\^([^\]\s]+)\]:", re.M)


def _footnoted(text: str, seg: prose_module.Segment,
               segments: list[prose_module.Segment]) -> prose_module.Segment | None:
    """The sentence that cites the footnote ``seg`` is in (by its ``[^label]``), or None where
    ``seg`` is in no footnote definition or no sentence cites it."""
    if "[^" not in text:
        return None
    para = max(text.rfind("\n\n", 0, seg.start), 0)
    found = [m for m in _FOOTNOTE_DEF.finditer(text, para, seg.end) if m.start() <= seg.start]
    if not found:
        return None
    definition = found[-1]
    if "\n\n" in text[definition.end() : seg.start]:
        return None
    ref = re.compile(re.escape(f"[^{definition.group(1)}]") + r"(?!:)")
    cite = next((m for m in ref.finditer(text) if m.start() != definition.start()
                 and text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip() != ""), None)
    if cite is None:
        return None
    # the sentence holding the mark, or the one it follows ("... 2.3%).[^gain]")
    before = [g for g in segments if g.start <= cite.start() and g.kind != "row"
              and not text[g.end : cite.start()].strip(" \t.;,)*_")]
    return before[-1] if before else None


def _sentences(segments: list[prose_module.Segment]) -> dict[int, prose_module.Segment]:
    """Each segment's whole sentence, by the segment's id: numbers are judged per clause (split at
    ';'), wording per sentence, so a clause is widened back over the clauses before it."""
    out: dict[int, prose_module.Segment] = {}
    previous: prose_module.Segment | None = None
    for seg in segments:
        if previous is not None and previous.clause and previous.end == seg.start and seg.kind == "sentence":
            out[id(seg)] = prose_module.Segment(out[id(previous)].start, seg.end)
        else:
            out[id(seg)] = seg
        previous = seg
    return out


_FORMER_LATTER = re.compile(r"\bthe\s+(former|latter)\b", re.I)


def _former_latter(t: str, seg: prose_module.Segment, mentions: list[Any], previous: list[Any]) -> list[Any]:
    """"The CNN and the MLP reach ... ; the latter ...": "the former" and "the latter" name the
    first and the second of two subjects named before them, in the sentence or the one before."""
    out = []
    for m in _FORMER_LATTER.finditer(t, seg.start, seg.end):
        before = [x for x in mentions if x.end <= m.start()] or list(previous)
        subjects = list(dict.fromkeys(x.subject for x in before))
        if len(subjects) == 2:
            subject = subjects[0] if m.group(1).lower() == "former" else subjects[1]
            out.append(Mention(m.start(), m.end(), subject, m.group(0)))
    return out


#: A comparison's other side as a pronoun: "the MLP beats it by 0.87 points", "clear it by".
_IT_OBJECT = re.compile(r"\b(?:beats?|beat|outperforms?|clears?|cleared|exceeds?|trails?|tops?|improves?\s+on"
                        r"|better\s+than|worse\s+than|ahead\s+of|above|over)\s+(it)\b", re.I)


_ITS_OPENING = re.compile(r"\W*(?:and\s+|but\s+|so\s+|here\s+|there\s+)?(its|their)\b"
                          r"(?=\s+(?:[\w-]+\s+){0,2}?(?:rmse|mse|mae|error|loss|accuracy|acc\.?|score|f1|auc)\b)",
                          re.I)


def _pronoun_mentions(t: str, seg: prose_module.Segment, mentions: list[Any],
                      previous: list[Any]) -> list[Any]:
    """Subjects named by a pronoun: "it" after a comparison's verb ("Ours sits at chance, and the
    MLP beats it by 0.87 points") is the one subject the sentence before named (or this one named
    before it) that is not the verb's subject; an opening "its" is the clause before's subject."""
    out = []
    opening = _ITS_OPENING.match(t, seg.start, seg.end)
    if opening is not None and previous:
        # "Linear regression beats its control; its test RMSE sits 16.4 above the control's": a
        # clause opening with "its" is about the subject the clause before opened with
        subject = previous[0].subject
        if all(x.subject != subject for x in mentions):
            out.append(Mention(opening.start(1), opening.end(1), subject, opening.group(1)))
    for m in _IT_OBJECT.finditer(t, seg.start, seg.end):
        before = [x for x in mentions if x.end <= m.start()]
        subject = before[-1].subject if before else None
        if not before or re.search(r"[:;]", t[before[-1].end : m.start()]):
            continue  # "Comparison to the control: beats it by 93.9": the verb's subject is unsaid
        if len(before) >= 2 and re.fullmatch(r"\s*(?:,|and|&|or)\s*(?:the\s+)?",
                                             t[before[-2].end : before[-1].start], re.I):
            continue  # "both the MLP and the CNN beat it": co-subjects, the compared one unnamed
        others = list(dict.fromkeys(x.subject for x in [*previous, *before[:-1]] if x.subject != subject))
        if subject is not None and len(others) == 1:
            out.append(Mention(m.start(1), m.end(1), others[0], "it"))
    return out


#: "the two models", "the two networks", "the architectures": the two things a text has just been
#: comparing, named at once ("both models beat the control" is left alone: "both" makes them
#: co-subjects against a third).
_THE_TWO = re.compile(r"\bthe\s+(?:two\s+(?:models|networks|nets|variants|methods|approaches|systems"
                      r"|classifiers|regressors|estimators|learners)|(?:two\s+)?architectures)\b", re.I)
#: "of the two" after a subject: the other is the last other subject named before.
_OF_THE_TWO = re.compile(r"\bof\s+the\s+two\b(?!\s+(?:seeds?|runs?|splits?|configs?|configurations?)\b)",
                         re.I)
#: How far back (characters) the two subjects "the two models" refers to may have been named.
_THE_TWO_REACH = 1500


def _variants(a: str, b: str) -> bool:
    """Two subjects one of which is a variant of the other (mlp_wide and mlp)."""
    x, y = set(a.split("_")), set(b.split("_"))
    return x < y or y < x


def _the_two(t: str, seg: prose_module.Segment, mentions: list[Any], before: list[Any],
             claims: Sequence[ClaimQuantity]) -> list[Any]:
    """"The MLP's improvement over linear is 1.3. We regard the two models as indistinguishable":
    a generic plural ("the two models", "the two networks") in a sentence that names no subject
    refers to the last two subjects named before it, when they are one comparison's two sides;
    "the architectures" to the last two that are not variants of one another (the wide MLP is an
    MLP). Each is taken as named where the plural stands."""
    pairs = [tuple(g[0] for g in c.subjects[:2]) for c in claims if c.comparison and len(c.subjects) >= 2]
    out: list[Any] = []
    named = {x.subject for x in mentions}
    if len(named) == 1:
        # "Linear regression has the lower test RMSE of the two": the one named and the other of the
        # last two named before, when they are one comparison's sides
        for m in _OF_THE_TWO.finditer(t, seg.start, seg.end):
            last = list(dict.fromkeys(x.subject for x in reversed(before)
                                      if m.start() - x.end <= _THE_TWO_REACH))[:2]
            if len(last) == 2 and set(last) >= named and tuple(last) in {*pairs, *(p[::-1] for p in pairs)}:
                out += [Mention(m.start(), m.end(), x, m.group(0)) for x in last if x not in named]
        return out
    if mentions:
        return []
    for m in _THE_TWO.finditer(t, seg.start, seg.end):
        architectures = "architecture" in m.group(0).lower()
        recent: list[str] = []
        for x in reversed(before):
            if m.start() - x.end > _THE_TWO_REACH:
                break
            if x.subject not in recent:
                recent.append(x.subject)
        found = None
        for k in range(1, len(recent) if architectures else min(len(recent), 2)):
            fits = [p for p in pairs if set(p) == {recent[k - 1], recent[k]}
                    and not (architectures and _variants(*p))]
            if not fits and architectures:  # the nearest earlier subject that pairs with the last
                fits = [p for j in range(k) for p in pairs if set(p) == {recent[j], recent[k]}
                        and not _variants(*p)]
            if fits:
                found = fits[0]
                break
        if found is not None:
            out += [Mention(m.start(), m.end(), s, m.group(0)) for s in found]
    return out


def _subject_just_before(t: str, seg: prose_module.Segment, tok: Token, mentions: list[Any]) -> bool:
    """"... and the wide MLP 98.3%": a subject named right before the number in its clause is
    what the number is about; it is not read with the sentence before."""
    lo, _ = clause_of(t, seg, tok)
    near = [m for m in mentions if lo <= m.start and m.end <= tok.start]
    return bool(near) and tok.start - near[-1].end <= 30


_OWN_AFTER = re.compile(r"(?:(?<='s)|(?<=’s))\s+own\b", re.I)


def _owned_by_other(t: str, seg: prose_module.Segment, tok: Token, mentions: list[Any],
                    claim: ClaimQuantity) -> bool:
    """"The MLP's own interval ([54.7, 57.0])": a subject's "own" quantity before the number in
    its clause is that subject's level, neither another subject's claim nor a comparison's."""
    lo = max(seg.start, tok.start - 40)  # its interval in brackets after it: "own interval ([54.7, 57.0])"
    own = [m for m in mentions if lo <= m.start and m.end <= tok.start and _OWN_AFTER.match(t, m.end)
           and not re.search(r"[;.!?]\s", t[m.end : tok.start])]
    if not own:
        return False
    subject = own[-1].subject
    return claim.comparison or all(g[0] != subject for g in claim.subjects)


_ITS_OWN = re.compile(r"(?<!\bon\s)(?<!\bby\s)\bits\s+own\b", re.I)  # not "on its own": alone


def _its_own_subject(t: str, tok: Token, claims: Sequence[ClaimQuantity]) -> str | None:
    """"The control is 16.4 away from linear regression; its own RMSE, 73.6, ...": "its own" is
    the sentence's first-named subject's, so the number is that subject's level (or nothing a
    claim states), never another subject's claim nor a comparison's."""
    near = list(_ITS_OWN.finditer(t, max(0, tok.start - 40), tok.start))
    if not near or re.search(r"[.!?]\s", t[near[-1].end() : tok.start]):
        return None
    start = max((i + 2 for i in (t.rfind(". ", 0, near[-1].start()), t.rfind(".\n", 0, near[-1].start()),
                                 t.rfind("\n\n", 0, near[-1].start())) if i >= 0), default=0)
    named = subject_mentions(t, start, near[-1].start(), claims)
    return named[0].subject if named else None


def _one_side_named(claim: ClaimQuantity, mentions: list[Any]) -> bool:
    """A comparison the segment names only one side of (read with a word of comparison)."""
    named = {m.subject for m in mentions}
    return claim.comparison and sum(g[0] in named for g in claim.subjects) < 2


#: One run in a table row: its seed named ("seed 3", "s3", "MLP-s0").
_ONE_SEED = re.compile(r"\bseed\s*[#=]?\s*\d+\b|(?<=[\s_-])s\d+\b", re.I)
#: After a number: the one run it is of ("56.98 (seed 4)", "4.4% for seed 3").
_ONE_SEED_AFTER = re.compile(r"[\s\u00a0]*(?:%[\s\u00a0]*)?(?:\(\s*|,\s*|for\s+|on\s+|at\s+)(?:the\s+)?"
                             r"seed\s*[#=]?\s*\d+\b", re.I)


#: A row header naming one run, another statistic than the mean over seeds, or another work:
#: "us (linear, one seed)", "CNN, median seed", "LeCun et al. (1998)" (a \multirow carried down too).
_NOT_OUR_MEAN_ROW = re.compile(r"\b(?:one|single|a single|best|worst|median)[\s-]+(?:seed|run)\b(?!s)"
                               r"|\bmedian\b|\bet al\b|\\cite\w*\{"
                               r"|\((?:[A-Z][\w-]+,?\s+)?(?:19|20)\d\d[a-z]?\)")
#: A column of changes over time, not of results: "Δ vs. last week", "change since v1", "week-over-week".
_OVER_TIME_COLUMN = re.compile(r"\b(?:vs\.?|versus|since|from|over|compared to)\s+(?:the\s+)?"
                               r"(?:last|previous|prior|yesterday|earlier)\b|\b(?:week|month|day|run|release)[\s-]+over[\s-]+"
                               r"(?:week|month|day|run|release)\b|\bmedian\b", re.I)


def _not_our_mean(t: str, cell: prose_module.Cell | None) -> bool:
    """Whether a table cell holds no claim's number by its row or column header: a row of one
    run, a median or another work's row, or a column of changes since last week. The row header
    itself is read as its own row's ("GBM (one seed)": its "one" counts no claim's seeds)."""
    if cell is None:
        return False
    row = cell.row or t[cell.start : cell.end]
    return bool(_NOT_OUR_MEAN_ROW.search(row) or _OVER_TIME_COLUMN.search(cell.column))


#: Before a number in its clause: the one run it is of ("seed 3 of the CNN reached", "its best seed").
_ONE_SEED_BEFORE = re.compile(r"\bseed\s*[#=]?\s*\d+\b(?!\s*(?:%|seeds|runs))"
                              r"|\b(?:best|worst|first|last|single|one|a single)\s+(?:seed|run)\b(?!s)", re.I)
#: "its worst 98.06%" after a sentence's "best single seed": the seed left unsaid.
_ELLIPTIC_SEED = re.compile(r"\b(?:its|their|the)\s+(?:best|worst)\s*(?:(?:was|is|at|reached|of|:)\s*)?$",
                            re.I)
_NAMES_A_RUN = re.compile(r"\b(?:seed|run)\b", re.I)


def _one_run_named(text: str, doc: prose_module.Prose, tok: Token) -> bool:
    """A number its clause gives for one run ("The best single CNN seed (seed 1) reaches 99.17%,
    the worst (seed 0) 98.06%"): a per-seed value, which no claim states and none can bind."""
    seg = next((s for s in doc.segments if s.start <= tok.start < s.end), None)
    if seg is None:
        return False
    clause = _clause_start(text, seg.start, tok.start)
    return bool(_ONE_SEED_AFTER.match(text, tok.end) or _ONE_SEED_BEFORE.search(text, clause, tok.start)
                or (_NAMES_A_RUN.search(text, max(seg.start, tok.start - 120), tok.start)
                    and _ELLIPTIC_SEED.search(text, clause, tok.start)))


def _clause_start(text: str, lo: int, pos: int) -> int:
    """Where the clause holding ``pos`` starts: after the last ',', ';', ':' or contrast word."""
    marks = list(re.finditer(r"[,;:]\s|\b(?:but|while|whereas)\b", text[lo:pos]))
    return lo + marks[-1].end() if marks else lo


#: A sentence about single seeds: "seeds 0-4 give ...", "per seed", "each seed's".
_PER_SEED = re.compile(r"\bseeds?\s*\d+\s*(?:[-–—]|to)\s*\d+\b"
                       r"|\b(?:per|each|every|individual)[\s-]+seed(?:s|'s)?\b", re.I)
#: A list of per-seed values under its label, up to the end of the clause ("Seeds 0–4: 57.19, ...").
_SEEDS_LABEL = re.compile(r"\bseeds?\s*\d+\s*(?:[-–—]|to)\s*\d+\s*:[^;]*$", re.I)


#: A citation right before a ± term: "[98.7%](#claim:cnn_test_accuracy) ± 1.5 points".
_LINK_BEFORE_PM = re.compile(r"\]\(#claim:([\w.\-]+)\)[\s\u00a0]*(?:±|\+/-)[\s\u00a0]*$")


def _spread_named_alone(t: str, seg: prose_module.Segment, tok: Token) -> bool:
    """"The CNN's seed-to-seed SD is ± 1.6 points", "| Spread of the CNN (± 1 SD) | ± 1.6 |": a ±
    term after no value, named as a model's spread: checked as that model's SD (or SE)."""
    cell = seg.cell(tok.start)
    named = f"{cell.row if cell else ''} {t[seg.start : tok.start]}"
    return tok.role in ("sd", "se") or re.search(r"\bspread\b|\bvariab|seed-to-seed", named, re.I) is not None


def _plus_minus_of_last(t: str, tokens: list[Token], tok: Token) -> bool:
    """Whether the ± term ``tok`` directly follows the number before it ("57.2 ± 0.4")."""
    before = [x for x in tokens if x.end <= tok.start]
    return bool(before) and re.fullmatch(r"[\s\u00a0$%]*(?:±|\+/-|\\pm)?[\s\u00a0{]*",
                                         t[before[-1].end : tok.start]) is not None


#: Right before a number: it is an old value of the same quantity ("(was -15.8 in 1.1.0)").
_OLD_VALUE = re.compile(r"(?:\bwas|\bpreviously|\bformerly|\bused to be|\bhad been"
                        r"|\b(?:changed|down|up) from)"
                        r"\s*(?:about\s+|~\s*)?$", re.I)
#: After an old value: the other setting it was measured under ("was 23.1 with depth 3"), which makes
#: it another configuration's value, not an old copy of this one.
_OTHER_SETTING_AFTER = re.compile(r"\s*(?:%|points?|pp)?\s*(?:with|using|under|without|when|for|on)\b", re.I)


def _old_value(t: str, seg: prose_module.Segment, tok: Token) -> bool:
    """"-16.4 (was -15.8 in 1.1.0)": a number introduced as this quantity's earlier value."""
    return _OLD_VALUE.search(t, max(seg.start, tok.start - 24), tok.start) is not None \
        and not _OTHER_SETTING_AFTER.match(t, tok.end)


#: A sentence that opens with a possessive pronoun, up to the number, in one clause ("Its test RMSE is").
_ITS_BEFORE = re.compile(r"\W*(?:its|their)\b[^,;:()]*$", re.I)
#: A sentence that opens by pointing at the number before it: "That figure is averaged over ...".
_THAT_FIGURE = re.compile(r"\W*(?:that|this|the)\s+(?:figure|number|value|result|mean|average|estimate)\b"
                          r"|\W*(?:it|this)\s+(?:is|was)\s+(?:averaged|computed|measured|taken)\b", re.I)
#: The interval of what the sentence before stated: "Its interval, [0.2, 2.6]", "The CI is 0.2 to 2.6".
_ITS_INTERVAL = re.compile(r"\b(?:its|their|the|this)\s+(?:95\s*%\s+)?(?:CI|interval|confidence interval)\b",
                           re.I)
#: A sentence that opens with a label of its own, up to the number ("Interaction terms: +0.3"); not a
#: phrase of a setting ("With sixteen: 97%").
_HEAD_LABEL = re.compile(r"[\s*_>#-]*(?!(?:with|at|for|on|in|from|after|by|under|over|using|and|then)\b)"
                         r"[A-Za-z][\w-]*(?:\s+[\w-]+){0,3}\s*:\s*(?:about\s+|around\s+|~\s*|≈\s*)?", re.I)
#: A number's own label right before it: "(the mean target, 152.1)", "the target mean: 152.1".
_OWN_LABEL = re.compile(r"(?:^|[(\s])(?:the|a|an)\s+[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}\s*[,:=]\s*"
                        r"(?:about\s+|around\s+|~\s*|≈\s*)?$", re.I)


#: A sentence about made-up models or numbers: an exercise, an illustration, no result of ours.
_HYPOTHETICAL = re.compile(r"\b(?:fictional|fictitious|hypothetical|imaginary|made-up)\b"
                           r"|(?:^|(?<=[.!?:]\s))\s*(?:suppose|imagine|assume)\b", re.I)


def _variant_slip(t: str, seg: prose_module.Segment, tok: Token, claims: Sequence[ClaimQuantity],
                  mentions: list[Any]) -> Candidate | None:
    """"| Wide MLP (hand-entered) | 98.1% |": a claim's own value to its last digit, stated for a
    variant of its subject that no claim states the level of, where the claims show the variant's
    level differs at that precision (the wide MLP is 0.2 points above the MLP): the base's number
    under the variant's name, drift of the base's claim."""
    lo, hi = clause_of(t, seg, tok) if seg.kind != "row" else (seg.start, tok.start)
    # the clause's subjects, else the segment's before the number ("Wide MLP (hand-entered) | 98.1%")
    named = {m.subject for m in mentions if lo <= m.start and m.end <= max(hi, tok.start)} \
        or {m.subject for m in mentions if max(seg.start, tok.start - 40) <= m.start and m.end <= tok.start}
    if tok.role != "value" or tok.approximate or tok.bound or len(named) != 1:
        return None
    variant = next(iter(named))
    if any(not c.comparison and c.subjects and c.subjects[0][0] == variant for c in claims):
        return None  # the variant has a level claim of its own
    for gap in (c for c in claims if c.comparison and len(c.subjects) == 2
                and variant in {g[0] for g in c.subjects}):
        base = next(g[0] for g in gap.subjects if g[0] != variant)
        for level in (c for c in claims if not c.comparison and c.subjects and c.subjects[0][0] == base):
            value = level.quantity("value")
            difference = gap.quantity("value")
            if value is None or difference is None or tok.decimals < max(1, level.format.decimals):
                continue
            if abs(difference.format.scaled(difference.raw)) < half_unit(tok.decimals) \
                    or not level.accepts_quantity(value, tok.value, tok.decimals, fraction=False):
                continue  # the variant's level shows the same digits, or the number is not the base's
            why = f"stated for {variant} (but it is {base}'s value; {gap.id} shows {variant} differs)"
            return Candidate(level, value, False, (0.0,), (variant,), why)
    return None


_MEDIAN = re.compile(r"\b(?:(?P<median>medians?)|means?|average)\b", re.I)
_MEDIAN_AFTER = re.compile(r"[\s\u00a0]*(?:%|points?|pp)?[\s\u00a0]*(?:\(\s*medians?\b"
                           r"|,?\s*(?:is|was)\s+(?:the|its|their)\s+(?:[\w-]+(?:'s|’s)\s+)?medians?\b)", re.I)


def _median_named(t: str, seg: prose_module.Segment, tok: Token) -> bool:
    """Whether the number is named a median: in its clause before it ("MLP median 98.06%", "lower
    than the CNN median by 0.8 points") or right after it ("98.9% (median, not the mean)")."""
    marks = list(re.finditer(r"[,;]\s|\b(?:but|while|whereas)\b", t[seg.start : tok.start]))
    start = seg.start + marks[-1].end() if marks else seg.start  # a label before a ':' too
    named = [m.group("median") for m in _MEDIAN.finditer(t, start, tok.start)]
    # the statistic named last before it decides: "asked for the median: the mean is 98.9%" is a mean
    return bool(named and named[-1]) or _MEDIAN_AFTER.match(t, tok.end) is not None


_MINUS_BETWEEN = re.compile(r"[\s\u00a0]*(?:%|points?|pp)?[\s\u00a0]*(?:minus|[-−–])[\s\u00a0]*", re.I)


def _operands_alike(t: str, tokens: list[Token], chosen: list[Any]) -> list[Any]:
    """The two operands of a subtraction are quantities of one kind: "the MLP's edge is 55.9 minus
    57.2" subtracts two levels, so where one is read as a level, the other is no comparison's value
    (55.9 is the MLP's level, not a gap of 55.9), and neither is where both read as one comparison's
    value, unless it states that value (in "86.9 − 87.5", 87.5 is the CNN's gain and 86.9 another's)."""
    by_token = {id(tok): best for tok, best, _ in chosen}
    right = {id(tok) for tok, _, ok in chosen if ok}
    dropped: set[int] = set()
    for a, b in itertools.pairwise(tokens):
        if not _MINUS_BETWEEN.fullmatch(t, a.end, b.start) or b.signed:
            continue
        for one, other in ((a, b), (b, a)):
            mine, theirs = by_token.get(id(one)), by_token.get(id(other))
            if mine is None or not mine.claim.comparison:
                continue
            if theirs is None or not theirs.claim.comparison or (
                    theirs.claim.id == mine.claim.id and theirs.quantity.name == mine.quantity.name
                    and id(one) not in right):
                dropped.add(id(one))  # one comparison's value twice, "55.9 minus 57.2": two levels
    return [c for c in chosen if id(c[0]) not in dropped]


#: What joins a value to the interval right after it: "55.9 (54.9–56.9)", "55.9, 95% CI [54.9, 56.9]".
_INTERVAL_AFTER_VALUE = re.compile(r"[\s\u00a0]*(?:%|points?|pp)?[\s\u00a0]*[,;]?[\s\u00a0]*[(\[]?[\s\u00a0]*"
                                   r"(?:(?:95|90|99)\s*\\?%\s*)?(?:CI|confidence interval|interval)?"
                                   r"[\s\u00a0:=]*[(\[]?[\s\u00a0]*$", re.I)


def _of_unclaimed_value(t: str, tokens: list[Token], chosen: list[Any]) -> list[Any]:
    """The interval right after a value that no claim took is that value's, no claim's ("the MLP's
    test RMSE is 55.9 (54.9–56.9)": the MLP's level and its interval, where only linear has a claim)."""
    taken = {id(tok) for tok, _, _ in chosen}
    dropped: set[int] = set()
    for k, tok in enumerate(tokens):
        if tok.role != "ci_low" or k == 0:
            continue
        before = tokens[k - 1]
        if before.role == "value" and id(before) not in taken and not before.decoy \
                and _INTERVAL_AFTER_VALUE.match(t[before.end : tok.start]):
            dropped.add(id(tok))
            if k + 1 < len(tokens) and tokens[k + 1].role == "ci_high":
                dropped.add(id(tokens[k + 1]))
    return [c for c in chosen if id(c[0]) not in dropped]


#: Before a seed count in its clause: the authors ran it ("We ran", "the team tested ... over").
_WE_RAN = re.compile(r"\b(?:we|the\s+(?:team|authors|group|lab))\s+(?:\w+\s+)?(?:ran|trained|tested|evaluated"
                     r"|repeated|averaged|used)\b"
                     # "All results are evaluated over seven seeds", "Both models were tested with three"
                     r"|\b(?:all|both|every|each)\s+(?:(?:the|of\s+the|our)\s+)?(?:models?|results?|numbers?"
                     r"|variants?|networks?)\s+(?:are|were|is|was)\s+(?:\w+\s+)?(?:run|trained|tested|evaluated"
                     r"|averaged|measured|computed|repeated)\b", re.I)
#: Right after the count: seeds ("three random seeds", "3 seeds per model").
_SEEDS_NOUN = re.compile(r"[\s\u00a0]+(?:random\s+|training\s+|different\s+)?seeds\b", re.I)


#: "Each comparison in this appendix pairs four seeds per group": a count said of every comparison.
_EACH_COMPARISON = re.compile(r"\b(?:each|every|all)\s+(?:(?:of\s+)?the\s+|our\s+)?(?:pairwise\s+)?"
                              r"comparisons?\b", re.I)
#: "Both models were tested with three random seeds": a count said of the two sides compared.
_BOTH_SIDES = re.compile(r"\bboth\s+(?:models|networks|variants|methods|sides|groups)\b", re.I)


def _run_by_every_result(tok: Token, claims: Sequence[ClaimQuantity],
                         context: Sequence[Any], compared: bool = False) -> ClaimQuantity | None:
    """The result a seed count that names no model contradicts: where every claim was run with one
    number of seeds and the count is another, the first level of a subject the sentence before
    names, else the first level (the headline result); None where the count agrees. ``compared``:
    the count is said of comparisons ("each comparison", "both models"): the comparison of the
    sentence before's subjects, else the first comparison."""
    counts = {c.n for c in claims if c.n is not None}
    levels = [c for c in claims if not c.comparison and c.subjects and c.n is not None]
    if len(counts) != 1 or not levels or tok.value in counts or tok.decoy:
        return None
    about = {m.subject for m in context}
    pairs = [c for c in claims if c.comparison and c.subjects and c.n is not None]
    if compared and pairs:
        return max(pairs, key=lambda c: sum(g[0] in about for g in c.subjects))
    return next((c for c in levels if c.subjects[0][0] in about), levels[0])


#: A row or column label that names which quantity its cells state ("| mlp_beats_linear, P(better) |
#: 0.96 |" (:data:`PROBABILITY_NAMED`), "| Seeds needed | 26 |", "| n (seeds) | 5 |").
_NEEDED_LABEL = re.compile(r"\bseeds?\s+(?:per\s+(?:group|model|arm)\s+)?(?:needed|required|to\s+settle)\b",
                           re.I)
_N_LABEL = re.compile(r"^\W*(?:n|seeds|runs|#\s*seeds|number of (?:seeds|runs))\b(?!\s*(?:needed|required))",
                      re.I)


_ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: Where a row's label ends: the first cell that opens with a number.
_FIRST_NUMBER_CELL = re.compile(r"[|&]\s*[-−+]?\d")
#: A table row that says its own number is wrong: an audit's "[!] typo in the draft".
_ROW_REFUTED = re.compile(r"\b(?:typo|transposed(?:\s+digits)?|misprint|decimal slip|copy-paste error)\b"
                          r"|\[!\][^|&\n]*\b(?:stale|wrong|outdated|mistake|error)\b", re.I)


def _cell_role(t: str, seg: prose_module.Segment, tok: Token) -> None:
    """A table cell's number takes the quantity its row or column label names: "P(better)" in
    the row "| B4 | mlp_beats_linear, P(better) | 0.69 |" makes its 0.69 a probability, not the
    difference (the row's label: its cells before the first one with a number)."""
    cell = seg.cell(tok.start)
    if cell is None or tok.role != "value" or tok.decoy:
        return
    before = t[seg.start : cell.start]
    row_label = _FIRST_NUMBER_CELL.split(before, maxsplit=1)[0]
    # a count is the cell's one number, or one per side alike ("3 + 3"); "5 and 2 seeds" under "n"
    # are two sides' unequal counts, no one n of the claim
    alone = len(set(map(float, _ANY_NUMBER.findall(t, cell.start, cell.end)))) == 1
    for label in (row_label, cell.column):
        if not label:
            continue
        if PROBABILITY_NAMED.search(label) and (tok.unit == "%" or (not tok.unit and 0 <= tok.value <= 1)):
            tok.role = "prob_better"
        elif _NEEDED_LABEL.search(label) and alone and not tok.unit and tok.decimals == 0:
            tok.role = "seeds_needed"
        elif _N_LABEL.search(label) and alone and not tok.unit and tok.decimals == 0 and not tok.signed:
            tok.role = "n"
        else:
            continue
        return


_SIUNITX_PERCENT = re.compile(r"\}\{\\percent$")


def _as_written(text: str, tok: Token) -> str:
    r"""A number as a finding shows it: its text, with siunitx's ``\SI{97.2}{\percent}`` shown
    as ``97.2%`` (the token ends inside the macro's arguments)."""
    return _SIUNITX_PERCENT.sub("%", text[tok.start : tok.end].strip())


def _segment_findings(file: str, text: str, t: str, seg: prose_module.Segment, tokens: list[Token],
                      claims: Sequence[ClaimQuantity], mentions: list[Any],
                      starts: list[int], context: Sequence[Any] = (),
                      context_span: tuple[int, int] = (0, 0),
                      stated_before: Sequence[str] = ()) -> list[Finding]:
    """The numbers of one segment, each attributed to a claim. ``context``: the subjects of the
    sentence before and of the section's heading ("Its test RMSE is ..."): a number that names no
    claim's words of its own is read with them, and where words tie, they break the tie.
    ``stated_before``: the claims whose values the last sentence stating one stated ("Its interval,
    [0.2, 2.6], excludes zero" after "The MLP lowers test RMSE by 1.3")."""
    citations = [m.span() for m in _CITATION.finditer(text, seg.start, seg.end)
                 # a LaTeX command's optional argument ("\\question[5]", "\\item[3]") cites nothing
                 if not (text[m.start()] == "["
                         and _COMMAND_BEFORE.search(text, max(0, m.start() - 40), m.start()))]
    if citations or _REPORTED.search(text, seg.start, seg.end) \
            or _PRIOR_WORK.search(text, seg.start, seg.end):
        tokens = [tok for tok in tokens if not _cited_number(text, seg, tok, citations)]
    if _HYPOTHETICAL.search(text, seg.start, seg.end):
        return []  # "Two fictional models score 90.0% and 91.5%": an exercise's numbers, no claim's
    if seg.kind == "row" and _ROW_REFUTED.search(text, seg.start, seg.end):
        return []  # "| B4 | P(better) | 0.69 | 0.96 | [!] transposed digits in the draft |": flagged
    if seg.kind == "row" and _ONE_SEED.search(text, seg.start, seg.end):
        return []  # a table row of one seed ("linear, seed 3 & 57.20"): a run's values, no claim's
    if seg.kind == "row":
        tokens = [tok for tok in tokens if not _not_our_mean(t, seg.cell(tok.start))]
    tokens = [tok for tok in tokens if not _ONE_SEED_AFTER.match(text, tok.end)  # "56.98 (seed 4)"
              and not _SEEDS_LABEL.search(text, seg.start, tok.start)  # "Seeds 0–4: 57.19, 57.37"
              and not (tok.role == "value" and _ONE_SEED_BEFORE.search(  # "Seed 3 of the CNN reached 99.2%"
                  text, _clause_start(text, seg.start, tok.start), tok.start))
              and not (tok.role == "value" and _NAMES_A_RUN.search(text, max(0, tok.start - 120), tok.start)
                       and _ELLIPTIC_SEED.search(text, _clause_start(text, seg.start, tok.start), tok.start))]
    if _PER_SEED.search(text, seg.start, seg.end) and sum(tok.role == "value" for tok in tokens) >= 3:
        # "Seeds 0–4 give RMSEs of 57.19, 57.37, 57.05, 57.30 and 57.11": one value per seed
        tokens = [tok for tok in tokens if tok.role != "value"]
    if seg.kind == "row":
        for tok in tokens:
            _cell_role(t, seg, tok)
    order = respectively_order(t, seg, tokens, mentions)
    chosen: list[tuple[Token, Any, bool]] = []
    stated: str | None = None  # the claim whose value was stated last: an interval after it is its
    stated_at = -1  # where that value stands
    for tok in tokens:
        splits = {c.id: c.split for c in claims}
        options = candidates(t, seg, tok, claims, mentions, splits, order)
        if not options and len(stated_before) == 1 and not mentions and seg.kind != "row" \
                and ((tok.role in ("ci_low", "ci_high", "ci_end")
                      and _ITS_INTERVAL.search(t, seg.start, tok.start))
                     or (tok.role == "n" and _THAT_FIGURE.match(t, seg.start, tok.start))):
            # "Its interval, [0.2, 2.6], ...", "That figure is averaged over four seeds": the claim
            # whose value the sentence before stated
            claim = next(c for c in claims if c.id == stated_before[0])
            named_there = [Mention(seg.start, seg.start, g[0], g[0]) for g in claim.subjects]
            options = candidates(t, seg, tok, [claim], named_there, splits, order)
        clause_at = _clause_start(t, seg.start, tok.start)
        compared = _EACH_COMPARISON.search(t, clause_at, tok.start) is not None \
            or _BOTH_SIDES.search(t, clause_at, tok.start) is not None
        if not options and tok.role == "n" and not mentions and seg.kind != "row" \
                and (_WE_RAN.search(t, clause_at, tok.start) or compared) \
                and _SEEDS_NOUN.match(t, tok.end) \
                and (every := _run_by_every_result(tok, claims, context, compared)) is not None:
            # "We ran three seeds per model": a count of seeds said of no model is every result's
            named_there = [Mention(seg.start, seg.start, g[0], g[0]) for g in every.subjects]
            options = candidates(t, seg, tok, [every], named_there, splits, order)
        if tok.role == "ci_high" and chosen and chosen[-1][0].role == "ci_low" \
                and chosen[-1][0] is tokens[tokens.index(tok) - 1]:
            # an interval's upper end is the claim of its lower end ("the interval of the MLP's
            # improvement runs from 0.2 to 4.5": 4.5 is no other claim's, however near)
            low = chosen[-1][1].claim
            named_there = [Mention(seg.start, seg.start, g[0], g[0]) for g in low.subjects]
            options = candidates(t, seg, tok, [low], named_there, splits, order) or options
        # an interval or a P(better) after a value is that value's claim's, the value typed or
        # cited ("its lead is [+0.6 points](#claim:...) with a lower CI end of -0.6 points")
        cited = [m.group(2) for m in BOUND_RE.finditer(text, seg.start, tok.start)]
        last = stated if stated is not None else (cited[-1] if cited else None)
        follows = tok.role in ("ci_low", "ci_high", "ci_end", "prob_better") \
            and any(c.claim.id == last for c in options)
        if tok.role == "value" and stated is not None and any(c.claim.id == stated for c in options) \
                and _old_value(t, seg, tok):
            options = [c for c in options if c.claim.id == stated]  # "9.17 (was 8.40)": the same claim's
        if tok.role in ("spread", "sd", "se"):  # "57.2 ± 0.4": the spread of the value before it, or nothing
            # (of a value the claim was read from: "the control's 73.6 ± 5.0" is no claim's)
            after_value = _plus_minus_of_last(t, tokens, tok) \
                and max((x.start for x in tokens if x.end <= tok.start), default=-1) == stated_at
            options = [c for c in options if c.claim.id == stated and after_value] if after_value \
                or not _spread_named_alone(t, seg, tok) else [c for c in options if not c.claim.comparison]
            if re.search(r"\bseeds?\b|seed-to-seed", t[max(seg.start, tok.start - 60) : tok.end + 40], re.I):
                options = [c for c in options if not c.claim.comparison]  # a spread over seeds is a
                # model's, no comparison's ("the control's 73.6 ± 5.0 over seeds")
            linked = _LINK_BEFORE_PM.search(text, seg.start, tok.start)  # "[98.7%](#claim:x) ± 1.5"
            owner_id = linked.group(1) if linked else stated if after_value else None
            valued = next((c for c in claims if c.id == owner_id), None)
            if not options and tok.role == "spread" and valued is not None \
                    and (half := valued.quantity("ci_half")) is not None \
                    and abs(tok.value) > 1.5 * max(q.format.scaled(q.raw) for q in valued.spreads()) \
                    + half_unit(tok.decimals):
                # "57.2 ± 1.2" where the interval is [57.0, 57.4]: a ± term well beyond the half-width,
                # the seeds' SD and the standard error is checked as the half-width, and drifts
                options = [Candidate(valued, half, False, (1.0, 0, 0, tok.start), (), "")]
        if not options and context and seg.kind != "row" \
                and (not tok.word or tok.role == "seeds_needed" or tok.signed) \
                and tok.role not in ("n", "spread", "sd", "se") \
                and not _subject_just_before(t, seg, tok, mentions) \
                and (not mentions or not tok.integer):
            # with the subjects before it; where the segment names its own, a claim keeps one of
            # them, and the number has the shape of a result (not "within 2 points")
            own = {m.subject for m in mentions}
            widened = [c for c in candidates(t, seg, tok, claims, [*mentions, *context], splits, order)
                       # "... on the validation split? No: 52.5 vs 53.0 RMSE": its split comes along
                       if not split_only_foreign(t, *context_span, c.claim)]
            options = [c for c in widened if not own or any(g[0] in own for g in c.claim.subjects)]
            if not options and own and not tok.integer and difference_shaped(t, seg, tok):
                # no claim of its own words fits the number at all ("the improvement is 7.9, small
                # next to the 40.1 gained over the control"): the sentence before's, where it fits
                options = [c for c in widened if c.key[0] == 0 and c.claim.comparison
                           and not any(g[0] in own for g in c.claim.subjects)]
        elif options and options[0].key[0] > 0 and context and seg.kind != "row" and not tok.word \
                and not follows \
                and _one_side_named(options[0].claim, mentions):
            # the segment's own words name a claim the number is far from in size ("the improvement
            # is 1.3, small next to the 16.4 gained over the control" after a sentence on MLP vs
            # linear): the claim of the sentence before, where it fits in size, is the one meant
            fitting = [c for c in candidates(t, seg, tok, claims, [*mentions, *context], splits, order)
                       if c.key[0] == 0]
            options = fitting or options
        if options and context and seg.kind != "row" and _ITS_BEFORE.match(t, seg.start, tok.start) \
                and not any(seg.start <= m.start < tok.start for m in mentions):
            # "We also trained on shuffled targets. Its test RMSE is 73.6, so the real linear model
            # is 16.4 lower": "its" is the subject of the sentence before, not one named after
            owner = {m.subject for m in context}
            options = [c for c in options if c.claim.comparison
                       or any(g[0] in owner for g in c.claim.subjects)]
        if options and not mentions and context and seg.kind != "row" and tok.role == "value":
            # "Chance-level prediction (the mean target, 152.1) would give ...": a number labelled by
            # its own words is theirs, not the claim of the sentence before, unless they name its metric
            label = _OWN_LABEL.search(t, max(seg.start, tok.start - 60), tok.start) \
                or _HEAD_LABEL.fullmatch(t, seg.start, tok.start)  # "Interaction terms: +0.3 RMSE worse"
            if label is not None:
                options = [c for c in options if any(word_regex(w).search(t, seg.start, tok.start)
                                                     for w in (*c.claim.metric, *c.claim.keywords))]
        if options and _median_named(t, seg, tok):
            # "Median CNN seed: 98.9%", "lower than the CNN median by 0.8 points": a median, no mean's
            options = [c for c in options
                       if any("median" in w.lower() for w in (*c.claim.keywords, *c.claim.metric))]
        if tok.unit == "%":  # an RMSE of 57.2 is no percentage: "22 %" beside it states something
            # else; "57.2%" (its digits with a wrong unit) stays its drift
            options = [c for c in options if not _units_not_percent(c.claim, c.quantity)
                       or c.claim.accepts_quantity(c.quantity, tok.value, tok.decimals)]
        if not options and tok.unit == "%" and tok.role == "value":
            options = _relative_change(t, seg, tok, claims, mentions, context)
        if not options and (slip := _variant_slip(t, seg, tok, claims, mentions)) is not None:
            options = [slip]  # "| Wide MLP | 98.1% |": the MLP's own value under its variant's name
        if not options:
            continue
        if tok.role == "seeds_needed" and len({c.claim.id for c in options}) > 1:
            # "settling CNN vs MLP takes about 10 seeds per group, and the width comparison about
            # 26": each estimate is of the comparison its own clause names
            clause = _clause_start(t, seg.start, tok.start)
            here = {m.subject for m in mentions if clause <= m.start < tok.start}
            if here:
                options = sorted(options, key=lambda c: -len(here & {g[0] for g in c.claim.subjects}))
        if tok.role == "value" and tok.signed and _DIRECTION_AFTER.match(t, tok.end):
            # "+0.3 RMSE worse": a signed change with its direction is a difference, no one's level
            options = [c for c in options if c.claim.comparison]
            if not options:
                continue
        if tok.role == "value" and _DIRECTION_AFTER.match(t, tok.end) \
                and any(c.quantity.name == "value" for c in options):
            # "the MLP's error is 2.5 lower on average": a difference with its direction is the
            # comparison's value, not an end of its interval that happens to equal it
            options = [c for c in options if c.quantity.name == "value"]
        if (first_named := _its_own_subject(t, tok, claims)) is not None:
            # "...; its own RMSE, 73.6": the level of the sentence's first subject, or no claim's
            options = [c for c in options if not c.claim.comparison
                       and any(g[0] == first_named for g in c.claim.subjects)]
            if not options:
                continue
        if (flipped := _reversed_probability(t, seg, tok, mentions, claims)) is not None:
            options = [flipped]  # "P(MLP better than CNN) is 0.84": the complement of P(CNN better)
        if tok.signed:
            options = [_reversed(c, t, seg, mentions, tok, claims) for c in options]
        if tok.role in ("ci_low", "ci_high", "ci_end", "prob_better") and last is not None:
            options = sorted(options, key=lambda c: c.claim.id != last)
        # where the words cannot tell two claims apart, the one the number agrees with, else the
        # one it is nearest to
        tied = [c for c in options if c.key[:3] == options[0].key[:3]]
        best = next((c for c in tied if _accepts(c, tok)), None)
        if best is None:
            if context and seg.kind != "row":  # the claim of the subjects the text is about
                about = {m.subject for m in [*mentions, *context]}  # ("P(CNN better)" under "CNN vs MLP")
                top = max(sum(g[0] in about for g in c.claim.subjects) for c in tied)
                tied = [c for c in tied if sum(g[0] in about for g in c.claim.subjects) == top]
            best = min(tied, key=lambda c: _distance_to(c, tok))
        if _owned_by_other(t, seg, tok, mentions, best.claim):
            continue  # "the MLP's own interval ([54.7, 57.0]) nearly touches linear's": the MLP's
        ok = _accepts(best, tok)
        chosen.append((tok, best, ok))
        chosen += [(tok, c, _accepts(c, tok)) for c in _shared_by_pairs(t, seg, tok, best, claims, mentions)]
        if tok.role == "value":
            stated, stated_at = best.claim.id, tok.start
    chosen = _of_unclaimed_value(t, tokens, chosen)
    chosen = _operands_alike(t, tokens, chosen)
    chosen = _budget_checked(t, seg, chosen, text)
    chosen = [_unit_checked(tok, best, ok) for tok, best, ok in chosen]
    chosen = [_direction_checked(t, seg, mentions, tok, best, ok) for tok, best, ok in chosen]
    chosen = [_complement_checked(t, seg, mentions, tok, best, ok) for tok, best, ok in chosen]
    chosen = [c for c in (_level_checked(t, seg, tok, best, ok) for tok, best, ok in chosen) if c is not None]
    correct = {(c.claim.id, c.quantity.name) for _, c, ok in chosen if ok}
    drifted: set[tuple[str, str]] = set()
    out = []
    for tok, best, ok in chosen:
        key = (best.claim.id, best.quantity.name)
        if not ok and seg.kind != "row":
            old = _old_value(t, seg, tok)
            if (key in correct and not _accepts(best, tok) and not old) \
                    or key in drifted:
                continue  # a baseline beside the right one (not the right size with the wrong
                # direction: "-16.4 means linear is 16.4 higher than the control"; nor an old value
                # quoted: "-16.4 (was -15.8 in 1.1.0)" is a stale copy, drift unless waived)
            drifted.add(key)
        line, col = _line_col(starts, tok.start)
        claim, quantity = best.claim, _oriented(best.claim, best.quantity, tok)
        expected = _expected(claim, quantity, best.fraction)
        stated = _as_written(text, tok)
        words = ", ".join(f"'{w}'" for w in best.words) or "its words"
        where = "row" if seg.kind == "row" else "sentence"
        what = _QUANTITY_WORDS[quantity.name]
        kind = "match" if ok else "drift"
        why = (f"the {where} names {words}, so {stated} reads as {claim.id}'s {what}"
               f"{' (as a fraction)' if best.fraction else ''}: expected {expected}, stated {stated}")
        if tok.bound:
            why += f" (a bound: the evidence must lie {'above' if tok.bound == '>' else 'below'} it)"
        if ok and quantity.form == "measure" and not tok.bound and quantity.name not in ("sd", "se"):
            supported = _significant(claim.supported_decimals(), quantity)
            shown = _stated_decimals(tok, best.fraction)
            if supported is not None and shown > supported:
                kind = "overstated_precision"
                why = (f"{stated} shows {shown} decimal(s) but {claim.id}'s 95% interval "
                       f"{_expected(claim, claim.quantity('ci_low') or quantity, best.fraction)} .. "
                       f"{_expected(claim, claim.quantity('ci_high') or quantity, best.fraction)} supports "
                       f"{supported}: write {_expected(claim, quantity, best.fraction)}")
        elif not ok and quantity.form == "measure":
            supported = claim.supported_decimals()
            if supported is not None and tok.decimals > supported:
                why += f"; it also shows more decimals than the interval supports ({supported})"
        out.append(Finding(file, line, col, claim.id, stated, tok.value, expected, kind, why=why,
                           quantity=quantity.name, limit=tok.bound))
    return out


#: An explicit citation of a claim in Markdown that reads well on GitHub: ``[98.6%](#claim:id)``.
#: ``[98.7%](#claim:id)``; the text may hold one bracketed interval: ``[[−0.006, +1.1] points](#claim:id)``.
BOUND_RE = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]{0,40}\]){1,80})\]\(#claim:([A-Za-z0-9_.\-]+)\)")
_LINK_NUMBER = r"([-−+]?\d+(?:\.\d+)?)\s*(\\?%|percent|per cent|points?\b|pp\b|pts?\b)?"
_BOUND_NUMBER = re.compile(r"^\s*" + _LINK_NUMBER + r"\s*$", re.I)
#: A number of a link text that states more than one ("[0.84 (95% CI 0.47 to 0.97)](#claim:x)").
_LABEL_NUMBER = re.compile(r"(?<![\w.])" + _LINK_NUMBER, re.I)


def _blank_bound(prose: str, plain: str) -> str:
    """``plain`` (decoys masked) with every ``[x](#claim:id)`` of the prose blanked as well."""
    if "#claim:" not in prose:
        return plain
    chars = list(plain)
    for m in BOUND_RE.finditer(prose):
        chars[m.start() : m.end()] = " " * (m.end() - m.start())
    return "".join(chars)


def _bound_quantity(claim: ClaimQuantity, digits: str, value: float, decimals: int,
                    has_unit: bool) -> tuple[Quantity | None, bool]:
    """Which of a claim's quantities a cited number states, and whether as a fraction; (None,
    ...) when none. A link may cite any of them: the value, an interval end, P(better), n, the
    seeds-needed estimate. A percentage written without its sign ("[11.2](#claim:control)")
    is read as shown or as a fraction (0.112), as is a difference in points ("[0.869](#claim:
    mlp_beats_control)" for +86.9 points), and an unsigned difference as its size: "beats
    the control by [16.4](#claim:linear_beats_control)" cites a difference of -16.4 RMSE."""
    signed = digits.lstrip()[:1] in "+-−"
    # a percentage or a difference in points without its unit may be cited as its fraction
    readings = [False, True] if (claim.format.percent or claim.points) and not has_unit else [False]
    for quantity in claim.quantities():
        if quantity.form == "count" and (decimals or has_unit):
            continue
        for fraction in ([not has_unit] if quantity.form == "probability" else readings):
            if fraction and quantity.form == "measure" and not decimals:
                continue  # "[1]" shows no fraction's digits: never 0.875 (+87.5 points) rounded
            values = [value] if signed or quantity.form != "measure" or not claim.comparison \
                else [value, -value]
            if any(claim.accepts_quantity(quantity, v, decimals, fraction=fraction) for v in values):
                return quantity, fraction
    return None, (claim.format.percent or claim.points) and not has_unit


def _bound_findings(file: str, text: str, doc: prose_module.Prose, plain: str, masked: str,
                    claims: Sequence[ClaimQuantity], starts: list[int]) -> list[Finding]:
    """Findings of the numbers cited explicitly (checked against their claim at the precision they
    state, as its value or an interval bound); an unknown claim id, a link text that is not one
    number, or a sentence that names another subject and none of the claim's, is drift."""
    by_id = {c.id: c for c in claims}
    findings = []
    for m in BOUND_RE.finditer(text):
        if plain[m.start() : m.start() + 1] != "[":
            continue  # in code, a comment or an HTML block: not a citation
        label, claim_id = m.group(1), m.group(2)
        line, col = _line_col(starts, m.start())
        claim = by_id.get(claim_id)
        number = _BOUND_NUMBER.match(label)
        if claim is None:
            finding = Finding(file, line, col, claim_id, label, math.nan, "(no such claim)", "drift",
                              bound=True, why="cites a claim id that EVIDENCE.json does not declare")
        elif number is None:
            finding = _label_finding(file, line, col, claim, label)
            other = _other_subject(masked, doc, m.start(), claim, claims) if finding.kind == "match" else None
            finding = replace(finding, kind="drift", why=other) if other else finding
        else:
            value = float(number.group(1).replace("−", "-"))
            decimals = len(number.group(1).partition(".")[2])
            hit, fraction = _bound_quantity(claim, number.group(1), value, decimals, bool(number.group(2)))
            quantity = hit or claim.quantities()[0]
            expected = _expected(claim, quantity, False)
            finding = Finding(file, line, col, claim_id, label.strip(), value, expected,
                              "match" if hit else "drift", bound=True, quantity=quantity.name,
                              why="cited explicitly" if hit else
                              f"cited explicitly as {claim_id}: expected {expected}, stated {label.strip()}")
            other = _other_subject(masked, doc, m.start(), claim, claims)
            supported = _significant(claim.supported_decimals(), hit) if hit else claim.supported_decimals()
            shown = decimals - 2 if fraction else decimals
            if hit and other:
                finding = replace(finding, kind="drift", why=other)
            elif hit and hit.form == "measure" and supported is not None and shown > supported:
                finding = replace(finding, kind="overstated_precision", why=(
                    f"{label.strip()} shows {shown} decimal(s) but {claim_id}'s 95% interval supports "
                    f"{supported}: write {expected}"))
        findings.append(finding)
    return findings


def _label_finding(file: str, line: int, col: int, claim: ClaimQuantity, label: str) -> Finding:
    """A link text that states several of its claim's numbers, or one among words: "[[−0.006,
    +1.1] points](#claim:x)", "[0.84 (Newcombe 95% CI 0.47 to 0.97)](#claim:x)", "[about 10
    seeds per group](#claim:x)". Every number must be one of the claim's quantities (a unit
    written once covers the interval it ends); a confidence level (:data:`_STATED_LEVEL`) is
    not a number of the claim."""
    blanked = _STATED_LEVEL.sub(lambda m: " " * len(m.group(0)), label)
    numbers = [(m.group(1), bool(m.group(2))) for m in _LABEL_NUMBER.finditer(blanked)]
    if not numbers:
        return Finding(file, line, col, claim.id, label, math.nan, claim.expected, "drift",
                       bound=True, why="the link text states no number")
    unit = any(has for _, has in numbers)
    hits = []
    for digits, _ in numbers:
        value = float(digits.replace("−", "-"))
        hit, _fraction = _bound_quantity(claim, digits, value, len(digits.partition(".")[2]), unit)
        if hit is None:
            return Finding(file, line, col, claim.id, label.strip(), value, claim.expected, "drift",
                           bound=True, why=f"cited explicitly as {claim.id}: {digits} in "
                           f"{label.strip()!r} is none of its numbers (value {claim.expected})")
        hits.append(hit)
    return Finding(file, line, col, claim.id, label.strip(), float(numbers[0][0].replace("−", "-")),
                   _expected(claim, hits[0], False), "match", bound=True, quantity=hits[0].name,
                   why="cited explicitly")


#: A claim cited by a paper template's helpers: ``{{ claim("id") }}``, ``ci``, ``n``, ``statement``.
_JINJA_BINDING = re.compile(r"\{\{[^}]*?\b(?:claim|ci|n|statement)\(\s*[\"']([\w.\-]+)[\"'][^}]*\}\}")


def _binding_findings(file: str, text: str, doc: prose_module.Prose, masked: str,
                      claims: Sequence[ClaimQuantity], starts: list[int]) -> list[Finding]:
    """A template helper or a claims.tex macro whose sentence names another claim's subject and
    none of its own: the binding is right by construction, its place in the prose is not."""
    from evidence.deliver.texnames import cited_macros, macro_index

    by_id = {c.id: c for c in claims}
    bindings: list[tuple[int, int, str]] = []
    if prose_module.is_template(file):
        bindings += [(m.start(), m.end(), m.group(1)) for m in _JINJA_BINDING.finditer(text)]
    if prose_module.dialect(file) == "tex":
        index = macro_index(list(by_id))
        bindings += [(pos, pos + len(name) + 1, index[name][0]) for pos, name in cited_macros(text)
                     if name in index and index[name][1] in ("", "Low", "High", "Interval")]
    plain = mask_decoys(doc.masked)  # cached: the text scan_text masked
    bindings += [(m.start(), m.end(), m.group(2)) for m in BOUND_RE.finditer(text)
                 if plain[m.start() : m.start() + 1] == "[" and m.group(2) in by_id]
    findings = []
    swapped = _respectively_swaps(masked, doc, sorted(bindings), by_id, claims)
    for start, end, claim_id in bindings:
        claim = by_id.get(claim_id)
        if claim is None:
            continue  # an unknown id fails rendering (Jinja) or compiling (LaTeX), by name
        owner = _possessor(masked, doc, start, claim, claims) or _level_cited_as_comparison(
            masked, doc, start, claim, claims)
        if owner is not None:
            line, col = _line_col(starts, start)
            findings.append(Finding(file, line, col, owner.id, text[start:end], math.nan, owner.expected,
                                    "drift", bound=True, why=(
                                        f"cited as {claim.id}, but the sentence gives it as "
                                        f"{owner.subjects[0][0]}'s: {owner.id} is {owner.expected}")))
            # and the citation itself is misplaced: its claim is not what the sentence states there
            findings.append(Finding(file, line, col, claim.id, text[start:end], math.nan, claim.expected,
                                    "drift", bound=True, why=(
                                        f"{claim.id} is cited where the sentence states "
                                        f"{owner.subjects[0][0]}'s result: the citation is misplaced")))
            continue
        other = _other_subject(masked, doc, start, claim, claims)
        after = _subject_after(masked, end, claim, claims) \
            or _other_in_clause(masked, doc, start, claim, claims) \
            or _other_comparison_named(masked, doc, start, claim, claims)  # (why, the claim meant)
        other = other or swapped.get(start) or _other_pair(masked, doc, start, claim, claims, bindings) \
            or (after[0] if after else None)
        seg = next((g for g in doc.segments if g.start <= start < g.end), None)
        if not other and seg is not None and claim.split \
                and (named := split_misnamed_before(masked, seg.start, start, claim)) is not None:
            other = (f"{claim.id} is measured on the {claim.split} split, but the sentence gives it as "
                     f"the '{named}' split's {claim.metric[0]}")
        if other:
            line, col = _line_col(starts, start)
            findings.append(Finding(file, line, col, claim_id, text[start:end], math.nan, claim.expected,
                                    "drift", bound=True, why=other))
            meant = after[1] if after else _meant_claim(masked, doc, start, claim, claims)
            if meant is not None:  # the claim whose subjects the sentence names: its result is missing
                about = " vs ".join(g[0] for g in meant.subjects)
                findings.append(Finding(file, line, col, meant.id, text[start:end], math.nan, meant.expected,
                                        "drift", bound=True, why=(
                                            f"the sentence is about {about} ({meant.id}, {meant.expected}) "
                                            f"but cites {claim.id}")))
    return findings


#: Right after a citation: the subject it is given for ("{{ claim('x') }} for the MLP").
_FOR_SUBJECT = re.compile(r"[\s)]*,?\s*(?:for|of)\s+(?:the\s+)?(?=\w)", re.I)


def _subject_after(masked: str, end: int, claim: ClaimQuantity,
                   claims: Sequence[ClaimQuantity]) -> tuple[str, ClaimQuantity | None] | None:
    """A citation given "for" a subject that is not one of its claim's ("The sanity checks give
    {{ claim('cnn_beats_control') }} for the MLP"): why it is misplaced, and the claim of the same
    kind that swaps the named subject in (mlp_beats_control), where there is exactly one."""
    m = _FOR_SUBJECT.match(masked, end)
    if m is None or not claim.subjects:
        return None
    named = next((x for x in subject_mentions(masked, m.end(), min(len(masked), m.end() + 40), claims)
                  if x.start == m.end()), None)
    own = {g[0] for g in claim.subjects}
    if named is None or named.subject in own:
        return None
    kept = own - {claim.subjects[0][0]} if claim.comparison else set()
    fits = [c for c in claims if c.comparison == claim.comparison and c.subjects
            and c.subjects[0][0] == named.subject and {g[0] for g in c.subjects[1:]} == kept]
    why = f"cited as {claim.id}, but given for '{named.words}', not for {claim.subjects[0][0]}"
    return why, (fits[0] if len(fits) == 1 else None)


def _other_in_clause(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
                     claims: Sequence[ClaimQuantity]) -> tuple[str, ClaimQuantity | None] | None:
    """A model's result cited in a clause that names only another model, right before it: "the
    CNN reaches \\evCnnTestAccuracy{}, the MLP \\evCnnTestAccuracy{}" (the second is misplaced).
    Why, and that other model's one result of the same kind (what the clause meant to cite)."""
    if claim.comparison or len(claim.subjects) != 1:
        return None
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None:
        return None
    if re.search(r"\brespectively\b", masked[seg.start : seg.end], re.I):
        return None  # a list's items are placed by the list (_respectively_swaps)
    breaks = [m.end() for m in re.finditer(r"[,;:(]", masked[seg.start : pos])]
    if not breaks:
        return None  # the whole sentence: _other_subject's case
    mentions = subject_mentions(masked, seg.start + breaks[-1], pos, claims)
    own = claim.subjects[0][0]
    others = {m.subject for m in mentions} - {own}
    levels = [c for c in claims if not c.comparison and c.subjects and c.subjects[0][0] in others]
    if len(others) != 1 or any(m.subject == own for m in mentions) or not levels:
        return None
    meant = [c for c in levels if c.format.percent == claim.format.percent and c.split == claim.split]
    return (f"cited as {claim.id}, but its clause names {next(iter(others))} and not {own}: "
            "another model's result"), (meant[0] if len(meant) == 1 else None)


#: Between two subjects: words that compare them ("the wide MLP adds ... over the default one");
#: narrower than attribution's DIFF_CUE, whose "by" or "higher" a list of two subjects also holds.
_COMPARED_BETWEEN = re.compile(r"\b(?:over|than|vs|versus|against|compared|relative to|beats?|outperforms?"
                               r"|trails?|ahead of|behind)\b", re.I)


def _other_comparison_named(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
                            claims: Sequence[ClaimQuantity]) -> tuple[str, ClaimQuantity] | None:
    """A comparison cited in a sentence that names both sides of another comparison and not one
    of its own ("The wide MLP adds [+0.6 points](#claim:cnn_beats_mlp) over the default one": the
    sentence compares the wide MLP with the MLP). Why, and the comparison the sentence names."""
    if not claim.comparison or len(claim.subjects) != 2:
        return None
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None:
        return None
    mentions = subject_mentions(masked, seg.start, seg.end, claims)
    named = {m.subject for m in mentions}
    own = {g[0] for g in claim.subjects}
    if own <= named:
        return None
    fits = [c for c in claims if c.comparison and c.id != claim.id and len(c.subjects) == 2
            and {g[0] for g in c.subjects} <= named and c.points == claim.points]
    if len(fits) != 1:
        return None
    pair = {g[0] for g in fits[0].subjects}
    first = next(m for m in mentions if m.subject in pair)
    second = next(m for m in mentions if m.subject in pair and m.subject != first.subject)
    if not _COMPARED_BETWEEN.search(masked, first.end, second.start):
        return None  # "Both the MLP and the CNN beat it, by ...": listed, not compared
    return (f"cited as {claim.id} ({' vs '.join(g[0] for g in claim.subjects)}), but the sentence "
            f"compares {' vs '.join(g[0] for g in fits[0].subjects)}"), fits[0]


def _meant_claim(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
                 claims: Sequence[ClaimQuantity]) -> ClaimQuantity | None:
    """The one claim of the cited claim's kind (a comparison, or one model's result) whose every
    subject the citation's sentence names, where that is not the cited claim: what the sentence
    meant to cite ("| Gain over the control (MLP) | [+87.5](#claim:cnn_beats_control) |")."""
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None:
        return None
    named = {m.subject for m in subject_mentions(masked, seg.start, seg.end, claims)}
    fits = [c for c in claims if c.comparison == claim.comparison and c.subjects
            and len(c.subjects) == len(claim.subjects) and {g[0] for g in c.subjects} <= named
            and c.format.percent == claim.format.percent and c.points == claim.points]
    return fits[0] if len(fits) == 1 and fits[0].id != claim.id else None


def _respectively_swaps(masked: str, doc: prose_module.Prose, bindings: list[tuple[int, int, str]],
                        by_id: dict[str, ClaimQuantity], claims: Sequence[ClaimQuantity]) -> dict[int, str]:
    """"The CNN and the MLP reach [x](#claim:mlp...) and [y](#claim:cnn...), respectively": the
    n-th binding of a "respectively" sentence must be about the n-th subject named before them."""
    out: dict[int, str] = {}
    for seg in doc.segments:
        if not re.search(r"\brespectively\b", masked[seg.start : seg.end], re.I):
            continue
        inside = [b for b in bindings if seg.start <= b[0] < seg.end and by_id[b[2]].subjects]
        if len(inside) < 2 or len({by_id[b[2]].comparison for b in inside}) > 1:
            continue
        before = subject_mentions(masked, seg.start, inside[0][0], claims)
        pairs = listed_comparisons(masked, seg, before, len(inside))
        if pairs is not None and all(by_id[b[2]].comparison for b in inside):
            for (start, _, claim_id), pair in zip(inside, pairs, strict=True):
                sides = [g[0] for g in by_id[claim_id].subjects]
                if "pair:" + "|".join(sorted(sides)) != pair:
                    out[start] = (f"'respectively' pairs this citation of {claim_id} ({' vs '.join(sides)}) "
                                  f"with {pair.removeprefix('pair:').replace('|', ' vs ')}, the comparison "
                                  f"named in its place")
            continue
        named = listed_subjects(masked, before, len(inside))
        if named is None:
            continue
        for (start, _, claim_id), subject in zip(inside, named, strict=True):
            sides = [g[0] for g in by_id[claim_id].subjects]
            # a comparison's place in the list is the side the list names ("the CNN and the MLP
            # beat the control by ... and ...": CNN vs control first)
            own = next((side for side in sides if side in named), sides[0])
            if own != subject:
                out[start] = (f"'respectively' pairs this citation of {claim_id} ({own}) with {subject}, "
                              f"the subject named in its place")
    return out


#: A sentence that opens with a pronoun is about a subject named before it.
_PRONOUN = re.compile(r"\s*(?:[-*+>#]\s*|\d+\.\s*)?(?:it|its|they|their|this|these|both|which)\b", re.I)


def _possessor(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
               claims: Sequence[ClaimQuantity]) -> ClaimQuantity | None:
    """"The MLP's accuracy, [98.7%](#claim:cnn_test_accuracy), is ...": a citation right after
    another subject's possessive states that subject's quantity; its claim, if it has one."""
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None or claim.comparison or not claim.subjects:
        return None
    before = subject_mentions(masked, seg.start, pos, claims)
    if not before or pos - before[-1].end > 40 or not before[-1].words.endswith(("'s", "’s")):
        return None
    subject = before[-1].subject
    if subject == claim.subjects[0][0]:
        return None
    return next((c for c in claims if not c.comparison and c.subjects and c.subjects[0][0] == subject
                 and c.metric == claim.metric), None)


def _level_cited_as_comparison(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
                               claims: Sequence[ClaimQuantity]) -> ClaimQuantity | None:
    """"Linear test RMSE for the abstract: {{ claim('linear_beats_control') }}": a comparison cited
    where the words before it name one subject's level (its metric, no word of a difference); the
    level claim of that subject, if it has one."""
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None or not claim.comparison or DIFF_CUE.search(masked, seg.start, pos):
        return None
    before = subject_mentions(masked, seg.start, pos, claims)
    if len({m.subject for m in before}) != 1:
        return None
    # its metric named before it, or a level's verb right before it and the metric right after
    # ("Linear regression itself reaches {{ claim('linear_beats_control') }} test RMSE")
    after = min(seg.end, pos + 80)
    if not any(word_regex(w).search(masked, before[-1].end, pos) for w in claim.metric) and not (
            LEVEL_VERB.search(masked, max(before[-1].end, pos - 30), pos)
            and not DIFF_CUE.search(masked, pos, seg.end)
            and any(word_regex(w).search(masked, pos, after) for w in claim.metric)):
        return None
    subject = before[-1].subject
    return next((c for c in claims if not c.comparison and c.subjects and c.subjects[0][0] == subject
                 and c.metric == claim.metric), None)


#: A change whose amount follows "by": "lower than the control's by", "changes the MLP's accuracy by".
_CHANGE_BY = re.compile(r"\b(?:than|lowers?|lowered|raises?|raised|reduces?|reduced|improves?|improved"
                        r"|changes?|changed|increases?|increased|decreases?|decreased|gains?|gained"
                        r"|ahead|behind|beats?|outperforms?|trails?|drops?|dropped|cuts?|moves?|moved|shifts?|shifted)\b"
                        r"[^.;]{0,60}\bby\s*$",
                        re.I)


#: Two subjects listed, not compared: "the MLP and the CNN", "MLP or CNN".
_LISTED = re.compile(r"\s*,?\s*(?:and|or|&)\s*(?:the\s+)?", re.I)


def _other_pair(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
                claims: Sequence[ClaimQuantity], bindings: Sequence[tuple[int, int, str]]) -> str | None:
    """A citation placed where its sentence states another result: a comparison cited after words
    that name exactly another comparison's two sides ("the MLP is ahead of its control by
    {{ claim('cnn_beats_control') }}"), or a level cited as the amount of a change ("lower than the
    control's by \\evLinearTestRmse{}")."""
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None or not claim.subjects:
        return None
    lo = max([seg.start, *(b for _, b, _ in bindings if seg.start <= b <= pos)])
    if not claim.comparison:
        if _CHANGE_BY.search(masked, max(lo, pos - 120), pos):
            return (f"cited as {claim.id}, a level, where the sentence states the size of a change "
                    f"(a comparison's difference)")
        return None
    # the words since the last number or ", and": those before name that number's result
    # ("16 seeds to settle CNN vs MLP, and [26](#claim:width_is_noise) for the width question")
    marks = list(re.finditer(r"\d+(?:\.\d+)?|,\s+and\b|;", masked[lo:pos]))
    lo += marks[-1].end() if marks else 0
    mentions = subject_mentions(masked, lo, pos, claims)
    named = {m.subject for m in mentions}
    own = {g[0] for g in claim.subjects}
    if len(named) < 2 or named == own or any(
            a.subject != b.subject and _LISTED.fullmatch(masked, a.end, b.start)
            for a, b in itertools.pairwise(mentions)):
        return None  # "Both the MLP and the CNN beat it, by ...": a list of subjects, no comparison
    meant = [c for c in claims if c.comparison and {g[0] for g in c.subjects} == named]
    if len(meant) != 1:
        return None
    return (f"cited as {claim.id} ({' vs '.join(sorted(own))}), but the words before it name "
            f"{' vs '.join(sorted(named))}: {meant[0].id}'s comparison")


def _other_subject(masked: str, doc: prose_module.Prose, pos: int, claim: ClaimQuantity,
                   claims: Sequence[ClaimQuantity]) -> str | None:
    """Why a citation of ``claim`` is suspicious: its sentence names only other subjects."""
    if not claim.subjects:
        return None
    seg = next((s for s in doc.segments if s.start <= pos < s.end), None)
    if seg is None:
        return None
    lo, hi = seg.start, seg.end
    if _PRONOUN.match(masked, lo):
        return None  # "Its mean test accuracy, ..., is higher than the MLP's": about the subject before
    mentions = subject_mentions(masked, lo, hi, claims)
    own = {g[0] for g in claim.subjects}
    named = [m for m in mentions if m.subject not in own]
    if not named or any(m.subject in own for m in mentions):
        return None
    others = ", ".join(dict.fromkeys(f"'{m.words}'" for m in named))
    return (f"cited as {claim.id} ({' vs '.join(g[0] for g in claim.subjects)}), but the sentence "
            f"names {others} and not its subject")


def cited_claims(findings: Iterable[Finding]) -> set[str]:
    """Claims that some document states (bound or by its words), rightly or wrongly."""
    return {f.claim_id for f in findings if f.kind != "unsupported_wording"}


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def read_document(path: Path) -> str:
    """A document's text; anything but UTF-8 is bad input naming the file (one line, exit 3)."""
    return _read(path)


def _read(path: Path) -> str:
    return read_text(path, kind="document")


def scan_documents(
    paths: Iterable[Path],
    claims: Sequence[ClaimQuantity],
    *,
    root: Path,
    waivers: Sequence[Waiver] = (),
    strict: bool = False,
) -> list[Finding]:
    """Findings in the given documents, sorted by file, line and column."""
    findings: list[Finding] = []
    for path in paths:
        findings.extend(scan_text(_relative(path, root), read_document(path), claims, waivers,
                                  strict=strict))
    return sorted(findings)


def drift_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that fail a check: drift, unsupported wording, unbound numbers, not waived."""
    return [f for f in findings if f.failing]


def unused_waivers(findings: Iterable[Finding], waivers: Sequence[Waiver]) -> list[Waiver]:
    """Waivers that waived nothing: a stale exception hides the next real drift."""
    used = [f for f in findings if f.waived]
    return [w for w in waivers if not any(w.covers(f) for f in used)]


def raise_on_drift(findings: Iterable[Finding]) -> None:
    """Raise :class:`DriftError` naming the first failing finding, if there is any."""
    drifts = drift_findings(findings)
    if drifts:
        first = drifts[0]
        raise DriftError(
            f"{len(drifts)} number(s) in documents drifted from their evidence; first at "
            f"{first.location}: '{first.stated}' for claim '{first.claim_id}', expected "
            f"'{first.expected}'",
            hint="update the document, or record a Waiver with a reason",
        )


#: What a paper source must not type by hand: a claim's results and verify's seeds-needed estimate.
_DERIVED = RESULT_QUANTITIES | {"seeds_needed"}


#: A split no test claim is measured on, named before a number: its value is no claim's.
_OTHER_SPLIT = r"(?:validation|val|dev|training|train)"
_NOT_AND_TEST = r"(?![-\s]*(?:and|or|/)\s+test\b)"  # "validation and test": the test split too
_OTHER_SPLIT_NAMED = re.compile(r"\b" + _OTHER_SPLIT
                                + r"(?:\s+(?:split|set|accuracy|acc\.?|loss|rmse|error))?\b" + _NOT_AND_TEST,
                                re.I)
#: The split named right after a number: "reaches \SI{97.2}{\percent} on validation".
_SPLIT_AFTER = re.compile(r"[\s}]*(?:on|of|for)\s+(?:the\s+)?" + _OTHER_SPLIT + r"\b" + _NOT_AND_TEST, re.I)


def _another_splits_number(masked: str, tok: Token, claims: Sequence[ClaimQuantity],
                           doc: prose_module.Prose) -> bool:
    """A number named, in its clause or by its table column, as a split's that no claim about its
    subjects is measured on ("On the validation split the CNN averages 97.8%", a "Val. accuracy"
    column): no claim's, nothing to bind."""
    seg = next((g for g in doc.segments if g.start <= tok.start < g.end), None)
    cell = seg.cell(tok.start) if seg is not None else None
    if cell is not None and cell.column:
        named = _OTHER_SPLIT_NAMED.search(cell.column)
        words = cell.row
        subjects = {m.subject for m in subject_mentions(words, 0, len(words), claims)}
    else:
        lo = max(0, tok.start - 60)
        breaks = [m.end() for m in re.finditer(r"[.;!?]\s", masked[lo : tok.start])]
        lo += breaks[-1] if breaks else 0
        named = _OTHER_SPLIT_NAMED.search(masked, lo, tok.start)
        subjects = {m.subject for m in subject_mentions(masked, lo, tok.start, claims)}
    if named is None:  # "the best configuration reaches 97.2% on validation": named right after
        named = _SPLIT_AFTER.match(masked, tok.end)
        if named is not None and not subjects:
            return True
    if named is None:
        return False
    split = "val" if named.group(0).lower().startswith(("val", "dev")) else "train"
    return bool(subjects) and not any(
        (c.split or "").startswith(split[:3]) and any(g[0] in subjects for g in c.subjects) for c in claims)


def hand_typed_numbers(path: Path, text: str,
                       claims: Sequence[ClaimQuantity] | None = None) -> list[HandTypedNumber]:
    """Numbers written literally in a paper source (a Jinja template or a LaTeX file), outside
    template blocks, code, comments and citations: a result there should come from a claim.

    With the project's ``claims``, only numbers with the shape of a result are reported, by one
    rule for every paper source: a number reconcile attributes to a claim's result (its value,
    interval bounds, P(better)), or a percentage or points with decimals ("97.3%"). Settings
    a paper must state by hand (15 epochs, batch size 32, 5 seeds, the 95% level, a chance
    level of 0.1, a test loss beside the metric) are not results. Without claims (nothing to
    attribute to), every such number is reported."""
    doc = prose_module.parse(path.as_posix(), text)  # the name scan_text parsed it by: parsed once
    masked = _blank_bound(doc.masked, mask_decoys(doc.masked))
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    attributed: set[tuple[int, int]] | None = None
    if claims is not None:
        attributed = {(f.line, f.column) for f in scan_text(path.as_posix(), text, claims)
                      if f.claim_id and f.quantity in _DERIVED and not f.bound}
    out = []
    for tok in tokenize(masked):
        line, col = _line_col(starts, tok.start)
        if attributed is not None and (line, col) not in attributed \
                and (_others_number(text, doc.segments, tok)
                     or _other_budget(masked, doc.segments, tok, claims or (), text)):
            # "Smith et al. (1998) report 0.95% test error": another work's result, not ours to bind;
            # "with all 16 it is 97.0%" beside an expected@4 claim: a budget no claim states
            continue
        if tok.decoy or (tok.word and (attributed is None or (line, col) not in attributed)):
            continue  # a number in words is a result only where it states one ("about ten seeds per group")
        if attributed is not None and (line, col) not in attributed \
                and not (tok.unit in ("%", "pts") and tok.decimals > 0):
            continue
        if attributed is not None and (line, col) not in attributed \
                and (_another_splits_number(masked, tok, claims or (), doc)
                     or SPREAD_BEFORE.search(masked, max(0, tok.start - 80), tok.start)
                     or _one_run_named(doc.masked, doc, tok)):  # its seed before decoys are masked
            continue  # "On the validation split the CNN averages 97.8%": no claim's split; "its SD over
            # seeds is 5.1 points": no claim renders an SD; nothing to bind either way
        out.append(HandTypedNumber(path.as_posix(), line, col, _as_written(text, tok)))
    if prose_module.dialect(path.as_posix()) == "tex":  # a claim macro redefined by hand types its number
        seen = {(h.line, h.column) for h in out}
        for o in macro_overrides(text, claims or ()):
            line, col = _line_col(starts, o.start)
            if (line, col) not in seen:
                out.append(HandTypedNumber(path.as_posix(), line, col, o.stated))
    return sorted(out, key=lambda h: (h.line, h.column))


# --------------------------------------------------------------------------- report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_report(findings: Sequence[Finding], hand_typed: Sequence[HandTypedNumber] = ()) -> str:
    """A Markdown report: drifts, waived drifts, hand-typed template numbers, matches, and (when
    there are any) wording, unbound numbers and overstated precision."""
    drifts = [f for f in findings if f.kind == "drift" and not f.waived]
    waived = [f for f in findings if f.waived]
    matches = [f for f in findings if f.kind == "match"]
    lines = [
        "# Reconcile report",
        "",
        f"{len(drifts)} drifted, {len(waived)} waived, {len(matches)} matching; "
        f"{len(hand_typed)} hand-typed number(s) in templates.",
    ]

    def table(title: str, head: list[str], rows: list[list[str]]) -> None:
        lines.extend(["", f"## {title}", ""])
        if not rows:
            lines.append("None.")
            return
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        lines.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)

    head = ["Location", "Claim", "Stated", "Expected"]
    table("Drift", [*head, "Why"], [[f"`{f.location}`", f"`{f.claim_id}`", f.stated, f.expected, f.why]
                                    for f in drifts])
    table("Waived", [*head, "Reason"], [
        [f"`{f.location}`", f"`{f.claim_id}`", f.stated, f.expected, f.waiver_reason or ""]
        for f in waived
    ])
    table("Hand-typed numbers in templates", ["Location", "Text"],
          [[f"`{h.file}:{h.line}:{h.column}`", h.text] for h in hand_typed])
    table("Matching statements", head, [[f"`{f.location}`", f"`{f.claim_id}`", f.stated,
                                         f.expected] for f in matches])
    for kind, title in (("unsupported_wording", "Wording the evidence does not support"),
                        ("unbound", "Unbound numbers (strict mode)"),
                        ("overstated_precision", "Overstated precision (disclosed, not a failure)")):
        rows = [[f"`{f.location}`", f"`{f.claim_id}`", f.stated, f.why] for f in findings
                if f.kind == kind and not f.waived]
        if rows:
            table(title, ["Location", "Claim", "Stated", "Why"], rows)
    return "\n".join(lines) + "\n"


_LABELS = {"drift": "DRIFT", "unsupported_wording": "WORDING", "unbound": "UNBOUND",
           "overstated_precision": "PRECISION", "match": "MATCH"}


def finding_line(finding: Finding) -> str:
    """One line per finding, for the terminal: where, what, and why."""
    label = _LABELS.get(finding.kind, finding.kind.upper())
    if finding.kind == "unsupported_wording":
        return f"{label} {finding.location}: {finding.stated!r} about claim {finding.claim_id}: {finding.why}"
    verb = "cites" if finding.bound else "states"
    return (f"{label} {finding.location}: {verb} {finding.stated!r} for claim {finding.claim_id} "
            f"({finding.quantity}), the evidence says {finding.expected} ({finding.why})")


def finding_record(finding: Finding) -> dict[str, Any]:
    """One finding as reconcile.json writes it (schemas/reconcile.schema.json)."""
    value = finding.stated_value
    return {"file": finding.file, "line": finding.line, "column": finding.column,
            "claim": finding.claim_id, "kind": finding.kind, "quantity": finding.quantity,
            "stated": finding.stated, "stated_value": value if math.isfinite(value) else None,
            "expected": finding.expected, "reason": finding.why, "bound": finding.bound,
            "waived": finding.waived, "waiver_reason": finding.waiver_reason,
            "failing": finding.failing}


def findings_json(findings: Sequence[Finding], hand_typed: Sequence[HandTypedNumber] = (),
                  hand_waived: Sequence[HandTypedNumber] = ()) -> dict[str, Any]:
    """reconcile.json: every finding, hand-typed paper numbers included, as one flat list."""
    records = [finding_record(f) for f in findings]
    for numbers, waived in ((hand_typed, False), (hand_waived, True)):
        records += [{"file": h.file, "line": h.line, "column": h.column, "claim": None,
                     "kind": "hand_typed", "quantity": None, "stated": h.text, "stated_value": None,
                     "expected": None, "bound": False, "waived": waived, "waiver_reason": None,
                     "failing": not waived,
                     "reason": "a number typed by hand in a paper source: it should come from a claim"}
                    for h in numbers]
    records.sort(key=lambda r: (r["file"], r["line"], r["column"], r["kind"]))
    counts = {kind: sum(r["kind"] == kind for r in records) for kind in KINDS}
    return {"schema_version": 1, "failing": sum(r["failing"] for r in records), "counts": counts,
            "findings": records}
