"""A failing delivery leaves build/deliver/ as it was (issue 29 item 10, issue 30 item 10).

Every deliver step writes into a staging folder; the deliverable is published from it, with its
manifest, only when every step succeeded. So a template that fails to render, a report edited
by hand, or any input made unreadable ends the delivery with one clear error and leaves
build/deliver/ byte for byte what it was, and what its MANIFEST.json certifies.

The fuzz test edits every delivery input of a real small project (`evidence init --paper both`,
trained for real) with seeded random damage and runs `doit deliver` after each variant.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import doit

from evidence.core.hashing import digest_file
from evidence.deliver.manifest import manifest_problems

pytestmark = pytest.mark.slow  # trains a project and runs doit deliver over it


def snapshot(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): digest_file(p) for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def delivered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("atomic") / "paper"
    created = subprocess.run([sys.executable, "-m", "evidence.cli", "init", str(root), "--paper", "both"],
                             capture_output=True, text=True)
    assert created.returncode == 0, created.stderr
    result = doit(root, "deliver")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.fixture
def project(delivered: Path, tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(delivered, root, symlinks=True)
    return root


def failed_cleanly(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a failed delivery (asserting there is one and no traceback)."""
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    assert done.returncode in (1, 3), text
    errors = [line for line in text.splitlines()
              if "ERROR:" in line or line.startswith(("DRIFT", "HAND-TYPED"))]
    assert errors, text
    return errors[0]


def retitle(root: Path) -> None:
    """An edit that changes what the paper step writes (the title is in claims.tex and the paper)."""
    path = root / "EVIDENCE.json"
    evidence = json.loads(path.read_text())
    evidence["title"] = "A new title"
    path.write_text(json.dumps(evidence, indent=2))


@pytest.mark.parametrize("broken", ["{{ claim('no-such-id') }}", "{% if %}", "{{ claim( }}"])
def test_a_template_that_fails_leaves_the_deliverable_as_it_was(project: Path, broken: str) -> None:
    out = project / "build/deliver"
    before = snapshot(out)
    retitle(project)
    source = project / "paper/paper.md.j2"
    source.write_text(source.read_text() + f"\nMore text.\n\n{broken}\n")
    done = doit(project, "deliver")
    error = failed_cleanly(done)
    assert "paper/paper.md.j2:" in error, error
    assert snapshot(out) == before  # claims.tex was rewritten before the render failed
    assert manifest_problems(out) == []
    # fixed, the next delivery publishes the new title, and its manifest is true
    source.write_text(source.read_text().replace(broken, ""))
    again = doit(project, "deliver")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "A new title" in (out / "claims.tex").read_text()
    assert "A new title" in (out / "paper.md").read_text()
    assert manifest_problems(out) == []
    assert not (project / "build/deliver.new").exists() and not (project / "build/deliver.old").exists()


def test_a_step_failing_after_the_paper_leaves_the_deliverable_as_it_was(project: Path) -> None:
    """The last step refuses (a file a person put into build/deliver/ would be lost) after the
    paper step has rendered the new title: nothing of it may show in build/deliver/."""
    out = project / "build/deliver"
    (out / "notes.txt").write_text("my own notes, not the build's")
    before = snapshot(out)
    retitle(project)
    done = doit(project, "deliver")
    assert "build/deliver/notes.txt was not written by the build" in failed_cleanly(done)
    assert snapshot(out) == before  # the person's file kept, the old paper still certified
    assert manifest_problems(out) == ["notes.txt is not listed in MANIFEST.json"]
    (out / "notes.txt").unlink()
    assert doit(project, "deliver").returncode == 0
    assert "A new title" in (out / "paper.md").read_text() and manifest_problems(out) == []


def test_publishing_replaces_only_what_changed(project: Path) -> None:
    """A new title changes the paper, not the figures or the run records: their published files
    are left in place (same inode), so a one-value edit costs what it changes."""
    out = project / "build/deliver"
    before = {p.relative_to(out).as_posix(): (p.stat().st_ino, digest_file(p))
              for p in sorted(out.rglob("*")) if p.is_file()}
    retitle(project)
    done = doit(project, "deliver")
    assert done.returncode == 0, done.stdout + done.stderr
    after = {p.relative_to(out).as_posix(): (p.stat().st_ino, digest_file(p))
             for p in sorted(out.rglob("*")) if p.is_file()}
    assert sorted(after) == sorted(before)
    changed = {name for name in after if after[name][1] != before[name][1]}
    assert {"paper.md", "claims.tex", "MANIFEST.json"} <= changed
    kept = [name for name in after if name not in changed]
    assert any(name.startswith("runs/") for name in kept) and any(name.endswith(".png") for name in kept)
    assert [name for name in kept if after[name][0] != before[name][0]] == []  # not even rewritten
    assert manifest_problems(out) == []


def test_a_publish_killed_half_way_is_named_and_finished_by_the_next_delivery(project: Path) -> None:
    """Killed after the new files were copied in and before the manifest: the journal stays, the
    deliverable is reported as an interrupted publish (not as edited files), and the next
    delivery finishes it from the staging folder."""
    out = project / "build/deliver"
    old_manifest = (out / "MANIFEST.json").read_bytes()
    retitle(project)
    assert doit(project, "deliver").returncode == 0
    listed = sorted(json.loads((out / "MANIFEST.json").read_text())["files"])
    # the state a kill leaves: the new files in place, the old manifest, the journal
    (out / "MANIFEST.json").write_bytes(old_manifest)
    (project / "build/deliver.publishing").write_text(json.dumps({"files": listed}))
    problems = manifest_problems(out)
    assert problems and "a publish into deliver/ was interrupted" in problems[0], problems
    done = doit(project, "deliver")
    assert done.returncode == 0, done.stdout + done.stderr
    assert manifest_problems(out) == []
    assert not (project / "build/deliver.publishing").exists()
    assert "A new title" in (out / "paper.md").read_text()


def test_no_op_delivery_stays_a_no_op(project: Path) -> None:
    assert doit(project, "deliver").returncode == 0  # a copy: doit's database names the original
    again = doit(project, "deliver")
    assert again.returncode == 0
    ran = [line for line in again.stdout.splitlines() if line.startswith(".  ")]
    assert ran == [".  deliver:summary"], ran


# --------------------------------------------------------------------------------- fuzz

SEED = 20261125
VARIANTS = 40
#: Every file a person edits after training that delivery reads.
INPUTS = ("EVIDENCE.json", "comparisons.toml", "figures/results/figure.toml", "tables/results/table.toml",
          "paper/paper.md.j2", "paper/paper.tex")


#: Damage a template survives until it renders (after the steps before the paper have run).
TEMPLATE_ERRORS = ("{{ claim('no-such-id') }}", "{% if %}", "{{ figure('nosuch') }}", "{{ claim( }}",
                   "{{ undefined_name }}", "{% for x in %}", "{{ table('results') | nosuchfilter }}")


def mutate(data: bytes, rng: random.Random, name: str) -> tuple[str, bytes]:
    """One seeded damage: characters or lines deleted or inserted, truncation, binary, Latin-1,
    a broken number or a broken path; for a template, half the time a line it fails to render."""
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    if name.endswith(".j2") and rng.random() < 0.5:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(TEMPLATE_ERRORS) + "\n")
        return "template", "".join(lines).encode("utf-8")
    how = rng.choice(["delete-chars", "insert-chars", "delete-line", "insert-line", "truncate", "binary",
                      "latin1", "number", "path"])
    at = rng.randrange(len(text))
    if how == "delete-chars":
        text = text[:at] + text[at + rng.randint(1, 5):]
    elif how == "insert-chars":
        junk = rng.choice(["{", "}", "[", "]", '"', "=", ",", "%", "\\", "{{", "{%", "#"])
        text = text[:at] + junk + text[at:]
    elif how == "delete-line":
        del lines[rng.randrange(len(lines))]
        text = "".join(lines)
    elif how == "insert-line":
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(
            ["junk = [\n", "}\n", "{{ claim('nope') }}\n", "The model is 97.3% accurate.\n",
             "\\begin{itemize}\n", '"x": 1,\n', "[[select]]\n"]))
        text = "".join(lines)
    elif how == "truncate":
        text = text[:at]
    elif how == "number":
        numbers = [i for i, c in enumerate(text) if c.isdigit()]
        if numbers:
            i = rng.choice(numbers)
            text = text[:i] + rng.choice(["x", "1e999", "-", "nan", "99999999999999999999"]) + text[i + 1:]
    elif how == "path":
        for word in ("results", "main", "model_beats_control", "paper", "control"):
            if word in text:
                text = text.replace(word, rng.choice(["../outside", "no such", "r\u00e9sults", "nosuch"]), 1)
                break
    if how == "binary":
        return how, data[:at] + bytes(rng.randrange(256) for _ in range(8)) + b"\x00" + data[at:]
    if how == "latin1":
        return how, data[:at] + "caf\u00e9 \u00b1".encode("latin-1") + data[at:]
    return how, text.encode("utf-8")


def test_fuzzed_delivery_inputs_fail_cleanly_or_deliver(project: Path) -> None:
    rng = random.Random(SEED)
    out = project / "build/deliver"
    originals = {name: (project / name).read_bytes() for name in INPUTS}
    outcomes: dict[str, int] = {}
    for index in range(VARIANTS):
        name = INPUTS[index % len(INPUTS)]
        # with a legitimate edit beside the damage (a new title: claims.tex and the paper change),
        # as a person edits: a step that fails after another wrote would show in build/deliver/
        evidence = json.loads(originals["EVIDENCE.json"])
        evidence["title"] = f"My results, draft {index}"
        (project / "EVIDENCE.json").write_text(json.dumps(evidence, indent=2))
        how, data = mutate((project / name).read_bytes(), rng, name)
        before = snapshot(out)
        (project / name).write_bytes(data)
        done = doit(project, "deliver", timeout=300)
        where = f"variant {index}: {how} of {name}"
        if done.returncode == 0:
            assert manifest_problems(out) == [], where
            outcomes["delivered"] = outcomes.get("delivered", 0) + 1
        else:
            try:
                failed_cleanly(done)
            except AssertionError as error:
                raise AssertionError(f"{where}: {error}") from None
            assert snapshot(out) == before, f"{where}: build/deliver/ changed by a failed delivery"
            assert manifest_problems(out) == [], where
            outcomes[f"exit {done.returncode}"] = outcomes.get(f"exit {done.returncode}", 0) + 1
        for restored in {name, "EVIDENCE.json"}:
            (project / restored).write_bytes(originals[restored])
    print(outcomes)
    assert outcomes.get("exit 3", 0) >= VARIANTS // 4  # the damage was real
    assert outcomes.get("exit 1", 0) >= 2  # and some of it failed a step after others had written
