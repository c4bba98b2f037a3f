"""The disclosure gate on a real, tiny, trained project: planted problems must be disclosed.

One module-scoped project is trained once (four real runs, from a git repository whose trainer
has an uncommitted edit, so every run is honestly "trained from a dirty tree"), and verified
with a comparisons.toml that includes an expected-max entry scored on the test split. Tests
that plant a problem work on a copy, or add a new sealed run (a copy of a real one with one
file edited, sealed properly), so each planted problem is the only thing wrong with its run.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import DODO, REPO, TINY_EXPERIMENT, doit, write_tree

from evidence.core.errors import BadInputError
from evidence.core.hashing import digest_bytes, digest_file, digest_json
from evidence.core.project import Project
from evidence.core.schema import validate
from evidence.deliver import claims, disclose
from evidence.deliver.reconcile import HandTypedNumber, Waiver
from evidence.store.runs import RunStore
from evidence.verify.comparisons import load_config
from evidence.verify.report import build_report, load_report, write_report

COMPARISONS = """
schema_version = 1

[[comparison]]
id = "wide_vs_small"
a = { experiment = "tiny", where = { variant = "wide" } }
b = { experiment = "tiny", where = { variant = "small" } }
metric = "accuracy"
claimed = "a_better"
n_resamples = 500

[[aggregate]]
id = "small_accuracy"
selection = { experiment = "tiny", where = { variant = "small" } }
metric = "accuracy"
n_resamples = 500

[[expected_max]]
id = "tiny_on_test"
selection = { experiment = "tiny" }
split = "test"
"""

EVIDENCE = {
    "schema_version": 1, "title": "tiny",
    "claims": [
        {"id": "small_accuracy", "statement": "The small MLP reaches {value} over {n} seeds.",
         "evidence": {"ref": "aggregate:small_accuracy"}, "format": {"style": "percent"}},
        {"id": "wide_beats_small", "statement": "The wide MLP beats the small one by {value}.",
         "evidence": {"ref": "verify:wide_vs_small"},
         "predicate": {"kind": "classification", "equals": "effect"}},
        {"id": "best_of_four", "statement": "The best of four runs is expected to reach {value}.",
         "evidence": {"ref": "expected_max:tiny_on_test"}},
    ],
}

pytestmark = pytest.mark.slow  # every test reads a trained project (module fixture)

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false",
       "-c", "init.defaultBranch=main"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("disclose") / "proj"
    (root / "trainers").mkdir(parents=True)
    for trainer in (REPO / "trainers").glob("*.py"):
        shutil.copy(trainer, root / "trainers" / trainer.name)
    write_tree(root, {"dodo.py": DODO, "experiments/tiny.toml": TINY_EXPERIMENT,
                      "comparisons.toml": COMPARISONS})
    (root / "EVIDENCE.json").write_text(json.dumps(EVIDENCE), "utf-8")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tiny"]):
        subprocess.run([*GIT, *args], cwd=root, env=env, check=True, capture_output=True)
    with (root / "trainers" / "mlp.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# an uncommitted edit: the tree is dirty when the runs train\n")
    result = doit(root, "train")
    assert result.returncode == 0, result.stderr + result.stdout
    project = Project.at(root)
    config = load_config(project)
    assert config is not None
    write_report(project, build_report(project, config))
    return root


def inputs(root: Path) -> tuple[Project, dict[str, Any], dict[str, Any]]:
    project = Project.at(root)
    return project, claims.resolve_all(project), load_report(project)


def copy_project(trained: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(trained, target, symlinks=True)
    return target


def by_id(findings: list[disclose.Finding]) -> dict[str, disclose.Finding]:
    return {f.id: f for f in findings}


def run_of(resolved: dict[str, Any], claim_id: str) -> str:
    claim = next(c for c in resolved["claims"] if c["id"] == claim_id)
    return str(claim["runs"][0]["run_id"])


def reseal(root: Path, run_id: str, edit: Callable[[Path], None]) -> dict[str, str]:
    """Seal a copy of ``run_id`` after ``edit`` changed its files: a valid sealed run, whose key is
    the digest of its (possibly edited) identity and whose id is that key's next generation."""
    store = RunStore(Project.at(root).runs_dir)
    staging = root / ".evidence" / f"staging-{run_id}-{len(list(store.root.iterdir()))}"
    shutil.copytree(store.path(run_id), staging)
    for path in [staging, *staging.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (staging / "manifest.json").unlink()
    edit(staging)
    spec = json.loads((staging / "spec.json").read_text("utf-8"))
    spec["key"] = digest_json(spec["identity"])
    (staging / "spec.json").write_text(json.dumps(spec, indent=2, sort_keys=True) + "\n", "utf-8")
    run = store.seal(staging, store.next_run_id(spec["key"]), spec["key"])
    return {"run_id": run.run_id, "results_digest": digest_file(run.path / "results.json")}


def edit_json(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    value = json.loads(path.read_text("utf-8"))
    change(value)
    path.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n", "utf-8")


def add_claim(resolved: dict[str, Any], claim_id: str, runs: list[dict[str, str]], **extra: Any) -> None:
    resolved["claims"].append({"id": claim_id, "statement": f"{claim_id} holds.", "ref": None,
                               "classification": None, "predicate": None, "supported": True,
                               "runs": runs, "figures": [], "tables": [], **extra})


# --------------------------------------------------------------------------- the clean baseline


def test_the_honest_project_discloses_dirty_tree_seeds_and_test_split_selection(trained: Path) -> None:
    project, resolved, report = inputs(trained)
    findings = disclose.audit(project, resolved, report)
    found = by_id(findings)
    all_runs = sorted(RunStore(project.runs_dir).run_ids())
    assert len(all_runs) == 4

    dirty = [f for f in findings if f.id.startswith("git:dirty-") and f.id != "git:dirty-inputs"]
    assert len(dirty) == 1 and dirty[0].severity == "warning"
    # and the delivery itself, from a working tree with that uncommitted input, is disclosed too
    [inputs_now] = [f for f in findings if f.id == "git:dirty-inputs"]
    assert inputs_now.scope == "project" and inputs_now.evidence["dirty_files"] == ["trainers/mlp.py"]
    assert list(dirty[0].runs) == all_runs and "trainers/mlp.py" in dirty[0].message
    assert set(dirty[0].claims) == {"small_accuracy", "wide_beats_small", "best_of_four"}

    leak = found["test_in_selection:expected_max:tiny_on_test"]
    assert leak.severity == "serious" and leak.claims == ("best_of_four",) and "4 trials" in leak.message

    seeds = found["seeds:verify:wide_vs_small"]
    assert seeds.claims == ("wide_beats_small",) and "2 and 2 seeds (minimum 5)" in seeds.message
    assert found["seeds:aggregate:small_accuracy"].claims == ("small_accuracy",)

    # nothing that is not wrong: sealed runs intact, results as recorded, splits pinned and disjoint
    assert not [f for f in findings if f.check in ("integrity", "rederivable", "splits", "environment",
                                                   "obsolete_runs", "stale_artifact", "hand_typed")]
    assert findings == disclose.audit(project, resolved, report)  # deterministic


# --------------------------------------------------------------------------- planted problems


def test_a_flipped_byte_is_disclosed_on_the_claims_using_that_run(trained: Path, tmp_path: Path) -> None:
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)
    victim = run_of(resolved, "small_accuracy")
    weights = project.runs_dir / victim / "model.safetensors"
    weights.chmod(0o644)
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0x01
    weights.write_bytes(bytes(data))
    weights.chmod(0o444)

    findings = disclose.audit(project, resolved, report)
    integrity = by_id(findings)[f"integrity:{victim}"]
    assert integrity.severity == "serious" and integrity.runs == (victim,)
    assert "model.safetensors" in integrity.message and "differs from recorded" in integrity.message
    # the run is in the small-MLP aggregate, the comparison and the expected-max trials
    assert set(integrity.claims) == {"small_accuracy", "wide_beats_small", "best_of_four"}
    assert integrity in disclose.findings_for_claim(findings, "small_accuracy")


def test_runs_outside_git_and_mixed_environments_are_disclosed(trained: Path, tmp_path: Path) -> None:
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)
    original = run_of(resolved, "small_accuracy")

    def elsewhere(run: Path) -> None:
        def change(prov: dict[str, Any]) -> None:
            prov["git"] = {"commit": None, "dirty": None, "branch": None, "error": "not a git repository"}
            prov["environment"]["packages"]["torch"] = "0.0.1-other"
        edit_json(run / "provenance.json", change)

    moved = reseal(root, original, elsewhere)
    add_claim(resolved, "mixed", [{"run_id": original, "results_digest": digest_file(
        project.runs_dir / original / "results.json")}, moved])
    found = by_id(disclose.audit(project, resolved, report))

    assert found["git:no-commit"].runs == (moved["run_id"],)
    assert found["git:no-commit"].claims == ("mixed",) and found["git:no-commit"].severity == "warning"
    env = found["environment:mixed"]
    assert "packages.torch" in env.message and "0.0.1-other" in env.message
    torch = env.evidence["differ"]["packages.torch"]
    assert torch["0.0.1-other"] == 1 and sum(torch.values()) == 2
    assert not any(f.check == "integrity" for f in found.values())  # a properly sealed run


def test_runs_trained_at_a_commit_this_history_lacks_are_disclosed(trained: Path, tmp_path: Path) -> None:
    """A copy of the project in a repository of its own (no shared history): every run records a
    commit that is not here, so the code that produced them cannot be checked out from it."""
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)
    recorded = {json.loads((run.path / "provenance.json").read_text("utf-8"))["git"]["commit"]
                for run in RunStore(project.runs_dir).runs()}
    assert len(recorded) == 1
    [commit] = recorded
    assert not [f for f in disclose.audit(project, resolved, report) if "missing-commit" in f.id]

    shutil.rmtree(root / ".git")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "a copy, its own history"]):
        subprocess.run([*GIT, *args], cwd=root, env=env, check=True, capture_output=True)
    found = by_id(disclose.audit(project, resolved, report))
    missing = found[f"git:missing-commit-{commit[:12]}"]
    assert missing.severity == "warning" and missing.evidence["commit"] == commit
    assert commit[:12] in missing.message and "not in this repository" in missing.message
    assert list(missing.runs) == sorted(RunStore(project.runs_dir).run_ids())
    assert set(missing.claims) == {"small_accuracy", "wide_beats_small", "best_of_four"}


def test_a_claim_classified_noise_without_a_noise_predicate_is_disclosed(trained: Path) -> None:
    project, resolved, report = inputs(trained)
    resolved = copy.deepcopy(resolved)
    claim = next(c for c in resolved["claims"] if c["id"] == "wide_beats_small")
    add_claim(resolved, "unqualified", claim["runs"], ref=claim["ref"], classification="noise",
              reason="the CI of the difference contains zero", supported=False)
    add_claim(resolved, "predicts_noise", claim["runs"], ref=claim["ref"], classification="noise",
              predicate={"holds": True, "detail": "classification is 'noise', the claim needs 'noise'"})
    found = by_id(disclose.audit(project, resolved, report))

    bad = found["claim_status:unqualified"]
    assert bad.severity == "serious" and bad.claims == ("unqualified",)
    assert "without a predicate" in bad.message and "noise" in bad.message
    assert bad.evidence["reason"] == "the CI of the difference contains zero"
    fine = found["claim_status:predicts_noise"]
    assert fine.severity == "info" and "equivalence test showed" in fine.message


def test_insufficient_evidence_and_an_unshown_direction_are_warnings(trained: Path) -> None:
    project, resolved, report = inputs(trained)
    resolved = copy.deepcopy(resolved)
    claim = next(c for c in resolved["claims"] if c["id"] == "wide_beats_small")
    add_claim(resolved, "open_question", claim["runs"], ref=claim["ref"],
              classification="insufficient_evidence", seeds_needed=26,
              predicate={"holds": True, "detail": "ok"})
    add_claim(resolved, "worded_as_a_win", claim["runs"], ref=claim["ref"],
              classification="insufficient_evidence", predicate={"holds": True, "detail": "ok"},
              caveat="the comparison x claims wide is better than small, but this claim only requires "
                     "the verdict insufficient_evidence, which does not show that direction")
    found = by_id(disclose.audit(project, resolved, report))
    assert "claim_status:open_question" not in found  # the claim holds; the open question is:
    open_question = found[f"seeds:{claim['ref']}"]
    assert open_question.severity == "warning" and "open_question" in open_question.claims
    worded = found["claim_status:worded_as_a_win"]
    assert worded.severity == "warning" and "does not show that direction" in worded.message


def test_a_stale_figure_and_a_missing_one_are_disclosed(trained: Path, tmp_path: Path) -> None:
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)
    store = RunStore(project.runs_dir)
    small = sorted(r["run_id"] for r in
                   next(c for c in resolved["claims"] if c["id"] == "small_accuracy")["runs"])

    def sidecar(name: str, stale: bool) -> None:
        folder = project.figures_dir / name
        folder.mkdir(parents=True)
        (folder / "figure.png").write_bytes(b"\x89PNG not really")
        results = {f"runs/{r}/results.json": digest_file(store.path(r) / "results.json") for r in small}
        if stale:  # built from an older results.json of the first run
            results[f"runs/{small[0]}/results.json"] = digest_bytes(b"an older results.json")
        record = {
            "schema_version": 1, "step": "figure", "artifact": "figure", "name": name, "source": "runs",
            "spec": f"figures/{name}/figure.toml",
            "selections": [{"experiment": "tiny", "where": {"variant": "small"}}], "runs": small,
            "inputs": results, "code": {"digest": digest_bytes(b"code"), "files": {}},
            "git": {"commit": None, "dirty": None}, "packages": {},
            "outputs": {f"figures/{name}/figure.png": digest_file(folder / "figure.png")},
            "caption": "accuracy", "spread": "±1 SD over 2 seeds", "gate": {}, "values": []}
        validate(record, "sidecar", "the hand-written sidecar")
        (folder / "figure.provenance.json").write_text(json.dumps(record), "utf-8")

    sidecar("acc", stale=True)
    sidecar("fresh", stale=False)
    claim = next(c for c in resolved["claims"] if c["id"] == "small_accuracy")
    claim["figures"] = ["acc", "fresh", "ghost"]
    found = by_id(disclose.audit(project, resolved, report))

    stale = found["stale_artifact:figure-acc"]
    assert stale.severity == "serious" and "small_accuracy" in stale.claims
    assert "1 input(s) changed" in stale.message and f"runs/{small[0]}/results.json" in stale.message
    assert "stale_artifact:figure-fresh" not in found
    missing = found["stale_artifact:figure-ghost-missing"]
    assert missing.claims == ("small_accuracy",) and missing.severity == "warning"

    (project.figures_dir / "fresh" / "figure.png").write_bytes(b"redrawn by hand")
    found = by_id(disclose.audit(project, resolved, report))
    assert "1 output(s) differ" in found["stale_artifact:figure-fresh"].message


def test_a_figure_checked_in_an_earlier_process_is_checked_again_when_a_file_it_names_changes(
        trained: Path, tmp_path: Path) -> None:
    """The audit keeps each sidecar's file check by the stat of the sidecar and of every file it
    names: a later process answers from it while they are unchanged, and an output rewritten
    with bytes of the same size (its mtime set back: only the inode change time tells) is named."""
    import time

    from evidence.core import memo as memos

    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)
    store = RunStore(project.runs_dir)
    claim = next(c for c in resolved["claims"] if c["id"] == "small_accuracy")
    runs = sorted(r["run_id"] for r in claim["runs"])
    folder = project.figures_dir / "kept"
    folder.mkdir(parents=True)
    image = folder / "figure.png"
    image.write_bytes(b"\x89PNG first drawing")
    record = {
        "schema_version": 1, "step": "figure", "artifact": "figure", "name": "kept", "source": "runs",
        "spec": "figures/kept/figure.toml",
        "selections": [{"experiment": "tiny", "where": {"variant": "small"}}], "runs": runs,
        "inputs": {f"runs/{r}/results.json": digest_file(store.path(r) / "results.json") for r in runs},
        "code": {"digest": digest_bytes(b"code"), "files": {}}, "git": {"commit": None, "dirty": None},
        "packages": {}, "outputs": {"figures/kept/figure.png": digest_file(image)},
        "caption": "accuracy", "spread": "±1 SD over 2 seeds", "gate": {}, "values": []}
    sidecar = folder / "figure.provenance.json"
    sidecar.write_text(json.dumps(record), "utf-8")
    past = time.time() - 60
    for path in (image, sidecar, *(store.path(r) / "results.json" for r in runs)):
        os.utime(path, (past, past))  # out of the memo's racily-clean window
    claim["figures"] = ["kept"]
    assert "stale_artifact:figure-kept" not in by_id(disclose.audit(project, resolved, report))
    memos.save_all()
    memos._REGISTRY.clear()  # as in a new process: read back from the memo files
    checks = json.loads((project.cache_dir / "memo-artifact-checks.json").read_text("utf-8"))
    assert checks["entries"]["figures/kept/figure.provenance.json"]["value"] == {}
    assert "stale_artifact:figure-kept" not in by_id(disclose.audit(project, resolved, report))

    image.write_bytes(b"\x89PNG other drawing")  # the same size
    os.utime(image, (past, past))  # and the same mtime
    found = by_id(disclose.audit(project, resolved, report))
    assert "1 output(s) differ" in found["stale_artifact:figure-kept"].message


def test_the_test_split_used_during_selection_is_disclosed(trained: Path, tmp_path: Path) -> None:
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)

    def monitor_on_test(run: Path) -> None:
        edit_json(run / "results.json", lambda r: r["evaluations"].append(
            {"split": "test", "when": "every_epoch", "purpose": "monitoring"}))

    leaky = reseal(root, run_of(resolved, "small_accuracy"), monitor_on_test)
    add_claim(resolved, "leaky", [leaky])
    findings = disclose.audit(project, resolved, report)
    leak = by_id(findings)["test_in_selection:runs"]
    assert leak.severity == "serious" and leak.runs == (leaky["run_id"],) and leak.claims == ("leaky",)
    assert "monitoring (every_epoch)" in leak.message
    assert not [f for f in findings if leaky["run_id"] in f.runs and f.check in ("integrity",
                                                                                       "rederivable")]


def test_unpinned_and_overlapping_splits_are_disclosed(trained: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)

    def unpin(run: Path) -> None:
        edit_json(run / "spec.json", lambda s: s["identity"]["data"].pop("split_digests"))

    unpinned = reseal(root, run_of(resolved, "small_accuracy"), unpin)
    add_claim(resolved, "unpinned", [unpinned])
    # the digits splits share no image; plant a duplicate count to see the report of one
    disclose._split_facts.cache_clear()
    monkeypatch.setattr(disclose.loaders, "overlap_of", lambda _: {"train/val": 0, "train/test": 3,
                                                                   "val/test": 1})
    try:
        found = by_id(disclose.audit(project, resolved, report))
    finally:
        disclose._split_facts.cache_clear()
    assert found["splits:unpinned"].runs == (unpinned["run_id"],)
    assert found["splits:unpinned"].severity == "serious"
    overlap = next(f for f in found.values() if f.id.startswith("splits:overlap-digits"))
    assert "3 train/test" in overlap.message and "1 val/test" in overlap.message
    assert set(overlap.claims) == {"small_accuracy", "wide_beats_small", "best_of_four"}
    assert overlap.severity == "warning"  # a partial overlap inflates held-out scores

    # a test set wholly contained in training is no held-out set at all: serious
    disclose._split_facts.cache_clear()
    monkeypatch.setattr(disclose.loaders, "overlap_of", lambda data: {
        "train/val": 0, "train/test": len(data.splits["test"].y), "val/test": 0})
    try:
        found = by_id(disclose.audit(project, resolved, report))
    finally:
        disclose._split_facts.cache_clear()
    full = next(f for f in found.values() if f.id.startswith("splits:overlap-digits"))
    assert full.severity == "serious"
    assert f"the features of all {full.evidence['sizes']['test']} test samples also occur in train" \
        in full.message
    assert "memorisation, not generalisation" in full.message


def test_numbers_that_cannot_be_rederived_hand_typed_and_waived(trained: Path) -> None:
    project, resolved, report = inputs(trained)
    resolved = copy.deepcopy(resolved)
    real = resolved["claims"][0]["runs"][0]
    add_claim(resolved, "wrong_digest", [{**real, "results_digest": "0" * 64}])
    add_claim(resolved, "gone", [{"run_id": "0123456789abcdef", "results_digest": "1" * 64},
                                 {"run_id": "../../etc", "results_digest": "2" * 64}])
    typed = [HandTypedNumber(str(project.root / "paper" / "paper.md.j2"), 12, 5, "97.3%")]
    waiver = Waiver("CHANGELOG.md", None, "small_accuracy", "the changelog keeps the old number")
    found = by_id(disclose.audit(project, resolved, report, hand_typed=typed, waivers=[waiver]))

    assert "0000000000000000" in found[f"rederivable:{real['run_id']}"].message
    assert found[f"rederivable:{real['run_id']}"].claims == ("wrong_digest",)
    assert "missing from runs/" in found["rederivable:0123456789abcdef"].message
    assert found["rederivable:../../etc"].claims == ("gone",)
    hand = found["hand_typed:paper/paper.md.j2:12:5"]
    assert hand.scope == "project" and "'97.3%'" in hand.message
    assert set(hand.claims) == {c["id"] for c in resolved["claims"]}  # project-wide: every claim
    waived = found["waiver:small_accuracy@CHANGELOG.md"]
    assert waived.severity == "info" and "the changelog keeps the old number" in waived.message


# --------------------------------------------------------------------------- outputs and input errors


def test_outputs_validate_and_are_byte_identical_on_a_rerun(trained: Path, tmp_path: Path) -> None:
    project, resolved, report = inputs(trained)
    typed = [HandTypedNumber("paper/paper.md.j2", 3, 1, "42")]
    out = tmp_path / "disclosures"
    md, js = disclose.write_disclosures(project, disclose.audit(project, resolved, report, hand_typed=typed),
                                        out, resolved_claims=resolved)
    first = md.read_bytes(), js.read_bytes()
    mtimes = md.stat().st_mtime_ns, js.stat().st_mtime_ns
    disclose.write_disclosures(project, disclose.audit(project, resolved, report, hand_typed=typed), out,
                               resolved_claims=resolved)
    assert (md.read_bytes(), js.read_bytes()) == first
    assert (md.stat().st_mtime_ns, js.stat().st_mtime_ns) == mtimes  # unchanged bytes are not rewritten

    document = json.loads(js.read_text("utf-8"))
    validate(document, "disclosures", js)
    assert [f["id"] for f in document["findings"]] == sorted(f["id"] for f in document["findings"])
    assert [c["id"] for c in document["claims"]] == ["small_accuracy", "wide_beats_small", "best_of_four"]
    s = document["summary"]
    assert s["total"] == len(document["findings"]) == s["serious"] + s["warning"] + s["info"]
    text = md.read_text("utf-8")
    assert text.startswith("# Disclosures\n\n" + f"{s['total']} finding(s): {s['serious']} serious")
    assert "## Claim `best_of_four`" in text and "The best of four runs is expected to reach" in text
    assert text.index("## Claim `small_accuracy`") < text.index("## Project-wide") < text.index("'42'")
    assert str(tmp_path) not in text and str(trained) not in js.read_text("utf-8")


def test_only_malformed_input_raises(trained: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, resolved, report = inputs(trained)
    with pytest.raises(BadInputError, match="claims"):
        disclose.audit(project, {"claims": "not a list"}, report)
    with pytest.raises(BadInputError, match="id"):
        disclose.audit(project, {"claims": [{"statement": "no id"}]}, report)
    # no runs, no report entries and no figures audit to nothing but the working tree's state
    # (this project keeps an uncommitted trainer edit on purpose)
    assert [f.id for f in disclose.audit(project, {"claims": []}, {})] == ["git:dirty-inputs"]

    # a check that cannot finish is disclosed as a gap, not raised: the build goes on
    def broken(env: Any) -> Any:
        raise ValueError("unreadable environment record")

    monkeypatch.setattr(disclose, "environment_fingerprint", broken)
    gap = by_id(disclose.audit(project, resolved, report))["environment:incomplete"]
    assert gap.severity == "serious" and gap.scope == "project" and "unreadable" in gap.message


def test_a_run_resumed_outside_the_engine_is_disclosed(trained: Path, tmp_path: Path) -> None:
    root = copy_project(trained, tmp_path)
    project, resolved, report = inputs(root)
    victim = run_of(resolved, "small_accuracy")
    outside = reseal(root, victim, lambda staging: edit_json(
        staging / "results.json", lambda r: r.update(resumed_outside_engine=True, loop="own")))
    add_claim(resolved, "hurried", [outside])
    found = by_id(disclose.audit(project, resolved, report))
    finding = found["integrity:resumed-outside-engine"]
    assert finding.severity == "warning" and finding.runs == (outside["run_id"],)
    assert "resumed outside the engine: not verified" in finding.message
    assert finding.claims == ("hurried",)
