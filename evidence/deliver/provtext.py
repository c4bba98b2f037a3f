"""The text of the provenance exports, assembled from pieces rendered once.

``prov.json`` is ``json.dumps(document, indent=1, sort_keys=True)`` and
``ro-crate-metadata.json`` is ``json.dumps(crate, indent=4, sort_keys=True, ensure_ascii=False)``
(what the ``rocrate`` package writes). With an indent, ``json`` encodes in pure Python: at 10,000
runs that alone took seconds per delivery, for records of which one in ten thousand changed.

So each record (PROV) or entity (RO-Crate) is rendered once, on its own, as it would appear at
its depth in the whole document, and kept with its fragment (:mod:`evidence.deliver.provgraph`);
a delivery only joins the pieces. The pieces are exactly the encoder's output: a value nested at
depth ``d`` is the value encoded alone with every line break followed by ``d`` indents more
(strings never hold a raw line break: the encoder escapes it), and ``sort_keys`` sorts keys as
``sorted`` does, so joining the sorted pieces is byte for byte what encoding the whole would write
(tests/test_provexport.py compares the two on real documents).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

PROV_INDENT = 1
CRATE_INDENT = 4


def prov_record_text(attributes: Any) -> str:
    """One PROV record's attributes (a record of a group: depth 2 of the document)."""
    text = json.dumps(attributes, indent=PROV_INDENT, sort_keys=True)
    return text.replace("\n", "\n" + " " * 2 * PROV_INDENT)


def crate_entity_text(entity: Mapping[str, Any]) -> str:
    """One entity of the crate's ``@graph`` (depth 2 of the document)."""
    return json.dumps(entity, indent=CRATE_INDENT, sort_keys=True,
                      ensure_ascii=False).replace("\n", "\n" + " " * 2 * CRATE_INDENT)


def prov_document_text(prefix: Mapping[str, str], groups: Mapping[str, Mapping[str, str]]) -> str:
    """``json.dumps({"prefix": prefix, **groups}, indent=1, sort_keys=True)`` where each record
    of ``groups`` (group -> id -> rendered record) is already text."""
    one, two = " " * PROV_INDENT, " " * 2 * PROV_INDENT
    blocks = {name: json.dumps(dict(prefix), indent=PROV_INDENT, sort_keys=True).replace("\n", "\n" + one)
              for name in (["prefix"] if prefix else [])}
    for name, records in groups.items():
        if records:
            body = f",\n{two}".join(f"{json.dumps(ident)}: {records[ident]}" for ident in sorted(records))
            blocks[name] = f"{{\n{two}{body}\n{one}}}"
    if not blocks:
        return "{}"
    body = f",\n{one}".join(f"{json.dumps(name)}: {blocks[name]}" for name in sorted(blocks))
    return f"{{\n{one}{body}\n}}"


def crate_document_text(context: Any, entities: Iterable[str]) -> str:
    """``json.dumps({"@context": context, "@graph": graph}, indent=4, sort_keys=True,
    ensure_ascii=False)`` where each entity of the graph is already text."""
    one, two = " " * CRATE_INDENT, " " * 2 * CRATE_INDENT
    items = list(entities)
    graph = f"[\n{two}" + f",\n{two}".join(items) + f"\n{one}]" if items else "[]"
    context_text = json.dumps(context, indent=CRATE_INDENT, sort_keys=True,
                              ensure_ascii=False).replace("\n", "\n" + one)
    return f'{{\n{one}"@context": {context_text},\n{one}"@graph": {graph}\n}}'
