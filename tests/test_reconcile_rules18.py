"""Reconcile rules prompted by what the eighteenth held-out corpus missed or flagged as found,
each checked on an invented document: the catch, and the near sentence it must leave alone.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project).
"""

from __future__ import annotations

from pathlib import Path

from test_reconcile_classes import CLAIMS, HOUSE_CLAIMS, all_kinds, failing

from evidence.deliver.reconcile import hand_typed_numbers


def test_an_error_rate_of_a_percentage_is_the_accuracys_complement() -> None:
    assert failing("notes/e.md", "The CNN has an error rate of 2.7%.\n") == \
        [(1, "cnn_test_accuracy", "error_rate", "drift")]
    assert failing("notes/e.md", "The CNN has an error rate of 1.3%.\n") == []
    # the error on a part of the data is no complement of the test accuracy
    assert failing("notes/e.md", "The CNN's error rate on the digit 8 is 2.7%.\n") == []


def test_a_table_of_fields_names_the_metric_in_its_row_header() -> None:
    table = "| Field | Value |\n|---|---|\n| Test error rate (CNN) | {} |\n"
    assert failing("docs/f.md", table.format("2.2%")) == [(3, "cnn_test_accuracy", "error_rate", "drift")]
    assert failing("docs/f.md", table.format("1.3%")) == []


def test_a_plus_minus_named_as_a_models_spread_is_checked_without_a_value_before_it() -> None:
    table = "| Field | Value |\n|---|---|\n| Seed-to-seed spread of the CNN (± 1 SD) | ± {} points |\n"
    # "± 1 SD" is how wide a band is in SDs, no measured spread; 1.6 is not the CNN's SD (0.46)
    assert failing("docs/l.md", table.format("1.6")) == [(3, "cnn_test_accuracy", "sd", "drift")]
    assert failing("docs/l.md", table.format("0.46")) == []
    assert failing("notes/s.md", "The CNN reaches 98.7% ± 1.5 points (SD).\n") == \
        [(1, "cnn_test_accuracy", "sd", "drift")]
    assert failing("notes/s.md", "The CNN reaches 98.7% ± 0.5 points (SD).\n") == []


def test_a_spread_over_seeds_is_a_models_never_a_comparisons() -> None:
    # the comparison's interval is [-0.0, +1.1]: a ± over seeds after its value is no half-width of it
    found = all_kinds("notes/c.md", "The CNN leads the MLP by +0.6 points (± 2.5 over seeds).\n")
    assert [(f.kind, f.claim_id, f.quantity) for f in found] == [("match", "cnn_beats_mlp", "value")]
    assert failing("notes/c.md", "Ridge: test RMSE 31.42 ± 4.9 over seeds.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "ci_half", "drift")]


CHANGELOG = """# Changelog

Only the current release (v0.4.0) describes the present evidence; older entries are kept for the
record and their numbers are superseded.

## [0.4.0] - 2026-10-08

- CNN mean test accuracy: 97.9% over five seeds (v0.3.0: 98.0%).

## [0.3.0] - 2026-08-21

- CNN mean test accuracy 98.0%.
- MLP mean test accuracy 97.3%.
"""


def test_a_changelog_that_says_its_old_entries_are_superseded_checks_the_current_one_only() -> None:
    assert failing("docs/CHANGELOG.md", CHANGELOG) == [(8, "cnn_test_accuracy", "value", "drift")]
    # without that sentence, every entry speaks for the evidence (as a changelog that checks each
    # entry against its delivery does)
    kept = CHANGELOG.replace("Only the current release (v0.4.0) describes the present evidence; older "
                             "entries are kept for the\nrecord and their numbers are superseded.", "Results.")
    assert failing("docs/CHANGELOG.md", kept) == [(7, "cnn_test_accuracy", "value", "drift"),
                                                  (11, "cnn_test_accuracy", "value", "drift"),
                                                  (12, "mlp_test_accuracy", "value", "drift")]


def test_a_heading_that_marks_its_release_as_superseded_is_the_record() -> None:
    text = ("## [0.3.0] - 2026-10-12\n\n- MLP mean test accuracy 98.1%.\n\n"
            "## [0.2.1] - 2026-08-30 (superseded by 0.3.0)\n\n- MLP mean test accuracy 97.3%.\n")
    assert failing("docs/CHANGELOG.md", text) == []


def test_numbered_sections_are_no_versions() -> None:
    text = "## 7.1 Setup\n\nThe MLP reaches 97.3%.\n\n## 7.2 Results\n\nThe CNN reaches 98.7%.\n"
    assert failing("notes/lecture.md", text) == [(3, "mlp_test_accuracy", "value", "drift")]


def test_a_verdict_in_verifys_words_is_held_to_verify() -> None:
    found = all_kinds("docs/c.md", "- Verify now classifies cnn_vs_mlp as an effect.\n")
    assert [(f.kind, f.claim_id) for f in found] == [("unsupported_wording", "cnn_beats_mlp")]
    assert failing("docs/c.md", "- Verify classifies cnn_vs_mlp as insufficient evidence.\n") == []
    assert failing("docs/c.md", "- Verify does not classify cnn_vs_mlp as an effect.\n") == []
    assert [f.kind for f in all_kinds("docs/c.md", "Verdict for mlp_vs_control: effect.\n")] == []


def test_a_misplaced_citation_names_the_claim_the_sentence_is_about() -> None:
    row = ("| Field | Value |\n|---|---|\n"
           "| Gain over the control (MLP) | [+87.5 points](#claim:cnn_beats_control) |\n")
    assert failing("docs/l.md", row) == [(3, "cnn_beats_control", "value", "drift"),
                                         (3, "mlp_beats_control", "value", "drift")]
    tex = ("The CNN reaches \\evCnnTestAccuracy{} over five seeds, the MLP \\evCnnTestAccuracy{}.\n")
    assert failing("paper/a.tex", tex) == [(1, "cnn_test_accuracy", "value", "drift"),
                                           (1, "mlp_test_accuracy", "value", "drift")]
    right = "The CNN reaches \\evCnnTestAccuracy{}, the MLP \\evMlpTestAccuracy{}.\n"
    assert failing("paper/a.tex", right) == []


def test_a_level_after_is_at_and_an_appositive_is_the_subjects() -> None:
    assert failing("notes/p.md", "And the MLP, the simpler network, is at ninety-seven point two.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes/p.md", "The MLP is at 98.1.\n") == []


def test_seeds_a_question_would_take_are_the_seeds_needed() -> None:
    text = ("We cannot tell you the CNN is better than the MLP. Settling the question would take "
            "roughly {} seeds per model.\n")
    assert failing("docs/n.md", text.format(40)) == [(1, "cnn_beats_mlp", "seeds_needed", "drift")]
    assert failing("docs/n.md", text.format(10)) == []


def test_a_half_after_its_unit_or_a_compound_number() -> None:
    assert failing("notes/h.md", "The CNN came out ahead of the MLP by a point and a half.\n") == \
        [(1, "cnn_beats_mlp", "value", "drift")]
    text = ("Trying four configurations, the expected best validation accuracy is about {} and a half "
            "percent.\n")
    assert failing("notes/h.md", text.format("ninety-six")) == [(1, "tuning_budget", "value", "drift")]
    [said] = all_kinds("notes/h.md", text.format("ninety-six"))
    assert said.stated_value == 96.5


def test_doubling_the_model_names_the_change_to_its_wider_variant() -> None:
    text = "Doubling the MLP changes its test accuracy by {} points.\n"
    assert failing("notes/w.md", text.format("1.1")) == [(1, "width_is_noise", "value", "drift")]
    assert failing("notes/w.md", text.format("0.2")) == []


def test_a_probability_named_with_where_it_comes_from() -> None:
    assert failing("notes/p.md", "P(CNN better than MLP) in verify is 0.64, so we dropped 'likely'.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]


def test_on_its_own_is_alone_not_its_own_level() -> None:
    text = ("* The GBM lowers ridge's RMSE by 9.17.\n"
            "* Ridge regression on its own reaches a test RMSE of 35.1 over five seeds.\n")
    assert failing("notes/o.md", text, HOUSE_CLAIMS) == [(2, "ridge_rmse", "value", "drift")]


def test_a_count_said_of_a_side_with_no_result_of_its_own_is_its_comparisons() -> None:
    # no claim states the wide MLP's own accuracy: its seeds are its comparison's (n = 5)
    assert failing("notes/n.md", "The wide MLP was trained with three seeds.\n") == \
        [(1, "width_is_noise", "n", "drift")]
    assert failing("notes/n.md", "The wide MLP was trained with five seeds.\n") == []
    # a sweep's design is no count of a comparison
    assert failing("notes/n.md", "We swept four learning rates by four widths, one seed each.\n") == []


def test_decoys_of_the_eighteenth_corpus() -> None:
    chance = ("Guessing at random would be right one time in ten (10%). The shuffled-label control "
              "scored 11.2% on the test split.\n")
    assert failing("docs/press.md", chance) == []
    signature = ("Doubling the MLP's width changes its accuracy by +0.2 points.\n\n"
                 "> Priya Raman · Postdoc · +1 (617) 555-0142\n")
    assert failing("notes/mail.md", signature) == []
    assert failing("notes/chat.md", "what's ridge at now? last week's build had 33.9\n", HOUSE_CLAIMS) == []


def test_a_column_of_differences_to_a_reference_reads_row_minus_reference() -> None:
    table = ("| Variant | Test RMSE | Δ test RMSE vs ridge |\n|---|---:|---:|\n"
             "| ridge (reference) | 31.4 | — |\n| GBM | 22.25 | {} |\n")
    assert failing("docs/t.md", table.format("−9.17"), HOUSE_CLAIMS) == []
    assert failing("docs/t.md", table.format("+9.17"), HOUSE_CLAIMS) == \
        [(4, "gbm_beats_ridge", "value", "drift")]


def test_a_number_of_a_split_no_claim_of_its_subject_is_on_is_not_hand_typed() -> None:
    text = ("On the validation split the CNN averages 97.8%, which no claim uses.\n"
            "The CNN averages 97.9% on test.\n")
    assert [h.line for h in hand_typed_numbers(Path("paper/a.md.j2"), text, CLAIMS)] == [2]


def test_a_difference_in_a_metrics_units_written_as_a_percentage_is_a_unit_slip() -> None:
    # "improvement = 1.3%" is a difference (no key = value setting); 9.17 RMSE units are no percentage
    text = "GBM vs ridge improvement = {} RMSE, for the one-pager.\n"
    assert failing("notes/u.md", text.format("9.17%"), HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes/u.md", text.format("9.17"), HOUSE_CLAIMS) == []
