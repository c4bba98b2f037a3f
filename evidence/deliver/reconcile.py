"""Reconcile: numbers that people typed into documents and that drifted from their evidence.

Claims resolve their values from sealed runs, but humans also type those numbers into the
README, the paper's sources, docs/ and notes. When the evidence moves (a new seed, a fixed
bug) the typed copies go stale silently. This module finds them with a deliberately simple,
deterministic heuristic, so that every finding can be explained in one sentence:

* A number *states* a claim's quantity when it has the claim's shape (a percentage for a
  ``%`` claim, a plain decimal for a plain claim) and ALL of the claim's keywords occur in the
  same sentence (or Markdown table row plus that cell's column header, or heading). List
  items and table rows are blocks of their own, so sentences never cross them.
* It *matches* when ``|stated - value * scale| <= max(tolerance, half a unit of the stated
  number's last decimal)``. The comparison uses the unrounded scaled value, not the rendered
  one, so there is no double rounding; "96%" is correct for 0.964 and 0.9604 alike because it
  is that value correctly rounded to the precision it shows. Exact ties accept both roundings.
* Disambiguation, per sentence: a number that correctly states some eligible claim is a
  ``match`` for that claim, and a claim stated correctly once in a sentence makes its other
  same-shaped numbers there comparisons (a baseline, a confidence bound), not statements.
  The remaining numbers are paired greedily with the remaining eligible claims, at most one
  drift per claim per sentence, preferring the most specific claim (most keywords), then the
  nearest keywords (summed character distance; 0 for a table column header), then position
  and claim id. The price: a stale number that equals another claim in the same sentence
  passes as that claim's statement.

Everything that is not prose is masked (replaced by spaces, keeping offsets and line numbers)
before numbers are looked for: code blocks and spans, HTML comments and tags, front matter,
Jinja blocks (in templates), URLs, DOIs, arXiv ids, dates, versions, citations, page ranges,
references to sections, tables, figures and equations, list and heading numbers. Token-level
rules then drop years, identifier parts (``resnet50``, ``CIFAR-10``), fractions, times and
integer ranges. The tests plant stale numbers among exactly these decoys.
"""

from __future__ import annotations

import bisect
import itertools
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal

from evidence.core.errors import DriftError
from evidence.core.readers import read_text

#: Documents scanned when the project does not say otherwise.
DEFAULT_INCLUDE = (
    "README.md", "paper/**/*.md", "paper/**/*.j2", "paper/**/*.tex", "docs/**/*.md", "notes/**/*.md",
)
#: Folders never scanned, at any depth: environments, the evidence store, generated output.
ALWAYS_EXCLUDED_DIRS = frozenset({".venv", "runs", ".evidence", "build", "node_modules", ".git"})


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


def _half_unit(decimals: int) -> float:
    return 0.5 * 10.0**-decimals


@dataclass(frozen=True)
class ClaimQuantity:
    """A claim's authoritative value and the words that name its quantity in prose.

    ``tolerance`` is absolute, in displayed units; None means half a unit of the last
    displayed decimal. It can only widen the check: a stated number is never held to more
    precision than it shows.
    """

    id: str
    value: float
    format: NumberFormat
    keywords: tuple[str, ...]
    tolerance: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "keywords", tuple(self.keywords))
        if not all(k.strip() for k in self.keywords):
            raise ValueError(f"claim {self.id!r} has an empty keyword")
        if not math.isfinite(self.value):
            raise ValueError(f"claim {self.id!r} has a non-finite value {self.value!r}")
        if self.tolerance is not None and not self.tolerance >= 0:
            raise ValueError(f"claim {self.id!r} has a negative tolerance")

    @property
    def expected(self) -> str:
        return self.format.render(self.value)

    def accepts(self, stated: float, stated_decimals: int, *, fraction: bool = False) -> bool:
        """Whether a stated number is this claim's value, checked at the precision it states.

        "98.51%" is wrong when the evidence says 98.56%: a number that shows two decimals is
        held to two decimals (half a unit of its last decimal), never to the claim's coarser
        display. Fewer decimals are fine ("99%" states 98.56% correctly rounded). ``fraction``:
        a percent claim stated as a plain fraction (0.986). An explicit claim tolerance can only
        widen the check.
        """
        tol = max(self.tolerance or 0.0, _half_unit(stated_decimals))
        scaled = self.value if fraction else self.format.scaled(self.value)
        return abs(stated - scaled) <= tol + 1e-9 * max(1.0, abs(scaled))

    def as_fraction(self, tok_unit: str) -> bool:
        """A percent claim's number written without a percent sign is a fraction (0.986)."""
        return self.format.suffix.strip() == "%" and tok_unit != "%"


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


@dataclass(frozen=True, order=True)
class Finding:
    """A number in a document that states a claim's quantity, correctly or not."""

    file: str
    line: int
    column: int
    claim_id: str
    stated: str
    stated_value: float
    expected: str
    kind: Literal["drift", "match"]
    waived: bool = False
    waiver_reason: str | None = None
    bound: bool = False  # cited explicitly ([98.6%](#claim:id)): checked whatever the words say
    why: str = ""  # for an unbound number: why it was read as this claim

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, order=True)
class HandTypedNumber:
    """A number written literally in a paper template instead of coming from a claim."""

    file: str
    line: int
    column: int
    text: str


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


# --------------------------------------------------------------------------- masking


def _spaces(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _mask(text: str, pattern: re.Pattern[str]) -> str:
    return pattern.sub(lambda m: _spaces(m.group(0)), text)


_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_RE = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_TOOLS = (
    r"python|py|pytorch|torch|torchvision|cuda|cudnn|nccl|numpy|scipy|pandas|jax|jaxlib"
    r"|tensorflow|tf|keras|sklearn|scikit-learn|transformers|matplotlib|jinja2?|doit|ubuntu"
    r"|debian|macos|windows|linux|gcc|clang|llvm|node|nodejs|java|rust|go|latex|pip|conda"
    r"|version|ver\.|release|rel\."
)
_REF_ONE = (
    r"section|sec\.|§|table|tab\.|figure|fig\.|equation|eq\.|appendix|app\.|chapter|ch\."
    r"|algorithm|alg\.|line|theorem|thm\.|lemma|corollary|definition|def\.|proposition"
    r"|prop\.|step|footnote|listing|page|part|example|exercise|row|column|col\.|panel|ref\."
    r"|reference|no\.|vol\.|volume|issue"
)
_REF_MANY = (
    r"sections|secs\.|§§|tables|figures|figs\.|equations|eqs\.|appendices|chapters"
    r"|algorithms|lines|theorems|lemmas|definitions|propositions|steps|footnotes|listings"
    r"|pages|parts|examples|exercises|rows|columns|panels|refs\.|references|nos\."
)
_NUMREF = r"~?\(?\d+(?:\.\d+)*[a-z]?\)?"

#: Prose-level decoys masked in every dialect, in order. Each entry says what it removes.
_DECOY_PATTERNS_SOURCE: list[tuple[str, int]] = [
    (r"<!--[\s\S]*?(?:-->|\Z)", 0),  # HTML comments
    (r"<sup>[^<]*</sup>", 0),  # footnote markers
    (r"</?[A-Za-z][^>\n]*>", 0),  # HTML tags and their attributes
    (r"\\(?:cite[a-z]*|ref|eqref|autoref|[cC]ref|label|input|include|includegraphics|url"
     r"|href|bibliography[a-z]*)\*?(?:\[[^\]]*\])*\{[^}]*\}", 0),  # LaTeX cross references
    (r"\]\([^)\s]*(?:\s+\"[^\"]*\")?\)", 0),  # Markdown link targets
    (r"^\s{0,3}\[[^\]\n]+\]:[^\n]*", re.M),  # reference-style link definitions
    (r"(?:https?://|ftp://|file://|\bwww\.)[^\s<>)\]]*[^\s<>)\].,;:]", 0),  # URLs
    (r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", 0),  # e-mail addresses
    (r"\b(?:doi:\s*)?10\.\d{4,9}/[^\s\]>),;]*[^\s\]>),;.]", re.I),  # DOIs
    (r"\b(?:arXiv:\s*)?\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?\b", re.I),  # arXiv ids
    (r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b", 0),  # ISO dates
    (r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b", 0),  # 05/01/2024, 01.05.2024
    (rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b", 0),  # May 1, 2024
    (rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b", 0),  # 1 May 2024
    (rf"(?<![\w-])(?:{_TOOLS})\s*(?:[=<>~!]=\s*|v)?\d+(?:\.\d+)*(?:[a-z]+\d*)?\b", re.I),
    (r"[=<>~!]=\s*v?\d+(?:\.\d+)*\b", 0),  # requirement pins: torch>=2.3
    (r"\[\^[^\]\n]*\]", 0),  # Markdown footnote references
    (r"\[\s*\d+[a-z]?(?:\s*[,;–—-]\s*\d+[a-z]?)*\s*\]", 0),  # numeric citations [3, 4]
    (r"\b(?:pp?|pages?)\.?\s*\d+(?:\s*[-–—]\s*\d+)?", re.I),  # page numbers and ranges
    (rf"(?<![\w-])(?:{_REF_ONE})\s*{_NUMREF}", re.I),  # Table 2, Section 3.2, Eq. (3)
    (rf"(?<![\w-])(?:{_REF_MANY})\s*{_NUMREF}(?:\s*(?:,|and|&|or|to|[-–—])\s*{_NUMREF})*",
     re.I),  # Tables 2 and 3, Sections 3.1–3.4
    (r"\b\d+\(\d+\)", 0),  # volume(issue) in bibliographies: 34(2)
    (r"\(\d{1,3}[a-z]?\)", 0),  # equation and enumeration references: (3)
    (r"\^\{?\d+\}?", 0),  # superscript footnote markers
]
_TEX_PATTERNS_SOURCE: list[tuple[str, int]] = [
    (r"\\begin\{(verbatim|lstlisting|minted|comment)\}[\s\S]*?(?:\\end\{\1\}|\Z)", 0),
    (r"(?<!\\)%[^\n]*", 0),  # LaTeX comments (\% is a percent sign)
    (r"(?<![\w.])\d*\.?\d+(?:pt|mm|cm|in|em|ex|bp|pc|sp)\b", 0),  # lengths: 2mm
    (r"\[[^\]\n]*=[^\]\n]*\]", 0),  # key=value options: [width=0.8\linewidth]
]
_MARKDOWN_PATTERNS_SOURCE: list[tuple[str, int]] = [
    (r"(?<!`)(`+)(?!`)(?:(?!\n[ \t]*\n)[\s\S])+?(?<!`)\1(?!`)", 0),  # inline code
    (r"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?\d{1,9}[.)](?=\s)", re.M),  # ordered list markers
    (r"^ {0,3}#{1,6}[ \t]+(?:\d+\.)*\d+\.?(?=\s)", re.M),  # numbered headings: ## 3.2 Results
]


@cache
def _patterns(name: str) -> list[re.Pattern[str]]:
    """The compiled patterns of one list, compiled on first use: compiling them all took a
    third of a doit no-op's start-up, and a no-op never reconciles."""
    source = {"decoy": _DECOY_PATTERNS_SOURCE, "tex": _TEX_PATTERNS_SOURCE,
              "markdown": _MARKDOWN_PATTERNS_SOURCE}[name]
    return [re.compile(pattern, flags) for pattern, flags in source]
_JINJA_RE = re.compile(r"\{\{[\s\S]*?(?:\}\}|\Z)|\{%[\s\S]*?(?:%\}|\Z)|\{#[\s\S]*?(?:#\}|\Z)")


def _mask_blocks(text: str) -> str:
    """Mask Markdown front matter, fenced code blocks and indented code blocks, line by line.

    An indented line is code only after a blank line and outside a list, as in CommonMark:
    otherwise it is a paragraph's or list item's continuation and stays prose.
    """
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    prev_blank, in_list, in_code = True, False, False
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is not None:
            out = [_spaces(line) for line in lines[: end + 1]]
    for line in lines[len(out):]:
        blank = not line.strip()
        if fence is not None:
            out.append(_spaces(line))
            if re.match(rf" {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$", line):
                fence = None
            continue
        if m := _FENCE_RE.match(line):
            fence = m.group(1)
            out.append(_spaces(line))
            continue
        indented = line.startswith(("    ", "\t"))
        if in_code and (indented or blank):
            out.append(_spaces(line))
            continue
        in_code = indented and prev_blank and not in_list and not blank
        out.append(_spaces(line) if in_code else line)
        if _LIST_RE.match(line):
            in_list = True
        elif not blank and not indented:
            in_list = False
        prev_blank = blank
    return "\n".join(out)


def _dialect(name: str) -> str:
    return "tex" if ".tex" in Path(name).suffixes else "markdown"


def _mask_text(text: str, name: str, *, jinja: bool) -> str:
    """The text with everything that is not prose replaced by spaces (same offsets)."""
    tex = _dialect(name) == "tex"
    if tex:
        for pattern in _patterns("tex")[:2]:
            text = _mask(text, pattern)
    else:
        text = _mask_blocks(text)
    if jinja:
        text = _mask(text, _JINJA_RE)
    for pattern in _patterns("tex")[2:] if tex else _patterns("markdown"):
        text = _mask(text, pattern)
    for pattern in _patterns("decoy"):
        text = _mask(text, pattern)
    return text


# --------------------------------------------------------------------------- numbers


@dataclass
class _Token:
    start: int
    end: int  # end of the stated text, unit included
    value: float
    decimals: int
    unit: str  # "%", letters glued to the number ("M", "x"), or ""
    follow: str  # masked text after the number, for spaced unit suffixes
    integer: bool
    decoy: bool = False  # not a quantity at all: never reported
    statement: bool = True  # a quantity, but not a point value (a range bound, a ± term)


_NUM_RE = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+)((?:\.\d+)*)(?:[eE][-+]?\d+)?")
_PERCENT_RE = re.compile(r"[ \u00a0\u202f]?(?:\\?%|percent\b|per cent\b)", re.I)
_GLUED_RE = re.compile(r"[A-Za-zµ×]+")
_ORDINALS = frozenset({"st", "nd", "rd", "th", "D"})
#: After a percentage: a confidence level or a share of the data, not a result.
_SETTING_AFTER = re.compile(r"[ \u00a0-]*(?:(?:[A-Za-z'-]+ ){0,2}(?:CIs?\b|confidence|credible|intervals?\b)"
                            r"|held[- ]out|hold[- ]out|split|of (?:the )?(?:data|samples|examples|training"
                            r"|test|validation)|quantile|percentile|significance)", re.I)
#: Before a number: a hyper-parameter or a setting named in words.
_SETTING_BEFORE = re.compile(r"(?:dropout|weight[ -]decay|momentum|learning[ -]rate|lr|warm-?up"
                             r"|label smoothing|batch size|epochs?|seeds?|split|alpha|level|threshold)"
                             r"(?: rate)?(?:\s+(?:of|=|:|to|at|is))?\s*$", re.I)
_INTERVAL_OPEN = re.compile(r"[\[(]\s*$")


def _in_interval(t: str, end: int) -> bool:
    """Whether the number ending at ``end`` is followed by ``, <number>]`` or ``]``-style text."""
    return re.match(r"\s*(?:,|–|-|to)\s*[-−]?\d", t[end:end + 12]) is not None


def _tokenize(t: str) -> list[_Token]:
    """Every number in masked text with its unit, decoys marked by their surroundings."""
    tokens: list[_Token] = []
    for m in _NUM_RE.finditer(t):
        s, e = m.span()
        body, frac = m.group(0), m.group(1)
        before, before2 = t[s - 1 : s], t[max(s - 2, 0) : s - 1]
        decoy = frac.count(".") >= 2  # 1.2.3 is a version, not a quantity
        unit, end, value, start = "", e, 0.0, s
        if glued := _GLUED_RE.match(t, e):
            unit = glued.group(0)
            # resnet50-style identifiers, hex digests, ordinals (1st), dimensionality (3D)
            decoy |= re.match(r"\w", t[glued.end() : glued.end() + 1]) is not None
            decoy |= unit in _ORDINALS
            end = glued.end()
        elif pm := _PERCENT_RE.match(t, e):
            unit, end = "%", pm.end()
        nxt = t[e : e + 2]
        decoy |= before in ("#", "@", "/") or nxt[:1] in ("/", "_")  # #12, 3/4, paths
        decoy |= (nxt[:1] == ":" and nxt[1:].isdigit()) or (before == ":" and before2.isdigit())
        decoy |= before in ("-", "–") and before2.isalpha()  # CIFAR-10, top-1, GPT-4
        decoy |= nxt[:1] == "-" and nxt[1:].isalpha()  # 5-fold, 3-layer
        if not decoy:
            value = float(body.replace(",", ""))
            if before in ("-", "−") and not (before2.isalnum() or before2 in ("%", ")")):
                value, start = -value, s - 1
        integer = not frac and "e" not in body.lower()
        # years, also as 2021a in author-year citations
        decoy |= integer and re.fullmatch("[a-z]?", unit) is not None and "," not in body and (
            1900 <= value <= 2099)
        tok = _Token(start, end, value, len(frac[1:]), unit, t[e : e + 24], integer, decoy)
        if before == "±" or before2 == "±":
            tok.statement = False
        if unit == "%" and _SETTING_AFTER.match(t, end):
            tok.decoy = True  # 95% CI, a 20% held-out split: a setting, not a result
        if _SETTING_BEFORE.search(t, max(0, start - 40), start):
            tok.decoy = True  # dropout of 10%, learning rate 0.01
        if _INTERVAL_OPEN.search(t, max(0, start - 3), start) and _in_interval(t, end):
            tok.statement = False  # [98.3%, 98.9%]: the ends of an interval
        elif (tokens and not tokens[-1].statement and tokens[-1].unit == unit
              and re.fullmatch(r"\s*(?:,|to)\s*", t[tokens[-1].end : s])):
            tok.statement = False  # the interval's second end
        if tokens and re.fullmatch(r"[ \u00a0]*[-–—][ \u00a0]*", t[tokens[-1].end : s]):
            prev = tokens[-1]  # a range: 12–34 (pages) is a decoy, 95–97% no point value
            both_int = prev.integer and tok.integer and not prev.unit and not tok.unit
            for member in (prev, tok):
                member.decoy |= both_int
                member.statement = False
        tokens.append(tok)
    return tokens


def _fits(fmt: NumberFormat, tok: _Token) -> bool:
    """Whether a number has the claim's shape; plain claims with decimals need a decimal
    point, so counts ("3 seeds") are never read as a statement of an F1 of 0.912."""
    want = fmt.suffix.strip()
    if want == "%":  # 98.6% or, as a fraction with at least two decimals, 0.986
        return tok.unit == "%" or (tok.unit == "" and not tok.integer and tok.decimals >= 2
                                   and 0.0 <= tok.value <= 1.0)
    if not want:
        return tok.unit == "" and (fmt.decimals == 0 or not tok.integer)
    spaced = re.match(rf"[ \u00a0]?{re.escape(want)}(?!\w)", tok.follow)
    return tok.unit == want or (tok.unit == "" and spaced is not None)


# --------------------------------------------------------------------------- segments


@dataclass
class _Segment:
    start: int
    end: int
    cells: tuple[tuple[int, int, str], ...] = ()  # table rows: (start, end, column header)

    def header(self, pos: int) -> str:
        return next((h for a, b, h in self.cells if a <= pos < b), "")


_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "al", "fig", "figs", "eq", "eqs", "sec", "secs", "tab", "vs", "cf", "approx",
    "resp", "no", "nos", "dr", "prof", "mr", "ms", "ref", "refs", "ch", "vol", "ed", "eds", "p",
    "pp", "ca", "incl",
})
_BOUNDARY_RE = re.compile(r"[.!?][\"'”’)\]*_]*(?=\s|$)")


def _sentences(t: str, start: int, end: int) -> list[_Segment]:
    """Split a block into sentences: after . ! ? and whitespace, unless the period ends a
    known abbreviation or an initial, or the next word starts in lower case."""
    out, s = [], start
    for m in _BOUNDARY_RE.finditer(t, start, end):
        words = t[s : m.start()].split()
        word = words[-1].lstrip("([*_\"'").lower() if words else ""
        rest = t[m.end() : end].lstrip()
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        if rest and rest[0].islower():
            continue
        out.append(_Segment(s, m.end()))
        s = m.end()
    if t[s:end].strip():
        out.append(_Segment(s, end))
    return out


def _is_separator(line: str) -> bool:
    return "|" in line and "-" in line and set(line.strip()) <= set("|:- \t")


def _cells(t: str, start: int, end: int) -> list[tuple[int, int]]:
    pipes = [i for i in range(start, end) if t[i] == "|" and t[i - 1 : i] != "\\"]
    bounds = [start - 1, *pipes, end]
    cells = [(a + 1, b) for a, b in itertools.pairwise(bounds)]
    if t[start:end].strip().startswith("|"):
        cells = cells[1:]
    if t[start:end].strip().endswith("|"):
        cells = cells[:-1]
    return cells


def _segments(t: str, markdown: bool) -> list[_Segment]:
    """Sentences of paragraphs and list items; headings and table rows whole."""
    lines = t.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def table_at(i: int) -> bool:
        return markdown and "|" in lines[i] and i + 1 < len(lines) and _is_separator(lines[i + 1])

    segs: list[_Segment] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
        elif table_at(i):
            hstart = starts[i]
            headers = [t[a:b].strip() for a, b in _cells(t, hstart, hstart + len(lines[i]))]
            segs.append(_Segment(hstart, hstart + len(lines[i])))
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                a0, b0 = starts[i], starts[i] + len(lines[i])
                cells = tuple(
                    (a, b, headers[k] if k < len(headers) else "")
                    for k, (a, b) in enumerate(_cells(t, a0, b0))
                )
                segs.append(_Segment(a0, b0, cells))
                i += 1
        elif markdown and _HEADING_RE.match(lines[i]):
            segs.append(_Segment(starts[i], starts[i] + len(lines[i])))
            i += 1
        else:
            j = i + 1
            while j < len(lines) and lines[j].strip() and not (
                (markdown and (_HEADING_RE.match(lines[j]) or _LIST_RE.match(lines[j])))
                or table_at(j)
            ):
                j += 1
            segs.extend(_sentences(t, starts[i], starts[j - 1] + len(lines[j - 1])))
            i = j
    return segs


# --------------------------------------------------------------------------- scanning


@lru_cache(maxsize=1024)
def _keyword_regex(keyword: str) -> re.Pattern[str]:
    """Case-insensitive, whole-word-ish: "CNN" matches "CNNs" and "CNN's", not "CNNLayer"."""
    words = r"[\s-]+".join(re.escape(w) for w in keyword.split())
    return re.compile(rf"(?<!\w){words}(?:s|es|'s|’s)?(?!\w)", re.IGNORECASE)


def _line_col(starts: list[int], pos: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, pos)
    return line, pos - starts[line - 1] + 1


def scan_text(
    file: str, text: str, claims: Sequence[ClaimQuantity], waivers: Sequence[Waiver] = ()
) -> list[Finding]:
    """Findings in one document's text; ``file`` is its posix path relative to the root.

    Templates (``.j2``, ``.jinja``) have their ``{{ }}``, ``{% %}`` and ``{# #}`` blocks
    masked; ``.tex`` files (``paper.tex.j2`` too) are read as LaTeX, the rest as Markdown.
    """
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate claim ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    jinja = any(s in (".j2", ".jinja", ".jinja2") for s in Path(file).suffixes)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    bound, text_unbound = _bound_findings(file, text, claims, starts, waivers)
    t = _mask_text(text_unbound, file, jinja=jinja)
    tokens = [tok for tok in _tokenize(t) if not tok.decoy and tok.statement]
    token_starts = [tok.start for tok in tokens]
    findings = list(bound)
    for seg in _segments(t, _dialect(file) == "markdown"):
        lo = bisect.bisect_left(token_starts, seg.start)
        hi = bisect.bisect_left(token_starts, seg.end)
        for tok, claim, ok in _assign(t, seg, tokens[lo:hi], claims):
            line, col = _line_col(starts, tok.start)
            finding = Finding(file, line, col, claim.id, text[tok.start : tok.end], tok.value,
                              claim.expected, "match" if ok else "drift",
                              why=_why(t, seg, tok, claim))
            waiver = None if ok else next((w for w in waivers if w.covers(finding)), None)
            if waiver is not None:
                finding = replace(finding, waived=True, waiver_reason=waiver.reason)
            findings.append(finding)
    return sorted(findings)


#: An explicit citation of a claim in Markdown that reads well on GitHub: ``[98.6%](#claim:id)``.
BOUND_RE = re.compile(r"\[([^\]\n]{1,80})\]\(#claim:([A-Za-z0-9_.\-]+)\)")
_BOUND_NUMBER = re.compile(r"^\s*([-−]?\d+(?:\.\d+)?)\s*(\\?%|percent|per cent)?\s*$", re.I)


def _bound_findings(file: str, text: str, claims: Sequence[ClaimQuantity], starts: list[int],
                    waivers: Sequence[Waiver]) -> tuple[list[Finding], str]:
    """Findings of the numbers cited explicitly, and the text with those citations masked.

    A bound number is checked against its claim exactly at the precision it states, in any form
    the claim allows (98.6%, 98.6 percent, or 0.986 for a percent claim); an unknown claim id or
    a link text that is not one number is drift too.
    """
    by_id = {c.id: c for c in claims}
    findings = []
    for m in BOUND_RE.finditer(text):
        label, claim_id = m.group(1), m.group(2)
        line, col = _line_col(starts, m.start())
        claim = by_id.get(claim_id)
        number = _BOUND_NUMBER.match(label)
        if claim is None:
            finding = Finding(file, line, col, claim_id, label, math.nan, "(no such claim)", "drift",
                              bound=True, why="cites a claim id that EVIDENCE.json does not declare")
        elif number is None:
            finding = Finding(file, line, col, claim_id, label, math.nan, claim.expected, "drift",
                              bound=True, why="the link text is not one number")
        else:
            value = float(number.group(1).replace("−", "-"))
            decimals = len(number.group(1).partition(".")[2])
            fraction = claim.format.suffix.strip() == "%" and not number.group(2)
            ok = claim.accepts(value, decimals, fraction=fraction)
            finding = Finding(file, line, col, claim_id, label.strip(), value, claim.expected,
                              "match" if ok else "drift", bound=True, why="cited explicitly")
        if finding.kind == "drift":
            waiver = next((w for w in waivers if w.covers(finding)), None)
            if waiver is not None:
                finding = replace(finding, waived=True, waiver_reason=waiver.reason)
        findings.append(finding)
    return findings, BOUND_RE.sub(lambda m: " " * len(m.group(0)), text)


def _why(t: str, seg: _Segment, tok: _Token, claim: ClaimQuantity) -> str:
    """One line: why an unbound number was read as ``claim``."""
    words = ", ".join(f"'{k}'" for k in claim.keywords)
    return (f"a {'percentage' if tok.unit == '%' else 'number'} in a sentence that names {words} "
            f"(the claim whose words are nearest)")


def cited_claims(findings: Iterable[Finding]) -> set[str]:
    """Claims that some document states (bound or by its words), rightly or wrongly."""
    return {f.claim_id for f in findings}


def _assign(
    t: str, seg: _Segment, tokens: list[_Token], claims: Sequence[ClaimQuantity]
) -> list[tuple[_Token, ClaimQuantity, bool]]:
    """Pair a segment's numbers with claims: correct statements first, then at most one
    drift per claim, most specific and nearest first (see the module docstring)."""
    spans = {
        (c.id, kw): [m.span() for m in _keyword_regex(kw).finditer(t, seg.start, seg.end)]
        for c in claims for kw in c.keywords
    }
    ranked: dict[int, list[tuple[tuple[int, int, int, str], ClaimQuantity]]] = {}
    for n, tok in enumerate(tokens):
        header = seg.header(tok.start)
        for claim in claims:
            if not claim.keywords or not _fits(claim.format, tok):
                continue
            distance = 0
            for kw in claim.keywords:
                if header and _keyword_regex(kw).search(header):
                    continue
                gaps = [max(a - tok.end, tok.start - b, 0)
                        + (_CLAUSE_PENALTY if _CLAUSE.search(t, min(tok.end, b), max(tok.start, a)) else 0)
                        for a, b in spans[(claim.id, kw)]]
                if not gaps:
                    break
                distance += min(gaps)
            else:
                key = (-len(claim.keywords), distance, tok.start, claim.id)
                ranked.setdefault(n, []).append((key, claim))
    # Each number means the claim whose words are most specific and nearest to it; it is then
    # right or wrong for THAT claim. (Accepting a number because it equals some other claim of
    # the sentence let a swapped or stale number pass as that claim's statement.)
    best = {n: min(options, key=lambda o: o[0])[1] for n, options in ranked.items()}
    correct = {claim.id for n, claim in best.items()
               if claim.accepts(tokens[n].value, tokens[n].decimals,
                                fraction=claim.as_fraction(tokens[n].unit))}
    result: dict[int, tuple[ClaimQuantity, bool]] = {}
    drifted: set[str] = set()
    for n, claim in sorted(best.items()):
        tok = tokens[n]
        ok = claim.accepts(tok.value, tok.decimals, fraction=claim.as_fraction(tok.unit))
        if ok:
            result[n] = (claim, True)
        elif claim.id not in correct and claim.id not in drifted:
            # once a claim is stated correctly in a sentence, its other numbers there are
            # comparisons (a baseline, a bound); otherwise the first wrong one is its drift
            result[n] = (claim, False)
            drifted.add(claim.id)
    return [(tokens[n], claim, ok) for n, (claim, ok) in sorted(result.items())]


#: A keyword in another clause than the number ("the CNN reaches 98.7%, but its lead over the
#: MLP ...") names another subject: it counts as far away, whatever the characters between.
_CLAUSE = re.compile(r"[,;:(]|\b(?:but|while|whereas|and|or|than|versus|vs)\b")
_CLAUSE_PENALTY = 10_000


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
) -> list[Finding]:
    """Drifts and matches in the given documents, sorted by file, line and column."""
    findings: list[Finding] = []
    for path in paths:
        findings.extend(scan_text(_relative(path, root), _read(path), claims, waivers))
    return sorted(findings)


def drift_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that fail a check: drifts without a waiver."""
    return [f for f in findings if f.kind == "drift" and not f.waived]


def unused_waivers(findings: Iterable[Finding], waivers: Sequence[Waiver]) -> list[Waiver]:
    """Waivers that waived nothing: a stale exception hides the next real drift."""
    used = [f for f in findings if f.waived]
    return [w for w in waivers if not any(w.covers(f) for f in used)]


def raise_on_drift(findings: Iterable[Finding]) -> None:
    """Raise :class:`DriftError` naming the first drift, if there is any."""
    drifts = drift_findings(findings)
    if drifts:
        first = drifts[0]
        raise DriftError(
            f"{len(drifts)} number(s) in documents drifted from their evidence; first at "
            f"{first.location}: '{first.stated}' for claim '{first.claim_id}', expected "
            f"'{first.expected}'",
            hint="update the document, or record a Waiver with a reason",
        )


def hand_typed_numbers(path: Path, text: str) -> list[HandTypedNumber]:
    """Numbers written literally in a Jinja2 template, outside ``{{ }}``, ``{% %}`` and
    ``{# #}``: in paper sources every number should come from a claim reference."""
    t = _mask_text(text, path.name, jinja=True)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return [
        HandTypedNumber(path.as_posix(), *_line_col(starts, tok.start), text[tok.start : tok.end])
        for tok in _tokenize(t)
        if not tok.decoy
    ]


# --------------------------------------------------------------------------- report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_report(findings: Sequence[Finding], hand_typed: Sequence[HandTypedNumber] = ()) -> str:
    """A Markdown report: drifts, waived drifts, hand-typed template numbers, matches."""
    drifts = drift_findings(findings)
    waived = [f for f in findings if f.kind == "drift" and f.waived]
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
    table("Drift", head, [[f"`{f.location}`", f"`{f.claim_id}`", f.stated, f.expected]
                          for f in drifts])
    table("Waived", [*head, "Reason"], [
        [f"`{f.location}`", f"`{f.claim_id}`", f.stated, f.expected, f.waiver_reason or ""]
        for f in waived
    ])
    table("Hand-typed numbers in templates", ["Location", "Text"],
          [[f"`{h.file}:{h.line}:{h.column}`", h.text] for h in hand_typed])
    table("Matching statements", head, [[f"`{f.location}`", f"`{f.claim_id}`", f.stated,
                                         f.expected] for f in matches])
    return "\n".join(lines) + "\n"
