"""Reconcile against every class of miss of issue 30, with claims derived the way delivery does.

The claims are the bundled example's, resolved as ``claims.json`` holds them (values, intervals,
n, seeds needed, P(better), subjects, metric), and turned into what reconcile checks by
:func:`evidence.deliver.claims.claim_quantities`: five of them have no ``keywords`` and are
found by the words of their subjects. A second project with a regression metric (RMSE, a plain
number) checks the rules that are not about percentages.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from evidence.deliver.claims import claim_quantities, metric_words, subject_words
from evidence.deliver.reconcile import (
    Finding,
    drift_findings,
    findings_json,
    hand_typed_numbers,
    scan_text,
)


def _claim(cid: str, ref: str, value: float, low: float | None, high: float | None, *, style: str,
           subjects: list[str], keywords: tuple[str, ...] = (), quantity: str | None = None,
           classification: str | None = None, supported: bool = True, seeds_needed: int | None = None,
           prob: float | None = None, n: int = 5, split: str = "test", metric: str = "accuracy",
           decimals: int = 1) -> dict[str, Any]:
    return {"id": cid, "ref": ref, "quantity": quantity, "value": value, "ci_low": low, "ci_high": high,
            "n": n, "classification": classification, "supported": supported, "seeds_needed": seeds_needed,
            "prob_better": prob, "subjects": subjects, "keywords": list(keywords), "metric": metric,
            "split": split, "claimed": "a_better" if ref.startswith("verify:") else None,
            "format": {"style": style, "decimals": decimals}}


EXAMPLE = {"claims": [
    _claim("cnn_test_accuracy", "aggregate:cnn_accuracy", 0.98667, 0.98100, 0.99233, style="percent",
           subjects=["cnn"], keywords=("CNN", "test accuracy")),
    _claim("mlp_test_accuracy", "aggregate:mlp_accuracy", 0.98111, 0.97823, 0.98400, style="percent",
           subjects=["mlp"], keywords=("MLP", "test accuracy")),
    _claim("cnn_beats_mlp", "verify:cnn_vs_mlp", 0.005556, -0.0000623, 0.011173, style="points",
           subjects=["cnn", "mlp"], quantity="diff", classification="insufficient_evidence",
           supported=False, seeds_needed=10, prob=0.84),
    _claim("mlp_beats_control", "verify:mlp_vs_control", 0.869444, 0.805772, 0.933117, style="points",
           subjects=["mlp", "control"], quantity="diff", classification="effect", prob=1.0),
    _claim("cnn_beats_control", "verify:cnn_vs_control", 0.875, 0.81143, 0.93857, style="points",
           subjects=["cnn", "control"], quantity="diff", classification="effect", prob=1.0),
    _claim("control_at_chance", "aggregate:control_at_chance", 0.111667, 0.047957, 0.175376,
           style="percent", subjects=["control"], keywords=("control", "test")),
    _claim("width_is_noise", "verify:mlp_wide_vs_mlp", 0.0016667, -0.0012042, 0.0045375, style="points",
           subjects=["mlp_wide", "mlp"], quantity="diff", classification="insufficient_evidence",
           supported=False, seeds_needed=26, prob=0.72),
    _claim("tuning_budget", "expected_max:mlp_sweep", 0.954002, None, None, style="percent",
           subjects=["mlp_sweep"], quantity="expected@4", n=16, split="val"),
]}
CLAIMS = claim_quantities(EXAMPLE)

#: A second project: house prices, a regression metric shown as a plain number.
HOUSES = {"claims": [
    _claim("ridge_rmse", "aggregate:ridge", 31.42, 29.80, 33.04, style="number", decimals=2,
           subjects=["ridge"], metric="rmse"),
    _claim("gbm_rmse", "aggregate:gbm", 22.25, 21.10, 23.40, style="number", decimals=2,
           subjects=["gbm"], metric="rmse"),
    _claim("gbm_beats_ridge", "verify:gbm_vs_ridge", 9.17, 7.20, 11.14, style="number", decimals=2,
           subjects=["gbm", "ridge"], quantity="improvement", classification="effect", metric="rmse"),
]}
HOUSE_CLAIMS = claim_quantities(HOUSES)


def failing(name: str, text: str, claims: Any = None, **kw: Any) -> list[tuple[int, str, str, str]]:
    found = scan_text(name, text, CLAIMS if claims is None else claims, **kw)
    return sorted((f.line, f.claim_id, f.quantity, f.kind) for f in drift_findings(found))


def all_kinds(name: str, text: str, claims: Any = None, **kw: Any) -> list[Finding]:
    return scan_text(name, text, CLAIMS if claims is None else claims, **kw)


# ------------------------------------------------------------------ words from the evidence


def test_subject_and_metric_words_are_derived_from_names() -> None:
    assert {"mlp_wide", "mlp wide", "wide mlp", "wider mlp"} <= set(subject_words("mlp_wide"))
    assert "convolutional network" in subject_words("cnn")
    assert "shuffled-label control" in subject_words("control")
    assert {"accuracy", "test accuracy"} <= set(metric_words("accuracy", "test"))
    assert "root mean squared error" in metric_words("rmse", None)
    by_id = {c.id: c for c in CLAIMS}
    assert by_id["cnn_beats_mlp"].comparison and by_id["cnn_beats_mlp"].points
    assert [q.name for q in by_id["cnn_beats_mlp"].quantities()] == [
        "value", "ci_low", "ci_high", "ci_half", "n", "seeds_needed", "prob_better"]


# ------------------------------------------------------------------ class 1: claims without keywords

CLASS_1 = [
    ("The CNN beats the control by 87.5 points and the MLP leads the MLP sweep... "
     "the CNN's lead over the MLP is +0.8 points.\n", [(1, "cnn_beats_mlp", "value", "drift")]),
    ("The CNN's lead over the MLP is +0.6 points (95% CI [-0.0, +1.4] points).\n",
     [(1, "cnn_beats_mlp", "ci_high", "drift")]),
    ("Trying four configurations of the sweep, the best validation accuracy to expect is 96.4%.\n",
     [(1, "tuning_budget", "value", "drift")]),
    ("The MLP beats its shuffled-label control by 80.0 points.\n",
     [(1, "mlp_beats_control", "value", "drift")]),
    ("Doubling the width, the wide MLP changes test accuracy by +0.9 points over the MLP.\n",
     [(1, "width_is_noise", "value", "drift")]),
]


@pytest.mark.parametrize(("text", "expected"), CLASS_1)
def test_claims_without_keywords_are_checked(text: str, expected: list[Any]) -> None:
    assert [f for f in failing("README.md", text) if f[3] == "drift"] == expected


# ------------------------------------------------------------------ class 2: every quantity

CLASS_2 = [
    ("The CNN reaches a test accuracy of 98.7% (95% CI [98.1%, 99.4%]).\n",
     [(1, "cnn_test_accuracy", "ci_high", "drift")]),
    ("The MLP's test accuracy lies in 97.8–98.6% (95% CI).\n",
     [(1, "mlp_test_accuracy", "ci_high", "drift")]),
    ("The CNN reaches 98.7% test accuracy over 10 seeds.\n", [(1, "cnn_test_accuracy", "n", "drift")]),
    ("Resolving the CNN's lead over the MLP would need about 20 seeds per group.\n",
     [(1, "cnn_beats_mlp", "seeds_needed", "drift")]),
    ("The probability that the CNN is better than the MLP is 0.91.\n",
     [(1, "cnn_beats_mlp", "prob_better", "drift")]),
    ("P(CNN better than MLP) = 66%.\n", [(1, "cnn_beats_mlp", "prob_better", "drift")]),
    ("In 91% of seed pairs the CNN wins.\n", [(1, "cnn_beats_mlp", "prob_better", "drift")]),
    ("The label-shuffled model stays near chance at 13.2%.\n", [(1, "control_at_chance", "value", "drift")]),
    ("- Slide 4: gap CNN−MLP = +0.8 pp, 95 % CI [−0.0, +1.1] → not resolved with n=5.\n",
     [(1, "cnn_beats_mlp", "value", "drift")]),
]


@pytest.mark.parametrize(("text", "expected"), CLASS_2)
def test_every_quantity_of_a_claim_is_checked(text: str, expected: list[Any]) -> None:
    assert failing("README.md", text) == expected


def test_every_quantity_stated_correctly_matches() -> None:
    text = ("The CNN reaches 98.7% test accuracy (95% CI [98.1%, 99.2%]) over 5 seeds. "
            "Showing its lead over the MLP would need about 10 seeds per group; "
            "P(CNN better) = 0.84.\n")
    found = all_kinds("README.md", text)
    assert sorted((f.claim_id, f.quantity, f.kind) for f in found) == [
        ("cnn_beats_mlp", "prob_better", "match"), ("cnn_beats_mlp", "seeds_needed", "match"),
        ("cnn_test_accuracy", "ci_high", "match"), ("cnn_test_accuracy", "ci_low", "match"),
        ("cnn_test_accuracy", "n", "match"), ("cnn_test_accuracy", "value", "match")]


# ------------------------------------------------------------------ class 3: precision


def test_overstated_precision_is_disclosed_and_wrong_digits_are_drift() -> None:
    [right] = all_kinds("README.md", "The CNN's test accuracy is 98.67%.\n")
    assert (right.kind, right.quantity) == ("overstated_precision", "value")
    assert "supports 1" in right.why and not right.failing
    [wrong] = all_kinds("README.md", "The CNN's test accuracy is 98.61%.\n")
    assert (wrong.kind, wrong.failing) == ("drift", True)


# ------------------------------------------------------------------ class 4: several claims


def test_respectively_pairs_subjects_with_numbers_in_order() -> None:
    swapped = "The CNN and the MLP reach 98.1% and 98.7% respectively.\n"
    assert failing("README.md", swapped) == [(1, "cnn_test_accuracy", "value", "drift"),
                                             (1, "mlp_test_accuracy", "value", "drift")]
    right = "The CNN and the MLP reach 98.7% and 98.1% test accuracy, respectively.\n"
    assert failing("README.md", right) == []


def test_a_bound_number_in_a_sentence_about_another_subject_is_suspicious() -> None:
    text = "The MLP reaches [98.7%](#claim:cnn_test_accuracy) on the test digits.\n"
    cited, meant = all_kinds("README.md", text)
    assert (cited.kind, cited.claim_id, cited.bound) == ("drift", "cnn_test_accuracy", True)
    assert "names 'MLP'" in cited.why
    # and the claim the sentence is about is named: its result is what the sentence should cite
    assert (meant.kind, meant.claim_id, meant.bound) == ("drift", "mlp_test_accuracy", True)
    assert "cites cnn_test_accuracy" in meant.why
    ok = "The CNN reaches [98.7%](#claim:cnn_test_accuracy) on the test digits.\n"
    assert failing("README.md", ok) == []


def test_a_template_binding_or_macro_in_a_sentence_about_another_subject_is_suspicious() -> None:
    md = ("The MLP reaches {{ claim('cnn_test_accuracy') }} test accuracy.\n\n"
          "The CNN reaches {{ claim('cnn_test_accuracy') }}.\n")
    misplaced = [(1, "cnn_test_accuracy", "value", "drift"), (1, "mlp_test_accuracy", "value", "drift")]
    assert failing("paper/paper.md.j2", md) == misplaced
    tex = "The MLP reaches \\evCnnTestAccuracy{} test accuracy.\n\nThe CNN reaches \\evCnnTestAccuracy{}.\n"
    assert failing("paper/paper.tex", tex) == misplaced


@pytest.mark.parametrize(("name", "text"), [
    ("README.md", "The CNN and the MLP reach [98.1%](#claim:mlp_test_accuracy) and "
                  "[98.7%](#claim:cnn_test_accuracy), respectively.\n"),
    ("paper/paper.md.j2", "The CNN and the MLP reach {{ claim('mlp_test_accuracy') }} and "
                          "{{ claim('cnn_test_accuracy') }}, respectively.\n"),
    ("paper/paper.tex", "The CNN and the MLP reach \\evMlpTestAccuracy{} and \\evCnnTestAccuracy{}, "
                        "respectively.\n"),
])
def test_swapped_bindings_in_a_respectively_list_are_drift(name: str, text: str) -> None:
    assert failing(name, text) == [(1, "cnn_test_accuracy", "value", "drift"),
                                   (1, "mlp_test_accuracy", "value", "drift")]
    swaps = [("mlp_test_accuracy", "cnn_test_accuracy"), ("MlpTest", "CnnTest"), ("[98.1%]", "[98.7%]")]
    fixed = text
    for a, b in swaps:
        fixed = fixed.replace(a, "@").replace(b, a).replace("@", b)
    assert failing(name, fixed) == []


# ------------------------------------------------------------------ class 5: structure

TABULAR = r"""\begin{table}[t]
\centering
\begin{tabular}{lrr}
\toprule
Model & Test acc.\ (\%) & Test loss \\
\midrule
CNN & 98.7 & 0.041 \\
MLP & 97.6 & 0.050 \\
Control & 11.2 & 2.301 \\
\bottomrule
\end{tabular}
\caption{Test accuracy over 5 seeds (95\% CI in the text).}
\end{table}
"""


def test_latex_tabular_cells_are_judged_by_row_and_column_headers() -> None:
    assert failing("paper/sections/results.tex", TABULAR) == [(8, "mlp_test_accuracy", "value", "drift")]


def test_thin_spaces_and_latex_spacing_before_percent() -> None:
    assert failing("paper/a.tex", "The CNN reaches a test accuracy of 98.9\\,\\%.\n") == [
        (1, "cnn_test_accuracy", "value", "drift")]
    assert failing("README.md", "The CNN reaches a test accuracy of 98.9\u2009%.\n") == [
        (1, "cnn_test_accuracy", "value", "drift")]
    assert failing("README.md", "The CNN reaches a test accuracy of 98.9\u202f%.\n") == [
        (1, "cnn_test_accuracy", "value", "drift")]
    assert failing("paper/a.tex", "The CNN reaches a test accuracy of 98.7~\\%.\n") == []


def test_footnote_definitions_are_prose() -> None:
    text = "The CNN is strong.[^1]\n\n[^1]: Its test accuracy, for the CNN, is 97.9%.\n"
    assert failing("README.md", text) == [(3, "cnn_test_accuracy", "value", "drift")]


def test_a_wrong_integer_difference_of_a_plain_claim_is_caught() -> None:
    assert failing("README.md", "The GBM beats ridge regression by 12 in RMSE.\n", HOUSE_CLAIMS) == [
        (1, "gbm_beats_ridge", "value", "drift")]
    assert failing("README.md", "The GBM beats ridge regression by 9 in RMSE.\n", HOUSE_CLAIMS) == []
    assert failing("README.md", "The GBM's RMSE is 22.25 and ridge's 33.10.\n", HOUSE_CLAIMS) == [
        (1, "ridge_rmse", "value", "drift")]


def test_a_spread_carries_the_unit_and_bounds_are_checked_as_bounds() -> None:
    assert failing("README.md", "The CNN's test accuracy is 98.7 ± 0.5%.\n") == []
    assert failing("README.md", "The CNN's test accuracy is 97.7 ± 0.5%.\n") == [
        (1, "cnn_test_accuracy", "value", "drift")]
    assert failing("README.md", "The CNN reaches over 98% test accuracy, the MLP nearly 99%.\n") == []
    [below] = all_kinds("README.md", "The MLP stays below 98% test accuracy.\n")
    assert (below.kind, below.claim_id) == ("drift", "mlp_test_accuracy") and "a bound" in below.why


def test_a_negative_difference_stated_as_a_magnitude() -> None:
    """A lower-is-better metric's raw diff is negative; "lowers RMSE by 9.2 (7.2 to 11.1)" states it."""
    diff = {"claims": [_claim("gbm_minus_ridge", "verify:gbm_vs_ridge", -9.17, -11.14, -7.20,
                              style="number", decimals=2, subjects=["gbm", "ridge"], quantity="diff",
                              classification="effect", metric="rmse")]}
    claims = claim_quantities(diff)
    text = "Gradient boosting lowers RMSE by 9.2 against ridge regression (95% CI 7.2 to 11.1).\n"
    assert failing("README.md", text, claims) == []
    assert failing("README.md", text.replace("9.2", "8.2"), claims) == [
        (1, "gbm_minus_ridge", "value", "drift")]
    assert failing("README.md", "The GBM's RMSE differs from ridge's by -9.2.\n", claims) == []


# ------------------------------------------------------------------ class 7: wording


WORDING = [
    "The CNN significantly outperforms the MLP.",
    "- Slide 8: wide MLP (128 units) vs MLP: +0.2 pp, CI [−0.1, +0.5]; no difference!",
    "- Slide 9: the CNN clearly beats the MLP (but see slide 4).",
    "The CNN beats the MLP by +0.6 points.",
    "The wide MLP is equivalent to the MLP.",
    "The MLP and the wide MLP perform on par.",
]


@pytest.mark.parametrize("sentence", WORDING)
def test_wording_the_evidence_does_not_support_is_named(sentence: str) -> None:
    found = [f for f in drift_findings(all_kinds("notes/slides.md", sentence + "\n"))
             if f.kind == "unsupported_wording"]
    assert len(found) == 1 and found[0].line == 1 and found[0].file == "notes/slides.md"
    assert "verify classifies" in found[0].why


HEDGED = [
    "We do not find that the CNN beats the MLP.",
    "Whether the CNN beats the MLP is not shown by five seeds.",
    "Does the CNN beat the MLP?",
    "The CNN beats the shuffled-label control by 87.5 points, as does the MLP.",
    "The CNN and the MLP both significantly outperform the shuffled-label control.",
    "The probability that the CNN is better than the MLP is 0.84.",
    "The CNN might beat the MLP with more seeds.",
]


@pytest.mark.parametrize("sentence", HEDGED)
def test_hedged_or_supported_wording_passes(sentence: str) -> None:
    assert failing("notes/slides.md", sentence + "\n") == []


# ------------------------------------------------------------------ class 9: hand-typed in a template


def test_a_result_in_a_template_is_hand_typed_even_before_of_test() -> None:
    found = hand_typed_numbers(Path("paper/paper.md.j2"),
                               "The CNN is right on 98.7% of test digits; we hold out 20% of the data.\n")
    assert [h.text for h in found] == ["98.7%"]


def test_a_hand_typed_number_in_a_tex_source_is_reported() -> None:
    found = hand_typed_numbers(Path("paper/paper.tex"), "The CNN beats the MLP by 12.5 points "
                               "(\\cite{x}, Table~\\ref{t}).\n% 99.9 in a comment\n")
    assert [(h.line, h.text) for h in found] == [(1, "12.5 points")]


def test_the_latex_template_reconciles_its_tex_sources() -> None:
    for template in ("project", "files"):
        raw = json.loads((resources.files("evidence") / "templates" / template / "EVIDENCE.json").read_text())
        assert "paper/**/*.tex" in raw["reconcile"]["include"]


# ------------------------------------------------------------------ strict mode


def test_strict_mode_requires_binding() -> None:
    text = "The CNN reaches 98.7% test accuracy; bound: [98.7%](#claim:cnn_test_accuracy).\n"
    assert failing("README.md", text) == []
    assert failing("README.md", text, strict=True) == [(1, "cnn_test_accuracy", "value", "unbound")]
    assert failing("paper/a.tex", "The CNN reaches \\evCnnTestAccuracy{} test accuracy.\n", strict=True) == []


# ------------------------------------------------------------------ decoys (class 6 and the usual)

DECOYS = [
    "The shuffled-label control is evaluated on the same 20% test split.",
    "The CNN's test accuracy is reported with a 95% confidence interval.",
    "The CNN and the MLP were trained on 2026-11-23 with torch 2.3.1 and Python 3.11.",
    "See doi:10.1000/xyz123 and arXiv:2101.00001v2 for the CNN's test accuracy, pp. 12–34.",
    "The CNN (lr = 0.05, momentum 0.9, weight decay 0.0001, batch size 32) trains for 15 epochs.",
    "The digits dataset has 1,797 images of 8x8 pixels; the MLP has 64 hidden units.",
    "We use 60% of the data for training and 20% for validation for the CNN and the MLP.",
    "The CNN's test accuracy follows Eq. (3) and Table 2, as in [12].",
    "The CNN's test accuracy (Smith et al., 2020) improves on LeCun et al. (1998).",
    "The MLP's test loss is 0.050, the CNN's test loss 0.041.",
    "The control's test accuracy is compared with chance (10% for 10 classes).",
    "The CNN was trained with seed 7 and the MLP with seeds 0-4.",
    "The CNN's validation accuracy peaks at 97.2% after epoch 12.",
    "Chance accuracy on 10 classes is 10%, which the control should approach.",
    "The MLP sweep covers learning rates 0.003, 0.01, 0.03 and 0.1 and widths 16, 32, 64 and 128.",
    "A test loss of 0.041 for the CNN and 0.061 for the MLP is typical (Appendix B, pp. 12–14).",
    "P-values below 0.05 are not reported for the CNN vs MLP comparison.",
    "The MLP uses 20% dropout in our ablation, and the CNN 10%.",
    "The shuffled-label control permutes 100% of the training labels.",
    "CNN training takes about 2.5 seconds per seed on 1 CPU core.",
    "We ran 41 training runs in total (0.065 core-hours, $0.003) for the CNN and the MLP.",
]


@pytest.mark.parametrize("sentence", DECOYS)
def test_decoys_are_not_flagged(sentence: str) -> None:
    assert failing("README.md", sentence + "\n") == []


RELATED_WORK = r"""\section{Related work}
Convolutional networks~\cite{lecun1998gradient} reached 99.2\% on MNIST in 1998, and a
multilayer perceptron with 800 hidden units reached 98.4\%~\citep[p.~7]{simard2003}.
Unlike \citet{smith2020}, who report 97.1\% for an MLP on CIFAR-10, we study 8$\times$8 digits.
The MLP's test loss is 0.061 and the CNN's 0.041 (Table~\ref{tab:loss}, Section~4.2).
"""


def test_numbers_of_cited_work_are_not_ours() -> None:
    assert failing("paper/related.tex", RELATED_WORK) == []
    ours = "Our CNN reaches 98.1\\% test accuracy, above the 97.1\\% of \\citet{smith2020}.\n"
    assert failing("paper/a.tex", ours) == [(1, "cnn_test_accuracy", "value", "drift")]


def test_code_comments_and_math_are_not_prose() -> None:
    md = ("```python\nacc = 0.912  # CNN test accuracy 91.2%\n```\n\n"
          "<!-- the CNN's test accuracy was 97.0% -->\n\n"
          "    CNN test accuracy 95.5% in an indented block\n\n"
          "The CNN's test accuracy is `97.1%` in code.\n")
    assert failing("README.md", md) == []
    tex = ("% The CNN's test accuracy was 97.0\\% in a draft\n"
           "\\begin{equation} acc_{CNN} = 0.971 \\label{eq:1} \\end{equation}\n"
           "\\begin{verbatim}CNN test accuracy 95.5%\\end{verbatim}\n")
    assert failing("paper/a.tex", tex) == []


# ------------------------------------------------------------------ reconcile.json


def test_findings_json_validates_and_names_every_field() -> None:
    from evidence.core.schema import validate

    found = all_kinds("README.md", "The CNN significantly beats the MLP by +0.8 points. "
                      "The CNN's test accuracy is 98.67%.\n")
    hand = hand_typed_numbers(Path("paper/paper.md.j2"), "It reaches 98.7%.\n")
    doc = findings_json(found, hand)
    validate(doc, "reconcile", Path("reconcile.json"))
    kinds = {r["kind"] for r in doc["findings"]}
    assert kinds == {"unsupported_wording", "drift", "overstated_precision", "hand_typed"}
    assert doc["failing"] == 3
    drift = next(r for r in doc["findings"] if r["kind"] == "drift")
    assert (drift["claim"], drift["quantity"], drift["stated"], drift["expected"]) == (
        "cnn_beats_mlp", "value", "+0.8 points", "+0.6 points")
    assert "'CNN'" in drift["reason"] and "expected +0.6 points" in drift["reason"]


# ------------------------------------------------------------------ the quick entry point


def test_evidence_reconcile_checks_any_file_without_a_delivery(tmp_path: Path, capsys: Any) -> None:
    """`evidence reconcile FILES --json` on a project with a verify report: exit 1 and the findings."""
    from evidence.cli import main

    example = Path(__file__).resolve().parents[1]
    project = tmp_path / "project"
    (project / "build" / "verify").mkdir(parents=True)
    (project / "EVIDENCE.json").write_text((example / "EVIDENCE.json").read_text("utf-8"), "utf-8")
    report = example / "build" / "deliver" / "verify" / "report.json"
    (project / "build" / "verify" / "report.json").write_text(report.read_text("utf-8"), "utf-8")
    notes = tmp_path / "slides.md"
    notes.write_text("# Slide 3\n\nThe CNN significantly outperforms the MLP, by +0.9 points.\n", "utf-8")
    assert main(["--project", str(project), "reconcile", "--json", str(notes)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert sorted((r["line"], r["kind"], r["claim"]) for r in doc["findings"]) == [
        (3, "drift", "cnn_beats_mlp"), (3, "unsupported_wording", "cnn_beats_mlp")]
    notes.write_text("The CNN's lead over the MLP is [+0.6 points](#claim:cnn_beats_mlp).\n", "utf-8")
    assert main(["--project", str(project), "reconcile", str(notes)]) == 0
    assert "0 failing finding(s)" in capsys.readouterr().out
    assert main(["--project", str(project), "reconcile", str(tmp_path / "missing.md")]) == 3
    assert "missing.md" in capsys.readouterr().err


# ------------------------------------------------------------- held-out corpus 1: the general causes


def _pairs(name: str, text: str, claims: Any = None, **kw: Any) -> set[tuple[int, str | None, str]]:
    return {(f.line, f.claim_id, f.kind) for f in all_kinds(name, text, claims, **kw) if f.kind != "match"}


def test_tex_settings_are_not_hand_typed_results_are() -> None:
    tex = ("We train for 15 epochs with batch size 32 over 5 seeds; chance is 0.1 and the level 95\\,\\%.\n"
           "The control's test accuracy is 11.2\\,\\%, within 2 points of chance (Eq.~(2)).\n")
    found = [(h.line, h.text) for h in hand_typed_numbers(Path("paper/results.tex"), tex, CLAIMS)]
    assert found == [(2, "11.2\\,\\%")]
    # a number that states a claim's result is hand-typed in a template too, by the same rule
    template = "Telling the wide MLP from the MLP takes about 26 seeds per group; we ran 20 epochs.\n"
    assert [h.text for h in hand_typed_numbers(Path("paper/d.md.j2"), template, CLAIMS)] == ["26"]


def test_a_sentence_without_subject_reads_the_one_before_and_the_heading() -> None:
    text = ("## The CNN\n\nIts test accuracy is 97.2%.\n\n## CNN vs MLP\n\n"
            "Verify says: P(CNN better) = 0.94.\n")
    assert _pairs("notes.md", text) == {(3, "cnn_test_accuracy", "drift"), (7, "cnn_beats_mlp", "drift")}


def test_a_citation_after_another_subjects_possessive_is_that_subjects_drift() -> None:
    text = "The MLP's accuracy, [98.7%](#claim:cnn_test_accuracy), is lower than the CNN's.\n"
    # and the citation is misplaced: its own claim is reported too
    assert _pairs("notes.md", text) == {(1, "mlp_test_accuracy", "drift"), (1, "cnn_test_accuracy", "drift")}


def test_html_table_cells_are_rows() -> None:
    text = ("<table>\n  <tr><th>Claim</th><th>Value</th></tr>\n"
            "  <tr><td>CNN over control</td><td>+78.5 points</td></tr>\n"
            "  <tr><td>Control test accuracy</td><td>0.112%</td></tr>\n</table>\n")
    assert _pairs("notes.md", text) == {(3, "cnn_beats_control", "drift"), (4, "control_at_chance", "drift")}


def test_strict_mode_keeps_overstated_precision_beside_unbound() -> None:
    kinds = {f.kind for f in all_kinds("notes.md", "The CNN's test accuracy is 98.67%.\n", strict=True)}
    assert kinds == {"unbound", "overstated_precision"}


def test_fractions_labels_and_wide_names() -> None:
    text = ("CNN over control: 0.875; MLP over control: 0.869.\n"
            "Width: 0.2 as a fraction of accuracy.\n\n"
            "| Model | Test accuracy |\n|---|---:|\n| MLP (wide) | 98.3% |\n")
    assert _pairs("notes.md", text) == {(2, "width_is_noise", "drift")}


def test_wording_co_subjects_and_clause_hedges() -> None:
    assert _pairs("notes.md", "Both the MLP and the CNN beat the shuffled-label control.\n") == set()
    assert _pairs("notes.md", "Width does not matter: the wide MLP is equivalent to the MLP.\n") == \
        {(1, "width_is_noise", "unsupported_wording")}


def test_a_sentence_with_another_budget_states_no_value_of_this_one() -> None:
    assert _pairs("slides.md", "Trying eight configurations, the best validation accuracy to expect is "
                  "95.4%.\n") == {(1, "tuning_budget", "drift")}
    assert _pairs("slides.md", "With the full grid of 16 configurations the expected best validation "
                  "accuracy is 97.0%.\n") == set()


def test_higher_rmse_is_worse() -> None:
    assert _pairs("n.md", "GBM's test RMSE is 9.2 lower than ridge's.\n", HOUSE_CLAIMS) == set()
    assert _pairs("n.md", "GBM's test RMSE is 9.2 higher than ridge's.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "drift")}
    assert _pairs("n.md", "The MLP's test accuracy is 86.9 points higher than the control's.\n") == set()
    assert _pairs("n.md", "The control's test accuracy is 86.9 points higher than the MLP's.\n") == \
        {(1, "mlp_beats_control", "drift")}


def test_a_difference_stated_the_other_way_round() -> None:
    ok = "The control's test accuracy minus the CNN's is -87.5 points.\n"
    assert _pairs("notes.md", ok) == set()
    assert _pairs("notes.md", ok.replace("-87.5", "+87.5")) == {(1, "cnn_beats_control", "drift")}


# Causes of the false positives of the second held-out corpus (tests/data/reconcile_heldout2).

def test_a_number_is_read_for_the_budget_stated_nearest_before_it() -> None:
    """"With sixteen: about 97%" states expected@16, not the claim's expected@4."""
    assert _pairs("faq.md", "Trying 4 configurations: about 95%. With sixteen: about 97%.\n") == set()
    assert _pairs("poster.md", "Tuning: four configurations → 95.4%; eight → 96.5%.\n") == set()
    assert _pairs("faq.md", "Trying 4 configurations: about 95%. With sixteen: about 95.4%.\n") == \
        {(1, "tuning_budget", "drift")}


SETTINGS_TABLE = """| | ridge | GBM |
|---|---|---|
| learning rate | 1.0 | 0.05 |
| epochs | 60 | 60 |
| test RMSE | 31.4 | 22.3 |
"""


def test_a_settings_row_of_a_table_holds_no_results() -> None:
    assert _pairs("results.md", SETTINGS_TABLE, HOUSE_CLAIMS) == set()
    assert _pairs("results.md", SETTINGS_TABLE.replace("31.4", "35.0"), HOUSE_CLAIMS) == \
        {(5, "ridge_rmse", "drift")}


SPLIT_TABLE = """| model | mean | SD |
|---|---:|---:|
| ridge | 31.4 | 0.2 |
| ridge (val) | 28.0 | 0.2 |
"""


def test_a_row_header_that_names_another_split_is_not_the_claims_split() -> None:
    assert _pairs("results.md", SPLIT_TABLE, HOUSE_CLAIMS) == set()
    assert _pairs("results.md", SPLIT_TABLE.replace("31.4", "35.0"), HOUSE_CLAIMS) == \
        {(3, "ridge_rmse", "drift")}


THREE = claim_quantities({"claims": [
    *HOUSES["claims"],
    _claim("ridge_beats_control", "verify:ridge_vs_control", -40.1, -45.0, -35.2, style="number",
           subjects=["ridge", "control"], quantity="diff", classification="effect", metric="rmse"),
]})


def test_a_number_far_from_the_one_side_claim_reads_the_sentence_before() -> None:
    """"The improvement is \\num{9.2}, small next to the 40.1 gained over the control": 9.2 is
    the GBM's improvement of the sentence before, not the ridge-vs-control difference."""
    text = ("GBM lowers the test RMSE of ridge by \\num{9.2}.\n"
            "The improvement is \\num{9.2} RMSE, small next to the \\num{40.1} gained over the control.\n")
    assert {p for p in _pairs("discussion.tex", text, THREE) if p[2] == "drift"} == set()
    wrong = text.replace("is \\num{9.2}", "is \\num{7.9}")
    assert (2, "gbm_beats_ridge", "drift") in _pairs("discussion.tex", wrong, THREE)


MINUS_ROW = r"""\begin{tabular}{lcc}
Comparison & Difference in test RMSE & 95\,\% CI \\
GBM $-$ ridge & $-9.2$ & $[-11.1, -7.2]$ \\
\end{tabular}
"""


def test_a_to_b_minus_of_an_improvement_of_a_lower_is_better_metric_is_negative() -> None:
    """An improvement claim (how much GBM is better) of an RMSE: GBM minus ridge is -9.2."""
    assert {p for p in _pairs("discussion.tex", MINUS_ROW, HOUSE_CLAIMS) if p[2] == "drift"} == set()
    assert _pairs("notes.md", "The difference GBM − ridge is -9.2 in RMSE.\n", HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "The difference GBM − ridge is +9.2 in RMSE.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "drift")}


def test_an_integer_before_any_plural_noun_is_a_count_of_things() -> None:
    assert _pairs("notes.md", "Ridge's test RMSE comes from one split (seed 0) of 442 patients.\n",
                  HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "Ridge's test RMSE is 442.\n", HOUSE_CLAIMS) == {(1, "ridge_rmse", "drift")}


def test_a_percentage_before_and_the_interval_is_a_result_not_a_confidence_level() -> None:
    assert (1, "cnn_test_accuracy", "overstated_precision") in \
        _pairs("faq.md", "The CNN's mean is 98.667% and the interval is narrow.\n")
    assert _pairs("faq.md", "The 95% bootstrap interval of the CNN is wide.\n") == set()


def test_a_bare_number_beside_the_claims_metric_is_a_percentage() -> None:
    assert _pairs("poster.md", "CNN accuracy: 98.7 (95% CI 98.1–99.2).\n") == set()
    assert _pairs("poster.md", "CNN accuracy: 98.7 (95% CI 98.1–99.7).\n") == \
        {(1, "cnn_test_accuracy", "drift")}


TRANSPOSED = r"""\begin{tabular}{l S S}
           & {CNN} & {MLP} \\
Mean test accuracy (\%)  & 98.7 & 98.1 \\
95\,\% CI, lower (\%)    & 98.1 & 97.8 \\
95\,\% CI, upper (\%)    & 99.2 & 98.4 \\
\end{tabular}
"""


def test_a_row_header_naming_an_interval_end_and_percent_gives_the_cells_role_and_unit() -> None:
    assert {p for p in _pairs("analysis.tex", TRANSPOSED) if p[2] == "drift"} == set()
    wrong = TRANSPOSED.replace("98.4", "98.9").replace("& 98.1 \\\\", "& 98.3 \\\\")
    assert {p for p in _pairs("analysis.tex", wrong) if p[2] == "drift"} == \
        {(3, "mlp_test_accuracy", "drift"), (5, "mlp_test_accuracy", "drift")}


def test_respectively_places_comparisons_by_their_named_side_and_excludes_the_other_places() -> None:
    ok = ("The control is at chance. The MLP and the CNN beat it by 86.9 points and 87.5 points "
          "respectively.\n")
    assert {p for p in _pairs("faq.md", ok) if p[2] == "drift"} == set()
    assert {p for p in _pairs("faq.md", ok.replace("86.9 points and 87.5", "87.5 points and 86.9"))
            if p[2] == "drift"} == {(1, "mlp_beats_control", "drift"), (1, "cnn_beats_control", "drift")}
    # no claim measures the GBM: the ridge's number is the one in the ridge's place, never the other
    claims = claim_quantities({"claims": [HOUSES["claims"][0], HOUSES["claims"][2]]})
    ok = "GBM and ridge reach test RMSEs of 22.25 and 31.42 respectively.\n"
    assert _pairs("m.md", ok, claims) == set()
    assert _pairs("m.md", "Ridge and GBM reach test RMSEs of 22.25 and 31.42 respectively.\n", claims) == \
        {(1, "ridge_rmse", "drift")}


def test_a_comparison_written_as_its_two_sides_wins_whatever_the_size() -> None:
    """"CNN vs control: 0.875 points" is that comparison in the wrong unit, not CNN vs MLP's."""
    assert _pairs("e.md", "CNN vs control: 0.875 points.\n") == {(1, "cnn_beats_control", "drift")}
    # a list of subjects is not a comparison written as one: the sizes still decide
    assert {p for p in _pairs("e.md", "Both the MLP and the CNN beat it, by "
                              "[+86.9 points](#claim:mlp_beats_control) and +87.5 points.\n")
            if p[2] == "drift"} == set()


def test_a_negative_number_is_no_level_of_a_never_negative_metric() -> None:
    claims = [c for c in THREE if c.id in ("ridge_rmse", "ridge_beats_control")]
    assert _pairs("r.md", "The difference between ridge and the control is -12.0.\n", claims) == \
        {(1, "ridge_beats_control", "drift")}


def test_prose_in_an_html_block_is_read_and_code_is_not() -> None:
    assert _pairs("r.md", "<p>Ridge minus control: <b>-44.1</b>.</p>\n", THREE) == \
        {(1, "ridge_beats_control", "drift")}
    assert _pairs("r.md", "<p>Ridge minus control: <b>-40.1</b>.</p>\n", THREE) == set()
    assert _pairs("r.md", "<pre>Ridge minus control: -44.1</pre>\n", THREE) == set()


def test_winning_by_a_wide_margin_asserts_a_difference() -> None:
    assert _pairs("poster.md", "The CNN wins by a wide margin over the MLP.\n") == \
        {(1, "cnn_beats_mlp", "unsupported_wording")}
    assert _pairs("poster.md", "Whether the CNN wins by a wide margin over the MLP is unclear.\n") == set()


def test_a_plain_claim_stated_as_a_percentage_is_drift_but_a_relative_change_is_not() -> None:
    assert _pairs("m.md", "Ridge's test RMSE is 31.4% of the target.\n", HOUSE_CLAIMS) == \
        {(1, "ridge_rmse", "drift")}
    assert _pairs("m.md", "GBM lowers the RMSE of ridge by 29.2%.\n", HOUSE_CLAIMS) == set()
    assert _pairs("m.md", "Ridge's test RMSE is 31.4.\n", HOUSE_CLAIMS) == set()


def test_wording_about_the_one_comparison_a_sentence_cites_is_checked() -> None:
    """"Doubling the width is statistically equivalent to the default (\\evWidthIsNoise{})":
    the macro says which comparison the sentence is about, though it names neither side."""
    text = "\\subsection{Width}\nDoubling the hidden layer is statistically equivalent to the default " \
           "(\\evWidthIsNoise{}).\n"
    assert (2, "width_is_noise", "unsupported_wording") in _pairs("analysis.tex", text)
    assert not {p for p in _pairs("analysis.tex", text.replace("is statistically", "may be"))
                if p[2] == "unsupported_wording"}
    md = "Doubling the hidden layer makes no difference ([+0.2 points](#claim:width_is_noise)).\n"
    assert (1, "width_is_noise", "unsupported_wording") in _pairs("notes.md", md)


def test_a_table_row_that_cites_a_comparison_asserts_no_wording() -> None:
    """A checklist row cites its claim and describes the data split as 'identical': no assertion."""
    row = ("| claim | value | noise |\n|---|---|---|\n| `width_is_noise` | "
           "[+0.2 points](#claim:width_is_noise) | the split is the same for every run (identical split "
           "digests) |\n")
    assert _pairs("checklist.md", row) == set()


def test_only_a_row_headers_unit_label_gives_its_cells_a_unit() -> None:
    """A checklist row's header says "interval [...] points"; its "5 and 5 seeds" are no percentages."""
    row = ("| claim | value | n |\n|---|---|---|\n| claim `mlp_beats_control`: diff of test accuracy, "
           "interval [+80.6, +93.3] points | +[86.9](#claim:mlp_beats_control) points | 5 and 5 seeds |\n")
    assert _pairs("checklist.md", row) == set()
    assert _pairs("t.md", "| | CNN |\n|---|---|\n| Mean test accuracy (%) | 98.2 |\n") == \
        {(3, "cnn_test_accuracy", "drift")}


# ------------------------------------------------------------------ the third held-out corpus's causes
# Scored once as found (94 of 114 drifts with the right claim, 29 of 343 decoys flagged), then fixed
# for their general causes, one case each here.

def test_a_bound_link_may_cite_any_quantity_of_its_claim() -> None:
    text = ("| Shuffled-label control | [11.2](#claim:control_at_chance) | [4.8](#claim:control_at_chance)"
            "–[17.5](#claim:control_at_chance) |\n"
            "P(CNN better) [0.84](#claim:cnn_beats_mlp); the control is [0.112](#claim:control_at_chance).\n")
    assert failing("notes.md", text) == []
    assert failing("notes.md", "The control scores [11.9](#claim:control_at_chance).\n") == \
        [(1, "control_at_chance", "value", "drift")]


def test_an_unsigned_bound_difference_is_its_size_a_signed_one_keeps_its_sign() -> None:
    text = "Ridge is beaten by [9.17](#claim:gbm_beats_ridge) RMSE.\n"
    assert _pairs("notes.md", text, THREE) == set()
    flipped = "Ridge minus control is [+40.1](#claim:ridge_beats_control).\n"
    assert (1, "ridge_beats_control", "drift") in _pairs("notes.md", flipped, THREE)


def test_confidence_and_power_levels_are_settings() -> None:
    text = ("The CNN's interval is Student t; the CI is 95% for the MLP's 98.1%.\n"
            "About 10 seeds per group for CNN vs MLP (80% power at alpha 0.05).\n")
    assert [f for f in failing("notes.md", text) if f[3] == "drift"] == []


def test_a_probability_column_holds_p_better() -> None:
    table = ("| Comparison | Difference | P(first better) |\n|---|---|---|\n"
             "| CNN − MLP | +0.6 points | 0.84 |\n")
    assert failing("notes.md", table) == []
    assert failing("notes.md", table.replace("0.84", "0.48")) == \
        [(3, "cnn_beats_mlp", "prob_better", "drift")]


def test_a_plain_number_far_from_every_measure_of_a_claim_is_not_it() -> None:
    text = ("Ridge's test MSE is lower: 987 against 1201.\n"
            "Ridge (Efron et al., Annals 32(2):407-499) used a learning rate of 0.05 and test RMSE 31.4.\n")
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "Ridge: test RMSE 3.14.\n", HOUSE_CLAIMS) == {(1, "ridge_rmse", "drift")}


def test_a_number_stated_as_a_difference_is_no_level() -> None:
    assert _pairs("notes.md", "GBM: test RMSE 22.25; ridge's is 9.2 higher.\n", HOUSE_CLAIMS) == set()


def test_a_clause_about_another_subject_states_its_level() -> None:
    text = "Small GBM (32 leaves): test RMSE 22.25, i.e. 9.2 lower than ridge.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "The wide MLP's test accuracy is 98.3%, above the MLP's.\n") == set()


def test_a_colon_label_and_a_spread_sentence_name_the_metric_of_their_numbers() -> None:
    text = ("Test MSE of ridge: 987; of the GBM 495.\n"
            "They are one standard deviation over seeds (the CNN's is 0.5, the MLP's 0.2).\n"
            "Hedges' g is 1.84 for CNN vs MLP.\n")
    assert [p for p in _pairs("notes.md", text, HOUSE_CLAIMS) if p[2] == "drift"] == []
    assert [p for p in _pairs("notes.md", text) if p[2] == "drift"] == []


def test_a_claims_number_under_a_sibling_metric_is_drift() -> None:
    assert _pairs("notes.md", "Poster draft: ridge test MSE 31.42.\n", HOUSE_CLAIMS) == \
        {(1, "ridge_rmse", "drift")}


def test_a_budget_named_after_the_first_one_of_the_paragraph() -> None:
    text = ("Trying four configurations, the expected best is 95.4%.\n"
            "With all sixteen the expected best is 97.0%; one gives 87.1%, and of eight 96.5%.\n")
    assert [f for f in failing("notes.md", text) if f[3] == "drift"] == []


def test_seed_counts_and_seed_estimates_by_their_words() -> None:
    assert failing("notes.md", "- 15 epochs, 5 seeds per model, CNN vs MLP.\n") == []
    assert failing("notes.md", "CNN vs MLP: the seeds needed, 26 per group, are beyond our budget.\n") == \
        [(1, "cnn_beats_mlp", "seeds_needed", "drift")]
    assert failing("notes.md", "CNN vs MLP is not resolved with n=5 seeds.\n") == []


def test_an_interval_end_named_in_words() -> None:
    text = "The control scores 11.2%; its upper CI end, 17.5%, is far below either model.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", text.replace("17.5%", "19.5%")) == \
        [(1, "control_at_chance", "ci_high", "drift")]


def test_a_plus_minus_named_as_the_interval_is_its_half_width() -> None:
    assert _pairs("notes.md", "Ridge: test RMSE 31.42 ± 1.62 (95% CI).\n", HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "Ridge: test RMSE 31.42 ± 3.24 (95% CI).\n", HOUSE_CLAIMS) == \
        {(1, "ridge_rmse", "drift")}
    # named as the seeds' SD, it is checked as the SD the t interval was built from (1.30 for n = 5)
    assert _pairs("notes.md", "Ridge: test RMSE 31.42 ± 1.3 (SD over seeds).\n", HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "Ridge: test RMSE 31.42 ± 3.24 (SD over seeds).\n", HOUSE_CLAIMS) == \
        {(1, "ridge_rmse", "drift")}


def test_respectively_lists_leave_out_the_reference() -> None:
    text = "Over the control, the CNN and the MLP gain 86.9 and 87.5 points, respectively.\n"
    assert sorted(f[1] for f in failing("notes.md", text)) == ["cnn_beats_control", "mlp_beats_control"]
    assert failing("notes.md", text.replace("86.9 and 87.5", "87.5 and 86.9")) == []


def test_a_direction_verb_before_by_is_checked_against_the_better_side() -> None:
    wrong = "Ridge's test RMSE exceeds that of the control by 40.1.\n"
    assert (1, "ridge_beats_control", "drift") in _pairs("notes.md", wrong, THREE)
    right = "The control's test RMSE exceeds that of ridge by 40.1.\n"
    assert _pairs("notes.md", right, THREE) == set()


def test_wording_against_the_verdict_and_its_direction() -> None:
    assert {p[1:] for p in _pairs("notes.md", "Wide MLP vs MLP: the wide MLP wins.\n")} == \
        {("width_is_noise", "unsupported_wording")}
    assert _pairs("notes.md", "Ridge beats the GBM on test RMSE.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}
    assert _pairs("notes.md", "The GBM is not significantly better than ridge.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}
    assert _pairs("notes.md", "The CNN is not significantly better than the MLP.\n") == set()


def test_a_statement_helper_ends_its_sentence() -> None:
    template = ('Whether the wide MLP differs from the MLP is open: {{ statement("width_is_noise") }}\n'
                "In practice the wide MLP matches the MLP.\n")
    assert (2, "width_is_noise", "unsupported_wording") in _pairs("paper/p.md.j2", template)


# ------------------------------------------------------------------ later held-out corpora (corpus 7 work)


def test_a_probability_stated_with_a_bare_p_or_after_a_that_clause_is_p_better() -> None:
    # "seed is 0.91" is no setting once the sentence states a probability
    text = ("Taking a seed of each at random, the probability that the CNN's seed scores above the "
            "MLP's seed is 0.91.\n")
    assert failing("notes.md", text) == [(1, "cnn_beats_mlp", "prob_better", "drift")]
    assert failing("notes.md", text.replace("0.91", "0.84")) == []
    # a bare "P =" after a named probability is that probability, not a p-value
    text = "We give P(CNN better) = 0.84 and, for the MLP against the scrambled-label control, P = 0.93.\n"
    assert failing("notes.md", text) == [(1, "mlp_beats_control", "prob_better", "drift")]
    text = "The probability that the MLP beats the control was P = 0.61.\n"
    assert failing("notes.md", text) == [(1, "mlp_beats_control", "prob_better", "drift")]
    # without a probability named, "P = 0.03" stays a p-value
    assert failing("notes.md", "The MLP beats the control, P = 0.03 (Welch).\n") == []


def test_a_number_right_after_a_comparisons_two_sides_is_that_comparisons() -> None:
    wrong = "Test RMSE gains, GBM over ridge 40.1, ridge over the control 9.2.\n"
    assert _pairs("notes.md", wrong, THREE) == {(1, "gbm_beats_ridge", "drift"),
                                                (1, "ridge_beats_control", "drift")}
    assert _pairs("notes.md", "Test RMSE gains, GBM over ridge 9.2, ridge over the control 40.1.\n", THREE) \
        == set()


def test_respectively_over_a_list_of_comparisons() -> None:
    text = "The GBM's gain over ridge and ridge's over the control are 9.17 and 40.1, respectively.\n"
    assert _pairs("notes.md", text, THREE) == set()
    assert _pairs("notes.md", text.replace("9.17 and 40.1", "40.1 and 9.17"), THREE) == \
        {(1, "gbm_beats_ridge", "drift"), (1, "ridge_beats_control", "drift")}


def test_an_opening_list_of_references_with_respectively_citations() -> None:
    tex = ("\\subsection{Against the control}\n"
           "Compared with the control and with the GBM, ridge differs by \\evRidgeBeatsControl{} and\n"
           "\\evGbmBeatsRidge{}, respectively.\n")
    assert _pairs("paper/results.tex", tex, THREE) == set()
    swapped = tex.replace("\\evRidgeBeatsControl{} and\n\\evGbmBeatsRidge{}",
                          "\\evGbmBeatsRidge{} and\n\\evRidgeBeatsControl{}")
    assert _pairs("paper/results.tex", swapped, THREE) == {(2, "gbm_beats_ridge", "drift"),
                                                           (3, "ridge_beats_control", "drift")}


def test_latex_section_and_frame_titles_are_headings_and_footnotes_their_own_sentences() -> None:
    from evidence.deliver.prose import parse

    tex = ("\\begin{frame}[t]{Ridge or GBM}\n\\subsection*{Ridge}\nRidge is linear.\\footnote{So is OLS}"
           " It is fast.\n\\end{frame}\n")
    doc = parse("slides.tex", tex)
    read = [(s.kind, doc.masked[s.start : s.end].strip()) for s in doc.segments]
    assert ("heading", "Ridge or GBM") in read and ("heading", "Ridge") in read
    assert ("sentence", "Ridge is linear..") in read and ("sentence", "So is OLS.") in read
    assert not any("subsection" in text or "footnote" in text or "[t]" in text for _, text in read)


def test_n_of_every_hundred_is_a_percentage() -> None:
    text = "Out of every 100 test images, the perceptron labels 97.4 of every 100 correctly.\n"
    assert failing("notes.md", text) == [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", text.replace("97.4", "98.1")) == []


def test_a_comparisons_fraction_written_as_points_is_that_comparison() -> None:
    text = "Against the shuffled-label control, the CNN's margin is 0.875 points.\n"
    assert failing("notes.md", text) == [(1, "cnn_beats_control", "value", "drift")]


def test_seeds_needed_in_words_read_with_the_sentence_before() -> None:
    text = ("Whether the CNN is better than the MLP stays open.\n"
            "Settling it would take roughly thirty seeds per model.\n")
    assert failing("notes.md", text) == [(2, "cnn_beats_mlp", "seeds_needed", "drift")]
    # seeds that cannot resolve a question are the ones that were run, not an estimate
    text = "Whether the wide MLP beats the MLP is open; five seeds cannot resolve it.\n"
    assert failing("notes.md", text) == []


def test_a_split_that_closes_the_sentence_qualifies_each_clause() -> None:
    text = "After tuning, the perceptron reaches 96.9% and the CNN 97.6% on the validation set.\n"
    assert failing("notes.md", text) == []
    text = "Both fall short (MLP 96.9%, CNN 97.6% on the validation split), as expected.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", "The CNN ends at 97.6%, the MLP at 96.9% on the test set.\n") == \
        [(1, "cnn_test_accuracy", "value", "drift"), (1, "mlp_test_accuracy", "value", "drift")]


def test_a_subject_named_right_before_a_number_owns_it() -> None:
    # the wide MLP has no level claim: its number is neither the MLP's nor a comparison's
    text = ("Against the shuffled-label control all models are far ahead.\n"
            "The MLP sits at [98.1%](#claim:mlp_test_accuracy) and the wide MLP 98.4%.\n")
    assert failing("notes.md", text) == []
    text = "Ridge reaches 31.42 on the test split, the GBM 24.0.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(1, "gbm_rmse", "drift")}
    text = "Ridge reaches 31.42 on the test split, the control 71.3.\n"
    assert _pairs("notes.md", text, THREE) == set()
    # a number followed by its direction is a difference, not the level of the subject before it
    assert _pairs("notes.md", "The control's test RMSE is 71.3, i.e. ridge is 38.1 lower.\n", THREE) == \
        {(1, "ridge_beats_control", "drift")}
    assert _pairs("notes.md", "On average the GBM's test RMSE is 9.17 above ridge's.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "drift")}


def test_a_model_trained_on_shuffled_targets_is_the_control() -> None:
    text = "A ridge model fitted to shuffled targets ends with a test RMSE of 71.3.\n"
    assert _pairs("notes.md", text, THREE) == set()
    assert _pairs("notes.md", "A ridge model ends with a test RMSE of 71.3.\n", THREE) == \
        {(1, "ridge_rmse", "drift")}


def test_a_familys_common_name_names_its_one_member() -> None:
    assert _pairs("notes.md", "In practice the tree ensemble is on par with ridge regression.\n",
                  HOUSE_CLAIMS) == {(1, "gbm_beats_ridge", "unsupported_wording")}
    # three networks in the example: "the neural network" names none of them
    assert _pairs("notes.md", "The neural network is on par with the shuffled-label control.\n") == set()


def test_the_two_variants_named_by_one_plural() -> None:
    assert _pairs("notes.md", "In short, the two widths are equivalent.\n") == \
        {(1, "width_is_noise", "unsupported_wording")}
    assert _pairs("notes.md", "In short, both controls are equivalent.\n") == set()


def test_an_interval_or_probability_after_a_value_is_that_values_claim() -> None:
    # the metric's keyword names ridge vs control too; the value before names GBM vs ridge
    text = "Ridge alone: 31.42.\nThe GBM cuts the test RMSE by 9.17, and its P(better) is 0.97.\n"
    found = {(f.line, f.claim_id, f.quantity) for f in all_kinds("notes.md", text, THREE_P)}
    assert (2, "gbm_beats_ridge", "prob_better") in found
    assert not any(f[1] == "ridge_beats_control" for f in found)
    # a cited value: the interval end after it is its claim's, not the sentence before's
    text = ("- Both MLPs reach about 98% test accuracy.\n"
            "- The CNN's lead is [+0.6 points](#claim:cnn_beats_mlp) with a lower CI end of -0.4 points.\n")
    assert failing("notes.md", text) == [(2, "cnn_beats_mlp", "ci_low", "drift")]


THREE_P = claim_quantities({"claims": [
    *HOUSES["claims"][:2],
    _claim("gbm_beats_ridge", "verify:gbm_vs_ridge", 9.17, 7.20, 11.14, style="number", decimals=2,
           subjects=["gbm", "ridge"], quantity="improvement", classification="effect", metric="rmse",
           prob=0.97),
    _claim("ridge_beats_control", "verify:ridge_vs_control", -40.1, -45.0, -35.2, style="number",
           subjects=["ridge", "control"], quantity="diff", classification="effect", metric="rmse",
           keywords=("RMSE",), prob=1.0),
]})


def test_settings_ranges_chance_priors_and_tool_versions_are_not_results() -> None:
    # the far end of a setting's range is a setting too
    assert failing("notes.md", "For the wide MLP vs the MLP we swept learning rates 0.003 to 0.1.\n") == []
    # a percentage "of guessing" is the chance level
    assert failing("notes.md", "The shuffled-label control stays near the 10% of guessing.\n") == []
    # what was expected before the runs is no result
    text = "We expected the CNN to beat the MLP by 1.2 points.\n"
    assert [f for f in failing("notes.md", text) if f[3] == "drift"] == []
    assert failing("notes.md", "We expected the MLP to reach 99% but it got 97.4%.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    # a version in parentheses after a tool in a code span
    text = "Ridge and the GBM were fitted with `scikit-learn` (1.3).\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()


def test_a_budget_after_trying() -> None:
    text = "Trying four configurations, expect 95.4%; trying sixteen, 97.0%.\n"
    assert failing("notes.md", text) == []


def test_a_comparison_no_claim_states_owns_its_number() -> None:
    text = "Ridge beats the control by 40.1; the GBM's margin over the control is wider still, 49.3.\n"
    assert _pairs("notes.md", text, THREE) == set()
    table = "| Difference | Test RMSE |\n|---|---|\n| GBM − control | −49.3 |\n| ridge − control | −40.1 |\n"
    assert _pairs("notes.md", table, THREE) == set()
    assert _pairs("notes.md", table.replace("−40.1", "−45.1"), THREE) == {(4, "ridge_beats_control", "drift")}


def test_a_clause_without_its_own_subject_keeps_the_sentences() -> None:
    text = "The GBM beats ridge by 9.17 and outperforms the control by 44.0.\n"
    found = _pairs("notes.md", text, THREE + [c for c in claim_quantities({"claims": [
        _claim("gbm_beats_control", "verify:gbm_vs_control", 49.3, 44.0, 54.6, style="number",
               subjects=["gbm", "control"], quantity="improvement", classification="effect",
               metric="rmse")]})])
    assert found == {(1, "gbm_beats_control", "drift")}


def test_a_line_break_tag_after_a_period_ends_the_sentence() -> None:
    # the correct 31.42 before the break must not excuse the swapped list after it
    text = "Ridge reaches a test RMSE of 31.42.<br>\nThe GBM and ridge reach 31.42 and 22.25, respectively.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(2, "gbm_rmse", "drift"), (2, "ridge_rmse", "drift")}


def test_a_sentence_in_a_status_column_is_prose() -> None:
    table = ("| Work package | Status |\n|---|---|\n"
             "| WP3 power analysis | finished: the wide MLP vs MLP question needs about 40 seeds per "
             "group |\n"
             "| WP4 sweep | 16 |\n")
    assert failing("notes.md", table) == [(3, "width_is_noise", "seeds_needed", "drift")]


def test_a_budget_named_after_from() -> None:
    text = ("The sweep has 16 configurations; the best validation accuracy to expect from\n"
            "four of them is 96.1%.\n")
    assert failing("notes.md", text) == [(2, "tuning_budget", "value", "drift")]


def test_a_difference_in_words_after_by() -> None:
    text = "Against the shuffled-label control, the convolutional network gains by seventy-nine points.\n"
    assert failing("notes.md", text) == [(1, "cnn_beats_control", "value", "drift")]
    assert failing("notes.md", text.replace("seventy-nine", "eighty-eight")) == []


def test_a_wide_margin_after_a_verb_goes_to_the_verbs_subject() -> None:
    text = "Both networks beat the shuffled-label control by a wide margin, the MLP by 86.9 points.\n"
    assert _pairs("notes.md", text) == set()
    assert _pairs("notes.md", "The shuffled-label control beats the MLP by a wide margin.\n") == \
        {(1, "mlp_beats_control", "unsupported_wording")}


def test_a_seeds_needed_column_holds_the_estimate() -> None:
    tex = ("\\begin{tabular}{lcc}\nA $-$ B & Difference & Seeds needed per group \\\\\n"
           "wide MLP $-$ MLP & \\evWidthIsNoise & 26 \\\\\n\\end{tabular}\n")
    typed = hand_typed_numbers(Path("paper/tables.tex"), tex, CLAIMS)
    assert [(h.line, h.text) for h in typed] == [(3, "26")]


def test_a_count_of_seeds_with_one_subject_is_that_subjects() -> None:
    # the comparison's keyword (RMSE) names it too, but it names only one of its sides
    text = "The final ridge RMSE, over 4 seeds, goes in the paper.\n"
    assert _pairs("notes.md", text, THREE_P) == {(1, "ridge_rmse", "drift")}


def test_the_words_of_a_model_trained_on_the_control_are_not_its_keywords() -> None:
    claims = claim_quantities({"claims": [
        *THREE_P_RAW, _claim("ridge_keyworded", "aggregate:ridge", 31.42, 29.80, 33.04, style="number",
                             decimals=2, subjects=["ridge"], metric="rmse",
                             keywords=("ridge", "test RMSE"))]})
    text = "The control is a ridge model trained on shuffled targets, whose test RMSE is 71.3.\n"
    assert _pairs("notes.md", text, [c for c in claims if c.id != "ridge_rmse"]) == set()


THREE_P_RAW = [*HOUSES["claims"], _claim(
    "ridge_beats_control", "verify:ridge_vs_control", -40.1, -45.0, -35.2, style="number",
    subjects=["ridge", "control"], quantity="diff", classification="effect", metric="rmse")]


def test_a_ci_up_to_is_its_upper_end() -> None:
    text = "For the wide MLP vs the MLP the difference is +0.2 points, CI up to +0.3 points.\n"
    assert failing("notes.md", text) == [(1, "width_is_noise", "ci_high", "drift")]


def test_a_sentence_in_a_table_cell_states_a_difference() -> None:
    table = "| Time | Event |\n|---|---|\n| 14:05 | slide says: \"the GBM improves on ridge by 2.4\" |\n"
    assert _pairs("notes.md", table, HOUSE_CLAIMS) == {(3, "gbm_beats_ridge", "drift")}


def test_an_error_rate_is_checked_as_the_accuracys_complement() -> None:
    assert failing("notes.md", "The CNN's test error is 2.1%.\n") == \
        [(1, "cnn_test_accuracy", "error_rate", "drift")]
    assert failing("notes.md", "The CNN's test error is 1.3%, the MLP's 1.9%.\n") == []
    # a small percentage is no slip of the accuracy's interval half-width
    assert failing("notes.md", "The MLP misclassifies 1.9% of test digits.\n") == []
    # the error on a part of the data is no complement of the accuracy
    assert failing("notes.md", "The CNN's error on the digit 8 is 4.1%.\n") == []


def test_a_number_broken_after_its_decimal_point_is_read_whole() -> None:
    assert failing("notes.md", "The PDF shows the MLP at 97.\n6% on the test split.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]


def test_common_paraphrases_of_the_model_kinds() -> None:
    assert failing("notes.md", "The feed-forward network reaches 97.5% test accuracy.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "Our convolutional classifier scores 99.4% on the test split.\n") == \
        [(1, "cnn_test_accuracy", "value", "drift")]


def test_p_better_as_a_share_of_seed_pairs() -> None:
    assert failing("notes.md", "The CNN beats the MLP in 71% of seed pairings.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]
    assert failing("notes.md", "In 71 out of 100 seed pairs the CNN comes out above the MLP.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]
    # per seed pair is no verdict on the comparison
    assert _pairs("notes.md", "In 84 out of 100 seed pairs the CNN wins over the MLP.\n") == set()


def test_a_seeds_needed_estimate_with_both_sides_named_is_theirs_whatever_its_size() -> None:
    assert failing("notes.md", "Resolving CNN vs MLP would take about 60 seeds per arm.\n") == \
        [(1, "cnn_beats_mlp", "seeds_needed", "drift")]


def test_one_side_named_right_after_a_sentence_citing_its_comparison() -> None:
    text = ("The lead is [+0.6 points](#claim:cnn_beats_mlp). So the convolutional network is the better "
            "model.\n")
    assert _pairs("notes.md", text) == {(1, "cnn_beats_mlp", "unsupported_wording")}
    # not when the sentence before cites nothing
    assert _pairs("notes.md", "The lead is +0.6 points. So the CNN is the better model.\n") == set()


def test_a_variant_and_the_subject_it_modifies_by_their_modifiers() -> None:
    # the wide MLP has no level claim: "the wide one" owns its number, the default width is the MLP
    text = "The wide MLP and the MLP are close; the wide one sits at 98.6% on its own.\n"
    assert failing("notes.md", text) == []
    text = "The wide MLP gets 98.6%, against 97.6% at the default width.\n"
    assert failing("notes.md", text) == [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "The narrow MLP reaches 97.5%.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]


def test_a_bound_difference_in_points_may_be_cited_as_its_fraction() -> None:
    assert failing("notes.md", "As a fraction, the CNN's gain is [0.875](#claim:cnn_beats_control).\n") == []
    assert failing("notes.md", "As a fraction, the CNN's gain is [0.857](#claim:cnn_beats_control).\n") == \
        [(1, "cnn_beats_control", "value", "drift")]
    assert failing("notes.md", "The CNN's gain is [0.875 points](#claim:cnn_beats_control).\n") == \
        [(1, "cnn_beats_control", "value", "drift")]


def test_a_sentence_read_with_the_one_before_takes_its_split() -> None:
    text = "Is ridge better than the GBM on the validation split? No: 26.0 against 29.5.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()
    text = "Is ridge better than the GBM on the test split? No: 26.0 against 29.5.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) != set()


def test_an_end_of_the_interval_named_after_the_number() -> None:
    text = "Ridge beats the control by 40.1; −45.0 is the end of the interval.\n"
    assert failing("notes.md", text, THREE) == []
    assert failing("notes.md", text.replace("−45.0", "−44.0"), THREE) == \
        [(1, "ridge_beats_control", "ci_low", "drift")]
    assert failing("notes.md", "Ridge beats the control by 40.1; −36.2 is the upper end.\n", THREE) == \
        [(1, "ridge_beats_control", "ci_high", "drift")]


def test_wording_that_is_only_mentioned_and_emphasis_macros() -> None:
    tex = ("\\begin{itemize}\n\\item ``The CNN beats the MLP'' is what we must \\textbf{not} claim\n"
           "\\end{itemize}\n")
    assert _pairs("slides.tex", tex) == set()
    tex = "\\begin{itemize}\n\\item The CNN \\emph{clearly} beats the MLP\n\\end{itemize}\n"
    assert _pairs("slides.tex", tex) == {(2, "cnn_beats_mlp", "unsupported_wording")}


def test_the_range_of_the_datas_values_is_no_result() -> None:
    text = "Ridge's test RMSE sounds large until you see the scale\nof the outcome (28–346).\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()
    text = "Ridge reaches 31.42 test RMSE on a target whose range of values is 28–346.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()


def test_others_work_and_setting_ranges_written_with_from() -> None:
    text = "A prior study (Lee and Park, 2020) reported 99.4% for a deeper CNN.\n"
    assert failing("notes.md", text) == []
    text = "Unlike prior work, our CNN reaches 99.4%.\n"
    assert failing("notes.md", text) == [(1, "cnn_test_accuracy", "value", "drift")]
    text = "For the wide MLP vs the MLP the sweep tried learning rates from 0.001 to 0.3.\n"
    assert failing("notes.md", text) == []


def test_respectively_with_the_subjects_after_the_numbers() -> None:
    text = "Both networks clear the control: by 86.9 and 88.5 points, the MLP and the CNN respectively.\n"
    assert failing("notes.md", text) == [(1, "cnn_beats_control", "value", "drift")]
    assert failing("notes.md", text.replace("88.5", "87.5")) == []


def test_widening_names_the_wide_variant() -> None:
    assert failing("notes.md", "Widening the MLP changes test accuracy by +0.6 points.\n") == \
        [(1, "width_is_noise", "value", "drift")]


def test_a_direction_closing_its_clause_and_one_only_mentioned() -> None:
    text = "Compared with ridge, the GBM's test RMSE is 9.17 higher.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(1, "gbm_beats_ridge", "drift")}
    assert _pairs("notes.md", text.replace("higher", "lower"), HOUSE_CLAIMS) == set()
    text = "Please do not write that the GBM's test RMSE is 9.17 higher than ridge's; it is lower.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()


def test_a_list_of_per_seed_values_is_no_claims() -> None:
    text = "Seeds 0 to 4 give ridge test RMSEs of 31.1, 32.0, 30.9, 31.6 and 31.5.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "Ridge's test RMSE is 33.4 over five seeds.\n", HOUSE_CLAIMS) == \
        {(1, "ridge_rmse", "drift")}


def test_a_latex_double_dash_range_and_a_seeds_row() -> None:
    tex = "The CNN reaches 98.7\\,\\% (95\\,\\% CI 98.1--99.5\\,\\%).\n"
    assert failing("paper/results.tex", tex) == [(1, "cnn_test_accuracy", "ci_high", "drift")]
    tex = ("\\begin{tabular}{lcc}\n & CNN & MLP \\\\\nTest accuracy (\\%) & 98.7 & 98.1 \\\\\n"
           "Seeds & 5 & 7 \\\\\n\\end{tabular}\n")
    assert failing("paper/results.tex", tex) == [(4, "mlp_test_accuracy", "n", "drift")]


def test_an_interval_with_a_semicolon_and_ends_in_words() -> None:
    assert failing("notes.md", "CNN test accuracy 98.7% [98.1; 99.5].\n") == \
        [(1, "cnn_test_accuracy", "ci_high", "drift")]
    assert failing("notes.md", "The CNN's interval tops out at 99.5%.\n") == \
        [(1, "cnn_test_accuracy", "ci_high", "drift")]


def test_a_denied_comparison_that_verify_supports() -> None:
    assert _pairs("notes.md", "The GBM does not beat ridge on test RMSE.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}
    assert _pairs("notes.md", "We see no evidence that the GBM outperforms ridge.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}
    assert _pairs("notes.md", "There is no difference between the GBM and ridge.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}
    # true denials, conditions and unresolved comparisons assert nothing against the evidence
    assert _pairs("notes.md", "Ridge does not beat the GBM.\n", HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "If the GBM did not beat ridge, we would keep ridge.\n", HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", "The CNN does not beat the MLP.\n") == set()


def test_sameness_written_as_comparably_or_on_a_par() -> None:
    assert _pairs("notes.md", "Ridge and the GBM perform comparably on the test split.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}
    assert _pairs("notes.md", "Ridge is on a par with the GBM.\n", HOUSE_CLAIMS) == \
        {(1, "gbm_beats_ridge", "unsupported_wording")}


def test_the_former_and_the_latter() -> None:
    text = "We fit ridge and a GBM. The latter reaches a test RMSE of 25.0.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(1, "gbm_rmse", "drift")}
    text = "Ridge and the GBM were both tuned; the former ends at 35.9 test RMSE.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(1, "ridge_rmse", "drift")}


def test_a_compound_count_in_words() -> None:
    text = "For the wide MLP vs the MLP, verify estimates twenty-six seeds per group.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", text.replace("twenty-six", "thirty-six")) == \
        [(1, "width_is_noise", "seeds_needed", "drift")]


def test_a_caption_in_an_html_figure_is_prose() -> None:
    html = ('<figure>\n<img src="figures/acc.png" alt="accuracy">\n'
            "<figcaption>The CNN averages 99.1% test accuracy.</figcaption>\n</figure>\n")
    assert failing("notes.md", html) == [(3, "cnn_test_accuracy", "value", "drift")]


def test_a_latex_plus_minus_in_math_with_its_percent_after() -> None:
    tex = "The CNN's accuracy is $98.7 \\pm 0.9$\\,\\% (95\\,\\% CI).\n"
    assert failing("paper/results.tex", tex) == [(1, "cnn_test_accuracy", "ci_half", "drift")]
    assert failing("paper/results.tex", tex.replace("0.9", "0.6")) == []


def test_p_better_as_a_share_of_the_time_and_other_probability_forms() -> None:
    assert failing("notes.md", "A CNN seed beats an MLP seed 79% of the time.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]
    assert failing("notes.md", "A CNN seed beats an MLP seed 84% of the time.\n") == []
    for text in ("Pr(CNN > MLP) = 0.79.\n", "Prob(better) for CNN vs MLP: 0.79\n",
                 "The odds that the CNN is better than the MLP are 0.79.\n"):
        assert failing("notes.md", text) == [(1, "cnn_beats_mlp", "prob_better", "drift")], text


def test_one_seeds_value_in_a_clause_is_no_claims() -> None:
    assert failing("notes.md", "Seed 3 of the CNN reached 99.2%.\n") == []
    assert failing("notes.md", "The CNN's best seed reached 99.2%, its mean 98.7%.\n") == []
    assert failing("notes.md", "Across its seeds the CNN averages 99.2%.\n") == \
        [(1, "cnn_test_accuracy", "value", "drift")]


def test_a_hyphenated_per_seed_list_is_no_claims() -> None:
    text = "Per-seed ridge RMSE: 31.420, 30.11, 32.75, 31.93, 30.84.\n"
    assert [f for f in all_kinds("notes.md", text, HOUSE_CLAIMS) if f.kind != "match"] == []


def test_its_worst_after_a_best_run_is_one_runs_value() -> None:
    assert failing("notes.md", "The MLP's best run scored 98.6%, its worst 97.35%.\n") == []
    assert failing("notes.md", "The MLP's test accuracy is 98.6%, its worst 97.35%.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]


def test_a_setting_that_stays_at_a_value() -> None:
    assert failing("notes.md", "For the ridge model, depth remained at 30.\n", HOUSE_CLAIMS) == []
    assert failing("notes.md", "Ridge's RMSE remained at 30.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "value", "drift")]


def test_a_long_p_better_condition() -> None:
    assert failing("notes.md", "P(CNN better than MLP for a randomly drawn pair of seeds) = 0.84.\n") == []
    assert failing("notes.md", "P(CNN better than MLP for a randomly drawn pair of seeds) = 0.79.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]


def test_a_siunitx_chance_level() -> None:
    tex = "The control stays close to chance (\\qty{10}{\\percent}).\n"
    assert failing("paper/results.tex", tex) == []


def test_a_seed_count_that_does_not_resolve_is_the_count_run() -> None:
    assert failing("notes.md", "With 5 seeds per model the width effect is not resolved.\n") == []
    assert failing("notes.md", "The wide MLP's edge cannot be detected with 5 seeds.\n") == []
    assert failing("notes.md", "To resolve the wide MLP's edge, 40 seeds per group are needed.\n") == \
        [(1, "width_is_noise", "seeds_needed", "drift")]


def test_a_budget_after_after_or_all_of_the_sweep() -> None:
    text = ("The expected best validation accuracy after four tuning configurations is 95.4%.\n"
            "After six it is 96.1%, and with all of them it nears 97.0%.\n")
    assert failing("notes.md", text) == []
    text = ("We tried 16 configurations; the expected best validation accuracy after four of "
            "them is 96.1%.\n")
    assert failing("notes.md", text) == [(1, "tuning_budget", "value", "drift")]


def test_a_variant_named_with_a_comma_or_by_its_size_is_not_the_plain_model() -> None:
    table = "| model | test accuracy |\n|---|---|\n| MLP, wide (256) | 98.9% |\n"
    assert failing("notes.md", table) == []
    assert failing("notes.md", table.replace("MLP, wide (256)", "MLP")) == \
        [(3, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "The 256-unit MLP reaches 98.9% on test.\n") == []
    assert failing("notes.md", "The MLP reaches 98.9% on test.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]


def test_a_share_of_pairs_the_second_side_wins_is_the_complement() -> None:
    text = "In 16 of 100 seed pairs the MLP beats the CNN.\n"
    assert failing("notes.md", text) == []
    assert [f.kind for f in all_kinds("notes.md", text, strict=True) if f.kind != "match"] == []
    assert failing("notes.md", text.replace("16 of", "30 of")) == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]


def test_an_interval_end_near_zero_may_show_its_first_significant_digit() -> None:
    def kinds(text: str) -> list[str]:
        return [f.kind for f in all_kinds("notes.md", text) if f.kind != "match"]
    assert kinds("Between CNN and MLP the interval spans -0.006 to +1.1 points.\n") == []
    assert kinds("Between CNN and MLP the interval spans -0.0062 to +1.1 points.\n") == \
        ["overstated_precision"]
    assert kinds("Between CNN and MLP the interval spans -0.0 to +1.12 points.\n") == \
        ["overstated_precision"]


def test_a_column_averaged_over_seeds_is_no_difference_column() -> None:
    claims = claim_quantities({"claims": [
        HOUSES["claims"][2],
        _claim("ridge_beats_control", "verify:ridge_vs_control", -40.1, -45.0, -35.2, style="number",
               subjects=["ridge", "control"], quantity="diff", classification="effect", metric="rmse",
               keywords=("RMSE",))]})
    table = "| Model | Test RMSE (mean over 5 seeds) |\n|---|---:|\n| GBM | 22.3 |\n"
    assert failing("notes.md", table, claims) == []
    assert failing("notes.md", table.replace("(mean over 5 seeds)", "gain over the control"), claims) == \
        [(3, "ridge_beats_control", "value", "drift")]


def test_a_subjects_own_interval_is_no_other_claims() -> None:
    claims = claim_quantities({"claims": [HOUSES["claims"][0], HOUSES["claims"][2]]})  # no GBM level
    text = "Few seeds; the GBM's own interval ([21.1, 23.4]) nearly touches ridge's.\n"
    assert failing("notes.md", text, claims) == []
    assert failing("notes.md", "Few seeds; ridge's own interval ([21.1, 23.4]) is wide.\n", claims) == \
        [(1, "ridge_rmse", "ci_high", "drift"), (1, "ridge_rmse", "ci_low", "drift")]


def test_decimals_and_levels_in_words() -> None:
    assert failing("notes.md", "Aloud: the MLP's test accuracy is ninety-seven point six percent.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "Aloud: the MLP's test accuracy is ninety-eight point one percent.\n") == []
    assert failing("notes.md", "The GBM beats ridge by eight point two RMSE.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "Ridge's test RMSE is roughly thirty-four.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "value", "drift")]
    assert failing("notes.md", "Ridge's test RMSE is roughly thirty-one.\n", HOUSE_CLAIMS) == []


def test_configs_names_the_sweep() -> None:
    table = "| Quantity | Value |\n|---|---|\n| Expected best, 4 configs | 93.9% |\n"
    assert failing("notes.md", table) == [(3, "tuning_budget", "value", "drift")]
    assert failing("notes.md", table.replace("93.9%", "95.4%")) == []


def test_a_row_after_a_jinja_tag_is_no_indented_code() -> None:
    template = ("| Claim | Value |\n|---|---:|\n{% for c in ids %}| {{ c }} | {{ claim(c) }} |\n"
                "{% endfor %}| mlp_test_accuracy | 98.1% |\n")
    found = hand_typed_numbers(Path("paper/brief.md.j2"), template, CLAIMS)
    assert [(h.line, h.text) for h in found] == [(4, "98.1%")]


def test_a_single_configuration_is_a_budget_of_one() -> None:
    text = ('In short: {{ statement("tuning_budget") }} With a single configuration the expectation '
            "is only about 87 percent.\n")
    assert failing("paper/brief.md.j2", text) == []
    assert failing("paper/brief.md.j2", text.replace("a single configuration", "four configurations")) == \
        [(1, "tuning_budget", "value", "drift")]


def test_a_footnote_is_read_with_the_sentence_citing_it() -> None:
    # footnote bodies are parsed after the rest of the document: the sentence before them in
    # reading order is the last one, not the one citing them
    text = ("The CNN leads the MLP by 0.6 points.[^d]\n\n[^d]: Interval [-0.0, +1.5] points.\n\n"
            "The MLP beats the control clearly.\n")
    assert failing("notes.md", text) == [(3, "cnn_beats_mlp", "ci_high", "drift")]
    assert failing("notes.md", text.replace("+1.5", "+1.1")) == []


def test_one_side_under_a_heading_that_names_the_comparison() -> None:
    text = "## CNN vs MLP\n\nThe CNN wins clearly.\n"
    kinds = {(f.line, f.claim_id, f.kind) for f in all_kinds("notes.md", text)}
    assert (3, "cnn_beats_mlp", "unsupported_wording") in kinds
    assert all(f.kind == "match" for f in all_kinds("notes.md", "## Results\n\nThe CNN wins clearly.\n"))


def test_a_beamer_alert_is_emphasis_not_a_word() -> None:
    tex = ("\\begin{frame}{Results}\n  \\begin{itemize}\n"
           "    \\item $P(\\text{CNN better}) = 0.84$ over seed pairs\n"
           "    \\item \\alert{The CNN beats the MLP.}\n  \\end{itemize}\n\\end{frame}\n")
    assert {(f.line, f.claim_id, f.kind) for f in all_kinds("paper/talk.tex", tex) if f.kind != "match"} == \
        {(4, "cnn_beats_mlp", "unsupported_wording")}


def test_a_signed_number_after_a_setting_word_is_a_difference() -> None:
    assert failing("notes.md", "The MLP's gain from doubling its width is +0.4 points.\n") == \
        [(1, "width_is_noise", "value", "drift")]
    assert failing("notes.md", "The MLP's gain from doubling its width is \u22120.2 points.\n") == \
        [(1, "width_is_noise", "value", "drift")]
    assert failing("notes.md", "The MLP's gain from doubling its width is +0.2 points.\n") == []
    assert failing("notes.md", "The MLP's hidden width is 128.\n") == []


def test_a_difference_with_its_direction_is_the_value() -> None:
    assert failing("notes.md", "The GBM's RMSE is 11.1 lower than ridge's on average.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "Against ridge, the GBM's RMSE is 11.1 lower on average.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "The GBM's RMSE is 9.2 lower on average than ridge's.\n", HOUSE_CLAIMS) == []


def test_a_row_named_as_a_difference_holds_the_difference() -> None:
    tex = ("\\begin{tabular}{lcc}\nComparison & Gap & CI low \\\\\n"
           "CNN $-$ control & \\evCnnBeatsControl{} & 80.1 \\\\\n\\end{tabular}\n")
    assert failing("paper/t.tex", tex) == [(3, "cnn_beats_control", "ci_low", "drift")]
    assert failing("paper/t.tex", tex.replace("80.1", "81.1")) == []
    table = "| Comparison | Welch p |\n|---|---|\n| CNN vs control | 2.4e-06 |\n"
    assert failing("notes.md", table) == []


def test_a_relative_change_is_held_to_the_reference_level() -> None:
    assert failing("notes.md", "The GBM lowers RMSE by 9.2% relative to ridge.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "relative_change", "drift")]
    assert failing("notes.md", "The GBM lowers RMSE by 29.2% relative to ridge.\n", HOUSE_CLAIMS) == []
    text = "The GBM lowers RMSE by 29.2% relative to ridge.\n"
    strict = all_kinds("notes.md", text, HOUSE_CLAIMS, strict=True)
    assert [f.kind for f in strict] == ["match"]


def test_the_side_a_sentence_compares_with_is_the_reference() -> None:
    text = "Compared with ridge, the boosted model's RMSE is 9.2 higher.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", text.replace("higher", "lower"), HOUSE_CLAIMS) == []


def test_a_method_citation_after_our_own_seed_pairs_number() -> None:
    tex = "Over seed pairs the CNN wins with probability 0.79 \\citep{newcombe1998}.\n"
    assert failing("paper/results.tex", tex) == [(1, "cnn_beats_mlp", "prob_better", "drift")]
    tex = "Earlier networks reached 99.5\\% \\citep{lecun1998}.\n"
    assert failing("paper/results.tex", tex) == []


def test_the_regression_and_the_net_name_a_projects_only_ones() -> None:
    claims = claim_quantities({"claims": [
        _claim("mlp_beats_linear", "verify:mlp_vs_linear", 1.3, 0.2, 2.5, style="number",
               subjects=["mlp", "linear"], quantity="improvement", classification="effect", metric="rmse")]})
    text = "Swapping the regression for the two-layer net shaves 2.1 off the error.\n"
    assert failing("notes.md", text, claims) == [(1, "mlp_beats_linear", "value", "drift")]
    assert failing("notes.md", text.replace("2.1", "1.3"), claims) == []


def test_confident_wording_asserts_an_effect() -> None:
    text = "Between the two architectures, the distance separating the CNN and the MLP is a robust effect.\n"
    assert _pairs("notes.md", text) == {(1, "cnn_beats_mlp", "unsupported_wording")}
    tex = "Gap: \\evCnnBeatsMlp{} --- so the CNN is reliably better.\n"
    assert (1, "cnn_beats_mlp", "unsupported_wording") in _pairs("paper/p.tex", tex)
    text = "Going from the MLP to the wide MLP gives a consistent improvement.\n"
    assert _pairs("notes.md", text) == {(1, "width_is_noise", "unsupported_wording")}
    text = "What the wide MLP adds over the MLP is consistently positive.\n"
    assert _pairs("notes.md", text) == {(1, "width_is_noise", "unsupported_wording")}
    # shown effects, and hedged confidence, pass
    assert _pairs("notes.md", "The CNN and the control differ: a robust effect.\n") == set()
    assert _pairs("notes.md", "The MLP is clearly better than the control.\n") == set()
    assert _pairs("notes.md", "Whether the CNN is reliably better than the MLP is open.\n") == set()


def test_two_sides_joined_by_and_are_the_pair_of_sameness_wording() -> None:
    claims = claim_quantities({"claims": [
        _claim("mlp_beats_linear", "verify:mlp_vs_linear", 1.3, 0.2, 2.5, style="number",
               subjects=["mlp", "linear"], quantity="improvement", classification="effect", metric="rmse"),
        _claim("linear_beats_control", "verify:linear_vs_control", 16.4, 15.0, 17.8, style="number",
               subjects=["linear", "control"], quantity="improvement", classification="effect",
               metric="rmse")]})
    text = "In short, the MLP and the linear model perform the same, and both beat the control.\n"
    assert _pairs("notes.md", text, claims) == {(1, "mlp_beats_linear", "unsupported_wording")}


def test_a_setting_typeset_by_siunitx_is_a_setting() -> None:
    tex = "We fit ridge (lr \\num{0.5}) and the GBM with \\num{64} leaves.\n"
    assert failing("paper/p.tex", tex, HOUSE_CLAIMS) == []
    assert failing("paper/p.tex", "The GBM reaches an RMSE of \\num{25.3}.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_rmse", "value", "drift")]


def test_a_list_of_three_numbers_is_no_interval() -> None:
    text = "Per seed, the CNN's accuracies were [0.975, 0.991, 0.979, 0.990].\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", "The CNN reaches 98.7% [97.1, 99.2].\n") == \
        [(1, "cnn_test_accuracy", "ci_low", "drift")]


def test_a_difference_named_as_the_improvement_keeps_its_sign() -> None:
    table = "| Comparison | Value |\n|---|---|\n| GBM − ridge (improvement) | +9.2 |\n"
    assert failing("notes.md", table, HOUSE_CLAIMS) == []
    assert failing("notes.md", table.replace("+9.2", "+7.2"), HOUSE_CLAIMS) == \
        [(3, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", table.replace(" (improvement)", ""), HOUSE_CLAIMS) == \
        [(3, "gbm_beats_ridge", "value", "drift")]


def test_a_number_in_apposition_is_its_subjects() -> None:
    assert failing("notes.md", "Thus the wide MLP (97.9%) edges past the default MLP.\n") == []
    assert failing("notes.md", "Thus the wide MLP, at 97.9%, edges past the default MLP.\n") == []
    assert failing("notes.md", "Thus the MLP (97.9%) trails the wide MLP.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]


def test_a_respectively_list_ends_at_respectively() -> None:
    claims = claim_quantities({"claims": [c for c in HOUSES["claims"] if c["id"] != "gbm_rmse"]})
    text = "Ridge and the GBM land at 31.4 and 22.7, respectively, so the GBM is ahead by 9.2.\n"
    assert failing("notes.md", text, claims) == []
    assert failing("notes.md", text.replace("31.4", "33.4"), claims) == [(1, "ridge_rmse", "value", "drift")]


def test_a_shuffled_baseline_or_model_names_the_control() -> None:
    assert failing("notes.md", "CNN vs the shuffled model: 0.6 points.\n") == \
        [(1, "cnn_beats_control", "value", "drift")]
    assert failing("notes.md", "CNN vs the shuffled baseline: 87.5 points.\n") == []


def test_two_names_sharing_one_plural_noun_name_both() -> None:
    text = "Between the convolutional and feed-forward networks the distance is 0.9 pp.\n"
    assert failing("notes.md", text) == [(1, "cnn_beats_mlp", "value", "drift")]
    assert failing("notes.md", text.replace("0.9", "0.6")) == []


def test_a_half_in_words_is_a_number() -> None:
    assert failing("notes.md", "Widening the MLP buys half a point over the MLP.\n") == \
        [(1, "width_is_noise", "value", "drift")]
    assert failing("notes.md", "Widening the MLP buys about half a point over the MLP.\n") == []
    assert failing("notes.md", "The GBM undercuts ridge by eight and a half RMSE.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "The GBM undercuts ridge by nine and a half hours of compute.\n",
                   HOUSE_CLAIMS) == []
    assert failing("notes.md", "The wide MLP leads the MLP by less than half a point.\n") == []


def test_a_percentage_with_its_decimal_point_moved_is_drift() -> None:
    assert failing("notes.md", "Our MLP: test accuracy 9.81 over five seeds.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "Our MLP: test accuracy 98.1 over five seeds, trained 9.25 minutes.\n") == []


def test_another_splits_number_passed_off_as_the_claims_is_drift() -> None:
    text = "Ridge's validation RMSE, 29.1, is the number we quote as the test RMSE.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "ridge_rmse", "value", "drift")]
    text = "Ridge's validation RMSE is 29.1; its test RMSE is 31.4.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == []


def test_a_percentage_after_an_improvement_over_is_the_relative_change() -> None:
    text = "Against ridge, the GBM's gain over ridge comes to 9.2 %.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "relative_change", "drift")]
    assert failing("notes.md", text.replace("9.2 %", "29.2 %"), HOUSE_CLAIMS) == []


def test_points_from_a_stated_level_are_no_claims() -> None:
    text = "Above chance: the control sits 1.2 points above 10%, the MLP far more.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", "The MLP sits 1.2 points above the control.\n") == \
        [(1, "mlp_beats_control", "value", "drift")]


def test_the_two_models_are_the_two_last_named() -> None:
    """"The two models" in a sentence naming no subject is the pair the text was comparing."""
    text = ("The GBM improves on ridge by 9.17 RMSE.\n\n"
            "We nevertheless regard the two models as statistically indistinguishable.\n")
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(3, "gbm_beats_ridge", "unsupported_wording")}
    # "both models" against a third is about co-subjects, not the pair
    text = "The GBM improves on ridge by 9.17 RMSE.\n\nBoth models beat a constant predictor.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()


def test_not_significant_denies_a_shown_effect() -> None:
    text = ("Ridge reaches 31.42 and the GBM 22.25. "
            "The gap between the two models is small and not significant.\n")
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(1, "gbm_beats_ridge", "unsupported_wording")}


def test_a_side_named_by_its_adjective_alone() -> None:
    """"CNN vs shuffled", "wide vs narrow MLP", "Wide minus narrow": the adjective names the side."""
    table = ("| Comparison | Δ (points) |\n|---|---|\n| CNN vs shuffled | +88.5 |\n"
             "| wide vs narrow MLP | +0.9 |\n")
    assert failing("notes.md", table) == [(3, "cnn_beats_control", "value", "drift"),
                                          (4, "width_is_noise", "value", "drift")]
    assert failing("notes.md", "- Wide minus narrow: about 0.3 pp.\n") == \
        [(1, "width_is_noise", "value", "drift")]
    assert failing("notes.md", "- Wide minus narrow: about 0.2 pp.\n") == []


def test_a_signed_number_with_a_measures_digits_is_a_slipped_decimal() -> None:
    table = "| Comparison | Δ |\n|---|---|\n| wide MLP vs MLP | +2 |\n"
    assert failing("notes.md", table) == [(3, "width_is_noise", "value", "drift")]


def test_the_architectures_are_the_last_two_that_differ_in_architecture() -> None:
    text = ("- The convnet reaches 98.7% on test.\n- The wide MLP vs the MLP: about 0.2 pp.\n"
            "- The architectures differ by 6 points on test.\n")
    assert failing("notes.md", text) == [(3, "cnn_beats_mlp", "value", "drift")]


def test_a_quoted_pair_label_owns_its_number() -> None:
    """The quoted statement's own pair decides, not the explanation after it."""
    text = '* "MLP minus control is +87.5 points" - that is the CNN\'s margin.\n'
    assert failing("notes.md", text) == [(1, "mlp_beats_control", "value", "drift")]
    text = '* "CNN over the shuffled baseline: +86.9 points" - that is the MLP\'s margin.\n'
    assert failing("notes.md", text) == [(1, "cnn_beats_control", "value", "drift")]


def test_an_interval_end_named_later_in_the_sentence() -> None:
    text = ('If someone quotes 99.2% as "the CNN\'s accuracy", '
            'that is the top of the interval, not the mean.\n')
    assert failing("notes.md", text) == []
    assert failing("notes.md", text.replace("99.2%", "99.6%")) == \
        [(1, "cnn_test_accuracy", "ci_high", "drift")]


def test_the_right_size_in_the_wrong_direction_beside_the_right_value() -> None:
    """A direction word in emphasis is read, and the same size said the wrong way round is drift
    even after the value was stated right (it is no baseline)."""
    text = "The GBM improves on ridge by 9.17; that is, the GBM's RMSE is 9.17 *higher* than ridge's.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(1, "gbm_beats_ridge", "drift")}
    assert _pairs("notes.md", text.replace("*higher*", "*lower*"), HOUSE_CLAIMS) == set()


def test_its_is_the_subject_of_the_sentence_before() -> None:
    """"Its test RMSE" after a sentence about the control is the control's, not ridge's named later."""
    text = "We also fit a control on shuffled targets.\nIts test RMSE is 71.3, so ridge is 40.1 lower.\n"
    assert _pairs("notes.md", text, THREE) == set()
    text = "We fit ridge with five seeds.\nIts test RMSE is 35.0 on the test split.\n"
    assert (2, "ridge_rmse", "drift") in _pairs("notes.md", text, THREE)


def test_a_number_labelled_by_its_own_words_is_not_the_claim_before() -> None:
    text = ("Ridge is 9.17 worse than the GBM.\n"
            "A constant guess (the mean target, 60.5) would score far worse.\n")
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()
    text = "We fit ridge with five seeds.\nAcross them (the mean test RMSE, 35.0) it is stable.\n"
    assert (2, "ridge_rmse", "drift") in _pairs("notes.md", text, HOUSE_CLAIMS)


def test_a_relative_change_goes_with_the_pair_written_before_it_and_keeps_its_sign() -> None:
    text = "In relative terms, ridge vs control is −56.1%, GBM vs ridge −29.2%.\n"
    assert _pairs("notes.md", text, THREE) == set()
    assert _pairs("notes.md", text.replace("−29.2%", "+29.2%"), THREE) == {(1, "gbm_beats_ridge", "drift")}


def test_its_interval_is_the_interval_of_the_claim_stated_before() -> None:
    text = ("- The GBM lowers the test RMSE by 9.17 on average.\n"
            "- Its interval, [7.20, 12.50], excludes zero.\n")
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(2, "gbm_beats_ridge", "ci_high", "drift")]
    assert failing("notes.md", text.replace("12.50", "11.14"), HOUSE_CLAIMS) == []


def test_an_unnamed_plus_minus_is_the_half_width_the_sd_or_the_standard_error() -> None:
    """ridge_rmse: 31.42 [29.80, 33.04] over 5 seeds: half-width 1.62, SD 1.30, SE 0.58."""
    for spread in ("1.6", "1.3", "0.58"):
        assert failing("notes.md", f"Ridge reaches a test RMSE of 31.42 ± {spread}.\n", HOUSE_CLAIMS) == []
    assert failing("notes.md", "Ridge reaches a test RMSE of 31.42 ± 2.4.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "ci_half", "drift")]
    # named as something else, or after a number that states no claim: not checked
    assert failing("notes.md", "Ridge reaches a test RMSE of 31.42 ± 2.4 (min/max over folds).\n",
                   HOUSE_CLAIMS) == []
    assert failing("notes.md", "Ridge reaches a test RMSE of 31.42 with lr 0.05 ± 0.01.\n",
                   HOUSE_CLAIMS) == []


def test_a_signed_interval_end_far_from_a_comparisons_end_is_its_end() -> None:
    text = ("Reading this: convnet minus MLP is positive but the lower end is −0.6, "
            "so the interval includes 0.\n")
    assert failing("notes.md", text) == [(1, "cnn_beats_mlp", "ci_low", "drift")]
    assert failing("notes.md", text.replace("−0.6", "−0.0")) == []


def test_an_old_value_quoted_beside_the_right_one_is_stale() -> None:
    text = "- GBM over ridge: 9.17 (was 8.40 in 1.1.0).\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "- GBM over ridge: 9.17 (first reported in 1.1.0).\n", HOUSE_CLAIMS) == []
    # an earlier value under another setting is another configuration's, not an old copy
    assert failing("notes.md", "The GBM's RMSE is 22.25 (was 23.10 with depth 3).\n", HOUSE_CLAIMS) == []


def test_chat_lines_are_messages_and_a_bare_number_with_a_claims_digits_is_its() -> None:
    chat = ("**[09:03] @rhea:** what's the convnet at now?\n"
            "**[09:03] @tom:** 98.67 on test, mean of five\n"
            "**[09:04] @rhea:** and the mlp? I had 98.4 in my head\n")
    found = {(f.line, f.claim_id, f.kind) for f in all_kinds("notes.md", chat)}
    assert (2, "cnn_test_accuracy", "overstated_precision") in found
    assert (3, "mlp_test_accuracy", "drift") in found  # 98.4% is the MLP's interval's upper end
    assert not any(line == 2 and claim == "mlp_test_accuracy" for line, claim, _ in found)


def test_a_tuning_table_row_is_its_budget() -> None:
    """The first column counts configurations: the row "4" is the claim's budget, the others not."""
    table = ("| configs | expected max (val) |\n|--:|--:|\n| 1 | 87.1 |\n| 4 | 94.5 |\n| 16 | 97.0 |\n")
    assert failing("notes.md", table) == [(4, "tuning_budget", "value", "drift")]
    assert failing("notes.md", table.replace("94.5", "95.4")) == []


def test_the_change_to_a_sized_variant_names_its_comparison() -> None:
    """"Going wide", "doubling the hidden width": the wide MLP against the MLP (+0.2 points)."""
    assert failing("notes.md", "* Going wide adds +0.5 points on average.\n") == \
        [(1, "width_is_noise", "value", "drift")]
    assert failing("notes.md", '- "Doubling the hidden width buys half a point" is wrong.\n') == \
        [(1, "width_is_noise", "value", "drift")]
    assert failing("notes.md", "* Going wide adds +0.2 points on average.\n") == []


def test_a_difference_called_reliable_asserts_an_effect() -> None:
    assert _pairs("notes.md", "- CNN vs MLP is about one point and reliable.\n") == \
        {(1, "cnn_beats_mlp", "unsupported_wording")}
    assert _pairs("notes.md", "- MLP vs control: the gap is real.\n") == set()  # an effect, shown
    assert _pairs("notes.md", "- CNN vs MLP: a reliable estimate needs ten seeds per group.\n") == set()


def test_a_signed_number_in_words_is_read_with_the_clause_before() -> None:
    text = "Ridge minus the control is $-40.1$ RMSE; in words, minus forty point one.\n"
    typed = [h.text for h in hand_typed_numbers(Path("paper/appendix.tex"), text, THREE)]
    assert "minus forty point one" in typed
    wrong = text.replace("minus forty point one", "minus forty-four point one")
    assert (1, "ridge_beats_control", "drift") in _pairs("paper/appendix.tex", wrong, THREE)


def test_a_side_said_to_have_the_better_level_of_the_two() -> None:
    text = "- The GBM beats ridge by 9.17.\n- Ridge has the lower test RMSE of the two.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == {(2, "gbm_beats_ridge", "unsupported_wording")}
    assert _pairs("notes.md", text.replace("Ridge has", "The GBM has"), HOUSE_CLAIMS) == set()
    assert _pairs("notes.md", text.replace("lower", "higher"), HOUSE_CLAIMS) == set()


def test_a_plus_minus_named_as_the_sd_is_held_to_the_sd() -> None:
    """ridge_rmse: SD over its 5 seeds 1.30 (the interval's half-width is 1.62)."""
    assert failing("notes.md", "- Ridge test RMSE 31.42 ± 1.6 (mean ± SD)\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "sd", "drift")]
    assert failing("notes.md", "- Ridge test RMSE 31.42 ± 1.3 (mean ± SD)\n", HOUSE_CLAIMS) == []


def test_going_from_one_width_to_another_names_the_width_comparison() -> None:
    text = '"Going from 64 to 128 hidden units buys +0.5 points." That is the upper end.\n'
    assert failing("notes.md", text) == [(1, "width_is_noise", "value", "drift")]


def test_a_seeds_needed_label_and_the_width_comparison() -> None:
    text = "Seeds needed for the width comparison, per verify: about 62.\n"
    assert failing("notes.md", text) == [(1, "width_is_noise", "seeds_needed", "drift")]
    assert failing("notes.md", text.replace("62", "26")) == []


def test_the_higher_variance_is_no_better_level() -> None:
    text = "- The GBM beats ridge by 9.17.\n- Ridge has the higher variance across seeds of any model.\n"
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == set()


def test_a_respectively_list_of_a_level_and_a_comparison() -> None:
    """"The test RMSE of ridge and the gain of the GBM over it": a level, then a comparison ("it":
    ridge), each at its place."""
    text = ("- Table 1: the test RMSE of ridge and the gain of the GBM over it were printed as "
            "9.17 and 31.42, respectively; fixed.\n")
    assert _pairs("notes.md", text, HOUSE_CLAIMS) == \
        {(1, "ridge_rmse", "drift"), (1, "gbm_beats_ridge", "drift")}
    assert _pairs("notes.md", text.replace("9.17 and 31.42", "31.42 and 9.17"), HOUSE_CLAIMS) == set()
