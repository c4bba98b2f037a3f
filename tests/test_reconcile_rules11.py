"""Reconcile rules prompted by the eleventh held-out corpus, each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project); every case states the rule's catch and the near sentence it must leave alone.
"""

from __future__ import annotations

from test_reconcile_classes import HOUSE_CLAIMS, all_kinds, failing

from evidence.deliver.statements import mask_decoys, tokenize

PREAMBLE = "\\input{../build/deliver/claims.tex}\n"


def test_a_jinja_branch_that_never_renders_states_nothing() -> None:
    hidden = ("{% if false %}{# kept for the changelog #}\n* old build: CNN 97.9% test accuracy\n"
              "{% if true %}nested{% endif %} and the MLP 96.0%\n{% endif %}\n")
    assert failing("paper/readme.md.j2", hidden) == []
    # the same words outside the dead branch are read, as is a branch that may render
    shown = "{% if show_old %}\n* old build: CNN 97.9% test accuracy\n{% endif %}\n"
    assert failing("paper/readme.md.j2", shown) == [(2, "cnn_test_accuracy", "value", "drift")]


def test_two_numbers_joined_by_an_ellipsis_are_a_range() -> None:
    table = ("| comparison | improvement | 95% CI |\n|---|--:|---|\n"
             "| GBM vs ridge | 9.17 | 7.20 … 11.14 |\n")
    assert failing("notes.md", table, HOUSE_CLAIMS) == []
    assert failing("notes.md", table.replace("11.14", "11.90"), HOUSE_CLAIMS) == \
        [(3, "gbm_beats_ridge", "ci_high", "drift")]
    assert failing("notes.md", "GBM beats ridge by 9.17 (CI 7.20 … 11.90).\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "ci_high", "drift")]


def test_numbers_a_reviewed_paper_reports_are_not_ours() -> None:
    review = ("On the housing task they report a GBM test RMSE of 19.80 over 3 seeds, a ridge "
              "RMSE of 27.00 and a gap of 7.20.\nTheir main claim is that GBM beats ridge by 7.20.\n"
              "A ridge model with 3 seeds is what most papers use; ours uses 5.\n")
    assert failing("review.md", review, HOUSE_CLAIMS) == []
    # the sentence turning to our own runs is read again
    ours = "They report a GBM RMSE of 19.80, and we measure 23.90 for our GBM.\n"
    assert failing("review.md", ours, HOUSE_CLAIMS) == [(1, "gbm_rmse", "value", "drift")]
    assert failing("review.md", "Our ridge model has 3 seeds, as most papers do.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "n", "drift")]


def test_the_interval_right_after_a_value_no_claim_takes_is_that_values() -> None:
    # the wide MLP has no level claim: its level and the interval in parentheses after it are its own
    wide = "The wide MLP's test accuracy is 98.3% (97.9–98.7%), and the plain MLP trails it.\n"
    assert [f for f in failing("notes.md", wide) if f[2] != "wording"] == []
    # the MLP's own value with a wrong interval is still the MLP's drift
    plain = "The MLP's test accuracy is 98.1% (97.9–98.7%), and the wide MLP leads it.\n"
    assert [f for f in failing("notes.md", plain) if f[2] != "wording"] == \
        [(1, "mlp_test_accuracy", "ci_high", "drift"), (1, "mlp_test_accuracy", "ci_low", "drift")]


def test_a_number_named_a_median_is_no_claims_mean() -> None:
    medians = ("Median GBM seed: 23.90.\nThe ridge median is 31.00; the GBM median is lower by 7.10.\n"
               "GBM seed 2 sits at 24.05 (median, not the mean).\n")
    assert failing("notes.md", medians, HOUSE_CLAIMS) == []
    # the mean beside a median is the claim's
    assert failing("notes.md", "The GBM mean is 23.90, well above its median.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_rmse", "value", "drift")]
    # the statistic named last before the number decides
    assert failing("notes.md", "R1 asked for the median: the GBM's mean RMSE is 24.10.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_rmse", "value", "drift")]


def test_a_signed_cell_under_a_versus_column_is_the_rows_level_minus_the_reference() -> None:
    # RMSE is lower-is-better: GBM's improvement over ridge is +9.17, so GBM minus ridge is -9.17
    table = ("| model | RMSE | vs. ridge |\n|---|--:|--:|\n| ridge | 31.42 | — |\n"
             "| GBM | 22.25 | −9.17 |\n")
    assert failing("notes.md", table, HOUSE_CLAIMS) == []
    assert failing("notes.md", table.replace("−9.17", "+9.17"), HOUSE_CLAIMS) == \
        [(4, "gbm_beats_ridge", "value", "drift")]


def test_a_cell_whose_row_and_column_name_both_sides_is_that_comparison_whatever_its_size() -> None:
    # the CNN row's "vs. control" cell holding the MLP row's number is the CNN's drift
    table = ("| model | accuracy | vs. control |\n|---|--:|--:|\n"
             "| MLP | [98.1%](#claim:mlp_test_accuracy) | +86.9 |\n"
             "| CNN | [98.7%](#claim:cnn_test_accuracy) | +0.6 |\n")
    assert failing("notes.md", table) == [(4, "cnn_beats_control", "value", "drift")]
    assert failing("notes.md", table.replace("+0.6", "+87.5")) == []


def test_digits_joined_by_a_slash_and_a_hyphen_are_a_reference_number() -> None:
    def read(text: str) -> list[float]:
        return [tok.value for tok in tokenize(mask_decoys(text)) if not tok.decoy and tok.statement]

    assert read("Final report of grant DFG-SE 4417/2-1, file 18-2/3.") == []
    # an interval written with a hyphen is still read
    assert read("The gap is 0.6 (95% CI 0.1-1.1).") == [0.6, 0.1, 1.1]


def test_a_t_quantile_and_the_number_after_its_vs_are_no_result() -> None:
    quantile = ("GBM beats ridge by 9.17 RMSE; with fewer seeds the interval widens "
                "(t quantile 4.30 vs 7.70).\n")
    assert failing("notes.md", quantile, HOUSE_CLAIMS) == []
    # the gap itself after a "vs" of RMSE levels is still read
    assert failing("notes.md", "GBM beats ridge by 7.70 RMSE (31.42 vs 22.25).\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]


def test_two_subjects_and_two_numbers_joined_by_and_pair_in_order() -> None:
    # "A and B land at x and y" reads as if "respectively" followed
    assert failing("notes.md", "Ridge and GBM land at 31.42 and 22.25, so ridge is 9.17 worse.\n",
                   HOUSE_CLAIMS) == []
    assert failing("notes.md", "The CNN and the wide MLP score 98.7% and 98.3%.\n") == []
    # the pair swapped is the drift of both
    assert failing("notes.md", "Ridge and GBM land at 22.25 and 31.42.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_rmse", "value", "drift"), (1, "ridge_rmse", "value", "drift")]


def test_the_operands_of_a_subtraction_are_no_comparisons_value() -> None:
    # "A minus B" of two levels: neither operand is the gap the sentence speaks of
    worked = "So the GBM's edge over ridge is 22.25 minus 31.42.\n"
    assert [(f.claim_id, f.stated) for f in all_kinds("notes.md", worked, HOUSE_CLAIMS)
            if f.claim_id == "gbm_beats_ridge"] == []
    # the gap stated alone is still the comparison's (drift), and two comparisons' values subtracted
    # keep the one that states its claim
    assert failing("notes.md", "So the GBM's edge over ridge is 22.25.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "The MLP's margin over the control minus the CNN's, 86.9 − 87.5, "
                   "is −0.6 points.\n") == []


def test_a_seed_count_planned_is_no_count_of_the_claims_runs() -> None:
    planned = ("- [ ] Re-run with 12 seeds per model before the GBM vs ridge claim goes in the paper.\n"
               "We plan to train ridge on 20 seeds next month.\n")
    assert failing("notes.md", planned, HOUSE_CLAIMS) == []
    assert failing("notes.md", "Ridge was run with 12 seeds.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "n", "drift")]


def test_a_win_taken_back_in_the_same_sentence_is_no_assertion() -> None:
    # cnn_beats_mlp is not supported (its interval includes zero)
    taken_back = ("The CNN outperforms the MLP by [+0.6 points](#claim:cnn_beats_mlp); this is not yet "
                  "conclusive.\nThe CNN beats the MLP, though the gap is still not significant.\n")
    assert failing("notes.md", taken_back) == []
    # a later clause about something else takes nothing back
    other = "The CNN outperforms the MLP; the write-up is not yet final.\n"
    assert {f[1:] for f in failing("notes.md", other)} == \
        {("cnn_beats_mlp", "wording", "unsupported_wording")}


def test_wording_about_another_works_models_is_theirs() -> None:
    review = "In the submission, their CNN is clearly better than their MLP, unlike ours.\n"
    assert failing("review.md", review) == []
    assert {f[1:] for f in failing("review.md", "Our CNN is clearly better than our MLP.\n")} == \
        {("cnn_beats_mlp", "wording", "unsupported_wording")}


def test_a_possessors_metric_and_its_number_are_the_possessors_whoever_came_before() -> None:
    # the wide MLP has no level claim: "our wide MLP's test accuracy is 98.3%" is its own level
    wide = ("Their MLP trails their wide MLP, as in our runs: our wide MLP's test accuracy is 98.3%, "
            "above the MLP.\n")
    assert failing("notes.md", wide) == []
    # the MLP's own metric with a wrong number is the MLP's drift
    plain = ("The MLP trails the wide MLP, as in our runs: our MLP's test accuracy is 98.3%, "
             "below the wide MLP.\n")
    assert failing("notes.md", plain) == [(1, "mlp_test_accuracy", "value", "drift")]


def test_the_ends_of_a_range_beside_a_spread_are_the_claims_interval() -> None:
    # the mean ± one SD passed off as the 95% interval: its two ends are checked as the interval's
    lecture = "Over seeds the GBM's SD is 0.40, so its 95% interval is the mean ± one SD, 21.85–22.65.\n"
    assert failing("notes.md", lecture, HOUSE_CLAIMS) == \
        [(1, "gbm_rmse", "ci_high", "drift"), (1, "gbm_rmse", "ci_low", "drift")]
    # a list after a colon that names its own metric is not the label's (the SD's)
    readme = "The ridge SD across seeds is 0.90, so for the README: ridge, RMSE 31.42 (95% CI 30.52–32.32).\n"
    assert failing("notes.md", readme, HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "ci_high", "drift"), (1, "ridge_rmse", "ci_low", "drift")]
    # the spread itself is still no result
    assert failing("notes.md", "The ridge SD across seeds: 0.90 for the README.\n", HOUSE_CLAIMS) == []


def test_a_latex_commands_optional_argument_is_no_citation() -> None:
    assert failing("paper/exam.tex", PREAMBLE + "\\question[5] Ridge reaches 30.10 on the test split.\n",
                   HOUSE_CLAIMS) == [(2, "ridge_rmse", "value", "drift")]
    # a numeric citation after the number still marks it as another work's
    assert failing("paper/exam.tex", PREAMBLE + "Ridge reaches 30.10 [5].\n", HOUSE_CLAIMS) == []


def test_two_sides_joined_by_a_minus_pair_with_two_numbers_after_them() -> None:
    # "the GBM − ridge gap from the two means x and y": GBM's level, then ridge's
    assert failing("notes.md", "Compute the GBM − ridge gap from the two means 22.25 and 31.42.\n",
                   HOUSE_CLAIMS) == []
    assert failing("notes.md", "Compute the GBM − ridge gap from the two means 31.42 and 22.25.\n",
                   HOUSE_CLAIMS) == [(1, "gbm_rmse", "value", "drift"), (1, "ridge_rmse", "value", "drift")]


def test_a_difference_spelled_with_minus_and_equals_is_no_setting() -> None:
    # "ridge minus GBM = 8.10" states the improvement (9.17), unlike "lr = 8.10"
    assert failing("notes.md", "Also accepted: ridge minus GBM = 8.10.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", "Also accepted: ridge minus GBM = 9.17.\n", HOUSE_CLAIMS) == []
    assert failing("notes.md", "Also accepted for ridge: lr = 8.10.\n", HOUSE_CLAIMS) == []


def test_statistically_tied_asserts_sameness_and_the_next_clauses_hedge_is_not_its() -> None:
    # the CNN beats the control (an effect): "statistically tied" contradicts it; "wouldn't" hedges
    # only its own clause
    tied = "Honestly, the CNN and the control are statistically tied; I wouldn't oversell it.\n"
    assert {f[1:] for f in failing("panel.md", tied)} == \
        {("cnn_beats_control", "wording", "unsupported_wording")}
    # a hedge in the tie's own clause still hedges it
    assert failing("panel.md", "The CNN and the control are not statistically tied.\n") == []


def test_a_ci_helper_under_another_level_is_drift_of_its_claim() -> None:
    wrong = 'The GBM leads ridge; its 90% interval is {{ ci("gbm_beats_ridge") }}.\n'
    assert failing("paper/readme.md.j2", wrong, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "ci_level", "drift")]
    right = 'The GBM leads ridge; its 95% interval is {{ ci("gbm_beats_ridge") }}.\n'
    assert failing("paper/readme.md.j2", right, HOUSE_CLAIMS) == []


def test_an_interval_macro_redefined_by_hand_is_checked_end_by_end() -> None:
    stale = PREAMBLE + "\\renewcommand{\\evGbmRmseInterval}{[21.10, 23.90]}\nGBM: \\evGbmRmseInterval{}.\n"
    assert failing("paper/results.tex", stale, HOUSE_CLAIMS) == [(2, "gbm_rmse", "ci_high", "drift")]
    pinned = PREAMBLE + "\\renewcommand{\\evGbmRmseInterval}{[21.10, 23.40]}\n"
    assert failing("paper/results.tex", pinned, HOUSE_CLAIMS) == []


def test_n_of_m_configurations_is_a_budget_of_n_and_at_budget_n_names_it() -> None:
    tried = ("We tried 4 of 16 candidate configurations. The expected best validation accuracy at "
             "that budget is {}.\n")
    assert failing("faq.md", tried.format("95.0%")) == [(1, "tuning_budget", "value", "drift")]
    assert failing("faq.md", tried.format("[95.4%](#claim:tuning_budget)")) == []
    policy = "A tuning number must name its budget; ours reads {} at budget {}.\n"
    assert failing("faq.md", policy.format("96.5%", "four")) == [(1, "tuning_budget", "value", "drift")]
    assert failing("faq.md", policy.format("97.0%", "sixteen")) == []


def test_a_references_number_follows_its_word_never_across_a_table_cell() -> None:
    row = ("\\begin{tabular}{llr}\nModel & Indicator & RMSE \\\\\n"
           "GBM & test RMSE, mean of 5 seeds & 23.90 \\\\\n\\end{tabular}\n")
    assert failing("paper/report.tex", PREAMBLE + row, HOUSE_CLAIMS) == [(4, "gbm_rmse", "value", "drift")]
    # "seeds 3 and 4" in prose is still a reference to seeds, no result
    assert failing("paper/report.tex", PREAMBLE + "For the GBM, see seeds 3 and 4.\n", HOUSE_CLAIMS) == []


def test_a_row_headed_one_model_over_another_holds_their_difference() -> None:
    table = "| quantity | value |\n|---|--:|\n| GBM over ridge | {} |\n| mean over 5 seeds, GBM | 22.25 |\n"
    assert failing("notes.md", table.format("0.92"), HOUSE_CLAIMS) == \
        [(3, "gbm_beats_ridge", "value", "drift")]
    assert failing("notes.md", table.format("9.17"), HOUSE_CLAIMS) == []
