"""Claims resolved from a verify report: values, intervals, predicates, statements, formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.deliver.claims import Format, load_evidence, render_statement, resolve_claim

INTERVAL = {"low": 0.96, "high": 0.98, "estimate": 0.97, "confidence": 0.95, "method": "student-t",
            "n_resamples": 0, "note": ""}
REPORT: dict[str, Any] = {
    "aggregates": [{
        "id": "acc", "metric": "accuracy", "split": "test", "n": 5, "mean": 0.97, "sd": 0.01,
        "se": 0.0045, "median": 0.97, "iqm": 0.97, "ci": INTERVAL,
        "intervals": {"iqm": {"bca": INTERVAL}},
        "strata": [{"runs": [{"run_id": "a" * 16, "results_digest": "d" * 64}]}],
        "reference": None}],
    "comparisons": [{
        "id": "a_vs_b", "metric": "accuracy", "split": "test", "class": "noise", "direction": "higher",
        "claimed": "a_better",
        "reason": "the CI includes zero", "direction_matches_claim": None, "seeds_needed": 40,
        "numbers": {"n_a": 5, "n_b": 5, "diff": 0.002, "improvement": 0.002,
                    "diff_ci": {**INTERVAL, "low": -0.001, "high": 0.005, "method": "welch-t"},
                    "prob_improvement": 0.6, "prob_improvement_ci": {**INTERVAL, "low": 0.3, "high": 0.9},
                    "hedges_g": 0.3},
        "a": {"name": "a", "runs": [{"run_id": "b" * 16, "results_digest": "e" * 64}]},
        "b": {"name": "b", "runs": [{"run_id": "c" * 16, "results_digest": "f" * 64}]},
        "control": None}],
    "expected_max": [],
}


def claim(**overrides: Any) -> dict[str, Any]:
    base = {"id": "c1", "statement": "Accuracy is {value} (95% CI {ci}) over {n} seeds.",
            "evidence": {"ref": "aggregate:acc"}, "format": {"style": "percent", "decimals": 1}}
    return {**base, **overrides}


def test_aggregate_claim_resolves_value_interval_and_statement() -> None:
    resolved = resolve_claim(claim(), REPORT)
    assert resolved["value"] == 0.97 and (resolved["ci_low"], resolved["ci_high"]) == (0.96, 0.98)
    assert resolved["statement"] == "Accuracy is 97.0% (95% CI [96.0%, 98.0%], Student t) over 5 seeds."
    assert resolved["runs"] == [{"run_id": "a" * 16, "results_digest": "d" * 64}]
    assert resolved["supported"] is True


def test_comparison_claim_carries_classification_and_predicate() -> None:
    effect = claim(evidence={"ref": "verify:a_vs_b"}, format={"style": "points", "decimals": 1},
                   statement="A beats B by {value} ({ci}).",
                   predicate={"kind": "classification", "equals": "effect"})
    resolved = resolve_claim(effect, REPORT)
    assert resolved["classification"] == "noise"
    assert resolved["predicate"]["holds"] is False and resolved["supported"] is False
    assert resolved["statement"] == "A beats B by +0.2 points ([-0.1, +0.5] points, Welch t)."
    assert resolved["caveat"] is None
    noise = resolve_claim({**effect, "predicate": {"kind": "classification", "equals": "noise"}}, REPORT)
    assert noise["supported"] is True
    # "A beats B" cannot rest on a verdict of noise: the claim holds but is flagged
    # in the paper's words: the caveat is shown beside the statement, so it names no verify id
    assert noise["caveat"] == ("a was claimed to be better than b, but this claim rests on an "
                               "equivalence test (a difference within the declared margin), which "
                               "does not show that direction")
    assert {r["run_id"] for r in noise["runs"]} == {"b" * 16, "c" * 16}


def test_improvement_is_positive_when_a_is_better_whatever_the_direction() -> None:
    loss = json.loads(json.dumps(REPORT))
    entry = loss["comparisons"][0]
    entry["direction"] = "lower"
    entry["numbers"].update(diff=-0.03, improvement=0.03,
                            diff_ci={**INTERVAL, "low": -0.05, "high": -0.01, "method": "welch-t"})
    gain = resolve_claim(claim(evidence={"ref": "verify:a_vs_b", "quantity": "improvement"},
                               format={"style": "number", "decimals": 2},
                               statement="A lowers the loss by {value} ({ci})."), loss)
    assert (gain["value"], gain["ci_low"], gain["ci_high"]) == (0.03, 0.01, 0.05)
    assert gain["statement"] == "A lowers the loss by +0.03 ([+0.01, +0.05], Welch t)."
    raw = resolve_claim(claim(evidence={"ref": "verify:a_vs_b", "quantity": "diff"}), loss)
    assert (raw["value"], raw["ci_low"]) == (-0.03, -0.05)


@pytest.mark.parametrize(("ref", "quantity", "message"), [
    ("aggregate:acc", "improvement", "not available for an aggregate entry; valid quantities: mean, "
     "median, sd, se, iqm, distance_to_reference"),
    ("verify:a_vs_b", "mean", "not available for a verify entry; valid quantities: improvement, diff, "
     "prob_improvement, hedges_g"),
])
def test_an_unknown_quantity_lists_the_valid_ones(ref: str, quantity: str, message: str) -> None:
    from evidence.core.errors import EvidenceError

    with pytest.raises(EvidenceError) as caught:
        resolve_claim(claim(evidence={"ref": ref, "quantity": quantity}), REPORT)
    assert message in str(caught.value)


@pytest.mark.parametrize(("predicate", "holds"), [
    ({"kind": "within", "target": 0.96, "tolerance": 0.02}, True),
    ({"kind": "within", "target": 0.9, "tolerance": 0.02}, False),
    ({"kind": "greater_than", "value": 0.95, "of": "ci_low"}, True),
    ({"kind": "less_than", "value": 0.975, "of": "ci_high"}, False),
])
def test_numeric_predicates(predicate: dict[str, Any], holds: bool) -> None:
    assert resolve_claim(claim(predicate=predicate), REPORT)["predicate"]["holds"] is holds


def test_unknown_reference_names_what_exists() -> None:
    from evidence.core.errors import EvidenceError

    with pytest.raises(EvidenceError, match=r"no aggregate entry 'missing' \(it has: acc\)"):
        resolve_claim(claim(evidence={"ref": "aggregate:missing"}), REPORT)


def test_formats() -> None:
    assert Format("percent", 1).render(0.96437) == "96.4%"
    assert Format("points", 1).render(0.004, signed=True) == "+0.4 points"
    assert Format("number", 3).render(0.12345) == "0.123"
    assert Format("number", 3).render(None) == "n/a"
    assert Format("percent", 1).render_interval(0.9, 0.95) == "[90.0%, 95.0%]"
    resolved = {"formatted": "1", "ci_formatted": "[0, 2]", "n": 3, "classification": None}
    assert render_statement("{value} in {ci}, {low}..{high}, n={n}", resolved) == "1 in [0, 2], 0..2, n=3"


@pytest.mark.parametrize(("low", "high", "style", "text"), [
    # issue 29 item 19: "[-0.0, +1.1] points" hid which side of zero the interval starts on
    (-0.0004, 0.011, "points", "[-0.04, +1.1] points"),
    (0.0004, 0.011, "points", "[+0.04, +1.1] points"),
    (-0.0, 0.011, "points", "[0.0, +1.1] points"),
    (-1e-12, 0.011, "points", "[0.0, +1.1] points"),
    (-0.0004, 0.011, "percent", "[-0.04%, 1.1%]"),
    (-0.02, 0.011, "points", "[-2.0, +1.1] points"),
])
def test_an_interval_bound_never_reads_as_signed_zero(low: float, high: float, style: str, text: str) -> None:
    rendered = Format(style, 1).render_interval(low, high, signed=style == "points")
    assert rendered == text
    assert "-0.0," not in rendered and "+0.0," not in rendered


@pytest.mark.parametrize(("content", "field", "message"), [
    ('{"schema_version": 1}', "claims", "required but missing"),
    ('{"schema_version": 1, "claims": [{"id": "x", "statement": "s", "evidence": {"ref": "bad"}}]}',
     "claims[0].evidence.ref", "does not match"),
    ('{"schema_version": 1, "claims": [{"id": "x", "statement": "{oops}", "evidence": '
     '{"ref": "aggregate:a"}}]}', "claims[0].statement", "unknown placeholder"),
    ('{"schema_version": 1, "claims": [{"id": "x", "statement": "s", "evidence": {"ref": "aggregate:a"}},'
     '{"id": "x", "statement": "s", "evidence": {"ref": "aggregate:a"}}]}', "claims[1].id", "duplicate"),
    ('{"schema_version": 1, "claims": [', None, "not valid JSON"),
])
def test_bad_evidence_file_names_the_field(tmp_path: Path, content: str, field: str | None,
                                           message: str) -> None:
    (tmp_path / "EVIDENCE.json").write_text(content)
    with pytest.raises(BadInputError, match=message) as caught:
        load_evidence(Project.at(tmp_path))
    assert caught.value.field == field
    assert "EVIDENCE.json" in caught.value.path


def test_the_bundled_evidence_file_is_valid() -> None:
    evidence = load_evidence(Project.at(Path(__file__).resolve().parent.parent))
    assert len(evidence["claims"]) >= 2
    assert json.dumps(evidence)
