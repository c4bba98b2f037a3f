"""Each run's own log (evidence.train.runlog): bounded, quiet while the loop runs, tracebacks shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from evidence.core.errors import EXIT_TASK_ERROR
from evidence.core.project import Project
from evidence.experiments.spec import expand_all

# A process that writes through the log like a runner does: loud, then a quiet flood, then loud.
SCRIPT = '''
import sys
from pathlib import Path
from evidence.train import runlog

runlog.MAX_BYTES, runlog.TAIL_BYTES = 20000, 3000
with runlog.RunLog(Path(sys.argv[1])) as log:
    print("engine: starting", flush=True)
    with log.quiet():
        for i in range(2000):
            print(f"progress {i:05d} " + "#" * 40)
        print("loop: done", file=sys.stderr)
    print("engine: sealed", file=sys.stderr, flush=True)
'''


def test_the_log_keeps_head_and_tail_and_the_terminal_sees_only_a_tail(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "run.log"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(log)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    terminal = done.stdout + done.stderr
    assert "engine: starting" in terminal and "engine: sealed" in terminal
    assert "progress 00000" not in terminal and "progress 01999" in terminal  # the tail only
    assert terminal.count("progress ") <= 8 and "loop: done" in terminal
    text = log.read_text()
    assert len(text) < 20000 + 3000 + 200  # bounded
    assert "progress 00000" in text and "progress 01999" in text and "loop: done" in text
    assert "bytes of output left out" in text and text.startswith("==> attempt started")


CRASHING = '''
import sys

def train(ctx):
    for i in range(500):
        print(f"chatter {i}")
    raise SystemExit(2)  # what Lightning's SIGTERMException is
'''

FAILING = '''
def helper(ctx):
    return ctx.data["train"].x.nonexistent

def train(ctx):
    print("about to fail")
    return helper(ctx)
'''


@pytest.mark.slow
@pytest.mark.parametrize(("trainer", "expected"), [(CRASHING, "SystemExit"), (FAILING, "AttributeError")])
def test_a_crash_always_shows_its_traceback_and_the_log_has_it(make_project: Callable[..., Path],
                                                                trainer: str, expected: str) -> None:
    experiment = '''
trainer = "loop"
seeds = [0]
[data]
dataset = "iris"
[smoke]
resume_check = false
'''
    root = make_project({"experiments/tiny.toml": experiment, "trainers/loop.py": trainer})
    [spec] = expand_all(Project.at(root))
    (root / "spec.json").write_text(json.dumps(spec.to_json()))
    done = subprocess.run([sys.executable, "-m", "evidence.train.runner", "--project", str(root),
                           "--spec", str(root / "spec.json")], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "EVIDENCE_PROGRESS": "off"}, timeout=300)
    assert done.returncode != 0
    assert "Traceback (most recent call last)" in done.stderr, done.stderr
    assert expected in done.stderr and "trainers/loop.py" in done.stderr
    assert "chatter 0\n" not in done.stderr  # the flood stays in the log
    [log] = (root / ".evidence" / "logs").glob("*.log")
    assert expected in log.read_text() and "Traceback" in log.read_text()
    if expected == "SystemExit":
        assert done.returncode == EXIT_TASK_ERROR and "the runner crashed with SystemExit" in done.stderr
