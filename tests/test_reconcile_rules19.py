"""Reconcile rules prompted by what the nineteenth held-out corpus missed or flagged as found,
each checked on an invented document: the catch, and the near sentence it must leave alone.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project).
"""

from __future__ import annotations

from pathlib import Path

from test_reconcile_classes import CLAIMS, HOUSE_CLAIMS, all_kinds, failing

from evidence.deliver.reconcile import hand_typed_numbers


def test_pt_in_prose_is_percentage_points_and_in_latex_options_a_length() -> None:
    row = "| Claim | In the paper |\n|---|---|\n| CNN vs control | {} |\n"
    assert failing("notes/c.md", row.format("+85.1 pt")) == [(3, "cnn_beats_control", "value", "drift")]
    assert failing("notes/c.md", row.format("+87.5 pt")) == []
    assert failing("paper/a.tex", "\\vspace{6pt} The CNN beats the control by \\evCnnBeatsControl{}.\n") == []


def test_abbreviations_of_a_lab_log() -> None:
    assert failing("notes/log.md", "- cnn err rate ≈ 2.1% on test\n") == \
        [(1, "cnn_test_accuracy", "error_rate", "drift")]
    assert failing("notes/log.md", "- ctrl acc 20.9% on test (5 seeds)\n") == \
        [(1, "control_at_chance", "value", "drift")]
    assert failing("notes/log.md", "- seeds needed for cnn vs mlp ≈ 18/group (80% power)\n") == \
        [(1, "cnn_beats_mlp", "seeds_needed", "drift")]
    assert failing("notes/log.md", "- seeds needed for cnn vs mlp ≈ 10/group (80% power)\n") == []


def test_a_difference_named_delta_or_an_uppercase_metric_is_no_setting() -> None:
    assert failing("notes/s.md", "GBM vs ridge: Δ = 5.2 in favour of the GBM.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes/s.md", "Ridge test RMSE = 3.14 (raw units).\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "value", "drift")]
    assert failing("notes/s.md", "We used lr = 0.05 and batch = 32 for ridge.\n", HOUSE_CLAIMS) == []


def test_a_citation_given_for_another_subject_is_misplaced_under_both_claims() -> None:
    text = ("The sanity checks give {{ claim('cnn_beats_control') }} for the MLP and "
            "{{ claim('mlp_beats_control') }} for the CNN.\n")
    assert failing("paper/s.md.j2", text) == [(1, "cnn_beats_control", "value", "drift"),
                                              (1, "cnn_beats_control", "value", "drift"),
                                              (1, "mlp_beats_control", "value", "drift"),
                                              (1, "mlp_beats_control", "value", "drift")]
    right = ("The sanity checks give {{ claim('mlp_beats_control') }} for the MLP and "
             "{{ claim('cnn_beats_control') }} for the CNN.\n")
    assert failing("paper/s.md.j2", right) == []


def test_half_width_names_no_wider_variant() -> None:
    text = ("For the MLP, {{ claim('mlp_test_accuracy') }}, the half-width of the interval is "
            "±0.9 points.\n")
    assert failing("paper/s.md.j2", text) == [(1, "mlp_test_accuracy", "ci_half", "drift")]


def test_a_tally_of_every_run_is_no_count_of_seeds() -> None:
    text = "Training takes 3.2 s for the GBM and ridge over all 15 runs.\n"
    assert failing("paper/d.md", text, HOUSE_CLAIMS) == []
    assert failing("notes/n.md", "The control is the widest of the three because its seeds disagree.\n") == []
    assert failing("notes/n.md", "The CNN was trained with three seeds.\n") == \
        [(1, "cnn_test_accuracy", "n", "drift")]


def test_one_configurations_score_is_no_expected_best() -> None:
    assert failing("notes/log.md", "- best single cfg: h128 lr0.1 → val acc 97.2%\n") == []
    assert failing("notes/log.md", "- expected best val acc at four configurations: 97.2%\n") == \
        [(1, "tuning_budget", "value", "drift")]


def test_decoys_of_the_nineteenth_corpus() -> None:
    assert failing("docs/faq.md", "No. On MNIST, committees of convolutional nets reach 0.23% error.\n") == []
    checked = "- [x] 13. No sentence says the CNN \"significantly\" beats the MLP.\n"
    assert failing("notes/r.md", checked) == []
    assert failing("docs/r.md", "The earlier figure of 35.9 for ridge came from an unscaled run.\n",
                   HOUSE_CLAIMS) == []


def test_numbers_a_paper_source_cannot_bind_are_not_hand_typed() -> None:
    table = ("\\begin{tabular}{lrr}\nModel & Test accuracy & Val.\\ accuracy \\\\\n"
             "CNN & \\evCnnTestAccuracy{} & 97.8\\,\\% \\\\\n\\end{tabular}\n")
    assert hand_typed_numbers(Path("paper/t.tex"), table, CLAIMS) == []
    sd = "The control's interval is the widest: its SD over seeds is 5.1 points.\n"
    assert hand_typed_numbers(Path("paper/s.md.j2"), sd, CLAIMS) == []
    budgets = ("For k = 4 it is {{ claim('tuning_budget') }}; for k = 1 it is 87.1% and for k = 16 it "
               "is 97.0%.\n")
    assert hand_typed_numbers(Path("paper/s.md.j2"), budgets, CLAIMS) == []
    typed = "The CNN reaches 98.7% on the test split.\n"
    assert [h.text for h in hand_typed_numbers(Path("paper/s.md.j2"), typed, CLAIMS)] == ["98.7%"]
    assert [f.kind for f in all_kinds("paper/s.md.j2", typed, strict=True)] == ["unbound"]
