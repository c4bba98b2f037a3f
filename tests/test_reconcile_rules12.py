"""Reconcile rules prompted by the twelfth held-out corpus, each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project); every case states the rule's catch and the near sentence it must leave alone.
"""

from __future__ import annotations

from pathlib import Path

from test_reconcile_classes import CLAIMS, HOUSE_CLAIMS, all_kinds, failing

from evidence.deliver.reconcile import hand_typed_numbers


def _typed(name: str, text: str) -> list[str]:
    return [h.text for h in hand_typed_numbers(Path(name), text, CLAIMS)]


def test_another_works_result_in_a_template_is_not_hand_typed() -> None:
    cited = ("Our CNN is no record; Okafor et al. (2011) report 1.25% test error on a larger "
             "digit set.\n")
    assert _typed("paper/related.md.j2", cited) == []
    assert failing("paper/related.md.j2", cited) == []
    # the same number said of our own model is a result typed by hand
    assert _typed("paper/related.md.j2", "Our CNN is no record; it makes 1.25% test error.\n") == ["1.25%"]


def test_what_guessing_would_score_is_the_chance_level() -> None:
    text = "The shuffled-label control lands near the 10% a random guesser would score.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", "The shuffled-label control lands near 10%, far from chance.\n") == \
        [(1, "control_at_chance", "value", "drift")]


def test_a_value_for_all_configurations_after_a_templated_budget_is_another_budgets() -> None:
    text = ("Trying {{ k }} configurations gives an expected best validation accuracy of "
            "{{ claim('tuning_budget') }}; using all 16 gives 96.8%.\n")
    assert failing("paper/tuning.md.j2", text) == []
    assert _typed("paper/tuning.md.j2", text) == []
    # without the other budget, the number is the claim's (and typed by hand)
    near = "Trying {{ k }} configurations gives an expected best validation accuracy of 96.8%.\n"
    assert failing("paper/tuning.md.j2", near) == [(1, "tuning_budget", "value", "drift")]
    assert _typed("paper/tuning.md.j2", near) == ["96.8%"]
    # a value for another budget short of the whole sweep is still a result typed by hand
    other = ("Trying {{ k }} configurations gives an expected best validation accuracy of "
             "{{ claim('tuning_budget') }}; with 8 configurations it would be 96.8%.\n")
    assert _typed("paper/tuning.md.j2", other) == ["96.8%"]


def test_a_count_of_seed_pairs_won_states_p_better() -> None:
    text = "No difference is shown, though the CNN comes out ahead in 17 of the 25 seed pairings.\n"
    assert failing("notes.md", text) == [(1, "cnn_beats_mlp", "prob_better", "drift")]
    assert failing("notes.md", text.replace("17 of", "21 of")) == []  # 21/25 is P(better) 0.84
    # a count of something else out of 25 is no P(better)
    assert failing("notes.md", "No difference is shown; the CNN won 17 of the 25 test batches.\n") == []


def test_minus_in_words_is_a_sign_and_not_a_subtraction() -> None:
    text = "Widening the MLP moves test accuracy by +0.2 points, interval minus 0.1 to plus 0.5 points.\n"
    assert failing("notes.md", text) == []
    assert failing("notes.md", text.replace("minus 0.1", "minus 0.3")) == \
        [(1, "width_is_noise", "ci_low", "drift")]
    # between two numbers, "minus" subtracts: the CNN's lead is 98.7% minus 98.1%
    assert failing("notes.md", "The CNN's lead over the MLP, 98.7% minus 98.1%, is +0.6 points.\n") == []


def test_the_same_model_after_shuffling_the_labels_is_the_control() -> None:
    text = "Permute the labels and the same MLP is 86.9 points worse.\n"
    assert failing("notes.md", text) == []
    # without the shuffling, the MLP itself is said to be worse: drift of the comparison's direction
    assert (1, "mlp_beats_control", "value", "drift") in \
        failing("notes.md", "Retrain it, and the same MLP is 86.9 points worse.\n")


def test_seeds_needed_after_approx_and_in_an_elided_list() -> None:
    # "\approx" in LaTeX names an estimate as "about" does
    assert failing("paper/s.tex", "Width: \\evWidthIsNoise{}, seeds needed $\\approx 40$.\n") == \
        [(1, "width_is_noise", "seeds_needed", "drift")]
    assert failing("paper/s.tex", "Width: \\evWidthIsNoise{}, seeds needed $\\approx 26$.\n") == []
    # a list that elides "seeds per group" after its first estimate: each is its own clause's comparison
    listed = ("At this power, the CNN against the MLP needs about 10 seeds per group, and the width "
              "comparison about \\num{40}.\n")
    assert failing("paper/s.tex", listed) == [(1, "width_is_noise", "seeds_needed", "drift")]
    assert failing("paper/s.tex", listed.replace("40", "26")) == []
    assert failing("paper/s.tex", listed.replace("about 10", "about 14").replace("40", "26")) == \
        [(1, "cnn_beats_mlp", "seeds_needed", "drift")]


def test_p_better_read_out_as_and_a_seeds_needed_estimate_for_a_named_comparison() -> None:
    assert failing("notes.md", "P(CNN beats MLP) was quoted as 0.91 in the meeting.\n") == \
        [(1, "cnn_beats_mlp", "prob_better", "drift")]
    assert failing("notes.md", "P(CNN beats MLP) was quoted as 0.84 in the meeting.\n") == []
    # "width" after "the seeds-needed estimate for" names the comparison, no width setting
    assert failing("notes.md", "The seeds-needed estimate for width is 48.\n") == \
        [(1, "width_is_noise", "seeds_needed", "drift")]
    assert failing("notes.md", "The seeds-needed estimate for width is 26.\n") == []
    assert failing("notes.md", "The hidden width is 48.\n") == []


def test_a_sign_before_a_siunitx_number_is_its_sign() -> None:
    # "$+\num{8.69}$" for +86.9 points is the difference with its decimal point slipped
    assert failing("paper/s.tex", "The MLP over its control: $+\\num{8.69}$ points.\n") == \
        [(1, "mlp_beats_control", "value", "drift")]
    assert failing("paper/s.tex", "The MLP over its control: $+\\num{86.9}$ points.\n") == []
    # a negative sign flips the direction
    assert failing("paper/s.tex", "Widening the MLP: $-\\num{0.2}$ points.\n") == \
        [(1, "width_is_noise", "value", "drift")]


def test_a_citation_where_its_words_state_another_comparison_or_a_change() -> None:
    # a comparison cited after words naming exactly another comparison's two sides
    text = "Against the shuffled-label control, the CNN gains {{ claim('mlp_beats_control') }} on test.\n"
    assert (1, "mlp_beats_control", "value", "drift") in [
        (f.line, f.claim_id, f.quantity, f.kind) for f in all_kinds("paper/r.md.j2", text) if f.failing]
    assert [f for f in all_kinds("paper/r.md.j2", text.replace("mlp_beats", "cnn_beats")) if f.failing] == []
    # two subjects listed, not compared, leave the citation alone
    listed = "The MLP and the CNN both clear the control, the MLP by {{ claim('mlp_beats_control') }}.\n"
    assert [f for f in all_kinds("paper/r.md.j2", listed) if f.failing] == []
    # a level cited as the size of a change is misplaced; cited as a level it is not
    level = "Widening its hidden layer moves the MLP's test accuracy by \\evMlpTestAccuracy{}.\n"
    assert [(f.claim_id, f.kind) for f in all_kinds("paper/r.tex", level) if f.failing] == \
        [("mlp_test_accuracy", "drift")]
    assert [f for f in all_kinds("paper/r.tex", "The MLP's test accuracy is \\evMlpTestAccuracy{}.\n")
            if f.failing] == []


def test_a_plus_minus_far_beyond_every_spread_is_a_wrong_half_width() -> None:
    # ridge's interval is [29.80, 33.04]: a half-width of 1.62
    assert failing("notes.md", "Our ridge test RMSE is 31.42 ± 4.9.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "ci_half", "drift")]
    assert failing("notes.md", "Our ridge test RMSE is 31.42 ± 1.62.\n", HOUSE_CLAIMS) == []
    # within reach of the seeds' SD or the standard error: left alone, as before
    assert failing("notes.md", "Our ridge test RMSE is 31.42 ± 1.3.\n", HOUSE_CLAIMS) == []


def test_no_difference_shown_is_no_sameness_but_equivalent_after_it_is() -> None:
    hedged = "The interval spans zero, so no difference was found between the CNN and the MLP.\n"
    assert failing("notes.md", hedged) == []
    both = ("The interval spans zero: no difference was found, and the CNN and the MLP are\n"
            "equivalent on this split.\n")
    assert failing("notes.md", both) == [(2, "cnn_beats_mlp", "wording", "unsupported_wording")]
    assert failing("notes.md", "There is no difference between the CNN and the MLP.\n") == \
        [(1, "cnn_beats_mlp", "wording", "unsupported_wording")]


def test_one_in_n_right_is_a_share() -> None:
    assert failing("notes.md", "The shuffled-label control gets about one test image in four right.\n") == \
        [(1, "control_at_chance", "value", "drift")]
    assert failing("notes.md", "The shuffled-label control gets about one test image in nine right.\n") == []
    # "one in five" without saying right or correct is no share of a result
    assert failing("notes.md", "The shuffled-label control was rerun once in five sweeps.\n") == []


def test_a_plus_minus_after_a_cited_value_is_that_claims() -> None:
    text = "Our CNN scores [98.7%](#claim:cnn_test_accuracy) ± 2.5 points on the test digits.\n"
    assert (1, "cnn_test_accuracy", "ci_half", "drift") in failing("notes.md", text)
    assert failing("notes.md", text.replace("2.5", "0.6")) == []
