"""The first held-out reconcile corpus (tests/data/reconcile_heldout1), written by someone who
never read reconcile's code, scored the way its scorer does: a drift counts when its line has a
failing or disclosed finding of its claim; a decoy counts as flagged when its line has one.

Two labels are read as decided: the example ships strict mode, so a correct number that is not
bound is ``unbound`` by design (not a flagged decoy); a correct hand-typed result in a ``.tex``
paper source is ``hand_typed`` as in a ``.md.j2`` template (those decoys carry
``"expect": "hand_typed"`` in key.json). Settings in a ``.tex`` source (epochs, seeds, the 95%
level, a chance level, a test loss) must not be flagged.

The floors below are the score after the fixes of this corpus: all 71 drifts with the right
claim (as found: 58), no decoy flagged under the two decided labels (as found: 38 of 112 by the
scorer's count). They may only go up.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from evidence.core.project import Project
from evidence.deliver import claims as claims_module
from evidence.deliver import reconcile

DATA = Path(__file__).parent / "data" / "reconcile_heldout1"
DATA2 = Path(__file__).parent / "data" / "reconcile_heldout2"
REPO = Path(__file__).resolve().parent.parent
FLAG = {"drift", "unsupported_wording", "unbound", "overstated_precision", "hand_typed"}
PAPER = (".tex", ".j2")


def _key(data: Path = DATA) -> dict[str, Any]:
    return json.loads((data / "key.json").read_text(encoding="utf-8"))


def _quantities(root: Path) -> list[reconcile.ClaimQuantity]:
    """The claims of a delivered project, as ``evidence reconcile`` resolves them."""
    return claims_module.claim_quantities(claims_module.resolve_all(Project.at(root)))


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled example, cloned and delivered from its sealed runs (no training)."""
    root = tmp_path_factory.mktemp("heldout") / "example"
    subprocess.run(["git", "clone", "-q", str(REPO), str(root)], check=True, capture_output=True)
    done = subprocess.run([_bin("doit"), "deliver"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return root


def _findings(project: str, root: Path, data: Path = DATA) -> list[dict[str, Any]]:
    """reconcile's findings for the corpus documents of a project (strict where it is: the example)."""
    quantities = _quantities(root)
    strict = bool(json.loads((root / "EVIDENCE.json").read_text(encoding="utf-8"))
                  .get("reconcile", {}).get("require_binding", False))
    out: list[dict[str, Any]] = []
    for doc in (d for d in _key(data)["documents"] if d["project"] == project):
        text = (data / doc["file"]).read_text(encoding="utf-8")
        found = reconcile.scan_text(doc["path"], text, quantities, strict=strict)
        out += [{"line": f.line, "claim": f.claim_id, "kind": f.kind, "stated": f.stated, "file": doc["path"]}
                for f in found if f.kind in FLAG and not f.waived]
        if doc["path"].endswith(PAPER):
            out += [{"line": h.line, "claim": None, "kind": "hand_typed", "stated": h.text,
                     "file": doc["path"]}
                    for h in reconcile.hand_typed_numbers(Path(doc["path"]), text, quantities)]
    return out


def _score(project: str, findings: list[dict[str, Any]],
           data: Path = DATA) -> tuple[dict[str, Counter[str]], list[str]]:
    """Per drift class: total and right-claim counts; and the decoys flagged (as 'path:line text')."""
    key = _key(data)
    flagged: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        flagged[(f["file"], f["line"])].append(f)
    per_class: dict[str, Counter[str]] = defaultdict(Counter)
    used: set[int] = set()
    drift_lines = {(d["path"], d["line"]) for d in key["drifts"] if d["project"] == project}
    for d in (d for d in key["drifts"] if d["project"] == project):
        fs = flagged.get((d["path"], d["line"]), [])
        right = [f for f in fs if f["claim"] == d["claim"]
                 or (d["class"] == "hand_typed" and f["kind"] in ("hand_typed", "unbound")
                     and not f["claim"])]
        per_class[d["class"]]["total"] += 1
        if right:
            per_class[d["class"]]["right"] += 1
            used.update(id(f) for f in right)
    # a hand-typed flag that a decoy on its line expects ("expect": "hand_typed") is accounted for
    # by that decoy, not charged to the settings beside it ("seed 0 of 442 patients ... 57.2")
    expected_typed = {(c["path"], c["line"]): set(_numbers(c["text"])) for c in key["decoys"]
                      if c["project"] == project and c.get("expect") == "hand_typed"}
    for (path, line), numbers in expected_typed.items():
        used.update(id(f) for f in flagged.get((path, line), [])
                    if f["kind"] == "hand_typed" and set(_numbers(f["stated"])) & numbers)
    decoys = []
    for c in (c for c in key["decoys"] if c["project"] == project):
        fs = [f for f in flagged.get((c["path"], c["line"]), []) if id(f) not in used
              and f["kind"] != "unbound"  # strict mode by design: a correct unbound number
              and not (c.get("expect") == "hand_typed" and f["kind"] == "hand_typed")]
        if (c["path"], c["line"]) in drift_lines:
            fs = [f for f in fs if set(_numbers(f["stated"])) & set(_numbers(c["text"]))]
        if fs:
            decoys.append(f"{c['path']}:{c['line']} {c['text']}")
    return per_class, decoys


def _numbers(text: str) -> list[str]:
    import re

    return re.findall(r"\d+(?:\.\d+)?", text or "")


def _right(per_class: dict[str, Counter[str]]) -> dict[str, int]:
    return {cls: c["right"] for cls, c in sorted(per_class.items())}


#: Drifts caught with the right claim, per class, in the example (55 drifts, 84 decoys).
EXAMPLE_FLOOR = {"bound_link": 3, "caption": 4, "hand_typed": 5, "multi_claim": 4, "no_keywords": 5,
                 "non_point": 7, "precision": 4, "rounding": 3, "sign": 2, "stale": 4, "structure": 8,
                 "unit": 2, "wording": 4}
EXAMPLE_DECOYS_MAX = 0


@pytest.mark.slow
def test_example_heldout_corpus(example: Path) -> None:
    per_class, decoys = _score("example", _findings("example", example))
    right = _right(per_class)
    assert {cls: right.get(cls, 0) >= n for cls, n in EXAMPLE_FLOOR.items()} == \
        {cls: True for cls in EXAMPLE_FLOOR}, right
    assert len(decoys) <= EXAMPLE_DECOYS_MAX, decoys


@pytest.mark.slow
def test_tex_settings_are_not_hand_typed_but_results_are(example: Path) -> None:
    """Epochs, a chance level, the 95% level, a tolerance: settings; 11.2\\,\\% is the control's value."""
    quantities = _quantities(example)
    text = (DATA / "example" / "paper" / "figures.tex").read_text(encoding="utf-8")
    found = {(h.line, h.text)
             for h in reconcile.hand_typed_numbers(Path("paper/figures.tex"), text, quantities)}
    assert (27, "11.2\\,\\%") in found and (5, "98.9\\%") in found
    assert not {n for n in found if n[1] in ("0.1", "15", "2 points", "95\\%")}, found


#: proj2 (a regression: test RMSE, lower is better), 16 drifts, 28 decoys.
PROJ2_FLOOR = {"caption": 1, "hand_typed": 2, "non_point": 3, "precision": 2, "regression": 3, "sign": 2,
               "structure": 1, "unit": 1, "wording": 1}
PROJ2_DECOYS_MAX = 0


@pytest.mark.slow
def _proj2(root: Path) -> Path:
    """proj2 built as the corpora's setup did: the LaTeX template, two claims added, delivered."""
    subprocess.run([_bin("evidence"), "init", str(root), "--template", "files", "--paper", "latex"],
                   check=True, capture_output=True)
    for name in ("EVIDENCE.json", "comparisons.toml"):
        shutil.copy(DATA / "setup" / name, root / name)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "claims"],
                   cwd=root, check=True, capture_output=True)
    done = subprocess.run([_bin("doit"), "deliver"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return root


@pytest.fixture(scope="module")
def proj2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _proj2(tmp_path_factory.mktemp("heldout") / "proj2")


@pytest.mark.slow
def test_regression_project_heldout_corpus(proj2: Path) -> None:
    per_class, decoys = _score("proj2", _findings("proj2", proj2))
    right = _right(per_class)
    assert {cls: right.get(cls, 0) >= n for cls, n in PROJ2_FLOOR.items()} == \
        {cls: True for cls in PROJ2_FLOOR}, right
    assert len(decoys) <= PROJ2_DECOYS_MAX, decoys


# The second held-out corpus (tests/data/reconcile_heldout2), scored once as found (57 of 72 drifts
# with the right claim, 34 of 124 decoys flagged by the scorer's strict count, 12 under the two
# decided labels), then fixed for its general causes (each with a unit test in
# test_reconcile_classes.py): the budget a number is stated for; settings rows and columns; a row
# header naming another split or an interval end; A minus B of an improvement on a lower-is-better
# metric; a count before any plural noun; a comparison written as its two sides; "respectively" for
# comparisons; prose in HTML blocks; wording about the one comparison a sentence cites. The floors
# are the score after those fixes: 69 of 72 with the right claim, no decoy flagged. This is a
# training score: the corpus is no longer held out.

#: Drifts caught with the right claim, per class, in the example (51 drifts, 82 decoys).
EXAMPLE2_FLOOR = {"bound_link": 2, "caption": 2, "hand_typed": 5, "multi_claim": 4, "no_keywords": 6,
                  "non_point": 7, "precision": 3, "rounding": 2, "sign": 3, "stale": 2, "structure": 7,
                  "unit": 2, "wording": 4}
EXAMPLE2_DECOYS_MAX = 0


@pytest.mark.slow
def test_example_heldout_corpus2(example: Path) -> None:
    per_class, decoys = _score("example", _findings("example", example, DATA2), DATA2)
    right = _right(per_class)
    assert {cls: right.get(cls, 0) >= n for cls, n in EXAMPLE2_FLOOR.items()} == \
        {cls: True for cls in EXAMPLE2_FLOOR}, right
    assert len(decoys) <= EXAMPLE2_DECOYS_MAX, decoys


#: proj2 in the second corpus, 21 drifts, 42 decoys.
PROJ2_2_FLOOR = {"bound_link": 1, "caption": 1, "hand_typed": 2, "multi_claim": 1, "non_point": 3,
                 "precision": 2, "regression": 2, "rounding": 1, "sign": 2, "stale": 2, "structure": 2,
                 "unit": 1, "wording": 1}
PROJ2_2_DECOYS_MAX = 0


@pytest.mark.slow
def test_regression_project_heldout_corpus2(proj2: Path) -> None:
    per_class, decoys = _score("proj2", _findings("proj2", proj2, DATA2), DATA2)
    right = _right(per_class)
    assert {cls: right.get(cls, 0) >= n for cls, n in PROJ2_2_FLOOR.items()} == \
        {cls: True for cls in PROJ2_2_FLOOR}, right
    assert len(decoys) <= PROJ2_2_DECOYS_MAX, decoys


# The third to sixth held-out corpora (tests/data/reconcile_heldout3 to _heldout6) carry a third
# label, ``unbound`` (a correct result typed by hand in the strict example: strict mode's finding,
# neither drift nor decoy), and are scored as their scorer scored them: a decoy counts as flagged
# when a finding on its line that no drift or unbound entry accounts for states one of its numbers
# (or, alone on its line, any finding). As found, before any fix: corpus 3 94 of 114 drifts with the
# right claim and 29 of 343 decoys flagged; corpus 4 109 of 131 and 31 of 675; corpus 5 118 of 132
# and 29 of 557; corpus 6 (the last held-out score) 86 of 101 and 9 of 404. The floors below are the
# training score after the fixes each one prompted, then after a pass over the general causes of
# what all four still missed or flagged (paraphrased subjects, lists of comparisons, P(better) and
# seeds-needed forms, numbers in words, LaTeX structure, denied comparisons), each with a unit test
# in test_reconcile_classes.py written from an invented sentence: from 109/114, 117/131, 127/132,
# 89/101 drifts and 5, 11, 7, 3 decoys to 113/114, 129/131, 131/132, 96/101 and 1, 0, 0, 1.
#
# The seventh corpus (tests/data/reconcile_heldout7; its proj2 setup is reconcile_heldout1's) was
# scored once as found on a held-out basis by its scorer: 106 of 127 drifts with the right claim,
# 19 of 485 decoys flagged. This module's scorer counts the same: example 65/74 and 13 decoys,
# proj2 41/53 and 6 decoys. Its floors are the training score after the fixes it prompted (each
# with a unit test in test_reconcile_classes.py from an invented sentence): example 72/74 and 1
# decoy, proj2 49/53 and none, 121/127 and 1/485 in all; corpora 1 to 6 unchanged.
#
# The eighth corpus (tests/data/reconcile_heldout8; its proj2 setup is reconcile_heldout1's) was
# scored once as found on a held-out basis by its scorer: 111 of 149 drifts with the right claim,
# 11 of 417 decoys flagged. This module's scorer counts the same: example 67/89 and 5 decoys,
# proj2 44/60 and 6 decoys. Its floors are the training score after the fixes it prompted (each
# with a unit test in test_reconcile_classes.py from an invented sentence: confident wording,
# sameness of two sides joined by "and", siunitx settings, lists of three numbers, a difference
# named as the improvement, apposition, the end of a "respectively" list, control synonyms, a
# shared plural noun, halves in words, a moved decimal point, a split passed off as the claim's,
# a percentage after "improvement over", points counted from a stated level):
# example 74/89 and no decoy, proj2 51/60 and 3, 125/149 and 3/417 in all; corpus 6's example
# gains one (63/65); corpora 1 to 7 otherwise unchanged.
#
# A further pass over what corpus 8 still missed or flagged, each general cause fixed with a unit
# test in test_reconcile_classes.py from an invented sentence ("the two models" after a sentence
# about a pair, a side named by its adjective alone, a quoted pair's own number, an interval end
# named later in the sentence, "Its ..." about the sentence before, a number labelled by its own
# words, a relative change with its pair and sign, "Its interval" of the claim stated before, an
# unnamed ± as half-width, SD or SE, a quoted old value, chat lines as messages, a bare decimal with
# a claim's digits, tuning tables by budget rows, the change to a sized variant, "reliable" as a
# predicate, "minus" in words, "has the lower RMSE of the two", a ± named as the SD, "from 64 to
# 128 hidden units", a "Seeds needed ...:" label, a "respectively" list mixing a level and a
# comparison, an old value measured under another setting left alone): corpus 8 from 125/149 and
# 3/417 to 145/149 and 0/417 (example 86/89, proj2 59/60); corpus 7 from 121/127 to 125/127 (example
# 74/74, proj2 51/53); corpus 5's proj2 gains one (48/48), corpus 6 two (example 64/65, proj2
# 35/36), corpus 2's example one (49/51); no corpus flags a decoy more.
#
# The ninth corpus (tests/data/reconcile_heldout9; its proj2 setup is reconcile_heldout1's) was
# scored once as found on a held-out basis by its scorer: 96 of 121 drifts with the right claim,
# 12 of 473 decoys flagged. This module's scorer counts the same: example 59/73 and 9 decoys,
# proj2 37/48 and 3 decoys. Its floors are the training score after the fixes it prompted (each
# with a unit test in test_reconcile_rules9.py from an invented sentence: plain claim ids, A − B
# columns, LaTeX multirow/multicolumn and a caption-defined P, difference labels, worked
# arithmetic, misnamed splits and confidence levels, level verbs, mixed "respectively" lists, a
# misplaced citation reported for both claims, and tallies, planned seeds, chance, thresholds,
# made-up examples and "its own" as no results; a seeds-needed label's list, a base model's value
# under its variant's name): example 72/73 and no decoy, proj2 47/48 and none, 119/121 and
# 0/473 in all; corpus 4's example gains one (77/77); corpora 1 to 8 otherwise unchanged.
#
# The tenth corpus (tests/data/reconcile_heldout10; its proj2 setup is reconcile_heldout1's) was
# scored once as found on a held-out basis by its scorer, after the fixes prompted by corpora 7 to
# 9: 105 of 128 drifts with the right claim, 13 of 386 decoys flagged. This module's scorer counts
# the same: example 64/76 and 7 decoys, proj2 41/52 and 6 decoys. Its floors are the training
# score after the fixes it prompted (each with a unit test in test_reconcile_rules10.py from an
# invented document: a claim macro redefined by hand (\renewcommand, \def) checked as the macro's
# quantity; rows of one run, a median or another work and columns of changes over time hold no
# claim's number; norms ("should sit near 10%", "10% expected"); a named half-width, SD or one-seed
# figure; a percentage beside a metric in its own units; a signed change with its direction; the
# level before a change; a sentence's own head label; P(better) of the reversed comparison and
# certainty; one number said of every listed pair or of both models against one side; a moved
# decimal point; "ahead of"/"behind"; a quoted assertion rejected; the size a variant adds as what
# acts; a bound citation under another split or confidence level; "[1](#claim:x)" no citation mark;
# "tie"; a result on the validation split; the mean baseline as a regression control; a percent
# sign after an interval's closing bracket):
# example 74/76 and no decoy, proj2 49/52 and none, 123/128 and 0/386 in all; corpora 1 to 9
# unchanged.
#
# The eleventh corpus (tests/data/reconcile_heldout11; its proj2 setup is reconcile_heldout1's) was
# scored once as found on a held-out basis by its scorer, after the fixes prompted by corpora 7 to
# 10: 89 of 112 drifts with the right claim, 25 of 463 decoys flagged (a review of another paper
# and a poster with decimal commas drew most). This module's scorer counts the same: example 58/66
# and 9 decoys, proj2 31/46 and 16 decoys. Its floors are the training score after the fixes it
# prompted (each with a unit test in test_reconcile_rules11.py from an invented document: a Jinja
# branch that never renders; an ellipsis range; what a reviewed paper or most papers report; the
# interval right after a value no claim takes; a median; a "vs. X" column and a cell whose row and
# column name both sides; a grant's reference number; a t quantity and the number after its "vs";
# two sides and two numbers joined by "and" or "−"; the operands of a subtraction; a planned seed
# count; a win taken back later in its sentence; another work's models; a possessor's metric; the
# ends of a range beside an SD and a colon list naming its own metric; a LaTeX command's optional
# argument; "A minus B = x"; "statistically tied"; {{ ci() }} under another level; an interval
# macro redefined by hand; "4 of 16 configurations" and "at budget four"; a reference's number
# never across a table cell; a row "A over B"): example 63/66 and 2 decoys (an HTML <figure>
# caption, which reconcile reads by design), proj2 38/46 and none, 101/112 and 2/463 in all;
# corpora 1 to 10 unchanged.
# The twelfth corpus (tests/data/reconcile_heldout12; its proj2 setup is reconcile_heldout1's) was
# scored once as found, after corpus 11's fixes, before anyone working on reconcile read it:
# example 50/63 and 3 decoys, proj2 31/44 and 2 decoys (81/107 drifts with the right claim, 5/208
# decoys flagged). Its key gives a misused link's own claim as `bound_claim` beside the claim the
# sentence is about; a finding of either counts. Fixed then for its general causes (each with a
# unit test in test_reconcile_rules12.py): another work's result in a template; what a random
# guesser would score; "with all 16" after a templated budget; seed pairs won as P(better); signs in
# words and before a siunitx number; "the same" model after shuffling the labels; "seeds needed
# $\approx 26$" and an elided list of estimates; "was quoted as"; a seeds-needed estimate "for
# width"; a citation after another comparison's two sides or of a level as a change's size; a ± term
# far beyond every spread, after a typed or a cited value; "no difference was found"; "one in five
# right": example 63/63 and no decoy, proj2 37/44 and none (100/107, 0/208); corpora 1 to 11 unchanged.
# The thirteenth corpus (tests/data/reconcile_heldout13) was scored once as found after the fixes
# of corpora 11 and 12: example 49/64 and 1 decoy, proj2 45/54 and 2 decoys (94/118 drifts with
# the right claim, 3/128 decoys flagged). Its key gives a misused citation's claim as `claim` and
# the sentence's as `about`; a finding of either counts. (This module's scorer, rerun on a fresh
# build, counts proj2 at 48/54 and 1 decoy as found.) Fixed then for general causes (each with a
# unit test in test_reconcile_rules13.py): an international phone number; a number refuted as a
# slip ("came from a stale build"); a whole percentage in words; a subject past a clause break no
# side of the wording before it; "not significantly, better"; a seed count the authors ran naming
# no model; "a 14% chance linear is better" without "that"; a share misclassified as an error rate;
# "10% lower than" as a relative change: example 54/64 and no decoy, proj2 52/54 and none
# (106/118, 0/128); corpora 1 to 12 unchanged, drift for drift.
# A finding without a claim (a hand-typed number's) counts only for a `hand_typed` drift: the
# scorer briefly let it count for any drift whose key names no `bound_claim` or `about` (a None
# among the accepted claims), and corpora 12 and 13's floors after their fixes are the counts
# without that slip (12: example 62/63, proj2 36/44; 13: 54/64, 49/54 and one decoy).
# Corpora 14 and 15 (tests/data/reconcile_heldout14, 15; the brief their writers had is
# tests/data/reconcile_brief.md) were scored once as found on acca9a6, after the fixes of corpus
# 13's leftovers: 14 at 70/87 drifts with the right claim and 18/208 decoys flagged, 15 at 71/85
# and 21/150. Fixed for their general causes (test_reconcile_rules14.py): 80/87 and 9 (four of
# them hand-typed non-claim results in paper sources, reported by design), 76/85 and 2. Corpus 16
# was then scored once as found on 8727dcc, the final held-out score of that stop: 76/87 drifts
# with the right claim (87.4%), 2/172 decoys flagged (1 in 86), 4/4 unbound results reported.
# Corpus 14's key names a misused citation's sentence claim `intended_claim`; it is read as `about`.
# Corpus 16 fixed after that score for its general causes (test_reconcile_rules14.py, the last
# section): 84/87 and 1 decoy. Corpus 17 was scored once as found on ced5a75, the final held-out
# score of that stop: 73/87 = 83.9% drifts with the right claim, 7/151 decoys flagged (1 in 22);
# fixed then for its decoys' general causes (the last section of test_reconcile_rules14.py): 2 left.
DATA3 = Path(__file__).parent / "data" / "reconcile_heldout3"
DATA4 = Path(__file__).parent / "data" / "reconcile_heldout4"


def _score_with_unbound(project: str, findings: list[dict[str, Any]],
                        data: Path) -> tuple[int, int, list[str]]:
    """(drifts with the right claim, drifts, decoys flagged as 'path:line text')."""
    scored = score_details(project, findings, data)
    right = sum(r for r, _ in scored["per_class"].values())
    total = sum(t for _, t in scored["per_class"].values())
    return right, total, [f"{c['path']}:{c['line']} {c['text']}" for c, _ in scored["decoys"]]


def score_details(project: str, findings: list[dict[str, Any]], data: Path) -> dict[str, Any]:
    """The held-out scorer's whole answer for one project: per drift class (right, total), the
    missed drifts with the findings on their lines, the flagged decoys with theirs, and the
    unbound results reported (scripts/score_reconcile_corpus.py prints it)."""
    key = _key(data)
    flagged: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        flagged[(f["file"], f["line"])].append(f)
    entries: Counter[tuple[str, int]] = Counter(
        (e["path"], e["line"]) for kind in ("drifts", "decoys", "unbound") for e in key.get(kind, [])
        if e["project"] == project)
    used: set[int] = set()
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for d in (d for d in key["drifts"] if d["project"] == project):
        on = flagged.get((d["path"], d["line"]), [])
        fits = [f for f in on
                if (f["claim"] is not None  # a claimless finding is a hand-typed number's, below
                and f["claim"] in (d["claim"], d.get("bound_claim"), d.get("about")))  # 12, 13: both
                or (d["class"] == "hand_typed" and f["kind"] in ("hand_typed", "unbound") and not f["claim"])]
        per_class[d["class"]][1] += 1
        if fits:
            per_class[d["class"]][0] += 1
            used.update(id(f) for f in fits)
        else:
            missed.append((d, on))

    def on_line(e: dict[str, Any]) -> list[dict[str, Any]]:
        fs = [f for f in flagged.get((e["path"], e["line"]), []) if id(f) not in used]
        if entries[(e["path"], e["line"])] > 1:
            fs = [f for f in fs if set(_numbers(f["stated"])) & set(_numbers(e["text"]))]
        return fs

    unbound = [u for u in key.get("unbound", []) if u["project"] == project]
    unreported = []
    for u in unbound:
        hits = [f for f in on_line(u) if f["kind"] in ("unbound", "hand_typed")]
        used.update(id(f) for f in hits)
        if not hits:
            unreported.append(u)
    decoys = [(c, fs) for c in key["decoys"] if c["project"] == project and (fs := on_line(c))]
    return {"per_class": dict(per_class), "missed": missed, "decoys": decoys,
            "unbound": (len(unbound) - len(unreported), len(unbound)), "unreported": unreported,
            "n_decoys": sum(1 for c in key["decoys"] if c["project"] == project)}


#: (project, corpus): (drifts with the right claim at least, decoys flagged at most).
LATER_FLOORS = {("example", 3): (70, 0), ("proj2", 3): (43, 1),
                ("example", 4): (77, 0), ("proj2", 4): (53, 0),
                ("example", 5): (84, 0), ("proj2", 5): (48, 0),
                ("example", 6): (64, 0), ("proj2", 6): (35, 1),
                ("example", 7): (74, 1), ("proj2", 7): (51, 0),
                ("example", 8): (86, 0), ("proj2", 8): (59, 0),
                ("example", 9): (72, 0), ("proj2", 9): (47, 0),
                # 73: '"The control is far above chance at 11.2%" should say "at chance"' is a
                # quotation the text corrects (corpora 14 to 16 count such as decoys), no statement
                ("example", 10): (73, 0), ("proj2", 10): (49, 0),
                ("example", 11): (63, 2), ("proj2", 11): (39, 0),
                ("example", 12): (62, 0), ("proj2", 12): (40, 0),
                ("example", 13): (58, 0), ("proj2", 13): (52, 1),
                ("example", 14): (47, 8), ("proj2", 14): (33, 1),
                ("example", 15): (49, 0), ("proj2", 15): (32, 2),
                ("example", 16): (50, 1), ("proj2", 16): (34, 0),
                ("example", 17): (49, 2), ("proj2", 17): (28, 0),
                # corpus 18 as found (engine 7cc8c95): 75/107 drifts, 13/175 decoys flagged
                ("example", 18): (60, 0), ("proj2", 18): (34, 1),
                # corpus 19 as found (engine c5aff39, after corpus 18's fixes): 89/109, 10/150
                ("example", 19): (63, 0), ("proj2", 19): (40, 0),
                # corpus 20 as found (engine 7c268ff, after 19's fixes): 87/103, 6/173; its
                # causes fixed since (101/103, 0/173)
                ("example", 20): (60, 0), ("proj2", 20): (41, 0),
                # corpus 21 as found (engine 7aa9b79, after 20's fixes): 96/121, 20/223; its
                # causes fixed since (101/121, 3/223)
                ("example", 21): (50, 1), ("proj2", 21): (51, 2)}
LATER_DATA = {3: DATA3, 4: DATA4, 5: Path(__file__).parent / "data" / "reconcile_heldout5",
              6: Path(__file__).parent / "data" / "reconcile_heldout6",
              7: Path(__file__).parent / "data" / "reconcile_heldout7",
              8: Path(__file__).parent / "data" / "reconcile_heldout8",
              9: Path(__file__).parent / "data" / "reconcile_heldout9",
              10: Path(__file__).parent / "data" / "reconcile_heldout10",
              11: Path(__file__).parent / "data" / "reconcile_heldout11",
              12: Path(__file__).parent / "data" / "reconcile_heldout12",
              13: Path(__file__).parent / "data" / "reconcile_heldout13",
              14: Path(__file__).parent / "data" / "reconcile_heldout14",
              15: Path(__file__).parent / "data" / "reconcile_heldout15",
              16: Path(__file__).parent / "data" / "reconcile_heldout16",
              17: Path(__file__).parent / "data" / "reconcile_heldout17",
              18: Path(__file__).parent / "data" / "reconcile_heldout18",
              19: Path(__file__).parent / "data" / "reconcile_heldout19",
              20: Path(__file__).parent / "data" / "reconcile_heldout20",
              21: Path(__file__).parent / "data" / "reconcile_heldout21"}


@pytest.mark.slow
@pytest.mark.parametrize(("project", "corpus"), sorted(LATER_FLOORS))
def test_later_heldout_corpora(project: str, corpus: int, request: pytest.FixtureRequest) -> None:
    root: Path = request.getfixturevalue(project)  # the delivered example or the regression project
    data = LATER_DATA[corpus]
    right, total, decoys = _score_with_unbound(project, _findings(project, root, data), data)
    floor, most = LATER_FLOORS[(project, corpus)]
    assert right >= floor and len(decoys) <= most, (right, total, decoys)
