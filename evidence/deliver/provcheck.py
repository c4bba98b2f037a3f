"""Validation of the provenance exports: each new fragment in full, each assembly by its structure.

**PROV-JSON.** The schema (``schemas/prov.schema.json``, the member submission's, draft-04) makes
a document an object whose only properties are ``prefix`` and the record groups, each group an
object mapping any id to one record, checked against that group's definition alone: no
constraint relates two records, or a record to its id. So a document is valid exactly when

1. its skeleton (the prefix block, the names of its groups) is valid,
2. each of its records is valid, and
3. no group declares an id twice (``prov`` would write the two records as a list, which the
   schema refuses).

Validating the whole document at each delivery re-checked 130,000 records at 10,000 runs for the
one run that changed (seconds, the largest part of the step). Instead, a fragment's records are
validated against the full schema, and read back by ``prov``, when the fragment is built
(:func:`check_new`: the fragments of all inputs new since the last export, in one document per
batch), and an assembled document checks (1) and (3) (:func:`check_assembled_prov`); a
fragment the memo keeps is the one validated then, for the same schema and code (both are part of
its key, see :mod:`evidence.deliver.provexport`). The verdict is the one validating the whole
would give (``tests/test_provexport.py`` compares them, and checks that an invalid record is
refused).

**RO-Crate.** ``rocrate`` reads back each new fragment's entities as a crate of their own (with
the root dataset listing their files: ``rocrate`` refuses a data entity the root does not list);
what else reading the assembled crate whole checked holds by construction (one entity per id,
the root's ``hasPart`` listing exactly the data entities), and every file it describes is checked
present in the folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from evidence.core.errors import EvidenceError
from evidence.deliver.provgraph import ANONYMOUS, Fragment

# -- PROV-JSON ---------------------------------------------------------------------------------


def _inline_refs(node: Any, definitions: Mapping[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """``node`` with every ``{"$ref": "#/definitions/X"}`` replaced by X itself (recursively).

    A recursive definition keeps its ``$ref`` (resolved by the validator as before).
    """
    if isinstance(node, dict):
        ref = node.get("$ref")
        if len(node) == 1 and isinstance(ref, str) and ref.startswith("#/definitions/"):
            name = ref.removeprefix("#/definitions/")
            if name in definitions and name not in seen:
                return _inline_refs(definitions[name], definitions, (*seen, name))
            return node
        return {key: _inline_refs(value, definitions, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline_refs(value, definitions, seen) for value in node]
    return node


@cache
def prov_validator() -> Any:
    """The PROV-JSON schema's validator, with its definitions inlined.

    The same schema, but jsonschema no longer resolves a ``$ref`` for every attribute of every
    record, which took most of the validation's time on a document of a thousand runs.
    """
    import jsonschema

    from evidence.core.schema import load_schema

    schema = load_schema("prov")
    inlined = _inline_refs(schema, schema.get("definitions", {}))
    return jsonschema.validators.validator_for(schema)(inlined)


def validate_prov_json(document: Mapping[str, Any],
                       origin: Mapping[tuple[str, str], str] | None = None) -> None:
    """Raise EvidenceError unless ``document`` is valid PROV-JSON (schema + read back by prov).

    ``origin``: (group, id) -> the fragment a record comes from, named in the error.
    """
    from prov.model import ProvDocument

    errors = sorted(prov_validator().iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        path = list(map(str, errors[0].absolute_path))
        where = "/".join(path) or "$"
        source = (origin or {}).get((path[0], path[1])) if len(path) >= 2 else None
        raise EvidenceError(f"prov.json is not valid PROV-JSON at {where}"
                            f"{f' ({source})' if source else ''}: {errors[0].message}")
    try:
        ProvDocument.deserialize(content=json.dumps(document), format="json")
    except Exception as error:  # the prov package raises its own and builtin errors alike
        raise EvidenceError(f"prov.json does not read back with the prov package: {error}") from error


def check_new(prefix: Mapping[str, str], fragments: Sequence[Fragment], context: Any,
              root: Mapping[str, Any], descriptor: Mapping[str, Any]) -> None:
    """Validate the records of ``fragments`` and read them back (prov), and read back their crate
    entities (rocrate); a record or entity that several fragments declare alike is checked once."""
    documents: list[dict[str, Any]] = []
    origins: list[dict[tuple[str, str], str]] = []
    anonymous = 0
    for fragment in fragments:
        for group, ident, attrs in fragment.prov:
            if ident is None:
                anonymous += 1
                ident = f"{ANONYMOUS}{anonymous}"
            slot = next((i for i, doc in enumerate(documents)
                         if ident not in doc.get(group, {}) or doc[group][ident] == attrs), None)
            if slot is None:  # the same id with other attributes: checked in a document of its own
                documents.append({"prefix": dict(prefix)})
                origins.append({})
                slot = len(documents) - 1
            documents[slot].setdefault(group, {})[ident] = attrs
            origins[slot].setdefault((group, ident), fragment.name)
    for doc, origin in zip(documents, origins, strict=True):
        validate_prov_json(doc, origin)
    _read_back_entities(fragments, context, root, descriptor)


def _read_back_entities(fragments: Sequence[Fragment], context: Any, root: Mapping[str, Any],
                        descriptor: Mapping[str, Any]) -> None:
    from rocrate.rocrate import ROCrate

    entities: dict[str, dict[str, Any]] = {}
    files: list[str] = []
    for fragment in fragments:
        for ident, entity, is_file in fragment.crate:
            if ident not in entities:
                entities[ident] = entity
                files += [ident] if is_file else []
    if not entities:
        return
    top = {**root, **({"hasPart": [{"@id": f} for f in files]} if files else {})}
    own = (top["@id"], descriptor["@id"])
    graph = [top, dict(descriptor), *(e for i, e in entities.items() if i not in own)]
    try:
        crate = ROCrate(source=json.loads(json.dumps({"@context": context, "@graph": graph})))
    except Exception as error:  # rocrate raises ValueError, KeyError, AssertionError...
        raise EvidenceError(f"the RO-Crate does not read back with the rocrate package: {error!r}") from error
    lost = [i for i in entities if crate.get(i) is None]
    if lost:
        raise EvidenceError(f"the RO-Crate does not read back with the rocrate package: {lost[:5]} lost")


def check_assembled_prov(prefix: Mapping[str, str], groups: Iterable[str]) -> None:
    """The skeleton of an assembled document: its prefix block and the names of its groups."""
    validate_prov_json({"prefix": dict(prefix), **{group: {} for group in groups}})


def check_assembled_crate(out: Path, parts: Sequence[str], writing: Iterable[str] = ()) -> None:
    """An assembled crate: every file it describes is in ``out`` (or among the files ``writing``
    that the export writes with it). Its entities are one per id and its root lists exactly its
    data entities by construction (:func:`evidence.deliver.provexport.assemble_crate`)."""
    writing = set(writing)
    missing = [p for p in parts if p not in writing and not (out / p).is_file()]
    if missing:
        raise EvidenceError(f"the RO-Crate in {out} describes files it does not contain: {missing[:5]}")
