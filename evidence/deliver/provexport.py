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

``prov.json`` follows the PROV-JSON member submission (validated against its schema,
``schemas/prov.schema.json``, draft-04, shipped verbatim, and read back by the ``prov``
package). ``ro-crate-metadata.json`` makes the deliverable folder itself an RO-Crate following
the Process Run Crate profile (one ``CreateAction`` per training run, figure, table and the claim
resolution, with its ``instrument``, ``object`` and ``result``), read back by the ``rocrate``
package. The runs the deliverable uses are copied into it (``runs/<id>/spec.json`` and
``results.json``) so that the crate's data entities are files inside it.

**Incremental.** A delivery after one run changed must not cost what the first one did: rebuilding
both documents whole (reading every run's records, building and serialising 130,000 PROV
records, validating and reading back both documents) was most of an incremental ``doit deliver``
at 10,000 runs. So each input's part of the graph is a fragment (:mod:`evidence.deliver.provgraph`:
one per run, per figure or table; the head, the claims and the crate's tail are rebuilt every
time), kept rendered in the stat-keyed memo (:mod:`evidence.core.memo`, namespace
``export-fragments``) under a key that holds:

* what the fragment is of: the run id (its sealed ``spec.json`` and ``provenance.json`` are the
  memo's input files), or the figure's name with the digest of its sidecars' summary, of which of
  its runs the deliverable uses and of which of its files it holds (its sidecars are the input
  files);
* the digest of the code that builds fragments (every engine module
  :mod:`evidence.deliver.provexport` imports), of the PROV-JSON schema and the versions of
  ``prov``, ``rocrate`` and ``jsonschema``: a fragment is reused only as that code and schema
  built and validated it.

An export builds the fragments it lacks, validates them (:mod:`evidence.deliver.provcheck`: each
new record against the whole schema and read back by ``prov``; each new crate entity read back by
``rocrate``), and assembles both documents (:mod:`evidence.deliver.provtext`) byte for byte as
serialising the whole graph at once writes them; an assembled document is checked by its
structure (PROV-JSON's schema constrains records one by one, so the records validated with their
fragments and a valid skeleton make a valid document: :mod:`evidence.deliver.provcheck` says why),
not validated or read back whole again. Reading back is thus done for what changed, and only
that. Both files are written atomically (temporary file, rename): a failed or interrupted export
leaves the previous ones whole.

**Nothing changed.** An export whose every part has the key it had at the last export (the same
runs, figure and table summaries and deliverable files, the same head, claims and tail inputs,
the same code), with the sealed files of those runs and the sidecars unchanged by their stat,
writes the bytes the last one wrote. When both of its documents in the deliverable are still the
ones recorded then (:func:`evidence.core.outputs.verified_digest`), they are kept as they are:
not loading the fragments (the memo of 1,000 runs' rendered parts is megabytes of JSON), nor
assembling, checking and writing both documents again. That is a sentence of the paper edited,
or any delivery whose runs, figures and tables stand (memo namespace ``export-documents``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from evidence.core.errors import EvidenceError, IntegrityError
from evidence.core.project import Project
from evidence.deliver import provgraph
from evidence.deliver.provcheck import (
    check_assembled_crate,
    check_assembled_prov,
    check_new,
    validate_prov_json,
)
from evidence.deliver.provgraph import PROCESS_RUN_CRATE, Fragment
from evidence.deliver.provtext import crate_document_text, crate_entity_text, prov_document_text

__all__ = ["PROCESS_RUN_CRATE", "export", "used_runs", "validate_prov_json"]

RUN_FILES = ("spec.json", "results.json")
#: Run files the figure and table provenance cite as inputs, shipped beside RUN_FILES.
CITED_RUN_FILES = ("metrics.jsonl",)
#: The other files of the deliverable the crate describes (after those of the runs, figures, tables, claims).
TAIL = ("paper.md", "paper.html", "claims.tex", "compute.json", "compute.md", "prov.json", "DISCLOSURES.md",
        "disclosures.json", "EVIDENCE.json", "reconcile.md", "checklist.md", "checklist.tex", "evidence.html")
FRAGMENTS = "export-fragments"
SIDECARS = "export-sidecars"
DOCUMENTS = "export-documents"


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _sidecar(project: Project, kind: str, sidecar: Path, source: Path) -> dict[str, Any]:
    record = _json(sidecar)
    data = _json(source) if source.is_file() else {"runs": record["runs"]}
    return {"kind": kind, "name": record["name"], "runs": sorted(data["runs"]),
            "source_data": project.relative(sidecar.parent / "source_data.csv"),
            "outputs": sorted(record["outputs"]), "sidecar": project.relative(sidecar)}


def sidecars(project: Project) -> list[dict[str, Any]]:
    """Each built figure or table: its name, kind, runs, source data, outputs (project-relative).

    Memoised by the stat of its two sidecars (a thousand figures were read three times per export).
    """
    from evidence.core import memo

    store = memo.of(project, SIDECARS)
    found = []
    for kind, base in (("figure", project.figures_dir), ("table", project.tables_dir)):
        for sidecar in sorted(base.glob(f"*/{kind}.provenance.json")) if base.is_dir() else []:
            source = sidecar.parent / "source_data.provenance.json"
            found.append(store.get(str(sidecar), partial(list, (sidecar, source)),
                                   partial(_sidecar, project, kind, sidecar, source)))
    store.forget(str(project.root / item["sidecar"]) for item in found)  # deleted figures
    return found


def used_runs(project: Project, claims: Mapping[str, Any],
              items: Sequence[Mapping[str, Any]] | None = None) -> list[str]:
    """Run ids the deliverable rests on: those of the claims and of the figures and tables."""
    ids = {r["run_id"] for c in claims["claims"] for r in c.get("runs", [])}
    ids |= {r for s in (sidecars(project) if items is None else items) for r in s["runs"]}
    return sorted(i for i in ids if (project.runs_dir / i / "results.json").is_file())


def _run_fragment(project: Project, run_id: str, crate: provgraph.CrateBuilder) -> Fragment:
    from evidence.deliver.ledger import compute_of

    folder = project.runs_dir / run_id
    spec, prov = _json(folder / "spec.json"), _json(folder / "provenance.json")
    return provgraph.run_fragment(run_id, spec, prov, compute_of(prov), crate)


def _code_key(project: Project) -> str:
    """What a kept fragment was built and validated by: code, schema, package versions."""
    from evidence.core import memo
    from evidence.core.codedeps import code_files
    from evidence.core.hashing import digest_json
    from evidence.core.provenance import package_versions

    files = [*code_files(__name__), memo.SCHEMA_DIR / "prov.schema.json"]
    digests = [[f.name, memo.digest(project, f, namespace="code-digests")] for f in files]
    return digest_json([digests, package_versions(("prov", "rocrate", "jsonschema"))])[:16]


class _Fragments:
    """The fragments of one export, in document order: kept ones from the memo, new ones built."""

    def __init__(self, project: Project, out: Path, code: str) -> None:
        from evidence.core import memo

        self.memo = memo.of(project, FRAGMENTS)
        self.crate = provgraph.CrateBuilder(out)
        self.code = code
        self.stored: list[dict[str, Any]] = []
        self.new: list[Fragment] = []
        self.keys: list[str] = []
        self._pending: list[tuple[str, list[Path], Any, int]] = []
        self.own: list[str] = []  # the memoised head and check of this export (not fragments)

    def add(self, key: str, inputs: list[Path], build: Any) -> None:
        """The fragment ``key`` (of the files ``inputs``): kept, or ``build(crate)`` now."""
        key = f"{self.code}:{key}"
        self.keys.append(key)
        found, value = self.memo.lookup(key)
        if not found:
            started = time.time_ns()
            fragment = build(self.crate)
            value = fragment.stored()
            self.new.append(fragment)
            self._pending.append((key, inputs, value, started))
        self.stored.append(value)

    def head(self, version: str, title: str, date: str) -> provgraph.Head:
        """:func:`evidence.deliver.provgraph.head`, kept while its three inputs and the exporter's
        code are unchanged: building it imports ``prov`` and ``rocrate`` (0.2 s of every export,
        when nothing else needs them)."""
        from evidence.core.hashing import digest_json

        key = f"{self.code}:head:{digest_json([version, title, date])[:16]}"
        self.own.append(key)
        found, value = self.memo.lookup(key)
        if found:
            part = value["fragment"]
            return provgraph.Head(Fragment(part["name"], prov=[tuple(r) for r in part["prov"]],
                                           crate=[tuple(e) for e in part["crate"]]),
                                  value["context"], value["root"], value["descriptor"], value["prefix"])
        started = time.time_ns()
        built = provgraph.head(version, title, date)
        fragment = built.fragment
        self._pending.append((key, [Path(provgraph.__file__)], {
            "fragment": {"name": fragment.name, "prov": [list(r) for r in fragment.prov],
                         "crate": [list(e) for e in fragment.crate]},
            "context": built.context, "root": built.root, "descriptor": built.descriptor,
            "prefix": built.prefix}, started))
        return built

    def check(self, checked: list[Fragment], texts: list[Any], head: provgraph.Head) -> None:
        """:func:`evidence.deliver.provcheck.check_new` over the fragments built or rebuilt by
        this export. With no new run or figure fragment, ``checked`` is the head, claims and tail
        fragments (``texts``: their stored forms), often the very ones an earlier export checked
        (a sentence of the paper edited): the same bytes checked by the same code give the same
        answer, so a set checked before is kept as checked, by its digest, instead of reading it
        back with ``prov`` and ``rocrate`` again."""
        from evidence.core.hashing import digest_json

        if self.new:  # a set with a new fragment in it is never the same set again
            check_new(head.prefix, checked, head.context, head.root, head.descriptor)
            return
        key = f"{self.code}:checked:" + digest_json(
            [texts, head.prefix, head.context, head.root, head.descriptor])[:32]
        self.own.append(key)
        if not self.memo.lookup(key)[0]:
            check_new(head.prefix, checked, head.context, head.root, head.descriptor)
            self._pending.append((key, [Path(provgraph.__file__)], True, time.time_ns()))

    def keep(self) -> None:
        """Store the new fragments (after they were validated) and forget those no longer used."""
        for key, inputs, value, started in self._pending:
            self.memo.store(key, inputs, value, started)
        self.memo.forget([*self.keys, *self.own])


def assemble_prov(prefix: Mapping[str, str], fragments: Iterable[Mapping[str, Any]]) -> str:
    """prov.json's text: the fragments' records, relations numbered in document order."""
    groups: dict[str, dict[str, str]] = {}
    anonymous = 0
    for fragment in fragments:
        for group, ident, shared, text in fragment["prov"]:
            if ident is None:
                anonymous += 1
                ident = f"{provgraph.ANONYMOUS}{anonymous}"
            held = groups.setdefault(group, {})
            if ident in held:
                if shared:
                    continue  # declared by an earlier fragment (the first run with that trainer)
                raise EvidenceError(f"prov.json is not valid PROV-JSON: {group} {ident} is declared twice "
                                    f"(again by {fragment['name']})")
            held[ident] = text
    check_assembled_prov(prefix, groups)
    return prov_document_text(prefix, groups) + "\n"


def assemble_crate(out: Path, context: Any, root: Mapping[str, Any],
                   fragments: Iterable[Mapping[str, Any]]) -> str:
    """ro-crate-metadata.json's text: the root dataset listing every file, then the fragments'
    entities (an entity described before is kept, as ``rocrate`` keeps the first position)."""
    entities: dict[str, str] = {}
    parts: list[str] = []
    for fragment in fragments:
        for ident, text, is_file, shared in fragment["crate"]:
            if ident in entities:
                if not shared:
                    entities[ident] = text  # rocrate: the later entity, in the first one's place
                continue
            entities[ident] = text
            parts += [ident] if is_file else []
    top = {**root, "hasPart": [{"@id": p} for p in parts]} if parts else dict(root)
    check_assembled_crate(out, parts, writing=["prov.json"])
    return crate_document_text(context, [crate_entity_text(top), *entities.values()])


# -- the deliver step --------------------------------------------------------------------------


def copy_runs(project: Project, out: Path, runs: Iterable[str]) -> None:
    """Copy spec.json and results.json (and the cited metrics.jsonl) of the used runs into
    ``out/runs/`` (writable copies).

    Incremental: a sealed run never changes, so a copy that is still what the build wrote
    (:func:`evidence.core.outputs.verified_digests`: the copy unchanged since it was found to
    agree with its record, by one stat) is kept; only the runs the deliverable newly uses are copied, and
    the copies of runs it no longer uses are removed. Re-copying and re-recording every run on each
    delivery was most of the exports step (10 s at 1,000 runs), and then reading every copy's record
    was (2 s).
    """
    import os
    import shutil

    from evidence.core.outputs import forget_outputs, record_outputs, verified_digests
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
    names_of = {run_id: (*RUN_FILES, *(name for name in CITED_RUN_FILES
                                       if (project.runs_dir / run_id / name).is_file()))
                for run_id in runs}
    verified = verified_digests(project.root, out, [f"runs/{run_id}/{name}" for run_id in runs
                                                    for name in names_of[run_id]])
    for run_id in runs:
        names = names_of[run_id]
        folder = target / run_id
        present = sorted(os.listdir(folder)) if folder.is_dir() else []
        if present == sorted(names) and all(verified[f"runs/{run_id}/{n}"][0] is not None for n in names):
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


def publication_date(project: Project) -> str:
    """The date of the last commit of the inputs (today's date outside git or before a commit).

    Not the date of the build: the same inputs must give the same deliverable byte for byte, so
    a rebuild on another day of a clean clone changes no committed file.
    """
    from evidence.core.provenance import committed_time, inputs_commit

    commit = inputs_commit(project.root)
    if commit:
        return datetime.fromtimestamp(committed_time(project.root, commit), UTC).strftime("%Y-%m-%d")
    return datetime.now(UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class Exported:
    """What an export wrote, and how many of the runs', figures' and tables' fragments it built
    (the others were kept from earlier exports)."""

    prov: Path
    crate: Path
    built: int
    fragments: int


def export(project: Project, out: Path) -> Exported:
    """prov.json and ro-crate-metadata.json in the assembled deliverable ``out``, both validated
    (see the module docstring: new fragments in full, the assembled documents by structure)."""
    from evidence.core.hashing import digest_bytes, digest_json, write_bytes_atomic
    from evidence.core.outputs import record_outputs
    from evidence.core.provenance import package_versions
    from evidence.deliver.claims import claims_path

    claims = _json(claims_path(project))
    items = sidecars(project)
    runs = used_runs(project, claims, items)
    copy_runs(project, out, runs)
    used = set(runs)
    started = time.time_ns()
    code = _code_key(project)
    head_inputs = [package_versions(("evidence",))["evidence"] or "unknown", str(claims.get("title", "")),
                   publication_date(project)]
    # (key, input files, builder) of every run's, figure's and table's fragment, in document order
    parts: list[tuple[str, list[Path], Any]] = []
    for run_id in runs:
        folder = project.runs_dir / run_id
        parts.append((f"run:{run_id}", [folder / "spec.json", folder / "provenance.json"],
                      lambda crate, r=run_id: _run_fragment(project, r, crate)))
    for item in items:
        cited = [r for r in item["runs"] if r in used]
        present = [rel for rel in provgraph.sidecar_files(item) if (out / rel).is_file()]
        sidecar = project.root / item["sidecar"]
        parts.append((f"{item['kind']}:{item['name']}:{digest_json([item, cited, present])[:16]}",
                      [sidecar, sidecar.parent / "source_data.provenance.json"],
                      lambda crate, i=item, c=cited, p=present: provgraph.sidecar_fragment(i, c, p, crate)))
    claims_present = [rel for rel in ("claims.json", "verify/report.json") if (out / rel).is_file()]
    # prov.json is in the crate: it is written (below) before the crate is
    tail_rels = [rel for rel in (*TAIL, *sorted(p.name for p in out.glob("*.pdf")))
                 if rel == "prov.json" or (out / rel).is_file()]
    prov_path, crate_path = out / "prov.json", out / "ro-crate-metadata.json"
    documents = _Documents(project, code, digest_json(
        [head_inputs, [key for key, _, _ in parts], claims, runs, claims_present, tail_rels]))
    if documents.kept(prov_path, crate_path):
        return Exported(prov_path, crate_path, 0, len(parts))
    fragments = _Fragments(project, out, code)
    head = fragments.head(*head_inputs)
    for key, inputs, build in parts:
        fragments.add(key, inputs, build)
    resolved = provgraph.claims_fragment(claims, runs, claims_present, fragments.crate)
    tail = provgraph.tail_fragment(tail_rels, fragments.crate)
    for fragment in (head.fragment, *fragments.new, resolved, tail):
        provgraph.check_ids(fragment)
    head_text, resolved_text, tail_text = head.fragment.stored(), resolved.stored(), tail.stored()
    fragments.check([head.fragment, *fragments.new, resolved, tail], [head_text, resolved_text, tail_text],
                    head)
    fragments.keep()
    every = [head_text, *fragments.stored, resolved_text]
    prov_bytes = assemble_prov(head.prefix, every).encode("utf-8")
    crate_bytes = assemble_crate(out, head.context, head.root, [*every, tail_text]).encode("utf-8")
    write_bytes_atomic(prov_path, prov_bytes)
    write_bytes_atomic(crate_path, crate_bytes)
    record_outputs(project.root, [prov_path, crate_path])
    documents.store([path for _, inputs, _ in parts for path in inputs], digest_bytes(prov_bytes),
                    digest_bytes(crate_bytes), started)
    return Exported(prov_path, crate_path, len(fragments.new), len(fragments.keys))


class _Documents:
    """What the last export wrote, by the key of everything it was assembled from (see the module
    docstring, *Nothing changed*): one entry, whose inputs are the files of every fragment."""

    ENTRY = "documents"

    def __init__(self, project: Project, code: str, key: str) -> None:
        from evidence.core import memo

        self.project = project
        self.memo = memo.of(project, DOCUMENTS)
        self.key = f"{code}:{key}"

    def kept(self, prov: Path, crate: Path) -> bool:
        """Whether both documents are the ones an export of this key wrote and still as recorded."""
        from evidence.core.outputs import verified_digest

        found, value = self.memo.lookup(self.ENTRY)
        return (found and isinstance(value, dict) and value.get("key") == self.key
                and verified_digest(self.project.root, prov) == value.get("prov")
                and verified_digest(self.project.root, crate) == value.get("crate"))

    def store(self, inputs: list[Path], prov: str, crate: str, started: int) -> None:
        self.memo.store(self.ENTRY, inputs, {"key": self.key, "prov": prov, "crate": crate}, started)
