"""End to end on a small real project (`evidence init`): deterministic baselines and a published
number, compared, rendered with its citation and cited in the paper (issue 31).

The project trains its linear classifier (five seeds) and shuffled-label control first; then a
user adds what issue 31 is about: a majority-class baseline (its own loop, declared
``deterministic = true`` and run with one seed), the same rule whose trainer says
``DETERMINISTIC = True``, a rule with no parameters (both established as fixed values by the
engine), the rule declared nowhere (its identical seeds stay a suspected bug, on which neither a
numeric predicate nor an aggregate claim can rest) and a published accuracy with its citation.
Declaring a variant deterministic changes no run key: only the new runs train.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.schema import validate

pytestmark = pytest.mark.slow  # end to end: trains models and runs doit

PRIOR_TRAINER = '''
"""Predict the most frequent class of the training split: no learning, no seed dependence."""

import torch


def _scores(majority, ctx):
    out = {}
    for split in ("train", "val", "test"):
        y = torch.from_numpy(ctx.data[split].y)
        out[split] = float((y == majority).double().mean())
    return {"accuracy": out}


def train(ctx):
    majority = int(torch.bincount(torch.from_numpy(ctx.data["train"].y)).argmax())
    return {"weights": {"majority": torch.tensor([majority])}, "metrics": _scores(majority, ctx),
            "directions": {"accuracy": "higher"}, "selection_metric": "accuracy"}


def evaluate(weights, ctx):
    return _scores(int(weights["majority"][0]), ctx)
'''

RULE_TRAINER = '''
"""Always predict class 1: a rule with no parameters at all."""

import torch


def _scores(ctx):
    return {"accuracy": {s: float((torch.from_numpy(ctx.data[s].y) == 1).double().mean())
                         for s in ("train", "val", "test")}}


def train(ctx):
    return {"weights": {}, "metrics": _scores(ctx), "directions": {"accuracy": "higher"},
            "selection_metric": "accuracy"}


def evaluate(weights, ctx):
    return _scores(ctx)
'''

BASELINE_VARIANT = '''
[[variants]]
name = "prior"               # the majority class: a rule, the same for every seed
role = "baseline"
trainer = "prior"
deterministic = true
seeds = [0]

[[variants]]
name = "flagged"             # the same rule, not declared here: its trainer says DETERMINISTIC = True
role = "baseline"
trainer = "prior_flagged"
seeds = [0, 1]

[[variants]]
name = "rule"                # no parameters: identical seeds make it a fixed value by themselves
role = "baseline"
trainer = "rule"
seeds = [0, 1]

[[variants]]
name = "forgotten"           # the same rule, declared nowhere: identical seeds are a suspected bug
role = "baseline"
trainer = "prior"
seeds = [0, 1]
config = { copy = "forgotten" }  # else its seed 0 would be the prior's run, key for key
'''

COMPARISONS = '''
[[comparison]]
id = "model_vs_prior"
description = "The model beats predicting the majority class"
a = { experiment = "main", where = { group = "model" } }
b = { experiment = "main", where = { group = "prior" } }
metric = "accuracy"
claimed = "a_better"

[[comparison]]
id = "model_vs_flagged"
a = { experiment = "main", where = { group = "model" } }
b = { experiment = "main", where = { group = "flagged" } }
metric = "accuracy"
claimed = "a_better"

[[comparison]]
id = "model_vs_rule"
a = { experiment = "main", where = { group = "model" } }
b = { experiment = "main", where = { group = "rule" } }
metric = "accuracy"
claimed = "a_better"

[[comparison]]
id = "model_vs_forgotten"
a = { experiment = "main", where = { group = "model" } }
b = { experiment = "main", where = { group = "forgotten" } }
metric = "accuracy"
claimed = "a_better"

[[aggregate]]
id = "forgotten_accuracy"
selection = { experiment = "main", where = { group = "forgotten" } }
metric = "accuracy"

[[reference]]
id = "published"
name = "the published model"
value = 0.951
sd = 0.012
n = 10
citation = "Street, Wolberg and Mangasarian (1993), Table 3"

[[comparison]]
id = "model_vs_published"
description = "The model against the published accuracy"
a = { experiment = "main", where = { group = "model" } }
b = { reference = "published" }
metric = "accuracy"
claimed = "differ"
'''

CLAIMS = [
    {"id": "model_beats_prior",
     "statement": "The model beats the majority-class baseline by {value} (95% CI {ci}).",
     "evidence": {"ref": "verify:model_vs_prior", "quantity": "improvement"},
     "format": {"style": "points", "decimals": 1}, "tolerance": 0.01},
    {"id": "beats_forgotten",
     "statement": "The model beats the majority class by {value}.",
     "evidence": {"ref": "verify:model_vs_forgotten", "quantity": "improvement"},
     "predicate": {"kind": "greater_than", "value": 0, "of": "ci_low"},
     "format": {"style": "points", "decimals": 1}, "tolerance": 0.01},
    {"id": "forgotten_above_half",
     "statement": "The majority class scores {value}.",
     "evidence": {"ref": "aggregate:forgotten_accuracy"},
     "predicate": {"kind": "greater_than", "value": 0.5},
     "format": {"style": "percent", "decimals": 1}, "tolerance": 0.01},
    {"id": "published_accuracy",
     "statement": "{citation} report a test accuracy of {value}.",
     "evidence": {"ref": "reference:published"},
     "format": {"style": "percent", "decimals": 1}, "tolerance": 0.001},
]

PAPER = '''
{{ statement("model_beats_prior") }}

{{ statement("beats_forgotten") }}

The published model reaches {{ claim("published_accuracy") }} ({{ citation("published_accuracy") }}).

{{ statement("published_accuracy") }}
'''


def ran(output: str) -> list[str]:
    return sorted(line[3:].strip() for line in output.splitlines() if line.startswith(".  "))


def test_a_deterministic_baseline_and_a_published_number_end_to_end(tmp_path: Path) -> None:
    root = tmp_path / "forecast"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root)],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    first = doit(root, "-n", "2", "train")
    assert first.returncode == 0, first.stdout + first.stderr

    (root / "trainers" / "prior.py").write_text(PRIOR_TRAINER)
    (root / "trainers" / "rule.py").write_text(RULE_TRAINER)
    (root / "trainers" / "prior_flagged.py").write_text(PRIOR_TRAINER + "\nDETERMINISTIC = True\n")
    with (root / "experiments" / "main.toml").open("a") as handle:
        handle.write(BASELINE_VARIANT)
    with (root / "comparisons.toml").open("a") as handle:
        handle.write(COMPARISONS)
    evidence = json.loads((root / "EVIDENCE.json").read_text())
    evidence["claims"] += CLAIMS
    (root / "EVIDENCE.json").write_text(json.dumps(evidence, indent=2))
    paper = root / "paper" / "paper.md.j2"
    paper.write_text(paper.read_text() + PAPER)
    # the template's figure and table show the model and its control (their order names no other
    # group, and a selection that picks more groups than the order is refused)
    for spec in (root / "figures" / "results" / "figure.toml", root / "tables" / "results" / "table.toml"):
        spec.write_text(spec.read_text().replace('experiment = "main"', 'experiment = "main"\n'
                                                 'where = { group = ["model", "control"] }'))

    delivered = doit(root, "-n", "2", "deliver")
    assert delivered.returncode == 0, delivered.stdout + delivered.stderr
    # declaring a variant deterministic changed no key: only the new baseline run trained
    assert [t for t in ran(delivered.stdout) if t.startswith("train:")] == [
        "train:main/flagged-s0", "train:main/flagged-s1", "train:main/forgotten-s0",
        "train:main/forgotten-s1", "train:main/prior-s0", "train:main/rule-s0", "train:main/rule-s1"]

    report = json.loads((root / "build/verify/report.json").read_text())
    validate(report, "verify_report", "report.json")
    by_id = {c["id"]: c for c in report["comparisons"]}
    prior = by_id["model_vs_prior"]
    assert prior["b"]["fixed"]["how"] == "declared" and prior["numbers"]["test"] == "one-sample-t"
    assert prior["class"] == "effect" and prior["direction_matches_claim"] is True, prior["reason"]
    assert "a fixed value: declared deterministic in experiments/main.toml" in prior["reason"]
    # established by the engine: identical seeds and a trainer that declares it
    flagged = by_id["model_vs_flagged"]
    assert flagged["b"]["fixed"]["how"] == "established" and flagged["class"] == "effect"
    assert "DETERMINISTIC = True (trainers/prior_flagged.py)" in flagged["reason"]
    rule = by_id["model_vs_rule"]
    assert rule["b"]["fixed"] == {"how": "established", "detail": "every seed gives bit-identical "
                                  "metrics and its sealed weights hold no parameters"}
    assert rule["class"] == "effect" and rule["numbers"]["test"] == "one-sample-t"
    # identical seeds with nobody's word for it: the guard stays, and nothing rests on it
    forgotten = by_id["model_vs_forgotten"]
    assert forgotten["class"] == "suspected_bug" and "[seed_applied]" in forgotten["reason"]
    aggregate = next(g for g in report["aggregates"] if g["id"] == "forgotten_accuracy")
    assert aggregate["class"] == "suspected_bug"
    published = by_id["model_vs_published"]
    assert published["numbers"]["test"] == "welch-summary" and published["b"]["runs"] == []
    assert "as published in Street, Wolberg and Mangasarian (1993), Table 3, sd 0.012 over 10 runs" \
        in published["reason"]
    summary = (root / "build/verify/summary.md").read_text()
    assert "model - the published model (b: Street, Wolberg and Mangasarian (1993), Table 3)" in summary
    assert "- **published** 0.951, sd 0.012 over 10 runs: Street, Wolberg and Mangasarian (1993), " \
           "Table 3." in summary

    out = root / "build" / "deliver"
    claims = {c["id"]: c for c in json.loads((out / "claims.json").read_text())["claims"]}
    assert claims["model_beats_prior"]["supported"] is True
    # ci_low > 0 and mean > 0.5 hold, but they rest on runs a guard flagged
    for claim_id in ("beats_forgotten", "forgotten_above_half"):
        assert claims[claim_id]["predicate"]["holds"] is True
        assert claims[claim_id]["supported"] is False and claims[claim_id]["decided_by"] == "guard"
    disclosures = (out / "DISCLOSURES.md").read_text()
    assert "Claim beats_forgotten is not supported by its evidence: verify classified " \
        "verify:model_vs_forgotten as suspected_bug, which supports no claim whatever its predicate" \
        in disclosures
    assert claims["published_accuracy"]["formatted"] == "95.1%"
    text = (out / "paper.md").read_text()
    assert "The published model reaches 95.1% (Street, Wolberg and Mangasarian (1993), Table 3)." in text
    assert "Street, Wolberg and Mangasarian (1993), Table 3 report a test accuracy of 95.1%." in text
    assert "The model beats the majority-class baseline by +" in text
    assert "We could not show that the model beats the majority class by" in text
    assert "a sanity check on the runs failed (every seed gives bit-identical results, so the seed " \
        "does not reach the model)" in text
    assert "forgotten-s0" not in text and "all 2 runs of forgotten" not in text  # no run labels
    # the paper speaks its own words: verify ids and labels stay in DISCLOSURES.md
    for word in ("verify:", "suspected_bug", "insufficient_evidence", "aggregate:"):
        assert word not in text, word
    assert "verify:model_vs_forgotten" in disclosures
    tex = (out / "claims.tex").read_text()
    assert "\\newcommand{\\evPublishedAccuracy}{95.1\\%}" in tex
    assert "\\newcommand{\\evPublishedAccuracyCitation}{Street, Wolberg and Mangasarian (1993), Table 3}" \
        in tex


# --------------------------------------------------------------------------- the outside test
# A regression project as an outside tester built it from the docs (`evidence init --template
# files`: test RMSE, lower is better): a mean predictor with no parameters, a closed-form fit
# declared deterministic and the same fit run once without the declaration, a published RMSE with
# its sd and n, and claim ids with digits, as a new user writes them.

MEANPRED_TRAINER = '''
"""Predict the training mean: no parameters at all."""

import torch


def _metrics(mean, data):
    out = {}
    for s in ("train", "val", "test"):
        y = torch.as_tensor(data[s].y, dtype=torch.float64)
        out[s] = float(((y - mean) ** 2).mean().sqrt())
    return {"rmse": out}


def train(ctx):
    mean = float(torch.as_tensor(ctx.data["train"].y, dtype=torch.float64).mean())
    return {"weights": {}, "metrics": _metrics(mean, ctx.data), "directions": {"rmse": "lower"},
            "selection_metric": "rmse"}


def evaluate(weights, ctx):
    return _metrics(float(torch.as_tensor(ctx.data["train"].y, dtype=torch.float64).mean()), ctx.data)
'''

OLS_TRAINER = '''
"""Closed-form least squares: no seed enters."""

import torch


def _metrics(w, data):
    out = {}
    for s in ("train", "val", "test"):
        x = torch.as_tensor(data[s].x, dtype=torch.float64).reshape(len(data[s].x), -1)
        x = torch.cat([x, torch.ones(len(x), 1, dtype=torch.float64)], 1)
        y = torch.as_tensor(data[s].y, dtype=torch.float64)
        out[s] = float(((x @ w - y) ** 2).mean().sqrt())
    return {"rmse": out}


def train(ctx):
    x = torch.as_tensor(ctx.data["train"].x, dtype=torch.float64).reshape(len(ctx.data["train"].x), -1)
    x = torch.cat([x, torch.ones(len(x), 1, dtype=torch.float64)], 1)
    y = torch.as_tensor(ctx.data["train"].y, dtype=torch.float64)
    w = torch.linalg.lstsq(x, y.unsqueeze(1)).solution.squeeze(1)
    return {"weights": {"w": w}, "metrics": _metrics(w, ctx.data), "directions": {"rmse": "lower"},
            "selection_metric": "rmse"}


def evaluate(weights, ctx):
    return _metrics(weights["w"], ctx.data)
'''

REGRESSION_VARIANTS = '''
[[variants]]
name = "meanpred"            # predicts the training mean: no parameters, not declared
trainer = "meanpred"
role = "baseline"
seeds = [0, 1, 2]

[[variants]]
name = "ols"                 # closed-form least squares: declared deterministic, run once
trainer = "ols"
role = "baseline"
deterministic = true
seeds = [0]

[[variants]]
name = "ols_once"            # the same fit run once, NOT declared
trainer = "ols"
role = "baseline"
seeds = [0]
config = { tag = "once" }
'''

REGRESSION_COMPARISONS = '''
[[comparison]]
id = "linear_vs_meanpred"
a = { experiment = "main", where = { group = "linear" } }
b = { experiment = "main", where = { group = "meanpred" } }
metric = "rmse"
claimed = "a_better"

[[comparison]]
id = "linear_vs_ols_once"
a = { experiment = "main", where = { group = "linear" } }
b = { experiment = "main", where = { group = "ols_once" } }
metric = "rmse"
claimed = "a_better"

[[comparison]]
id = "linear_vs_ols"
a = { experiment = "main", where = { group = "linear" } }
b = { experiment = "main", where = { group = "ols" } }
metric = "rmse"
claimed = "a_better"

[[aggregate]]
id = "meanpred_rmse"
selection = { experiment = "main", where = { group = "meanpred" } }
metric = "rmse"

[[reference]]
id = "ref_sd"
value = 30.0
sd = 20.0
n = 3
citation = "Smith et al. (2023), Table 2"

[[comparison]]
id = "linear_vs_ref_sd"
a = { experiment = "main", where = { group = "linear" } }
b = { reference = "ref_sd" }
metric = "rmse"
claimed = "a_better"
'''

REGRESSION_CLAIMS = [
    {"id": "c1_linear_beats_meanpred", "statement": "Linear regression beats the mean by {value}.",
     "evidence": {"ref": "verify:linear_vs_meanpred", "quantity": "improvement"},
     "format": {"style": "number", "decimals": 1}, "tolerance": 0.5},
    {"id": "c2_linear_beats_ols_once", "statement": "Linear regression beats least squares by {value}.",
     "evidence": {"ref": "verify:linear_vs_ols_once", "quantity": "improvement"},
     "format": {"style": "number", "decimals": 2}, "tolerance": 0.5},
    {"id": "c3_linear_beats_ols", "statement": "Linear regression beats least squares by {value}.",
     "evidence": {"ref": "verify:linear_vs_ols", "quantity": "improvement"},
     "format": {"style": "number", "decimals": 2}, "tolerance": 0.5},
    {"id": "c4_linear_vs_published", "statement": "Linear regression beats {citation} by {value}.",
     "evidence": {"ref": "verify:linear_vs_ref_sd", "quantity": "improvement"},
     "format": {"style": "number", "decimals": 1}, "tolerance": 0.5},
]

REGRESSION_PAPER = '''
{{ statement("c1_linear_beats_meanpred") }}

{{ statement("c2_linear_beats_ols_once") }}

{{ statement("c3_linear_beats_ols") }}

{{ statement("c4_linear_vs_published") }}
'''


def test_a_regression_project_as_an_outside_user_wrote_it(tmp_path: Path) -> None:
    """The outside test of issue 31, its defects each asserted on the real build: D1 (a baseline
    run once gets the hint to declare it), D2 (no zero-width IQM interval), D3 (claim ids with
    digits), D4 (the mean predictor is no leakage suspect), D5/D6/D7 (the paper's words), D9."""
    root = tmp_path / "regression"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root), "--template", "files"],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    (root / "trainers" / "meanpred.py").write_text(MEANPRED_TRAINER)
    (root / "trainers" / "ols.py").write_text(OLS_TRAINER)
    with (root / "experiments" / "main.toml").open("a") as handle:
        handle.write(REGRESSION_VARIANTS)
    with (root / "comparisons.toml").open("a") as handle:
        handle.write(REGRESSION_COMPARISONS)
    evidence = json.loads((root / "EVIDENCE.json").read_text())
    evidence["claims"] += REGRESSION_CLAIMS
    (root / "EVIDENCE.json").write_text(json.dumps(evidence, indent=2))
    paper = root / "paper" / "paper.md.j2"
    paper.write_text(paper.read_text() + REGRESSION_PAPER)
    for spec in (root / "figures" / "results" / "figure.toml", root / "tables" / "results" / "table.toml"):
        spec.write_text(spec.read_text().replace('experiment = "main"', 'experiment = "main"\n'
                                                 'where = { group = ["linear", "mlp", "control"] }'))

    # D3: ids with digits passed the schema but failed `doit verify` with exit 3
    verified = doit(root, "-n", "2", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads((root / "build/verify/report.json").read_text())
    validate(report, "verify_report", "report.json")
    by_id = {c["id"]: c for c in report["comparisons"]}
    # D4: the mean predictor's test RMSE is below its train RMSE by chance, not by leakage
    meanpred = by_id["linear_vs_meanpred"]
    gap = next(c for c in meanpred["checks"] if c["name"] == "train_test_gap")
    assert gap["passed"] is True and "25% of the train value" not in gap["detail"], gap["detail"]
    assert meanpred["b"]["fixed"]["how"] == "established", meanpred["b"]
    assert meanpred["class"] == "effect", meanpred["reason"]
    # D1: a baseline run once and not declared is insufficient evidence, with the way out
    once = by_id["linear_vs_ols_once"]
    assert once["class"] == "insufficient_evidence"
    assert "ols_once was run with one seed and is not declared deterministic" in once["reason"]
    assert "declare deterministic = true for that variant" in once["reason"]
    # D9: a published value with its spread is a summary; D2: equal values give no IQM interval
    assert "fixed" not in by_id["linear_vs_ref_sd"]["b"]
    aggregate = next(g for g in report["aggregates"] if g["id"] == "meanpred_rmse")
    assert aggregate["intervals"]["iqm"]["percentile"]["low"] is None
    summary = (root / "build/verify/summary.md").read_text()
    assert "CI undefined: every resample gives" in summary and ".." not in summary.replace("...", "")

    delivered = doit(root, "-n", "2", "deliver")
    assert delivered.returncode == 0, delivered.stdout + delivered.stderr
    out = root / "build" / "deliver"
    claims = {c["id"]: c for c in json.loads((out / "claims.json").read_text())["claims"]}
    assert claims["c1_linear_beats_meanpred"]["supported"] is True
    tex = (out / "claims.tex").read_text()
    assert "\\newcommand{\\evCOneLinearBeatsMeanpred}" in tex
    text = (out / "paper.md").read_text()
    assert "We could not show that linear regression beats least squares by" in text
    # D8: an undefined interval is not one "which includes zero"
    assert "has no defined interval" in claims["c2_linear_beats_ols_once"]["why_reader"]
    assert "includes zero" not in claims["c2_linear_beats_ols_once"]["why_reader"]
    # D6: against a fixed value only the seeded side needs more seeds
    fixed = by_id["linear_vs_ols"]
    assert fixed["numbers"]["test"] == "one-sample-t" and fixed["class"] == "insufficient_evidence"
    assert claims["c3_linear_beats_ols"]["supported"] is False
    assert f"about {fixed['seeds_needed']} seeds of linear would be needed" in \
        claims["c3_linear_beats_ols"]["why_reader"]
    for claim_id in ("c2_linear_beats_ols_once", "c3_linear_beats_ols"):
        assert "per group" not in claims[claim_id]["why_reader"], claims[claim_id]["why_reader"]
    disclosures = (out / "DISCLOSURES.md").read_text()
    # D7: the published mean with its spread is no "fixed value" in the seeds disclosure
    published = next(line for line in disclosures.splitlines() if "verify:linear_vs_ref_sd compares" in line)
    assert "against the published mean with its spread of Smith et al. (2023), Table 2" in published
    assert "a fixed value" not in published and "could not be estimated" not in published
    # D5: the paper names no run
    for word in ("meanpred-s0", "ols_once-s0", "[seed_applied]", "verify:"):
        assert word not in text, word
