"""Sections and asides of a document that belong to an earlier release: no statement of the evidence.

A changelog keeps every release's numbers ("## [0.3.0] - 2026-08-21 ... CNN 98.0%"), and so do
release notes and a paper's revision history. Whether an old entry still speaks for the evidence
is the document's to say: one changelog checks every entry against its delivery, another keeps
the old entries "for the record". So an older release's section is blanked (from its heading to
the next heading of that level or above) only where the document says so: its heading marks it
(``superseded``, ``old``, ``historical``, ``obsolete``), or the document says its older entries are
superseded or kept for the record. A version heading is one that opens with ``[0.3.0]``,
``v0.3.0``, ``Version 2``/``Release 2`` or a three-part number (``0.3.0``); ``## 7.1 Results`` is a
section number. The current release is the one its heading marks (``current``, ``latest``), else
the highest. An aside that opens with an older version ("(v0.3.0: 98.0%)") is blanked wherever
the document has a current version. Offsets and lines are kept (blanks are spaces), so every
finding elsewhere still names its line.
"""

from __future__ import annotations

import re

#: A Markdown ATX heading (``## [0.3.0] - 2026-08-21``).
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$", re.M)
#: A LaTeX sectioning command (``\subsection{Version 0.3}``).
_TEX_HEADING = re.compile(r"\\(section|subsection|subsubsection|paragraph)\*?\{([^{}\n]*)\}")
_TEX_LEVELS = {"section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4}
#: A heading that opens with a version: "[0.3.0]", "v0.3.0", "Version 2", "Release 1.2 (2026-05-02)",
#: "0.3.0 - date" (three parts); never a section number ("7.1 Running example").
_VERSION_OPENING = re.compile(r"[\W_]*?(?:(?P<word>(?:version|release|rev(?:ision)?)\s+v?)|(?P<bracket>\[v?)"
                              r"|(?P<v>v))?(?P<number>\d+(?:\.\d+){0,3})\]?(?![\w.])", re.I)
#: A heading that marks its own section as an earlier version's.
_OLD_HEADING = re.compile(r"\b(?:superseded|obsolete|historical|deprecated|withdrawn|retracted"
                          r"|old\s+(?:numbers|scaling|values|results)|numbers\s+below\s+are\s+from)\b", re.I)
#: A sentence that says the older entries no longer describe the evidence.
_OLDER_ENTRIES = re.compile(r"\b(?:older|earlier|previous|past)\s+(?:entries|releases|versions|sections)\b"
                            r"[^.\n]{0,80}?\b(?:superseded|for\s+the\s+record|historical|no\s+longer"
                            r"|earlier\s+builds|outdated)\b"
                            r"|\bonly\s+the\s+(?:current|latest|newest|top)\s+(?:release|entry|version|section)\b",
                            re.I)
_UNRELEASED = re.compile(r"[\W_]*\[?unreleased\]?", re.I)
#: A heading that says its version is the one in force.
_CURRENT = re.compile(r"\b(?:current|latest|this\s+release|in\s+force)\b", re.I)
#: An aside that opens with a version and a colon or "=": "(v0.3.0: 98.0%)", "(in v2 = 61.8)".
_VERSION_ASIDE = re.compile(r"\(\s*(?:in\s+|was\s+|cf\.?\s+)?v(\d+(?:\.\d+){0,3})\s*[:=]\s*[^()\n]*\)", re.I)
#: A version named anywhere ("v0.4.0"), for the current one when no heading says.
_VERSION_ANYWHERE = re.compile(r"(?<![\w.])v(\d+(?:\.\d+){0,3})(?![\w.])", re.I)

Version = tuple[int, ...]


def _version(text: str) -> Version:
    return tuple(int(part) for part in text.split("."))


def _headings(raw: str, tex: bool) -> list[tuple[int, int, int, str]]:
    """(start, end, level, title) of every heading of ``raw``."""
    if tex:
        return [(m.start(), m.end(), _TEX_LEVELS[m.group(1)], m.group(2)) for m in _TEX_HEADING.finditer(raw)]
    return [(m.start(), m.end(), len(m.group(1)), m.group(2)) for m in _MD_HEADING.finditer(raw)]


def _versioned(title: str) -> Version | None:
    """The version a heading opens with; ``Unreleased`` is newer than every release."""
    if _UNRELEASED.match(title):
        return (10**9,)
    m = _VERSION_OPENING.match(title)
    if m is None or not (m.group("word") or m.group("bracket") or m.group("v")
                         or m.group("number").count(".") >= 2):
        return None  # "## 3 Results", "## 7.1 Running example": a section number, no version
    return _version(m.group("number"))


def old_version_spans(raw: str, masked: str, *, tex: bool = False) -> list[tuple[int, int]]:
    """The spans of ``raw`` that are an earlier version's: sections under an older version's heading
    and asides opening with an older version (see the module docstring)."""
    if not re.search(r"\d\.\d|version|release|unreleased|\bv\d", raw, re.I):
        return []  # most documents name no version at all
    headings = [h for h in _headings(raw, tex) if masked[h[0] : h[1]].strip()]  # not in code
    by_level: dict[int, list[tuple[int, int, int, str, Version]]] = {}
    for start, end, level, title in headings:
        version = _versioned(title)
        if version is not None:
            by_level.setdefault(level, []).append((start, end, level, title, version))
    spans: list[tuple[int, int]] = []
    current: Version | None = None
    for level, entries in sorted(by_level.items()):
        if len(entries) < 2:
            continue
        marked = [e for e in entries if _CURRENT.search(e[3])]
        released = [e for e in entries if not _UNRELEASED.match(e[3])] or entries
        current_entry = marked[0] if marked else max(released, key=lambda e: e[4])
        current = current or current_entry[4]
        first = min(e[0] for e in entries)
        said = _OLDER_ENTRIES.search(masked[:first]) is not None  # "Older entries are kept for the record"
        for start, end, _, title, version in entries:
            if (start, end) == current_entry[:2] or version >= current_entry[4] \
                    or not (said or _OLD_HEADING.search(title)):
                continue
            after = [h[0] for h in headings if h[0] > start and h[2] <= level]
            spans.append((end, after[0] if after else len(raw)))
        break  # the outermost level of versions is the document's releases
    if current is None:
        named = [_version(m.group(1)) for m in _VERSION_ANYWHERE.finditer(masked)]
        current = max(named) if named else None
    if current is not None:
        spans += [(m.start(), m.end()) for m in _VERSION_ASIDE.finditer(raw)
                  if _version(m.group(1)) < current and masked[m.start() : m.end()].strip()]
    return spans
