"""JSON Schema validation for every file the project reads or writes.

Schemas live in ``evidence/schemas/<name>.schema.json`` (draft 2020-12; the project root's
``schemas/`` points there). A validation failure becomes a :class:`BadInputError` that names
the file, the field (as a dotted path) and what was expected, for the first error in a stable
order, so the same bad file always gets the same message.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from evidence.core.errors import BadInputError
from evidence.core.readers import read_toml  # noqa: F401  (the one TOML reader, kept here for callers)

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
