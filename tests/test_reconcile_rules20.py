"""Reconcile rules prompted by what the twentieth held-out corpus missed or flagged as found (its
as-found score is the final one of its stop), each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project).
"""

from __future__ import annotations

from pathlib import Path

from test_reconcile_classes import CLAIMS, HOUSE_CLAIMS, all_kinds, failing

from evidence.deliver.reconcile import hand_typed_numbers


def test_a_seed_count_said_of_every_model_is_every_results() -> None:
    assert failing("docs/b.md", "All results are evaluated over seven seeds of one fixed split.\n",
                   HOUSE_CLAIMS) == [(1, "ridge_rmse", "n", "drift")]
    # said of the two models compared: the comparison's count (the first, where nothing says which)
    assert failing("docs/b.md", "Both models were tested with three random seeds each.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "n", "drift")]
    assert failing("docs/b.md", "Both models were tested with five random seeds each.\n", HOUSE_CLAIMS) == []


def test_the_items_of_a_settings_list_and_one_seed_per_configuration_are_settings() -> None:
    text = ("The sweep trains the wide MLP at learning rates 0.003, 0.01, 0.03 and 0.1, one seed "
            "(seed 0) and 10 epochs per configuration.\n")
    assert failing("paper/a.md", text) == []


# ----------------------------------------------------------------- the rest of corpus 20's misses

def test_a_probability_after_only_or_a_siunitx_wrapper_is_p_better() -> None:
    assert failing("docs/a.md", "Over pairs of seeds, P(CNN better) is only 0.62.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]
    assert failing("paper/a.tex", "Over pairs of seeds, P(CNN better) is only \\num{0.62}.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]


def test_a_comparison_cited_where_the_sentence_compares_two_other_sides_is_misplaced() -> None:
    text = "The wide MLP adds [+0.6 points](#claim:cnn_beats_mlp) over the default one.\n"
    assert {c for _, c, _, _ in failing("docs/a.md", text)} == {"cnn_beats_mlp", "width_is_noise"}
    # listed, not compared: the comparison's other side is the pronoun
    assert failing("docs/a.md", "Both the MLP and the CNN beat it, by "
                                "[+86.9 points](#claim:mlp_beats_control).\n") == []


def test_a_comparison_cited_as_one_models_level_with_its_metric_after() -> None:
    text = "Ridge regression itself reaches {{ claim('gbm_beats_ridge') }} test RMSE.\n"
    assert {c for _, c, _, _ in failing("paper/a.md.j2", text, HOUSE_CLAIMS)} == {"gbm_beats_ridge",
                                                                                   "ridge_rmse"}


def test_an_interval_named_far_back_and_its_upper_end_follow_the_lower_ends_claim() -> None:
    text = ("The interval of the GBM's improvement over ridge regression runs from 7.20 to 14.50 "
            "RMSE units.\n")
    assert failing("docs/a.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "ci_high", "drift")]
    text = "The interval of the GBM's improvement runs from 7.20 to 14.50 RMSE units, so it is wide.\n"
    assert failing("docs/a.md", text, HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "ci_high", "drift")]


def test_the_sweeps_number_of_configurations_is_checked_and_a_planned_sweep_is_not() -> None:
    assert failing("docs/a.md", "We trained twelve configurations in the sweep.\n") == \
        [(1, "tuning_budget", "configurations", "drift")]
    assert failing("docs/a.md", "The sweep has 16 configurations.\n") == []
    assert failing("docs/a.md", "Next: try a sweep with 32 configurations on the spare node.\n") == []
    # the budget of the expected maximum is not the sweep's size
    assert failing("docs/a.md", "Trying four configurations of the sweep, the best to expect is "
                                "95.4%.\n") == []


def test_a_label_at_chance_is_the_controls_result_not_the_chance_level() -> None:
    assert failing("docs/a.md", "- Shuffled-label control at chance: 1.12% on the test split.\n") == \
        [(1, "control_at_chance", "value", "drift")]
    assert failing("docs/a.md", "Chance is 10% for ten classes.\n") == []


def test_a_plus_minus_after_a_bound_level_is_its_spread_in_points() -> None:
    assert failing("paper/a.md.j2", "The CNN's mean is {{ claim('cnn_test_accuracy') }} ± 1.6 (SD over "
                                    "seeds).\n") == [(1, "cnn_test_accuracy", "sd", "drift")]
    assert failing("paper/a.md.j2", "The CNN's mean is {{ claim('cnn_test_accuracy') }} ± 0.5 (SD over "
                                    "seeds).\n") == []


def test_a_count_said_of_each_comparison_is_the_comparisons_n() -> None:
    assert failing("docs/a.md", "Each comparison in this appendix pairs four seeds per group.\n") == \
        [(1, "cnn_beats_mlp", "n", "drift")]
    assert failing("docs/a.md", "Each comparison uses 5 seeds per group.\n") == []
    # an estimate of seeds needed is still one
    assert failing("docs/a.md", "Settling CNN vs MLP would take about 30 seeds per group.\n") == \
        [(1, "cnn_beats_mlp", "seeds_needed", "drift")]


def test_a_clearly_asserted_win_is_not_excused_by_a_per_pair_clause_after_it() -> None:
    found = all_kinds("docs/a.md", "The CNN clearly beats the MLP: over pairs of seeds, it wins the "
                                   "head-to-head.\n")
    assert [(f.claim_id, f.kind) for f in found] == [("cnn_beats_mlp", "unsupported_wording")]
    assert [f.kind for f in all_kinds("docs/a.md", "The CNN beats the MLP in 84% of seed pairs.\n")
            if f.kind == "unsupported_wording"] == []


def test_a_setting_named_across_a_line_break_and_a_result_named_by_its_claim_id() -> None:
    assert failing("paper/a.tex", "Ridge is trained by SGD with a learning\nrate of \\num{1.0}.\n",
                   HOUSE_CLAIMS) == []
    assert failing("docs/a.md", "From the report, gbm_beats_ridge = 12.3358 exactly.\n", HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "value", "drift")]


def test_a_relative_change_in_words_or_against_a_side_with_no_claim_of_its_own() -> None:
    # ridge's level comes from the GBM's and the difference: 22.25 + 9.17 = 31.42; 9.17 / 31.42 = 29%
    no_ridge = [c for c in HOUSE_CLAIMS if c.id != "ridge_rmse"]
    assert failing("docs/a.md", "Relative to ridge regression, the GBM's test RMSE is ~50% lower.\n",
                   no_ridge) == [(1, "gbm_beats_ridge", "relative_change", "drift")]
    assert failing("docs/a.md", "Relative to ridge regression, the GBM's test RMSE is 29% lower.\n",
                   no_ridge) == []
    assert failing("docs/a.md", "Against ridge regression, the GBM cuts the error by roughly a half.\n",
                   HOUSE_CLAIMS) == [(1, "gbm_beats_ridge", "relative_change", "drift")]
    assert failing("docs/a.md", "Against ridge regression, the GBM cuts the error by roughly a third.\n",
                   HOUSE_CLAIMS) == []


def test_a_number_the_text_takes_back_is_no_statement() -> None:
    text = ("Mei: ridge's 61.83 is with the leaky split (rows reshuffled per seed), so\n"
            "it is not a result.\n\n"
            "Jonas: ok so ridge regression is at 55.93 test RMSE now.\nMei: no, 55.93 is the GBM row.\n")
    assert [k for k in failing("docs/a.md", text, HOUSE_CLAIMS) if k[0] in (1, 4)] == []


def test_a_per_seed_value_in_a_paper_source_is_not_hand_typed() -> None:
    text = "The best single CNN seed (seed 1) reaches 99.17%, the worst (seed 0) 98.06%.\n"
    assert hand_typed_numbers(Path("paper/a.md.j2"), text, CLAIMS) == []
    assert [h.text for h in hand_typed_numbers(Path("paper/a.md.j2"), "The CNN reaches 98.67%.\n", CLAIMS)] \
        == ["98.67%"]
