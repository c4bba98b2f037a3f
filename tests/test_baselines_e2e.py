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
    assert "a sanity check on the runs failed (all 2 runs of forgotten (seeds 0, 1) give bit-identical" \
        in text
    # the paper speaks its own words: verify ids and labels stay in DISCLOSURES.md
    for word in ("verify:", "suspected_bug", "insufficient_evidence", "aggregate:"):
        assert word not in text, word
    assert "verify:model_vs_forgotten" in disclosures
    tex = (out / "claims.tex").read_text()
    assert "\\newcommand{\\evPublishedAccuracy}{95.1\\%}" in tex
    assert "\\newcommand{\\evPublishedAccuracyCitation}{Street, Wolberg and Mangasarian (1993), Table 3}" \
        in tex
