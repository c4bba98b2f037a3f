"""JSON Schema validation for every file the project reads or writes.

Schemas live in ``evidence/schemas/<name>.schema.json`` (draft 2020-12; the project root's
``schemas/`` points there). A validation failure becomes a :class:`BadInputError` that names
the file, the field (as a dotted path) and what was expected, for the first error in a stable
order, so the same bad file always gets the same message.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evidence.core.errors import BadInputError

if TYPE_CHECKING:  # jsonschema is imported on first validation: a no-op may need none
    import jsonschema
    from jsonschema import Draft202012Validator

SCHEMA_PACKAGE = "evidence.schemas"


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema called ``name`` (e.g. ``"experiment"``), read once per process."""
    text = resources.files(SCHEMA_PACKAGE).joinpath(f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    # Not meta-validated here (a tenth of a second per schema at every doit start-up): the
    # schemas ship with the engine and tests/test_schema.py checks each against its metaschema.
    return schema


@cache
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def field_path(error: jsonschema.ValidationError) -> str:
    """A readable dotted path to the offending field, e.g. ``grid[2].lr`` (``$`` for the root)."""
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "$"


def _describe(error: jsonschema.ValidationError) -> str:
    if error.validator == "required":
        return error.message.replace("is a required property", "is required but missing")
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        return (f"{error.message}; check the spelling: allowed here are "
                f"{', '.join(allowed) if allowed else 'no keys'}")
    return error.message


def validate(instance: Any, schema_name: str, source: object) -> None:
    """Raise :class:`BadInputError` naming ``source`` and the field if ``instance`` is invalid."""
    errors = sorted(_validator(schema_name).iter_errors(instance),
                    key=lambda e: (list(map(str, e.absolute_path)), str(e.validator)))
    if not errors:
        return
    error = errors[0]
    # For "required" the field is the missing key, not its parent.
    field = field_path(error)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        field = f"{field}.{missing}" if field != "$" else missing
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    raise BadInputError(source, _describe(error) + more, field=field,
                        hint=f"see schemas/{schema_name}.schema.json")


def read_toml(path: Path, shown: object = None) -> dict[str, Any] | None:
    """A user's TOML file as a dict, None when it does not exist.

    The one place where "not valid TOML" becomes a :class:`BadInputError` naming the file
    (``shown``, if given, is how the file is named in the message).
    """
    where = shown if shown is not None else path
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise BadInputError(where, "is a folder, expected a TOML file") from None
    except UnicodeDecodeError as error:
        raise BadInputError(where, f"not UTF-8 text (byte {error.start}): TOML files must be UTF-8",
                            hint="save the file as UTF-8") from None
    if "\x00" in text:
        raise BadInputError(where, "contains a NUL byte: not a text file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BadInputError(where, f"not valid TOML: {error}") from None
    except RecursionError:
        raise BadInputError(where, "nested too deeply to read (arrays or tables inside each other "
                            "hundreds of levels deep)") from None
