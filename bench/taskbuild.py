"""What building doit's task list costs, per standard task creator, after one experiment edit.

    python bench/taskbuild.py [--size 10000] [--repeats 3]

Uses the evidence project of ``bench/harness.py`` at N (``<workdir>/<N>/evidence``, made with
``--prepare-only`` if missing). Each repeat toggles one grid value of the experiment (one run key
changes, as in the edit loop's first row), then a fresh process loads the project's ``dodo.py``
and calls each task creator of :mod:`evidence.tasks.standard` in doit's order, timing each until
its last task dict: the part of an edit's overhead that is the task list. Prints medians; writes
nothing into results.md (the edit-loop sections carry the totals).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

import common
import harness
import projects

CREATORS = ("task_train", "task_fsck", "task_figures", "task_tables", "task_verify", "task_deliver")

PROBE = """
import importlib.util, json, sys, time
sys.argv = ["doit", "list"]  # not a plain run: the no-op index never stands in
start = time.perf_counter()
spec = importlib.util.spec_from_file_location("dodo", "dodo.py")
dodo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dodo)
out = {"import dodo.py": time.perf_counter() - start}
for name in %r:
    t = time.perf_counter()
    made = getattr(dodo, name)()
    count = 1 if isinstance(made, dict) else sum(1 for _ in made)
    out[name] = time.perf_counter() - t
    out[name + " dicts"] = count
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=harness.BENCH / ".work")
    parser.add_argument("--engine-rev", default=None,
                        help="the engine as committed at this git revision (default: the working tree)")
    args = parser.parse_args(argv)
    harness_args = harness.parse(["--sizes", str(args.size), "--tools", "evidence",
                                  "--workdir", str(args.workdir.resolve())])
    harness_args.engine = common.snapshot_engine(args.workdir.resolve(), args.engine_rev)
    size = harness.Size(args.size, args.workdir.resolve() / str(args.size), ["evidence"], harness_args)
    size.generate()
    harness.bench_size(size, 0, 0, 3600.0, prepare_only=True)
    folder = size.folder("evidence")
    samples: list[dict[str, float]] = []
    for _ in range(args.repeats):
        projects.evidence_toggle(folder)
        done = subprocess.run([sys.executable, "-c", PROBE % (CREATORS,)], cwd=folder,
                              env=size.env_of("evidence"), capture_output=True, text=True, check=True)
        samples.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"N={args.size:,}; {common.machine()}; medians of {args.repeats} (one experiment edit each)")
    for name in ("import dodo.py", *CREATORS):
        dicts = f"  {int(samples[0][name + ' dicts']):>6} task dicts" if name in CREATORS else ""
        print(f"  {name:<16} {statistics.median(s[name] for s in samples):7.3f} s{dicts}")
    total = statistics.median(sum(s[c] for c in CREATORS) for s in samples)
    print(f"  {'all creators':<16} {total:7.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
