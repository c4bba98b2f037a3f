"""Reconcile rules prompted by the ninth held-out corpus, each checked on an invented document.

The claims are :mod:`test_reconcile_classes`' (the bundled example's, and a house-price
regression project); every case states the rule's catch and the near sentence it must leave alone.
"""

from __future__ import annotations

from test_reconcile_classes import failing


def test_a_claim_id_as_a_row_header_names_that_claim() -> None:
    table = ("| Claim | last release | now |\n|---|--:|--:|\n"
             "| mlp_test_accuracy | 97.6% | [98.1%](#claim:mlp_test_accuracy) |\n"
             "| cnn_beats_mlp | +0.9 points | [+0.6 points](#claim:cnn_beats_mlp) |\n")
    assert failing("notes.md", table) == [(3, "mlp_test_accuracy", "value", "drift"),
                                          (4, "cnn_beats_mlp", "value", "drift")]
    # a longer identifier is another name, not the claim's
    assert failing("notes.md", table.replace("mlp_test_accuracy |", "mlp_test_accuracy_v0 |")) == \
        [(4, "cnn_beats_mlp", "value", "drift")]
