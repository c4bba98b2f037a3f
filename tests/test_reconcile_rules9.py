"""Reconcile rules prompted by the ninth held-out corpus, each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project); every case states the rule's catch and the near sentence it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from test_reconcile_classes import CLAIMS, EXAMPLE, HOUSE_CLAIMS, _claim, all_kinds, failing

from evidence.deliver.claims import claim_quantities
from evidence.deliver.reconcile import hand_typed_numbers

#: A regression claim whose interval's half-width is one digit (0.2).
LASSO = claim_quantities({"claims": [_claim("lasso_rmse", "aggregate:lasso", 41.3, 41.1, 41.5, style="number",
                                            subjects=["lasso"], metric="rmse")]})


def test_a_claim_id_as_a_row_header_names_that_claim() -> None:
    table = ("| Claim | last release | now |\n|---|--:|--:|\n"
             "| mlp_test_accuracy | 97.6% | [98.1%](#claim:mlp_test_accuracy) |\n"
             "| cnn_beats_mlp | +0.9 points | [+0.6 points](#claim:cnn_beats_mlp) |\n")
    assert failing("notes.md", table) == [(3, "mlp_test_accuracy", "value", "drift"),
                                          (4, "cnn_beats_mlp", "value", "drift")]
    # a longer identifier is another name, not the claim's
    assert failing("notes.md", table.replace("mlp_test_accuracy |", "mlp_test_accuracy_v0 |")) == \
        [(4, "cnn_beats_mlp", "value", "drift")]


def test_a_tally_of_runs_is_no_count_of_seeds() -> None:
    assert failing("notes.md", "Status: 12/12 digits runs of the CNN and MLP sealed.\n") == []
    assert failing("notes.md", "The CNN and the MLP were compared over 12 seeds.\n") == \
        [(1, "cnn_beats_mlp", "n", "drift")]


def test_the_chance_level_and_a_distance_from_chance_are_no_results() -> None:
    text = "Chance with 10 digit classes is 10%, and the control must not stray far.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", "The control's 1.5 points above chance are within the 3-point rule.\n") == []
    assert failing("notes.md", "The control sits 1.5 points above the MLP.\n") == \
        [(1, "mlp_beats_control", "value", "drift")]


def test_seeds_to_add_are_neither_count_nor_estimate() -> None:
    assert failing("notes.md", "Plan: queue 8 more seeds per arm for the CNN vs MLP comparison.\n") == []
    assert failing("notes.md", "Settling CNN vs MLP would need about 8 seeds per arm.\n") == \
        [(1, "cnn_beats_mlp", "seeds_needed", "drift")]


def test_a_made_up_example_states_no_result() -> None:
    assert failing("notes.md", "A hypothetical MLP scores 93.0% with an SD of 1.5 over 4 seeds.\n") == []
    assert failing("notes.md", "The MLP scores 93.0% over its seeds.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]


def test_an_error_rate_glossed_in_parentheses_is_the_complement() -> None:
    assert failing("notes.md", "The error rate of the MLP (one minus accuracy) is 1.9%.\n") == []
    assert failing("notes.md", "The error rate of the MLP (one minus accuracy) is 2.4%.\n") == \
        [(1, "mlp_test_accuracy", "error_rate", "drift")]
    assert failing("notes.md", "The error rate of the MLP on the digit 8 is 4.1%.\n") == []


def test_a_single_trial_is_a_budget_for_the_ones_after() -> None:
    text = ("Expected best validation accuracy of the MLP sweep: with 1 trial 86.0%, with 2 91.9%, "
            "with 4 [95.4%](#claim:tuning_budget).\n")
    assert failing("notes.md", text) == []
    assert failing("notes.md", text.replace("with 2 91.9%", "with 4 93.8%")) == \
        [(1, "tuning_budget", "value", "drift")]


def test_a_column_headed_a_minus_b_holds_the_difference_in_that_order() -> None:
    table = ("| Quantity | ridge | GBM − ridge |\n|---|--:|--:|\n"
             "| test RMSE / change | 31.42 | −9.17 |\n"
             "| 95% CI | [29.80, 33.04] | [−11.14, −7.20] |\n")
    assert failing("notes.md", table, HOUSE_CLAIMS) == []
    swapped = table.replace("[29.80, 33.04] | [−11.14, −7.20]", "[−11.14, −7.20] | [29.80, 33.04]")
    assert ("gbm_beats_ridge", "drift") in {(f[1], f[3]) for f in failing("notes.md", swapped, HOUSE_CLAIMS)}


def test_one_unsigned_digit_shows_no_claims_digits() -> None:
    text = ("Lasso's test RMSE is 41.3.\n"
            "- blockers: the p-value in the report (0.0018) vs my notebook's (0.002): same, rounded\n")
    assert failing("notes.md", text, LASSO) == []
    assert failing("notes.md", "Lasso's test RMSE is 4.13.\n", LASSO) == [(1, "lasso_rmse", "value", "drift")]


def test_its_own_is_the_first_named_subjects() -> None:
    text = "Ridge trails the GBM clearly; its own RMSE, 22.3, is what a plain linear fit scores.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "ridge_rmse", "value", "drift")]
    text = "The GBM leads ridge clearly; its own RMSE, 22.3, is the lowest.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == []


def test_the_claims_own_number_under_another_splits_name_is_drift() -> None:
    assert failing("notes.md", "The MLP's validation accuracy is 98.1% (mean over seeds).\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "The MLP's validation accuracy is 97.4% (mean over seeds).\n") == []
    assert failing("notes.md", "The MLP's validation accuracy is about 98% (mean over seeds).\n") == []
    text = "With four configurations the MLP sweep's expected best test accuracy is 95.4%.\n"
    assert failing("notes.md", text) == [(1, "tuning_budget", "value", "drift")]
    assert failing("notes.md", "Ridge's error on the validation houses: 31.42.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "value", "drift")]
    assert failing("notes.md", "What training of ridge reaches: 31.42 RMSE on test.\n", HOUSE_CLAIMS) == []


def test_a_result_worked_out_wrongly_is_drift_of_the_claim_it_should_give() -> None:
    text = "Sanity check: 31.42 − 22.25 = 9.71, so the gap is large.\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", text.replace("9.71", "9.17"), HOUSE_CLAIMS) == []
    assert failing("notes.md", "By hand, 98.1 minus 11.2 is 85.9 points.\n") == \
        [(1, "mlp_beats_control", "value", "drift")]
    assert failing("notes.md", "Warm-up: 2 + 2 = 5 is a famous slogan.\n", HOUSE_CLAIMS) == []


#: A booktabs table whose first header spans two columns and whose group label spans two rows.
GROUPED = r"""\begin{table}
\caption{Comparisons. P is P(first better).}
\begin{tabular}{@{}llrrr@{}}
\toprule
\multicolumn{2}{@{}l}{Comparison} & $\Delta$ (points) & 95\,\% CI & P \\
\midrule
\multirow{2}{*}{over the control} & MLP & +86.9 & [+80.6, +93.3] & 1 \\
 & CNN & +87.5 & [+81.1, +93.9] & 1 \\
\bottomrule
\end{tabular}
\end{table}
"""


def test_a_multirow_group_labels_the_rows_it_spans_and_a_multicolumn_header_the_columns() -> None:
    assert failing("paper/tables.tex", GROUPED) == []
    found = failing("paper/tables.tex", GROUPED.replace("+87.5 &", "+86.5 &"))
    assert found == [(8, "cnn_beats_control", "value", "drift")]
    typed = {(h.line, h.text) for h in hand_typed_numbers(Path("paper/tables.tex"), GROUPED, CLAIMS)}
    assert (7, "1") in typed and (8, "1") in typed  # P(better) = 1 typed by hand
    assert not any(text == "2" for _, text in typed)  # \multirow{2}: layout, no number


def test_precision_beside_decimals_is_the_numbers_digits_not_the_metric() -> None:
    found = all_kinds("notes.md", "Precision: the MLP result to three decimals is 98.111%.\n")
    assert [(f.claim_id, f.kind) for f in found] == [("mlp_test_accuracy", "overstated_precision")]
    assert all_kinds("notes.md", "Precision: the MLP reaches 96.4% on the digit classes.\n") == []


def test_the_claims_interval_under_another_level_is_drift() -> None:
    text = "The GBM beats ridge by 9.17, with a 90% interval of [7.20, 11.14].\n"
    found = failing("notes.md", text, HOUSE_CLAIMS)
    assert {(f[1], f[2]) for f in found} == {("gbm_beats_ridge", "ci_low"), ("gbm_beats_ridge", "ci_high")}
    assert failing("notes.md", text.replace("90%", "95%"), HOUSE_CLAIMS) == []
    # another level's own (different) interval is not the claim's
    assert failing("notes.md", text.replace("[7.20, 11.14]", "[7.6, 10.7]"), HOUSE_CLAIMS) == []


def test_a_difference_label_before_the_colon_governs_its_item() -> None:
    text = "- Improvement of the GBM: 9.17 (range 7.20–11.91)\n"
    assert failing("notes.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "ci_high", "drift")]
    assert failing("notes.md", "- Typical error of the GBM: 22.25 (range 21.10–23.40)\n", HOUSE_CLAIMS) == []


def test_a_numbered_reviewer_point_is_no_r_squared() -> None:
    assert failing("notes.md", "R2.1: The shuffled-label control scores 13.1%, far above chance.\n") == \
        [(1, "control_at_chance", "value", "drift")]
    assert failing("notes.md", "The control's R2 is 13.1% of the MLP's.\n") == []


def test_a_bare_decimal_after_a_subject_and_a_level_verb_is_its_percentage() -> None:
    assert failing("notes.md", "> the MLP now sits at 97.6, lower than last week\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "> the MLP now sits at ninety-seven point six\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "> the wide MLP now sits at 98.3, the wide one gets 98.3\n") == []
    assert failing("notes.md", "> the MLP now sits at 12.5 steps per second\n") == []


#: A regression project with two comparisons of different sizes sharing one side (ridge).
DIABETES = claim_quantities({"claims": [
    _claim("ridge_rmse", "aggregate:ridge", 57.2, 57.0, 57.4, style="number", subjects=["ridge"],
           metric="rmse"),
    _claim("lasso_beats_ridge", "verify:lasso_vs_ridge", 1.3, 0.2, 2.5, style="number",
           subjects=["lasso", "ridge"], quantity="improvement", classification="effect", metric="rmse"),
    _claim("ridge_beats_control", "verify:ridge_vs_control", -16.4, -22.6, -10.2, style="number",
           subjects=["ridge", "control"], quantity="diff", classification="effect", metric="rmse"),
]})


def test_two_sides_around_a_verb_of_comparison_own_the_number_after_by() -> None:
    assert failing("notes.md", "The lasso improves on ridge by 13 RMSE units.\n", DIABETES) == \
        [(1, "lasso_beats_ridge", "value", "drift")]
    assert failing("notes.md", "The lasso improves on ridge by 1.3 RMSE units.\n", DIABETES) == []
    # a model with 64 units: a count, no metric's units
    assert failing("notes.md", "The lasso has 64 units and improves on ridge by 1.3.\n", DIABETES) == []


def test_the_two_variants_named_by_their_plural_are_the_pair_of_a_sameness_claim() -> None:
    found = all_kinds("notes.md", "Widening changed nothing: the two MLPs are equivalent.\n")
    assert [(f.claim_id, f.kind) for f in found] == [("width_is_noise", "unsupported_wording")]
    assert all_kinds("notes.md", "Whether the two MLPs are equivalent is open.\n") == []


def test_a_difference_in_a_metrics_units_and_a_direction_is_read_in_digits_and_words() -> None:
    text = "The shuffled control is fourteen RMSE units worse than ridge.\n"
    assert failing("notes.md", text, DIABETES) == [(1, "ridge_beats_control", "value", "drift")]
    assert failing("notes.md", text.replace("fourteen", "14"), DIABETES) == \
        [(1, "ridge_beats_control", "value", "drift")]
    assert failing("notes.md", text.replace("fourteen", "sixteen"), DIABETES) == []


def test_a_result_on_the_test_split_is_no_split_setting() -> None:
    text = "Today: ridge's error on the held-out split is 56.2; the lasso's is 55.9.\n"
    assert failing("notes.md", text, DIABETES) == [(1, "ridge_rmse", "value", "drift")]
    assert failing("notes.md", "The held-out split is 20% of the patients.\n", DIABETES) == []


def test_a_respectively_list_of_a_level_and_a_gain_over_it() -> None:
    text = "Panel 2: ridge's test RMSE and the lasso's improvement over it are 57.2 and 1.3, respectively.\n"
    assert failing("notes.md", text, DIABETES) == []
    swapped = text.replace("57.2 and 1.3", "1.3 and 57.2")
    assert failing("notes.md", swapped, DIABETES) == [(1, "lasso_beats_ridge", "value", "drift"),
                                                      (1, "ridge_rmse", "value", "drift")]


def test_arithmetic_in_a_code_span_is_code() -> None:
    assert failing("notes.md", "For example `31.42 − 22.25 = 9.71` is caught.\n", HOUSE_CLAIMS) == []


def test_a_seeds_needed_label_covers_its_list_after_a_semicolon() -> None:
    text = ("Seeds needed for the CNN vs MLP comparison: about 10 per group; "
            "for the width comparison about 62.\n")
    assert failing("notes.md", text) == [(1, "width_is_noise", "seeds_needed", "drift")]
    assert failing("notes.md", text.replace("62", "26")) == []


def test_the_base_models_value_under_its_variants_name_is_drift() -> None:
    assert failing("notes.md", "The wide MLP reaches 98.1% on test.\n") == \
        [(1, "mlp_test_accuracy", "value", "drift")]
    assert failing("notes.md", "The wide MLP reaches 98.3% on test.\n") == []
    # where the variant's level shows the same digits (a gap of 0.02 points), 98.1% may be its own
    tiny = claim_quantities({"claims": [
        {**c, "value": 0.0002} if c["id"] == "width_is_noise" else c for c in EXAMPLE["claims"]]})
    assert failing("notes.md", "The wide MLP reaches 98.1% on test.\n", tiny) == []
