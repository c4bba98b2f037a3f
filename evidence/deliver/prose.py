"""The prose of a document, found by real parsers: what reconcile reads numbers in.

A document is turned into a *masked text* (the same length as the source, every character that
is not prose replaced by a space, so offsets and line numbers stay the source's) and its
*segments*: the units a number is judged in (a sentence, a heading, a table row whose cells know
their column header and row header).

* Markdown is parsed by markdown-it-py (CommonMark, with tables, footnotes and front matter):
  only paragraphs (in list items, block quotes and footnote definitions too), headings and table
  rows are prose; code blocks, HTML blocks, front matter and link definitions are not.
* LaTeX is walked by pylatexenc's ``LatexWalker``: comments, verbatim and display-math
  environments, the arguments of cross-referencing and layout macros (``\\cite``, ``\\ref``,
  ``\\includegraphics``, ``\\vspace``...) and optional arguments are masked; a macro's name
  becomes a word (``\\%`` a percent sign, ``\\,`` a space); ``tabular`` rows are split at ``\\\\``
  and cells at ``&``.
* Jinja templates have their ``{{ }}``, ``{% %}`` and ``{# #}`` blocks masked before parsing.

Inline decoys (code spans, URLs, DOIs, dates, citations...) are masked afterwards by
:mod:`evidence.deliver.reconcile`'s patterns, on prose only.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from evidence.deliver.versions import old_version_spans

_JINJA_RE = re.compile(r"\{\{[\s\S]*?(?:\}\}|\Z)|\{%[\s\S]*?(?:%\}|\Z)|\{#[\s\S]*?(?:#\}|\Z)")


@dataclass(frozen=True)
class Cell:
    start: int
    end: int
    column: str  # the column's header text ("" when none)
    row: str  # the row's header (its first cell), "" for the first cell itself


@dataclass
class Segment:
    """A sentence, a heading, a caption or a table row, by offsets into the document."""

    start: int
    end: int
    cells: tuple[Cell, ...] = ()
    kind: str = "sentence"  # sentence | heading | row
    clause: bool = False  # ends with ';': the sentence goes on in the next segment
    level: int = 0  # a Markdown heading's level (1 for '#'); 0 where the source gives none
    field: bool = False  # a line of labelled fields ("Seeds evaluated: 4"), a card's or a form's

    def cell(self, pos: int) -> Cell | None:
        return next((c for c in self.cells if c.start <= pos < c.end), None)

    def header(self, pos: int) -> str:
        cell = self.cell(pos)
        return cell.column if cell else ""


@dataclass
class Prose:
    masked: str
    segments: list[Segment] = field(default_factory=list)


def spaces(text: str) -> str:
    """``text`` blanked: every character but a newline a space (offsets and lines kept)."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(part) for part in text.split("\n"))


def is_template(name: str) -> bool:
    return any(s in (".j2", ".jinja", ".jinja2") for s in Path(name).suffixes)


def dialect(name: str) -> str:
    return "tex" if ".tex" in Path(name).suffixes else "markdown"


def mask_jinja(text: str) -> str:
    """Every Jinja block blanked. ``{{ statement("id") }}`` renders a whole sentence, so its
    blank ends in a period: the sentence after it is judged on its own."""

    def blank(m: re.Match[str]) -> str:
        out = spaces(m.group(0))
        return out[:-1] + "." if _STATEMENT_HELPER.match(m.group(0)) and not out.endswith("\n") else out

    return _JINJA_RE.sub(blank, _blank_dead_branches(text))


#: ``{% if false %}`` (or ``0``, ``False``, ``none``): a branch that never renders.
_DEAD_IF = re.compile(r"\{%-?\s*if\s+(?:false|0|none)\s*-?%\}", re.I)
_IF_OR_ENDIF = re.compile(r"\{%-?\s*(?P<kw>if|endif)\b[\s\S]*?(?:%\}|\Z)")


def _blank_dead_branches(text: str) -> str:
    """The body of ``{% if false %} ... {% endif %}`` blanked (nested ifs counted): a branch the
    template never renders states nothing, whatever numbers it keeps (a hidden old history)."""
    out, pos = [], 0
    for m in _DEAD_IF.finditer(text):
        if m.start() < pos:
            continue
        depth, end = 1, len(text)
        for k in _IF_OR_ENDIF.finditer(text, m.end()):
            depth += 1 if k.group("kw") == "if" else -1
            if depth == 0:
                end = k.end()
                break
        out += [text[pos : m.start()], spaces(text[m.start() : end])]
        pos = end
    return "".join(out) + text[pos:] if out else text


_STATEMENT_HELPER = re.compile(r"\{\{-?\s*statement\(")


@lru_cache(maxsize=32)
def parse(name: str, text: str) -> Prose:
    """The prose of ``text`` read as the dialect its name says (templates unwrapped first)."""
    if is_template(name):
        text = mask_jinja(text)
    tex = dialect(name) == "tex"
    doc = _parse_tex(text) if tex else _parse_markdown(text, template=is_template(name))
    # a changelog's older releases and "(v0.3.0: 98.0%)" asides: the record, no statement now
    spans = old_version_spans(text, doc.masked, tex=tex)
    if not spans:
        return doc
    masked = doc.masked
    for lo, hi in spans:
        masked = masked[:lo] + spaces(masked[lo:hi]) + masked[hi:]
    return Prose(masked, doc.segments)


# --------------------------------------------------------------------------- sentences

_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "al", "fig", "figs", "eq", "eqs", "sec", "secs", "tab", "vs", "cf", "approx",
    "resp", "no", "nos", "dr", "prof", "mr", "ms", "ref", "refs", "ch", "vol", "ed", "eds", "p",
    "pp", "ca", "incl", "acc", "avg", "std", "est", "max", "min",
})
_BOUNDARY_RE = re.compile(r"[.!?;][\"'”’)\]*_]*(?=\s|$|<br\b)", re.I)  # "1.2.<br>" ends one too


#: A line that opens with a speaker's bold label ("**[09:03] @rhea:**", "**Reviewer 2**:"): a chat
#: export or a dialogue, one message a line, each its own sentence even without a period.
_SPEAKER_LINE = re.compile(r"\n(?=[ \t]*(?:\*\*|__)[^*_\n]{1,60}?(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:))")


#: A line that opens with a field's label and a colon ("Seeds evaluated: 4", "Verdict vs MLP: ...").
_LABEL_LINE = re.compile(r"\n(?=[ \t]*[A-Z(][^:\n.!?|]{0,60}:[ \t])")
_LABEL_OPENING = re.compile(r"[ \t]*[A-Z(][^:\n.!?|]{0,60}:[ \t]")


def sentences(t: str, start: int, end: int) -> list[Segment]:
    """Split a block into sentences: after . ! ? ; and whitespace, unless the period ends a
    known abbreviation or an initial, or the next word starts in lower case; and before a line
    that opens with a speaker's label."""
    cuts = [m.end() for m in _SPEAKER_LINE.finditer(t, start, end)]
    labelled = [m.end() for m in _LABEL_LINE.finditer(t, start, end)]
    if len(labelled) >= 2 or (labelled and _LABEL_OPENING.match(t, start)):
        # "Test accuracy (mean over 5 seeds): 0.0987\nSeeds evaluated: 4": a model card's fields,
        # each its own statement though no period ends it
        cuts = sorted({*cuts, *labelled})
    if cuts:
        fields = set(labelled) | ({start} if labelled and _LABEL_OPENING.match(t, start) else set())
        return [replace(seg, field=a in fields) for a, b in zip([start, *cuts], [*cuts, end], strict=True)
                for seg in _sentences(t, a, b)]
    return _sentences(t, start, end)


def _sentences(t: str, start: int, end: int) -> list[Segment]:
    out, s = [], start
    for m in _BOUNDARY_RE.finditer(t, start, end):
        words = t[s : m.start()].split()
        word = words[-1].lstrip("([*_\"'").lower() if words else ""
        rest = t[m.end() : end].lstrip()
        if t[m.start()] == ";":
            head = t[s : m.start()]
            if head.count("[") > head.count("]") or head.count("(") > head.count(")"):
                continue  # "[98.1; 99.5]": a separator inside brackets, no clause end
            out.append(Segment(s, m.end(), clause=True))
            s = m.end()
            continue
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        if rest and rest[0].islower():
            continue
        out.append(Segment(s, m.end()))
        s = m.end()
    if t[s:end].strip():
        out.append(Segment(s, end))
    return out


# --------------------------------------------------------------------------- Markdown


@cache
def _markdown(template: bool = False) -> Any:
    """The Markdown parser; in a Jinja template the indentation a masked block leaves before text
    (``{% endfor %}| control | 11.2% |``) is no indented code block."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark").enable("table").use(footnote_plugin).use(front_matter_plugin)
    return md.disable("code") if template else md


#: What opens a line of a paragraph inside a container: block quote marks, a list marker, a
#: footnote definition's label.
_CONTAINER_RE = re.compile(r"^[ \t]*(?:>[ \t]?)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?"
                           r"(?:\[\^[^\]\n]+\]:[ \t]*)?")
_HEADING_MARK_RE = re.compile(r"^[ \t]*(?:>[ \t]?)*[ \t]*#{1,6}(?:[ \t]+(?:\d+\.)*\d+\.?(?=\s))?")
_SETEXT_RE = re.compile(r"^[ \t]*(?:=+|-+)[ \t]*$")


_HTML_CELL = re.compile(r"<t[hd](?:\s[^>]*)?>(.*?)</t[hd]>", re.I)
_HTML_TAG = re.compile(r"<[^>\n]*>")
#: An HTML block of prose (a paragraph, a list, a caption), not of code or comments.
_HTML_PROSE = re.compile(r"\s*<(?:p|div|li|ul|ol|dl|dd|dt|span|figure|figcaption|caption|section|article"
                         r"|details|summary|aside|blockquote|b|strong|em|i|h[1-6])\b", re.I)
_HTML_CODE = re.compile(r"<(?:pre|code|script|style|kbd|samp)\b|<!--", re.I)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def _parse_markdown(text: str, template: bool = False) -> Prose:
    starts = _line_starts(text)
    lines = text.split("\n")
    keep = [False] * len(lines)
    masked = [spaces(line) for line in lines]
    segments: list[Segment] = []
    tokens = _markdown(template).parse(text)

    def span(a: int, b: int) -> tuple[int, int]:
        b = min(b, len(lines))
        return starts[a], starts[b - 1] + len(lines[b - 1])

    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type in ("paragraph_open", "heading_open") and tok.map:
            a, b = tok.map
            for n in range(a, min(b, len(lines))):
                line = lines[n]
                prefix = (_HEADING_MARK_RE if tok.type == "heading_open" else _CONTAINER_RE).match(line)
                cut = prefix.end() if prefix and (n == a or tok.type == "heading_open") else \
                    len(re.match(r"^[ \t]*(?:>[ \t]?)*", line).group(0))  # type: ignore[union-attr]
                if tok.type == "heading_open" and _SETEXT_RE.match(line) and n > a:
                    continue
                masked[n] = " " * cut + line[cut:]
                keep[n] = True
            s, e = span(a, b)
            if tok.type == "heading_open":
                level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 0
                segments.append(Segment(s, e, kind="heading", level=level))
            else:
                segments.append(Segment(s, e, kind="block"))
        elif tok.type == "html_block" and tok.map and "<tr" in tok.content.lower():
            a, b = tok.map  # an HTML table: one row per line, its cells read like a pipe table's
            html_header: list[str] = []
            for n in range(a, min(b, len(lines))):
                found = list(_HTML_CELL.finditer(lines[n]))
                if not found:
                    continue
                masked[n] = _HTML_TAG.sub(lambda m: " " * len(m.group(0)), lines[n])
                keep[n] = True
                cells = [(starts[n] + m.start(1), starts[n] + m.end(1)) for m in found]
                if not html_header:
                    html_header = [m.group(1).strip() for m in found]
                    segments.append(Segment(starts[n], starts[n] + len(lines[n]), kind="row"))
                    continue
                row_head = found[0].group(1).strip()
                segments.append(Segment(starts[n], starts[n] + len(lines[n]), tuple(
                    Cell(a0, b0, html_header[k] if k < len(html_header) else "", row_head if k else "")
                    for k, (a0, b0) in enumerate(cells)), kind="row"))
        elif tok.type == "html_block" and tok.map and _HTML_PROSE.match(tok.content) \
                and not _HTML_CODE.search(tok.content):
            a, b = tok.map  # "<p>Linear minus control: <b>-61.4</b>.</p>": prose in HTML markup
            for n in range(a, min(b, len(lines))):
                masked[n] = _HTML_TAG.sub(lambda m: " " * len(m.group(0)), lines[n])
                keep[n] = True
            s, e = span(a, b)
            segments.append(Segment(s, e, kind="block"))
        elif tok.type == "table_open" and tok.map:
            j = i
            header: list[tuple[int, int]] = []
            while j < len(tokens) and tokens[j].type != "table_close":
                row = tokens[j]
                if row.type == "tr_open" and row.map:
                    n = row.map[0]
                    masked[n] = lines[n]
                    keep[n] = True
                    cells = _pipe_cells(text, starts[n], starts[n] + len(lines[n]))
                    if not header:
                        header = cells
                        segments.append(Segment(starts[n], starts[n] + len(lines[n]), kind="row"))
                    else:
                        heads = [text[a0:b0].strip() for a0, b0 in header]
                        row_head = text[cells[0][0]:cells[0][1]].strip() if cells else ""
                        segments.append(Segment(starts[n], starts[n] + len(lines[n]), tuple(
                            Cell(a0, b0, heads[k] if k < len(heads) else "", row_head if k else "")
                            for k, (a0, b0) in enumerate(cells)), kind="row"))
                j += 1
            i = j
        i += 1
    out = "\n".join(masked)
    final: list[Segment] = []
    for seg in segments:
        if seg.kind == "block":
            final.extend(sentences(out, seg.start, seg.end))
        else:
            final.append(seg)
    return Prose(out, final)


def _pipe_cells(t: str, start: int, end: int) -> list[tuple[int, int]]:
    pipes = [i for i in range(start, end) if t[i] == "|" and t[i - 1 : i] != "\\"]
    bounds = [start - 1, *pipes, end]
    cells = [(a + 1, b) for a, b in itertools.pairwise(bounds)]
    if t[start:end].strip().startswith("|"):
        cells = cells[1:]
    if t[start:end].strip().endswith("|") and cells:
        cells = cells[:-1]
    return cells


# --------------------------------------------------------------------------- LaTeX

#: A cell's opening \\multicolumn{n} or \\multirow{n}, after the rules and comments before it.
_SPANNING = re.compile(r"(?:\s|%[^\n]*\n|\\(?:toprule|midrule|bottomrule|hline|addlinespace)\b(?:\[[^\]]*\])?"
                       r"|\\c(?:mid)?(?:line|rule)\s*(?:\([^)]*\))?\s*(?:\[[^\]]*\])?\s*\{[^}]*\})*"
                       r"\\(multicolumn|multirow)\s*(?:\[[^\]]*\])?\s*\{\s*(\d+)\s*\}")


#: A caption defining a bare "P" as the probability of improvement: "P is P(first better)", "P = Pr(A > B)".
_P_DEFINED = re.compile(r"(?<![\w(])\$?P\$?\s*(?:is|=|:|denotes)\s*(?:the\s+)?(?:P|Pr|Prob)\s*\(", re.I)
#: A row label that is a pair of its own ("CNN vs MLP", "wide − MLP").
_PAIR_HEAD = re.compile(r"\w\s+(?:vs\.?|versus|minus|[-−–])\s+\w", re.I)


def _spanning(cell: str) -> tuple[str, int, str] | None:
    """A cell that is a ``\\multicolumn{n}{spec}{text}`` or ``\\multirow{n}{width}{text}``:
    (which, n, its text as words); None for any other cell."""
    m = _SPANNING.match(cell)
    if m is None:
        return None
    args: list[str] = []
    pos = m.end()
    while len(args) < 2 and pos < len(cell):  # the spec (or width), then the text, braces nested
        while pos < len(cell) and cell[pos] in " \t\n[":
            if cell[pos] == "[":
                pos = cell.find("]", pos) + 1 or len(cell)
            else:
                pos += 1
        if pos >= len(cell) or cell[pos] != "{":
            break
        start, pos = pos, _closing_brace(cell, pos)
        args.append(cell[start + 1 : pos])
        pos += 1
    if len(args) < 2:
        return None
    words = re.sub(r"\s+", " ", re.sub(r"\\[A-Za-z]+\*?|[{}$~]", " ", args[1])).strip()
    return m.group(1), int(m.group(2)), words


def _closing_brace(text: str, opening: int) -> int:
    """The offset of the brace closing the one at ``opening`` (nested braces counted)."""
    depth = 0
    for pos in range(opening, len(text)):
        depth += {"{": 1, "}": -1}.get(text[pos], 0)
        if depth == 0:
            return pos
    return len(text)


def _spanning_layout(cell: str) -> tuple[int, int] | None:
    """Where a spanning cell's layout is (``\\multirow{2}{*}{``): from its macro to its text's
    opening brace, which is no prose (its count is no number of the table)."""
    m = _SPANNING.match(cell)
    if m is None or _spanning(cell) is None:
        return None
    start = m.start(1) - 1
    braces, pos = 0, m.end()
    while pos < len(cell):  # past the spec (or width) argument to the text's opening brace
        if cell[pos] == "{":
            braces += 1
            if braces == 2:
                return start, pos + 1
            pos = _closing_brace(cell, pos)
        pos += 1
    return None


#: Macros whose arguments are never prose: references, citations, files, layout, definitions.
_MASKED_MACROS = frozenset({
    "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "parencite",
    "textcite", "autocite", "footcite", "nocite", "ref", "eqref", "autoref", "cref", "Cref", "pageref",
    "nameref", "label", "input", "include", "includegraphics", "url", "bibliography",
    "bibliographystyle", "usepackage", "documentclass", "RequirePackage", "vspace", "hspace",
    "vskip", "hskip", "setlength", "addtolength", "setcounter", "addtocounter", "newcommand",
    "renewcommand", "providecommand", "def", "newenvironment", "renewenvironment", "geometry",
    "hypersetup", "multicolumn", "multirow", "cline", "cmidrule", "rule", "resizebox", "scalebox",
    "includepdf", "lstinputlisting", "verb", "lstinline", "texttt", "path", "href", "footnotemark",
    "IfFileExists", "graphicspath", "DeclareMathOperator", "newtheorem", "arraystretch",
    "definecolor", "color", "textcolor", "pgfplotsset", "tikz", "bibitem", "date",
})
#: Environments whose body is never prose.
_MASKED_ENVS = frozenset({
    "verbatim", "verbatim*", "lstlisting", "minted", "comment", "equation", "equation*", "align",
    "align*", "gather", "gather*", "multline", "multline*", "eqnarray", "eqnarray*", "displaymath",
    "math", "tikzpicture", "thebibliography", "filecontents", "filecontents*", "alignat", "alignat*",
    "flalign", "flalign*", "axis", "Verbatim", "algorithmic", "algorithm",
})
#: Sectioning commands and slide titles: their title is a heading, read apart from the prose
#: after it, and its subjects are the section's ("\subsection{The CNN against the MLP}").
_HEADING_MACROS = frozenset({"part", "chapter", "section", "subsection", "subsubsection", "paragraph",
                             "subparagraph", "frametitle", "framesubtitle"})
#: Emphasis and boxes: their argument is text, their name no word of it ("may \emph{not} write").
_FORMAT_MACROS = frozenset({"emph", "textbf", "textit", "textsc", "textsl", "textup", "textrm", "textsf",
                            "textnormal", "underline", "mbox", "hbox", "text", "uline", "textmd",
                            "alert", "structure"})  # Beamer emphasis
#: Environments whose first braced argument is a title (Beamer's \begin{frame}{Title}).
_TITLED_ENVS = frozenset({"frame"})
_TABULAR_ENVS = frozenset({"tabular", "tabular*", "tabularx", "longtable", "tabulary", "array",
                           "tblr", "supertabular"})
_RULES = frozenset({"hline", "toprule", "midrule", "bottomrule", "cline", "cmidrule", "addlinespace",
                    "endhead", "endfirsthead", "endfoot", "endlastfoot"})


def _parse_tex(text: str) -> Prose:
    from pylatexenc.latexwalker import LatexWalker

    chars = list(text)
    rows: list[Segment] = []  # table rows and headings: segments of their own
    blocks: list[tuple[int, int]] = []

    def mask(a: int, b: int) -> None:
        for k in range(max(a, 0), min(b, len(chars))):
            if chars[k] != "\n":
                chars[k] = " "

    try:
        nodes = LatexWalker(text, tolerant_parsing=True).get_latex_nodes()[0] or []
    except Exception:
        nodes = []
        blocks.append((0, len(text)))

    def macro(node: Any) -> None:
        name = node.macroname
        head = len(name) + 1
        if name in _MASKED_MACROS or name in _RULES:
            mask(node.pos, node.pos + node.len)
            return
        if name == "%":
            chars[node.pos] = " "
        elif name == "item":  # a list item is a statement of its own: end the one before it
            mask(node.pos, node.pos + head)
            chars[node.pos] = "."
        elif name in _HEADING_MACROS or name in _FORMAT_MACROS or name == "footnote":
            mask(node.pos, node.pos + head)  # structure and emphasis, not words of the text
        elif name.isalpha():
            chars[node.pos] = " "  # \evCnnTestAccuracy -> a word; \alpha -> "alpha"
        else:
            mask(node.pos, node.pos + head)  # \, \; \! \\ and accents: spacing, not text
        args = node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []
        for arg in args:
            if arg is None:
                continue
            if text[arg.pos : arg.pos + 1] == "[":
                mask(arg.pos, arg.pos + arg.len)  # options: [width=0.8\linewidth]
            else:
                walk([arg])
        titles = [a for a in args if a is not None and text[a.pos : a.pos + 1] == "{"]
        if name in _HEADING_MACROS and titles:
            rows.append(Segment(titles[-1].pos, titles[-1].pos + titles[-1].len, kind="heading"))
        if name == "footnote" and titles:  # a footnote is statements of its own, not its sentence's
            chars[node.pos] = "."
            end = titles[-1].pos + titles[-1].len - 1
            if not "".join(chars[titles[-1].pos : end]).rstrip().endswith((".", "!", "?")):
                chars[end] = "."

    def title_after(nodes: list[Any], k: int) -> None:
        """The braced title after a heading macro without arguments (\frametitle{...}) or at
        the start of a titled environment, options before it skipped."""
        for node in nodes[k:]:
            if node is None:
                continue
            if type(node).__name__ == "LatexCharsNode" and (not node.chars.strip()
                                                           or node.chars.strip().startswith("[")):
                if node.chars.strip():
                    mask(node.pos, node.pos + node.len)  # a frame's options: [t], [fragile]
                continue
            if type(node).__name__ == "LatexGroupNode":
                rows.append(Segment(node.pos, node.pos + node.len, kind="heading"))
            return

    def tabular(node: Any) -> None:
        mask(node.pos, node.pos + len(r"\begin{}") + len(node.environmentname))
        for arg in (node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist else []):
            if arg is not None:
                mask(arg.pos, arg.pos + arg.len)  # the column spec
        end_pos = node.pos + node.len
        tail = text.rfind("\\end", node.pos, end_pos)
        if tail >= 0:
            mask(tail, end_pos)
        cells: list[list[tuple[int, int]]] = [[]]
        body = node.nodelist or []
        start = body[0].pos if body else end_pos
        for child in body:
            if child.isNodeType(_specials()) and child.specials_chars == "&":
                cells[-1].append((start, child.pos))
                chars[child.pos] = " "
                start = child.pos + 1
            elif child.isNodeType(_macro()) and child.macroname == "\\":
                cells[-1].append((start, child.pos))
                mask(child.pos, child.pos + child.len)
                cells.append([])
                start = child.pos + child.len
            else:
                walk([child])
        cells[-1].append((start, tail if tail >= 0 else end_pos))
        real = [row for row in cells if any("".join(chars[a:b]).strip() for a, b in row)]
        if not real:
            return
        # the header is the first row of several cells: a longtable's \caption row comes first
        first = next((i for i, row in enumerate(real) if len(row) > 1), 0)
        header = []  # one entry per column: a \multicolumn{n}{..}{Comparison} heads n of them
        for a, b in real[first]:
            span = _spanning(text[a:b])
            header += [span[2]] * span[1] if span and span[0] == "multicolumn" \
                else ["".join(chars[a:b]).strip()]
        table_at = text.rfind("\\begin{table", 0, node.pos)
        table_end = text.find("\\end{table", end_pos)
        if _P_DEFINED.search(text, max(table_at, 0), table_end if table_end >= 0 else end_pos):
            # the caption says "P is P(first better)": a column headed "P" holds that probability
            header = ["P(better)" if re.fullmatch(r"\$?P\$?", h) else h for h in header]
        lead = next((n for kind, n, _ in filter(None, [_spanning(text[a:b]) for a, b in real[first][:1]])
                     if kind == "multicolumn"), 1)  # the row header's columns: "Comparison" over two
        for row in real[: first + 1]:
            rows.append(Segment(row[0][0], row[-1][1], kind="row"))
        for row in real:
            for a, b in row:
                if (layout := _spanning_layout(text[a:b])) is not None:
                    mask(a + layout[0], a + layout[1])  # "\multirow{2}{*}{": layout, not a number
        carried: dict[int, tuple[str, int]] = {}  # column -> (a \multirow's text, rows it still spans)
        for row in real[first + 1 :]:
            heads = []
            for k, (a, b) in enumerate(row[:lead]):
                own = "".join(chars[a:b]).strip()
                span = _spanning(text[a:b])
                if span and span[0] == "multirow":
                    own, carried[k] = span[2], (span[2], span[1] - 1)
                elif not own and carried.get(k, ("", 0))[1] > 0:
                    own, carried[k] = carried[k][0], (carried[k][0], carried[k][1] - 1)
                heads.append(own)
            # the group ("vs control") with the row's own label ("CNN"), unless that names a pair itself
            row_head = heads[-1] if heads and _PAIR_HEAD.search(heads[-1]) \
                else " ".join(h for h in heads if h)
            rows.append(Segment(row[0][0], row[-1][1], tuple(
                Cell(a, b, header[k] if k < len(header) else "", row_head if k >= lead else "")
                for k, (a, b) in enumerate(row)), kind="row"))

    def walk(nodes: list[Any]) -> None:
        for k, node in enumerate(nodes):
            if node is None:
                continue
            kind = type(node).__name__
            if kind == "LatexCommentNode":
                mask(node.pos, node.pos + node.len)
            elif kind == "LatexMacroNode":
                macro(node)
                if node.macroname in _HEADING_MACROS and not (node.nodeargd and node.nodeargd.argnlist
                                                              and any(node.nodeargd.argnlist)):
                    title_after(nodes, k + 1)
            elif kind == "LatexEnvironmentNode":
                name = node.environmentname
                if name in _MASKED_ENVS:
                    mask(node.pos, node.pos + node.len)
                elif name in _TABULAR_ENVS:
                    tabular(node)
                else:
                    mask(node.pos, node.pos + len(r"\begin{}") + len(name))
                    for arg in (node.nodeargd.argnlist if node.nodeargd and node.nodeargd.argnlist
                                else []):
                        if arg is not None:
                            mask(arg.pos, arg.pos + arg.len)
                    if name in _TITLED_ENVS:
                        title_after(node.nodelist or [], 0)
                    walk(node.nodelist or [])
                    tail = text.rfind("\\end", node.pos, node.pos + node.len)
                    if tail >= 0:
                        mask(tail, node.pos + node.len)
            elif kind == "LatexMathNode":
                if node.displaytype == "display":
                    mask(node.pos, node.pos + node.len)
                else:
                    delim = 1 if text[node.pos] == "$" else 2
                    mask(node.pos, node.pos + delim)
                    mask(node.pos + node.len - delim, node.pos + node.len)
                    walk(node.nodelist or [])
            elif kind == "LatexGroupNode":
                chars[node.pos] = " "
                if node.len > 1:
                    chars[node.pos + node.len - 1] = " "
                walk(node.nodelist or [])
            elif kind == "LatexSpecialsNode" and node.specials_chars in ("~", "&"):
                chars[node.pos] = " "

    walk(nodes)
    masked = "".join(chars)
    # paragraphs: runs of non-blank lines outside the table rows
    segments = list(rows)
    taken = sorted((s.start, s.end) for s in rows)
    for m in re.finditer(r"(?:[^\n]*\S[^\n]*(?:\n|$))+", masked):
        a, b = m.start(), m.end()
        pieces, cursor = [], a
        for s, e in taken:
            if e <= cursor or s >= b:
                continue
            if s > cursor:
                pieces.append((cursor, s))
            cursor = max(cursor, e)
        if cursor < b:
            pieces.append((cursor, b))
        for s, e in pieces:
            if masked[s:e].strip():
                segments.extend(sentences(masked, s, e))
    segments.sort(key=lambda s: s.start)
    return Prose(masked, segments)


@cache
def _specials() -> Any:
    from pylatexenc.latexwalker import LatexSpecialsNode

    return LatexSpecialsNode


@cache
def _macro() -> Any:
    from pylatexenc.latexwalker import LatexMacroNode

    return LatexMacroNode
