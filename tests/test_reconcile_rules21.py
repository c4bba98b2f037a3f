"""Reconcile rules prompted by what the twenty-first held-out corpus missed or flagged as found (its
as-found score is in tests/test_reconcile_heldout.py's floors), each checked on an invented
document, with the near case that must not change.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project).
"""

from __future__ import annotations

from pathlib import Path

from test_reconcile_classes import CLAIMS, HOUSE_CLAIMS, all_kinds, failing

from evidence.deliver.reconcile import hand_typed_numbers


def _drifts(text: str, claims: object = None) -> list[tuple[str | None, str]]:
    """(claim, the number named in the why) of each drift of a one-line Markdown document."""
    return [(f.claim_id, f.why.split(": ", 1)[1].split(" in ", 1)[0])
            for f in all_kinds("docs/a.md", text, claims) if f.kind == "drift"]


def _kinds(name: str, text: str, claims: object = None) -> list[tuple[str, str | None, str]]:
    return [(f.kind, f.claim_id, f.quantity) for f in all_kinds(name, text, claims)]


# ----------------------------------------------------------------- a link that states several numbers

def test_a_link_may_state_an_interval_in_brackets() -> None:
    text = "The interval of CNN − MLP is [[−0.006, +1.1] points](#claim:cnn_beats_mlp), so zero is in it.\n"
    assert _kinds("docs/a.md", text) == [("match", "cnn_beats_mlp", "ci_low")]
    wrong = "The interval of CNN − MLP is [[−0.006, +1.9] points](#claim:cnn_beats_mlp), so zero is in it.\n"
    assert _drifts(wrong) == [("cnn_beats_mlp", "+1.9")]


def test_a_link_may_state_p_better_with_its_interval_and_a_confidence_level() -> None:
    claims = [c for c in CLAIMS if c.id != "cnn_beats_mlp"]
    [cnn] = [c for c in CLAIMS if c.id == "cnn_beats_mlp"]
    from dataclasses import replace

    cnn = replace(cnn, prob_low=0.47, prob_high=0.97)
    text = "P(CNN better) is [0.84 (Newcombe 95% CI 0.47 to 0.97)](#claim:cnn_beats_mlp).\n"
    assert _kinds("docs/a.md", text, [*claims, cnn]) == [("match", "cnn_beats_mlp", "prob_better")]
    wrong = "P(CNN better) is [0.84 (Newcombe 95% CI 0.57 to 0.97)](#claim:cnn_beats_mlp).\n"
    assert _drifts(wrong, [*claims, cnn]) == [("cnn_beats_mlp", "0.57")]


def test_a_link_may_state_the_seeds_needed_among_words() -> None:
    text = "Settling it takes [about 10 seeds per group](#claim:cnn_beats_mlp).\n"
    assert _kinds("docs/a.md", text) == [("match", "cnn_beats_mlp", "seeds_needed")]
    assert _drifts("Settling it takes [about 20 seeds per group](#claim:cnn_beats_mlp).\n") == \
        [("cnn_beats_mlp", "20")]
    # a link with no number at all still says so
    cited = all_kinds("docs/a.md", "See [the comparison](#claim:cnn_beats_mlp).\n")
    assert [(f.kind, f.why) for f in cited] == [("drift", "the link text states no number")]


# ----------------------------------------------------------------- table rows that name a quantity

def test_a_row_label_names_its_cells_quantity() -> None:
    head = "| Item | Claim | Paper says | claims.json |\n|---|---|---|---|\n"
    right = head + "| B4 | gbm_beats_ridge, P(better) | 0.96 | 0.96 |\n"
    claims = HOUSE_CLAIMS
    from dataclasses import replace

    claims = [replace(c, prob_better=0.96) if c.id == "gbm_beats_ridge" else c for c in claims]
    assert failing("docs/a.md", right, claims) == []
    wrong = head + "| B4 | gbm_beats_ridge, P(better) | 0.64 | 0.64 |\n"
    assert {(c, q) for _, c, q, _ in failing("docs/a.md", wrong, claims)} == \
        {("gbm_beats_ridge", "prob_better")}


def test_a_count_column_names_a_cells_only_number() -> None:
    head = "| Interval | Value | n | Method |\n|---|---|---|---|\n"
    row = "| claim `cnn_beats_mlp`: diff | +[0.6](#claim:cnn_beats_mlp) points | {} | Welch |\n"
    assert failing("build/checklist/checklist.md", head + row.format("3")) == \
        [(3, "cnn_beats_mlp", "n", "drift")]
    assert failing("build/checklist/checklist.md", head + row.format("3 + 3")) == \
        [(3, "cnn_beats_mlp", "n", "drift"), (3, "cnn_beats_mlp", "n", "drift")]
    # the two sides' unequal counts (the checklist writes them so): no one n to check
    assert failing("build/checklist/checklist.md", head + row.format("4 and 5 seeds")) == []


def test_a_row_that_flags_its_own_number_as_a_typo_states_nothing() -> None:
    head = "| Item | Claim | Paper says | claims.json | Status |\n|---|---|---|---|---|\n"
    flagged = head + "| B4 | gbm_beats_ridge | 1.97 | 9.17 | [!] transposed digits in the draft |\n"
    assert failing("docs/a.md", flagged, HOUSE_CLAIMS) == []
    ticked = head + "| B4 | gbm_beats_ridge | 1.97 | 9.17 | [x] |\n"
    assert failing("docs/a.md", ticked, HOUSE_CLAIMS) != []  # read (as the GBM's level, by its size)


# ----------------------------------------------------------------- numbers the text takes back

def test_more_refutations_after_a_number() -> None:
    for text in ("The CNN's 97.9% in the authors' changelog was a pre-release build and has gone.\n",
                 "The draft's 97.9% for the CNN is stale; replace it by the claim.\n"):
        assert failing("docs/a.md", text) == [], text
    assert failing("paper/a.tex", "The GBM's RMSE gain over ridge was given as \\num{19.17}, a decimal "
                                  "slip that this version corrects.\n", HOUSE_CLAIMS) == []
    # the same numbers, not taken back
    assert failing("docs/a.md", "The CNN's accuracy in the changelog is 97.9%.\n") == \
        [(1, "cnn_test_accuracy", "value", "drift")]


def test_a_hand_typed_number_named_as_validations_right_after_it_is_no_result() -> None:
    text = "The best configuration (128 hidden units) reaches \\SI{97.2}{\\percent} on validation.\n"
    assert hand_typed_numbers(Path("paper/a.tex"), text, CLAIMS) == []
    text = "The MLP reaches \\SI{98.1}{\\percent} on test.\n"
    typed = hand_typed_numbers(Path("paper/a.tex"), text, CLAIMS)
    assert [h.text for h in typed] == ["98.1%"]
    # a finding shows siunitx's percentage as written, not the macro's inside
    assert [f.stated for f in all_kinds("paper/a.tex", "The CNN reaches \\SI{97.2}{\\percent} test "
                                                       "accuracy.\n")] == ["97.2%"]


# ----------------------------------------------------------------- counts of seeds

def test_the_seeds_run_called_too_few_are_n_not_the_estimate() -> None:
    text = ("Settling CNN vs MLP would take about 10 seeds per group; with 5 per group the test has "
            "little power.\n")
    assert failing("docs/a.md", text) == []
    # without the words that call them too few, the same count after the estimate is read as it
    text = "Settling CNN vs MLP would take about 10 seeds per group, and 5 per group for the width.\n"
    assert failing("docs/a.md", text) == [(1, "width_is_noise", "seeds_needed", "drift")]


def test_n_equals_before_seeds_is_a_count_of_seeds() -> None:
    assert failing("docs/a.md", "Ridge regression's mean test RMSE is based on n = 4 seeds per variant.\n",
                   HOUSE_CLAIMS) == [(1, "ridge_rmse", "n", "drift")]
    assert failing("docs/a.md", "Ridge regression's test RMSE is measured on n = 400 houses.\n",
                   HOUSE_CLAIMS) == []


def test_a_tally_of_seeds_won_and_a_planned_rerun_are_no_counts() -> None:
    assert failing("docs/a.md", "The CNN is ahead on three seeds and tied on two; five seeds is few.\n") == []
    assert failing("docs/a.md", "1. Rerun CNN vs MLP with 12 seeds each.\n") == []
    assert failing("docs/a.md", "The CNN vs MLP comparison ran with 12 seeds each.\n") == \
        [(1, "cnn_beats_mlp", "n", "drift")]


# ----------------------------------------------------------------- settings and scales

def test_an_equivalence_margin_is_a_setting_and_asserts_no_sameness() -> None:
    text = "Declare an equivalence margin of 0.5 points for the width comparison before rerunning it.\n"
    assert failing("docs/a.md", text) == []
    assert [f.kind for f in all_kinds("docs/a.md", "The wide MLP is equivalent to the MLP.\n")] == \
        ["unsupported_wording"]


def test_an_axis_range_and_what_one_item_is_worth_are_no_results() -> None:
    assert failing("docs/a.md", "Right panel, on its own 0–30% axis: the shuffled-label control.\n") == []
    text = "CNN vs MLP test accuracy (360 test images, so one image is 0.28 points).\n"
    assert failing("docs/a.md", text) == []
    assert failing("docs/a.md", "The CNN leads the MLP by 0.28 points.\n") == \
        [(1, "cnn_beats_mlp", "value", "drift")]


# ----------------------------------------------------------------- wording

def test_a_variants_comparison_named_by_the_change_alone() -> None:
    for text in ("This confirms that width does not matter for this task.\n",
                 "Width does not matter for this task.\n",  # at the document's very start
                 "The two widths perform identically.\n",
                 "The wide MLP's gap to the MLP is just seed noise.\n"):
        assert [(f.kind, f.claim_id) for f in all_kinds("docs/a.md", text)] == \
            [("unsupported_wording", "width_is_noise")], text
    # hedged, or a comparison of models that are no variant of each other: nothing
    assert all_kinds("docs/a.md", "It is unclear whether width matters for this task.\n") == []
    assert all_kinds("docs/a.md", "The convnet does not matter here; the data do.\n") == []
    # the width of something else (docs/contracts.md says this of bootstrap intervals)
    assert all_kinds("docs/a.md", "Never a zero-width one: the IQM of identical runs is undefined.\n") == []
    assert all_kinds("docs/a.md", "The width of both intervals is identical.\n") == []
