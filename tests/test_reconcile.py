"""Reconcile: stale numbers planted among the decoys a real README and paper are full of."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.core.errors import BadInputError, DriftError
from evidence.deliver.reconcile import (
    ClaimQuantity,
    Finding,
    NumberFormat,
    Waiver,
    collect_documents,
    drift_findings,
    format_report,
    hand_typed_numbers,
    raise_on_drift,
    scan_documents,
    scan_text,
    unused_waivers,
)

PCT1 = NumberFormat.from_spec(".1%")
CNN_ACC = ClaimQuantity("cnn_test_acc", 0.96437, PCT1, ("CNN", "accuracy"))
MLP_ACC = ClaimQuantity("mlp_test_acc", 0.94118, PCT1, ("MLP", "accuracy"))
CNN_F1 = ClaimQuantity("cnn_f1", 0.91183, NumberFormat.from_spec(".3f"), ("CNN", "F1"))
CLAIMS = (CNN_ACC, MLP_ACC, CNN_F1)

README = """\
---
title: MNIST baselines
date: 2024-05-01
---
# MNIST baselines (2024)

[![CI](https://img.shields.io/badge/build-2101.00001-green.svg)](https://ci.example.org/run/4512)

This repository trains a small CNN and an MLP on MNIST. It was last updated on May 1, 2024
(05/01/2024). Our CNN reaches 97.1% test accuracy with seed0, while the MLP baseline stays at
94.1% accuracy. Computing the CNN F1 needs Python 3.11 with torch 2.3 (tested with numpy 1.26.4
and v1.2.3 of our tools); see Section 3.2 and Table 2.

## 3.2 Results

| Model | Test accuracy | Macro F1 | Params |
|---|---|---|---|
| CNN | 96.4% | 0.912 | 1,204,032 |
| MLP | 93.8% | 0.874 | 235,146 |

Table 2 lists the CNN accuracy of every seed; Figure 1 plots the CNN F1 per epoch (Eq. (3)).
The CNN's F1 score of 0.907 beats the resnet50 baseline [12], [3, 4] by a wide margin.
Following Smith et al. (2020), the CNN accuracy (roughly 96%) is reported as top-1 accuracy on
CIFAR-10 style splits, pp. 12–34 of the appendix.

<!-- old: CNN accuracy 95.0%, CNN F1 0.899 -->

```python
# CNN accuracy was 97.5% before the fix; F1 0.955
acc = 0.975
```

    # an indented block: CNN accuracy 98.2%, F1 0.930

Reproduce with `python -m evidence build --seed 7` (prints the CNN accuracy as `97.5%`); the
checkpoint's sha256 and the CNN F1 (0.912) are in the manifest.

## References

[12] A. Author and B. Author. Small CNNs. *J. ML Res.*, 21(4), pp. 101-118, 2020.
     doi:10.1000/xyz123. arXiv:2101.00001. CNN accuracy and F1 follow Table 3.
[3] C. Writer. MLP accuracy revisited. https://arxiv.org/abs/1912.01234v2, 2019.
"""


def line_of(text: str, snippet: str) -> int:
    """1-based line of the only line holding ``snippet`` (keeps the tests readable)."""
    hits = [n for n, line in enumerate(text.splitlines(), 1) if snippet in line]
    assert len(hits) == 1, (snippet, hits)
    return hits[0]


STALE_LINE = line_of(README, "Our CNN reaches 97.1%")
STALE_COL = README.splitlines()[STALE_LINE - 1].index("97.1%") + 1


def brief(findings: list[Finding]) -> set[tuple[int, str, str, str, str]]:
    return {(f.line, f.claim_id, f.stated, f.expected, f.kind) for f in findings}


# ----------------------------------------------------------------- the realistic document


def test_readme_flags_exactly_the_planted_drifts() -> None:
    findings = scan_text("README.md", README, CLAIMS)
    assert brief(drift_findings(findings)) == {
        (STALE_LINE, "cnn_test_acc", "97.1%", "96.4%", "drift"),
        (line_of(README, "| MLP | 93.8%"), "mlp_test_acc", "93.8%", "94.1%", "drift"),
        (line_of(README, "F1 score of 0.907"), "cnn_f1", "0.907", "0.912", "drift"),
    }
    stale = next(f for f in findings if f.stated == "97.1%")
    assert (stale.file, stale.line, stale.column) == ("README.md", STALE_LINE, STALE_COL)
    assert (stale.stated_value, stale.location) == (97.1, f"README.md:{STALE_LINE}:{STALE_COL}")


def test_readme_correct_statements_are_matches() -> None:
    matches = [f for f in scan_text("README.md", README, CLAIMS) if f.kind == "match"]
    assert brief(matches) == {
        (line_of(README, "94.1% accuracy"), "mlp_test_acc", "94.1%", "94.1%", "match"),
        (line_of(README, "| CNN | 96.4%"), "cnn_test_acc", "96.4%", "96.4%", "match"),
        # a table cell binds to its column header: "Macro F1" + the row's "CNN"
        (line_of(README, "| CNN | 96.4%"), "cnn_f1", "0.912", "0.912", "match"),
        # fewer decimals than the claim: 96% is 96.437% rounded to what it shows
        (line_of(README, "roughly 96%"), "cnn_test_acc", "96%", "96.4%", "match"),
        (line_of(README, "CNN F1 (0.912)"), "cnn_f1", "0.912", "0.912", "match"),
    }


def test_readme_decoys_are_not_numbers() -> None:
    """Everything left after the decoys are removed: prose quantities, nothing else."""
    left = [h.text for h in hand_typed_numbers(Path("README.md"), README)]
    assert left == [
        "97.1%", "94.1%", "96.4%", "0.912", "1,204,032", "93.8%", "0.874", "235,146",
        "0.907", "96%", "0.912",
    ]


def test_scan_documents_reads_files_relative_to_root(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    (tmp_path / "docs" / "notes.md").write_text("CNN accuracy: 96.5%.\n", encoding="utf-8")
    paths = collect_documents(tmp_path)
    findings = scan_documents(paths, CLAIMS, root=tmp_path)
    assert {f.file for f in findings} == {"README.md", "docs/notes.md"}
    notes = [f for f in findings if f.file == "docs/notes.md"]
    assert brief(notes) == {(1, "cnn_test_acc", "96.5%", "96.4%", "drift")}
    assert notes[0].column == len("CNN accuracy: ") + 1
    assert findings == sorted(findings)


# ----------------------------------------------------------------- formats and tolerance


def test_number_format_specs_and_rendering() -> None:
    assert NumberFormat.from_spec(".1%") == NumberFormat(100.0, 1, "%")
    assert PCT1.render(0.96437) == "96.4%"
    assert NumberFormat.from_spec(".3f").render(0.91183) == "0.912"
    assert NumberFormat.from_spec("d").render(1204032) == "1204032"
    assert NumberFormat(1e-6, 1, "M").render(1204032) == "1.2M"
    with pytest.raises(ValueError, match="unsupported"):
        NumberFormat.from_spec("{:.1%}")


@pytest.mark.parametrize(
    ("value", "spec", "tolerance", "stated", "kind"),
    [
        (0.96437, ".1%", None, "96.4%", "match"),
        (0.96437, ".1%", None, "96.5%", "drift"),
        (0.96437, ".1%", None, "96.3%", "drift"),
        (0.96437, ".1%", None, "96%", "match"),  # 96.437 rounded to 0 decimals
        (0.96437, ".1%", None, "97%", "drift"),
        (0.9704, ".1%", None, "97%", "match"),
        (0.9690, ".1%", None, "97%", "match"),  # 96.9 rounds to 97 at the precision shown
        (0.9640, ".1%", None, "97%", "drift"),
        (0.96437, ".1%", None, "96.44%", "match"),  # more digits, right at the claim's precision
        (0.96437, ".1%", None, "96.4 percent", "match"),
        (0.96437, ".1%", 0.2, "96.6%", "match"),  # an explicit tolerance widens the check
        (0.96437, ".1%", 0.2, "96.7%", "drift"),
        (0.91183, ".3f", None, "0.912", "match"),
        (0.91183, ".3f", None, "0.911", "drift"),
        (0.91183, ".3f", None, "0.91", "match"),
        (0.9125, ".3f", None, "0.912", "match"),  # an exact tie accepts both roundings
        (0.9125, ".3f", None, "0.913", "match"),
        (-0.0421, ".3f", None, "-0.042", "match"),
        (-0.0421, ".3f", None, "0.042", "drift"),
    ],
)
def test_tolerance_and_rounding(
    value: float, spec: str, tolerance: float | None, stated: str, kind: str
) -> None:
    claim = ClaimQuantity("c", value, NumberFormat.from_spec(spec), ("CNN", "score"), tolerance)
    findings = scan_text("notes.md", f"The CNN score is {stated} on test.\n", [claim])
    assert [(f.stated, f.kind) for f in findings] == [(stated, kind)]


def test_a_percent_claim_stated_as_a_fraction_is_checked_and_a_plain_one_never_as_percent() -> None:
    text = (
        "The CNN accuracy is 0.964. The CNN F1 is 91.2%.\n\n"
        "The CNN accuracy and F1 were measured over 3 seeds and 10 epochs.\n"
    )
    [finding] = scan_text("notes.md", text, [CNN_ACC, CNN_F1])
    assert (finding.claim_id, finding.stated, finding.kind) == ("cnn_test_acc", "0.964", "match")
    [drift] = scan_text("notes.md", "The CNN accuracy is 0.978.\n", [CNN_ACC, CNN_F1])
    assert (drift.claim_id, drift.kind) == ("cnn_test_acc", "drift")


def test_unit_suffix_claims_need_their_unit() -> None:
    params = ClaimQuantity("cnn_params", 1204032, NumberFormat(1e-6, 1, "M"), ("CNN", "params"))
    text = "The CNN has 1.2M params. The CNN params: 1.3M. The CNN params: 1.3 (per layer).\n"
    assert brief(scan_text("notes.md", text, [params])) == {
        (1, "cnn_params", "1.2M", "1.2M", "match"),
        (1, "cnn_params", "1.3M", "1.2M", "drift"),
    }


# ----------------------------------------------------------------- which number, which claim


def test_a_correct_statement_makes_other_numbers_comparisons() -> None:
    text = (
        "CNN accuracy improved from 95.0% to 96.4% after the fix.\n\n"
        "CNN accuracy is 97.1% (95% CI 96.2–97.9%) with 90% of the data.\n"
    )
    assert brief(scan_text("notes.md", text, [CNN_ACC])) == {
        (1, "cnn_test_acc", "96.4%", "96.4%", "match"),
        (3, "cnn_test_acc", "97.1%", "96.4%", "drift"),  # one drift per claim and sentence
    }


def test_two_claims_in_one_sentence_pair_by_distance_then_value() -> None:
    text = (
        "The CNN reaches 96.4% accuracy and the MLP reaches 94.1% accuracy.\n\n"
        "The CNN reaches 97.0% accuracy and the MLP reaches 95.0% accuracy.\n\n"
        "The MLP reaches 96.4% accuracy and the CNN reaches 95.0% accuracy.\n"
    )
    assert brief(scan_text("notes.md", text, [CNN_ACC, MLP_ACC])) == {
        (1, "cnn_test_acc", "96.4%", "96.4%", "match"),
        (1, "mlp_test_acc", "94.1%", "94.1%", "match"),
        (3, "cnn_test_acc", "97.0%", "96.4%", "drift"),  # nearest keywords decide
        (3, "mlp_test_acc", "95.0%", "94.1%", "drift"),
        # swapped numbers: each is read as the claim nearest to it, and both are wrong
        (5, "mlp_test_acc", "96.4%", "94.1%", "drift"),
        (5, "cnn_test_acc", "95.0%", "96.4%", "drift"),
    }


def test_the_most_specific_claim_wins() -> None:
    val = ClaimQuantity("cnn_val_acc", 0.9710, PCT1, ("CNN", "validation", "accuracy"))
    text = "The CNN validation accuracy is 97.4%. The CNN accuracy is 97.4%.\n"
    assert brief(scan_text("notes.md", text, [CNN_ACC, val])) == {
        (1, "cnn_val_acc", "97.4%", "97.1%", "drift"),
        (1, "cnn_test_acc", "97.4%", "96.4%", "drift"),
    }


def test_keywords_must_share_a_sentence_or_row() -> None:
    text = (
        "We trained a CNN. Its accuracy was 97.1%, as reported by Smith et al. in 2020.\n\n"
        "- CNN results\n- accuracy: 97.1%\n\n"
        "e.g. the CNN accuracy, i.e. 97.1% on test\n"
    )
    assert brief(scan_text("notes.md", text, [CNN_ACC])) == {
        (6, "cnn_test_acc", "97.1%", "96.4%", "drift"),
    }


def test_keywords_match_whole_words_case_insensitively() -> None:
    text = "Both cnns' ACCURACY is 97.1%. The CNNLayer accuracy is 97.1%.\n"
    assert [f.line for f in scan_text("notes.md", text, [CNN_ACC])] == [1]


# ----------------------------------------------------------------- waivers and errors


def test_waivers_record_exceptions() -> None:
    text = "# Changelog\n\nv0.2: CNN accuracy 97.1% on the test split.\n"
    waiver = Waiver("docs/**/*.md", 3, "cnn_test_acc", "historical value in the changelog")
    elsewhere = Waiver("README.md", None, "cnn_test_acc", "not this file")
    findings = scan_text("docs/changelog.md", text, [CNN_ACC], [elsewhere, waiver])
    assert [(f.kind, f.waived, f.waiver_reason) for f in findings] == [
        ("drift", True, "historical value in the changelog"),
    ]
    assert drift_findings(findings) == []
    raise_on_drift(findings)
    assert unused_waivers(findings, [elsewhere, waiver]) == [elsewhere]
    wrong_line = Waiver("docs/**/*.md", 4, "cnn_test_acc", "other line")
    assert drift_findings(scan_text("docs/changelog.md", text, [CNN_ACC], [wrong_line]))
    with pytest.raises(ValueError, match="needs a reason"):
        Waiver("README.md", None, "cnn_test_acc", " ")


def test_raise_on_drift_names_the_first_drift() -> None:
    findings = scan_text("README.md", README, CLAIMS)
    with pytest.raises(DriftError) as info:
        raise_on_drift(findings)
    where = f"README.md:{STALE_LINE}:{STALE_COL}"
    assert f"{where}: '97.1%' for claim 'cnn_test_acc'" in str(info.value)
    assert info.value.message.startswith("3 number(s)")


def test_invalid_input_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="keyword"):
        ClaimQuantity("x", 0.5, PCT1, (" ",))
    with pytest.raises(ValueError, match="non-finite"):
        ClaimQuantity("x", float("nan"), PCT1, ("x",))
    with pytest.raises(ValueError, match="duplicate claim ids"):
        scan_text("a.md", "", [CNN_ACC, CNN_ACC])
    bad = tmp_path / "README.md"
    bad.write_bytes(b"CNN accuracy \xff 97%\n")
    with pytest.raises(BadInputError, match="not UTF-8"):
        scan_documents([bad], CLAIMS, root=tmp_path)


# ----------------------------------------------------------------- templates


TEMPLATE = """\
{# results.md.j2: every number comes from EVIDENCE.json #}
## 4 Results

Our CNN reaches a test accuracy of {{ claims.cnn_test_acc.value }} ({{ "%.1f" | format(99.5) }}),
while an earlier draft said the CNN had an accuracy of 95.2% on the same split.
{% if claims.mlp_test_acc.value > 0.9 %}The MLP is close behind.{% endif %}
Seeds were fixed in 2024 (see Section 4.1, Table 2, Figure 3 and [7]); training ran on
torch 2.3 and Python 3.11, following Lee et al. (2021), pp. 7–9, doi:10.1234/abc.5678.
We trained for 20 epochs with a ResNet-18 on CIFAR-10.

```bash
python train.py --epochs 20 --lr 0.001
```
"""


def test_hand_typed_numbers_in_a_template() -> None:
    found = hand_typed_numbers(Path("paper/results.md.j2"), TEMPLATE)
    assert [(h.file, h.line, h.column, h.text) for h in found] == [
        ("paper/results.md.j2", 5, 56, "95.2%"),
        ("paper/results.md.j2", 9, 16, "20"),
    ]
    # and the same hand-typed number is drift when it states a claim's quantity
    assert brief(drift_findings(scan_text("paper/results.md.j2", TEMPLATE, CLAIMS))) == {
        (5, "cnn_test_acc", "95.2%", "96.4%", "drift"),
    }


def test_latex_templates_know_escaped_percent_and_comments() -> None:
    tex = (
        "% CNN accuracy 91.0\\% in the old draft\n"
        "The CNN accuracy is 96.4\\% and the CNN F1 is {{ claims.cnn_f1 }} "
        "(\\cite{smith2020}, Fig.~\\ref{fig:acc}, width 0.8\\linewidth).\n"
        "\\includegraphics[width=0.45\\textwidth]{acc.pdf} \\vspace{2mm} CNN accuracy 95\\%.\n"
    )
    found = hand_typed_numbers(Path("paper/main.tex.j2"), tex)
    # "width 0.8\linewidth" is a layout setting, not a result: no longer a hand-typed number
    assert [(h.line, h.text) for h in found] == [(2, "96.4\\%"), (3, "95\\%")]
    assert brief(scan_text("paper/main.tex.j2", tex, [CNN_ACC])) == {
        (2, "cnn_test_acc", "96.4\\%", "96.4%", "match"),
        (3, "cnn_test_acc", "95\\%", "96.4%", "drift"),
    }


# ----------------------------------------------------------------- report and globs


def test_format_report_lists_every_kind() -> None:
    waiver = Waiver("README.md", line_of(README, "| MLP | 93.8%"), "mlp_test_acc", "old table")
    findings = scan_text("README.md", README, CLAIMS, [waiver])
    hand = hand_typed_numbers(Path("paper/results.md.j2"), TEMPLATE)
    report = format_report(findings, hand)
    assert report.startswith("# Reconcile report\n\n2 drifted, 1 waived, 5 matching; 2 hand-typed")
    assert f"| `README.md:{STALE_LINE}:{STALE_COL}` | `cnn_test_acc` | 97.1% | 96.4% |" in report
    assert "| 93.8% | 94.1% | old table |" in report
    assert "| `paper/results.md.j2:5:56` | 95.2% |" in report
    assert format_report([], []).count("None.") == 4


def test_collect_documents_is_sorted_and_skips_generated_folders(tmp_path: Path) -> None:
    for rel in [
        "README.md", "paper/main.md", "paper/sections/results.md.j2", "docs/guide.md",
        "notes/2024/log.md", "notes/todo.txt", "docs/build/out.md", "paper/.venv/x.md",
        "runs/abc/README.md", "docs/drafts/old.md", "other.md",
    ]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n", encoding="utf-8")
    found = collect_documents(tmp_path, exclude_globs=["docs/drafts/**"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "README.md", "docs/guide.md", "notes/2024/log.md", "paper/main.md",
        "paper/sections/results.md.j2",
    ]
    assert collect_documents(tmp_path, ["*.md"]) == [tmp_path / "README.md", tmp_path / "other.md"]
