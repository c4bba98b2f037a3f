"""Standard provenance exports of the deliverable: W3C PROV-JSON and an RO-Crate.

Both describe the same graph, built from the records the engine already keeps (``spec.json``
and ``provenance.json`` of each run, the sidecars of figures and tables, the resolved claims):

* **entities**: every run the deliverable uses (as a collection) and its ``results.json``; each
  figure's and table's ``source_data.csv`` and output files; each claim and ``claims.json``;
  the trainer code and the data split each run was trained on;
* **activities**: the training of each run (start and end time, wall seconds, device-hours),
  the source-data step and the plotting of each figure (tabulation of each table), and the
  resolution of the claims; the ``evidence`` engine is the software agent of all of them;
* **relations**: ``wasGeneratedBy`` (results by training, images by plotting, claims by claim
  resolution), ``used`` (training used trainer code and data; plotting used source data; the
  source-data step and claim resolution used the runs' results) and ``wasDerivedFrom`` (each
  output from its inputs).

``prov.json`` is written with the ``prov`` package and validated against the PROV-JSON
member submission's schema (``schemas/prov.schema.json``, draft-04, shipped verbatim), then
read back by ``prov``. ``ro-crate-metadata.json`` makes the deliverable folder itself an
RO-Crate following the Process Run Crate profile (one ``CreateAction`` per training run, figure,
table and the claim resolution, with its ``instrument``, ``object`` and ``result``), written
with the ``rocrate`` package and read back by it (every described file must exist in the crate).
The runs the deliverable uses are copied into it (``runs/<id>/spec.json`` and ``results.json``)
so that the crate's data entities are files inside it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from evidence.core.errors import EvidenceError, IntegrityError
from evidence.core.project import Project

PROCESS_RUN_CRATE = "https://w3id.org/ro/wfrun/process/0.5"
NAMESPACES = {"ev": "https://evidence.dev/ns#", "file": "urn:evidence:file:",
              "run": "urn:evidence:run:", "claim": "urn:evidence:claim:"}
RUN_FILES = ("spec.json", "results.json")
#: Run files the figure and table provenance cite as inputs, shipped beside RUN_FILES.
CITED_RUN_FILES = ("metrics.jsonl",)


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _sidecars(project: Project) -> list[dict[str, Any]]:
    """Each built figure or table: its name, kind, runs, source data, outputs (project-relative)."""
    found = []
    for kind, base in (("figure", project.figures_dir), ("table", project.tables_dir)):
        for sidecar in sorted(base.glob(f"*/{kind}.provenance.json")) if base.is_dir() else []:
            record = _json(sidecar)
            source = sidecar.parent / "source_data.provenance.json"
            data = _json(source) if source.is_file() else {"runs": record["runs"]}
            found.append({"kind": kind, "name": record["name"], "runs": sorted(data["runs"]),
                          "source_data": project.relative(sidecar.parent / "source_data.csv"),
                          "outputs": sorted(record["outputs"]), "sidecar": project.relative(sidecar)})
    return found


def used_runs(project: Project, claims: Mapping[str, Any]) -> list[str]:
    """Run ids the deliverable rests on: those of the claims and of the figures and tables."""
    ids = {r["run_id"] for c in claims["claims"] for r in c.get("runs", [])}
    ids |= {r for s in _sidecars(project) for r in s["runs"]}
    return sorted(i for i in ids if (project.runs_dir / i / "results.json").is_file())


def _run_facts(project: Project, run_id: str) -> dict[str, Any]:
    folder = project.runs_dir / run_id
    spec, prov = _json(folder / "spec.json"), _json(folder / "provenance.json")
    from evidence.deliver.ledger import compute_of

    return {"spec": spec, "provenance": prov, "compute": compute_of(prov)}


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


# -- PROV-JSON ---------------------------------------------------------------------------------


def prov_document(project: Project, claims: Mapping[str, Any], runs: Iterable[str]) -> Any:
    """The PROV document (a ``prov.model.ProvDocument``)."""
    from prov.model import ProvDocument

    from evidence.core.provenance import package_versions

    doc = ProvDocument()
    for prefix, uri in NAMESPACES.items():
        doc.add_namespace(prefix, uri)
    version = package_versions(("evidence",))["evidence"] or "unknown"
    engine = doc.agent("ev:evidence", {"prov:type": "prov:SoftwareAgent", "ev:version": version})
    results: dict[str, str] = {}
    declared: set[str] = set()
    for run_id in runs:
        facts = _run_facts(project, run_id)
        spec, prov, compute = facts["spec"], facts["provenance"], facts["compute"]
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
        if code not in declared:  # an entity is declared once, however many runs use it
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
    for item in _sidecars(project):
        step = doc.activity(f"ev:source_data/{item['kind']}/{item['name']}", other_attributes={
            "prov:type": "ev:SourceData"})
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
        for run in claim.get("runs", []):
            if run["run_id"] in results:
                if run["run_id"] not in read:  # one usage per results file, however many claims cite it
                    doc.used(resolve, results[run["run_id"]])
                    read.add(run["run_id"])
                doc.wasDerivedFrom(entity, results[run["run_id"]])
    return doc


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
def _prov_validator() -> Any:
    """The PROV-JSON schema's validator, with its definitions inlined.

    The same schema, but jsonschema no longer resolves a ``$ref`` for every attribute of every
    record, which took most of the validation's time on a document of a thousand runs.
    """
    import jsonschema

    from evidence.core.schema import load_schema

    schema = load_schema("prov")
    inlined = _inline_refs(schema, schema.get("definitions", {}))
    return jsonschema.validators.validator_for(schema)(inlined)


def _record_digests(document: Mapping[str, Any]) -> dict[str, str]:
    """Each record of a PROV-JSON document (group, id, attributes) -> its digest. A relation's
    blank-node id (``_:id7``) is numbered in document order, so one run more shifts every later
    id: it is left out (whether a record is valid does not depend on its id)."""
    from evidence.core.hashing import digest_json

    return {digest_json([group, None if ident.startswith("_:") else ident, attrs]): f"{group}\0{ident}"
            for group, records in document.items() if group != "prefix" and isinstance(records, dict)
            for ident, attrs in records.items()}


def validate_new_records(project: Project, document: Mapping[str, Any]) -> None:
    """:func:`validate_prov_json` of the records of ``document`` that no earlier export of this
    project validated (and the namespace block); every record again when there is no record of one.

    PROV-JSON validates record by record (the schema's record groups map ids to records, and
    reading back parses each record on its own), so the records unchanged since the last export
    need no second check: a delivery at 10,000 runs validated and read back all 130,000 records
    for the one figure that changed.
    """
    import json as _json_module

    from evidence.core.hashing import write_bytes_atomic

    known_file = project.cache_dir / "prov-validated.json"
    try:
        known = set(_json_module.loads(known_file.read_text("utf-8")))
    except (OSError, ValueError, TypeError):
        known = set()
    digests = _record_digests(document)
    new = {where for digest, where in digests.items() if digest not in known}
    subset: dict[str, Any] = {"prefix": document.get("prefix", {})} if "prefix" in document else {}
    for where in sorted(new):
        group, ident = where.split("\0", 1)
        subset.setdefault(group, {})[ident] = document[group][ident]
    for group, records in document.items():  # anything that is not a record group, as it is
        if group != "prefix" and not isinstance(records, dict):
            subset[group] = records
    validate_prov_json(subset)
    known_file.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(known_file, _json_module.dumps(sorted(digests)).encode("utf-8"))


def validate_prov_json(document: Mapping[str, Any]) -> None:
    """Raise EvidenceError unless ``document`` is valid PROV-JSON (schema + read back by prov)."""
    from prov.model import ProvDocument

    errors = sorted(_prov_validator().iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        where = "/".join(map(str, errors[0].absolute_path)) or "$"
        raise EvidenceError(f"prov.json is not valid PROV-JSON at {where}: {errors[0].message}")
    ProvDocument.deserialize(content=json.dumps(document), format="json")


# -- RO-Crate ----------------------------------------------------------------------------------


def write_crate(project: Project, out: Path, claims: Mapping[str, Any], runs: Iterable[str],
                title: str) -> Any:
    """ro-crate-metadata.json in ``out`` (the assembled deliverable), then read it back."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    crate = ROCrate()
    crate.name = title or "evidence deliverable"
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

    from evidence.core.provenance import package_versions

    engine = crate.add(ContextEntity(crate, "#evidence", properties={
        "@type": "SoftwareApplication", "name": "evidence",
        "softwareVersion": package_versions(("evidence",))["evidence"] or "unknown"}))
    trainers: dict[str, Any] = {}
    results: dict[str, Any] = {}
    for run_id in runs:
        facts = _run_facts(project, run_id)
        spec, prov, compute = facts["spec"], facts["provenance"], facts["compute"]
        trainer = spec["identity"]["trainer"]
        if trainer not in trainers:
            trainers[trainer] = crate.add(ContextEntity(crate, f"#trainer-{trainer}", properties={
                "@type": "SoftwareApplication", "name": f"trainers/{trainer}.py",
                "identifier": spec["identity"]["trainer_digest"]}))
        spec_file, result = add(f"runs/{run_id}/spec.json"), add(f"runs/{run_id}/results.json")
        if result is None or spec_file is None:
            continue
        results[run_id] = result
        crate.add_action(trainers[trainer], identifier=f"#train-{run_id}", object=[spec_file],
                         result=[result],
                         properties={"@type": "CreateAction",
                                     "name": f"train {spec['experiment']}/{spec['label']}",
                                     "startTime": prov.get("started_at"), "endTime": prov.get("finished_at"),
                                     "description": f"{compute['device_hours']:.6f} device-hours on "
                                                    f"{compute['device_count']} x {compute['device_kind']}"})
    for item in _sidecars(project):
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
    for rel in ("paper.md", "paper.html", "claims.tex", "compute.json", "compute.md", "prov.json",
                "DISCLOSURES.md", "disclosures.json", "EVIDENCE.json", "reconcile.md",
                *sorted(p.name for p in out.glob("*.pdf"))):
        add(rel)
    crate.write(out)
    return read_back(out)


def read_back(out: Path) -> Any:
    """Load the crate with the rocrate package; every described file must exist."""
    from rocrate.rocrate import ROCrate

    crate = ROCrate(out)
    missing = [e.id for e in crate.data_entities if not (out / e.id).exists()]
    if missing:
        raise EvidenceError(f"the RO-Crate in {out} describes files it does not contain: {missing[:5]}")
    return crate


def publication_date(project: Project) -> str:
    """The date of the last commit of the inputs (today's date outside git or before a commit).

    Not the date of the build: the same inputs must give the same deliverable byte for byte, so
    a rebuild on another day of a clean clone changes no committed file.
    """
    from evidence.core.provenance import git_state

    commit = git_state(project.root).get("inputs_commit")
    if commit:
        import git

        when = git.Repo(project.root, search_parent_directories=True).commit(commit).committed_datetime
        return when.astimezone(UTC).strftime("%Y-%m-%d")
    return datetime.now(UTC).strftime("%Y-%m-%d")


# -- the deliver step --------------------------------------------------------------------------


def copy_runs(project: Project, out: Path, runs: Iterable[str]) -> None:
    """Copy spec.json and results.json (and the cited metrics.jsonl) of the used runs into
    ``out/runs/`` (writable copies).

    Incremental: a sealed run never changes, so a copy that is still what the build wrote (its
    recorded digest, checked through the stat-keyed memo) is kept; only the runs the deliverable
    newly uses are copied, and the copies of runs it no longer uses are removed. Re-copying and
    re-recording every run on each delivery was most of the exports step (10 s at 1,000 runs).
    """
    import shutil

    from evidence.core.outputs import forget_outputs, record_outputs, written_as_recorded
    from evidence.store.runs import RunStore

    runs = list(runs)
    store = RunStore(project.runs_dir)
    damaged = [str(finding) for run_id in runs if (finding := store.quick_check(run_id))]
    if damaged:  # a run that fails its check is not shipped (nor cited) as evidence
        raise IntegrityError(f"sealed run {damaged[0]} (the deliverable uses it)",
                             hint="run `doit fsck` to name every damaged file; `doit train` retrains")
    target = out / "runs"
    wanted = set(runs)
    if target.is_dir():
        for folder in sorted(p for p in target.iterdir()):
            if folder.name not in wanted or not folder.is_dir():
                stale = [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else [folder]
                forget_outputs(project.root, stale)
                shutil.rmtree(folder) if folder.is_dir() else folder.unlink()
    written: list[Path] = []
    for run_id in runs:
        names = (*RUN_FILES, *(n for n in CITED_RUN_FILES if (project.runs_dir / run_id / n).is_file()))
        folder = target / run_id
        present = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        if present == sorted(names) and all(written_as_recorded(project.root, folder / n) for n in names):
            continue  # still the copy the build made of an immutable file
        if folder.exists():
            forget_outputs(project.root, [folder / n for n in present])
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        # metrics.jsonl too: figure and table provenance cite it, and a cited file is shipped
        for name in names:
            shutil.copyfile(project.runs_dir / run_id / name, folder / name)
            written.append(folder / name)
    record_outputs(project.root, written)


def export(project: Project, out: Path) -> tuple[Path, Path]:
    """prov.json and ro-crate-metadata.json in the assembled deliverable ``out``, both validated."""
    from evidence.core.hashing import write_bytes_atomic
    from evidence.deliver.claims import claims_path

    claims = _json(claims_path(project))
    runs = used_runs(project, claims)
    copy_runs(project, out, runs)
    document = json.loads(prov_document(project, claims, runs).serialize(format="json"))
    validate_new_records(project, document)
    prov_path = out / "prov.json"
    write_bytes_atomic(prov_path, (json.dumps(document, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    write_crate(project, out, claims, runs, str(claims.get("title", "")))
    from evidence.core.outputs import record_outputs

    record_outputs(project.root, [prov_path, out / "ro-crate-metadata.json"])
    return prov_path, out / "ro-crate-metadata.json"
