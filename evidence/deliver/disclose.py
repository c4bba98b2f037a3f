"""The disclosure gate: audit the evidence behind every claim, then disclose what it finds.

Invariant 6 of the design: integrity findings are *attached to the claims they affect and
shipped with the deliverable*; they never block the build. A claim resting on two seeds, a run
trained from a dirty tree or a figure older than its runs is science with a caveat, and the
reader deserves the caveat next to the claim, not a red build that someone silences. So
:func:`audit` raises only on malformed input (a resolved-claims or report mapping that lacks
its fields); every problem it can see becomes a :class:`Finding`.

Every finding has a stable id (``<check>:<subject>``), a severity, one sentence with the
numbers, the claims it affects and the runs it concerns. A finding is linked to every claim
whose runs, verify entry, figures or tables it touches. Findings that concern the deliverable
as a whole (hand-typed numbers in the paper, an artifact no claim uses) are *project-wide*:
they affect all claims and are listed once, in their own section.

Severities, chosen so that a reader can triage at a glance:

* ``serious``: the stated number may be wrong or is not supported as stated (a failed
  integrity check, a result that cannot be re-derived, the test split used for selection,
  unpinned splits, a claim whose predicate fails, a figure older than its evidence);
* ``warning``: weaker or less reproducible evidence (too few seeds, a dirty tree, mixed
  environments, duplicate samples across splits, a hand-typed number, a missing artifact);
* ``info``: recorded for transparency (a reconcile waiver, a claim that predicts noise and
  gets it).

The outputs (``DISCLOSURES.md`` and ``disclosures.json``, schema ``disclosures``) are pure
functions of the findings and the claims: sorted, no timestamps, project-relative paths.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from evidence.core import memo as memos
from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.hashing import digest_file, digest_json, write_bytes_atomic
from evidence.core.project import Project
from evidence.core.provenance import environment_fingerprint
from evidence.core.schema import validate
from evidence.deliver.claims import HAND_TYPED
from evidence.deliver.reconcile import HandTypedNumber, Waiver
from evidence.experiments.select import Selection, select
from evidence.experiments.spec import expand_all
from evidence.numerics import loaders
from evidence.numerics.data import SPLITS, DataConfig, raw_digest
from evidence.store.runs import RunStore

SCHEMA_VERSION = 1
SEVERITIES = ("serious", "warning", "info")
#: Every check audit() runs, in the order it runs them (recorded in disclosures.json).
CHECKS = ("rederivable", "obsolete_runs", "integrity", "splits", "test_in_selection", "seeds", "claim_status",
          "git", "environment", "stale_artifact", "hand_typed", "waiver", "prices", "precision")
#: Evaluations of the test split that mean it informed training or model selection.
_LEAKY_PURPOSES = ("selection", "monitoring")
_IDENTITY_WORDS = {"engine_digest": "the engine's numerical code changed", "config": "the config changed",
                   "trainer_digest": "the trainer's code changed", "data": "the data or its splits changed",
                   "protocol": "the protocol version changed", "declaration": "their experiment no longer "
                   "declares them"}
_REPORT_KINDS = {"verify": "comparisons", "aggregate": "aggregates", "expected_max": "expected_max"}


@dataclass(frozen=True)
class Finding:
    """One disclosed problem: what, how bad, which claims and runs, and the evidence for it."""

    id: str
    check: str
    severity: str
    message: str
    claims: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    evidence: Mapping[str, Any] = field(default_factory=dict, hash=False)
    scope: str = "claim"  # "claim": linked to ``claims``; "project": affects all claims
    #: The same finding in the paper's words (no verify ids, no labels); "" when ``message`` is
    #: already fit for a reader. The paper and claims.tex show it; DISCLOSURES.md shows ``message``.
    reader: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "check": self.check, "severity": self.severity, "scope": self.scope,
               "message": self.message, "claims": list(self.claims), "runs": list(self.runs),
               "evidence": dict(self.evidence)}
        if self.reader:
            out["reader_message"] = self.reader
        return out


def findings_for_claim(findings: Iterable[Finding], claim_id: str, *,
                       project_wide: bool = False) -> list[Finding]:
    """The findings the paper shows next to ``claim_id``, most severe first.

    Project-wide findings affect every claim but are left out unless asked for: repeating them
    beside each claim would bury the claim's own caveats; they have their own section.
    """
    chosen = [f for f in findings if claim_id in f.claims and (project_wide or f.scope == "claim")]
    return sorted(chosen, key=_order)


def _order(f: Finding) -> tuple[int, str]:
    return SEVERITIES.index(f.severity), f.id


def _some(items: Iterable[str], limit: int = 5) -> str:
    items = sorted(items)
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def _runs_word(n: int) -> str:
    return f"{n} run" if n == 1 else f"{n} runs"


def _entry_runs(kind: str, entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if kind == "verify":
        groups = [entry.get(k) for k in ("a", "b", "control")]
        return [r for g in groups if g for r in g.get("runs", [])]
    if kind == "aggregate":
        return [r for s in entry.get("strata", []) for r in s.get("runs", [])]
    return list(entry.get("runs", []))


def _seeded_sides(entry: Mapping[str, Any], n_a: int, n_b: int) -> dict[str, int] | None:
    """The sides of a comparison that vary with the seed, name -> seeds; a deterministic variant or
    a published number is a fixed value, to which the seed minimum does not apply."""
    sides = {}
    for key, n in (("a", n_a), ("b", n_b)):
        group = entry.get(key) or {}
        if not group.get("fixed") and not group.get("reference"):
            sides[str(group.get("name", key))] = n
    return sides or None


def _other_side(entry: Mapping[str, Any], seeded: str) -> str:
    """What a seeded side is compared against, as the disclosure names it: a published summary
    (value with its spread), a published value, or a fixed value (a deterministic variant)."""
    for key in ("a", "b"):
        group = entry.get(key) or {}
        if group.get("name") == seeded:
            continue
        reference = group.get("reference")
        if reference:
            spread = reference.get("sd") is not None or reference.get("interval") is not None
            what = "the published mean with its spread" if spread else "the published value"
            return f"{what} of {reference.get('citation') or group.get('name')}"
    return "a fixed value"


def _no_seeds_estimate(entry: Mapping[str, Any]) -> str:
    """Why verify gave no number of seeds, in its own words (lower-cased into the sentence)."""
    note = str(entry.get("seeds_needed_note") or "").strip().rstrip(".")
    if not note:
        return "no number of seeds needed could be estimated"
    return note[0].lower() + note[1:]


def _jsonable(value: Any) -> Any:
    """Plain JSON (sets sorted, NaN as None, other objects as text): evidence never fails to write."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_jsonable(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)


def _fully_overlapping(overlap: Mapping[str, int], sizes: Mapping[str, int]) -> list[str]:
    """"the features of all 360 test samples also occur in train", per pair contained in the other.

    The overlap (``split_overlap``) counts distinct shared feature rows, so it reaches the smaller
    split's size exactly when all of that split is duplicated in the other (a test set copied
    from training); the labels are not compared, a copied input is a leak whatever its label.
    """
    full = []
    for pair, shared in sorted(overlap.items()):
        first, second = pair.split("/")
        small, big = sorted((first, second), key=lambda s: sizes.get(s, 0))
        if shared and sizes.get(small, 0) and shared >= sizes[small]:
            full.append(f"the features of all {sizes[small]} {small} samples also occur in {big}")
    return full


@cache
def _split_facts(config: Any) -> tuple[dict[str, str], dict[str, int] | None, dict[str, int]]:
    """Split digests, overlap counts (None: the samples cannot be hashed one by one) and sizes of
    one data config, a built-in table or a project dataset (loaded once per process)."""
    dataset = loaders.load_any(config)
    return dataset.digests, loaders.overlap_of(dataset), {k: len(v.y) for k, v in dataset.splits.items()}


class _Audit:
    """State shared by the checks: which claims use which runs, and each run's records read once."""

    def __init__(self, project: Project, resolved: Mapping[str, Any], report: Mapping[str, Any],
                 min_seeds: int) -> None:
        if not isinstance(resolved, Mapping) or not isinstance(resolved.get("claims"), list):
            raise BadInputError("resolved claims", "expected a mapping with a 'claims' list", field="claims")
        if not isinstance(report, Mapping):
            raise BadInputError("verify report", "expected a mapping")
        self.project, self.report, self.min_seeds = project, report, min_seeds
        self.store = RunStore(project.runs_dir)
        self.claims: dict[str, Mapping[str, Any]] = {}
        for index, claim in enumerate(resolved["claims"]):
            if not isinstance(claim, Mapping) or not isinstance(claim.get("id"), str):
                raise BadInputError("resolved claims", "each claim needs a string 'id'",
                                    field=f"claims[{index}].id")
            self.claims[claim["id"]] = claim
        self.findings: dict[str, Finding] = {}
        self.run_claims: dict[str, set[str]] = defaultdict(set)
        #: run id -> results.json digest on record -> the claims and report entries that recorded it
        self.recorded: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.entries: list[tuple[str, Mapping[str, Any], set[str]]] = []  # (ref, entry, citing claims)
        try:
            for claim_id, claim in self.claims.items():
                for run in claim.get("runs", []):
                    self.run_claims[str(run["run_id"])].add(claim_id)
                    self.recorded[str(run["run_id"])][str(run["results_digest"])].add(claim_id)
            for kind, key in _REPORT_KINDS.items():
                for entry in report.get(key, []):
                    ref = f"{kind}:{entry['id']}"
                    citing = {c for c, claim in self.claims.items() if claim.get("ref") == ref}
                    self.entries.append((ref, entry, citing))
                    for run in _entry_runs(kind, entry):
                        self.run_claims[str(run["run_id"])] |= citing
                        self.recorded[str(run["run_id"])][str(run["results_digest"])] |= {ref, *citing}
        except (KeyError, TypeError, AttributeError) as error:
            raise BadInputError("resolved claims or verify report", f"a run or entry lacks {error}: "
                                "expected the output of the claims and verify steps") from None
        self.runs = sorted(self.recorded)
        self._json: dict[tuple[str, str], Any] = {}

    # -- helpers ---------------------------------------------------------------------------

    def add(self, check: str, subject: str, severity: str, message: str, *, claims: Iterable[str] = (),
            runs: Iterable[str] = (), reader: str = "", **evidence: Any) -> None:
        linked = sorted(set(claims) & set(self.claims))
        scope = "claim" if linked else "project"
        finding = Finding(f"{check}:{subject}", check, severity, message,
                          tuple(linked or sorted(self.claims)), tuple(sorted(set(runs))),
                          _jsonable(evidence),
                          scope, reader)
        self.findings.setdefault(finding.id, finding)

    def claims_of(self, runs: Iterable[str]) -> set[str]:
        return {c for r in runs for c in self.run_claims.get(r, ())}

    def run_path(self, run_id: str) -> Path | None:
        try:
            path = self.store.path(run_id)
        except BadInputError:
            return None
        return path if path.is_dir() else None

    def read(self, run_id: str, name: str) -> Any:
        """A run's JSON file, or None when the run or file is missing or unreadable."""
        if (run_id, name) not in self._json:
            path = self.run_path(run_id)
            try:
                self._json[run_id, name] = json.loads((path / name).read_text("utf-8")) if path else None
            except (OSError, ValueError):
                self._json[run_id, name] = None
        return self._json[run_id, name]

    def present(self) -> list[str]:
        return [r for r in self.runs if self.run_path(r) is not None]

    # -- checks ----------------------------------------------------------------------------

    def rederivable(self) -> None:
        """Each number must be recomputable from runs/: every run present, results.json as recorded."""
        for run_id in self.runs:
            claims = self.run_claims[run_id]
            path = self.run_path(run_id)
            results = path / "results.json" if path else None
            if results is None or not results.is_file():
                what = f"run {run_id} is missing from runs/" if path is None else \
                    f"results.json of run {run_id} is missing"
                self.add("rederivable", run_id, "serious", f"{what}, so the numbers that cite it "
                         "cannot be re-derived from the sealed evidence.", claims=claims, runs=[run_id])
                continue
            actual = digest_file(results)
            wrong = {d: who for d, who in self.recorded[run_id].items() if d != actual}
            if wrong:
                who = sorted(set().union(*wrong.values()))
                self.add("rederivable", run_id, "serious",
                         f"results.json of run {run_id} has digest {actual[:16]} but {_some(who, 3)} "
                         f"recorded {', '.join(d[:16] for d in sorted(wrong))}, so the stated numbers are "
                         "not those of the sealed run.", claims=who, runs=[run_id], actual=actual,
                         recorded={d: sorted(w) for d, w in wrong.items()})

    def obsolete(self) -> None:
        """A run must still be what its experiment defines, else rebuilding would move the numbers."""
        try:
            current = {(s.experiment, s.label): s for s in expand_all(self.project)}
        except EvidenceError:
            return  # a broken experiment file is the train task's error to report
        groups: dict[str, list[str]] = defaultdict(list)
        for run_id in self.present():
            spec = self.read(run_id, "spec.json")
            if not isinstance(spec, Mapping) or not isinstance(spec.get("identity"), Mapping):
                continue
            now = current.get((str(spec.get("experiment")), str(spec.get("label"))))
            if now is None:
                groups["declaration"].append(run_id)
            elif now.key != spec.get("key"):
                old = spec["identity"]
                groups[",".join(sorted(k for k in {*old, *now.identity} if old.get(k) != now.identity.get(k))
                                or ["key"])].append(run_id)
        for fields, run_ids in sorted(groups.items()):
            what = ", ".join(_IDENTITY_WORDS.get(f, f"{f} changed") for f in fields.split(","))
            self.add("obsolete_runs", fields, "warning",
                     f"{_runs_word(len(run_ids))} ({_some(run_ids)}) no longer match what the experiments "
                     f"define ({what} since they were trained), so rebuilding would retrain them "
                     "and the numbers citing them may move.", claims=self.claims_of(run_ids), runs=run_ids)

    def integrity(self) -> None:
        """Full re-hash of every run in use: a number from a modified run is not evidence; and
        runs whose weights could not be verified by load (an own loop without evaluate)."""
        self.verify_by_load()
        for run_id in self.present():
            problems = self.store.fsck_run(run_id)
            if problems:
                listed = "; ".join(f"{p.file or '(run)'}: {p.problem}" for p in problems[:3])
                more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
                self.add("integrity", run_id, "serious",
                         f"Run {run_id} fails the integrity check with {len(problems)} problem(s): "
                         f"{listed}{more}.", claims=self.run_claims[run_id], runs=[run_id],
                         problems=[{"file": p.file, "problem": p.problem} for p in problems])

    def splits(self) -> None:
        """Splits must be pinned by digest, agree within a claim, and share no samples."""
        data: dict[str, Mapping[str, Any]] = {}
        for run_id in self.present():
            spec = self.read(run_id, "spec.json") or {}
            data[run_id] = spec.get("identity", {}).get("data", {}) if isinstance(spec, Mapping) else {}
        unpinned = sorted(r for r, d in data.items()
                          if not isinstance(d.get("split_digests"), Mapping)
                          or any(not d["split_digests"].get(s) for s in SPLITS))
        if unpinned:
            self.add("splits", "unpinned", "serious",
                     f"{_runs_word(len(unpinned))} ({_some(unpinned)}) record no digest of their "
                     "train/val/test splits, so nothing shows that validation and test data were "
                     "held out.", claims=self.claims_of(unpinned), runs=unpinned)
        for claim_id in sorted(self.claims):
            variants: dict[str, list[str]] = defaultdict(list)
            for run in self.claims[claim_id].get("runs", []):
                if run["run_id"] in data and run["run_id"] not in unpinned:
                    variants[digest_json(dict(data[run["run_id"]]["split_digests"]))].append(run["run_id"])
            if len(variants) > 1:
                sizes = ", ".join(str(len(v)) for _, v in sorted(variants.items()))
                self.add("splits", f"mismatch-{claim_id}", "warning",
                         f"Claim {claim_id} pools runs trained on {len(variants)} different data "
                         f"splits ({sizes} runs each), so its runs did not see the same held-out data.",
                         claims=[claim_id], runs=[r for v in variants.values() for r in v])
        by_params: dict[str, list[str]] = defaultdict(list)
        for run_id, d in data.items():
            if run_id not in unpinned:
                by_params[json.dumps({k: d.get(k) for k in ("dataset", "split_seed", "fractions")},
                                     sort_keys=True)].append(run_id)
        for params, run_ids in sorted(by_params.items()):
            self._split_overlap(json.loads(params), run_ids, data)

    def _split_overlap(self, params: dict[str, Any], run_ids: list[str], data: Mapping[str, Any]) -> None:
        """Duplicate samples across splits (loaded once per data config) and drift of the data itself."""
        name = f"{params['dataset']}-seed{params['split_seed']}-{digest_json(params)[:8]}"
        claims = self.claims_of(run_ids)
        try:
            config = loaders.config_from_mapping(self.project.root, params,
                                                 f"runs/{run_ids[0]}/spec.json")
            digests, overlap, sizes = _split_facts(config)
            if isinstance(config, DataConfig):
                raw_key, current_raw = "raw_digest", raw_digest(config.dataset)
            else:
                raw_key = "files_digest"
                current_raw = loaders.data_identity(self.project, config)[0]["files_digest"]
        except (EvidenceError, OSError, ImportError, TypeError, ValueError) as error:
            self.add("splits", f"unchecked-{name}", "warning", f"The {params['dataset']} splits of "
                     f"{_runs_word(len(run_ids))} cannot be loaded to check them for overlap: {error}.",
                     claims=claims, runs=run_ids)
            return
        changed = sorted(r for r in run_ids if dict(data[r]["split_digests"]) != digests
                         or data[r].get(raw_key) not in (None, current_raw))
        if changed:
            self.add("splits", f"changed-{name}", "warning",
                     f"The {config.dataset} data or splits on this machine differ from those recorded "
                     f"by {_runs_word(len(changed))} ({_some(changed)}), so re-training them would "
                     "not see the same samples.", claims=self.claims_of(changed), runs=changed,
                     current=digests)
        if overlap is None:
            self.add("splits", f"unhashable-{name}", "warning",
                     f"The {config.dataset} samples cannot be hashed one by one, so the splits of "
                     f"{_runs_word(len(run_ids))} were not checked for identical samples across splits.",
                     claims=claims, runs=run_ids)
        elif any(overlap.values()):
            pairs = ", ".join(f"{n} {pair}" for pair, n in sorted(overlap.items()) if n)
            full = _fully_overlapping(overlap, sizes)
            # Every held-out sample also in training: held-out scores measure memorisation only,
            # so no claim resting on them is evidence (serious); a partial overlap inflates them.
            consequence = (f"{'; '.join(full)}: held-out scores measure memorisation, not "
                           "generalisation") if full else "so held-out scores partly measure memorisation"
            self.add("splits", f"overlap-{name}", "serious" if full else "warning",
                     f"The {config.dataset} splits (split seed {config.split_seed}; "
                     f"{', '.join(f'{s} {sizes[s]}' for s in SPLITS)} samples) share samples with "
                     f"identical features across splits ({pairs}), {consequence}.",
                     claims=claims, runs=run_ids, overlap=overlap, sizes=sizes)

    def test_in_selection(self) -> None:
        """The test split must only be reported, never used to monitor, select or tune."""
        leaks: dict[str, list[dict[str, Any]]] = {}
        for run_id in self.present():
            results = self.read(run_id, "results.json")
            evaluations = results.get("evaluations", []) if isinstance(results, Mapping) else []
            bad = [dict(e) for e in evaluations if isinstance(e, Mapping) and e.get("split") == "test"
                   and (e.get("purpose") in _LEAKY_PURPOSES or e.get("when") == "every_epoch")]
            if bad:
                leaks[run_id] = bad
        if leaks:
            kinds = sorted({f"{e.get('purpose')} ({e.get('when')})" for b in leaks.values() for e in b})
            self.add("test_in_selection", "runs", "serious",
                     f"{_runs_word(len(leaks))} ({_some(leaks)}) evaluated the test split for "
                     f"{', '.join(kinds)}, so their test scores are not held-out estimates.",
                     claims=self.claims_of(leaks), runs=leaks, evaluations=leaks)
        for ref, entry, citing in self.entries:
            if ref.startswith("expected_max:") and entry.get("split") == "test":
                runs = [r["run_id"] for r in _entry_runs("expected_max", entry)]
                trials = entry.get('n_trials', len(runs))
                self.add("test_in_selection", ref, "serious",
                         f"{ref} picks the best of {trials} trials by their "
                         "test score, which overstates what a validation-selected model reaches.",
                         claims=citing, runs=runs,
                         reader=f"The best of {trials} trials is picked by its test score, which "
                         "overstates what a model chosen on validation data reaches.")

    def verify_by_load(self) -> None:
        """Runs whose own training loop gave no evaluate hook: their numbers are the loop's word."""
        unverified, outside = [], []
        for run_id in self.present():  # one pass over the results: two findings read them
            results = self.read(run_id, "results.json")
            if not isinstance(results, Mapping):
                continue
            if results.get("verify_by_load") == "not_possible":
                unverified.append(run_id)
            if results.get("resumed_outside_engine") is True:
                outside.append(run_id)
        tolerated = []
        for run_id in self.present():
            record = self.read(run_id, "import.json")
            verification = record.get("verification") if isinstance(record, Mapping) else None
            if isinstance(verification, Mapping) and verification.get("mode") == "tolerance":
                tolerated.append(run_id)
        if tolerated:
            self.add("integrity", "imported-within-tolerance", "info",
                     f"{_runs_word(len(tolerated))} ({_some(tolerated)}) were imported from another "
                     "machine whose numeric platform differs from this one; re-evaluating their weights "
                     "here agreed with their reported numbers within the stated cross-platform "
                     "tolerance, not bit for bit (see each run's import.json).",
                     claims=self.claims_of(tolerated), runs=tolerated)
        if outside:
            self.add("integrity", "resumed-outside-engine", "warning",
                     f"{_runs_word(len(outside))} ({_some(outside)}) resumed outside the engine: not "
                     "verified. A retry found a checkpoint (the engine's, or files a library wrote to "
                     "ctx.directory) and never called ctx.restore(), so the loop resumed from state the "
                     "engine did not write or check; such a run may differ from an uninterrupted one.",
                     claims=self.claims_of(outside), runs=outside)
        if unverified:
            self.add("integrity", "verify-by-load", "warning",
                     f"{_runs_word(len(unverified))} ({_some(unverified)}) trained with the project's "
                     "own loop, which has no evaluate(weights, ctx) hook, so their sealed weights were "
                     "not re-read and re-evaluated: their metrics are as the loop reported them.",
                     claims=self.claims_of(unverified), runs=unverified)

    def seeds(self) -> None:
        """A comparison needs enough seeds per group; say how many the observed effect needs."""
        for ref, entry, citing in self.entries:
            kind = ref.split(":", 1)[0]
            runs = [r["run_id"] for r in _entry_runs(kind, entry)]
            if kind == "verify":
                numbers = entry.get("numbers", {})
                n_a = numbers.get("n_a", len(entry.get("a", {}).get("runs", [])))
                n_b = numbers.get("n_b", len(entry.get("b", {}).get("runs", [])))
                needed, minimum = entry.get("seeds_needed"), entry.get("min_seeds", self.min_seeds)
                seeded = _seeded_sides(entry, n_a, n_b)
                if seeded is None:
                    continue  # neither side varies with the seed: there is nothing to add
                if min(seeded.values()) >= minimum and entry.get("class") != "insufficient_evidence":
                    continue
                # per group only when both sides vary; against a fixed or published value only the
                # seeded side gets more seeds
                per = "seeds per group" if len(seeded) == 2 else \
                    " and ".join(f"seeds of {name}" for name in seeded)
                need = (f"about {needed} {per} would be needed to settle it (an estimate from "
                        "the effect size measured on these seeds)") if needed else \
                    _no_seeds_estimate(entry)
                open_ = ", which shows neither a difference nor its absence" \
                    if entry.get("class") == "insufficient_evidence" else ""
                fewer = f" (minimum {minimum})"
                counted = f"{n_a} and {n_b} seeds" if len(seeded) == 2 else \
                    " and ".join(f"{n} seeds of {name} against {_other_side(entry, name)}"
                                 for name, n in seeded.items())
                verdict = "shows neither a difference nor its absence" \
                    if entry.get("class") == "insufficient_evidence" else \
                    f"rests on fewer seeds than the minimum of {minimum}"
                self.add("seeds", ref, "warning",
                         f"{ref} compares {counted}{fewer} and verify classified it "
                         f"{entry.get('class')}{open_}: {need}.", claims=citing, runs=runs,
                         reader=f"The comparison uses {counted}{fewer} and {verdict}: {need}.",
                         n_a=n_a, n_b=n_b, min_seeds=minimum, seeds_needed=needed)
            elif kind == "aggregate":
                small = {s.get("name", "?"): s.get("n", len(s.get("runs", [])))
                         for s in entry.get("strata", []) if not s.get("fixed")}
                small = {k: n for k, n in small.items() if n < self.min_seeds}
                if small:
                    counts = ", ".join(f"{n} seeds of {k}" for k, n in sorted(small.items()))
                    self.add("seeds", ref, "warning", f"{ref} averages over {counts} (minimum "
                             f"{self.min_seeds}), so its interval is unreliable.",
                             reader=f"The average is over {counts} (minimum {self.min_seeds}), so its "
                             "interval is unreliable.",
                             claims=citing, runs=runs, n=small, min_seeds=self.min_seeds)

    def claim_status(self) -> None:
        """A claim is disclosed when verify does not back it, with the reason that decided it
        (direction, interval, margin, guard or predicate); a correctly predicted null is info."""
        for claim_id, claim in sorted(self.claims.items()):
            label, predicate = claim.get("classification"), claim.get("predicate")
            supported = claim.get("supported", predicate.get("holds") if predicate else
                                  label in (None, "effect"))
            runs = [r["run_id"] for r in claim.get("runs", [])]
            because = f"verify classified {claim.get('ref')} as {label}"
            detail = {"classification": label, "predicate": predicate, "reason": claim.get("reason"),
                      "seeds_needed": claim.get("seeds_needed"), "decided_by": claim.get("decided_by")}
            if not supported:
                why = claim.get("why") or (f"its predicate fails ({predicate.get('detail')}) and {because}"
                                           if predicate else f"it states a finding without a predicate "
                                           f"and {because}")
                reader = claim.get("why_reader") or why
                self.add("claim_status", claim_id, "serious", f"Claim {claim_id} is not supported by its "
                         f"evidence: {why}.", claims=[claim_id], runs=runs,
                         reader=f"Not supported by its evidence: {reader}.", **detail)
            elif label == "suspected_bug":
                self.add("claim_status", claim_id, "serious", f"Claim {claim_id} rests on evidence that "
                         f"{because}: {claim.get('reason')}", claims=[claim_id], runs=runs,
                         reader=f"A sanity check on its runs failed: {claim.get('reason')}", **detail)
            elif claim.get("caveat"):
                self.add("claim_status", claim_id, "warning", f"Claim {claim_id} does not show what its "
                         f"comparison claims: {claim['caveat']} ({because}).", claims=[claim_id],
                         runs=runs, reader=f"It does not show the direction its comparison claims: "
                         f"{claim['caveat']}.", **detail)
            elif label == "noise":  # insufficient_evidence is the seeds check's warning
                self.add("claim_status", claim_id, "info", f"Claim {claim_id} predicts noise and "
                         f"{because}: an equivalence test showed the difference is within the declared "
                         "margin.", claims=[claim_id], runs=runs,
                         reader="An equivalence test showed the difference is within the declared "
                         "margin.", **detail)

    def git(self) -> None:
        """Code that produced a run must be traceable to a commit: no dirty tree, no missing git."""
        dirty: dict[str, list[str]] = defaultdict(list)
        files: dict[str, set[str]] = defaultdict(set)
        outside: list[str] = []
        at_commit: dict[str, list[str]] = defaultdict(list)
        for run_id in self.present():
            prov = self.read(run_id, "provenance.json")
            state = prov.get("git", {}) if isinstance(prov, Mapping) else {}
            if not state.get("commit"):
                outside.append(run_id)
                continue
            at_commit[str(state["commit"])].append(run_id)
            if state.get("dirty") is not False:
                listed = [f for f in state.get("dirty_files") or [] if not self.project.is_generated(f)]
                if state.get("dirty") and state.get("dirty_files") and not listed \
                        and len(state["dirty_files"]) < 50:
                    continue  # recorded before "dirty" meant inputs: only generated files changed
                dirty[state["commit"]].append(run_id)
                files[state["commit"]].update(listed)
        for commit, run_ids in sorted(dirty.items()):
            changed = f" ({_some(files[commit], 8)})" if files[commit] else ""
            self.add("git", f"dirty-{commit[:12]}", "warning",
                     f"{_runs_word(len(run_ids))} ({_some(run_ids)}) were trained from a working tree "
                     f"with uncommitted changes{changed} on top of commit {commit[:12]}, so the code "
                     "that produced them is in no commit.", claims=self.claims_of(run_ids), runs=run_ids,
                     commit=commit, dirty_files=sorted(files[commit]))
        self._commits_in_history(at_commit)
        self._inputs_at_delivery()
        if outside:
            self.add("git", "no-commit", "warning",
                     f"{_runs_word(len(outside))} ({_some(outside)}) were trained outside a git "
                     "repository or before its first commit, so their code cannot be traced to a commit.",
                     claims=self.claims_of(outside), runs=outside)

    def _commits_in_history(self, at_commit: Mapping[str, list[str]]) -> None:
        """The commit a run recorded must be in this repository's history, else its code cannot
        be checked out from here (a copy with a history of its own, a shallow clone)."""
        from evidence.core.provenance import commits_not_in_history

        for commit, why in sorted(commits_not_in_history(self.project.root, at_commit).items()):
            run_ids = at_commit[commit]
            self.add("git", f"missing-commit-{commit[:12]}", "warning",
                     f"{_runs_word(len(run_ids))} ({_some(run_ids)}) record that they were trained at "
                     f"commit {commit[:12]}, which is {why}, so the code that produced them cannot be "
                     "checked out from this repository.", claims=self.claims_of(run_ids), runs=run_ids,
                     commit=commit, reason=why)

    def _inputs_at_delivery(self) -> None:
        """Uncommitted inputs now (a paper template, comparisons.toml, code): the deliverable built
        from them matches no commit. Project-wide: it affects every claim."""
        from evidence.core.provenance import git_state

        here = git_state(self.project.root)
        if here.get("dirty"):
            changed = here.get("dirty_files") or []
            self.add("git", "dirty-inputs", "warning",
                     f"The deliverable was built from a working tree with uncommitted changes to its "
                     f"inputs ({_some(changed, 8)}), so its paper, figures and claims match no commit: "
                     "commit the inputs and deliver again.", dirty_files=changed)

    def environment(self) -> None:
        """Runs behind one claim should share Python, machine and package versions; say what differs."""
        for claim_id, claim in sorted(self.claims.items()):
            values: dict[str, Counter[str]] = defaultdict(Counter)
            runs = [r["run_id"] for r in claim.get("runs", []) if self.run_path(r["run_id"])]
            for run_id in runs:
                prov = self.read(run_id, "provenance.json")
                env = prov.get("environment") if isinstance(prov, Mapping) else None
                env = env if isinstance(env, dict) else {}
                for key, value in environment_fingerprint(env).items():
                    flat = value.items() if isinstance(value, Mapping) else [(None, value)]
                    for sub, item in flat:
                        text = item if isinstance(item, str) else json.dumps(item, sort_keys=True)
                        values[key if sub is None else f"{key}.{sub}"][text] += 1
            differ = {k: dict(sorted(c.items())) for k, c in sorted(values.items()) if len(c) > 1}
            if differ:
                text = "; ".join(f"{k}: " + ", ".join(f"{v} ({_runs_word(n)})" for v, n in c.items())
                                 for k, c in differ.items())
                self.add("environment", claim_id, "warning", f"Claim {claim_id} pools runs from "
                         f"different environments ({text}).", claims=[claim_id], runs=runs, differ=differ)

    def artifacts(self) -> None:
        """A figure or table must be newer than its evidence, and every cited one must exist."""
        cited: dict[tuple[str, str], set[str]] = defaultdict(set)
        for claim_id, claim in self.claims.items():
            for kind, key in (("figure", "figures"), ("table", "tables")):
                for name in claim.get(key, []):
                    cited[kind, name].add(claim_id)
        found: set[tuple[str, str]] = set()
        for kind, base in (("figure", self.project.figures_dir), ("table", self.project.tables_dir)):
            for sidecar in sorted(base.glob(f"*/{kind}.provenance.json")) if base.is_dir() else []:
                found.add((kind, sidecar.parent.name))
                self._artifact(kind, sidecar, cited[kind, sidecar.parent.name])
        for (kind, name), claims in sorted(cited.items()):
            if (kind, name) not in found:
                verb = "cites" if len(claims) == 1 else "cite"
                self.add("stale_artifact", f"{kind}-{name}-missing", "warning",
                         f"{', '.join(sorted(claims))} {verb} {kind} {name!r}, which has no built "
                         f"{kind} with a provenance sidecar.", claims=claims)

    def _artifact(self, kind: str, sidecar: Path, citing: set[str]) -> None:
        rel, name = self.project.relative, sidecar.parent.name
        def parse() -> Any:
            record = json.loads(sidecar.read_text("utf-8"))
            validate(record, "sidecar", rel(sidecar))
            return record

        try:  # memoised by the sidecar's stat: an incremental build re-reads only what changed
            record = memos.validated(self.project, sidecar, "sidecar", parse)
        except (OSError, ValueError, BadInputError) as error:
            self.add("stale_artifact", f"{kind}-{name}", "serious", f"The sidecar {rel(sidecar)} cannot "
                     f"be read ({error}), so {kind} {name!r} cannot be traced to its evidence.",
                     claims=citing)
            return
        stale = self._stale_files(sidecar, record)
        runs, now, untrained = set(record["runs"]), set(), 0
        for index, raw in enumerate(record["selections"]):
            try:
                selection = Selection.from_mapping(raw, rel(sidecar), f"selections[{index}]")
                chosen = select(self.project, selection, source=rel(sidecar))
            except EvidenceError:  # the spec's own problems are the figures task's to report
                now |= runs
                continue
            now |= {r.run_id for r in chosen if r.run}
            untrained += sum(r.run is None for r in chosen)
        changed = [p for p, s in stale.items() if s["role"] == "input"]
        outputs = [p for p, s in stale.items() if s["role"] == "output"]
        parts = [f"{len(changed)} input(s) changed since it was built ({_some(changed, 3)})"] * bool(changed)
        parts += [f"{len(outputs)} output(s) differ from its sidecar ({_some(outputs, 3)})"] * bool(outputs)
        if untrained:
            parts.append(f"{untrained} run(s) its selections name under the current experiments and "
                         "code are not trained")
        elif now != runs:
            parts.append(f"its selections now resolve to {len(now)} sealed runs, not the {len(runs)} "
                         "it was built from")
        if parts:
            self.add("stale_artifact", f"{kind}-{name}", "serious",
                     f"{kind.capitalize()} {name!r} no longer matches its evidence: {'; '.join(parts)}.",
                     claims=citing | self.claims_of(runs | now), runs=runs ^ now, sidecar=rel(sidecar),
                     stale=stale, untrained=untrained, added_runs=now - runs, dropped_runs=runs - now)

    def _stale_files(self, sidecar: Path, record: dict[str, Any]) -> dict[str, dict[str, str | None]]:
        """Each input and output of a sidecar whose digest is not the recorded one (None: missing).

        One memo entry per sidecar, by the stat of the sidecar and of every file it names (a
        hundred figures' 24 files were 2,400 lookups of their digests, each with a stat of its
        own, on every delivery): an unchanged set answers by one stat each, a changed one is
        checked file by file, each digest memoised by the file's stat as before."""
        root = self.project.root
        named = [(section, path, digest) for section in ("inputs", "outputs")
                 for path, digest in sorted(record[section].items())]

        def check() -> dict[str, dict[str, str | None]]:
            found: dict[str, dict[str, str | None]] = {}
            for section, path, digest in named:
                target = root / path
                actual = memos.digest(self.project, target) if target.is_file() else None
                if actual != digest:
                    found[path] = {"recorded": digest, "actual": actual, "role": section[:-1]}
            return found

        value = memos.of(self.project, "artifact-checks").get(
            str(sidecar), lambda: [sidecar, *(root / path for _, path, _ in named)], check)
        return {path: dict(entry) for path, entry in value.items()}

    def hand_typed(self, numbers: Sequence[HandTypedNumber]) -> None:
        for h in numbers:
            path = self.project.relative(Path(h.file)) if Path(h.file).is_absolute() else h.file
            self.add("hand_typed", f"{path}:{h.line}:{h.column}", "warning",
                     f"{path}:{h.line}:{h.column} types the number {h.text!r} by hand instead of taking "
                     "it from a claim, so it cannot be re-derived from the evidence.",
                     file=path, line=h.line, column=h.column, text=h.text)

    def prices(self) -> None:
        """Cost figures rest on dated prices: disclose every price older than prices.toml allows."""
        from evidence.deliver.prices import load_prices, stale_prices

        for p in stale_prices(load_prices(self.project)):
            self.add("prices", p["key"], "warning",
                     f"The price for {p['key']} was checked {p['age']} ago ({p['checked']}; prices.toml "
                     f"allows {p['max_age_days']} days), so the cost in the compute statement may be out "
                     f"of date: check it at its source ({p['source']}) and update prices.toml.", **p)

    def precision(self, findings: Sequence[Mapping[str, Any]]) -> None:
        """Numbers in documents stated with more digits than their claim's interval supports."""
        for f in findings:
            where = f"{f['file']}:{f['line']}"
            self.add("precision", f"{f['claim']}@{where}", "info",
                     f"{where} states {f['stated']!r} for claim {f['claim']}: {f['reason']}.",
                     claims=[f["claim"]], file=f["file"], line=f["line"], stated=f["stated"])

    def waivers(self, waivers: Sequence[Waiver], hand_waived: Sequence[HandTypedNumber] = ()) -> None:
        for w in waivers:
            where = f"{w.file_glob}:{w.line}" if w.line is not None else w.file_glob
            if w.claim_id == HAND_TYPED:  # waives a number typed by hand, not a claim's statement
                texts = [repr(h.text) for h in hand_waived if fnmatch.fnmatch(h.file, w.file_glob)
                         and w.line in (None, h.line)]
                self.add("waiver", f"{w.claim_id}@{where}", "info",
                         f"{where} states a hand-typed number ({', '.join(texts) or 'none found'}), not "
                         f"one taken from a claim; reconcile accepts it because: {w.reason}",
                         file=w.file_glob, line=w.line, reason=w.reason, texts=texts)
                continue
            self.add("waiver", f"{w.claim_id}@{where}", "info",
                     f"Reconcile lets {where} state claim {w.claim_id} differently from its evidence "
                     f"because: {w.reason}", claims=[w.claim_id], file=w.file_glob, line=w.line,
                     reason=w.reason)


def audit(project: Project, resolved_claims: Mapping[str, Any], verify_report: Mapping[str, Any], *,
          hand_typed: Sequence[HandTypedNumber] = (), waivers: Sequence[Waiver] = (),
          hand_waived: Sequence[HandTypedNumber] = (),
          min_seeds: int = 5, overstated: Sequence[Mapping[str, Any]] = ()) -> list[Finding]:
    """Every finding about the evidence behind the resolved claims, sorted by severity then id.

    Never raises for a finding (that is the point: disclose, do not block); raises
    :class:`BadInputError` only when ``resolved_claims`` or ``verify_report`` is malformed.
    ``min_seeds`` applies to aggregates and to comparisons that do not record their own.
    """
    state = _Audit(project, resolved_claims, verify_report, min_seeds)
    checks = {"rederivable": state.rederivable, "obsolete_runs": state.obsolete, "integrity": state.integrity,
              "splits": state.splits, "test_in_selection": state.test_in_selection, "seeds": state.seeds,
              "claim_status": state.claim_status, "git": state.git, "environment": state.environment,
              "stale_artifact": state.artifacts, "hand_typed": lambda: state.hand_typed(hand_typed),
              "waiver": lambda: state.waivers(waivers, hand_waived), "prices": state.prices,
              "precision": lambda: state.precision(overstated)}
    for name in CHECKS:
        try:
            checks[name]()
        except (OSError, ValueError, KeyError, TypeError, AttributeError, EvidenceError) as error:
            # an audit that stops is a build that is blocked: disclose the gap instead
            state.add(name, "incomplete", "serious", f"The {name} check could not finish "
                      f"({type(error).__name__}: {error}), so its findings may be missing.",
                      error=repr(error))
    return sorted(state.findings.values(), key=_order)


# --------------------------------------------------------------------------- output


def _claims_table(project: Project, resolved: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    if resolved is None:
        from evidence.deliver.claims import claims_path, load_evidence

        path = claims_path(project)
        resolved = json.loads(path.read_text("utf-8")) if path.is_file() else load_evidence(project)
    return [{"id": c["id"], "statement": c.get("statement", "")} for c in resolved["claims"]]


def disclosures_document(findings: Sequence[Finding], claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """disclosures.json as a value: summary counts, claims with their finding ids, the findings."""
    ordered = sorted(findings, key=lambda f: f.id)
    counts = Counter(f.severity for f in ordered)
    return {"schema_version": SCHEMA_VERSION, "checks": list(CHECKS),
            "summary": {**{s: counts[s] for s in SEVERITIES}, "total": len(ordered)},
            "claims": [{"id": c["id"], "statement": c["statement"],
                        "findings": [f.id for f in findings_for_claim(ordered, c["id"])]} for c in claims],
            "findings": [f.to_dict() for f in ordered]}


def render_markdown(document: Mapping[str, Any]) -> str:
    """DISCLOSURES.md: a summary line, each claim with its findings, then the project-wide ones."""
    findings = {f["id"]: f for f in document["findings"]}
    s = document["summary"]
    lines = ["# Disclosures", "",
             f"{s['total']} finding(s): {s['serious']} serious, {s['warning']} warning, {s['info']} info "
             f"({len(document['claims'])} claims audited by {len(document['checks'])} checks; "
             "findings are disclosed, never hidden, and do not block the build).", ""]

    def entry(f: Mapping[str, Any]) -> str:
        return f"- **{f['severity']}** ({f['check']}) {f['message']} `{f['id']}`"

    for claim in document["claims"]:
        lines += [f"## Claim `{claim['id']}`", ""]
        if claim["statement"]:
            lines += [f"> {claim['statement']}", ""]
        lines += [entry(findings[i]) for i in claim["findings"]] or ["No findings."]
        lines.append("")
    project_wide = sorted((f for f in document["findings"] if f["scope"] == "project"),
                          key=lambda f: (SEVERITIES.index(f["severity"]), f["id"]))
    lines += ["## Project-wide", "", "These affect every claim.", ""]
    lines += [entry(f) for f in project_wide] or ["No findings."]
    return "\n".join(lines) + "\n"


def _publish(path: Path, data: bytes) -> None:
    """Write atomically unless unchanged (doit's checker keeps its short-cut), then re-read."""
    if not (path.is_file() and path.read_bytes() == data):
        write_bytes_atomic(path, data)
    if path.read_bytes() != data:  # trust the artifact, not the write call
        raise EvidenceError(f"{path} does not read back as written")


def write_disclosures(project: Project, findings: Sequence[Finding], out_dir: Path, *,
                      resolved_claims: Mapping[str, Any] | None = None) -> tuple[Path, Path]:
    """Write DISCLOSURES.md and disclosures.json (validated, deterministic bytes) into ``out_dir``.

    The claims (ids and statements, in EVIDENCE.json order) come from ``resolved_claims``, else
    from the resolved claims file of the build, else from EVIDENCE.json itself.
    """
    document = disclosures_document(findings, _claims_table(project, resolved_claims))
    validate(document, "disclosures", "the disclosures (a bug in evidence.deliver.disclose)")
    out_dir.mkdir(parents=True, exist_ok=True)
    md_path, json_path = out_dir / "DISCLOSURES.md", out_dir / "disclosures.json"
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    _publish(json_path, text.encode("utf-8"))
    _publish(md_path, render_markdown(document).encode("utf-8"))
    return md_path, json_path
