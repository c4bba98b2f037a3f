"""Paper rendering: numbers only through references, unknown references fail, text is escaped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evidence.core.errors import BadInputError
from evidence.deliver.paper import PaperInputs, markdown_to_html, render_markdown


def inputs(tmp_path: Path, statement: str = "Accuracy is 97.0%.") -> PaperInputs:
    table = tmp_path / "table.md"
    table.write_text("| Model | Acc |\n|---|---|\n| A | 97.0 |\n")
    claim: dict[str, Any] = {"formatted": "97.0%", "ci_formatted": "[96.0%, 98.0%]", "n": 5,
                             "statement": statement, "supported": True}
    return PaperInputs(
        claims={"acc": claim, "weak": {**claim, "supported": False}},
        figures={"fig": {"caption": "Accuracy <by> seed", "images": {"png": "figures/fig/figure.png"},
                         "sidecar": "figures/fig/figure.provenance.json",
                         "source_data": "figures/fig/source_data.csv"}},
        tables={"tab": {"caption": "Results", "markdown": str(table),
                        "sidecar": "tables/tab/table.provenance.json",
                        "source_data": "tables/tab/source_data.csv"}},
        disclosures=[{"severity": "warning", "message": "only <5> seeds", "claims": ["weak"]}],
        title="T & U")


def render(tmp_path: Path, text: str, **kwargs: Any) -> str:
    source = tmp_path / "paper.md.j2"
    source.write_text(text)
    return render_markdown(source, inputs(tmp_path, **kwargs))


def test_helpers_render_claims_figures_tables_and_disclosures(tmp_path: Path) -> None:
    out = render(tmp_path, "# {{ title }}\n\n{{ claim('acc') }} {{ ci('acc') }} n={{ n('acc') }}\n\n"
                           "{{ statement('weak') }}\n\n{{ figure('fig') }}\n\n{{ table('tab') }}\n")
    assert "# T &amp; U" in out
    assert "97.0% [96.0%, 98.0%] n=5" in out
    assert "**Not shown.** We could not show that accuracy is 97.0%: its test fails (no predicate)." in out
    assert "> **Disclosure (warning):** only &lt;5&gt; seeds" in out
    assert "![Accuracy &lt;by&gt; seed](figures/fig/figure.png)" in out
    assert "[provenance](figures/fig/figure.provenance.json)" in out
    assert "[source data](tables/tab/source_data.csv)" in out and "| A | 97.0 |" in out


@pytest.mark.parametrize(("text", "message", "line"), [
    ("ok\n\n{{ claim('nope') }}\n", r"unknown claim 'nope' \(known: acc, weak\)", 3),
    ("{{ figure('missing') }}", "unknown figure 'missing'", 1),
    ("line\n{{ table('x') }}", "unknown table 'x'", 2),
    ("{{ claims.acc }}", "undefined name", 1),
])
def test_unknown_references_fail_naming_them(tmp_path: Path, text: str, message: str, line: int) -> None:
    with pytest.raises(BadInputError, match=message) as caught:
        render(tmp_path, text)
    assert caught.value.path.endswith(f"paper.md.j2:{line}")


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="template syntax error") as caught:
        render(tmp_path, "a\n{{ claim('acc' }}\n")
    assert caught.value.path.endswith(":2")


def test_user_text_cannot_inject_html(tmp_path: Path) -> None:
    evil = "Accuracy <script>alert(1)</script> & <img src=x onerror=alert(2)>"
    page = markdown_to_html(render(tmp_path, "{{ statement('acc') }}\n", statement=evil), "<b>T</b>")
    assert "<script>" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in page
    assert "<title>&lt;b&gt;T&lt;/b&gt;</title>" in page


def test_an_unsupported_claim_is_rendered_as_what_it_is(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("")
    claim = {"formatted": "+0.4 points", "ci_formatted": "[-0.1, +1.0] points", "n": 5,
             "statement": "The CNN beats the MLP by +0.4 points (95% CI [-0.1, +1.0] points, Welch t).",
             "supported": False, "classification": "insufficient_evidence", "seeds_needed": 12,
             "predicate": {"holds": False, "detail": "classification is 'insufficient_evidence'"}}
    caveat = {**claim, "supported": True, "statement": "CNN and MLP: not shown either way.",
              "caveat": "the comparison c claims cnn is better than mlp, but this claim only requires "
                        "the verdict insufficient_evidence, which does not show that direction"}
    data = PaperInputs(claims={"c": claim, "k": caveat}, figures={}, tables={}, disclosures=[])
    source = tmp_path / "p.md.j2"
    source.write_text("{{ statement('c') }}\n\n{{ statement('k') }}\n")
    out = render_markdown(source, data)
    assert ("**Not shown.** We could not show that the CNN beats the MLP by +0.4 points (95% CI "
            "[-0.1, +1.0] points, Welch t): the evidence shows neither a difference nor its absence; "
            "about 12 seeds per group would be needed (an estimate from these seeds).") in out
    assert "CNN and MLP: not shown either way. *(Caveat: the comparison c claims cnn is better" in out


def test_a_table_caption_shows_once_numbered_and_escaped(tmp_path: Path) -> None:
    """Issue 29 item 19: the reader saw "Table: Results..." as a paragraph, then again
    "Table 1: provenance · source data"; now one numbered caption carries the links."""
    given = inputs(tmp_path)
    (tmp_path / "table.md").write_text("| Model | Acc |\n| :--- | ---: |\n| A <b> | 97.0 |\n\n"
                                       "Table: Results <i>of</i> A. Values: mean ±1 SD over 5 seeds.\n")
    source = tmp_path / "paper.md.j2"
    source.write_text("{{ table('tab') }}\n")
    text = render_markdown(source, given)
    assert "Table: " not in text and text.count("Results") == 1
    assert text.startswith("*Table 1.* Results &lt;i&gt;of&lt;/i&gt; A. Values: mean ±1 SD over 5 seeds. "
                           "[provenance](tables/tab/table.provenance.json)")
    page = markdown_to_html(text, "T")
    assert page.count("Results") == 1 and "<b>" not in page and "<i>of" not in page
    assert ">A &lt;b&gt;</td>" in page


def test_the_compute_statement_does_not_repeat_its_heading() -> None:
    """Issue 29 item 19: "Compute." stood in bold right under the "Compute" heading."""
    from evidence.deliver.ledger import statement

    total = {"runs": 2, "device_hours": {"cpu": 0.5}, "wall_seconds": 60.0,
             "max_peak_host_memory_bytes": None, "unpriced_runs": 0, "not_recorded_runs": 0, "cost": {}}
    doc = {"total": total, "prices": {"used": {}},
           "unused": {"runs": 0, "share": {}, "cost": {}, "by_status": {"declared": {"runs": 0},
                                                                       "superseded": {"runs": 0}}},
           "early_stopping": []}
    text = statement(doc)
    assert text.startswith("The 2 sealed training runs of this project") and "**" not in text
