"""The one reader of every file a person writes: text, JSON and TOML.

EVIDENCE.json, comparisons.toml, figure and table specs, experiments, presets, prices,
evidence.toml, paper templates and documents are all read here, so that a file that is not
UTF-8 (saved as Latin-1, a binary pasted over it), not a text file at all (NUL bytes), a
folder, or not valid JSON / TOML is one :class:`BadInputError` naming the file and the line,
never a ``UnicodeDecodeError`` traceback from whichever step happened to read it first.

A missing file is the caller's business (each says what the file is for): :func:`read_text`
and :func:`read_json` let ``FileNotFoundError`` through, :func:`read_toml` returns None.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from evidence.core.errors import BadInputError


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_text(path: Path, shown: object = None, *, kind: str = "text") -> str:
    """``path`` as UTF-8 text; an undecodable byte, a NUL byte or a folder is bad input naming the
    file (``shown``, if given, is how it is named) and the line. ``kind`` says what was expected."""
    where = shown if shown is not None else path
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise BadInputError(where, f"is a folder, expected a {kind} file") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInputError(where, f"not UTF-8 text: byte 0x{data[error.start]:02x} at line "
                            f"{_line_of(data, error.start)} ({error.reason}); {kind} files must be "
                            "UTF-8", hint="save the file as UTF-8") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise BadInputError(where, f"contains a NUL byte at line {text.count(chr(10), 0, nul) + 1}: "
                            f"not a {kind} file", hint="restore the file from git or a copy")
    return text


def read_json(path: Path, shown: object = None) -> Any:
    """A JSON file's value; a file that does not parse is bad input naming its line and column."""
    where = shown if shown is not None else path
    text = read_text(path, shown, kind="JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise BadInputError(where, f"not valid JSON: {error.msg} at line {error.lineno} column "
                            f"{error.colno}") from None
    except RecursionError:
        raise BadInputError(where, "nested too deeply to read") from None


def read_toml(path: Path, shown: object = None) -> dict[str, Any] | None:
    """A TOML file as a dict, None when it does not exist; a file that does not parse is bad
    input (tomllib's message names the line and column)."""
    where = shown if shown is not None else path
    try:
        text = read_text(path, shown, kind="TOML")
    except FileNotFoundError:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BadInputError(where, f"not valid TOML: {error}") from None
    except RecursionError:
        raise BadInputError(where, "nested too deeply to read (arrays or tables inside each other "
                            "hundreds of levels deep)") from None
