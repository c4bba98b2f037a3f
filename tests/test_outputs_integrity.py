"""Generated outputs are tamper-evident, "dirty" is about inputs, and claims reach LaTeX as macros.

Fast: real files, real git repositories (GitPython) and real JSON; no doit, no training.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import git
import pytest

from evidence.core.errors import BadInputError, IntegrityError
from evidence.core.hashing import digest_file
from evidence.core.outputs import TargetsIntact, check_output, edited_output, record_outputs
from evidence.core.project import Project
from evidence.core.provenance import git_state
from evidence.deliver import texnames
from evidence.deliver.claims import load_evidence
from evidence.deliver.claimstex import claims_tex, tex_escape
from evidence.deliver.manifest import manifest_problems, write_manifest
from evidence.deliver.paper import PaperInputs, render_markdown

REPO = Path(__file__).resolve().parent.parent


# -- outputs recorded by digest --------------------------------------------------------------


def test_an_edited_output_is_named_and_refused(tmp_path: Path) -> None:
    out = tmp_path / "build" / "claims" / "claims.json"
    out.parent.mkdir(parents=True)
    out.write_text('{"value": 0.986}')
    assert edited_output(tmp_path, out) is None  # never recorded: unknown, not edited
    record_outputs(tmp_path, [out])
    assert check_output(tmp_path, out) == out
    assert TargetsIntact(tmp_path, [str(out)])()
    out.write_text('{"value": 0.996}')  # same size, different content: hashed, not trusted
    with pytest.raises(IntegrityError, match=r"build/claims/claims.json was changed after the build"):
        check_output(tmp_path, out)
    assert not TargetsIntact(tmp_path, [str(out)])()  # doit reruns the step that writes it
    out.unlink()
    assert "was removed" in edited_output(tmp_path, out).describe(tmp_path)  # type: ignore[union-attr]


def _deliverable(tmp_path: Path) -> tuple[Project, Path]:
    project = Project.at(tmp_path)
    out = project.deliver_dir
    (out / "figures" / "f").mkdir(parents=True)
    (out / "paper.html").write_text("<p>98.6%</p>")
    (out / "figures" / "f" / "figure.png").write_bytes(b"\x89PNG fake but recorded")
    record_outputs(tmp_path, [out / "paper.html", out / "figures" / "f" / "figure.png"])
    return project, out


def test_the_manifest_never_certifies_an_edited_or_foreign_file(tmp_path: Path) -> None:
    project, out = _deliverable(tmp_path)
    doc = write_manifest(project, out)
    assert set(doc["files"]) == {"paper.html", "figures/f/figure.png"}
    assert {"inputs_commit", "dirty", "dirty_files"} <= set(doc["source"])  # the git state
    assert manifest_problems(out) == []
    before = (out / "MANIFEST.json").read_bytes()
    (out / "paper.html").write_text("<p>99.6%</p>")
    with pytest.raises(IntegrityError, match=r"build/deliver/paper.html was changed after the build"):
        write_manifest(project, out)
    assert (out / "MANIFEST.json").read_bytes() == before  # not re-certified
    (out / "paper.html").write_text("<p>98.6%</p>")
    (out / "notes.txt").write_text("added by hand")
    with pytest.raises(IntegrityError, match=r"build/deliver/notes.txt was not written by the build"):
        write_manifest(project, out)


def test_manifest_problems_name_each_file(tmp_path: Path) -> None:
    project, out = _deliverable(tmp_path)
    write_manifest(project, out)
    (out / "paper.html").write_text("<p>99.6%</p>")
    (out / "figures" / "f" / "figure.png").unlink()
    (out / "extra.md").write_text("x")
    assert manifest_problems(out) == [
        "figures/f/figure.png is listed in MANIFEST.json but missing",
        "paper.html differs from its digest in MANIFEST.json",
        "extra.md is not listed in MANIFEST.json",
    ]
    (out / "MANIFEST.json").unlink()
    assert manifest_problems(out) == ["MANIFEST.json is missing"]


# -- dirty means uncommitted inputs ----------------------------------------------------------


def _repo(tmp_path: Path) -> git.Repo:
    files = {"dodo.py": "x = 1\n", "comparisons.toml": "a = 1\n", "paper/paper.md.j2": "# t\n",
             "figures/acc/figure.toml": "kind = 'points'\n", "figures/acc/figure.png": "png",
             "figures/acc/figure.provenance.json": "{}", "build/deliver/paper.html": "<p>",
             ".gitignore": "__pycache__/\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    repo = git.Repo.init(tmp_path)
    repo.index.add(list(files))
    author = git.Actor("t", "t@example.org")
    repo.index.commit("inputs and outputs", author=author, committer=author)
    return repo


def test_generated_outputs_do_not_make_the_tree_dirty(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    first = repo.head.commit.hexsha
    (tmp_path / "build" / "deliver" / "paper.html").write_text("<p>rebuilt")
    (tmp_path / "figures" / "acc" / "figure.png").write_text("re-rendered")
    (tmp_path / "figures" / "acc" / "figure.provenance.json").write_text('{"new": 1}')
    (tmp_path / "runs" / "abc").mkdir(parents=True)
    (tmp_path / "runs" / "abc" / "results.json").write_text("{}")
    state = git_state(tmp_path)
    assert state["dirty"] is False and state["dirty_files"] == []
    assert state["inputs_commit"] == first
    # committing only outputs changes HEAD but not the last commit of the inputs
    repo.index.add(["build/deliver/paper.html", "figures/acc/figure.png"])
    author = git.Actor("t", "t@example.org")
    repo.index.commit("outputs", author=author, committer=author)
    assert git_state(tmp_path)["commit"] != first
    assert git_state(tmp_path)["inputs_commit"] == first


@pytest.mark.parametrize("edit", ["paper/paper.md.j2", "comparisons.toml", "figures/acc/figure.toml",
                                  "trainers/new_model.py"])
def test_uncommitted_inputs_make_the_tree_dirty(tmp_path: Path, edit: str) -> None:
    _repo(tmp_path)
    path = tmp_path / edit
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("changed\n")  # an edit, or a new untracked input
    state = git_state(tmp_path)
    assert state["dirty"] is True and state["dirty_files"] == [edit]


# -- claims as LaTeX macros ------------------------------------------------------------------


def _claim(claim_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": claim_id, "formatted": "98.6%", "ci_formatted": "[98.3%, 98.9%]", "ci_low": 0.983,
            "ci_high": 0.989, "n": 5, "supported": True, "format": {"style": "percent", "decimals": 1},
            "statement": "The CNN reaches 98.6%.", "reason": None, **extra}


def test_claims_tex_has_every_macro_and_binds_disclosures_to_values() -> None:
    findings = [{"scope": "claim", "claims": ["cnn_beats_mlp"], "severity": "warning",
                 "message": "only 5 seeds; 12 needed & p = 0.08"},
                {"scope": "project", "claims": [], "severity": "warning",
                 "message": "prices.toml is stale"}]
    text = claims_tex([_claim("cnn_test_accuracy"),
                       _claim("cnn_beats_mlp", supported=False, formatted="+0.4 points")], findings)
    index = texnames.macro_index(["cnn_test_accuracy", "cnn_beats_mlp"])
    defined = re.findall(r"\\newcommand\{\\(\w+)\}", text)
    assert sorted(defined) == sorted([*index, texnames.PROJECT_DISCLOSURES])
    assert r"\newcommand{\evCnnTestAccuracy}{98.6\%}" in text
    assert r"\newcommand{\evCnnTestAccuracyLow}{98.3\%}" in text
    assert r"\newcommand{\evCnnTestAccuracySupported}{true}" in text
    # the unsupported claim's value cannot be typeset without its disclosure
    assert r"\newcommand{\evCnnBeatsMlp}{+0.4 points\evDisclosed{\evCnnBeatsMlpDisclosure}}" in text
    assert r"Warning: only 5 seeds; 12 needed \& p = 0.08" in text
    assert r"\newcommand{\evProjectDisclosures}{Warning: prices.toml is stale}" in text
    assert tex_escape("50% of $x_1 & {y} ± 2 ≥ 1") == \
        r"50\% of \$x\_1 \& \{y\} \ensuremath{\pm} 2 \ensuremath{\geq} 1"


@pytest.mark.parametrize(("claim_id", "macro"), [
    ("top1_accuracy", "evTopOneAccuracy"),
    ("accuracy_at_5", "evAccuracyAtFive"),
    ("c1_linear_beats_ols", "evCOneLinearBeatsOls"),  # the outside test's id (issue 31)
    ("r2023", "evRTwoZeroTwoThree"),
])
def test_a_claim_id_with_digits_becomes_a_macro_with_the_digits_spelled(tmp_path: Path, claim_id: str,
                                                                        macro: str) -> None:
    """The schema allows digits in claim ids; they used to be refused at load ("cannot become a
    LaTeX macro name ... no digits"), even in a markdown-only project."""
    claim = {"id": claim_id, "statement": "s", "evidence": {"ref": "aggregate:a"}}
    (tmp_path / "EVIDENCE.json").write_text(json.dumps({"schema_version": 1, "claims": [claim]}))
    assert load_evidence(Project.at(tmp_path))["claims"][0]["id"] == claim_id
    assert texnames.macro_base(claim_id) == macro
    assert texnames.macro_index([claim_id])[macro + "Citation"] == (claim_id, "Citation")
    assert texnames.cited_macros(f"see \\{macro}Interval.") == [(4, macro + "Interval")]


def test_two_ids_that_spell_one_macro_name_are_refused(tmp_path: Path) -> None:
    claims = [{"id": i, "statement": "s", "evidence": {"ref": "aggregate:a"}} for i in ("c1", "c_one")]
    (tmp_path / "EVIDENCE.json").write_text(json.dumps({"schema_version": 1, "claims": claims}))
    with pytest.raises(BadInputError, match=r"both become the LaTeX macro \\evCOne") as caught:
        load_evidence(Project.at(tmp_path))
    assert caught.value.field == "claims[1].id"


def test_two_ids_with_one_macro_name_are_refused(tmp_path: Path) -> None:
    claims = [{"id": i, "statement": "s", "evidence": {"ref": "aggregate:a"}} for i in ("cnn_acc", "Cnn_acc")]
    (tmp_path / "EVIDENCE.json").write_text(json.dumps({"schema_version": 1, "claims": claims}))
    with pytest.raises(BadInputError, match=r"both become the LaTeX macro \\evCnnAcc"):
        load_evidence(Project.at(tmp_path))


def test_the_example_latex_paper_cites_every_claim_through_macros() -> None:
    evidence = load_evidence(Project.at(REPO))
    source = (REPO / "paper" / "paper.tex").read_text("utf-8")
    cited = {name for _, name in texnames.cited_macros(source)}
    index = texnames.macro_index([c["id"] for c in evidence["claims"]])
    assert cited <= {*index, texnames.PROJECT_DISCLOSURES}, cited - set(index)
    assert {index[name][0] for name in cited if name in index} == {c["id"] for c in evidence["claims"]}
    prose = re.sub(r"%.*", "", source)
    prose = re.sub(r"\\(?:ev\w+|input|includegraphics|documentclass|usepackage)(\[[^]]*\])?(\{[^}]*\})?", "",
                   prose)
    assert not re.findall(r"\d+(?:\.\d+)?\s*(?:\\%|points)", prose)  # no number typed by hand


@pytest.mark.skipif(not (shutil.which("latexmk") and shutil.which("pdflatex")),
                    reason="no TeX toolchain (latexmk + pdflatex) on PATH; .ci/run installs one")
def test_the_example_latex_paper_builds_from_the_committed_deliverable(tmp_path: Path) -> None:
    """paper/paper.tex + claims.tex (from the committed claims) + the committed figures/tables."""
    claims = json.loads((REPO / "build" / "deliver" / "claims.json").read_text())
    findings = json.loads((REPO / "build" / "deliver" / "disclosures.json").read_text())["findings"]
    (tmp_path / "claims.tex").write_text(claims_tex(claims["claims"], findings))
    shutil.copy(REPO / "paper" / "paper.tex", tmp_path)
    for kind, name in (("figures", "figure.pdf"), ("tables", "table.tex")):
        for path in (REPO / kind).glob(f"*/{name}"):
            (tmp_path / kind / path.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, tmp_path / kind / path.parent.name / name)
    done = subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "paper.pdf").read_bytes().startswith(b"%PDF")
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "Undefined control sequence" not in log


# -- what the paper shows --------------------------------------------------------------------


def test_project_findings_and_the_disclosures_link_are_always_in_the_paper(tmp_path: Path) -> None:
    source = tmp_path / "paper.md.j2"
    source.write_text("# {{ title }}\n\n*{{ authors }}*\n\n{{ figure('test_accuracy') }}\n")
    inputs = PaperInputs(
        claims={}, tables={}, title="T", authors=("Ada", "Grace"),
        figures={"test_accuracy": {"caption": "Test accuracy on the digits",
                                   "images": {"png": "figures/test_accuracy/figure.png"},
                                   "sidecar": "figures/test_accuracy/figure.provenance.json",
                                   "source_data": "figures/test_accuracy/source_data.csv"}},
        disclosures=[{"scope": "project", "claims": [], "severity": "warning",
                      "message": "the tree was dirty at training time"}])
    out = render_markdown(source, inputs)
    assert "*Ada, Grace*" in out
    assert "*Figure 1.* Test accuracy on the digits" in out and "Figure test_accuracy" not in out
    assert "> **Disclosure (warning):** the tree was dirty at training time" in out
    assert "[DISCLOSURES.md](DISCLOSURES.md)" in out


def test_the_test_accuracy_figure_shows_the_models_on_their_own_scale() -> None:
    """The example's spec: models in one panel (the CNN-MLP gap visible), the control beside."""
    import tomllib

    from evidence.present.plotting import make_plot, read_source_data

    folder = REPO / "figures" / "test_accuracy"
    spec = {**tomllib.loads((folder / "figure.toml").read_text()), "name": "test_accuracy"}
    result = make_plot(read_source_data(folder / "source_data.csv"), spec)
    models, control = result.figure.axes
    low, high = models.get_ylim()
    assert low > 0.9 and high - low < 0.05  # 0.4 points is a visible share of this axis
    assert control.get_ylim() == (0.0, 0.3) and control.get_legend() is not None  # chance line
    assert models.get_legend() is None
    assert (result.n_series, result.n_points) == (result.expected_series, result.expected_points) == (4, 20)
    assert "own y scales" in result.caption


def test_a_panel_naming_an_unknown_group_is_bad_input() -> None:
    import tomllib

    from evidence.present.plotting import make_plot, read_source_data

    folder = REPO / "figures" / "test_accuracy"
    spec = {**tomllib.loads((folder / "figure.toml").read_text()), "name": "test_accuracy",
            "panels": [{"groups": ["mlp", "cnn", "resnet"]}, {"groups": ["control"]}]}
    with pytest.raises(BadInputError, match=r"panel 0 names group\(s\) \['resnet'\]") as caught:
        make_plot(read_source_data(folder / "source_data.csv"), spec)
    assert caught.value.field == "panels[0].groups"


def test_repro_does_not_pass_an_edited_deliverable(tmp_path: Path) -> None:
    """`evidence repro` compares the committed deliverable with its manifest and, for a
    presentation-only rebuild, with the rebuilt papers: an edit is named, not REPRODUCED."""
    from evidence.ops.repro import compare_deliverable

    project, out = _deliverable(tmp_path)
    (out / "paper.md").write_text("98.6%")
    record_outputs(tmp_path, [out / "paper.md"])
    write_manifest(project, out)
    rebuilt = Project.at(tmp_path / "rebuild")
    shutil.copytree(out, rebuilt.deliver_dir)
    assert compare_deliverable(project, rebuilt, exact=True) == []
    (out / "paper.html").write_text("<p>99.6%</p>")  # edited after delivery
    assert compare_deliverable(project, rebuilt, exact=False) == [
        "build/deliver/paper.html differs from its digest in MANIFEST.json"]
    (out / "paper.md").write_text("99.6%")
    manifest = json.loads((out / "MANIFEST.json").read_text())  # a forged manifest is not enough
    for name in ("paper.md", "paper.html"):
        manifest["files"][name] = {"digest": digest_file(out / name), "size": (out / name).stat().st_size}
    (out / "MANIFEST.json").write_text(json.dumps(manifest))
    assert compare_deliverable(project, rebuilt, exact=True) == [
        "build/deliver/paper.md is not what the rebuild writes",
        "build/deliver/paper.html is not what the rebuild writes"]
