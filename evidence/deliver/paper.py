"""Render the paper from Jinja2 sources: every number comes from a claim, figure or table.

The sources in ``paper/*.md.j2`` are Markdown with template calls; the helpers are the only
way a number gets into the paper:

* ``{{ claim("id") }}``: the claim's value as the claim formats it ("98.6%");
* ``{{ ci("id") }}``, ``{{ n("id") }}``: its interval and number of seeds;
* ``{{ citation("id") }}``: the citation of the published number a ``reference:`` claim cites
  (or a comparison is made against), from comparisons.toml, so it is never typed by hand;
* ``{{ statement("id") }}``: the claim's full sentence, followed by its disclosures;
* ``{{ figure("name") }}``, ``{{ table("name") }}``: the figure (image, caption, links to its
  provenance sidecar and source_data.csv) or the table (with caption and links);
* ``{{ disclosures("id") }}``: the claim's disclosures alone; ``{{ disclosure_summary() }}``;
* ``{{ project_disclosures() }}``: findings that affect every claim; ``{{ disclosures_link() }}``;
  ``{{ evidence_link() }}`` (the evidence page: the runs behind every claim); a paper that does
  not call them gets them appended, so none can be left out;
* ``{{ title }}`` and ``{{ authors }}`` from EVIDENCE.json.

An unknown reference, or any undefined name, fails rendering with a message that names it and
the template line. Output is Markdown and a standalone HTML page; text that comes from user
files (statements, captions, disclosure messages) is HTML-escaped before it is placed, so it
cannot inject markup into the HTML page.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from evidence.core.errors import BadInputError, EvidenceError

#: The deliverable's page of the runs behind the claims (evidence.deliver.evidencepage).
EVIDENCE_PAGE = "evidence.html"
SEVERITY_MARK = {"serious": "SERIOUS", "warning": "warning", "info": "note"}


class PaperReferenceError(EvidenceError):
    """A template refers to a claim, figure or table that does not exist."""


@dataclass
class PaperInputs:
    """Everything a paper may cite, already resolved from evidence."""

    claims: Mapping[str, Mapping[str, Any]]
    figures: Mapping[str, Mapping[str, Any]]
    tables: Mapping[str, Mapping[str, Any]]
    disclosures: Sequence[Mapping[str, Any]]
    title: str = ""
    extra: Mapping[str, Any] | None = None
    authors: Sequence[str] = ()


def escape(text: object) -> str:
    """Escape user text for Markdown that becomes HTML: no raw tags, no entities injected."""
    return html.escape(str(text), quote=False)


def split_table_caption(markdown: str) -> tuple[str, str]:
    """A table.md split into its pipe table and its Pandoc-style ``Table:`` caption line.

    The paper numbers the caption itself ("Table 1."); left in the body, Python-Markdown shows
    the ``Table:`` line as a paragraph of its own, and the reader saw the caption twice.
    """
    lines = markdown.strip().splitlines()
    caption = ""
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith("Table: "):
            caption = lines.pop(index).removeprefix("Table: ").strip()
            break
    return "\n".join(lines).strip(), caption


def _lookup(kind: str, table: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise PaperReferenceError(f"unknown {kind} {name!r} (known: {known})")
    value: Mapping[str, Any] = table[name]
    return value


_WHY_NOT = {
    "insufficient_evidence": "the evidence shows neither a difference nor its absence",
    "noise": "an equivalence test shows the difference is smaller than the declared margin",
    "suspected_bug": "verify suspects a bug in the evidence, so it is not evidence either way",
    "effect": "the data show a difference in the other direction",
}


def not_shown(resolved: Mapping[str, Any]) -> str:
    """An unsupported claim as what it is: "We could not show that the CNN beats the MLP ...: why."

    The claim's own sentence, with its numbers, becomes the object of "We could not show that",
    followed by why (from the verify verdict, or the failing predicate) and, where verify
    estimated it, the seeds that would be needed. A confident sentence with a small mark after
    it reads as a finding; this reads as the open question it is.
    """
    sentence = str(resolved["statement"]).strip().rstrip(".")
    if len(sentence) > 1 and sentence[0].isupper() and not sentence[1].isupper():
        sentence = sentence[0].lower() + sentence[1:]  # "The CNN" -> "the CNN"; "CNN" stays
    label = resolved.get("classification")
    predicate = resolved.get("predicate") or {}
    if resolved.get("why_reader"):  # the reason that decided it, with its numbers (claims.support)
        why = str(resolved["why_reader"])
    elif label in _WHY_NOT and not (label == "effect" and resolved.get("direction_matches_claim")):
        why = _WHY_NOT[str(label)]
        needed = resolved.get("seeds_needed")
        if label == "insufficient_evidence" and needed:
            why += f"; about {needed} seeds per group would be needed (an estimate from these seeds)"
    else:
        why = f"its test fails ({predicate.get('detail', 'no predicate')})"
    return f"**Not shown.** We could not show that {escape(sentence)}: {escape(why)}."


def helpers(inputs: PaperInputs, *, link_root: str = "",
            called: set[str] | None = None) -> dict[str, Callable[..., str]]:
    """The template functions; ``link_root`` prefixes figure and table links; ``called`` collects
    the names of the helpers that must appear in every paper once they have been used."""
    called = set() if called is None else called

    def claim(name: str) -> str:
        return escape(_lookup("claim", inputs.claims, name)["formatted"])

    def ci(name: str) -> str:
        return escape(_lookup("claim", inputs.claims, name)["ci_formatted"])

    def n(name: str) -> str:
        return escape(_lookup("claim", inputs.claims, name)["n"])

    def disclosures(name: str) -> str:
        _lookup("claim", inputs.claims, name)
        found = [d for d in inputs.disclosures
                 if d.get("scope", "claim") == "claim" and name in d.get("claims", [])]
        return "\n\n".join(f"> **Disclosure ({SEVERITY_MARK.get(d['severity'], d['severity'])}):** "
                             f"{escape(d.get('reader_message') or d['message'])}" for d in found)

    def citation(name: str) -> str:
        """Where the published number a claim cites (or is compared with) comes from."""
        resolved = _lookup("claim", inputs.claims, name)
        if not resolved.get("citation"):
            raise PaperReferenceError(f"claim {name!r} cites no published number, so it has no citation")
        return escape(resolved["citation"])

    def statement(name: str) -> str:
        resolved = _lookup("claim", inputs.claims, name)
        if resolved["supported"]:
            text = escape(resolved["statement"])
            if resolved.get("caveat"):
                text += f" *(Caveat: {escape(resolved['caveat'])}.)*"
        else:
            text = not_shown(resolved)
        notes = disclosures(name)
        return text + (f"\n\n{notes}" if notes else "")

    numbers: dict[tuple[str, str], int] = {}

    def number(kind: str, name: str) -> int:
        """Figures and tables are numbered in the order the paper first shows them."""
        key = (kind, name)
        if key not in numbers:
            numbers[key] = sum(k == kind for k, _ in numbers) + 1
        return numbers[key]

    def figure(name: str) -> str:
        entry = _lookup("figure", inputs.figures, name)
        base = f"{link_root}figures/{name}/"
        image = Path(entry["images"]["png"]).name
        # the spec's caption (or title), never the folder name: readers do not see internal names
        caption = escape(entry.get("caption") or entry.get("title") or "")
        return (f"![{caption}]({base}{image})\n\n*Figure {number('figure', name)}.* {caption} "
                f"[provenance]({base}{Path(entry['sidecar']).name}) · "
                f"[source data]({base}{Path(entry['source_data']).name})")

    def table(name: str) -> str:
        entry = _lookup("table", inputs.tables, name)
        base = f"{link_root}tables/{name}/"
        body, caption = split_table_caption(Path(entry["markdown"]).read_text("utf-8"))
        caption = caption or str(entry.get("caption") or "")
        # one caption, numbered, above the table (table.md's own "Table:" line is not repeated)
        return (f"*Table {number('table', name)}.* {escape(caption) + ' ' if caption else ''}"
                f"[provenance]({base}{Path(entry['sidecar']).name}) · "
                f"[source data]({base}{Path(entry['source_data']).name})\n\n{escape(body)}")

    def project_disclosures() -> str:
        """The findings that affect every claim (a stale price, a dirty tree), as the audit wrote them."""
        called.add("project_disclosures")
        found = [d for d in inputs.disclosures if d.get("scope") == "project"]
        if not found:
            return "No finding affects the whole project."
        return "\n\n".join(f"> **Disclosure ({SEVERITY_MARK.get(d['severity'], d['severity'])}):** "
                           f"{escape(d['message'])}" for d in found)

    def disclosures_link() -> str:
        called.add("disclosures_link")
        return f"[DISCLOSURES.md]({link_root}DISCLOSURES.md)"

    def evidence_link() -> str:
        called.add("evidence_link")
        return f"[the evidence page]({link_root}{EVIDENCE_PAGE})"

    def disclosure_summary() -> str:
        counts: dict[str, int] = {}
        for d in inputs.disclosures:
            counts[d["severity"]] = counts.get(d["severity"], 0) + 1
        parts = [f"{counts[s]} {s}" for s in ("serious", "warning", "info") if s in counts]
        return ", ".join(parts) if parts else "none"

    return {"claim": claim, "ci": ci, "n": n, "citation": citation, "statement": statement, "figure": figure,
            "table": table, "disclosures": disclosures, "disclosure_summary": disclosure_summary,
            "project_disclosures": project_disclosures, "disclosures_link": disclosures_link,
            "evidence_link": evidence_link}


def required_footer(inputs: PaperInputs, called: set[str], *, link_root: str = "") -> str:
    """What every paper shows even if its template forgot it: the project-wide findings and the
    link to DISCLOSURES.md (a finding that affects every claim is never left out of the paper)."""
    parts = []
    project = [d for d in inputs.disclosures if d.get("scope") == "project"]
    if project and "project_disclosures" not in called:
        parts.append("## Findings that affect every claim\n\n" + helpers(inputs)["project_disclosures"]())
    if "disclosures_link" not in called:
        parts.append(f"Every finding of the audit: [DISCLOSURES.md]({link_root}DISCLOSURES.md).")
    if "evidence_link" not in called:
        parts.append(f"The runs behind every claim, with their intervals and verdicts: "
                     f"[the evidence page]({link_root}{EVIDENCE_PAGE}).")
    return "\n\n".join(parts)


def render_markdown(source: Path, inputs: PaperInputs, *, link_root: str = "") -> str:
    """Render one Jinja2 Markdown source; errors name the reference and the template line."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(source.parent)), undefined=jinja2.StrictUndefined,
        autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    called: set[str] = set()
    environment.globals.update(helpers(inputs, link_root=link_root, called=called))
    environment.globals["title"] = escape(inputs.title)
    environment.globals["authors"] = escape(", ".join(inputs.authors))
    environment.globals.update(inputs.extra or {})
    try:
        template = environment.get_template(source.name)
        text = template.render()
        footer = required_footer(inputs, called, link_root=link_root)
        return text.rstrip("\n") + "\n\n" + footer + "\n" if footer else text
    except PaperReferenceError as error:
        line = _template_line(error)
        raise BadInputError(f"{source}{f':{line}' if line else ''}", error.message,
                            hint="fix the reference, or add it to EVIDENCE.json, figures/ or tables/",
                            ) from None
    except jinja2.UndefinedError as error:
        line = _template_line(error)
        raise BadInputError(f"{source}{f':{line}' if line else ''}", f"undefined name: {error.message}",
                            hint="use claim(), figure(), table() or statement()") from None
    except jinja2.TemplateSyntaxError as error:
        raise BadInputError(f"{source}:{error.lineno}", f"template syntax error: {error.message}") from None


def _template_line(error: BaseException) -> int | None:
    tb = error.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(".j2"):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


HTML_PAGE = jinja2.Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: Georgia, 'DejaVu Serif', serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.5; color: #1a1a1a; }
img { max-width: 100%; display: block; margin: 1rem auto; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border-bottom: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
blockquote { border-left: 4px solid #d9822b; background: #fff6ec; margin: 0.5rem 0; padding: 0.3rem 0.8rem; }
code { background: #f3f3f3; padding: 0 0.2rem; }
</style>
</head>
<body>
{{ body }}
</body>
</html>
""", autoescape=True)


def markdown_to_html(text: str, title: str) -> str:
    """A standalone HTML page from the rendered Markdown (tables and fenced code enabled)."""
    import markdown
    from markupsafe import Markup

    body = markdown.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    return HTML_PAGE.render(title=title, body=Markup(body))  # escaped upstream
