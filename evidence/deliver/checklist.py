"""The NeurIPS paper checklist, items 7 and 8, answered from the evidence.

The checklist is mandatory at NeurIPS (a paper without it is desk-rejected), and its two
questions about numbers are the ones a build that holds every run can answer better than an
author's memory:

* **Item 7 (statistical significance)**: for every error bar and interval, what variability it
  captures, how it was computed, n, and whether it is a standard deviation or a standard error.
  Answered for every claim (``build/claims/claims.json`` with the verify report's entry behind
  it), every figure and every table (their provenance sidecars, which hold exactly what the
  build drew). What a spread captures is read from the runs' identities: the runs a mean is
  taken over differ in their seed alone (their run keys hold nothing else that differs), and
  whether they share one data split is read from their split digests.
* **Item 8 (compute)**: compute per run and in total, and whether the project used more than
  the reported runs: the compute ledger (``build/compute/compute.json``: runs no claim uses,
  declared or superseded), and what the store and ``.evidence/`` record beyond it: failed
  attempts and interrupted work (``.evidence/work/<id>/status.json``), quarantined runs
  (``runs/.quarantine/``) and staging copies of an interrupted publish (``runs/.incoming-*``).

Every answer names its source. ``doit deliver`` writes ``build/checklist/checklist.md`` and
``checklist.tex`` and ships both; the Markdown cites each claim's value as ``[98.7%](#claim:id)``
and is reconciled like any document before it is written (a drifted number fails the step).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidence.core.errors import DriftError
from evidence.core.hashing import write_bytes_atomic
from evidence.core.outputs import read_checked_json, record_outputs
from evidence.core.project import Project
from evidence.store.runs import INCOMING, QUARANTINE
from evidence.verify.runtable import work_states

#: How each spread of a figure or table is computed, and whether it is an SD or an SE.
SPREAD_METHODS = {
    "sd": ("±1 standard deviation of the per-seed values (ddof = 1)",
           "SD: the spread of single runs, not the uncertainty of the mean"),
    "se": ("±1 standard error of the mean, SD / sqrt(n)", "SE: the uncertainty of the mean"),
    "ci95": ("95% confidence interval of the mean, Student t with n − 1 degrees of freedom",
             "neither: an interval of the mean (mean ± t × SE)"),
}
#: How each interval of a claim is computed.
CI_METHODS = {
    "student-t": ("95% confidence interval of the mean, Student t with n − 1 degrees of freedom",
                  "neither: an interval of the mean (mean ± t × SE)"),
    "welch-t": ("95% confidence interval of the difference of two means, Welch t (unequal variances, "
                "Welch–Satterthwaite degrees of freedom)",
                "neither: an interval of the difference (difference ± t × SE of the difference)"),
    "bca": ("95% BCa bootstrap interval over seeds", "neither: a bootstrap interval"),
    "percentile": ("95% percentile bootstrap interval over seeds", "neither: a bootstrap interval"),
}
SOURCES = {"claims": "build/deliver/claims.json", "verify": "build/deliver/verify/report.json",
           "compute": "build/deliver/compute.json"}


@dataclass(frozen=True)
class Answer:
    """One line of the checklist: what it says and where it comes from."""

    item: str
    what: str
    value: str
    n: str
    method: str
    sd_or_se: str
    variability: str
    source: str


# -- what a spread captures ---------------------------------------------------------------------


def _identities(project: Project) -> dict[str, Mapping[str, Any]]:
    """run id prefix (first 16 hex digits of the key) -> the run's identity, for every declared run."""
    from evidence.experiments.spec import expand_all

    return {spec.key[:16]: spec.identity for spec in expand_all(project)}


def _identity_of(project: Project, known: Mapping[str, Mapping[str, Any]], run_id: str) -> Mapping[str, Any]:
    found = known.get(run_id.partition("-")[0])
    if found is not None:
        return found
    try:  # a superseded run: its own record
        value = json.loads((project.runs_dir / run_id / "spec.json").read_bytes())["identity"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return value if isinstance(value, Mapping) else {}


def variability(project: Project, known: Mapping[str, Mapping[str, Any]], run_ids: Sequence[str]) -> str:
    """What differs between the runs a spread is taken over, read from their identities."""
    identities = [_identity_of(project, known, r) for r in run_ids]
    identities = [i for i in identities if i]
    if not identities:
        return "not known (the runs' identities are not readable)"
    splits = {json.dumps((i.get("data") or {}).get("split_digests"), sort_keys=True) for i in identities}
    # No count here: the n column states it as the claim counts it, and this text is reconciled.
    words = ("seed-to-seed variation of training (a run's seed sets the random state of torch, NumPy "
             "and Python: initialisation, data order, any sampling)")
    if len(splits) == 1:
        words += "; the data split is the same for every run (identical split digests), so the spread " \
                 "does not include variation over splits or test sets"
    else:
        words += f"; the runs use {len(splits)} different data splits, so it includes that variation too"
    return words


# -- item 7 ---------------------------------------------------------------------------------------


def _citation(claim: Mapping[str, Any], expected: str | None) -> str:
    """``[98.7%](#claim:id)``, ``+[0.6](#claim:id) points``: a link reconcile checks (its text one
    number, as reconcile reads it), with the sign and unit the claim shows outside it."""
    formatted = str(claim.get("formatted"))
    if expected is None:
        return formatted
    sign = "+" if formatted.startswith("+") else ""
    unit = " points" if formatted.endswith(" points") else ""
    return f"{sign}[{expected}](#claim:{claim['id']}){unit}"


def _claim_answers(project: Project, claims: Sequence[Mapping[str, Any]], report: Mapping[str, Any],
                   known: Mapping[str, Mapping[str, Any]]) -> list[Answer]:
    from evidence.deliver.claims import claim_quantities
    from evidence.verify.reportfile import REFERENCE_KINDS

    expected = {q.id: q.expected for q in claim_quantities({"claims": claims})}
    answers = []
    for claim in claims:
        kind, _, entry_id = str(claim.get("ref", "")).partition(":")
        entries = report.get(REFERENCE_KINDS.get(kind, ""), [])
        entry: Mapping[str, Any] = next((e for e in entries if e.get("id") == entry_id), {})
        source = f"{SOURCES['claims']} ({claim['id']}); {SOURCES['verify']} ({kind} {entry_id})"
        value = _citation(claim, expected.get(str(claim["id"])))
        runs = [r["run_id"] for r in claim.get("runs", [])]
        method_key = claim.get("ci_method")
        if kind == "verify":
            # The claim's own n (the seeded sides' seeds, as claims.json counts them): the checklist
            # is reconciled, so a per-side count that differs from it would read as drift.
            sides = [entry.get(side) for side in ("a", "b")]
            fixed = any(isinstance(side, Mapping) and ("fixed" in side or "reference" in side)
                        for side in sides)
            numbers = entry.get("numbers") or {}
            n = f"{claim.get('n')} seeds; the other side does not vary" if fixed else \
                f"{numbers.get('n_a', '?')} and {numbers.get('n_b', '?')} seeds"
        else:
            n = f"{claim.get('n')} {'configurations' if kind == 'expected_max' else 'seeds'}"
        if method_key in CI_METHODS:
            method, sd_or_se = CI_METHODS[method_key]
            interval = str(claim.get("ci_formatted"))
        elif kind == "expected_max":
            method, sd_or_se = ("no interval: the expected best score among k configurations drawn "
                                "from those trained (Dodge et al. 2019); its SD over draws is in the "
                                "figure and table"), "not applicable"
            interval = "none"
        else:
            method, sd_or_se, interval = "no interval", "not applicable", "none"
        what = (f"claim `{claim['id']}`: {claim.get('quantity')} of {claim.get('split')} "
                f"{claim.get('metric')}, interval {interval}")
        spread = ("variation over hyperparameter configurations (one run each)" if kind == "expected_max"
                  else variability(project, known, runs))
        answers.append(Answer("7", what, value, n, method, sd_or_se, spread, source))
    return answers


def _artifact_answers(project: Project, known: Mapping[str, Mapping[str, Any]]) -> list[Answer]:
    from evidence.present.artifacts import discover

    answers = []
    for artifact in ("figure", "table"):
        for art in discover(project, artifact):
            if not art.sidecar.is_file():
                continue
            sidecar = read_checked_json(project.root, art.sidecar)
            kind = str(art.spec.get("kind") or art.spec.get("source") or
                       ("table" if artifact == "table" else "custom"))
            spread_key = str(art.spec.get("spread", "sd"))
            described = str(sidecar.get("spread") or "")
            values = sidecar.get("values") or []
            ns = sorted({int(v["n"]) for v in values if isinstance(v, Mapping) and "n" in v})
            source = f"{project.relative(art.sidecar)} (spread, values)"
            if kind == "expected_max":
                method = f"{described}: SD of the best-of-k score over random draws of k configurations"
                sd_or_se, spread = "SD (of the best-of-k score)", \
                    "variation over which hyperparameter configurations are drawn"
            elif kind == "custom" or spread_key not in SPREAD_METHODS:
                method, sd_or_se = described or "as its plot.py draws it", "as the caption states"
                spread = variability(project, known, sidecar.get("runs") or [])
            else:
                method = f"{SPREAD_METHODS[spread_key][0]} ({described})"
                sd_or_se = SPREAD_METHODS[spread_key][1]
                spread = variability(project, known, sidecar.get("runs") or [])
            unit = "configurations" if kind == "expected_max" else "seeds"
            n = "see method" if not ns else f"{ns[0]} {unit} per point" if len(ns) == 1 \
                else f"{ns[0]}–{ns[-1]} {unit} per point"
            caption = str(sidecar.get("caption") or art.name)
            answers.append(Answer("7", f"{artifact} `{art.name}`: {caption.split('. ')[0]}", "", n, method,
                                  sd_or_se, spread, source))
    return answers


# -- item 8 ---------------------------------------------------------------------------------------


def _hours(doc: Mapping[str, Any], hours: Mapping[str, float]) -> str:
    from evidence.deliver.ledger import hours_text

    return hours_text(doc, hours)


def beyond_the_store(project: Project) -> dict[str, Any]:
    """What ``.evidence/`` and ``runs/`` record beyond the sealed runs the ledger counts."""
    from evidence.deliver.ledger import compute_of

    states = work_states(project)
    counts = Counter(state for state, _ in states.values())
    failed = sorted(run_id for run_id, (state, _) in states.items() if state == "failed")
    quarantine = project.runs_dir / QUARANTINE
    quarantined, q_hours, q_wall = [], 0.0, 0.0
    if quarantine.is_dir():
        for entry in sorted(os.scandir(quarantine), key=lambda e: e.name):
            if not entry.is_dir():
                continue
            quarantined.append(entry.name)
            try:
                compute = compute_of(json.loads(Path(entry.path, "provenance.json").read_bytes()))
                q_hours += float(compute.get("device_hours") or 0.0)
                q_wall += float(compute.get("wall_seconds") or 0.0)
            except (OSError, ValueError, TypeError, AttributeError):
                continue
    runs = project.runs_dir
    incoming = sorted(p.name for p in runs.glob(f"{INCOMING}*")) if runs.is_dir() else []
    return {"failed": failed, "failed_errors": {r: states[r][1] for r in failed},
            "interrupted": counts.get("interrupted", 0), "running": counts.get("running", 0),
            "quarantined": quarantined, "quarantined_device_hours": round(q_hours, 6),
            "quarantined_wall_seconds": round(q_wall, 3), "incoming": incoming}


def _compute_answers(doc: Mapping[str, Any], extra: Mapping[str, Any]) -> list[str]:
    from evidence.deliver.ledger import cost_text, duration

    total, unused, rows = doc["total"], doc["unused"], doc["runs"]
    hours = [float(r["device_hours"]) for r in rows]
    walls = [float(r["wall_seconds"]) for r in rows]
    lines = []
    if rows:
        lines.append(f"- **Per run:** {len(rows)} sealed runs; device-hours per run median "
                     f"{statistics.median(hours):.3g} (range {min(hours):.3g}–{max(hours):.3g}), wall-clock "
                     f"median {duration(statistics.median(walls))} (range {duration(min(walls))}–"
                     f"{duration(max(walls))}); every run with its device is listed in compute.md. "
                     f"*Source: {SOURCES['compute']} (runs).*")
    lines.append(f"- **Total:** {_hours(doc, total['device_hours'])}, {duration(total['wall_seconds'])} of "
                 f"wall-clock time, cost {cost_text(total['cost'])}. *Source: {SOURCES['compute']} (total).*")
    declared = unused["by_status"]["declared"]
    superseded = unused["by_status"]["superseded"]
    lines.append(f"- **Runs no claim uses:** {unused['runs']} of {total['runs']} "
                 f"({declared['runs']} declared by the experiments but not cited, "
                 f"{_hours(doc, declared['device_hours'])}; {superseded['runs']} superseded by later code or "
                 f"configurations, {_hours(doc, superseded['device_hours'])}). "
                 f"*Source: {SOURCES['compute']} (unused).*")
    failed = extra["failed"]
    lines.append(f"- **Failed attempts:** {len(failed)} run(s) whose last attempt failed and did not seal"
                 + (" (" + "; ".join(f"{r}: {extra['failed_errors'][r][:120]}" for r in failed[:5])
                    + ("; ..." if len(failed) > 5 else "") + ")" if failed else "")
                 + "; their compute is not in the ledger (compute is recorded when a run seals; a failed "
                   "attempt of a run that later sealed is part of that run's wall-clock time). "
                   "*Source: .evidence/work/\\*/status.json of the machine that built this deliverable.*")
    lines.append(f"- **Interrupted work:** {extra['interrupted']} run(s) interrupted and not yet resumed, "
                 f"{extra['running']} running while this was built; a resumed run's sealed record counts "
                 "every attempt's time. *Source: .evidence/work/\\*/status.json.*")
    lines.append(f"- **Quarantined runs:** {len(extra['quarantined'])} damaged run(s) moved out of the store"
                 + (f", {extra['quarantined_device_hours']:.3g} device-hours "
                    f"({duration(extra['quarantined_wall_seconds'])}) where their provenance is readable"
                    if extra["quarantined"] else "")
                 + (f"; {len(extra['incoming'])} staging copy(ies) of an interrupted publish"
                    if extra["incoming"] else "")
                 + f". *Source: runs/{QUARANTINE}/.*")
    return lines


# -- the document -----------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def build_checklist(project: Project) -> tuple[str, dict[str, Any]]:
    """checklist.md as text, and the numbers it states (for the .tex and the tests)."""
    from evidence.deliver.claims import claims_path

    resolved = read_checked_json(project.root, claims_path(project))
    report = read_checked_json(project.root, project.verify_dir / "report.json")
    ledger = read_checked_json(project.root, project.compute_dir / "compute.json")
    known = _identities(project)
    claims = [c for c in resolved["claims"]]
    answers = _claim_answers(project, claims, report, known) + _artifact_answers(project, known)
    extra = beyond_the_store(project)
    with_interval = [a for a in answers if a.method not in ("no interval",)]
    answer7 = "Yes" if answers and len(with_interval) == len(answers) else "Yes, with the exceptions named"
    lines = ["# Paper checklist: the answers the evidence gives", "",
             "*Generated by `doit deliver` from the sealed runs and the build's reports (NeurIPS paper "
             "checklist, items 7 and 8). Every answer names its source; each claim's value is a citation "
             "of its claim, reconciled against the evidence like any document.*", "",
             "## 7. Experiment statistical significance", "",
             f"**Answer: [{answer7}].** Every interval of a claim and every error bar of a figure or table "
             "is listed below with what it captures, how it is computed, n, and whether it is a standard "
             "deviation or a standard error.", "",
             "| Interval or error bar | Value | n | Method | SD or SE | Variability captured | Source |",
             "|---|---|---|---|---|---|---|"]
    for a in answers:
        lines.append("| " + " | ".join(_cell(x) for x in (a.what, a.value or "-", a.n, a.method, a.sd_or_se,
                                                          a.variability, a.source)) + " |")
    lines += ["", "## 8. Experiments compute resources", "",
              "**Answer: [Yes].** The compute of every sealed run is recorded when it seals (device kind and "
              "count, wall-clock time, device-hours, peak memory) and reported per run and in total, with "
              "everything the project used beyond the runs the paper reports.", "",
              *_compute_answers(ledger, extra), ""]
    facts = {"answers": [a.__dict__ for a in answers], "beyond": extra, "total": ledger["total"],
             "unused": ledger["unused"]}
    return "\n".join(lines), facts


def _check_reconciles(project: Project, name: str, text: str) -> None:
    """The checklist's claim citations are held to the claims like any document's.

    A text found without drift against the same claims by the same reconcile code is not
    scanned again (memoised by its digest; the scan imports and compiles the whole matcher,
    0.1 s of every delivery that rewrites the checklist)."""
    from evidence.core import memo
    from evidence.core.codedeps import code_files
    from evidence.core.hashing import digest_json
    from evidence.deliver.claims import claims_path

    resolved = read_checked_json(project.root, claims_path(project))
    key = f"{name}:{digest_json([text, resolved])[:32]}"
    store = memo.of(project, "checklist-reconciled")
    if store.lookup(key)[0]:
        return
    started = time.time_ns()
    _scan_for_drift(name, text, resolved)
    store.forget([key])  # one text is current; older ones are dead weight
    store.store(key, [claims_path(project), *code_files("evidence.deliver.reconcile")], True, started)


def _scan_for_drift(name: str, text: str, resolved: Any) -> None:
    from evidence.deliver import reconcile
    from evidence.deliver.claims import claim_quantities

    findings = reconcile.scan_text(name, text, claim_quantities(resolved))
    drift = reconcile.drift_findings(findings)
    if drift:
        first = drift[0]
        raise DriftError(f"{name}:{first.line}: states {first.stated!r} for claim {first.claim_id}, the "
                         f"evidence says {first.expected}: {first.why} ({len(drift)} drifted number(s); a "
                         "bug in evidence.deliver.checklist)")


def to_latex(markdown: str) -> str:
    """checklist.tex: the same answers as a LaTeX fragment (``\\input`` it into the paper's checklist)."""
    import re

    from evidence.deliver.claimstex import tex_escape as unicode_to_latex

    def inline(text: str) -> str:
        text = re.sub(r"\[([^\]]+)\]\(#claim:[^)]+\)", r"\1", text)
        parts = re.split(r"(\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)", text)
        out = []
        for part in parts:
            if part.startswith("**") and part.endswith("**") and len(part) > 4:
                out.append(r"\textbf{" + unicode_to_latex(part[2:-2].replace("\\*", "*")) + "}")
            elif part.startswith("*") and part.endswith("*") and len(part) > 2:
                out.append(r"\emph{" + unicode_to_latex(part[1:-1].replace("\\*", "*")) + "}")
            elif part.startswith("`") and part.endswith("`") and len(part) > 2:
                out.append(r"\texttt{" + unicode_to_latex(part[1:-1]) + "}")
            else:
                out.append(unicode_to_latex(part.replace("\\*", "*").replace("\\|", "|")))
        return "".join(out)

    lines = ["% Generated by `doit deliver` (evidence.deliver.checklist); do not edit.", ""]
    in_list = False
    header: list[str] | None = None
    for line in markdown.splitlines():
        if line.startswith("|---"):
            continue
        if in_list and not line.startswith("- "):
            lines.append(r"\end{itemize}")
            in_list = False
        if line.startswith("# "):
            lines.append(r"\section*{" + inline(line[2:]) + "}")
        elif line.startswith("## "):
            lines.append(r"\subsection*{" + inline(line[3:]) + "}")
        elif line.startswith("| "):  # a table row: one item, its cells labelled by the header's
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if header is None:
                header = cells
                lines.append(r"\begin{itemize}")
                continue
            labelled = zip(header[1:], cells[1:], strict=False)
            lines.append(r"\item \textbf{" + inline(cells[0]) + "}: "
                         + "; ".join(f"{inline(label)}: {inline(cell)}" for label, cell in labelled))
            continue
        elif header is not None:
            lines.append(r"\end{itemize}")
            header = None
            lines.append(inline(line))
        elif line.startswith("- "):
            if not in_list:
                lines.append(r"\begin{itemize}")
                in_list = True
            lines.append(r"\item " + inline(line[2:]))
        else:
            lines.append(inline(line))
    if in_list:
        lines.append(r"\end{itemize}")
    return "\n".join(lines) + "\n"


def checklist_action(project_root: str) -> None:
    """build/checklist/checklist.md and .tex: checklist items 7 and 8 answered from the evidence."""
    project = Project.at(project_root)
    text, facts = build_checklist(project)
    out = project.checklist_dir
    _check_reconciles(project, project.relative(out / "checklist.md"), text)
    out.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(out / "checklist.md", text.encode("utf-8"))
    write_bytes_atomic(out / "checklist.tex", to_latex(text).encode("utf-8"))
    record_outputs(project.root, [out / "checklist.md", out / "checklist.tex"])
    beyond = facts["beyond"]
    print(f"checklist: items 7 ({len(facts['answers'])} intervals and error bars) and 8 (compute; "
          f"{len(beyond['failed'])} failed, {beyond['interrupted']} interrupted, "
          f"{len(beyond['quarantined'])} quarantined) -> {project.relative(out)}/")
