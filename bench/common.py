"""Shared by the benchmark scripts: the sectioned bench/results.md, machine, engine snapshot.

bench/results.md is assembled from sections, one per benchmark script.

Each script replaces only its own section (between ``<!-- section:NAME -->`` and
``<!-- /section:NAME -->``) and keeps the others, so the harness, the hashing and training
benchmarks and the no-op profile can be rerun independently. Sections are kept in ``ORDER``.
"""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results.md"
TITLE = "# Benchmarks of the evidence engine"
ORDER = ("intro", "harness", "edit-loop", "edit-loop-10000", "profile", "why", "show", "hashing", "training",
         "warm-worker", "numerics", "remote", "notes")
_SECTION = re.compile(r"<!-- section:([\w-]+) -->\n(.*?)<!-- /section:\1 -->\n", re.S)


def read_sections(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return {m.group(1): m.group(2) for m in _SECTION.finditer(path.read_text("utf-8"))}


def update_section(name: str, body: str, path: Path = RESULTS) -> None:
    """Replace section ``name`` of ``path`` (refusing text with this machine's absolute paths)."""
    leaks = [p for p in {str(REPO), str(Path.home()), "/tmp/"} if p in body]
    if leaks:
        raise SystemExit(f"refusing to write section {name!r} with absolute paths of this machine: {leaks}")
    sections = read_sections(path)
    sections[name] = body.rstrip("\n") + "\n"
    names = [n for n in ORDER if n in sections] + sorted(set(sections) - set(ORDER))
    text = TITLE + "\n\n" + "\n".join(f"<!-- section:{n} -->\n{sections[n]}<!-- /section:{n} -->\n"
                                      for n in names)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, "utf-8")
    os.replace(tmp, path)


def machine() -> str:
    """One line: CPU model, cores, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    memory = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024**2:.0f} GiB"
    except (OSError, ValueError):
        pass
    return (f"{cpu}, {os.cpu_count()} cores, {memory} RAM, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def rel(path: Path) -> str:
    """A path as the report may show it: relative to the repository root, never absolute."""
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return f".../{path.name}"


def engine_state(rev: str | None = None) -> str:
    """The engine's commit, and whether evidence/ has uncommitted changes (read-only git calls)."""
    import subprocess

    if rev:
        done = subprocess.run(["git", "rev-parse", "--short", rev], cwd=REPO, capture_output=True, text=True)
        return f"{done.stdout.strip() or rev} (`--engine-rev {rev}`: the committed engine)"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "evidence"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}{' with uncommitted changes to evidence/' if dirty else ''}"


def snapshot_engine(workdir: Path, rev: str | None = None) -> Path:
    """Copy the evidence package to ``workdir/engine/<digest of its files>`` and import it from there.

    The copy is of this checkout's ``evidence/`` (never whatever ``evidence`` the environment
    happens to import: an editable install of another clone would otherwise be measured), or
    with ``rev`` of the package at that git revision (``git archive``, read-only). Returns the
    folder to put on ``PYTHONPATH`` of child processes, so that every command of one benchmark run sees the
    same engine even while the working tree is being edited. The folder is named by the
    digest of the engine's files, so the same engine always lands at the same path: the
    generated projects' doit tasks depend on engine files by path, and a new path would make
    the next no-op a rebuild.
    """
    import hashlib
    import io
    import shutil
    import subprocess
    import sys
    import tarfile
    import tempfile

    root = workdir.resolve() / "engine"
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    if rev:
        archive = subprocess.run(["git", "archive", "--format=tar", rev, "evidence"], cwd=REPO,
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(staging, filter="data")
    else:
        shutil.copytree(REPO / "evidence", staging / "evidence",
                        ignore=shutil.ignore_patterns("__pycache__"))
    digest = hashlib.sha256()
    for path in sorted(p for p in staging.rglob("*") if p.is_file()):
        digest.update(path.relative_to(staging).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    target = root / digest.hexdigest()[:16]
    if target.exists():
        shutil.rmtree(staging)
    else:
        os.rename(staging, target)
    sys.path.insert(0, str(target))
    for name in [m for m in sys.modules if m == "evidence" or m.startswith("evidence.")]:
        del sys.modules[name]
    return target


def command_line() -> str:
    """This process's command line as typed from the repository root, without absolute paths."""
    import sys

    script = rel(Path(sys.argv[0]))
    args = [a if not Path(a).is_absolute() else rel(Path(a)) for a in sys.argv[1:]]
    return " ".join(["python", script, *args])


def prepare_evidence(workdir: Path, n: int, rev: str | None) -> Path:
    """The harness's evidence project for N, (re)generated and built for this engine if need be.

    The harness regenerates a project whose runs were sealed under another engine's keys, so
    what a caller times afterwards never starts training.
    """
    import subprocess
    import sys

    subprocess.run([sys.executable, str(BENCH / "harness.py"), "--sizes", str(n), "--tools", "evidence",
                    "--prepare-only", "--workdir", str(workdir), *(["--engine-rev", rev] if rev else [])],
                   check=True)
    return workdir / str(n) / "evidence"


def add_run_options(parser: Any) -> None:
    """``--workdir``, ``--out`` and ``--engine-rev``: the options every benchmark script takes."""
    parser.add_argument("--workdir", type=Path, default=BENCH / ".work")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--engine-rev", default=None,
                        help="use the engine as committed at this git revision (default: the working tree)")


def engine_env(engine: Path) -> dict[str, str]:
    """This process's environment for child commands: no EVIDENCE_*/PYTHON* settings of the
    caller's shell, and the engine snapshot ``engine`` first on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVIDENCE_", "PYTHON"))}
    env["PYTHONPATH"] = str(engine)
    return env


def produced_by(rev: str | None) -> str:
    """The opening of a section: the command, when, where and which engine."""
    import datetime as dt

    return (f"Produced by: `{command_line()}`; {dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')};"
            f" {machine()}; engine at commit {engine_state(rev)}.")
