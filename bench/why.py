"""How much ``evidence why TASK`` costs next to ``doit info TASK``, on the harness's evidence project.

    python bench/why.py --sizes 1000 10000 --repeats 5

``doit info TASK`` is the question doit itself answers ("would this task run, and for which
reason"); it loads every task of the project (our dodo.py, every builder) and checks one.
``evidence why TASK`` answers it in the user's terms: for a train task, the sealed run it would
reuse, or which identity field changed (old and new value) since the newest sealed run of the
same label; for any other task it asks ``doit info``. Three questions are timed, each as a pair
(``evidence why`` and ``doit info`` on the same task), interleaved round-robin over the
repeats, after one unmeasured warm-up of each command:

* *train, up to date*: a train task whose run is sealed.
* *train, config changed*: ``lr`` of ``experiments/bench.toml`` changed, so every run key is
  new; ``why`` reads the specs of the sealed runs to name the field that changed. The edit is
  undone at the end (also on failure).
* *figure*: a figure's render task (``why`` hands over to ``doit info``).

It replaces the ``why`` section of ``bench/results.md``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common

LR_LINE = "lr = 0.1\n"
LR_CHANGED = "lr = 0.2\n"


def timed(argv: list[str], folder: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    would_run = done.returncode == 1 and "\nstatus     : run" in done.stdout  # doit info's answer
    if done.returncode != 0 and not would_run:
        raise SystemExit(f"`{' '.join(argv[1:])}` failed in {common.rel(folder)}:\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, done.stdout


def task_names(folder: Path, env: dict[str, str]) -> tuple[str, str]:
    """The first train task and the first figure render task of the project (by ``doit list``)."""
    _, listing = timed([sys.executable, "-m", "doit", "list", "--all", "-q"], folder, env)
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    train = next(n for n in names if n.startswith("train:"))
    render = next(n for n in names if n.startswith("figures:") and n.endswith("/render"))
    return train, render


def commands(train: str, render: str) -> list[tuple[str, str, list[str]]]:
    """(question, tool, argv) for every timed command."""
    why = [sys.executable, "-m", "evidence.cli", "why"]
    info = [sys.executable, "-m", "doit", "info"]
    return [("train, up to date", "evidence why", [*why, train]),
            ("train, up to date", "doit info", [*info, train]),
            ("figure render", "evidence why", [*why, render]),
            ("figure render", "doit info", [*info, render])]


def measure(folder: Path, env: dict[str, str], cases: list[tuple[str, str, list[str]]],
            repeats: int) -> tuple[dict[tuple[str, str], list[float]], dict[tuple[str, str], str]]:
    samples: dict[tuple[str, str], list[float]] = {(q, t): [] for q, t, _ in cases}
    answers = {}
    for question, tool, argv in cases:  # warm-up, and the answer shown in the report
        answers[(question, tool)] = timed(argv, folder, env)[1]
    for r in range(repeats):
        for question, tool, argv in cases[r % len(cases):] + cases[: r % len(cases)]:
            samples[(question, tool)].append(timed(argv, folder, env)[0])
    return samples, answers


def size_lines(n: int, folder: Path, env: dict[str, str], repeats: int) -> list[str]:
    train, render = task_names(folder, env)
    cases = commands(train, render)
    samples, answers = measure(folder, env, cases, repeats)
    experiment = folder / "experiments" / "bench.toml"
    original = experiment.read_text("utf-8")
    if LR_LINE not in original:
        raise SystemExit(f"{common.rel(experiment)} has no line {LR_LINE.strip()!r} to change")
    changed = [(q.replace("up to date", "config changed"), t, argv) for q, t, argv in cases[:2]]
    try:
        experiment.write_text(original.replace(LR_LINE, LR_CHANGED), "utf-8")
        more, more_answers = measure(folder, env, changed, repeats)
    finally:
        experiment.write_text(original, "utf-8")
    samples.update(more)
    answers.update(more_answers)
    lines = ["", f"### N = {n:,} ({n} runs, {n // 10} figures)", "",
             "| question | command | median s | min–max s | × `doit info` |", "|---|---|---:|---:|---:|"]
    for question, tool, argv in [*cases[:2], *changed, *cases[2:]]:
        values = samples[(question, tool)]
        baseline = statistics.median(samples[(question, "doit info")])
        shown = f"{tool} {argv[-1]}"
        lines.append(f"| {question} | `{shown}` | {statistics.median(values):.3f} | "
                     f"{min(values):.3f}–{max(values):.3f} | {statistics.median(values) / baseline:.2f}× |")
    for question in ("train, up to date", "train, config changed"):
        answer = answers[(question, "evidence why")].strip().splitlines()
        lines += ["", f"`evidence why` answered ({question}):", "", "```", *answer[:6], "```"]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=5)
    common.add_run_options(parser)
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve()
    engine = common.snapshot_engine(workdir, args.engine_rev)
    env = common.engine_env(engine)
    lines = ["## `evidence why` vs `doit info`", "",
             common.produced_by(args.engine_rev) + " Both commands"
             " run in the harness's evidence project (fully built); medians of the repeats, the"
             " commands interleaved. × `doit info` is the row's median over `doit info`'s on the"
             " same task in the same state."]
    for n in args.sizes:
        folder = common.prepare_evidence(workdir, n, args.engine_rev)
        lines += size_lines(n, folder, env, args.repeats)
        print("\n".join(lines[-12:]), flush=True)
    common.update_section("why", "\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
