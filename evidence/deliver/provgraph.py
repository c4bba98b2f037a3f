"""What one input of the deliverable contributes to the provenance exports: its fragment.

The two exports (:mod:`evidence.deliver.provexport`) describe one graph; each part of it comes
from one input, and is built here, with the ``prov`` and ``rocrate`` packages, as a
:class:`Fragment`:

* the **head**: the PROV namespaces and the engine agent; the crate's root dataset, metadata
  descriptor, profile and engine (they hold the engine's version and the publication date);
* one per **run** the deliverable uses: its training (activity, ``CreateAction``), trainer
  code, data split, run collection and ``results.json``; from the run's sealed ``spec.json``
  and ``provenance.json`` alone, so it never changes while the run is sealed;
* one per **figure or table**: its source-data step and plotting (tabulation), its source data
  and outputs, from its provenance sidecars and which of its runs the deliverable uses;
* the **claims**: the claim resolution, each claim, ``claims.json``;
* the crate's **tail**: the other files of the deliverable (paper, reports, ledger, PDFs).

A fragment lists its PROV records in the order the whole document adds them: PROV-JSON names
each relation with a blank node numbered in that order across the whole document (``_:id1``,
``_:id2``...), so a fragment is built as a document of its own (numbered from 1) and
:func:`assemble` renumbers its relations after those of the fragments before it. An entity
that several runs share (their trainer code, their data split; a trainer of the crate) is
declared by the first fragment that has it, as the whole document did. Each record and entity is
kept rendered (:mod:`evidence.deliver.provtext`), so the assembled text is exactly what
serialising the whole document with the same packages writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from evidence.core.errors import EvidenceError
from evidence.deliver.provtext import crate_entity_text, prov_record_text

PROCESS_RUN_CRATE = "https://w3id.org/ro/wfrun/process/0.5"
NAMESPACES = {"ev": "https://evidence.dev/ns#", "file": "urn:evidence:file:",
              "run": "urn:evidence:run:", "claim": "urn:evidence:claim:"}
ENGINE_AGENT = "ev:evidence"
ANONYMOUS = "_:id"  # how the prov package names a record without an identifier


@dataclass
class Fragment:
    """The records (PROV) and entities (RO-Crate) one input contributes, in document order.

    ``prov``: ``(group, id, attributes)``; ``id`` None for a relation (numbered on assembly).
    ``crate``: ``(id, entity, is a data entity)``. ``shared``: the ids that other fragments
    may declare too (the first one in document order is kept).
    """

    name: str
    prov: list[tuple[str, str | None, Any]] = field(default_factory=list)
    crate: list[tuple[str, dict[str, Any], bool]] = field(default_factory=list)
    shared: set[str] = field(default_factory=set)

    def stored(self) -> dict[str, Any]:
        """The JSON form kept in the memo and assembled: every record and entity rendered."""
        return {"name": self.name,
                "prov": [[group, ident, ident in self.shared, prov_record_text(attrs)]
                         for group, ident, attrs in self.prov],
                "crate": [[ident, crate_entity_text(entity), is_file, ident in self.shared]
                          for ident, entity, is_file in self.crate]}


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _prov_doc() -> Any:
    from prov.model import ProvDocument

    doc = ProvDocument()
    for prefix, uri in NAMESPACES.items():
        doc.add_namespace(prefix, uri)
    return doc


def _records(doc: Any) -> list[tuple[str, str | None, Any]]:
    """The records of a ``prov`` document as PROV-JSON, in the order they were added.

    The serialiser names records without an identifier ``_:id1``, ``_:id2``... in that order;
    records with one keep it (a fragment never declares an id twice).
    """
    from prov.model import PROV_N_MAP

    container = json.loads(doc.serialize(format="json"))
    found: list[tuple[str, str | None, Any]] = []
    anonymous = 0
    for record in doc.records:
        group = PROV_N_MAP[record.get_type()]
        if record.identifier is None:
            anonymous += 1
            found.append((group, None, container[group][f"{ANONYMOUS}{anonymous}"]))
        else:
            ident = str(record.identifier)
            found.append((group, ident, container[group][ident]))
    return found


class CrateBuilder:
    """Entities of the crate built with ``rocrate`` on one scratch crate per export.

    A fragment's actions refer to entities of other fragments (the runs' results, the engine) by
    id, which is all the crate's JSON holds of a reference.
    """

    def __init__(self, out: Path) -> None:
        from rocrate.rocrate import ROCrate

        self.out = out
        self.crate = ROCrate()

    def file(self, rel: str, name: str | None = None) -> tuple[str, dict[str, Any], bool]:
        entity = self.crate.add_file(self.out / rel, dest_path=rel, properties={"name": name or rel})
        return entity.id, _plain(entity.properties()), True

    def context(self, ident: str, properties: dict[str, Any]) -> tuple[str, dict[str, Any], bool]:
        from rocrate.model.contextentity import ContextEntity

        entity = self.crate.add(ContextEntity(self.crate, ident, properties=properties))
        return entity.id, _plain(entity.properties()), False

    def action(self, instrument: str, ident: str, inputs: Sequence[str], outputs: Sequence[str],
               properties: dict[str, Any]) -> tuple[str, dict[str, Any], bool]:
        entity = self.crate.add_action({"@id": instrument}, identifier=ident,
                                       object=[{"@id": i} for i in inputs],
                                       result=[{"@id": o} for o in outputs], properties=properties)
        return entity.id, _plain(entity.properties()), False


def _plain(value: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON copy of an entity's properties (the crate keeps mutating its own)."""
    copied: dict[str, Any] = json.loads(json.dumps(value, ensure_ascii=False))
    return copied


# -- the head ----------------------------------------------------------------------------------


@dataclass
class Head:
    """The head fragment, and what every crate of this export shares: its JSON-LD context, its
    root dataset (``hasPart`` is filled on assembly) and metadata descriptor; PROV's prefixes."""

    fragment: Fragment
    context: Any
    root: dict[str, Any]
    descriptor: dict[str, Any]
    prefix: dict[str, str]


def head(version: str, title: str, date: str) -> Head:
    """The engine (agent, software application) and the crate's root, for this deliverable."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    doc = _prov_doc()
    doc.agent(ENGINE_AGENT, {"prov:type": "prov:SoftwareAgent", "ev:version": version})
    crate = ROCrate()
    crate.name = title or "evidence deliverable"
    crate.description = ("The deliverable of `doit deliver`: paper, figures, tables, claims and the runs "
                         "behind them.")
    crate.datePublished = date
    crate.root_dataset["conformsTo"] = [{"@id": PROCESS_RUN_CRATE}]
    crate.add(ContextEntity(crate, PROCESS_RUN_CRATE, properties={
        "@type": "CreativeWork", "name": "Process Run Crate", "version": "0.5"}))
    crate.add(ContextEntity(crate, "#evidence", properties={
        "@type": "SoftwareApplication", "name": "evidence", "softwareVersion": version}))
    entities = [(e.id, _plain(e.properties()), False) for e in crate.get_entities()]
    root, descriptor = crate.root_dataset.id, crate.metadata.id
    container = json.loads(doc.serialize(format="json"))
    return Head(Fragment("the engine", prov=_records(doc), crate=[e for e in entities if e[0] != root]),
                context=crate.metadata.generate()["@context"],
                root=next(entity for ident, entity, _ in entities if ident == root),
                descriptor=next(entity for ident, entity, _ in entities if ident == descriptor),
                prefix=dict(container.get("prefix", {})))


# -- a run -------------------------------------------------------------------------------------


def run_fragment(run_id: str, spec: Mapping[str, Any], provenance: Mapping[str, Any],
                 compute: Mapping[str, Any], crate: CrateBuilder) -> Fragment:
    """A run: trained by the engine, using its trainer code and data split, making its results."""
    doc = _prov_doc()
    identity = spec["identity"]
    train = doc.activity(f"ev:train/{run_id}", _time(provenance.get("started_at")),
                         _time(provenance.get("finished_at")),
                         {"prov:type": "ev:Training", "ev:label": f"{spec['experiment']}/{spec['label']}",
                          "ev:wall_seconds": float(compute["wall_seconds"]),
                          "ev:device_hours": float(compute["device_hours"]),
                          "ev:device": f"{compute['device_count']} x {compute['device_kind']}"})
    doc.wasAssociatedWith(train, ENGINE_AGENT)
    code = f"ev:trainer/{identity['trainer']}/{identity['trainer_digest'][:16]}"
    data = identity["data"]
    split = f"ev:data/{data['dataset']}/{data['split_digests']['train'][:16]}" + \
        ("/shuffled" if data.get("shuffle_labels") else "")
    doc.entity(code, {"prov:type": "ev:TrainerCode", "ev:digest": identity["trainer_digest"]})
    doc.entity(split, {"prov:type": "ev:DataSplit", "ev:raw_digest": str(data.get("raw_digest")),
                       "ev:shuffle_labels": bool(data.get("shuffle_labels"))})
    doc.used(train, code)
    doc.used(train, split)
    run = doc.entity(f"run:{run_id}", {"prov:type": "prov:Collection", "ev:key": spec["key"],
                                       "ev:seed": int(identity["seed"])})
    result = doc.entity(results_id(run_id), {"prov:type": "ev:Results"})
    doc.wasGeneratedBy(run, train)
    doc.wasGeneratedBy(result, train)
    doc.hadMember(run, result)
    doc.wasDerivedFrom(result, code)
    trainer = identity["trainer"]
    trainer_entity = crate.context(f"#trainer-{trainer}", {
        "@type": "SoftwareApplication", "name": f"trainers/{trainer}.py",
        "identifier": identity["trainer_digest"]})
    spec_file, results_file = crate.file(f"runs/{run_id}/spec.json"), crate.file(results_rel(run_id))
    action = crate.action(trainer_entity[0], f"#train-{run_id}", [spec_file[0]], [results_file[0]], {
        "@type": "CreateAction", "name": f"train {spec['experiment']}/{spec['label']}",
        "startTime": provenance.get("started_at"), "endTime": provenance.get("finished_at"),
        "description": f"{compute['device_hours']:.6f} device-hours on "
                       f"{compute['device_count']} x {compute['device_kind']}"})
    return Fragment(f"run {run_id}", prov=_records(doc),
                    crate=[trainer_entity, spec_file, results_file, action],
                    shared={code, split, trainer_entity[0]})


def results_id(run_id: str) -> str:
    return f"file:{results_rel(run_id)}"


def results_rel(run_id: str) -> str:
    return f"runs/{run_id}/results.json"


# -- a figure or a table -----------------------------------------------------------------------


def sidecar_fragment(item: Mapping[str, Any], used: Iterable[str], present: Iterable[str],
                     crate: CrateBuilder) -> Fragment:
    """A figure or table: its source data from the runs' results, its outputs from the source data.

    ``used``: those of its runs the deliverable uses; ``present``: those of its files that the
    deliverable holds (only they are described in the crate).
    """
    used, present = list(used), set(present)
    kind, name = item["kind"], item["name"]
    doc = _prov_doc()
    step = doc.activity(f"ev:source_data/{kind}/{name}", other_attributes={"prov:type": "ev:SourceData"})
    render = doc.activity(f"ev:render/{kind}/{name}", other_attributes={
        "prov:type": "ev:Plotting" if kind == "figure" else "ev:Tabulation"})
    for act in (step, render):
        doc.wasAssociatedWith(act, ENGINE_AGENT)
    source = doc.entity(f"file:{item['source_data']}", {"prov:type": "ev:SourceData"})
    doc.wasGeneratedBy(source, step)
    for run_id in used:
        doc.used(step, results_id(run_id))
        doc.wasDerivedFrom(source, results_id(run_id))
    doc.used(render, source)
    for output in item["outputs"]:
        out = doc.entity(f"file:{output}", {"prov:type": f"ev:{kind.capitalize()}"})
        doc.wasGeneratedBy(out, render)
        doc.wasDerivedFrom(out, source)
    refs = [rel for rel in [item["source_data"], *item["outputs"], item["sidecar"]] if rel in present]
    entities = [crate.file(rel) for rel in dict.fromkeys(refs)]
    if refs:
        entities.append(crate.action("#evidence", f"#{kind}-{name}", [results_rel(r) for r in used], refs,
                                     {"@type": "CreateAction", "name": f"build {kind} {name}"}))
    # a file another fragment described first keeps that description (as one crate did)
    return Fragment(f"{kind} {name}", prov=_records(doc), crate=entities, shared=set(refs))


def sidecar_files(item: Mapping[str, Any]) -> list[str]:
    """The deliverable files a figure's or table's part of the crate describes (if present)."""
    return list(dict.fromkeys([item["source_data"], *item["outputs"], item["sidecar"]]))


# -- the claims --------------------------------------------------------------------------------


def claims_fragment(claims: Mapping[str, Any], used: Sequence[str], present: Iterable[str],
                    crate: CrateBuilder) -> Fragment:
    """The claim resolution: every claim, from the results of the runs it cites; ``claims.json``.

    ``used``: every run the deliverable uses (the resolution read them all); ``present``: which of
    ``claims.json`` and ``verify/report.json`` the deliverable holds.
    """
    used_set, present = set(used), set(present)
    doc = _prov_doc()
    resolve = doc.activity("ev:resolve_claims", other_attributes={"prov:type": "ev:ClaimResolution"})
    doc.wasAssociatedWith(resolve, ENGINE_AGENT)
    claims_file = doc.entity("file:build/claims/claims.json", {"prov:type": "ev:Claims"})
    doc.wasGeneratedBy(claims_file, resolve)
    read: set[str] = set()
    claim_entities = []
    for claim in claims["claims"]:
        entity = doc.entity(f"claim:{claim['id']}", {"prov:type": "ev:Claim",
                                                     "ev:statement": claim["statement"],
                                                     "ev:formatted": str(claim.get("formatted"))})
        doc.wasGeneratedBy(entity, resolve)
        doc.hadMember(claims_file, entity)
        cited = [r["run_id"] for r in claim.get("runs", []) if r["run_id"] in used_set]
        for run_id in cited:
            if run_id not in read:  # one usage per results file, however many claims cite it
                doc.used(resolve, results_id(run_id))
                read.add(run_id)
            doc.wasDerivedFrom(entity, results_id(run_id))
        claim_entities.append(crate.context(f"#claim-{claim['id']}", {
            "@type": "Claim", "name": claim["id"], "text": claim["statement"],
            "isBasedOn": [{"@id": results_rel(r)} for r in cited]}))
    entities = list(claim_entities)
    if "claims.json" in present:
        claims_entity = crate.file("claims.json", "resolved claims")
        report = [crate.file("verify/report.json")] if "verify/report.json" in present else []
        entities += [claims_entity, *report]
        entities.append(crate.action("#evidence", "#resolve-claims",
                                     [*map(results_rel, used), *(r[0] for r in report)],
                                     ["claims.json", *(c[0] for c in claim_entities)],
                                     {"@type": "CreateAction",
                                      "name": "resolve the claims of EVIDENCE.json"}))
    return Fragment("the claims", prov=_records(doc), crate=entities,
                    shared={"claims.json", "verify/report.json"})


# -- the crate's tail --------------------------------------------------------------------------


def tail_fragment(rels: Iterable[str], crate: CrateBuilder) -> Fragment:
    """The deliverable's other files (each once: a file described before keeps its description)."""
    files = [crate.file(rel) for rel in rels]
    return Fragment("the deliverable's files", crate=files, shared={f[0] for f in files})


def check_ids(fragment: Fragment) -> None:
    """A fragment declares each id once (else PROV-JSON would hold a list, which is invalid)."""
    seen: set[tuple[str, str]] = set()
    for group, ident, _ in fragment.prov:
        if ident is not None and (group, ident) in seen:
            raise EvidenceError(f"prov.json would declare {ident} twice ({fragment.name})")
        if ident is not None:
            seen.add((group, ident))
