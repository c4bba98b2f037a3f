"""Reconcile rules prompted by the thirteenth held-out corpus, each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project); every case states the rule's catch and the near sentence it must leave alone.
"""

from __future__ import annotations

from test_reconcile_classes import HOUSE_CLAIMS, all_kinds, failing


def _wording(name: str, text: str) -> list[tuple[int, str, str]]:
    return sorted((f.line, f.claim_id, f.stated) for f in all_kinds(name, text)
                  if f.kind == "unsupported_wording")


def test_an_international_phone_number_is_no_result() -> None:
    text = "The CNN beats the shuffled-label control. **Contact:** Jo Park, +49 30 901 820.\n"
    assert failing("notes/press.md", text) == []
    # a signed difference with its interval is still read
    assert failing("notes/press.md", "The CNN beats the shuffled-label control by +80.5 points.\n") == \
        [(1, "cnn_beats_control", "value", "drift")]


def test_a_number_the_text_refutes_as_a_slip_is_no_statement() -> None:
    text = "The ridge RMSE is 31.42; the 35.10 in last week's draft was a typo.\n"
    assert failing("notes/fix.md", text, HOUSE_CLAIMS) == []
    assert failing("notes/fix.md", "The ridge RMSE is 31.42; Kim's 35.10 came from an old checkout.\n",
                   HOUSE_CLAIMS) == []
    # the same number stated as the ridge's, with no refutation, is drift
    assert failing("notes/fix.md", "The ridge RMSE is 35.10 in last week's draft.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "value", "drift")]


def test_a_whole_percentage_in_words_is_read() -> None:
    text = "In the end the CNN gets roughly ninety-four percent of the test digits right.\n"
    assert failing("notes/chat.md", text) == [(1, "cnn_test_accuracy", "value", "drift")]
    assert failing("notes/chat.md", "The shuffled-label control hovers at about thirty percent.\n") == \
        [(1, "control_at_chance", "value", "drift")]
    # a share of the data in words is a setting, and a right level in words passes
    assert failing("notes/chat.md", "The CNN is trained on eighty percent of the images.\n") == []
    assert failing("notes/chat.md", "The CNN gets ninety-nine percent of the test digits right.\n") == []


def test_a_subject_after_a_clause_break_is_no_side_of_the_wording_before_it() -> None:
    text = ("Going from 64 to 128 hidden units makes no difference to test accuracy "
            "(\\evWidthIsNoise{}), so depth is what the CNN adds.\n")
    assert _wording("paper/w.tex", text) == [(1, "width_is_noise", "makes no difference")]
    # within one clause, the two sides named around the word are still its pair
    assert _wording("notes/w.md", "The MLP makes no difference against the CNN.\n") == \
        [(1, "cnn_beats_mlp", "makes no difference")]


def test_not_significantly_set_off_by_commas_denies_an_effect() -> None:
    text = "The GBM is only slightly, not significantly, better than ridge.\n"
    assert [(f.claim_id, f.kind) for f in all_kinds("notes/w.md", text, HOUSE_CLAIMS)
            if f.kind == "unsupported_wording"] == [("gbm_beats_ridge", "unsupported_wording")]
    # "significantly" without the denial is what the verdict effect supports
    assert [f for f in all_kinds("notes/w.md", "The GBM is significantly better than ridge.\n", HOUSE_CLAIMS)
            if f.kind == "unsupported_wording"] == []


def test_a_seed_count_said_of_no_model_is_every_results() -> None:
    text = "For the study we trained every model with three random seeds.\n"
    assert failing("notes/methods.md", text) == [(1, "cnn_test_accuracy", "n", "drift")]
    # the sentence before names the model it is about
    before = "The MLP reaches 98.1% test accuracy. " + text
    assert failing("notes/methods.md", before) == [(1, "mlp_test_accuracy", "n", "drift")]
    # the count every claim was run with, and a count nobody says was run, are left alone
    assert failing("notes/methods.md", text.replace("three", "five")) == []
    assert failing("notes/methods.md", "The first draft had only 3 seeds.\n") == []


def test_a_chance_with_that_left_out_states_p_better_of_its_winner() -> None:
    text = "There's a 30% chance the MLP is actually better than the CNN.\n"
    assert failing("notes/chat.md", text) == [(1, "cnn_beats_mlp", "prob_better", "drift")]
    # 16% is 1 - P(CNN better) = 1 - 0.84: the complement, right
    assert failing("notes/chat.md", text.replace("30%", "16%")) == []
    # a chance level is no probability
    assert failing("notes/chat.md", "The shuffled-label control sits near the 10% chance level.\n") == []


def test_a_share_misclassified_is_an_error_rate() -> None:
    text = "On the test set the CNN misclassifies 2.3% of the digits.\n"
    assert failing("notes/chat.md", text) == [(1, "cnn_test_accuracy", "error_rate", "drift")]
    assert failing("notes/chat.md", text.replace("2.3%", "1.3%")) == []  # 100% - 98.7%
    # a share of one class misclassified is the error on a part of the data
    assert failing("notes/chat.md", "The CNN misclassifies 2.3% of the sevens.\n") == []


def test_a_percentage_lower_than_the_other_side_is_a_relative_change() -> None:
    # the GBM's 9.17 improvement is 29.2% of ridge's 31.42
    text = "In short, the GBM's test RMSE is 12% lower than ridge's.\n"
    assert failing("notes/wiki.md", text, HOUSE_CLAIMS) == \
        [(1, "gbm_beats_ridge", "relative_change", "drift")]
    assert failing("notes/wiki.md", text.replace("12%", "29.2%"), HOUSE_CLAIMS) == []
    # a percentage beside an accuracy is points, no relative change
    assert failing("notes/wiki.md", "The CNN's accuracy is 0.6% higher than the MLP's.\n") == []
