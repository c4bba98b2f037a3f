"""Provenance exports of the deliverable: PROV-JSON valid against the W3C schema and read back by
the prov package; an RO-Crate (Process Run Crate) read back by the rocrate package."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import doit

from evidence.core.errors import EvidenceError
from evidence.core.schema import load_schema
from evidence.deliver.provexport import PROCESS_RUN_CRATE, validate_prov_json

pytestmark = pytest.mark.slow  # end to end: trains models or runs doit over projects


@pytest.fixture(scope="module")
def delivered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("exports") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    result = doit(root, "-n", "2", "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PROV-JSON, valid" in result.stdout and "read back" in result.stdout
    return root


def claim(root: Path) -> dict[str, object]:
    claims = json.loads((root / "build" / "deliver" / "claims.json").read_text())["claims"]
    found: dict[str, object] = claims[0]
    return found


def test_prov_json_validates_and_describes_the_chain(delivered: Path) -> None:
    document = json.loads((delivered / "build" / "deliver" / "prov.json").read_text())
    schema = load_schema("prov")
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    jsonschema.validators.validator_for(schema)(schema).validate(document)
    validate_prov_json(document)  # and the prov package reads it back
    runs = [r["run_id"] for r in claim(delivered)["runs"]]  # type: ignore[index]
    entities, activities = document["entity"], document["activity"]
    for run_id in runs:
        assert f"run:{run_id}" in entities and f"file:runs/{run_id}/results.json" in entities
        assert f"ev:train/{run_id}" in activities
    assert "claim:model_beats_control" in entities and "file:figures/results/figure.png" in entities
    assert "file:tables/results/table.md" in entities
    assert {"ev:render/figure/results", "ev:render/table/results", "ev:resolve_claims"} <= set(activities)

    def pairs(relation: str, a: str, b: str) -> set[tuple[str, str]]:
        return {(r[a], r[b]) for r in document[relation].values()}

    generated = pairs("wasGeneratedBy", "prov:entity", "prov:activity")
    used = pairs("used", "prov:activity", "prov:entity")
    derived = pairs("wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity")
    first = f"file:runs/{runs[0]}/results.json"
    assert (first, f"ev:train/{runs[0]}") in generated
    assert ("file:figures/results/figure.png", "ev:render/figure/results") in generated
    assert ("claim:model_beats_control", "ev:resolve_claims") in generated
    assert ("ev:resolve_claims", first) in used and ("ev:source_data/figure/results", first) in used
    assert ("claim:model_beats_control", first) in derived
    assert ("file:figures/results/source_data.csv", first) in derived
    assert ("file:figures/results/figure.png", "file:figures/results/source_data.csv") in derived


def test_invalid_prov_json_is_refused() -> None:
    with pytest.raises(EvidenceError, match="not valid PROV-JSON"):
        validate_prov_json({"entity": {"e1": {}}, "wasGeneratedBy": {"_:g": {"prov:time": 3}}})
    with pytest.raises(EvidenceError, match="not valid PROV-JSON"):
        validate_prov_json({"entities": {}})


def test_ro_crate_reads_back_with_runs_figures_tables_claims(delivered: Path) -> None:
    from rocrate.rocrate import ROCrate

    out = delivered / "build" / "deliver"
    crate = ROCrate(out)
    ids = {e.id for e in crate.get_entities()}
    assert {"paper.md", "claims.json", "prov.json", "compute.json", "figures/results/figure.png",
            "tables/results/table.md", "#claim-model_beats_control", "#resolve-claims",
            "#figure-results", "#table-results", "#trainer-model", "#evidence"} <= ids
    assert PROCESS_RUN_CRATE in {getattr(e, "id", None) for e in crate.root_dataset["conformsTo"]}
    runs = [r["run_id"] for r in claim(delivered)["runs"]]  # type: ignore[index]
    for run_id in runs:
        action = crate.get(f"#train-{run_id}")
        assert action.type == "CreateAction" and action["instrument"].id == "#trainer-model"
        assert [r.id for r in action["result"]] == [f"runs/{run_id}/results.json"]
        assert (out / "runs" / run_id / "results.json").is_file()
    resolve = crate.get("#resolve-claims")
    assert "#claim-model_beats_control" in {r.id for r in resolve["result"]}
    based_on = crate.get("#claim-model_beats_control")["isBasedOn"]
    assert {e.id for e in based_on} == {f"runs/{r}/results.json" for r in runs}
    figure = crate.get("#figure-results")
    assert "figures/results/figure.png" in {r.id for r in figure["result"]}
    assert f"runs/{runs[0]}/results.json" in {o.id for o in figure["object"]}
    manifest = json.loads((out / "MANIFEST.json").read_text())["files"]
    assert {"prov.json", "ro-crate-metadata.json"} <= set(manifest)


def test_no_op_deliver_keeps_the_exports(delivered: Path) -> None:
    again = doit(delivered, "deliver")
    assert again.returncode == 0
    assert [line for line in again.stdout.splitlines() if line.startswith(".  ")] == [".  deliver:summary"]


def test_inlined_prov_schema_judges_as_the_published_one() -> None:
    from evidence.core.schema import load_schema
    from evidence.deliver.provcheck import prov_validator as _prov_validator

    schema = load_schema("prov")
    published = jsonschema.validators.validator_for(schema)(schema)
    documents = [
        {"entity": {"e1": {"prov:label": "x", "ev:n": 3, "ev:flags": [True, {"$": "1", "type": "xsd:int"}]}},
         "activity": {"a1": {"prov:startTime": "2026-01-01T00:00:00"}},
         "wasGeneratedBy": {"_:g": {"prov:entity": "e1", "prov:activity": "a1"}}},
        {"entity": {"e1": {"ev:bad": {"no-dollar": 1}}}},
        {"entity": {"e1": {"ev:empty": []}}},
        {"wasGeneratedBy": {"_:g": {"prov:time": 3}}},
        {"entities": {}},
        {"bundle": {"b": {"entity": {"e": {"ev:x": None}}}}},
    ]

    def verdict(validator: Any, document: dict[str, Any]) -> list[tuple[list[str], str]]:
        return sorted((list(map(str, e.absolute_path)), e.message) for e in validator.iter_errors(document))

    for document in documents:
        assert verdict(_prov_validator(), document) == verdict(published, document), document
    assert not list(_prov_validator().iter_errors(documents[0]))
    assert all(list(_prov_validator().iter_errors(d)) for d in documents[1:])  # each one is invalid


def test_exports_are_what_serialising_the_whole_graph_writes(delivered: Path) -> None:
    """Assembled from fragments, both files are byte for byte one prov document and one rocrate
    crate of everything, serialised at once (how the engine wrote them before)."""
    from whole_exports import whole_crate, whole_prov

    from evidence.core.project import Project

    project = Project.at(delivered)
    out = project.deliver_dir
    assert (out / "prov.json").read_text("utf-8") == whole_prov(project)
    assert (out / "ro-crate-metadata.json").read_text("utf-8") == whole_crate(project, out)


def test_a_second_export_builds_nothing_and_writes_what_a_fresh_export_writes(delivered: Path) -> None:
    """Kept fragments and run copies are not redone, and the bytes are exactly those of an export
    from nothing (no fragment memo, no copies, no verified outputs)."""
    from evidence.core.project import Project
    from evidence.deliver.assemble import exports_action
    from evidence.deliver.provexport import export

    project = Project.at(delivered)
    out = project.deliver_staging_dir  # where the exports step writes (published by the package step)
    exports_action(str(delivered))  # everything already copied and built once
    again = {name: (out / name).read_bytes() for name in ("prov.json", "ro-crate-metadata.json")}
    copies = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*") if p.is_file()}
    kept = export(project, out)
    assert kept.built == 0 and kept.fragments > 0
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*") if p.is_file()} == copies
    for memo in ("export-fragments", "export-sidecars", "verified-outputs"):
        (project.cache_dir / f"memo-{memo}.json").unlink(missing_ok=True)
    shutil.rmtree(out / "runs")
    for name in again:
        (out / name).unlink()
    fresh = subprocess.run([sys.executable, "-c", "import sys; from evidence.deliver.assemble import "
                            "exports_action; exports_action(sys.argv[1])", str(delivered)],
                           capture_output=True, text=True)  # a process with no memo loaded
    assert fresh.returncode == 0, fresh.stderr
    assert f"{kept.fragments} of the {kept.fragments} parts" in fresh.stdout
    assert {name: (out / name).read_bytes() for name in again} == again


def test_an_export_with_nothing_changed_keeps_its_documents_and_an_edited_one_is_written_again(
        delivered: Path) -> None:
    """With every part as the last export left it, both documents stay as they are (not assembled
    or written again); a document edited by hand in the deliverable, or a part that changed (a
    file of the deliverable the crate lists), is written again, as an export from nothing writes it."""
    from evidence.core.project import Project
    from evidence.deliver.assemble import exports_action
    from evidence.deliver.provexport import export

    project = Project.at(delivered)
    out = project.deliver_staging_dir
    exports_action(str(delivered))
    names = ("prov.json", "ro-crate-metadata.json")
    written = {name: (out / name).read_bytes() for name in names}
    stats = {name: (out / name).stat() for name in names}
    kept = export(project, out)
    assert kept.built == 0 and kept.fragments > 0
    assert {name: (out / name).stat().st_ino for name in names} == {n: s.st_ino for n, s in stats.items()}
    assert {name: (out / name).stat().st_mtime_ns for name in names} == \
        {n: s.st_mtime_ns for n, s in stats.items()}

    edited = out / "prov.json"
    edited.write_bytes(written["prov.json"].replace(b'"prov:type"', b'"prov:type" ', 1))
    export(project, out)
    assert {name: (out / name).read_bytes() for name in names} == written
    assert edited.stat().st_ino != stats["prov.json"].st_ino  # written again, atomically

    listed = out / "checklist.md"  # a file of the deliverable the crate's tail lists
    held = listed.read_bytes()
    listed.unlink()
    try:
        export(project, out)
        crate = json.loads((out / "ro-crate-metadata.json").read_text("utf-8"))
        assert "checklist.md" not in {entity["@id"] for entity in crate["@graph"]}
    finally:
        listed.write_bytes(held)
    export(project, out)
    assert {name: (out / name).read_bytes() for name in names} == written


def test_a_new_fragment_that_is_not_valid_is_refused() -> None:
    """Each new fragment is validated against the whole PROV-JSON schema and read back by prov,
    and its crate entities read back by rocrate; the assembled skeleton is checked too."""
    from evidence.deliver.provcheck import check_assembled_prov, check_new
    from evidence.deliver.provgraph import Fragment, head

    top = head("1.0", "t", "2026-01-01")
    good = Fragment("run good", prov=[("entity", "ev:e", {"prov:type": "ev:Results"})])
    check_new(top.prefix, [top.fragment, good], top.context, top.root, top.descriptor)
    bad = Fragment("run bad", prov=[("wasGeneratedBy", None, {"prov:time": 3})])  # a time is a string
    with pytest.raises(EvidenceError, match=r"not valid PROV-JSON at wasGeneratedBy/_:id1 \(run bad\)"):
        check_new(top.prefix, [top.fragment, good, bad], top.context, top.root, top.descriptor)
    unparsed = Fragment("run unparsed", prov=[("entity", "nope:e", {})])  # an undeclared prefix
    with pytest.raises(EvidenceError, match="does not read back with the prov package"):
        check_new(top.prefix, [unparsed], top.context, top.root, top.descriptor)
    unlisted = Fragment("figure x", crate=[("f.png", {"@id": "f.png", "@type": "File"}, False)])
    with pytest.raises(EvidenceError, match="does not read back with the rocrate package"):
        check_new(top.prefix, [unlisted], top.context, top.root, top.descriptor)
    with pytest.raises(EvidenceError, match="not valid PROV-JSON"):
        check_assembled_prov(top.prefix, ["entity", "entities"])
