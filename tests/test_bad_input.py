"""Every file a user writes, however malformed, is one clear error: no traceback, no hang, no write.

A seeded fuzz of each user file (experiments/*.toml, presets.toml, comparisons.toml,
prices.toml, evidence.toml): random byte edits, wrong types, unknown keys, huge values,
nan/inf, binary and Latin-1 files, deep nesting. Each variant is loaded by the engine code that
reads it while doit builds its task list; the only exception allowed out is an
:class:`~evidence.core.errors.EvidenceError` (doit prints it as one ``ERROR:`` line, exit 3),
each variant must finish within a few seconds, and nothing is written under runs/.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, TINY_EXPERIMENT

from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.project import Project
from evidence.core.schema import read_toml
from evidence.core.settings import load_settings
from evidence.deliver.prices import load_prices
from evidence.experiments.presets import load_table
from evidence.experiments.spec import expand
from evidence.verify.comparisons import load_config

SEED = 20261123
VARIANTS = 200
PER_VARIANT_S = 10

COMPARISONS = """
schema_version = 1

[[comparison]]
id = "wide_vs_small"
description = "The wide MLP beats the small one"
a = { experiment = "tiny", where = { group = "wide" } }
b = { experiment = "tiny", where = { group = "small" } }
metric = "accuracy"
split = "test"
claimed = "a_better"
"""
PRESETS = """
default = "small"
safety_margin = 0.2

[presets.small]
batch_size = 16

[presets.big]
batch_size = 256
"""
PRICES = """
max_age_days = 180

[prices.cpu]
per_hour = 0.0408
unit = "core"
currency = "USD"
checked = 2026-06-17
source = "a dated price list"
"""
SETTINGS = """
[dispatch]
executor = "local"
"""
WEIRD_VALUES: list[Any] = [10**30, -(10**30), float("nan"), float("inf"), "", "x" * 5000, [], {},
                           [[[[1]]]], True, 0, -1, 1e308, "../../etc/passwd", "a\x00b", "ü" * 10]


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value > 0 else "-inf") if abs(value) == float("inf") \
            else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\x00", "\\u0000") + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ }"


def variants(base: str, rng: random.Random) -> Iterator[bytes]:
    lines = base.strip().splitlines()
    yield b"\x00\x01\x02binary\xff\xfe"
    yield "name = \"é\"\n".encode("latin-1") + base.encode()
    yield "\ufeff".encode("utf-16") + base.encode("utf-16")
    yield ("a = " + "[" * 2000 + "]" * 2000 + "\n").encode()
    yield ("x = " + "{ y = " * 600 + "1" + " }" * 600 + "\n").encode()
    yield b""
    for _ in range(VARIANTS):
        kind = rng.randrange(4)
        if kind == 0:  # random byte edits
            data = bytearray(base.encode())
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(data))
                op = rng.randrange(3)
                if op == 0:
                    data[i] = rng.randrange(256)
                elif op == 1:
                    del data[i]
                else:
                    data.insert(i, rng.choice(b'[]{}="\n.,#\\'))
            yield bytes(data)
        elif kind == 1:  # a key's value replaced by a value of a wrong type or size
            edited = list(lines)
            candidates = [i for i, line in enumerate(edited) if " = " in line]
            i = rng.choice(candidates)
            key = edited[i].split(" = ", 1)[0]
            edited[i] = f"{key} = {toml_value(rng.choice(WEIRD_VALUES))}"
            yield "\n".join(edited).encode()
        elif kind == 2:  # an unknown key at some table
            edited = list(lines)
            edited.insert(rng.randrange(len(edited) + 1), f"unknown_{rng.randrange(99)} = 1")
            yield "\n".join(edited).encode()
        else:  # lines dropped or duplicated
            edited = [line for line in lines if rng.random() > 0.15]
            if edited and rng.random() < 0.5:
                edited.append(rng.choice(edited))
            yield "\n".join(edited).encode()


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def fuzz(root: Path, target: Path, base: str, load: Callable[[], Any], seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    counts = {"variants": 0, "accepted": 0, "clear_errors": 0, "tracebacks": 0, "hangs": 0}
    tracebacks: list[str] = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for data in variants(base, rng):
            counts["variants"] += 1
            target.write_bytes(data)
            signal.alarm(PER_VARIANT_S)
            try:
                load()
                counts["accepted"] += 1
            except EvidenceError as error:
                assert str(error).strip(), "an error must say something"
                counts["clear_errors"] += 1
            except Hang:
                counts["hangs"] += 1
            except Exception as error:
                counts["tracebacks"] += 1
                tracebacks.append(f"{type(error).__name__}: {error} <- {data[:120]!r}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not (root / "runs").exists() or not any((root / "runs").iterdir())
    assert counts["tracebacks"] == 0 and counts["hangs"] == 0, "\n".join(tracebacks[:10])
    return counts


@pytest.fixture
def project(make_project: Callable[..., Path]) -> Path:
    root = make_project({"comparisons.toml": COMPARISONS})
    return root


def test_fuzzed_experiment_files(project: Path) -> None:
    path = project / "experiments" / "tiny.toml"
    counts = fuzz(project, path, TINY_EXPERIMENT, lambda: expand(Project.at(project), path), SEED)
    assert counts["clear_errors"] > counts["variants"] // 4  # the fuzz does reach the checks


@pytest.mark.parametrize(("name", "base", "loader"), [
    ("presets.toml", PRESETS, lambda p: load_table(p)),
    ("comparisons.toml", COMPARISONS, lambda p: load_config(p)),
    ("prices.toml", PRICES, lambda p: load_prices(p)),
    ("evidence.toml", SETTINGS, lambda p: load_settings(p)),
])
def test_fuzzed_project_files(project: Path, name: str, base: str,
                              loader: Callable[[Project], Any]) -> None:
    path = project / name
    counts = fuzz(project, path, base, lambda: loader(Project.at(project)), SEED + len(name))
    assert counts["variants"] > VARIANTS


def test_binary_latin1_and_deep_files_are_one_line_naming_the_file(tmp_path: Path) -> None:
    cases = {"binary.toml": b"\x00\xff\xfe", "latin.toml": "x = \"é\"".encode("latin-1"),
             "deep.toml": ("a = " + "[" * 5000 + "]" * 5000).encode()}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(BadInputError) as error:
            read_toml(tmp_path / name)
        assert name in str(error.value) and "\n" not in str(error.value)


def test_nan_in_a_config_names_the_field(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": TINY_EXPERIMENT.replace("lr = 0.1", "lr = nan")})
    with pytest.raises(BadInputError) as error:
        expand(Project.at(root), root / "experiments" / "tiny.toml")
    assert error.value.field == "config.lr" and "finite" in str(error.value)


def test_an_unknown_key_lists_the_allowed_ones(make_project: Callable[..., Path]) -> None:
    root = make_project({"experiments/tiny.toml": TINY_EXPERIMENT.replace("[checkpoint]",
                                                                             "[checkpoint]\nevery_step = 3")})
    with pytest.raises(BadInputError, match="allowed here are every_seconds, every_steps, keep"):
        expand(Project.at(root), root / "experiments" / "tiny.toml")


@pytest.mark.slow
def test_auto_preset_with_a_huge_config_is_an_error_not_a_hang(make_project: Callable[..., Path]) -> None:
    """`preset = "auto"` builds the trainer to estimate memory; a model without end must not hang
    `doit list` (it runs in a child process with a time limit) and nothing trains."""
    experiment = (TINY_EXPERIMENT.replace('trainer = "mlp"', 'trainer = "mlp"\npreset = "auto"')
                  .replace("hidden = 16", "hidden = 16\nlayers = 100000000"))
    root = make_project({"experiments/tiny.toml": experiment, "presets.toml": PRESETS})
    env = {"EVIDENCE_PRESET_TIMEOUT": "20", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    listed = subprocess.run([sys.executable, "-m", "doit", "list"], cwd=root, capture_output=True, text=True,
                            timeout=120, env=env)
    assert listed.returncode == 3, listed.stdout + listed.stderr
    assert "Traceback" not in listed.stderr and "preset" in listed.stderr
    assert not (root / "runs").exists()


def test_a_trainer_may_declare_its_config_schema(make_project: Callable[..., Path]) -> None:
    """trainers/<name>.schema.json: a wrong type or range is an error when the experiment loads."""
    import json

    root = make_project({"experiments/tiny.toml": TINY_EXPERIMENT.replace("hidden = 16", 'hidden = "wide"')})
    (root / "trainers" / "mlp.schema.json").write_text(json.dumps({
        "type": "object", "properties": {"hidden": {"type": "integer", "minimum": 1},
                                         "lr": {"type": "number", "exclusiveMinimum": 0}}}))
    with pytest.raises(BadInputError) as error:
        expand(Project.at(root), root / "experiments" / "tiny.toml")
    assert error.value.field == "config.hidden" and "integer" in str(error.value)
    (root / "experiments" / "tiny.toml").write_text(TINY_EXPERIMENT.replace("lr = 0.1", "lr = -1"))
    with pytest.raises(BadInputError) as error:
        expand(Project.at(root), root / "experiments" / "tiny.toml")
    assert error.value.field == "config.lr"
    (root / "experiments" / "tiny.toml").write_text(TINY_EXPERIMENT)
    assert len(expand(Project.at(root), root / "experiments" / "tiny.toml")) == 4


def test_a_malformed_prices_file_is_an_error_before_anything_runs(make_project: Callable[..., Path]) -> None:
    from conftest import doit

    evidence = (REPO / "EVIDENCE.json").read_text()
    root = make_project({"prices.toml": "currency = 12\n", "EVIDENCE.json": evidence})
    listed = doit(root, "list")
    assert listed.returncode == 3 and "prices.toml" in listed.stderr and "Traceback" not in listed.stderr


# ---------------------------------------------------------------- issue 29, item 9: one reader

#: Every file of an `evidence init` project the engine reads while doit builds its task list.
READ_AT_LOAD = ("EVIDENCE.json", "comparisons.toml", "figures/results/figure.toml",
                "tables/results/table.toml", "experiments/main.toml", "paper/paper.md.j2")


def _corrupt(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "latin1":  # the file as an editor with a Latin-1 default saved it
        path.write_bytes(data.replace(b"\n", " caf\xe9 \n".encode("latin-1"), 2))
    elif how == "binary":
        path.write_bytes(data[: len(data) // 2] + b"\x00\x01\x02\xff\xfe" + data[len(data) // 2:])
    elif how == "unparsable":  # a brace or bracket removed halfway down
        text = data.decode()
        at = max(text.rfind("{", 0, len(text) // 2 + 40), text.rfind("[", 0, len(text) // 2 + 40))
        path.write_text(text[:at] + text[at + 1:])


@pytest.mark.parametrize("how", ["latin1", "binary", "unparsable"])
@pytest.mark.parametrize("name", READ_AT_LOAD)
def test_every_file_read_is_one_error_line_naming_it(tmp_path: Path, name: str, how: str) -> None:
    """Encoding and parse errors of every file the engine reads become one ``ERROR:`` line
    naming the file (and the line where known), exit 3; an EVIDENCE.json in Latin-1 ended in a
    UnicodeDecodeError traceback from deliver/claims.py."""
    from evidence.ops.scaffold import init_project

    if how == "unparsable" and name.endswith(".j2"):
        pytest.skip("a template's syntax is Jinja's, checked when it renders (test_deliver_fuzz)")
    root = tmp_path / "p"
    init_project(root, git=False)
    _corrupt(root / name, how)
    done = subprocess.run([sys.executable, "-m", "doit", "list"], cwd=root, capture_output=True,
                          text=True, timeout=120)
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR:")]
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(errors) == 1, done.stderr
    assert name in errors[0], errors[0]
    if how != "unparsable":
        assert "line " in errors[0], errors[0]  # where in the file: the line of the bad byte
