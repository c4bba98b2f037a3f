"""The provenance exports built whole, as the engine built them before they were assembled from
fragments: every run, figure and claim added to one ``prov`` document and one ``rocrate`` crate,
each serialised at once. The tests compare the engine's bytes with these.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evidence.core.project import Project
from evidence.core.provenance import package_versions
from evidence.deliver.claims import claims_path
from evidence.deliver.ledger import compute_of
from evidence.deliver.provexport import TAIL, publication_date, sidecars, used_runs
from evidence.deliver.provgraph import NAMESPACES, PROCESS_RUN_CRATE


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _facts(project: Project, run_id: str) -> tuple[Any, Any, Any]:
    folder = project.runs_dir / run_id
    spec, prov = _json(folder / "spec.json"), _json(folder / "provenance.json")
    return spec, prov, compute_of(prov)


def _version() -> str:
    return package_versions(("evidence",))["evidence"] or "unknown"


def _time(text: str | None) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def whole_prov(project: Project) -> str:
    """prov.json's text from one ``prov`` document of everything."""
    from prov.model import ProvDocument

    claims = _json(claims_path(project))
    runs = used_runs(project, claims)
    doc = ProvDocument()
    for prefix, uri in NAMESPACES.items():
        doc.add_namespace(prefix, uri)
    engine = doc.agent("ev:evidence", {"prov:type": "prov:SoftwareAgent", "ev:version": _version()})
    results: dict[str, str] = {}
    declared: set[str] = set()
    for run_id in runs:
        spec, prov, compute = _facts(project, run_id)
        identity = spec["identity"]
        train = doc.activity(f"ev:train/{run_id}", _time(prov.get("started_at")),
                             _time(prov.get("finished_at")),
                             {"prov:type": "ev:Training", "ev:label": f"{spec['experiment']}/{spec['label']}",
                              "ev:wall_seconds": float(compute["wall_seconds"]),
                              "ev:device_hours": float(compute["device_hours"]),
                              "ev:device": f"{compute['device_count']} x {compute['device_kind']}"})
        doc.wasAssociatedWith(train, engine)
        code = f"ev:trainer/{identity['trainer']}/{identity['trainer_digest'][:16]}"
        data = identity["data"]
        split = f"ev:data/{data['dataset']}/{data['split_digests']['train'][:16]}" + \
            ("/shuffled" if data.get("shuffle_labels") else "")
        if code not in declared:
            doc.entity(code, {"prov:type": "ev:TrainerCode", "ev:digest": identity["trainer_digest"]})
        if split not in declared:
            doc.entity(split, {"prov:type": "ev:DataSplit", "ev:raw_digest": str(data.get("raw_digest")),
                               "ev:shuffle_labels": bool(data.get("shuffle_labels"))})
        declared |= {code, split}
        doc.used(train, code)
        doc.used(train, split)
        run = doc.entity(f"run:{run_id}", {"prov:type": "prov:Collection", "ev:key": spec["key"],
                                           "ev:seed": int(identity["seed"])})
        result = doc.entity(f"file:runs/{run_id}/results.json", {"prov:type": "ev:Results"})
        doc.wasGeneratedBy(run, train)
        doc.wasGeneratedBy(result, train)
        doc.hadMember(run, result)
        doc.wasDerivedFrom(result, code)
        results[run_id] = f"file:runs/{run_id}/results.json"
    for item in sidecars(project):
        step = doc.activity(f"ev:source_data/{item['kind']}/{item['name']}",
                            other_attributes={"prov:type": "ev:SourceData"})
        verb = "ev:Plotting" if item["kind"] == "figure" else "ev:Tabulation"
        render = doc.activity(f"ev:render/{item['kind']}/{item['name']}",
                              other_attributes={"prov:type": verb})
        for act in (step, render):
            doc.wasAssociatedWith(act, engine)
        source = doc.entity(f"file:{item['source_data']}", {"prov:type": "ev:SourceData"})
        doc.wasGeneratedBy(source, step)
        for run_id in item["runs"]:
            if run_id in results:
                doc.used(step, results[run_id])
                doc.wasDerivedFrom(source, results[run_id])
        doc.used(render, source)
        for output in item["outputs"]:
            out = doc.entity(f"file:{output}", {"prov:type": f"ev:{item['kind'].capitalize()}"})
            doc.wasGeneratedBy(out, render)
            doc.wasDerivedFrom(out, source)
    resolve = doc.activity("ev:resolve_claims", other_attributes={"prov:type": "ev:ClaimResolution"})
    doc.wasAssociatedWith(resolve, engine)
    claims_file = doc.entity("file:build/claims/claims.json", {"prov:type": "ev:Claims"})
    doc.wasGeneratedBy(claims_file, resolve)
    read: set[str] = set()
    for claim in claims["claims"]:
        entity = doc.entity(f"claim:{claim['id']}", {"prov:type": "ev:Claim",
                                                     "ev:statement": claim["statement"],
                                                     "ev:formatted": str(claim.get("formatted"))})
        doc.wasGeneratedBy(entity, resolve)
        doc.hadMember(claims_file, entity)
        for cited in claim.get("runs", []):
            if cited["run_id"] in results:
                if cited["run_id"] not in read:
                    doc.used(resolve, results[cited["run_id"]])
                    read.add(cited["run_id"])
                doc.wasDerivedFrom(entity, results[cited["run_id"]])
    document = json.loads(doc.serialize(format="json"))
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def whole_crate(project: Project, out: Path) -> str:
    """ro-crate-metadata.json's text from one ``rocrate`` crate of everything (nothing written)."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    claims = _json(claims_path(project))
    runs = used_runs(project, claims)
    crate = ROCrate()
    crate.name = str(claims.get("title", "")) or "evidence deliverable"
    crate.description = ("The deliverable of `doit deliver`: paper, figures, tables, claims and the runs "
                         "behind them.")
    crate.datePublished = publication_date(project)
    crate.root_dataset["conformsTo"] = [{"@id": PROCESS_RUN_CRATE}]
    crate.add(ContextEntity(crate, PROCESS_RUN_CRATE, properties={
        "@type": "CreativeWork", "name": "Process Run Crate", "version": "0.5"}))
    files: dict[str, Any] = {}

    def add(rel: str, name: str | None = None) -> Any:
        if rel not in files and (out / rel).is_file():
            files[rel] = crate.add_file(out / rel, dest_path=rel, properties={"name": name or rel})
        return files.get(rel)

    engine = crate.add(ContextEntity(crate, "#evidence", properties={
        "@type": "SoftwareApplication", "name": "evidence",
        "softwareVersion": _version()}))
    trainers: dict[str, Any] = {}
    results: dict[str, Any] = {}
    for run_id in runs:
        spec, prov, compute = _facts(project, run_id)
        trainer = spec["identity"]["trainer"]
        if trainer not in trainers:
            trainers[trainer] = crate.add(ContextEntity(crate, f"#trainer-{trainer}", properties={
                "@type": "SoftwareApplication", "name": f"trainers/{trainer}.py",
                "identifier": spec["identity"]["trainer_digest"]}))
        spec_file, result = add(f"runs/{run_id}/spec.json"), add(f"runs/{run_id}/results.json")
        results[run_id] = result
        crate.add_action(trainers[trainer], identifier=f"#train-{run_id}", object=[spec_file],
                         result=[result],
                         properties={"@type": "CreateAction",
                                     "name": f"train {spec['experiment']}/{spec['label']}",
                                     "startTime": prov.get("started_at"), "endTime": prov.get("finished_at"),
                                     "description": f"{compute['device_hours']:.6f} device-hours on "
                                                    f"{compute['device_count']} x {compute['device_kind']}"})
    for item in sidecars(project):
        outputs = [f for f in (add(p) for p in [item["source_data"], *item["outputs"], item["sidecar"]])
                   if f is not None]
        inputs = [results[r] for r in item["runs"] if r in results]
        if outputs:
            crate.add_action(engine, identifier=f"#{item['kind']}-{item['name']}", object=inputs,
                             result=outputs, properties={"@type": "CreateAction",
                                                         "name": f"build {item['kind']} {item['name']}"})
    claim_entities = []
    for claim in claims["claims"]:
        based_on = [results[r["run_id"]] for r in claim.get("runs", []) if r["run_id"] in results]
        claim_entities.append(crate.add(ContextEntity(crate, f"#claim-{claim['id']}", properties={
            "@type": "Claim", "name": claim["id"], "text": claim["statement"],
            "isBasedOn": [{"@id": e.id} for e in based_on]})))
    claims_file = add("claims.json", "resolved claims")
    if claims_file is not None:
        crate.add_action(engine, identifier="#resolve-claims",
                         object=[*results.values(), *[f for f in [add("verify/report.json")] if f]],
                         result=[claims_file, *claim_entities],
                         properties={"@type": "CreateAction", "name": "resolve the claims of EVIDENCE.json"})
    for rel in (*TAIL, *sorted(p.name for p in out.glob("*.pdf"))):
        add(rel)
    return json.dumps(crate.metadata.generate(), indent=4, sort_keys=True, ensure_ascii=False)
