"""Every shipped schema is a valid JSON Schema, and validation errors name file and field."""

from __future__ import annotations

from importlib import resources

import pytest
from jsonschema import Draft4Validator, Draft202012Validator

from evidence.core.errors import BadInputError
from evidence.core.schema import load_schema, validate

NAMES = sorted(p.name.removesuffix(".schema.json")
               for p in resources.files("evidence.schemas").iterdir() if p.name.endswith(".schema.json"))


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_against_its_metaschema(name: str) -> None:
    schema = load_schema(name)
    validator = Draft4Validator if "draft-04" in schema.get("$schema", "") else Draft202012Validator
    validator.check_schema(schema)


def test_error_names_the_file_the_field_and_the_expectation() -> None:
    bad = {"schema_version": 1, "run_id": "x", "key": "0" * 64, "algorithm": "blake3",
           "files": {"a.json": {"digest": "nothex", "size": 1}}}
    with pytest.raises(BadInputError, match=r"runs/x/manifest.json: field 'files.a.json.digest'"):
        validate(bad, "manifest", "runs/x/manifest.json")
    with pytest.raises(BadInputError, match=r"field 'algorithm': 'algorithm' is required but missing"):
        validate({k: v for k, v in bad.items() if k != "algorithm"}, "manifest", "m.json")
