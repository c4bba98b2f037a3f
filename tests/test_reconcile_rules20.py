"""Reconcile rules prompted by what the twentieth held-out corpus missed or flagged as found (its
as-found score is the final one of its stop), each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project).
"""

from __future__ import annotations

from test_reconcile_classes import HOUSE_CLAIMS, failing


def test_a_seed_count_said_of_every_model_is_every_results() -> None:
    assert failing("docs/b.md", "All results are evaluated over seven seeds of one fixed split.\n",
                   HOUSE_CLAIMS) == [(1, "ridge_rmse", "n", "drift")]
    assert failing("docs/b.md", "Both models were tested with three random seeds each.\n", HOUSE_CLAIMS) == \
        [(1, "ridge_rmse", "n", "drift")]
    assert failing("docs/b.md", "Both models were tested with five random seeds each.\n", HOUSE_CLAIMS) == []


def test_the_items_of_a_settings_list_and_one_seed_per_configuration_are_settings() -> None:
    text = ("The sweep trains the wide MLP at learning rates 0.003, 0.01, 0.03 and 0.1, one seed "
            "(seed 0) and 10 epochs per configuration.\n")
    assert failing("paper/a.md", text) == []
