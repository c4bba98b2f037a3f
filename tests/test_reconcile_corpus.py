"""Planted drifts are all caught with the right claim, value and line; ordinary numbers are not.

The claims mirror the bundled example's (two accuracies with keywords, a difference and a
control without them). The planted cases are the ones a user hit: a wrong number blamed on the
wrong claim, a number equal to another claim, swapped numbers, a fraction for a percentage,
extra decimals, an explicitly cited number, a caption, a LaTeX source.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.core.project import Project
from evidence.deliver.assemble import caption_documents
from evidence.deliver.reconcile import ClaimQuantity, NumberFormat, scan_text

PCT = NumberFormat.from_spec(".1%")
CNN = ClaimQuantity("cnn_test_accuracy", 0.98562, PCT, ("CNN", "test accuracy"))
MLP = ClaimQuantity("mlp_test_accuracy", 0.98104, PCT, ("MLP", "test accuracy"))
DIFF = ClaimQuantity("cnn_beats_mlp", 0.00458, PCT, ())
CONTROL = ClaimQuantity("control_at_chance", 0.0952, PCT, ("control", "test"))
CLAIMS = [CNN, MLP, DIFF, CONTROL]

#: (document name, text, [(line, claim, expected)]) - every case must be caught exactly so.
PLANTED = [
    ("README.md", "The CNN reaches a mean test accuracy of 98.7%.\n",
     [(1, "cnn_test_accuracy", "98.6%")]),
    ("README.md", "Intro.\n\nThe CNN reaches a mean test accuracy of 98.1%.\n",  # the MLP's value
     [(3, "cnn_test_accuracy", "98.6%")]),
    ("README.md", "On test accuracy, the CNN reaches 98.1% and the MLP 98.6%.\n",  # swapped
     [(1, "cnn_test_accuracy", "98.6%"), (1, "mlp_test_accuracy", "98.1%")]),
    ("notes/a.md", "The CNN's test accuracy is 0.978.\n", [(1, "cnn_test_accuracy", "98.6%")]),
    ("notes/b.md", "The CNN's test accuracy is 98.51%.\n", [(1, "cnn_test_accuracy", "98.6%")]),
    ("notes/c.md", "The CNN's test accuracy is 98.6049%.\n", [(1, "cnn_test_accuracy", "98.6%")]),
    ("README.md", "(That [98.7%](#claim:cnn_test_accuracy) is checked by the build.)\n",
     [(1, "cnn_test_accuracy", "98.6%")]),
    ("README.md", "It leads by [0.9%](#claim:cnn_beats_mlp).\n", [(1, "cnn_beats_mlp", "0.5%")]),
    ("README.md", "It leads by [0.47 percent](#claim:cnn_beats_mlp).\n", [(1, "cnn_beats_mlp", "0.5%")]),
    ("README.md", "See [98.6%](#claim:cnn_accuracy).\n", [(1, "cnn_accuracy", "(no such claim)")]),
    ("README.md", "The shuffled-label control scores 19.5% on the test split.\n",
     [(1, "control_at_chance", "9.5%")]),
    ("paper/paper.tex", "\\section{Results}\nThe CNN reaches a test accuracy of 98.7\\% here.\n",
     [(2, "cnn_test_accuracy", "98.6%")]),
]

#: Correct statements, written every way the claims allow: all are matches, none a drift.
CORRECT = [
    "The CNN reaches a mean test accuracy of 98.6%.",
    "The CNN's test accuracy is 0.986.",
    "The CNN's test accuracy is 98.56%.",
    "The CNN's test accuracy is 99%.",
    "(That [98.6%](#claim:cnn_test_accuracy) is checked.)",
    "(That [0.9856](#claim:cnn_test_accuracy) is checked.)",
    "(That [98.6 percent](#claim:cnn_test_accuracy) is checked.)",
    "It leads by [0.5%](#claim:cnn_beats_mlp).",
]

#: Ordinary numbers in sentences that name a claim: none may be flagged.
DECOYS = [
    "The 95% CI of the CNN's test accuracy is [98.3%, 98.9%].",
    "The CNN's test accuracy is reported at a 95% confidence level.",
    "The CNN's test accuracy is measured on a 20% held-out test split.",
    "The CNN uses a dropout of 10% and reaches its test accuracy after 30 epochs.",
    "The CNN's test accuracy (learning rate 0.01, batch size 64) was measured in 2026.",
    "The CNN's test accuracy was measured with torch 2.13.0 on 2026-11-23 over 5 seeds.",
    "The MLP's test accuracy, like the CNN's, uses 70% of the data for training.",
    "The control's test score is compared with chance (10% on 10 classes) at the 5% level.",
]
TEX_DECOYS = r"""
\begin{figure}[t]\includegraphics[width=0.5\textwidth]{figures/acc98.pdf}
\caption{The CNN's test accuracy, see Table~\ref{tab:acc1} and Eq.~(3).}\label{fig:cnn98}
\end{figure}
The CNN's test accuracy~\cite{lecun1998,smith2020b} is \evCnnTestAccuracy{} (\evCnnTestAccuracyInterval).
% The CNN's test accuracy was 98.7\% in an old draft: a comment.
The CNN's test accuracy in 2024 used $x^{2}$ and a margin of \hspace{2mm} with \vspace{0.5em}.
"""


@pytest.mark.parametrize(("name", "text", "expected"), PLANTED)
def test_every_planted_drift_is_caught_with_its_claim_value_and_line(
        name: str, text: str, expected: list[tuple[int, str, str]]) -> None:
    drifts = [f for f in scan_text(name, text, CLAIMS) if f.kind == "drift"]
    assert sorted((f.line, f.claim_id, f.expected) for f in drifts) == sorted(expected)
    assert all(f.why for f in drifts)


@pytest.mark.parametrize("sentence", CORRECT)
def test_correct_statements_match(sentence: str) -> None:
    findings = scan_text("README.md", sentence + "\n", CLAIMS)
    assert findings and all(f.kind == "match" for f in findings), findings


@pytest.mark.parametrize("sentence", DECOYS)
def test_ordinary_numbers_in_claim_sentences_are_not_flagged(sentence: str) -> None:
    assert [f for f in scan_text("README.md", sentence + "\n", CLAIMS) if f.kind == "drift"] == []


def test_latex_syntax_is_not_read_as_numbers() -> None:
    assert scan_text("paper/paper.tex", TEX_DECOYS, CLAIMS) == []


def test_captions_are_reconciled_at_their_line(tmp_path: Path) -> None:
    folder = tmp_path / "figures" / "acc"
    folder.mkdir(parents=True)
    (folder / "figure.toml").write_text('kind = "points"\nmetric = "accuracy"\n'
                                        'caption = "The MLP reaches a test accuracy of 97.0%."\n')
    [(name, text)] = caption_documents(Project.at(tmp_path))
    [drift] = scan_text(name, text, CLAIMS)
    assert (name, drift.line, drift.claim_id, drift.kind) == ("figures/acc/figure.toml", 3,
                                                              "mlp_test_accuracy", "drift")


def test_counts() -> None:
    """The headline numbers of the corpus (also printed in the closing note)."""
    planted = sum(len(expected) for _, _, expected in PLANTED)
    caught = sum(len([f for f in scan_text(n, t, CLAIMS) if f.kind == "drift"]) for n, t, _ in PLANTED)
    flagged = sum(len([f for f in scan_text("README.md", d + "\n", CLAIMS) if f.kind == "drift"])
                  for d in DECOYS) + len(scan_text("paper/paper.tex", TEX_DECOYS, CLAIMS))
    assert (caught, planted, flagged) == (planted, 13, 0)
